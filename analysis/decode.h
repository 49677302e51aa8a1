/* SPDX-License-Identifier: GPL-2.0-only */
/* decode.c: babeltrace2 event messages into the compact log. */
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

#endif /* LATENCY_ANALYSIS_DECODE_H */
