/* SPDX-License-Identifier: GPL-2.0-only */
/* proto/message.c and error.c: hello, request, reply, error and event round trips. */
#include <errno.h>

#include <json-c/json.h>

#include "proto.h"
#include "tests.h"

#define PLAIN (JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE)

static struct json_object *parse(const char *s)
{
	struct json_object *o = json_tokener_parse(s);

	ASSERT_TRUE(o);
	return o;
}

static void assert_wire(struct json_object *msg, const char *expected)
{
	ASSERT_STREQ(json_object_to_json_string_ext(msg, PLAIN), expected);
}

static void test_errcodes(void)
{
	static const char *const names[] = {
		[PROTO_ERR_BAD_REQUEST] = "bad-request",
		[PROTO_ERR_UNKNOWN_COMMAND] = "unknown-command",
		[PROTO_ERR_BAD_ARGUMENT] = "bad-argument",
		[PROTO_ERR_NOT_AUTHORIZED] = "not-authorized",
		[PROTO_ERR_TOO_LARGE] = "too-large",
		[PROTO_ERR_INTERNAL] = "internal",
		[PROTO_ERR_UNSUPPORTED_VERSION] = "unsupported-version",
		[PROTO_ERR_BUSY] = "busy",
	};
	struct proto_error err;

	/* The wire names are stable: this list only grows. */
	for (int i = PROTO_ERR_BAD_REQUEST; i <= PROTO_ERR_BUSY; i++) {
		ASSERT_STREQ(proto_errcode_to_string((enum proto_errcode)i), names[i]);
		ASSERT_EQ(proto_errcode_from_string(names[i]), i);
		ASSERT_TRUE(proto_errcode_to_errno((enum proto_errcode)i) < 0);
	}
	ASSERT_TRUE(proto_errcode_to_string(PROTO_ERR_NONE) == NULL);
	ASSERT_TRUE(proto_errcode_to_string(PROTO_ERR_UNRECOGNIZED) == NULL);
	ASSERT_EQ(proto_errcode_from_string("from-the-future"), PROTO_ERR_UNRECOGNIZED);
	ASSERT_EQ(proto_errcode_from_string(NULL), PROTO_ERR_UNRECOGNIZED);

	ASSERT_EQ(proto_error_set(&err, PROTO_ERR_NOT_AUTHORIZED, "uid %d", 42), -EPERM);
	ASSERT_EQ(err.code, PROTO_ERR_NOT_AUTHORIZED);
	ASSERT_STREQ(err.message, "uid 42");
	ASSERT_EQ(proto_error_set(NULL, PROTO_ERR_TOO_LARGE, "x"), -EMSGSIZE);
}

static void test_hello(void)
{
	struct proto_hello in = {.protocol = PROTO_VERSION, .revision = 3, .client = "latencyctl"};
	struct proto_hello out;
	struct proto_error err = {0};
	struct json_object *msg;

	ASSERT_EQ(proto_hello_new(&in, &msg), 0);
	assert_wire(msg, "{\"hello\":{\"protocol\":1,\"revision\":3,\"client\":\"latencyctl\"}}");
	ASSERT_EQ(proto_message_kind(msg), PROTO_MSG_HELLO);
	ASSERT_EQ(proto_hello_parse(msg, &out, &err), 0);
	ASSERT_EQ(out.protocol, PROTO_VERSION);
	ASSERT_EQ(out.revision, 3);
	ASSERT_STREQ(out.client, "latencyctl");
	ASSERT_TRUE(out.server == NULL);
	ASSERT_EQ(proto_hello_check(&out, &err), 0);
	json_object_put(msg);

	/* Another major protocol version is refused with unsupported-version. */
	msg = parse("{\"hello\":{\"protocol\":2,\"client\":\"future\"}}");
	ASSERT_EQ(proto_hello_parse(msg, &out, &err), 0);
	ASSERT_EQ(out.revision, 0);
	ASSERT_EQ(proto_hello_check(&out, &err), -EPROTONOSUPPORT);
	ASSERT_EQ(err.code, PROTO_ERR_UNSUPPORTED_VERSION);
	ASSERT_CONTAINS(err.message, "protocol version 2");
	json_object_put(msg);

	/* Unknown members of the body are ignored (later revisions add some). */
	msg = parse("{\"hello\":{\"protocol\":1,\"features\":[\"x\"]}}");
	ASSERT_EQ(proto_hello_parse(msg, &out, &err), 0);
	json_object_put(msg);

	msg = parse("{\"hello\":{\"client\":\"x\"}}");
	ASSERT_TRUE(proto_hello_parse(msg, &out, &err) < 0);
	ASSERT_EQ(err.code, PROTO_ERR_BAD_REQUEST);
	ASSERT_CONTAINS(err.message, "missing required field 'protocol'");
	json_object_put(msg);

	msg = parse("{\"hello\":{\"protocol\":\"1\"}}");
	ASSERT_TRUE(proto_hello_parse(msg, &out, &err) < 0);
	ASSERT_CONTAINS(err.message, "field 'protocol' must be an integer");
	json_object_put(msg);

	msg = parse("{\"hello\":1}");
	ASSERT_TRUE(proto_hello_parse(msg, &out, &err) < 0);
	ASSERT_CONTAINS(err.message, "'hello' must be an object");
	json_object_put(msg);
}

static void test_request(void)
{
	struct proto_error err = {0};
	struct proto_request req;
	struct json_object *msg;

	ASSERT_EQ(proto_request_new(7, "status", json_object_new_object(), &msg), 0);
	assert_wire(msg, "{\"id\":7,\"command\":\"status\",\"args\":{}}");
	ASSERT_EQ(proto_message_kind(msg), PROTO_MSG_REQUEST);
	ASSERT_EQ(proto_request_parse(msg, &req, &err), 0);
	ASSERT_EQ(req.id, 7);
	ASSERT_STREQ(req.command, "status");
	ASSERT_TRUE(req.args && json_object_is_type(req.args, json_type_object));
	json_object_put(msg);

	ASSERT_EQ(proto_request_new(0, "version", NULL, &msg), 0);
	assert_wire(msg, "{\"id\":0,\"command\":\"version\"}");
	ASSERT_EQ(proto_request_parse(msg, &req, &err), 0);
	ASSERT_TRUE(req.args == NULL);
	json_object_put(msg);
	ASSERT_EQ(proto_request_new(-1, "version", NULL, &msg), -EINVAL);

	static const struct {
		const char *json;
		int64_t id;
		const char *error;
	} bad[] = {
		{"{\"command\":\"status\"}", PROTO_ID_NONE, "missing required field 'id'"},
		{"{\"id\":\"1\",\"command\":\"status\"}", PROTO_ID_NONE, "field 'id' must be"},
		{"{\"id\":-4,\"command\":\"status\"}", PROTO_ID_NONE, "non-negative"},
		{"{\"id\":5,\"command\":3}", 5, "field 'command' must be a string"},
		{"{\"id\":6,\"command\":\"status\",\"args\":[]}", 6,
		 "field 'args' must be an object"},
		{"{\"id\":8,\"command\":\"status\",\"extra\":1}", 8, "unknown field 'extra'"},
		/* Past INT64_MAX, json-c's int64 reads saturate: never taken as INT64_MAX. */
		{"{\"id\":9223372036854775808,\"command\":\"status\"}", PROTO_ID_NONE,
		 "request: field 'id' must be a non-negative integer, at most 9223372036854775807"},
		{"{\"id\":18446744073709551616,\"command\":\"status\"}", PROTO_ID_NONE,
		 "field 'id' must be a non-negative integer"},
		{"{\"id\":9223372036854775808,\"command\":3}", PROTO_ID_NONE,
		 "field 'command' must be a string"},
		{"{\"id\":1.5,\"command\":\"status\"}", PROTO_ID_NONE, "field 'id' must be"},
		{"{\"id\":9,\"command\":\"sta\\u0000tus\"}", 9,
		 "field 'command' must be a string without NUL bytes"},
	};
	/* The largest id there is. */
	msg = parse("{\"id\":9223372036854775807,\"command\":\"status\"}");
	ASSERT_EQ(proto_request_parse(msg, &req, &err), 0);
	ASSERT_EQ(req.id, INT64_MAX);
	json_object_put(msg);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		msg = parse(bad[i].json);
		ASSERT_EQ(proto_request_parse(msg, &req, &err), -EBADMSG);
		ASSERT_EQ(err.code, PROTO_ERR_BAD_REQUEST);
		ASSERT_EQ(req.id, bad[i].id);
		ASSERT_CONTAINS(err.message, bad[i].error);
		json_object_put(msg);
	}
}

static void test_reply(void)
{
	struct proto_error err = {0}, e = {0};
	struct proto_reply rep;
	struct json_object *msg, *result = json_object_new_object();

	json_object_object_add(result, "pid", json_object_new_int(42));
	ASSERT_EQ(proto_reply_new(3, result, &msg), 0);
	assert_wire(msg, "{\"id\":3,\"ok\":true,\"result\":{\"pid\":42}}");
	ASSERT_EQ(proto_message_kind(msg), PROTO_MSG_REPLY);
	ASSERT_EQ(proto_reply_parse(msg, &rep, &err), 0);
	ASSERT_EQ(rep.id, 3);
	ASSERT_TRUE(rep.ok);
	ASSERT_EQ(json_object_get_int(json_object_object_get(rep.result, "pid")), 42);
	json_object_put(msg);

	proto_error_set(&e, PROTO_ERR_BAD_ARGUMENT, "unknown field '%s'", "x");
	ASSERT_EQ(proto_reply_error_new(9, &e, &msg), 0);
	assert_wire(msg, "{\"id\":9,\"ok\":false,\"error\":{\"code\":\"bad-argument\","
			 "\"message\":\"unknown field 'x'\"}}");
	ASSERT_EQ(proto_reply_parse(msg, &rep, &err), 0);
	ASSERT_EQ(rep.id, 9);
	ASSERT_TRUE(!rep.ok);
	ASSERT_EQ(rep.code, PROTO_ERR_BAD_ARGUMENT);
	ASSERT_STREQ(rep.code_name, "bad-argument");
	ASSERT_STREQ(rep.message, "unknown field 'x'");
	json_object_put(msg);

	/* An error about a message without a usable id carries "id":null. */
	proto_error_set(&e, PROTO_ERR_TOO_LARGE, "frame exceeds 65536 bytes");
	ASSERT_EQ(proto_reply_error_new(PROTO_ID_NONE, &e, &msg), 0);
	assert_wire(msg, "{\"id\":null,\"ok\":false,\"error\":{\"code\":\"too-large\","
			 "\"message\":\"frame exceeds 65536 bytes\"}}");
	ASSERT_EQ(proto_reply_parse(msg, &rep, &err), 0);
	ASSERT_EQ(rep.id, PROTO_ID_NONE);
	ASSERT_EQ(rep.code, PROTO_ERR_TOO_LARGE);
	json_object_put(msg);

	/* A code this build does not know is kept by name. */
	msg = parse("{\"id\":1,\"ok\":false,\"error\":{\"code\":\"new-code\"},\"later\":1}");
	ASSERT_EQ(proto_reply_parse(msg, &rep, &err), 0);
	ASSERT_EQ(rep.code, PROTO_ERR_UNRECOGNIZED);
	ASSERT_STREQ(rep.code_name, "new-code");
	ASSERT_STREQ(rep.message, "");
	json_object_put(msg);

	static const struct {
		const char *json;
		const char *error;
	} bad[] = {
		{"{\"id\":1,\"result\":{}}", "missing required field 'ok'"},
		{"{\"id\":1,\"ok\":true}", "missing required field 'result'"},
		{"{\"id\":1,\"ok\":false}", "missing required field 'error'"},
		{"{\"id\":1,\"ok\":false,\"error\":{\"message\":\"m\"}}", "field 'code'"},
		{"{\"id\":\"a\",\"ok\":true,\"result\":{}}", "field 'id'"},
		{"{\"ok\":true,\"result\":{}}", "missing required field 'id'"},
		{"{\"id\":9223372036854775808,\"ok\":true,\"result\":{}}", "field 'id'"},
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		msg = parse(bad[i].json);
		ASSERT_EQ(proto_reply_parse(msg, &rep, &err), -EBADMSG);
		ASSERT_CONTAINS(err.message, bad[i].error);
		json_object_put(msg);
	}
}

static void test_event(void)
{
	struct json_object *msg, *data = json_object_new_object();
	struct proto_error err = {0};
	struct proto_event ev;

	json_object_object_add(data, "latency_ns", json_object_new_int64(123456));
	ASSERT_EQ(proto_event_new(PROTO_EVENT_ALERT, data, &msg), 0);
	assert_wire(msg, "{\"event\":\"alert\",\"data\":{\"latency_ns\":123456}}");
	ASSERT_EQ(proto_message_kind(msg), PROTO_MSG_EVENT);
	ASSERT_EQ(proto_event_parse(msg, &ev, &err), 0);
	ASSERT_STREQ(ev.name, "alert");
	ASSERT_EQ(json_object_get_int64(json_object_object_get(ev.data, "latency_ns")), 123456);
	json_object_put(msg);

	msg = parse("{\"event\":\"alert\"}");
	ASSERT_TRUE(proto_event_parse(msg, &ev, &err) < 0);
	ASSERT_CONTAINS(err.message, "missing required field 'data'");
	json_object_put(msg);

	msg = parse("{\"something\":1}");
	ASSERT_EQ(proto_message_kind(msg), PROTO_MSG_INVALID);
	json_object_put(msg);
}

int main(void)
{
	RUN(test_errcodes);
	RUN(test_hello);
	RUN(test_request);
	RUN(test_reply);
	RUN(test_event);
	return 0;
}
