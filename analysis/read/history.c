/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The history a snapshot holds: each stream's events, bytes and first and last event
 * times, counted from the messages of the snapshot reader's pass (reader.c) before the
 * analysis decodes them, then the totals, the window and the rates (history.h).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "decode.h"
#include "history.h"
#include "read.h"

/* "flight_3" is channel "flight", CPU 3. */
static void parse_stream_name(struct history_stream *s)
{
	const char *base = strrchr(s->path, '/') ? strrchr(s->path, '/') + 1 : s->path;
	const char *us = strrchr(base, '_');
	char *end;
	long cpu = -1;

	if (us && us[1] >= '0' && us[1] <= '9') {
		cpu = strtol(us + 1, &end, 10);
		if (*end || cpu > INT_MAX)
			cpu = -1;
	}
	snprintf(s->channel, sizeof(s->channel), "%.*s", cpu >= 0 ? (int)(us - base) : 63, base);
	s->cpu = (int)cpu;
}

/* BS's entry, added the first time it is seen; NULL when out of memory. */
static struct history_stream *stream_of(struct an_count *c, const bt_stream *bs)
{
	struct history *h = c->h;
	struct history_stream *grown, *s;
	uint32_t *slot;
	const char *name;
	struct stat st;
	bool inserted;

	slot = an_map_slot(&c->streams, (uint64_t)(uintptr_t)bs, &inserted);
	if (!slot)
		return NULL;
	if (!inserted)
		return &h->streams[*slot - 1];
	grown = realloc(h->streams, (h->n + 1) * sizeof(*h->streams));
	if (!grown)
		return NULL;
	h->streams = grown;
	s = &h->streams[h->n];
	memset(s, 0, sizeof(*s));
	name = bt_stream_get_name(bs); /* source.ctf.fs names a stream after its file */
	s->path = strdup(name ? name : "");
	if (!s->path)
		return NULL;
	s->key = bs;
	parse_stream_name(s);
	if (name && stat(name, &st) == 0)
		s->bytes = (uint64_t)st.st_size;
	*slot = (uint32_t)++h->n;
	return s;
}

static int count_event(struct an_count *c, const bt_message *msg)
{
	const bt_event *ev = bt_message_event_borrow_event_const(msg);
	const bt_stream *bs = bt_event_borrow_stream_const(ev);
	struct history_stream *s = stream_of(c, bs);
	int64_t ns;

	if (!s)
		return -ENOMEM;
	s->events++;
	if (!bt_stream_class_borrow_default_clock_class_const(bt_stream_borrow_class_const(bs)) ||
	    bt_clock_snapshot_get_ns_from_origin(
		    bt_message_event_borrow_default_clock_snapshot_const(msg), &ns) !=
		    BT_CLOCK_SNAPSHOT_GET_NS_FROM_ORIGIN_STATUS_OK)
		return 0;
	if (s->events == 1 || ns < s->first_ns)
		s->first_ns = ns;
	if (s->events == 1 || ns > s->last_ns)
		s->last_ns = ns;
	return 0;
}

int an_count(struct an_count *c, const bt_message *msg)
{
	if (c->error)
		return c->error;
	switch (bt_message_get_type(msg)) {
	case BT_MESSAGE_TYPE_EVENT:
		c->error = count_event(c, msg);
		break;
	case BT_MESSAGE_TYPE_STREAM_BEGINNING:
		/* A stream without events still counts: its CPU lost nothing. */
		if (!stream_of(c, bt_message_stream_beginning_borrow_stream_const(msg)))
			c->error = -ENOMEM;
		break;
	default:
		break;
	}
	return c->error;
}

static int by_channel_cpu(const void *a, const void *b)
{
	const struct history_stream *x = a, *y = b;
	int c = strcmp(x->channel, y->channel);

	return c ? c : (x->cpu > y->cpu) - (x->cpu < y->cpu);
}

void an_count_done(struct an_count *c)
{
	if (c->h->n > 1)
		qsort(c->h->streams, c->h->n, sizeof(*c->h->streams), by_channel_cpu);
	an_map_free(&c->streams);
}

uint64_t history_span(const struct history_stream *s)
{
	return s->events > 1 && s->last_ns > s->first_ns ? (uint64_t)(s->last_ns - s->first_ns) : 0;
}

void history_summarize(struct history *h, uint64_t capacity, uint64_t subbuf_size)
{
	uint64_t shortest_full = UINT64_MAX, longest = 0;
	double fastest = 0;

	h->events = h->bytes = 0;
	h->wrapped = false;
	h->busiest = -1;
	h->events_per_sec = h->bytes_per_event = 0;
	for (size_t i = 0; i < h->n; i++) {
		const struct history_stream *s = &h->streams[i];
		uint64_t sp = history_span(s);

		if (strcmp(s->channel, HISTORY_NAMES_CHANNEL) == 0)
			continue;
		h->events += s->events;
		h->bytes += s->bytes;
		if (sp > longest)
			longest = sp;
		/* Every sub-buffer in use: the ring has overwritten, or is about to. */
		if (capacity && s->bytes + subbuf_size > capacity) {
			h->wrapped = true;
			if (sp < shortest_full)
				shortest_full = sp;
		}
		if (sp && (double)s->bytes / (double)sp > fastest) {
			fastest = (double)s->bytes / (double)sp;
			h->busiest = (long)i;
		}
	}
	h->window_ns = h->wrapped ? shortest_full : longest;
	if (h->busiest >= 0) {
		const struct history_stream *s = &h->streams[h->busiest];

		h->events_per_sec = (double)s->events * 1e9 / (double)history_span(s);
		h->bytes_per_event = (double)s->bytes / (double)s->events;
	}
}

uint64_t history_expected_ns(uint64_t capacity, double bytes_per_event, double events_per_sec)
{
	double ns;

	if (bytes_per_event <= 0 || events_per_sec <= 0)
		return 0;
	ns = (double)capacity / (bytes_per_event * events_per_sec) * 1e9;
	return ns >= 9.2e18 ? INT64_MAX : (uint64_t)(ns + 0.5);
}

void history_free(struct history *h)
{
	for (size_t i = 0; i < h->n; i++)
		free(h->streams[i].path);
	free(h->streams);
	h->streams = NULL;
	h->n = 0;
}
