/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * JSON output: the daemon's result object as it came, pretty-printed, for jq and scripts;
 * what may come as several objects (watch's events, metrics' parts), and errors, one per
 * line.
 */
#include <stdio.h>
#include <string.h>

#include <json-c/json.h>

#include "latencyctl.h"

#define PRINT_FLAGS                                                                                \
	(JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED | JSON_C_TO_STRING_NOSLASHESCAPE)

static int print_result(struct json_object *result)
{
	return stdout_puts(json_object_to_json_string_ext(result, PRINT_FLAGS), true);
}

/* watch's events, metrics' parts: one object per line, as the man page says. */
static int print_line(struct json_object *result)
{
	return stdout_puts(json_object_to_json_string_ext(
				   result, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE),
			   true);
}

static int print_tracker_set(struct json_object *result, const char *file)
{
	return print_result(result);
}

/* watch: JSON lines, {"event": NAME, "data": {...}} each. */
static int print_event(const char *name, struct json_object *data)
{
	struct json_object *o = json_object_new_object();

	if (!o)
		return EXIT_CONNECT;
	json_object_object_add(o, PROTO_KEY_EVENT, json_object_new_string(name));
	json_object_object_add(o, PROTO_KEY_DATA, json_object_get(data));
	print_line(o);
	json_object_put(o);
	return EXIT_OK; /* flushed by watch, which stops when it fails (stdout_check()) */
}

/* record: the snapshot, or {"suppressed": alert}. */
static int print_recorded(const char *name, struct json_object *data)
{
	struct json_object *v = NULL;

	if (strcmp(name, PROTO_EVENT_SUPPRESSED) == 0) {
		json_object_object_get_ex(data, PROTO_KEY_ALERT, &v);
		data = json_object_new_object();
		if (data)
			json_object_object_add(data, PROTO_KEY_SUPPRESSED, json_object_get(v));
		print_result(data);
		json_object_put(data);
		return EXIT_DAEMON;
	}
	print_result(data);
	return json_object_object_get_ex(data, PROTO_KEY_ERROR, &v) ? EXIT_DAEMON : EXIT_OK;
}

/*
 * Errors go to stdout as {"error":{"code":...,"message":...}} so that scripts see them too,
 * on one line: one may end a stream of objects a line each (watch --json), where a
 * pretty-printed one would not parse line by line.
 */
static void print_error(const char *command, const char *code, const char *message)
{
	struct json_object *o = json_object_new_object(), *e = json_object_new_object();

	if (!o || !e) {
		output_text.error(command, code, message); /* cleaned for a terminal */
		json_object_put(o);
		json_object_put(e);
		return;
	}
	json_object_object_add(e, PROTO_KEY_CODE, json_object_new_string(code));
	json_object_object_add(e, PROTO_KEY_MESSAGE, json_object_new_string(message));
	json_object_object_add(o, PROTO_KEY_ERROR, e);
	print_line(o);
	json_object_put(o);
}

const struct output output_json = {
	.name = "json",
	.status = print_result,
	.version = print_result,
	.trackers = print_result,
	.tracker_set = print_tracker_set,
	.snapshots = print_result,
	.incidents = print_result,
	.metrics = print_line,
	.hist = print_result,
	.snapshot = print_result,
	.snapshot_deleted = print_result,
	.event = print_event,
	.recorded = print_recorded,
	.config = print_result,
	.reloaded = print_result,
	.filter = print_result,
	.error = print_error,
};
