// SPDX-License-Identifier: GPL-2.0-only
/*
 * latency_tracker_wakeup: the "wakeup" tracker. The wakeup latency of a thread is the
 * time from sched_waking (or sched_wakeup_new for a new task) to the sched_switch that
 * switches it in: how long it was runnable before it got a CPU. The key is the woken
 * thread's id; a wakeup that took at least threshold_ns raises an alert for the woken
 * thread with who woke it.
 *
 * Data words (uapi header, LATENCY_TRACKER_TYPE_WAKEUP): data[0] the waker's tid, 0 when
 * the wakeup came from a hard or soft interrupt (the interrupted task did not ask for it)
 * or from the idle task; data[1] the CPU the thread was switched in on (the alert's
 * end_cpu: sched_waking fires before the CPU is chosen, and the thread may still be
 * migrated before it runs, so the CPU where it ran is the one that matters and costs
 * nothing to get; LATENCY_TRACKER_CPU_NONE on a timeout, it has not run yet) in bits
 * 0..31 and the woken thread's kernel prio at sched_waking in bits 32..63; data[2..3]
 * the waker's comm (empty when data[0] is 0).
 *
 * Cost: nothing while disabled (no probe registered). Enabled: per wakeup, one filter
 * check, one clock read and one table insertion; per context switch to a thread (not
 * idle) that passes the filter, one clock read and one table removal. A thread that was
 * preempted rather than woken (counted in stats/unmatched: most of that counter is
 * preemptions, not lost events) mostly finds its bucket empty: no lock and no clock read.
 *
 * Not measured: a wakeup of a thread that is still running (it set its state to sleep
 * but had not switched out yet: it never leaves the CPU, there is nothing to wait for),
 * and, in the same race window, a wakeup that reads the thread as still running just as
 * it switches out. A thread that exits before it runs leaves a key until stale_ns.
 */
#include <linux/bits.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/string.h>
#include <linux/time64.h>

#include "common.h"

static struct latency_tracker *ltt_wk;
static struct ltt_filter ltt_wk_filter;

/*
 * The tid of the task that is waking another one, 0 for an interrupt or the idle task:
 * then current is whatever the interrupt fell on, not a waker.
 */
static pid_t ltt_wk_waker(void)
{
	if (in_nmi() || in_hardirq() || in_serving_softirq() || is_idle_task(current))
		return 0;
	return current->pid;
}

static void ltt_wk_in(struct task_struct *p)
{
	struct latency_tracker_in in = { .task = p };
	u32 key = p->pid;
	pid_t waker;

	/* pid 0: an idle task, which is never woken, only switched to. */
	if (!key || !ltt_filter_match(&ltt_wk_filter, p))
		return;
	waker = ltt_wk_waker();
	in.data[0] = waker;
	/* SCHED_DEADLINE (prio -1) reads 0xffffffff; the CPU is ltt_wk_cb()'s, for alerts. */
	in.data[1] = (u64)(u32)p->prio << 32;
	if (waker)
		ltt_pack_comm(&in.data[2], current->comm);
	latency_tracker_event_in(ltt_wk, &key, sizeof(key), &in);
}

static void ltt_wk_waking(void *data, struct task_struct *p)
{
#ifdef CONFIG_SMP
	/*
	 * Still on its CPU and on the runqueue: it had not switched out yet, the wakeup
	 * only sets it running again and no sched_switch will close the key. (On the
	 * runqueue but not on a CPU: preempted in its sleep window, it does wait.)
	 */
	if (READ_ONCE(p->on_cpu) && READ_ONCE(p->on_rq))
		return;
#else
	if (p == current)
		return;
#endif
	ltt_wk_in(p);
}

static void ltt_wk_wakeup_new(void *data, struct task_struct *p)
{
	ltt_wk_in(p);
}

static void ltt_wk_switch(void *data, bool preempt, struct task_struct *prev,
			  struct task_struct *next, unsigned int prev_state)
{
	u32 key = next->pid;

	if (!key || !ltt_filter_match(&ltt_wk_filter, next))
		return;
	latency_tracker_event_out(ltt_wk, &key, sizeof(key), NULL);
}

/*
 * The switch registered first and removed last: a wakeup seen always has the switch that
 * ends it seen (one switched in before sched_switch's probe would leave its key to close at
 * a later switch-in, a preemption's, as a false latency).
 */
static struct ltt_probe ltt_wk_probes[] = {
	{ .name = "sched_switch", .func = ltt_wk_switch },
	{ .name = "sched_wakeup_new", .func = ltt_wk_wakeup_new },
	{ .name = "sched_waking", .func = ltt_wk_waking },
};

/* The record's end_cpu is where it was switched in (LATENCY_TRACKER_CPU_NONE: timeout). */
static bool ltt_wk_cb(struct latency_tracker *t, struct latency_tracker_record *rec,
		      void *priv)
{
	rec->data[1] = (rec->data[1] & GENMASK_ULL(63, 32)) | rec->end_cpu;
	return true;
}

static const struct latency_tracker_params ltt_wk_params = {
	.name = "wakeup",
	.type = LATENCY_TRACKER_TYPE_WAKEUP,
	.key_size = sizeof(u32),
	/* Runnable for 5 ms is several scheduler slices: worth a look on most systems. */
	.threshold_ns = 5 * NSEC_PER_MSEC,
	/* A pending key that was never closed (missed switch-in) restarts at the next wakeup. */
	.dup_policy = LATENCY_TRACKER_DUP_REPLACE,
	.stack_mode = LATENCY_TRACKER_STACK_NONE,
	.cb = ltt_wk_cb,
	.activate = ltt_probes_activate,
	.deactivate = ltt_probes_deactivate,
};

static int __init ltt_wk_init(void)
{
	ltt_wk = ltt_tracker_create(&ltt_wk_params, ltt_wk_probes, ARRAY_SIZE(ltt_wk_probes),
				  &ltt_wk_filter);
	return PTR_ERR_OR_ZERO(ltt_wk);
}

static void __exit ltt_wk_exit(void)
{
	ltt_tracker_destroy(ltt_wk, &ltt_wk_filter);
}

module_init(ltt_wk_init);
module_exit(ltt_wk_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("latency_tracker: wakeup latency, from sched_waking to running");
