/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * "watch": the client receives events from now on (dispatch.c marks it): a "snapshot"
 * event per snapshot with its causes, "suppressed" per alert the rate limit refused, "lost"
 * when latencyd missed alert records.
 */
#include <errno.h>

#include <json-c/json.h>

#include "commands.h"

int cmd_watch(struct manager *m, const struct control_caller *caller, struct json_object *args,
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
	r = 0;
	result_add_bool(o, PROTO_KEY_RECORDING, m->recorder != NULL, &r);
	return result_done(o, r, result);
}
