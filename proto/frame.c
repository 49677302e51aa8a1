/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Framing: one JSON object per line, at most `max` bytes with its newline. The encoder
 * serializes plainly into an output buffer (json-c escapes newlines inside strings, so a
 * frame never holds one); the decoder is a streaming line splitter with a bounded buffer
 * and a strict parser: json-c's, then strict.c for what json-c lets through.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "proto.h"
#include "strict.h"

#define DECODER_CAP_MIN 4096 /* also the first size of an output buffer */
#define SERIALIZE_FLAGS (JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE)

/* The length of the well-formed UTF-8 character at s (of n bytes left); 0: not one. */
static size_t utf8_char(const unsigned char *s, size_t n)
{
	size_t len = s[0] < 0xc2 ? 0 : s[0] < 0xe0 ? 2 : s[0] < 0xf0 ? 3 : s[0] < 0xf5 ? 4 : 0;

	if (!len || len > n)
		return 0;
	for (size_t i = 1; i < len; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	/* Overlong forms, UTF-16 surrogates, past U+10FFFF. */
	if ((s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xed && s[1] >= 0xa0) ||
	    (s[0] == 0xf0 && s[1] < 0x90) || (s[0] == 0xf4 && s[1] >= 0x90))
		return 0;
	return len;
}

/*
 * Strings in a message may hold any bytes (a task's name is whatever the task set), which
 * json-c writes as they are; every reader, this decoder first, refuses a frame that is not
 * UTF-8. Each byte that starts no well-formed character becomes '?', in place: JSON's own
 * syntax is ASCII, so only string contents change.
 */
static void utf8_mend(char *text, size_t len)
{
	unsigned char *s = (unsigned char *)text;

	for (size_t i = 0; i < len;) {
		size_t n = s[i] < 0x80 ? 1 : utf8_char(s + i, len - i);

		if (!n) {
			s[i] = '?';
			n = 1;
		}
		i += n;
	}
}

size_t proto_json_length(struct json_object *o)
{
	size_t len = 0;

	json_object_to_json_string_length(o, JSON_C_TO_STRING_PLAIN, &len);
	return len;
}

/* Appends obj as one frame (its JSON and a newline); fails with -EMSGSIZE above max. */
int proto_buf_add_frame(struct proto_buf *b, struct json_object *obj, size_t max)
{
	const char *s;
	size_t len;

	if (!obj || !json_object_is_type(obj, json_type_object))
		return -EINVAL;
	s = json_object_to_json_string_length(obj, SERIALIZE_FLAGS, &len);
	if (!s)
		return -ENOMEM;
	if (len + 1 > max)
		return -EMSGSIZE;
	if (b->start > 0) {
		memmove(b->data, b->data + b->start, b->len - b->start);
		b->len -= b->start;
		b->start = 0;
	}
	if (b->len + len + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : DECODER_CAP_MIN;
		char *data;

		while (cap < b->len + len + 1)
			cap *= 2;
		data = realloc(b->data, cap);
		if (!data)
			return -ENOMEM;
		b->data = data;
		b->cap = cap;
	}
	memcpy(b->data + b->len, s, len);
	utf8_mend(b->data + b->len, len);
	b->data[b->len + len] = '\n';
	b->len += len + 1;
	return 0;
}

size_t proto_buf_pending(const struct proto_buf *b)
{
	return b->len - b->start;
}

const char *proto_buf_head(const struct proto_buf *b)
{
	return b->data + b->start;
}

void proto_buf_consume(struct proto_buf *b, size_t n)
{
	b->start += n;
	if (b->start >= b->len)
		b->start = b->len = 0;
}

void proto_buf_done(struct proto_buf *b)
{
	if (!b)
		return;
	free(b->data);
	memset(b, 0, sizeof(*b));
}

void proto_decoder_init(struct proto_decoder *d, size_t max)
{
	memset(d, 0, sizeof(*d));
	d->max = max;
}

void proto_decoder_done(struct proto_decoder *d)
{
	if (!d)
		return;
	free(d->buf);
	if (d->tok)
		json_tokener_free(d->tok);
	memset(d, 0, sizeof(*d));
}

/* Free space at the end of the buffer, compacting and growing (up to max) as needed. */
int proto_decoder_space(struct proto_decoder *d, char **ret, size_t *ret_len)
{
	if (d->start > 0 && d->len == d->cap) {
		memmove(d->buf, d->buf + d->start, d->len - d->start);
		d->len -= d->start;
		d->start = 0;
	}
	if (d->len == d->cap && d->cap < d->max) {
		size_t cap = d->cap ? d->cap * 2 : DECODER_CAP_MIN;
		char *buf;

		if (cap > d->max)
			cap = d->max;
		buf = realloc(d->buf, cap);
		if (!buf)
			return -ENOMEM;
		d->buf = buf;
		d->cap = cap;
	}
	*ret = d->buf + d->len;
	*ret_len = d->cap - d->len;
	return 0;
}

void proto_decoder_commit(struct proto_decoder *d, size_t n)
{
	d->len += n;
}

/* Copies as much of data as fits; returns the bytes taken. Drain with next() and repeat. */
ssize_t proto_decoder_feed(struct proto_decoder *d, const void *data, size_t n)
{
	char *space;
	size_t room;
	int r;

	r = proto_decoder_space(d, &space, &room);
	if (r < 0)
		return r;
	if (n > room)
		n = room;
	memcpy(space, data, n);
	proto_decoder_commit(d, n);
	return (ssize_t)n;
}

size_t proto_decoder_pending(const struct proto_decoder *d)
{
	return d->len - d->start;
}

const char *proto_decoder_error(const struct proto_decoder *d)
{
	return d->error;
}

static void consume(struct proto_decoder *d, size_t n)
{
	d->start += n;
	d->scanned = 0;
	if (d->start == d->len)
		d->start = d->len = 0;
}

static int set_error(struct proto_decoder *d, int r, const char *msg, const char *detail)
{
	snprintf(d->error, sizeof(d->error), "%s%s%s", msg, detail ? ": " : "", detail ?: "");
	return r;
}

static bool blank(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r')
			return false;
	return true;
}

static int parse_line(struct proto_decoder *d, const char *line, size_t n, struct json_object **ret)
{
	struct json_object *obj;
	enum json_tokener_error jerr;
	int r;

	if (memchr(line, '\0', n))
		return set_error(d, -EBADMSG, "invalid JSON", "NUL byte in frame");
	if (!d->tok) {
		d->tok = json_tokener_new_ex(PROTO_JSON_DEPTH_MAX);
		if (!d->tok)
			return -ENOMEM;
		json_tokener_set_flags(d->tok, JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8);
	}
	json_tokener_reset(d->tok);
	obj = json_tokener_parse_ex(d->tok, line, (int)n);
	jerr = json_tokener_get_error(d->tok);
	if (jerr == json_tokener_continue)
		return set_error(d, -EBADMSG, "invalid JSON", "incomplete value");
	if (jerr != json_tokener_success)
		return set_error(d, -EBADMSG, "invalid JSON", json_tokener_error_desc(jerr));
	if (!blank(line + json_tokener_get_parse_end(d->tok),
		   n - json_tokener_get_parse_end(d->tok))) {
		json_object_put(obj);
		return set_error(d, -EBADMSG, "invalid JSON", "data after the value");
	}
	if (!json_object_is_type(obj, json_type_object)) {
		json_object_put(obj);
		return set_error(d, -EBADMSG, "frame is not a JSON object", NULL);
	}
	r = proto_json_strict_check(line, json_tokener_get_parse_end(d->tok), obj, d->error,
				    sizeof(d->error));
	if (r < 0) {
		json_object_put(obj);
		return r == -ENOMEM ? set_error(d, r, "out of memory", NULL) : r;
	}
	*ret = obj;
	return 1;
}

/*
 * Returns 1 and a new reference in *ret for each complete frame, 0 when more input is
 * needed, -EMSGSIZE for a frame longer than max, -EBADMSG for a line that is not one JSON
 * object; proto_decoder_error() then says why. After an error the bad frame is gone and the
 * next call goes on with the next line.
 */
int proto_decoder_next(struct proto_decoder *d, struct json_object **ret)
{
	*ret = NULL;
	for (;;) {
		char *line = d->buf + d->start;
		size_t avail = d->len - d->start;
		char *nl;
		size_t n;

		if (avail == 0)
			return 0;
		nl = memchr(line + d->scanned, '\n', avail - d->scanned);
		if (d->discarding) {
			if (!nl) {
				consume(d, avail);
				return 0;
			}
			consume(d, (size_t)(nl - line) + 1);
			d->discarding = false;
			continue;
		}
		if (!nl) {
			d->scanned = avail;
			if (avail < d->max)
				return 0;
			consume(d, avail);
			d->discarding = true;
			snprintf(d->error, sizeof(d->error), "frame exceeds %zu bytes", d->max);
			return -EMSGSIZE;
		}
		n = (size_t)(nl - line);
		consume(d, n + 1);
		if (blank(line, n))
			continue;
		/* consume() keeps the bytes in place until the next space()/commit(). */
		return parse_line(d, line, n, ret);
	}
}
