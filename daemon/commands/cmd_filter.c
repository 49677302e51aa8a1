/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * "filter": a tracker's task filter (filter_tgid, filter_tid, filter_comm, filter_cgroup_id
 * in sysfs), runtime only like set-threshold unless "save". Only the fields given change;
 * "clear" resets all four first. A cgroup is a v2 path or an id, resolved here (cgroup.c).
 * Saving keeps comm and cgroup (trackers.NAME.filter_comm, filter_cgroup); process ids do not
 * outlive the processes, so a pid or tid filter is never saved.
 */
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <json-c/json.h>

#include "commands.h"

struct filter_args {
	const char *tracker;
	uint64_t pid, tid;
	const char *comm, *cgroup;
	bool clear, save;
};

/* What of the filter goes to the saved-settings file: comm and cgroup, as given. */
static size_t saved_changes(const struct filter_args *a, struct saved_change *ch)
{
	size_t n = 0;

	if (a->comm || a->clear) {
		snprintf(ch[n].key, sizeof(ch[n].key), "trackers.%s.filter_comm", a->tracker);
		ch[n++].value = a->comm ?: "";
	}
	if (a->cgroup || a->clear) {
		snprintf(ch[n].key, sizeof(ch[n].key), "trackers.%s.filter_cgroup", a->tracker);
		ch[n++].value = a->cgroup ?: "";
	}
	return n;
}

/* The pid or tid KEY, V: UINT64_MAX when not given, but a client may send that too, so
 * whether it was given is ARGS's to say. */
static int id_check(struct json_object *args, const char *key, uint64_t v, struct proto_error *err)
{
	if (!json_object_object_get_ex(args, key, NULL) || v <= PROTO_PID_MAX)
		return 0;
	return proto_error_set(err, PROTO_ERR_BAD_ARGUMENT,
			       "field '%s' must be a %s from 0 (any) to %" PRIu64 ", not %" PRIu64,
			       key, strcmp(key, PROTO_KEY_PID) == 0 ? "process id" : "thread id",
			       PROTO_PID_MAX, v);
}

int cmd_filter(struct manager *m, const struct control_caller *caller, struct json_object *args,
	       struct json_object **result, struct proto_error *err)
{
	static const struct proto_field fields[] = {
		{PROTO_KEY_TRACKER, PROTO_FIELD_STRING, PROTO_FIELD_REQUIRED,
		 offsetof(struct filter_args, tracker)},
		{PROTO_KEY_PID, PROTO_FIELD_UINT, 0, offsetof(struct filter_args, pid)},
		{PROTO_KEY_TID, PROTO_FIELD_UINT, 0, offsetof(struct filter_args, tid)},
		{PROTO_KEY_COMM, PROTO_FIELD_STRING, 0, offsetof(struct filter_args, comm)},
		{PROTO_KEY_CGROUP, PROTO_FIELD_STRING, 0, offsetof(struct filter_args, cgroup)},
		{PROTO_KEY_CLEAR, PROTO_FIELD_BOOL, 0, offsetof(struct filter_args, clear)},
		{PROTO_KEY_SAVE, PROTO_FIELD_BOOL, 0, offsetof(struct filter_args, save)},
		{NULL},
	};
	struct filter_args a = {.pid = UINT64_MAX, .tid = UINT64_MAX};
	char text[64], why[256];
	struct saved_change ch[2];
	struct json_object *o;
	uint64_t id = 0;
	size_t n = 0;
	int r;

	r = proto_fields_dispatch(args, fields, 0, &a, err);
	if (r < 0 || (r = id_check(args, PROTO_KEY_PID, a.pid, err)) < 0 ||
	    (r = id_check(args, PROTO_KEY_TID, a.tid, err)) < 0 ||
	    (r = tracker_check(m, a.tracker, err)) < 0)
		return r;
	if (a.cgroup && cgroup_resolve(a.cgroup, &id, why, sizeof(why)) < 0)
		return proto_error_set(err, PROTO_ERR_BAD_ARGUMENT, "%s", why);
	if (a.comm && (strlen(a.comm) >= LATENCY_TRACKER_COMM_LEN || strchr(a.comm, '\n')))
		return proto_error_set(err, PROTO_ERR_BAD_ARGUMENT,
				       "'%s' is not a task name (at most %d bytes)", a.comm,
				       LATENCY_TRACKER_COMM_LEN - 1);
	if (a.save && (a.pid != UINT64_MAX || a.tid != UINT64_MAX))
		return proto_error_set(err, PROTO_ERR_BAD_ARGUMENT,
				       "a %s filter cannot be saved: process ids do not survive "
				       "a restart (save comm or cgroup filters)",
				       a.pid != UINT64_MAX ? "pid" : "tid");
	if (a.save) {
		n = saved_changes(&a, ch);
		r = saved_check(m, ch, n, err);
		if (r < 0)
			return r;
	}
	if (a.clear) {
		static const char *const files[] = {"filter_tgid", "filter_tid",
						    "filter_cgroup_id"};

		for (size_t i = 0; i < sizeof(files) / sizeof(files[0]) && r >= 0; i++)
			r = tracker_write(m, a.tracker, files[i], 0, err);
		if (r >= 0)
			r = tracker_write_text(m, a.tracker, "filter_comm", "\n", err);
	}
	if (r >= 0 && a.pid != UINT64_MAX)
		r = tracker_write(m, a.tracker, "filter_tgid", a.pid, err);
	if (r >= 0 && a.tid != UINT64_MAX)
		r = tracker_write(m, a.tracker, "filter_tid", a.tid, err);
	if (r >= 0 && a.comm) {
		snprintf(text, sizeof(text), "%s\n", a.comm);
		r = tracker_write_text(m, a.tracker, "filter_comm", text, err);
	}
	if (r >= 0 && a.cgroup)
		r = tracker_write(m, a.tracker, "filter_cgroup_id", id, err);
	if (r >= 0 && a.save)
		r = saved_store(m, ch, n, err);
	if (r < 0)
		return r;
	/* A cgroup path saved is part of the configuration: followed as one read from it. */
	if (a.save && (a.cgroup || a.clear)) {
		trackers_cgroup_saved(a.tracker, id);
		manager_cgroup_watch(m);
	}
	log_info("tracker %s: filter changed by client %u (%s)", a.tracker, caller->id,
		 a.save ? "saved" : "runtime only");
	o = json_object_new_object();
	if (!o)
		return -ENOMEM;
	result_add_string(o, PROTO_KEY_TRACKER, a.tracker, &r);
	result_add(o, PROTO_KEY_FILTER, tracker_filter_json(m, a.tracker), &r);
	result_add_bool(o, PROTO_KEY_SAVED, a.save, &r);
	if (a.save)
		result_add_string(o, PROTO_KEY_SAVED_FILE, m->conf->control.save_file, &r);
	return result_done(o, r, result);
}
