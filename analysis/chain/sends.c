/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A log's sent packets, indexed to find a received packet's sending (sends.h). Every
 * sending that matches is looked at: a step cap would miss a datagram followed by many
 * others of its flow, and undercount the sendings a datagram cannot be told apart from.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sends.h"

/* A data segment is searched among those whose sequence start is at most this far before. */
#define SEQ_REACH (1U << 20)

struct seg {
	uint32_t rel;	/* seq - the flow's first seq: increasing, across a wrap too */
	uint32_t pkt;	/* in the log's packets */
	uint64_t reach; /* the furthest rel + len of this segment and those before it */
};

struct an_sends_flow {
	struct an_vec segs; /* struct seg, by rel then time */
	uint32_t base;
};

struct alike {
	uint64_t key;
	uint32_t pkt;
};

uint64_t an_packet_ts(const struct an_log *log, const struct an_packet *p)
{
	return AN_AT(&log->ev, struct an_ev, p->ev)->ts;
}

bool an_packet_sent(const struct an_log *log, const struct an_packet *p)
{
	return AN_AT(&log->ev, struct an_ev, p->ev)->type == EV_NET_XMIT;
}

static uint16_t packet_cpu(const struct an_log *log, const struct an_packet *p)
{
	return AN_AT(&log->ev, struct an_ev, p->ev)->cpu;
}

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const uint8_t *b = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 0x100000001b3ULL;
	return h;
}

static uint64_t flow_hash(const struct an_packet *p)
{
	uint64_t h = fnv(0xcbf29ce484222325ULL, &p->family, 1);

	h = fnv(h, &p->proto, 1);
	h = fnv(h, p->saddr, sizeof(p->saddr));
	h = fnv(h, p->daddr, sizeof(p->daddr));
	h = fnv(h, &p->sport, 2);
	return fnv(h, &p->dport, 2);
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

static uint64_t alike_key(const struct an_packet *p)
{
	uint64_t h = fnv(flow_hash(p), &p->len, sizeof(p->len));

	if (p->proto == 6) {
		h = fnv(h, &p->seq, sizeof(p->seq));
		h = fnv(h, &p->ack, sizeof(p->ack));
	} else if (p->family == 4) {
		h = fnv(h, &p->ipid, sizeof(p->ipid));
	}
	return h;
}

static bool same_flow(const struct an_packet *a, const struct an_packet *b)
{
	return a->family == b->family && a->proto == b->proto && a->sport == b->sport &&
	       a->dport == b->dport && !memcmp(a->saddr, b->saddr, sizeof(a->saddr)) &&
	       !memcmp(a->daddr, b->daddr, sizeof(a->daddr));
}

/* S (sent) is R (received), or for a data segment holds R's last byte. */
static bool covers(const struct an_packet *s, const struct an_packet *r)
{
	if (!same_flow(s, r))
		return false;
	if (r->proto != 6)
		return s->len == r->len && (r->family == 6 || s->ipid == r->ipid);
	if (!has_seq(r) || !has_seq(s))
		return r->len == s->len && r->seq == s->seq && r->ack == s->ack;
	return r->seq + r->len - 1 - s->seq < s->len;
}

static int by_rel(const void *a, const void *b)
{
	const struct seg *x = a, *y = b;

	if (x->rel != y->rel)
		return x->rel < y->rel ? -1 : 1;
	return x->pkt < y->pkt ? -1 : x->pkt > y->pkt; /* packets are in time order */
}

static int by_key(const void *a, const void *b)
{
	const struct alike *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->pkt < y->pkt ? -1 : x->pkt > y->pkt;
}

static int add_segment(struct an_sends *s, const struct an_packet *p, uint32_t i)
{
	uint32_t *slot;
	struct an_sends_flow *f;
	struct seg *g;
	bool inserted;

	slot = an_map_slot(&s->by_flow, nonzero(flow_hash(p)), &inserted);
	if (!slot)
		return -ENOMEM;
	if (inserted) {
		f = an_vec_push(&s->flows);
		if (!f)
			return -ENOMEM;
		*f = (struct an_sends_flow){.segs = AN_VEC(struct seg), .base = p->seq};
		*slot = (uint32_t)s->flows.n;
	}
	f = AN_AT(&s->flows, struct an_sends_flow, *slot - 1);
	g = an_vec_push(&f->segs);
	if (!g)
		return -ENOMEM;
	*g = (struct seg){.rel = p->seq - f->base, .pkt = i};
	return 0;
}

int an_sends_build(struct an_sends *s, const struct an_log *log)
{
	if (s->built)
		return 0;
	an_sends_free(s);
	s->log = log;
	s->flows = (struct an_vec)AN_VEC(struct an_sends_flow);
	s->alike = (struct an_vec)AN_VEC(struct alike);
	/* Who sent each packet is the log's own cache, filled once, as the log is read. */
	an_net_senders((struct an_log *)log);
	for (size_t i = 0; i < log->packets.n; i++) {
		const struct an_packet *p = AN_AT(&log->packets, struct an_packet, i);
		struct alike *a;

		if (has_seq(p)) {
			if (an_packet_sent(log, p) && add_segment(s, p, (uint32_t)i) < 0)
				return -ENOMEM;
			continue;
		}
		/* Received ones too: a sending right after one is the packet handed on. */
		a = an_vec_push(&s->alike);
		if (!a)
			return -ENOMEM;
		*a = (struct alike){.key = alike_key(p), .pkt = (uint32_t)i};
	}
	for (size_t i = 0; i < s->flows.n; i++) {
		struct an_sends_flow *f = AN_AT(&s->flows, struct an_sends_flow, i);
		uint64_t reach = 0;

		qsort(f->segs.v, f->segs.n, sizeof(struct seg), by_rel);
		for (size_t k = 0; k < f->segs.n; k++) {
			struct seg *g = AN_AT(&f->segs, struct seg, k);
			uint64_t end = (uint64_t)g->rel +
				       AN_AT(&log->packets, struct an_packet, g->pkt)->len;

			reach = end > reach ? end : reach;
			g->reach = reach;
		}
	}
	if (s->alike.n > 1)
		qsort(s->alike.v, s->alike.n, sizeof(struct alike), by_key);
	s->built = true;
	return 0;
}

void an_sends_free(struct an_sends *s)
{
	for (size_t i = 0; i < s->flows.n; i++)
		an_vec_free(&AN_AT(&s->flows, struct an_sends_flow, i)->segs);
	an_vec_free(&s->flows);
	an_vec_free(&s->alike);
	an_map_free(&s->by_flow);
	s->built = false;
}

static const struct an_packet *find_segment(const struct an_sends *s, const struct an_packet *r,
					    uint64_t latest, unsigned *n)
{
	const uint32_t *slot = an_map_find(&s->by_flow, nonzero(flow_hash(r)));
	const struct an_packet *best = NULL;
	const struct an_sends_flow *f;
	const struct seg *g;
	size_t lo = 0, hi;
	uint32_t rel;

	if (!slot)
		return NULL;
	f = AN_AT(&s->flows, struct an_sends_flow, *slot - 1);
	g = f->segs.v;
	rel = r->seq + r->len - 1 - f->base;
	hi = f->segs.n;
	while (lo < hi) { /* the first segment starting after rel */
		size_t mid = lo + (hi - lo) / 2;

		if (g[mid].rel <= rel)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i-- > 0;) {
		const struct an_packet *p = AN_AT(&s->log->packets, struct an_packet, g[i].pkt);

		if (g[i].reach <= rel || rel - g[i].rel > SEQ_REACH)
			break; /* none from here back holds rel */
		if (!covers(p, r) || an_packet_ts(s->log, p) > latest)
			continue;
		if (!best || p->ev < best->ev)
			best = p;
	}
	*n = best != NULL;
	return best;
}

static const struct an_packet *find_alike(const struct an_sends *s, const struct an_packet *r,
					  uint64_t latest, unsigned *n)
{
	const struct alike *a = s->alike.v;
	const struct an_packet *first = NULL;
	uint64_t key = alike_key(r);
	size_t lo = 0, hi = s->alike.n;
	int received_on = -1; /* the CPU of a receipt of it just before */

	while (lo < hi) { /* the first entry of the key */
		size_t mid = lo + (hi - lo) / 2;

		if (a[mid].key < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i < s->alike.n && a[i].key == key; i++) {
		const struct an_packet *p = AN_AT(&s->log->packets, struct an_packet, a[i].pkt);
		int cpu = packet_cpu(s->log, p);
		bool handed_on;

		if (!covers(p, r))
			continue;
		if (!an_packet_sent(s->log, p)) {
			received_on = cpu;
			continue;
		}
		if (an_packet_ts(s->log, p) > latest)
			break; /* in time order: the rest were sent after R came */
		handed_on = received_on == cpu && p->tid < 0;
		received_on = -1;
		if (handed_on)
			continue;
		(*n)++;
		if (!first)
			first = p;
	}
	return first;
}

const struct an_packet *an_sends_find(const struct an_sends *s, const struct an_packet *r,
				      uint64_t latest, unsigned *n)
{
	*n = 0;
	if (!s->built)
		return NULL;
	return has_seq(r) ? find_segment(s, r, latest, n) : find_alike(s, r, latest, n);
}
