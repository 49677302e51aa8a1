// SPDX-License-Identifier: GPL-2.0-only
/*
 * The realtime waiter: a thread per CPU latencyd may run on (realtime.waiter_per_cpu; else
 * one), SCHED_FIFO when it can get it, each pinned to its CPU and blocked in poll() on the
 * one open notification file. The module wakes the thread on the CPU that raised the
 * alert, already running there: no interprocessor interrupt, no idle CPU to wake, which is
 * what made an idle machine slower to react than a busy one (issue #31); another thread
 * takes it when that one is busy. Whichever thread is woken holds the run lock while it
 * reads and records, so the threads are one waiter taking turns. An alert that admission.c
 * allows is recorded at once, with as few steps as possible between the wakeup and
 * lttng_snapshot_record(); alerts that were
 * already queued are drained right after and become extra causes of that snapshot when
 * their interval ended before the record began (so it is in it); one that ended later
 * may not be, and causes the next record instead (issue #19). The thread reads a storm
 * (alerts the rate limit refuses) in batches, STORM_NAP_MS apart, not alert by alert, with
 * one thread, the others asleep until it is over.
 * When it has nothing else to do it takes the calibration record (calibration.c).
 *
 * Nothing slow happens here: no logging, no file system. Results go to the main loop
 * through results.c; so does what went wrong (waiter_stats), for the main loop to say.
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

#include "fleet.h"
#include "log.h"
#include "thread.h"
#include "waiter_internal.h"

/*
 * A storm: the last alert read was refused by the rate limit. Read one by one as they come,
 * each would cost a wakeup, a poll and a read at realtime priority, most of the CPU of a
 * flood; the thread naps this long between turns instead, and each turn takes what
 * accumulated, read after read until the file is empty (the module hands out 16 records a
 * read, its LT_READ_BATCH), TURN_RECORDS at most. The price: during a storm an alert the
 * limit would let through waits up to this long for its record. The module's ring
 * (ring_records, 1024 by default) holds what arrives meanwhile below 100k alerts/s past
 * the module's own limit (200/s by default); beyond that the oldest are overwritten and
 * reported as lost, never silently.
 */
#define STORM_NAP_MS 10

/*
 * The threads that leave the file to a storm's keeper check on it this often, and one of
 * them takes its place when it has not run for STORM_TAKEOVER_MS: a keeper is pinned to
 * its CPU, where a realtime task of a higher priority (often the storm's culprit) can hold
 * it off, and nothing else would read the file meanwhile.
 */
#define STORM_CHECK_MS	  100
#define STORM_TAKEOVER_NS ((uint64_t)STORM_TAKEOVER_MS * 1000 * 1000)

/*
 * Records one turn takes at most: twice the module's default ring, a full ring and what
 * arrives while it is read. A flood faster than that is left to the ring (lost, said so)
 * rather than keeping a realtime thread busy.
 */
#define TURN_RECORDS 2048

/*
 * How long a stop that gave up on a record-less thread still waits for it (waiter_stop_by()):
 * out of its record, with no record to begin, it has nothing left that waits for sessiond,
 * and ends within microseconds; this is for a loaded machine.
 */
#define STOP_GRACE_NS (1000000000ULL)

/* w->current once a stop gave up on the threads (its address, never its content). */
static struct waiter_result given_up_mark;

int waiter_new(const char *notify_path, struct flight_slot *slot, const char *prefix,
	       uint64_t first_id, struct waiter **ret)
{
	struct waiter *w;
	struct stat st;
	int flags = O_RDONLY, r;

	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->fd = w->stop_fd = w->done_fd = w->request_fd = w->calm_fd = -1;
	w->slot = slot;
	w->next_id = first_id;
	w->untried_in = UNTRIED_NONE;
	w->tail = &w->head;
	snprintf(w->prefix, sizeof(w->prefix), "%s", prefix);
	r = pi_mutex_init(&w->lock);
	if (r < 0) {
		free(w);
		return r;
	}
	r = pi_mutex_init(&w->run);
	if (r < 0) {
		pthread_mutex_destroy(&w->lock);
		free(w);
		return r;
	}
	r = waiter_pool_new(w);
	if (r < 0)
		goto fail;
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
	w->calm_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (w->stop_fd < 0 || w->done_fd < 0 || w->request_fd < 0 || w->calm_fd < 0) {
		r = -errno;
		goto fail;
	}
	*ret = w;
	return 0;
fail:
	waiter_free(w);
	return r;
}

bool waiter_record_begins(struct waiter *w, struct waiter_result *res, uint64_t now)
{
	struct waiter_result *none = NULL;

	/*
	 * No lock on the way to the record: res is complete before it is published, and only
	 * the mark of a stop that gave up can be there instead of NULL.
	 */
	if (!atomic_compare_exchange_strong(&w->current, &none, res))
		return false;
	atomic_store(&w->busy_since, now);
	return true;
}

bool waiter_record_over(struct waiter *w)
{
	bool ours;

	/* Under lock: a stop copying the record it gave up on has it whole or not at all. */
	pthread_mutex_lock(&w->lock);
	ours = atomic_load(&w->current) != &given_up_mark;
	if (ours)
		atomic_store(&w->current, NULL);
	pthread_mutex_unlock(&w->lock);
	atomic_store(&w->busy_since, 0);
	return ours;
}

bool waiter_given_up(struct waiter *w)
{
	return atomic_load(&w->current) == &given_up_mark;
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
	__u32 size; /* the header's width: the low bits of a bogus size may look right */

	for (;;) {
		if (w->len - w->off < sizeof(size))
			return false;
		memcpy(&size, w->buf + w->off, sizeof(size));
		if (size < LATENCY_TRACKER_RECORD_SIZE || size > sizeof(w->buf) / 2) {
			/* Not our ABI: nothing in this buffer can be trusted. */
			waiter_tell(w, &w->stats.garbage);
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
	struct waiter_result *res = waiter_result_get(w, WAITER_LOST, 0);

	if (!res) {
		waiter_nomem(w); /* counted all the same (count_kernel()), not told as an event */
		return;
	}
	res->lost = rec->lost;
	waiter_push(w, res);
}

/* The fleet's settings a snapshot is named and announced with. */
struct fleet_names {
	char host[PROTO_FLEET_NAME_MAX + 1];
	uint64_t incident_base;
	bool publish;
};

/*
 * A reload sets them (waiter_configure()) while the thread records: one copy for the
 * whole snapshot, so that its host, incident and name agree.
 */
static void fleet_names(struct waiter *w, struct fleet_names *f)
{
	pthread_mutex_lock(&w->lock);
	memcpy(f->host, w->host, sizeof(f->host));
	f->incident_base = w->incident_base;
	f->publish = w->publish;
	pthread_mutex_unlock(&w->lock);
}

/*
 * PREFIX-ID; in a fleet PREFIX-ID-INCIDENT@HOST, so that one incident's snapshots from
 * every host can be found together on the collector, each with the host that recorded it:
 * a local cause opens incident HOST-ID, a peer's cause joins the origin's.
 */
static void name_snapshot(struct waiter *w, const struct fleet_names *f, struct waiter_result *res,
			  const struct cause *c)
{
	if (c->kind == CAUSE_PEER)
		snprintf(res->incident, sizeof(res->incident), "%s", c->peer.alert.incident);
	else if (f->host[0])
		proto_fleet_incident_format(res->incident, sizeof(res->incident), f->host,
					    f->incident_base + res->id);
	if (res->incident[0])
		snprintf(res->name, sizeof(res->name), "%s-%" PRIu64 "-%s@%s", w->prefix, res->id,
			 res->incident, f->host);
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
	struct waiter_result *res = waiter_result_get(w, WAITER_ADMITTED, 1);

	if (!res) {
		waiter_nomem(w); /* the peers do not hear of it */
		return;
	}
	res->id = snap->id;
	memcpy(res->incident, snap->incident, sizeof(res->incident));
	res->causes[0] = *c;
	res->n = 1;
	waiter_push(w, res);
}

/* What ended before the record began at START_NS is in RES already: it joins its causes. */
static struct waiter_result *join_queued(struct waiter *w, struct waiter_result *res,
					 uint64_t start_ns)
{
	struct cause more = {.kind = CAUSE_ALERT};

	for (;;) {
		size_t at = w->off;

		if (!next_record(w, &more.alert)) {
			if (fill(w) <= 0)
				break;
			continue;
		}
		/* Ended after the record began: maybe not in it. Left for the next record. */
		if (more.alert.kind == LATENCY_TRACKER_REC_ALERT && more.alert.end_ns > start_ns) {
			w->off = at;
			break;
		}
		count_kernel(w, &more.alert);
		if (more.alert.kind == LATENCY_TRACKER_REC_LOST) {
			on_lost(w, &more.alert);
			continue;
		}
		res = admission_join(w, res, &more);
	}
	return res;
}

/* RES handed over failed with ERROR, never tried, at START_NS. */
static void push_failed(struct waiter *w, struct waiter_result *res, int error, uint64_t start_ns)
{
	res->error = error;
	res->rec.start_ns = start_ns;
	pthread_mutex_lock(&w->lock);
	w->stats.failed++;
	w->stats.causes += res->n;
	pthread_mutex_unlock(&w->lock);
	waiter_push(w, res);
}

/*
 * Records a snapshot for cause, admitted at now, then drains every queued alert into its
 * causes. Each clock reading costs: on a machine without a vDSO clock (an HPET, as in a VM)
 * a system call, so the path to the record reads the clock only where it must.
 */
static void snapshot(struct waiter *w, const struct cause *cause, uint64_t wakeup_ns, uint64_t now)
{
	struct flight_record fr = {0};
	struct waiter_result *res;
	struct fleet_names names;
	uint64_t sessions;
	bool untried;
	int r;

	res = waiter_result_get(w, WAITER_SNAPSHOT, 16);
	if (!res) {
		/* Not recorded: nothing would hold its result (a request's client times out). */
		waiter_nomem(w);
		return;
	}
	fleet_names(w, &names);
	if (w->next_id > CATALOG_ID_MAX) {
		/* Never wrapped: the id would name an older snapshot. Said by the main loop. */
		res->id = w->next_id;
		name_snapshot(w, &names, res, cause);
		res->wakeup_ns = wakeup_ns;
		res->causes[res->n++] = *cause;
		push_failed(w, res, FLIGHT_ERR_NO_ID, now);
		return;
	}
	res->id = w->next_id++;
	name_snapshot(w, &names, res, cause);
	if (names.publish && cause->kind != CAUSE_PEER)
		announce(w, res, cause);
	res->wakeup_ns = wakeup_ns;
	res->causes[res->n++] = *cause;
	/*
	 * From here until the record returns: the slot may be busy, sessiond slow. Not once a
	 * stop gave up waiting for sessiond: the alert is handed over failed, abandoned at the
	 * stop like the record that was under way.
	 */
	if (!waiter_record_begins(w, res, now)) {
		push_failed(w, res, FLIGHT_ERR_ABANDONED, now);
		return;
	}
	r = flight_slot_lock(w->slot);
	if (r < 0) {
		fr.start_ns = now_ns();
	} else {
		if (w->slot->flight) {
			/* Before the record: a stop that gives up on it (give_up()) knows where
			 * sessiond may still write it. */
			res->output = flight_output_get(w->slot->flight);
			r = flight_record(w->slot->flight, res->name, &fr);
		} else {
			r = FLIGHT_ERR_NO_SESSION;
			fr.start_ns = now_ns();
		}
		pthread_mutex_unlock(&w->slot->lock);
	}
	if (!waiter_record_over(w)) {
		/* The stop gave up on it: the catalog has it as failed, its output joins later. */
		waiter_result_free(res);
		return;
	}
	/* Its history will be measured: a calibration still waiting would add nothing. */
	if (r == 0 && !fr.to_relayd)
		calibration_cancel(w);

	res->error = r;
	res->rec = fr;
	/*
	 * Not tried (no session, or sessiond held by the session's check): nothing was
	 * recorded. The first such record of an outage gives its tokens back, and the alerts
	 * queued behind it ask for records of their own: a sessiond restarting under an alert
	 * costs no budget. The next ones take theirs and the queued alerts join them, as
	 * records do: an outage under an alert storm is one failed record per token, not one
	 * per alert (each a catalog entry and a log line).
	 */
	untried = r == FLIGHT_ERR_NO_SESSION || r == FLIGHT_ERR_SESSIOND_BUSY;
	sessions = atomic_load(&w->slot->sessions);
	/* The last one tried, or a session came and went since it was not: another outage. */
	if (untried && w->untried_in != sessions)
		admission_give_back(w, cause);
	else
		res = join_queued(w, res, fr.start_ns);
	w->untried_in = untried ? sessions : UNTRIED_NONE;
	pthread_mutex_lock(&w->lock);
	if (r < 0)
		w->stats.failed++;
	else
		w->stats.snapshots++;
	w->stats.causes += res->n;
	pthread_mutex_unlock(&w->lock);
	waiter_push(w, res);
}

/*
 * A manual record goes the way of an alert: the same rate limit, the same record; so does
 * a peer's alert, under its origin's bucket and the total, unless it went stale while it
 * waited. Each is timed when taken: one queued while an earlier one was being recorded
 * was not there at the wakeup, and waited for the thread until then.
 */
static void take_requests(struct waiter *w, uint64_t wakeup)
{
	struct cause c;
	uint64_t v, now;

	if (read(w->request_fd, &v, sizeof(v)) < 0) {
		/* EAGAIN: the list is checked anyway. */
	}
	for (bool first = true; !waiter_given_up(w) && admission_next_request(w, &c);
	     first = false) {
		now = now_ns();
		if (c.kind == CAUSE_MANUAL) {
			c.manual.time_ns = now;
		} else {
			/* Queued behind long records, its window may have left the buffers. */
			if (admission_peer_stale(w, &c))
				continue;
			/* Not before its receipt, which the fleet process timed. */
			c.peer.time_ns = now > c.peer.received_ns ? now : c.peer.received_ns;
		}
		if (admission_allow(w, &c, now))
			snapshot(w, &c, first ? wakeup : now, now);
		else
			admission_suppress(w, &c);
	}
}

/*
 * With memory locked on fault (realtime.lock_memory), a page is locked once touched: the
 * stack the record path runs on and this thread's malloc arena are touched here, at start
 * (the shared read buffer by waiter_start()), so that the first alert after start (or after
 * a long idle time) does not fault them in.
 */
static void warm(void)
{
	volatile unsigned char stack[THREAD_STACK_WAITER / 2];
	struct waiter_result *r = waiter_result_new(WAITER_SNAPSHOT, MAX_CAUSES);

	for (size_t i = 0; i < sizeof(stack); i += 1024)
		stack[i] = 0;
	if (r)
		memset(r->causes, 0, MAX_CAUSES * sizeof(r->causes[0]));
	free(r);
}

/*
 * A storm begins (the keeper alone polls the file, napping between reads) or ends (every
 * thread polls it again). calm_fd is cleared before a storm is set and written after it is
 * over, so a thread that sees a storm and waits on calm_fd cannot sleep through its end.
 * The keeper stays the keeper until the storm is over: another thread that ran a turn
 * meanwhile (woken as the storm began, or by a request) goes back to waiting on calm_fd,
 * so that one thread naps, not each in turn.
 */
static void set_storm(struct waiter *w, const struct waiter_thread *t, bool storm)
{
	uint64_t v = 1;

	if (storm == atomic_load(&w->storm))
		return;
	if (storm) {
		if (read(w->calm_fd, &v, sizeof(v)) < 0) {
			/* EAGAIN: already clear */
		}
		atomic_store(&w->storm_keeper, t->index);
		atomic_store(&w->keeper_ns, now_ns());
		atomic_store(&w->storm, true);
	} else {
		atomic_store(&w->storm, false);
		if (write(w->calm_fd, &v, sizeof(v)) < 0) {
			/* only fails when the counter is full: already readable */
		}
	}
}

/*
 * One turn, run lock held: the requests, then what the file holds, read after read until
 * it is empty or TURN_RECORDS were taken. < 0: the file failed.
 */
static int turn(struct waiter *w, const struct waiter_thread *t, bool requests)
{
	struct cause c = {.kind = CAUSE_ALERT};
	uint64_t wakeup = now_ns(), now;
	bool storm = false, seen = false, drained = false;
	size_t taken = 0;
	int n;

	if (requests)
		take_requests(w, wakeup);
	n = fill(w);
	/*
	 * The wakeup's reading stands for the buffer: what it holds was there then, or arrived
	 * microseconds later, the same to a token bucket.
	 */
	now = wakeup;
	for (;;) {
		size_t before = taken;

		if (n < 0)
			return n;
		while (!waiter_given_up(w) && next_record(w, &c.alert)) {
			seen = true;
			taken++;
			if (c.alert.kind == LATENCY_TRACKER_REC_LOST) {
				count_kernel(w, &c.alert);
				on_lost(w, &c.alert);
			} else if (admission_admit(w, &c, now)) {
				snapshot(w, &c, wakeup, now);
				now = now_ns(); /* the record took time */
				storm = false;
				/* A keeper busy recording is not one held off. */
				if (atomic_load(&w->storm_keeper) == t->index)
					atomic_store(&w->keeper_ns, now);
			} else {
				storm = true;
			}
		}
		if (waiter_given_up(w))
			return 0; /* the stop is told on the thread's next poll */
		/* Nothing read, nothing left in the buffer: the file is empty. */
		if (n == 0 && taken == before) {
			drained = true;
			break;
		}
		if (taken >= TURN_RECORDS)
			break;
		n = fill(w);
	}
	/* Woken with the others as a storm began, this one found nothing: the storm goes on. */
	if (!seen && atomic_load(&w->storm) && atomic_load(&w->storm_keeper) != t->index)
		return 0;
	if (!storm && drained)
		calibration_if_idle(w);
	set_storm(w, t, storm);
	return 0;
}

static void pin(struct waiter *w, const struct waiter_thread *t)
{
	cpu_set_t set;

	if (t->cpu < 0)
		return;
	CPU_ZERO(&set);
	CPU_SET(t->cpu, &set);
	/* Refused (the CPU went offline, a cpuset changed): it runs anywhere, woken by every
	 * alert; counted, for the main loop to say. */
	if (pthread_setaffinity_np(pthread_self(), sizeof(set), &set) != 0)
		waiter_tell(w, &w->stats.unpinned);
}

/*
 * In a storm, a thread that is not its keeper: whether the keeper has not run for
 * STORM_TAKEOVER_NS, and this thread is the keeper now, for its next turn.
 */
static bool take_over(struct waiter *w, const struct waiter_thread *t)
{
	uint64_t last = atomic_load(&w->keeper_ns), now = now_ns();

	/* One thread takes over, not each that finds the keeper late. */
	if (!atomic_load(&w->storm) || now < last || now - last < STORM_TAKEOVER_NS ||
	    !atomic_compare_exchange_strong(&w->keeper_ns, &last, now))
		return false;
	atomic_store(&w->storm_keeper, t->index);
	waiter_tell(w, &w->stats.takeovers);
	return true;
}

/*
 * The thread leaves its loop, CALL having failed with ERR (-errno): for the main loop to say.
 * A storm's keeper ends the storm first: the others read the file again (and find its
 * failure themselves, if it lasts).
 */
static void *ended(struct waiter *w, const struct waiter_thread *t, const char *call, int err)
{
	if (atomic_load(&w->storm) && atomic_load(&w->storm_keeper) == t->index)
		set_storm(w, t, false);
	pthread_mutex_lock(&w->lock);
	w->stats.ended++;
	w->stats.end_error = err;
	w->stats.end_call = call;
	pthread_mutex_unlock(&w->lock);
	waiter_poke(w);
	return NULL;
}

static void *run(void *arg)
{
	struct waiter_thread *t = arg;
	struct waiter *w = t->w;
	/*
	 * Every thread takes requests (manual records, peers' alerts): one pinned to a CPU a
	 * realtime task holds must not keep them waiting; the run lock serialises them.
	 */
	struct pollfd p[4] = {
		{.fd = w->fd, .events = POLLIN},
		{.fd = w->stop_fd, .events = POLLIN},
		{.fd = w->request_fd, .events = POLLIN},
		{.fd = -1, .events = POLLIN},
	};

	/* Before the first poll: the module files a pinned thread's wait under its CPU. */
	pin(w, t);
	warm();
	for (;;) {
		bool storm = atomic_load(&w->storm);
		bool nap = storm && atomic_load(&w->storm_keeper) == t->index;
		int r, timeout = nap ? STORM_NAP_MS : storm ? STORM_CHECK_MS : -1;

		/*
		 * In a storm the file is left alone (poll ignores a negative fd): the keeper
		 * reads it after a nap, the others wait for the storm's end, checking that the
		 * keeper still runs.
		 */
		if (nap)
			atomic_store(&w->keeper_ns, now_ns());
		p[0].fd = storm ? -1 : w->fd;
		p[3].fd = storm && !nap ? w->calm_fd : -1;
		r = poll(p, 4, timeout);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return ended(w, t, "poll", -errno);
		}
		if (p[1].revents)
			break;
		if (p[3].revents)
			continue; /* the storm is over: the file again */
		if (r == 0 && storm && !nap && !take_over(w, t))
			continue;
		pthread_mutex_lock(&w->run);
		r = turn(w, t, p[2].revents != 0);
		pthread_mutex_unlock(&w->run);
		if (r < 0)
			return ended(w, t, "read", r);
	}
	return NULL;
}

/*
 * The CPUs the threads go to: those latencyd may run on (realtime.cpus); an empty set for
 * one thread, free to run on any.
 */
static size_t waiter_cpus(bool per_cpu, cpu_set_t *set)
{
	if (per_cpu && sched_getaffinity(0, sizeof(*set), set) == 0 && CPU_COUNT(set) > 1)
		return (size_t)CPU_COUNT(set);
	CPU_ZERO(set);
	return 1;
}

int waiter_start(struct waiter *w, unsigned rt_priority, bool per_cpu, bool *got_rt)
{
	cpu_set_t set;
	size_t n = waiter_cpus(per_cpu, &set);
	int r = 0, cpu = -1;

	w->threads = calloc(n, sizeof(*w->threads));
	if (!w->threads)
		return -ENOMEM;
	memset(w->buf, 0, sizeof(w->buf));
	*got_rt = true;
	for (size_t i = 0; i < n && r == 0; i++) {
		struct waiter_thread *t = &w->threads[i];
		bool rt;

		/* The next CPU of the set, or -1 (any) when it is empty. */
		do
			cpu++;
		while (cpu < CPU_SETSIZE && !CPU_ISSET(cpu, &set));
		t->w = w;
		t->cpu = cpu < CPU_SETSIZE ? cpu : -1;
		t->index = (unsigned)i;
		r = thread_start_rt(&t->thread, (int)rt_priority, THREAD_STACK_WAITER, run, t,
				    "latencyd-waiter", &rt);
		if (r == 0) {
			w->n_threads++;
			*got_rt = *got_rt && rt;
		}
	}
	return r;
}

size_t waiter_threads(const struct waiter *w)
{
	return w->n_threads;
}

static void tell_stop(struct waiter *w)
{
	uint64_t one = 1;

	if (w->n_threads && write(w->stop_fd, &one, sizeof(one)) < 0)
		for (size_t i = 0; i < w->n_threads; i++)
			if (!w->threads[i].joined)
				pthread_cancel(w->threads[i].thread);
}

void waiter_stop(struct waiter *w)
{
	if (!w || w->n_left)
		return;
	tell_stop(w);
	for (size_t i = 0; i < w->n_threads; i++)
		if (!w->threads[i].joined)
			pthread_join(w->threads[i].thread, NULL);
	w->n_threads = 0;
}

/*
 * The stop gives up on the threads: no record begins from now on, and the one under way,
 * if any, is taken over: *LEFT is its failed result (NULL: no memory), which the thread
 * will not hand over. 1: a record was under way; 0: none (a thread is past its record, or
 * between two: what it recorded is handed over, or about to be).
 */
static int give_up(struct waiter *w, struct waiter_result **left)
{
	struct waiter_result *cur = NULL, *res = waiter_result_new(WAITER_SNAPSHOT, 1);
	uint64_t since = atomic_load(&w->busy_since), now = now_ns();
	int r = 0;

	*left = NULL;
	pthread_mutex_lock(&w->lock);
	/* A record that begins meanwhile (no lock) is the one taken over. */
	if (!atomic_compare_exchange_strong(&w->current, &cur, &given_up_mark) &&
	    cur != &given_up_mark) {
		r = 1;
		if (res) {
			res->kind = cur->kind;
			res->id = cur->id;
			memcpy(res->name, cur->name, sizeof(res->name));
			memcpy(res->incident, cur->incident, sizeof(res->incident));
			res->wakeup_ns = cur->wakeup_ns;
			/* Where its output may land late: NULL when it had no session yet. */
			res->output = flight_output_ref(cur->output);
			res->n = cur->n ? 1 : 0;
			if (res->n)
				res->causes[0] = cur->causes[0];
		}
		atomic_store(&w->current, &given_up_mark);
	}
	pthread_mutex_unlock(&w->lock);
	if (r == 0 || !res) {
		free(res);
		return r;
	}
	res->error = FLIGHT_ERR_ABANDONED;
	res->rec.start_ns = since ? since : now;
	res->rec.duration_ns = since && now > since ? now - since : 0;
	*left = res;
	return r;
}

/* Joins the threads not joined yet, waiting until DEADLINE_NS at most; how many are left. */
static size_t join_by(struct waiter *w, uint64_t deadline_ns)
{
	struct timespec ts = {
		.tv_sec = (time_t)(deadline_ns / 1000000000u),
		.tv_nsec = (long)(deadline_ns % 1000000000u),
	};
	size_t left = 0;

	for (size_t i = 0; i < w->n_threads; i++) {
		struct waiter_thread *t = &w->threads[i];

		if (!t->joined && pthread_clockjoin_np(t->thread, NULL, CLOCK_MONOTONIC, &ts) == 0)
			t->joined = true;
		left += !t->joined;
	}
	return left;
}

int waiter_stop_by(struct waiter *w, uint64_t deadline_ns, struct waiter_result **left)
{
	int r;

	*left = NULL;
	if (!w)
		return 0;
	tell_stop(w);
	w->n_left = join_by(w, deadline_ns);
	if (!w->n_left)
		goto joined;
	r = give_up(w, left);
	if (r == 1)
		return *left ? -ETIMEDOUT : -ENOMEM;
	/*
	 * No record was under way: the threads left are out of liblttng-ctl and can begin no
	 * other record. One may still hand over the result of a record sessiond ended just
	 * before the deadline: it is waited for, so that the caller takes that result too.
	 */
	w->n_left = join_by(w, now_ns() + STOP_GRACE_NS);
	if (w->n_left)
		return -ETIMEDOUT;
joined:
	w->n_threads = 0;
	return 0;
}

void waiter_free(struct waiter *w)
{
	int null;

	if (!w)
		return;
	if (w->n_left) {
		/*
		 * A thread is inside liblttng-ctl and may come back at any time: everything it
		 * touches stays. The notification file is swapped for /dev/null rather than
		 * closed, which releases the module's file (it can be unloaded) and keeps its
		 * number from being reused under the thread's read() by a file of ours.
		 */
		null = open("/dev/null", O_RDONLY | O_CLOEXEC);
		if (null >= 0 && w->fd >= 0)
			dup3(null, w->fd, O_CLOEXEC);
		if (null >= 0)
			close(null);
		return;
	}
	waiter_stop(w);
	free(w->threads);
	waiter_result_free(w->head);
	waiter_pool_free(w);
	if (w->fd >= 0)
		close(w->fd);
	if (w->stop_fd >= 0)
		close(w->stop_fd);
	if (w->done_fd >= 0)
		close(w->done_fd);
	if (w->request_fd >= 0)
		close(w->request_fd);
	if (w->calm_fd >= 0)
		close(w->calm_fd);
	pthread_mutex_destroy(&w->run);
	pthread_mutex_destroy(&w->lock);
	limits_done(&w->limits);
	free(w);
}
