/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Building command results. Each adder takes a sticky error: once *r is negative, later
 * calls do nothing, so a handler adds all its fields and checks once.
 */
#include <errno.h>

#include <json-c/json.h>

#include "result.h"

void result_add(struct json_object *o, const char *key, struct json_object *val, int *r)
{
	if (*r < 0 || !val || json_object_object_add(o, key, val) < 0) {
		json_object_put(val);
		if (*r >= 0)
			*r = -ENOMEM;
	}
}

void result_add_string(struct json_object *o, const char *key, const char *val, int *r)
{
	result_add(o, key, *r < 0 ? NULL : json_object_new_string(val), r);
}

void result_add_int(struct json_object *o, const char *key, int64_t val, int *r)
{
	result_add(o, key, *r < 0 ? NULL : json_object_new_int64(val), r);
}

void result_add_bool(struct json_object *o, const char *key, bool val, int *r)
{
	result_add(o, key, *r < 0 ? NULL : json_object_new_boolean(val), r);
}

/* The end of a handler: *result gets o, or o goes and the error is returned. */
int result_done(struct json_object *o, int r, struct json_object **result)
{
	if (r < 0 || !o) {
		json_object_put(o);
		return r < 0 ? r : -ENOMEM;
	}
	*result = o;
	return 0;
}
