// SPDX-License-Identifier: GPL-2.0-only
/*
 * latency_tracker: the key table. All entries are allocated when a tracker is enabled;
 * the hot path only moves them between free lists and hash buckets.
 *
 * Hash table: a fixed array of hlist_nulls buckets, one raw spinlock per bucket for
 * writers, lock-free RCU readers, entries recycled without waiting for a grace period
 * (type-stable memory, as the kernel's TCP/UDP socket tables and preallocated BPF hash
 * maps do). The nulls marker at the end of each chain is the bucket index, so a reader
 * that followed an entry recycled into another chain notices and restarts; a per-entry
 * seqcount lets lookup copy an entry out and detect a concurrent change. The bucket
 * count is max_keys rounded up to a power of two (load factor <= 1, about one entry per
 * chain), fixed at enable, so no resize, no allocation and no rehash ever run on the hot
 * path (the arrays may be vmalloc'ed; x86-64 maps vmalloc space in every page table
 * since v5.8 "x86/mm: remove vmalloc faulting", so touching them never faults).
 * Rejected: rhashtable (allocates buckets and resizes from insert paths, uses
 * GFP_ATOMIC), a single table lock (serialises every CPU: the shared free list measured
 * below is one such lock on half of the path and already costs 15-20 % of throughput on
 * 2 CPUs), and the lock-free split-ordered list of the upstream latency_tracker (a port
 * of userspace-rcu's rculfhash: several cmpxchg per operation, deferred reclamation,
 * thousands of lines to maintain for a table whose size is fixed anyway).
 *
 * Free list: one LIFO per CPU, each behind its own raw spinlock (the shape of
 * kernel/bpf/percpu_freelist.c). event_in pops from the local CPU, event_out pushes to
 * the local CPU, so the common case touches only a CPU-local cache line; a CPU whose
 * list is empty steals one entry from the next non-empty CPU, so the table is full only
 * when every list is empty. A lock-free llist stack is not an option: llist_del_first()
 * is only safe with a single consumer (ABA), and event_in runs on every CPU at once.
 *
 * Measured with bench/kmod-bench.sh in the test VM (Debian 6.1, qemu TCG without KVM,
 * 2 vCPUs on a 2-core host; emulation inflates every figure several times -- the paper
 * measured an LTTng event at ~330 ns on hardware -- so compare them with each other, not
 * with hardware), best of 5 rounds of 40000 pairs, two runs:
 *                                        per-CPU lists      one shared list
 *   event_in + event_out, 1 CPU          1316-1338 ns       1400-1410 ns
 *   same, both CPUs at once, per pair    2735-3134 ns       3524-3579 ns
 *   pairs per ms, both CPUs              613-635            519-536
 *   lock-free lookup                     166 ns
 *   one LTTng kernel event (the alert tracepoint recorded by an LTTng session,
 *   same VM, same run)                   1947-2760 ns; 0.8 ns when not recorded
 * An event_in/event_out pair costs about 0.5-0.7 LTTng kernel events.
 */
#include <linux/cpumask.h>
#include <linux/jhash.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/random.h>
#include <linux/rculist.h>
#include <linux/rculist_nulls.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/vmalloc.h>

#include "internal.h"

/*
 * The bytes of one entry: the entry, its key, its private area and, in stack mode "in",
 * its stack. *priv_off and *stack_off (0: none) are where the last two start.
 */
static size_t lt_entry_layout(u32 key_size, u32 priv_size,
			      enum latency_tracker_stack_mode stack_mode, u32 *priv_off,
			      u32 *stack_off)
{
	size_t stride = sizeof(struct lt_entry) + ALIGN(key_size, 8);

	*priv_off = stride;
	stride += ALIGN(priv_size, 8);
	*stack_off = 0;
	if (stack_mode == LATENCY_TRACKER_STACK_IN) {
		*stack_off = stride;
		stride += LATENCY_TRACKER_STACK_DEPTH * sizeof(unsigned long);
	}
	return stride;
}

u64 lt_table_bytes(u32 nr_entries, u32 key_size, u32 priv_size,
		   enum latency_tracker_stack_mode stack_mode)
{
	u32 priv_off, stack_off;
	size_t stride = lt_entry_layout(key_size, priv_size, stack_mode, &priv_off, &stack_off);

	return (u64)nr_entries * stride +
	       (u64)roundup_pow_of_two(nr_entries) * sizeof(struct lt_bucket);
}

/*
 * A table is pinned for as long as its tracker is enabled, one per tracker: nine trackers
 * of 2^20 keys with stacks would hold gigabytes. A table above 1/LT_TABLE_RAM_SHARE of the
 * RAM is refused up front, and a smaller one that does not fit fails its allocation
 * (__GFP_RETRY_MAYFAIL) rather than invoking the OOM killer from a sysfs write.
 */
u64 lt_table_bytes_max(void)
{
	return ((u64)totalram_pages() << PAGE_SHIFT) / LT_TABLE_RAM_SHARE;
}

struct lt_table *lt_table_alloc(u32 nr_entries, u32 key_size, u32 priv_size,
				enum latency_tracker_stack_mode stack_mode)
{
	const gfp_t gfp = GFP_KERNEL | __GFP_RETRY_MAYFAIL | __GFP_NOWARN;
	struct lt_table *tbl;
	u32 nr_buckets, cpu, i, n, per_cpu, nr_cpus;

	tbl = kzalloc(sizeof(*tbl), GFP_KERNEL);
	if (!tbl)
		return NULL;
	lt_live_get();

	tbl->stride = lt_entry_layout(key_size, priv_size, stack_mode, &tbl->priv_off,
				      &tbl->stack_off);
	tbl->stack_mode = stack_mode;
	tbl->nr_entries = nr_entries;
	tbl->seed = get_random_u32();
	tbl->shared_free = READ_ONCE(lt_defaults.freelist_shared);

	nr_buckets = roundup_pow_of_two(nr_entries);
	tbl->bucket_mask = nr_buckets - 1;
	tbl->buckets = kvcalloc(nr_buckets, sizeof(*tbl->buckets), gfp);
	tbl->entries = kvcalloc(nr_entries, tbl->stride, gfp);
	tbl->free = alloc_percpu(struct lt_free_head);
	if (!tbl->buckets || !tbl->entries || !tbl->free) {
		lt_table_free(tbl);
		return NULL;
	}

	for (i = 0; i < nr_buckets; i++) {
		INIT_HLIST_NULLS_HEAD(&tbl->buckets[i].head, i);
		raw_spin_lock_init(&tbl->buckets[i].lock);
	}
	for_each_possible_cpu(cpu)
		raw_spin_lock_init(&per_cpu_ptr(tbl->free, cpu)->lock);

	/*
	 * Hand out contiguous ranges to the online CPUs (all to CPU 0's list when shared),
	 * so entries used by one CPU tend to share cache lines with each other only.
	 */
	nr_cpus = tbl->shared_free ? 1 : num_online_cpus();
	per_cpu = DIV_ROUND_UP(nr_entries, nr_cpus);
	i = 0;
	for_each_online_cpu(cpu) {
		struct lt_free_head *h = per_cpu_ptr(tbl->free, cpu);

		for (n = 0; n < per_cpu && i < nr_entries; n++, i++) {
			struct lt_entry *e = lt_entry_at(tbl, i);

			seqcount_init(&e->seq);
			e->state = LT_ENTRY_FREE;
			e->free_next = h->first;
			h->first = e;
			h->count++;
		}
		if (tbl->shared_free)
			break;
	}
	/* CPUs that went offline since num_online_cpus(): the rest goes to the last one. */
	if (i < nr_entries) {
		struct lt_free_head *h = per_cpu_ptr(tbl->free, raw_smp_processor_id());

		for (; i < nr_entries; i++) {
			struct lt_entry *e = lt_entry_at(tbl, i);

			seqcount_init(&e->seq);
			e->state = LT_ENTRY_FREE;
			e->free_next = h->first;
			h->first = e;
			h->count++;
		}
	}
	return tbl;
}

void lt_table_free(struct lt_table *tbl)
{
	if (!tbl)
		return;
	free_percpu(tbl->free);
	kvfree(tbl->entries);
	kvfree(tbl->buckets);
	kfree(tbl);
	lt_live_put();
}

u32 lt_hash(const struct lt_table *tbl, const void *key, u32 len)
{
	return jhash(key, len, tbl->seed);
}

static struct lt_free_head *lt_free_head(struct lt_table *tbl, int cpu)
{
	return per_cpu_ptr(tbl->free, tbl->shared_free ? 0 : cpu);
}

static struct lt_entry *lt_free_pop_head(struct lt_free_head *h)
{
	struct lt_entry *e;

	if (!READ_ONCE(h->first))
		return NULL;
	raw_spin_lock(&h->lock);
	e = h->first;
	if (e) {
		h->first = e->free_next;
		h->count--;
	}
	raw_spin_unlock(&h->lock);
	return e;
}

/* Interrupts off, inside lt_enter(). */
struct lt_entry *lt_free_pop(struct lt_table *tbl)
{
	int this = smp_processor_id(), cpu;
	struct lt_entry *e;

	e = lt_free_pop_head(lt_free_head(tbl, this));
	if (e || tbl->shared_free)
		return e;
	for_each_cpu_wrap(cpu, cpu_possible_mask, this) {
		if (cpu == this)
			continue;
		e = lt_free_pop_head(per_cpu_ptr(tbl->free, cpu));
		if (e)
			return e;
	}
	return NULL;
}

/* Interrupts off, inside lt_enter(). */
void lt_free_push(struct lt_table *tbl, struct lt_entry *e)
{
	struct lt_free_head *h = lt_free_head(tbl, smp_processor_id());

	WRITE_ONCE(e->state, LT_ENTRY_FREE);
	raw_spin_lock(&h->lock);
	e->free_next = h->first;
	h->first = e;
	h->count++;
	raw_spin_unlock(&h->lock);
}

static bool lt_entry_match(struct lt_entry *e, u32 hash, const void *key, u32 len)
{
	return e->hash == hash && e->key_len == len && !memcmp(lt_entry_key(e), key, len);
}

/* Bucket lock held: the most recently linked entry with this key, or NULL. */
struct lt_entry *lt_bucket_find(struct lt_table *tbl, struct lt_bucket *b, u32 hash,
				const void *key, u32 len)
{
	struct hlist_nulls_node *n;
	struct lt_entry *e;

	hlist_nulls_for_each_entry(e, n, &b->head, node) {
		if (lt_entry_match(e, hash, key, len))
			return e;
	}
	return NULL;
}

/* Bucket lock held, e->seq open for writing. */
void lt_bucket_link(struct lt_bucket *b, struct lt_entry *e)
{
	WRITE_ONCE(e->state, LT_ENTRY_LINKED);
	hlist_nulls_add_head_rcu(&e->node, &b->head);
}

/* Bucket lock held. The entry becomes private to the caller. */
void lt_entry_unlink(struct lt_entry *e)
{
	raw_write_seqcount_begin(&e->seq);
	hlist_nulls_del_rcu(&e->node);
	WRITE_ONCE(e->state, LT_ENTRY_PRIVATE);
	raw_write_seqcount_end(&e->seq);
}

static int lt_entry_copy(struct lt_entry *e, u32 hash, const void *key, u32 len,
			 struct latency_tracker_key_info *info)
{
	unsigned int s = raw_read_seqcount(&e->seq);
	bool match;

	if (s & 1)
		return -EAGAIN;
	match = READ_ONCE(e->state) == LT_ENTRY_LINKED && lt_entry_match(e, hash, key, len);
	if (match && info) {
		info->start_ns = e->start_ns;
		info->pid = e->pid;
		info->tid = e->tid;
		info->start_cpu = e->start_cpu;
		info->timed_out = e->timed_out;
		memcpy(info->data, e->data, sizeof(info->data));
	}
	if (read_seqcount_retry(&e->seq, s))
		return -EAGAIN;
	return match ? 0 : -ENOENT;
}

/*
 * Under rcu_read_lock(), no lock taken. 0: found and copied; -ENOENT; -EAGAIN: an entry
 * changed while we looked at it, or we were moved to another chain: try again.
 */
int lt_table_lookup(struct lt_table *tbl, u32 hash, const void *key, u32 len,
		    struct latency_tracker_key_info *info)
{
	struct lt_bucket *b = lt_bucket_of(tbl, hash);
	struct hlist_nulls_node *n;
	struct lt_entry *e;
	int ret;

	hlist_nulls_for_each_entry_rcu(e, n, &b->head, node) {
		ret = lt_entry_copy(e, hash, key, len, info);
		if (ret != -ENOENT)
			return ret;
	}
	if (get_nulls_value(n) != (hash & tbl->bucket_mask))
		return -EAGAIN;
	return -ENOENT;
}

/* Process context. Counts under each lock; exact when nothing is in flight. */
void lt_table_count(struct lt_table *tbl, u64 *pending, u64 *free)
{
	struct hlist_nulls_node *n;
	struct lt_entry *e;
	unsigned long flags;
	u64 p = 0, f = 0;
	u32 i;
	int cpu;

	for (i = 0; i <= tbl->bucket_mask; i++) {
		struct lt_bucket *b = &tbl->buckets[i];

		if (hlist_nulls_empty(&b->head))
			continue;
		local_irq_save(flags);
		if (lt_enter()) {
			raw_spin_lock(&b->lock);
			hlist_nulls_for_each_entry(e, n, &b->head, node)
				p++;
			raw_spin_unlock(&b->lock);
			lt_exit();
		}
		local_irq_restore(flags);
		if (!(i & 1023))
			cond_resched();
	}
	for_each_possible_cpu(cpu) {
		struct lt_free_head *h = per_cpu_ptr(tbl->free, cpu);

		local_irq_save(flags);
		if (lt_enter()) {
			raw_spin_lock(&h->lock);
			f += h->count;
			raw_spin_unlock(&h->lock);
			lt_exit();
		}
		local_irq_restore(flags);
	}
	*pending = p;
	*free = f;
}
