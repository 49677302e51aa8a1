/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Setting values: each type's parser and checks (those of text in text.c), the defaults, and
 * where each value came from. Every problem is written as text for the caller's
 * "FILE:LINE: setting: problem".
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <inttypes.h>

#include "log.h"
#include "proto.h"
#include "conf_internal.h"

int conf_set_string(char **field, const char *value)
{
	char *s = strdup(value);

	if (!s)
		return -ENOMEM;
	free(*field);
	*field = s;
	return 0;
}

static int lookup_group(const char *name, gid_t *ret)
{
	size_t size = 1024;

	for (;;) {
		struct group grp, *result = NULL;
		char *buf = malloc(size);
		int r;

		if (!buf)
			return -ENOMEM;
		r = getgrnam_r(name, &grp, buf, size, &result);
		if (r == ERANGE && size < (1u << 20)) {
			free(buf);
			size *= 2;
			continue;
		}
		if (r == 0 && result)
			*ret = result->gr_gid;
		free(buf);
		if (r != 0)
			return -r;
		return result ? 0 : -ENOENT;
	}
}

static int set_uint(const struct conf_key *k, const char *value, uint64_t *field, char *why,
		    size_t whylen)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(value, &end, 10);
	if (!isdigit((unsigned char)value[0]) || *end || errno ||
	    ((v < k->min || v > k->max) && !(v == 0 && conf_key_zero_off(k)))) {
		snprintf(why, whylen, "'%s' is not %san integer in [%" PRIu64 ", %" PRIu64 "]",
			 value, conf_key_zero_off(k) ? "0 nor " : "", k->min, k->max);
		return -EINVAL;
	}
	if (k->type == CONF_POW2 && (v & (v - 1)) != 0) {
		snprintf(why, whylen, "%llu is not a power of two", v);
		return -EINVAL;
	}
	*field = v;
	return 0;
}

static int set_rate(const struct conf_key *k, const char *value, double *field, char *why,
		    size_t whylen)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(value, &end);
	if (k->type == CONF_RATE_LIMIT && value[0] && !*end && v == 0) {
		/* Elsewhere 0 means "no limit": here a limit is always on. */
		snprintf(why, whylen,
			 "0 is neither off nor unlimited here: a rate in (0, %" PRIu64
			 "] per second; fleet.record_peers = false records no peer's alert",
			 k->max);
		return -EINVAL;
	}
	/* A digit first: strtod would take a blank, a sign ("-0" is no limit) or "inf". */
	if (!isdigit((unsigned char)value[0]) || *end || errno || !isfinite(v) ||
	    v < (double)k->min || v > (double)k->max) {
		snprintf(why, whylen, "'%s' is not a number in [%" PRIu64 ", %" PRIu64 "]", value,
			 k->min, k->max);
		return -EINVAL;
	}
	*field = v;
	return 0;
}

static int set_duration(const struct conf_key *k, const char *value, uint64_t *field, char *why,
			size_t whylen)
{
	char lo[32], hi[32];
	const char *problem;
	uint64_t ns;

	if (proto_duration_parse(value, &ns, &problem) < 0) {
		snprintf(why, whylen, "'%s': %s", value, problem);
		return -EINVAL;
	}
	if (conf_key_zero_off(k) && ns == 0) { /* "0", "0s", "0ms": off */
		*field = 0;
		return 0;
	}
	if (ns < k->min || ns > k->max) {
		proto_duration_format_unit(lo, sizeof(lo), k->min, value);
		proto_duration_format_unit(hi, sizeof(hi), k->max, value);
		snprintf(why, whylen, "'%s' is not %sbetween %s and %s", value,
			 conf_key_zero_off(k) ? "\"0\" (off) nor " : "", lo, hi);
		return -EINVAL;
	}
	*field = ns;
	return 0;
}

void conf_strv_free(char **v)
{
	for (char **p = v; p && *p; p++)
		free(*p);
	free(v);
}

int conf_parse_bucket(const char *s, struct conf_bucket *b)
{
	const char *eq = strchr(s, '='), *slash;
	char *end;
	unsigned long burst;
	double rate;

	if (!eq || eq == s || (size_t)(eq - s) >= sizeof(b->tracker))
		return -EINVAL;
	slash = strchr(eq, '/');
	if (!slash)
		return -EINVAL;
	errno = 0;
	rate = strtod(eq + 1, &end);
	if (!isdigit((unsigned char)eq[1]) || end != slash || errno || !isfinite(rate) ||
	    rate < 0 || rate > 1000)
		return -EINVAL;
	burst = strtoul(slash + 1, &end, 10);
	if (!isdigit((unsigned char)slash[1]) || *end || burst < 1 || burst > 1000)
		return -EINVAL;
	memset(b->tracker, 0, sizeof(b->tracker));
	memcpy(b->tracker, s, (size_t)(eq - s));
	b->rate = rate;
	b->burst = (unsigned)burst;
	return 0;
}

/* A comma-separated list (how lists travel from the file and from defaults). */
static int set_list(const struct conf_key *k, const char *value, char ***field, char *why,
		    size_t whylen)
{
	char **v = NULL, *copy = strdup(value), *save = NULL, *tok;
	size_t n = 0;
	int r = 0;

	if (!copy)
		return -ENOMEM;
	v = calloc(1, sizeof(*v));
	for (tok = strtok_r(copy, ",", &save); v && tok; tok = strtok_r(NULL, ",", &save)) {
		char **nv;

		if (k->type == CONF_EVENTS && (!tok[0] || strlen(tok) >= 256)) {
			snprintf(why, whylen, "'%s' is not an event name", tok);
			r = -EINVAL;
			break;
		}
		nv = realloc(v, (n + 2) * sizeof(*v));
		if (!nv || !(nv[n] = strdup(tok))) {
			v = nv ?: v;
			r = -ENOMEM;
			break;
		}
		v = nv;
		v[++n] = NULL;
	}
	free(copy);
	if (!v)
		return -ENOMEM;
	if (r == 0 && k->type == CONF_EVENTS && n == 0) {
		snprintf(why, whylen, "at least one event is needed");
		r = -EINVAL;
	}
	if (r < 0) {
		conf_strv_free(v);
		return r;
	}
	conf_strv_free(*field);
	*field = v;
	return 0;
}

/* ratelimit.trackers: a comma-separated list of "TRACKER=RATE/BURST", typed here once. */
static int set_buckets(const char *value, struct conf_buckets *field, char *why, size_t whylen)
{
	struct conf_buckets v = {0};
	char *copy = strdup(value), *save = NULL, *tok;
	const char *near;
	int r = 0;

	if (!copy)
		return -ENOMEM;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		struct conf_bucket *nv = realloc(v.v, (v.n + 1) * sizeof(*nv));

		if (!nv) {
			r = -ENOMEM;
			break;
		}
		v.v = nv;
		if (conf_parse_bucket(tok, &v.v[v.n]) < 0) {
			snprintf(why, whylen,
				 "'%s' is not TRACKER=RATE/BURST (rate 0..1000, burst 1..1000)",
				 tok);
			r = -EINVAL;
			break;
		}
		/* A bucket for no tracker would never be used: said, with a near name. */
		near = proto_nearest(v.v[v.n].tracker, tracker_names, TRACKER_COUNT);
		if (!near || strcmp(near, v.v[v.n].tracker) != 0) {
			snprintf(why, whylen, "'%s': no tracker '%s'%s%s%s", tok, v.v[v.n].tracker,
				 near ? " (did you mean '" : "", near ? near : "",
				 near ? "'?)" : "");
			r = -EINVAL;
			break;
		}
		/* The waiter takes the first bucket of a tracker: a second would be ignored. */
		for (size_t i = 0; i < v.n && r == 0; i++) {
			if (strcmp(v.v[i].tracker, v.v[v.n].tracker) != 0)
				continue;
			snprintf(why, whylen, "'%s': tracker '%s' has a bucket already", tok,
				 v.v[v.n].tracker);
			r = -EINVAL;
		}
		if (r < 0)
			break;
		v.n++;
	}
	free(copy);
	if (r < 0) {
		free(v.v);
		return r;
	}
	free(field->v);
	*field = v;
	return 0;
}

/* CONF_GROUP: the name as written (it may be ""), and its gid. */
static int set_group(const char *value, char **field, gid_t *gid_field, char *why, size_t whylen)
{
	gid_t gid = GID_INVALID;
	int r;

	if (value[0]) {
		r = lookup_group(value, &gid);
		if (r < 0) {
			snprintf(why, whylen, "group '%s': %s", value,
				 r == -ENOENT ? "no such group" : strerror(-r));
			return r;
		}
	}
	*gid_field = gid;
	return conf_set_string(field, value);
}

static int set_log_level(const char *value, int *field, char *why, size_t whylen)
{
	int r = log_level_from_string(value);

	if (r < 0) {
		snprintf(why, whylen, "'%s' is not one of error, warning, info, debug", value);
		return r;
	}
	*field = r;
	return 0;
}

static int set_bool(const char *value, bool *field, char *why, size_t whylen)
{
	if (strcmp(value, "true") != 0 && strcmp(value, "false") != 0) {
		snprintf(why, whylen, "expected true or false");
		return -EINVAL;
	}
	*field = strcmp(value, "true") == 0;
	return 0;
}

static int set_domain(const char *value, int *field, char *why, size_t whylen)
{
	if (strcmp(value, "kernel") == 0)
		*field = CONF_DOMAIN_KERNEL;
	else if (strcmp(value, "userspace") == 0)
		*field = CONF_DOMAIN_USERSPACE;
	else {
		snprintf(why, whylen, "'%s' is not one of kernel, userspace", value);
		return -EINVAL;
	}
	return 0;
}

/* Parses value into the row's field; on failure writes the problem into why. */
int conf_set_value(struct conf *c, const struct conf_key *k, const char *value, char *why,
		   size_t whylen)
{
	char *base = (char *)c;
	void *field = base + k->offset;
	int r;

	switch (k->type) {
	case CONF_GROUP:
		return set_group(value, field, (gid_t *)(base + k->aux_offset), why, whylen);
	case CONF_LOG_LEVEL:
		return set_log_level(value, field, why, whylen);
	case CONF_BOOL:
		return set_bool(value, field, why, whylen);
	case CONF_DOMAIN:
		return set_domain(value, field, why, whylen);
	case CONF_UINT:
	case CONF_UINT_OFF:
	case CONF_POW2:
		return set_uint(k, value, field, why, whylen);
	case CONF_RATE:
	case CONF_RATE_LIMIT:
		return set_rate(k, value, field, why, whylen);
	case CONF_OVERRIDES:
		return set_buckets(value, field, why, whylen);
	case CONF_EVENTS:
		return set_list(k, value, field, why, whylen);
	case CONF_DURATION:
	case CONF_DURATION_OFF:
		return set_duration(k, value, field, why, whylen);
	case CONF_STRING:
	case CONF_SOCKET_PATH:
	case CONF_NAME:
	case CONF_PATH:
	case CONF_PATH_OFF:
	case CONF_URL:
	case CONF_COMM:
	case CONF_CPU_LIST:
	case CONF_BROKER:
	case CONF_FLEET_NAME:
	case CONF_CGROUP:
	case CONF_PROM_FILE:
		r = conf_check_text(k, value, why, whylen);
		return r < 0 ? r : conf_set_string(field, value);
	}
	snprintf(why, whylen, "internal error: unknown setting type");
	return -EINVAL;
}

void conf_free(struct conf *c)
{
	if (!c)
		return;
	/* The table knows which fields own memory: a new setting needs no line here. */
	for (size_t i = 0; i < conf_n_keys; i++) {
		char *field = (char *)c + conf_keys[i].offset;

		if (conf_key_is_string(conf_keys[i].type))
			free(*(char **)field);
		else if (conf_keys[i].type == CONF_EVENTS)
			conf_strv_free(*(char ***)field);
		else if (conf_keys[i].type == CONF_OVERRIDES)
			free(((struct conf_buckets *)field)->v);
	}
	for (size_t i = 0; c->origins && i < conf_n_keys; i++)
		free(c->origins[i]);
	free(c->origins);
	free(c->source);
	free(c->saved_source);
	free(c->saved_problem);
	free(c);
}

int conf_set_origin(struct conf *c, const struct conf_key *k, const char *origin)
{
	char **slot = &c->origins[k - conf_keys];

	free(*slot);
	*slot = origin ? strdup(origin) : NULL;
	return !origin || *slot ? 0 : -ENOMEM;
}

int conf_new_defaults(struct conf **ret)
{
	struct conf *c;
	char why[256];
	int r;

	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->control.admin_gid = c->control.read_gid = GID_INVALID;
	c->origins = calloc(conf_n_keys, sizeof(*c->origins));
	if (!c->origins) {
		free(c);
		return -ENOMEM;
	}
	for (size_t i = 0; i < conf_n_keys; i++) {
		r = conf_set_value(c, &conf_keys[i], conf_keys[i].def, why, sizeof(why));
		if (r < 0) {
			conf_free(c);
			return r;
		}
	}
	*ret = c;
	return 0;
}

/* Applies one setting from outside a file (command-line overrides). */
int conf_set(struct conf *c, const char *key, const char *value, struct conf_diag *diag)
{
	return conf_set_from(c, key, value, NULL, diag);
}

int conf_set_from(struct conf *c, const char *key, const char *value, const char *origin,
		  struct conf_diag *diag)
{
	const struct conf_key *k = conf_find_key(key);
	char why[256];
	int r;

	if (!k) {
		conf_diag_line(diag, "%s: unknown setting", key);
		return -ENOENT;
	}
	r = conf_set_value(c, k, value, why, sizeof(why));
	if (r < 0) {
		conf_diag_line(diag, "%s: %s", key, why);
		return r;
	}
	return conf_set_origin(c, k, origin);
}

int conf_move_origin(struct conf *c, const char *key, const char *file, const char *origin)
{
	const struct conf_key *k = conf_find_key(key);
	const char *now = k ? c->origins[k - conf_keys] : NULL;
	size_t len = strlen(file);

	if (!now || strncmp(now, file, len) != 0 || now[len] != ':')
		return 0;
	return conf_set_origin(c, k, origin);
}

/* The bytes of a field that holds its value itself (no pointer), 0 for the others. */
static size_t scalar_size(enum conf_type t)
{
	switch (t) {
	case CONF_BOOL:
		return sizeof(bool);
	case CONF_LOG_LEVEL:
	case CONF_DOMAIN:
		return sizeof(int);
	case CONF_RATE:
	case CONF_RATE_LIMIT:
		return sizeof(double);
	case CONF_UINT:
	case CONF_UINT_OFF:
	case CONF_POW2:
	case CONF_DURATION:
	case CONF_DURATION_OFF:
		return sizeof(uint64_t);
	default:
		return 0;
	}
}

static bool strv_equal(char **a, char **b)
{
	for (; a && b && *a && *b; a++, b++)
		if (strcmp(*a, *b) != 0)
			return false;
	return (!a || !*a) && (!b || !*b);
}

bool conf_same_value(const struct conf *a, const struct conf *b, const char *key)
{
	const struct conf_key *k = conf_find_key(key);
	const char *fa, *fb;
	size_t n;

	if (!k)
		return true;
	fa = (const char *)a + k->offset;
	fb = (const char *)b + k->offset;
	if (conf_key_is_string(k->type))
		return strcmp(*(char *const *)fa, *(char *const *)fb) == 0;
	if (k->type == CONF_EVENTS)
		return strv_equal(*(char **const *)fa, *(char **const *)fb);
	if (k->type == CONF_OVERRIDES) {
		const struct conf_buckets *ba = (const void *)fa, *bb = (const void *)fb;

		return ba->n == bb->n && (!ba->n || !memcmp(ba->v, bb->v, ba->n * sizeof(*ba->v)));
	}
	n = scalar_size(k->type);
	return memcmp(fa, fb, n) == 0;
}

static int strv_copy(char **from, char ***ret)
{
	size_t n = 0;
	char **v;

	while (from && from[n])
		n++;
	v = calloc(n + 1, sizeof(*v));
	for (size_t i = 0; v && i < n; i++) {
		v[i] = strdup(from[i]);
		if (!v[i]) {
			conf_strv_free(v);
			return -ENOMEM;
		}
	}
	if (!v)
		return -ENOMEM;
	conf_strv_free(*ret);
	*ret = v;
	return 0;
}

int conf_keep_value(struct conf *c, const struct conf *from, const char *key)
{
	const struct conf_key *k = conf_find_key(key);
	const char *origin;
	char *to;
	int r = 0;

	if (!k)
		return -ENOENT;
	to = (char *)c + k->offset;
	if (conf_key_is_string(k->type)) {
		r = conf_set_string((char **)to, *(char *const *)((const char *)from + k->offset));
		if (r == 0 && k->type == CONF_GROUP)
			*(gid_t *)((char *)c + k->aux_offset) =
				*(const gid_t *)((const char *)from + k->aux_offset);
	} else if (k->type == CONF_EVENTS) {
		r = strv_copy(*(char **const *)((const char *)from + k->offset), (char ***)to);
	} else if (k->type == CONF_OVERRIDES) {
		const struct conf_buckets *src = (const void *)((const char *)from + k->offset);
		struct conf_buckets *dst = (void *)to, v = {0};

		if (src->n && !(v.v = malloc(src->n * sizeof(*v.v))))
			return -ENOMEM;
		if (src->n)
			memcpy(v.v, src->v, src->n * sizeof(*v.v));
		v.n = src->n;
		free(dst->v);
		*dst = v;
	} else {
		memcpy(to, (const char *)from + k->offset, scalar_size(k->type));
	}
	origin = from->origins[k - conf_keys];
	return r < 0 ? r : conf_set_origin(c, k, origin);
}
