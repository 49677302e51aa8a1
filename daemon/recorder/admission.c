// SPDX-License-Identifier: GPL-2.0-only
/*
 * Which alert gets a snapshot, and what becomes of the others. An alert read from the
 * notification file, a manual record and a peer's alert all go through the rate limits
 * (ratelimit.c): a peer's under its origin's bucket and the total as it is queued, refused
 * at once with the budget's name for its answer (the fleet's reader thread counts it). An
 * alert that ended before a record began is in that snapshot already: it joins it as one
 * more cause instead of asking for its own.
 *
 * Refused local alerts become "suppressed" results, one per tracker until the main loop takes
 * them, so that a flood costs the main loop a count, not a result, a log line and a
 * catalog update per alert. The thread admits, joins and suppresses; other threads queue
 * requests and peers' alerts, set the limits and read the counters; all under the waiter's
 * lock.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "waiter_internal.h"

int waiter_configure(struct waiter *w, const struct conf *c, const char *fleet_host,
		     uint64_t incident_base)
{
	struct limits_update u;
	int r = limits_prepare(c, &u);

	if (r < 0)
		return r;
	pthread_mutex_lock(&w->lock);
	w->incident_base = incident_base;
	limits_apply(&w->limits, c, now_ns(), &u);
	snprintf(w->host, sizeof(w->host), "%s", fleet_host ?: "");
	w->publish = fleet_host && c->fleet.publish;
	w->max_age_ns = c->fleet.max_age_ns;
	pthread_mutex_unlock(&w->lock);
	limits_update_done(&u);
	return 0;
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

bool admission_allow(struct waiter *w, struct cause *c, uint64_t now)
{
	bool ok;

	/* A peer's took its tokens as it was queued (waiter_peer()). */
	if (c->kind == CAUSE_PEER)
		return true;
	pthread_mutex_lock(&w->lock);
	ok = allow_locked(w, c, now);
	pthread_mutex_unlock(&w->lock);
	return ok;
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
	struct waiter_result *res = waiter_result_get(w, WAITER_SUPPRESSED, 1);

	if (!res) {
		waiter_nomem(w); /* counted, not told as an event (a request's client times out) */
		return;
	}
	res->causes[0] = *c;
	res->n = 1;
	waiter_push(w, res);
}

void admission_suppress(struct waiter *w, const struct cause *c)
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
 * suppressed result.
 */
bool admission_admit(struct waiter *w, const struct cause *c, uint64_t now)
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

void admission_give_back(struct waiter *w, const struct cause *c)
{
	pthread_mutex_lock(&w->lock);
	limits_give_back(&w->limits, c);
	pthread_mutex_unlock(&w->lock);
}

struct waiter_result *admission_join(struct waiter *w, struct waiter_result *res,
				     const struct cause *c)
{
	struct waiter_result *grown;

	/* Only one from malloc (the pool was empty) grows: a pooled one has room for all. */
	if (res->n == res->cap && res->cap < MAX_CAUSES && !res->pool) {
		size_t more_cap = res->cap * 2 < MAX_CAUSES ? res->cap * 2 : MAX_CAUSES;

		grown = realloc(res, sizeof(*res) + more_cap * sizeof(res->causes[0]));
		if (grown) {
			res = grown;
			res->cap = more_cap;
		}
	}
	if (res->n < res->cap)
		res->causes[res->n++] = *c;
	else
		admission_suppress(w, c); /* out of memory: still accounted for */
	return res;
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

/* Under w->lock: peers' alerts of ORIGIN waiting for the thread. */
static size_t peers_queued(const struct waiter *w, const char *origin)
{
	size_t n = 0;

	for (size_t i = 0; i < w->n_peers; i++)
		n += strcmp(w->peers[i].alert.host, origin) == 0;
	return n;
}

/*
 * The budgets are applied here, before the alert is queued: a refused alert never takes a
 * place in the queue, and a noisy origin holds MAX_PEERS_PER_ORIGIN places at most, so
 * that a quiet origin's alert finds one while the thread records (latencyd.conf(5): a
 * noisy host never takes a quiet one's turn). The tokens are taken first: a flood past
 * its bucket is refused by its origin's budget, as its origin is told, not by the queue.
 * One the queue refuses gives them back: a burst against a full queue would otherwise
 * spend its origin's budget on alerts never recorded.
 */
int waiter_peer(struct waiter *w, const struct proto_fleet_alert *a, uint64_t received_ns,
		const char **refused_by)
{
	struct cause c = {.kind = CAUSE_PEER, .peer = {.alert = *a, .received_ns = received_ns}};
	uint64_t one = 1;
	int r = 0;

	pthread_mutex_lock(&w->lock);
	*refused_by = limits_allow_peer(&w->limits, &c, now_ns());
	if (!*refused_by &&
	    (w->n_peers >= MAX_PEERS || peers_queued(w, a->host) >= MAX_PEERS_PER_ORIGIN)) {
		limits_give_back(&w->limits, &c);
		*refused_by = PROTO_FLEET_BUDGET_QUEUE;
	}
	if (*refused_by)
		r = -EBUSY;
	else
		w->peers[w->n_peers++] = c.peer;
	pthread_mutex_unlock(&w->lock);
	if (r == 0 && write(w->request_fd, &one, sizeof(one)) < 0) {
		/* Queued all the same: only a full counter fails, the thread is woken. */
	}
	return r;
}

bool admission_peer_stale(struct waiter *w, const struct cause *c)
{
	struct waiter_result *res;
	bool stale;

	pthread_mutex_lock(&w->lock);
	/* As the fleet process judged it on arrival, by this host's clock now. */
	stale = proto_fleet_alert_stale(&c->peer.alert, realtime_ns(), w->max_age_ns);
	if (stale) /* never recorded: its budget is not spent */
		limits_give_back(&w->limits, c);
	pthread_mutex_unlock(&w->lock);
	if (!stale)
		return false;
	res = waiter_result_get(w, WAITER_STALE, 1);
	if (!res) {
		waiter_nomem(w); /* counted; its origin hears nothing (its answer_within says so) */
		return true;
	}
	res->causes[0] = *c;
	res->n = 1;
	waiter_push(w, res);
	return true;
}

bool admission_next_request(struct waiter *w, struct cause *c)
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
