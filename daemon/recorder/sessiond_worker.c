// SPDX-License-Identifier: GPL-2.0-only
/*
 * The sessiond worker: the session's operations other than records (its creation, its
 * re-creation, the check that it is still there, a live setting, its destroy at a stop) on
 * a thread of their own, one job at a time. liblttng-ctl has no timeout: a stopped or hung
 * lttng-sessiond holds this thread for as long as it does not answer, never the main loop
 * (the control socket, SIGTERM, the watchdog). The main loop hands a job over and takes it
 * back with its result through an eventfd, as from the waiter and the snapshot reader.
 *
 * liblttng-ctl keeps global connection state: it is called by one thread at a time. The
 * waiter records under the slot's lock, and only with a session in the slot; this thread
 * calls it under the same lock, except while it creates a session: it takes the old one out
 * of the slot first, under the lock, so that the waiter, finding no session, calls nothing
 * (its record fails at once instead of waiting for sessiond with it), and puts the new one
 * in once made. A record does not wait long for the check, the one call this thread makes
 * with the lock held (flight_slot_lock()). Nothing here logs: the main loop says what the
 * job did.
 */
#include <errno.h>
#include <poll.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "recorder_internal.h"

struct sessiond_worker {
	pthread_t thread;
	struct flight_slot *slot;
	int done_fd;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	struct session_job *todo, *done; /* one job at a time: the main loop waits for its result */
	bool stop, destroy;		 /* at a stop: the session destroyed last */
	bool left;			 /* a stop gave up waiting for the thread */
	/* What the thread is inside now (a job's op, or SESSION_OP_DESTROY) and since when. */
	_Atomic uint64_t busy_since;
	_Atomic int busy_op;
};

struct session_job *session_job_new(enum session_op op, const struct flight_settings *s)
{
	struct session_job *j = calloc(1, sizeof(*j));
	size_t n = 0;
	bool ok;

	if (!j)
		return NULL;
	j->op = op;
	if (!s)
		return j;
	j->s = *s;
	for (const char *const *e = s->events; e && *e; e++)
		n++;
	j->events = calloc(n + 1, sizeof(*j->events));
	j->s.session = j->session = strdup(s->session);
	j->s.local_dir = j->local_dir = strdup(s->local_dir);
	j->s.relayd_url = j->relayd_url = s->relayd_url ? strdup(s->relayd_url) : NULL;
	ok = j->events && j->session && j->local_dir && (!s->relayd_url || j->relayd_url);
	for (size_t i = 0; ok && i < n; i++)
		ok = (j->events[i] = strdup(s->events[i])) != NULL;
	j->s.events = (const char *const *)j->events;
	if (!ok) {
		session_job_free(j);
		return NULL;
	}
	return j;
}

void session_job_free(struct session_job *j)
{
	if (!j)
		return;
	conf_strv_free(j->events);
	conf_strv_free(j->offered);
	free(j->session);
	free(j->local_dir);
	free(j->relayd_url);
	free(j);
}

static void busy(struct sessiond_worker *w, int op)
{
	atomic_store(&w->busy_op, op);
	atomic_store(&w->busy_since, op < 0 ? 0 : now_ns());
}

/* The old session out of the slot, the new one in: the waiter calls nothing meanwhile. */
static void create(struct sessiond_worker *w, struct session_job *j)
{
	struct flight *old, *f = NULL;

	pthread_mutex_lock(&w->slot->lock);
	old = w->slot->flight;
	w->slot->flight = NULL;
	pthread_mutex_unlock(&w->slot->lock);
	flight_destroy(old);
	j->tried = true;
	j->error = flight_create(&j->s, &f);
	if (j->error < 0)
		return;
	j->created = true;
	j->replaced = flight_replaced(f);
	if (flight_relayd_unprobed(f))
		snprintf(j->unprobed, sizeof(j->unprobed), "%s", flight_relayd_unprobed(f));
	/* Which events the loaded probes offer, for the main loop to say those missing. */
	if (j->s.domain == FLIGHT_DOMAIN_KERNEL && flight_kernel_events(&j->offered) < 0)
		j->offered = NULL;
	pthread_mutex_lock(&w->slot->lock);
	w->slot->flight = f;
	atomic_fetch_add(&w->slot->sessions, 1);
	pthread_mutex_unlock(&w->slot->lock);
}

static void serve(struct sessiond_worker *w, struct session_job *j)
{
	struct flight_slot *slot = w->slot;
	int r;

	switch (j->op) {
	case SESSION_OP_UPDATE:
		pthread_mutex_lock(&slot->lock);
		if (slot->flight)
			flight_set_relayd_timeout(slot->flight, j->relayd_timeout_ns);
		pthread_mutex_unlock(&slot->lock);
		return;
	case SESSION_OP_CHECK:
		pthread_mutex_lock(&slot->lock);
		atomic_store(&slot->check_since, now_ns());
		r = slot->flight ? flight_exists(slot->flight) : 0;
		atomic_store(&slot->check_since, 0);
		j->gone = slot->flight && r == 0;
		/* sessiond failed to answer: the session it had is taken to be there still. */
		j->present = r > 0 || (r < 0 && slot->flight);
		pthread_mutex_unlock(&slot->lock);
		j->error = r < 0 ? r : 0;
		if (r != 0)
			return;
		break;
	default:
		break;
	}
	create(w, j);
	j->present = j->created;
}

/*
 * How long a record waits for the slot while the check holds it inside sessiond, from the
 * check's call on: a check takes a millisecond or so; one that takes this long waits for a
 * sessiond that does not answer, which the record would wait for as long (sessiond serves
 * one client at a time). Failing it then keeps the waiter reading alerts and counting them,
 * and its watchdog fed: a restart would not make sessiond answer. Well under the half
 * watchdog period after which a waiter in one record counts as stuck.
 */
#define SLOT_CHECK_WAIT_NS (250 * 1000000ULL)

/*
 * The slot's PI mutex is waited for until a CLOCK_MONOTONIC deadline: a step of the wall
 * clock (NTP, an administrator) must not stretch the realtime waiter's wait. A PI mutex's
 * wait on CLOCK_MONOTONIC needs FUTEX_LOCK_PI2 (Linux 5.14): on an older kernel glibc
 * returns EINVAL, and the wait falls back, for good, to CLOCK_REALTIME, the only clock of
 * FUTEX_LOCK_PI.
 */
static _Atomic bool pi_monotonic_refused;

/* CLOCK_MONOTONIC DEADLINE_NS on CLOCK_REALTIME, for the fallback. */
static struct timespec realtime_at(uint64_t deadline_ns, uint64_t now)
{
	struct timespec ts;
	uint64_t ns;

	clock_gettime(CLOCK_REALTIME, &ts);
	ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec + (deadline_ns - now);
	ts.tv_sec = (time_t)(ns / 1000000000u);
	ts.tv_nsec = (long)(ns % 1000000000u);
	return ts;
}

/* M locked, waiting until DEADLINE_NS (CLOCK_MONOTONIC, NOW now) at most: 0 or an errno. */
static int lock_by(pthread_mutex_t *m, uint64_t deadline_ns, uint64_t now)
{
	struct timespec ts = {
		.tv_sec = (time_t)(deadline_ns / 1000000000u),
		.tv_nsec = (long)(deadline_ns % 1000000000u),
	};
	int r;

	if (!atomic_load(&pi_monotonic_refused)) {
		r = pthread_mutex_clocklock(m, CLOCK_MONOTONIC, &ts);
		if (r != EINVAL)
			return r;
		atomic_store(&pi_monotonic_refused, true);
	}
	ts = realtime_at(deadline_ns, now);
	return pthread_mutex_timedlock(m, &ts);
}

int flight_slot_lock(struct flight_slot *slot)
{
	for (;;) {
		uint64_t since = atomic_load(&slot->check_since), now = now_ns();
		uint64_t deadline = (since ? since : now) + SLOT_CHECK_WAIT_NS;
		int r;

		if (now >= deadline)
			return pthread_mutex_trylock(&slot->lock) == 0 ? 0
								       : FLIGHT_ERR_SESSIOND_BUSY;
		r = lock_by(&slot->lock, deadline, now);
		if (r == 0)
			return 0;
		/*
		 * Timed out: whoever else holds the slot holds it briefly (no sessiond call), or
		 * it is the check, which had not said so yet when looked at: look again.
		 */
		if (r != ETIMEDOUT && r != EINTR) {
			pthread_mutex_lock(&slot->lock);
			return 0;
		}
	}
}

static void *run(void *arg)
{
	struct sessiond_worker *w = arg;
	struct session_job *j;
	struct flight *f;
	uint64_t one = 1;

	for (;;) {
		pthread_mutex_lock(&w->lock);
		while (!w->todo && !w->stop)
			pthread_cond_wait(&w->wake, &w->lock);
		/* At a stop, a job not begun is dropped (freed with the worker). */
		j = w->stop ? NULL : w->todo;
		if (j)
			w->todo = NULL;
		pthread_mutex_unlock(&w->lock);
		if (!j)
			break;
		busy(w, (int)j->op);
		serve(w, j);
		busy(w, -1);
		pthread_mutex_lock(&w->lock);
		w->done = j;
		pthread_mutex_unlock(&w->lock);
		if (write(w->done_fd, &one, sizeof(one)) < 0) {
			/* Cannot overflow in practice; the main loop reads it. */
		}
	}
	if (w->destroy) {
		busy(w, SESSION_OP_DESTROY);
		pthread_mutex_lock(&w->slot->lock);
		f = w->slot->flight;
		w->slot->flight = NULL;
		pthread_mutex_unlock(&w->slot->lock);
		flight_destroy(f);
		busy(w, -1);
	}
	return NULL;
}

int sessiond_worker_new(struct flight_slot *slot, struct sessiond_worker **ret)
{
	struct sessiond_worker *w = calloc(1, sizeof(*w));
	int r;

	if (!w)
		return -ENOMEM;
	w->slot = slot;
	w->busy_op = -1;
	w->done_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (w->done_fd < 0) {
		r = -errno;
		free(w);
		return r;
	}
	pthread_mutex_init(&w->lock, NULL);
	pthread_cond_init(&w->wake, NULL);
	/* Normal priority: it waits for sessiond, which the realtime waiter must never do for it. */
	r = thread_start(&w->thread, SCHED_OTHER, 0, THREAD_STACK_WAITER, run, w, "latencyd-lttng");
	if (r < 0) {
		pthread_cond_destroy(&w->wake);
		pthread_mutex_destroy(&w->lock);
		close(w->done_fd);
		free(w);
		return r;
	}
	*ret = w;
	return 0;
}

int sessiond_worker_eventfd(const struct sessiond_worker *w)
{
	return w->done_fd;
}

void sessiond_worker_submit(struct sessiond_worker *w, struct session_job *j)
{
	pthread_mutex_lock(&w->lock);
	w->todo = j;
	pthread_cond_signal(&w->wake);
	pthread_mutex_unlock(&w->lock);
}

struct session_job *sessiond_worker_take(struct sessiond_worker *w)
{
	struct session_job *j;
	uint64_t v;

	if (read(w->done_fd, &v, sizeof(v)) < 0) {
		/* EAGAIN: nothing new, the slot is checked anyway. */
	}
	pthread_mutex_lock(&w->lock);
	j = w->done;
	w->done = NULL;
	pthread_mutex_unlock(&w->lock);
	return j;
}

bool sessiond_worker_wait(struct sessiond_worker *w, uint64_t deadline_ns)
{
	struct pollfd p = {.fd = w->done_fd, .events = POLLIN};
	uint64_t now;

	while ((now = now_ns()) < deadline_ns) {
		int r = poll(&p, 1, (int)((deadline_ns - now + 999999) / 1000000));

		if (r > 0)
			return true;
		if (r < 0 && errno != EINTR)
			return false;
	}
	return false;
}

int sessiond_worker_busy(struct sessiond_worker *w, uint64_t *ns)
{
	uint64_t since = atomic_load(&w->busy_since), now = now_ns();
	int op = atomic_load(&w->busy_op);

	*ns = op >= 0 && since && now > since ? now - since : 0;
	return op;
}

static void tell_stop(struct sessiond_worker *w, bool destroy)
{
	pthread_mutex_lock(&w->lock);
	w->stop = true;
	w->destroy = destroy;
	pthread_cond_signal(&w->wake);
	pthread_mutex_unlock(&w->lock);
}

int sessiond_worker_stop_by(struct sessiond_worker *w, bool destroy, uint64_t deadline_ns)
{
	struct timespec ts = {
		.tv_sec = (time_t)(deadline_ns / 1000000000u),
		.tv_nsec = (long)(deadline_ns % 1000000000u),
	};

	tell_stop(w, destroy);
	if (pthread_clockjoin_np(w->thread, NULL, CLOCK_MONOTONIC, &ts) == 0)
		return 0;
	w->left = true;
	return -ETIMEDOUT;
}

void sessiond_worker_free(struct sessiond_worker *w)
{
	if (!w || w->left)
		return; /* the thread may come back from liblttng-ctl: all it uses stays */
	if (!w->stop) {
		tell_stop(w, false);
		pthread_join(w->thread, NULL);
	}
	session_job_free(w->todo);
	session_job_free(w->done);
	pthread_cond_destroy(&w->wake);
	pthread_mutex_destroy(&w->lock);
	close(w->done_fd);
	free(w);
}
