/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The cause of one alert: the affected task's timeline over the alert's interval, then the
 * critical path through the wakeup chain. A blocked interval woken by another task is
 * explained by what that task did over the same interval (running, preempted, or itself
 * blocked and woken by someone: followed recursively, bounded); so is a packet's sender on
 * the same host (loopback, a bridge between containers); an interrupt, softirq or timer
 * ends the chain otherwise. Each link's share is its duration over the alert's.
 */
#include <string.h>

#include "an.h"
#include "chain.h"
#include "sends.h"

/*
 * The unique sending, on this host, of the packet that woke IV (NULL: none, or several not
 * told apart): a packet over loopback or a bridge between containers came from a task here.
 */
static const struct an_packet *sent_here(const struct an_log *log, struct an_sends *sends,
					 const struct an_interval *iv)
{
	const struct an_packet *r, *s;
	unsigned n;

	if (!sends || iv->pkt < 0 || (size_t)iv->pkt >= log->packets.n ||
	    an_sends_build(sends, log) < 0)
		return NULL;
	r = AN_AT(&log->packets, struct an_packet, iv->pkt);
	s = an_sends_find(sends, r, an_packet_ts(log, r), &n);
	return n == 1 ? s : NULL;
}

/* TID's intervals in timeline as links at DEPTH, their wakers followed (an_walk()). */
static int walk(const struct an_log *log, struct an_sends *sends, const struct an_vec *timeline,
		int32_t tid, unsigned depth, struct an_vec *links, unsigned *follows)
{
	int r = 0;

	for (size_t i = 0; r == 0 && i < timeline->n && links->n < AN_CHAIN_LINKS; i++) {
		const struct an_interval *iv = AN_AT(timeline, struct an_interval, i);
		struct an_link *l = an_vec_push(links);
		const struct an_packet *s;

		if (!l) {
			r = -1;
			break;
		}
		*l = (struct an_link){.depth = depth, .iv = *iv, .tid = tid};
		if (!an_blocked(iv->state))
			continue;
		s = iv->wake == WK_SOFTIRQ ? sent_here(log, sends, iv) : NULL;
		if (s)
			l->sender = s->tid;
		if (depth + 1 >= AN_CHAIN_DEPTH || *follows >= AN_CHAIN_FOLLOWS)
			continue;
		if (iv->wake == WK_TASK && iv->who > 0 && iv->who != tid) {
			(*follows)++;
			r = an_walk(log, sends, iv->who, iv->t0, iv->t1, depth + 1, links, follows);
		} else if (s && s->tid > 0 && s->tid != tid && an_packet_ts(log, s) > iv->t0) {
			/* What the sender did from the wait's start until it sent the packet. */
			(*follows)++;
			r = an_walk(log, sends, s->tid, iv->t0, an_packet_ts(log, s), depth + 1,
				    links, follows);
		}
	}
	return r;
}

int an_walk(const struct an_log *log, struct an_sends *sends, int32_t tid, uint64_t t0, uint64_t t1,
	    unsigned depth, struct an_vec *links, unsigned *follows)
{
	struct an_vec timeline = AN_VEC(struct an_interval);
	int r = an_timeline(log, tid, t0, t1, &timeline);

	if (r == 0)
		r = walk(log, sends, &timeline, tid, depth, links, follows);
	an_vec_free(&timeline);
	return r;
}

int an_explain(const struct an_log *log, struct an_sends *sends, const struct an_alert *a,
	       struct an_cause *c)
{
	unsigned follows = 0;
	int r = 0;

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
	/* The chain starts from the task's own timeline: one replay of the log fewer. */
	if (an_timeline(log, a->tid, c->t0, c->t1, &c->timeline) < 0 ||
	    walk(log, sends, &c->timeline, a->tid, 0, &c->links, &follows) < 0)
		r = -1;
	if (r < 0)
		return -1;
	if (follows >= AN_CHAIN_FOLLOWS || c->links.n >= AN_CHAIN_LINKS)
		an_cause_note(
			c, an_asprintf("the chain was cut after %u wakers followed and %zu links",
				       follows, c->links.n));
	an_cause_story(log, c);
	return 0;
}
