/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The fleet's messages (fleet.h): built with json-c, parsed with the same field tables as
 * the control protocol, and checked member by member, for they come from other hosts
 * through a broker: anything malformed is refused with a reason, never trusted.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "fleet.h"
#include "proto.h"

bool proto_fleet_name_valid(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n > PROTO_FLEET_NAME_MAX)
		return false;
	return strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") == n;
}

int proto_fleet_incident_parse(const char *incident, char *origin, size_t size, uint64_t *seq)
{
	const char *dash = strrchr(incident, '-');
	char host[PROTO_FLEET_NAME_MAX + 1], *end;
	unsigned long long v;

	if (!dash || dash == incident || (size_t)(dash - incident) > PROTO_FLEET_NAME_MAX ||
	    !dash[1] || strspn(dash + 1, "0123456789") != strlen(dash + 1))
		return -EINVAL;
	snprintf(host, sizeof(host), "%.*s", (int)(dash - incident), incident);
	errno = 0;
	v = strtoull(dash + 1, &end, 10);
	if (errno || !proto_fleet_name_valid(host) || v == 0)
		return -EINVAL;
	if (origin)
		snprintf(origin, size, "%s", host);
	if (seq)
		*seq = v;
	return 0;
}

void proto_fleet_incident_format(char *buf, size_t size, const char *origin, uint64_t seq)
{
	snprintf(buf, size, "%s-%" PRIu64, origin, seq);
}

int proto_fleet_topic(char *buf, size_t size, const char *prefix, const char *group,
		      const char *kind, const char *host)
{
	int n = snprintf(buf, size, "%s/%s/%s/%s", prefix, group, kind, host);

	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

static int to_text(struct json_object *o, int r, char **ret)
{
	const char *s;

	if (r >= 0 && o) {
		s = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
							      JSON_C_TO_STRING_NOSLASHESCAPE);
		*ret = s ? strdup(s) : NULL;
		r = *ret ? 0 : -ENOMEM;
	} else if (r >= 0) {
		r = -ENOMEM;
	}
	json_object_put(o);
	return r;
}

static void add(struct json_object *o, const char *key, struct json_object *v, int *r)
{
	if (*r < 0 || !o || !v || json_object_object_add(o, key, v) < 0) {
		json_object_put(v);
		*r = -ENOMEM;
	}
}

int proto_fleet_alert_new(const struct proto_fleet_alert *a, char **ret)
{
	struct json_object *o = json_object_new_object();
	int r = 0;

	add(o, PROTO_FLEET_KEY_VERSION, json_object_new_int(PROTO_FLEET_VERSION), &r);
	add(o, PROTO_FLEET_KEY_HOST, json_object_new_string(a->host), &r);
	add(o, PROTO_FLEET_KEY_GROUP, json_object_new_string(a->group), &r);
	add(o, PROTO_FLEET_KEY_BOOT_ID, json_object_new_string(a->boot_id), &r);
	add(o, PROTO_FLEET_KEY_INCIDENT, json_object_new_string(a->incident), &r);
	add(o, PROTO_FLEET_KEY_TRACKER, json_object_new_string(a->tracker), &r);
	add(o, PROTO_FLEET_KEY_TID, json_object_new_int64(a->tid), &r);
	add(o, PROTO_FLEET_KEY_COMM, json_object_new_string(a->comm), &r);
	add(o, PROTO_FLEET_KEY_DELAY_NS, json_object_new_int64((int64_t)a->delay_ns), &r);
	add(o, PROTO_FLEET_KEY_START_REALTIME_NS,
	    json_object_new_int64((int64_t)a->start_realtime_ns), &r);
	add(o, PROTO_FLEET_KEY_END_REALTIME_NS, json_object_new_int64((int64_t)a->end_realtime_ns),
	    &r);
	add(o, PROTO_FLEET_KEY_MONO_TO_REALTIME, json_object_new_int64(a->mono_to_realtime_ns), &r);
	return to_text(o, r, ret);
}

int proto_fleet_result_new(const struct proto_fleet_result *res, char **ret)
{
	struct json_object *o = json_object_new_object();
	int r = 0;

	add(o, PROTO_FLEET_KEY_VERSION, json_object_new_int(PROTO_FLEET_VERSION), &r);
	add(o, PROTO_FLEET_KEY_HOST, json_object_new_string(res->host), &r);
	add(o, PROTO_FLEET_KEY_GROUP, json_object_new_string(res->group), &r);
	add(o, PROTO_FLEET_KEY_INCIDENT, json_object_new_string(res->incident), &r);
	add(o, PROTO_FLEET_KEY_STATUS, json_object_new_string(res->status), &r);
	return to_text(o, r, ret);
}

/* The payload as a JSON object: exactly one object, no NUL inside, not too long. */
static int parse_object(const void *payload, size_t len, struct json_object **ret, char *why,
			size_t whylen)
{
	struct json_tokener *tok;
	struct json_object *o;

	if (len > PROTO_FLEET_MAX) {
		snprintf(why, whylen, "%zu bytes, more than %d", len, PROTO_FLEET_MAX);
		return -EMSGSIZE;
	}
	if (len == 0 || memchr(payload, 0, len)) {
		snprintf(why, whylen, "%s", len ? "a NUL byte in the payload" : "empty payload");
		return -EINVAL;
	}
	tok = json_tokener_new();
	if (!tok)
		return -ENOMEM;
	o = json_tokener_parse_ex(tok, payload, (int)len);
	if (!o || json_tokener_get_error(tok) != json_tokener_success ||
	    tok->char_offset != (int)len || !json_object_is_type(o, json_type_object)) {
		snprintf(why, whylen, "not one JSON object");
		json_object_put(o);
		json_tokener_free(tok);
		return -EINVAL;
	}
	json_tokener_free(tok);
	*ret = o;
	return 0;
}

struct raw {
	int64_t version, tid, mono;
	uint64_t delay, start, end;
	const char *host, *group, *boot_id, *incident, *tracker, *comm, *status;
};

static int copy_name(char *dst, size_t size, const char *src, const char *key, bool name, char *why,
		     size_t whylen)
{
	if (!src || strlen(src) >= size || (name && !proto_fleet_name_valid(src))) {
		snprintf(why, whylen, "\"%s\" is missing or not a valid name", key);
		return -EINVAL;
	}
	snprintf(dst, size, "%s", src);
	return 0;
}

/* What both messages share, parsed and checked: the payload is one object of FIELDS, its
 * version ours, its host and group names, its incident an incident (into the buffers, which
 * both messages size alike). *ret keeps the object: the strings in raw point into it. */
struct common {
	char *host, *group, *incident;
};

static int parse_common(const void *payload, size_t len, const struct proto_field *fields,
			struct raw *raw, const struct common *out, struct json_object **ret,
			char *why, size_t whylen)
{
	struct proto_error err = {0};
	struct json_object *o;
	int r;

	*ret = NULL;
	r = parse_object(payload, len, &o, why, whylen);
	if (r < 0)
		return r;
	*ret = o;
	if (proto_fields_dispatch(o, fields, PROTO_DISPATCH_ALLOW_UNKNOWN, raw, &err) < 0) {
		snprintf(why, whylen, "%s", err.message);
		return -EINVAL;
	}
	if (raw->version != PROTO_FLEET_VERSION) {
		snprintf(why, whylen, "version %" PRId64 ", not %d", raw->version,
			 PROTO_FLEET_VERSION);
		return -EINVAL;
	}
	if (proto_fleet_incident_parse(raw->incident, NULL, 0, NULL) < 0) {
		snprintf(why, whylen, "\"%s\" is not an incident (HOST-SEQ)", raw->incident);
		return -EINVAL;
	}
	r = copy_name(out->host, PROTO_FLEET_NAME_MAX + 1, raw->host, "host", true, why, whylen);
	if (r >= 0)
		r = copy_name(out->group, PROTO_FLEET_NAME_MAX + 1, raw->group, "group", true, why,
			      whylen);
	if (r >= 0)
		snprintf(out->incident, PROTO_FLEET_INCIDENT_MAX + 1, "%s", raw->incident);
	return r;
}

#define REQ   PROTO_FIELD_REQUIRED
#define AT(f) offsetof(struct raw, f)

int proto_fleet_alert_parse(const void *payload, size_t len, struct proto_fleet_alert *a, char *why,
			    size_t whylen)
{
	static const struct proto_field fields[] = {
		{PROTO_FLEET_KEY_VERSION, PROTO_FIELD_INT, REQ, AT(version)},
		{PROTO_FLEET_KEY_HOST, PROTO_FIELD_STRING, REQ, AT(host)},
		{PROTO_FLEET_KEY_GROUP, PROTO_FIELD_STRING, REQ, AT(group)},
		{PROTO_FLEET_KEY_BOOT_ID, PROTO_FIELD_STRING, 0, AT(boot_id)},
		{PROTO_FLEET_KEY_INCIDENT, PROTO_FIELD_STRING, REQ, AT(incident)},
		{PROTO_FLEET_KEY_TRACKER, PROTO_FIELD_STRING, REQ, AT(tracker)},
		{PROTO_FLEET_KEY_TID, PROTO_FIELD_INT, 0, AT(tid)},
		{PROTO_FLEET_KEY_COMM, PROTO_FIELD_STRING, 0, AT(comm)},
		{PROTO_FLEET_KEY_DELAY_NS, PROTO_FIELD_UINT, 0, AT(delay)},
		{PROTO_FLEET_KEY_START_REALTIME_NS, PROTO_FIELD_UINT, REQ, AT(start)},
		{PROTO_FLEET_KEY_END_REALTIME_NS, PROTO_FIELD_UINT, REQ, AT(end)},
		{PROTO_FLEET_KEY_MONO_TO_REALTIME, PROTO_FIELD_INT, 0, AT(mono)},
		{NULL},
	};
	struct raw raw = {0};
	struct json_object *o;
	int r;

	memset(a, 0, sizeof(*a));
	r = parse_common(payload, len, fields, &raw,
			 &(struct common){a->host, a->group, a->incident}, &o, why, whylen);
	if (r >= 0)
		r = copy_name(a->tracker, sizeof(a->tracker), raw.tracker, "tracker", true, why,
			      whylen);
	if (r >= 0)
		r = copy_name(a->boot_id, sizeof(a->boot_id), raw.boot_id ?: "", "boot_id", false,
			      why, whylen);
	if (r >= 0)
		r = copy_name(a->comm, sizeof(a->comm), raw.comm ?: "", "comm", false, why, whylen);
	if (r >= 0 && raw.end < raw.start) {
		snprintf(why, whylen, "the alert ends before it starts");
		r = -EINVAL;
	}
	a->tid = raw.tid;
	a->delay_ns = raw.delay;
	a->start_realtime_ns = raw.start;
	a->end_realtime_ns = raw.end;
	a->mono_to_realtime_ns = raw.mono;
	json_object_put(o);
	return r;
}

int proto_fleet_result_parse(const void *payload, size_t len, struct proto_fleet_result *res,
			     char *why, size_t whylen)
{
	static const struct proto_field fields[] = {
		{PROTO_FLEET_KEY_VERSION, PROTO_FIELD_INT, REQ, AT(version)},
		{PROTO_FLEET_KEY_HOST, PROTO_FIELD_STRING, REQ, AT(host)},
		{PROTO_FLEET_KEY_GROUP, PROTO_FIELD_STRING, REQ, AT(group)},
		{PROTO_FLEET_KEY_INCIDENT, PROTO_FIELD_STRING, REQ, AT(incident)},
		{PROTO_FLEET_KEY_STATUS, PROTO_FIELD_STRING, REQ, AT(status)},
		{NULL},
	};
	struct raw raw = {0};
	struct json_object *o;
	int r;

	memset(res, 0, sizeof(*res));
	r = parse_common(payload, len, fields, &raw,
			 &(struct common){res->host, res->group, res->incident}, &o, why, whylen);
	if (r >= 0 && strcmp(raw.status, PROTO_FLEET_RECORDED) != 0 &&
	    strcmp(raw.status, PROTO_FLEET_REFUSED) != 0 &&
	    strcmp(raw.status, PROTO_FLEET_FAILED) != 0) {
		snprintf(why, whylen, "status \"%s\" is not recorded, refused nor failed",
			 raw.status);
		r = -EINVAL;
	}
	if (r >= 0)
		snprintf(res->status, sizeof(res->status), "%s", raw.status);
	json_object_put(o);
	return r;
}
