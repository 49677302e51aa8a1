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
#include "strict.h"

bool proto_fleet_name_valid(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n > PROTO_FLEET_NAME_MAX)
		return false;
	return strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") == n;
}

bool proto_fleet_text_valid(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || (unsigned char)*s > 0x7e)
			return false;
	return true;
}

void proto_fleet_text_clean(char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || (unsigned char)*s > 0x7e)
			*s = '?';
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

int proto_fleet_result_topic(char *buf, size_t size, const char *prefix, const char *group,
			     const char *origin, const char *host)
{
	int n = snprintf(buf, size, "%s/%s/%s/%s/%s", prefix, group, PROTO_FLEET_TOPIC_RESULT,
			 origin, host);

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
	/* Unsigned as uint64: a value past INT64_MAX reads back the same (fuzz-fleet). */
	add(o, PROTO_FLEET_KEY_DELAY_NS, json_object_new_uint64(a->delay_ns), &r);
	add(o, PROTO_FLEET_KEY_START_REALTIME_NS, json_object_new_uint64(a->start_realtime_ns), &r);
	add(o, PROTO_FLEET_KEY_END_REALTIME_NS, json_object_new_uint64(a->end_realtime_ns), &r);
	add(o, PROTO_FLEET_KEY_MONO_TO_REALTIME, json_object_new_int64(a->mono_to_realtime_ns), &r);
	add(o, PROTO_FLEET_KEY_SENT_REALTIME_NS, json_object_new_uint64(a->sent_realtime_ns), &r);
	return to_text(o, r, ret);
}

int proto_fleet_result_new(const struct proto_fleet_result *res, char **ret)
{
	struct json_object *o = json_object_new_object(), *list = json_object_new_array();
	int r = 0;

	add(o, PROTO_FLEET_KEY_VERSION, json_object_new_int(PROTO_FLEET_VERSION), &r);
	add(o, PROTO_FLEET_KEY_HOST, json_object_new_string(res->host), &r);
	add(o, PROTO_FLEET_KEY_GROUP, json_object_new_string(res->group), &r);
	add(o, PROTO_FLEET_KEY_STATUS, json_object_new_string(res->status), &r);
	for (size_t i = 0; list && i < res->n && i < PROTO_FLEET_RESULT_INCIDENTS; i++)
		if (json_object_array_add(list, json_object_new_string(res->incidents[i])) < 0)
			r = -ENOMEM;
	add(o, PROTO_FLEET_KEY_INCIDENTS, list, &r);
	add(o, PROTO_FLEET_KEY_COUNT,
	    json_object_new_uint64(res->count > res->n ? res->count : (uint64_t)res->n), &r);
	if (res->budget[0])
		add(o, PROTO_FLEET_KEY_BUDGET, json_object_new_string(res->budget), &r);
	if (res->path[0])
		add(o, PROTO_FLEET_KEY_PATH, json_object_new_string(res->path), &r);
	if (res->reason[0])
		add(o, PROTO_FLEET_KEY_REASON, json_object_new_string(res->reason), &r);
	return to_text(o, r, ret);
}

int proto_fleet_presence_new(const struct proto_fleet_presence *p, char **ret)
{
	struct json_object *o = json_object_new_object();
	int r = 0;

	add(o, PROTO_FLEET_KEY_VERSION, json_object_new_int(PROTO_FLEET_VERSION), &r);
	add(o, PROTO_FLEET_KEY_HOST, json_object_new_string(p->host), &r);
	add(o, PROTO_FLEET_KEY_GROUP, json_object_new_string(p->group), &r);
	add(o, PROTO_FLEET_KEY_BOOT_ID, json_object_new_string(p->boot_id), &r);
	add(o, PROTO_FLEET_KEY_STATE, json_object_new_string(p->state), &r);
	add(o, PROTO_FLEET_KEY_SINCE_REALTIME_NS, json_object_new_uint64(p->since_realtime_ns), &r);
	if (p->every_s)
		add(o, PROTO_FLEET_KEY_EVERY_S, json_object_new_uint64(p->every_s), &r);
	return to_text(o, r, ret);
}

/* The payload as a JSON object: exactly one object, no NUL inside, not too long. */
static int parse_object(const void *payload, size_t len, struct json_object **ret, char *why,
			size_t whylen)
{
	struct json_tokener *tok;
	struct json_object *o;
	int r;

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
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
	o = json_tokener_parse_ex(tok, payload, (int)len);
	if (!o || json_tokener_get_error(tok) != json_tokener_success ||
	    tok->char_offset != (int)len || !json_object_is_type(o, json_type_object)) {
		snprintf(why, whylen, "not one JSON object");
		json_object_put(o);
		json_tokener_free(tok);
		return -EINVAL;
	}
	json_tokener_free(tok);
	/* A peer's message is held to JSON as a client's frame is: no duplicate member to
	 * say one thing to one parser and another to ours. */
	r = proto_json_strict_check(payload, len, o, why, whylen);
	if (r < 0) {
		json_object_put(o);
		return r == -ENOMEM ? r : -EINVAL;
	}
	*ret = o;
	return 0;
}

struct raw {
	int64_t version, tid, mono;
	uint64_t delay, start, end, sent, count, since, every;
	const char *host, *group, *boot_id, *incident, *tracker, *comm, *status, *budget, *path,
		*reason, *state;
	struct json_object *incidents;
};

static int copy_name(char *dst, size_t size, const char *src, const char *key, bool name, char *why,
		     size_t whylen)
{
	if (!src || strlen(src) >= size ||
	    (name ? !proto_fleet_name_valid(src) : !proto_fleet_text_valid(src))) {
		snprintf(why, whylen, "\"%s\" is missing, too long or not a valid %s", key,
			 name ? "name" : "text");
		return -EINVAL;
	}
	snprintf(dst, size, "%s", src);
	return 0;
}

/* What every message shares, parsed and checked: the payload is one object of FIELDS, its
 * version ours, its host and group names (into the buffers, which every message sizes
 * alike). *ret keeps the object: the strings in raw point into it. */
struct common {
	char *host, *group;
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
	r = copy_name(out->host, PROTO_FLEET_NAME_MAX + 1, raw->host, "host", true, why, whylen);
	if (r >= 0)
		r = copy_name(out->group, PROTO_FLEET_NAME_MAX + 1, raw->group, "group", true, why,
			      whylen);
	return r;
}

static int copy_incident(char *dst, const char *src, char *why, size_t whylen)
{
	if (!src || strlen(src) > PROTO_FLEET_INCIDENT_MAX ||
	    proto_fleet_incident_parse(src, NULL, 0, NULL) < 0) {
		snprintf(why, whylen, "\"%.40s\" is not an incident (HOST-SEQ)", src ?: "");
		return -EINVAL;
	}
	snprintf(dst, PROTO_FLEET_INCIDENT_MAX + 1, "%s", src);
	return 0;
}

static bool one_of(const char *s, const char *const *v)
{
	for (; *v; v++)
		if (strcmp(s, *v) == 0)
			return true;
	return false;
}

bool proto_fleet_status_valid(const char *s)
{
	static const char *const statuses[] = {PROTO_FLEET_RECORDED, PROTO_FLEET_LOCAL,
					       PROTO_FLEET_REFUSED,  PROTO_FLEET_FAILED,
					       PROTO_FLEET_STALE,    NULL};

	return one_of(s, statuses);
}

bool proto_fleet_alert_stale(const struct proto_fleet_alert *a, uint64_t now, uint64_t max_age_ns)
{
	uint64_t end = a->end_realtime_ns;

	return end <= now ? now - end > max_age_ns : end - now > max_age_ns;
}

bool proto_fleet_budget_valid(const char *s)
{
	static const char *const budgets[] = {"", PROTO_FLEET_BUDGET_ORIGIN,
					      PROTO_FLEET_BUDGET_TOTAL, PROTO_FLEET_BUDGET_QUEUE,
					      NULL};

	return one_of(s, budgets);
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
		{PROTO_FLEET_KEY_SENT_REALTIME_NS, PROTO_FIELD_UINT, REQ, AT(sent)},
		{NULL},
	};
	struct raw raw = {0};
	struct json_object *o;
	int r;

	memset(a, 0, sizeof(*a));
	r = parse_common(payload, len, fields, &raw, &(struct common){a->host, a->group}, &o, why,
			 whylen);
	if (r >= 0)
		r = copy_incident(a->incident, raw.incident, why, whylen);
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
	a->sent_realtime_ns = raw.sent;
	json_object_put(o);
	return r;
}

static int copy_incidents(struct proto_fleet_result *res, struct json_object *list, char *why,
			  size_t whylen)
{
	size_t n = json_object_array_length(list);

	if (n == 0 || n > PROTO_FLEET_RESULT_INCIDENTS) {
		snprintf(why, whylen, "\"incidents\" names %zu, not 1 to %d", n,
			 PROTO_FLEET_RESULT_INCIDENTS);
		return -EINVAL;
	}
	for (size_t i = 0; i < n; i++) {
		struct json_object *v = json_object_array_get_idx(list, i);

		if (!json_object_is_type(v, json_type_string) ||
		    copy_incident(res->incidents[i], json_object_get_string(v), why, whylen) < 0) {
			snprintf(why, whylen, "\"incidents\"[%zu] is not an incident (HOST-SEQ)",
				 i);
			return -EINVAL;
		}
	}
	res->n = n;
	return 0;
}

int proto_fleet_result_parse(const void *payload, size_t len, struct proto_fleet_result *res,
			     char *why, size_t whylen)
{
	static const struct proto_field fields[] = {
		{PROTO_FLEET_KEY_VERSION, PROTO_FIELD_INT, REQ, AT(version)},
		{PROTO_FLEET_KEY_HOST, PROTO_FIELD_STRING, REQ, AT(host)},
		{PROTO_FLEET_KEY_GROUP, PROTO_FIELD_STRING, REQ, AT(group)},
		{PROTO_FLEET_KEY_STATUS, PROTO_FIELD_STRING, REQ, AT(status)},
		{PROTO_FLEET_KEY_INCIDENTS, PROTO_FIELD_ARRAY, REQ, AT(incidents)},
		{PROTO_FLEET_KEY_COUNT, PROTO_FIELD_UINT, 0, AT(count)},
		{PROTO_FLEET_KEY_BUDGET, PROTO_FIELD_STRING, 0, AT(budget)},
		{PROTO_FLEET_KEY_PATH, PROTO_FIELD_STRING, 0, AT(path)},
		{PROTO_FLEET_KEY_REASON, PROTO_FIELD_STRING, 0, AT(reason)},
		{NULL},
	};
	struct raw raw = {0};
	struct json_object *o;
	int r;

	memset(res, 0, sizeof(*res));
	r = parse_common(payload, len, fields, &raw, &(struct common){res->host, res->group}, &o,
			 why, whylen);
	if (r >= 0 && !proto_fleet_status_valid(raw.status)) {
		snprintf(why, whylen,
			 "status \"%.32s\" is not one of recorded, local, refused, "
			 "failed, stale",
			 raw.status);
		r = -EINVAL;
	}
	if (r >= 0)
		snprintf(res->status, sizeof(res->status), "%s", raw.status);
	if (r >= 0)
		r = copy_incidents(res, raw.incidents, why, whylen);
	if (r >= 0 && !proto_fleet_budget_valid(raw.budget ?: "")) {
		snprintf(why, whylen, "budget \"%.32s\" is not origin, total nor queue",
			 raw.budget);
		r = -EINVAL;
	}
	if (r >= 0)
		r = copy_name(res->budget, sizeof(res->budget), raw.budget ?: "", "budget", false,
			      why, whylen);
	if (r >= 0)
		r = copy_name(res->path, sizeof(res->path), raw.path ?: "", "path", false, why,
			      whylen);
	if (r >= 0)
		r = copy_name(res->reason, sizeof(res->reason), raw.reason ?: "", "reason", false,
			      why, whylen);
	res->count = raw.count > res->n ? raw.count : res->n;
	json_object_put(o);
	return r;
}

int proto_fleet_presence_parse(const void *payload, size_t len, struct proto_fleet_presence *p,
			       char *why, size_t whylen)
{
	static const struct proto_field fields[] = {
		{PROTO_FLEET_KEY_VERSION, PROTO_FIELD_INT, REQ, AT(version)},
		{PROTO_FLEET_KEY_HOST, PROTO_FIELD_STRING, REQ, AT(host)},
		{PROTO_FLEET_KEY_GROUP, PROTO_FIELD_STRING, REQ, AT(group)},
		{PROTO_FLEET_KEY_BOOT_ID, PROTO_FIELD_STRING, 0, AT(boot_id)},
		{PROTO_FLEET_KEY_STATE, PROTO_FIELD_STRING, REQ, AT(state)},
		{PROTO_FLEET_KEY_SINCE_REALTIME_NS, PROTO_FIELD_UINT, 0, AT(since)},
		{PROTO_FLEET_KEY_EVERY_S, PROTO_FIELD_UINT, PROTO_FIELD_CLAMPED, AT(every)},
		{NULL},
	};
	static const char *const states[] = {PROTO_FLEET_ONLINE, PROTO_FLEET_OFFLINE, NULL};
	struct raw raw = {0};
	struct json_object *o;
	int r;

	memset(p, 0, sizeof(*p));
	r = parse_common(payload, len, fields, &raw, &(struct common){p->host, p->group}, &o, why,
			 whylen);
	if (r >= 0 && !one_of(raw.state, states)) {
		snprintf(why, whylen, "state \"%.32s\" is not online nor offline", raw.state);
		r = -EINVAL;
	}
	if (r >= 0)
		snprintf(p->state, sizeof(p->state), "%s", raw.state);
	if (r >= 0)
		r = copy_name(p->boot_id, sizeof(p->boot_id), raw.boot_id ?: "", "boot_id", false,
			      why, whylen);
	/*
	 * Zero, a negative or a non-integer is no period: refused rather than ignored, for a
	 * member whose renewals cannot be timed would be kept online for ever, the very fault
	 * the renewals end. An integer above the range is a later version's period, one this
	 * host cannot time: read as absent (0), a member that renews nothing, kept as members
	 * always were, never refused and so never invisible here.
	 */
	if (r >= 0 && json_object_object_get_ex(o, PROTO_FLEET_KEY_EVERY_S, NULL) &&
	    raw.every < PROTO_FLEET_EVERY_MIN_S) {
		snprintf(why, whylen, "\"%s\" %" PRIu64 " is not a period of %d s or more",
			 PROTO_FLEET_KEY_EVERY_S, raw.every, PROTO_FLEET_EVERY_MIN_S);
		r = -EINVAL;
	}
	p->since_realtime_ns = raw.since;
	p->every_s = r >= 0 && raw.every <= PROTO_FLEET_EVERY_MAX_S ? (uint32_t)raw.every : 0;
	json_object_put(o);
	return r;
}
