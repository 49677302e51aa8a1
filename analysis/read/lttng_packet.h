/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * LTTng's stream packets, read without the metadata where babeltrace2 does not tell or
 * cannot be trusted: where a damaged file's complete packets end and whether a packet
 * would make babeltrace2 abort (salvage.c), where a stream file can be cut between two
 * packets (deal.c).
 */
#ifndef LATENCY_ANALYSIS_LTTNG_PACKET_H
#define LATENCY_ANALYSIS_LTTNG_PACKET_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* A packet's header and context, as LTTng's kernel and userspace tracers write them. */
struct an_lttng_packet {
	uint64_t class_id, id; /* the header's stream_id and stream_instance_id */
	uint64_t begin, end;   /* timestamp_begin and timestamp_end, in clock cycles */
	uint64_t bytes;	       /* packet_size */
	uint64_t seq;	       /* packet_seq_num */
	/*
	 * events_discarded, a running count; where the tracer's unsigned long has 32 bits, the
	 * cpu_id after it too: only ever compared with 0.
	 */
	uint64_t discarded;
};

/*
 * The packet at byte off of f, a file of size bytes; false: none there (no magic, sizes
 * past the file, a value babeltrace2 would abort on).
 */
bool an_lttng_packet_at(FILE *f, uint64_t off, uint64_t size, struct an_lttng_packet *p);
/* Whether trace dir's metadata says LTTng 2.8 or later wrote it: this layout. */
bool an_trace_is_lttng(const char *dir);

#endif /* LATENCY_ANALYSIS_LTTNG_PACKET_H */
