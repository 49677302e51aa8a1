// SPDX-License-Identifier: GPL-2.0-only
/*
 * Token buckets. Each bucket refills continuously at `rate` tokens per second up to `burst`,
 * so a quiet period earns at most `burst` snapshots in a row and a storm gets `rate` per
 * second. Refill is computed lazily from the caller's monotonic time: no timer, no thread.
 */
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
