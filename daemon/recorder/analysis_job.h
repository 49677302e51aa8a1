/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * analysis_job.c: the automatic analysis of each snapshot (analysis.auto) as the catalog
 * keeps it. latencyd-reader (reader_child.c spawns it) analyses a snapshot in the same
 * pass that measures its history and says the entry's analysis (reader/child/summary.c); the
 * summaries here are those latencyd makes itself, which the sd-event loop hands to the
 * catalog like the reader's.
 */
#ifndef LATENCYD_ANALYSIS_JOB_H
#define LATENCYD_ANALYSIS_JOB_H

#include <stdint.h>

struct catalog_analysis;

/* Analyses waiting beyond this are refused (the snapshot keeps no analysis, said so). */
#define ANALYSIS_QUEUE_MAX 16

/* An analysis that failed after MS milliseconds, for WHY: the reader failed (NULL: no
 * memory). */
struct catalog_analysis *analysis_failed(const char *why, uint64_t ms);
/* The summary of an analysis not made: too many waiting (NULL: no memory). */
struct catalog_analysis *analysis_skipped(void);

#endif /* LATENCYD_ANALYSIS_JOB_H */
