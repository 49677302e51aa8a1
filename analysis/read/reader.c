/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Reading a snapshot with libbabeltrace2: one source.ctf.fs per trace directory, a
 * filter.utils.muxer putting their events in time order, and a simple sink of ours handing
 * each message to history.c's counter and to decode.c, whichever the pass wants: the
 * history and the analysis of a snapshot come from one pass. A trace that cannot be opened
 * is left out (and said so); an error in the middle of a stream keeps what was read before
 * it and marks the result partial.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <babeltrace2/babeltrace.h>

#include "analysis.h"
#include "decode.h"
#include "read.h"
#include "salvage.h"

/* Salvage rounds before giving up: two per stream file at most, as salvage.c goes. */
#define SALVAGE_ROUNDS 4096

struct sink {
	struct an_decoder dec;
	struct an_pass *pass;
	bt_message_iterator *it;
	uint64_t next_progress;
	bool failed;
	const bt_stream *last; /* of the last message naming one: the muxer took it last */
};

static bt_graph_simple_sink_component_initialize_func_status sink_init(bt_message_iterator *it,
								       void *data)
{
	((struct sink *)data)->it = it;
	return BT_GRAPH_SIMPLE_SINK_COMPONENT_INITIALIZE_FUNC_STATUS_OK;
}

/* The history counts the event, then the analysis decodes it (without one, the log counts it). */
static int on_event(struct sink *s, const bt_message *m)
{
	if (s->pass->count && an_count(s->pass->count, m) < 0)
		return -1;
	if (s->pass->decode)
		return an_decode(&s->dec, m);
	s->dec.log->events++;
	return 0;
}

static bt_graph_simple_sink_component_consume_func_status sink_consume(bt_message_iterator *it,
								       void *data)
{
	struct sink *s = data;
	bt_message_array_const msgs;
	uint64_t count = 0;
	bt_message_iterator_next_status st = bt_message_iterator_next(it, &msgs, &count);

	switch (st) {
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_END:
		return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_END;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_AGAIN:
		return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_AGAIN;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_MEMORY_ERROR:
		return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_MEMORY_ERROR;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_OK:
		break;
	default:
		return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_ERROR;
	}
	s->pass->messages += count;
	for (uint64_t i = 0; i < count; i++) {
		const bt_message *m = msgs[i];
		const bt_stream *of = an_msg_stream(m);

		if (of)
			s->last = of;
		switch (bt_message_get_type(m)) {
		case BT_MESSAGE_TYPE_EVENT:
			if (!s->failed && on_event(s, m) < 0)
				s->failed = true;
			break;
		case BT_MESSAGE_TYPE_STREAM_BEGINNING:
			if (!s->failed && s->pass->count && an_count(s->pass->count, m) < 0)
				s->failed = true;
			break;
		case BT_MESSAGE_TYPE_PACKET_BEGINNING:
			if (s->pass->decode)
				an_decode_packet(&s->dec, m);
			break;
		case BT_MESSAGE_TYPE_DISCARDED_EVENTS:
		case BT_MESSAGE_TYPE_DISCARDED_PACKETS:
			an_decode_discarded(&s->dec, m);
			break;
		default:
			break;
		}
		bt_message_put_ref(m);
	}
	if (s->failed)
		return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_MEMORY_ERROR;
	if (s->pass->opt && s->pass->opt->progress && s->dec.log->events >= s->next_progress) {
		s->pass->opt->progress(s->dec.log->events, s->pass->opt->progress_arg);
		s->next_progress = s->dec.log->events + (1u << 16);
	}
	return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_OK;
}

/*
 * babeltrace2's messages name its objects by address ("msg-it-addr=0x55d2..., "), which
 * says nothing to a reader and makes two readings of one trace differ: dropped.
 */
static void drop_addresses(char *s)
{
	char *at;

	while ((at = strstr(s, "addr=0x"))) {
		char *from = at, *to = at + strlen("addr=0x");

		while (from > s && !strchr(" ,:(", from[-1]))
			from--;
		while (isxdigit((unsigned char)*to))
			to++;
		to += *to == ',';
		to += *to == ' ';
		memmove(from, to, strlen(to) + 1);
	}
}

/* The current thread's babeltrace2 error, causes joined innermost last; NULL if none. */
static char *take_error(void)
{
	const bt_error *err = bt_current_thread_take_error();
	size_t size = 0;
	char *text = NULL;
	FILE *f;

	if (!err)
		return NULL;
	f = open_memstream(&text, &size);
	if (f) {
		uint64_t n = bt_error_get_cause_count(err);

		/* Cause 0 is the root cause; the last ones only say which component failed. */
		uint64_t shown = n < 3 ? n : 3;

		for (uint64_t i = shown; i-- > 0;) {
			const char *m =
				bt_error_cause_get_message(bt_error_borrow_cause_by_index(err, i));

			fprintf(f, "%s%s", i + 1 < shown ? ": " : "", m ? m : "?");
		}
		fclose(f);
		if (text)
			drop_addresses(text);
	}
	bt_error_release(err);
	return text;
}

/* *why = "WHAT: the babeltrace2 error". */
static void fail(char **why, const char *what)
{
	char *e = take_error();

	*why = an_asprintf("%s: %s", what, e ? e : "unknown error");
	free(e);
}

static int add_source(bt_graph *g, const bt_component_class_source *cls, const char *dir, size_t i,
		      const bt_component_source **src)
{
	bt_value *params = bt_value_map_create(), *inputs = NULL;
	char name[32];
	int r = -ENOMEM;

	snprintf(name, sizeof(name), "src%zu", i);
	if (params &&
	    bt_value_map_insert_empty_array_entry(params, "inputs", &inputs) ==
		    BT_VALUE_MAP_INSERT_ENTRY_STATUS_OK &&
	    bt_value_array_append_string_element(inputs, dir) ==
		    BT_VALUE_ARRAY_APPEND_ELEMENT_STATUS_OK)
		r = bt_graph_add_source_component(g, cls, name, params, BT_LOGGING_LEVEL_NONE,
						  src) == BT_GRAPH_ADD_COMPONENT_STATUS_OK
			    ? 0
			    : -EIO;
	bt_value_put_ref(params);
	return r;
}

/*
 * TEXT (NULL: none) with each mention of the salvage directory TMP (NULL: none) made the
 * trace's own DIR: the reader knows its files, not a temporary directory of links to them.
 */
static char *real_paths(const char *text, const char *tmp, const char *dir)
{
	size_t len = tmp ? strlen(tmp) : 0;
	char *out = NULL, *at;
	size_t size = 0;
	FILE *f;

	if (!text || !len || !strstr(text, tmp))
		return text ? strdup(text) : NULL;
	f = open_memstream(&out, &size);
	if (!f)
		return NULL;
	while ((at = strstr(text, tmp))) {
		fprintf(f, "%.*s%s", (int)(at - text), text, dir);
		text = at + len;
	}
	fputs(text, f);
	fclose(f);
	return out;
}

/* Trace i without the stream files its error names (tmp[i]: the links to the rest). */
static int salvage(size_t i, const struct an_vec *dirs, char **tmp, const char *error,
		   struct an_log *log)
{
	const char *dir = tmp[i] ? tmp[i] : *AN_AT(dirs, char *, i);
	struct an_vec dropped = AN_VEC(char *);
	char *links, *said = real_paths(error, tmp[i], *AN_AT(dirs, char *, i));
	int r = an_salvage(dir, tmp[i] != NULL, error, &links, &dropped);

	for (size_t j = 0; j < dropped.n && r == 0; j++)
		an_problem(log, "%s/%s: %s", *AN_AT(dirs, char *, i), *AN_AT(&dropped, char *, j),
			   said ? said : "");
	free(said);
	an_strs_free(&dropped);
	if (r == 0) {
		if (tmp[i])
			an_rm_salvage(tmp[i]);
		free(tmp[i]);
		tmp[i] = links;
	}
	return r;
}

/*
 * Builds the graph over the directories not marked bad. On an error naming a directory,
 * marks it bad and returns -EAGAIN so that the caller builds a new graph without it (a
 * faulty graph cannot be used any more).
 */
static int build(bt_graph **ret, struct an_vec *dirs, char **tmp, bool *bad, struct sink *s,
		 struct an_log *log, char **why)
{
	const bt_plugin *ctf = NULL, *utils = NULL;
	const bt_component_class_source *fs;
	const bt_component_class_filter *mux_cls;
	const bt_component_filter *mux;
	const bt_component_sink *sink;
	bt_graph *g = bt_graph_create(0);
	uint64_t in = 0;
	int r = -EIO;

	if (!g)
		return -ENOMEM;
	s->pass->graphs++;
	if (bt_plugin_find("ctf", BT_TRUE, BT_TRUE, BT_TRUE, BT_TRUE, BT_TRUE, &ctf) !=
		    BT_PLUGIN_FIND_STATUS_OK ||
	    bt_plugin_find("utils", BT_TRUE, BT_TRUE, BT_TRUE, BT_TRUE, BT_TRUE, &utils) !=
		    BT_PLUGIN_FIND_STATUS_OK) {
		*why = an_asprintf("babeltrace2's ctf and utils plugins are not installed");
		goto out;
	}
	fs = bt_plugin_borrow_source_component_class_by_name_const(ctf, "fs");
	mux_cls = bt_plugin_borrow_filter_component_class_by_name_const(utils, "muxer");
	if (!fs || !mux_cls ||
	    bt_graph_add_filter_component(g, mux_cls, "muxer", NULL, BT_LOGGING_LEVEL_NONE, &mux) !=
		    BT_GRAPH_ADD_COMPONENT_STATUS_OK ||
	    bt_graph_add_simple_sink_component(g, "sink", sink_init, sink_consume, NULL, s,
					       &sink) != BT_GRAPH_ADD_COMPONENT_STATUS_OK) {
		fail(why, "cannot set up babeltrace2");
		goto out;
	}
	for (size_t i = 0; i < dirs->n; i++) {
		const char *dir = *AN_AT(dirs, char *, i);
		const bt_component_source *src;
		char *e = NULL;

		if (bad[i])
			continue;
		if (!tmp[i] && an_check_metadata(dir, s->pass->opt, &e) < 0) {
			an_problem(log, "%s", e);
			free(e);
			bad[i] = true;
			continue;
		}
		/* A packet babeltrace2 would abort on is salvaged as one it refuses. */
		r = an_check_streams(tmp[i] ? tmp[i] : dir, &e) < 0
			    ? -EIO
			    : add_source(g, fs, tmp[i] ? tmp[i] : dir, i, &src);
		if (r == -EIO) {
			if (!e)
				e = take_error();
			r = salvage(i, dirs, tmp, e, log);
			if (r < 0) {
				char *said = real_paths(e, tmp[i], dir);

				an_problem(log, "%s: cannot read this trace, left out: %s", dir,
					   said ? said : "unknown error");
				free(said);
				bad[i] = true;
			}
			free(e);
			r = -EAGAIN;
			goto out;
		}
		if (r < 0)
			goto out;
		s->pass->sources++;
		for (uint64_t p = 0; p < bt_component_source_get_output_port_count(src); p++) {
			if (bt_graph_connect_ports(
				    g,
				    bt_component_source_borrow_output_port_by_index_const(src, p),
				    bt_component_filter_borrow_input_port_by_index_const(mux, in++),
				    NULL) != BT_GRAPH_CONNECT_PORTS_STATUS_OK) {
				fail(why, dir);
				r = -EIO;
				goto out;
			}
		}
	}
	if (!in) {
		*why = an_asprintf(
			"no readable trace%s%s", log->problems.n ? ": " : "",
			log->problems.n ? *AN_AT(&log->problems, char *, log->problems.n - 1) : "");
		r = -ENOENT;
		goto out;
	}
	if (bt_graph_connect_ports(g, bt_component_filter_borrow_output_port_by_index_const(mux, 0),
				   bt_component_sink_borrow_input_port_by_index_const(sink, 0),
				   NULL) != BT_GRAPH_CONNECT_PORTS_STATUS_OK) {
		fail(why, "cannot connect the muxer");
		r = -EIO;
		goto out;
	}
	*ret = g;
	g = NULL;
	r = 0;
out:
	bt_plugin_put_ref(ctf);
	bt_plugin_put_ref(utils);
	bt_graph_put_ref(g);
	return r;
}

/* Runs the graph to its end, or until *stop. */
static bt_graph_run_once_status run(bt_graph *g, const volatile bool *stop)
{
	bt_graph_run_once_status st;

	do {
		if (stop && *stop)
			return BT_GRAPH_RUN_ONCE_STATUS_ERROR;
		st = bt_graph_run_once(g);
	} while (st == BT_GRAPH_RUN_ONCE_STATUS_OK || st == BT_GRAPH_RUN_ONCE_STATUS_AGAIN);
	return st;
}

/*
 * The muxer's error for a stream whose time goes backwards (ERROR, babeltrace2's) said as
 * the stream's: the one the muxer took its last message from, whose next one is older. Its
 * file, its CPU and the times; false when ERROR is another.
 */
static bool backwards(const struct sink *s, const struct an_vec *dirs, char *const *tmp,
		      const char *error, struct an_log *log)
{
	const char *at = error ? strstr(error, "timestamp is less than") : NULL;
	const char *name = s->last ? bt_stream_get_name(s->last) : NULL;
	const uint32_t *slot =
		s->last ? an_map_find(&s->dec.streams, (uint64_t)(uintptr_t)s->last) : NULL;
	unsigned long long older = 0, newer = 0;
	char cpu[32] = "", *file = NULL;

	if (!at || !(at = strstr(at, "ts=")) ||
	    sscanf(at, "ts=%llu, last-returned-ts=%llu", &older, &newer) != 2)
		return false;
	if (slot && AN_AT(&s->dec.dstreams, struct an_dstream, *slot - 1)->cpu != UINT32_MAX)
		snprintf(cpu, sizeof(cpu), " (CPU %u)",
			 AN_AT(&s->dec.dstreams, struct an_dstream, *slot - 1)->cpu);
	file = name ? strdup(name) : NULL;
	for (size_t i = 0; file && i < dirs->n; i++) {
		char *real = real_paths(file, tmp[i], *AN_AT(dirs, char *, i));

		free(file);
		file = real;
	}
	an_problem(log,
		   "%s%s: time goes backwards, to %llu ns since the epoch after %llu (a clock "
		   "stepped back, or a damaged packet): reading stopped after %llu events, the "
		   "rest of every stream from then on is left out",
		   file ? file : "a stream", cpu, older, newer, (unsigned long long)log->events);
	free(file);
	return true;
}

static int read_muxed(struct an_vec *dirs, struct an_pass *pass, struct an_log *log, char **why)
{
	bool *bad = calloc(dirs->n ? dirs->n : 1, sizeof(bool));
	char **tmp = calloc(dirs->n ? dirs->n : 1, sizeof(char *));
	struct sink s = {.dec = AN_DECODER_INIT(log), .pass = pass};
	struct an_input *inputs = NULL;
	bt_graph *g = NULL;
	bt_graph_run_once_status st;
	int r;

	if (!bad || !tmp) {
		free(bad);
		free(tmp);
		return -ENOMEM;
	}
	/* Each round leaves out a trace or part of a stream file: bounded all the same. */
	for (unsigned round = 0; (r = build(&g, dirs, tmp, bad, &s, log, why)) == -EAGAIN; round++)
		if (round == SALVAGE_ROUNDS) {
			*why = an_asprintf("still damaged after %u rounds of leaving out what "
					   "babeltrace2 refused",
					   round);
			r = -EIO;
			break;
		}
	if (r < 0)
		goto out;
	/* Each trace's directory, and the salvage's it is read from instead (its files are
	 * links to the trace's own): what a stream's file is in tells its trace. */
	inputs = calloc(dirs->n ? 2 * dirs->n : 1, sizeof(*inputs));
	if (!inputs) {
		r = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < dirs->n; i++) {
		an_input_of(*AN_AT(dirs, char *, i), (uint32_t)i, &inputs[2 * i]);
		an_input_of(tmp[i], (uint32_t)i, &inputs[2 * i + 1]);
	}
	s.dec.inputs = inputs;
	s.dec.ninputs = 2 * dirs->n;
	st = run(g, pass->stop);
	if (st != BT_GRAPH_RUN_ONCE_STATUS_END && pass->stop && *pass->stop) {
		*why = an_asprintf("stopped");
		r = -ECANCELED;
	} else if (s.failed) {
		*why = an_asprintf("out of memory after %llu events",
				   (unsigned long long)log->events);
		r = -ENOMEM;
	} else if (st != BT_GRAPH_RUN_ONCE_STATUS_END) {
		char *e = take_error();

		for (size_t i = 0; e && i < dirs->n; i++) {
			char *said = real_paths(e, tmp[i], *AN_AT(dirs, char *, i));

			free(e);
			e = said;
		}
		/* What was read stays: a damaged stream ends the reading, not the analysis. */
		if (!backwards(&s, dirs, tmp, e, log))
			an_problem(log, "reading stopped after %llu events: %s",
				   (unsigned long long)log->events, e ? e : "unknown error");
		free(e);
	}
out:
	if (r < 0 && !*why)
		*why = take_error();
	bt_graph_put_ref(g);
	an_decoder_free(&s.dec);
	for (size_t i = 0; i < dirs->n; i++) {
		if (tmp[i])
			an_rm_salvage(tmp[i]);
		free(tmp[i]);
	}
	free(tmp);
	free(bad);
	free(inputs);
	return r;
}

int an_read(struct an_vec *dirs, struct an_pass *pass, struct an_log *log, char **why)
{
	int r = -EAGAIN;

	/* The history counts streams as the muxer meets them: latencyd's pass stays muxed. */
	if (pass->threads && pass->decode && !pass->count)
		r = an_read_streams(dirs, pass, log, why);
	if (r == -EAGAIN)
		r = read_muxed(dirs, pass, log, why);
	/* Who each task was, from all that was read of it. */
	if (r == 0 && an_idents(log) < 0) {
		*why = an_asprintf("out of memory after %llu events",
				   (unsigned long long)log->events);
		r = -ENOMEM;
	}
	return r;
}
