// SPDX-License-Identifier: GPL-2.0-only
/*
 * latency_tracker_syscalls: the "syscalls" tracker. A system call is a key (the thread
 * id) from raw_syscalls:sys_enter to raw_syscalls:sys_exit; one that took at least
 * threshold_ns raises an alert with its number and return value.
 *
 * The fast path: a system call that does not block never leaves its CPU, so sys_enter
 * keeps it in that CPU's slot (a few this_cpu stores: no lock, no shared cache line, no
 * masked interrupts) and sys_exit closes it there (latency_tracker_event_pair()). Only
 * when the thread is switched out mid-call (it blocks, or is preempted) does sched_switch
 * move the call into the keyed table, where the exit, on whichever CPU, finds it, and
 * where the timeout scanner and the stack sampling below see it. A call that stays on its
 * CPU past timeout_ns (a long computation in the kernel) is moved by the scanner: an IPI
 * to that CPU (ltt_sys_scan()), so it times out like the others.
 *
 * The clock is the trace clock at both ends, as for every key: not local_clock(), which
 * would spare a clocksource read where that is an emulated HPET or ACPI PM timer (virtual
 * machines without a stable TSC, as this project's test VM), but there it follows real
 * time only to within a tick (a 30 ms sleep measured 26 ms).
 *
 * Where did it wait? (the algorithm of Desfossez et al. 2016) At sched_switch, when a
 * thread whose call has been pending for at least threshold_ns is switched in, its
 * kernel stack still shows where it blocked (it has not run yet): the tracker samples it
 * once per call, and the alert carries it (flag STACK_TASK). The stack walk only
 * happens for calls already over the threshold, so its cost is bounded by the alerts.
 *
 * Cost: nothing while disabled (no probe registered). Enabled: one filter check, a few
 * per-CPU stores and the two clock reads per system call that does not block; one table
 * insertion when a call is switched out and one table removal at its exit; per context
 * switch, one comparison with the slot and, for a thread (not idle) that passes the
 * filter, a comparison with the coarse clock, then only while some key has been pending
 * for threshold_ns (latency_tracker_oldest_ns()) one lockless lookup and another
 * comparison with the coarse clock; the clocksource is read only for a call that may be
 * over the threshold (its stack is then due).
 *
 * Exclusions: calls that block by design (poll, select, epoll_wait, futex...) would
 * alert all the time; their numbers are listed in exclude_syscalls and are not tracked.
 * A 32-bit process's calls have numbers of their own: on x86-64 with ia32 emulation they
 * are checked against exclude_syscalls_ia32 instead, x32 calls against exclude_syscalls
 * (their numbers are the native ones with __X32_SYSCALL_BIT). exit and exit_group never
 * return and are never tracked, in any ABI. A read() on an idle terminal or socket blocks
 * by design too but cannot be told apart by number: use the filters.
 */
#include <linux/bitmap.h>
#include <linux/cpu.h>
#include <linux/ctype.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/string.h>
#include <linux/sysfs.h>
#include <asm/syscall.h>
#include <asm/unistd.h>

#include "common.h"

#define LTT_SYS_MAX 1024		/* syscall numbers tracked for exclusion */

#if defined(CONFIG_X86_64) && defined(CONFIG_IA32_EMULATION)
#define LTT_SYS_IA32 1
#endif

static struct latency_tracker *ltt_sys;
static struct ltt_filter ltt_sys_filter;
static DECLARE_BITMAP(ltt_sys_excluded, LTT_SYS_MAX);
#ifdef LTT_SYS_IA32
static DECLARE_BITMAP(ltt_sys_excluded_ia32, LTT_SYS_MAX);
#endif
static DEFINE_MUTEX(ltt_sys_excl_lock);

/*
 * The call of the thread running on this CPU, until it exits or is switched out. Written
 * by its CPU only: sys_enter and sys_exit (preemption off, as in every tracepoint probe:
 * sched_switch cannot come in between), sched_switch and the scanner's IPI (interrupts
 * off). The probes do not mask interrupts, so the IPI may come in the middle of them:
 * sys_enter empties the slot before it fills it and publishes it last, and sys_exit
 * claims it with this_cpu_cmpxchg(), so the IPI moves a whole call or nothing and the
 * call ends up in the slot or in the table, never in both. The scanner reads other CPUs'
 * slots without a lock to decide whom to send the IPI.
 */
struct ltt_sys_slot {
	struct task_struct *task;	/* NULL: empty; only compared, never dereferenced */
	u64 start_ns;
	long nr;
};

static DEFINE_PER_CPU(struct ltt_sys_slot, ltt_sys_slot);

/* A stack sampled at sched_switch, before it is stored in the key. */
struct ltt_sys_sample {
	struct ltt_stack_priv stack;
	u64 pending_ns;
};

static DEFINE_PER_CPU(struct ltt_sys_sample, ltt_sys_sample);

/* Blocking by design; the default of exclude_syscalls (numbers of the native ABI). */
static const int ltt_sys_default_excluded[] = {
#ifdef __NR_poll
	__NR_poll,
#endif
#ifdef __NR_select
	__NR_select,
#endif
#ifdef __NR_epoll_wait
	__NR_epoll_wait,
#endif
	__NR_ppoll, __NR_pselect6, __NR_epoll_pwait,
#ifdef __NR_epoll_pwait2
	__NR_epoll_pwait2,
#endif
	__NR_futex,
#ifdef __NR_futex_waitv
	__NR_futex_waitv,
#endif
};

#ifdef LTT_SYS_IA32
/* The same calls, and their 64-bit time variants, as a 32-bit x86 process makes them. */
static const int ltt_sys_default_excluded_ia32[] = {
	__NR_ia32_poll, __NR_ia32_select, __NR_ia32__newselect, __NR_ia32_ppoll,
	__NR_ia32_pselect6, __NR_ia32_epoll_wait, __NR_ia32_epoll_pwait, __NR_ia32_futex,
	__NR_ia32_ppoll_time64, __NR_ia32_pselect6_time64, __NR_ia32_futex_time64,
#ifdef __NR_ia32_epoll_pwait2
	__NR_ia32_epoll_pwait2,
#endif
#ifdef __NR_ia32_futex_waitv
	__NR_ia32_futex_waitv,
#endif
};
#endif

/*
 * Whether the current task's call NR is left alone: in a probe of the task's own system
 * call, whose ABI (in_ia32_syscall()) holds from its entry to its exit.
 */
static bool ltt_sys_skip(long nr)
{
	if (nr < 0)
		return true;
#ifdef LTT_SYS_IA32
	if (in_ia32_syscall())
		return nr == __NR_ia32_exit || nr == __NR_ia32_exit_group ||
		       (nr < LTT_SYS_MAX && test_bit(nr, ltt_sys_excluded_ia32));
#endif
#ifdef __X32_SYSCALL_BIT
	nr &= ~__X32_SYSCALL_BIT;
#endif
	return nr == __NR_exit || nr == __NR_exit_group ||
	       (nr < LTT_SYS_MAX && test_bit(nr, ltt_sys_excluded));
}

/* Interrupts off, on the slot's CPU. Moves its call into the table, where it can wait. */
static void ltt_sys_move(struct ltt_sys_slot *s, struct task_struct *task)
{
	struct latency_tracker_in in = { .ts = s->start_ns, .task = task };
	u32 key = task->pid;

	in.data[0] = s->nr;
	WRITE_ONCE(s->task, NULL);
	latency_tracker_event_in(ltt_sys, &key, sizeof(key), &in);
}

static void ltt_sys_enter(void *data, struct pt_regs *regs, long id)
{
	if (ltt_sys_skip(id) || !ltt_filter_match(&ltt_sys_filter, current))
		return;
	/* Its own earlier call, whose exit was not seen, is replaced, as the table would. */
	this_cpu_write(ltt_sys_slot.task, NULL);
	barrier();	/* the IPI sees an empty slot until it is whole */
	this_cpu_write(ltt_sys_slot.nr, id);
	this_cpu_write(ltt_sys_slot.start_ns, latency_tracker_now());
	smp_wmb();	/* the scanner reads task, then start_ns */
	this_cpu_write(ltt_sys_slot.task, current);
}

static void ltt_sys_exit(void *data, struct pt_regs *regs, long ret)
{
	struct latency_tracker_out out = { .data_mask = BIT(1) };
	struct latency_tracker_in in = { .task = current };
	u32 key = current->pid;

	out.data[1] = ret;
	if (likely(this_cpu_read(ltt_sys_slot.task) == current)) {
		in.ts = this_cpu_read(ltt_sys_slot.start_ns);
		in.data[0] = this_cpu_read(ltt_sys_slot.nr);
		barrier();
		/*
		 * Ours unless the IPI moved it into the table since: then it is closed there.
		 * Its enter passed the filters: closed whatever they say now.
		 */
		if (likely(this_cpu_cmpxchg(ltt_sys_slot.task, current, NULL) == current)) {
			latency_tracker_event_pair(ltt_sys, &key, sizeof(key), &in, &out);
			return;
		}
		latency_tracker_event_out(ltt_sys, &key, sizeof(key), &out);
		return;
	}
	/* Not in the slot: it was switched out, or never tracked. */
	if (ltt_sys_skip(syscall_get_nr(current, regs)) ||
	    !ltt_filter_match(&ltt_sys_filter, current))
		return;
	latency_tracker_event_out(ltt_sys, &key, sizeof(key), &out);
}

/* IPI from ltt_sys_scan(): hard interrupt context on the slot's CPU. */
static void ltt_sys_flush(void *unused)
{
	struct ltt_sys_slot *s = this_cpu_ptr(&ltt_sys_slot);

	if (s->task == current)
		ltt_sys_move(s, current);
}

/*
 * The timeout scanner: a call that has stayed on its CPU for timeout_ns is moved into the
 * table by that CPU itself, before the walk that times it out. A racy read may send a
 * needless IPI (ltt_sys_flush() checks again), never miss a call older than the period.
 */
static void ltt_sys_scan(struct latency_tracker *t, u64 timeout)
{
	u64 now = latency_tracker_now(), start;
	struct ltt_sys_slot *s;
	int cpu;

	cpus_read_lock();
	for_each_online_cpu(cpu) {
		s = per_cpu_ptr(&ltt_sys_slot, cpu);
		if (!READ_ONCE(s->task))
			continue;
		smp_rmb();
		start = READ_ONCE(s->start_ns);
		if (now > start && now - start >= timeout)
			smp_call_function_single(cpu, ltt_sys_flush, NULL, 1);
	}
	cpus_read_unlock();
}

/* No probe is registered: a slot left by the last disable is stale. */
static int ltt_sys_activate(struct latency_tracker *t)
{
	int cpu;

	for_each_possible_cpu(cpu)
		WRITE_ONCE(per_cpu_ptr(&ltt_sys_slot, cpu)->task, NULL);
	return ltt_probes_activate(t);
}

/* Under the key's bucket lock: keep the first sample only. */
static void ltt_sys_store_stack(u64 *data, void *priv, void *arg)
{
	const struct ltt_sys_sample *s = arg;

	if (data[2])
		return;
	data[2] = s->pending_ns;
	ltt_stack_priv_store(priv, &s->stack);
}

static void ltt_sys_switch(void *data, bool preempt, struct task_struct *prev,
			   struct task_struct *next, unsigned int prev_state)
{
	struct ltt_sys_slot *slot = this_cpu_ptr(&ltt_sys_slot);
	struct latency_tracker_key_info info;
	struct ltt_sys_sample *s;
	u32 key = next->pid;
	u64 now, thr;

	/* Interrupts are off in sched_switch: the slot is ours. */
	if (slot->task) {
		if (likely(slot->task == prev))
			ltt_sys_move(slot, prev);
		else
			WRITE_ONCE(slot->task, NULL);	/* not ours: cannot happen */
	}
	if (!key || (next->flags & PF_KTHREAD) || !ltt_filter_match(&ltt_sys_filter, next))
		return;
	/*
	 * Two coarse-clock checks before any clocksource read: whether any pending call is
	 * old enough to sample (else no lookup either), then whether next's own is. The first
	 * alone passes whenever some thread sits in a read or a wait4 for longer than the
	 * threshold, most of the time on a real machine, and would leave a clocksource read
	 * (an emulated HPET in a VM: half a microsecond) on every switch-in. A timekeeping
	 * CPU held up can only cost the stack sample of a call that passed the threshold
	 * within that delay.
	 */
	thr = latency_tracker_get_threshold(ltt_sys);
	if (!ltt_coarse_past(latency_tracker_oldest_ns(ltt_sys), thr))
		return;
	if (latency_tracker_lookup(ltt_sys, &key, sizeof(key), &info) || info.data[2])
		return;
	now = ltt_now_if_past(info.start_ns, thr);
	if (now <= info.start_ns || now - info.start_ns < thr)
		return;
	/* Interrupts are off in sched_switch: the per-CPU buffer is ours. */
	s = this_cpu_ptr(&ltt_sys_sample);
	s->stack.nr_stack = ltt_stack_of_blocked(next, s->stack.stack, ARRAY_SIZE(s->stack.stack));
	if (!s->stack.nr_stack)
		return;
	s->pending_ns = now - info.start_ns;
	latency_tracker_update(ltt_sys, &key, sizeof(key), ltt_sys_store_stack, s);
}

/*
 * Registered in this order, removed in the reverse: the entry last in, first out, so that a
 * call seen entering always has its exit and its switch-out seen (one that entered before
 * sys_exit was registered would stay in its slot, then be timed out or moved as blocked).
 */
static struct ltt_probe ltt_sys_probes[] = {
	{ .name = "sys_exit", .func = ltt_sys_exit },
	{ .name = "sched_switch", .func = ltt_sys_switch },
	{ .name = "sys_enter", .func = ltt_sys_enter },
};

static bool ltt_sys_cb(struct latency_tracker *t, struct latency_tracker_record *rec,
		       void *priv)
{
	if (rec->reason == LATENCY_TRACKER_REASON_TIMEOUT)
		rec->data[1] = 0;
	ltt_stack_priv_to_record(rec, priv, LATENCY_TRACKER_REC_F_STACK_TASK);
	return true;
}

/*
 * exclude_syscalls and exclude_syscalls_ia32: numbers separated by any run of commas and
 * blanks ("35,230", "35 230", "35, 230"); "none" or empty: none.
 */
struct ltt_sys_excl_attr {
	struct kobj_attribute attr;
	unsigned long *excluded;
};

static unsigned long *ltt_sys_excl_of(struct kobj_attribute *attr)
{
	return container_of(attr, struct ltt_sys_excl_attr, attr)->excluded;
}

static ssize_t ltt_sys_excl_show(struct kobject *kobj, struct kobj_attribute *attr,
				 char *buf)
{
	unsigned long *excluded = ltt_sys_excl_of(attr);
	unsigned int nr;
	int len = 0;

	mutex_lock(&ltt_sys_excl_lock);
	for_each_set_bit(nr, excluded, LTT_SYS_MAX)
		len += sysfs_emit_at(buf, len, "%s%u", len ? "," : "", nr);
	mutex_unlock(&ltt_sys_excl_lock);
	if (!len)
		len = sysfs_emit(buf, "none");
	return len + sysfs_emit_at(buf, len, "\n");
}

static ssize_t ltt_sys_excl_store(struct kobject *kobj, struct kobj_attribute *attr,
				  const char *buf, size_t count)
{
	DECLARE_BITMAP(n, LTT_SYS_MAX);
	char *copy, *p, *tok;
	unsigned int nr;
	bool listed, any = false;
	int ret = 0;

	bitmap_zero(n, LTT_SYS_MAX);
	copy = kstrndup(buf, count, GFP_KERNEL);
	if (!copy)
		return -ENOMEM;
	if (strlen(copy) != count) {
		ret = -EINVAL;
		goto out;
	}
	p = strim(copy);
	listed = *p && strcmp(p, "none");
	if (!listed)
		p += strlen(p);
	while (p && !ret) {
		tok = strsep(&p, ", \t");
		/* Between two separators of one run: "35, 230" is two numbers, not three. */
		if (!*tok)
			continue;
		if (!isdigit(*tok) || kstrtouint(tok, 10, &nr) || nr >= LTT_SYS_MAX)
			ret = -EINVAL;
		else
			__set_bit(nr, n);
		any = true;
	}
	/* Separators alone are a typo: an empty list is "none" or nothing. */
	if (listed && !any)
		ret = -EINVAL;
	if (!ret) {
		mutex_lock(&ltt_sys_excl_lock);
		/* Probes read it locklessly: a racing call may be tracked or not. */
		bitmap_copy(ltt_sys_excl_of(attr), n, LTT_SYS_MAX);
		mutex_unlock(&ltt_sys_excl_lock);
	}
out:
	kfree(copy);
	return ret ?: count;
}

static struct ltt_sys_excl_attr ltt_sys_excl_attrs[] = {
	{ __ATTR(exclude_syscalls, 0644, ltt_sys_excl_show, ltt_sys_excl_store),
	  ltt_sys_excluded },
#ifdef LTT_SYS_IA32
	{ __ATTR(exclude_syscalls_ia32, 0644, ltt_sys_excl_show, ltt_sys_excl_store),
	  ltt_sys_excluded_ia32 },
#endif
};

static struct attribute *ltt_sys_excl_list[] = {
	&ltt_sys_excl_attrs[0].attr.attr,
#ifdef LTT_SYS_IA32
	&ltt_sys_excl_attrs[1].attr.attr,
#endif
	NULL,
};

static const struct attribute_group ltt_sys_excl_group = {
	.attrs = ltt_sys_excl_list,
};

static const struct latency_tracker_params ltt_sys_params = {
	.name = "syscalls",
	.type = LATENCY_TRACKER_TYPE_SYSCALL,
	.key_size = sizeof(u32),
	.priv_size = sizeof(struct ltt_stack_priv),
	.priv_zero = LTT_STACK_PRIV_HEADER,
	.dup_policy = LATENCY_TRACKER_DUP_REPLACE,
	.stack_mode = LATENCY_TRACKER_STACK_NONE,
	.cb = ltt_sys_cb,
	.activate = ltt_sys_activate,
	.deactivate = ltt_probes_deactivate,
	.scan = ltt_sys_scan,
	/* hist/per "syscall": the key is the thread, the number is in data[0] (enter and
	 * move), read by the core without a call on every system call. */
	.hist_dim = LATENCY_TRACKER_HIST_SYSCALL,
	.hist_key_word = 0,
};

static int __init ltt_sys_init(void)
{
	unsigned int i;
	int ret;

	for (i = 0; i < ARRAY_SIZE(ltt_sys_default_excluded); i++)
		__set_bit(ltt_sys_default_excluded[i], ltt_sys_excluded);
#ifdef LTT_SYS_IA32
	for (i = 0; i < ARRAY_SIZE(ltt_sys_default_excluded_ia32); i++)
		__set_bit(ltt_sys_default_excluded_ia32[i], ltt_sys_excluded_ia32);
#endif
	ltt_sys = ltt_tracker_create(&ltt_sys_params, ltt_sys_probes, ARRAY_SIZE(ltt_sys_probes),
				     &ltt_sys_filter);
	if (IS_ERR(ltt_sys))
		return PTR_ERR(ltt_sys);
	ret = sysfs_create_group(latency_tracker_kobj(ltt_sys), &ltt_sys_excl_group);
	if (ret)
		ltt_tracker_destroy(ltt_sys, &ltt_sys_filter);
	return ret;
}

static void __exit ltt_sys_exit_module(void)
{
	latency_tracker_disable(ltt_sys);	/* the probes go before the file they read */
	sysfs_remove_group(latency_tracker_kobj(ltt_sys), &ltt_sys_excl_group);
	ltt_tracker_destroy(ltt_sys, &ltt_sys_filter);
}

module_init(ltt_sys_init);
module_exit(ltt_sys_exit_module);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("latency_tracker: system calls, with the stack where they waited");
