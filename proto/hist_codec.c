/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * struct proto_hist on the wire (proto.h): the one codec of a tracker's histogram, written
 * by latencyd's hist command and read back by latencyctl, which subtracts two reads for
 * --interval and writes the difference with the same encoder, so that its text and its
 * JSON say the same numbers.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <json-c/json.h>

#include "proto.h"

/* JSON integers are int64: bounds past 2^63 ns (292 years) are said as the largest. */
static struct json_object *num(uint64_t v)
{
	return json_object_new_int64(v > INT64_MAX ? INT64_MAX : (int64_t)v);
}

static int add(struct json_object *o, const char *key, struct json_object *v)
{
	if (!v || json_object_object_add(o, key, v) < 0) {
		json_object_put(v);
		return -ENOMEM;
	}
	return 0;
}

static struct json_object *buckets_json(const uint64_t *counts)
{
	struct json_object *a = json_object_new_array(), *b;

	for (unsigned i = 0; a && i < PROTO_HIST_BUCKETS; i++) {
		if (!counts[i])
			continue;
		b = json_object_new_object();
		if (!b || add(b, PROTO_KEY_LOWER_NS, num(proto_hist_lower_ns(i))) < 0 ||
		    add(b, PROTO_KEY_UPPER_NS, num(proto_hist_upper_ns(i))) < 0 ||
		    add(b, PROTO_KEY_COUNT, num(counts[i])) < 0 ||
		    json_object_array_add(a, b) < 0) {
			json_object_put(b);
			json_object_put(a);
			return NULL;
		}
	}
	return a;
}

static struct json_object *percentiles_json(const uint64_t *counts)
{
	static const struct {
		const char *key;
		unsigned permille;
	} ps[] = {{PROTO_KEY_P50, 500},
		  {PROTO_KEY_P90, 900},
		  {PROTO_KEY_P99, 990},
		  {PROTO_KEY_MAX, 1000}};
	struct json_object *o = json_object_new_object();
	uint64_t upper;

	for (size_t i = 0; o && i < sizeof(ps) / sizeof(ps[0]); i++)
		if (proto_hist_percentile(counts, ps[i].permille, &upper) >= 0 &&
		    add(o, ps[i].key, num(upper)) < 0) {
			json_object_put(o);
			return NULL;
		}
	return o;
}

/* count, buckets, percentiles of COUNTS into O. */
static int counts_json(struct json_object *o, const uint64_t *counts)
{
	if (add(o, PROTO_KEY_COUNT, num(proto_hist_total(counts))) < 0 ||
	    add(o, PROTO_KEY_BUCKETS, buckets_json(counts)) < 0 ||
	    add(o, PROTO_KEY_PERCENTILES, percentiles_json(counts)) < 0)
		return -ENOMEM;
	return 0;
}

/*
 * A key's buckets, dense: first_ns (the lower bound of its first non-empty bucket) and
 * counts from there to its last non-empty one. 65 keys of {lower_ns, upper_ns, count}
 * objects would not fit one frame (PROTO_FRAME_MAX); this way they always do.
 */
static int dense_json(struct json_object *o, const uint64_t *counts)
{
	struct json_object *a;
	int first = -1, last = -1;

	for (int i = 0; i < PROTO_HIST_BUCKETS; i++)
		if (counts[i]) {
			first = first < 0 ? i : first;
			last = i;
		}
	a = json_object_new_array_ext(last - first + 1);
	for (int i = first; a && first >= 0 && i <= last; i++)
		if (json_object_array_add(a, num(counts[i])) < 0) {
			json_object_put(a);
			a = NULL;
		}
	if (add(o, PROTO_KEY_FIRST_NS, num(first < 0 ? 0 : proto_hist_lower_ns((unsigned)first))) <
		    0 ||
	    add(o, PROTO_KEY_COUNTS, a) < 0)
		return -ENOMEM;
	return 0;
}

static struct json_object *keys_json(const struct proto_hist *h)
{
	struct json_object *a = json_object_new_array(), *k;

	for (size_t i = 0; a && i < h->nkeys; i++) {
		const uint64_t *counts = h->keys[i].counts;

		k = json_object_new_object();
		if (!k || add(k, PROTO_KEY_KEY, json_object_new_string(h->keys[i].key)) < 0 ||
		    (h->keys[i].name[0] &&
		     add(k, PROTO_KEY_NAME, json_object_new_string(h->keys[i].name)) < 0) ||
		    add(k, PROTO_KEY_COUNT, num(proto_hist_total(counts))) < 0 ||
		    dense_json(k, counts) < 0 ||
		    add(k, PROTO_KEY_PERCENTILES, percentiles_json(counts)) < 0 ||
		    json_object_array_add(a, k) < 0) {
			json_object_put(k);
			json_object_put(a);
			return NULL;
		}
	}
	return a;
}

int proto_hist_to_json(const struct proto_hist *h, struct json_object **ret)
{
	struct json_object *o = json_object_new_object();
	int r;

	if (!o)
		return -ENOMEM;
	r = add(o, PROTO_KEY_TRACKER, json_object_new_string(h->tracker));
	if (r >= 0)
		r = add(o, PROTO_KEY_SINCE_NS, num(h->since_ns));
	if (r >= 0)
		r = add(o, PROTO_KEY_NOW_NS, num(h->now_ns));
	if (r >= 0)
		r = counts_json(o, h->counts);
	if (r >= 0 && h->per[0])
		r = add(o, PROTO_KEY_PER, json_object_new_string(h->per));
	if (r >= 0 && h->disk[0])
		r = add(o, PROTO_KEY_DISK, json_object_new_string(h->disk));
	if (r >= 0 && h->per[0])
		r = add(o, PROTO_KEY_KEYS_SINCE_NS, num(h->keys_since_ns));
	if (r >= 0 && h->per[0])
		r = add(o, PROTO_KEY_KEYS, keys_json(h));
	if (r < 0) {
		json_object_put(o);
		return r;
	}
	*ret = o;
	return 0;
}

struct bucket_fields {
	uint64_t lower_ns, count;
};

static int buckets_from_json(struct json_object *a, uint64_t *counts, const char *where,
			     struct proto_error *err)
{
	static const struct proto_field fields[] = {
		{PROTO_KEY_LOWER_NS, PROTO_FIELD_UINT, PROTO_FIELD_REQUIRED,
		 offsetof(struct bucket_fields, lower_ns)},
		{PROTO_KEY_COUNT, PROTO_FIELD_UINT, PROTO_FIELD_REQUIRED,
		 offsetof(struct bucket_fields, count)},
		{NULL},
	};
	struct bucket_fields b;
	int i;

	memset(counts, 0, PROTO_HIST_BUCKETS * sizeof(*counts));
	for (size_t n = 0; a && n < json_object_array_length(a); n++) {
		if (proto_fields_dispatch(json_object_array_get_idx(a, n), fields,
					  PROTO_DISPATCH_ALLOW_UNKNOWN, &b, err) < 0)
			return -EINVAL;
		i = proto_hist_bucket(b.lower_ns);
		if (i < 0)
			return proto_error_set(err, PROTO_ERR_BAD_ARGUMENT,
					       "%s: %llu is no bucket's lower bound", where,
					       (unsigned long long)b.lower_ns);
		counts[i] = b.count;
	}
	return 0;
}

static void copy(char *dst, size_t size, const char *src)
{
	snprintf(dst, size, "%s", src ? src : "");
}

struct key_fields {
	const char *key, *name;
	uint64_t first_ns;
	struct json_object *counts;
};

/* A key's dense counts (dense_json()) back into bucket order. */
static int dense_from_json(const struct key_fields *k, uint64_t *counts, struct proto_error *err)
{
	int first = proto_hist_bucket(k->first_ns);
	size_t n = json_object_array_length(k->counts);

	memset(counts, 0, PROTO_HIST_BUCKETS * sizeof(*counts));
	if (first < 0 || (size_t)first + n > PROTO_HIST_BUCKETS)
		return proto_error_set(err, PROTO_ERR_BAD_ARGUMENT,
				       "%s: %zu counts from %llu ns do not fit the buckets", k->key,
				       n, (unsigned long long)k->first_ns);
	for (size_t i = 0; i < n; i++) {
		struct json_object *v = json_object_array_get_idx(k->counts, i);

		if (!json_object_is_type(v, json_type_int) || json_object_get_int64(v) < 0)
			return proto_error_set(err, PROTO_ERR_BAD_ARGUMENT,
					       "%s: counts must be non-negative integers", k->key);
		counts[first + i] = (uint64_t)json_object_get_int64(v);
	}
	return 0;
}

static int keys_from_json(struct json_object *a, struct proto_hist *h, struct proto_error *err)
{
	static const struct proto_field fields[] = {
		{PROTO_KEY_KEY, PROTO_FIELD_STRING, PROTO_FIELD_REQUIRED,
		 offsetof(struct key_fields, key)},
		{PROTO_KEY_NAME, PROTO_FIELD_STRING, 0, offsetof(struct key_fields, name)},
		{PROTO_KEY_FIRST_NS, PROTO_FIELD_UINT, PROTO_FIELD_REQUIRED,
		 offsetof(struct key_fields, first_ns)},
		{PROTO_KEY_COUNTS, PROTO_FIELD_ARRAY, PROTO_FIELD_REQUIRED,
		 offsetof(struct key_fields, counts)},
		{NULL},
	};
	size_t n = a ? json_object_array_length(a) : 0;

	if (n > PROTO_HIST_KEYS_MAX)
		return proto_error_set(err, PROTO_ERR_BAD_ARGUMENT, "keys: more than %d",
				       PROTO_HIST_KEYS_MAX);
	for (size_t i = 0; i < n; i++) {
		struct key_fields k = {0};

		if (proto_fields_dispatch(json_object_array_get_idx(a, i), fields,
					  PROTO_DISPATCH_ALLOW_UNKNOWN, &k, err) < 0 ||
		    dense_from_json(&k, h->keys[i].counts, err) < 0)
			return -EINVAL;
		copy(h->keys[i].key, sizeof(h->keys[i].key), k.key);
		copy(h->keys[i].name, sizeof(h->keys[i].name), k.name);
	}
	h->nkeys = n;
	return 0;
}

struct hist_fields {
	const char *tracker, *per, *disk;
	uint64_t since_ns, now_ns, keys_since_ns;
	struct json_object *buckets, *keys;
};

int proto_hist_from_json(struct json_object *o, struct proto_hist *h, struct proto_error *err)
{
	static const struct proto_field fields[] = {
		{PROTO_KEY_TRACKER, PROTO_FIELD_STRING, PROTO_FIELD_REQUIRED,
		 offsetof(struct hist_fields, tracker)},
		{PROTO_KEY_SINCE_NS, PROTO_FIELD_UINT, PROTO_FIELD_REQUIRED,
		 offsetof(struct hist_fields, since_ns)},
		{PROTO_KEY_NOW_NS, PROTO_FIELD_UINT, PROTO_FIELD_REQUIRED,
		 offsetof(struct hist_fields, now_ns)},
		{PROTO_KEY_BUCKETS, PROTO_FIELD_ARRAY, PROTO_FIELD_REQUIRED,
		 offsetof(struct hist_fields, buckets)},
		{PROTO_KEY_PER, PROTO_FIELD_STRING, 0, offsetof(struct hist_fields, per)},
		{PROTO_KEY_DISK, PROTO_FIELD_STRING, 0, offsetof(struct hist_fields, disk)},
		{PROTO_KEY_KEYS, PROTO_FIELD_ARRAY, 0, offsetof(struct hist_fields, keys)},
		{PROTO_KEY_KEYS_SINCE_NS, PROTO_FIELD_UINT, 0,
		 offsetof(struct hist_fields, keys_since_ns)},
		{NULL},
	};
	struct hist_fields f = {0};

	memset(h, 0, sizeof(*h));
	if (proto_fields_dispatch(o, fields, PROTO_DISPATCH_ALLOW_UNKNOWN, &f, err) < 0 ||
	    buckets_from_json(f.buckets, h->counts, f.tracker, err) < 0 ||
	    keys_from_json(f.keys, h, err) < 0)
		return -EINVAL;
	copy(h->tracker, sizeof(h->tracker), f.tracker);
	copy(h->per, sizeof(h->per), f.per);
	copy(h->disk, sizeof(h->disk), f.disk);
	h->since_ns = f.since_ns;
	h->now_ns = f.now_ns;
	h->keys_since_ns = f.keys_since_ns;
	return 0;
}

/* A counter went down, or the interval starts anew: the kernel was reset in between. */
static bool was_reset(const uint64_t *now, const uint64_t *prev)
{
	for (unsigned i = 0; i < PROTO_HIST_BUCKETS; i++)
		if (now[i] < prev[i])
			return true;
	return false;
}

static void subtract(uint64_t *now, const uint64_t *prev)
{
	for (unsigned i = 0; i < PROTO_HIST_BUCKETS; i++)
		now[i] -= prev[i];
}

/* The keys have their own start: a change of the split resets them alone. */
static void keys_delta(struct proto_hist *h, const struct proto_hist *prev)
{
	if (h->keys_since_ns != prev->keys_since_ns || strcmp(h->per, prev->per) != 0)
		return;
	for (size_t i = 0; i < h->nkeys; i++)
		for (size_t j = 0; j < prev->nkeys; j++)
			if (strcmp(h->keys[i].key, prev->keys[j].key) == 0) {
				if (!was_reset(h->keys[i].counts, prev->keys[j].counts))
					subtract(h->keys[i].counts, prev->keys[j].counts);
				break;
			}
	h->keys_since_ns = prev->now_ns;
}

void proto_hist_delta(struct proto_hist *h, const struct proto_hist *prev)
{
	keys_delta(h, prev);
	if (h->since_ns != prev->since_ns || was_reset(h->counts, prev->counts))
		return;
	subtract(h->counts, prev->counts);
	h->since_ns = prev->now_ns;
}
