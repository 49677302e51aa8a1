/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * reader_result.c: the one record latencyd-reader hands back to latencyd: a snapshot's history
 * (every stream, or why none could be counted) and, when asked, its analysis, spelled as
 * catalog.json spells them (the catalog entry codec's tables). The child encodes it;
 * latencyd decodes it strictly, as bytes from a process that read hostile input.
 *
 *   {"error": "...", "history": {... "streams": [every stream] ...}, "analysis": {...}}
 */
#ifndef LATENCYD_READER_RESULT_H
#define LATENCYD_READER_RESULT_H

#include <stdbool.h>
#include <stddef.h>

struct catalog_analysis;
struct catalog_history;
struct history;
struct json_object;

/*
 * How latencyd runs it: READER_NAME [--analyse] [--max-memory BYTES] SNAPSHOT, the result
 * written to descriptor READER_RESULT_FD (a pipe), exit 0 once written.
 */
#define READER_NAME	 "latencyd-reader"
#define READER_RESULT_FD 3

/* The most latencyd reads of a result: beyond it the reader is killed. */
#define READER_RESULT_MAX   (4u << 20)
/*
 * What a result may hold, checked on the raw text before it is parsed (json-c's objects
 * take hundreds of bytes each: 4 MiB of "{}," would take a GiB of latencyd's locked
 * memory) and again on what is decoded, so that a hostile reader cannot swell the catalog:
 * the real reader keeps within them (summary.c).
 */
#define READER_TOKENS_MAX   (1u << 17) /* objects, arrays, members and elements */
#define READER_STRING_MAX   16384      /* bytes of one string as sent */
#define READER_STREAMS_MAX  8192       /* a history's streams (CPUs x channels) */
#define READER_CAUSES_MAX   1000       /* an analysis's lines, one per alert: the first */
#define READER_PROBLEMS_MAX 3
#define READER_MISSING_MAX  16

struct reader_result {
	char *error;			   /* the history could not be counted: why */
	struct catalog_history *history;   /* else every stream, in the catalog's spelling */
	struct catalog_analysis *analysis; /* asked for: done, partial or failed; else NULL */
};

/* R as JSON; NULL: no memory. */
struct json_object *reader_result_to_json(const struct reader_result *r);
/*
 * Decodes O into R, strictly: a member missing, unknown or mistyped, a history and an
 * error both or neither, a stream the catalog could not hold, an analysis with no known
 * status, or one given when not asked (WANT_ANALYSIS), and it is refused with -EINVAL and
 * WHY naming what is wrong. -ENOMEM. R is freed on failure.
 */
int reader_result_from_json(struct json_object *o, bool want_analysis, struct reader_result *r,
			    char *why, size_t whylen);
void reader_result_free(struct reader_result *r);
/* The raw TEXT of LEN bytes within READER_TOKENS_MAX and READER_STRING_MAX: 0, or -E2BIG
 * and WHY. */
int reader_result_shape(const char *text, size_t len, char *why, size_t whylen);

/* The first N of H's streams as a catalog history, streams_total H's count, the rest 0 (as
 * history_summarize() leaves them for a caller to fill); NULL: no memory. */
struct catalog_history *reader_history_new(const struct history *h, size_t n);
/* All H's streams, its totals left 0 (the parent sums them again); NULL: no memory. */
struct catalog_history *reader_history_out(const struct history *h);
/* A decoded history's streams into H (zeroed first); -ENOMEM. */
int reader_history_in(const struct catalog_history *c, struct history *h);

#endif /* LATENCYD_READER_RESULT_H */
