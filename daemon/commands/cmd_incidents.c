/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * "incidents" (1.4): the fleet's incidents this host knows of, newest first: the origin,
 * when it was first seen, its members (1.7) and what each did (recorded to the collector,
 * locally only, refused, failed, stale; pending, or no answer past fleet.answer_within),
 * and this host's snapshots of it. As many as one reply holds (a large fleet's incidents
 * are long), the newest first; "matched" says how many there are (1.8).
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <time.h>

#include <json-c/json.h>

#include "commands.h"

struct incidents_args {
	uint64_t limit;
};

/* The ids of this host's snapshots of the incident. */
static struct json_object *snapshot_ids(struct catalog *cat, const char *incident)
{
	struct json_object *ids = json_object_new_array();

	for (size_t i = 0; ids && i < catalog_count(cat); i++) {
		const struct catalog_entry *e = catalog_at(cat, i);

		if (e->incident && strcmp(e->incident, incident) == 0)
			json_object_array_add(ids, json_object_new_int64((int64_t)e->id));
	}
	return ids;
}

int cmd_incidents(struct manager *m, const struct control_caller *caller, struct json_object *args,
		  struct json_object **result, struct proto_error *err)
{
	static const struct proto_field fields[] = {
		{PROTO_KEY_LIMIT, PROTO_FIELD_UINT, 0, offsetof(struct incidents_args, limit)},
		{NULL},
	};
	struct incidents_args a = {0};
	struct json_object *all, *list, *o;
	size_t used = 0, listed = 0;
	int r;

	r = proto_fields_dispatch(args, fields, 0, &a, err);
	if (r < 0)
		return r;
	if (!m->catalog)
		return proto_error_set(err, PROTO_ERR_NOT_FOUND,
				       "no snapshot catalog: the flight recorder is off "
				       "(session.enabled = false)");
	all = catalog_incidents(m->catalog);
	o = json_object_new_object();
	list = json_object_new_array();
	r = o && list && all ? 0 : -ENOMEM;
	for (size_t i = json_object_array_length(all); r >= 0 && i-- > 0;) {
		struct json_object *inc = json_object_array_get_idx(all, i), *copy = NULL, *v;

		if ((a.limit && listed >= a.limit) || used > PROTO_PAYLOAD_BUDGET)
			break;
		copy = catalog_incident_view(inc, (uint64_t)time(NULL),
					     m->conf->fleet.answer_within_ns / 1000000000);
		if (!copy || !json_object_object_get_ex(inc, PROTO_KEY_INCIDENT, &v)) {
			json_object_put(copy);
			r = -ENOMEM;
			break;
		}
		result_add(copy, PROTO_KEY_SNAPSHOTS,
			   snapshot_ids(m->catalog, json_object_get_string(v)), &r);
		if (r >= 0)
			used += proto_json_length(copy) + 1;
		if (r < 0 || used > PROTO_PAYLOAD_BUDGET) {
			json_object_put(copy); /* this one would not fit */
			continue;
		}
		if (json_object_array_add(list, copy) < 0) {
			json_object_put(copy);
			r = -ENOMEM;
		}
		listed++;
	}
	result_add(o, PROTO_KEY_INCIDENTS, list, &r);
	result_add_int(o, PROTO_KEY_MATCHED, (int64_t)json_object_array_length(all), &r);
	result_add_string(o, PROTO_KEY_HOST, m->fleet ? fleet_host(m->fleet) : "", &r);
	return result_done(o, r, result);
}
