/* SPDX-License-Identifier: GPL-2.0-only */
/* JSON output: the daemon's result object as it came, pretty-printed, for jq and scripts. */
#include <stdio.h>

#include <json-c/json.h>

#include "latencyctl.h"

#define PRINT_FLAGS                                                                                \
	(JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED | JSON_C_TO_STRING_NOSLASHESCAPE)

static int print_result(struct json_object *result)
{
	puts(json_object_to_json_string_ext(result, PRINT_FLAGS));
	return EXIT_OK;
}

static int print_tracker_set(struct json_object *result, const char *file)
{
	return print_result(result);
}

/* Errors go to stdout as {"error":{"code":...,"message":...}} so that scripts see them too. */
static void print_error(const char *command, const char *code, const char *message)
{
	struct json_object *o = json_object_new_object(), *e = json_object_new_object();

	if (!o || !e) {
		fprintf(stderr, "latencyctl: %s: %s: %s\n", command, code, message);
		json_object_put(o);
		json_object_put(e);
		return;
	}
	json_object_object_add(e, PROTO_KEY_CODE, json_object_new_string(code));
	json_object_object_add(e, PROTO_KEY_MESSAGE, json_object_new_string(message));
	json_object_object_add(o, PROTO_KEY_ERROR, e);
	puts(json_object_to_json_string_ext(o, PRINT_FLAGS));
	json_object_put(o);
}

const struct output output_json = {
	.name = "json",
	.status = print_result,
	.version = print_result,
	.trackers = print_result,
	.tracker_set = print_tracker_set,
	.snapshots = print_result,
	.snapshot = print_result,
	.snapshot_deleted = print_result,
	.error = print_error,
};
