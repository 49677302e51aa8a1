// SPDX-License-Identifier: GPL-2.0-only
/*
 * The table codec (codec.h): one walk over a table to encode, one to decode, one to free.
 * Integers are written as json-c's int64, as latencyd always wrote them, so that a file
 * written before the tables existed reads back to the same bytes.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "codec.h"

#define AT(obj, off, type)  ((type *)((char *)(obj) + (off)))
#define CAT(obj, off, type) ((const type *)((const char *)(obj) + (off)))

/* A field path as problems name it: "causes[1].stack". */
struct where {
	char path[128];
	codec_problem_fn *problem;
	void *arg;
	int error; /* -ENOMEM met on the way */
};

/* Names the problem of member NAME of the object at w->path: WHAT, then THEN. */
static void report(struct where *w, const char *name, const char *what, const char *then)
{
	char field[192], text[192];

	if (!w->problem)
		return;
	snprintf(field, sizeof(field), "%s%s%s", w->path, w->path[0] && name ? "." : "",
		 name ? name : "");
	snprintf(text, sizeof(text), "%s; %s", what, then);
	w->problem(w->arg, field, text);
}

static bool is_empty(const struct codec_field *f, const void *obj)
{
	switch (f->type) {
	case CODEC_U64:
		return !*CAT(obj, f->offset, uint64_t);
	case CODEC_I64:
		return !*CAT(obj, f->offset, int64_t);
	case CODEC_DOUBLE:
		return *CAT(obj, f->offset, double) == 0;
	case CODEC_BOOL:
		return !*CAT(obj, f->offset, bool);
	case CODEC_STRING:
	case CODEC_OBJECT:
		return !*CAT(obj, f->offset, void *);
	case CODEC_ENUM:
		return !*CAT(obj, f->offset, int);
	case CODEC_U64S:
		for (size_t i = 0; i < f->count; i++)
			if (CAT(obj, f->offset, uint64_t)[i])
				return false;
		return true;
	case CODEC_STRINGS:
	case CODEC_MAP:
	case CODEC_ARRAY:
		return !*CAT(obj, f->count_offset, size_t);
	}
	return true;
}

static struct json_object *encode_value(const struct codec_field *f, const void *obj,
					size_t max_items)
{
	struct json_object *v;
	size_t n;

	switch (f->type) {
	case CODEC_U64:
		return json_object_new_int64((int64_t)*CAT(obj, f->offset, uint64_t));
	case CODEC_I64:
		return json_object_new_int64(*CAT(obj, f->offset, int64_t));
	case CODEC_DOUBLE:
		return json_object_new_double(*CAT(obj, f->offset, double));
	case CODEC_BOOL:
		return json_object_new_boolean(*CAT(obj, f->offset, bool));
	case CODEC_STRING:
		return json_object_new_string(*CAT(obj, f->offset, char *));
	case CODEC_ENUM:
		return json_object_new_string(f->names[*CAT(obj, f->offset, int)]);
	case CODEC_OBJECT:
		return codec_encode(f->sub, *CAT(obj, f->offset, void *), max_items);
	case CODEC_U64S:
		n = f->count;
		break;
	case CODEC_STRINGS:
	case CODEC_MAP:
	case CODEC_ARRAY:
		n = *CAT(obj, f->count_offset, size_t);
		break;
	default:
		return NULL;
	}
	if ((f->flags & CODEC_CAPPED) && max_items && n > max_items)
		n = max_items;
	v = f->type == CODEC_MAP ? json_object_new_object() : json_object_new_array();
	for (size_t i = 0; v && i < n; i++) {
		struct json_object *e;
		int r;

		if (f->type == CODEC_MAP) {
			const struct codec_pair *p =
				&(*CAT(obj, f->offset, struct codec_pair *))[i];

			e = json_object_new_string(p->value);
			r = e ? json_object_object_add(v, p->key, e) : -1;
		} else {
			if (f->type == CODEC_U64S)
				e = json_object_new_int64(
					(int64_t)CAT(obj, f->offset, uint64_t)[i]);
			else if (f->type == CODEC_STRINGS)
				e = json_object_new_string((*CAT(obj, f->offset, char **))[i]);
			else
				e = codec_encode(f->sub,
						 *CAT(obj, f->offset, char *) + i * f->sub->size,
						 max_items);
			r = e ? json_object_array_add(v, e) : -1;
		}
		if (r < 0) {
			json_object_put(e);
			json_object_put(v);
			return NULL;
		}
	}
	return v;
}

struct json_object *codec_encode(const struct codec_table *t, const void *obj, size_t max_items)
{
	struct json_object *o = json_object_new_object(), *extra;
	unsigned kind = t->kind ? t->kind(obj) : 0;

	for (const struct codec_field *f = t->fields; o && f->name; f++) {
		struct json_object *v;

		if (f->kinds && !(f->kinds & kind))
			continue;
		if ((f->flags & CODEC_OPTIONAL) && is_empty(f, obj))
			continue;
		/* Nothing to spell: a string or an object left NULL is absent, whatever the
		 * table says, rather than a null a reader would have to expect. */
		if ((f->type == CODEC_STRING || f->type == CODEC_OBJECT) && is_empty(f, obj))
			continue;
		v = encode_value(f, obj, max_items);
		if (!v || json_object_object_add(o, f->name, v) < 0) {
			json_object_put(v);
			json_object_put(o);
			return NULL;
		}
	}
	extra = t->extra == CODEC_NO_EXTRA
			? NULL
			: *(struct json_object *const *)((const char *)obj + t->extra);
	if (o && extra) {
		json_object_object_foreach(extra, key, val)
		{
			if (!json_object_object_get_ex(o, key, NULL) &&
			    json_object_object_add(o, key, json_object_get(val)) < 0) {
				json_object_put(val);
				json_object_put(o);
				return NULL;
			}
		}
	}
	return o;
}

static int decode_object(const struct codec_table *t, struct json_object *o, void *obj,
			 struct where *w);

static bool is_uint(struct json_object *v)
{
	return json_object_is_type(v, json_type_int) && json_object_get_int64(v) >= 0;
}

static char *dup_string(struct json_object *v, struct where *w)
{
	char *s = strdup(json_object_get_string(v));

	if (!s)
		w->error = -ENOMEM;
	return s;
}

/* An element of a list at PATH[i] (or PATH.KEY), for the problems under it. */
static size_t push_path(struct where *w, const char *name, size_t i, bool index)
{
	size_t len = strlen(w->path);

	if (index)
		snprintf(w->path + len, sizeof(w->path) - len, "%s%s[%zu]", len ? "." : "", name,
			 i);
	else
		snprintf(w->path + len, sizeof(w->path) - len, "%s%s", len ? "." : "", name);
	return len;
}

static void decode_list(const struct codec_field *f, struct json_object *v, void *obj,
			struct where *w)
{
	size_t n = json_object_array_length(v), kept = 0;
	size_t size = f->type == CODEC_STRINGS ? sizeof(char *) : f->sub->size;
	char *items = n ? calloc(n, size) : NULL;

	if (n && !items) {
		w->error = -ENOMEM;
		return;
	}
	for (size_t i = 0; i < n && !w->error; i++) {
		struct json_object *e = json_object_array_get_idx(v, i);
		size_t len = push_path(w, f->name, i, true);

		if (f->type == CODEC_STRINGS && json_object_is_type(e, json_type_string))
			((char **)items)[kept++] = dup_string(e, w);
		else if (f->type == CODEC_ARRAY && json_object_is_type(e, json_type_object))
			decode_object(f->sub, e, items + kept++ * size, w);
		else
			report(w, NULL,
			       f->type == CODEC_STRINGS ? "must be a string" : "must be an object",
			       "left out");
		w->path[len] = 0;
	}
	*AT(obj, f->offset, char *) = items;
	*AT(obj, f->count_offset, size_t) = kept;
}

static void decode_map(const struct codec_field *f, struct json_object *v, void *obj,
		       struct where *w)
{
	size_t n = (size_t)json_object_object_length(v), kept = 0;
	struct codec_pair *p = n ? calloc(n, sizeof(*p)) : NULL;

	if (n && !p) {
		w->error = -ENOMEM;
		return;
	}
	json_object_object_foreach(v, key, val)
	{
		if (!json_object_is_type(val, json_type_string)) {
			size_t len = push_path(w, f->name, 0, false);

			report(w, key, "must be a string", "left out");
			w->path[len] = 0;
			continue;
		}
		p[kept].key = strdup(key);
		p[kept].value = dup_string(val, w);
		if (!p[kept++].key)
			w->error = -ENOMEM;
	}
	*AT(obj, f->offset, struct codec_pair *) = p;
	*AT(obj, f->count_offset, size_t) = kept;
}

static int enum_value(const char *const *names, const char *s)
{
	for (int i = 0; names[i]; i++)
		if (strcmp(names[i], s) == 0)
			return i;
	return -1;
}

/* Stores V, or says why it does not fit the field (NULL: stored). */
static const char *decode_value(const struct codec_field *f, struct json_object *v, void *obj,
				struct where *w)
{
	uint64_t *words;
	size_t len;
	void *sub;
	int e;

	switch (f->type) {
	case CODEC_U64:
		if (!is_uint(v))
			return "must be a non-negative integer";
		*AT(obj, f->offset, uint64_t) = (uint64_t)json_object_get_int64(v);
		return NULL;
	case CODEC_I64:
		if (!json_object_is_type(v, json_type_int))
			return "must be an integer";
		*AT(obj, f->offset, int64_t) = json_object_get_int64(v);
		return NULL;
	case CODEC_DOUBLE:
		if (!json_object_is_type(v, json_type_double) &&
		    !json_object_is_type(v, json_type_int))
			return "must be a number";
		/* A hand-edited NaN or 1e400 would go out in replies that clients refuse. */
		if (!isfinite(json_object_get_double(v)))
			return "must be a finite number";
		*AT(obj, f->offset, double) = json_object_get_double(v);
		return NULL;
	case CODEC_BOOL:
		if (!json_object_is_type(v, json_type_boolean))
			return "must be a boolean";
		*AT(obj, f->offset, bool) = json_object_get_boolean(v);
		return NULL;
	case CODEC_STRING:
		if (!json_object_is_type(v, json_type_string))
			return "must be a string";
		*AT(obj, f->offset, char *) = dup_string(v, w);
		return NULL;
	case CODEC_ENUM:
		e = json_object_is_type(v, json_type_string)
			    ? enum_value(f->names, json_object_get_string(v))
			    : -1;
		if (e < 0)
			return "has a value latencyd does not know";
		*AT(obj, f->offset, int) = e;
		return NULL;
	case CODEC_U64S:
		if (!json_object_is_type(v, json_type_array) ||
		    json_object_array_length(v) > f->count)
			return "must be an array of at most as many integers as latencyd keeps";
		for (size_t i = 0; i < json_object_array_length(v); i++)
			if (!is_uint(json_object_array_get_idx(v, i)))
				return "must be an array of non-negative integers";
		words = AT(obj, f->offset, uint64_t);
		for (size_t i = 0; i < json_object_array_length(v); i++)
			words[i] = (uint64_t)json_object_get_int64(json_object_array_get_idx(v, i));
		return NULL;
	case CODEC_STRINGS:
	case CODEC_ARRAY:
		if (!json_object_is_type(v, json_type_array))
			return "must be an array";
		decode_list(f, v, obj, w);
		return NULL;
	case CODEC_MAP:
		if (!json_object_is_type(v, json_type_object))
			return "must be an object";
		decode_map(f, v, obj, w);
		return NULL;
	case CODEC_OBJECT:
		if (!json_object_is_type(v, json_type_object))
			return "must be an object";
		sub = calloc(1, f->sub->size);
		if (!sub) {
			w->error = -ENOMEM;
			return NULL;
		}
		*AT(obj, f->offset, void *) = sub;
		len = push_path(w, f->name, 0, false);
		decode_object(f->sub, v, sub, w);
		w->path[len] = 0;
		return NULL;
	}
	return "has an unknown type";
}

static const struct codec_field *find(const struct codec_table *t, const char *name)
{
	for (const struct codec_field *f = t->fields; f->name; f++)
		if (strcmp(f->name, name) == 0)
			return f;
	return NULL;
}

static int decode_object(const struct codec_table *t, struct json_object *o, void *obj,
			 struct where *w)
{
	struct json_object **extra =
		t->extra == CODEC_NO_EXTRA ? NULL : AT(obj, t->extra, struct json_object *);

	json_object_object_foreach(o, key, val)
	{
		const struct codec_field *f = find(t, key);
		const char *why;

		if (w->error)
			break;
		if (!f) {
			report(w, key, "unknown to this latencyd",
			       extra ? "kept as it is" : "left out");
			if (extra && !*extra && !(*extra = json_object_new_object()))
				w->error = -ENOMEM;
			if (extra && *extra &&
			    json_object_object_add(*extra, key, json_object_get(val)) < 0) {
				json_object_put(val);
				w->error = -ENOMEM;
			}
			continue;
		}
		why = decode_value(f, val, obj, w);
		if (why)
			report(w, key, why, "left out");
	}
	return w->error;
}

int codec_decode(const struct codec_table *t, struct json_object *o, void *obj,
		 codec_problem_fn *problem, void *arg)
{
	struct where w = {.problem = problem, .arg = arg};

	memset(obj, 0, t->size);
	if (!json_object_is_type(o, json_type_object))
		return -EINVAL;
	return decode_object(t, o, obj, &w);
}

void codec_free(const struct codec_table *t, void *obj)
{
	if (!obj)
		return;
	for (const struct codec_field *f = t->fields; f->name; f++) {
		size_t n = f->count_offset ? *AT(obj, f->count_offset, size_t) : 0;

		switch (f->type) {
		case CODEC_STRING:
			free(*AT(obj, f->offset, char *));
			break;
		case CODEC_STRINGS:
			for (size_t i = 0; i < n; i++)
				free((*AT(obj, f->offset, char **))[i]);
			free(*AT(obj, f->offset, char **));
			break;
		case CODEC_MAP:
			for (size_t i = 0; i < n; i++) {
				free((*AT(obj, f->offset, struct codec_pair *))[i].key);
				free((*AT(obj, f->offset, struct codec_pair *))[i].value);
			}
			free(*AT(obj, f->offset, struct codec_pair *));
			break;
		case CODEC_OBJECT:
			codec_free(f->sub, *AT(obj, f->offset, void *));
			free(*AT(obj, f->offset, void *));
			break;
		case CODEC_ARRAY:
			for (size_t i = 0; i < n; i++)
				codec_free(f->sub, *AT(obj, f->offset, char *) + i * f->sub->size);
			free(*AT(obj, f->offset, void *));
			break;
		default:
			break;
		}
	}
	if (t->extra != CODEC_NO_EXTRA)
		json_object_put(*AT(obj, t->extra, struct json_object *));
	memset(obj, 0, t->size);
}
