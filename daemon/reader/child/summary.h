/* SPDX-License-Identifier: GPL-2.0-only */
/* summary.c: what latencyd-reader found in a snapshot, as the catalog keeps an analysis. */
#ifndef LATENCYD_READER_SUMMARY_H
#define LATENCYD_READER_SUMMARY_H

#include <stdint.h>

struct an_snapshot;
struct catalog_analysis;

/*
 * The catalog's summary of a snapshot read with AN_WANT_ANALYSIS in MS milliseconds:
 * "done", "partial" (the first problems, events missing from the session, a line per
 * alert) or "failed" (why). NULL: no memory.
 */
struct catalog_analysis *analysis_summary(const struct an_snapshot *s, int64_t ms);

#endif /* LATENCYD_READER_SUMMARY_H */
