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

/* An event or a stream's beginning into c's history; -ENOMEM. Other messages are ignored. */
int an_count(struct an_count *c, const bt_message *msg);

#endif /* LATENCY_ANALYSIS_DECODE_H */
