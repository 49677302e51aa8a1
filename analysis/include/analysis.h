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
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct json_object;
struct an_result;

/* A block device's name: the trace's statedump of them may have been overwritten. */
struct an_known_disk {
	uint32_t dev; /* MAJ << 20 | MIN, as the block events carry it */
	const char *name;
};
/*
 * An alert's kernel stack, named at alert time: the trace has only raw addresses, which
 * mean nothing once the machine rebooted or a module went.
 */
struct an_known_stack {
	const char *tracker; /* with seq, the alert it belongs to */
	uint64_t seq;
	const char *kind;	   /* "task", "waker", "alert", "in"; NULL: "alert" */
	const char *const *frames; /* innermost first */
	size_t n_frames;
};
/*
 * What latencyd knew when it recorded the snapshot (its catalog entry) and the trace may no
 * longer say. All of it borrowed: the caller decodes the entry, the analysis reads no
 * catalog.
 */
struct an_known {
	const struct an_known_disk *disks;
	size_t n_disks;
	const struct an_known_stack *stacks;
	size_t n_stacks;
};

struct an_options {
	uint64_t begin_ns, end_ns; /* window (ns from the epoch), 0: the whole trace */
	unsigned limit;		   /* rows per table, 0: the default (AN_LIMIT_DEFAULT) */
	bool tables;		   /* compute the statistics tables */
	/* Frequency distributions of the latencies over the window in this many buckets
	 * (AN_FREQ_RESOLUTION_MIN..MAX), 0: none. */
	unsigned freq_resolution;
	bool io_usage;	     /* the processes that read and wrote most (lttng-iousagetop) */
	unsigned max_alerts; /* alerts explained, 0: AN_ALERTS_DEFAULT */
	bool local_only;     /* an incident: chains not followed across hosts */
	/* What latencyd knew of the snapshot (borrowed), NULL: nothing. Its kernel stacks are
	 * shown beside the links they explain, its disks' names where the trace has none. */
	const struct an_known *known;
	/* Threads decoding the snapshot's streams apart, then merged into the same result:
	 * 0 reads it in one babeltrace2 graph with its muxer (latencyd, which keeps to one
	 * thread), 1 stream by stream without the muxer (faster), N in up to N threads. */
	unsigned threads;
	/*
	 * The bytes a trace's metadata file may have, and the event classes it may declare
	 * (0: AN_METADATA_MAX_DEFAULT, AN_EVENT_CLASSES_MAX_DEFAULT). libbabeltrace2 parses it
	 * whole, for each thread, in a time that grows faster than its classes: a kernel
	 * session of every system call has some 1200 in 320 KB, a hostile one of 80k costs
	 * 47 s and 590 MB. A trace over a limit is left out (a problem names it), the others
	 * analysed.
	 */
	uint64_t max_metadata, max_event_classes;
	/* Called now and then while reading, with the events read so far. */
	void (*progress)(uint64_t events, void *arg);
	void *progress_arg;
};

#define AN_LIMIT_DEFAULT	     10
#define AN_ALERTS_DEFAULT	     16
#define AN_FREQ_RESOLUTION_DEFAULT   20
#define AN_FREQ_RESOLUTION_MIN	     1
#define AN_FREQ_RESOLUTION_MAX	     1000
#define AN_THREADS_MAX		     64
#define AN_THREADS_DEFAULT_MAX	     8
#define AN_METADATA_MAX_DEFAULT	     (8ULL << 20)
#define AN_EVENT_CLASSES_MAX_DEFAULT 16384

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
