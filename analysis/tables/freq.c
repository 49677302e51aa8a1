/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Frequency distributions over the window, as lttng-analyses' --freq gives them: system
 * call latencies (all calls, then each call), block request latencies per disk and handler
 * durations per interrupt, each binned into RESOLUTION buckets of equal width between its
 * own minimum and maximum. Bounds are whole nanoseconds, so that a bucket's printed bounds
 * are exactly what it counts: bucket i holds [bound(i), bound(i + 1)), the last one its
 * upper bound too (the maximum). All values equal: one bucket, where lttng-analyses prints
 * nothing (a zero-width step), because the count is still worth seeing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "an.h"
#include "tables.h"
#include "tally.h"

uint64_t an_freq_bound(unsigned i, uint64_t min, uint64_t max, unsigned resolution)
{
	uint64_t range = max - min, q = range / resolution, rem = range % resolution;

	/* floor(range * i / resolution) without the product overflowing: rem * i < 10^6 */
	return min + q * i + rem * i / resolution;
}

unsigned an_freq_bucket(uint64_t v, uint64_t min, uint64_t max, unsigned resolution)
{
	unsigned lo = 0, hi = resolution - 1;

	if (v >= max)
		return resolution - 1;
	/* the last bucket whose lower bound is at most v */
	while (lo < hi) {
		unsigned mid = lo + (hi - lo + 1) / 2;

		if (an_freq_bound(mid, min, max, resolution) <= v)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

/* What one distribution bins: the values of one subject among the tally's. */
enum values_key {
	KEY_SYSCALL, /* struct top of a system call: its number (y) */
	KEY_DEV,     /* struct top of a block request: its device (x) */
	KEY_IRQ,     /* struct irq_run */
};
struct values {
	const struct an_vec *v;
	enum values_key by;
	bool all; /* every value, whatever its key */
	uint64_t key;
};

static bool value_at(const struct values *s, size_t i, uint64_t *dur)
{
	if (s->by == KEY_IRQ) {
		const struct irq_run *run = AN_AT(s->v, struct irq_run, i);

		*dur = run->dur;
		return s->all || run->key == s->key;
	} else {
		const struct top *tp = AN_AT(s->v, struct top, i);

		*dur = tp->dur;
		/* keyed as the tally keys them: the event's 32-bit field, unsigned */
		return s->all || (uint32_t)(s->by == KEY_DEV ? tp->x : tp->y) == s->key;
	}
}

static const char *keep(struct an_vec *names, char *s)
{
	char **slot = s ? an_vec_push(names) : NULL;

	if (!slot) {
		free(s);
		return NULL;
	}
	*slot = s;
	return s;
}

/* One distribution of S's values, titled after its class and SUBJECT; none if no value. */
static int distribution(struct an_vec *freq, struct an_vec *names, const char *cls_name,
			const struct values *s, const char *subject, unsigned resolution)
{
	uint64_t min = UINT64_MAX, max = 0, d, *counts;
	unsigned buckets;
	size_t n = 0;
	struct an_table *t;
	char lo[32], hi[32];

	for (size_t i = 0; i < s->v->n; i++)
		if (value_at(s, i, &d)) {
			min = d < min ? d : min;
			max = d > max ? d : max;
			n++;
		}
	if (!n)
		return 0;
	buckets = min == max ? 1 : resolution;
	counts = calloc(buckets, sizeof(*counts));
	t = counts ? an_vec_push(freq) : NULL;
	if (!t) {
		free(counts);
		return -1;
	}
	for (size_t i = 0; i < s->v->n; i++)
		if (value_at(s, i, &d))
			counts[an_freq_bucket(d, min, max, buckets)]++;
	for (size_t i = 0; i < an_table_class_count; i++)
		if (strcmp(an_table_classes[i].name, cls_name) == 0)
			t->cls = &an_table_classes[i];
	an_dur_text(lo, sizeof(lo), min);
	an_dur_text(hi, sizeof(hi), max);
	t->subject = keep(names, an_strdup(subject));
	t->title = keep(names, an_asprintf("%s: %s (%zu, %s to %s, %u bucket%s)", t->cls->title,
					   subject, n, lo, hi, buckets, buckets > 1 ? "s" : ""));
	for (unsigned i = 0; i < buckets; i++) {
		struct an_cell *c = an_row(t);

		if (!c) {
			free(counts);
			return -1;
		}
		c[0] = (struct an_cell){.kind = C_DURATION,
					.v = (int64_t)an_freq_bound(i, min, max, buckets)};
		c[1] = (struct an_cell){
			.kind = C_DURATION,
			.v = (int64_t)(i + 1 < buckets ? an_freq_bound(i + 1, min, max, buckets)
						       : max)};
		c[2] = (struct an_cell){.kind = C_INT, .v = (int64_t)counts[i]};
	}
	free(counts);
	return t->title && t->subject ? 0 : -1;
}

static int by_count(const void *a, const void *b)
{
	const struct stats *x = a, *y = b;

	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return x->key < y->key ? -1 : x->key > y->key;
}

/* The keyed rows by count, most first: a copy, the statistics tables sort their own. */
static struct stats *by_most(const struct keyed *k)
{
	struct stats *rows = malloc((k->rows.n ? k->rows.n : 1) * sizeof(*rows));

	if (rows && k->rows.n) {
		memcpy(rows, k->rows.v, k->rows.n * sizeof(*rows));
		qsort(rows, k->rows.n, sizeof(*rows), by_count);
	}
	return rows;
}

/* All system calls, then each of the LIMIT most frequent calls. */
static int syscall_freq(const struct an_log *log, const struct tally *t,
			const struct an_tables_want *w, struct an_vec *freq, struct an_vec *names)
{
	struct values s = {.v = &t->topsys, .by = KEY_SYSCALL, .all = true};
	struct stats *rows = by_most(&t->sys);
	int r = rows ? 0 : -1;

	if (r == 0)
		r = distribution(freq, names, "syscall-latency-freq", &s, "all system calls",
				 w->resolution);
	s.all = false;
	for (size_t i = 0; r == 0 && i < t->sys.rows.n && i < w->limit; i++) {
		s.key = rows[i].key;
		r = distribution(freq, names, "syscall-latency-freq", &s,
				 an_sysname(log, (int32_t)rows[i].key), w->resolution);
	}
	free(rows);
	return r;
}

/* Each of the LIMIT disks with the most requests. */
static int disk_freq(const struct an_log *log, const struct tally *t,
		     const struct an_tables_want *w, struct an_vec *freq, struct an_vec *names)
{
	struct values s = {.v = &t->topblk, .by = KEY_DEV};
	struct stats *rows = by_most(&t->disk);
	int r = rows ? 0 : -1;
	char disk[64];

	for (size_t i = 0; r == 0 && i < t->disk.rows.n && i < w->limit; i++) {
		s.key = rows[i].key;
		an_disk_text(log, (uint32_t)rows[i].key, disk, sizeof(disk));
		r = distribution(freq, names, "disk-latency-freq", &s, disk, w->resolution);
	}
	free(rows);
	return r;
}

/* Each of the LIMIT interrupts and softirqs that ran most. */
static int irq_freq(const struct an_log *log, const struct tally *t, const struct an_tables_want *w,
		    struct an_vec *freq, struct an_vec *names)
{
	struct values s = {.v = &t->irqrun, .by = KEY_IRQ};
	struct stats *rows = by_most(&t->irq);
	int r = rows ? 0 : -1;
	char irq[96];

	for (size_t i = 0; r == 0 && i < t->irq.rows.n && i < w->limit; i++) {
		bool soft = rows[i].key >> 32;
		int32_t nr = (int32_t)(uint32_t)rows[i].key;

		s.key = rows[i].key;
		snprintf(irq, sizeof(irq), "%s %d %s", soft ? "softirq" : "irq", nr,
			 soft ? an_softirq_name(nr) : an_irq_name(log, nr));
		r = distribution(freq, names, "irq-duration-freq", &s, irq, w->resolution);
	}
	free(rows);
	return r;
}

int an_freq_tables(const struct an_log *log, const struct tally *t, const struct an_tables_want *w,
		   struct an_vec *freq, struct an_vec *names)
{
	int r = syscall_freq(log, t, w, freq, names);

	if (r == 0)
		r = disk_freq(log, t, w, freq, names);
	if (r == 0)
		r = irq_freq(log, t, w, freq, names);
	return r;
}
