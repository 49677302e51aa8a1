// SPDX-License-Identifier: GPL-2.0-only
/*
 * latency_tracker_offcpu: the "offcpu" tracker. The off-CPU time of a thread that
 * blocked (switched out asleep, in TASK_INTERRUPTIBLE or TASK_UNINTERRUPTIBLE, not
 * preempted), from that sched_switch to the one that switches it in again. The key is
 * the thread id; a block that lasted at least threshold_ns raises an alert for the
 * thread, with who woke it and, when the block was already long, how: the waker's
 * kernel stack.
 *
 * Who woke it? At sched_waking of a thread that has a pending key, the waker's tid and
 * comm are stored in the key (0 and empty when the wakeup comes from a hard or soft
 * interrupt or from the idle task: current is then not the waker). If the key has been
 * pending for at least threshold_ns (a lockless lookup tells, before anything costly),
 * the waker's kernel stack is walked too (stack_trace_save() of current, which is the
 * interrupt path for an interrupt) and the alert carries it with flag STACK_WAKER. The
 * stack walk only happens for blocks already over the threshold, so its cost is bounded
 * by the alerts. A block that only crosses the threshold while runnable (waiting for a
 * CPU after its wakeup) alerts with the waker's tid and comm but no stack.
 *
 * Data words (uapi header, LATENCY_TRACKER_TYPE_OFFCPU): data[0] the TASK_INTERRUPTIBLE
 * (1) and TASK_UNINTERRUPTIBLE (2) bits of its state when it blocked (others, such as
 * TASK_NOLOAD or TASK_FREEZABLE, are dropped); data[1] waker tid (0: interrupt, idle, or
 * not woken yet: a timeout alert of a thread still asleep); data[2..3] waker comm.
 *
 * Cost: nothing while disabled (no probe registered). Enabled, per context switch: one
 * filter check, one clock read and one table insertion when the previous thread blocked;
 * one filter check and one table removal for the next thread (not idle), which reuses
 * that clock read. A next thread that had been preempted rather than blocked (counted
 * in stats/unmatched) mostly finds its bucket empty: no lock and no clock read. Per
 * wakeup of a thread that passes the filter: one lockless lookup and one update of its
 * key if it has one; the clocksource is read only when the coarse clock says the block
 * may have passed the threshold (then the stack may be due).
 *
 * Every sleeping thread of the system holds a key: without a filter, long-lived sleepers
 * (idle daemons) fill the table until stale_ns discards them (stats/table_full counts the
 * blocks that found no room: raise max_keys or set a filter), and each of their wakeups
 * alerts. The tracker is meant to be used with a filter.
 */
#include <linux/irqflags.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/stacktrace.h>
#include <linux/string.h>
#include <linux/time64.h>

#include "common.h"

#define LTT_OFF_BLOCKED (TASK_INTERRUPTIBLE | TASK_UNINTERRUPTIBLE)
/*
 * Frames of the walk to skip: this probe. The tracepoint iterator below it only shows
 * when another probe shares sched_waking (a single probe is a static call).
 */
#define LTT_OFF_STACK_SKIP 1

static struct latency_tracker *ltt_off;
static struct ltt_filter ltt_off_filter;

/* The waker, gathered at sched_waking before it is stored in the key. */
struct ltt_off_sample {
	struct ltt_stack_priv stack;
	u64 waker[3];		/* data[1..3] */
};

static DEFINE_PER_CPU(struct ltt_off_sample, ltt_off_sample);

/* See ltt_wk_waker() in wakeup.c: current is not a waker in an interrupt or idle. */
static pid_t ltt_off_waker(void)
{
	if (in_nmi() || in_hardirq() || in_serving_softirq() || is_idle_task(current))
		return 0;
	return current->pid;
}

/* Under the key's bucket lock. */
static void ltt_off_store_waker(u64 *data, void *priv, void *arg)
{
	const struct ltt_off_sample *s = arg;

	memcpy(&data[1], s->waker, sizeof(s->waker));
	ltt_stack_priv_store(priv, &s->stack);
}

static void ltt_off_waking(void *data, struct task_struct *p)
{
	struct latency_tracker_key_info info;
	struct ltt_off_sample *s;
	unsigned long flags;
	u32 key = p->pid;
	pid_t waker;
	u64 now, thr;

	/* A running thread (waking itself) has no pending key. */
	if (!key || p == current || !ltt_filter_match(&ltt_off_filter, p))
		return;
	if (latency_tracker_lookup(ltt_off, &key, sizeof(key), &info))
		return;
	waker = ltt_off_waker();
	/* Blocked for less than the threshold (most wakeups): no clocksource read, 0. */
	thr = latency_tracker_get_threshold(ltt_off);
	now = ltt_now_if_past(info.start_ns, thr);
	/*
	 * try_to_wake_up() holds p->pi_lock with interrupts off, but not when a task wakes
	 * itself, and wakeups never come from NMI: with interrupts off the per-CPU buffer
	 * is ours.
	 */
	local_irq_save(flags);
	s = this_cpu_ptr(&ltt_off_sample);
	s->waker[0] = waker;
	if (waker)
		ltt_pack_comm(&s->waker[1], current->comm);
	else
		s->waker[1] = s->waker[2] = 0;
	s->stack.nr_stack = 0;
	if (now > info.start_ns && now - info.start_ns >= thr)
		s->stack.nr_stack = stack_trace_save(s->stack.stack, ARRAY_SIZE(s->stack.stack),
						     LTT_OFF_STACK_SKIP);
	latency_tracker_update(ltt_off, &key, sizeof(key), ltt_off_store_waker, s);
	local_irq_restore(flags);
}

static void ltt_off_switch(void *data, bool preempt, struct task_struct *prev,
			   struct task_struct *next, unsigned int prev_state)
{
	struct latency_tracker_out out = { };
	u32 key;

	/*
	 * Blocked: switched out asleep, not preempted. prev_state is read before a pending
	 * signal puts the task back to running (it then stays on the runqueue): its state
	 * now says whether it really went to sleep.
	 */
	if (!preempt && (prev_state & LTT_OFF_BLOCKED) && prev->pid &&
	    READ_ONCE(prev->__state) != TASK_RUNNING &&
	    ltt_filter_match(&ltt_off_filter, prev)) {
		struct latency_tracker_in in = { .task = prev };

		key = prev->pid;
		in.data[0] = prev_state & LTT_OFF_BLOCKED;
		/* One clock read for both ends: the block and the switch-in are one instant. */
		in.ts = latency_tracker_now();
		out.ts = in.ts;
		latency_tracker_event_in(ltt_off, &key, sizeof(key), &in);
	}
	key = next->pid;
	if (!key || !ltt_filter_match(&ltt_off_filter, next))
		return;
	latency_tracker_event_out(ltt_off, &key, sizeof(key), &out);
}

static struct ltt_probe ltt_off_probes[] = {
	{ .name = "sched_switch", .func = ltt_off_switch },
	{ .name = "sched_waking", .func = ltt_off_waking },
};

static bool ltt_off_cb(struct latency_tracker *t, struct latency_tracker_record *rec,
		       void *priv)
{
	ltt_stack_priv_to_record(rec, priv, LATENCY_TRACKER_REC_F_STACK_WAKER);
	return true;
}

static const struct latency_tracker_params ltt_off_params = {
	.name = "offcpu",
	.type = LATENCY_TRACKER_TYPE_OFFCPU,
	.key_size = sizeof(u32),
	.priv_size = sizeof(struct ltt_stack_priv),
	.priv_zero = LTT_STACK_PRIV_HEADER,
	/* Sleeping is normal: only a long block is worth an alert. */
	.threshold_ns = 100 * NSEC_PER_MSEC,
	/* A key never closed (missed switch-in) restarts when the thread blocks again. */
	.dup_policy = LATENCY_TRACKER_DUP_REPLACE,
	.stack_mode = LATENCY_TRACKER_STACK_NONE,
	.cb = ltt_off_cb,
	.activate = ltt_probes_activate,
	.deactivate = ltt_probes_deactivate,
};

static int __init ltt_off_init(void)
{
	ltt_off = ltt_tracker_create(&ltt_off_params, ltt_off_probes, ARRAY_SIZE(ltt_off_probes),
				  &ltt_off_filter);
	return PTR_ERR_OR_ZERO(ltt_off);
}

static void __exit ltt_off_exit(void)
{
	ltt_tracker_destroy(ltt_off, &ltt_off_filter);
}

module_init(ltt_off_init);
module_exit(ltt_off_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("latency_tracker: off-CPU time of blocked threads, with their waker");
