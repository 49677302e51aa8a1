/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What json-c accepts even with JSON_TOKENER_STRICT and JSON is not, refused after its parse
 * from the frame's text and its tree: a member name twice in one object (json-c keeps the
 * last, so {"command":"status","command":"reload"} would run reload), NaN and Infinity,
 * a number past a double's range (read as infinity), single-quoted names, raw control
 * characters inside strings, "1." without decimals, and a member name holding \u0000
 * (json-c cuts names at the NUL: "a\u0000b" would be "a").
 *
 * The text has parsed, so it is JSON but for these: the checks only tell strings apart from
 * the rest. All are linear in the frame's length; the duplicate's name is looked for, in
 * O(n log n), only once the members counted in the text outnumber those in the tree.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "strict.h"

#define NAME_SHOWN 64 /* bytes of a member name in a message */

struct check {
	const char *s;
	size_t n;
	char *why;
	size_t whylen;
};

static int fail(struct check *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int fail(struct check *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(c->why, c->whylen, fmt, ap);
	va_end(ap);
	return -EBADMSG;
}

static bool is_space(char ch)
{
	return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n';
}

static bool is_digit(char ch)
{
	return ch >= '0' && ch <= '9';
}

/* Up to NAME_SHOWN bytes of name, not cutting a UTF-8 character. */
static int shown(const char *name, size_t len)
{
	if (len <= NAME_SHOWN)
		return (int)len;
	len = NAME_SHOWN;
	while (len > 0 && ((unsigned char)name[len] & 0xc0) == 0x80)
		len--;
	return (int)len;
}

/*
 * The string starting at c->s[i] (its opening quote): the index past its closing quote, or
 * 0 after fail(). *nul: it holds \u0000.
 */
static size_t string_end(struct check *c, size_t i, bool *nul)
{
	*nul = false;
	for (size_t j = i + 1; j < c->n; j++) {
		unsigned char b = (unsigned char)c->s[j];

		if (b == '"')
			return j + 1;
		if (b < 0x20) {
			fail(c,
			     "invalid JSON: a raw control character (0x%02x) in a string at "
			     "column %zu: write it escaped (\\u%04x)",
			     b, j + 1, b);
			return 0;
		}
		if (b != '\\')
			continue;
		if (j + 5 < c->n && c->s[j + 1] == 'u' && memcmp(c->s + j + 2, "0000", 4) == 0)
			*nul = true;
		j++; /* the escaped character: never the closing quote */
	}
	fail(c, "invalid JSON: unterminated string at column %zu", i + 1);
	return 0;
}

/* The text's own checks; *members: the member names (a ':' outside strings each). */
static int check_text(struct check *c, size_t *members)
{
	bool name_nul = false;
	size_t name_at = 0;

	*members = 0;
	for (size_t i = 0; i < c->n;) {
		char ch = c->s[i];

		if (ch == '"') {
			name_at = i;
			i = string_end(c, i, &name_nul);
			if (!i)
				return -EBADMSG;
			continue;
		}
		if (ch == '\'')
			return fail(c,
				    "invalid JSON: a single quote at column %zu: names and strings "
				    "take double quotes",
				    i + 1);
		if (ch == 'N' || ch == 'I')
			return fail(
				c, "invalid JSON: NaN or Infinity at column %zu: not a JSON number",
				i + 1);
		if (ch == '.' && (i + 1 >= c->n || !is_digit(c->s[i + 1])))
			return fail(c,
				    "invalid JSON: a number without digits after its decimal point "
				    "at column %zu",
				    i + 1);
		if (ch == ':') {
			/* A name is the last string before its colon. */
			if (name_nul)
				return fail(
					c,
					"invalid JSON: a NUL byte (\\u0000) in the member name at "
					"column %zu",
					name_at + 1);
			(*members)++;
		}
		i++;
	}
	return 0;
}

/* Members of every object in the tree; fails on a double that is not finite. */
static int check_tree(struct check *c, struct json_object *o, const char *name, size_t *members)
{
	int r = 0;

	switch (json_object_get_type(o)) {
	case json_type_object:
		*members += (size_t)json_object_object_length(o);
		json_object_object_foreach(o, key, val)
		{
			r = check_tree(c, val, key, members);
			if (r < 0)
				return r;
		}
		return 0;
	case json_type_array:
		for (size_t i = 0; r >= 0 && i < json_object_array_length(o); i++)
			r = check_tree(c, json_object_array_get_idx(o, i), name, members);
		return r;
	case json_type_double:
		if (isfinite(json_object_get_double(o)))
			return 0;
		return fail(c, "invalid JSON: the number %.32s in member '%.*s' is out of range",
			    json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN),
			    shown(name, strlen(name)), name);
	default:
		return 0;
	}
}

static unsigned hex(char ch)
{
	return is_digit(ch) ? (unsigned)(ch - '0') : (unsigned)((ch | 0x20) - 'a' + 10);
}

static size_t put_utf8(char *out, unsigned cp)
{
	if (cp < 0x80) {
		out[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		out[0] = (char)(0xc0 | cp >> 6);
		out[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		out[0] = (char)(0xe0 | cp >> 12);
		out[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		out[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	out[0] = (char)(0xf0 | cp >> 18);
	out[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
	out[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
	out[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

/*
 * The string s[0..len) (between its quotes, escapes valid) as json-c stores it, into out
 * (len bytes at least); its length. A surrogate not in a pair is U+FFFD, as json-c has it.
 */
static size_t unescape(const char *s, size_t len, char *out)
{
	static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
	size_t n = 0;

	for (size_t i = 0; i < len;) {
		unsigned cp, lo;

		if (s[i] != '\\') {
			out[n++] = s[i++];
			continue;
		}
		if (s[i + 1] != 'u') {
			out[n++] = to[strchr(from, s[i + 1]) - from];
			i += 2;
			continue;
		}
		cp = hex(s[i + 2]) << 12 | hex(s[i + 3]) << 8 | hex(s[i + 4]) << 4 | hex(s[i + 5]);
		i += 6;
		if (cp >= 0xd800 && cp < 0xdc00 && i + 5 < len && s[i] == '\\' && s[i + 1] == 'u') {
			lo = hex(s[i + 2]) << 12 | hex(s[i + 3]) << 8 | hex(s[i + 4]) << 4 |
			     hex(s[i + 5]);
			if (lo >= 0xdc00 && lo < 0xe000) {
				cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
				i += 6;
			}
		}
		if (cp >= 0xd800 && cp < 0xe000)
			cp = 0xfffd;
		n += put_utf8(out + n, cp);
	}
	return n;
}

struct name {
	const char *p;
	size_t len, at;
};

static int name_cmp(const void *a, const void *b)
{
	const struct name *x = a, *y = b;
	int r = memcmp(x->p, y->p, x->len < y->len ? x->len : y->len);

	return r ? r : (x->len > y->len) - (x->len < y->len);
}

/* Sorts one object's names; fails on the first name it holds twice. */
static int unique(struct check *c, struct name *v, size_t n)
{
	qsort(v, n, sizeof(*v), name_cmp);
	for (size_t i = 1; i < n; i++)
		if (name_cmp(&v[i - 1], &v[i]) == 0)
			return fail(c, "duplicate member '%.*s' at column %zu",
				    shown(v[i].p, v[i].len), v[i].p,
				    (v[i].at > v[i - 1].at ? v[i].at : v[i - 1].at) + 1);
	return 0;
}

/* The name found twice in one object: a stack of the open objects' names, sorted as each
 * closes. The text holds MEMBERS names. */
static int find_duplicate(struct check *c, size_t members)
{
	size_t open[STRICT_DEPTH_MAX], depth = 0, top = 0, used = 0;
	struct name *names = calloc(members + 1, sizeof(*names));
	char *buf = malloc(c->n + 1);
	int r = 0;

	if (!names || !buf) {
		free(names);
		free(buf);
		return -ENOMEM;
	}
	for (size_t i = 0; r == 0 && i < c->n; i++) {
		char ch = c->s[i];
		size_t end, k;
		bool nul;

		if (ch == '{') {
			if (depth == STRICT_DEPTH_MAX) {
				r = fail(c, "invalid JSON: nested deeper than %d",
					 STRICT_DEPTH_MAX);
				break;
			}
			open[depth++] = top;
		} else if (ch == '}' && depth > 0) {
			depth--;
			r = unique(c, names + open[depth], top - open[depth]);
			top = open[depth];
		} else if (ch == '"') {
			end = string_end(c, i, &nul);
			if (!end) {
				r = -EBADMSG;
				break;
			}
			for (k = end; k < c->n && is_space(c->s[k]); k++)
				;
			if (k < c->n && c->s[k] == ':' && top < members) {
				const char *raw = c->s + i + 1;
				size_t len = end - i - 2;

				if (memchr(raw, '\\', len)) {
					names[top] = (struct name){buf + used, 0, i};
					names[top].len = unescape(raw, len, buf + used);
					used += names[top].len;
				} else {
					names[top] = (struct name){raw, len, i};
				}
				top++;
			}
			i = end - 1;
		}
	}
	free(names);
	free(buf);
	if (r == 0)
		r = fail(c, "duplicate member names");
	return r;
}

int proto_json_strict_check(const char *text, size_t len, struct json_object *obj, char *why,
			    size_t whylen)
{
	struct check c = {.s = text, .n = len, .why = why, .whylen = whylen};
	size_t in_text, in_tree = 0;
	int r;

	r = check_text(&c, &in_text);
	if (r == 0)
		r = check_tree(&c, obj, "", &in_tree);
	if (r == 0 && in_tree != in_text)
		r = find_duplicate(&c, in_text);
	return r;
}
