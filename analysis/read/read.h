/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Reading a snapshot, as the rest of the analysis asks for it: its trace directories found
 * (trace_dirs.c), then one libbabeltrace2 pass over them (reader.c) feeding the history's
 * counter (history.c) and the analysis' decoder (decode.c), whichever is wanted.
 */
#ifndef LATENCY_ANALYSIS_READ_H
#define LATENCY_ANALYSIS_READ_H

#include <stdbool.h>
#include <stdint.h>

#include "an.h"

struct an_options;
struct history;

/*
 * trace_dirs.c: every directory under path holding a regular file "metadata", sorted. What
 * could not be read, or a "metadata" of another kind, is left out: a problem on log when
 * traces were found, else the error.
 */
int an_trace_dirs(const char *path, struct an_vec *dirs, struct an_log *log, char **why);

/* history.c: the history window's counter, each stream's events and times into h. */
struct an_count {
	struct history *h;
	struct an_map streams; /* bt_stream -> index in h->streams + 1 */
	int error;	       /* the first failure: every later call returns it */
};
/* At the end of the pass: h's streams sorted by channel and CPU; the map freed. */
void an_count_done(struct an_count *c);

/*
 * reader.c: one pass over the trace(s) under dirs. Each message goes to the history's
 * counter (count), then to the analysis' decoder (decode); log gets the problems, the
 * events read and the events discarded in any case.
 */
struct an_pass {
	const struct an_options *opt; /* its progress callback; NULL: none */
	bool decode;		      /* the events into the compact log (the analysis) */
	struct an_count *count;	      /* each stream counted (the history); NULL: not wanted */
	const volatile bool *stop;    /* polled between batches: true ends the pass, -ECANCELED */
	/* 0: one graph with babeltrace2's muxer (latencyd's); N: the streams decoded apart in
	 * up to N threads, then merged (parallel.c), the same log faster */
	unsigned threads;
	/*
	 * What the pass cost: graphs built (a damaged trace adds one), sources, stream files
	 * cut between packets (deal.h), messages.
	 */
	unsigned graphs, sources, cuts;
	uint64_t messages;
};
int an_read(struct an_vec *dirs, struct an_pass *pass, struct an_log *log, char **why);
/* parallel.c: an_read() of pass->threads; -EAGAIN: the muxed pass must do it (log untouched). */
int an_read_streams(struct an_vec *dirs, struct an_pass *pass, struct an_log *log, char **why);

#endif /* LATENCY_ANALYSIS_READ_H */
