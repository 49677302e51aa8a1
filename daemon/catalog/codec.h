/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A table of fields turns a C struct into a JSON object and back, in the spirit of systemd's
 * JSON dispatch tables: one row per member (its key, type, offset, and when it is written),
 * so that a record's spelling is declared once and the file, the replies and the events
 * cannot drift apart. Decoding is lenient where proto/fields.c is strict: a catalog written
 * by another version must still load, so a mistyped member is reported and left out, an
 * unknown one is reported and kept (written back as it was), and the rest is decoded.
 */
#ifndef LATENCYD_CODEC_H
#define LATENCYD_CODEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct json_object;

enum codec_type {
	CODEC_U64,     /* uint64_t */
	CODEC_I64,     /* int64_t */
	CODEC_DOUBLE,  /* double */
	CODEC_BOOL,    /* bool */
	CODEC_STRING,  /* char *, owned */
	CODEC_ENUM,    /* int, spelled as one of names[] */
	CODEC_U64S,    /* uint64_t[count], all written */
	CODEC_STRINGS, /* char **, owned, with a size_t count at count_offset */
	CODEC_MAP,     /* struct codec_pair *, with a count: {"key": "value", ...} */
	CODEC_OBJECT,  /* a pointer to a struct of the table sub, NULL: absent */
	CODEC_ARRAY,   /* an array of structs of the table sub, with a count */
};

#define CODEC_OPTIONAL (1u << 0) /* written only when not zero, false or empty (NULL never is) */
#define CODEC_CAPPED   (1u << 1) /* an array the caller may cap when it encodes */

/* The layout of a CODEC_MAP's elements: a struct of two owned strings. */
struct codec_pair {
	char *key;
	char *value;
};

struct codec_table;

struct codec_field {
	const char *name; /* NULL ends the table */
	enum codec_type type;
	size_t offset;
	unsigned flags;
	/* Written only when the object's kind (codec_table.kind) is one of these bits; 0:
	 * always. Decoding takes every field whatever the kind. */
	unsigned kinds;
	size_t count_offset;	       /* STRINGS, MAP, ARRAY: where the count is */
	size_t count;		       /* U64S: how many */
	const struct codec_table *sub; /* OBJECT, ARRAY */
	const char *const *names;      /* ENUM: indexed by value, NULL-terminated */
};

#define CODEC_NO_EXTRA ((size_t)-1)

struct codec_table {
	const char *what; /* how problems name the object: "cause", "stack" */
	size_t size;
	const struct codec_field *fields;
	unsigned (*kind)(const void *obj); /* NULL: every field is of every kind */
	/* Where a struct json_object * keeps the members the table does not know, or
	 * CODEC_NO_EXTRA: they are reported and dropped. */
	size_t extra;
};

/* A problem met while decoding: FIELD ("causes[1].stack.frames") and WHAT is wrong. */
typedef void codec_problem_fn(void *arg, const char *field, const char *what);

/*
 * OBJ as a new JSON object (NULL: no memory). Arrays marked CODEC_CAPPED hold at most
 * MAX_ITEMS elements (0: no cap).
 */
struct json_object *codec_encode(const struct codec_table *t, const void *obj, size_t max_items);
/*
 * Decodes O into OBJ (zeroed first): every member that has the table's type is stored;
 * each other member is reported to PROBLEM (may be NULL) and left out, or kept in the
 * table's extra. Returns 0, -EINVAL when O is not an object, -ENOMEM.
 */
int codec_decode(const struct codec_table *t, struct json_object *o, void *obj,
		 codec_problem_fn *problem, void *arg);
/* Frees what OBJ owns (not OBJ itself) and zeroes it. */
void codec_free(const struct codec_table *t, void *obj);

#endif /* LATENCYD_CODEC_H */
