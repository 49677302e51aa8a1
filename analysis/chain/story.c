/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * An alert's cause told: its story, one line per link of the critical path with the kernel
 * stack under the line it explains, and the phrases that say who woke a task or held its CPU.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "an.h"
#include "chain.h"

void an_runnable_text(const struct an_log *log, const struct an_interval *iv, char *buf,
		      size_t size)
{
	if (iv->by == 0)
		snprintf(buf, size, "CPU %d idle, waking up", iv->cpu);
	else
		snprintf(buf, size, "CPU %d held by %s (tid %d)", iv->cpu,
			 an_comm_at(log, iv->by, iv->by_ts), iv->by);
}

void an_wake_text(const struct an_log *log, const struct an_interval *iv, char *buf, size_t size)
{
	char dev[128] = "", name[64];

	if (iv->dev) {
		an_disk_text(log, (uint32_t)iv->dev, name, sizeof(name));
		snprintf(dev, sizeof(dev), ", completing I/O on %s%s",
			 an_disk_name(log, (uint32_t)iv->dev) ? "" : "block device ", name);
	}
	switch (iv->wake) {
	case WK_TASK:
		snprintf(buf, size, "woken by %s (tid %d)", an_comm_at(log, iv->who, iv->t1),
			 iv->who);
		break;
	case WK_IRQ:
		snprintf(buf, size, "woken by irq %d (%s)%s", iv->who, an_irq_name(log, iv->who),
			 dev);
		break;
	case WK_SOFTIRQ:
		if (iv->via >= 0)
			snprintf(buf, size, "woken by softirq %s raised by irq %d (%s)%s",
				 an_softirq_name(iv->who), iv->via, an_irq_name(log, iv->via), dev);
		else
			snprintf(buf, size, "woken by softirq %s%s", an_softirq_name(iv->who), dev);
		break;
	case WK_TIMER:
		snprintf(buf, size, "woken by a timer expiring");
		break;
	case WK_UNKNOWN:
		snprintf(buf, size, "woken from an interrupt or timer not in the trace");
		break;
	default:
		snprintf(buf, size, "not woken within the interval");
		break;
	}
}

/* ", woken by a packet from 10.0.0.2:5432 sent by NAME (tid N on HOST)" and its timing. */
static void crossing_text(FILE *f, const struct an_log *log, const struct an_link *l,
			  const struct an_crossing *x, int indent)
{
	const struct an_packet *p =
		AN_AT(&an_link_log(l, log)->packets, struct an_packet, l->iv.pkt);
	char from[64], d[32], u[32];

	an_endpoint_text(p, false, from, sizeof(from));
	if (!x->peer) {
		fprintf(f, ", woken (%s) by a %s from %s, one of %u sent alike on %s",
			an_softirq_name(l->iv.who), p->proto == 6 ? "segment" : "datagram", from,
			x->candidates, x->host);
		if (x->hosts > 1)
			fprintf(f, " and %u other host%s", x->hosts - 1, x->hosts > 2 ? "s" : "");
		fprintf(f, ": not told apart, not followed");
		return;
	}
	if (x->sender > 0)
		fprintf(f, ", woken (%s) by a packet from %s sent by %s (tid %d on %s)",
			an_softirq_name(l->iv.who), from, an_comm_at(x->peer, x->sender, x->sent),
			x->sender, x->host);
	else
		fprintf(f, ", woken (%s) by a packet from %s sent by %s from an interrupt",
			an_softirq_name(l->iv.who), from, x->host);
	an_dur_text(d, sizeof(d), x->flight);
	an_dur_text(u, sizeof(u), (uint64_t)(x->uncertainty < 0 ? 0 : x->uncertainty));
	fprintf(f, "\n%*s(%s's side: ", indent, "", x->host);
	an_dur_text(from, sizeof(from), x->remote);
	fprintf(f,
		"%s, then %s from its sending to the wakeup; clocks aligned on the packets "
		"%s %s)",
		from, d, x->uncertainty < 0 ? "on one side only," : "to within",
		x->uncertainty < 0 ? "error unknown" : u);
}

/* The named kernel stack under the line it explains, one frame a line. */
static void stack_text(FILE *f, const struct an_stack *s, int indent)
{
	if (!s->frames.n)
		return;
	fprintf(f, "%*skernel stack, %s:\n", indent, "", an_stack_heading(s->kind));
	for (size_t i = 0; i < s->frames.n; i++)
		fprintf(f, "%*s%s\n", indent + 2, "", *AN_AT(&s->frames, char *, i));
}

/*
 * Whose lines each depth of the story is telling: a task's "meanwhile" header is said
 * once, and not again when its lines resume after a deeper task's; a task that became
 * another (an exec, a rename) is said again, as what it became.
 */
#define TOLD_DEPTHS 32
struct told {
	const struct an_link *at[TOLD_DEPTHS];
};

/* The link's task as it was then. */
static const char *link_comm(const struct an_log *log, const struct an_link *l)
{
	return an_comm_at(an_link_log(l, log), l->tid, l->iv.t0);
}

/* The same task, told from before: 1; the same tid become another: -1; else 0. */
static int same_teller(const struct an_log *log, const struct told *t, const struct an_link *l)
{
	const struct an_link *p = l->depth < TOLD_DEPTHS ? t->at[l->depth] : NULL;

	if (!p || p->tid != l->tid || p->log != l->log)
		return 0;
	return strcmp(link_comm(log, p), link_comm(log, l)) == 0 ? 1 : -1;
}

/* L is told at its depth: the deeper ones are over. */
static void told_at(struct told *t, const struct an_link *l)
{
	for (size_t d = l->depth; d < TOLD_DEPTHS; d++)
		t->at[d] = d == l->depth ? l : NULL;
}

void an_cause_story(const struct an_log *log, struct an_cause *c)
{
	struct told told = {0};
	uint64_t total = c->t1 - c->t0;
	size_t size = 0;
	char *text = NULL, d[32], w[160];
	FILE *f = open_memstream(&text, &size);

	if (!f)
		return;
	if (c->stack.frames.n)
		an_stack_place(c);
	an_dur_text(d, sizeof(d), c->alert.delay ? c->alert.delay : total);
	fprintf(f, "%s (tid %d) waited %s%s (%s tracker, %s):\n", c->alert.comm, c->alert.tid,
		an_alert_discarded(&c->alert) ? "at least " : "", d, c->alert.tracker,
		an_alert_discarded(&c->alert)	       ? "discarded as stale, its end never seen"
		: c->alert.reason == AN_REASON_TIMEOUT ? "timeout"
						       : "over the threshold");
	if (c->stack.link == SIZE_MAX)
		stack_text(f, &c->stack, 4);
	for (size_t i = 0; i < c->links.n; i++) {
		const struct an_link *l = AN_AT(&c->links, struct an_link, i);
		const struct an_interval *iv = &l->iv;
		uint64_t dur = iv->t1 - iv->t0;

		const struct an_log *lg = an_link_log(l, log);
		const struct an_crossing *x = an_crossing_of(c, i);
		int same = same_teller(log, &told, l);

		if (same < 0 || (!l->depth && !same && strcmp(link_comm(log, l), c->alert.comm)))
			fprintf(f, "%*sas %s (tid %d%s%s):\n", (int)l->depth * 4, "",
				link_comm(log, l), l->tid, l->host ? " on " : "",
				l->host ? l->host : "");
		else if (l->depth && !same)
			fprintf(f, "%*s%s (tid %d%s%s) meanwhile:\n", (int)l->depth * 4, "",
				link_comm(log, l), l->tid, l->host ? " on " : "",
				l->host ? l->host : "");
		told_at(&told, l);
		an_dur_text(d, sizeof(d), dur);
		fprintf(f, "%*s- %s (%.1f%%) %s", (int)l->depth * 4 + 2, "", d,
			total ? 100.0 * (double)dur / (double)total : 0.0,
			an_state_name(iv->state));
		if (iv->state == ST_RUNNING)
			fprintf(f, " on CPU %d", iv->cpu);
		if (iv->syscall >= 0 && (an_blocked(iv->state) || iv->state == ST_RUNNING))
			fprintf(f, " in %s", an_sysname(lg, iv->syscall));
		if (iv->state == ST_RUNNABLE && iv->by >= 0) {
			an_runnable_text(lg, iv, w, sizeof(w));
			fprintf(f, ", %s", w);
		}
		if (an_blocked(iv->state) && !x) {
			an_wake_text(lg, iv, w, sizeof(w));
			fprintf(f, ", %s", w);
			if (iv->pkt >= 0 && (size_t)iv->pkt < lg->packets.n) {
				an_endpoint_text(AN_AT(&lg->packets, struct an_packet, iv->pkt),
						 false, w, sizeof(w));
				fprintf(f, ", on a packet from %s", w);
				if (l->sender > 0)
					fprintf(f, " sent by %s (tid %d)",
						an_comm_at(lg, l->sender, iv->t1), l->sender);
				else if (l->sender < 0)
					fprintf(f, " sent on this host from an interrupt");
			}
		}
		if (x)
			crossing_text(f, log, l, x, (int)l->depth * 4 + 4);
		fputc('\n', f);
		if (c->stack.link == i)
			stack_text(f, &c->stack, (int)l->depth * 4 + 6);
	}
	fclose(f);
	free(c->story);
	c->story = text;
}
