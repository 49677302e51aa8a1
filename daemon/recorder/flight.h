/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * flight.c: the LTTng flight-recorder session latencyd owns: a snapshot-mode session whose
 * channels overwrite their oldest data, recorded on demand to a local directory or to
 * lttng-relayd, falling back to the local directory when relayd cannot be reached.
 */
#ifndef LATENCYD_FLIGHT_H
#define LATENCYD_FLIGHT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum flight_domain {
	FLIGHT_DOMAIN_KERNEL,
	FLIGHT_DOMAIN_USERSPACE,
};

/* output.relayd_timeout's default: what settings that leave it 0 get. */
#define FLIGHT_RELAYD_TIMEOUT_NS (2000000000ULL)

/*
 * Not LTTng's: a record latencyd stopped waiting for, lttng-sessiond not answering at its
 * stop. Past LTTng's own codes, so that flight_strerror() can name it.
 */
#define FLIGHT_ERR_ABANDONED	 (-100000)
/*
 * Not LTTng's either: a record asked while there is no session in the slot (being created
 * or re-created by the sessiond worker, or not made: the check tries again).
 */
#define FLIGHT_ERR_NO_SESSION	 (-100001)
/*
 * Nor this: a record not tried, the session's check waiting for lttng-sessiond (stopped,
 * hung) in the slot: sessiond serves one client at a time, the record would wait as long.
 */
#define FLIGHT_ERR_SESSIOND_BUSY (-100002)
/* Nor this: a record refused, every snapshot id handed out (CATALOG_ID_MAX). */
#define FLIGHT_ERR_NO_ID	 (-100003)

struct flight_settings {
	const char *session; /* session name */
	enum flight_domain domain;
	uint64_t subbuf_size;	   /* bytes, power of two */
	uint64_t num_subbuf;	   /* power of two, >= 2 */
	const char *const *events; /* tracepoint names (globs allowed), NULL-terminated */
	bool syscalls;		   /* kernel domain: all system calls too */
	const char *local_dir;	   /* absolute path; snapshots land in LOCAL_DIR/NAME-DATE-N */
	const char *relayd_url;	   /* e.g. net://127.0.0.1; NULL: local only */
	bool fallback_local;	   /* relayd failure: record locally instead */
	uint64_t max_size;	   /* bytes per snapshot, 0 = no cap */
	/* How long relayd may take to answer before a record; 0: FLIGHT_RELAYD_TIMEOUT_NS. */
	uint64_t relayd_timeout_ns;
};

/* Where a snapshot went and how long the record call took. */
struct flight_record {
	bool to_relayd;	      /* false: local_dir */
	bool fell_back;	      /* relayd failed, recorded locally */
	int relayd_error;     /* the LTTng error relayd gave, when fell_back */
	uint64_t start_ns;    /* CLOCK_MONOTONIC when the last lttng_snapshot_record was called */
	uint64_t duration_ns; /* of the successful call */
	char relayd_dir[256]; /* to_relayd: flight_relayd_dir() then, "" if unknown */
	/* relayd_error set: why relayd was not used, a sentence ("" when unknown). */
	char relayd_why[320];
	bool relayd_skipped; /* relayd failed recently: not tried (relayd_why says when) */
	bool relayd_down;    /* relayd failed for this record: not retried before retry_ns */
	bool relayd_slow;    /* ... or took longer than relayd_timeout (to_relayd all the same) */
	bool relayd_back;    /* to_relayd after relayd had failed */
	uint64_t retry_ns;   /* relayd_down: CLOCK_MONOTONIC of the next try */
};

struct flight;

/*
 * Where a session's records land and the buffers they hold, as it was created. A record's
 * result keeps it past the session: a reload re-creates the session with other settings
 * while a record is under way, and that record's output is still where the old one put it.
 */
struct flight_output {
	const char *local_dir;
	const char *relayd_url; /* NULL: local only */
	uint64_t subbuf_size, num_subbuf;
};

/*
 * F's output, one more reference to it: no allocation, no failure (the waiter takes it on
 * its way back from a record). The last flight_output_put() frees it; it accepts NULL.
 */
struct flight_output *flight_output_get(const struct flight *f);
/* One more reference to O, which the caller holds one of; NULL gives NULL. */
struct flight_output *flight_output_ref(struct flight_output *o);
void flight_output_put(struct flight_output *o);

/* On failure these return a negative LTTng error code: lttng_strerror() describes it. */
int flight_create(const struct flight_settings *s, struct flight **ret);
int flight_record(struct flight *f, const char *name, struct flight_record *rec);
/*
 * A record to a directory of its own (DIR/NAME-DATE-N), whatever the outputs are, of at
 * most MAX_SIZE bytes (0: the session's own limit, as is a larger one). lttng-sessiond
 * takes the newest packets of every stream that fit, and refuses a size that has no room
 * for one packet of each (LTTNG_ERR_MAX_SIZE_INVALID).
 */
int flight_record_to(struct flight *f, const char *dir, const char *name, uint64_t max_size,
		     struct flight_record *rec);
/* 1: the session exists in the session daemon, 0: gone (sessiond restarted), < 0: error. */
int flight_exists(struct flight *f);
/* Stops and destroys the session (if still there) and frees f; accepts NULL. */
void flight_destroy(struct flight *f);
const char *flight_session_name(const struct flight *f);
/* True when flight_create() replaced a session of the same name (left by a killed latencyd). */
bool flight_replaced(const struct flight *f);
/* With a relayd output: HOSTNAME/SESSION-DATE-TIME, where relayd puts the session's
 * snapshots under its output directory; NULL when unknown. */
const char *flight_relayd_dir(const struct flight *f);
const char *flight_strerror(int err);
/* Why relayd did not get a record: the recorder's sentence, else LTTng's error. */
const char *flight_record_why(const struct flight_record *rec);
/* Whether a record's or a call's ERR says the session (or sessiond) is gone. */
bool flight_session_gone(int err);
/* Applies output.relayd_timeout to the records that follow (under the slot's lock). */
void flight_set_relayd_timeout(struct flight *f, uint64_t ns);
/* Why records to relayd cannot be probed first (an unresolvable host); NULL when they can. */
const char *flight_relayd_unprobed(const struct flight *f);

/*
 * The kernel events the LTTng probes lttng-sessiond has loaded offer (lttng list -k), as a
 * NULL-terminated array of strings, each and the array free()d by the caller; < 0: the
 * LTTng error (no kernel tracer, say).
 */
int flight_kernel_events(char ***ret);

#endif /* LATENCYD_FLIGHT_H */
