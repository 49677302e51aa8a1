/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The wait that crosses machines. A task woken as a packet is handed to it (the NET_RX
 * softirq, timeline.c notes the packet) waited for whoever sent that packet: the send is found
 * in another host's snapshot by its flow and sequence number, and the sending task's own
 * story over the wait, on that host, becomes the next links of the chain.
 *
 * Clocks: hosts' clocks are aligned from the matched packets only, never from their wall
 * clocks. A packet is received after it is sent, so each one sent from A and received on B
 * bounds B's clock minus A's from above, and each one the other way bounds it from below:
 * the offset is the middle of the tightest bounds, its uncertainty half their distance (the
 * bound method of the distributed-tracing literature). Where those bounds cross, the clocks
 * drifted over the window and a line is fitted instead (clocks.c); two hosts that exchanged
 * nothing are aligned through others, their uncertainties added.
 * A retransmitted segment is matched to its first sending, which keeps its bound true.
 *
 * UDP has no sequence: a datagram is its flow, its length and, over IPv4, its IP id. IPv6
 * has no id, and an IPv4 stack may send id 0 with DF set (RFC 6864's atomic datagrams), so
 * equal datagrams of one flow cannot always be told apart: such a match is never guessed.
 * It is reported as ambiguous, with its candidates, and neither followed nor used to align
 * clocks.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "an.h"
#include "chain.h"
#include "clocks.h"
#include "crosshost.h"

/* A send is searched among those whose sequence start is at most this far before. */
#define SEQ_REACH (1U << 20)
#define SEQ_STEPS 512

struct send {
	uint32_t rel; /* seq - the flow's first seq: increasing, across a wrap too */
	uint32_t pkt;
};

struct flow {
	struct an_vec sends; /* struct send, by rel then time */
	uint32_t base;
};

struct host {
	const char *name;
	struct an_log *log;
	struct an_map by_key; /* flow key -> index in flows + 1 */
	struct an_vec flows;  /* struct flow */
	bool indexed;
};

struct bounds {
	bool done;
	int64_t lo, hi; /* of clock(j) - clock(i) */
	size_t nlo, nhi;
};

struct xh {
	struct host *h;
	size_t n;
	struct bounds *pair;   /* n * n */
	struct clocks *clocks; /* every host's clock against every other's; NULL: none */
};

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const uint8_t *b = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 0x100000001b3ULL;
	return h;
}

static uint64_t flow_key(const struct an_packet *p)
{
	uint64_t h = fnv(0xcbf29ce484222325ULL, &p->family, 1);

	h = fnv(h, &p->proto, 1);
	h = fnv(h, p->saddr, sizeof(p->saddr));
	h = fnv(h, p->daddr, sizeof(p->daddr));
	h = fnv(h, &p->sport, 2);
	h = fnv(h, &p->dport, 2);
	return h ? h : 1;
}

static bool same_flow(const struct an_packet *a, const struct an_packet *b)
{
	return a->family == b->family && a->proto == b->proto && a->sport == b->sport &&
	       a->dport == b->dport && !memcmp(a->saddr, b->saddr, sizeof(a->saddr)) &&
	       !memcmp(a->daddr, b->daddr, sizeof(a->daddr));
}

static bool is_sent(const struct an_log *log, const struct an_packet *p)
{
	return AN_AT(&log->ev, struct an_ev, p->ev)->type == EV_NET_XMIT;
}

static uint64_t pkt_ts(const struct an_log *log, const struct an_packet *p)
{
	return AN_AT(&log->ev, struct an_ev, p->ev)->ts;
}

static int by_rel(const void *a, const void *b)
{
	const struct send *x = a, *y = b;

	if (x->rel != y->rel)
		return x->rel < y->rel ? -1 : 1;
	return x->pkt < y->pkt ? -1 : x->pkt > y->pkt; /* packets are in time order */
}

static int index_host(struct host *h)
{
	if (h->indexed)
		return 0;
	h->flows = (struct an_vec)AN_VEC(struct flow);
	for (size_t i = 0; i < h->log->packets.n; i++) {
		const struct an_packet *p = AN_AT(&h->log->packets, struct an_packet, i);
		bool inserted;
		uint32_t *slot;
		struct flow *f;
		struct send *s;

		if (!is_sent(h->log, p))
			continue;
		slot = an_map_slot(&h->by_key, flow_key(p), &inserted);
		if (!slot)
			return -ENOMEM;
		if (inserted) {
			f = an_vec_push(&h->flows);
			if (!f)
				return -ENOMEM;
			*f = (struct flow){.sends = AN_VEC(struct send), .base = p->seq};
			*slot = (uint32_t)h->flows.n;
		}
		f = AN_AT(&h->flows, struct flow, *slot - 1);
		s = an_vec_push(&f->sends);
		if (!s)
			return -ENOMEM;
		*s = (struct send){.rel = p->proto == 6 ? p->seq - f->base : 0, .pkt = (uint32_t)i};
	}
	for (size_t i = 0; i < h->flows.n; i++) {
		struct flow *f = AN_AT(&h->flows, struct flow, i);

		qsort(f->sends.v, f->sends.n, sizeof(struct send), by_rel);
	}
	an_net_senders(h->log);
	h->indexed = true;
	return 0;
}

static bool covers(const struct an_packet *s, const struct an_packet *r)
{
	if (r->proto == 17)
		return s->len == r->len && (r->family == 6 || s->ipid == r->ipid);
	if (r->len == 0 || s->len == 0)
		return r->len == s->len && r->seq == s->seq && r->ack == s->ack;
	return r->seq - s->seq < s->len;
}

/*
 * The first sending in H of the packet R (from another host's log): NULL if none. *N: how
 * many sends of H match it (a TCP segment and its retransmissions count as one).
 */
static const struct an_packet *find_send(struct host *h, const struct an_packet *r, unsigned *n)
{
	uint32_t *slot = an_map_find(&h->by_key, flow_key(r));
	const struct an_packet *best = NULL;
	const struct flow *f;
	const struct send *s;
	size_t lo = 0, hi;
	uint32_t rel;

	*n = 0;
	if (!slot)
		return NULL;
	f = AN_AT(&h->flows, struct flow, *slot - 1);
	s = f->sends.v;
	rel = r->proto == 6 ? r->seq - f->base : 0;
	hi = f->sends.n;
	while (lo < hi) { /* the first send starting after rel */
		size_t mid = (lo + hi) / 2;

		if (s[mid].rel <= rel)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo, steps = 0; i-- > 0 && steps < SEQ_STEPS; steps++) {
		const struct an_packet *p = AN_AT(&h->log->packets, struct an_packet, s[i].pkt);

		if (rel - s[i].rel > SEQ_REACH)
			break;
		if (!same_flow(p, r) || !covers(p, r))
			continue;
		if (r->proto == 17 || !best)
			(*n)++;
		if (!best || p->ev < best->ev)
			best = p;
	}
	return best;
}

/* Bounds on clock(to) - clock(from) from packets received on FROM that TO sent: lower ones. */
static void bound_from(struct host *from, struct host *to, int64_t *lo, size_t *n)
{
	for (size_t i = 0; i < from->log->packets.n; i++) {
		const struct an_packet *r = AN_AT(&from->log->packets, struct an_packet, i);
		const struct an_packet *s;
		unsigned alike;
		int64_t b;

		if (is_sent(from->log, r) || !(s = find_send(to, r, &alike)) || alike > 1)
			continue;
		b = (int64_t)(pkt_ts(to->log, s) - pkt_ts(from->log, r));
		if (!*n || b > *lo)
			*lo = b;
		(*n)++;
	}
}

static const struct bounds *align(struct xh *x, size_t i, size_t j)
{
	struct bounds *b = &x->pair[i * x->n + j];

	if (b->done)
		return b;
	b->done = true;
	if (index_host(&x->h[i]) < 0 || index_host(&x->h[j]) < 0)
		return b;
	/* received on i, sent by j: clock(j) - clock(i) >= sent - received */
	bound_from(&x->h[i], &x->h[j], &b->lo, &b->nlo);
	/* received on j, sent by i: clock(i) - clock(j) >= ..., so clock(j) - clock(i) <= ... */
	bound_from(&x->h[j], &x->h[i], &b->hi, &b->nhi);
	b->hi = -b->hi;
	return b;
}

/* The clock model of every pair of hosts, from every packet matched to a single sending. */
static struct clocks *clock_model(struct xh *x)
{
	struct clocks *c;

	if (x->n < 2 || x->n > CLOCKS_MAX_HOSTS || !(c = clocks_new(x->n)))
		return NULL;
	for (size_t i = 0; i < x->n; i++)
		if (index_host(&x->h[i]) < 0)
			goto fail;
	for (size_t i = 0; i < x->n; i++) {
		const struct an_log *log = x->h[i].log;

		for (size_t k = 0; k < log->packets.n; k++) {
			const struct an_packet *r = AN_AT(&log->packets, struct an_packet, k);
			const struct an_packet *s = NULL, *found;
			unsigned alike, total = 0;
			size_t from = 0;

			if (is_sent(log, r))
				continue;
			for (size_t j = 0; j < x->n; j++) {
				if (j == i || !(found = find_send(&x->h[j], r, &alike)))
					continue;
				total += alike;
				s = found;
				from = j;
			}
			if (total == 1 &&
			    clocks_add(c, from, i, pkt_ts(x->h[from].log, s), pkt_ts(log, r)) < 0)
				goto fail;
		}
	}
	if (clocks_solve(c) == 0)
		return c;
fail:
	clocks_free(c);
	return NULL;
}

static void offset_of(const struct bounds *b, struct an_crossing *x)
{
	if (b->nlo && b->nhi) {
		x->offset = b->lo + (b->hi - b->lo) / 2;
		x->uncertainty = b->hi >= b->lo ? (b->hi - b->lo) / 2 : 0;
	} else {
		/* One direction only: the bound itself, as if the packets took no time. */
		x->offset = b->nlo ? b->lo : b->hi;
		x->uncertainty = -1;
	}
}

static size_t host_index(const struct xh *x, const struct an_log *log)
{
	for (size_t i = 0; i < x->n; i++)
		if (x->h[i].log == log)
			return i;
	return 0;
}

struct extend {
	struct xh *x;
	struct an_cause *c;
	struct an_vec *out;
	unsigned follows;
	bool cut; /* a crossing not followed: the bounds reached */
	int err;
};

static void extend(struct extend *e, const struct an_vec *in, const struct an_log *dflt);

/*
 * Clock(SI) - clock(RI) at the link's ends (T0, T1 on RI's clock) from the model, directly or
 * through other hosts: X's offset and uncertainty, *AT_T0 the offset at T0. false when the
 * model has no two-way answer (the bounds then say what is known).
 */
static bool modelled(struct extend *e, size_t ri, size_t si, uint64_t t0, uint64_t t1,
		     struct an_crossing *x, int64_t *at_t0)
{
	const struct clocks_pair *p;
	struct clocks_offset o0, o1;
	char path[256];
	size_t len = 0;

	if (!e->x->clocks)
		return false;
	clocks_offset(e->x->clocks, ri, si, t0, &o0);
	clocks_offset(e->x->clocks, ri, si, t1, &o1);
	if (o0.status != CLOCKS_OK || o1.status != CLOCKS_OK)
		return false;
	x->offset = o1.offset;
	x->uncertainty = o0.uncertainty > o1.uncertainty ? o0.uncertainty : o1.uncertainty;
	*at_t0 = o0.offset;
	if (o1.hops > 1) {
		path[0] = 0;
		for (size_t k = 1; k < o1.hops && len < sizeof(path); k++)
			len += (size_t)snprintf(path + len, sizeof(path) - len, "%s%s",
						k > 1 ? ", " : "", e->x->h[o1.path[k]].name);
		an_cause_note(e->c, an_asprintf("%s and %s exchanged no packet: their clocks are "
						"aligned through %s, the uncertainties added",
						e->x->h[ri].name, e->x->h[si].name, path));
		return true;
	}
	p = clocks_direct(e->x->clocks, ri < si ? ri : si, ri < si ? si : ri);
	if (p && p->drifts)
		an_cause_note(e->c, an_asprintf("the clocks of %s and %s drift apart by %.1f ppm "
						"over the snapshots: aligned with the drift",
						e->x->h[ri].name, e->x->h[si].name,
						(double)(p->mid.drift * 1e6L)));
	return true;
}

/* A datagram that several sends match: said, kept as a crossing without a sender. */
static void ambiguous(struct extend *e, struct an_crossing *x, size_t ri, size_t si,
		      const struct an_packet *p, const char *pk)
{
	const struct an_link *l = AN_AT(e->out, struct an_link, x->link);

	x->host = e->x->h[si].name;
	an_cause_note(e->c, an_asprintf("the datagram that woke %s (tid %d) on %s, %s, is one of "
					"%u alike (same flow and length, %s): not told apart, "
					"so not followed",
					an_comm_at(e->x->h[ri].log, l->tid, l->iv.t1), l->tid,
					e->x->h[ri].name, pk, x->candidates,
					p->family == 6 ? "IPv6 carries no IP id"
					: p->ipid == 0 ? "IP id 0, an atomic datagram"
						       : "the same IP id"));
	if (!an_vec_push(&e->c->crossings))
		e->err = -ENOMEM;
	else
		*AN_AT(&e->c->crossings, struct an_crossing, e->c->crossings.n - 1) = *x;
}

/* Link AT (woken by packet P, received on host RI) continued on the host that sent P. */
static void cross(struct extend *e, size_t at, size_t ri, const struct an_packet *p)
{
	const struct an_link *l = AN_AT(e->out, struct an_link, at);
	struct an_crossing x = {.link = at, .sender = -1};
	struct an_vec sub = AN_VEC(struct an_link);
	const struct an_packet *s = NULL;
	const struct bounds *b;
	char pk[160], d[32];
	uint64_t t0, t1, sent, first;
	int64_t at_t0 = 0;
	unsigned depth = l->depth;
	size_t si = 0;

	an_packet_text(p, pk, sizeof(pk));
	for (size_t i = 0; i < e->x->n; i++) {
		const struct an_packet *found;
		unsigned alike;

		if (i == ri || index_host(&e->x->h[i]) < 0 ||
		    !(found = find_send(&e->x->h[i], p, &alike)))
			continue;
		if (!s) {
			s = found;
			si = i;
		}
		x.candidates += alike;
	}
	if (!s) {
		an_cause_note(
			e->c,
			an_asprintf("the packet that woke %s (tid %d) on %s, %s, is in no other "
				    "host's snapshot: it came from outside the incident, or "
				    "before the snapshot of its sender begins",
				    an_comm_at(e->x->h[ri].log, l->tid, l->iv.t1), l->tid,
				    e->x->h[ri].name, pk));
		return;
	}
	if (x.candidates > 1) {
		ambiguous(e, &x, ri, si, p, pk);
		return;
	}
	if (modelled(e, ri, si, l->iv.t0, l->iv.t1, &x, &at_t0))
		goto aligned;
	b = align(e->x, ri, si);
	if (!b->nlo && !b->nhi) {
		an_cause_note(e->c,
			      an_asprintf("%s and %s share no matched packet to align their clocks",
					  e->x->h[ri].name, e->x->h[si].name));
		return;
	}
	offset_of(b, &x);
	at_t0 = x.offset;
	if (b->nlo && b->nhi && b->lo > b->hi) {
		an_dur_text(d, sizeof(d), (uint64_t)(b->lo - b->hi));
		an_cause_note(
			e->c,
			an_asprintf("the clock bounds between %s and %s cross by %s (a clock "
				    "drifting over the snapshot, or a packet matched wrongly): "
				    "the middle is used",
				    e->x->h[ri].name, e->x->h[si].name, d));
	} else if (!b->nlo || !b->nhi) {
		an_cause_note(
			e->c,
			an_asprintf("%s's clock is aligned on %s's by packets in one direction "
				    "only: it is bounded on one side, and the link's timing "
				    "error is unknown",
				    e->x->h[si].name, e->x->h[ri].name));
	}
aligned:
	x.peer = e->x->h[si].log;
	x.candidates = 1;
	x.host = e->x->h[si].name;
	x.sender = s->tid;
	x.sent = sent = pkt_ts(x.peer, s);
	t0 = (uint64_t)((int64_t)l->iv.t0 + at_t0);
	t1 = (uint64_t)((int64_t)l->iv.t1 + x.offset);
	x.remote = sent > t0 ? sent - t0 : 0;
	if (x.remote > l->iv.t1 - l->iv.t0)
		x.remote = l->iv.t1 - l->iv.t0;
	x.flight = t1 > sent ? t1 - sent : 0;
	first = x.peer->first_ts;
	if (first > t0 && x.remote) {
		an_dur_text(d, sizeof(d), first - t0);
		an_cause_note(
			e->c,
			an_asprintf("%s's snapshot begins %s after %s (tid %d) began to wait: "
				    "what its sender did before is unknown",
				    x.host, d, an_comm_at(e->x->h[ri].log, l->tid, l->iv.t0),
				    l->tid));
		t0 = first;
	}
	if (!an_vec_push(&e->c->crossings)) {
		e->err = -ENOMEM;
		return;
	}
	*AN_AT(&e->c->crossings, struct an_crossing, e->c->crossings.n - 1) = x;
	if (x.sender <= 0 || sent <= t0 || depth + 1 >= AN_CHAIN_DEPTH)
		return;
	/* A crossing is a follow too: fan-outs of packets would replay logs K^depth times. */
	if (e->follows >= AN_CHAIN_FOLLOWS || e->out->n >= AN_CHAIN_LINKS) {
		e->cut = true;
		return;
	}
	e->follows++;
	if (an_walk(x.peer, x.sender, t0, sent, depth + 1, &sub, &e->follows) < 0) {
		e->err = -ENOMEM;
	} else {
		for (size_t i = 0; i < sub.n; i++) {
			struct an_link *k = AN_AT(&sub, struct an_link, i);

			k->log = x.peer;
			k->host = x.host;
		}
		extend(e, &sub, x.peer);
	}
	an_vec_free(&sub);
}

static void extend(struct extend *e, const struct an_vec *in, const struct an_log *dflt)
{
	for (size_t i = 0; i < in->n && !e->err; i++) {
		const struct an_link *l = AN_AT(in, struct an_link, i);
		struct an_link *o = an_vec_push(e->out);
		const struct an_log *log = l->log ? l->log : dflt;

		if (!o) {
			e->err = -ENOMEM;
			return;
		}
		*o = *l;
		if (an_blocked(l->iv.state) && l->iv.wake == WK_SOFTIRQ && l->iv.pkt >= 0 &&
		    (size_t)l->iv.pkt < log->packets.n && l->depth + 1 < AN_CHAIN_DEPTH) {
			size_t ri = host_index(e->x, log);

			cross(e, e->out->n - 1, ri,
			      AN_AT(&log->packets, struct an_packet, l->iv.pkt));
		}
	}
}

/* Three hosts whose clocks cannot all be right: said, never averaged away. */
static void note_inconsistent(const struct xh *x, struct an_cause *c)
{
	const struct clocks_triangle *t;
	size_t n = x->clocks ? clocks_inconsistent(x->clocks, &t) : 0;
	char d[32], tol[32];

	for (size_t k = 0; k < n; k++) {
		an_dur_text(d, sizeof(d), (uint64_t)llabs(t[k].discrepancy));
		an_dur_text(tol, sizeof(tol), (uint64_t)t[k].tolerance);
		an_cause_note(c,
			      an_asprintf("the clocks of %s, %s and %s disagree: %s and %s "
					  "aligned directly differ by %s from through %s, beyond "
					  "their uncertainties (%s); one host's timestamps are off",
					  x->h[t[k].i].name, x->h[t[k].j].name, x->h[t[k].k].name,
					  x->h[t[k].i].name, x->h[t[k].k].name, d,
					  x->h[t[k].j].name, tol));
	}
}

int an_crosshost(const struct an_crosshost_host *hosts, size_t n, size_t origin,
		 struct an_vec *causes)
{
	struct xh x = {.n = n};
	int err = 0;

	x.h = calloc(n, sizeof(*x.h));
	x.pair = calloc(n * n, sizeof(*x.pair));
	if (!x.h || !x.pair) {
		free(x.h);
		free(x.pair);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		x.h[i].name = hosts[i].name;
		x.h[i].log = hosts[i].log;
	}
	x.clocks = clock_model(&x);
	for (size_t i = 0; i < causes->n && !err; i++) {
		struct an_cause *c = AN_AT(causes, struct an_cause, i);
		struct an_vec out = AN_VEC(struct an_link);
		struct extend e = {.x = &x, .c = c, .out = &out};

		c->host = x.h[origin].name;
		c->crossings.n = 0;
		extend(&e, &c->links, x.h[origin].log);
		if (c->crossings.n)
			note_inconsistent(&x, c);
		if (e.cut)
			an_cause_note(c, an_asprintf("the chain across hosts was cut after %u "
						     "wakers followed and %zu links",
						     e.follows, out.n));
		if (e.err) {
			an_vec_free(&out);
			err = e.err;
			break;
		}
		an_vec_free(&c->links);
		c->links = out;
		an_cause_story(x.h[origin].log, c);
	}
	for (size_t i = 0; i < n; i++) {
		for (size_t f = 0; f < x.h[i].flows.n; f++)
			an_vec_free(&AN_AT(&x.h[i].flows, struct flow, f)->sends);
		an_vec_free(&x.h[i].flows);
		an_map_free(&x.h[i].by_key);
	}
	clocks_free(x.clocks);
	free(x.h);
	free(x.pair);
	return err;
}

uint64_t an_cross_host_ns(const struct an_cause *c)
{
	uint64_t sum = 0;

	for (size_t i = 0; i < c->crossings.n; i++) {
		const struct an_crossing *x = AN_AT(&c->crossings, struct an_crossing, i);

		if (AN_AT(&c->links, struct an_link, x->link)->depth == 0)
			sum += x->remote;
	}
	return sum;
}

static int by_ns_down(const void *a, const void *b)
{
	const struct an_host_time *x = a, *y = b;

	return (x->ns < y->ns) - (x->ns > y->ns);
}

size_t an_cross_host_split(const struct an_cause *c, struct an_host_time *out, size_t max)
{
	int64_t own[CLOCKS_MAX_HOSTS] = {0}; /* an incident's hosts, as the clock model's */
	const char *hosts[CLOCKS_MAX_HOSTS];
	size_t n = 0, kept = 0;

	for (size_t i = 0; i < c->crossings.n; i++) {
		const struct an_crossing *x = AN_AT(&c->crossings, struct an_crossing, i);
		const struct an_link *l = AN_AT(&c->links, struct an_link, x->link);
		const char *side[2] = {x->host, l->depth ? (l->host ? l->host : c->host) : NULL};

		if (!x->peer || !x->remote)
			continue;
		for (int k = 0; k < 2 && side[k]; k++) {
			size_t h = 0;

			while (h < n && strcmp(hosts[h], side[k]) != 0)
				h++;
			if (h == n) {
				if (n == sizeof(hosts) / sizeof(hosts[0]))
					continue;
				hosts[n++] = side[k];
			}
			/* The sender's side is its own time; the host that waited for it loses it. */
			own[h] += k == 0 ? (int64_t)x->remote : -(int64_t)x->remote;
		}
	}
	for (size_t h = 0; h < n && kept < max; h++)
		if (own[h] > 0)
			out[kept++] =
				(struct an_host_time){.host = hosts[h], .ns = (uint64_t)own[h]};
	qsort(out, kept, sizeof(*out), by_ns_down);
	return kept;
}
