// SPDX-License-Identifier: GPL-2.0-only
/* latencyd-reader's result (reader_result.h): one table, its history and analysis the catalog's. */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "entry.h"
#include "entry_tables.h"
#include "history.h"
#include "proto.h"
#include "reader_result.h"

#define FIELD(key, type_, member, ...)                                                             \
	{                                                                                          \
		.name = key, .type = type_, .offset = offsetof(struct reader_result, member),      \
		__VA_ARGS__                                                                        \
	}

static const struct codec_field result_fields[] = {
	FIELD(PROTO_KEY_ERROR, CODEC_STRING, error, .flags = CODEC_OPTIONAL),
	FIELD(PROTO_KEY_HISTORY, CODEC_OBJECT, history, .flags = CODEC_OPTIONAL,
	      .sub = &catalog_history_table),
	FIELD(PROTO_KEY_ANALYSIS, CODEC_OBJECT, analysis, .flags = CODEC_OPTIONAL,
	      .sub = &catalog_analysis_table),
	{0},
};

static const struct codec_table result_table = {
	.what = "reader's result",
	.size = sizeof(struct reader_result),
	.fields = result_fields,
	.extra = CODEC_NO_EXTRA,
};

struct json_object *reader_result_to_json(const struct reader_result *r)
{
	return codec_encode(&result_table, r, 0);
}

struct problems {
	char *why;
	size_t whylen;
	bool any;
};

static void problem(void *arg, const char *field, const char *what)
{
	struct problems *p = arg;

	if (!p->any)
		snprintf(p->why, p->whylen, "%s: %s", field, what);
	p->any = true;
}

/* A stream the parent can hold and sum: a channel name that fits, a CPU number. */
static int check_stream(const struct catalog_stream *s, size_t i, char *why, size_t whylen)
{
	const struct history_stream h = {
		.events = s->events, .first_ns = s->first_ns, .last_ns = s->last_ns};

	if (!s->channel || !s->channel[0] ||
	    strlen(s->channel) >= sizeof(((struct history_stream *)0)->channel))
		return snprintf(why, whylen, "history.streams[%zu]: no channel name, or too long",
				i),
		       -EINVAL;
	if (s->cpu < -1 || s->cpu > INT_MAX)
		return snprintf(why, whylen, "history.streams[%zu]: cpu %lld out of range", i,
				(long long)s->cpu),
		       -EINVAL;
	if (s->span_ns != history_span(&h))
		return snprintf(why, whylen,
				"history.streams[%zu]: span_ns is not its last_ns - first_ns", i),
		       -EINVAL;
	return 0;
}

static int check(const struct reader_result *r, bool want_analysis, char *why, size_t whylen)
{
	const struct catalog_analysis *a = r->analysis;
	int e;

	if (!r->error == !r->history)
		return snprintf(why, whylen, "neither a history nor an error, or both"), -EINVAL;
	if ((r->history && r->history->n_streams > READER_STREAMS_MAX) ||
	    (a && (a->n_causes > READER_CAUSES_MAX || a->n_problems > READER_PROBLEMS_MAX ||
		   a->n_missing_events > READER_MISSING_MAX)))
		return snprintf(why, whylen,
				"more streams, causes, problems or missing events than "
				"a reader sends"),
		       -EINVAL;
	if (r->history && r->history->streams_total != r->history->n_streams)
		return snprintf(why, whylen, "history: %zu streams, streams_total says %llu",
				r->history->n_streams,
				(unsigned long long)r->history->streams_total),
		       -EINVAL;
	for (size_t i = 0; r->history && i < r->history->n_streams; i++)
		if ((e = check_stream(&r->history->streams[i], i, why, whylen)) < 0)
			return e;
	if (!want_analysis != !a)
		return snprintf(why, whylen,
				want_analysis ? "no analysis" : "an analysis not asked for"),
		       -EINVAL;
	if (a && (!a->status || (strcmp(a->status, "done") && strcmp(a->status, "partial") &&
				 strcmp(a->status, "failed"))))
		return snprintf(why, whylen, "analysis: status %s",
				a->status ? a->status : "missing"),
		       -EINVAL;
	if (a && !strcmp(a->status, "failed") && !a->error)
		return snprintf(why, whylen, "analysis: failed, but no error said"), -EINVAL;
	return 0;
}

int reader_result_shape(const char *text, size_t len, char *why, size_t whylen)
{
	size_t tokens = 0, string = 0;
	bool in = false;

	for (size_t i = 0; i < len; i++) {
		char c = text[i];

		if (!in) {
			in = c == '"';
			string = 0;
			tokens += c == '{' || c == '[' || c == ',' || c == ':';
			if (tokens > READER_TOKENS_MAX)
				return snprintf(why, whylen, "more than %u values",
						READER_TOKENS_MAX),
				       -E2BIG;
			continue;
		}
		if (++string > READER_STRING_MAX)
			return snprintf(why, whylen, "a string of more than %u bytes",
					READER_STRING_MAX),
			       -E2BIG;
		if (c == '"')
			in = false;
		else if (c == '\\')
			i++; /* the escaped character, a quote maybe */
	}
	return 0;
}

int reader_result_from_json(struct json_object *o, bool want_analysis, struct reader_result *r,
			    char *why, size_t whylen)
{
	struct problems p = {.why = why, .whylen = whylen};
	struct json_object *again;
	int e;

	memset(r, 0, sizeof(*r));
	e = codec_decode(&result_table, o, r, problem, &p);
	if (e == -EINVAL)
		snprintf(why, whylen, "not a JSON object");
	if (e == 0 && p.any)
		e = -EINVAL;
	if (e == 0)
		e = check(r, want_analysis, why, whylen);
	/* What was decoded, written again, is what was sent: no member missing that its kind
	 * writes, none that it does not (a failed analysis with results). */
	if (e == 0) {
		again = reader_result_to_json(r);
		if (!again)
			e = -ENOMEM;
		else if (!json_object_equal(again, o))
			e = -EINVAL, snprintf(why, whylen, "members missing or out of place");
		json_object_put(again);
	}
	if (e == -ENOMEM)
		snprintf(why, whylen, "no memory");
	if (e < 0)
		reader_result_free(r);
	return e;
}

void reader_result_free(struct reader_result *r)
{
	codec_free(&result_table, r);
}

struct catalog_history *reader_history_new(const struct history *h, size_t n)
{
	struct catalog_history *o = calloc(1, sizeof(*o));
	int r = 0;

	if (!o || !(o->streams = calloc(n ? n : 1, sizeof(*o->streams)))) {
		free(o);
		return NULL;
	}
	o->streams_total = h->n;
	for (size_t i = 0; i < n && r == 0; i++) {
		const struct history_stream *s = &h->streams[i];

		o->streams[i] = (struct catalog_stream){
			.channel = catalog_strdup(s->channel, &r),
			.cpu = s->cpu,
			.events = s->events,
			.bytes = s->bytes,
			.first_ns = s->first_ns,
			.last_ns = s->last_ns,
			.span_ns = history_span(s),
		};
		o->n_streams++;
	}
	if (r < 0) {
		catalog_history_free(o);
		return NULL;
	}
	return o;
}

struct catalog_history *reader_history_out(const struct history *h)
{
	return reader_history_new(h, h->n);
}

int reader_history_in(const struct catalog_history *c, struct history *h)
{
	memset(h, 0, sizeof(*h));
	h->streams = calloc(c->n_streams ? c->n_streams : 1, sizeof(*h->streams));
	if (!h->streams)
		return -ENOMEM;
	for (size_t i = 0; i < c->n_streams; i++) {
		const struct catalog_stream *s = &c->streams[i];
		struct history_stream *d = &h->streams[h->n++];

		snprintf(d->channel, sizeof(d->channel), "%s", s->channel);
		d->cpu = (int)s->cpu;
		d->events = s->events;
		d->bytes = s->bytes;
		d->first_ns = s->first_ns;
		d->last_ns = s->last_ns;
	}
	return 0;
}
