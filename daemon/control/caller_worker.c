/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The group database asked on threads of their own. NSS (getpwuid_r, getgrouplist) has no
 * timeout: with sssd, LDAP or nslcd a lookup may take seconds or hang for as long as the
 * directory does not answer, and any local user can make latencyd ask when control groups
 * are set. Asked in the main loop, it would hold every client, the fleet, the catalog and
 * the watchdog's ping (systemd would kill latencyd). Here it holds one of WORKER_THREADS
 * threads only: the main loop hands lookups over (one per user at a time, control.c), the
 * threads take them in the order asked, and the answers come back through an eventfd, as
 * from the sessiond worker. With several threads, a user whose lookup hangs (an account
 * of a directory that does not answer) does not make the other users wait for it, unless
 * as many users' lookups hang at once.
 *
 * A thread inside NSS may never come back, so nothing waits for it: it is detached, and
 * what the threads share with the main loop (the queues, the lock, the eventfd) is counted:
 * the main loop's reference goes with caller_worker_free(), each thread's when it returns,
 * and the last one frees it all. A thread reads nothing of the main loop's (each lookup
 * carries its own uid and gid) and writes only into the answers and the eventfd.
 *
 * A reload may change the database's answers (a user taken out of a group): each answer
 * carries the epoch in which its lookup began, and the main loop starts a new one at every
 * reload (caller_lookup.c tells what an older answer is worth). Nothing here logs.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "control.h"
#include "thread.h"

#define WORKER_THREADS 4

struct caller_worker {
	pthread_mutex_t lock;
	pthread_cond_t wake;
	int fd;		/* eventfd: answers wait */
	unsigned refs;	/* the main loop's and each thread's */
	bool stop;	/* the main loop is gone: no more lookups */
	uint64_t epoch; /* see above */
	bool warm;	/* a thread has taken the warm-up (warm_up()) */
	struct caller_answer *asked, **asked_tail;
	struct caller_answer *answered, **answered_tail;
};

void caller_answer_free(struct caller_answer *a)
{
	if (!a)
		return;
	free(a->groups);
	free(a);
}

static void list_free(struct caller_answer *a)
{
	while (a) {
		struct caller_answer *next = a->next;

		caller_answer_free(a);
		a = next;
	}
}

static void destroy(struct caller_worker *w)
{
	list_free(w->asked);
	list_free(w->answered);
	pthread_cond_destroy(&w->wake);
	pthread_mutex_destroy(&w->lock);
	close(w->fd);
	free(w);
}

/* Drops a reference, W locked: the last one frees W. */
static void unref_locked(struct caller_worker *w)
{
	bool last = --w->refs == 0;

	pthread_mutex_unlock(&w->lock);
	if (last)
		destroy(w);
}

/*
 * NSS loads its modules and reads its configuration at a process's first lookup (over a
 * millisecond with files alone, more with sssd): done before any caller waits for it, so
 * that a user's connections do not pile up behind the first lookup (control.c caps them).
 * Once per process, by the first thread: the others would only allocate alongside it.
 */
static void warm_up(void)
{
	gid_t *groups = NULL;
	int n;

	if (caller_database_groups(0, 0, &groups, &n) >= 0)
		free(groups);
}

static void *run(void *arg)
{
	struct caller_worker *w = arg;
	const uint64_t one = 1;

	pthread_mutex_lock(&w->lock);
	if (!w->warm) {
		w->warm = true;
		pthread_mutex_unlock(&w->lock);
		warm_up();
		pthread_mutex_lock(&w->lock);
	}
	for (;;) {
		struct caller_answer *a;

		while (!w->asked && !w->stop)
			pthread_cond_wait(&w->wake, &w->lock);
		if (w->stop)
			break;
		a = w->asked;
		w->asked = a->next;
		if (!w->asked)
			w->asked_tail = &w->asked;
		a->next = NULL;
		a->epoch = w->epoch;
		pthread_mutex_unlock(&w->lock);

		a->error = caller_database_groups(a->uid, a->gid, &a->groups, &a->ngroups);

		pthread_mutex_lock(&w->lock);
		*w->answered_tail = a;
		w->answered_tail = &a->next;
		/* This thread's reference keeps the eventfd open. */
		if (write(w->fd, &one, sizeof(one)) < 0) {
			/* Cannot overflow in practice; the main loop reads it. */
		}
	}
	unref_locked(w);
	return NULL;
}

int caller_worker_new(struct caller_worker **ret)
{
	struct caller_worker *w = calloc(1, sizeof(*w));
	sigset_t all, old;
	unsigned started;
	pthread_t t;
	int r = 0;

	if (!w)
		return -ENOMEM;
	w->fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (w->fd < 0) {
		r = -errno;
		free(w);
		return r;
	}
	pthread_mutex_init(&w->lock, NULL);
	pthread_cond_init(&w->wake, NULL);
	w->asked_tail = &w->asked;
	w->answered_tail = &w->answered;
	/* The main loop's reference, and one for each thread, taken before it runs. */
	w->refs = 1 + WORKER_THREADS;
	/* Signals are the main loop's (signalfd): the threads start with all of them blocked. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	for (started = 0; started < WORKER_THREADS; started++) {
		/* Normal priority: they wait for NSS, which no realtime thread may wait for. */
		r = thread_start(&t, SCHED_OTHER, 0, THREAD_STACK_WORKER, run, w,
				 "latencyd-groups");
		if (r < 0)
			break;
		pthread_detach(t);
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (started == 0) {
		destroy(w);
		return r;
	}
	/* Fewer threads than asked still serve (their references given back); none cannot. */
	pthread_mutex_lock(&w->lock);
	w->refs -= WORKER_THREADS - started;
	pthread_mutex_unlock(&w->lock);
	*ret = w;
	return 0;
}

int caller_worker_fd(const struct caller_worker *w)
{
	return w->fd;
}

int caller_worker_ask(struct caller_worker *w, uid_t uid, gid_t gid, uint64_t id)
{
	struct caller_answer *a = calloc(1, sizeof(*a));

	if (!a)
		return -ENOMEM;
	a->uid = uid;
	a->gid = gid;
	a->id = id;
	pthread_mutex_lock(&w->lock);
	*w->asked_tail = a;
	w->asked_tail = &a->next;
	pthread_cond_signal(&w->wake);
	pthread_mutex_unlock(&w->lock);
	return 0;
}

struct caller_answer *caller_worker_answers(struct caller_worker *w)
{
	struct caller_answer *a;
	uint64_t v;

	if (read(w->fd, &v, sizeof(v)) < 0) {
		/* EAGAIN: nothing new; the list is looked at all the same. */
	}
	pthread_mutex_lock(&w->lock);
	a = w->answered;
	w->answered = NULL;
	w->answered_tail = &w->answered;
	pthread_mutex_unlock(&w->lock);
	return a;
}

uint64_t caller_worker_new_epoch(struct caller_worker *w)
{
	uint64_t epoch;

	pthread_mutex_lock(&w->lock);
	epoch = ++w->epoch;
	pthread_mutex_unlock(&w->lock);
	return epoch;
}

void caller_worker_free(struct caller_worker *w)
{
	if (!w)
		return;
	pthread_mutex_lock(&w->lock);
	w->stop = true;
	pthread_cond_broadcast(&w->wake);
	unref_locked(w);
}
