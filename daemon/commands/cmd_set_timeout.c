/* SPDX-License-Identifier: GPL-2.0-only */
/* "set-timeout": a tracker's timeout_ns (0 = off), runtime only unless saved; see cmd_set_threshold.c. */
#include "commands.h"

int cmd_set_timeout(struct manager *m, const struct control_caller *caller,
		    struct json_object *args, struct json_object **result, struct proto_error *err)
{
	return tracker_set(m, args, PROTO_KEY_TIMEOUT_NS, 0, false, result, err);
}
