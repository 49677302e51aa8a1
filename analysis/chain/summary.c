/* SPDX-License-Identifier: GPL-2.0-only */
/* An alert's cause in one line: the largest link at each depth, and the share explained. */
#include <stdio.h>

#include "an.h"
#include "chain.h"

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
		if (x && !x->peer)
			snprintf(w, sizeof(w), "woken by one of %u %s alike from %s", x->candidates,
				 AN_AT(&lg->packets, struct an_packet, iv->pkt)->proto == 6
					 ? "segments"
					 : "datagrams",
				 x->host);
		else if (x)
			snprintf(w, sizeof(w), "woken by a packet from %s", x->host);
		else if (an_blocked(iv->state) && iv->wake != WK_TASK)
			an_wake_text(lg, iv, w, sizeof(w));
		else if (iv->state == ST_RUNNABLE && iv->by > 0)
			snprintf(w, sizeof(w), "preempted by %s (tid %d)",
				 an_comm_at(lg, iv->by, iv->by_ts), iv->by);
		n += (size_t)snprintf(buf + n, size - n, "%s%s (tid %d%s%s) %s%s%s %s (%.0f%%)%s%s",
				      n ? " <- " : "", an_comm_at(lg, l->tid, iv->t0), l->tid,
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
