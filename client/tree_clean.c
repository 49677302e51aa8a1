/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * latencyd's replies on a terminal: an alert carries a task name, anyone's to choose, to the
 * admin's terminal. The text output prints a reply only once every string and member name
 * in it is cleaned (text_clean.h, the rules latencyd's log follows too). --json needs none
 * of it: json-c escapes every control.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "latencyctl.h"
#include "text_clean.h"

static void clean_string(struct json_object *v, bool lines)
{
	char *d;

	if (text_is_clean(json_object_get_string(v), lines))
		return;
	d = text_clean_dup(json_object_get_string(v), lines);
	/* Out of memory: nothing of it shown rather than the raw bytes. */
	if (!d || json_object_set_string(v, d) != 1)
		json_object_set_string(v, "?");
	free(d);
}

/* Out of memory: a member whose name cannot be cleaned is dropped rather than printed. */
static void drop_dirty_keys(struct json_object *o, bool lines)
{
	bool again = true;

	while (again) {
		again = false;
		json_object_object_foreach(o, k, v)
		{
			(void)v;
			if (!text_is_clean(k, lines)) {
				json_object_object_del(o, k);
				again = true;
				break;
			}
		}
	}
}

/* A member's name is printed too (config's keys): a dirty one is put back cleaned. */
static void clean_keys(struct json_object *o, bool lines)
{
	size_t n = 0, i = 0;
	char **dirty;

	json_object_object_foreach(o, k, v)
	{
		(void)v;
		n += !text_is_clean(k, lines);
	}
	if (n == 0)
		return;
	dirty = calloc(n, sizeof(*dirty));
	if (!dirty) {
		drop_dirty_keys(o, lines);
		return;
	}
	json_object_object_foreach(o, k2, v2)
	{
		(void)v2;
		if (!text_is_clean(k2, lines))
			dirty[i++] = strdup(k2);
	}
	for (i = 0; i < n; i++) {
		struct json_object *val = NULL;
		char *name = dirty[i] ? text_clean_dup(dirty[i], lines) : NULL;

		if (name && json_object_object_get_ex(o, dirty[i], &val)) {
			json_object_get(val);
			json_object_object_del(o, dirty[i]);
			if (json_object_object_add(o, name, val) != 0)
				json_object_put(val);
		}
		free(name);
		free(dirty[i]);
	}
	free(dirty);
	drop_dirty_keys(o, lines);
}

void text_clean_tree(struct json_object *o, bool lines)
{
	switch (json_object_get_type(o)) {
	case json_type_string:
		clean_string(o, lines);
		break;
	case json_type_array:
		for (size_t i = 0; i < json_object_array_length(o); i++)
			text_clean_tree(json_object_array_get_idx(o, i), lines);
		break;
	case json_type_object:
		clean_keys(o, lines);
		json_object_object_foreach(o, k, v)
		{
			(void)k;
			text_clean_tree(v, lines);
		}
		break;
	default:
		break;
	}
}

void text_cut(char *buf, size_t size, int n)
{
	if (n < 0 || (size_t)n < size || size < 4)
		return;
	memcpy(buf + text_cut_len(buf, size - 4), "...", 4);
}
