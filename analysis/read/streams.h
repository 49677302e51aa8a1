/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Reading a snapshot stream by stream (parallel.c): each shard of the streams is one
 * libbabeltrace2 graph without a muxer, each stream decoded into its own log (streams.c),
 * then all the streams' logs merged into the one log a muxed pass gives (merge.c).
 */
#ifndef LATENCY_ANALYSIS_STREAMS_H
#define LATENCY_ANALYSIS_STREAMS_H

#include <babeltrace2/babeltrace.h>
#include <stdbool.h>
#include <stdint.h>

#include "an.h"
#include "decode.h"

struct an_shard;

/* One stream's events, in its own order, and what the merge orders it by. */
struct an_stream {
	struct an_log log;
	struct an_decoder dec;
	struct an_trail trail;
	/*
	 * How babeltrace2 2.0's muxer orders messages of different streams at the same time
	 * (common_muxing_compare_messages): by trace UUID (one without comes last), trace name
	 * (likewise), stream class id, stream id.
	 */
	bool keyed, has_uuid;
	uint8_t uuid[16];
	char *trace_name; /* NULL: none */
	uint64_t class_id, id;
	/* A piece of a stream file (deal.h): its first byte, the order of the stream's pieces. */
	uint64_t part;
	size_t input;		   /* the shard's input (trace or link directory) it is read from */
	int64_t first_ns, last_ns; /* its messages' times: the muxer wants them never to go back */
	bool timed;
	int error; /* -ENOMEM; -EDOM: a clock or a time the muxer would refuse */
	struct an_shard *shard;
	bt_message_iterator *it;
};

/* A piece of a stream file (deal.h) that a shard reads from a file of its own. */
struct an_piece {
	char *from, *to; /* the stream file; the piece's, in the shard's link directory */
	uint64_t off, bytes;
	size_t input;	       /* the shard's input that link directory is */
	uint64_t class_id, id; /* its stream's, from its packets' header */
};

/* A set of streams read by one graph, on one thread. */
struct an_shard {
	struct an_vec inputs; /* char *: the trace directories (or link directories) read */
	struct an_vec traces; /* uint32_t: each input's trace, its index in the directories */
	struct an_vec links;  /* char *: the link directories made for it, to remove */
	struct an_vec pieces; /* struct an_piece, written before its graph is built */
	bool split;	      /* some of its inputs are links to part of a trace */
	uint64_t bytes;	      /* of its stream files: the balance */
	/* Its own component classes (streams.c says why), the main thread's to put. */
	const bt_component_class_source *fs;
	bt_component_class_sink *sink_cls;
	bt_graph *graph;
	struct an_vec streams; /* struct an_stream *, one per output port */
	uint64_t events, messages;
	const volatile bool *stop;
	int status; /* 0, -ECANCELED (stopped), -EIO (babeltrace2 failed) */
};

/* streams.c, by the main thread: a sink component class for one shard's graph. */
bt_component_class_sink *an_stream_sink_class(void);
/*
 * streams.c, by the shard's own thread: its graph built of its classes and run to its end,
 * s->status saying how it went (-EIO: babeltrace2 failed, -ECANCELED: stopped); then
 * an_shard_close() frees the graph, by the same thread, while the streams' logs (no longer
 * written) are merged.
 */
void an_shard_decode(struct an_shard *s, void (*progress)(uint64_t events, void *arg), void *arg);
void an_shard_close(struct an_shard *s);
/* streams.c, by the main thread, after the merge: the streams and the link directories. */
void an_shard_free(struct an_shard *s);

/*
 * merge.c: the streams' logs into out, in the muxer's order, the pieces of a stream one
 * after the other: -EAGAIN when they cannot be ordered as it would (two streams alike, a
 * piece's times before its previous piece's), -ENOMEM.
 */
int an_merge(struct an_stream *const *streams, size_t n, struct an_log *out);

#endif /* LATENCY_ANALYSIS_STREAMS_H */
