/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * "set-threshold", "set-timeout": a tracker's threshold_ns or timeout_ns, written to sysfs
 * (runtime only: the configuration is not changed). The result echoes the value, the
 * previous one and "saved": false.
 */
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>

#include <json-c/json.h>

#include "latencyd.h"

struct set_args {
	const char *tracker;
	uint64_t value;
};

int tracker_set(struct manager *m, struct json_object *args, const char *file, uint64_t fixed,
		bool has_fixed, struct json_object **result, struct proto_error *err)
{
	const struct proto_field fields[] = {
		{PROTO_KEY_TRACKER, PROTO_FIELD_STRING, PROTO_FIELD_REQUIRED,
		 offsetof(struct set_args, tracker)},
		{has_fixed ? NULL : file, PROTO_FIELD_UINT, PROTO_FIELD_REQUIRED,
		 offsetof(struct set_args, value)},
		{NULL},
	};
	struct set_args a = {.value = fixed};
	struct json_object *o;
	uint64_t previous = 0;
	bool have_previous;
	int r;

	r = proto_fields_dispatch(args, fields, 0, &a, err);
	if (r < 0)
		return r;
	r = tracker_check(m, a.tracker, err);
	if (r < 0)
		return r;
	have_previous = tracker_read(m, a.tracker, file, &previous) == 0;
	r = tracker_write(m, a.tracker, file, a.value, err);
	if (r < 0)
		return r;
	log_info("tracker %s: %s set to %" PRIu64 " (runtime only)", a.tracker, file, a.value);

	o = json_object_new_object();
	if (!o)
		return -ENOMEM;
	result_add_string(o, PROTO_KEY_TRACKER, a.tracker, &r);
	if (has_fixed)
		result_add_bool(o, file, a.value != 0, &r);
	else
		result_add_int(o, file, (int64_t)a.value, &r);
	if (have_previous && has_fixed)
		result_add_bool(o, PROTO_KEY_PREVIOUS, previous != 0, &r);
	else if (have_previous)
		result_add_int(o, PROTO_KEY_PREVIOUS, (int64_t)previous, &r);
	result_add_bool(o, PROTO_KEY_SAVED, false, &r);
	return result_done(o, r, result);
}

int cmd_set_threshold(struct manager *m, const struct control_peer *peer, struct json_object *args,
		      struct json_object **result, struct proto_error *err)
{
	return tracker_set(m, args, PROTO_KEY_THRESHOLD_NS, 0, false, result, err);
}
