/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * lttng-analyses style statistics over the window, in one pass over the log: CPU usage per
 * process and per CPU (cputop), system call latencies per call and per process
 * (syscallstats), interrupt handler durations (irqstats), block request latencies
 * (iolatency) and the top latencies.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "an.h"
#include "tables.h"

struct stats {
	uint64_t key, count, min, max;
	double sum, sumsq;
};

struct keyed {
	struct an_map map;
	struct an_vec rows; /* struct stats */
};

static struct stats *keyed_get(struct keyed *k, uint64_t key)
{
	bool inserted;
	uint32_t *slot = an_map_slot(&k->map, key + 1, &inserted);
	struct stats *s;

	if (!slot)
		return NULL;
	if (!inserted)
		return AN_AT(&k->rows, struct stats, *slot - 1);
	k->rows.size = sizeof(struct stats);
	s = an_vec_push(&k->rows);
	if (!s)
		return NULL;
	s->key = key;
	s->min = UINT64_MAX;
	*slot = (uint32_t)k->rows.n;
	return s;
}

static void add(struct stats *s, uint64_t v)
{
	if (!s)
		return;
	s->count++;
	s->min = v < s->min ? v : s->min;
	s->max = v > s->max ? v : s->max;
	s->sum += (double)v;
	s->sumsq += (double)v * (double)v;
}

static void keyed_free(struct keyed *k)
{
	an_map_free(&k->map);
	an_vec_free(&k->rows);
}

struct pending {
	uint64_t ts;
	int32_t sys;
};

struct top {
	uint64_t ts, dur;
	int64_t x, y; /* syscall: tid, sys; block: dev, sector */
	int64_t z;    /* syscall: ret; block: bytes */
};

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

static void process(const struct an_log *log, struct an_cell *c, int32_t tid)
{
	c->kind = C_PROCESS;
	c->v = tid;
	c->pid = an_pid(log, tid);
	c->s = an_comm(log, tid);
}

static void dur(struct an_cell *c, uint64_t ns)
{
	c->kind = C_DURATION;
	c->v = (int64_t)ns;
}

static void stat_cells(struct an_cell *c, const struct stats *s)
{
	double avg = s->count ? s->sum / (double)s->count : 0;
	double var = s->count > 1 ? (s->sumsq - s->sum * avg) / (double)(s->count - 1) : 0;

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

int an_tables(const struct an_log *log, unsigned limit, struct an_vec *tables_,
	      struct an_vec *names, uint64_t begin, uint64_t end)
{
	unsigned ncpu = log->ncpu ? log->ncpu : 1;
	struct keyed run = {0}, sys = {0}, sysproc = {0}, irq = {0}, disk = {0};
	struct an_map pend_map = {0}, blk_map = {0};
	struct an_vec pend = AN_VEC(struct pending), blk = AN_VEC(uint64_t);
	struct an_vec topsys = AN_VEC(struct top), topblk = AN_VEC(struct top);
	int32_t *cur = malloc(ncpu * sizeof(*cur));
	uint64_t *since = calloc(ncpu, sizeof(*since)), *busy = calloc(ncpu, sizeof(*busy));
	uint64_t *irq_ts = calloc(ncpu, sizeof(*irq_ts)), *sirq_ts = calloc(ncpu, sizeof(*sirq_ts));
	const struct an_ev *ev = log->ev.v;
	uint64_t span = end > begin ? end - begin : 1;
	struct an_table *t;
	struct an_cell *c;
	int r = -1;

	if (!cur || !since || !busy || !irq_ts || !sirq_ts)
		goto out;
	for (unsigned i = 0; i < ncpu; i++) {
		cur[i] = -1;
		since[i] = begin;
	}
	for (size_t i = 0; i < log->ev.n; i++) {
		const struct an_ev *e = &ev[i];
		unsigned cpu = e->cpu < ncpu ? e->cpu : 0;
		bool in = e->ts >= begin && e->ts <= end;
		uint64_t ts = e->ts < begin ? begin : e->ts > end ? end : e->ts;

		switch (e->type) {
		case EV_SWITCH: {
			int32_t prev = cur[cpu] >= 0 ? cur[cpu] : e->a;

			if (ts > since[cpu]) {
				add(keyed_get(&run, (uint64_t)(uint32_t)prev), ts - since[cpu]);
				if (prev != 0)
					busy[cpu] += ts - since[cpu];
			}
			cur[cpu] = e->b;
			since[cpu] = ts;
			break;
		}
		case EV_SYS_ENTRY: {
			bool inserted;
			uint32_t *slot;
			struct pending *p;

			if (cur[cpu] < 0)
				break;
			slot = an_map_slot(&pend_map, (uint64_t)(uint32_t)cur[cpu] + 1, &inserted);
			if (!slot)
				goto out;
			if (inserted) {
				if (!an_vec_push(&pend))
					goto out;
				*slot = (uint32_t)pend.n;
			}
			p = AN_AT(&pend, struct pending, *slot - 1);
			p->ts = e->ts;
			p->sys = e->a;
			break;
		}
		case EV_SYS_EXIT: {
			uint32_t *slot;
			struct pending *p;
			struct top *tp;
			uint64_t d;

			if (cur[cpu] < 0)
				break;
			slot = an_map_find(&pend_map, (uint64_t)(uint32_t)cur[cpu] + 1);
			if (!slot)
				break;
			p = AN_AT(&pend, struct pending, *slot - 1);
			if (!p->ts || p->sys != e->a || !in || p->ts < begin)
				break;
			d = e->ts - p->ts;
			add(keyed_get(&sys, (uint64_t)(uint32_t)e->a), d);
			add(keyed_get(&sysproc, (uint64_t)(uint32_t)cur[cpu]), d);
			tp = an_vec_push(&topsys);
			if (!tp)
				goto out;
			*tp = (struct top){p->ts, d, cur[cpu], e->a, (int64_t)e->d};
			p->ts = 0;
			break;
		}
		case EV_IRQ_ENTRY:
			irq_ts[cpu] = e->ts;
			break;
		case EV_IRQ_EXIT:
			if (irq_ts[cpu] && in)
				add(keyed_get(&irq, (uint64_t)(uint32_t)e->a), e->ts - irq_ts[cpu]);
			irq_ts[cpu] = 0;
			break;
		case EV_SOFTIRQ_ENTRY:
			sirq_ts[cpu] = e->ts;
			break;
		case EV_SOFTIRQ_EXIT:
			/* softirqs keyed apart from hard irqs: bit 32 */
			if (sirq_ts[cpu] && in)
				add(keyed_get(&irq, (1ULL << 32) | (uint32_t)e->a),
				    e->ts - sirq_ts[cpu]);
			sirq_ts[cpu] = 0;
			break;
		case EV_BLOCK_ISSUE: {
			bool inserted;
			uint64_t key = ((uint64_t)(uint32_t)e->a << 40) ^ e->d;
			uint32_t *slot = an_map_slot(&blk_map, key + 1, &inserted);

			if (!slot)
				goto out;
			if (inserted) {
				if (!an_vec_push(&blk))
					goto out;
				*slot = (uint32_t)blk.n;
			}
			*AN_AT(&blk, uint64_t, *slot - 1) = e->ts;
			break;
		}
		case EV_BLOCK_COMPLETE: {
			uint64_t key = ((uint64_t)(uint32_t)e->a << 40) ^ e->d, *issued;
			uint32_t *slot = an_map_find(&blk_map, key + 1);
			struct top *tp;

			if (!slot)
				break;
			issued = AN_AT(&blk, uint64_t, *slot - 1);
			if (*issued && in && *issued >= begin) {
				add(keyed_get(&disk, (uint64_t)(uint32_t)e->a), e->ts - *issued);
				tp = an_vec_push(&topblk);
				if (!tp)
					goto out;
				*tp = (struct top){*issued, e->ts - *issued, e->a, (int64_t)e->d,
						   (int64_t)e->c * 512};
			}
			*issued = 0;
			break;
		}
		default:
			break;
		}
	}
	for (unsigned i = 0; i < ncpu; i++)
		if (cur[i] >= 0 && end > since[i]) {
			add(keyed_get(&run, (uint64_t)(uint32_t)cur[i]), end - since[i]);
			if (cur[i] != 0)
				busy[i] += end - since[i];
		}

	if (log->counts[EV_SWITCH]) {
		sort_vec(&run.rows, by_sum);
		if (!(t = table(tables_, "cpu-usage-per-process")))
			goto out;
		for (size_t i = 0, n = 0; i < run.rows.n && n < limit; i++) {
			const struct stats *s = AN_AT(&run.rows, struct stats, i);

			if (s->key == 0)
				continue; /* idle */
			if (!(c = an_row(t)))
				goto out;
			process(log, &c[0], (int32_t)s->key);
			c[1].kind = C_RATIO;
			c[1].r = s->sum / (double)span;
			dur(&c[2], (uint64_t)s->sum);
			n++;
		}
		if (!(t = table(tables_, "cpu-usage-per-cpu")))
			goto out;
		for (unsigned i = 0; i < ncpu; i++) {
			if (!(c = an_row(t)))
				goto out;
			c[0].kind = C_CPU;
			c[0].v = i;
			c[1].kind = C_RATIO;
			c[1].r = (double)busy[i] / (double)span;
		}
	}
	if (log->counts[EV_SYS_ENTRY]) {
		sort_vec(&sys.rows, by_max);
		sort_vec(&sysproc.rows, by_max);
		sort_vec(&topsys, by_dur);
		if (!(t = table(tables_, "syscall-latency")))
			goto out;
		for (size_t i = 0; i < sys.rows.n && i < limit; i++) {
			const struct stats *s = AN_AT(&sys.rows, struct stats, i);

			if (!(c = an_row(t)))
				goto out;
			c[0].kind = C_SYSCALL;
			c[0].s = an_sysname(log, (int32_t)s->key);
			stat_cells(&c[1], s);
		}
		if (!(t = table(tables_, "syscall-latency-per-process")))
			goto out;
		for (size_t i = 0; i < sysproc.rows.n && i < limit; i++) {
			const struct stats *s = AN_AT(&sysproc.rows, struct stats, i);

			if (!(c = an_row(t)))
				goto out;
			process(log, &c[0], (int32_t)s->key);
			stat_cells(&c[1], s);
		}
		if (!(t = table(tables_, "top-syscall-latencies")))
			goto out;
		for (size_t i = 0; i < topsys.n && i < limit; i++) {
			const struct top *tp = AN_AT(&topsys, struct top, i);

			if (!(c = an_row(t)))
				goto out;
			c[0].kind = C_TIMESTAMP;
			c[0].v = (int64_t)tp->ts;
			dur(&c[1], tp->dur);
			process(log, &c[2], (int32_t)tp->x);
			c[3].kind = C_SYSCALL;
			c[3].s = an_sysname(log, (int32_t)tp->y);
			c[4].kind = C_INT;
			c[4].v = tp->z;
		}
	}
	if (log->counts[EV_IRQ_ENTRY] || log->counts[EV_SOFTIRQ_ENTRY]) {
		sort_vec(&irq.rows, by_max);
		if (!(t = table(tables_, "irq-stats")))
			goto out;
		for (size_t i = 0; i < irq.rows.n && i < limit; i++) {
			const struct stats *s = AN_AT(&irq.rows, struct stats, i);
			bool soft = s->key >> 32;

			if (!(c = an_row(t)))
				goto out;
			c[0].kind = C_IRQ;
			c[0].hard = !soft;
			c[0].v = (int32_t)(uint32_t)s->key;
			c[0].s = soft ? an_softirq_name((int32_t)c[0].v)
				      : an_irq_name(log, (int32_t)c[0].v);
			stat_cells(&c[1], s);
		}
	}
	if (log->counts[EV_BLOCK_COMPLETE]) {
		sort_vec(&disk.rows, by_max);
		sort_vec(&topblk, by_dur);
		if (!(t = table(tables_, "disk-latency")))
			goto out;
		for (size_t i = 0; i < disk.rows.n && i < limit; i++) {
			const struct stats *s = AN_AT(&disk.rows, struct stats, i);

			if (!(c = an_row(t)))
				goto out;
			c[0].kind = C_DISK;
			c[0].s = disk_intern(log, names, s->key);
			stat_cells(&c[1], s);
		}
		if (!(t = table(tables_, "top-block-latencies")))
			goto out;
		for (size_t i = 0; i < topblk.n && i < limit; i++) {
			const struct top *tp = AN_AT(&topblk, struct top, i);

			if (!(c = an_row(t)))
				goto out;
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
	}
	r = 0;
out:
	keyed_free(&run);
	keyed_free(&sys);
	keyed_free(&sysproc);
	keyed_free(&irq);
	keyed_free(&disk);
	an_map_free(&pend_map);
	an_map_free(&blk_map);
	an_vec_free(&pend);
	an_vec_free(&blk);
	an_vec_free(&topsys);
	an_vec_free(&topblk);
	free(cur);
	free(since);
	free(busy);
	free(irq_ts);
	free(sirq_ts);
	return r;
}
