/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * analysis_job.c: the automatic analysis of each snapshot (analysis.auto) as the catalog
 * keeps it. The snapshot reader (history_worker.c) analyses a snapshot in the same pass
 * that measures its history; analysis_summary() turns what it read into the entry's
 * analysis, which the sd-event loop hands to the catalog.
 */
#ifndef LATENCYD_ANALYSIS_JOB_H
#define LATENCYD_ANALYSIS_JOB_H

#include <stdint.h>

struct an_snapshot;
struct catalog_analysis;

/* Analyses waiting beyond this are refused (the snapshot keeps no analysis, said so). */
#define ANALYSIS_QUEUE_MAX 16

/*
 * The catalog's summary of a snapshot read with AN_WANT_ANALYSIS in MS milliseconds:
 * "done", "partial" (the first problems, events missing from the session, a line per
 * alert) or "failed" (why). NULL: no memory.
 */
struct catalog_analysis *analysis_summary(const struct an_snapshot *s, int64_t ms);
/* The summary of an analysis not made: too many waiting (NULL: no memory). */
struct catalog_analysis *analysis_skipped(void);

#endif /* LATENCYD_ANALYSIS_JOB_H */
