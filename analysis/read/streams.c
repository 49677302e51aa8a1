/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A shard's graph: a source.ctf.fs per trace directory (or directory of links to some of
 * its stream files) and, without a muxer, one simple sink per output port, that is per
 * stream, decoding its events into that stream's own log. Nothing orders the streams here:
 * merge.c does, afterwards, as the muxer would have. What the merge cannot reproduce (a
 * time going back, a clock the muxer would refuse) is flagged in the stream's error and
 * sends the caller back to the muxed pass.
 *
 * libbabeltrace2's objects are not thread safe (plain reference counts, object pools):
 * each shard has component classes of its own (the ctf plugin loaded once per shard, a
 * sink class per shard), made and released by the main thread, so that its thread builds,
 * runs and frees its graph touching no object another thread does. The main thread keeps
 * the classes until the shards' threads are joined: a class is destroyed on that thread.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "salvage.h"
#include "streams.h"

/* The time the muxer would order the message by; false: none (it takes its last one). */
static bool msg_time(const bt_message *m, const bt_stream *s, int64_t *ns)
{
	const bt_stream_class *sc = bt_stream_borrow_class_const(s);
	const bt_clock_snapshot *cs = NULL;

	switch (bt_message_get_type(m)) {
	case BT_MESSAGE_TYPE_PACKET_BEGINNING:
		if (bt_stream_class_packets_have_beginning_default_clock_snapshot(sc))
			cs = bt_message_packet_beginning_borrow_default_clock_snapshot_const(m);
		break;
	case BT_MESSAGE_TYPE_PACKET_END:
		if (bt_stream_class_packets_have_end_default_clock_snapshot(sc))
			cs = bt_message_packet_end_borrow_default_clock_snapshot_const(m);
		break;
	case BT_MESSAGE_TYPE_STREAM_BEGINNING:
		if (bt_message_stream_beginning_borrow_default_clock_snapshot_const(m, &cs) ==
		    BT_MESSAGE_STREAM_CLOCK_SNAPSHOT_STATE_UNKNOWN)
			cs = NULL;
		break;
	case BT_MESSAGE_TYPE_STREAM_END:
		if (bt_message_stream_end_borrow_default_clock_snapshot_const(m, &cs) ==
		    BT_MESSAGE_STREAM_CLOCK_SNAPSHOT_STATE_UNKNOWN)
			cs = NULL;
		break;
	case BT_MESSAGE_TYPE_DISCARDED_EVENTS:
		if (bt_stream_class_discarded_events_have_default_clock_snapshots(sc))
			cs = bt_message_discarded_events_borrow_beginning_default_clock_snapshot_const(
				m);
		break;
	case BT_MESSAGE_TYPE_DISCARDED_PACKETS:
		if (bt_stream_class_discarded_packets_have_default_clock_snapshots(sc))
			cs = bt_message_discarded_packets_borrow_beginning_default_clock_snapshot_const(
				m);
		break;
	default:
		break;
	}
	if (!cs)
		return false;
	if (bt_clock_snapshot_get_ns_from_origin(cs, ns) !=
	    BT_CLOCK_SNAPSHOT_GET_NS_FROM_ORIGIN_STATUS_OK) {
		*ns = INT64_MIN; /* the muxer fails on it: so does the merge */
		bt_current_thread_clear_error();
	}
	return true;
}

/*
 * The stream's sort key, the first time it is seen. Its clock must count from the Unix
 * epoch: the muxer accepts any mix of such clocks, and the merge handles nothing else.
 */
static void key(struct an_stream *st, const bt_stream *s)
{
	const bt_trace *t = bt_stream_borrow_trace_const(s);
	const bt_stream_class *sc = bt_stream_borrow_class_const(s);
	const bt_clock_class *cc = bt_stream_class_borrow_default_clock_class_const(sc);
	const uint8_t *uuid = bt_trace_get_uuid(t);
	const char *name = bt_trace_get_name(t);

	st->keyed = true;
	if (!cc || !bt_clock_class_origin_is_unix_epoch(cc))
		st->error = -EDOM;
	/*
	 * ctf.fs gives a stream its stream_instance_id only when its packets have a beginning
	 * time too, else it numbers the trace's streams in the order of their files: in a
	 * directory with some of them, another number than the muxed pass gives.
	 */
	if (st->shard->split && !bt_stream_class_packets_have_beginning_default_clock_snapshot(sc))
		st->error = -EDOM;
	st->has_uuid = uuid != NULL;
	if (uuid)
		memcpy(st->uuid, uuid, sizeof(st->uuid));
	if (name && !(st->trace_name = strdup(name)))
		st->error = -ENOMEM;
	st->class_id = bt_stream_class_get_id(sc);
	st->id = bt_stream_get_id(s);
	for (size_t i = 0; i < st->shard->pieces.n; i++) {
		const struct an_piece *p = AN_AT(&st->shard->pieces, struct an_piece, i);

		if (p->input == st->input && p->class_id == st->class_id && p->id == st->id)
			st->part = p->off;
	}
}

static void on_message(struct an_stream *st, const bt_message *m)
{
	bt_message_type type = bt_message_get_type(m);
	int64_t ns;

	if (!st->keyed) {
		const bt_stream *s = an_msg_stream(m);

		if (s)
			key(st, s);
	}
	if (type == BT_MESSAGE_TYPE_EVENT) {
		st->shard->events++;
		if (an_decode(&st->dec, m) < 0) {
			st->error = -ENOMEM;
			return;
		}
		ns = (int64_t)st->dec.ts;
	} else {
		const bt_stream *s = an_msg_stream(m);

		if (type == BT_MESSAGE_TYPE_PACKET_BEGINNING)
			an_decode_packet(&st->dec, m);
		if (type == BT_MESSAGE_TYPE_DISCARDED_EVENTS ||
		    type == BT_MESSAGE_TYPE_DISCARDED_PACKETS)
			an_decode_discarded(&st->dec, m);
		if (!s || !msg_time(m, s, &ns))
			return;
	}
	/* The muxer orders by signed time, the merge by unsigned: a time before the origin
	 * is the muxed pass's to place. */
	if ((st->timed && ns < st->last_ns) || ns < 0)
		st->error = -EDOM;
	if (!st->timed)
		st->first_ns = ns;
	st->last_ns = ns;
	st->timed = true;
}

/* The sink of one stream: its component's data is the stream's log (an_stream). */
static bt_component_class_initialize_method_status
sink_init(bt_self_component_sink *self, bt_self_component_sink_configuration *config,
	  const bt_value *params, void *data)
{
	bt_self_component_set_data(bt_self_component_sink_as_self_component(self), data);
	return bt_self_component_sink_add_input_port(self, "in", NULL, NULL) ==
			       BT_SELF_COMPONENT_ADD_PORT_STATUS_OK
		       ? BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_OK
		       : BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_MEMORY_ERROR;
}

static struct an_stream *stream_of(bt_self_component_sink *self)
{
	return bt_self_component_get_data(bt_self_component_sink_as_self_component(self));
}

static bt_component_class_sink_graph_is_configured_method_status
sink_configured(bt_self_component_sink *self)
{
	struct an_stream *st = stream_of(self);

	return bt_message_iterator_create_from_sink_component(
		       self, bt_self_component_sink_borrow_input_port_by_index(self, 0), &st->it) ==
			       BT_MESSAGE_ITERATOR_CREATE_FROM_SINK_COMPONENT_STATUS_OK
		       ? BT_COMPONENT_CLASS_SINK_GRAPH_IS_CONFIGURED_METHOD_STATUS_OK
		       : BT_COMPONENT_CLASS_SINK_GRAPH_IS_CONFIGURED_METHOD_STATUS_ERROR;
}

static void sink_finalize(bt_self_component_sink *self)
{
	struct an_stream *st = stream_of(self);

	bt_message_iterator_put_ref(st->it);
	st->it = NULL;
}

static bt_component_class_sink_consume_method_status sink_consume(bt_self_component_sink *self)
{
	struct an_stream *st = stream_of(self);
	bt_message_array_const msgs;
	uint64_t count = 0;

	switch (bt_message_iterator_next(st->it, &msgs, &count)) {
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_END:
		return BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_END;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_AGAIN:
		return BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_AGAIN;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_MEMORY_ERROR:
		return BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_MEMORY_ERROR;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_OK:
		break;
	default:
		return BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_ERROR;
	}
	st->shard->messages += count;
	for (uint64_t i = 0; i < count; i++) {
		if (!st->error)
			on_message(st, msgs[i]);
		bt_message_put_ref(msgs[i]);
	}
	/* Its result is thrown away: stop reading (the caller reads again, muxed). */
	return st->error ? BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_ERROR
			 : BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_OK;
}

bt_component_class_sink *an_stream_sink_class(void)
{
	bt_component_class_sink *c = bt_component_class_sink_create("latency-stream", sink_consume);

	if (c && (bt_component_class_sink_set_initialize_method(c, sink_init) !=
			  BT_COMPONENT_CLASS_SET_METHOD_STATUS_OK ||
		  bt_component_class_sink_set_graph_is_configured_method(c, sink_configured) !=
			  BT_COMPONENT_CLASS_SET_METHOD_STATUS_OK ||
		  bt_component_class_sink_set_finalize_method(c, sink_finalize) !=
			  BT_COMPONENT_CLASS_SET_METHOD_STATUS_OK))
		BT_COMPONENT_CLASS_SINK_PUT_REF_AND_RESET(c);
	return c;
}

static int add_stream(struct an_shard *s, size_t input, const bt_port_output *port)
{
	struct an_stream *st = calloc(1, sizeof(*st)), **slot;
	const bt_component_sink *sink;
	char name[32];

	if (!st)
		return -ENOMEM;
	an_log_init(&st->log);
	st->dec.log = &st->log;
	st->dec.trail = &st->trail;
	st->dec.trace = *AN_AT(&s->traces, uint32_t, input);
	st->shard = s;
	st->input = input;
	s->streams.size = sizeof(st);
	slot = an_vec_push(&s->streams);
	if (!slot) {
		free(st);
		return -ENOMEM;
	}
	*slot = st;
	snprintf(name, sizeof(name), "sink%zu", s->streams.n);
	if (bt_graph_add_sink_component_with_initialize_method_data(
		    s->graph, s->sink_cls, name, NULL, st, BT_LOGGING_LEVEL_NONE, &sink) !=
		    BT_GRAPH_ADD_COMPONENT_STATUS_OK ||
	    bt_graph_connect_ports(s->graph, port,
				   bt_component_sink_borrow_input_port_by_index_const(sink, 0),
				   NULL) != BT_GRAPH_CONNECT_PORTS_STATUS_OK)
		return -EIO;
	return 0;
}

static int build(struct an_shard *s)
{
	s->graph = bt_graph_create(0);
	if (!s->graph)
		return -ENOMEM;
	for (size_t i = 0; i < s->inputs.n; i++) {
		const bt_component_source *src;
		bt_value *params = bt_value_map_create(), *inputs = NULL;
		char name[32];
		int r = -EIO;

		snprintf(name, sizeof(name), "src%zu", i);
		if (params &&
		    bt_value_map_insert_empty_array_entry(params, "inputs", &inputs) ==
			    BT_VALUE_MAP_INSERT_ENTRY_STATUS_OK &&
		    bt_value_array_append_string_element(inputs, *AN_AT(&s->inputs, char *, i)) ==
			    BT_VALUE_ARRAY_APPEND_ELEMENT_STATUS_OK &&
		    bt_graph_add_source_component(s->graph, s->fs, name, params,
						  BT_LOGGING_LEVEL_NONE,
						  &src) == BT_GRAPH_ADD_COMPONENT_STATUS_OK)
			r = 0;
		bt_value_put_ref(params);
		for (uint64_t p = 0; !r && p < bt_component_source_get_output_port_count(src); p++)
			r = add_stream(
				s, i,
				bt_component_source_borrow_output_port_by_index_const(src, p));
		if (r < 0)
			return r;
	}
	return 0;
}

void an_shard_decode(struct an_shard *s, void (*progress)(uint64_t events, void *arg), void *arg)
{
	uint64_t next = 0; /* a first line at once, as the muxed pass gives */
	bt_graph_run_once_status st = BT_GRAPH_RUN_ONCE_STATUS_ERROR;
	int built = build(s);

	/* No stream to read (metadata alone): a graph without a sink may not run. */
	if (built == 0 && !s->streams.n) {
		st = BT_GRAPH_RUN_ONCE_STATUS_END;
	} else if (built == 0) {
		do {
			if (s->stop && *s->stop) {
				s->status = -ECANCELED;
				break;
			}
			st = bt_graph_run_once(s->graph);
			if (progress && s->events >= next) {
				progress(s->events, arg);
				next = s->events + (1u << 16);
			}
		} while (st == BT_GRAPH_RUN_ONCE_STATUS_OK || st == BT_GRAPH_RUN_ONCE_STATUS_AGAIN);
	}
	if (!s->status && st != BT_GRAPH_RUN_ONCE_STATUS_END)
		s->status = -EIO;
	/* What went wrong is the muxed pass's to say, which reads it again. */
	bt_current_thread_clear_error();
}

void an_shard_close(struct an_shard *s)
{
	BT_GRAPH_PUT_REF_AND_RESET(s->graph);
}

void an_shard_free(struct an_shard *s)
{
	for (size_t i = 0; i < s->streams.n; i++) {
		struct an_stream *st = *AN_AT(&s->streams, struct an_stream *, i);

		an_decoder_free(&st->dec);
		an_trail_free(&st->trail);
		an_log_free(&st->log);
		free(st->trace_name);
		free(st);
	}
	an_vec_free(&s->streams);
	for (size_t i = 0; i < s->pieces.n; i++) {
		free(AN_AT(&s->pieces, struct an_piece, i)->from);
		free(AN_AT(&s->pieces, struct an_piece, i)->to);
	}
	an_vec_free(&s->pieces);
	an_strs_free(&s->inputs);
	an_vec_free(&s->traces);
	for (size_t i = 0; i < s->links.n; i++)
		an_rm_salvage(*AN_AT(&s->links, char *, i));
	an_strs_free(&s->links);
}
