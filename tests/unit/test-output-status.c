/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * client/output_text.c: status prints every row latencyd's reply makes (a rate limit per
 * tracker, many trackers) and each value whole; a one-line text that must be cut (the fleet's
 * line in its buffer) ends in "...", never inside a UTF-8 character.
 */
#include <unistd.h>

#include <json-c/json.h>

#include "latencyctl.h"
#include "tests.h"

/* What status prints for RESULT (consumed), to free. */
static char *status_text(struct json_object *result)
{
	struct test_capture capture;
	char *text;

	ASSERT_TRUE(result);
	test_capture_start(&capture, STDOUT_FILENO);
	ASSERT_EQ(output_text.status(result), EXIT_OK);
	text = test_capture_end(&capture);
	json_object_put(result);
	return text;
}

static void test_many_rows(void)
{
	struct json_object *result = json_tokener_parse(
		"{\"version\":\"1.0\",\"pid\":1,\"module\":{\"state\":\"loaded\"},"
		"\"session\":{\"name\":\"s\",\"state\":\"recording\",\"domain\":\"kernel\"},"
		"\"ratelimit\":{\"rate\":1.0,\"burst\":2,\"tokens\":1.0,\"trackers\":[]}}");
	struct json_object *ratelimit, *list, *session;
	char name[32], detail[1200];
	char *text;

	ASSERT_TRUE(result && json_object_object_get_ex(result, PROTO_KEY_RATELIMIT, &ratelimit) &&
		    json_object_object_get_ex(ratelimit, PROTO_KEY_TRACKERS, &list) &&
		    json_object_object_get_ex(result, PROTO_KEY_SESSION, &session));
	for (int i = 0; i < 100; i++) {
		struct json_object *b = json_object_new_object();

		snprintf(name, sizeof(name), "tracker%d", i);
		json_object_object_add(b, PROTO_KEY_TRACKER, json_object_new_string(name));
		json_object_object_add(b, PROTO_KEY_RATE, json_object_new_double(0.5));
		json_object_object_add(b, PROTO_KEY_BURST, json_object_new_double(2));
		json_object_array_add(list, b);
	}
	/* A value of 1000 bytes, its last word the one to see. */
	memset(detail, 'x', 995);
	snprintf(detail + 995, sizeof(detail) - 995, " END");
	json_object_object_add(session, PROTO_KEY_DETAIL, json_object_new_string(detail));
	json_object_object_add(result, PROTO_KEY_CONTROL,
			       json_tokener_parse("{\"clients\":1,\"max_clients\":64}"));

	text = status_text(result);
	ASSERT_CONTAINS(text, "tracker0: 0.5/s");
	ASSERT_CONTAINS(text, "tracker99: 0.5/s, burst 2");
	ASSERT_CONTAINS(text, "xxx END\n");
	/* The rows after the long list are there too. */
	ASSERT_CONTAINS(text, "\nControl:");
	free(text);
}

/* The texts cut here are cut on purpose. */
#pragma GCC diagnostic ignored "-Wformat-truncation"

static void test_cut(void)
{
	char buf[8], fleet[TEXT_LINE_MAX];
	struct json_object *f;
	size_t len;

	text_cut(buf, sizeof(buf), snprintf(buf, sizeof(buf), "%s", "1234567"));
	ASSERT_STREQ(buf, "1234567"); /* fits: unchanged */
	text_cut(buf, sizeof(buf), snprintf(buf, sizeof(buf), "%s", "12345678"));
	ASSERT_STREQ(buf, "1234...");
	/* "ab" then a 3-byte character over the cut: the character goes whole. */
	text_cut(buf, sizeof(buf), snprintf(buf, sizeof(buf), "%s", "ab\xe6\x97\xa5\xe6\x9c\xac"));
	ASSERT_STREQ(buf, "ab...");

	/* The fleet's line, its broker's error message long. */
	f = json_tokener_parse("{\"connected\":false,\"broker\":\"mqtt://b:1883\",\"host\":\"h\","
			       "\"group\":\"g\"}");
	ASSERT_TRUE(f);
	memset(fleet, 'y', sizeof(fleet) - 1);
	fleet[sizeof(fleet) - 1] = 0;
	json_object_object_add(f, PROTO_KEY_DETAIL, json_object_new_string(fleet));
	json_object_object_add(f, PROTO_KEY_HOST, json_object_new_string(fleet));
	fleet_text(fleet, sizeof(fleet), f);
	len = strlen(fleet);
	ASSERT_EQ(len, sizeof(fleet) - 1);
	ASSERT_STREQ(fleet + len - 3, "...");
	ASSERT_CONTAINS(fleet, "yyy...) as yyy");
	json_object_put(f);
}

int main(void)
{
	RUN(test_many_rows);
	RUN(test_cut);
	return 0;
}
