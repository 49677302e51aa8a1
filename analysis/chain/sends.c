/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A log's sent packets, indexed to find a received packet's sending (sends.h). Every
 * sending that matches counts, found by binary search: a step cap would miss a datagram
 * followed by many others of its flow, and a walk over them costs the square of their
 * number once every received packet is looked up (the clock model does).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sends.h"

/* A data segment is searched among those whose sequence start is at most this far before. */
#define SEQ_REACH (1ULL << 20)
/* The sequence space: a flow past it in the snapshot sends the same numbers again. */
#define SEQ_CYCLE (1ULL << 32)

/* A data segment, its sequence numbers unwrapped along its flow (in send order). */
struct seg {
	uint64_t start;
	uint64_t reach; /* the furthest end of this segment and those starting before it */
	uint32_t pkt;	/* in the log's packets */
};

/* The highest sequence number a flow had sent (its end) from TS on. */
struct high {
	uint64_t ts, end;
};

struct an_sends_flow {
	uint32_t first;	     /* its first packet in the log's packets: its headers */
	struct an_vec segs;  /* struct seg, by start then time */
	struct an_vec highs; /* struct high, by time, end increasing */
};

/* A packet among those alike (same headers but for the time): by key, headers, time. */
struct alike {
	uint64_t key;
	const struct an_packet *p;
};

uint64_t an_packet_ts(const struct an_log *log, const struct an_packet *p)
{
	return AN_AT(&log->ev, struct an_ev, p->ev)->ts;
}

bool an_packet_sent(const struct an_log *log, const struct an_packet *p)
{
	return AN_AT(&log->ev, struct an_ev, p->ev)->type == EV_NET_XMIT;
}

static uint64_t nonzero(uint64_t h)
{
	return h ? h : 1;
}

/* Found by its sequence: TCP with data (a SYN or FIN counts one). */
static bool has_seq(const struct an_packet *p)
{
	return p->proto == 6 && p->len > 0;
}

/* The headers that tell packets of a flow apart: TCP's numbers, else IPv4's id. */
static uint64_t alike_key(const struct an_packet *p)
{
	uint64_t h = an_fnv(an_flow_hash(p), &p->len, sizeof(p->len));

	if (p->proto == 6) {
		h = an_fnv(h, &p->seq, sizeof(p->seq));
		h = an_fnv(h, &p->ack, sizeof(p->ack));
	} else if (p->family == 4) {
		h = an_fnv(h, &p->ipid, sizeof(p->ipid));
	}
	return h;
}

static int cmp_u(uint64_t a, uint64_t b)
{
	return (a > b) - (a < b);
}

/* The headers alike_key() hashes, compared: 0 for packets that cannot be told apart. */
static int headers_cmp(const struct an_packet *a, const struct an_packet *b)
{
	int c = cmp_u(a->family, b->family);

	c = c ? c : cmp_u(a->proto, b->proto);
	c = c ? c : cmp_u(a->sport, b->sport);
	c = c ? c : cmp_u(a->dport, b->dport);
	c = c ? c : cmp_u(a->len, b->len);
	c = c ? c : memcmp(a->saddr, b->saddr, sizeof(a->saddr));
	c = c ? c : memcmp(a->daddr, b->daddr, sizeof(a->daddr));
	if (a->proto == 6) {
		c = c ? c : cmp_u(a->seq, b->seq);
		c = c ? c : cmp_u(a->ack, b->ack);
	} else if (a->family == 4) {
		c = c ? c : cmp_u(a->ipid, b->ipid);
	}
	return c;
}

/* R (key K) against entry A: its headers' place among the entries. */
static int alike_cmp(uint64_t k, const struct an_packet *r, const struct alike *a)
{
	int c = cmp_u(k, a->key);

	return c ? c : headers_cmp(r, a->p);
}

static int by_alike(const void *x, const void *y)
{
	const struct alike *a = x, *b = y;
	int c = alike_cmp(a->key, a->p, b);

	/* packets are in time order */
	return c ? c : (a->p > b->p) - (a->p < b->p);
}

static int by_start(const void *a, const void *b)
{
	const struct seg *x = a, *y = b;
	int c = cmp_u(x->start, y->start);

	return c ? c : cmp_u(x->pkt, y->pkt);
}

static bool same_flow(const struct an_packet *a, const struct an_packet *b)
{
	return a->family == b->family && a->proto == b->proto && a->sport == b->sport &&
	       a->dport == b->dport && !memcmp(a->saddr, b->saddr, sizeof(a->saddr)) &&
	       !memcmp(a->daddr, b->daddr, sizeof(a->daddr));
}

/* SEQ (32 bits) unwrapped: the one of its wrap cycles nearest REF. */
static uint64_t unwrap(uint64_t ref, uint32_t seq)
{
	return ref + (uint64_t)(int64_t)(int32_t)(seq - (uint32_t)ref);
}

/*
 * The keys tried for P's flow, in turn, until the flow at one has P's headers: a hash
 * crafted to collide with another flow's (packets come from the network) gets its own
 * flow, not a share of the other's sequence numbers.
 */
static uint64_t flow_key(const struct an_packet *p, unsigned attempt)
{
	return nonzero(an_fnv(an_flow_hash(p), &attempt, sizeof(attempt)));
}

static const struct an_sends_flow *flow_find(const struct an_sends *s, const struct an_packet *p)
{
	for (unsigned attempt = 0;; attempt++) {
		const uint32_t *slot = an_map_find(&s->by_flow, flow_key(p, attempt));
		const struct an_sends_flow *f;

		if (!slot)
			return NULL;
		f = AN_AT(&s->flows, struct an_sends_flow, *slot - 1);
		if (same_flow(AN_AT(&s->log->packets, struct an_packet, f->first), p))
			return f;
	}
}

/* P's flow (P packet I), made if P is its first packet; NULL without memory. */
static struct an_sends_flow *flow_get(struct an_sends *s, const struct an_packet *p, uint32_t i)
{
	struct an_sends_flow *f = (struct an_sends_flow *)flow_find(s, p);

	for (unsigned attempt = 0; !f; attempt++) { /* the first key free */
		bool inserted;
		uint32_t *slot = an_map_slot(&s->by_flow, flow_key(p, attempt), &inserted);

		if (!slot)
			return NULL;
		if (!inserted)
			continue;
		f = an_vec_push(&s->flows);
		if (!f)
			return NULL;
		*f = (struct an_sends_flow){
			.first = i, .segs = AN_VEC(struct seg), .highs = AN_VEC(struct high)};
		*slot = (uint32_t)s->flows.n;
	}
	return f;
}

/* P (packet I), sent at TS, added to its flow, its sequence unwrapped by what it sent before. */
static int add_segment(struct an_sends *s, const struct an_packet *p, uint32_t i, uint64_t ts)
{
	struct an_sends_flow *f = flow_get(s, p, i);
	struct high *h = NULL;
	struct seg *g;
	uint64_t start;

	if (!f)
		return -ENOMEM;
	if (f->highs.n)
		h = AN_AT(&f->highs, struct high, f->highs.n - 1);
	/* The first a cycle up: a retransmission of what came before it stays above 0. */
	start = h ? unwrap(h->end - 1, p->seq) : SEQ_CYCLE + p->seq;
	g = an_vec_push(&f->segs);
	if (!g)
		return -ENOMEM;
	*g = (struct seg){.start = start, .pkt = i};
	if (h && start + p->len <= h->end)
		return 0;
	if (h && h->ts == ts) {
		h->end = start + p->len;
		return 0;
	}
	h = an_vec_push(&f->highs);
	if (!h)
		return -ENOMEM;
	*h = (struct high){.ts = ts, .end = start + p->len};
	return 0;
}

/*
 * FWD[i]: packet i is a copy this host handed on (a bridge, a router: sent from the same
 * run of softirq handlers the same packet was received in, on the same CPU), not a
 * sending. A over every packet of the log, sorted by_alike.
 */
static void mark_forwarded(const struct an_log *log, const struct alike *a, size_t n, bool *fwd)
{
	const struct an_packet *base = log->packets.v;
	uint32_t received_in = 0; /* the handler run a receipt of it just before was in */

	for (size_t i = 0; i < n; i++) {
		const struct an_packet *p = a[i].p;

		if (i > 0 && alike_cmp(a[i - 1].key, a[i - 1].p, &a[i]) != 0)
			received_in = 0; /* other headers */
		if (!an_packet_sent(log, p)) {
			received_in = p->handler;
			continue;
		}
		fwd[p - base] = received_in && received_in == p->handler && p->tid < 0;
		received_in = 0;
	}
}

/* Each flow's segments by start, only the first sending of the bytes at each kept. */
static void sort_segments(struct an_sends *s)
{
	for (size_t i = 0; i < s->flows.n; i++) {
		struct an_sends_flow *f = AN_AT(&s->flows, struct an_sends_flow, i);
		struct seg *g = f->segs.v;
		uint64_t reach = 0, len = 0;
		size_t kept = 0;

		qsort(g, f->segs.n, sizeof(*g), by_start);
		for (size_t k = 0; k < f->segs.n; k++) {
			uint64_t l = AN_AT(&s->log->packets, struct an_packet, g[k].pkt)->len;

			if (kept && g[kept - 1].start == g[k].start && l <= len)
				continue; /* sent again, no further: the earlier one is the sending */
			len = l;
			reach = g[k].start + l > reach ? g[k].start + l : reach;
			g[kept] = g[k];
			g[kept++].reach = reach;
		}
		f->segs.n = kept;
	}
}

int an_sends_build(struct an_sends *s, const struct an_log *log)
{
	struct an_vec all = AN_VEC(struct alike);
	const struct an_packet *pk = log->packets.v;
	bool *fwd = NULL;
	size_t kept = 0;
	int r = -ENOMEM;

	if (s->built && s->log == log)
		return 0;
	an_sends_free(s);
	s->log = log;
	s->flows = (struct an_vec)AN_VEC(struct an_sends_flow);
	s->alike = (struct an_vec)AN_VEC(struct alike);
	/* Who sent each packet is the log's own cache, filled once, as the log is read. */
	an_net_senders((struct an_log *)log);
	if (an_vec_reserve(&all, log->packets.n ? log->packets.n : 1) < 0 ||
	    !(fwd = calloc(log->packets.n ? log->packets.n : 1, sizeof(*fwd))))
		goto out;
	for (size_t i = 0; i < log->packets.n; i++)
		*AN_AT(&all, struct alike, all.n++) =
			(struct alike){.key = alike_key(&pk[i]), .p = &pk[i]};
	if (all.n > 1)
		qsort(all.v, all.n, sizeof(struct alike), by_alike);
	mark_forwarded(log, all.v, all.n, fwd);
	/* Segments in send order, for their sequence to be unwrapped along their flow. */
	for (size_t i = 0; i < log->packets.n; i++)
		if (has_seq(&pk[i]) && an_packet_sent(log, &pk[i]) && !fwd[i] &&
		    add_segment(s, &pk[i], (uint32_t)i, an_packet_ts(log, &pk[i])) < 0)
			goto out;
	sort_segments(s);
	/* The other sendings, kept in their order: by headers, then time. */
	for (size_t i = 0; i < all.n; i++) {
		const struct alike *a = AN_AT(&all, struct alike, i);

		if (!has_seq(a->p) && an_packet_sent(log, a->p) && !fwd[a->p - pk])
			*AN_AT(&all, struct alike, kept++) = *a;
	}
	all.n = kept;
	s->alike = all;
	all = (struct an_vec)AN_VEC(struct alike);
	s->built = true;
	r = 0;
out:
	free(fwd);
	an_vec_free(&all);
	if (r < 0)
		an_sends_free(s);
	return r;
}

void an_sends_free(struct an_sends *s)
{
	for (size_t i = 0; i < s->flows.n; i++) {
		an_vec_free(&AN_AT(&s->flows, struct an_sends_flow, i)->segs);
		an_vec_free(&AN_AT(&s->flows, struct an_sends_flow, i)->highs);
	}
	an_vec_free(&s->flows);
	an_vec_free(&s->alike);
	an_map_free(&s->by_flow);
	s->built = false;
}

/* The first sending of F's byte LAST (unwrapped) at LATEST at the latest, in R's flow. */
static const struct an_packet *first_holding(const struct an_sends *s,
					     const struct an_sends_flow *f,
					     const struct an_packet *r, uint64_t last,
					     uint64_t latest)
{
	const struct seg *g = f->segs.v;
	const struct an_packet *best = NULL;
	size_t lo = 0, hi = f->segs.n;

	while (lo < hi) { /* the first segment starting after last */
		size_t mid = lo + (hi - lo) / 2;

		if (g[mid].start <= last)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i-- > 0;) {
		const struct an_packet *p = AN_AT(&s->log->packets, struct an_packet, g[i].pkt);

		if (g[i].reach <= last || last - g[i].start > SEQ_REACH)
			break; /* none from here back holds last */
		if (!same_flow(p, r) || last - g[i].start >= p->len ||
		    an_packet_ts(s->log, p) > latest)
			continue;
		if (!best || p->ev < best->ev)
			best = p;
	}
	return best;
}

static const struct an_packet *find_segment(const struct an_sends *s, const struct an_packet *r,
					    uint64_t latest, unsigned *n)
{
	const struct an_sends_flow *f = flow_find(s, r);
	const struct an_packet *best;
	const struct high *h;
	size_t lo = 0, hi;
	uint64_t last;

	if (!f)
		return NULL;
	h = f->highs.v;
	hi = f->highs.n;
	while (lo < hi) { /* the first high after latest */
		size_t mid = lo + (hi - lo) / 2;

		if (h[mid].ts <= latest)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL; /* nothing of the flow sent by then */
	/*
	 * R's last byte was sent by then: in the cycle at or below the highest byte sent, not
	 * an older one (a receiver gets bytes a window, under 2^30, from the highest sent).
	 */
	last = h[lo - 1].end - 1;
	last -= (uint32_t)((uint32_t)last - (r->seq + r->len - 1));
	best = first_holding(s, f, r, last, latest);
	*n = best != NULL;
	/* With no time to bound it, the same numbers sent a cycle apart are not told apart. */
	if (best && latest == UINT64_MAX && last >= SEQ_CYCLE &&
	    first_holding(s, f, r, last - SEQ_CYCLE, latest))
		(*n)++;
	return best;
}

static const struct an_packet *find_alike(const struct an_sends *s, const struct an_packet *r,
					  uint64_t latest, unsigned *n)
{
	const struct alike *a = s->alike.v;
	uint64_t key = alike_key(r);
	size_t lo = 0, hi = s->alike.n, first, end;

	while (lo < hi) { /* the first entry of R's headers */
		size_t mid = lo + (hi - lo) / 2;

		if (alike_cmp(key, r, &a[mid]) > 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	first = lo;
	hi = s->alike.n;
	while (lo < hi) { /* past the last entry of R's headers, or sent after LATEST */
		size_t mid = lo + (hi - lo) / 2;

		if (alike_cmp(key, r, &a[mid]) == 0 && an_packet_ts(s->log, a[mid].p) <= latest)
			lo = mid + 1;
		else
			hi = mid;
	}
	end = lo;
	*n = (unsigned)(end - first < UINT32_MAX ? end - first : UINT32_MAX);
	return end > first ? a[first].p : NULL;
}

const struct an_packet *an_sends_find(const struct an_sends *s, const struct an_packet *r,
				      uint64_t latest, unsigned *n)
{
	*n = 0;
	if (!s->built)
		return NULL;
	return has_seq(r) ? find_segment(s, r, latest, n) : find_alike(s, r, latest, n);
}
