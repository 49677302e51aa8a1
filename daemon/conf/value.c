/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Setting values: each type's parser and checks, the defaults, and where each value came
 * from. Every problem is written as text for the caller's "FILE:LINE: setting: problem".
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/un.h>
#include <inttypes.h>
#include <limits.h>

#include <latency_tracker.h>

#include "log.h"
#include "thread.h"
#include "fleet.h"
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
	if (!value[0] || *end || errno || !isfinite(v) || v < (double)k->min ||
	    v > (double)k->max) {
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
	if (end != slash || errno || !isfinite(rate) || rate < 0 || rate > 1000)
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

static bool all_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

/* No ".." component: a filter must not name a directory outside the cgroup tree. */
static bool has_dotdot(const char *path)
{
	for (const char *p = path; (p = strstr(p, "..")); p += 2)
		if ((p == path || p[-1] == '/') && (p[2] == '/' || p[2] == 0))
			return true;
	return false;
}

int conf_cgroup_spec_check(const char *spec)
{
	char *end;

	if (!spec[0])
		return 0;
	if (all_digits(spec)) {
		errno = 0;
		return strtoull(spec, &end, 10) == 0 || errno ? -EINVAL : 0;
	}
	/* Room for "/sys/fs/cgroup/" in front of a relative path. */
	if (strlen(spec) + 16 >= PATH_MAX || strchr(spec, '\n') || has_dotdot(spec))
		return -EINVAL;
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

/* Parses value into the row's field; on failure writes the problem into why. */
int conf_set_value(struct conf *c, const struct conf_key *k, const char *value, char *why,
		   size_t whylen)
{
	char *base = (char *)c;
	gid_t gid = GID_INVALID;
	int r;

	switch (k->type) {
	case CONF_SOCKET_PATH:
		if (value[0] != '/' ||
		    strlen(value) >= sizeof(((struct sockaddr_un *)0)->sun_path)) {
			snprintf(why, whylen, "must be an absolute path of at most %zu bytes",
				 sizeof(((struct sockaddr_un *)0)->sun_path) - 1);
			return -EINVAL;
		}
		return conf_set_string((char **)(base + k->offset), value);
	case CONF_GROUP:
		if (value[0]) {
			r = lookup_group(value, &gid);
			if (r < 0) {
				snprintf(why, whylen, "group '%s': %s", value,
					 r == -ENOENT ? "no such group" : strerror(-r));
				return r;
			}
		}
		*(gid_t *)(base + k->aux_offset) = gid;
		return conf_set_string((char **)(base + k->offset), value);
	case CONF_LOG_LEVEL:
		r = log_level_from_string(value);
		if (r < 0) {
			snprintf(why, whylen, "'%s' is not one of error, warning, info, debug",
				 value);
			return r;
		}
		*(int *)(base + k->offset) = r;
		return 0;
	case CONF_STRING:
		return conf_set_string((char **)(base + k->offset), value);
	case CONF_NAME:
		if (!value[0] || strpbrk(value, "/ \t\n*?")) {
			snprintf(why, whylen,
				 "'%s' must be a non-empty name without '/', "
				 "spaces or wildcards",
				 value);
			return -EINVAL;
		}
		return conf_set_string((char **)(base + k->offset), value);
	case CONF_PATH_OFF:
		if (!value[0])
			return conf_set_string((char **)(base + k->offset), value);
		/* fall through */
	case CONF_PATH:
		if (value[0] != '/' || strlen(value) >= PATH_MAX) {
			snprintf(why, whylen, "must be an absolute path");
			return -EINVAL;
		}
		return conf_set_string((char **)(base + k->offset), value);
	case CONF_URL:
		if (value[0] && strncmp(value, "net://", 6) != 0 &&
		    strncmp(value, "net6://", 7) != 0 && strncmp(value, "tcp://", 6) != 0) {
			snprintf(why, whylen,
				 "'%s' is not empty nor a net://, net6:// or tcp:// URL", value);
			return -EINVAL;
		}
		return conf_set_string((char **)(base + k->offset), value);
	case CONF_BOOL:
		if (strcmp(value, "true") != 0 && strcmp(value, "false") != 0) {
			snprintf(why, whylen, "expected true or false");
			return -EINVAL;
		}
		*(bool *)(base + k->offset) = strcmp(value, "true") == 0;
		return 0;
	case CONF_UINT:
	case CONF_UINT_OFF:
	case CONF_POW2:
		return set_uint(k, value, (uint64_t *)(base + k->offset), why, whylen);
	case CONF_RATE:
	case CONF_RATE_LIMIT:
		return set_rate(k, value, (double *)(base + k->offset), why, whylen);
	case CONF_DOMAIN:
		if (strcmp(value, "kernel") == 0)
			*(int *)(base + k->offset) = CONF_DOMAIN_KERNEL;
		else if (strcmp(value, "userspace") == 0)
			*(int *)(base + k->offset) = CONF_DOMAIN_USERSPACE;
		else {
			snprintf(why, whylen, "'%s' is not one of kernel, userspace", value);
			return -EINVAL;
		}
		return 0;
	case CONF_OVERRIDES:
		return set_buckets(value, (struct conf_buckets *)(base + k->offset), why, whylen);
	case CONF_EVENTS:
		return set_list(k, value, (char ***)(base + k->offset), why, whylen);
	case CONF_DURATION:
	case CONF_DURATION_OFF:
		return set_duration(k, value, (uint64_t *)(base + k->offset), why, whylen);
	case CONF_COMM:
		if (strlen(value) >= LATENCY_TRACKER_COMM_LEN || strchr(value, '\n')) {
			snprintf(why, whylen,
				 "'%s' is not a task name (at most %d bytes, one line)", value,
				 LATENCY_TRACKER_COMM_LEN - 1);
			return -EINVAL;
		}
		return conf_set_string((char **)(base + k->offset), value);
	case CONF_CPU_LIST: {
		cpu_set_t set;

		if (value[0] && thread_cpus_parse(value, &set) < 0) {
			snprintf(why, whylen,
				 "'%s' is not a list of CPUs such as \"0\" or \"0-1,4\" (below %d)",
				 value, CPU_SETSIZE);
			return -EINVAL;
		}
		return conf_set_string((char **)(base + k->offset), value);
	}
	case CONF_BROKER:
		if (conf_broker_parse(value, NULL, 0, NULL, NULL) < 0) {
			snprintf(why, whylen,
				 "'%s' is not mqtt://HOST[:PORT] nor mqtts://HOST[:PORT]", value);
			return -EINVAL;
		}
		return conf_set_string((char **)(base + k->offset), value);
	case CONF_FLEET_NAME:
		if ((value[0] || !k->min) && !proto_fleet_name_valid(value)) {
			snprintf(why, whylen,
				 "'%s' is not a name of 1 to %d letters, digits, '.', "
				 "'_' or '-'%s",
				 value, PROTO_FLEET_NAME_MAX, k->min ? " (or \"\")" : "");
			return -EINVAL;
		}
		return conf_set_string((char **)(base + k->offset), value);
	case CONF_CGROUP:
		if (conf_cgroup_spec_check(value) < 0) {
			snprintf(why, whylen,
				 "'%s' is not a cgroup: a path under /sys/fs/cgroup (absolute or "
				 "relative to it, no '..') or a cgroup id",
				 value);
			return -EINVAL;
		}
		return conf_set_string((char **)(base + k->offset), value);
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

int conf_broker_parse(const char *url, char *host, size_t size, unsigned *port, bool *tls)
{
	const char *p, *colon;
	bool secure;
	unsigned long v = 0;
	size_t len;
	char *end;

	if (strncmp(url, "mqtt://", 7) == 0)
		secure = false, p = url + 7;
	else if (strncmp(url, "mqtts://", 8) == 0)
		secure = true, p = url + 8;
	else
		return -EINVAL;
	colon = strrchr(p, ':');
	/* [v6]:port: the last colon after the bracket. */
	if (p[0] == '[' && (!strchr(p, ']') || (colon && colon < strchr(p, ']'))))
		colon = NULL;
	len = colon ? (size_t)(colon - p) : strlen(p);
	if (colon) {
		errno = 0;
		v = strtoul(colon + 1, &end, 10);
		if (!colon[1] || *end || errno || v == 0 || v > 65535)
			return -EINVAL;
	}
	if (len == 0 || len > 253 || strcspn(p, "/?# \t\n@") < strlen(p))
		return -EINVAL;
	if (p[0] == '[' && (len < 3 || p[len - 1] != ']'))
		return -EINVAL;
	if (host) {
		if (p[0] == '[')
			snprintf(host, size, "%.*s", (int)len - 2, p + 1);
		else
			snprintf(host, size, "%.*s", (int)len, p);
	}
	if (port)
		*port = colon ? (unsigned)v : secure ? 8883 : 1883;
	if (tls)
		*tls = secure;
	return 0;
}
