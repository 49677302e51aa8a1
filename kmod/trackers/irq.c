// SPDX-License-Identifier: GPL-2.0-only
/*
 * latency_tracker_irq: the "irq" tracker. How long interrupt handlers run: a hard
 * interrupt handler from irq:irq_handler_entry to irq:irq_handler_exit (same irq, same
 * CPU), a softirq from irq:softirq_entry to irq:softirq_exit (same vector, same CPU).
 * One that took at least threshold_ns raises an alert with the irq number or softirq
 * vector and the handler's name (as in /proc/interrupts) or the softirq's name (as in
 * /proc/softirqs).
 *
 * What is measured: the handler itself. A shared irq line runs one handler after the
 * other, each measured on its own. A threaded handler (every device interrupt on
 * PREEMPT_RT, request_threaded_irq() drivers, the threadirqs boot option) is measured as a
 * third kind, "thread": from the exit of its hard part returning IRQ_WAKE_THREAD (the
 * interrupt is in, its thread is being woken) to the irq thread switching out to wait for
 * the next one (TASK_INTERRUPTIBLE, as irq_wait_for_interrupt() waits): the time the
 * device waited to be served, the thread's scheduling delay and its run included, which
 * is what an interrupt costs a latency-sensitive task there. A thread that sleeps
 * interruptibly inside its handler ends the interval early. Interrupts that do not go through
 * the generic handler (the local APIC timer, IPIs on x86) have no such tracepoints: the
 * timers they run show up as the TIMER and HRTIMER softirqs. A softirq's time is wall
 * time on its CPU: the hard interrupts that came in while it ran are included.
 *
 * Key: the CPU, hard or soft, the irq or vector. Hard handlers do not nest on one CPU
 * (they run with interrupts off) and neither do softirqs, while a hard irq interrupting a
 * softirq has a different key: no nesting to handle. A key already pending can only be
 * an entry whose exit was missed (the exit probe registered after the handler started);
 * it is restarted (DUP_REPLACE) rather than kept, so a missed exit can never be measured
 * as one huge handler. The exit probes are registered first and unregistered last, so
 * an entry seen always has its exit probe in place.
 *
 * The task: the one that was interrupted (current), or ksoftirqd for softirqs deferred
 * to it, or for a threaded handler its irq thread ("irq/31-virtio3-req.0"). On
 * PREEMPT_RT softirqs run in the task that raised them or in ksoftirqd, not in the task
 * the interrupt fell on: an interrupted task is charged its hard parts only. The filters
 * match that task at entry: with filter_tgid set, only the handlers that stole time from
 * that process are tracked ("which interrupts delayed my task"), and
 * filter_comm=ksoftirqd/0 only tracks the softirqs deferred to CPU 0's ksoftirqd.
 * The filter is checked at entry and exit (same task), so a filtered-out handler costs
 * no table operation.
 * Interrupts of the idle task are only tracked without filters.
 *
 * Cost: nothing while disabled (no probe registered). Enabled: one filter check and one
 * table operation at each entry and exit, i.e. two table operations per handler: on a
 * busy machine (tens of thousands of interrupts and softirqs per second per CPU) that is
 * the most frequent tracker. The names are only looked up for alerts.
 */
#include <linux/interrupt.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/smp.h>
#include <linux/string.h>

#include "common.h"

enum { LTT_IRQ_HARD = 0, LTT_IRQ_SOFT = 1, LTT_IRQ_THREAD = 2 };

/* No padding: every byte of the key is hashed and compared. */
struct ltt_irq_key {
	u32 cpu;
	u32 kind;
	u32 vec;
} __packed;

static struct latency_tracker *ltt_irq;
static struct ltt_filter ltt_irq_filter;

/*
 * The handler whose exit is being processed on this CPU, for the callback: it runs
 * inside event_out, in the exit probe, interrupts still off (hard irq), so nothing else
 * on this CPU can change it meanwhile. Saves copying the name at every exit.
 */
struct ltt_irq_cur {
	const struct irqaction *action;
	int irq;
};

static DEFINE_PER_CPU(struct ltt_irq_cur, ltt_irq_cur);

/* softirq_to_name[] is not exported; the names of /proc/softirqs. */
static const char * const ltt_softirq_names[NR_SOFTIRQS] = {
	[HI_SOFTIRQ] = "HI",
	[TIMER_SOFTIRQ] = "TIMER",
	[NET_TX_SOFTIRQ] = "NET_TX",
	[NET_RX_SOFTIRQ] = "NET_RX",
	[BLOCK_SOFTIRQ] = "BLOCK",
	[IRQ_POLL_SOFTIRQ] = "IRQ_POLL",
	[TASKLET_SOFTIRQ] = "TASKLET",
	[SCHED_SOFTIRQ] = "SCHED",
	[HRTIMER_SOFTIRQ] = "HRTIMER",
	[RCU_SOFTIRQ] = "RCU",
};

static void ltt_irq_in(u32 kind, u32 vec)
{
	struct latency_tracker_in in = { };
	struct ltt_irq_key key = { };

	if (!ltt_filter_match(&ltt_irq_filter, current))
		return;
	key.cpu = smp_processor_id();
	key.kind = kind;
	key.vec = vec;
	in.data[0] = vec;
	in.data[1] = kind;
	latency_tracker_event_in(ltt_irq, &key, sizeof(key), &in);
}

/*
 * A handler runs in the interrupted task's context from entry to exit, so the filter
 * gives the same answer at both ends and saves a table lookup for filtered-out tasks
 * (a filter changed in between leaves at most one key, restarted at its next entry).
 */
static void ltt_irq_out(u32 kind, u32 vec)
{
	struct ltt_irq_key key = { };

	if (!ltt_filter_match(&ltt_irq_filter, current))
		return;
	key.cpu = smp_processor_id();
	key.kind = kind;
	key.vec = vec;
	latency_tracker_event_out(ltt_irq, &key, sizeof(key), NULL);
}

static void ltt_irq_entry(void *data, int irq, struct irqaction *action)
{
	ltt_irq_in(LTT_IRQ_HARD, irq);
}

/*
 * The hard part asked for its thread: the threaded handler's interval starts. A thread
 * still running (it had not gone back to wait) has its interval already open: that one,
 * the oldest interrupt not served, goes on (the core only flags the thread to loop).
 */
static void ltt_irq_thread_in(int irq, struct irqaction *action)
{
	struct task_struct *thread = READ_ONCE(action->thread);
	struct latency_tracker_in in = { .task = thread };
	struct ltt_irq_key key = { .kind = LTT_IRQ_THREAD };

	if (!thread || READ_ONCE(thread->__state) == TASK_RUNNING ||
	    !ltt_filter_match(&ltt_irq_filter, thread))
		return;
	key.vec = thread->pid;
	in.data[0] = irq;
	in.data[1] = LTT_IRQ_THREAD;
	ltt_pack_text(&in.data[2], 2, action->name ?: "", 2 * sizeof(u64));
	latency_tracker_event_in(ltt_irq, &key, sizeof(key), &in);
}

static void ltt_irq_exit(void *data, int irq, struct irqaction *action, int ret)
{
	struct ltt_irq_cur *cur = this_cpu_ptr(&ltt_irq_cur);

	cur->action = action;
	cur->irq = irq;
	ltt_irq_out(LTT_IRQ_HARD, irq);
	cur->action = NULL;
	if (ret & IRQ_WAKE_THREAD)
		ltt_irq_thread_in(irq, action);
}

/*
 * An irq thread going back to wait for its interrupt: its handler is done. Every context
 * switch comes here: kernel threads named "irq/" only, before any table lookup.
 */
static void ltt_irq_switch(void *data, bool preempt, struct task_struct *prev,
			   struct task_struct *next, unsigned int prev_state)
{
	struct ltt_irq_key key = { .kind = LTT_IRQ_THREAD };

	if (preempt || prev_state != TASK_INTERRUPTIBLE || !(prev->flags & PF_KTHREAD) ||
	    strncmp(prev->comm, "irq/", 4) != 0)
		return;
	key.vec = prev->pid;
	latency_tracker_event_out(ltt_irq, &key, sizeof(key), NULL);
}

static void ltt_softirq_entry(void *data, unsigned int vec)
{
	ltt_irq_in(LTT_IRQ_SOFT, vec);
}

static void ltt_softirq_exit(void *data, unsigned int vec)
{
	ltt_irq_out(LTT_IRQ_SOFT, vec);
}

static struct ltt_probe ltt_irq_probes[] = {
	{ .name = "sched_switch", .func = ltt_irq_switch },
	{ .name = "irq_handler_exit", .func = ltt_irq_exit },
	{ .name = "softirq_exit", .func = ltt_softirq_exit },
	{ .name = "irq_handler_entry", .func = ltt_irq_entry },
	{ .name = "softirq_entry", .func = ltt_softirq_entry },
};

/*
 * The name in data[2..3]. A hard irq's name comes from its irqaction, only known in the
 * exit probe: a timeout alert (from the core's workqueue, the handler possibly gone by
 * then) carries none.
 */
static bool ltt_irq_cb(struct latency_tracker *t, struct latency_tracker_record *rec,
		       void *priv)
{
	const struct ltt_irq_cur *cur;
	const char *name = NULL;

	if (rec->data[1] == LTT_IRQ_THREAD)
		return true; /* its name was taken at the start, the irqaction is not here */
	if (rec->data[1] == LTT_IRQ_SOFT) {
		if (rec->data[0] < NR_SOFTIRQS)
			name = ltt_softirq_names[rec->data[0]];
	} else if (rec->reason == LATENCY_TRACKER_REASON_THRESHOLD) {
		cur = this_cpu_ptr(&ltt_irq_cur);
		if (cur->action && cur->irq == rec->data[0])
			name = cur->action->name;
	}
	ltt_pack_text(&rec->data[2], 2, name ?: "", 2 * sizeof(u64));
	return true;
}

static const struct latency_tracker_params ltt_irq_params = {
	.name = "irq",
	.type = LATENCY_TRACKER_TYPE_IRQ,
	.key_size = sizeof(struct ltt_irq_key),
	.dup_policy = LATENCY_TRACKER_DUP_REPLACE,
	.stack_mode = LATENCY_TRACKER_STACK_NONE,
	.cb = ltt_irq_cb,
	.activate = ltt_probes_activate,
	.deactivate = ltt_probes_deactivate,
};

static int __init ltt_irq_init(void)
{
	ltt_irq = ltt_tracker_create(&ltt_irq_params, ltt_irq_probes, ARRAY_SIZE(ltt_irq_probes),
				  &ltt_irq_filter);
	return PTR_ERR_OR_ZERO(ltt_irq);
}

static void __exit ltt_irq_exit_module(void)
{
	ltt_tracker_destroy(ltt_irq, &ltt_irq_filter);
}

module_init(ltt_irq_init);
module_exit(ltt_irq_exit_module);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("latency_tracker: hard interrupt handlers and softirqs");
