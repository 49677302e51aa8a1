// SPDX-License-Identifier: GPL-2.0-only
/*
 * The kernel stack of an alert, from latencyd's catalog: the trace has only raw addresses,
 * which mean nothing once the machine rebooted or a module went, so latencyd names them at
 * alert time and the analysis shows the names beside the link of the chain they explain.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <json-c/json.h>

#include "an.h"
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

static struct json_object *member(struct json_object *o, const char *key)
{
	struct json_object *v = NULL;

	return json_object_object_get_ex(o, key, &v) ? v : NULL;
}

/* The catalog's cause of alert A: the same tracker and kernel sequence number. */
static struct json_object *find_cause(struct json_object *causes, const struct an_alert *a)
{
	if (!json_object_is_type(causes, json_type_array))
		return NULL;
	for (size_t i = 0; i < json_object_array_length(causes); i++) {
		struct json_object *c = json_object_array_get_idx(causes, i),
				   *seq = member(c, "seq"), *tracker = member(c, "tracker");

		if (seq && tracker && (uint64_t)json_object_get_int64(seq) == a->seq &&
		    strcmp(json_object_get_string(tracker), a->tracker) == 0)
			return c;
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

bool an_stack_attach(struct an_cause *c, struct json_object *entry)
{
	struct json_object *cause = find_cause(member(entry, "causes"), &c->alert),
			   *stack = member(cause, "stack"), *frames = member(stack, "frames"),
			   *kind = member(stack, "kind");

	if (!json_object_is_type(frames, json_type_array) || !json_object_array_length(frames))
		return false;
	an_strs_free(&c->stack.frames);
	snprintf(c->stack.kind, sizeof(c->stack.kind), "%s",
		 kind ? json_object_get_string(kind) : "alert");
	for (size_t i = 0; i < json_object_array_length(frames); i++) {
		char **s = an_vec_push(&c->stack.frames);

		if (!s)
			break;
		*s = an_strdup(json_object_get_string(json_object_array_get_idx(frames, i)));
	}
	return true;
}
