/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Inside the waiter: its state and what its files share. waiter.c is the thread (the poll
 * loop, the read of the notification file, the record); admission.c decides which alert
 * gets a snapshot and counts what it refuses; calibration.c is the record taken when idle;
 * results.c hands results to the main loop. recorder_internal.h stays the waiter's
 * interface to the rest of the recorder; nothing but these files includes this.
 */
#ifndef LATENCYD_RECORDER_WAITER_INTERNAL_H
#define LATENCYD_RECORDER_WAITER_INTERNAL_H

#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "recorder_internal.h"

#define READ_RECORDS 128
/*
 * Causes kept per snapshot: what show-snapshot lists. Under a flood, alerts past this many
 * that arrive during one record are refused like any other (they get no snapshot and
 * are counted as suppressed): keeping thousands would make every catalog save and the log
 * grow with the flood.
 */
#define MAX_CAUSES   100
#define MAX_REQUESTS 16 /* manual records waiting for the thread; more are refused (busy) */
#define MAX_PEERS    32 /* peers' alerts waiting for the thread; more are refused */

/* Of them, one origin's at most: a noisy origin never takes a quiet one's place, and an
 * origin's burst of records (latencyctl record, in a row) waits whole. */
#define MAX_PEERS_PER_ORIGIN 8

/* One thread of the waiter: pinned to one CPU, or free to run on any (cpu -1). */
struct waiter_thread {
	struct waiter *w;
	pthread_t thread;
	int cpu;
	unsigned index; /* 0 takes the requests */
	bool joined;
};

struct waiter {
	/* CLOCK_MONOTONIC ns when the record under way began, 0: none (the watchdog's). */
	_Atomic uint64_t busy_since;
	/*
	 * The record under way (its first cause in it), NULL: none. Published before the
	 * record, cleared under lock after it and before the thread changes it again. A stop
	 * that gives up on the threads sets it to a mark under lock, for good: the record
	 * under way, copied first, is the stop's (the thread drops its own result, so that it
	 * is never catalogued twice), and no record begins after that.
	 */
	_Atomic(struct waiter_result *) current;
	size_t n_left;	/* threads a bounded stop left running (one inside a record) */
	int fd;		/* the notification file, one open file for every thread */
	int stop_fd;	/* eventfd: the threads exit */
	int done_fd;	/* eventfd: results are queued */
	int request_fd; /* eventfd: manual records or peers' alerts are queued */
	/* eventfd: a storm is over, the threads that slept through it poll the file again */
	int calm_fd;
	/* A storm: the file is left to one thread, the keeper, which naps between reads;
	 * keeper_ns: when it last ran (CLOCK_MONOTONIC), for the others to take over a keeper
	 * held off its CPU (STORM_TAKEOVER_NS). */
	_Atomic bool storm;
	_Atomic unsigned storm_keeper;
	_Atomic uint64_t keeper_ns;
	struct waiter_thread *threads;
	size_t n_threads;
	/*
	 * PTHREAD_PRIO_INHERIT, held by the thread that reads the file and records: what
	 * follows, up to lock, is that thread's alone.
	 */
	pthread_mutex_t run;
	struct flight_slot *slot;
	char prefix[64]; /* output names: PREFIX-ID, or PREFIX-ID-INCIDENT@HOST in a fleet */
	uint64_t next_id;
	/* The slot's session count when the last record was not tried (no session, sessiond
	 * busy with its check); UNTRIED_NONE when it was tried. */
	uint64_t untried_in;
#define UNTRIED_NONE UINT64_MAX

	/* Read buffer: whole records, plus a partial one a FIFO may leave; unread: [off, len). */
	unsigned char buf[READ_RECORDS * 2 * LATENCY_TRACKER_RECORD_SIZE];
	size_t off, len;

	pthread_mutex_t lock; /* PTHREAD_PRIO_INHERIT: results, rate limiter, counters */
	struct waiter_result *head, **tail;
	struct limits limits;
	char host[PROTO_FLEET_NAME_MAX + 1]; /* in a fleet: this host's name, else "" */
	uint64_t incident_base;		     /* a local incident is HOST-(this + its snapshot id) */
	bool publish;			     /* in a fleet, announce local records */
	uint64_t max_age_ns; /* fleet.max_age: a peer's alert older when taken is stale */
	struct waiter_stats stats;
	struct cause_manual requests[MAX_REQUESTS];
	size_t n_requests;
	struct cause_peer peers[MAX_PEERS];
	size_t n_peers;
	/*
	 * The pool of results (results.c), under lock: one-cause ones and snapshots' (room for
	 * MAX_CAUSES), in one block.
	 */
	struct waiter_result *pool_small, *pool_large;
	void *pool_mem;
	/* A calibration record asked for: to calibrate_dir, at most calibrate_size bytes. */
	bool calibrate;
	char calibrate_dir[PATH_MAX];
	uint64_t calibrate_size;
};

/*
 * waiter.c: the record of RES begins at NOW (the slot is taken next); false: a stop gave up
 * on the threads, no record may begin (RES is not recorded).
 */
bool waiter_record_begins(struct waiter *w, struct waiter_result *res, uint64_t now);
/*
 * The record that began is over: true if its result is still the thread's to hand over;
 * false if a stop took it over meanwhile (the thread frees it and hands nothing over).
 */
bool waiter_record_over(struct waiter *w);
/* A stop gave up on the threads: what a thread still reads is left unrecorded. */
bool waiter_given_up(struct waiter *w);

/*
 * results.c: the list the main loop takes, and the eventfd that tells it; the results the
 * threads make come from a pool (waiter_result_get()).
 */
/* A result from malloc(), with room for N causes. */
struct waiter_result *waiter_result_new(enum waiter_result_kind kind, size_t n);
/*
 * The pool: what the threads make between two takes of the main loop, at most one
 * suppressed result per tracker, a lost one, and per snapshot its announcement and itself.
 */
#define WAITER_POOL_SMALL 32
#define WAITER_POOL_LARGE 4
int waiter_pool_new(struct waiter *w);
void waiter_pool_free(struct waiter *w);
/*
 * A result for the thread, with room for N causes (N > 1: room for MAX_CAUSES), from the
 * waiter's pool: no malloc() on the way to the record, and no free() of the main loop
 * holding the lock of the thread's malloc arena, which is not priority-inheriting. The pool
 * empty (the main loop is late), from malloc() all the same, counted (pool_empty). NULL:
 * no memory.
 */
struct waiter_result *waiter_result_get(struct waiter *w, enum waiter_result_kind kind, size_t n);
/* Appends res (taken) for the main loop; takes w->lock. */
void waiter_push(struct waiter *w, struct waiter_result *res);
/* Wakes the main loop: a counter of what it says changed (waiter_stats). */
void waiter_poke(struct waiter *w);
/* One more of COUNTER, of w->stats, for the main loop to say: counted under w->lock, the
 * main loop woken. */
void waiter_tell(struct waiter *w, uint64_t *counter);
/* A result the thread had no memory for: told (waiter_tell()). */
void waiter_nomem(struct waiter *w);

/* admission.c: the thread's calls; each takes w->lock itself where it needs it. */
/*
 * An alert read from the file: counted, and allowed by the rate limit (true: record it) or
 * suppressed, all under one lock.
 */
bool admission_admit(struct waiter *w, const struct cause *c, uint64_t now);
/* A manual request: whether the rate limit lets it make a snapshot; a peer's alert: true
 * (its budgets were applied as it was queued). */
bool admission_allow(struct waiter *w, struct cause *c, uint64_t now);
/* c gets no snapshot: counted, and reported as suppressed. */
void admission_suppress(struct waiter *w, const struct cause *c);
/* The next queued request into c: manual ones first; false when there is none. */
bool admission_next_request(struct waiter *w, struct cause *c);
/*
 * c, read while res was being recorded and ended before it began, joins res as one more of
 * its causes; with MAX_CAUSES of them (or no memory to grow to it), c is suppressed. Returns
 * res, moved if it grew.
 */
struct waiter_result *admission_join(struct waiter *w, struct waiter_result *res,
				     const struct cause *c);
/*
 * A peer's alert taken from the queue that went stale while it waited (fleet.max_age, as
 * the fleet judges it on arrival): true when it is, its tokens given back and a
 * WAITER_STALE result pushed for its origin's answer; it gets no record then.
 */
bool admission_peer_stale(struct waiter *w, const struct cause *c);
/* c was allowed, but its record was not tried: its tokens go back (limits_give_back()). */
void admission_give_back(struct waiter *w, const struct cause *c);

/* calibration.c: the thread's calibration record, taken when it has nothing else to do. */
void calibration_if_idle(struct waiter *w);
/* A local snapshot's history will be measured: a calibration record asked for is dropped. */
void calibration_cancel(struct waiter *w);

#endif /* LATENCYD_RECORDER_WAITER_INTERNAL_H */
