/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Packets in the log: how they read, and which task sent each one. A packet is sent from
 * the context of whoever runs on its CPU: a task writing to its socket, or an interrupt or
 * softirq (a retransmission timer, an ACK sent on receive), which is nobody's to blame.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>

#include "an.h"

uint64_t an_fnv(uint64_t h, const void *p, size_t n)
{
	const uint8_t *b = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 0x100000001b3ULL;
	return h;
}

uint64_t an_flow_hash(const struct an_packet *p)
{
	uint64_t h = an_fnv(0xcbf29ce484222325ULL, &p->family, 1);

	h = an_fnv(h, &p->proto, 1);
	h = an_fnv(h, p->saddr, sizeof(p->saddr));
	h = an_fnv(h, p->daddr, sizeof(p->daddr));
	h = an_fnv(h, &p->sport, 2);
	return an_fnv(h, &p->dport, 2);
}

void an_endpoint_text(const struct an_packet *p, bool dst, char *buf, size_t size)
{
	const uint8_t *a = dst ? p->daddr : p->saddr;
	char ip[INET6_ADDRSTRLEN];

	if (!inet_ntop(p->family == 6 ? AF_INET6 : AF_INET, a, ip, sizeof(ip)))
		snprintf(ip, sizeof(ip), "?");
	snprintf(buf, size, p->family == 6 ? "[%s]:%u" : "%s:%u", ip,
		 (unsigned)(dst ? p->dport : p->sport));
}

void an_packet_text(const struct an_packet *p, char *buf, size_t size)
{
	char s[64], d[64];

	an_endpoint_text(p, false, s, sizeof(s));
	an_endpoint_text(p, true, d, sizeof(d));
	if (p->proto == 6)
		snprintf(buf, size, "%s > %s TCP seq %u:%u", s, d, p->seq, p->seq + p->len);
	else if (p->family == 6) /* no IP id */
		snprintf(buf, size, "%s > %s UDP len %u", s, d, p->len);
	else
		snprintf(buf, size, "%s > %s UDP id %u len %u", s, d, p->ipid, p->len);
}

/* The most between one softirq's exit and the next's entry in one pass of __do_softirq:
 * none of the pass's own work comes between, even on an emulated CPU. */
#define SOFTIRQ_PASS_GAP_NS 1000000ULL

void an_net_senders(struct an_log *log)
{
	unsigned ncpu = log->ncpu ? log->ncpu : 1;
	struct ctx {
		int32_t cur;
		int nest;	  /* inside irq or softirq handlers */
		uint32_t handler; /* the run of handlers it is in, 0 for none */
		/* The run its last event ended, a softirq's, and when: the next softirq entered
		 * right after it goes on with it (one pass of __do_softirq, NET_RX then NET_TX). */
		uint32_t ended;
		uint64_t ended_ts;
	} * cpu;
	const struct an_ev *ev = log->ev.v;
	uint32_t runs = 0;

	if (log->senders_known || !log->counts[EV_NET_XMIT])
		return;
	cpu = calloc(ncpu, sizeof(*cpu));
	if (!cpu)
		return;
	/* Until its first switch, a CPU may be in a handler entered before the trace: a run. */
	for (unsigned i = 0; i < ncpu; i++)
		cpu[i] = (struct ctx){.cur = -1, .handler = ++runs};
	for (size_t i = 0; i < log->ev.n; i++) {
		struct ctx *c = &cpu[ev[i].cpu < ncpu ? ev[i].cpu : 0];
		uint32_t ended = c->ended;
		struct an_packet *p;

		c->ended = 0;
		switch (ev[i].type) {
		case EV_SWITCH:
			c->cur = ev[i].b;
			c->nest = 0; /* a handler does not switch: it was left unseen */
			c->handler = 0;
			break;
		case EV_IRQ_ENTRY:
		case EV_SOFTIRQ_ENTRY:
			if (c->nest++)
				break;
			if (ev[i].type != EV_SOFTIRQ_ENTRY || !ended ||
			    ev[i].ts - c->ended_ts > SOFTIRQ_PASS_GAP_NS)
				ended = ++runs ? runs : ++runs; /* 0 is none */
			c->handler = ended;
			break;
		case EV_IRQ_EXIT:
		case EV_SOFTIRQ_EXIT:
			if (c->nest > 0)
				c->nest--;
			if (!c->nest && ev[i].type == EV_SOFTIRQ_EXIT) {
				c->ended = c->handler;
				c->ended_ts = ev[i].ts;
			}
			if (!c->nest)
				c->handler = 0;
			break;
		case EV_NET_XMIT:
		case EV_NET_RECV:
			if (ev[i].a < 0 || (size_t)ev[i].a >= log->packets.n)
				break;
			p = AN_AT(&log->packets, struct an_packet, ev[i].a);
			p->handler = c->handler;
			if (ev[i].type == EV_NET_XMIT)
				p->tid = c->nest || c->cur <= 0 ? -1 : c->cur;
			break;
		default:
			break;
		}
	}
	free(cpu);
	log->senders_known = true;
}
