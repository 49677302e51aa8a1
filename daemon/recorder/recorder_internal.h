/* SPDX-License-Identifier: GPL-2.0-only */
/* Inside the recorder layer: what its files share. Nothing outside daemon/recorder/. */
#ifndef LATENCYD_RECORDER_INTERNAL_H
#define LATENCYD_RECORDER_INTERNAL_H

#include <limits.h>
#include <pthread.h>

#include <latency_tracker.h>

#include "catalog.h"
#include "log.h"
#include "ratelimit.h"
#include "recorder.h"
#include "thread.h"

/*
 * The flight-recorder session, shared by the waiter (records) and the sessiond worker (its
 * other operations); the main loop calls no liblttng-ctl at all.
 */
struct flight_slot {
	/*
	 * PTHREAD_PRIO_INHERIT. Held by every liblttng-ctl call but the worker's creation of a
	 * session, which it makes with none in the slot (no record can run meanwhile).
	 */
	pthread_mutex_t lock;
	struct flight *flight; /* NULL while there is no session */
	/* CLOCK_MONOTONIC since when the worker's check holds the lock inside sessiond; 0: not. */
	_Atomic uint64_t check_since;
	/* Sessions put in the slot so far: an outage between two is told from one that goes on. */
	_Atomic uint64_t sessions;
};

/*
 * sessiond_worker.c: the slot's lock for a record. A check that has been inside sessiond
 * for SLOT_CHECK_WAIT_NS is not waited for: FLIGHT_ERR_SESSIOND_BUSY, the lock not taken.
 */
int flight_slot_lock(struct flight_slot *slot);

/*
 * waiter.c: the realtime thread: poll the notification file, rate-limit (admission.c),
 * record; results.c hands the results over (waiter_internal.h says where the rest is).
 */
enum waiter_result_kind {
	WAITER_SNAPSHOT,   /* causes[0..n): the causes; error < 0 if the record failed */
	WAITER_SUPPRESSED, /* causes[0]: the first of n alerts of one tracker the rate limiter
			      refused */
	WAITER_LOST,	   /* lost: records the reader missed (the kernel said so) */
	WAITER_ADMITTED,   /* causes[0] is about to be recorded as snapshot id (a fleet's
			      publication goes out before the record) */
	WAITER_CALIBRATED, /* the calibration record asked for ended (error < 0: failed) */
	WAITER_STALE,	   /* causes[0]: a peer's alert that went stale in the queue, before
			      the thread took it: not recorded */
};

struct waiter_result {
	struct waiter_result *next;
	enum waiter_result_kind kind;
	uint64_t id;	/* snapshot id, also in the output name */
	char name[256]; /* output name: the snapshot lands in DIR/NAME-DATE-N */
	char incident[PROTO_FLEET_INCIDENT_MAX + 1]; /* in a fleet, else "" */
	int error;				     /* LTTng error of the record, 0 if it worked */
	struct flight_record rec;
	/*
	 * The output of the session that recorded it, a reference; NULL: no session did. Set
	 * before the record and read by a stop that gives up on it (give_up()): atomic, so
	 * that the way to the record takes no lock.
	 */
	struct flight_output *_Atomic output;
	uint64_t wakeup_ns; /* CLOCK_MONOTONIC when poll() returned */
	uint64_t lost;
	bool sampled; /* WAITER_CALIBRATED: a sample of the buffers, not all of them */
	/* The waiter whose pool it goes back to when freed; NULL: from malloc(). */
	struct waiter *pool;
	size_t cap; /* room for this many causes */
	size_t n;
	struct cause causes[];
};

/* A storm's keeper that has not run this long is replaced by another thread (waiter.c). */
#define STORM_TAKEOVER_MS 200

struct waiter_stats {
	uint64_t alerts;	    /* alert records read, and manual requests taken */
	uint64_t snapshots;	    /* records that worked */
	uint64_t failed;	    /* records that failed */
	uint64_t causes;	    /* alerts that are causes of a snapshot (worked or failed) */
	uint64_t suppressed;	    /* alerts the rate limiter refused */
	uint64_t kernel_suppressed; /* alerts the module dropped (record .suppressed) */
	uint64_t lost;		    /* records this reader missed */
	uint64_t garbage;	    /* reads dropped whole: a record in them is not the module's */
	uint64_t peers;		    /* peers' alerts taken */
	/*
	 * What the threads, which do not log, leave the main loop to say (each change is told
	 * through the results' eventfd): results they had no memory for (an alert or request
	 * not recorded, an event not handed over), and threads that left their loop on an
	 * error, the last one's error and the call that failed.
	 */
	uint64_t nomem;
	uint64_t pool_empty; /* results the threads took from malloc(), their pool empty */
	uint64_t unpinned;   /* threads that could not be pinned to their CPU (run anywhere) */
	uint64_t takeovers;  /* storms' keepers that did not run for STORM_TAKEOVER_MS, replaced */
	size_t ended;
	int end_error;
	const char *end_call;
};

struct waiter;

int waiter_new(const char *notify_path, struct flight_slot *slot, const char *prefix,
	       uint64_t first_id, struct waiter **ret);
/* The rate limits of c; FLEET_HOST (NULL: no fleet) names incidents and snapshots. */
int waiter_configure(struct waiter *w, const struct conf *c, const char *fleet_host,
		     uint64_t incident_base);
/*
 * Starts the threads: one per CPU latencyd may run on when PER_CPU (each pinned there), else
 * one. *got_rt: every thread got SCHED_FIFO RT_PRIORITY.
 */
int waiter_start(struct waiter *w, unsigned rt_priority, bool per_cpu, bool *got_rt);
/* The threads started; waiter_get_stats() says how many of them ended on an error. */
size_t waiter_threads(const struct waiter *w);
int waiter_eventfd(const struct waiter *w);
/* Queues a manual record for the thread. -EBUSY when too many are waiting. */
int waiter_request(struct waiter *w, uint64_t seq, pid_t pid, const char *message);
/* Queues a peer's alert for the thread (any thread may call), taking its origin's and the
 * total token. -EBUSY when refused: *refused_by names the budget (PROTO_FLEET_BUDGET_*). */
int waiter_peer(struct waiter *w, const struct proto_fleet_alert *a, uint64_t received_ns,
		const char **refused_by);
struct waiter_result *waiter_take_results(struct waiter *w);
/* Frees the list R; one from a waiter's pool goes back there (before its waiter_free()). */
void waiter_result_free(struct waiter_result *r);
/* tokens: the global bucket's tokens now, -1 when unlimited. */
void waiter_get_stats(struct waiter *w, struct waiter_stats *st, double *tokens);
/* How long the record under way has taken so far (from the slot's lock on), 0: none. */
uint64_t waiter_busy_ns(struct waiter *w);
/* Copies up to MAX per-tracker buckets to OUT; returns how many there are. */
size_t waiter_get_buckets(struct waiter *w, struct recorder_bucket *out, size_t max);
/* Stops the threads, each after the record it is in: its result is left to take. */
void waiter_stop(struct waiter *w);
/*
 * The same, waiting until DEADLINE_NS (CLOCK_MONOTONIC) at most; past it, no thread begins
 * a record any more (one that had an alert to record hands it over failed, with
 * FLIGHT_ERR_ABANDONED). 0: every thread ended, every result is left to take (a thread
 * past its record at the deadline is waited for a little longer). -ETIMEDOUT: a thread is
 * still inside a record (lttng-sessiond does not answer) and is left there; *LEFT is that
 * record as its result, failed with FLIGHT_ERR_ABANDONED, for the caller to free: the
 * thread never hands it over (NULL: no record was under way, and a thread past its record
 * did not end). -ENOMEM: the same, but no memory for *LEFT. Then waiter_free() leaves the
 * waiter to that thread: its memory, its locks (held) and its descriptors stay until the
 * process ends, which must then be by _exit() (recorder_left_running()). May be called
 * again, to wait for the threads left.
 */
int waiter_stop_by(struct waiter *w, uint64_t deadline_ns, struct waiter_result **left);
void waiter_free(struct waiter *w);

/*
 * history_worker.c: the snapshot reader. One normal-priority thread reads each snapshot
 * once (analysis/snapshot.h): its history window always, its analysis too when asked
 * (analysis.auto), both results handed to the main loop in the same job.
 */
struct history_job {
	struct history_job *next;
	uint64_t id; /* the snapshot's catalog id; 0: a calibration snapshot, deleted once read */
	char *path;  /* the snapshot to read */
	uint64_t capacity, subbuf_size; /* the buffers when it was recorded */
	bool analyse;			/* the analysis wanted too */
	bool sampled;			/* a sample of the buffers: rates, no window */
	uint64_t max_memory;		/* analysis.max_memory for its reader */
	/* The history: h (summarized) if error is 0, else err says why. */
	int error;
	bool reader_failed; /* latencyd-reader gave no result: err says why */
	char err[256];
	struct history h;
	/* analyse: the catalog's summary (analysis_job.h), taken by whoever uses it. */
	struct catalog_analysis *analysis;
	uint64_t time; /* unix seconds when read */
};

struct history_worker;

int history_worker_new(struct history_worker **ret);
int history_worker_eventfd(const struct history_worker *w);
/*
 * Queues snapshot ID at PATH for its history and, if ANALYSE is not NULL and *ANALYSE, its
 * analysis in the same pass. With ANALYSIS_QUEUE_MAX analyses waiting the analysis is
 * refused, the history still queued: *ANALYSE says whether the analysis was taken. ID 0 is
 * a calibration record (SAMPLED: a sample of the buffers), deleted once read. Its reader
 * gets at most MAX_MEMORY bytes of address space (0: no bound).
 */
int history_worker_submit(struct history_worker *w, uint64_t id, const char *path,
			  uint64_t capacity, uint64_t subbuf_size, bool sampled, bool *analyse,
			  uint64_t max_memory);
struct history_job *history_worker_take(struct history_worker *w);
/* Readers that gave no result (killed by a signal, garbage...), those taken so far. */
uint64_t history_worker_failed(const struct history_worker *w);
void history_job_free(struct history_job *j);
/* Stops the pass under way (its snapshot is not measured); queued jobs are dropped. */
void history_worker_free(struct history_worker *w);

/*
 * sessiond_worker.c: the session's operations but records, on a thread of their own, one
 * job at a time, the result handed back to the main loop through an eventfd: liblttng-ctl
 * has no timeout, and a sessiond that does not answer must not hold the main loop.
 */
enum session_op {
	SESSION_OP_CREATE,   /* at start, or after the session could not be made */
	SESSION_OP_RECREATE, /* new settings (a reload), new buffers (session.history) */
	SESSION_OP_CHECK,    /* still there? Created again when gone (sessiond restarted) */
	SESSION_OP_UPDATE,   /* output.relayd_timeout applied (no call to sessiond) */
	SESSION_OP_DESTROY,  /* at a stop, the worker's last */
};

struct session_job {
	enum session_op op;
	uint64_t since;		  /* CLOCK_MONOTONIC when handed over */
	struct flight_settings s; /* to create with: the job's copies of every string */
	char **events, *session, *local_dir, *relayd_url;
	uint64_t relayd_timeout_ns; /* SESSION_OP_UPDATE */
	uint64_t resize_from;	    /* a re-size's sub-buffers before it; 0: not a re-size */
	/* The result. */
	int error;	    /* of the create, or of the check's look; 0 if none */
	bool present;	    /* a session is there after the job */
	bool gone;	    /* the check found the session gone (and created it again) */
	bool tried;	    /* a session was to be created: error says why it was not */
	bool created;	    /* a session was created */
	bool replaced;	    /* ... in place of one of its name (left by a killed latencyd) */
	char unprobed[320]; /* flight_relayd_unprobed() of the new session, "" if none */
	char **offered;	    /* the kernel events the loaded probes offer; NULL: unknown */
};

struct sessiond_worker;

/* A job; S (copied; NULL: none) what a session it makes is made with. NULL: no memory. */
struct session_job *session_job_new(enum session_op op, const struct flight_settings *s);
void session_job_free(struct session_job *j);
int sessiond_worker_new(struct flight_slot *slot, struct sessiond_worker **ret);
int sessiond_worker_eventfd(const struct sessiond_worker *w);
/* Hands J (taken) over; the caller hands none other until it took J back. */
void sessiond_worker_submit(struct sessiond_worker *w, struct session_job *j);
/* The job done, with its result (NULL: none yet). */
struct session_job *sessiond_worker_take(struct sessiond_worker *w);
/* Waits until DEADLINE_NS (CLOCK_MONOTONIC) at most for the job to be done: true if it is. */
bool sessiond_worker_wait(struct sessiond_worker *w, uint64_t deadline_ns);
/* The op the thread is inside now (-1: none), *NS for how long. */
int sessiond_worker_busy(struct sessiond_worker *w, uint64_t *ns);
/*
 * Stops the thread after its job (one not begun is dropped), then with DESTROY the session
 * in the slot is destroyed, waiting until DEADLINE_NS at most. -ETIMEDOUT: the thread is
 * still inside liblttng-ctl (or waiting for the slot) and is left there: then
 * sessiond_worker_free() leaves the worker to it, and the slot must stay too.
 */
int sessiond_worker_stop_by(struct sessiond_worker *w, bool destroy, uint64_t deadline_ns);
void sessiond_worker_free(struct sessiond_worker *w);

/* session.c: the LTTng session in its slot, re-created when sessiond loses it. */
#define SESSION_EVENTS_MAX 256
/* sessiond_watch.c: the exit of the lttng-sessiond holding the session, as an event. */
struct sessiond_watch {
	sd_event_source *source; /* on its pidfd; NULL: not watched */
	pid_t pid;
	void (*on_exit)(void *arg); /* called once, from the main loop */
	void *arg;
	unsigned boost;	      /* realtime.sessiond_boost, applied to each sessiond watched */
	pid_t consumerd_gone; /* the sessiond whose lttng-consumerd was said gone */
};
/* Watches the sessiond of the pid file (again, if its pid changed); -errno: not watched. */
int sessiond_watch_start(struct sessiond_watch *w, sd_event *event);
void sessiond_watch_stop(struct sessiond_watch *w);
/* sessiond_consumerd.c, after a failed record: says once when the sessiond watched has lost
 * its lttng-consumerd (every record fails until it is restarted). */
void sessiond_watch_consumerd(struct sessiond_watch *w);
/* sessiond_boost.c: sessiond PID's client thread at nice -BOOST (0: left alone); -errno. */
int sessiond_boost(pid_t pid, unsigned boost);

struct session {
	const char *events[SESSION_EVENTS_MAX + 1]; /* what the session records, NULL-ended */
	sd_event *event;
	const struct conf *conf;
	/* Told, on the main loop, each time the session is (re)created. */
	void (*created)(void *arg, bool kernel);
	void *created_arg;
	struct flight_slot slot;
	bool slot_init;
	struct sessiond_worker *worker;
	sd_event_source *worker_done;
	struct session_job *job; /* handed to the worker, not taken back yet; NULL: none */
	/* Runs while the session or sessiond is in doubt, or while sessiond is not watched. */
	sd_event_source *check;
	bool check_due; /* a check waits for the job under way */
	struct sessiond_watch sessiond;
	int error;	    /* last failure to create the session, 0 if none */
	unsigned recreated; /* times the session was re-created */
	/* A reload's settings not handed to the worker yet: it is busy with another job. */
	enum { SESSION_RELOAD_NONE, SESSION_RELOAD_LIVE, SESSION_RELOAD_RECREATE } reload;
	/* With session.history: the sub-buffer size in use and what it was sized from. */
	struct session_sizing {
		uint64_t subbuf_size; /* 0: session.subbuf_size */
		uint64_t pending;     /* a re-size's, until the worker made the session; 0: none */
		double events_per_sec, bytes_per_event;
		unsigned resized;
	} sizing;
};

int session_init(struct session *s, sd_event *event, const struct conf *conf);
/*
 * Starts the sessiond worker and has it create the session, waiting for that until
 * SESSION_START_WAIT_NS at most (then it goes on without it: status says it waits); a
 * failure is retried by the periodic check.
 */
int session_start(struct session *s);
/* The op handed to the worker and not taken back yet (-1: none), *NS for how long. */
int session_operation(const struct session *s, uint64_t *ns);
/* The op the worker is inside now (-1: none, or done, its result not taken), *NS since when. */
int session_busy(const struct session *s, uint64_t *ns);
/* Its name in status ("re-create") and in the log ("re-creation"). */
const char *session_op_name(int op);
const char *session_op_noun(int op);
/* Looks at the session now (a record failed as if it were gone). */
void session_check_soon(struct session *s);
/*
 * The session's settings changed: re-create it (the history recorded so far is lost), or
 * update it live. The op this asked of the worker, queued or handed over (-1: none).
 */
int session_reconfigure(struct session *s, const struct conf *conf, const struct conf *old);
/* Whether there is a session; true when the waiter is recording (it holds the slot). */
bool session_present(struct session *s);
/* The sub-buffer size in use: session.subbuf_size, or what session.history chose. */
uint64_t session_subbuf_size(const struct session *s);
/*
 * With session.history: a measured history H (its busiest CPU's event rate and size)
 * re-sizes the buffers when the history they hold drifts below the target (or far above
 * it), re-creating the session; true if it did (the history recorded so far is lost).
 */
bool session_fit_history(struct session *s, const struct history *h);
void session_done(struct session *s);
/*
 * At exit: the session destroyed by the worker after its job, lttng-sessiond waited for
 * until DEADLINE_NS (CLOCK_MONOTONIC) at most. WAITER_LEFT: the waiter was left inside a
 * record, holding the slot: the session is not destroyed. -ETIMEDOUT: the session is left
 * in sessiond (the next start replaces it), and with it the worker when it did not end:
 * *LEFT_OP is what it was inside (-1: nothing, the waiter holds the session), *LEFT_NS
 * for how long.
 */
int session_done_by(struct session *s, uint64_t deadline_ns, bool waiter_left, int *left_op,
		    uint64_t *left_ns);

/*
 * calibration.c: the calibration record, which measures the history before any alert: a
 * timer of the main loop asks the waiter for it, the snapshot reader measures it.
 */
struct calibration {
	sd_event *event;
	struct session *session;
	struct waiter *waiter;
	struct history_worker *history;
	recorder_event_fn emit; /* the recorder's: a calibration that failed is said */
	void *userdata;
	sd_event_source *timer;
	bool measured;		/* a history was measured: no calibration record is needed */
	char scratch[PATH_MAX]; /* where calibration records go, deleted once read */
};

/* Its scratch directory under CATALOG_DIR, emptied of what a crash left there. */
void calibration_init(struct calibration *cal, struct session *s, const char *catalog_dir,
		      recorder_event_fn emit, void *userdata);
/* The timer: a record asked of W a while after NOW, read by H. */
int calibration_start(struct calibration *cal, sd_event *event, struct waiter *w,
		      struct history_worker *h, uint64_t now);
/* The waiter's WAITER_CALIBRATED: handed to the snapshot reader, or its failure emitted. */
void calibration_ended(struct calibration *cal, const struct waiter_result *res);
/* A history was measured: the record is not needed (until calibration_again()). */
void calibration_measured(struct calibration *cal);
/* After a re-size: the new buffers' window measured again, once they had time to fill. */
void calibration_again(struct calibration *cal);
void calibration_stop(struct calibration *cal);

/* snapshot_entry.c: what the recorder knows of a snapshot, as its catalog entry. */
/* The entry of record RES (its output at PATH, NULL: none; OUT the output of the session
 * that recorded it), DETECT_NS after its first cause, in *E; 0 or -ENOMEM. */
int snapshot_entry(const struct waiter_result *res, const struct flight_output *out,
		   const char *path, uint64_t detect_ns, struct catalog_entry *e);
/* The history job J measured, as the entry keeps it (NULL: no memory). */
struct catalog_history *history_entry(const struct history_job *j, uint64_t expected_ns);

#endif /* LATENCYD_RECORDER_INTERNAL_H */
