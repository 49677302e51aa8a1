// SPDX-License-Identifier: GPL-2.0-only
/*
 * The kernel stack of an alert, as latencyd knew it (an_known): the trace has only raw
 * addresses, which mean nothing once the machine rebooted or a module went, so latencyd
 * names them at alert time and the analysis shows the names beside the link of the chain
 * they explain.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "an.h"
#include "analysis.h"
#include "chain.h"

const char *an_stack_heading(const char *kind)
{
	if (strcmp(kind, "task") == 0)
		return "where it waited";
	if (strcmp(kind, "waker") == 0)
		return "its waker's at the wakeup";
	if (strcmp(kind, "in") == 0)
		return "where the interval began";
	return "where the alert was raised";
}

/* The stack of alert A: the same tracker and kernel sequence number. */
static const struct an_known_stack *find_stack(const struct an_known *known,
					       const struct an_alert *a)
{
	for (size_t i = 0; i < known->n_stacks; i++) {
		const struct an_known_stack *s = &known->stacks[i];

		if (s->seq == a->seq && s->tracker && strcmp(s->tracker, a->tracker) == 0)
			return s;
	}
	return NULL;
}

/*
 * Links are found again each time the story is written: crosshost.c inserts links.
 * The alert task's own blocked interval that a stack explains: where it waited is the
 * longest one (the one the tracker sampled, being the one that made the alert); the waker's
 * woke the last one, which ended the wait.
 */
void an_stack_place(struct an_cause *c)
{
	const char *kind = c->stack.kind;
	size_t best = SIZE_MAX;
	uint64_t longest = 0;

	c->stack.link = SIZE_MAX;
	if (strcmp(kind, "task") != 0 && strcmp(kind, "waker") != 0)
		return;
	for (size_t i = 0; i < c->links.n; i++) {
		const struct an_link *l = AN_AT(&c->links, struct an_link, i);

		if (l->depth || l->log || !an_blocked(l->iv.state))
			continue;
		if (strcmp(kind, "waker") == 0 || l->iv.t1 - l->iv.t0 > longest) {
			best = i;
			longest = l->iv.t1 - l->iv.t0;
		}
	}
	c->stack.link = best;
}

bool an_stack_attach(struct an_cause *c, const struct an_known *known)
{
	const struct an_known_stack *stack = known ? find_stack(known, &c->alert) : NULL;

	if (!stack || !stack->n_frames)
		return false;
	an_strs_free(&c->stack.frames);
	snprintf(c->stack.kind, sizeof(c->stack.kind), "%s", stack->kind ? stack->kind : "alert");
	for (size_t i = 0; i < stack->n_frames; i++) {
		char **s = an_vec_push(&c->stack.frames);

		if (!s)
			break;
		*s = an_strdup(stack->frames[i]);
	}
	return true;
}
