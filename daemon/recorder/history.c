// SPDX-License-Identifier: GPL-2.0-only
/*
 * The history a snapshot holds, read back with libbabeltrace2: one source.ctf.fs per trace
 * directory (it does not recurse), one simple sink per stream port counting that stream's
 * events and noting its first and last event times. No muxer: order does not matter here,
 * and traces of different domains need not share a clock.
 */
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <babeltrace2/babeltrace.h>
#include <json-c/json.h>

#include "history.h"

/* nftw() passes no context pointer. */
static __thread char **walk_dirs;
static __thread size_t walk_n;

static int add_trace_dir(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	char **grown;

	if (flag != FTW_F || strcmp(path + ftw->base, "metadata") != 0)
		return 0;
	grown = realloc(walk_dirs, (walk_n + 1) * sizeof(*walk_dirs));
	if (!grown)
		return -1;
	walk_dirs = grown;
	walk_dirs[walk_n] = strndup(path, (size_t)ftw->base - 1);
	if (!walk_dirs[walk_n])
		return -1;
	walk_n++;
	return 0;
}

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

struct reader {
	struct history *h;
	const volatile bool *stop;
	int error;
};

static struct history_stream *stream_of(struct reader *rd, const bt_stream *bs)
{
	struct history *h = rd->h;
	struct history_stream *grown, *s;
	const char *name;
	struct stat st;

	for (size_t i = 0; i < h->n; i++)
		if (h->streams[i].key == bs)
			return &h->streams[i];
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
	h->n++;
	return s;
}

static void on_event(struct reader *rd, const bt_message *msg)
{
	const bt_event *ev = bt_message_event_borrow_event_const(msg);
	const bt_stream *bs = bt_event_borrow_stream_const(ev);
	struct history_stream *s = stream_of(rd, bs);
	int64_t ns;

	if (!s) {
		rd->error = -ENOMEM;
		return;
	}
	s->events++;
	if (!bt_stream_class_borrow_default_clock_class_const(bt_stream_borrow_class_const(bs)) ||
	    bt_clock_snapshot_get_ns_from_origin(
		    bt_message_event_borrow_default_clock_snapshot_const(msg), &ns) !=
		    BT_CLOCK_SNAPSHOT_GET_NS_FROM_ORIGIN_STATUS_OK)
		return;
	if (s->events == 1 || ns < s->first_ns)
		s->first_ns = ns;
	if (s->events == 1 || ns > s->last_ns)
		s->last_ns = ns;
}

static bt_graph_simple_sink_component_consume_func_status consume(bt_message_iterator *it,
								  void *data)
{
	struct reader *rd = data;
	bt_message_array_const msgs;
	uint64_t count = 0;

	switch (bt_message_iterator_next(it, &msgs, &count)) {
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_OK:
		break;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_END:
		return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_END;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_AGAIN:
		return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_AGAIN;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_MEMORY_ERROR:
		return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_MEMORY_ERROR;
	default:
		return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_ERROR;
	}
	for (uint64_t i = 0; i < count; i++) {
		switch (bt_message_get_type(msgs[i])) {
		case BT_MESSAGE_TYPE_EVENT:
			on_event(rd, msgs[i]);
			break;
		case BT_MESSAGE_TYPE_STREAM_BEGINNING:
			/* A stream without events still counts: its CPU lost nothing. */
			if (!stream_of(rd,
				       bt_message_stream_beginning_borrow_stream_const(msgs[i])))
				rd->error = -ENOMEM;
			break;
		default:
			break;
		}
		bt_message_put_ref(msgs[i]);
	}
	return rd->error ? BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_ERROR
			 : BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_OK;
}

/* babeltrace2's error causes, most specific last, as one line. */
static void take_error(char *err, size_t errlen, const char *what)
{
	const bt_error *e = bt_current_thread_take_error();
	size_t len = (size_t)snprintf(err, errlen, "%s", what);

	for (uint64_t i = 0; e && i < bt_error_get_cause_count(e) && len < errlen; i++)
		len += (size_t)snprintf(
			err + len, errlen - len, ": %s",
			bt_error_cause_get_message(bt_error_borrow_cause_by_index(e, i)));
	if (e)
		bt_error_release(e);
}

/* Adds source.ctf.fs for DIR and a counting sink on each of its ports. */
static int add_trace(bt_graph *g, const bt_component_class_source *cls, const char *dir,
		     unsigned idx, struct reader *rd)
{
	const bt_component_source *src = NULL;
	const bt_component_sink *sink;
	bt_value *params = bt_value_map_create(), *inputs = bt_value_array_create();
	char name[32];
	int r = -ENOMEM;

	if (!params || !inputs || bt_value_array_append_string_element(inputs, dir) ||
	    bt_value_map_insert_entry(params, "inputs", inputs))
		goto out;
	snprintf(name, sizeof(name), "src%u", idx);
	r = -EIO;
	if (bt_graph_add_source_component(g, cls, name, params, BT_LOGGING_LEVEL_NONE, &src))
		goto out;
	for (uint64_t p = 0; p < bt_component_source_get_output_port_count(src); p++) {
		snprintf(name, sizeof(name), "sink%u.%llu", idx, (unsigned long long)p);
		if (bt_graph_add_simple_sink_component(g, name, NULL, consume, NULL, rd, &sink) ||
		    bt_graph_connect_ports(
			    g, bt_component_source_borrow_output_port_by_index_const(src, p),
			    bt_component_sink_borrow_input_port_by_index_const(sink, 0), NULL))
			goto out;
	}
	r = 0;
out:
	bt_value_put_ref(inputs);
	bt_value_put_ref(params);
	return r;
}

static int by_channel_cpu(const void *a, const void *b)
{
	const struct history_stream *x = a, *y = b;
	int c = strcmp(x->channel, y->channel);

	return c ? c : (x->cpu > y->cpu) - (x->cpu < y->cpu);
}

int history_read(const char *dir, const volatile bool *stop, struct history *h, char *err,
		 size_t errlen)
{
	const bt_plugin *plugin = NULL;
	const bt_component_class_source *cls;
	struct reader rd = {.h = h, .stop = stop};
	bt_graph *g = NULL;
	int r = 0;

	memset(h, 0, sizeof(*h));
	h->busiest = -1;
	err[0] = 0;
	walk_dirs = NULL;
	walk_n = 0;
	if (nftw(dir, add_trace_dir, 16, FTW_PHYS) < 0) {
		r = errno ? -errno : -ENOMEM;
		snprintf(err, errlen, "cannot scan %s: %s", dir, strerror(-r));
		goto out;
	}
	if (walk_n == 0) {
		r = -ENOENT;
		snprintf(err, errlen, "no trace (no metadata file) under %s", dir);
		goto out;
	}
	if (bt_plugin_find("ctf", BT_TRUE, BT_FALSE, BT_TRUE, BT_TRUE, BT_TRUE, &plugin) !=
		    BT_PLUGIN_FIND_STATUS_OK ||
	    !(cls = bt_plugin_borrow_source_component_class_by_name_const(plugin, "fs"))) {
		r = -ENOENT;
		take_error(err, errlen, "babeltrace2 has no source.ctf.fs");
		goto out;
	}
	g = bt_graph_create(0);
	if (!g) {
		r = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < walk_n && r == 0; i++)
		if ((r = add_trace(g, cls, walk_dirs[i], (unsigned)i, &rd)) < 0)
			take_error(err, errlen, walk_dirs[i]);
	while (r == 0) {
		bt_graph_run_once_status st;

		if (stop && *stop) {
			r = -ECANCELED;
			snprintf(err, errlen, "stopped");
			break;
		}
		st = bt_graph_run_once(g);
		if (st == BT_GRAPH_RUN_ONCE_STATUS_END)
			break;
		if (st != BT_GRAPH_RUN_ONCE_STATUS_OK && st != BT_GRAPH_RUN_ONCE_STATUS_AGAIN) {
			r = rd.error ? rd.error : -EIO;
			take_error(err, errlen, dir);
		}
	}
	if (r == 0 && h->n > 1)
		qsort(h->streams, h->n, sizeof(*h->streams), by_channel_cpu);
out:
	bt_graph_put_ref(g);
	bt_plugin_put_ref(plugin);
	for (size_t i = 0; i < walk_n; i++)
		free(walk_dirs[i]);
	free(walk_dirs);
	walk_dirs = NULL;
	walk_n = 0;
	if (r < 0)
		history_free(h);
	return r;
}

static uint64_t span(const struct history_stream *s)
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
		uint64_t sp = span(s);

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

		h->events_per_sec = (double)s->events * 1e9 / (double)span(s);
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

static void add_int(struct json_object *o, const char *key, int64_t v)
{
	json_object_object_add(o, key, json_object_new_int64(v));
}

struct json_object *history_to_json(const struct history *h)
{
	struct json_object *o = json_object_new_object(), *streams = json_object_new_array();

	if (!o || !streams) {
		json_object_put(o);
		json_object_put(streams);
		return NULL;
	}
	add_int(o, "window_ns", (int64_t)h->window_ns);
	json_object_object_add(o, "wrapped", json_object_new_boolean(h->wrapped));
	add_int(o, "events", (int64_t)h->events);
	add_int(o, "bytes", (int64_t)h->bytes);
	json_object_object_add(o, "events_per_sec", json_object_new_double(h->events_per_sec));
	json_object_object_add(o, "bytes_per_event", json_object_new_double(h->bytes_per_event));
	for (size_t i = 0; i < h->n && i < HISTORY_JSON_STREAMS; i++) {
		const struct history_stream *s = &h->streams[i];
		struct json_object *js = json_object_new_object();

		if (!js)
			break;
		json_object_object_add(js, "channel", json_object_new_string(s->channel));
		add_int(js, "cpu", s->cpu);
		add_int(js, "events", (int64_t)s->events);
		add_int(js, "bytes", (int64_t)s->bytes);
		add_int(js, "first_ns", s->first_ns);
		add_int(js, "last_ns", s->last_ns);
		add_int(js, "span_ns", (int64_t)span(s));
		json_object_array_add(streams, js);
	}
	json_object_object_add(o, "streams", streams);
	add_int(o, "streams_total", (int64_t)h->n);
	return o;
}

void history_free(struct history *h)
{
	for (size_t i = 0; i < h->n; i++)
		free(h->streams[i].path);
	free(h->streams);
	h->streams = NULL;
	h->n = 0;
}
