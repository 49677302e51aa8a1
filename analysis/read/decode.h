/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The reader's message handlers: decode.c turns event messages into the analysis' compact
 * log, history.c counts each stream's events and times for the history window.
 */
#ifndef LATENCY_ANALYSIS_DECODE_H
#define LATENCY_ANALYSIS_DECODE_H

#include <babeltrace2/babeltrace.h>

#include "an.h"
#include "read.h"

/*
 * trail.c: where a stream's side effects on its log's tables happened, so that merging
 * streams decoded apart (merge.c) replays them in the order one pass in time order would
 * have made them: a task first seen, an irq or a disk first named. Each mark is the event's
 * time and a count that orders the marks of one stream. (What the events say of who a task
 * was is kept whole, in the log's observations, and merged as its events are.)
 */
enum an_mark_kind { AN_MARK_TASK, AN_MARK_IRQ, AN_MARK_DISK };
struct an_mark {
	uint64_t ts, seq; /* seq 0: no mark */
};
struct an_trail {
	uint64_t seq;
	struct an_vec marks[AN_MARK_DISK + 1]; /* struct an_mark, by index in the log's table */
};
/* Room for entry i of kind's marks; false: out of memory. */
bool an_trail_grow(struct an_trail *t, enum an_mark_kind kind, size_t i);
/*
 * Marks entry i of kind's table (tasks, irqname_v, disks) at time ts: inline, as a switch
 * may mark two.
 */
static inline void an_trail_mark(struct an_trail *t, enum an_mark_kind kind, size_t i, uint64_t ts)
{
	struct an_mark *m;

	if (i >= t->marks[kind].n && !an_trail_grow(t, kind, i))
		return;
	m = AN_AT(&t->marks[kind], struct an_mark, i);
	m->ts = ts;
	m->seq = ++t->seq;
}
void an_trail_free(struct an_trail *t);

/* The classes seen last, by their address: most events need no lookup in the map. */
#define AN_RECENT_CLASSES 16
struct an_recent_class {
	const bt_event_class *ec;
	uint32_t handler; /* index + 1 */
};

/*
 * A thread's name as a stream said it last, and in which of its packets. A name said again
 * in the same packet is no observation: a switch names two tasks, mostly the same few. A
 * packet's first is kept, so that a stream cut between packets (parallel.c) observes what
 * the whole stream does.
 */
struct an_seen {
	uint32_t packet; /* the stream's packet count then */
	char comm[AN_COMM_LEN + 1];
};

/* The threads named last, by stream and tid (an index, as the table moves when it grows). */
#define AN_RECENT_TASKS 64
struct an_recent_task {
	int32_t tid; /* 0: none */
	uint32_t ds;
	uint32_t seen; /* in the decoder's seen */
};

/* A stream as the decoder knows it: its CPU (UINT32_MAX past AN_CPUS_MAX), its packets. */
struct an_dstream {
	uint32_t cpu, packets;
};

struct an_decoder {
	struct an_log *log;
	struct an_recent_class recent[AN_RECENT_CLASSES];
	struct an_recent_task recent_tasks[AN_RECENT_TASKS];
	struct an_map classes;	/* event class -> handler index + 1 */
	struct an_map streams;	/* stream -> index in dstreams + 1 */
	struct an_map sclasses; /* stream class -> 1: its event classes looked at */
	struct an_vec dstreams; /* struct an_dstream */
	struct an_map seen_map; /* (stream index + 1) << 32 | tid -> index in seen + 1 */
	struct an_vec seen;	/* struct an_seen */
	struct an_vec handlers;
	struct an_trail *trail;	      /* NULL: none (one pass in time order needs none) */
	uint64_t ts;		      /* the last event's time, ns from the origin */
	const bt_stream *last_stream; /* and its index in dstreams */
	uint32_t last_ds;
	/*
	 * The trace (index in the directories read) its streams are of, for what each trace
	 * declares; or, reading several (the muxed pass), the directory each was read from
	 * (its own or a salvage's), to find a stream's trace by its name (its file's path).
	 */
	uint32_t trace;
	const struct an_input *inputs; /* NULL: trace */
	size_t ninputs;
};

/* A directory a trace is read from, as stat() knows it (source.ctf.fs makes paths absolute). */
struct an_input {
	uint64_t dev, ino; /* ino 0: none */
	uint32_t trace;
};
/* DIR's identity into in, as TRACE's (ino 0: it cannot be looked at). */
void an_input_of(const char *dir, uint32_t trace, struct an_input *in);

#define AN_DECODER_INIT(l)                                                                         \
	{                                                                                          \
		.log = (l)                                                                         \
	}

int an_decode(struct an_decoder *d, const bt_message *msg);
/* A packet begins (its CPU, for the events that follow in its stream). */
void an_decode_packet(struct an_decoder *d, const bt_message *msg);
/*
 * A discarded-events or discarded-packets message: the events counted, and where its
 * stream's CPU lost them kept (an_lost).
 */
void an_decode_discarded(struct an_decoder *d, const bt_message *msg);
/* The stream a message is of; NULL: none (a message iterator's inactivity). */
const bt_stream *an_msg_stream(const bt_message *m);
void an_decoder_free(struct an_decoder *d);

/* An event or a stream's beginning into c's history; -ENOMEM. Other messages are ignored. */
int an_count(struct an_count *c, const bt_message *msg);

#endif /* LATENCY_ANALYSIS_DECODE_H */
