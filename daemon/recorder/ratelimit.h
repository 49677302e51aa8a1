/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ratelimit.c: token buckets deciding which alerts become snapshots. An alert needs a token
 * from the global bucket and from its tracker's bucket. Time comes from the caller, so
 * tests drive the clock.
 */
#ifndef LATENCYD_RATELIMIT_H
#define LATENCYD_RATELIMIT_H

#include <stdbool.h>
#include <stdint.h>

struct bucket {
	double rate;  /* tokens per second; 0 = no limit */
	double burst; /* bucket size, >= 1 */
	double tokens;
	uint64_t last_ns;
};

void bucket_init(struct bucket *b, double rate, double burst, uint64_t now_ns);
/* Changes rate and burst, keeping the tokens earned so far (capped at the new burst). */
void bucket_configure(struct bucket *b, double rate, double burst, uint64_t now_ns);
bool bucket_would_allow(struct bucket *b, uint64_t now_ns);
void bucket_take(struct bucket *b);
/* A token taken back (what was taken for nothing), up to the burst. */
void bucket_give(struct bucket *b);
double bucket_tokens(struct bucket *b, uint64_t now_ns);

/* Takes one token from each of the buckets only if every one has a token. */
bool buckets_take_all(struct bucket *const *buckets, unsigned n, uint64_t now_ns);

/*
 * The waiter's limits: an alert needs a token from the global bucket and from its tracker's
 * bucket (ratelimit.trackers) if it has one; a fleet peer's alert needs one from its
 * origin's bucket (fleet.peer_rate) and one from the bucket of all origins together
 * (fleet.total_rate), never the local alerts' tokens: a noisy peer takes neither the local
 * alerts' turn nor a quiet peer's. Not thread-safe: the waiter holds its lock.
 */
#include "cause.h"
#include "conf.h"

struct tracker_bucket {
	char name[LATENCY_TRACKER_NAME_LEN + 1];
	struct bucket b;
};

/* Origins with a bucket of their own; past this many the least recently heard is forgotten
 * (it comes back with a full bucket: forging origins takes a broker that lets anyone speak
 * for anyone, which the README's ACL forbids). */
#define LIMITS_ORIGINS 128

struct origin_bucket {
	char host[PROTO_FLEET_NAME_MAX + 1];
	struct bucket b;
	uint64_t used_ns;
};

struct limits {
	struct bucket global, total; /* total: all origins together (fleet.total_rate) */
	struct origin_bucket origins[LIMITS_ORIGINS];
	double origin_rate, origin_burst;
	bool configured; /* the first configuration fills the buckets */
	struct tracker_bucket *trackers;
	size_t n_trackers;
};

/* Tokens earned so far are kept across a reconfiguration; -ENOMEM leaves l as it was. */
int limits_configure(struct limits *l, const struct conf *c, uint64_t now_ns);
/*
 * The same in three steps, for limits read under a realtime thread's lock: the memory
 * allocated before the lock is taken (limits_prepare(): -ENOMEM), the new buckets put in
 * place under it (limits_apply(), which leaves the old ones in U), and those freed after it
 * is let go (limits_update_done()): a low-priority holder never waits for the allocator.
 */
struct limits_update {
	struct tracker_bucket *trackers;
	size_t n;
};
int limits_prepare(const struct conf *c, struct limits_update *u);
void limits_apply(struct limits *l, const struct conf *c, uint64_t now_ns, struct limits_update *u);
void limits_update_done(struct limits_update *u);
bool limits_allow(struct limits *l, const struct cause *c, uint64_t now_ns);
/* A peer's cause: NULL when allowed (its tokens taken), else the budget that refused it
 * (PROTO_FLEET_BUDGET_ORIGIN, PROTO_FLEET_BUDGET_TOTAL). */
const char *limits_allow_peer(struct limits *l, const struct cause *c, uint64_t now_ns);
/*
 * c was allowed, but nothing was done with it (no record was tried): the tokens it took go
 * back to every bucket it took them from that is still there.
 */
void limits_give_back(struct limits *l, const struct cause *c);
/* tokens: -1 for an unlimited bucket. */
double limits_tokens(struct bucket *b, uint64_t now_ns);
void limits_done(struct limits *l);

#endif /* LATENCYD_RATELIMIT_H */
