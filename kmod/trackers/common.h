/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Helpers shared by the tracker modules (compiled into each of them): kernel
 * tracepoints found by name and registered as a set, the per-tracker task filter and
 * its sysfs files, and the stack of a task that is not running.
 */
#ifndef _LTT_COMMON_H
#define _LTT_COMMON_H

#include <linux/kobject.h>
#include <linux/minmax.h>
#include <linux/sched.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <linux/tracepoint.h>

#include <latency_tracker/latency_tracker.h>

/* One probe on a kernel tracepoint named @name. */
struct ltt_probe {
	const char *name;
	void *func;
	struct tracepoint *tp;		/* found by ltt_probes_find() */
	bool registered;
};

/*
 * Finds every tracepoint of @p by name, and remembers @p for the "probes" file (one set
 * per module). Return: 0, or -ENOENT (logged).
 */
int ltt_probes_find(struct ltt_probe *p, unsigned int n);
/* Registers all of @p, or none. Return: 0 or the first error. */
int ltt_probes_register(struct ltt_probe *p, unsigned int n, void *data);
/* Unregisters what is registered, in reverse order, and waits for running probes. */
void ltt_probes_unregister(struct ltt_probe *p, unsigned int n, void *data);

/*
 * The activate and deactivate hooks of a tracker whose probes are the set given to
 * ltt_tracker_create() (or ltt_probes_find()): registered while it is enabled.
 */
int ltt_probes_activate(struct latency_tracker *t);
void ltt_probes_deactivate(struct latency_tracker *t);

struct ltt_filter;

/*
 * Module init of a tracker: finds its @n @probes (none: @n 0), creates the tracker of @p,
 * disabled, with its filter files. Return: the tracker or an ERR_PTR().
 */
struct latency_tracker *ltt_tracker_create(const struct latency_tracker_params *p,
					   struct ltt_probe *probes, unsigned int n,
					   struct ltt_filter *f);
/* Module exit: disables it (its probes unregistered), removes its files, destroys it. */
void ltt_tracker_destroy(struct latency_tracker *t, struct ltt_filter *f);

/*
 * The task filter of one tracker: a key is stored only for a task that matches every
 * filter set (0 or empty: not set). Replaced as a whole under RCU.
 *
 * cgroup_id matches that cgroup v2 cgroup and every cgroup below it. Its depth is looked
 * up once, when the filter is written, so that the probe only compares the id of the
 * task's ancestor at that depth: no lock, no reference, no walk up the tree. A cgroup
 * removed after the write keeps its id, which no cgroup reuses, so it matches nothing.
 */
struct ltt_filter_conf {
	struct rcu_head rcu;
	pid_t tgid;
	pid_t tid;
	u64 cgroup_id;
	int cgroup_level;	/* depth of cgroup_id below the root (root: 0) */
	char comm[TASK_COMM_LEN];
};

struct ltt_filter {
	struct ltt_filter_conf __rcu *conf;	/* NULL: no filter */
	struct mutex lock;
};

/*
 * Files filter_tgid, filter_tid, filter_comm, filter_cgroup_id and probes (what
 * ltt_probes_find() was given, and which are registered) in the tracker's directory.
 */
int ltt_filter_add(struct latency_tracker *t, struct ltt_filter *f);
void ltt_filter_del(struct latency_tracker *t, struct ltt_filter *f);
bool ltt_filter_slow(const struct ltt_filter_conf *c, struct task_struct *task);

/* Any context that may use RCU (tracepoint probes). */
static inline bool ltt_filter_match(struct ltt_filter *f, struct task_struct *task)
{
	struct ltt_filter_conf *c;
	bool ok = true;

	if (likely(!rcu_access_pointer(f->conf)))
		return true;
	rcu_read_lock();
	c = rcu_dereference(f->conf);
	if (c)
		ok = ltt_filter_slow(c, task);
	rcu_read_unlock();
	return ok;
}

/*
 * Kernel stack of @task, which must not be running and must not start running during
 * the walk (e.g. the next task in sched_switch, the runqueue lock held). Innermost
 * first. Return: the number of entries, 0 where no exported unwinder exists.
 */
unsigned int ltt_stack_of_blocked(struct task_struct *task, unsigned long *store,
				  unsigned int size);

/*
 * Whether at least @thr may have passed since @start (a trace-clock time), without a
 * clocksource read. The coarse clock is CLOCK_MONOTONIC, the trace clock's base, as of the
 * last timekeeping update, normally less than a tick ago: two ticks of margin. A
 * timekeeping CPU held up longer can only hide a span that passed @thr within that delay.
 */
static inline bool ltt_coarse_past(u64 start, u64 thr)
{
	u64 now = ktime_get_coarse_ns() + 2 * TICK_NSEC;

	return now > start && now - start >= thr;
}

/*
 * The trace clock's now, read only when ltt_coarse_past(); else 0, and no clocksource
 * read. The caller still compares the time returned.
 */
static inline u64 ltt_now_if_past(u64 start, u64 thr)
{
	if (!ltt_coarse_past(start, thr))
		return 0;
	return latency_tracker_now();
}

/*
 * Copies @s (at most @n bytes, up to its NUL) into @words as the uapi header's "TEXT in
 * data[i..j]": byte for byte, NUL-padded. @nwords * 8 bytes are written.
 */
static inline void ltt_pack_text(u64 *words, unsigned int nwords, const char *s, size_t n)
{
	char *dst = (char *)words;
	size_t len = strnlen(s, min_t(size_t, n, nwords * sizeof(u64)));

	memcpy(dst, s, len);
	memset(dst + len, 0, nwords * sizeof(u64) - len);
}

/*
 * ltt_pack_text() of a task's comm into two words, for a probe that runs at every wakeup:
 * a fixed-size copy (two moves) where the general one measures the string and copies a
 * length known at run time. The kernel keeps comm NUL-padded (set_task_comm() pads it); a
 * racing rename may tear it, as it may in the sched tracepoints, and the last byte is
 * forced to NUL.
 */
static inline void ltt_pack_comm(u64 *words, const char comm[TASK_COMM_LEN])
{
	BUILD_BUG_ON(TASK_COMM_LEN != 2 * sizeof(u64));
	memcpy(words, comm, TASK_COMM_LEN);
	((char *)words)[TASK_COMM_LEN - 1] = '\0';
}

/*
 * A stack kept in a key's private area (syscalls: the blocked task's; offcpu: the
 * waker's): its depth first, then that many frames. A key inserted without one zeroes
 * the depth only (.priv_zero = LTT_STACK_PRIV_HEADER); frames past it are never read.
 */
struct ltt_stack_priv {
	u32 nr_stack;
	u32 pad;
	unsigned long stack[LATENCY_TRACKER_STACK_DEPTH];
};

#define LTT_STACK_PRIV_HEADER offsetof(struct ltt_stack_priv, stack)

/* Under the key's bucket lock: copies the depth and the frames it counts, no more. */
static inline void ltt_stack_priv_store(void *priv, const struct ltt_stack_priv *s)
{
	memcpy(priv, s, LTT_STACK_PRIV_HEADER + s->nr_stack * sizeof(s->stack[0]));
}

/* In a tracker's callback: the key's stack, if it has one, becomes the record's. */
static inline void ltt_stack_priv_to_record(struct latency_tracker_record *rec,
					    const struct ltt_stack_priv *p, u32 flag)
{
	if (!p || !p->nr_stack)
		return;
	rec->nr_stack = min_t(u32, p->nr_stack, LATENCY_TRACKER_STACK_DEPTH);
	memcpy(rec->stack, p->stack, rec->nr_stack * sizeof(rec->stack[0]));
	rec->flags &= ~(LATENCY_TRACKER_REC_F_STACK_IN | LATENCY_TRACKER_REC_F_STACK_ALERT);
	rec->flags |= flag;
}

#endif /* _LTT_COMMON_H */
