/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What an analysis holds, opaque in the public headers (analysis.h, incident.h): one
 * snapshot's result (result.c) and one fleet incident's (incident.c), for output/ to write.
 */
#ifndef LATENCY_ANALYSIS_RESULTS_H
#define LATENCY_ANALYSIS_RESULTS_H

#include <stdbool.h>
#include <stdint.h>

#include "an.h"
#include "analysis.h"
#include "incident.h"

struct an_result {
	char *path;
	struct an_log log;
	struct an_vec dirs;    /* char * */
	struct an_vec causes;  /* struct an_cause */
	struct an_vec tables;  /* struct an_table */
	struct an_vec freq;    /* struct an_table: the distributions (--freq) */
	unsigned resolution;   /* their buckets, 0: not asked for */
	bool io_usage;	       /* the I/O usage tables were asked for */
	struct an_vec missing; /* char *: event classes absent and what that costs */
	struct an_vec names;   /* char *: strings the tables point to */
	uint64_t begin, end;
	/* Alerts meeting the window (causes: the largest of them), outside it, and those whose
	 * interval is garbled (its start after its end: a problem, never explained). */
	size_t alerts_window, alerts_outside, alerts_garbled;
};

/* result.c: an empty result (its log ready to fill), and the analysis of a filled log. */
struct an_result *an_result_new(const char *path);
int an_compute(struct an_result *r, const struct an_options *opt, char **why);
/* The same log computed again over another window (opt), without reading the trace again. */
int an_recompute(struct an_result *r, const struct an_options *opt, char **why);

/* incident.c: each host's snapshot of an incident. */
struct an_incident_part {
	char *path, *label; /* label: the path under the directory searched */
	char *host;	    /* that recorded it (from its name) */
	bool origin;
	bool covers;	     /* a peer's snapshot holds the whole window */
	uint64_t begin, end; /* a peer's window, on its clock */
	struct an_result *res;
	char *why; /* not analysed: why */
};

struct an_incident {
	char *id, *origin, *dir;
	bool origin_found, origin_ambiguous;
	uint64_t begin, end; /* the window, ns since the epoch; end 0: none */
	char *window_source;
	struct an_vec parts; /* struct an_incident_part, by path */
};

#endif /* LATENCY_ANALYSIS_RESULTS_H */
