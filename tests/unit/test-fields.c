/* SPDX-License-Identifier: GPL-2.0-only */
/* proto/fields.c: typed field tables accept what they declare and name what they refuse. */
#include <errno.h>
#include <stddef.h>

#include <json-c/json.h>

#include "proto.h"
#include "tests.h"

struct args {
	bool flag;
	int64_t count;
	uint64_t size;
	double ratio;
	const char *name;
	struct json_object *opts, *list, *any;
};

static const struct proto_field fields[] = {
	{"flag", PROTO_FIELD_BOOL, 0, offsetof(struct args, flag)},
	{"count", PROTO_FIELD_INT, 0, offsetof(struct args, count)},
	{"size", PROTO_FIELD_UINT, 0, offsetof(struct args, size)},
	{"ratio", PROTO_FIELD_DOUBLE, 0, offsetof(struct args, ratio)},
	{"name", PROTO_FIELD_STRING, PROTO_FIELD_REQUIRED, offsetof(struct args, name)},
	{"opts", PROTO_FIELD_OBJECT, PROTO_FIELD_NULLABLE, offsetof(struct args, opts)},
	{"list", PROTO_FIELD_ARRAY, 0, offsetof(struct args, list)},
	{"any", PROTO_FIELD_ANY, 0, offsetof(struct args, any)},
	{NULL},
};

static int dispatch(const char *json, unsigned flags, struct args *a, struct proto_error *err)
{
	struct json_object *o = json_tokener_parse(json);
	int r;

	ASSERT_TRUE(o);
	*a = (struct args){.count = -1, .ratio = -1};
	memset(err, 0, sizeof(*err));
	r = proto_fields_dispatch(o, fields, flags, a, err);
	/* Strings and objects are borrowed: only check them while o lives. */
	if (r == 0 && a->name)
		ASSERT_TRUE(strlen(a->name) < 64);
	json_object_put(o);
	return r;
}

static void test_all_types(void)
{
	struct json_object *o = json_tokener_parse(
		"{\"flag\":true,\"count\":-7,\"size\":9000000000,\"ratio\":0.25,\"name\":\"n\","
		"\"opts\":{\"a\":1},\"list\":[1],\"any\":\"s\"}");
	struct proto_error err = {0};
	struct args a = {0};

	ASSERT_EQ(proto_fields_dispatch(o, fields, 0, &a, &err), 0);
	ASSERT_EQ(err.code, PROTO_ERR_NONE);
	ASSERT_TRUE(a.flag);
	ASSERT_EQ(a.count, -7);
	ASSERT_EQ(a.size, 9000000000LL);
	ASSERT_TRUE(a.ratio == 0.25);
	ASSERT_STREQ(a.name, "n");
	ASSERT_EQ(json_object_object_length(a.opts), 1);
	ASSERT_EQ(json_object_array_length(a.list), 1);
	ASSERT_STREQ(json_object_get_string(a.any), "s");
	json_object_put(o);
}

static void test_defaults_kept(void)
{
	struct proto_error err;
	struct args a;

	/* Absent optional fields keep what the caller put there. */
	ASSERT_EQ(dispatch("{\"name\":\"x\"}", 0, &a, &err), 0);
	ASSERT_EQ(a.count, -1);
	ASSERT_TRUE(a.ratio == -1);
	ASSERT_TRUE(a.opts == NULL);

	/* An integer is a fine double. */
	ASSERT_EQ(dispatch("{\"name\":\"x\",\"ratio\":2}", 0, &a, &err), 0);
	ASSERT_TRUE(a.ratio == 2.0);

	/* null for a nullable field means absent. */
	ASSERT_EQ(dispatch("{\"name\":\"x\",\"opts\":null}", 0, &a, &err), 0);
	ASSERT_TRUE(a.opts == NULL);
}

static void test_refused(void)
{
	static const struct {
		const char *json;
		const char *message;
	} bad[] = {
		{"{\"name\":\"x\",\"colour\":1}", "unknown field 'colour'"},
		{"{\"name\":1}", "field 'name' must be a string"},
		{"{\"name\":\"x\",\"count\":\"3\"}", "field 'count' must be an integer"},
		{"{\"name\":\"x\",\"count\":1.5}", "field 'count' must be an integer"},
		{"{\"name\":\"x\",\"size\":-1}", "field 'size' must be a non-negative integer"},
		{"{\"name\":\"x\",\"flag\":1}", "field 'flag' must be a boolean"},
		{"{\"name\":\"x\",\"ratio\":\"0.5\"}", "field 'ratio' must be a number"},
		{"{\"name\":\"x\",\"opts\":[]}", "field 'opts' must be an object"},
		{"{\"name\":\"x\",\"list\":{}}", "field 'list' must be an array"},
		{"{\"name\":\"x\",\"count\":null}", "field 'count' must be an integer"},
		{"{}", "missing required field 'name'"},
		{"{\"count\":1}", "missing required field 'name'"},
		/* Never cut at the NUL: "a" is not what was sent. */
		{"{\"name\":\"a\\u0000b\"}", "field 'name' must be a string without NUL bytes"},
		{"{\"name\":\"\\u0000\"}", "field 'name' must be a string without NUL bytes"},
		/* Not read as INT64_MAX, another number than was sent. */
		{"{\"name\":\"x\",\"count\":9223372036854775808}",
		 "field 'count' is too large (at most 9223372036854775807)"},
		{"{\"name\":\"x\",\"count\":18446744073709551616}",
		 "field 'count' is too large (at most 9223372036854775807)"},
		/* json-c reads any integer below INT64_MIN as INT64_MIN, and any past UINT64_MAX
		 * as UINT64_MAX: those two could be any larger number. */
		{"{\"name\":\"x\",\"count\":-9223372036854775809}",
		 "field 'count' is too small (at least -9223372036854775807)"},
		{"{\"name\":\"x\",\"count\":-9223372036854775808}",
		 "field 'count' is too small (at least -9223372036854775807)"},
		{"{\"name\":\"x\",\"size\":18446744073709551616}",
		 "field 'size' is too large (at most 18446744073709551614)"},
		{"{\"name\":\"x\",\"size\":18446744073709551615}",
		 "field 'size' is too large (at most 18446744073709551614)"},
		{"{\"name\":\"x\",\"size\":99999999999999999999999}",
		 "field 'size' is too large (at most 18446744073709551614)"},
		/* json-c reads 1e400 as infinity, and NaN and Infinity as such. */
		{"{\"name\":\"x\",\"ratio\":1e400}", "field 'ratio' must be a finite number"},
		{"{\"name\":\"x\",\"ratio\":-1e400}", "field 'ratio' must be a finite number"},
		{"{\"name\":\"x\",\"ratio\":NaN}", "field 'ratio' must be a finite number"},
		{"{\"name\":\"x\",\"ratio\":Infinity}", "field 'ratio' must be a finite number"},
	};
	struct proto_error err;
	struct args a;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ASSERT_EQ(dispatch(bad[i].json, 0, &a, &err), -EINVAL);
		ASSERT_EQ(err.code, PROTO_ERR_BAD_ARGUMENT);
		ASSERT_STREQ(err.message, bad[i].message);
	}

	/* The largest that fits is taken as it is, and so are the bounds json-c cannot reach
	 * by clamping. */
	ASSERT_EQ(dispatch("{\"name\":\"x\",\"count\":9223372036854775807}", 0, &a, &err), 0);
	ASSERT_EQ(a.count, INT64_MAX);
	ASSERT_EQ(dispatch("{\"name\":\"x\",\"count\":-9223372036854775807}", 0, &a, &err), 0);
	ASSERT_EQ(a.count, INT64_MIN + 1);
	ASSERT_EQ(dispatch("{\"name\":\"x\",\"size\":18446744073709551614}", 0, &a, &err), 0);
	ASSERT_TRUE(a.size == UINT64_MAX - 1);
	ASSERT_EQ(dispatch("{\"name\":\"x\",\"ratio\":1e308}", 0, &a, &err), 0);
	ASSERT_TRUE(a.ratio == 1e308);

	/* Unknown fields pass when the caller asks for leniency; mistyped ones never do. */
	ASSERT_EQ(dispatch("{\"name\":\"x\",\"colour\":1}", PROTO_DISPATCH_ALLOW_UNKNOWN, &a, &err),
		  0);
	ASSERT_EQ(dispatch("{\"name\":2,\"colour\":1}", PROTO_DISPATCH_ALLOW_UNKNOWN, &a, &err),
		  -EINVAL);
}

/* PROTO_FIELD_CLAMPED: a field that reads every value past a bound alike takes them. */
static void test_clamped(void)
{
	static const struct proto_field clamped[] = {
		{"count", PROTO_FIELD_INT, PROTO_FIELD_CLAMPED, offsetof(struct args, count)},
		{"size", PROTO_FIELD_UINT, PROTO_FIELD_CLAMPED, offsetof(struct args, size)},
		{NULL},
	};
	struct json_object *o = json_tokener_parse(
		"{\"count\":-99999999999999999999,\"size\":99999999999999999999}");
	struct proto_error err = {0};
	struct args a = {0};

	ASSERT_TRUE(o);
	ASSERT_EQ(proto_fields_dispatch(o, clamped, 0, &a, &err), 0);
	ASSERT_EQ(a.count, INT64_MIN);
	ASSERT_TRUE(a.size == UINT64_MAX);
	json_object_put(o);
	o = json_tokener_parse("{\"count\":99999999999999999999}");
	ASSERT_EQ(proto_fields_dispatch(o, clamped, 0, &a, &err), 0);
	ASSERT_EQ(a.count, INT64_MAX);
	json_object_put(o);
}

static void test_not_an_object(void)
{
	static const struct proto_field none[] = {{NULL}};
	struct json_object *arr = json_object_new_array();
	struct proto_error err = {0};
	struct args a = {0};

	ASSERT_EQ(proto_fields_dispatch(arr, none, 0, NULL, &err), -EINVAL);
	ASSERT_STREQ(err.message, "expected a JSON object");
	json_object_put(arr);

	/* NULL (absent args) is an empty object: fine unless something is required. */
	ASSERT_EQ(proto_fields_dispatch(NULL, none, 0, NULL, &err), 0);
	ASSERT_EQ(proto_fields_dispatch(NULL, fields, 0, &a, &err), -EINVAL);
	ASSERT_STREQ(err.message, "missing required field 'name'");
}

int main(void)
{
	RUN(test_all_types);
	RUN(test_defaults_kept);
	RUN(test_refused);
	RUN(test_clamped);
	RUN(test_not_an_object);
	return 0;
}
