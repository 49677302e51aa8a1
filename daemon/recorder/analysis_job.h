/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * analysis_job.c: the automatic analysis of each snapshot (analysis.auto) as the catalog
 * keeps it. The snapshot reader (history_worker.c) analyses a snapshot in the same pass
 * that measures its history; analysis_summary() turns what it read into the entry's
 * "analysis" object, which the sd-event loop stores in the catalog.
 */
#ifndef LATENCYD_ANALYSIS_JOB_H
#define LATENCYD_ANALYSIS_JOB_H

#include <stdint.h>

struct json_object;
struct an_snapshot;

/* Analyses waiting beyond this are refused (the snapshot keeps no analysis, said so). */
#define ANALYSIS_QUEUE_MAX 16

/*
 * The catalog's "analysis" object for a snapshot read with AN_WANT_ANALYSIS in MS
 * milliseconds: status ("done", "partial", "failed"), analysis_ms, events, problems,
 * missing_events, causes [{seq, tracker, tid, comm, summary, explained}], error.
 */
struct json_object *analysis_summary(const struct an_snapshot *s, int64_t ms);

#endif /* LATENCYD_ANALYSIS_JOB_H */
