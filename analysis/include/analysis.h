/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The snapshot analysis: reads an LTTng snapshot (every directory under PATH holding a CTF
 * "metadata" file) with libbabeltrace2, explains each latency_tracker_alert in it (the
 * affected task's states over the alert's interval and the chain of wakeups behind it) and
 * computes lttng-analyses style tables over the whole window. Output as aligned text, as
 * JSON, or as LAMI 1.0 for Trace Compass.
 */
#ifndef LATENCY_ANALYSIS_H
#define LATENCY_ANALYSIS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct json_object;
struct an_result;

struct an_options {
	uint64_t begin_ns, end_ns; /* window (ns from the epoch), 0: the whole trace */
	unsigned limit;		   /* rows per table, 0: the default (AN_LIMIT_DEFAULT) */
	bool tables;		   /* compute the statistics tables */
	unsigned max_alerts;	   /* alerts explained, 0: AN_ALERTS_DEFAULT */
	bool local_only;	   /* an incident: chains not followed across hosts */
	/* The snapshot's catalog entry (borrowed), NULL: none. From it, the kernel stacks
	 * latencyd named at alert time, shown beside the links they explain, and the names of
	 * the block devices. */
	struct json_object *entry;
	/* Called now and then while reading, with the events read so far. */
	void (*progress)(uint64_t events, void *arg);
	void *progress_arg;
};

#define AN_LIMIT_DEFAULT  10
#define AN_ALERTS_DEFAULT 16

/*
 * Analyses the snapshot under path. Returns 0 and a result (maybe partial: damaged or
 * truncated files, missing events; an_result_partial() says so and the result lists the
 * problems), or -errno with *why set to a message naming the problem (nothing readable).
 * The analysis alone: snapshot.h gives it with the history window from the same pass.
 */
int an_analyze(const char *path, const struct an_options *opt, struct an_result **ret, char **why);
void an_result_free(struct an_result *r);
bool an_result_partial(const struct an_result *r);
uint64_t an_result_events(const struct an_result *r);

/* The result as one JSON object (a new reference). */
struct json_object *an_result_json(const struct an_result *r);
/* The result as aligned text. */
void an_result_print(const struct an_result *r, FILE *f);

/* LAMI 1.0: the version line, the metadata object, the results object. */
#define AN_LAMI_VERSION "1.0"
struct json_object *an_lami_metadata(void);
struct json_object *an_lami_results(const struct an_result *r);
struct json_object *an_lami_error(const char *message);
/* Whether the results have a table (LAMI requires one). */
bool an_lami_has_results(const struct an_result *r);

#endif /* LATENCY_ANALYSIS_H */
