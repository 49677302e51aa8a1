/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Dealing whole stream files leaves shards as uneven as the files: a busy CPU's stream
 * twice an idle one's keeps one thread decoding long after the other is done. A stream
 * file is a sequence of self-contained packets, so its end can go to another shard as a
 * file of its own (parallel.c writes the pieces), read there as the same stream from a
 * later packet on. The merge (merge.c) puts the pieces back in order. A cut is made only
 * where reading the stream from that packet on gives what reading it whole gives from
 * there: the packets numbered in sequence (no discarded-packets record either way), no
 * events discarded yet (babeltrace2 reports a stream's first packet's running count as
 * discarded events), times going forward and the packet before it closed (an end time, not
 * the 0 that babeltrace2 mends from the next packet).
 */
#include <stdlib.h>
#include <string.h>

#include "deal.h"
#include "lttng_packet.h"
#include "regular.h"
#include "streams.h"

/* Shards closer than this are left alone: a cut costs a copy of the file's bytes. */
#define BALANCE_MIN_BYTES (256u << 10)

/* Where one stream file may be cut: byte offsets of packets, the first excluded. */
struct cuts {
	size_t dir;
	const char *name;
	uint64_t class_id, id;
	struct an_vec at; /* uint64_t, ascending */
};

static int by_size(const void *a, const void *b)
{
	const struct an_unit *x = a, *y = b;

	if (x->bytes != y->bytes)
		return x->bytes > y->bytes ? -1 : 1;
	if (x->dir != y->dir)
		return x->dir < y->dir ? -1 : 1;
	return strcmp(x->name ? x->name : "", y->name ? y->name : "");
}

static bool cuttable(const struct an_lttng_packet *prev, const struct an_lttng_packet *p)
{
	return p->class_id == prev->class_id && p->id == prev->id && p->seq == prev->seq + 1 &&
	       !prev->discarded && !p->discarded && prev->end && prev->begin <= prev->end &&
	       prev->end <= p->begin;
}

/* The file's cuts; none when any packet is not LTTng's or they do not fill it exactly. */
static void scan(const char *dir, struct cuts *c, uint64_t size)
{
	char *path = an_asprintf("%s/%s", dir, c->name);
	FILE *f = path ? an_fopen_regular(path, NULL) : NULL;
	struct an_lttng_packet prev = {0}, p;
	uint64_t off = 0;
	bool ok = true;

	while (f && ok && off < size && an_lttng_packet_at(f, off, size, &p)) {
		uint64_t *slot;

		if (!off) {
			c->class_id = p.class_id;
			c->id = p.id;
		} else if (cuttable(&prev, &p)) {
			ok = (slot = an_vec_push(&c->at)) != NULL;
			if (ok)
				*slot = off;
		}
		if (p.class_id != c->class_id || p.id != c->id)
			ok = false;
		prev = p;
		off += p.bytes;
	}
	if (!ok || off != size)
		c->at.n = 0;
	if (f)
		fclose(f);
	free(path);
}

/* The cuts of unit u's file, scanned the first time; NULL when out of memory. */
static struct cuts *cuts_of(struct an_vec *files, const struct an_vec *dirs,
			    const struct an_unit *u)
{
	struct cuts *c;

	for (size_t i = 0; i < files->n; i++) {
		c = AN_AT(files, struct cuts, i);
		if (c->dir == u->dir && strcmp(c->name, u->name) == 0)
			return c;
	}
	c = an_vec_push(files);
	if (!c)
		return NULL;
	*c = (struct cuts){.dir = u->dir, .name = u->name, .at = AN_VEC(uint64_t)};
	scan(*AN_AT(dirs, char *, u->dir), c, u->size);
	return c;
}

/* Whether shard s holds a piece of unit u's file already: two would be one stream there. */
static bool holds(const struct an_vec *units, size_t s, const struct an_unit *u)
{
	for (size_t i = 0; i < units->n; i++) {
		const struct an_unit *o = AN_AT(units, struct an_unit, i);

		if (o->shard == s && o->name && o->dir == u->dir && strcmp(o->name, u->name) == 0)
			return true;
	}
	return false;
}

/*
 * The end of one of shard hi's files to shard lo: the cut that moves the nearest to want
 * bytes, and fewer than gap (else nothing gets better). False: no such cut.
 */
static bool cut_one(struct an_vec *units, struct an_vec *files, const struct an_vec *dirs,
		    size_t hi, size_t lo, uint64_t want, uint64_t gap)
{
	size_t best_unit = 0;
	uint64_t best_at = 0, best_miss = UINT64_MAX;
	struct an_unit *u, *tail;
	struct cuts *c;

	for (size_t i = 0; i < units->n; i++) {
		u = AN_AT(units, struct an_unit, i);
		if (u->shard != hi || !u->name || !u->lttng || holds(units, lo, u) ||
		    !(c = cuts_of(files, dirs, u)))
			continue;
		for (size_t k = 0; k < c->at.n; k++) {
			uint64_t at = *AN_AT(&c->at, uint64_t, k), end = u->off + u->bytes, miss;

			if (at <= u->off || at >= end || end - at >= gap)
				continue;
			miss = end - at > want ? end - at - want : want - (end - at);
			if (miss < best_miss) {
				best_miss = miss;
				best_unit = i;
				best_at = at;
			}
		}
	}
	if (best_miss == UINT64_MAX)
		return false;
	tail = an_vec_push(units);
	if (!tail)
		return false;
	u = AN_AT(units, struct an_unit, best_unit);
	c = cuts_of(files, dirs, u);
	*tail = *u;
	tail->name = strdup(u->name);
	if (!tail->name) {
		units->n--;
		return false;
	}
	tail->off = best_at;
	tail->bytes = u->off + u->bytes - best_at;
	tail->shard = lo;
	u->bytes -= tail->bytes;
	u->class_id = tail->class_id = c->class_id;
	u->id = tail->id = c->id;
	return true;
}

unsigned an_deal(struct an_vec *units, const struct an_vec *dirs, struct an_shard *shards, size_t n)
{
	struct an_vec files = AN_VEC(struct cuts);
	unsigned cuts = 0;

	qsort(units->v, units->n, sizeof(struct an_unit), by_size);
	for (size_t i = 0; i < units->n; i++) {
		struct an_unit *u = AN_AT(units, struct an_unit, i);
		size_t best = 0;

		for (size_t s = 1; s < n; s++)
			if (shards[s].bytes < shards[best].bytes)
				best = s;
		u->shard = best;
		shards[best].bytes += u->bytes;
	}
	for (size_t round = 0; round < 2 * n; round++) {
		size_t hi = 0, lo = 0;
		uint64_t gap, moved;
		struct an_unit *tail;

		for (size_t s = 1; s < n; s++) {
			if (shards[s].bytes > shards[hi].bytes)
				hi = s;
			if (shards[s].bytes < shards[lo].bytes)
				lo = s;
		}
		gap = shards[hi].bytes - shards[lo].bytes;
		if (gap < BALANCE_MIN_BYTES || !cut_one(units, &files, dirs, hi, lo, gap / 2, gap))
			break;
		tail = AN_AT(units, struct an_unit, units->n - 1);
		moved = tail->bytes;
		shards[hi].bytes -= moved;
		shards[lo].bytes += moved;
		cuts++;
	}
	for (size_t i = 0; i < files.n; i++)
		an_vec_free(&AN_AT(&files, struct cuts, i)->at);
	an_vec_free(&files);
	return cuts;
}
