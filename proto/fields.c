/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Typed field tables: validate a JSON object against a table of {name, type, flags, offset}
 * and store each member into a C struct. The model is systemd's JSON dispatch tables.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include <json-c/json.h>

#include "proto.h"

static const char *const type_names[] = {
	[PROTO_FIELD_BOOL] = "a boolean",
	[PROTO_FIELD_INT] = "an integer",
	[PROTO_FIELD_UINT] = "a non-negative integer",
	[PROTO_FIELD_DOUBLE] = "a number",
	[PROTO_FIELD_STRING] = "a string",
	[PROTO_FIELD_OBJECT] = "an object",
	[PROTO_FIELD_ARRAY] = "an array",
	[PROTO_FIELD_ANY] = "a value",
};

static const struct proto_field *find_field(const struct proto_field *fields, const char *name)
{
	for (const struct proto_field *f = fields; f->name; f++)
		if (strcmp(f->name, name) == 0)
			return f;
	return NULL;
}

/*
 * Returns 0 when stored, -EINVAL when val does not have the field's type, -EILSEQ for a
 * string holding a NUL byte (\u0000): C reads it up to the NUL, so it would be cut silently,
 * -ERANGE for an integer above the field's range, -EOVERFLOW for one below it, -EDOM for a
 * double that is not finite. json-c keeps an integer past INT64_MAX as unsigned, where
 * json_object_get_int64() would say INT64_MAX, another number than was sent; and its parser
 * reads any integer past UINT64_MAX as UINT64_MAX, and any below INT64_MIN as INT64_MIN: those
 * two values could stand for any larger one, so they are refused too, as out of range
 * (PROTO_FIELD_CLAMPED takes them, for a field that reads every value past a bound alike).
 */
static int store(const struct proto_field *f, struct json_object *val, void *out)
{
	char *p = (char *)out + f->offset;
	enum json_type t = json_object_get_type(val);
	bool clamped = f->flags & PROTO_FIELD_CLAMPED;

	switch (f->type) {
	case PROTO_FIELD_BOOL:
		if (t != json_type_boolean)
			return -EINVAL;
		*(bool *)p = json_object_get_boolean(val);
		return 0;
	case PROTO_FIELD_INT:
		if (t != json_type_int)
			return -EINVAL;
		if (!clamped && json_object_get_int64(val) == INT64_MAX &&
		    json_object_get_uint64(val) != (uint64_t)INT64_MAX)
			return -ERANGE;
		if (!clamped && json_object_get_int64(val) == INT64_MIN)
			return -EOVERFLOW;
		*(int64_t *)p = json_object_get_int64(val);
		return 0;
	case PROTO_FIELD_UINT:
		if (t != json_type_int || json_object_get_int64(val) < 0)
			return -EINVAL;
		if (!clamped && json_object_get_uint64(val) == UINT64_MAX)
			return -ERANGE;
		*(uint64_t *)p = json_object_get_uint64(val);
		return 0;
	case PROTO_FIELD_DOUBLE:
		if (t != json_type_double && t != json_type_int)
			return -EINVAL;
		if (!isfinite(json_object_get_double(val)))
			return -EDOM;
		*(double *)p = json_object_get_double(val);
		return 0;
	case PROTO_FIELD_STRING:
		if (t != json_type_string)
			return -EINVAL;
		if (memchr(json_object_get_string(val), '\0',
			   (size_t)json_object_get_string_len(val)))
			return -EILSEQ;
		*(const char **)p = json_object_get_string(val);
		return 0;
	case PROTO_FIELD_OBJECT:
		if (t != json_type_object)
			return -EINVAL;
		*(struct json_object **)p = val;
		return 0;
	case PROTO_FIELD_ARRAY:
		if (t != json_type_array)
			return -EINVAL;
		*(struct json_object **)p = val;
		return 0;
	case PROTO_FIELD_ANY:
		*(struct json_object **)p = val;
		return 0;
	}
	return -EINVAL;
}

/*
 * Validates obj (NULL counts as an empty object) against fields and stores each member
 * present into out. Members left absent keep whatever out held: callers set defaults first.
 */
int proto_fields_dispatch(struct json_object *obj, const struct proto_field *fields, unsigned flags,
			  void *out, struct proto_error *err)
{
	if (obj && !json_object_is_type(obj, json_type_object))
		return proto_error_set(err, PROTO_ERR_BAD_ARGUMENT, "expected a JSON object");

	if (obj) {
		json_object_object_foreach(obj, name, val)
		{
			const struct proto_field *f = find_field(fields, name);
			int r;

			if (!f) {
				if (flags & PROTO_DISPATCH_ALLOW_UNKNOWN)
					continue;
				return proto_error_set(err, PROTO_ERR_BAD_ARGUMENT,
						       "unknown field '%s'", name);
			}
			if (!val && (f->flags & PROTO_FIELD_NULLABLE))
				continue;
			r = store(f, val, out);
			if (r == -EILSEQ)
				return proto_error_set(
					err, PROTO_ERR_BAD_ARGUMENT,
					"field '%s' must be a string without NUL bytes", name);
			if (r == -ERANGE && f->type == PROTO_FIELD_UINT)
				return proto_error_set(err, PROTO_ERR_BAD_ARGUMENT,
						       "field '%s' is too large (at most %" PRIu64
						       ")",
						       name, UINT64_MAX - 1);
			if (r == -ERANGE)
				return proto_error_set(err, PROTO_ERR_BAD_ARGUMENT,
						       "field '%s' is too large (at most %" PRId64
						       ")",
						       name, INT64_MAX);
			if (r == -EOVERFLOW)
				return proto_error_set(err, PROTO_ERR_BAD_ARGUMENT,
						       "field '%s' is too small (at least %" PRId64
						       ")",
						       name, INT64_MIN + 1);
			if (r == -EDOM)
				return proto_error_set(err, PROTO_ERR_BAD_ARGUMENT,
						       "field '%s' must be a finite number", name);
			if (r < 0)
				return proto_error_set(err, PROTO_ERR_BAD_ARGUMENT,
						       "field '%s' must be %s", name,
						       type_names[f->type]);
		}
	}

	for (const struct proto_field *f = fields; f->name; f++) {
		struct json_object *val;

		if (!(f->flags & PROTO_FIELD_REQUIRED))
			continue;
		if (!obj || !json_object_object_get_ex(obj, f->name, &val) ||
		    (!val && (f->flags & PROTO_FIELD_NULLABLE)))
			return proto_error_set(err, PROTO_ERR_BAD_ARGUMENT,
					       "missing required field '%s'", f->name);
	}
	return 0;
}
