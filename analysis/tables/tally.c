/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The statistics' one pass over the log: each CPU's running task and the time since it
 * was switched in, each task's system call in progress, each CPU's irq and softirq entries
 * and each block request's issue; what ends in the window is added to its key's statistics.
 */
#include <stdlib.h>

#include "an.h"
#include "tally.h"

struct pending {
	uint64_t ts;
	int32_t sys;
};

struct blk_pending {
	uint64_t issued;
	int32_t tid; /* -1 unknown */
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
	double d;

	if (!s)
		return;
	s->count++;
	s->min = v < s->min ? v : s->min;
	s->max = v > s->max ? v : s->max;
	s->sum += (double)v;
	d = (double)v - s->mean;
	s->mean += d / (double)s->count;
	s->m2 += d * ((double)v - s->mean);
}

static void keyed_free(struct keyed *k)
{
	an_map_free(&k->map);
	an_vec_free(&k->rows);
}

/* TID's running over [from, to), to whom it was: an exec while it ran splits the time. */
static void ran(struct tally *t, int32_t tid, uint64_t from, uint64_t to)
{
	while (from < to) {
		uint64_t until = UINT64_MAX, end;

		if (tid > 0)
			an_ident_at(t->log, tid, from, &until);
		end = until < to ? until : to;
		add(keyed_get(&t->run, an_who_key(t->log, tid, from)), end - from);
		from = end;
	}
}

/* The task CPU ran until TS (clipped to the window) credited with that time. */
static void on_switch(struct tally *t, unsigned cpu, const struct an_ev *e, uint64_t ts)
{
	int32_t prev = t->cur[cpu] >= 0 ? t->cur[cpu] : e->a;

	if (ts > t->since[cpu]) {
		ran(t, prev, t->since[cpu], ts);
		if (prev != 0)
			t->busy[cpu] += ts - t->since[cpu];
	}
	t->cur[cpu] = e->b;
	t->since[cpu] = ts;
}

static int on_sys_entry(struct tally *t, unsigned cpu, const struct an_ev *e)
{
	bool inserted;
	uint32_t *slot;
	struct pending *p;

	if (t->cur[cpu] < 0)
		return 0;
	slot = an_map_slot(&t->pend_map, (uint64_t)(uint32_t)t->cur[cpu] + 1, &inserted);
	if (!slot)
		return -1;
	if (inserted) {
		if (!an_vec_push(&t->pend))
			return -1;
		*slot = (uint32_t)t->pend.n;
	}
	p = AN_AT(&t->pend, struct pending, *slot - 1);
	p->ts = e->ts;
	p->sys = e->a;
	return 0;
}

/* A system call that began and ended in the window, of the task that entered it. */
static int on_sys_exit(struct tally *t, unsigned cpu, const struct an_ev *e, bool in)
{
	uint32_t *slot;
	struct pending *p;
	struct top *tp;
	uint64_t d, who;

	if (t->cur[cpu] < 0)
		return 0;
	slot = an_map_find(&t->pend_map, (uint64_t)(uint32_t)t->cur[cpu] + 1);
	if (!slot)
		return 0;
	p = AN_AT(&t->pend, struct pending, *slot - 1);
	if (!p->ts || p->sys != e->a || !in || p->ts < t->begin)
		return 0;
	if (an_io_syscall(t, t->cur[cpu], p->ts, e->a, (int64_t)e->d) < 0)
		return -1;
	d = e->ts - p->ts;
	/* The caller as it was when it called: an execve returns as the new program. */
	who = an_who_key(t->log, t->cur[cpu], p->ts);
	add(keyed_get(&t->sys, (uint64_t)(uint32_t)e->a), d);
	add(keyed_get(&t->sysproc, who), d);
	tp = an_vec_push(&t->topsys);
	if (!tp)
		return -1;
	*tp = (struct top){p->ts, d, (int64_t)who, e->a, (int64_t)e->d};
	p->ts = 0;
	return 0;
}

/* Its issuer: the event's own tid, else the task running where it was issued. */
static int on_block_issue(struct tally *t, unsigned cpu, const struct an_ev *e)
{
	struct blk_pending *b;
	bool inserted;
	uint64_t key = ((uint64_t)(uint32_t)e->a << 40) ^ e->d;
	uint32_t *slot = an_map_slot(&t->blk_map, key + 1, &inserted);

	if (!slot)
		return -1;
	if (inserted) {
		if (!an_vec_push(&t->blk))
			return -1;
		*slot = (uint32_t)t->blk.n;
	}
	b = AN_AT(&t->blk, struct blk_pending, *slot - 1);
	b->issued = e->ts;
	b->tid = e->b > 0 ? e->b : t->cur[cpu];
	return 0;
}

/* A block request issued and completed in the window. */
static int on_block_complete(struct tally *t, const struct an_ev *e, bool in)
{
	uint64_t key = ((uint64_t)(uint32_t)e->a << 40) ^ e->d, issued;
	uint32_t *slot = an_map_find(&t->blk_map, key + 1);
	struct blk_pending *b;
	struct top *tp;

	if (!slot)
		return 0;
	b = AN_AT(&t->blk, struct blk_pending, *slot - 1);
	issued = b->issued;
	b->issued = 0;
	if (!issued || !in || issued < t->begin)
		return 0;
	add(keyed_get(&t->disk, (uint64_t)(uint32_t)e->a), e->ts - issued);
	tp = an_vec_push(&t->topblk);
	if (!tp)
		return -1;
	*tp = (struct top){issued, e->ts - issued, e->a, (int64_t)e->d, (int64_t)e->c * 512};
	return an_io_block(t, b->tid, issued, e->b, (uint64_t)e->c * 512);
}

/* A handler run, into its irq's statistics and, one by one, for the distributions. */
static int irq_ran(struct tally *t, uint64_t key, uint64_t dur)
{
	struct irq_run *run = an_vec_push(&t->irqrun);

	add(keyed_get(&t->irq, key), dur);
	if (!run)
		return -1;
	*run = (struct irq_run){key, dur};
	return 0;
}

static int on_event(struct tally *t, const struct an_ev *e)
{
	unsigned cpu = e->cpu < t->ncpu ? e->cpu : 0;
	bool in = e->ts >= t->begin && e->ts <= t->end;
	uint64_t ts = e->ts < t->begin ? t->begin : e->ts > t->end ? t->end : e->ts;
	int r = 0;

	switch (e->type) {
	case EV_SWITCH:
		on_switch(t, cpu, e, ts);
		return 0;
	case EV_SYS_ENTRY:
		return on_sys_entry(t, cpu, e);
	case EV_SYS_EXIT:
		return on_sys_exit(t, cpu, e, in);
	case EV_IRQ_ENTRY:
		t->irq_ts[cpu] = e->ts;
		return 0;
	case EV_IRQ_EXIT:
		if (t->irq_ts[cpu] && in)
			r = irq_ran(t, (uint64_t)(uint32_t)e->a, e->ts - t->irq_ts[cpu]);
		t->irq_ts[cpu] = 0;
		return r;
	case EV_SOFTIRQ_ENTRY:
		t->sirq_ts[cpu] = e->ts;
		return 0;
	case EV_SOFTIRQ_EXIT:
		/* softirqs keyed apart from hard irqs: bit 32 */
		if (t->sirq_ts[cpu] && in)
			r = irq_ran(t, (1ULL << 32) | (uint32_t)e->a, e->ts - t->sirq_ts[cpu]);
		t->sirq_ts[cpu] = 0;
		return r;
	case EV_BLOCK_ISSUE:
		return on_block_issue(t, cpu, e);
	case EV_BLOCK_COMPLETE:
		return on_block_complete(t, e, in);
	default:
		return 0;
	}
}

int an_tally(const struct an_log *log, uint64_t begin, uint64_t end, struct tally *t)
{
	unsigned ncpu = log->ncpu ? log->ncpu : 1;
	const struct an_ev *ev = log->ev.v;

	*t = (struct tally){.log = log, .begin = begin, .end = end, .ncpu = ncpu};
	t->pend = (struct an_vec)AN_VEC(struct pending);
	t->blk = (struct an_vec)AN_VEC(struct blk_pending);
	t->io = (struct an_vec)AN_VEC(struct io_use);
	t->topsys = (struct an_vec)AN_VEC(struct top);
	t->topblk = (struct an_vec)AN_VEC(struct top);
	t->irqrun = (struct an_vec)AN_VEC(struct irq_run);
	t->cur = malloc(ncpu * sizeof(*t->cur));
	t->since = calloc(ncpu, sizeof(*t->since));
	t->busy = calloc(ncpu, sizeof(*t->busy));
	t->irq_ts = calloc(ncpu, sizeof(*t->irq_ts));
	t->sirq_ts = calloc(ncpu, sizeof(*t->sirq_ts));
	if (!t->cur || !t->since || !t->busy || !t->irq_ts || !t->sirq_ts ||
	    an_io_kinds(log, &t->sys_io) < 0)
		return -1;
	for (unsigned i = 0; i < ncpu; i++) {
		uint64_t first = i < log->cpu_first.n ? *AN_AT(&log->cpu_first, uint64_t, i) : 0;

		t->cur[i] = -1;
		/* A CPU's first switch-out is known to have run since its history began, not
		 * since the window's: a flight recorder's busier CPU starts later. */
		t->since[i] = first > begin ? first : begin;
	}
	for (size_t i = 0; i < log->ev.n; i++)
		if (on_event(t, &ev[i]) < 0)
			return -1;
	/* The tasks still running at the end, up to the window's end. */
	for (unsigned i = 0; i < ncpu; i++)
		if (t->cur[i] >= 0 && end > t->since[i]) {
			ran(t, t->cur[i], t->since[i], end);
			if (t->cur[i] != 0)
				t->busy[i] += end - t->since[i];
		}
	return 0;
}

void an_tally_free(struct tally *t)
{
	keyed_free(&t->run);
	keyed_free(&t->sys);
	keyed_free(&t->sysproc);
	keyed_free(&t->irq);
	keyed_free(&t->disk);
	an_map_free(&t->pend_map);
	an_map_free(&t->blk_map);
	an_vec_free(&t->pend);
	an_vec_free(&t->blk);
	an_vec_free(&t->topsys);
	an_vec_free(&t->topblk);
	an_vec_free(&t->irqrun);
	an_map_free(&t->io_map);
	an_vec_free(&t->io);
	free(t->sys_io);
	free(t->cur);
	free(t->since);
	free(t->busy);
	free(t->irq_ts);
	free(t->sirq_ts);
}
