// SPDX-License-Identifier: GPL-2.0-only
/*
 * latency_tracker: per-CPU statistics of one tracker. Writers touch only their CPU's
 * copy, with this_cpu operations; readers sum every CPU. A sum read during updates may
 * be off by the events in flight, never torn (64-bit loads).
 */
#include <linux/export.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/percpu.h>

#include "internal.h"

struct lt_stats __percpu *lt_stats_alloc(void)
{
	struct lt_stats __percpu *s;
	int cpu;

	s = alloc_percpu(struct lt_stats);
	if (!s)
		return NULL;
	for_each_possible_cpu(cpu)
		per_cpu_ptr(s, cpu)->delay_min = U64_MAX;
	return s;
}

void lt_stats_free(struct lt_stats __percpu *s)
{
	free_percpu(s);
}

/*
 * Any context, interrupts on or off: every update is one this_cpu operation, which an
 * interrupt on this CPU cannot split, so the fast path of a pair (event_pair below its
 * threshold) runs without masking interrupts. min and max are lowered and raised with
 * this_cpu_cmpxchg(): an interrupt that set a more extreme value meanwhile is kept.
 * Return: the delay's bucket, for the keyed histogram (lt_hist_keyed()).
 */
unsigned int lt_stats_delay(struct lt_stats __percpu *s, u64 delay)
{
	unsigned int b = lt_hist_bucket(delay);
	u64 old, seen;

	this_cpu_inc(s->delay_count);
	/*
	 * The add that wraps delay_sum is the one that leaves it below its own delay: it
	 * carries, and only it (an interrupt's add in between carries its own wrap). A
	 * reader between the two, or one that read the low word before the wrap and the
	 * carry after it, sees the sum 2^64 off: a wrap a CPU makes in weeks at the most,
	 * one read.
	 */
	if (unlikely(this_cpu_add_return(s->delay_sum, delay) < delay))
		this_cpu_inc(s->delay_sum_hi);
	this_cpu_inc(s->hist[b]);
	for (old = this_cpu_read(s->delay_min); delay < old; old = seen) {
		seen = this_cpu_cmpxchg(s->delay_min, old, delay);
		if (seen == old)
			break;
	}
	for (old = this_cpu_read(s->delay_max); delay > old; old = seen) {
		seen = this_cpu_cmpxchg(s->delay_max, old, delay);
		if (seen == old)
			break;
	}
	return b;
}

void lt_stats_sum(struct lt_stats __percpu *s, struct lt_stats *sum)
{
	int cpu, i;
	u64 lo;

	memset(sum, 0, sizeof(*sum));
	sum->delay_min = U64_MAX;
	for_each_possible_cpu(cpu) {
		const struct lt_stats *c = per_cpu_ptr(s, cpu);

		for (i = 0; i < LT_NR_COUNTERS; i++)
			sum->cnt[i] += READ_ONCE(c->cnt[i]);
		sum->delay_count += READ_ONCE(c->delay_count);
		lo = READ_ONCE(c->delay_sum);
		sum->delay_sum += lo;
		sum->delay_sum_hi += READ_ONCE(c->delay_sum_hi) + (sum->delay_sum < lo);
		sum->delay_min = min(sum->delay_min, READ_ONCE(c->delay_min));
		sum->delay_max = max(sum->delay_max, READ_ONCE(c->delay_max));
		for (i = 0; i < LT_HIST_BUCKETS; i++)
			sum->hist[i] += READ_ONCE(c->hist[i]);
	}
	if (!sum->delay_count)
		sum->delay_min = 0;
}

/*
 * (hi:lo) / d, for hi < d (the quotient fits in 64 bits): restoring long division, one
 * bit a step. The kernel has no 128-by-64 division that every architecture provides, and
 * a sysfs read can afford 64 steps.
 */
static u64 lt_div128_64(u64 hi, u64 lo, u64 d)
{
	u64 q = 0;
	int i;

	for (i = 63; i >= 0; i--) {
		bool top = hi >> 63;

		hi = (hi << 1) | (lo >> 63);
		lo <<= 1;
		q <<= 1;
		if (top || hi >= d) {
			hi -= d;
			q |= 1;
		}
	}
	return q;
}

/*
 * The mean delay, exact (rounded down) for any sum of delay_count delays: each is below
 * 2^64, so the quotient is too and the high word of the sum is below delay_count. A sum
 * and count read while delays are added on other CPUs may disagree by those in flight:
 * the result is then clamped to the largest delay of 64 bits rather than wrapped.
 */
u64 lt_stats_mean(const struct lt_stats *sum)
{
	if (!sum->delay_count)
		return 0;
	if (!sum->delay_sum_hi)
		return div64_u64(sum->delay_sum, sum->delay_count);
	if (sum->delay_sum_hi >= sum->delay_count)
		return U64_MAX;
	return lt_div128_64(sum->delay_sum_hi, sum->delay_sum, sum->delay_count);
}

/*
 * Everything the tracker saw but could not handle or report, each lost event once: not
 * LT_BUSY_AUX, which loses none (a key it concerned is counted if it goes stale).
 */
/* Every call that backed off, whether it lost an event (LT_BUSY) or not (LT_BUSY_AUX). */
u64 lt_stats_busy(const struct lt_stats *sum)
{
	return sum->cnt[LT_BUSY] + sum->cnt[LT_BUSY_AUX];
}

u64 lt_stats_drops(const struct lt_stats *sum)
{
	return sum->cnt[LT_TABLE_FULL] + sum->cnt[LT_KEY_INVALID] + sum->cnt[LT_BUSY] +
	       sum->cnt[LT_SUPPRESSED] + sum->cnt[LT_STALE] + sum->cnt[LT_DISCARDED] +
	       sum->cnt[LT_THROTTLED];
}

void latency_tracker_get_stats(struct latency_tracker *t, struct latency_tracker_stats *s)
{
	struct lt_stats sum;

	lt_stats_sum(t->stats, &sum);
	s->events_in = sum.cnt[LT_EVENTS_IN];
	s->events_out = sum.cnt[LT_EVENTS_OUT];
	s->alerts = sum.cnt[LT_ALERTS];
	s->timeouts = sum.cnt[LT_TIMEOUTS];
	s->suppressed = sum.cnt[LT_SUPPRESSED];
	s->throttled = sum.cnt[LT_THROTTLED];
	s->filtered = sum.cnt[LT_FILTERED];
	s->duplicates = sum.cnt[LT_DUPLICATES];
	s->table_full = sum.cnt[LT_TABLE_FULL];
	s->key_invalid = sum.cnt[LT_KEY_INVALID];
	s->unmatched = sum.cnt[LT_UNMATCHED];
	s->busy = lt_stats_busy(&sum);
	s->stale = sum.cnt[LT_STALE];
	s->discarded = sum.cnt[LT_DISCARDED];
	s->delay_count = sum.delay_count;
	s->delay_min_ns = sum.delay_min;
	s->delay_max_ns = sum.delay_max;
	s->delay_sum_ns = sum.delay_sum;
	s->delay_sum_hi = sum.delay_sum_hi;
	s->delay_mean_ns = lt_stats_mean(&sum);
}
EXPORT_SYMBOL_GPL(latency_tracker_get_stats);
