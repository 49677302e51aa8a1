/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The main loop's side of the group database's lookups (caller_worker.c asks them): one in
 * flight per uid and primary gid, whatever the number of connections waiting for it (a user
 * connecting in a loop costs one lookup, not one per connection), its answer kept a few
 * seconds (caller_cache.c) and handed to control.c, which admits the clients waiting for it
 * or checks them again. The worker starts when control groups are configured, or with the
 * first lookup (it could not start before): without them latencyd runs no thread for them.
 *
 * A reload empties the cache, so that the clients checked against the new groups, and
 * whoever connects next, are checked against the database as it is then. A lookup that
 * began before it may have read the database as it was: its answer is not kept, and is told
 * not current, for control.c to ask again for those waiting on it. One asked before the
 * reload but not begun yet reads the database after it: its answer is current.
 *
 * A lookup in flight for longer than its waiters wait (stale_usec, the handshake timeout), or
 * asked before the last reload, no longer takes in the user's next connections: NSS may
 * never come back from it, and the database may have recovered since, or changed. The next
 * asks again, up to LOOKUPS_PER_USER of a uid in flight at once: a user whose lookups all
 * hang holds that many of the worker's threads, never all of them, and its next connections
 * join its newest lookup (or none: they wait out the handshake timeout, busy).
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/epoll.h>

#include "control.h"

/* Of caller_worker.c's four threads: what the other users keep when one user's hang. */
#define LOOKUPS_PER_USER 2

struct caller_inflight {
	struct caller_inflight *next;
	uid_t uid;
	gid_t gid;
	uint64_t id;	/* its answer's (caller_answer.id) */
	uint64_t since; /* CLOCK_MONOTONIC usec, when asked */
	uint64_t epoch; /* l->epoch then */
};

/* The lookup in flight whose answer has ID. */
static struct caller_inflight **inflight_find(struct caller_lookups *l, uint64_t id)
{
	struct caller_inflight **f;

	for (f = &l->inflight; *f; f = &(*f)->next)
		if ((*f)->id == id)
			break;
	return f;
}

/* UID/GID's newest lookup in flight (the list is newest first), and UID's count in *N. */
static struct caller_inflight *inflight_newest(struct caller_lookups *l, uid_t uid, gid_t gid,
					       unsigned *n)
{
	struct caller_inflight *newest = NULL;

	*n = 0;
	for (struct caller_inflight *f = l->inflight; f; f = f->next) {
		if (f->uid != uid)
			continue;
		(*n)++;
		if (!newest && f->gid == gid)
			newest = f;
	}
	return newest;
}

static int on_answers(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
	struct caller_lookups *l = userdata;
	struct caller_answer *a, *next;
	uint64_t now = 0;

	sd_event_now(l->event, CLOCK_MONOTONIC, &now);
	for (a = caller_worker_answers(l->worker); a; a = next) {
		struct caller_inflight **f = inflight_find(l, a->id), *done = *f;
		bool current = a->epoch == l->epoch;

		next = a->next;
		if (done) {
			*f = done->next;
			free(done);
		}
		if (current && a->error >= 0)
			caller_cache_put(l->cache, a->uid, a->gid, a->groups, a->ngroups, now);
		l->answered(l->userdata, a->uid, a->gid, current, a->error, a->groups, a->ngroups);
		caller_answer_free(a);
	}
	return 0;
}

void caller_lookups_init(struct caller_lookups *l, sd_event *event, struct caller_cache *cache,
			 uint64_t stale_usec, caller_answered_t answered, void *userdata)
{
	*l = (struct caller_lookups){.event = event,
				     .cache = cache,
				     .stale_usec = stale_usec,
				     .answered = answered,
				     .userdata = userdata};
}

int caller_lookups_start(struct caller_lookups *l)
{
	int r;

	if (l->worker)
		return 0;
	r = caller_worker_new(&l->worker);
	if (r < 0)
		return r;
	r = sd_event_add_io(l->event, &l->io, caller_worker_fd(l->worker), EPOLLIN, on_answers, l);
	if (r < 0) {
		caller_worker_free(l->worker);
		l->worker = NULL;
		return r;
	}
	sd_event_source_set_description(l->io, "control-groups");
	l->epoch = 0; /* the new worker's */
	return 0;
}

int caller_lookups_ask(struct caller_lookups *l, uid_t uid, gid_t gid)
{
	struct caller_inflight *f;
	uint64_t now = 0;
	unsigned of_uid;
	int r;

	sd_event_now(l->event, CLOCK_MONOTONIC, &now);
	f = inflight_newest(l, uid, gid, &of_uid);
	if (f && f->epoch == l->epoch && now - f->since < l->stale_usec)
		return 0;
	if (of_uid >= LOOKUPS_PER_USER)
		return 0;
	r = caller_lookups_start(l);
	if (r < 0)
		return r;
	f = calloc(1, sizeof(*f));
	if (!f)
		return -ENOMEM;
	f->id = ++l->asked;
	r = caller_worker_ask(l->worker, uid, gid, f->id);
	if (r < 0) {
		free(f);
		return r;
	}
	f->uid = uid;
	f->gid = gid;
	f->since = now;
	f->epoch = l->epoch;
	f->next = l->inflight;
	l->inflight = f;
	return 0;
}

void caller_lookups_reset(struct caller_lookups *l)
{
	caller_cache_clear(l->cache);
	if (l->worker)
		l->epoch = caller_worker_new_epoch(l->worker);
}

void caller_lookups_done(struct caller_lookups *l)
{
	l->io = sd_event_source_disable_unref(l->io);
	caller_worker_free(l->worker);
	l->worker = NULL;
	while (l->inflight) {
		struct caller_inflight *f = l->inflight;

		l->inflight = f->next;
		free(f);
	}
}
