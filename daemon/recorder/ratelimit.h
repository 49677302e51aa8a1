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
double bucket_tokens(struct bucket *b, uint64_t now_ns);

/* Takes one token from each of the buckets only if every one has a token. */
bool buckets_take_all(struct bucket *const *buckets, unsigned n, uint64_t now_ns);

#endif /* LATENCYD_RATELIMIT_H */
