/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * latency_tracker: structures and prototypes shared by the core's files, indexed by file.
 * Not part of the API (see include/latency_tracker/latency_tracker.h).
 */
#ifndef _LT_INTERNAL_H
#define _LT_INTERNAL_H

#include <linux/atomic.h>
#include <linux/kobject.h>
#include <linux/list.h>
#include <linux/list_nulls.h>
#include <linux/log2.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/preempt.h>
#include <linux/rcupdate.h>
#include <linux/seqlock.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>

#include <latency_tracker/latency_tracker.h>

#include "wrapper.h"

/* tunable.c: declared limits of every tunable and the one strict parser. */
struct lt_range {
	const char *name;
	u64 min;
	u64 max;
	bool zero_ok;		/* 0 ("off") is accepted besides [min, max] */
	bool pow2;		/* the value must be a power of two */
};

extern const struct lt_range lt_range_threshold;
extern const struct lt_range lt_range_timeout;
extern const struct lt_range lt_range_stale;
extern const struct lt_range lt_range_max_keys;
extern const struct lt_range lt_range_ring;
extern const struct lt_range lt_range_rate;
extern const struct lt_range lt_range_burst;
extern const struct lt_range lt_range_tracker_rate;
extern const struct lt_range lt_range_bool;

bool lt_range_ok(const struct lt_range *r, u64 v);
int lt_parse_u64(const char *buf, const struct lt_range *r, u64 *out);

/* main.c: module parameters, the defaults of new trackers and of the ring. */
struct lt_defaults {
	u64 threshold_ns;
	u64 timeout_ns;
	u64 stale_ns;
	unsigned int max_keys;
	unsigned int ring_records;
	unsigned int alert_rate;	/* per second, read on every alert */
	unsigned int alert_burst;
	bool freelist_shared;		/* benchmark only: one free list for all CPUs */
};

extern struct lt_defaults lt_defaults;
extern struct kobject *lt_root_kobj;

/*
 * Objects alive (trackers, tables, open notification files), checked at unload: a leak
 * becomes a kernel warning that the VM tests catch, not a slow drift in /proc/meminfo.
 */
extern atomic_t lt_live_objects;

static inline void lt_live_get(void)
{
	atomic_inc(&lt_live_objects);
}

static inline void lt_live_put(void)
{
	atomic_dec(&lt_live_objects);
}

/*
 * Per-CPU recursion guard. Every region that takes one of the core's raw spinlocks
 * (bucket, free list, ring) runs with interrupts off between lt_enter() and lt_exit().
 * Only an NMI, or a tracepoint fired from inside such a region, can find it taken on its
 * CPU; it then backs off with -EBUSY instead of deadlocking on a lock its CPU holds.
 */
DECLARE_PER_CPU(unsigned int, lt_nesting);

static inline bool lt_enter(void)
{
	if (this_cpu_inc_return(lt_nesting) == 1)
		return true;
	this_cpu_dec(lt_nesting);
	return false;
}

static inline void lt_exit(void)
{
	this_cpu_dec(lt_nesting);
}

/* htable.c: preallocated entries, hash buckets and per-CPU free lists. */
enum lt_entry_state {
	LT_ENTRY_FREE,
	LT_ENTRY_PRIVATE,	/* owned by one CPU: being filled, or closed and reported */
	LT_ENTRY_LINKED,	/* in a bucket: a pending key */
};

struct lt_entry {
	struct hlist_nulls_node node;	/* stays walkable by RCU readers after unlink */
	struct lt_entry *free_next;	/* free-list link; never reuses node */
	seqcount_t seq;			/* odd while written; lock-free readers recheck it */
	u32 hash;
	u16 key_len;
	u8 state;			/* enum lt_entry_state */
	u8 timed_out;
	u64 start_ns;
	pid_t pid;
	pid_t tid;
	u32 start_cpu;
	u32 nr_stack;
	char comm[LATENCY_TRACKER_COMM_LEN];
	u64 data[LATENCY_TRACKER_DATA_WORDS];
	/* Followed by the key, the private area and, in stack mode "in", the stack. */
};

/*
 * PREEMPT_RT: every lock the hot path (probes, with interrupts off, possibly in NMI-free
 * hard interrupt context) takes is a raw_spinlock_t, held for a bounded walk of one bucket
 * or list, never across an allocation or a wakeup: a spinlock_t would sleep there. Readers
 * of the table are lock-free (RCU, seqcount per entry); mutexes are taken only from sysfs
 * and module load/unload, in process context.
 */
struct lt_bucket {
	struct hlist_nulls_head head;	/* nulls value: the bucket index */
	raw_spinlock_t lock;		/* writers only */
};

struct lt_free_head {
	raw_spinlock_t lock;
	struct lt_entry *first;
	unsigned int count;
};

struct lt_table {
	struct lt_bucket *buckets;
	u32 bucket_mask;
	u32 nr_entries;
	u32 stride;
	u32 priv_off;
	u32 stack_off;			/* 0: no stack area */
	u32 seed;
	bool shared_free;
	enum latency_tracker_stack_mode stack_mode;
	void *entries;
	struct lt_free_head __percpu *free;
};

struct lt_table *lt_table_alloc(u32 nr_entries, u32 key_size, u32 priv_size,
				enum latency_tracker_stack_mode stack_mode);
void lt_table_free(struct lt_table *tbl);
u64 lt_table_bytes(u32 nr_entries, u32 key_size, u32 priv_size,
		   enum latency_tracker_stack_mode stack_mode);
/* A table may take at most 1/LT_TABLE_RAM_SHARE of the RAM (lt_table_bytes_max()). */
#define LT_TABLE_RAM_SHARE 16
u64 lt_table_bytes_max(void);
u32 lt_hash(const struct lt_table *tbl, const void *key, u32 len);
struct lt_entry *lt_free_pop(struct lt_table *tbl);
void lt_free_push(struct lt_table *tbl, struct lt_entry *e);
struct lt_entry *lt_bucket_find(struct lt_table *tbl, struct lt_bucket *b, u32 hash,
				const void *key, u32 len);
void lt_bucket_link(struct lt_bucket *b, struct lt_entry *e);
void lt_entry_unlink(struct lt_entry *e);
int lt_table_lookup(struct lt_table *tbl, u32 hash, const void *key, u32 len,
		    struct latency_tracker_key_info *info);
void lt_table_count(struct lt_table *tbl, u64 *pending, u64 *free);

static inline struct lt_bucket *lt_bucket_of(const struct lt_table *tbl, u32 hash)
{
	return &tbl->buckets[hash & tbl->bucket_mask];
}

static inline struct lt_entry *lt_entry_at(const struct lt_table *tbl, u32 i)
{
	return (struct lt_entry *)((char *)tbl->entries + (size_t)i * tbl->stride);
}

static inline void *lt_entry_key(struct lt_entry *e)
{
	return e + 1;
}

static inline void *lt_entry_priv(const struct lt_table *tbl, struct lt_entry *e)
{
	return (char *)e + tbl->priv_off;
}

static inline unsigned long *lt_entry_stack(const struct lt_table *tbl, struct lt_entry *e)
{
	return (unsigned long *)((char *)e + tbl->stack_off);
}

/* stats.c: per-CPU counters and delay statistics of one tracker. */
enum lt_counter {
	LT_EVENTS_IN,
	LT_EVENTS_OUT,
	LT_ALERTS,
	LT_TIMEOUTS,
	LT_SUPPRESSED,
	LT_FILTERED,
	LT_DUPLICATES,
	LT_TABLE_FULL,
	LT_KEY_INVALID,
	LT_UNMATCHED,
	LT_BUSY,
	LT_STALE,
	LT_DISCARDED,
	LT_THROTTLED,		/* refused by the tracker's own alert bucket */
	/*
	 * A lookup or update that backed off: no event lost (only what the tracker would
	 * have added to a pending key, a waker, a stack), so counted in stats/busy but not in
	 * drops. A key that then goes unmatched is counted when it is discarded (stale).
	 */
	LT_BUSY_AUX,
	LT_NR_COUNTERS
};

#define LT_HIST_BUCKETS 64

/*
 * delay_sum is 128 bits, delay_sum_hi the carries out of delay_sum: one CPU's 64 bits of
 * ns wrap after 584 years of summed delay, a few weeks for offcpu's thousands of sleepers.
 */
struct lt_stats {
	u64 cnt[LT_NR_COUNTERS];
	u64 delay_count;
	u64 delay_sum;
	u64 delay_sum_hi;
	u64 delay_min;
	u64 delay_max;
	u64 hist[LT_HIST_BUCKETS];
};

struct lt_stats __percpu *lt_stats_alloc(void);
void lt_stats_free(struct lt_stats __percpu *s);
unsigned int lt_stats_delay(struct lt_stats __percpu *s, u64 delay);
void lt_stats_sum(struct lt_stats __percpu *s, struct lt_stats *sum);
u64 lt_stats_busy(const struct lt_stats *sum);
u64 lt_stats_drops(const struct lt_stats *sum);
u64 lt_stats_mean(const struct lt_stats *sum);

static inline void lt_count(struct lt_stats __percpu *s, enum lt_counter c)
{
	this_cpu_inc(s->cnt[c]);
}

static inline void lt_count_add(struct lt_stats __percpu *s, enum lt_counter c, u64 n)
{
	this_cpu_add(s->cnt[c], n);
}

static inline unsigned int lt_hist_bucket(u64 delay)
{
	return delay ? ilog2(delay) : 0;
}

/* hist.c: the hist/ files' histograms, resettable, and the keyed ones. */
enum lt_hist_per {
	LT_HIST_PER_NONE,
	LT_HIST_PER_CPU,
	LT_HIST_PER_DISK,
	LT_HIST_PER_SYSCALL,
	LT_HIST_PER_NR
};

extern const char *const lt_hist_per_names[LT_HIST_PER_NR];

/*
 * Where the per-CPU buckets of stats/ stood at the last reset (total) and at the last
 * change of per or reset (cpu): stats/delay_hist_ns never goes back, hist/ subtracts.
 * Written by the reset only, never by the hot path.
 */
struct lt_hist_base {
	u64 total[LT_HIST_BUCKETS];
	u64 cpu[LT_HIST_BUCKETS];
};

#define LT_HIST_OTHER LATENCY_TRACKER_HIST_KEYS
#define LT_HIST_SLOTS (LATENCY_TRACKER_HIST_KEYS + 1)
/* Keys below this (every system call number) find their slot with one byte load. */
#define LT_HIST_DIRECT 1024

/*
 * A key's buckets stop at 2^47 ns (39 hours), the last one holding anything longer: every
 * slot's row then fits in one per-CPU allocation (at most 32 KiB), where the rows of the
 * few keys a workload repeats share a page.
 */
#define LT_HIST_KEYED_BUCKETS 48

struct lt_hist_rows {
	u64 b[LT_HIST_SLOTS][LT_HIST_KEYED_BUCKETS];
};

/* The histograms of one keyed dimension (hist.c). */
struct lt_hist_keyed {
	u8 direct[LT_HIST_DIRECT];			/* a small key's slot + 1; 0: not known yet */
	struct lt_hist_rows __percpu *rows;
	u64 slot_key[LATENCY_TRACKER_HIST_KEYS];	/* the key + 1; 0: free */
	u64 base[LT_HIST_SLOTS][LT_HIST_KEYED_BUCKETS];	/* sums at the last reset */
};

/* The hist/ state of one tracker; everything but keyed is under lock. */
struct lt_hist {
	struct lt_hist_keyed __rcu *keyed;	/* per disk or syscall only; first: hot */
	struct mutex lock;
	enum latency_tracker_hist_dim dim;	/* what the tracker offers */
	latency_tracker_hist_key_t key_of;	/* NULL: the key is data[key_word] */
	unsigned int key_word;
	enum lt_hist_per per;
	u64 since_ns;				/* of delay_ns */
	u64 keyed_since_ns;			/* of by_key */
	struct lt_hist_base __percpu *base;
	char *text;				/* by_key as last rendered from offset 0 */
	size_t text_len;
};

int lt_hist_init(struct lt_hist *h, const struct latency_tracker_params *p);
void lt_hist_free(struct lt_hist *h);
unsigned int lt_hist_slot(struct lt_hist_keyed *k, u32 key);
int lt_hist_set_per(struct latency_tracker *t, enum lt_hist_per per);
void lt_hist_reset(struct latency_tracker *t);
int lt_hist_delay_show(struct latency_tracker *t, char *buf);
ssize_t lt_hist_by_key_read(struct latency_tracker *t, char *buf, loff_t off, size_t count);

/*
 * The hot path's part, inline: nothing but the first test while per is none or cpu (the
 * per-CPU buckets of stats/ are those of "cpu"); then, for a key seen before, a byte of
 * direct[] (a system call) or a probe (a disk), and one per-CPU increment. Preemption off
 * rather than rcu_read_lock(): on the PREEMPT_RCU kernels distributions ship, the latter
 * is two out-of-line calls per pair, and synchronize_rcu() waits for preemption-disabled
 * sections as well (one RCU flavour since 4.20). @bucket: lt_hist_bucket() of the delay.
 */
static __always_inline void lt_hist_keyed(struct lt_hist *h, const void *key, size_t len,
					  const u64 *data, unsigned int bucket)
{
	struct lt_hist_keyed *k;
	unsigned int s = 0;
	u32 kv;

	if (likely(!rcu_access_pointer(h->keyed)))
		return;
	preempt_disable_notrace();
	k = rcu_dereference_sched(h->keyed);
	if (k) {
		kv = h->key_of ? h->key_of(key, len, data) : (u32)data[h->key_word];
		if (kv < LT_HIST_DIRECT)
			s = READ_ONCE(k->direct[kv]);
		s = likely(s) ? s - 1 : lt_hist_slot(k, kv);
		this_cpu_inc(k->rows->b[s][min_t(unsigned int, bucket,
						 LT_HIST_KEYED_BUCKETS - 1)]);
	}
	preempt_enable_notrace();
}

/*
 * notify.c: a token bucket in ns of alert budget. Its state is only touched under the
 * ring's raw spinlock (interrupts off, inside lt_enter()): safe from any context a probe
 * runs in, NMI excepted (which backs off), PREEMPT_RT included.
 */
struct lt_token_bucket {
	u64 credit_ns;
	u64 last_ns;
};

/*
 * The alert limit of one tracker: at most rate records per second into the ring, bursts
 * of burst, checked before the global limit. rate 0: none of its own, only the global
 * limit applies. rate and burst are written by sysfs with WRITE_ONCE() and read under the
 * ring lock with READ_ONCE(); tb is the bucket, ring lock only.
 */
struct lt_alert_limit {
	u32 rate;
	u32 burst;
	struct lt_token_bucket tb;
};

/* tracker.c: the tracker object. */
struct latency_tracker {
	struct kobject kobj;		/* /sys/kernel/latency_tracker/<name> */
	struct list_head list;		/* lt_trackers, under lt_trackers_lock */
	struct mutex lock;		/* enable/disable and configuration writes */
	char name[LATENCY_TRACKER_NAME_LEN];
	u32 type;
	u32 key_size;
	u32 priv_size;
	u32 priv_zero;		/* bytes zeroed at an insertion without in->priv */
	enum latency_tracker_dup_policy dup_policy;
	bool stale_alert;	/* stale keys past the threshold raise an alert (scan.c) */
	latency_tracker_cb_t cb;
	void *cb_data;
	int (*activate)(struct latency_tracker *t);
	void (*deactivate)(struct latency_tracker *t);
	void (*scan)(struct latency_tracker *t, u64 timeout_ns);

	/* Configuration: written under lock, read locklessly with READ_ONCE(). */
	u64 threshold_ns;
	u64 timeout_ns;
	u64 stale_ns;
	u32 max_keys;
	enum latency_tracker_stack_mode stack_mode;
	bool enabled;
	struct lt_alert_limit limit;	/* its own share of the notification ring */

	struct lt_table __rcu *table;	/* NULL while disabled */

	/*
	 * No linked key started before oldest_ns (U64_MAX: none): lowered by event_in,
	 * raised by each pass of the scanner to the oldest start it saw, or to ins_min, the
	 * oldest start linked during that pass, if older. Both only move with
	 * lt_oldest_lower() (cmpxchg), but for the scanner's reset and refresh.
	 */
	u64 oldest_ns;
	u64 ins_min;
	struct lt_stats __percpu *stats;
	struct lt_hist hist;

	/*
	 * scan.c: the walk runs in scan_work (process context); scan_timer, a hard hrtimer,
	 * queues it each period (see scan.c for why not a delayed work).
	 */
	struct work_struct scan_work;
	struct hrtimer scan_timer;
	struct latency_tracker_record *scan_rec;
	void *scan_priv;
};

void lt_tracker_release(struct latency_tracker *t);
void lt_oldest_lower(u64 *p, u64 v);
int lt_tracker_set_stale(struct latency_tracker *t, u64 ns);
int lt_tracker_set_max_keys(struct latency_tracker *t, u32 n);
int lt_tracker_set_stack_mode(struct latency_tracker *t, enum latency_tracker_stack_mode m);
int lt_trackers_check_empty(void);

/* scan.c: timeouts and stale keys, from a workqueue. */
void lt_scan_work(struct work_struct *work);
void lt_scan_init(struct latency_tracker *t);
/* Stops the scanner for good: t->enabled is already false. */
void lt_scan_stop(struct latency_tracker *t);
void lt_scan_kick(struct latency_tracker *t);

/* alert.c: build alert records and emit them (callback, ring, tracepoint). */
void lt_record_from_entry(struct latency_tracker *t, struct lt_table *tbl,
			  struct lt_entry *e, struct latency_tracker_record *rec);
void lt_record_from_pair(struct latency_tracker *t, const struct latency_tracker_in *in,
			 struct latency_tracker_record *rec);
void lt_alert_emit(struct latency_tracker *t, struct latency_tracker_record *rec, void *priv);

/*
 * notify.c: the record header, the shared ring, the rate limit and /dev/latency_tracker.
 * Knows nothing of alert.c, which calls it.
 */
enum lt_push_result {
	LT_PUSH_OK,
	LT_PUSH_THROTTLED,	/* the tracker's own limit */
	LT_PUSH_SUPPRESSED,	/* the global rate limit */
	LT_PUSH_BUSY,		/* nested on this CPU (NMI) */
};

struct lt_notify_stats {
	u64 written;
	u64 suppressed;		/* refused by a rate limit: a tracker's own or the global one */
	u64 dropped;
};

void lt_record_init(struct latency_tracker_record *rec, u8 kind);
int lt_notify_init(unsigned int ring_records);
void lt_notify_exit(void);
int lt_notify_register(void);
void lt_notify_unregister(void);
enum lt_push_result lt_notify_push(struct latency_tracker_record *rec,
				   struct lt_alert_limit *own);
void lt_notify_wake(void);
void lt_notify_stats(struct lt_notify_stats *st);

/* sysfs.c: the global files and one directory per tracker. */
#define LT_STACK_MODES (LATENCY_TRACKER_STACK_IN + 1)
/* The stack file's words, by mode: the kernel log says them too. */
extern const char *const lt_stack_names[LT_STACK_MODES];
int lt_sysfs_init(void);
/* devnames.c: the root's device_names file. */
extern struct kobj_attribute lt_device_names_attr;
void lt_sysfs_exit(void);
int lt_sysfs_tracker_add(struct latency_tracker *t);
void lt_sysfs_tracker_del(struct latency_tracker *t);

/* sysfs_hist.c: the hist/ directory of a tracker. */
extern const struct attribute_group lt_hist_group;

#endif /* _LT_INTERNAL_H */
