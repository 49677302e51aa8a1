// SPDX-License-Identifier: GPL-2.0-only
/*
 * latency_tracker: the tracker object and the hot path (event_in, event_out, lookup,
 * update). Hot-path rules: interrupts off around every region that takes a raw
 * spinlock, inside lt_enter(); the table is reached through an RCU-protected pointer that
 * disable clears and frees only after synchronize_rcu(); no allocation, no sleeping.
 */
#include <linux/ctype.h>
#include <linux/err.h>
#include <linux/module.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/stacktrace.h>
#include <linux/string.h>

#include "internal.h"

/* A lookup gives up (-EBUSY) after this many concurrent changes of its chain. */
#define LT_LOOKUP_TRIES 4

static LIST_HEAD(lt_trackers);
static DEFINE_MUTEX(lt_trackers_lock);

DEFINE_PER_CPU(unsigned int, lt_nesting);

u64 latency_tracker_now(void)
{
	return lt_clock_ns();
}
EXPORT_SYMBOL_GPL(latency_tracker_now);

void *latency_tracker_cb_data(struct latency_tracker *t)
{
	return t->cb_data;
}
EXPORT_SYMBOL_GPL(latency_tracker_cb_data);

/* Lowers *p to v if v is older; a racing lower or refresh is never undone. */
void lt_oldest_lower(u64 *p, u64 v)
{
	u64 old = READ_ONCE(*p), seen;

	while (v < old) {
		seen = cmpxchg64(p, old, v);
		if (seen == old)
			break;
		old = seen;
	}
}

u64 latency_tracker_oldest_ns(struct latency_tracker *t)
{
	return READ_ONCE(t->oldest_ns);
}
EXPORT_SYMBOL_GPL(latency_tracker_oldest_ns);

u64 latency_tracker_get_threshold(struct latency_tracker *t)
{
	return READ_ONCE(t->threshold_ns);
}
EXPORT_SYMBOL_GPL(latency_tracker_get_threshold);

struct kobject *latency_tracker_kobj(struct latency_tracker *t)
{
	return &t->kobj;
}
EXPORT_SYMBOL_GPL(latency_tracker_kobj);

static bool lt_name_ok(const char *name)
{
	size_t i, len;

	if (!name)
		return false;
	len = strnlen(name, LATENCY_TRACKER_NAME_LEN);
	if (len == 0 || len >= LATENCY_TRACKER_NAME_LEN)
		return false;
	for (i = 0; i < len; i++) {
		if (!islower(name[i]) && !isdigit(name[i]) && name[i] != '_')
			return false;
	}
	return true;
}

static u64 lt_or_default(u64 v, u64 def)
{
	return v ? v : def;
}

static int lt_params_check(const struct latency_tracker_params *p)
{
	if (!lt_name_ok(p->name))
		return -EINVAL;
	if (p->key_size == 0 || p->key_size > LATENCY_TRACKER_KEY_MAX)
		return -EINVAL;
	if (p->priv_size > LATENCY_TRACKER_PRIV_MAX || p->priv_zero > p->priv_size)
		return -EINVAL;
	if (p->max_keys && !lt_range_ok(&lt_range_max_keys, p->max_keys))
		return -EINVAL;
	if (p->threshold_ns && !lt_range_ok(&lt_range_threshold, p->threshold_ns))
		return -EINVAL;
	if (!lt_range_ok(&lt_range_timeout, p->timeout_ns) ||
	    !lt_range_ok(&lt_range_stale, p->stale_ns))
		return -EINVAL;
	/* As latency_tracker_set_timeout() would refuse it. */
	if (p->timeout_ns && p->stale_ns && p->timeout_ns >= p->stale_ns)
		return -EINVAL;
	if (p->dup_policy > LATENCY_TRACKER_DUP_NEST ||
	    p->stack_mode > LATENCY_TRACKER_STACK_IN)
		return -EINVAL;
	if (p->hist_dim > LATENCY_TRACKER_HIST_SYSCALL ||
	    p->hist_key_word >= LATENCY_TRACKER_DATA_WORDS)
		return -EINVAL;
	return 0;
}

static struct latency_tracker *lt_find_locked(const char *name)
{
	struct latency_tracker *t;

	list_for_each_entry(t, &lt_trackers, list) {
		if (!strcmp(t->name, name))
			return t;
	}
	return NULL;
}

struct latency_tracker *latency_tracker_create(const struct latency_tracker_params *p)
{
	struct latency_tracker *t;
	int ret;

	ret = lt_params_check(p);
	if (ret)
		return ERR_PTR(ret);

	t = kzalloc(sizeof(*t), GFP_KERNEL);
	if (!t)
		return ERR_PTR(-ENOMEM);
	lt_live_get();
	INIT_LIST_HEAD(&t->list);
	mutex_init(&t->lock);
	lt_scan_init(t);
	strscpy(t->name, p->name, sizeof(t->name));
	t->type = p->type;
	t->key_size = p->key_size;
	t->priv_size = p->priv_size;
	t->priv_zero = lt_or_default(p->priv_zero, p->priv_size);
	t->dup_policy = p->dup_policy;
	t->stale_alert = p->stale_alert;
	t->stack_mode = p->stack_mode;
	t->cb = p->cb;
	t->cb_data = p->cb_data;
	t->activate = p->activate;
	t->deactivate = p->deactivate;
	t->scan = p->scan;
	t->max_keys = lt_or_default(p->max_keys, lt_defaults.max_keys);
	/* No limit of its own until one is set: a module loaded alone behaves as before. */
	t->limit.rate = 0;
	t->limit.burst = LATENCY_TRACKER_TRACKER_ALERT_BURST;
	t->threshold_ns = lt_or_default(p->threshold_ns, lt_defaults.threshold_ns);
	t->timeout_ns = lt_or_default(p->timeout_ns, lt_defaults.timeout_ns);
	t->stale_ns = lt_or_default(p->stale_ns, lt_defaults.stale_ns);
	/*
	 * The timeout must stay below the staleness. The module's defaults agree with each
	 * other and lt_params_check() makes the tracker's own values agree, so a conflict
	 * pits one value of the tracker against one default: the tracker's wins, the default
	 * is dropped (a tracker that discards its keys early, such as net, keeps doing so).
	 */
	if (t->stale_ns && t->timeout_ns >= t->stale_ns) {
		if (p->stale_ns)
			t->timeout_ns = 0;
		else
			t->stale_ns = 0;
	}

	t->stats = lt_stats_alloc();
	t->scan_rec = kzalloc(sizeof(*t->scan_rec), GFP_KERNEL);
	t->scan_priv = kzalloc(max_t(u32, p->priv_size, 1), GFP_KERNEL);
	ret = lt_hist_init(&t->hist, p);
	if (ret || !t->stats || !t->scan_rec || !t->scan_priv) {
		lt_tracker_release(t);
		return ERR_PTR(-ENOMEM);
	}

	mutex_lock(&lt_trackers_lock);
	if (lt_find_locked(t->name)) {
		mutex_unlock(&lt_trackers_lock);
		lt_tracker_release(t);
		return ERR_PTR(-EEXIST);
	}
	/* From here on the kobject owns t: errors free it through kobject_put(). */
	ret = lt_sysfs_tracker_add(t);
	if (ret) {
		mutex_unlock(&lt_trackers_lock);
		return ERR_PTR(ret);
	}
	list_add_tail(&t->list, &lt_trackers);
	mutex_unlock(&lt_trackers_lock);
	return t;
}
EXPORT_SYMBOL_GPL(latency_tracker_create);

/* The kobject release (or a failed create): frees everything but the table. */
void lt_tracker_release(struct latency_tracker *t)
{
	lt_stats_free(t->stats);
	lt_hist_free(&t->hist);
	kfree(t->scan_rec);
	kfree(t->scan_priv);
	kfree(t);
	lt_live_put();
}

void latency_tracker_destroy(struct latency_tracker *t)
{
	if (!t)
		return;
	mutex_lock(&lt_trackers_lock);
	list_del_init(&t->list);
	mutex_unlock(&lt_trackers_lock);
	/* Waits for sysfs writers, so nobody can enable it again behind our back. */
	lt_sysfs_tracker_del(t);
	latency_tracker_disable(t);
	kobject_put(&t->kobj);
}
EXPORT_SYMBOL_GPL(latency_tracker_destroy);

int lt_trackers_check_empty(void)
{
	int ret;

	mutex_lock(&lt_trackers_lock);
	ret = list_empty(&lt_trackers) ? 0 : -EBUSY;
	mutex_unlock(&lt_trackers_lock);
	return ret;
}

/*
 * -E2BIG when a table of n keys in stack mode m would take more than lt_table_bytes_max()
 * (htable.c): the sysfs writer gets the errno, the kernel log says why and by how much.
 */
static int lt_table_size_check(struct latency_tracker *t, u32 n,
			       enum latency_tracker_stack_mode m)
{
	u64 bytes = lt_table_bytes(n, t->key_size, t->priv_size, m);
	u64 max = lt_table_bytes_max();

	if (bytes <= max)
		return 0;
	pr_warn_ratelimited("latency_tracker: %s: max_keys %u with stack %s needs %llu bytes of key table, more than 1/%u of RAM (%llu bytes)\n",
			    t->name, n, lt_stack_names[m], bytes, LT_TABLE_RAM_SHARE, max);
	return -E2BIG;
}

int latency_tracker_enable(struct latency_tracker *t)
{
	struct lt_table *tbl;
	int ret = 0;

	mutex_lock(&t->lock);
	if (t->enabled)
		goto out;
	ret = lt_table_size_check(t, t->max_keys, t->stack_mode);
	if (ret)
		goto out;
	tbl = lt_table_alloc(t->max_keys, t->key_size, t->priv_size, t->stack_mode);
	if (!tbl) {
		ret = -ENOMEM;
		goto out;
	}
	WRITE_ONCE(t->oldest_ns, U64_MAX);
	WRITE_ONCE(t->ins_min, U64_MAX);
	rcu_assign_pointer(t->table, tbl);
	/* The table exists before the tracker's probes can call the hot path. */
	if (t->activate) {
		ret = t->activate(t);
		if (ret) {
			RCU_INIT_POINTER(t->table, NULL);
			synchronize_rcu();
			lt_table_free(tbl);
			goto out;
		}
	}
	WRITE_ONCE(t->enabled, true);
	lt_scan_kick(t);
out:
	mutex_unlock(&t->lock);
	return ret;
}
EXPORT_SYMBOL_GPL(latency_tracker_enable);

void latency_tracker_disable(struct latency_tracker *t)
{
	struct lt_table *tbl;
	u64 pending, free;

	mutex_lock(&t->lock);
	if (!t->enabled)
		goto out;
	/* Probes first (they wait for their callers), in the reverse order of enable. */
	if (t->deactivate)
		t->deactivate(t);
	tbl = rcu_dereference_protected(t->table, lockdep_is_held(&t->lock));
	RCU_INIT_POINTER(t->table, NULL);
	WRITE_ONCE(t->enabled, false);
	/* The scanner uses tbl without RCU: it must be gone before the table is. */
	lt_scan_stop(t);
	/* Every hot-path caller runs inside an RCU read-side section. */
	synchronize_rcu();
	lt_table_count(tbl, &pending, &free);
	lt_count_add(t->stats, LT_DISCARDED, pending);
	lt_table_free(tbl);
out:
	mutex_unlock(&t->lock);
}
EXPORT_SYMBOL_GPL(latency_tracker_disable);

int latency_tracker_set_threshold(struct latency_tracker *t, u64 ns)
{
	if (!lt_range_ok(&lt_range_threshold, ns))
		return -EINVAL;
	WRITE_ONCE(t->threshold_ns, ns);
	return 0;
}
EXPORT_SYMBOL_GPL(latency_tracker_set_threshold);

int latency_tracker_set_timeout(struct latency_tracker *t, u64 ns)
{
	int ret = 0;

	if (!lt_range_ok(&lt_range_timeout, ns))
		return -EINVAL;
	mutex_lock(&t->lock);
	if (ns && t->stale_ns && ns >= t->stale_ns) {
		ret = -EINVAL;
	} else {
		WRITE_ONCE(t->timeout_ns, ns);
		lt_scan_kick(t);
	}
	mutex_unlock(&t->lock);
	return ret;
}
EXPORT_SYMBOL_GPL(latency_tracker_set_timeout);

int lt_tracker_set_stale(struct latency_tracker *t, u64 ns)
{
	int ret = 0;

	if (!lt_range_ok(&lt_range_stale, ns))
		return -EINVAL;
	mutex_lock(&t->lock);
	if (ns && t->timeout_ns && ns <= t->timeout_ns) {
		ret = -EINVAL;
	} else {
		WRITE_ONCE(t->stale_ns, ns);
		lt_scan_kick(t);
	}
	mutex_unlock(&t->lock);
	return ret;
}

int lt_tracker_set_max_keys(struct latency_tracker *t, u32 n)
{
	int ret = 0;

	if (!lt_range_ok(&lt_range_max_keys, n))
		return -EINVAL;
	mutex_lock(&t->lock);
	if (t->enabled)
		ret = -EBUSY;
	else
		ret = lt_table_size_check(t, n, t->stack_mode);
	if (!ret)
		t->max_keys = n;
	mutex_unlock(&t->lock);
	return ret;
}

int lt_tracker_set_stack_mode(struct latency_tracker *t, enum latency_tracker_stack_mode m)
{
	int ret = 0;

	if (m > LATENCY_TRACKER_STACK_IN)
		return -EINVAL;
	mutex_lock(&t->lock);
	if (t->enabled)
		ret = -EBUSY;
	else
		ret = lt_table_size_check(t, t->max_keys, m);
	if (!ret)
		t->stack_mode = m;
	mutex_unlock(&t->lock);
	return ret;
}

int latency_tracker_count_keys(struct latency_tracker *t, u64 *pending, u64 *free)
{
	struct lt_table *tbl;
	int ret = 0;

	mutex_lock(&t->lock);
	tbl = rcu_dereference_protected(t->table, lockdep_is_held(&t->lock));
	if (tbl)
		lt_table_count(tbl, pending, free);
	else
		ret = -ENODEV;
	mutex_unlock(&t->lock);
	return ret;
}
EXPORT_SYMBOL_GPL(latency_tracker_count_keys);

/* Counts the bad key itself: a caller cannot tell a table problem from its own bug. */
static int lt_key_check(struct latency_tracker *t, size_t len)
{
	if (likely(len && len <= t->key_size))
		return 0;
	lt_count(t->stats, LT_KEY_INVALID);
	return len ? -E2BIG : -EINVAL;
}

/*
 * The table, read inside the RCU read-side section that disable waits for before freeing
 * it. On success the section stays open for the caller (lt_hot_end() or rcu_read_unlock()
 * closes it); on failure it is closed.
 */
static __always_inline int lt_table_get(struct latency_tracker *t, size_t key_len,
					struct lt_table **tbl)
{
	int ret;

	ret = lt_key_check(t, key_len);
	if (ret)
		return ret;
	rcu_read_lock();
	*tbl = rcu_dereference(t->table);
	if (likely(*tbl))
		return 0;
	rcu_read_unlock();
	return -ENODEV;
}

/*
 * Inside lt_table_get()'s section, before a raw spinlock of the table: interrupts off and
 * the recursion guard, as lt_enter() requires. On failure the section is closed too, and
 * counted in @busy: LT_BUSY for an event lost, LT_BUSY_AUX for an update.
 */
static __always_inline int lt_hot_lock(struct latency_tracker *t, unsigned long *flags,
				       enum lt_counter busy)
{
	local_irq_save(*flags);
	if (likely(lt_enter()))
		return 0;
	local_irq_restore(*flags);
	rcu_read_unlock();
	lt_count(t->stats, busy);
	return -EBUSY;
}

/*
 * The way in for the paths that take the table's raw spinlocks (event_in, update):
 * lt_table_get() then lt_hot_lock(). On success all three are held until lt_hot_end(); on
 * failure none is. Always inlined, so the paths cost what they did when each spelt it out.
 */
static __always_inline int lt_hot_begin(struct latency_tracker *t, size_t key_len,
					struct lt_table **tbl, unsigned long *flags,
					enum lt_counter busy)
{
	int ret;

	ret = lt_table_get(t, key_len, tbl);
	if (ret)
		return ret;
	return lt_hot_lock(t, flags, busy);
}

static __always_inline void lt_hot_end(unsigned long flags)
{
	lt_exit();
	local_irq_restore(flags);
	rcu_read_unlock();
}

/*
 * A memcpy() of a length known only at run time is a string instruction, whose start-up
 * costs more than the copy of a short key (and, under qemu's TCG, one step per byte): the
 * usual key sizes, a thread id or a pointer, are one move.
 */
static __always_inline void lt_key_copy(void *dst, const void *key, u32 len)
{
	if (len == sizeof(u32))
		memcpy(dst, key, sizeof(u32));
	else if (len == sizeof(u64))
		memcpy(dst, key, sizeof(u64));
	else
		memcpy(dst, key, len);
}

/* AT_IN: from event_in, where the pair begins: only there is a STACK_IN stack its start's. */
static void lt_entry_fill(struct latency_tracker *t, struct lt_table *tbl, struct lt_entry *e,
			  u32 hash, const void *key, u32 len, const struct latency_tracker_in *in,
			  bool at_in)
{
	struct task_struct *task = in && in->task ? in->task : current;

	e->hash = hash;
	e->key_len = len;
	lt_key_copy(lt_entry_key(e), key, len);
	e->timed_out = 0;
	e->start_ns = in && in->ts ? in->ts : lt_clock_ns();
	e->pid = task->tgid;
	e->tid = task->pid;
	e->start_cpu = smp_processor_id();
	/* As the sched tracepoints do: a racing rename may tear it, never overrun it. */
	memcpy(e->comm, task->comm, sizeof(e->comm));
	e->comm[sizeof(e->comm) - 1] = '\0';
	if (in)
		memcpy(e->data, in->data, sizeof(e->data));
	else
		memset(e->data, 0, sizeof(e->data));
	if (t->priv_size) {
		if (in && in->priv)
			memcpy(lt_entry_priv(tbl, e), in->priv, t->priv_size);
		else
			memset(lt_entry_priv(tbl, e), 0, t->priv_zero);
	}
	e->nr_stack = 0;
	if (at_in && tbl->stack_mode == LATENCY_TRACKER_STACK_IN)
		e->nr_stack = stack_trace_save(lt_entry_stack(tbl, e),
					       LATENCY_TRACKER_STACK_DEPTH, 2);
}

/*
 * event_in without a free entry. A pending key begun again is still a duplicate: replace
 * restarts it in place (its start, task and data are the new event_in's, inside its
 * seqcount write section, as lock-free lookups expect), reject refuses it as pending.
 * Only a new key (or any key, nest) finds the table full. Same context as event_in.
 */
static int lt_event_in_full(struct latency_tracker *t, struct lt_table *tbl, const void *key,
			    u32 len, const struct latency_tracker_in *in)
{
	struct lt_entry *old = NULL;
	struct lt_bucket *b;
	u64 start = 0;
	u32 hash;

	if (t->dup_policy != LATENCY_TRACKER_DUP_NEST) {
		hash = lt_hash(tbl, key, len);
		b = lt_bucket_of(tbl, hash);
		raw_spin_lock(&b->lock);
		old = lt_bucket_find(tbl, b, hash, key, len);
		if (old && t->dup_policy == LATENCY_TRACKER_DUP_REPLACE) {
			raw_write_seqcount_begin(&old->seq);
			lt_entry_fill(t, tbl, old, hash, key, len, in, true);
			raw_write_seqcount_end(&old->seq);
			start = old->start_ns;
		}
		raw_spin_unlock(&b->lock);
	}
	if (!old) {
		lt_count(t->stats, LT_TABLE_FULL);
		return -ENOSPC;
	}
	lt_count(t->stats, LT_DUPLICATES);
	if (t->dup_policy == LATENCY_TRACKER_DUP_REJECT)
		return -EEXIST;
	/* An in->ts older than the start it replaces lowers the bounds, as a link would. */
	lt_oldest_lower(&t->ins_min, start);
	lt_oldest_lower(&t->oldest_ns, start);
	lt_count(t->stats, LT_EVENTS_IN);
	return 0;
}

int latency_tracker_event_in(struct latency_tracker *t, const void *key, size_t key_len,
			     const struct latency_tracker_in *in)
{
	struct lt_entry *e, *old = NULL;
	struct lt_table *tbl;
	struct lt_bucket *b;
	unsigned long flags;
	int ret;
	u32 hash;

	ret = lt_hot_begin(t, key_len, &tbl, &flags, LT_BUSY);
	if (ret)
		return ret;
	e = lt_free_pop(tbl);
	if (unlikely(!e)) {
		ret = lt_event_in_full(t, tbl, key, key_len, in);
		goto out;
	}

	hash = lt_hash(tbl, key, key_len);
	raw_write_seqcount_begin(&e->seq);
	WRITE_ONCE(e->state, LT_ENTRY_PRIVATE);
	lt_entry_fill(t, tbl, e, hash, key, key_len, in, true);

	b = lt_bucket_of(tbl, hash);
	raw_spin_lock(&b->lock);
	if (t->dup_policy != LATENCY_TRACKER_DUP_NEST)
		old = lt_bucket_find(tbl, b, hash, key, key_len);
	if (old && t->dup_policy == LATENCY_TRACKER_DUP_REJECT) {
		raw_spin_unlock(&b->lock);
		raw_write_seqcount_end(&e->seq);
		lt_free_push(tbl, e);
		ret = -EEXIST;
	} else {
		/* Link the new one first: a concurrent lookup always sees one of them. */
		lt_bucket_link(b, e);
		raw_write_seqcount_end(&e->seq);
		if (old)
			lt_entry_unlink(old);
		raw_spin_unlock(&b->lock);
		if (old)
			lt_free_push(tbl, old);
		/* After the link: a scanner pass that missed it reset ins_min before. */
		lt_oldest_lower(&t->ins_min, e->start_ns);
		lt_oldest_lower(&t->oldest_ns, e->start_ns);
	}
	if (old)
		lt_count(t->stats, LT_DUPLICATES);
	if (!ret)
		lt_count(t->stats, LT_EVENTS_IN);
out:
	lt_hot_end(flags);
	return ret;
}
EXPORT_SYMBOL_GPL(latency_tracker_event_in);

/*
 * The end of a threshold alert's record. Always inlined into the noinline function that
 * raises the alert, called by the API function: the stack skips those two frames.
 */
static __always_inline void lt_record_end(struct latency_tracker_record *rec, u32 cpu,
					  u64 now, u64 delay,
					  const struct latency_tracker_out *out, bool stack)
{
	int i;

	rec->reason = LATENCY_TRACKER_REASON_THRESHOLD;
	rec->end_cpu = cpu;
	rec->end_ns = now;
	rec->delay_ns = delay;
	if (out) {
		for (i = 0; i < LATENCY_TRACKER_DATA_WORDS; i++) {
			if (out->data_mask & (1U << i))
				rec->data[i] = out->data[i];
		}
	}
	if (stack) {
		rec->nr_stack = stack_trace_save((unsigned long *)rec->stack,
						 LATENCY_TRACKER_STACK_DEPTH, 2);
		rec->flags |= LATENCY_TRACKER_REC_F_STACK_ALERT;
	}
}

/*
 * Raises the alert of a closed entry: builds the record on this (rare) path's stack,
 * emits it with interrupts on and without the guard, so the callback may use the API,
 * then frees the entry. The entry is private to us and the table cannot go away: we are
 * still inside the caller's RCU read-side section. STACK: the record carries the stack
 * of the context raising the alert (flag STACK_ALERT).
 */
static noinline void lt_alert_out(struct latency_tracker *t, struct lt_table *tbl,
				  struct lt_entry *e, u64 now, u64 delay,
				  const struct latency_tracker_out *out, bool stack,
				  unsigned long flags)
{
	struct latency_tracker_record rec;

	lt_record_from_entry(t, tbl, e, &rec);
	lt_record_end(&rec, smp_processor_id(), now, delay, out, stack);
	lt_exit();
	local_irq_restore(flags);

	lt_alert_emit(t, &rec, t->priv_size ? lt_entry_priv(tbl, e) : NULL);

	local_irq_save(flags);
	/* Cannot fail: our first lt_enter() succeeded, so no context below us holds it. */
	if (!WARN_ON_ONCE(!lt_enter())) {
		lt_free_push(tbl, e);
		lt_exit();
	}
	local_irq_restore(flags);
}

int latency_tracker_event_out(struct latency_tracker *t, const void *key, size_t key_len,
			      const struct latency_tracker_out *out)
{
	struct lt_table *tbl;
	struct lt_bucket *b;
	struct lt_entry *e;
	unsigned long flags;
	u64 now, delay;
	int ret;
	u32 hash;

	ret = lt_table_get(t, key_len, &tbl);
	if (ret)
		return ret;
	hash = lt_hash(tbl, key, key_len);
	b = lt_bucket_of(tbl, hash);
	/*
	 * Most unmatched ends (a switch-in after a preemption, a call that never began) find
	 * an empty bucket: for them no masked interrupts, no lock and no clock read. The
	 * event_in of this key happened before us (a wakeup before the switch-in, an entry
	 * before the exit): its link is visible.
	 */
	if (hlist_nulls_empty(&b->head)) {
		rcu_read_unlock();
		lt_count(t->stats, LT_UNMATCHED);
		return -ENOENT;
	}
	now = out && out->ts ? out->ts : lt_clock_ns();
	ret = lt_hot_lock(t, &flags, LT_BUSY);
	if (ret)
		return ret;
	raw_spin_lock(&b->lock);
	e = lt_bucket_find(tbl, b, hash, key, key_len);
	if (unlikely(!e)) {
		raw_spin_unlock(&b->lock);
		lt_count(t->stats, LT_UNMATCHED);
		ret = -ENOENT;
		goto out;
	}
	lt_entry_unlink(e);
	raw_spin_unlock(&b->lock);

	delay = now > e->start_ns ? now - e->start_ns : 0;
	lt_count(t->stats, LT_EVENTS_OUT);
	lt_hist_keyed(&t->hist, key, key_len, e->data, lt_stats_delay(t->stats, delay));
	if (delay >= READ_ONCE(t->threshold_ns)) {
		/* Releases the guard and restores interrupts itself. */
		lt_alert_out(t, tbl, e, now, delay, out,
			     tbl->stack_mode == LATENCY_TRACKER_STACK_ALERT, flags);
		rcu_read_unlock();
		return 1;
	}
	lt_free_push(tbl, e);
out:
	lt_hot_end(flags);
	return ret;
}
EXPORT_SYMBOL_GPL(latency_tracker_event_out);

/*
 * The alert of a pair, built on this (rare) path's stack from the pair itself: it takes
 * no entry of the table, which the tracker's other keys may have filled (every other
 * thread blocked in a call while this one's call was slow on its CPU). No lock is taken,
 * so no guard: the callback is called as from lt_alert_out(). The CPU is the pair's: its
 * tracker kept it in a per-CPU slot and calls us there. The pair had no event_in where a
 * STACK_IN stack could have been saved: it gets the alerting context's, so labelled.
 */
static noinline void lt_alert_pair(struct latency_tracker *t, struct lt_table *tbl,
				   const struct latency_tracker_in *in, u64 now, u64 delay,
				   const struct latency_tracker_out *out)
{
	u64 priv[LATENCY_TRACKER_PRIV_MAX / sizeof(u64)];
	struct latency_tracker_record rec;
	u32 cpu = raw_smp_processor_id();

	lt_record_from_pair(t, in, &rec);
	rec.start_cpu = cpu;
	lt_record_end(&rec, cpu, now, delay, out,
		      tbl->stack_mode != LATENCY_TRACKER_STACK_NONE);
	/* Whole, unlike an entry's priv_zero: the callback never sees stale stack bytes. */
	if (t->priv_size) {
		if (in->priv)
			memcpy(priv, in->priv, t->priv_size);
		else
			memset(priv, 0, t->priv_size);
	}
	lt_alert_emit(t, &rec, t->priv_size ? priv : NULL);
}

int latency_tracker_event_pair(struct latency_tracker *t, const void *key, size_t key_len,
			       const struct latency_tracker_in *in,
			       const struct latency_tracker_out *out)
{
	struct lt_table *tbl;
	u64 now, delay;
	int ret;

	ret = lt_key_check(t, key_len);
	if (ret)
		return ret;
	now = out && out->ts ? out->ts : lt_clock_ns();
	delay = now > in->ts ? now - in->ts : 0;
	/*
	 * Below the threshold (almost every pair) no lock, no table and no masked interrupts:
	 * the counters and statistics are this_cpu operations, safe against an interrupt
	 * that updates them too. The rest is for the alert.
	 */
	lt_count(t->stats, LT_EVENTS_IN);
	lt_count(t->stats, LT_EVENTS_OUT);
	lt_hist_keyed(&t->hist, key, key_len, in->data, lt_stats_delay(t->stats, delay));
	if (likely(delay < READ_ONCE(t->threshold_ns)))
		return 0;
	/* A disabled tracker raises nothing; its table is only read for the stack mode. */
	rcu_read_lock();
	tbl = rcu_dereference(t->table);
	if (unlikely(!tbl)) {
		rcu_read_unlock();
		return -ENODEV;
	}
	lt_alert_pair(t, tbl, in, now, delay, out);
	rcu_read_unlock();
	return 1;
}
EXPORT_SYMBOL_GPL(latency_tracker_event_pair);

int latency_tracker_lookup(struct latency_tracker *t, const void *key, size_t key_len,
			   struct latency_tracker_key_info *info)
{
	struct lt_table *tbl;
	int ret, tries;
	u32 hash;

	ret = lt_key_check(t, key_len);
	if (ret)
		return ret;

	rcu_read_lock();
	tbl = rcu_dereference(t->table);
	if (unlikely(!tbl)) {
		ret = -ENODEV;
		goto out;
	}
	hash = lt_hash(tbl, key, key_len);
	for (tries = 0; tries < LT_LOOKUP_TRIES; tries++) {
		ret = lt_table_lookup(tbl, hash, key, key_len, info);
		if (ret != -EAGAIN)
			break;
		cpu_relax();
	}
	if (ret == -EAGAIN) {
		lt_count(t->stats, LT_BUSY_AUX);
		ret = -EBUSY;
	}
out:
	rcu_read_unlock();
	return ret;
}
EXPORT_SYMBOL_GPL(latency_tracker_lookup);

int latency_tracker_update(struct latency_tracker *t, const void *key, size_t key_len,
			   void (*fn)(u64 *data, void *priv, void *arg), void *arg)
{
	struct lt_table *tbl;
	struct lt_bucket *b;
	struct lt_entry *e;
	unsigned long flags;
	int ret;
	u32 hash;

	ret = lt_hot_begin(t, key_len, &tbl, &flags, LT_BUSY_AUX);
	if (ret)
		return ret;
	hash = lt_hash(tbl, key, key_len);
	b = lt_bucket_of(tbl, hash);
	raw_spin_lock(&b->lock);
	e = lt_bucket_find(tbl, b, hash, key, key_len);
	if (e) {
		raw_write_seqcount_begin(&e->seq);
		fn(e->data, t->priv_size ? lt_entry_priv(tbl, e) : NULL, arg);
		raw_write_seqcount_end(&e->seq);
	}
	raw_spin_unlock(&b->lock);
	ret = e ? 0 : -ENOENT;
	lt_hot_end(flags);
	return ret;
}
EXPORT_SYMBOL_GPL(latency_tracker_update);
