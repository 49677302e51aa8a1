// SPDX-License-Identifier: GPL-2.0-only
/*
 * latency_tracker: the histograms of the hist/ files (ABI 1.4).
 *
 * The total (delay_ns) and the "cpu" dimension are the per-CPU log2 buckets that stats.c
 * counts for every pair anyway. A reset records where they stand (struct lt_hist_base)
 * instead of zeroing them: stats/delay_hist_ns keeps counting from the start, and the hot
 * path pays nothing for them.
 *
 * "disk" and "syscall" are keyed: up to LATENCY_TRACKER_HIST_KEYS keys, each with its
 * per-CPU buckets, plus "other". A key's slot is claimed once, with cmpxchg(); the pairs
 * after that find it with plain loads: no lock on the hot path. Slots are never freed
 * while the set lives, so two CPUs claiming one key meet at the same slot. The set is
 * allocated when per is set to its dimension and freed (after an RCU grace period) when
 * per changes. Its reset is a base too, a sum over CPUs this time: a zeroing from another
 * CPU could race with an increment and bring a whole count back.
 *
 * Readers and writers of the files are serialised by the lock; hot-path increments run
 * meanwhile, so a reading may include a few pairs that completed while it was taken.
 */
#include <linux/types.h>
#include <linux/build_bug.h>
#include <linux/hash.h>
#include <linux/kdev_t.h>
#include <linux/mm.h>
#include <linux/percpu.h>
#include <linux/preempt.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/timekeeping.h>

#include "internal.h"

/* Longest line of by_key: "4095:1048575 9223372036854775808 <u64>\n", header included. */
#define LT_HIST_LINE_MAX 64

const char *const lt_hist_per_names[LT_HIST_PER_NR] = {
	[LT_HIST_PER_NONE] = "none",
	[LT_HIST_PER_CPU] = "cpu",
	[LT_HIST_PER_DISK] = "disk",
	[LT_HIST_PER_SYSCALL] = "syscall",
};

static void lt_hist_keyed_free(struct lt_hist_keyed *k)
{
	if (!k)
		return;
	free_percpu(k->rows);
	kvfree(k);
}

/* Every row up front: the hot path never allocates. */
static struct lt_hist_keyed *lt_hist_keyed_alloc(void)
{
	struct lt_hist_keyed *k = kvzalloc(sizeof(*k), GFP_KERNEL);

	if (!k)
		return NULL;
	k->rows = alloc_percpu(struct lt_hist_rows);
	if (!k->rows) {
		kvfree(k);
		return NULL;
	}
	return k;
}

int lt_hist_init(struct lt_hist *h, const struct latency_tracker_params *p)
{
	mutex_init(&h->lock);
	h->dim = p->hist_dim;
	h->key_of = p->hist_key;
	h->key_word = p->hist_key_word;
	h->per = LT_HIST_PER_NONE;
	h->since_ns = ktime_get_ns();
	h->keyed_since_ns = h->since_ns;
	h->base = alloc_percpu(struct lt_hist_base);
	return h->base ? 0 : -ENOMEM;
}

/* At the tracker's release: no hot path runs any more. */
void lt_hist_free(struct lt_hist *h)
{
	lt_hist_keyed_free(rcu_dereference_protected(h->keyed, true));
	free_percpu(h->base);
	kvfree(h->text);
}

/*
 * Open addressing: a large key's probe (a disk's) starts where the key hashes, so that a
 * pair finds its slot in a step or two rather than after every key claimed before it (a
 * scan of up to 64 on every system call cost a fifth of the syscalls tracker's own
 * overhead). A slot, once claimed, never changes: the probe sequence of a key never skips
 * its slot, and two CPUs claiming one key meet there.
 */
static_assert((LATENCY_TRACKER_HIST_KEYS & (LATENCY_TRACKER_HIST_KEYS - 1)) == 0,
	      "the probe wraps with a mask");
static_assert(sizeof(struct lt_hist_rows) <= PCPU_MIN_UNIT_SIZE,
	      "the rows are one per-CPU allocation");

static unsigned int lt_hist_probe(struct lt_hist_keyed *k, u32 key)
{
	u64 want = (u64)key + 1, seen;
	unsigned int i, n, start = hash_32(key, ilog2(LATENCY_TRACKER_HIST_KEYS));

	/*
	 * A small key is probed once (direct[] remembers its slot), so it can take the
	 * first free slot: the system calls a workload repeats get neighbouring rows.
	 */
	if (key < LT_HIST_DIRECT)
		start = 0;

	for (n = 0; n < LATENCY_TRACKER_HIST_KEYS; n++) {
		i = (start + n) & (LATENCY_TRACKER_HIST_KEYS - 1);
		seen = READ_ONCE(k->slot_key[i]);
		if (!seen)
			seen = cmpxchg(&k->slot_key[i], 0, want) ?: want;
		if (seen == want)
			return i;
	}
	return LT_HIST_OTHER;
}

/*
 * The slot of a key not in direct[] yet (lt_hist_keyed()). A small key's slot, once
 * probed, is remembered there: a key's slot never changes, and neither does "other" (it
 * means every slot was claimed by another key), so racing writers store the same byte.
 */
unsigned int lt_hist_slot(struct lt_hist_keyed *k, u32 key)
{
	unsigned int s = lt_hist_probe(k, key);

	if (key < LT_HIST_DIRECT)
		WRITE_ONCE(k->direct[key], s + 1);
	return s;
}

static u64 lt_hist_since(u64 now, u64 then)
{
	return now > then ? now - then : 0;
}

static u64 lt_hist_row_sum(struct lt_hist_keyed *k, unsigned int s, unsigned int b)
{
	u64 v = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		v += READ_ONCE(per_cpu_ptr(k->rows, cpu)->b[s][b]);
	return v;
}

/* Under h->lock. */
static void lt_hist_keyed_rebase(struct lt_hist_keyed *k)
{
	unsigned int s, b;

	for (s = 0; s < LT_HIST_SLOTS; s++)
		for (b = 0; b < LT_HIST_KEYED_BUCKETS; b++)
			k->base[s][b] = lt_hist_row_sum(k, s, b);
}

/* Under h->lock: the cpu base (by_key) and, for a reset, the total's (delay_ns). */
static void lt_hist_rebase(struct latency_tracker *t, bool total)
{
	struct lt_hist_base *base;
	const struct lt_stats *st;
	unsigned int b;
	int cpu;

	for_each_possible_cpu(cpu) {
		st = per_cpu_ptr(t->stats, cpu);
		base = per_cpu_ptr(t->hist.base, cpu);
		for (b = 0; b < LT_HIST_BUCKETS; b++) {
			u64 v = READ_ONCE(st->hist[b]);

			base->cpu[b] = v;
			if (total)
				base->total[b] = v;
		}
	}
}

int lt_hist_set_per(struct latency_tracker *t, enum lt_hist_per per)
{
	struct lt_hist *h = &t->hist;
	struct lt_hist_keyed *k = NULL, *old;

	if (per >= LT_HIST_PER_NR)
		return -EINVAL;
	if ((per == LT_HIST_PER_DISK && h->dim != LATENCY_TRACKER_HIST_DISK) ||
	    (per == LT_HIST_PER_SYSCALL && h->dim != LATENCY_TRACKER_HIST_SYSCALL))
		return -EOPNOTSUPP;
	if (per == LT_HIST_PER_DISK || per == LT_HIST_PER_SYSCALL) {
		k = lt_hist_keyed_alloc();
		if (!k)
			return -ENOMEM;
	}
	mutex_lock(&h->lock);
	if (per == h->per) {
		mutex_unlock(&h->lock);
		lt_hist_keyed_free(k);
		return 0;
	}
	old = rcu_dereference_protected(h->keyed, lockdep_is_held(&h->lock));
	rcu_assign_pointer(h->keyed, k);
	if (per == LT_HIST_PER_CPU)
		lt_hist_rebase(t, false);
	WRITE_ONCE(h->per, per);
	h->keyed_since_ns = ktime_get_ns();
	mutex_unlock(&h->lock);
	if (old) {
		/* event_out and event_pair may still count in it. */
		synchronize_rcu();
		lt_hist_keyed_free(old);
	}
	return 0;
}

void lt_hist_reset(struct latency_tracker *t)
{
	struct lt_hist *h = &t->hist;
	struct lt_hist_keyed *k;

	mutex_lock(&h->lock);
	lt_hist_rebase(t, true);
	k = rcu_dereference_protected(h->keyed, lockdep_is_held(&h->lock));
	if (k)
		lt_hist_keyed_rebase(k);
	h->since_ns = ktime_get_ns();
	h->keyed_since_ns = h->since_ns;
	mutex_unlock(&h->lock);
}

/* hist/delay_ns: at most LT_HIST_BUCKETS + 1 short lines, within a page. */
int lt_hist_delay_show(struct latency_tracker *t, char *buf)
{
	struct lt_hist *h = &t->hist;
	u64 sum[LT_HIST_BUCKETS] = { };
	unsigned int b;
	int cpu, len;

	mutex_lock(&h->lock);
	for_each_possible_cpu(cpu) {
		const struct lt_stats *st = per_cpu_ptr(t->stats, cpu);
		const struct lt_hist_base *base = per_cpu_ptr(h->base, cpu);

		for (b = 0; b < LT_HIST_BUCKETS; b++)
			sum[b] += lt_hist_since(READ_ONCE(st->hist[b]), base->total[b]);
	}
	len = sysfs_emit(buf, "since_ns %llu now_ns %llu\n", h->since_ns, ktime_get_ns());
	mutex_unlock(&h->lock);
	for (b = 0; b < LT_HIST_BUCKETS; b++) {
		if (sum[b])
			len += sysfs_emit_at(buf, len, "%llu %llu\n", b ? 1ULL << b : 0ULL,
					     sum[b]);
	}
	return len;
}

/* The text of by_key being rendered. */
struct lt_hist_out {
	char *buf;
	size_t len;
	size_t size;
};

static void lt_hist_line(struct lt_hist_out *o, const char *key, unsigned int b, u64 n)
{
	if (n)
		o->len += scnprintf(o->buf + o->len, o->size - o->len, "%s %llu %llu\n", key,
				    b ? 1ULL << b : 0ULL, n);
}

static void lt_hist_key_name(char *name, size_t size, enum lt_hist_per per, u64 slot_key)
{
	u32 key = slot_key - 1;

	if (per == LT_HIST_PER_DISK)
		snprintf(name, size, "%u:%u", MAJOR(key), MINOR(key));
	else
		snprintf(name, size, "%u", key);
}

/* One key's (slot S's) lines. */
static void lt_hist_render_slot(struct lt_hist_out *o, struct lt_hist_keyed *k, unsigned int s,
				const char *name)
{
	unsigned int b;

	for (b = 0; b < LT_HIST_KEYED_BUCKETS; b++)
		lt_hist_line(o, name, b, lt_hist_since(lt_hist_row_sum(k, s, b), k->base[s][b]));
}

/*
 * The keys in increasing order, "other" last: the slots are in hash order (lt_hist_slot),
 * which says nothing to a reader. A selection over at most 64 slots, at read time only.
 */
static void lt_hist_render_keyed(struct lt_hist_out *o, struct lt_hist *h,
				 struct lt_hist_keyed *k)
{
	char name[24];
	unsigned int s, next;
	u64 key, last = 0, least;

	for (;;) {
		next = LT_HIST_OTHER;
		least = U64_MAX;
		for (s = 0; s < LT_HIST_OTHER; s++) {
			key = READ_ONCE(k->slot_key[s]);
			if (key > last && key < least) {
				least = key;
				next = s;
			}
		}
		if (next == LT_HIST_OTHER)
			break;
		lt_hist_key_name(name, sizeof(name), h->per, least);
		lt_hist_render_slot(o, k, next, name);
		last = least;
	}
	lt_hist_render_slot(o, k, LT_HIST_OTHER, "other");
}

/* The first LATENCY_TRACKER_HIST_KEYS CPUs by number, the others as "other". */
static void lt_hist_render_cpu(struct lt_hist_out *o, struct latency_tracker *t)
{
	u64 other[LT_HIST_BUCKETS] = { };
	char name[24];
	unsigned int b;
	u64 n;
	int cpu;

	for_each_possible_cpu(cpu) {
		const struct lt_stats *st = per_cpu_ptr(t->stats, cpu);
		const struct lt_hist_base *base = per_cpu_ptr(t->hist.base, cpu);

		snprintf(name, sizeof(name), "%d", cpu);
		for (b = 0; b < LT_HIST_BUCKETS; b++) {
			n = lt_hist_since(READ_ONCE(st->hist[b]), base->cpu[b]);
			if (cpu < LATENCY_TRACKER_HIST_KEYS)
				lt_hist_line(o, name, b, n);
			else
				other[b] += n;
		}
	}
	for (b = 0; b < LT_HIST_BUCKETS; b++)
		lt_hist_line(o, "other", b, other[b]);
}

/* Under h->lock: replaces h->text with a fresh rendering of by_key. */
static int lt_hist_render(struct latency_tracker *t)
{
	struct lt_hist *h = &t->hist;
	struct lt_hist_keyed *k;
	struct lt_hist_out o;
	char *text;

	o.size = (2 + (size_t)LT_HIST_SLOTS * LT_HIST_BUCKETS) * LT_HIST_LINE_MAX;
	o.buf = kvmalloc(o.size, GFP_KERNEL);
	if (!o.buf)
		return -ENOMEM;
	o.len = scnprintf(o.buf, o.size, "since_ns %llu now_ns %llu\nper %s\n",
			  h->keyed_since_ns, ktime_get_ns(), lt_hist_per_names[h->per]);
	k = rcu_dereference_protected(h->keyed, lockdep_is_held(&h->lock));
	if (k)
		lt_hist_render_keyed(&o, h, k);
	else if (h->per == LT_HIST_PER_CPU)
		lt_hist_render_cpu(&o, t);
	/* Only what was written is kept, not the worst case. */
	text = kvmalloc(o.len, GFP_KERNEL);
	if (text)
		memcpy(text, o.buf, o.len);
	kvfree(o.buf);
	if (!text)
		return -ENOMEM;
	kvfree(h->text);
	h->text = text;
	h->text_len = o.len;
	return 0;
}

/*
 * hist/by_key may exceed a page, so it is read in pieces: a read from offset 0 renders
 * it, the reads that follow continue that text, so one reader sees one consistent
 * snapshot. (Two readers interleaving their reads may see each other's.)
 */
ssize_t lt_hist_by_key_read(struct latency_tracker *t, char *buf, loff_t off, size_t count)
{
	struct lt_hist *h = &t->hist;
	ssize_t ret = 0;

	mutex_lock(&h->lock);
	if (off == 0 || !h->text)
		ret = lt_hist_render(t);
	if (!ret && off < h->text_len) {
		ret = min_t(size_t, count, h->text_len - off);
		memcpy(buf, h->text + off, ret);
	}
	mutex_unlock(&h->lock);
	return ret;
}
