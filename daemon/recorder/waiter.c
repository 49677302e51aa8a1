// SPDX-License-Identifier: GPL-2.0-only
/*
 * The realtime waiter: one thread, SCHED_FIFO when it can get it, blocked in poll() on the
 * notification file. An alert that the rate limiter allows is recorded at once, with as
 * few steps as possible between the wakeup and lttng_snapshot_record(); alerts that were
 * already queued are drained right after and become extra causes of that snapshot when
 * their interval ended before the record began (so it is in it); one that ended later
 * may not be, and causes the next record instead (issue #19). Refused alerts become
 * "suppressed" results, one per tracker until the main loop takes them, so that a flood
 * costs the main loop a count, not a result, a log line and a catalog update per alert;
 * and the thread itself reads a storm in batches, STORM_NAP_MS apart, not alert by alert.
 *
 * The calibration record (a sample of the buffers, to measure the history before any
 * alert) is the thread's own too, taken when no alert or request waits: no other thread
 * ever holds the slot for a record, so the thread never waits on one.
 *
 * Nothing slow happens here: no logging, no file system. Results go to the main loop
 * through a list under a priority-inheriting mutex and an eventfd that sd-event watches.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <lttng/lttng.h>

#include "fleet.h"
#include "log.h"
#include "recorder_internal.h"
#include "thread.h"

#define READ_RECORDS 128
/*
 * Causes kept per snapshot: what show-snapshot lists. Under a flood, alerts past this many
 * that arrive during one record are refused like any other (they get no snapshot and
 * are counted as suppressed): keeping thousands would make every catalog save and the log
 * grow with the flood.
 */
#define MAX_CAUSES   100
#define MAX_REQUESTS 16 /* manual records waiting for the thread; more are refused (busy) */
#define MAX_PEERS    16 /* peers' alerts waiting for the thread; more are refused */
/*
 * A storm: the last alert read was refused by the rate limit. Read one by one as they come,
 * each would cost a wakeup, a poll and a read at realtime priority, most of the CPU of a
 * flood; the thread naps this long between reads instead and takes what accumulated in
 * one read. The price: during a storm an alert the limit would let through waits up to
 * this long for its record. The module's ring (ring_records, 1024 by default) holds what
 * arrives meanwhile below 100k alerts/s past the module's own limit (200/s by default);
 * beyond that the oldest are overwritten and reported as lost, never silently.
 */
#define STORM_NAP_MS 10

struct waiter {
	/* CLOCK_MONOTONIC ns when the record under way began, 0: none (the watchdog's). */
	_Atomic uint64_t busy_since;
	int fd;		/* the notification file */
	int stop_fd;	/* eventfd: the thread exits */
	int done_fd;	/* eventfd: results are queued */
	int request_fd; /* eventfd: manual records or peers' alerts are queued */
	pthread_t thread;
	bool started;
	struct flight_slot *slot;
	char prefix[64]; /* output names: PREFIX-ID, or PREFIX-ID-INCIDENT@HOST in a fleet */
	uint64_t next_id;
	uint64_t incident_base; /* a local incident is HOST-(this + its snapshot id) */

	/* Read buffer: whole records, plus a partial one a FIFO may leave; unread: [off, len). */
	unsigned char buf[READ_RECORDS * 2 * LATENCY_TRACKER_RECORD_SIZE];
	size_t off, len;

	pthread_mutex_t lock; /* PTHREAD_PRIO_INHERIT: results, rate limiter, counters */
	struct waiter_result *head, **tail;
	struct limits limits;
	char host[PROTO_FLEET_NAME_MAX + 1]; /* in a fleet: this host's name, else "" */
	bool publish;			     /* in a fleet, announce local records */
	struct waiter_stats stats;
	struct cause_manual requests[MAX_REQUESTS];
	size_t n_requests;
	struct cause_peer peers[MAX_PEERS];
	size_t n_peers;
	/* A calibration record asked for: to calibrate_dir, at most calibrate_size bytes. */
	bool calibrate;
	char calibrate_dir[PATH_MAX];
	uint64_t calibrate_size;
};

int waiter_new(const char *notify_path, struct flight_slot *slot, const char *prefix,
	       uint64_t first_id, struct waiter **ret)
{
	struct waiter *w;
	struct stat st;
	int flags = O_RDONLY, r;

	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->fd = w->stop_fd = w->done_fd = w->request_fd = -1;
	w->slot = slot;
	w->next_id = first_id;
	w->tail = &w->head;
	snprintf(w->prefix, sizeof(w->prefix), "%s", prefix);
	r = pi_mutex_init(&w->lock);
	if (r < 0) {
		free(w);
		return r;
	}
	if (stat(notify_path, &st) < 0) {
		r = -errno;
		goto fail;
	}
	/* A FIFO (host tests) is opened for writing too, so that it never reports POLLHUP. */
	if (S_ISFIFO(st.st_mode))
		flags = O_RDWR;
	else if (!S_ISCHR(st.st_mode)) {
		r = -ENODEV;
		goto fail;
	}
	w->fd = open(notify_path, flags | O_NONBLOCK | O_CLOEXEC);
	if (w->fd < 0) {
		r = -errno;
		goto fail;
	}
	/* Alerts from before we started were someone else's business: start at the newest. */
	if (S_ISCHR(st.st_mode))
		lseek(w->fd, 0, SEEK_END);
	w->stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	w->done_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	w->request_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (w->stop_fd < 0 || w->done_fd < 0 || w->request_fd < 0) {
		r = -errno;
		goto fail;
	}
	*ret = w;
	return 0;
fail:
	waiter_free(w);
	return r;
}

uint64_t waiter_busy_ns(struct waiter *w)
{
	uint64_t since = atomic_load(&w->busy_since), now = now_ns();

	return since && now > since ? now - since : 0;
}

int waiter_eventfd(const struct waiter *w)
{
	return w->done_fd;
}

int waiter_configure(struct waiter *w, const struct conf *c, const char *fleet_host,
		     uint64_t incident_base)
{
	int r;

	pthread_mutex_lock(&w->lock);
	w->incident_base = incident_base;
	r = limits_configure(&w->limits, c, now_ns());
	snprintf(w->host, sizeof(w->host), "%s", fleet_host ?: "");
	w->publish = fleet_host && c->fleet.publish;
	pthread_mutex_unlock(&w->lock);
	return r;
}

void waiter_get_stats(struct waiter *w, struct waiter_stats *st, double *tokens)
{
	pthread_mutex_lock(&w->lock);
	*st = w->stats;
	if (tokens)
		*tokens = limits_tokens(&w->limits.global, now_ns());
	pthread_mutex_unlock(&w->lock);
}

size_t waiter_get_buckets(struct waiter *w, struct recorder_bucket *out, size_t max)
{
	uint64_t now = now_ns();
	size_t n;

	pthread_mutex_lock(&w->lock);
	n = w->limits.n_trackers;
	for (size_t i = 0; i < n && i < max; i++) {
		struct tracker_bucket *t = &w->limits.trackers[i];

		snprintf(out[i].tracker, sizeof(out[i].tracker), "%s", t->name);
		out[i].rate = t->b.rate;
		out[i].burst = t->b.burst;
		out[i].tokens = limits_tokens(&t->b, now);
	}
	/* The bucket of all origins last, under the name peer causes go by. */
	if (n < max && w->host[0]) {
		snprintf(out[n].tracker, sizeof(out[n].tracker), "%s", CAUSE_PEER_TRACKER);
		out[n].rate = w->limits.total.rate;
		out[n].burst = w->limits.total.burst;
		out[n].tokens = limits_tokens(&w->limits.total, now);
		n++;
	}
	pthread_mutex_unlock(&w->lock);
	return n;
}

/* Under w->lock: whether the rate limit lets rec make a snapshot (taking its tokens). */
static bool allow_locked(struct waiter *w, const struct cause *c, uint64_t now)
{
	return limits_allow(&w->limits, c, now);
}

/* A peer's cause that is refused keeps the budget that refused it, for its answer. */
static bool allow(struct waiter *w, struct cause *c, uint64_t now)
{
	bool ok;

	pthread_mutex_lock(&w->lock);
	if (c->kind == CAUSE_PEER)
		ok = !(c->peer.refused_by = limits_allow_peer(&w->limits, c, now));
	else
		ok = allow_locked(w, c, now);
	pthread_mutex_unlock(&w->lock);
	return ok;
}

static void push(struct waiter *w, struct waiter_result *res)
{
	uint64_t one = 1;

	pthread_mutex_lock(&w->lock);
	res->next = NULL;
	*w->tail = res;
	w->tail = &res->next;
	pthread_mutex_unlock(&w->lock);
	if (write(w->done_fd, &one, sizeof(one)) < 0) {
		/* The counter cannot overflow in practice; the main loop reads it. */
	}
}

struct waiter_result *waiter_take_results(struct waiter *w)
{
	struct waiter_result *list;
	uint64_t v;

	if (read(w->done_fd, &v, sizeof(v)) < 0) {
		/* EAGAIN: nothing new, the list is checked anyway. */
	}
	pthread_mutex_lock(&w->lock);
	list = w->head;
	w->head = NULL;
	w->tail = &w->head;
	pthread_mutex_unlock(&w->lock);
	return list;
}

void waiter_result_free(struct waiter_result *r)
{
	while (r) {
		struct waiter_result *next = r->next;

		free(r);
		r = next;
	}
}

static struct waiter_result *result_new(enum waiter_result_kind kind, size_t n)
{
	struct waiter_result *r = calloc(1, sizeof(*r) + n * sizeof(r->causes[0]));

	if (r)
		r->kind = kind;
	return r;
}

/* Reads what is there without blocking; 0 when nothing, < 0 on error. */
static int fill(struct waiter *w)
{
	ssize_t n;

	/* Records are consumed by moving off; what is left moves to the front once a read. */
	if (w->off) {
		memmove(w->buf, w->buf + w->off, w->len - w->off);
		w->len -= w->off;
		w->off = 0;
	}
	if (w->len > sizeof(w->buf) / 2)
		return 0;
	n = read(w->fd, w->buf + w->len, sizeof(w->buf) / 2);
	if (n < 0)
		return errno == EAGAIN || errno == EINTR ? 0 : -errno;
	w->len += (size_t)n;
	return (int)n;
}

/* Takes the next whole record out of the buffer. */
static bool next_record(struct waiter *w, struct latency_tracker_record *rec)
{
	uint16_t size;

	for (;;) {
		if (w->len - w->off < sizeof(size))
			return false;
		memcpy(&size, w->buf + w->off, sizeof(size));
		if (size < LATENCY_TRACKER_RECORD_SIZE || size > sizeof(w->buf) / 2) {
			/* Not our ABI: nothing in this buffer can be trusted. */
			pthread_mutex_lock(&w->lock);
			w->stats.garbage++;
			pthread_mutex_unlock(&w->lock);
			w->off = w->len = 0;
			return false;
		}
		if (w->len - w->off < size)
			return false;
		memcpy(rec, w->buf + w->off, sizeof(*rec));
		w->off += size;
		if (rec->kind == LATENCY_TRACKER_REC_ALERT || rec->kind == LATENCY_TRACKER_REC_LOST)
			return true;
	}
}

static void count_kernel(struct waiter *w, const struct latency_tracker_record *rec)
{
	pthread_mutex_lock(&w->lock);
	w->stats.kernel_suppressed += rec->suppressed;
	if (rec->kind == LATENCY_TRACKER_REC_LOST)
		w->stats.lost += rec->lost;
	else
		w->stats.alerts++;
	pthread_mutex_unlock(&w->lock);
}

static void on_lost(struct waiter *w, const struct latency_tracker_record *rec)
{
	struct waiter_result *res = result_new(WAITER_LOST, 0);

	if (res) {
		res->lost = rec->lost;
		push(w, res);
	}
}

/*
 * Under w->lock: the suppressed result of this tracker not yet taken by the main loop. A
 * manual record is never merged: its client waits for the event naming its request.
 */
static struct waiter_result *pending_suppressed(struct waiter *w, const struct cause *c)
{
	if (c->kind != CAUSE_ALERT)
		return NULL;
	for (struct waiter_result *r = w->head; r; r = r->next)
		if (r->kind == WAITER_SUPPRESSED && r->causes[0].kind == CAUSE_ALERT &&
		    memcmp(r->causes[0].alert.tracker, c->alert.tracker,
			   sizeof(c->alert.tracker)) == 0)
			return r;
	return NULL;
}

/* Under w->lock: counts rec as suppressed; false when it needs a result of its own. */
static bool suppress_locked(struct waiter *w, const struct cause *c)
{
	struct waiter_result *res;

	w->stats.suppressed++;
	res = pending_suppressed(w, c);
	if (res)
		res->n++;
	return res != NULL;
}

/* The suppressed result of rec, for the main loop (the count was taken under the lock). */
static void suppress_new(struct waiter *w, const struct cause *c)
{
	struct waiter_result *res = result_new(WAITER_SUPPRESSED, 1);

	if (res) {
		res->causes[0] = *c;
		res->n = 1;
		push(w, res);
	}
}

static void suppress(struct waiter *w, const struct cause *c)
{
	bool merged;

	pthread_mutex_lock(&w->lock);
	merged = suppress_locked(w, c);
	pthread_mutex_unlock(&w->lock);
	if (!merged)
		suppress_new(w, c);
}

/*
 * What every alert record costs, under one lock (a storm brings tens of thousands a
 * second): the counters, the rate limit and, when it refuses, the merge into the pending
 * suppressed result. True when rec is to be recorded.
 */
static bool admit(struct waiter *w, const struct cause *c, uint64_t now)
{
	bool ok, merged = false;

	pthread_mutex_lock(&w->lock);
	w->stats.kernel_suppressed += c->alert.suppressed;
	w->stats.alerts++;
	ok = allow_locked(w, c, now);
	if (!ok)
		merged = suppress_locked(w, c);
	pthread_mutex_unlock(&w->lock);
	if (!ok && !merged)
		suppress_new(w, c);
	return ok;
}

/*
 * PREFIX-ID; in a fleet PREFIX-ID-INCIDENT@HOST, so that one incident's snapshots from
 * every host can be found together on the collector, each with the host that recorded it:
 * a local cause opens incident HOST-ID, a peer's cause joins the origin's.
 */
static void name_snapshot(struct waiter *w, struct waiter_result *res, const struct cause *c)
{
	if (c->kind == CAUSE_PEER)
		snprintf(res->incident, sizeof(res->incident), "%s", c->peer.alert.incident);
	else if (w->host[0])
		proto_fleet_incident_format(res->incident, sizeof(res->incident), w->host,
					    w->incident_base + res->id);
	if (res->incident[0])
		snprintf(res->name, sizeof(res->name), "%s-%" PRIu64 "-%s@%s", w->prefix, res->id,
			 res->incident, w->host);
	else
		snprintf(res->name, sizeof(res->name), "%s-%" PRIu64, w->prefix, res->id);
}

/*
 * In a fleet, the peers hear of a local alert before its own record starts, not after it
 * ends (a record to relayd takes tens of milliseconds): the main loop publishes it. The
 * cost here is one short list append and an eventfd write.
 */
static void announce(struct waiter *w, const struct waiter_result *snap, const struct cause *c)
{
	struct waiter_result *res = result_new(WAITER_ADMITTED, 1);

	if (!res)
		return;
	res->id = snap->id;
	memcpy(res->incident, snap->incident, sizeof(res->incident));
	res->causes[0] = *c;
	res->n = 1;
	push(w, res);
}

/* Records a snapshot for cause, then drains every queued alert into its causes. */
static void snapshot(struct waiter *w, const struct cause *cause, uint64_t wakeup_ns)
{
	struct waiter_result *res, *grown;
	struct cause more = {.kind = CAUSE_ALERT};
	struct flight_record fr = {0};
	size_t cap = 16;
	int r;

	res = result_new(WAITER_SNAPSHOT, cap);
	if (!res)
		return;
	res->id = w->next_id++;
	name_snapshot(w, res, cause);
	if (w->publish && cause->kind != CAUSE_PEER)
		announce(w, res, cause);
	/* From here until the record returns: the slot may be busy, sessiond slow. */
	atomic_store(&w->busy_since, now_ns());
	pthread_mutex_lock(&w->slot->lock);
	if (w->slot->flight) {
		r = flight_record(w->slot->flight, res->name, &fr);
	} else {
		r = -LTTNG_ERR_SESS_NOT_FOUND;
		fr.start_ns = now_ns();
	}
	pthread_mutex_unlock(&w->slot->lock);
	atomic_store(&w->busy_since, 0);
	/* Its history will be measured: a calibration still waiting would add nothing. */
	if (r == 0 && !fr.to_relayd) {
		pthread_mutex_lock(&w->lock);
		w->calibrate = false;
		pthread_mutex_unlock(&w->lock);
	}

	res->error = r;
	res->rec = fr;
	res->wakeup_ns = wakeup_ns;
	res->causes[res->n++] = *cause;
	/* What ended before the record began is in this snapshot already. */
	for (;;) {
		size_t at = w->off;

		if (!next_record(w, &more.alert)) {
			if (fill(w) <= 0)
				break;
			continue;
		}
		/* Ended after the record began: maybe not in it. Left for the next record. */
		if (more.alert.kind == LATENCY_TRACKER_REC_ALERT &&
		    more.alert.end_ns > fr.start_ns) {
			w->off = at;
			break;
		}
		count_kernel(w, &more.alert);
		if (more.alert.kind == LATENCY_TRACKER_REC_LOST) {
			on_lost(w, &more.alert);
			continue;
		}
		if (res->n == cap && cap < MAX_CAUSES) {
			size_t more_cap = cap * 2 < MAX_CAUSES ? cap * 2 : MAX_CAUSES;

			grown = realloc(res, sizeof(*res) + more_cap * sizeof(res->causes[0]));
			if (grown) {
				res = grown;
				cap = more_cap;
			}
		}
		if (res->n < cap)
			res->causes[res->n++] = more;
		else
			suppress(w, &more); /* out of memory: still accounted for */
	}
	pthread_mutex_lock(&w->lock);
	if (r < 0)
		w->stats.failed++;
	else
		w->stats.snapshots++;
	w->stats.causes += res->n;
	pthread_mutex_unlock(&w->lock);
	push(w, res);
}

int waiter_request(struct waiter *w, uint64_t seq, pid_t pid, const char *message)
{
	uint64_t one = 1;
	int r = 0;

	pthread_mutex_lock(&w->lock);
	if (w->n_requests < MAX_REQUESTS) {
		struct cause_manual *m = &w->requests[w->n_requests++];

		*m = (struct cause_manual){.request = seq, .pid = pid};
		snprintf(m->message, sizeof(m->message), "%s", message);
	} else {
		r = -EBUSY;
	}
	pthread_mutex_unlock(&w->lock);
	if (r == 0 && write(w->request_fd, &one, sizeof(one)) < 0)
		r = -errno;
	return r;
}

int waiter_peer(struct waiter *w, const struct proto_fleet_alert *a, uint64_t received_ns)
{
	uint64_t one = 1;
	int r = 0;

	pthread_mutex_lock(&w->lock);
	if (w->n_peers < MAX_PEERS)
		w->peers[w->n_peers++] =
			(struct cause_peer){.alert = *a, .received_ns = received_ns};
	else
		r = -EBUSY;
	pthread_mutex_unlock(&w->lock);
	if (r == 0 && write(w->request_fd, &one, sizeof(one)) < 0)
		r = -errno;
	return r;
}

int waiter_calibrate(struct waiter *w, const char *dir, uint64_t max_size)
{
	uint64_t one = 1;

	if (strlen(dir) >= sizeof(w->calibrate_dir))
		return -ENAMETOOLONG;
	pthread_mutex_lock(&w->lock);
	w->calibrate = true;
	snprintf(w->calibrate_dir, sizeof(w->calibrate_dir), "%s", dir);
	w->calibrate_size = max_size;
	pthread_mutex_unlock(&w->lock);
	return write(w->request_fd, &one, sizeof(one)) < 0 ? -errno : 0;
}

/*
 * The calibration record, when one is asked for and nothing else waits (the caller saw the
 * notification file drained). An alert that comes meanwhile waits for the rest of it, as
 * it would for another alert's record: it is a sample, a few packets per stream, so that
 * this is short.
 */
static void calibrate_if_idle(struct waiter *w)
{
	struct waiter_result *res;
	char dir[PATH_MAX];
	uint64_t size;
	int r;

	pthread_mutex_lock(&w->lock);
	if (!w->calibrate || w->n_requests || w->n_peers) {
		pthread_mutex_unlock(&w->lock);
		return;
	}
	w->calibrate = false;
	memcpy(dir, w->calibrate_dir, sizeof(dir));
	size = w->calibrate_size;
	pthread_mutex_unlock(&w->lock);
	res = result_new(WAITER_CALIBRATED, 0);
	if (!res)
		return;
	atomic_store(&w->busy_since, now_ns());
	pthread_mutex_lock(&w->slot->lock);
	if (!w->slot->flight) {
		r = -LTTNG_ERR_SESS_NOT_FOUND;
	} else {
		r = flight_record_to(w->slot->flight, dir, "calibration", size, &res->rec);
		/* No room for a packet of every stream (per-user buffers of many users). */
		if (r == -LTTNG_ERR_MAX_SIZE_INVALID && size) {
			size = 0;
			r = flight_record_to(w->slot->flight, dir, "calibration", 0, &res->rec);
		}
	}
	pthread_mutex_unlock(&w->slot->lock);
	atomic_store(&w->busy_since, 0);
	res->error = r;
	res->sampled = size != 0;
	push(w, res);
}

/* The next queued request into c: manual ones first; false when there is none. */
static bool next_request(struct waiter *w, struct cause *c)
{
	bool found = true;

	pthread_mutex_lock(&w->lock);
	if (w->n_requests) {
		c->kind = CAUSE_MANUAL;
		c->manual = w->requests[0];
		memmove(&w->requests[0], &w->requests[1], --w->n_requests * sizeof(w->requests[0]));
		w->stats.alerts++;
	} else if (w->n_peers) {
		c->kind = CAUSE_PEER;
		c->peer = w->peers[0];
		memmove(&w->peers[0], &w->peers[1], --w->n_peers * sizeof(w->peers[0]));
		w->stats.peers++;
	} else {
		found = false;
	}
	pthread_mutex_unlock(&w->lock);
	return found;
}

/*
 * A manual record goes the way of an alert: the same rate limit, the same record; so does
 * a peer's alert, under its origin's bucket and the total.
 */
static void take_requests(struct waiter *w, uint64_t wakeup)
{
	struct cause c;
	uint64_t v;

	if (read(w->request_fd, &v, sizeof(v)) < 0) {
		/* EAGAIN: the list is checked anyway. */
	}
	while (next_request(w, &c)) {
		if (c.kind == CAUSE_MANUAL)
			c.manual.time_ns = wakeup;
		else
			c.peer.time_ns = wakeup;
		if (allow(w, &c, now_ns()))
			snapshot(w, &c, wakeup);
		else
			suppress(w, &c);
	}
}

/*
 * With memory locked on fault (realtime.lock_memory), a page is locked once touched: the
 * stack the record path runs on, the read buffer and this thread's malloc arena are touched
 * here, at start, so that the first alert after start (or after a long idle time) does not
 * fault them in.
 */
static void warm(struct waiter *w)
{
	volatile unsigned char stack[THREAD_STACK_WAITER / 2];
	struct waiter_result *r = result_new(WAITER_SNAPSHOT, MAX_CAUSES);

	for (size_t i = 0; i < sizeof(stack); i += 1024)
		stack[i] = 0;
	if (r)
		memset(r->causes, 0, MAX_CAUSES * sizeof(r->causes[0]));
	free(r);
	memset(w->buf, 0, sizeof(w->buf));
}

static void *run(void *arg)
{
	struct waiter *w = arg;
	struct cause c = {.kind = CAUSE_ALERT};
	struct pollfd p[3] = {
		{.fd = w->fd, .events = POLLIN},
		{.fd = w->stop_fd, .events = POLLIN},
		{.fd = w->request_fd, .events = POLLIN},
	};
	bool storm = false;

	warm(w);
	for (;;) {
		uint64_t wakeup, now;
		int n;

		/* In a storm the file is left alone for a nap (poll ignores a negative fd). */
		p[0].fd = storm ? -1 : w->fd;
		if (poll(p, 3, storm ? STORM_NAP_MS : -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (p[1].revents)
			break;
		wakeup = now_ns();
		if (p[2].revents)
			take_requests(w, wakeup);
		n = fill(w);
		if (n < 0)
			break;
		/* One clock read per buffer: its records were all there when it was read. */
		now = now_ns();
		storm = false;
		while (next_record(w, &c.alert)) {
			if (c.alert.kind == LATENCY_TRACKER_REC_LOST) {
				count_kernel(w, &c.alert);
				on_lost(w, &c.alert);
			} else if (admit(w, &c, now)) {
				snapshot(w, &c, wakeup);
				now = now_ns(); /* the record took time */
				storm = false;
			} else {
				storm = true;
			}
		}
		/* A full read leaves more behind: no nap until the file is drained. */
		if ((size_t)n == sizeof(w->buf) / 2)
			storm = false;
		else if (!storm && w->off == w->len)
			calibrate_if_idle(w);
	}
	return NULL;
}

int waiter_start(struct waiter *w, unsigned rt_priority, bool *got_rt)
{
	int r = -EINVAL;

	*got_rt = false;
	if (rt_priority > 0) {
		r = thread_start(&w->thread, SCHED_FIFO, (int)rt_priority, THREAD_STACK_WAITER, run,
				 w, "latencyd-waiter");
		*got_rt = r == 0;
	}
	if (r < 0)
		r = thread_start(&w->thread, SCHED_OTHER, 0, THREAD_STACK_WAITER, run, w,
				 "latencyd-waiter");
	if (r < 0)
		return r;
	w->started = true;
	return 0;
}

void waiter_free(struct waiter *w)
{
	uint64_t one = 1;

	if (!w)
		return;
	if (w->started) {
		if (write(w->stop_fd, &one, sizeof(one)) < 0)
			pthread_cancel(w->thread);
		pthread_join(w->thread, NULL);
	}
	waiter_result_free(w->head);
	if (w->fd >= 0)
		close(w->fd);
	if (w->stop_fd >= 0)
		close(w->stop_fd);
	if (w->done_fd >= 0)
		close(w->done_fd);
	if (w->request_fd >= 0)
		close(w->request_fd);
	pthread_mutex_destroy(&w->lock);
	limits_done(&w->limits);
	free(w);
}
