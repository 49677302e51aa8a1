/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What a snapshot is: its catalog entry. The recorder fills one when a record ends, the
 * manager adds what only it can know (named kernel stacks, disk names), the catalog keeps
 * it, and entry_codec.c is the one place that spells it in JSON: catalog.json, the replies
 * of list-snapshots and show-snapshot, the snapshot event, and latencyctl reading them back.
 * The keys are proto.h's.
 */
#ifndef LATENCYD_CATALOG_ENTRY_H
#define LATENCYD_CATALOG_ENTRY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <latency_tracker.h>

#include "codec.h"

struct json_object;

/* PROTO_SNAP_*: 0 is failed, what an entry whose status cannot be read counts as. */
enum catalog_status {
	CATALOG_FAILED,
	CATALOG_RECORDING,
	CATALOG_COMPLETE,
};

/*
 * What the last deletion of a local snapshot left on disk (catalog.c), PROTO_DELETION_*: 0
 * is none, what an entry whose state cannot be read counts as. Undeletable and partial
 * are counted as undeletable, held against no retention limit, and checked again.
 */
enum catalog_deletion {
	CATALOG_DELETION_NONE,
	CATALOG_DELETION_UNDELETABLE,	    /* a file of it cannot go: kept whole */
	CATALOG_DELETION_PARTIAL,	    /* failed past its check: what is left cannot go */
	CATALOG_DELETION_PARTIAL_DELETABLE, /* what is left of a partial one, deletable now */
	CATALOG_DELETION_GONE,		    /* its directory removed outside latencyd: 0 bytes */
};

/* A cause's kernel stack, named when the snapshot entered the catalog. */
struct catalog_stack {
	char *kind;    /* PROTO_STACK_* */
	char **frames; /* "function+0xoff/0xsize [module]", innermost first */
	size_t n_frames;
	char **addresses; /* "0x...", only where kernel.kptr_restrict allows */
	size_t n_addresses;
	char *error; /* why the frames are not named, NULL: they are */
};

/*
 * One cause of a snapshot. The three kinds share one shape, told apart by reason
 * (PROTO_REASON_*), so that clients list them alike; each kind writes its own members.
 */
struct catalog_cause {
	char *tracker;
	char *reason;
	uint64_t request; /* manual: latencyctl record's request */
	char *message;	  /* manual: its --reason */
	char *origin;	  /* peer: the host whose alert it was */
	char *incident;	  /* peer: the fleet's incident */
	char *origin_tracker;
	uint64_t seq;
	int64_t pid, tid;
	char *comm;
	uint64_t start_ns, end_ns; /* CLOCK_MONOTONIC: the interval, or when it was taken */
	uint64_t delay_ns, threshold_ns;
	uint64_t start_realtime_ns, end_realtime_ns; /* peer: the origin's interval */
	uint64_t received_to_record_ns;		     /* peer */
	uint64_t data[LATENCY_TRACKER_DATA_WORDS];   /* alert: the tracker's data words */
	struct catalog_stack *stack;		     /* NULL: none */
	struct json_object *extra;		     /* members this latencyd does not know */
};

/* A block device's name when the snapshot was recorded. */
struct catalog_disk {
	char *dev; /* "MAJ:MIN" */
	char *name;
};

struct catalog_stream {
	char *channel;
	int64_t cpu;
	uint64_t events, bytes;
	int64_t first_ns, last_ns;
	uint64_t span_ns;
};

/* How much history the snapshot held (analysis/include/history.h measures it). */
struct catalog_history {
	bool sampled;	    /* a sample of the buffers: their rates, not their window */
	uint64_t window_ns; /* not when sampled */
	bool wrapped;	    /* not when sampled */
	uint64_t events, bytes;
	double events_per_sec, bytes_per_event;
	struct catalog_stream *streams;
	size_t n_streams;
	uint64_t streams_total;
	uint64_t time;
	uint64_t buffer_bytes_per_cpu, expected_window_ns;
};

struct catalog_analysis_cause {
	uint64_t seq;
	char *tracker;
	int64_t tid;
	char *comm;
	char *summary;
	double explained;
};

/* The automatic analysis' summary (recorder/analysis_job.c). */
struct catalog_analysis {
	uint64_t analysis_ms;
	char *status; /* done, partial, failed, skipped */
	char *error;
	uint64_t events;
	char **problems;
	size_t n_problems;
	char **missing_events;
	size_t n_missing_events;
	struct catalog_analysis_cause *causes;
	size_t n_causes;
};

struct catalog_entry {
	uint64_t id;
	enum catalog_status status;
	uint64_t time; /* unix seconds */
	char *name;    /* the snapshot is DIR/NAME-DATE-N */
	struct catalog_cause *causes;
	size_t n_causes;
	uint64_t causes_total; /* show-snapshot: causes before the cap; else 0 */
	struct catalog_disk *disks;
	size_t n_disks;
	char *incident; /* in a fleet */
	uint64_t detect_to_record_ns, wakeup_to_record_ns, record_ns;
	bool fell_back;	    /* relayd failed: recorded locally */
	char *relayd_error; /* why relayd failed */
	char *error;	    /* a failed record's error, or a note on the record */
	char *path;	    /* local: the directory (a failed one's partial output) */
	char *url;	    /* relayd: where it went */
	char *relayd_path;  /* relayd: where it is there, as far as we know */
	uint64_t bytes;	    /* local: the directory's size */
	/*
	 * A record abandoned at a stop, its output not there yet: the local directory of the
	 * session it was handed to, where lttng-sessiond may still write it (the next start
	 * looks there, whatever output.directory says by then).
	 */
	char *late_directory;
	/* What its last deletion left on disk, and where and why it failed ("PATH: strerror",
	 * a partial one's "; N bytes deleted"; NULL: none failed, or the directory is gone). */
	enum catalog_deletion deletion;
	char *deletion_note;
	struct catalog_history *history;
	struct catalog_analysis *analysis;
	struct json_object *extra; /* members this latencyd does not know */
};

/* How an entry goes out: all of it (catalog.json); for show-snapshot and the snapshot
 * event, its causes capped at max with causes_total; for list-snapshots, the number of
 * causes and the first one instead of the list. */
enum catalog_form {
	CATALOG_FORM_FILE,
	CATALOG_FORM_VIEW,
	CATALOG_FORM_SUMMARY,
};
#define CATALOG_VIEW_CAUSES 100

struct json_object *catalog_entry_to_json(const struct catalog_entry *e, enum catalog_form form,
					  size_t max_causes);
/*
 * A view's last causes dropped until its JSON takes at most BUDGET bytes (a hundred causes
 * with 16-frame stacks exceed a protocol frame); the first ones stay, and "causes_total"
 * still counts them all, which tells a client that some were left out.
 */
void catalog_view_fit(struct json_object *view, size_t budget);
/* Decodes O into E; problems as codec_decode() says. 0, -EINVAL (not an object), -ENOMEM. */
int catalog_entry_from_json(struct json_object *o, struct catalog_entry *e,
			    codec_problem_fn *problem, void *arg);
void catalog_entry_free(struct catalog_entry *e);

struct json_object *catalog_cause_to_json(const struct catalog_cause *c);
int catalog_cause_from_json(struct json_object *o, struct catalog_cause *c,
			    codec_problem_fn *problem, void *arg);
void catalog_cause_free(struct catalog_cause *c);

struct json_object *catalog_history_to_json(const struct catalog_history *h);
/* These free what they are given and it; NULL is nothing to free. */
void catalog_history_free(struct catalog_history *h);
void catalog_analysis_free(struct catalog_analysis *a);
void catalog_stack_free(struct catalog_stack *s);

/* Typed reading of what the analysis wants of an entry. */
/* Disk I as a device number (MAJ << 20 | MIN), false when its name cannot be read. */
bool catalog_entry_disk(const struct catalog_entry *e, size_t i, uint32_t *dev, const char **name);
/* The alert cause with this tracker and kernel sequence number, NULL: none. */
const struct catalog_cause *catalog_entry_alert(const struct catalog_entry *e, const char *tracker,
						uint64_t seq);

/*
 * E's deletion state in words, as the log and a refused deletion say it ("cannot be
 * deleted: NOTE; kept whole"), to free; NULL: none, or no memory.
 */
char *catalog_deletion_text(const struct catalog_entry *e);

/* strdup() that keeps NULL as NULL and says -ENOMEM through *r. */
char *catalog_strdup(const char *s, int *r);

#endif /* LATENCYD_CATALOG_ENTRY_H */
