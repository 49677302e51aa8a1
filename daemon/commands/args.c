/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The argument checks the commands share; not in table.c, which calls the commands, so that
 * calls between the files go one way.
 */
#include <json-c/json.h>

#include "commands.h"

int args_none(struct json_object *args, struct proto_error *err)
{
	static const struct proto_field none[] = {
		{NULL},
	};

	return proto_fields_dispatch(args, none, 0, NULL, err);
}
