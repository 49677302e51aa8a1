/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * latencyd's text on a terminal: a task name is anyone's to choose (prctl(PR_SET_NAME)), and
 * an alert carries it to the admin's terminal, where an ESC, a BEL or a C1 control would
 * retitle the window, clear the screen or set the clipboard. The text output prints what
 * latencyd sent only once cleaned here: each C0 control (newline and tab included: inside a
 * value they would fake a line or a column), DEL, C1 control (U+0080 to U+009F) and byte that
 * is no valid UTF-8 becomes '?', as latencyd's log does it. Printable UTF-8 stays as it is.
 * --json needs none of it: json-c escapes every control.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "latencyctl.h"

/* The length of the printable UTF-8 character at S, 0 when it is none (a control, a C1,
 * a byte of no valid sequence). */
static size_t printable_len(const unsigned char *s)
{
	size_t n;
	unsigned char lo = 0x80, hi = 0xbf;

	if (s[0] < 0x80)
		return s[0] >= 0x20 && s[0] != 0x7f;
	if (s[0] == 0xc2 && s[1] >= 0x80 && s[1] <= 0x9f)
		return 0; /* C1 */
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4;
	else
		return 0;
	/* No overlong form, no surrogate, nothing above U+10FFFF (RFC 3629's table). */
	if (s[0] == 0xe0)
		lo = 0xa0;
	else if (s[0] == 0xed)
		hi = 0x9f;
	else if (s[0] == 0xf0)
		lo = 0x90;
	else if (s[0] == 0xf4)
		hi = 0x8f;
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < n; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return n;
}

static bool clean(const char *s, bool lines)
{
	for (const unsigned char *p = (const unsigned char *)s; *p;) {
		size_t n = printable_len(p);

		if (!n && !(lines && *p == '\n'))
			return false;
		p += n ? n : 1;
	}
	return true;
}

void text_clean(char *s, bool lines)
{
	unsigned char *in = (unsigned char *)s, *out = in;

	while (*in) {
		size_t n = printable_len(in);

		if (n) {
			memmove(out, in, n);
			out += n;
			in += n;
			continue;
		}
		/* A C1 control is one character: one '?' for its two bytes. */
		n = in[0] == 0xc2 && in[1] >= 0x80 && in[1] <= 0x9f ? 2 : 1;
		*out++ = lines && *in == '\n' ? '\n' : '?';
		in += n;
	}
	*out = 0;
}

char *text_clean_dup(const char *s, bool lines)
{
	char *d = strdup(s ? s : "");

	if (d)
		text_clean(d, lines);
	return d;
}

static void clean_string(struct json_object *v, bool lines)
{
	char *d;

	if (clean(json_object_get_string(v), lines))
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
			if (!clean(k, lines)) {
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
		n += !clean(k, lines);
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
		if (!clean(k2, lines))
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
	char *p;

	if (n < 0 || (size_t)n < size || size < 4)
		return;
	/* Not inside a character: back to its first byte. */
	for (p = buf + size - 4; p > buf && ((unsigned char)*p & 0xc0) == 0x80; p--)
		;
	memcpy(p, "...", 4);
}
