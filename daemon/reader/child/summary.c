// SPDX-License-Identifier: GPL-2.0-only
/* The catalog's summary of an analysis (summary.h), made in latencyd-reader. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "entry.h"
#include "reader_result.h"
#include "snapshot.h"
#include "summary.h"

static struct json_object *member(struct json_object *o, const char *key)
{
	struct json_object *v = NULL;

	json_object_object_get_ex(o, key, &v);
	return v;
}

static const char *string(struct json_object *o, const char *key)
{
	struct json_object *v = member(o, key);

	return json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
}

/* The first MAX strings of the array at KEY. */
static char **strings(struct json_object *from, const char *key, size_t max, size_t *n, int *r)
{
	struct json_object *a = member(from, key);
	size_t len = json_object_array_length(a) < max ? json_object_array_length(a) : max;
	char **v = calloc(len ? len : 1, sizeof(*v));

	*n = 0;
	if (!v) {
		*r = -ENOMEM;
		return NULL;
	}
	for (size_t i = 0; i < len; i++)
		v[(*n)++] =
			catalog_strdup(json_object_get_string(json_object_array_get_idx(a, i)), r);
	return v;
}

/* What the analysis says of each alert, in a line: of the first READER_CAUSES_MAX. */
static void causes(struct catalog_analysis *s, struct json_object *full, int *r)
{
	struct json_object *alerts = member(full, "alerts");
	size_t n = json_object_array_length(alerts);

	if (n > READER_CAUSES_MAX)
		n = READER_CAUSES_MAX;

	s->causes = calloc(n ? n : 1, sizeof(*s->causes));
	if (!s->causes) {
		*r = -ENOMEM;
		return;
	}
	for (size_t i = 0; i < n; i++) {
		struct json_object *a = json_object_array_get_idx(alerts, i);

		s->causes[s->n_causes++] = (struct catalog_analysis_cause){
			.seq = (uint64_t)json_object_get_int64(member(a, "seq")),
			.tracker = catalog_strdup(string(a, "tracker"), r),
			.tid = json_object_get_int64(member(a, "tid")),
			.comm = catalog_strdup(string(a, "comm"), r),
			.summary = catalog_strdup(string(a, "summary"), r),
			.explained = json_object_get_double(member(a, "explained")),
		};
	}
}

struct catalog_analysis *analysis_summary(const struct an_snapshot *snap, int64_t ms)
{
	struct catalog_analysis *s = calloc(1, sizeof(*s));
	const struct an_result *res = snap->result;
	struct json_object *full;
	int r = 0;

	if (!s)
		return NULL;
	s->analysis_ms = ms > 0 ? (uint64_t)ms : 0;
	if (!res) {
		s->status = catalog_strdup("failed", &r);
		s->error = catalog_strdup(snap->analysis_why ? snap->analysis_why
							     : strerror(-snap->analysis_error),
					  &r);
	} else if (!(full = an_result_json(res))) {
		r = -ENOMEM;
	} else {
		s->status = catalog_strdup(an_result_partial(res) ? "partial" : "done", &r);
		s->events = (uint64_t)json_object_get_int64(member(full, "events"));
		s->problems = strings(full, "problems", READER_PROBLEMS_MAX, &s->n_problems, &r);
		s->missing_events = strings(full, "missing_events", READER_MISSING_MAX,
					    &s->n_missing_events, &r);
		causes(s, full, &r);
		json_object_put(full);
	}
	if (r < 0) {
		catalog_analysis_free(s);
		return NULL;
	}
	return s;
}
