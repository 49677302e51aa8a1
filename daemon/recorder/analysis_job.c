/* SPDX-License-Identifier: GPL-2.0-only */
/* The automatic snapshot analysis: the catalog's summary of what the snapshot reader found. */
#include <string.h>

#include <json-c/json.h>

#include "analysis_job.h"
#include "snapshot.h"

static void add_strings(struct json_object *to, const char *key, struct json_object *from,
			size_t max)
{
	struct json_object *a = json_object_new_array(), *v;

	if (json_object_object_get_ex(from, key, &v))
		for (size_t i = 0; i < json_object_array_length(v) && i < max; i++)
			json_object_array_add(a, json_object_get(json_object_array_get_idx(v, i)));
	json_object_object_add(to, key, a);
}

static void copy(struct json_object *to, struct json_object *from, const char *key)
{
	struct json_object *v;

	if (json_object_object_get_ex(from, key, &v))
		json_object_object_add(to, key, json_object_get(v));
}

struct json_object *analysis_summary(const struct an_snapshot *snap, int64_t ms)
{
	struct json_object *s = json_object_new_object(), *full, *alerts, *causes;
	const struct an_result *r = snap->result;

	json_object_object_add(s, "analysis_ms", json_object_new_int64(ms));
	if (!r) {
		json_object_object_add(s, "status", json_object_new_string("failed"));
		json_object_object_add(
			s, "error",
			json_object_new_string(snap->analysis_why
						       ? snap->analysis_why
						       : strerror(-snap->analysis_error)));
		return s;
	}
	full = an_result_json(r);
	json_object_object_add(s, "status",
			       json_object_new_string(an_result_partial(r) ? "partial" : "done"));
	copy(s, full, "events");
	add_strings(s, "problems", full, 3);
	add_strings(s, "missing_events", full, 16);
	causes = json_object_new_array();
	if (json_object_object_get_ex(full, "alerts", &alerts))
		for (size_t i = 0; i < json_object_array_length(alerts); i++) {
			struct json_object *a = json_object_array_get_idx(alerts, i);
			struct json_object *c = json_object_new_object();

			copy(c, a, "seq");
			copy(c, a, "tracker");
			copy(c, a, "tid");
			copy(c, a, "comm");
			copy(c, a, "summary");
			copy(c, a, "explained");
			json_object_array_add(causes, c);
		}
	json_object_object_add(s, "causes", causes);
	json_object_put(full);
	return s;
}
