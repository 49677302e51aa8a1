/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * client/output_snapshots.c: list-snapshots' text says how many older snapshots it left out,
 * whether --limit or the reply's size kept them, and nothing when all are listed.
 */
#include <unistd.h>

#include <json-c/json.h>

#include "latencyctl.h"
#include "tests.h"

/* What text_snapshots() prints for the reply REPLY (JSON text), in BUF. */
static void list_text(const char *reply, char *buf, size_t size)
{
	struct json_object *result = json_tokener_parse(reply);
	struct test_capture capture;
	char *text;

	ASSERT_TRUE(result);
	test_capture_start(&capture, STDOUT_FILENO);
	ASSERT_EQ(text_snapshots(result), EXIT_OK);
	text = test_capture_end(&capture);
	snprintf(buf, size, "%s", text);
	free(text);
	json_object_put(result);
}

#define SUMMARY(id)                                                                                \
	"{\"id\":" #id ",\"status\":\"complete\",\"time\":1764100000,\"causes\":1,"                \
	"\"cause\":{\"tracker\":\"syscalls\",\"reason\":\"threshold\",\"pid\":812,"                \
	"\"tid\":815,\"comm\":\"postgres\",\"delay_ns\":12500000},\"bytes\":1024,"                 \
	"\"path\":\"/var/lib/latencyd/snapshots/snap-" #id "\"}"

static void test_left_out(void)
{
	char buf[4096];

	list_text("{\"snapshots\":[" SUMMARY(40) "," SUMMARY(39) "],\"matched\":40,"
								 "\"suppressed\":0}",
		  buf, sizeof(buf));
	ASSERT_CONTAINS(buf, "\n40  ");
	ASSERT_CONTAINS(buf, "\n39  ");
	ASSERT_CONTAINS(buf, "\n38 older snapshot(s) not shown: listed are the 2 newest, as "
			     "--limit asks or one reply holds.\n");

	list_text("{\"snapshots\":[" SUMMARY(2) "," SUMMARY(1) "],\"matched\":2,"
							       "\"suppressed\":3}",
		  buf, sizeof(buf));
	ASSERT_TRUE(!strstr(buf, "not shown"));
	ASSERT_CONTAINS(buf, "3 alert(s) suppressed by the rate limit in all.\n");
}

int main(void)
{
	RUN(test_left_out);
	return 0;
}
