// SPDX-License-Identifier: GPL-2.0-only
/*
 * A chain that fans out across two hosts: each waiter blocks FANOUT times, each time woken
 * by a packet from a task on the other host that itself blocks FANOUT times, LEVELS deep.
 * Followed without a bound that is FANOUT^LEVELS crossings, each a replay of a log (4^5:
 * 1364; 8^5 took 23 s); the chain's bounds hold across hosts as they do on one.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "an.h"
#include "chain.h"
#include "crosshost.h"
#include "results.h"
#include "tests.h"

#define LEVELS 5
#define FANOUT 4

struct rec {
	uint64_t ts;
	uint16_t cpu, type;
	int32_t a, b;
	uint64_t d;
	bool has_packet;
	struct an_packet p;
	long order;
};

struct host {
	struct rec *r;
	size_t n, cap;
};

static struct host hosts[2];
static long order;
static uint32_t seq = 1000;

static void add(int h, uint64_t ts, int cpu, int type, int32_t a, int32_t b, uint64_t d,
		const struct an_packet *p)
{
	struct host *x = &hosts[h];

	if (x->n == x->cap) {
		x->cap = x->cap ? 2 * x->cap : 1024;
		x->r = realloc(x->r, x->cap * sizeof(*x->r));
		ASSERT_TRUE(x->r);
	}
	x->r[x->n] = (struct rec){.ts = ts,
				  .cpu = (uint16_t)cpu,
				  .type = (uint16_t)type,
				  .a = a,
				  .b = b,
				  .d = d,
				  .has_packet = p != NULL,
				  .order = order++};
	if (p)
		x->r[x->n].p = *p;
	x->n++;
}

static int32_t tid_of(int level)
{
	return 100 + level;
}

/* The task of LEVEL on host H blocked FANOUT times in [s, e], each woken by a packet. */
static void fan(int level, int h, uint64_t s, uint64_t e)
{
	uint64_t w = (e - s) / FANOUT;

	for (int i = 0; i < FANOUT; i++) {
		uint64_t blocked = s + (uint64_t)i * w + 10, woken = s + (uint64_t)(i + 1) * w - 10;
		uint64_t sent = woken - 5;
		struct an_packet p = {
			.family = 4, .proto = 6, .seq = seq++, .len = 1, .flags = 0x10, .tid = -1};
		int other = !h;

		p.saddr[0] = p.daddr[0] = 10;
		p.saddr[3] = (uint8_t)(other + 1);
		p.daddr[3] = (uint8_t)(h + 1);
		p.sport = (uint16_t)(1000 + level + 1);
		p.dport = (uint16_t)(2000 + level);
		add(h, blocked, level, EV_SWITCH, tid_of(level), 0, 1, NULL);
		if (level + 1 < LEVELS)
			fan(level + 1, other, blocked + 1, sent - 2);
		else
			add(other, sent - 1, level + 1, EV_SWITCH, 0, tid_of(level + 1), 0, NULL);
		add(other, sent, level + 1, EV_NET_XMIT, 0, 0, 0, &p);
		add(h, woken, level, EV_SOFTIRQ_ENTRY, 3, 0, 0, NULL);
		add(h, woken, level, EV_NET_RECV, 0, 0, 0, &p);
		add(h, woken + 1, level, EV_WAKING, tid_of(level), level, 0, NULL);
		add(h, woken + 2, level, EV_SOFTIRQ_EXIT, 3, 0, 0, NULL);
		add(h, woken + 3, level, EV_SWITCH, 0, tid_of(level), 0, NULL);
	}
}

static int by_time(const void *a, const void *b)
{
	const struct rec *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

static struct an_result *log_of(int h)
{
	struct an_result *r = an_result_new(h ? "/B" : "/A");

	ASSERT_TRUE(r);
	qsort(hosts[h].r, hosts[h].n, sizeof(struct rec), by_time);
	r->log.ncpu = LEVELS + 1;
	for (size_t i = 0; i < hosts[h].n; i++) {
		const struct rec *x = &hosts[h].r[i];
		struct an_ev *e = an_vec_push(&r->log.ev);

		ASSERT_TRUE(e);
		*e = (struct an_ev){.ts = x->ts,
				    .cpu = x->cpu,
				    .type = x->type,
				    .a = x->a,
				    .b = x->b,
				    .d = x->d};
		if (x->has_packet) {
			struct an_packet *p = an_vec_push(&r->log.packets);

			ASSERT_TRUE(p);
			*p = x->p;
			p->ev = (int32_t)r->log.ev.n - 1;
			e->a = (int32_t)r->log.packets.n - 1;
		}
		if (!r->log.first_ts)
			r->log.first_ts = x->ts;
		r->log.last_ts = x->ts;
		r->log.counts[x->type]++;
		r->log.events++;
	}
	for (int level = 0; level <= LEVELS; level++) {
		struct an_task *t = an_task_get(&r->log, tid_of(level));

		ASSERT_TRUE(t);
		snprintf(t->comm, sizeof(t->comm), "w%d", level);
	}
	free(hosts[h].r);
	return r;
}

int main(void)
{
	const uint64_t t0 = 1700000000ULL * 1000000000ULL, s = t0 + 1000, e = t0 + 1000000000ULL;
	struct an_options opt = {.tables = false};
	struct an_result *a, *b;
	struct an_alert *alert;
	struct an_cause *c;
	char *why = NULL;
	bool said = false;

	add(0, t0, 0, EV_SWITCH, 0, tid_of(0), 0, NULL);
	for (int level = 1; level <= LEVELS; level++)
		add(level & 1, t0, level, EV_SWITCH, 0, tid_of(level), 0, NULL);
	fan(0, 0, s, e);
	a = log_of(0);
	b = log_of(1);
	alert = an_vec_push(&a->log.alerts);
	ASSERT_TRUE(alert);
	*alert = (struct an_alert){.ts = e,
				   .start = s,
				   .end = e,
				   .delay = e - s,
				   .tid = tid_of(0),
				   .pid = tid_of(0),
				   .reason = 1,
				   .seq = 1};
	snprintf(alert->tracker, sizeof(alert->tracker), "offcpu");
	ASSERT_EQ(an_compute(a, &opt, &why), 0);
	ASSERT_EQ(an_compute(b, &opt, &why), 0);
	ASSERT_EQ(an_crosshost((struct an_crosshost_host[]){{"A", &a->log}, {"B", &b->log}}, 2, 0,
			       &a->causes),
		  0);
	c = AN_AT(&a->causes, struct an_cause, 0);
	/* Followed and crossed to, then cut, and said so. */
	ASSERT_TRUE(c->crossings.n > 2 && c->crossings.n <= 2 * AN_CHAIN_FOLLOWS);
	ASSERT_TRUE(c->links.n <= 2 * AN_CHAIN_LINKS);
	for (size_t i = 0; i < c->notes.n; i++)
		said |= strstr(*AN_AT(&c->notes, char *, i), "across hosts was cut") != NULL;
	ASSERT_TRUE(said);
	printf("fan-out across hosts: %zu crossings, %zu links\n", c->crossings.n, c->links.n);
	an_result_free(a);
	an_result_free(b);
	return 0;
}
