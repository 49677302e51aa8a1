/* SPDX-License-Identifier: GPL-2.0-only */
/* "enable": writes 1 to a tracker's enabled file, runtime only unless saved; see cmd_set_threshold.c. */
#include "commands.h"

int cmd_enable(struct manager *m, const struct control_caller *caller, struct json_object *args,
	       struct json_object **result, struct proto_error *err)
{
	return tracker_set(m, args, PROTO_KEY_ENABLED, 1, true, result, err);
}
