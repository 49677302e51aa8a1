/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * client/output_snapshots.c: list-snapshots' text says how many older snapshots it left out,
 * whether --limit or the reply's size kept them, and nothing when all are listed. A cause's
 * reason is said in list-snapshots, watch and show-snapshot, a newer latencyd's as it is
 * spelled; a discarded key's delay is shown as the lower bound it is; show-snapshot says
 * where a record abandoned at a stop may still land.
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

/* What FN prints for the JSON text JSON, in BUF. */
static void printed(int (*fn)(struct json_object *), const char *json, char *buf, size_t size)
{
	struct json_object *o = json_tokener_parse(json);
	struct test_capture capture;
	char *text;

	ASSERT_TRUE(o);
	test_capture_start(&capture, STDOUT_FILENO);
	ASSERT_EQ(fn(o), EXIT_OK);
	text = test_capture_end(&capture);
	snprintf(buf, size, "%s", text);
	free(text);
	json_object_put(o);
}

static int snapshot_event(struct json_object *data)
{
	return text_event(PROTO_EVENT_SNAPSHOT, data);
}

#define CAUSE(reason, delay)                                                                       \
	"{\"tracker\":\"block\",\"reason\":\"" reason "\",\"pid\":0,\"tid\":0,"                    \
	"\"comm\":\"kworker/0:1\",\"delay_ns\":" delay "}"
#define DISCARDED CAUSE("discarded", "61200000000")
#define TIMEOUT	  CAUSE("timeout", "2000000000")
#define NEWER	  CAUSE("frobbed", "5000000") /* a newer latencyd's */
#define THRESHOLD CAUSE("threshold", "5000000")
#define LISTED(id, cause)                                                                          \
	"{\"id\":" #id ",\"status\":\"complete\",\"time\":1764100000,\"causes\":1,"                \
	"\"cause\":" cause ",\"bytes\":1024,\"path\":\"/s/" #id "\"}"

static void test_reasons(void)
{
	static const char list[] = "{\"snapshots\":[" LISTED(4, DISCARDED) "," LISTED(
		3, TIMEOUT) "," LISTED(2, NEWER) "," LISTED(1, THRESHOLD) "],\"matched\":4}";
	static const char event[] = "{\"id\":4,\"status\":\"complete\",\"causes\":[" DISCARDED
				    "],\"causes_total\":1,\"path\":\"/s/4\"}";
	static const char shown[] = "{\"id\":4,\"status\":\"complete\",\"causes_total\":3,"
				    "\"causes\":[" DISCARDED "," TIMEOUT "," NEWER "]}";
	char buf[4096];

	printed(text_snapshots, list, buf, sizeof(buf));
	ASSERT_CONTAINS(buf, "block pid 0 (kworker/0:1) >=61.2s (discarded)  ");
	ASSERT_CONTAINS(buf, "block pid 0 (kworker/0:1) 2s (timeout)  ");
	/* A newer latencyd's reason: shown as it is spelled, its delay as given. */
	ASSERT_CONTAINS(buf, "block pid 0 (kworker/0:1) 5ms (frobbed)  ");
	ASSERT_CONTAINS(buf, "block pid 0 (kworker/0:1) 5ms  ");
	ASSERT_TRUE(!strstr(buf, "(threshold)"));

	printed(snapshot_event, event, buf, sizeof(buf));
	ASSERT_CONTAINS(buf, "snapshot 4 complete: block pid 0 (kworker/0:1) >=61.2s (discarded)  "
			     "/s/4\n");

	printed(text_snapshot, shown, buf, sizeof(buf));
	ASSERT_CONTAINS(buf, "block    discarded  0    0    kworker/0:1  >=61.2s\n");
	ASSERT_CONTAINS(buf, "block    timeout    0    0    kworker/0:1  2s\n");
	ASSERT_CONTAINS(buf, "block    frobbed    0    0    kworker/0:1  5ms\n");
}

/* A record abandoned at a stop: where lttng-sessiond may still write it. */
static void test_late_directory(void)
{
	static const char shown[] =
		"{\"id\":18,\"status\":\"failed\",\"error\":\"abandoned at the stop\","
		"\"late_directory\":\"/var/lib/latencyd/snapshots\",\"causes_total\":1,"
		"\"causes\":[" THRESHOLD "]}";
	char buf[4096];

	printed(text_snapshot, shown, buf, sizeof(buf));
	ASSERT_CONTAINS(buf, "  Location  -\n            lttng-sessiond may still write it in "
			     "/var/lib/latencyd/snapshots (the next start looks there)\n");
}

int main(void)
{
	RUN(test_left_out);
	RUN(test_reasons);
	RUN(test_late_directory);
	return 0;
}
