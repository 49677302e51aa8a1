/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * latency_tracker: the in-kernel API used by the trackers (syscalls, wakeup, offcpu,
 * block, irq, net, app). A tracker module creates a named tracker, enables it, and calls
 * latency_tracker_event_in() when something starts and latency_tracker_event_out() when
 * it ends, both keyed by up to key_size bytes. The core measures the delay, keeps
 * statistics, raises alerts (notification file, tracepoint, optional callback) and
 * handles timeouts and stale keys from a workqueue, off the hot path.
 *
 * Contexts: event_in, event_out, lookup and update never sleep, never allocate and never
 * take a sleeping lock; they may be called from process, softirq, hardirq and NMI
 * context, including from inside tracepoints of the scheduler (sched_switch,
 * sched_waking). A call nested on a CPU that is already inside the core (an NMI that
 * interrupts it, or a tracepoint fired from within it) returns -EBUSY and is counted.
 * create, destroy, enable, disable and the setters may sleep (process context only).
 *
 * Lifetime: the tracker module must stop calling the hot-path functions (unregister its
 * probes and call tracepoint_synchronize_unregister()) before latency_tracker_destroy().
 * Keys still pending at disable or destroy are discarded (and counted).
 */
#ifndef _LATENCY_TRACKER_API_H
#define _LATENCY_TRACKER_API_H

#include <linux/types.h>
#include <linux/sched.h>
#include <uapi/latency_tracker.h>

/* Longest key a tracker may declare, in bytes. */
#define LATENCY_TRACKER_KEY_MAX 64
/* Largest per-key private area a tracker may declare, in bytes. */
#define LATENCY_TRACKER_PRIV_MAX 256

struct latency_tracker;

/**
 * enum latency_tracker_dup_policy - what event_in does with a key already pending
 * @LATENCY_TRACKER_DUP_REJECT: keep the pending key; event_in returns -EEXIST (counted
 *	as a duplicate).
 * @LATENCY_TRACKER_DUP_REPLACE: restart the pending key: new start time, task and data
 *	(counted as a duplicate); event_in returns 0, also when the table is full.
 * @LATENCY_TRACKER_DUP_NEST: keep both; event_out closes the most recent one (LIFO),
 *	for nesting events such as interrupts on one CPU.
 */
enum latency_tracker_dup_policy {
	LATENCY_TRACKER_DUP_REJECT,
	LATENCY_TRACKER_DUP_REPLACE,
	LATENCY_TRACKER_DUP_NEST,
};

/**
 * enum latency_tracker_stack_mode - which kernel stack an alert carries
 * @LATENCY_TRACKER_STACK_NONE: none.
 * @LATENCY_TRACKER_STACK_ALERT: the stack of the context raising a threshold alert
 *	(the event_out caller); timeout alerts carry none.
 * @LATENCY_TRACKER_STACK_IN: the stack saved at event_in (where a task blocked, for
 *	off-CPU analysis); costs a stack walk on every event_in. A pair closed by
 *	latency_tracker_event_pair() had no event_in: its alert carries the stack of the
 *	context raising it, flagged as with STACK_ALERT.
 */
enum latency_tracker_stack_mode {
	LATENCY_TRACKER_STACK_NONE,
	LATENCY_TRACKER_STACK_ALERT,
	LATENCY_TRACKER_STACK_IN,
};

/**
 * enum latency_tracker_hist_dim - the key dimension a tracker offers to hist/per
 * @LATENCY_TRACKER_HIST_NONE: none besides "cpu", which every tracker has.
 * @LATENCY_TRACKER_HIST_DISK: "disk": the pair's block device, as a dev_t (MKDEV()).
 * @LATENCY_TRACKER_HIST_SYSCALL: "syscall": the pair's system call number.
 */
enum latency_tracker_hist_dim {
	LATENCY_TRACKER_HIST_NONE,
	LATENCY_TRACKER_HIST_DISK,
	LATENCY_TRACKER_HIST_SYSCALL,
};

/**
 * typedef latency_tracker_hist_key_t - the histogram key of a closed pair
 * @key: the key bytes given to event_out or event_pair.
 * @key_len: their length.
 * @data: the data words given at event_in (for event_pair: @in->data), before any
 *	&latency_tracker_out.data replaced them.
 *
 * Called by the core for every pair closed while the tracker's hist/per is the
 * dimension the tracker declared in &latency_tracker_params.hist_dim, never otherwise.
 * Same context as event_out (any, interrupts possibly off, RCU read-side section): it
 * must be short, must not sleep, must not take a lock and must not call the API.
 *
 * Return: the key of the pair in that dimension: a dev_t for
 * LATENCY_TRACKER_HIST_DISK, the system call number for LATENCY_TRACKER_HIST_SYSCALL.
 */
typedef u32 (*latency_tracker_hist_key_t)(const void *key, size_t key_len,
					  const u64 *data);

/**
 * typedef latency_tracker_cb_t - tracker callback, called for each alert
 * @t: the tracker
 * @rec: the record about to be emitted; rec->reason says whether the key was closed
 *	over the threshold (LATENCY_TRACKER_REASON_THRESHOLD) or is still pending after
 *	the timeout (LATENCY_TRACKER_REASON_TIMEOUT). The callback may fill rec->data[].
 * @priv: the key's private area (priv_size bytes), or NULL if priv_size is 0.
 *
 * Called from the event_out caller's context for threshold alerts and from a workqueue
 * (process context, but must not sleep) for timeouts. It may call event_in/event_out
 * of any tracker.
 *
 * Return: true to emit the alert, false to drop it (counted as "filtered").
 */
typedef bool (*latency_tracker_cb_t)(struct latency_tracker *t,
				     struct latency_tracker_record *rec, void *priv);

/**
 * struct latency_tracker_params - what a tracker declares at creation
 * @name: sysfs directory and record name: [a-z0-9_], 1 to 31 characters, unique.
 * @type: enum latency_tracker_type, tells readers what data[] holds.
 * @key_size: longest key in bytes, 1..LATENCY_TRACKER_KEY_MAX.
 * @priv_size: bytes of private data per key, 0..LATENCY_TRACKER_PRIV_MAX.
 * @priv_zero: bytes at the start of the private area zeroed when a key is inserted
 *	without &latency_tracker_in.priv, 1..@priv_size; 0: all of it. A tracker whose
 *	area begins with a header saying how much of the rest is valid (a stack and its
 *	depth) zeroes the header only: the rest of a reused entry is never read.
 * @max_keys: concurrent keys preallocated at enable; 0: module default.
 * @threshold_ns: 0: module default.
 * @timeout_ns: 0: module default (which may be "off").
 * @stale_ns: 0: module default. When both are set, @timeout_ns must be below it. A
 *	default that is not below (timeout) or above (staleness) the value set here is
 *	dropped: the tracker gets no timeout, or no staleness.
 * @stale_alert: a key discarded as stale at or past the threshold raises a timeout alert
 *	flagged LATENCY_TRACKER_REC_F_DISCARDED (ABI 1.7) before it is freed: its end will
 *	never match. Only for a tracker that sees every key's end whatever its filters (a
 *	filter checked at the start alone): elsewhere a stale key may be an end it did not
 *	see, and the alert a false one of stale_ns or more. Without it, discarded silently.
 * @dup_policy: enum latency_tracker_dup_policy.
 * @stack_mode: enum latency_tracker_stack_mode.
 * @cb: optional callback, see latency_tracker_cb_t.
 * @cb_data: returned by latency_tracker_cb_data().
 * @activate: optional, called by latency_tracker_enable() (also from the sysfs
 *	``enabled`` file) once the key table exists, with the tracker's lock held: the
 *	tracker registers its probes here, so a disabled tracker costs nothing. An error
 *	fails the enable. Process context, may sleep; must not call enable/disable.
 * @deactivate: optional, called by latency_tracker_disable() before the table is
 *	freed: the tracker unregisters its probes and waits for running ones
 *	(tracepoint_synchronize_unregister()). Same context as @activate.
 * @scan: optional, called by the timeout scanner before each walk of the table while
 *	timeout_ns is set, with timeout_ns: a tracker that keeps pairs outside the table
 *	(see latency_tracker_event_pair()) moves those pending for timeout_ns or more into
 *	it here, so that they time out like the others. Process context, may sleep.
 * @hist_dim: optional, the dimension besides "cpu" that the tracker's hist/per accepts
 *	(ABI 1.4); LATENCY_TRACKER_HIST_NONE (0): none. The key of a pair in it is what
 *	@hist_key returns or, without @hist_key, the pair's data[@hist_key_word] (its low
 *	32 bits): no call on the pair's path, for trackers as busy as syscalls.
 * @hist_key: the key of a pair in @hist_dim, see latency_tracker_hist_key_t.
 * @hist_key_word: without @hist_key, which data word holds the key (0..3).
 */
struct latency_tracker_params {
	const char *name;
	u32 type;
	u32 key_size;
	u32 priv_size;
	u32 priv_zero;
	u32 max_keys;
	u64 threshold_ns;
	u64 timeout_ns;
	u64 stale_ns;
	bool stale_alert;
	enum latency_tracker_dup_policy dup_policy;
	enum latency_tracker_stack_mode stack_mode;
	latency_tracker_cb_t cb;
	void *cb_data;
	int (*activate)(struct latency_tracker *t);
	void (*deactivate)(struct latency_tracker *t);
	void (*scan)(struct latency_tracker *t, u64 timeout_ns);
	enum latency_tracker_hist_dim hist_dim;
	latency_tracker_hist_key_t hist_key;
	unsigned int hist_key_word;
};

/**
 * struct latency_tracker_in - optional arguments of latency_tracker_event_in()
 * @ts: start time on the trace clock (latency_tracker_now()); 0: now.
 * @task: the task the key is about (pid, tid and comm of the record); NULL: current.
 * @data: tracker-specific words copied into the record.
 * @priv: copied into the key's private area (priv_size bytes) if not NULL.
 */
struct latency_tracker_in {
	u64 ts;
	struct task_struct *task;
	u64 data[LATENCY_TRACKER_DATA_WORDS];
	const void *priv;
};

/**
 * struct latency_tracker_out - optional arguments of latency_tracker_event_out()
 * @ts: end time on the trace clock; 0: now.
 * @data_mask: bit i set: @data[i] replaces the word given at event_in.
 * @data: see @data_mask.
 */
struct latency_tracker_out {
	u64 ts;
	u32 data_mask;
	u64 data[LATENCY_TRACKER_DATA_WORDS];
};

/**
 * struct latency_tracker_key_info - snapshot of a pending key, from lookup
 * @start_ns: start time.
 * @pid: thread group id.
 * @tid: thread id.
 * @start_cpu: CPU of event_in.
 * @timed_out: a timeout alert was raised for it.
 * @data: the tracker-specific words.
 */
struct latency_tracker_key_info {
	u64 start_ns;
	pid_t pid;
	pid_t tid;
	u32 start_cpu;
	bool timed_out;
	u64 data[LATENCY_TRACKER_DATA_WORDS];
};

/**
 * latency_tracker_create() - create a tracker (disabled) and its sysfs directory
 * @p: parameters, copied.
 *
 * Context: process, may sleep.
 * Return: the tracker or an ERR_PTR(): -EINVAL (bad parameters), -EEXIST (name in use),
 * -ENOMEM.
 */
struct latency_tracker *latency_tracker_create(const struct latency_tracker_params *p);

/**
 * latency_tracker_destroy() - disable, remove from sysfs and free a tracker
 * @t: the tracker; NULL is ignored.
 *
 * The caller must have stopped calling the hot-path functions. Pending keys are
 * discarded. Context: process, may sleep.
 */
void latency_tracker_destroy(struct latency_tracker *t);

/**
 * latency_tracker_enable() - preallocate max_keys entries and start accepting events
 * @t: the tracker.
 *
 * Context: process, may sleep. Return: 0, or -ENOMEM.
 */
int latency_tracker_enable(struct latency_tracker *t);

/**
 * latency_tracker_disable() - stop accepting events and free the entries
 * @t: the tracker.
 *
 * Waits until no CPU is inside the hot path, then discards pending keys.
 * Context: process, may sleep.
 */
void latency_tracker_disable(struct latency_tracker *t);

/**
 * latency_tracker_event_in() - start tracking a key
 * @t: the tracker.
 * @key: the key bytes.
 * @key_len: 1..key_size.
 * @in: optional arguments, NULL for defaults.
 *
 * Context: any, see the top of this file.
 * Return: 0; -EEXIST duplicate rejected; -ENOSPC table full (a new key, or any with
 * DUP_NEST: a pending key is still a duplicate); -E2BIG key longer than
 * key_size; -EINVAL empty key; -EBUSY nested call on this CPU; -ENODEV disabled. Every
 * error except -ENODEV is counted in the tracker's statistics.
 */
int latency_tracker_event_in(struct latency_tracker *t, const void *key, size_t key_len,
			     const struct latency_tracker_in *in);

/**
 * latency_tracker_event_out() - stop tracking a key, alert if it took too long
 * @t: the tracker.
 * @key: the key bytes.
 * @key_len: 1..key_size.
 * @out: optional arguments, NULL for defaults.
 *
 * Context: any, see the top of this file.
 * Return: 0 closed under the threshold; 1 closed at or over the threshold (an alert was
 * raised, possibly suppressed by the rate limit); -ENOENT no such key (counted as
 * unmatched); other errors as latency_tracker_event_in().
 */
int latency_tracker_event_out(struct latency_tracker *t, const void *key, size_t key_len,
			      const struct latency_tracker_out *out);

/**
 * latency_tracker_event_pair() - a pair the caller kept outside the table, closed
 * @t: the tracker.
 * @key: the key bytes.
 * @key_len: 1..key_size.
 * @in: what event_in would have been given; @in->ts (the start) is required.
 * @out: optional arguments of the end, NULL for defaults.
 *
 * For a tracker's fast path: a pair that began and ended without leaving its CPU's
 * private slot (e.g. a system call that did not block) is counted and measured as
 * event_in then event_out would count it. Below the threshold it touches no shared lock
 * and no table entry and does not mask interrupts; an alert is built on the stack, with
 * no table entry either, so a table full of other keys does not drop it; the callback's
 * private area is a copy of @in->priv (zeroed without it). With stack mode STACK_IN or
 * STACK_ALERT the alert carries the stack of the caller, flag STACK_ALERT: no stack was
 * saved at the start.
 *
 * Context: any, see the top of this file; called on the CPU that kept the pair.
 * Return: 0 under the threshold; 1 alert raised; -E2BIG, -EINVAL and -ENODEV as
 * latency_tracker_event_in().
 */
int latency_tracker_event_pair(struct latency_tracker *t, const void *key, size_t key_len,
			       const struct latency_tracker_in *in,
			       const struct latency_tracker_out *out);

/**
 * latency_tracker_lookup() - is a key pending? Lock-free.
 * @t: the tracker.
 * @key: the key bytes.
 * @key_len: 1..key_size.
 * @info: filled with a consistent snapshot of the key when found; may be NULL.
 *
 * With DUP_NEST the most recent entry of the key is returned.
 * Context: any. Return: 0 found; -ENOENT; -EBUSY (the key changed under us too often);
 * -E2BIG, -EINVAL, -ENODEV as latency_tracker_event_in().
 */
int latency_tracker_lookup(struct latency_tracker *t, const void *key, size_t key_len,
			   struct latency_tracker_key_info *info);

/**
 * latency_tracker_update() - modify a pending key under its bucket lock
 * @t: the tracker.
 * @key: the key bytes.
 * @key_len: 1..key_size.
 * @fn: called with the key's data words and private area; must be short, must not
 *	sleep and must not call back into the tracker core.
 * @arg: passed to @fn.
 *
 * Context: any. Return: 0, or the errors of latency_tracker_lookup().
 */
int latency_tracker_update(struct latency_tracker *t, const void *key, size_t key_len,
			   void (*fn)(u64 *data, void *priv, void *arg), void *arg);

/**
 * latency_tracker_oldest_ns() - a bound on the start of every pending key
 * @t: the tracker.
 *
 * No key pending now started before the value returned (U64_MAX: none is pending). It is
 * lowered at once by event_in, and raised again by each pass of the timeout scanner
 * (which runs while timeout_ns or stale_ns is set) to the oldest key still there. A probe
 * that only cares about keys pending for some time skips its lookup while none can be.
 *
 * Context: any. Return: the bound, on the trace clock (latency_tracker_now()).
 */
u64 latency_tracker_oldest_ns(struct latency_tracker *t);

/**
 * latency_tracker_set_threshold() - set threshold_ns, as the sysfs file does
 * @t: the tracker.
 * @ns: the threshold.
 *
 * Return: 0, or -EINVAL out of range.
 */
int latency_tracker_set_threshold(struct latency_tracker *t, u64 ns);

/**
 * latency_tracker_set_timeout() - set timeout_ns (0: off), as the sysfs file does
 * @t: the tracker.
 * @ns: the timeout.
 *
 * Return: 0, or -EINVAL out of range or not below stale_ns.
 */
int latency_tracker_set_timeout(struct latency_tracker *t, u64 ns);

/**
 * latency_tracker_count_keys() - count pending and free entries (walks the table)
 * @t: the tracker.
 * @pending: keys in the table.
 * @free: entries on the free lists.
 *
 * For statistics and self-tests; pending + free == max_keys when nothing is in flight.
 * Context: process. Return: 0, or -ENODEV if disabled.
 */
int latency_tracker_count_keys(struct latency_tracker *t, u64 *pending, u64 *free);

/**
 * struct latency_tracker_stats - the tracker's counters, summed over CPUs
 *
 * The same values as the files in its sysfs stats/ directory.
 */
struct latency_tracker_stats {
	u64 events_in;
	u64 events_out;
	u64 alerts;
	u64 timeouts;
	u64 suppressed;		/* refused by the global alert limit */
	u64 throttled;		/* refused by the tracker's own alert limit */
	u64 filtered;
	u64 duplicates;
	u64 table_full;
	u64 key_invalid;
	u64 unmatched;
	u64 busy;
	u64 stale;
	u64 discarded;
	u64 delay_count;
	u64 delay_min_ns;
	u64 delay_max_ns;
	u64 delay_sum_ns;	/* the low 64 bits of the sum of delays: it wraps */
	u64 delay_sum_hi;	/* the high 64 bits */
	u64 delay_mean_ns;	/* the whole sum / delay_count, rounded down; 0: no pair */
};

/**
 * latency_tracker_get_stats() - read the tracker's counters
 * @t: the tracker.
 * @s: filled in.
 *
 * Context: any (sums per-CPU counters without locks).
 */
void latency_tracker_get_stats(struct latency_tracker *t, struct latency_tracker_stats *s);

/**
 * latency_tracker_cb_data() - the @cb_data given at creation
 * @t: the tracker.
 */
void *latency_tracker_cb_data(struct latency_tracker *t);

/**
 * latency_tracker_get_threshold() - the current threshold_ns (lockless read)
 * @t: the tracker.
 *
 * Context: any.
 */
u64 latency_tracker_get_threshold(struct latency_tracker *t);

/**
 * latency_tracker_kobj() - the tracker's sysfs directory
 * @t: the tracker.
 *
 * For a tracker's own files (filters, tracker-specific settings), added with
 * sysfs_create_group() after create and removed before destroy.
 */
struct kobject *latency_tracker_kobj(struct latency_tracker *t);

/**
 * latency_tracker_now() - the trace clock, in nanoseconds
 *
 * The clock of LTTng's kernel tracer (ktime_get_mono_fast_ns()); NMI-safe.
 */
u64 latency_tracker_now(void);

#endif /* _LATENCY_TRACKER_API_H */
