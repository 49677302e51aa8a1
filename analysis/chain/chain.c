/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The cause of one alert: the affected task's timeline over the alert's interval, then the
 * critical path through the wakeup chain. A blocked interval woken by another task is
 * explained by what that task did over the same interval (running, preempted, or itself
 * blocked and woken by someone: followed recursively, bounded); an interrupt, softirq or
 * timer ends the chain. Each link's share is its duration over the alert's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "an.h"
#include "chain.h"

#define CHAIN_LINKS   128
/* Each task followed costs a replay of the log: bounded per alert. */
#define CHAIN_FOLLOWS 24

void an_runnable_text(const struct an_log *log, const struct an_interval *iv, char *buf,
		      size_t size)
{
	if (iv->by == 0)
		snprintf(buf, size, "CPU %d idle, waking up", iv->cpu);
	else
		snprintf(buf, size, "CPU %d held by %s (tid %d)", iv->cpu, an_comm(log, iv->by),
			 iv->by);
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
		snprintf(buf, size, "woken by %s (tid %d)", an_comm(log, iv->who), iv->who);
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

int an_walk(const struct an_log *log, int32_t tid, uint64_t t0, uint64_t t1, unsigned depth,
	    struct an_vec *links, unsigned *follows)
{
	struct an_vec hist = AN_VEC(struct an_interval);
	int r = an_history(log, tid, t0, t1, &hist);

	for (size_t i = 0; r == 0 && i < hist.n && links->n < CHAIN_LINKS; i++) {
		const struct an_interval *iv = AN_AT(&hist, struct an_interval, i);
		struct an_link *l = an_vec_push(links);

		if (!l) {
			r = -1;
			break;
		}
		*l = (struct an_link){.depth = depth, .iv = *iv, .tid = tid};
		if (an_blocked(iv->state) && iv->wake == WK_TASK && iv->who > 0 && iv->who != tid &&
		    depth + 1 < AN_CHAIN_DEPTH && *follows < CHAIN_FOLLOWS) {
			(*follows)++;
			r = an_walk(log, iv->who, iv->t0, iv->t1, depth + 1, links, follows);
		}
	}
	an_vec_free(&hist);
	return r;
}

void an_cause_note(struct an_cause *c, char *s)
{
	char **slot = s ? an_vec_push(&c->notes) : NULL;

	if (slot)
		*slot = s;
	else
		free(s);
}

const struct an_crossing *an_crossing_of(const struct an_cause *c, size_t link)
{
	for (size_t i = 0; i < c->crossings.n; i++)
		if (AN_AT(&c->crossings, struct an_crossing, i)->link == link)
			return AN_AT(&c->crossings, struct an_crossing, i);
	return NULL;
}

/* ", woken by a packet from 10.0.0.2:5432 sent by NAME (tid N on HOST)" and its timing. */
static void crossing_text(FILE *f, const struct an_log *log, const struct an_link *l,
			  const struct an_crossing *x, int indent)
{
	const struct an_packet *p =
		AN_AT(&an_link_log(l, log)->packets, struct an_packet, l->iv.pkt);
	char from[64], d[32], u[32];

	an_endpoint_text(p, false, from, sizeof(from));
	if (x->sender > 0)
		fprintf(f, ", woken (%s) by a packet from %s sent by %s (tid %d on %s)",
			an_softirq_name(l->iv.who), from, an_comm(x->peer, x->sender), x->sender,
			x->host);
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

static void story(const struct an_log *log, struct an_cause *c)
{
	uint64_t total = c->t1 - c->t0;
	size_t size = 0;
	char *text = NULL, d[32], w[160];
	FILE *f = open_memstream(&text, &size);

	if (!f)
		return;
	if (c->stack.frames.n)
		an_stack_place(c);
	an_dur_text(d, sizeof(d), c->alert.delay ? c->alert.delay : total);
	fprintf(f, "%s (tid %d) waited %s (%s tracker, %s):\n", c->alert.comm, c->alert.tid, d,
		c->alert.tracker, c->alert.reason == 2 ? "timeout" : "over the threshold");
	if (c->stack.link == SIZE_MAX)
		stack_text(f, &c->stack, 4);
	for (size_t i = 0; i < c->links.n; i++) {
		const struct an_link *l = AN_AT(&c->links, struct an_link, i);
		const struct an_interval *iv = &l->iv;
		uint64_t dur = iv->t1 - iv->t0;

		const struct an_log *lg = an_link_log(l, log);
		const struct an_crossing *x = an_crossing_of(c, i);

		if (l->depth && (i == 0 || AN_AT(&c->links, struct an_link, i - 1)->tid != l->tid ||
				 AN_AT(&c->links, struct an_link, i - 1)->log != l->log))
			fprintf(f, "%*s%s (tid %d%s%s) meanwhile:\n", (int)l->depth * 4, "",
				an_comm(lg, l->tid), l->tid, l->host ? " on " : "",
				l->host ? l->host : "");
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

void an_cause_story(const struct an_log *log, struct an_cause *c)
{
	story(log, c);
}

int an_explain(const struct an_log *log, const struct an_alert *a, struct an_cause *c)
{
	unsigned follows = 0;

	memset(c, 0, sizeof(*c));
	c->alert = *a;
	c->timeline.size = sizeof(struct an_interval);
	c->links.size = sizeof(struct an_link);
	c->notes.size = sizeof(char *);
	c->crossings.size = sizeof(struct an_crossing);
	c->stack.frames.size = sizeof(char *);
	c->stack.link = SIZE_MAX;
	c->t0 = a->start ? a->start : a->ts;
	c->t1 = a->end && a->end >= c->t0 ? a->end : a->ts;
	if (c->t0 < log->first_ts) {
		char d[32];

		an_dur_text(d, sizeof(d), log->first_ts - c->t0);
		an_cause_note(
			c,
			an_asprintf("the snapshot begins %s after the alert's interval: that part "
				    "is unknown",
				    d));
	}
	for (size_t cpu = 0; cpu < log->cpu_first.n; cpu++) {
		uint64_t first = *AN_AT(&log->cpu_first, uint64_t, cpu);
		char d[32];

		if (first <= c->t0 || c->t0 < log->first_ts)
			continue;
		an_dur_text(d, sizeof(d), first - c->t0);
		an_cause_note(
			c,
			an_asprintf("CPU %zu's history in the snapshot starts %s after the alert "
				    "began (the flight recorder overwrote what came before): what "
				    "happened there earlier, a wakeup for one, is missing",
				    cpu, d));
	}
	if (!log->counts[EV_SWITCH])
		an_cause_note(c, an_strdup("no sched_switch events: no timeline can be built"));
	if (!log->counts[EV_WAKING])
		an_cause_note(c, an_strdup("no sched_waking events: wakers cannot be found"));
	if (!log->counts[EV_SYS_ENTRY])
		an_cause_note(
			c,
			an_strdup(
				"no syscall events: the system call of a blocked task is unknown"));
	if (!log->counts[EV_HRTIMER_ENTRY] && !log->counts[EV_TIMER_ENTRY])
		an_cause_note(
			c,
			an_strdup("no timer expiry events: a timer wakeup shows as a wakeup by the "
				  "interrupted task or as unknown"));
	if (!log->counts[EV_IRQ_ENTRY])
		an_cause_note(
			c, an_strdup("no irq_handler events: device wakeups cannot be attributed"));
	if (an_history(log, a->tid, c->t0, c->t1, &c->timeline) < 0 ||
	    an_walk(log, a->tid, c->t0, c->t1, 0, &c->links, &follows) < 0)
		return -1;
	if (follows >= CHAIN_FOLLOWS || c->links.n >= CHAIN_LINKS)
		an_cause_note(
			c, an_asprintf("the chain was cut after %u wakers followed and %zu links",
				       follows, c->links.n));
	story(log, c);
	return 0;
}

void an_cause_free(struct an_cause *c)
{
	an_vec_free(&c->timeline);
	an_vec_free(&c->links);
	an_strs_free(&c->notes);
	an_vec_free(&c->crossings);
	an_strs_free(&c->stack.frames);
	free(c->story);
}

/* The links under link i (deeper, until the depth comes back): the largest at depth + 1. */
static long largest_child(const struct an_cause *c, size_t i)
{
	const struct an_link *p = AN_AT(&c->links, struct an_link, i);
	uint64_t best = 0;
	long at = -1;

	for (size_t j = i + 1; j < c->links.n; j++) {
		const struct an_link *l = AN_AT(&c->links, struct an_link, j);

		if (l->depth <= p->depth)
			break;
		if (l->depth == p->depth + 1 && l->iv.t1 - l->iv.t0 >= best) {
			best = l->iv.t1 - l->iv.t0;
			at = (long)j;
		}
	}
	return at;
}

double an_cause_summary(const struct an_log *log, const struct an_cause *c, char *buf, size_t size)
{
	uint64_t total = c->t1 > c->t0 ? c->t1 - c->t0 : 1, best = 0, unknown = 0;
	size_t n = 0;
	long at = -1;

	buf[0] = 0;
	for (size_t j = 0; j < c->links.n; j++) {
		const struct an_link *l = AN_AT(&c->links, struct an_link, j);
		const struct an_interval *iv = &l->iv;

		/* Unexplained: a leaf of the path whose state or waker is unknown. */
		if (largest_child(c, j) < 0 &&
		    (iv->state == ST_UNKNOWN ||
		     (an_blocked(iv->state) && (iv->wake == WK_NONE || iv->wake == WK_UNKNOWN))))
			unknown += iv->t1 - iv->t0;
		if (l->depth)
			continue;
		if (iv->t1 - iv->t0 >= best) {
			best = iv->t1 - iv->t0;
			at = (long)j;
		}
	}
	while (at >= 0 && n + 1 < size) {
		const struct an_link *l = AN_AT(&c->links, struct an_link, (size_t)at);
		const struct an_log *lg = an_link_log(l, log);
		const struct an_interval *iv = &l->iv;
		const struct an_crossing *x = an_crossing_of(c, (size_t)at);
		char d[32], w[160] = "";

		an_dur_text(d, sizeof(d), iv->t1 - iv->t0);
		if (x)
			snprintf(w, sizeof(w), "woken by a packet from %s", x->host);
		else if (an_blocked(iv->state) && iv->wake != WK_TASK)
			an_wake_text(lg, iv, w, sizeof(w));
		else if (iv->state == ST_RUNNABLE && iv->by > 0)
			snprintf(w, sizeof(w), "preempted by %s (tid %d)", an_comm(lg, iv->by),
				 iv->by);
		n += (size_t)snprintf(buf + n, size - n, "%s%s (tid %d%s%s) %s%s%s %s (%.0f%%)%s%s",
				      n ? " <- " : "", an_comm(lg, l->tid), l->tid,
				      l->host ? " on " : "", l->host ? l->host : "",
				      an_state_name(iv->state), iv->syscall >= 0 ? " in " : "",
				      iv->syscall >= 0 ? an_sysname(lg, iv->syscall) : "", d,
				      100.0 * (double)(iv->t1 - iv->t0) / (double)total,
				      w[0] ? ", " : "", w);
		if (n >= size)
			break;
		at = largest_child(c, (size_t)at);
	}
	return 1.0 - (double)unknown / (double)total;
}
