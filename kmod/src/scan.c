// SPDX-License-Identifier: GPL-2.0-only
/*
 * latency_tracker: timeouts and stale keys, off the hot path. One work per enabled
 * tracker walks the buckets every period = min(timeout, stale) / 4, clamped to
 * [max(1 ms, 256 ns per bucket), 1 s]: a timeout alert is raised between timeout and
 * timeout + period after event_in, a stale key discarded between stale and stale + period.
 * Empty buckets are skipped without taking their lock; a non-empty bucket is locked just
 * long enough to mark or unlink its expired entries. Cost: O(buckets) reads per period
 * (4096 keys: 64 KiB of bucket heads). The lower bound grows with the buckets so that a
 * pass, a few ns per bucket head, stays around 1 % of a CPU: 2^20 keys with a 1 ms
 * timeout are walked every 268 ms, not every millisecond, and their timeout alerts come
 * up to 268 ms late. With neither a timeout nor a staleness the walk still runs once a
 * second, for oldest_ns alone: without it, one long pair would leave the bound low and
 * the syscalls tracker's check before its lookup passing for as long as it is enabled.
 *
 * The period is a hard hrtimer that queues the work on the unbound workqueue, not a
 * delayed work: on PREEMPT_RT a timer_list expires in the timer softirq thread of the CPU
 * it was armed on, which a SCHED_FIFO task on that CPU starves, and that task is exactly
 * what keeps a wakeup pending past its timeout. A hard hrtimer expires in hard interrupt
 * context on every kernel (HRTIMER_MODE_REL_HARD), where queue_work() is allowed (the pool
 * lock is a raw spinlock), and an unbound worker runs on whichever CPU is free.
 */
#include <linux/hrtimer.h>
#include <linux/minmax.h>
#include <linux/rculist.h>
#include <linux/rculist_nulls.h>
#include <linux/sched.h>
#include <linux/string.h>
#include <linux/workqueue.h>

#include "internal.h"

#define LT_SCAN_MIN_NS NSEC_PER_MSEC
#define LT_SCAN_MAX_NS NSEC_PER_SEC
#define LT_SCAN_NS_PER_BUCKET 256

/* Both 0: LT_SCAN_MAX_NS, the refresh of oldest_ns alone. */
static u64 lt_scan_period(u64 timeout, u64 stale, u32 nr_buckets)
{
	u64 lo = max_t(u64, LT_SCAN_MIN_NS, (u64)nr_buckets * LT_SCAN_NS_PER_BUCKET);
	u64 p = U64_MAX;

	if (timeout)
		p = timeout / 4;
	if (stale)
		p = min(p, stale / 4);
	return clamp_t(u64, p, min_t(u64, lo, LT_SCAN_MAX_NS), LT_SCAN_MAX_NS);
}

/* Hard interrupt context on every kernel, PREEMPT_RT included (HRTIMER_MODE_REL_HARD). */
static enum hrtimer_restart lt_scan_timer(struct hrtimer *timer)
{
	struct latency_tracker *t = container_of(timer, struct latency_tracker, scan_timer);

	queue_work(system_unbound_wq, &t->scan_work);
	return HRTIMER_NORESTART;
}

void lt_scan_init(struct latency_tracker *t)
{
	INIT_WORK(&t->scan_work, lt_scan_work);
	hrtimer_init(&t->scan_timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_HARD);
	t->scan_timer.function = lt_scan_timer;
}

/*
 * The work re-arms the timer only while enabled, and the timer queues the work: with
 * enabled false, the work is waited for, then the timer, then a work that timer queued.
 */
void lt_scan_stop(struct latency_tracker *t)
{
	cancel_work_sync(&t->scan_work);
	hrtimer_cancel(&t->scan_timer);
	cancel_work_sync(&t->scan_work);
}

/* t->lock held, or the work itself. */
void lt_scan_kick(struct latency_tracker *t)
{
	if (t->enabled)
		queue_work(system_unbound_wq, &t->scan_work);
}

/*
 * The alerts of keys discarded as stale after the threshold (see lt_scan_bucket()). The
 * entries are unlinked, so private to us: they are read with interrupts on and outside
 * the guard, as the callback may use the API, then freed. Called with interrupts on.
 */
static void lt_scan_discard_alerts(struct latency_tracker *t, struct lt_table *tbl,
				   struct lt_entry *late, u64 now)
{
	struct latency_tracker_record *rec = t->scan_rec;
	unsigned long flags;

	while (late) {
		struct lt_entry *next = late->free_next;

		lt_record_from_entry(t, tbl, late, rec);
		rec->reason = LATENCY_TRACKER_REASON_TIMEOUT;
		rec->flags |= LATENCY_TRACKER_REC_F_DISCARDED;
		rec->end_cpu = LATENCY_TRACKER_CPU_NONE;
		rec->end_ns = now;
		rec->delay_ns = now > late->start_ns ? now - late->start_ns : 0;
		lt_alert_emit(t, rec, t->priv_size ? lt_entry_priv(tbl, late) : NULL);

		local_irq_save(flags);
		/* Cannot fail: process context, interrupts off, no region of ours below. */
		if (!WARN_ON_ONCE(!lt_enter())) {
			lt_free_push(tbl, late);
			lt_exit();
		}
		local_irq_restore(flags);
		late = next;
	}
}

/*
 * One bucket. Returns true when it released the lock to emit an alert (the caller then
 * scans the same bucket again; marked entries are skipped and discarded ones are gone,
 * so this ends).
 *
 * In a tracker whose every key's end is seen, whatever its filters (stale_alert: block, fs,
 * app), a key discarded as stale at or past the threshold raises a timeout alert flagged
 * DISCARDED before it is freed: its end can no longer match, and without it the longest
 * latencies (a request stuck in a device's retries) would be the ones never reported.
 * Elsewhere a stale key may be an end the tracker did not see (filtered out at the end, a
 * coalesced segment, a merged request): an alert would be a false one, of stale_ns or more.
 */
static bool lt_scan_bucket(struct latency_tracker *t, struct lt_table *tbl,
			   struct lt_bucket *b, u64 now, u64 timeout, u64 stale, u64 *oldest)
{
	struct latency_tracker_record *rec = t->scan_rec;
	struct lt_entry *e, *hit = NULL, *expired = NULL, *late = NULL;
	u64 threshold = READ_ONCE(t->threshold_ns);
	struct hlist_nulls_node *n;
	unsigned long flags;
	u64 age;

	local_irq_save(flags);
	if (!lt_enter()) {
		local_irq_restore(flags);
		*oldest = 0;	/* not walked: its keys may be of any age */
		return false;
	}
	raw_spin_lock(&b->lock);
	/* hlist_nulls_del_rcu() keeps e->node.next: the walk survives unlinking e. */
	hlist_nulls_for_each_entry(e, n, &b->head, node) {
		age = now > e->start_ns ? now - e->start_ns : 0;
		if (stale && age >= stale) {
			lt_entry_unlink(e);
			lt_count(t->stats, LT_STALE);
			if (age >= threshold && t->stale_alert) {
				e->free_next = late;
				late = e;
			} else {
				e->free_next = expired;
				expired = e;
			}
			continue;
		}
		*oldest = min(*oldest, e->start_ns);
		if (timeout && !e->timed_out && age >= timeout) {
			raw_write_seqcount_begin(&e->seq);
			e->timed_out = 1;
			raw_write_seqcount_end(&e->seq);
			lt_record_from_entry(t, tbl, e, rec);
			rec->reason = LATENCY_TRACKER_REASON_TIMEOUT;
			rec->end_cpu = LATENCY_TRACKER_CPU_NONE;
			rec->end_ns = now;
			rec->delay_ns = age;
			if (t->priv_size)
				memcpy(t->scan_priv, lt_entry_priv(tbl, e), t->priv_size);
			hit = e;
			break;
		}
	}
	raw_spin_unlock(&b->lock);
	while (expired) {
		struct lt_entry *next = expired->free_next;

		lt_free_push(tbl, expired);
		expired = next;
	}
	lt_exit();
	local_irq_restore(flags);

	if (hit) {
		/* The key stays pending: event_out will still close it (flagged TIMED_OUT). */
		lt_alert_emit(t, rec, t->priv_size ? t->scan_priv : NULL);
	}
	lt_scan_discard_alerts(t, tbl, late, now);
	return hit || late;
}

void lt_scan_work(struct work_struct *work)
{
	struct latency_tracker *t = container_of(work, struct latency_tracker, scan_work);
	u64 timeout = READ_ONCE(t->timeout_ns);
	u64 stale = READ_ONCE(t->stale_ns);
	u64 oldest = U64_MAX;
	struct lt_table *tbl;
	u32 i;

	/*
	 * disable() clears the pointer, then stops us (lt_scan_stop(): the work, the timer,
	 * the work that timer may have queued), then frees: the table stays valid for the
	 * whole run of this work once we have seen it.
	 */
	rcu_read_lock();
	tbl = rcu_dereference(t->table);
	rcu_read_unlock();
	if (!tbl)
		return;
	if (timeout && t->scan)
		t->scan(t, timeout);

	/* Keys linked from here on, in buckets already walked, are noted in ins_min. */
	WRITE_ONCE(t->ins_min, U64_MAX);
	smp_mb();
	for (i = 0; i <= tbl->bucket_mask; i++) {
		struct lt_bucket *b = &tbl->buckets[i];

		if (hlist_nulls_empty(&b->head))
			continue;
		while (lt_scan_bucket(t, tbl, b, lt_clock_ns(), timeout, stale, &oldest))
			cond_resched();
		if (!(i & 1023))
			cond_resched();
	}
	/*
	 * oldest_ns rises to what is still linked. A key linked during the walk lowered
	 * ins_min before or after this store: read after it, so as to lower it again.
	 */
	WRITE_ONCE(t->oldest_ns, oldest);
	smp_mb();
	lt_oldest_lower(&t->oldest_ns, READ_ONCE(t->ins_min));
	if (READ_ONCE(t->enabled))
		hrtimer_start(&t->scan_timer,
			      ns_to_ktime(lt_scan_period(timeout, stale, tbl->bucket_mask + 1)),
			      HRTIMER_MODE_REL_HARD);
}
