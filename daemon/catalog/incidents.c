/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The fleet's incidents in the catalog: [{"incident", "origin", "time", "recorded": [HOST],
 * "refused": [HOST], "failed": [HOST]}], oldest first. This host's own records and
 * refusals are noted as they happen, its peers' from their result messages; a host is
 * listed once per incident, under its latest status.
 */
#include <errno.h>
#include <string.h>

#include <json-c/json.h>

#include "catalog.h"
#include "proto.h"
#include "result.h"

static const char *const statuses[] = {PROTO_FLEET_RECORDED, PROTO_FLEET_REFUSED,
				       PROTO_FLEET_FAILED};

struct json_object *catalog_incidents(struct catalog *c)
{
	return catalog_member(c, PROTO_KEY_INCIDENTS, true);
}

static struct json_object *find(struct json_object *list, const char *incident)
{
	for (size_t i = json_object_array_length(list); i-- > 0;) {
		struct json_object *o = json_object_array_get_idx(list, i), *v;

		if (json_object_object_get_ex(o, PROTO_KEY_INCIDENT, &v) &&
		    strcmp(json_object_get_string(v), incident) == 0)
			return o;
	}
	return NULL;
}

static struct json_object *add(struct json_object *list, const char *incident, uint64_t time)
{
	char origin[PROTO_FLEET_NAME_MAX + 1];
	struct json_object *o = json_object_new_object();
	int r = 0;

	if (proto_fleet_incident_parse(incident, origin, sizeof(origin), NULL) < 0) {
		json_object_put(o);
		return NULL;
	}
	result_add_string(o, PROTO_KEY_INCIDENT, incident, &r);
	result_add_string(o, PROTO_KEY_ORIGIN, origin, &r);
	result_add_int(o, PROTO_KEY_TIME, (int64_t)time, &r);
	for (size_t i = 0; i < sizeof(statuses) / sizeof(statuses[0]); i++)
		result_add(o, statuses[i], json_object_new_array(), &r);
	if (r < 0 || json_object_array_add(list, o) < 0) {
		json_object_put(o);
		return NULL;
	}
	if (json_object_array_length(list) > CATALOG_INCIDENTS_KEEP)
		json_object_array_del_idx(list, 0, 1);
	return o;
}

/* Takes HOST out of every status list of the incident. */
static void forget_host(struct json_object *o, const char *host)
{
	for (size_t i = 0; i < sizeof(statuses) / sizeof(statuses[0]); i++) {
		struct json_object *hosts;

		if (!json_object_object_get_ex(o, statuses[i], &hosts))
			continue;
		for (size_t k = json_object_array_length(hosts); k-- > 0;)
			if (strcmp(json_object_get_string(json_object_array_get_idx(hosts, k)),
				   host) == 0)
				json_object_array_del_idx(hosts, k, 1);
	}
}

static int by_name(const void *a, const void *b)
{
	return strcmp(json_object_get_string(*(struct json_object *const *)a),
		      json_object_get_string(*(struct json_object *const *)b));
}

int catalog_incident_note(struct catalog *c, const char *incident, const char *host,
			  const char *status, uint64_t time)
{
	struct json_object *list = catalog_incidents(c), *o, *hosts = NULL;

	if (!list)
		return -ENOMEM;
	o = find(list, incident);
	if (!o && !(o = add(list, incident, time)))
		return -EINVAL;
	forget_host(o, host);
	if (!json_object_object_get_ex(o, status, &hosts))
		return -EINVAL;
	if (json_object_array_add(hosts, json_object_new_string(host)) < 0)
		return -ENOMEM;
	json_object_array_sort(hosts, by_name); /* a list a reader scans */
	return 0;
}
