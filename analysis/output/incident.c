/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * An incident as text and as JSON: the window, then each host's snapshot as one result
 * (text.c, json.c), a peer's over the window aligned on its own record.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <json-c/json.h>

#include "an.h"
#include "analysis.h"
#include "incident.h"
#include "results.h"

void an_incident_print(const struct an_incident *inc, FILE *f)
{
	char d[32];

	fprintf(f, "Incident %s (origin %s): %zu snapshot(s) under %s\n", inc->id, inc->origin,
		inc->parts.n, inc->dir);
	if (!inc->origin_found)
		fprintf(f, "The origin's snapshot (snap-%s-%s@%s-*) is %s: no alert to explain.\n",
			strrchr(inc->id, '-') + 1, inc->id, inc->origin,
			inc->origin_ambiguous ? "there twice (two hosts of one name?)"
					      : "not there");
	if (inc->end) {
		an_dur_text(d, sizeof(d), inc->end - inc->begin);
		fprintf(f, "Window: %" PRIu64 " to %" PRIu64 " ns since the epoch (%s), %s\n",
			inc->begin, inc->end, d, inc->window_source ? inc->window_source : "");
	}
	for (size_t i = 0; i < inc->parts.n; i++) {
		const struct an_incident_part *p = AN_AT(&inc->parts, struct an_incident_part, i);

		fprintf(f, "\n=== %s %s (host %s)\n", p->origin ? "origin" : "peer", p->label,
			p->host);
		if (!p->res) {
			fprintf(f, "Not analysed: %s\n", p->why ? p->why : "?");
			continue;
		}
		if (!p->origin && inc->end) {
			an_dur_text(d, sizeof(d), p->end - p->begin);
			fprintf(f,
				"Over the window aligned on this host's record (its snapshot's "
				"end): %" PRIu64 " to %" PRIu64 " ns on its clock (%s)%s\n",
				p->begin, p->end, d,
				p->covers ? "" : "; the snapshot does not hold all of it");
		}
		an_result_print(p->res, f);
	}
}

struct json_object *an_incident_json(const struct an_incident *inc)
{
	struct json_object *o = json_object_new_object(), *list = json_object_new_array();

	json_object_object_add(o, "incident", json_object_new_string(inc->id));
	json_object_object_add(o, "origin", json_object_new_string(inc->origin));
	json_object_object_add(o, "origin_found", json_object_new_boolean(inc->origin_found));
	if (inc->end) {
		struct json_object *w = json_object_new_object();

		json_object_object_add(w, "begin_ns", json_object_new_int64((int64_t)inc->begin));
		json_object_object_add(w, "end_ns", json_object_new_int64((int64_t)inc->end));
		json_object_object_add(w, "source",
				       json_object_new_string(inc->window_source ?: ""));
		json_object_object_add(o, "window", w);
	}
	for (size_t i = 0; list && i < inc->parts.n; i++) {
		const struct an_incident_part *p = AN_AT(&inc->parts, struct an_incident_part, i);
		struct json_object *s = json_object_new_object();

		json_object_object_add(s, "path", json_object_new_string(p->path));
		json_object_object_add(s, "host", json_object_new_string(p->host));
		json_object_object_add(s, "role",
				       json_object_new_string(p->origin ? "origin" : "peer"));
		if (!p->origin && inc->end) {
			json_object_object_add(s, "covers_window",
					       json_object_new_boolean(p->covers));
			json_object_object_add(s, "window_begin_ns",
					       json_object_new_int64((int64_t)p->begin));
			json_object_object_add(s, "window_end_ns",
					       json_object_new_int64((int64_t)p->end));
		}
		if (p->res)
			json_object_object_add(s, "result", an_result_json(p->res));
		else
			json_object_object_add(s, "error", json_object_new_string(p->why ?: "?"));
		json_object_array_add(list, s);
	}
	json_object_object_add(o, "snapshots", list);
	return o;
}
