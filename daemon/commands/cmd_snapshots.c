/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * "list-snapshots", "show-snapshot", "delete-snapshot": the catalog as clients see it. A
 * list carries one summary per snapshot (its first cause, how many causes), as many of the
 * newest as one reply holds: a summary keeps the entry's history (up to 64 per-CPU streams)
 * and its first cause's stack, so a hundred of them exceed a frame. "matched" counts them all.
 * show-snapshot carries the whole entry, its causes capped at SHOW_CAUSES_MAX, fewer when
 * their stacks would exceed a frame ("causes_total" says how many; the catalog file keeps
 * them all).
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "catalog.h"
#include "commands.h"

#define SHOW_CAUSES_MAX CATALOG_VIEW_CAUSES

static int catalog_of(struct manager *m, struct catalog **ret, struct proto_error *err)
{
	*ret = m->catalog;
	if (!*ret)
		return proto_error_set(err, PROTO_ERR_NOT_FOUND,
				       "no snapshot catalog: the flight recorder is off "
				       "(session.enabled = false)");
	return 0;
}

static bool has_tracker(const struct catalog_entry *e, const char *tracker)
{
	for (size_t i = 0; i < e->n_causes; i++)
		if (e->causes[i].tracker && strcmp(e->causes[i].tracker, tracker) == 0)
			return true;
	return false;
}

struct list_args {
	uint64_t since, limit;
	const char *tracker, *incident;
};

static bool in_incident(const struct catalog_entry *e, const char *incident)
{
	return e->incident && strcmp(e->incident, incident) == 0;
}

int cmd_list_snapshots(struct manager *m, const struct control_caller *caller,
		       struct json_object *args, struct json_object **result,
		       struct proto_error *err)
{
	static const struct proto_field fields[] = {
		{PROTO_KEY_SINCE, PROTO_FIELD_UINT, 0, offsetof(struct list_args, since)},
		{PROTO_KEY_LIMIT, PROTO_FIELD_UINT, 0, offsetof(struct list_args, limit)},
		{PROTO_KEY_TRACKER, PROTO_FIELD_STRING, 0, offsetof(struct list_args, tracker)},
		{PROTO_KEY_INCIDENT, PROTO_FIELD_STRING, 0, offsetof(struct list_args, incident)},
		{NULL},
	};
	struct list_args a = {0};
	struct json_object *list, *o, *total = NULL;
	struct catalog *cat;
	size_t matched = 0, listed = 0, used = 0;
	int r;

	r = proto_fields_dispatch(args, fields, 0, &a, err);
	if (r < 0 || (r = catalog_of(m, &cat, err)) < 0)
		return r;
	o = json_object_new_object();
	list = json_object_new_array();
	if (!o || !list) {
		json_object_put(o);
		json_object_put(list);
		return -ENOMEM;
	}
	/*
	 * Newest first: the ones an operator looks for, and what --limit and the budget keep.
	 * Past either, the rest are only counted.
	 */
	for (size_t i = catalog_count(cat); i-- > 0 && r >= 0;) {
		const struct catalog_entry *e = catalog_at(cat, i);

		if (a.since && e->time < a.since)
			continue;
		if (a.tracker && !has_tracker(e, a.tracker))
			continue;
		if (a.incident && !in_incident(e, a.incident))
			continue;
		matched++;
		if ((a.limit && listed >= a.limit) || used > PROTO_PAYLOAD_BUDGET)
			continue;
		struct json_object *s = catalog_entry_to_json(e, CATALOG_FORM_SUMMARY, 0);

		if (!s) {
			r = -ENOMEM;
			break;
		}
		used += proto_json_length(s) + 1;
		if (used > PROTO_PAYLOAD_BUDGET) {
			json_object_put(s); /* this one would not fit, nor any older one */
			continue;
		}
		if (json_object_array_add(list, s) < 0) {
			json_object_put(s);
			r = -ENOMEM;
		}
		listed++;
	}
	json_object_object_get_ex(catalog_suppressed(cat), PROTO_KEY_TOTAL, &total);
	result_add(o, PROTO_KEY_SNAPSHOTS, list, &r);
	result_add_int(o, PROTO_KEY_MATCHED, (int64_t)matched, &r);
	result_add(o, PROTO_KEY_SUPPRESSED, json_object_get(total), &r);
	return result_done(o, r, result);
}

struct id_args {
	uint64_t id;
	bool keep_files;
};

static const struct proto_field id_fields[] = {
	{PROTO_KEY_ID, PROTO_FIELD_UINT, PROTO_FIELD_REQUIRED, offsetof(struct id_args, id)},
	{NULL},
};

static const struct proto_field delete_fields[] = {
	{PROTO_KEY_ID, PROTO_FIELD_UINT, PROTO_FIELD_REQUIRED, offsetof(struct id_args, id)},
	{PROTO_KEY_KEEP_FILES, PROTO_FIELD_BOOL, 0, offsetof(struct id_args, keep_files)},
	{NULL},
};

/* The entry ARGS name (with FIELDS, the command's own), and ARGS as read in A. */
static int find_entry(struct manager *m, struct json_object *args, const struct proto_field *fields,
		      struct id_args *a, struct catalog **cat, struct catalog_entry **entry,
		      struct proto_error *err)
{
	int r;

	r = proto_fields_dispatch(args, fields, 0, a, err);
	if (r < 0 || (r = catalog_of(m, cat, err)) < 0)
		return r;
	*entry = catalog_find(*cat, a->id);
	if (!*entry)
		return proto_error_set(err, PROTO_ERR_NOT_FOUND,
				       "no snapshot %llu (see latencyctl list-snapshots)",
				       (unsigned long long)a->id);
	return 0;
}

int cmd_show_snapshot(struct manager *m, const struct control_caller *caller,
		      struct json_object *args, struct json_object **result,
		      struct proto_error *err)
{
	struct catalog_entry *entry;
	struct id_args a = {0};
	struct catalog *cat;
	int r;

	r = find_entry(m, args, id_fields, &a, &cat, &entry, err);
	if (r < 0)
		return r;
	*result = catalog_entry_to_json(entry, CATALOG_FORM_VIEW, SHOW_CAUSES_MAX);
	if (!*result)
		return -ENOMEM;
	catalog_view_fit(*result, PROTO_PAYLOAD_BUDGET);
	return 0;
}

int cmd_delete_snapshot(struct manager *m, const struct control_caller *caller,
			struct json_object *args, struct json_object **result,
			struct proto_error *err)
{
	struct json_object *o, *url, *kept = NULL;
	struct catalog_entry *entry;
	struct id_args a = {0};
	struct catalog *cat;
	char *said;
	uint64_t id;
	int r;

	r = find_entry(m, args, delete_fields, &a, &cat, &entry, err);
	if (r < 0)
		return r;
	id = a.id;
	if (entry->status == CATALOG_RECORDING)
		return proto_error_set(err, PROTO_ERR_REFUSED,
				       "snapshot %llu is being recorded; try again when it is done",
				       (unsigned long long)id);
	/* A relayd snapshot's files are on the relayd host: only the entry goes. */
	url = !entry->path && entry->url ? json_object_new_string(entry->url) : NULL;
	if (a.keep_files && entry->path) {
		kept = json_object_new_string(entry->path);
		if (!kept) {
			json_object_put(url);
			return -ENOMEM;
		}
	}
	r = a.keep_files ? catalog_forget(cat, id) : catalog_delete(cat, id);
	if (r < 0) {
		json_object_put(url);
		json_object_put(kept);
		/* A deletion that failed half way changed the entry (failed, what is left). */
		manager_catalog_changed(m);
		said = r != -ENOMEM ? catalog_deletion_text(entry) : NULL;
		r = proto_error_set(err, PROTO_ERR_INTERNAL, "snapshot %llu: %s",
				    (unsigned long long)id, said ? said : strerror(-r));
		free(said);
		return r;
	}
	r = catalog_save(cat);
	if (r < 0)
		log_warn_errno(r, "cannot save the catalog");
	log_info("snapshot %llu deleted by client %u (uid %u)%s%s%s%s%s%s", (unsigned long long)id,
		 caller->id, (unsigned)caller->uid,
		 url ? "; its files stay on the relayd host (" : "",
		 url ? json_object_get_string(url) : "", url ? ")" : "",
		 kept ? ", from the catalog alone: its files stay in " : "",
		 kept ? json_object_get_string(kept) : "", kept ? " (--keep-files)" : "");
	o = json_object_new_object();
	if (!o) {
		json_object_put(url);
		json_object_put(kept);
		return -ENOMEM;
	}
	r = 0;
	result_add_int(o, PROTO_KEY_ID, (int64_t)id, &r);
	result_add_bool(o, PROTO_KEY_DELETED, true, &r);
	if (url)
		result_add(o, PROTO_KEY_URL, url, &r);
	if (kept)
		result_add(o, PROTO_KEY_KEPT, kept, &r);
	return result_done(o, r, result);
}
