/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * One reading of a snapshot for what is wanted of it: its history window (history.h), its
 * analysis (analysis.h), or both from the same pass. The trace directories are walked
 * once, one libbabeltrace2 graph reads them (a damaged trace salvaged or left out as
 * analysis.h says), and each message is counted for the history before the analysis
 * decodes it: a snapshot wanted for both costs one decoding, not two.
 */
#ifndef LATENCY_ANALYSIS_SNAPSHOT_H
#define LATENCY_ANALYSIS_SNAPSHOT_H

#include <stdbool.h>
#include <stdint.h>

#include "analysis.h"
#include "history.h"

enum an_want {
	AN_WANT_HISTORY = 1 << 0,  /* each stream's events, bytes, first and last times */
	AN_WANT_ANALYSIS = 1 << 1, /* the alerts explained; the tables if opt->tables */
};

struct an_snapshot {
	/*
	 * AN_WANT_HISTORY: the streams (for history_summarize()) if history_error is 0, else
	 * -errno and why. The history wants a clean pass: a trace left out, salvaged or cut
	 * short (a partial analysis) fails it, naming the first problem.
	 */
	struct history history;
	int history_error;
	char *history_why;
	/* AN_WANT_ANALYSIS: the result if analysis_error is 0, else -errno and why. */
	struct an_result *result;
	int analysis_error;
	char *analysis_why;
	/*
	 * What the pass cost: graphs built (a damaged trace adds one), sources, cuts (stream
	 * files read as pieces, by more than one thread), messages.
	 */
	unsigned graphs, sources, cuts;
	uint64_t messages;
};

/*
 * Reads the snapshot under PATH once for WANT (enum an_want, or-ed). OPT: the analysis'
 * options (NULL: the defaults, tables included); its progress callback is called in both
 * cases. *STOP, if STOP is not NULL, is polled between batches of messages: once true the
 * pass ends and every part wanted fails with -ECANCELED. Returns 0 when every part wanted
 * succeeded, else the first failing part's error (history first); *S holds each part's
 * outcome either way and is freed with an_snapshot_free().
 */
int an_snapshot_read(const char *path, unsigned want, const struct an_options *opt,
		     const volatile bool *stop, struct an_snapshot *s);
void an_snapshot_free(struct an_snapshot *s);

#endif /* LATENCY_ANALYSIS_SNAPSHOT_H */
