/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The flight recorder: the LTTng session (session.c, flight.c), the realtime waiter that
 * records a snapshot per allowed alert (waiter.c, admission.c, ratelimit.c), the snapshot
 * readers that measure each snapshot's history and analyse it (history_worker.c,
 * analysis_job.c), and the calibration record that measures it before any alert
 * (calibration.c).
 * It knows nothing of the catalog's file, the control socket or its clients: what happens
 * is reported through one callback (struct recorder_event), and its state through
 * struct recorder_status.
 */
#ifndef LATENCYD_RECORDER_H
#define LATENCYD_RECORDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <systemd/sd-event.h>

#include "cause.h"
#include "conf.h"
#include "entry.h"
#include "flight.h"
#include "history.h"

struct json_object;

/* The prefix of snapshot names: PREFIX-ID-DATE-N in the output directory. */
#define RECORDER_SNAPSHOT_PREFIX "snap"

enum recorder_event_kind {
	RECORDER_SNAPSHOT,   /* a record was made (or failed): snapshot */
	RECORDER_SUPPRESSED, /* the rate limit refused alerts: suppressed */
	RECORDER_LOST,	     /* the waiter missed records: lost */
	RECORDER_HISTORY,    /* a snapshot's history was measured: history */
	RECORDER_ANALYSIS,   /* a snapshot was analysed (or skipped): analysis */
	RECORDER_ADMITTED,   /* in a fleet, a local cause is being recorded: admitted */
	RECORDER_SESSION,    /* the session was (re)created and records: session */
	RECORDER_STALE,	     /* a peer's alert went stale before its turn, not recorded: stale */
	/*
	 * Every waiter thread stopped on an error (the log said why): no alert is read again
	 * by this process, which has nothing left to do but stop for a restart. No data.
	 */
	RECORDER_BLIND,
};

/*
 * A record made or failed: its catalog entry, filled (status, where, timings, causes,
 * incident), for the callback to complete with what the recorder cannot know (the kernel
 * stacks named, the disks) and take over (catalog_insert()); with what the entry does not
 * keep but the log and the fleet want.
 */
struct recorder_snapshot {
	struct catalog_entry *entry;
	int error; /* the LTTng error of the record, 0 if it worked */
	const struct flight_record *rec;
	/* The local directory of the session that recorded it (a reload may have changed it). */
	const char *directory;
	bool disk_full;		    /* a failed record's directory has less room than a snapshot */
	const struct cause *causes; /* the entry's, as the waiter took them */
	size_t n;
};

struct recorder_history {
	uint64_t id; /* 0: the calibration snapshot */
	int error;   /* the measure failed: err says why */
	const char *err;
	const struct history *h;
	/* What the catalog keeps of it, taken by the callback; NULL on error or no memory. */
	struct catalog_history *entry;
	uint64_t capacity, expected_ns;
	bool sampled; /* a sample of the buffers (calibration): its rates only, not its window */
};

struct recorder_event {
	enum recorder_event_kind kind;
	union {
		struct recorder_snapshot snapshot;
		struct {
			const struct cause *first; /* the first alert of one tracker refused */
			size_t n;		   /* how many alerts it stands for */
		} suppressed;
		uint64_t lost;
		struct recorder_history history;
		struct {
			uint64_t id;
			struct catalog_analysis *summary; /* taken by the callback */
		} analysis;
		struct {
			uint64_t id;
			const char *incident;
			const struct cause *cause;
		} admitted;
		struct {
			bool kernel; /* the kernel domain's */
		} session;
		const struct cause *stale; /* a peer's (CAUSE_PEER) */
	};
};

typedef void (*recorder_event_fn)(const struct recorder_event *ev, void *userdata);

/* The state that status shows. */
#define RECORDER_STATUS_BUCKETS 32
struct recorder_status {
	bool session_present; /* the session exists (or is being recorded) */
	int session_error;    /* last failure to create the session, 0 if none */
	/* The session's operation waiting for lttng-sessiond ("re-create"), NULL: none. */
	const char *session_op;
	uint64_t session_op_ns; /* how long it has waited */
	unsigned recreated;	/* times the session was re-created */
	uint64_t subbuf_size;	/* in use */
	/* session.history: the target (0: none), re-sizes, the rate they were made for */
	uint64_t history_target_ns;
	unsigned resized;
	double sized_events_per_sec, sized_bytes_per_event;
	bool realtime;	       /* the waiter runs at SCHED_FIFO */
	size_t waiter_threads; /* one per CPU, or one */
	size_t waiter_ended;   /* of them, those that stopped on an error (the log says why) */
	struct {
		uint64_t alerts, snapshots, failed, causes, suppressed, kernel_suppressed, lost;
		uint64_t peers;	  /* fleet peers' alerts taken by the waiter */
		uint64_t garbage; /* reads of the notification file dropped: not the module's */
		uint64_t reader_failed; /* latencyd-reader runs that gave no result */
	} counters;
	int64_t detect_last_ns, detect_max_ns; /* of the last and the slowest snapshot */
	double tokens;			       /* the global bucket's tokens, -1 when unlimited */
	struct recorder_bucket {
		char tracker[LATENCY_TRACKER_NAME_LEN + 1];
		double rate, burst, tokens; /* tokens -1 when unlimited */
	} buckets[RECORDER_STATUS_BUCKETS];
	size_t n_buckets;
};

struct recorder;

/* CONF is borrowed: recorder_reconfigure() hands the recorder the next one. */
int recorder_new(sd_event *event, const struct conf *conf, recorder_event_fn fn, void *userdata,
		 struct recorder **ret);
/* Creates the session, starts the waiter and the readers; snapshot ids start at first_id. */
int recorder_start(struct recorder *rc, uint64_t first_id);
/* SIGHUP: apply what can change live; re-create the session if its settings changed. */
void recorder_reconfigure(struct recorder *rc, const struct conf *conf, const struct conf *old);
/* A manual snapshot through the rate limiter; *seq identifies it in events. -EBUSY when
 * too many are waiting, -ENODEV when the recorder does not run. */
int recorder_request(struct recorder *rc, const char *message, pid_t pid, uint64_t *seq);
void recorder_status(struct recorder *rc, struct recorder_status *st);
/*
 * The session's operation handed to lttng-sessiond and not ended yet ("create",
 * "re-create", "check", "update"), *NS for how long; NULL: none, or no recorder.
 */
const char *recorder_session_operation(struct recorder *rc, uint64_t *ns);
/*
 * What the last reload asked of the session, queued or handed to the sessiond worker
 * ("re-create", "update"); NULL: nothing (the operations of others are not its).
 */
const char *recorder_session_pending(struct recorder *rc);
/* How long the realtime waiter has been in its current record, 0: not recording. */
uint64_t recorder_waiter_busy_ns(struct recorder *rc);
/* In a fleet: this host's name, which names incidents and snapshots; NULL: no fleet. A
 * local incident is HOST-N, N = INCIDENT_BASE + its snapshot's id (catalog.h). */
void recorder_set_fleet_host(struct recorder *rc, const char *host, uint64_t incident_base);
/* A peer's alert to record under its origin's and the total bucket; any thread may call it
 * (the fleet's reader thread does). -EBUSY when refused, *refused_by naming the budget
 * (PROTO_FLEET_BUDGET_*: the origin's, the total, the queue); -ENODEV without a recorder. */
int recorder_peer(struct recorder *rc, const struct proto_fleet_alert *a, uint64_t received_ns,
		  const char **refused_by);
/*
 * Ends the record under way (its snapshot to the events) and destroys the session, waiting
 * for lttng-sessiond 10 s at most in all: what it did not answer by then is abandoned,
 * said in the log, a snapshot's record kept in the catalog as failed.
 */
void recorder_free(struct recorder *rc);
/*
 * A stop abandoned a thread inside liblttng-ctl, which may come back at any time: the
 * process must end with _exit(), without the exit-time destructors (liblttng-ctl's among
 * them) that it could meet.
 */
bool recorder_left_running(void);

#endif /* LATENCYD_RECORDER_H */
