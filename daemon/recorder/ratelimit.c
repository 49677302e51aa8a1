// SPDX-License-Identifier: GPL-2.0-only
/*
 * Token buckets. Each bucket refills continuously at `rate` tokens per second up to `burst`,
 * so a quiet period earns at most `burst` snapshots in a row and a storm gets `rate` per
 * second. Refill is computed lazily from the caller's monotonic time: no timer, no thread.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ratelimit.h"

static void refill(struct bucket *b, uint64_t now_ns)
{
	if (now_ns <= b->last_ns)
		return;
	if (b->rate > 0) {
		b->tokens += (double)(now_ns - b->last_ns) * b->rate / 1e9;
		if (b->tokens > b->burst)
			b->tokens = b->burst;
	}
	b->last_ns = now_ns;
}

void bucket_init(struct bucket *b, double rate, double burst, uint64_t now_ns)
{
	b->rate = rate;
	b->burst = burst < 1 ? 1 : burst;
	b->tokens = b->burst;
	b->last_ns = now_ns;
}

void bucket_configure(struct bucket *b, double rate, double burst, uint64_t now_ns)
{
	refill(b, now_ns);
	b->rate = rate;
	b->burst = burst < 1 ? 1 : burst;
	if (b->tokens > b->burst)
		b->tokens = b->burst;
}

bool bucket_would_allow(struct bucket *b, uint64_t now_ns)
{
	if (b->rate <= 0)
		return true;
	refill(b, now_ns);
	return b->tokens >= 1.0;
}

void bucket_take(struct bucket *b)
{
	if (b->rate > 0)
		b->tokens -= 1.0;
}

void bucket_give(struct bucket *b)
{
	if (b->rate > 0 && (b->tokens += 1.0) > b->burst)
		b->tokens = b->burst;
}

double bucket_tokens(struct bucket *b, uint64_t now_ns)
{
	refill(b, now_ns);
	return b->tokens;
}

bool buckets_take_all(struct bucket *const *buckets, unsigned n, uint64_t now_ns)
{
	for (unsigned i = 0; i < n; i++)
		if (!bucket_would_allow(buckets[i], now_ns))
			return false;
	for (unsigned i = 0; i < n; i++)
		bucket_take(buckets[i]);
	return true;
}

static struct bucket *tracker_bucket(struct limits *l, const char *tracker)
{
	for (size_t i = 0; i < l->n_trackers; i++)
		if (strcmp(l->trackers[i].name, tracker) == 0)
			return &l->trackers[i].b;
	return NULL;
}

static void set(struct bucket *b, bool configured, double rate, double burst, uint64_t now)
{
	if (configured)
		bucket_configure(b, rate, burst, now);
	else
		bucket_init(b, rate, burst, now);
}

int limits_prepare(const struct conf *c, struct limits_update *u)
{
	u->n = c->ratelimit.trackers.n;
	u->trackers = u->n ? calloc(u->n, sizeof(*u->trackers)) : NULL;
	return u->n && !u->trackers ? -ENOMEM : 0;
}

void limits_apply(struct limits *l, const struct conf *c, uint64_t now, struct limits_update *u)
{
	const struct conf_buckets *trackers = &c->ratelimit.trackers;
	struct tracker_bucket *t = u->trackers;
	size_t n = u->n;

	for (size_t i = 0; i < n; i++) {
		const struct conf_bucket *cb = &trackers->v[i];
		struct bucket *old = tracker_bucket(l, cb->tracker);

		snprintf(t[i].name, sizeof(t[i].name), "%s", cb->tracker);
		if (old)
			t[i].b = *old;
		set(&t[i].b, old != NULL, cb->rate, cb->burst, now);
	}
	set(&l->global, l->configured, c->ratelimit.rate, (double)c->ratelimit.burst, now);
	set(&l->total, l->configured, c->fleet.total_rate, (double)c->fleet.total_burst, now);
	l->origin_rate = c->fleet.peer_rate;
	l->origin_burst = (double)c->fleet.peer_burst;
	for (size_t i = 0; i < LIMITS_ORIGINS; i++)
		if (l->origins[i].host[0])
			bucket_configure(&l->origins[i].b, l->origin_rate, l->origin_burst, now);
	l->configured = true;
	u->trackers = l->trackers;
	u->n = l->n_trackers;
	l->trackers = t;
	l->n_trackers = n;
}

void limits_update_done(struct limits_update *u)
{
	free(u->trackers);
	u->trackers = NULL;
	u->n = 0;
}

int limits_configure(struct limits *l, const struct conf *c, uint64_t now)
{
	struct limits_update u;
	int r = limits_prepare(c, &u);

	if (r < 0)
		return r;
	limits_apply(l, c, now, &u);
	limits_update_done(&u);
	return 0;
}

bool limits_allow(struct limits *l, const struct cause *c, uint64_t now)
{
	char tracker[LATENCY_TRACKER_NAME_LEN + 1];
	struct bucket *b[2];
	unsigned n = 0;

	if (c->kind == CAUSE_PEER)
		return limits_allow_peer(l, c, now) == NULL;
	cause_tracker(c, tracker);
	b[n++] = &l->global;
	if ((b[n] = tracker_bucket(l, tracker)))
		n++;
	return buckets_take_all(b, n, now);
}

static struct bucket *origin_bucket(struct limits *l, const char *host, uint64_t now)
{
	struct origin_bucket *o = NULL, *oldest = &l->origins[0];

	for (size_t i = 0; i < LIMITS_ORIGINS && !o; i++) {
		if (strcmp(l->origins[i].host, host) == 0)
			o = &l->origins[i];
		else if (l->origins[i].used_ns < oldest->used_ns)
			oldest = &l->origins[i];
	}
	if (!o) {
		o = oldest;
		snprintf(o->host, sizeof(o->host), "%s", host);
		bucket_init(&o->b, l->origin_rate, l->origin_burst, now);
	}
	o->used_ns = now;
	return &o->b;
}

const char *limits_allow_peer(struct limits *l, const struct cause *c, uint64_t now)
{
	struct bucket *b[2] = {origin_bucket(l, c->peer.alert.host, now), &l->total};

	if (buckets_take_all(b, 2, now))
		return NULL;
	/* A noisy origin is said to be refused by its own budget, though the total is out too. */
	return bucket_would_allow(b[0], now) ? PROTO_FLEET_BUDGET_TOTAL : PROTO_FLEET_BUDGET_ORIGIN;
}

void limits_give_back(struct limits *l, const struct cause *c)
{
	char tracker[LATENCY_TRACKER_NAME_LEN + 1];
	struct bucket *b;

	if (c->kind == CAUSE_PEER) {
		/* Its origin's bucket, unless it was forgotten meanwhile (LIMITS_ORIGINS). */
		for (size_t i = 0; i < LIMITS_ORIGINS; i++)
			if (strcmp(l->origins[i].host, c->peer.alert.host) == 0) {
				bucket_give(&l->origins[i].b);
				break;
			}
		bucket_give(&l->total);
		return;
	}
	cause_tracker(c, tracker);
	bucket_give(&l->global);
	if ((b = tracker_bucket(l, tracker)))
		bucket_give(b);
}

double limits_tokens(struct bucket *b, uint64_t now)
{
	return b->rate > 0 ? bucket_tokens(b, now) : -1;
}

void limits_done(struct limits *l)
{
	free(l->trackers);
	l->trackers = NULL;
	l->n_trackers = 0;
}
