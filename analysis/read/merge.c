/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The streams' logs, each decoded apart, merged into the log one muxed pass would have
 * filled. The order is babeltrace2 2.0's muxer's: by time, and at the same time by the
 * streams' keys (streams.h), a stream's own messages never reordered. The events of
 * interest are merged by that order, their indices into the streams' tables (syscall
 * names, alerts, packets) renumbered as the muxed pass would have numbered them, and what
 * they said of who each task was (the observations) in the same order; the side effects
 * on the other tables (tasks, irq and disk names) are replayed from the streams' trails in
 * that order too; the rest are sums, minimums and maximums.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "streams.h"

static int cmp_keys(const struct an_stream *a, const struct an_stream *b)
{
	int c;

	if (a->has_uuid != b->has_uuid)
		return a->has_uuid ? -1 : 1;
	if (a->has_uuid && (c = memcmp(a->uuid, b->uuid, sizeof(a->uuid))))
		return c;
	if (!a->trace_name != !b->trace_name)
		return a->trace_name ? -1 : 1;
	if (a->trace_name && (c = strcmp(a->trace_name, b->trace_name)))
		return c;
	if (a->class_id != b->class_id)
		return a->class_id < b->class_id ? -1 : 1;
	if (a->id != b->id)
		return a->id < b->id ? -1 : 1;
	return 0;
}

/* The muxer's key, then, for the pieces of one stream, their order in its file. */
static int cmp_pieces(const struct an_stream *a, const struct an_stream *b)
{
	int c = cmp_keys(a, b);

	if (c || a->part == b->part)
		return c;
	return a->part < b->part ? -1 : 1;
}

static int by_key(const void *a, const void *b)
{
	return cmp_pieces(*(struct an_stream *const *)a, *(struct an_stream *const *)b);
}

/* The streams being merged: st[] by key, so that a stream's rank is its index. */
struct merge {
	struct an_stream **st;
	size_t n;
	const struct an_ev **src; /* each stream's events (the biggest's moved: merge_events) */
	size_t *len;
	size_t *next;	    /* each stream's next event */
	int32_t **sys;	    /* each stream's syscall index -> the merged one, -2: not yet */
	size_t *heap, used; /* the streams with events left, by their next event */
	struct an_log *out;
};

static inline const struct an_ev *head(const struct merge *m, size_t s)
{
	return &m->src[s][m->next[s]];
}

/* Whether stream a's next event goes before stream b's. */
static inline bool before(const struct merge *m, size_t a, size_t b)
{
	const struct an_ev *x = head(m, a), *y = head(m, b);

	return x->ts < y->ts || (x->ts == y->ts && a < b);
}

static void sift_down(struct merge *m, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, best = i, t;

		if (l < m->used && before(m, m->heap[l], m->heap[best]))
			best = l;
		if (l + 1 < m->used && before(m, m->heap[l + 1], m->heap[best]))
			best = l + 1;
		if (best == i)
			return;
		t = m->heap[i];
		m->heap[i] = m->heap[best];
		m->heap[best] = t;
		i = best;
	}
}

/* Stream s's event e as the muxed pass would have numbered it, at index g of the merge. */
static int renumber(struct merge *m, size_t s, struct an_ev *e, size_t g)
{
	struct an_log *in = &m->st[s]->log, *out = m->out;

	switch (e->type) {
	case EV_SYS_ENTRY:
	case EV_SYS_EXIT:
		if (e->a < 0 || (size_t)e->a >= in->sysnames.n)
			break;
		if (m->sys[s][e->a] == -2)
			m->sys[s][e->a] =
				an_sysname_index(out, *AN_AT(&in->sysnames, char *, e->a));
		e->a = m->sys[s][e->a];
		break;
	case EV_ALERT: {
		struct an_alert *a;

		if (e->a < 0 || (size_t)e->a >= in->alerts.n)
			break;
		a = an_vec_push(&out->alerts);
		if (!a)
			return -ENOMEM;
		*a = *AN_AT(&in->alerts, struct an_alert, e->a);
		e->a = (int32_t)out->alerts.n - 1;
		break;
	}
	case EV_NET_XMIT:
	case EV_NET_RECV: {
		struct an_packet *p;

		if (e->a < 0 || (size_t)e->a >= in->packets.n)
			break;
		p = an_vec_push(&out->packets);
		if (!p)
			return -ENOMEM;
		*p = *AN_AT(&in->packets, struct an_packet, e->a);
		p->ev = (int32_t)g;
		e->a = (int32_t)out->packets.n - 1;
		break;
	}
	default:
		break;
	}
	return 0;
}

/* The types whose a is an index into one of the stream's tables. */
static inline bool numbered(uint16_t type)
{
	return type == EV_SYS_ENTRY || type == EV_SYS_EXIT || type == EV_ALERT ||
	       type == EV_NET_XMIT || type == EV_NET_RECV;
}

/* The events of the root's stream s that go before any other stream's next one. */
static size_t run_end(const struct merge *m, size_t s)
{
	const struct an_ev *ev = m->src[s];
	size_t j = m->next[s], n = m->len[s], other;
	uint64_t until;

	if (m->used < 2)
		return n;
	other = m->heap[1];
	if (m->used > 2 && before(m, m->heap[2], other))
		other = m->heap[2];
	until = head(m, other)->ts;
	/* At the same time, the stream of the lower key first. */
	if (s < other)
		while (j < n && ev[j].ts <= until)
			j++;
	else
		while (j < n && ev[j].ts < until)
			j++;
	return j;
}

/*
 * Two streams left (the whole merge of a snapshot of two CPUs): event by event, without
 * the heap, whose cost per run dominates when the CPUs' events interleave finely. The one
 * left is then the heap's alone.
 */
static int merge_two(struct merge *m, struct an_ev *dst, size_t *w)
{
	size_t a = m->heap[0] < m->heap[1] ? m->heap[0] : m->heap[1];
	size_t b = a == m->heap[0] ? m->heap[1] : m->heap[0];
	const struct an_ev *x = m->src[a], *y = m->src[b];
	size_t i = m->next[a], j = m->next[b], k = *w;

	while (i < m->len[a] && j < m->len[b]) {
		/* At the same time, a's (the lower key) first; dst may be where x[i] is. */
		bool from_a = x[i].ts <= y[j].ts;
		struct an_ev e = from_a ? x[i++] : y[j++];

		dst[k] = e;
		if (numbered(e.type) && renumber(m, from_a ? a : b, &dst[k], k) < 0)
			return -ENOMEM;
		k++;
	}
	m->next[a] = i;
	m->next[b] = j;
	*w = k;
	m->heap[0] = i < m->len[a] ? a : b;
	m->used = 1;
	return 0;
}

/*
 * The merge is written into the biggest stream's array, grown to hold all and its own
 * events first moved to its end: only the others' share of the output is memory to fault
 * in, which costs more than the move. Writing never overtakes reading there: what is
 * written counts what was read from it and at most all the others'.
 */
static int merge_events(struct merge *m)
{
	struct an_log *out = m->out;
	size_t total = 0, big = 0, w = 0;
	struct an_vec *to;
	struct an_ev *dst;

	for (size_t s = 0; s < m->n; s++) {
		m->src[s] = m->st[s]->log.ev.v;
		m->len[s] = m->st[s]->log.ev.n;
		total += m->len[s];
		if (m->len[s])
			m->heap[m->used++] = s;
		if (m->len[s] > m->len[big])
			big = s;
	}
	if (!total)
		return 0;
	to = &m->st[big]->log.ev;
	if (an_vec_reserve(to, total) < 0)
		return -ENOMEM;
	dst = to->v;
	memmove(dst + total - to->n, dst, to->n * sizeof(*dst));
	m->src[big] = dst + total - to->n;
	for (size_t i = m->used / 2; i-- > 0;)
		sift_down(m, i);
	while (m->used) {
		size_t s = m->heap[0], i = m->next[s], j;

		if (m->used == 2) {
			if (merge_two(m, dst, &w) < 0)
				return -ENOMEM;
			continue;
		}
		j = run_end(m, s);

		memmove(dst + w, head(m, s), (j - i) * sizeof(*dst));
		for (size_t k = w; k < w + j - i; k++)
			if (numbered(dst[k].type) && renumber(m, s, &dst[k], k) < 0)
				return -ENOMEM;
		w += j - i;
		m->next[s] = j;
		if (j == m->len[s])
			m->heap[0] = m->heap[--m->used];
		sift_down(m, 0);
	}
	an_vec_free(&out->ev);
	out->ev = *to;
	out->ev.n = total;
	*to = (struct an_vec){.size = sizeof(struct an_ev)};
	return 0;
}

/*
 * A side effect to replay: the mark's time, its stream's rank, its order in the stream;
 * an irq's number, as its stream's map has it (looked up from the name's entry, that
 * would cost a walk of the map per irq: quadratic, and a trace may name millions).
 */
struct note {
	uint64_t ts, seq;
	size_t rank, i;
	enum an_mark_kind kind;
	int32_t irq;
};

static int by_time(const void *a, const void *b)
{
	const struct note *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return (x->seq > y->seq) - (x->seq < y->seq);
}

static int note(struct an_vec *notes, const struct an_stream *st, size_t rank,
		enum an_mark_kind kind, size_t i, int32_t irq, bool needed)
{
	const struct an_vec *marks = &st->trail.marks[kind];
	const struct an_mark *mk = i < marks->n ? AN_AT(marks, struct an_mark, i) : NULL;
	struct note *n;

	if (!mk || !mk->seq)
		return needed ? -ENOMEM : 0; /* a mark could not be kept */
	n = an_vec_push(notes);
	if (!n)
		return -ENOMEM;
	*n = (struct note){
		.ts = mk->ts, .seq = mk->seq, .rank = rank, .i = i, .kind = kind, .irq = irq};
	return 0;
}

static int gather(const struct merge *m, struct an_vec *notes)
{
	int r = 0;

	for (size_t s = 0; s < m->n && !r; s++) {
		const struct an_stream *st = m->st[s];
		const struct an_map *irqs = &st->log.irqnames;

		for (size_t i = 0; i < st->log.tasks.n && !r; i++)
			r = note(notes, st, s, AN_MARK_TASK, i, 0, true);
		for (size_t i = 0; i < irqs->cap && !r; i++)
			if (irqs->keys[i] && irqs->vals[i])
				r = note(notes, st, s, AN_MARK_IRQ, irqs->vals[i] - 1,
					 (int32_t)(irqs->keys[i] - 1), true);
		for (size_t i = 0; i < st->log.disks.n && !r; i++)
			r = note(notes, st, s, AN_MARK_DISK, i, 0, true);
	}
	return r;
}

static int replay(const struct merge *m)
{
	struct an_vec notes = AN_VEC(struct note);
	int r = gather(m, &notes);

	if (notes.n > 1)
		qsort(notes.v, notes.n, sizeof(struct note), by_time);
	for (size_t k = 0; k < notes.n && !r; k++) {
		const struct note *n = AN_AT(&notes, struct note, k);
		const struct an_log *in = &m->st[n->rank]->log;
		const struct an_task *t = AN_AT(&in->tasks, struct an_task, n->i);

		switch (n->kind) {
		case AN_MARK_TASK:
			if (!an_task_get(m->out, t->tid))
				r = -ENOMEM;
			break;
		case AN_MARK_IRQ:
			an_irq_name_set(m->out, n->irq, *AN_AT(&in->irqname_v, char *, n->i));
			break;
		case AN_MARK_DISK: {
			const struct an_disk *d = AN_AT(&in->disks, struct an_disk, n->i);

			an_disk_add(m->out, d->dev, d->name);
			break;
		}
		}
	}
	an_vec_free(&notes);
	return r;
}

/* An observation's place in the merge: its time, its stream's rank, its order there. */
struct obs_ref {
	uint64_t ts;
	size_t rank, i;
};

static int obs_order(const void *a, const void *b)
{
	const struct obs_ref *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return (x->i > y->i) - (x->i < y->i);
}

/* The streams' observations in the order of their events, as the muxed pass reads them. */
static int merge_obs(const struct merge *m)
{
	struct an_vec *out = &m->out->obs;
	struct obs_ref *refs;
	size_t total = 0, k = 0;

	for (size_t s = 0; s < m->n; s++)
		total += m->st[s]->log.obs.n;
	if (!total)
		return 0;
	refs = malloc(total * sizeof(*refs));
	if (!refs || an_vec_reserve(out, out->n + total) < 0) {
		free(refs);
		return -ENOMEM;
	}
	for (size_t s = 0; s < m->n; s++) {
		const struct an_vec *in = &m->st[s]->log.obs;

		for (size_t i = 0; i < in->n; i++)
			refs[k++] = (struct obs_ref){AN_AT(in, struct an_obs, i)->ts, s, i};
	}
	qsort(refs, total, sizeof(*refs), obs_order);
	for (size_t j = 0; j < total; j++)
		*AN_AT(out, struct an_obs, out->n++) =
			*AN_AT(&m->st[refs[j].rank]->log.obs, struct an_obs, refs[j].i);
	free(refs);
	return 0;
}

/* What needs no order: sums, and the first and last times (the streams' own are sorted). */
static void totals(const struct merge *m)
{
	struct an_log *out = m->out;

	for (size_t s = 0; s < m->n; s++) {
		const struct an_log *in = &m->st[s]->log;

		out->events += in->events;
		out->discarded += in->discarded;
		out->discarded_packets += in->discarded_packets;
		out->damaged += in->damaged;
		for (int k = 0; k < EV__COUNT; k++)
			out->counts[k] += in->counts[k];
		if (in->first_ts && (!out->first_ts || in->first_ts < out->first_ts))
			out->first_ts = in->first_ts;
		if (in->events && in->last_ts > out->last_ts)
			out->last_ts = in->last_ts;
		if (in->ncpu > out->ncpu)
			out->ncpu = in->ncpu;
		out->preempt_rt |= in->preempt_rt;
	}
}

/* Where events were lost: each stream's, in any order (the timeline sorts them). */
static int lost(const struct merge *m)
{
	for (size_t s = 0; s < m->n; s++) {
		const struct an_vec *in = &m->st[s]->log.lost;

		for (size_t i = 0; i < in->n; i++) {
			struct an_lost *l = an_vec_push(&m->out->lost);

			if (!l)
				return -ENOMEM;
			*l = *AN_AT(in, struct an_lost, i);
		}
	}
	return 0;
}

/* What each trace declares: its streams' together. */
static int declared(const struct merge *m)
{
	for (size_t s = 0; s < m->n; s++) {
		const struct an_vec *in = &m->st[s]->log.declared;

		for (size_t i = 0; i < in->n; i++) {
			const struct an_declared *d = AN_AT(in, struct an_declared, i);

			if (an_declare(m->out, d->trace, d->types) < 0)
				return -ENOMEM;
		}
	}
	return 0;
}

/* The classes left out (decode.c), each once, their events summed over the streams. */
static int bad_classes(const struct merge *m)
{
	struct an_vec *out = &m->out->bad_classes;

	for (size_t s = 0; s < m->n; s++) {
		const struct an_vec *in = &m->st[s]->log.bad_classes;

		for (size_t i = 0; i < in->n; i++) {
			const struct an_bad_class *b = AN_AT(in, struct an_bad_class, i);
			struct an_bad_class *to = NULL;

			for (size_t j = 0; j < out->n && !to; j++)
				if (strcmp(AN_AT(out, struct an_bad_class, j)->what, b->what) == 0)
					to = AN_AT(out, struct an_bad_class, j);
			if (!to) {
				to = an_vec_push(out);
				if (!to || !(to->what = strdup(b->what))) {
					if (to)
						out->n--;
					return -ENOMEM;
				}
			}
			to->events += b->events;
		}
	}
	return 0;
}

/* Each CPU's first time: the earliest of its streams' (0 being none, as decode.c has it). */
static int cpu_first(const struct merge *m)
{
	struct an_vec *out = &m->out->cpu_first;

	for (size_t s = 0; s < m->n; s++) {
		const struct an_vec *in = &m->st[s]->log.cpu_first;

		for (size_t c = 0; c < in->n; c++) {
			uint64_t t = *AN_AT(in, uint64_t, c), *to;

			while (out->n <= c)
				if (!an_vec_push(out))
					return -ENOMEM;
			to = AN_AT(out, uint64_t, c);
			if (t && (!*to || t < *to))
				*to = t;
		}
	}
	return 0;
}

int an_merge(struct an_stream *const *streams, size_t n, struct an_log *out)
{
	struct merge m = {.n = n, .out = out};
	int r = -ENOMEM;

	if (!n)
		return 0; /* a trace of its metadata alone */
	m.st = malloc(n * sizeof(*m.st));
	m.next = calloc(n, sizeof(*m.next));
	m.sys = calloc(n, sizeof(*m.sys));
	m.heap = malloc(n * sizeof(*m.heap));
	m.src = calloc(n, sizeof(*m.src));
	m.len = calloc(n, sizeof(*m.len));
	if (!m.st || !m.next || !m.sys || !m.heap || !m.src || !m.len)
		goto out;
	memcpy(m.st, streams, n * sizeof(*m.st));
	qsort(m.st, n, sizeof(*m.st), by_key);
	/*
	 * Two streams alike: the muxer's choice between them is its own. A stream's pieces go
	 * one after the other (the earlier first at the same time) as long as none goes back in
	 * time from the one before.
	 */
	for (size_t s = 1; s < n; s++) {
		const struct an_stream *a = m.st[s - 1], *b = m.st[s];

		if ((a->log.events && b->log.events && cmp_pieces(a, b) == 0) ||
		    (cmp_keys(a, b) == 0 && a->part != b->part && a->timed && b->timed &&
		     b->first_ns < a->last_ns)) {
			r = -EAGAIN;
			goto out;
		}
	}
	for (size_t s = 0; s < n; s++) {
		size_t k = m.st[s]->log.sysnames.n;

		m.sys[s] = malloc((k ? k : 1) * sizeof(int32_t));
		if (!m.sys[s])
			goto out;
		for (size_t i = 0; i < k; i++)
			m.sys[s][i] = -2;
	}
	totals(&m);
	r = cpu_first(&m);
	if (!r)
		r = bad_classes(&m);
	if (!r)
		r = declared(&m);
	if (!r)
		r = lost(&m);
	if (!r)
		r = merge_events(&m);
	if (!r)
		r = replay(&m);
	if (!r)
		r = merge_obs(&m);
out:
	for (size_t s = 0; m.sys && s < n; s++)
		free(m.sys[s]);
	free(m.sys);
	free(m.st);
	free(m.next);
	free(m.heap);
	free(m.src);
	free(m.len);
	return r;
}
