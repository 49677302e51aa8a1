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
 * A segment the receiver coalesced (GRO) is matched to the sending of its last byte.
 *
 * UDP has no sequence: a datagram is its flow, its length and, over IPv4, its IP id. IPv6
 * has no id, and an IPv4 stack may send id 0 with DF set (RFC 6864's atomic datagrams), so
 * equal datagrams of one flow cannot always be told apart; nor can ACKs with the same
 * numbers, nor a segment two hosts sent alike. Such a match is never guessed: it is
 * reported as ambiguous, with its candidates, and neither followed nor used to align
 * clocks. A sending after the receipt, as far as the clocks tell, is no candidate.
 *
 * A packet sent on the receiving host itself (loopback, a bridge between its containers)
 * is its own: chain.c follows its sender there, and no other host is searched for it. A
 * copy the receiving host handed on (its NIC's packet routed or bridged to a container, in
 * the softirq that received it) is not a sending (sends.h): the other hosts are searched.
 *
 * The clock model looks up every received packet, with no time limit: each look-up is a
 * binary search (sends.c), for the model to cost the packets' number times its logarithm.
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
#include "sends.h"

struct host {
	const char *name;
	struct an_log *log;
	struct an_sends sends;
};

struct bounds {
	bool done;
	int64_t lo, hi; /* of clock(j) - clock(i), within [-INT64_MAX, INT64_MAX] */
	size_t nlo, nhi;
};

struct xh {
	struct host *h;
	size_t n;
	struct bounds *pair;   /* n * n */
	struct clocks *clocks; /* every host's clock against every other's; NULL: none */
};

/* A - B, saturated to [-INT64_MAX, INT64_MAX]: timestamps are the snapshots' to forge. */
static int64_t ts_diff(uint64_t a, uint64_t b)
{
	uint64_t d = a >= b ? a - b : b - a;

	if (d > (uint64_t)INT64_MAX)
		d = (uint64_t)INT64_MAX;
	return a >= b ? (int64_t)d : -(int64_t)d;
}

/* T + D, saturated to [0, UINT64_MAX]. */
static uint64_t ts_shift(uint64_t t, int64_t d)
{
	uint64_t m = d >= 0 ? (uint64_t)d : 0 - (uint64_t)d;

	if (d >= 0)
		return t > UINT64_MAX - m ? UINT64_MAX : t + m;
	return t < m ? 0 : t - m;
}

/* A + B, saturated to [-INT64_MAX, INT64_MAX]. */
static int64_t sat_add(int64_t a, int64_t b)
{
	if (b > 0 && a > INT64_MAX - b)
		return INT64_MAX;
	if (b < 0 && a < -INT64_MAX - b)
		return -INT64_MAX;
	return a + b;
}

static int index_host(struct host *h)
{
	return an_sends_build(&h->sends, h->log);
}

/* R (received on H) was sent on H itself (loopback, a bridge between its containers). */
static const struct an_packet *sent_here(struct host *h, const struct an_packet *r, unsigned *n)
{
	return an_sends_find(&h->sends, r, an_packet_ts(h->log, r), n);
}

/*
 * Bounds on clock(to) - clock(from) from packets received on FROM that TO sent, and that
 * FROM did not send itself: lower ones.
 */
static void bound_from(struct host *from, struct host *to, int64_t *lo, size_t *n)
{
	for (size_t i = 0; i < from->log->packets.n; i++) {
		const struct an_packet *r = AN_AT(&from->log->packets, struct an_packet, i);
		const struct an_packet *s;
		unsigned alike;
		int64_t b;

		if (an_packet_sent(from->log, r) || sent_here(from, r, &alike) ||
		    !(s = an_sends_find(&to->sends, r, UINT64_MAX, &alike)) || alike > 1)
			continue;
		b = ts_diff(an_packet_ts(to->log, s), an_packet_ts(from->log, r));
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

/*
 * The clock model of every pair of hosts, from every packet matched to a single sending on
 * another host (all sendings counted, whenever sent: the clocks are not known yet).
 */
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

			if (an_packet_sent(log, r) || sent_here(&x->h[i], r, &alike))
				continue;
			for (size_t j = 0; j < x->n; j++) {
				if (j == i ||
				    !(found = an_sends_find(&x->h[j].sends, r, UINT64_MAX, &alike)))
					continue;
				total += alike;
				s = found;
				from = j;
			}
			if (total == 1 && clocks_add(c, from, i, an_packet_ts(x->h[from].log, s),
						     an_packet_ts(log, r)) < 0)
				goto fail;
		}
	}
	if (clocks_solve(c) == 0)
		return c;
fail:
	clocks_free(c);
	return NULL;
}

/* The middle of [lo, hi] and half its width, without overflow (each is within INT64_MAX). */
static void offset_of(const struct bounds *b, struct an_crossing *x)
{
	if (b->nlo && b->nhi) {
		int64_t low = b->lo < b->hi ? b->lo : b->hi, high = b->lo < b->hi ? b->hi : b->lo;
		uint64_t half = ((uint64_t)high - (uint64_t)low) / 2;

		x->offset = low + (int64_t)half;
		x->uncertainty = b->hi >= b->lo ? (int64_t)half : 0;
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

/* What packets alike to P share, per protocol. */
static const char *alike_text(const struct an_packet *p)
{
	if (p->proto == 6)
		return p->len ? "same flow and sequence numbers"
			      : "same flow, sequence and acknowledgment numbers, no data";
	return p->family == 6 ? "same flow and length, IPv6 carries no IP id"
	       : p->ipid == 0 ? "same flow and length, IP id 0, an atomic datagram"
			      : "same flow, length and IP id";
}

/* A packet that several sendings match: said, kept as a crossing without a sender. */
static void ambiguous(struct extend *e, struct an_crossing *x, size_t ri, size_t si,
		      const struct an_packet *p, const char *pk)
{
	const struct an_link *l = AN_AT(e->out, struct an_link, x->link);
	char others[48] = "";

	x->host = e->x->h[si].name;
	if (x->hosts > 1)
		snprintf(others, sizeof(others), " and %u other host%s", x->hosts - 1,
			 x->hosts > 2 ? "s" : "");
	an_cause_note(e->c, an_asprintf("the %s that woke %s (tid %d) on %s, %s, is one of %u "
					"alike (%s) sent on %s%s%s: not told apart, so not "
					"followed",
					p->proto == 6 ? "segment" : "datagram",
					an_comm_at(e->x->h[ri].log, l->tid, l->iv.t1), l->tid,
					e->x->h[ri].name, pk, x->candidates, alike_text(p), x->host,
					si == ri ? " itself" : "", others));
	if (!an_vec_push(&e->c->crossings))
		e->err = -ENOMEM;
	else
		*AN_AT(&e->c->crossings, struct an_crossing, e->c->crossings.n - 1) = *x;
}

/*
 * The latest time, on host I's clock, a packet received on RI at RECEIVED can have been
 * sent: by the bounds on the clocks where they do not cross, by the fitted clocks (with a
 * microsecond spared for the rounding of their lines), the later of the two. UINT64_MAX
 * when nothing bounds I's clock from above, or what does is below a packet I sent to RI
 * (the clocks fitted on forged timestamps) or past any clock.
 */
#define ROUNDING_NS 1000
static uint64_t latest_on(struct extend *e, size_t ri, size_t i, uint64_t received)
{
	const struct bounds *b = align(e->x, ri, i);
	int64_t ahead = -INT64_MAX; /* clock(i) - clock(ri), at most */
	bool known = false;
	struct clocks_offset o;

	if (b->nhi && (!b->nlo || b->lo <= b->hi)) {
		ahead = b->hi;
		known = true;
	}
	if (e->x->clocks) {
		clocks_offset(e->x->clocks, ri, i, received, &o);
		if (o.status == CLOCKS_OK && o.uncertainty >= 0) {
			int64_t m = sat_add(sat_add(o.offset, o.uncertainty), ROUNDING_NS);

			ahead = m > ahead ? m : ahead;
			known = true;
		}
	}
	if (!known || (b->nlo && ahead < b->lo) || ahead >= INT64_MAX || ahead <= -INT64_MAX ||
	    (ahead < 0 && received < 0 - (uint64_t)ahead) ||
	    (ahead > 0 && received > UINT64_MAX - (uint64_t)ahead))
		return UINT64_MAX;
	return ts_shift(received, ahead);
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
	uint64_t t0, t1, sent, first, received;
	int64_t at_t0 = 0;
	struct an_sends *peer_sends;
	unsigned depth = l->depth;
	size_t si = 0;

	an_packet_text(p, pk, sizeof(pk));
	/* Sent on RI itself: chain.c followed its sender there, if it could be told apart. */
	if (index_host(&e->x->h[ri]) == 0 && sent_here(&e->x->h[ri], p, &x.candidates)) {
		if (x.candidates > 1) {
			x.hosts = 1;
			ambiguous(e, &x, ri, ri, p, pk);
		}
		return;
	}
	received = an_packet_ts(e->x->h[ri].log, p);
	for (size_t i = 0; i < e->x->n; i++) {
		const struct an_packet *found;
		unsigned alike;

		if (i == ri || index_host(&e->x->h[i]) < 0 ||
		    !(found = an_sends_find(&e->x->h[i].sends, p, latest_on(e, ri, i, received),
					    &alike)))
			continue;
		if (!s) {
			s = found;
			si = i;
		}
		x.candidates += alike;
		x.hosts++;
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
		an_dur_text(d, sizeof(d), (uint64_t)b->lo - (uint64_t)b->hi);
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
	x.candidates = x.hosts = 1;
	x.host = e->x->h[si].name;
	x.sender = s->tid;
	x.sent = sent = an_packet_ts(x.peer, s);
	t0 = ts_shift(l->iv.t0, at_t0);
	t1 = ts_shift(l->iv.t1, x.offset);
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
	peer_sends = &e->x->h[si].sends;
	if (an_walk(x.peer, peer_sends, x.sender, t0, sent, depth + 1, &sub, &e->follows) < 0) {
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
		an_dur_text(d, sizeof(d),
			    t[k].discrepancy < 0 ? 0 - (uint64_t)t[k].discrepancy
						 : (uint64_t)t[k].discrepancy);
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
	for (size_t i = 0; i < n; i++)
		an_sends_free(&x.h[i].sends);
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
		int64_t remote = x->remote > INT64_MAX ? INT64_MAX : (int64_t)x->remote;

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
			own[h] = sat_add(own[h], k == 0 ? remote : -remote);
		}
	}
	for (size_t h = 0; h < n && kept < max; h++)
		if (own[h] > 0)
			out[kept++] =
				(struct an_host_time){.host = hosts[h], .ns = (uint64_t)own[h]};
	qsort(out, kept, sizeof(*out), by_ns_down);
	return kept;
}
