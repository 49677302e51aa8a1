/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * client/output_*.c: a reply whose members have another type than the protocol's (an older,
 * newer or broken latencyd) is printed as far as it goes, or refused with a message; never a
 * crash (json-c aborts on an array call on anything but an array).
 */
#include <unistd.h>

#include <json-c/json.h>

#include "latencyctl.h"
#include "tests.h"

/* What PRINT prints for REPLY (JSON text), in BUF; PRINT's return. */
static int printed(int (*print)(struct json_object *), const char *reply, char *buf, size_t size)
{
	struct json_object *result = json_tokener_parse(reply);
	FILE *f = tmpfile();
	int saved = dup(STDOUT_FILENO), r;
	size_t n;

	ASSERT_TRUE(result && f && saved >= 0);
	fflush(stdout);
	ASSERT_TRUE(dup2(fileno(f), STDOUT_FILENO) >= 0);
	r = print(result);
	fflush(stdout);
	ASSERT_TRUE(dup2(saved, STDOUT_FILENO) >= 0);
	close(saved);
	rewind(f);
	n = fread(buf, 1, size - 1, f);
	buf[n] = 0;
	fclose(f);
	json_object_put(result);
	return r;
}

static int snapshot_event(struct json_object *data)
{
	return text_event(PROTO_EVENT_SNAPSHOT, data);
}

/* show-snapshot and watch: causes, the analysis' lists, a stack's frames not arrays. */
static void test_snapshot_arrays(void)
{
	char buf[4096];

	ASSERT_EQ(printed(text_snapshot, "{\"id\":7,\"causes\":{\"tracker\":\"wakeup\"}}", buf,
			  sizeof(buf)),
		  EXIT_OK);
	ASSERT_CONTAINS(buf, "Snapshot 7\n");
	ASSERT_EQ(printed(text_snapshot,
			  "{\"id\":7,\"causes\":[],\"analysis\":{\"status\":\"done\",\"causes\":3,"
			  "\"missing_events\":\"sched_switch\"}}",
			  buf, sizeof(buf)),
		  EXIT_OK);
	ASSERT_CONTAINS(buf, "Analysis (done;");
	ASSERT_EQ(printed(text_snapshot,
			  "{\"id\":7,\"causes\":[{\"tracker\":\"wakeup\",\"stack\":"
			  "{\"kind\":\"task\",\"frames\":\"schedule+0x1/0x2\"}},"
			  "{\"tracker\":\"offcpu\",\"stack\":"
			  "{\"frames\":[\"schedule+0x1/0x2\"],\"addresses\":{}}}]}",
			  buf, sizeof(buf)),
		  EXIT_OK);
	ASSERT_CONTAINS(buf, "    schedule+0x1/0x2\n");
	ASSERT_EQ(printed(snapshot_event, "{\"id\":7,\"status\":\"complete\",\"causes\":1}", buf,
			  sizeof(buf)),
		  EXIT_OK);
	ASSERT_CONTAINS(buf, "snapshot 7 complete: -");
}

/* incidents: no host (a reply without it, or null), a host list holding null. */
static void test_incidents(void)
{
	char buf[4096];

	ASSERT_EQ(printed(text_incidents, "{\"incidents\":[]}", buf, sizeof(buf)), EXIT_OK);
	ASSERT_STREQ(buf, "No incidents (fleet.enabled = false).\n");
	ASSERT_EQ(printed(text_incidents, "{\"host\":null,\"incidents\":[]}", buf, sizeof(buf)),
		  EXIT_OK);
	ASSERT_STREQ(buf, "No incidents (fleet.enabled = false).\n");
	ASSERT_EQ(printed(text_incidents,
			  "{\"host\":\"web1\",\"incidents\":[{\"incident\":\"web1-1\",\"origin\":"
			  "\"web1\",\"time\":0,\"refused\":[null,\"web2\"],\"details\":"
			  "{\"web2\":\"origin\"}}]}",
			  buf, sizeof(buf)),
		  EXIT_OK);
	ASSERT_CONTAINS(buf, "? refused, web2 refused (origin)");
}

/* status's fleet line: no "dropped" object, and counters whose sum passes INT64_MAX. */
static void test_fleet_line(void)
{
	struct json_object *f;
	char buf[512];

	f = json_tokener_parse("{\"connected\":true,\"broker\":\"mqtt://b\",\"host\":\"h\","
			       "\"group\":\"g\",\"dropped\":[1]}");
	ASSERT_TRUE(f);
	fleet_text(buf, sizeof(buf), f);
	ASSERT_CONTAINS(buf, " 0 dropped");
	json_object_put(f);

	f = json_tokener_parse("{\"broker\":\"mqtt://b\",\"dropped\":{\"malformed\":"
			       "9223372036854775807,\"foreign\":1,\"busy\":-5}}");
	ASSERT_TRUE(f);
	fleet_text(buf, sizeof(buf), f);
	ASSERT_CONTAINS(buf, " 9223372036854775807 dropped");
	json_object_put(f);
}

/* hist: "hists" or "skipped" not an array. */
static void test_hist(void)
{
	char buf[4096];

	ASSERT_EQ(printed(text_hist, "{\"hists\":{}}", buf, sizeof(buf)), EXIT_CONNECT);
	ASSERT_EQ(printed(text_hist, "{}", buf, sizeof(buf)), EXIT_CONNECT);
	ASSERT_EQ(printed(text_hist, "{\"hists\":[],\"skipped\":\"fs\"}", buf, sizeof(buf)),
		  EXIT_OK);
	ASSERT_EQ(printed(text_hist,
			  "{\"hists\":[{\"tracker\":\"block\",\"since_ns\":0,\"now_ns\":1000000000,"
			  "\"buckets\":[{\"lower_ns\":1024,\"count\":3}]}],\"skipped\":{}}",
			  buf, sizeof(buf)),
		  EXIT_OK);
	ASSERT_CONTAINS(buf, "Tracker block: 3 delays");
}

int main(void)
{
	RUN(test_snapshot_arrays);
	RUN(test_incidents);
	RUN(test_fleet_line);
	RUN(test_hist);
	return 0;
}
