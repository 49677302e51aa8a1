/* SPDX-License-Identifier: GPL-2.0-only */
/* The fleet as text: the incidents table, and status's fleet line. */
#include <inttypes.h>
#include <stdio.h>
#include <time.h>

#include <json-c/json.h>

#include "latencyctl.h"

static struct json_object *get(struct json_object *o, const char *key)
{
	struct json_object *v = NULL;

	json_object_object_get_ex(o, key, &v);
	return v;
}

/* Its length if O is an array; 0 when it is missing (an older latencyd's catalog) or not. */
static size_t count(struct json_object *o)
{
	return json_object_is_type(o, json_type_array) ? json_object_array_length(o) : 0;
}

#define HOSTS_NAMED 8 /* in a cell, then "and N more": --json has them all */

/* "h1, h2" or "-". */
static void hosts_text(char *buf, size_t size, struct json_object *hosts)
{
	size_t len = 0, n = count(hosts);

	buf[0] = 0;
	for (size_t i = 0; i < n && len < size; i++) {
		if (i == HOSTS_NAMED && n > HOSTS_NAMED + 1) {
			snprintf(buf + len, size - len, " and %zu more", n - i);
			break;
		}
		len += (size_t)snprintf(buf + len, size - len, "%s%s", i ? ", " : "",
					json_str(json_object_array_get_idx(hosts, i), "?"));
	}
	if (!buf[0])
		snprintf(buf, size, "-");
}

/* "h3 local, h4 refused (origin), h5 no answer": the members that did not record to the
 * collector, each with what it did and its detail; "-" when none. */
static void others_text(char *buf, size_t size, struct json_object *inc)
{
	static const char *const keys[] = {PROTO_KEY_LOCAL, PROTO_KEY_REFUSED,	 PROTO_KEY_FAILED,
					   PROTO_KEY_STALE, PROTO_KEY_NO_ANSWER, PROTO_KEY_PENDING};
	static const char *const labels[] = {"local", "refused",   "failed",
					     "stale", "no answer", "pending"};
	struct json_object *details = get(inc, PROTO_KEY_DETAILS), *d;
	size_t len = 0;

	buf[0] = 0;
	for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
		struct json_object *hosts = get(inc, keys[k]);

		for (size_t i = 0; i < count(hosts) && len < size; i++) {
			/* A null host has no text, and a NULL key crashes the details' lookup. */
			const char *h = json_str(json_object_array_get_idx(hosts, i), "?");

			len += (size_t)snprintf(buf + len, size - len, "%s%s %s", len ? ", " : "",
						h, labels[k]);
			/* A local snapshot's path is long: the JSON has it. */
			if (len < size && k && details && json_object_object_get_ex(details, h, &d))
				len += (size_t)snprintf(buf + len, size - len, " (%s)",
							json_str(d, "?"));
		}
	}
	if (len < size && get(inc, PROTO_KEY_UNPUBLISHED))
		len += (size_t)snprintf(buf + len, size - len, "%snot published", len ? ", " : "");
	if (!buf[0])
		snprintf(buf, size, "-");
}

int text_incidents(struct json_object *result)
{
	static const char *const head[] = {"INCIDENT", "ORIGIN",       "FIRST SEEN",
					   "RECORDED", "NOT RECORDED", "SNAPSHOTS"};
	struct json_object *list = get(result, PROTO_KEY_INCIDENTS);
	const char *host = json_str(get(result, PROTO_KEY_HOST), "");
	int64_t matched = json_object_get_int64(get(result, PROTO_KEY_MATCHED));
	struct columns t;
	size_t n = count(list);

	if (n == 0) {
		printf("No incidents%s.\n", host[0] ? "" : " (fleet.enabled = false)");
		return EXIT_OK;
	}
	columns_init(&t, head, sizeof(head) / sizeof(head[0]));
	for (size_t i = 0; i < n; i++) {
		struct json_object *inc = json_object_array_get_idx(list, i);
		time_t when = (time_t)json_object_get_int64(get(inc, PROTO_KEY_TIME));
		char buf[256], date[32] = "?";
		struct tm tm;

		if (localtime_r(&when, &tm))
			strftime(date, sizeof(date), "%Y-%m-%d %H:%M:%S", &tm);
		columns_cell(&t, "%s", json_str(get(inc, PROTO_KEY_INCIDENT), "?"));
		columns_cell(&t, "%s", json_str(get(inc, PROTO_KEY_ORIGIN), "?"));
		columns_cell(&t, "%s", date);
		hosts_text(buf, sizeof(buf), get(inc, PROTO_KEY_RECORDED));
		columns_cell(&t, "%s", buf);
		others_text(buf, sizeof(buf), inc);
		columns_cell(&t, "%s", buf);
		hosts_text(buf, sizeof(buf), get(inc, PROTO_KEY_SNAPSHOTS));
		columns_cell(&t, "%s", buf);
	}
	columns_print(&t);
	columns_done(&t);
	/* 1.8: a reply holds so many; --limit asks for fewer, and each is whole in --json. */
	if (matched > (int64_t)n)
		printf("%" PRId64 " older incident(s) not shown: one reply holds the %zu newest.\n",
		       matched - (int64_t)n, n);
	return EXIT_OK;
}

void fleet_text(char *buf, size_t size, struct json_object *f)
{
	struct json_object *d = get(f, PROTO_KEY_DROPPED), *detail = get(f, PROTO_KEY_DETAIL);
	struct json_object *proc = get(f, PROTO_KEY_PROCESS);
	int64_t dropped = 0, restarts = json_object_get_int64(get(proc, PROTO_KEY_RESTARTS));
	int64_t notes = json_object_get_int64(get(f, PROTO_KEY_NOTES_DROPPED));
	int64_t skewed = json_object_get_int64(get(f, PROTO_KEY_CLOCK_SKEWED));
	char why[200] = "", who[120] = "", lost[80] = "", skew[80] = "";
	int n;

	/* The foreach dereferences NULL for anything but an object; the sum saturates. */
	if (json_object_is_type(d, json_type_object)) {
		json_object_object_foreach(d, key, val)
		{
			int64_t v = json_object_get_int64(val);

			(void)key;
			if (v > 0)
				dropped = v > INT64_MAX - dropped ? INT64_MAX : dropped + v;
		}
	}
	if (detail) {
		char said[sizeof(why) - 4];

		text_cut(said, sizeof(said),
			 snprintf(said, sizeof(said), "%s", json_str(detail, "?")));
		snprintf(why, sizeof(why), " (%s)", said);
	} else if (json_object_get_boolean(get(f, PROTO_KEY_CONNECTED)) &&
		   !json_object_get_boolean(get(f, PROTO_KEY_SUBSCRIBED)))
		snprintf(why, sizeof(why), " (not subscribed yet)");
	/* 1.10: the MQTT process's news the main loop never took */
	if (notes > 0)
		snprintf(lost, sizeof(lost), ", %" PRId64 " note(s) from the MQTT process dropped",
			 notes);
	/* 1.22: peers' clocks far from this host's (the log names them) */
	if (skewed > 0)
		snprintf(skew, sizeof(skew), ", %" PRId64 " sent by a clock far off", skewed);
	/* 1.8: the unprivileged process that speaks MQTT */
	if (proc)
		snprintf(who, sizeof(who), "; MQTT process as %s%s, restarted %" PRId64 " time(s)",
			 json_str(get(proc, PROTO_KEY_USER), "?"),
			 json_object_get_int64(get(proc, PROTO_KEY_PID)) ? "" : " (down)",
			 restarts);
	n = snprintf(buf, size,
		     "%s %s%s as %s, group %s, %" PRId64 " other member(s) online; %" PRId64
		     " published, %" PRId64 " received, %" PRId64 " dropped%s%s%s",
		     json_object_get_boolean(get(f, PROTO_KEY_CONNECTED)) ? "connected to"
									  : "not connected to",
		     json_str(get(f, PROTO_KEY_BROKER), "?"), why,
		     json_str(get(f, PROTO_KEY_HOST), "?"), json_str(get(f, PROTO_KEY_GROUP), "?"),
		     json_object_get_int64(get(f, PROTO_KEY_MEMBERS_ONLINE)),
		     json_object_get_int64(get(f, PROTO_KEY_PUBLISHED)),
		     json_object_get_int64(get(f, PROTO_KEY_RECEIVED)), dropped, skew, lost, who);
	text_cut(buf, size, n);
}

/* 1.8: on the collector, relayd's tree as the last retention pass left it. */
void collector_text(char *buf, size_t size, struct json_object *c)
{
	struct json_object *problem = get(c, PROTO_KEY_PROBLEM);
	int64_t last = json_object_get_int64(get(c, PROTO_KEY_LAST_PASS));
	int64_t in_part = json_object_get_int64(get(c, PROTO_KEY_DELETED_IN_PART));
	char when[32] = "none yet", kept[32], deleted[32], part[48] = "";
	time_t t = (time_t)(last / 1000000000);
	struct tm tm;
	int n;

	if (last > 0 && localtime_r(&t, &tm))
		strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", &tm);
	bytes_text(kept, sizeof(kept), json_object_get_int64(get(c, PROTO_KEY_BYTES)));
	bytes_text(deleted, sizeof(deleted),
		   json_object_get_int64(get(c, PROTO_KEY_DELETED_BYTES)));
	/* 1.11 */
	if (in_part > 0)
		snprintf(part, sizeof(part), ", %" PRId64 " in part", in_part);
	n = snprintf(buf, size,
		     "%s: %" PRId64 " incident(s), %s; %" PRId64 " deleted%s (%s) since start; "
		     "last pass %s%s%s",
		     json_str(get(c, PROTO_KEY_DIRECTORY), "?"),
		     json_object_get_int64(get(c, PROTO_KEY_INCIDENTS)), kept,
		     json_object_get_int64(get(c, PROTO_KEY_DELETED)), part, deleted, when,
		     problem ? "; " : "", problem ? json_str(problem, "?") : "");
	text_cut(buf, size, n);
}
