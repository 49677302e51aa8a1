/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The reader's message handlers: decode.c turns event messages into the analysis' compact
 * log, history.c counts each stream's events and times for the history window.
 */
#ifndef LATENCY_ANALYSIS_DECODE_H
#define LATENCY_ANALYSIS_DECODE_H

#include <babeltrace2/babeltrace.h>

#include "an.h"

struct an_decoder {
	struct an_log *log;
	struct an_map classes; /* event class -> handler index + 1 */
	struct an_map streams; /* stream -> cpu */
	struct an_vec handlers;
};

#define AN_DECODER_INIT(l)                                                                         \
	{                                                                                          \
		.log = (l)                                                                         \
	}

int an_decode(struct an_decoder *d, const bt_message *msg);
void an_decoder_free(struct an_decoder *d);

struct history;

struct an_count {
	struct history *h;
	struct an_map streams; /* bt_stream -> index in h->streams + 1 */
	int error;	       /* the first failure: every later call returns it */
};

/* An event or a stream's beginning into h; -ENOMEM. Other messages are ignored. */
int an_count(struct an_count *c, const bt_message *msg);
/* At the end of the pass: h's streams sorted by channel and CPU; the map freed. */
void an_count_done(struct an_count *c);

#endif /* LATENCY_ANALYSIS_DECODE_H */
