/* SPDX-License-Identifier: GPL-2.0-only */
/* "version": what this latencyd is and speaks: its version, protocol and module ABI. */
#include <errno.h>

#include <json-c/json.h>
#include <latency_tracker.h>

#include "commands.h"

int cmd_version(struct manager *m, const struct control_caller *caller, struct json_object *args,
		struct json_object **result, struct proto_error *err)
{
	struct json_object *o;
	int r;

	r = args_none(args, err);
	if (r < 0)
		return r;

	o = json_object_new_object();
	if (!o)
		return -ENOMEM;
	result_add_string(o, PROTO_KEY_VERSION, LATENCYD_VERSION, &r);
	result_add_int(o, PROTO_KEY_PROTOCOL, PROTO_VERSION, &r);
	result_add_int(o, PROTO_KEY_REVISION, PROTO_REVISION, &r);
	result_add_int(o, PROTO_KEY_ABI_MAJOR, LATENCY_TRACKER_ABI_MAJOR, &r);
	result_add_int(o, PROTO_KEY_ABI_MINOR, LATENCY_TRACKER_ABI_MINOR, &r);
	return result_done(o, r, result);
}
