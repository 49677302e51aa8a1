/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A snapshot's stream files dealt into shards of about the same size (parallel.c), a file
 * cut between two of its packets when whole files cannot even the shards out.
 */
#ifndef LATENCY_ANALYSIS_DEAL_H
#define LATENCY_ANALYSIS_DEAL_H

#include <stdbool.h>
#include <stdint.h>

#include "an.h"

struct an_shard;

/* A stream file, a piece of one, or a whole trace that cannot be split; and its shard. */
struct an_unit {
	size_t dir;	/* index in the trace directories */
	char *name;	/* the stream file; NULL: the whole directory */
	uint64_t size;	/* the file's (the directory's stream files') bytes */
	uint64_t off;	/* the piece's first byte, at a packet's start: 0 for a whole file */
	uint64_t bytes; /* the piece's: size for a whole file */
	bool lttng;	/* its trace is of LTTng's layout (lttng_packet.h): it can be cut */
	/* A piece's stream, from its packets' header: where its graph finds it. */
	uint64_t class_id, id;
	size_t shard;
};

static inline bool an_unit_is_piece(const struct an_unit *u)
{
	return u->name && (u->off || u->bytes != u->size);
}

/*
 * The units (struct an_unit, dirs[u->dir] their directories, char *) dealt into n shards,
 * each shard's bytes counted: the biggest first, each to the shard with the fewest bytes
 * yet; then, while the shards differ by 256 KiB or more, the end of the biggest
 * file that can be cut moves from the fullest shard to the emptiest. Returns how many cuts.
 */
unsigned an_deal(struct an_vec *units, const struct an_vec *dirs, struct an_shard *shards,
		 size_t n);

#endif /* LATENCY_ANALYSIS_DEAL_H */
