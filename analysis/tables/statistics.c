/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * lttng-analyses style statistics over the window, from one pass over the log (tally.c):
 * CPU usage per process and per CPU (cputop), system call latencies per call and per
 * process (syscallstats), interrupt handler durations (irqstats), block request latencies
 * (iolatency) and the top latencies.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "an.h"
#include "tables.h"
#include "tally.h"

/* qsort() of a vector; an empty one (no row in the window) has no array at all. */
static void sort_vec(struct an_vec *v, int (*cmp)(const void *, const void *))
{
	if (v->n > 1)
		qsort(v->v, v->n, v->size, cmp);
}

static int by_max(const void *a, const void *b)
{
	const struct stats *x = a, *y = b;

	return x->max < y->max ? 1 : x->max > y->max ? -1 : 0;
}

static int by_sum(const void *a, const void *b)
{
	const struct stats *x = a, *y = b;

	return x->sum < y->sum ? 1 : x->sum > y->sum ? -1 : 0;
}

static int by_dur(const void *a, const void *b)
{
	const struct top *x = a, *y = b;

	return x->dur < y->dur ? 1 : x->dur > y->dur ? -1 : 0;
}

static const struct an_table_class *cls(const char *name)
{
	for (size_t i = 0; i < an_table_class_count; i++)
		if (strcmp(an_table_classes[i].name, name) == 0)
			return &an_table_classes[i];
	return NULL;
}

static struct an_table *table(struct an_vec *tables, const char *name)
{
	struct an_table *t = an_vec_push(tables);

	if (t)
		t->cls = cls(name);
	return t;
}

/* The thread an_who_key() named, as it was then. */
static void process(const struct an_log *log, struct an_cell *c, uint64_t who)
{
	int32_t tid;

	c->kind = C_PROCESS;
	an_who(log, who, &tid, &c->pid, &c->s);
	c->v = tid;
}

static void dur(struct an_cell *c, uint64_t ns)
{
	c->kind = C_DURATION;
	c->v = (int64_t)ns;
}

static void stat_cells(struct an_cell *c, const struct stats *s)
{
	double avg = s->mean;
	double var = s->count > 1 ? s->m2 / (double)(s->count - 1) : 0;

	c[0].kind = C_INT;
	c[0].v = (int64_t)s->count;
	dur(&c[1], s->min);
	dur(&c[2], (uint64_t)avg);
	dur(&c[3], s->max);
	if (s->count > 1)
		dur(&c[4], (uint64_t)sqrt(var > 0 ? var : 0));
	else
		c[4].kind = C_UNKNOWN;
}

/* Disk names live as long as the tables: kept in the log's name strings, never freed early. */
static const char *disk_intern(const struct an_log *log, struct an_vec *names, uint64_t dev)
{
	char buf[64], **slot;

	an_disk_text(log, (uint32_t)dev, buf, sizeof(buf));
	for (size_t i = 0; i < names->n; i++)
		if (strcmp(*AN_AT(names, char *, i), buf) == 0)
			return *AN_AT(names, char *, i);
	slot = an_vec_push(names);
	if (!slot || !(*slot = strdup(buf)))
		return "?";
	return *slot;
}

/* Per process, the CPU time over the window; per CPU, the share not idle of its history. */
static int cpu_tables(const struct an_log *log, struct tally *t, unsigned limit,
		      struct an_vec *tables)
{
	uint64_t span = t->end > t->begin ? t->end - t->begin : 1;
	struct an_table *tb;
	struct an_cell *c;

	sort_vec(&t->run.rows, by_sum);
	if (!(tb = table(tables, "cpu-usage-per-process")))
		return -1;
	for (size_t i = 0, n = 0; i < t->run.rows.n && n < limit; i++) {
		const struct stats *s = AN_AT(&t->run.rows, struct stats, i);

		if (s->key == 0)
			continue; /* idle */
		if (!(c = an_row(tb)))
			return -1;
		process(log, &c[0], s->key);
		c[1].kind = C_RATIO;
		c[1].r = s->sum / (double)span;
		dur(&c[2], (uint64_t)s->sum);
		n++;
	}
	if (!(tb = table(tables, "cpu-usage-per-cpu")))
		return -1;
	for (unsigned i = 0; i < t->ncpu; i++) {
		/* Over the part of the window its history covers: before it, nothing is known. */
		uint64_t first = i < log->cpu_first.n ? *AN_AT(&log->cpu_first, uint64_t, i) : 0,
			 from = first > t->begin ? first : t->begin;

		if (!(c = an_row(tb)))
			return -1;
		c[0].kind = C_CPU;
		c[0].v = i;
		c[1].kind = C_RATIO;
		c[1].r = (double)t->busy[i] / (double)(t->end > from ? t->end - from : 1);
	}
	return 0;
}

/* Latency statistics per system call and per process, and the longest calls. */
static int syscall_tables(const struct an_log *log, struct tally *t, unsigned limit,
			  struct an_vec *tables)
{
	struct an_table *tb;
	struct an_cell *c;

	sort_vec(&t->sys.rows, by_max);
	sort_vec(&t->sysproc.rows, by_max);
	sort_vec(&t->topsys, by_dur);
	if (!(tb = table(tables, "syscall-latency")))
		return -1;
	for (size_t i = 0; i < t->sys.rows.n && i < limit; i++) {
		const struct stats *s = AN_AT(&t->sys.rows, struct stats, i);

		if (!(c = an_row(tb)))
			return -1;
		c[0].kind = C_SYSCALL;
		c[0].s = an_sysname(log, (int32_t)s->key);
		stat_cells(&c[1], s);
	}
	if (!(tb = table(tables, "syscall-latency-per-process")))
		return -1;
	for (size_t i = 0; i < t->sysproc.rows.n && i < limit; i++) {
		const struct stats *s = AN_AT(&t->sysproc.rows, struct stats, i);

		if (!(c = an_row(tb)))
			return -1;
		process(log, &c[0], s->key);
		stat_cells(&c[1], s);
	}
	if (!(tb = table(tables, "top-syscall-latencies")))
		return -1;
	for (size_t i = 0; i < t->topsys.n && i < limit; i++) {
		const struct top *tp = AN_AT(&t->topsys, struct top, i);

		if (!(c = an_row(tb)))
			return -1;
		c[0].kind = C_TIMESTAMP;
		c[0].v = (int64_t)tp->ts;
		dur(&c[1], tp->dur);
		process(log, &c[2], (uint64_t)tp->x);
		c[3].kind = C_SYSCALL;
		c[3].s = an_sysname(log, (int32_t)tp->y);
		c[4].kind = C_INT;
		c[4].v = tp->z;
	}
	return 0;
}

/* Handler duration statistics per hard irq and per softirq vector. */
static int irq_table(const struct an_log *log, struct tally *t, unsigned limit,
		     struct an_vec *tables)
{
	struct an_table *tb;
	struct an_cell *c;

	sort_vec(&t->irq.rows, by_max);
	if (!(tb = table(tables, "irq-stats")))
		return -1;
	for (size_t i = 0; i < t->irq.rows.n && i < limit; i++) {
		const struct stats *s = AN_AT(&t->irq.rows, struct stats, i);
		bool soft = s->key >> 32;

		if (!(c = an_row(tb)))
			return -1;
		c[0].kind = C_IRQ;
		c[0].hard = !soft;
		c[0].v = (int32_t)(uint32_t)s->key;
		c[0].s =
			soft ? an_softirq_name((int32_t)c[0].v) : an_irq_name(log, (int32_t)c[0].v);
		stat_cells(&c[1], s);
	}
	return 0;
}

/* Block request latency statistics per disk, and the longest requests. */
static int disk_tables(const struct an_log *log, struct tally *t, unsigned limit,
		       struct an_vec *tables, struct an_vec *names)
{
	struct an_table *tb;
	struct an_cell *c;

	sort_vec(&t->disk.rows, by_max);
	sort_vec(&t->topblk, by_dur);
	if (!(tb = table(tables, "disk-latency")))
		return -1;
	for (size_t i = 0; i < t->disk.rows.n && i < limit; i++) {
		const struct stats *s = AN_AT(&t->disk.rows, struct stats, i);

		if (!(c = an_row(tb)))
			return -1;
		c[0].kind = C_DISK;
		c[0].s = disk_intern(log, names, s->key);
		stat_cells(&c[1], s);
	}
	if (!(tb = table(tables, "top-block-latencies")))
		return -1;
	for (size_t i = 0; i < t->topblk.n && i < limit; i++) {
		const struct top *tp = AN_AT(&t->topblk, struct top, i);

		if (!(c = an_row(tb)))
			return -1;
		c[0].kind = C_TIMESTAMP;
		c[0].v = (int64_t)tp->ts;
		dur(&c[1], tp->dur);
		c[2].kind = C_DISK;
		c[2].s = disk_intern(log, names, (uint64_t)tp->x);
		c[3].kind = C_INT;
		c[3].v = tp->y;
		c[4].kind = C_INT;
		c[4].v = tp->z;
	}
	return 0;
}

/* Each table the log has the events for, in this order. */
static int stat_tables(const struct an_log *log, struct tally *t, unsigned limit,
		       struct an_vec *tables, struct an_vec *names)
{
	int r = 0;

	if (log->counts[EV_SWITCH])
		r = cpu_tables(log, t, limit, tables);
	if (r == 0 && log->counts[EV_SYS_ENTRY])
		r = syscall_tables(log, t, limit, tables);
	if (r == 0 && (log->counts[EV_IRQ_ENTRY] || log->counts[EV_SOFTIRQ_ENTRY]))
		r = irq_table(log, t, limit, tables);
	if (r == 0 && log->counts[EV_BLOCK_COMPLETE])
		r = disk_tables(log, t, limit, tables, names);
	return r;
}

/* The statistics and the distributions from one tally of the window. */
int an_tables(const struct an_log *log, const struct an_tables_want *want, struct an_vec *tables,
	      struct an_vec *freq, struct an_vec *names)
{
	struct tally t;
	int r = an_tally(log, want->begin, want->end, &t);

	if (r == 0 && want->resolution)
		r = an_freq_tables(log, &t, want, freq, names);
	if (r == 0 && want->stats)
		r = stat_tables(log, &t, want->limit, tables, names);
	if (r == 0 && want->io_usage)
		r = an_io_tables(&t, want->limit, tables);
	an_tally_free(&t);
	return r;
}
