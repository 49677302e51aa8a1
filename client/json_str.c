/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A string member of a reply, read as a string only: json_object_get_string() gives NULL
 * for a null (a crash in strcmp, "(null)" or worse in printf) and the JSON text of any other
 * type, which a broken or newer latencyd must not pass off as a name.
 */
#include <json-c/json.h>

#include "latencyctl.h"

const char *json_str(struct json_object *v, const char *dflt)
{
	return json_object_is_type(v, json_type_string) ? json_object_get_string(v) : dflt;
}
