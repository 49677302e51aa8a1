/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * client/output_*.c: a reply whose members have another type than the protocol's (an older,
 * newer or broken latencyd) is printed as far as it goes, or refused with a message; never a
 * crash (json-c aborts on an array call on anything but an array).
 */
#include <unistd.h>

#include <json-c/json.h>

#include "latencyctl.h"
#include "printed.h"
#include "tests.h"

static int printed(int (*print)(struct json_object *), const char *reply, char *buf, size_t size)
{
	return printed_to(STDOUT_FILENO, print, reply, buf, size);
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

/* What status prints as its fleet line for FLEET (JSON text), in BUF. */
static void fleet_line(const char *fleet, char *buf, size_t size)
{
	struct json_object *f = json_tokener_parse(fleet);

	ASSERT_TRUE(f);
	fleet_text(buf, size, f);
	json_object_put(f);
}

/* status's fleet line: no "dropped" object, and counters whose sum passes INT64_MAX. */
static void test_fleet_line(void)
{
	char buf[512];

	fleet_line("{\"connected\":true,\"broker\":\"mqtt://b\",\"host\":\"h\","
		   "\"group\":\"g\",\"dropped\":[1]}",
		   buf, sizeof(buf));
	ASSERT_CONTAINS(buf, " 0 dropped");

	fleet_line("{\"broker\":\"mqtt://b\",\"dropped\":{\"malformed\":"
		   "9223372036854775807,\"foreign\":1,\"busy\":-5}}",
		   buf, sizeof(buf));
	ASSERT_CONTAINS(buf, " 9223372036854775807 dropped");
	ASSERT_TRUE(!strstr(buf, "note(s)"));

	/* What the MQTT process said that latencyd's main loop never took (1.10); a null
	 * broker, host and group. */
	fleet_line("{\"broker\":null,\"host\":null,\"group\":null,\"dropped\":"
		   "{\"busy\":2},\"notes_dropped\":5}",
		   buf, sizeof(buf));
	ASSERT_CONTAINS(buf, "not connected to ? as ?, group ?,");
	ASSERT_CONTAINS(buf, " 2 dropped, 5 note(s) from the MQTT process dropped");
}

/*
 * A null (or missing) string member is printed as "?": glibc would print "(null)" for it, and
 * printf("%s", NULL) is undefined. A missing count or ABI is not printed as -1.
 */
static void test_null_strings(void)
{
	char buf[4096];

	ASSERT_EQ(printed(output_text.trackers,
			  "{\"trackers\":[{\"name\":null,\"enabled\":true},{\"enabled\":false}]}",
			  buf, sizeof(buf)),
		  EXIT_OK);
	ASSERT_TRUE(!strstr(buf, "(null)"));
	ASSERT_CONTAINS(buf, "\n?        yes");
	ASSERT_EQ(printed(text_incidents,
			  "{\"host\":\"web1\",\"incidents\":[{\"incident\":null,\"origin\":null,"
			  "\"time\":0,\"recorded\":[null],\"refused\":[\"web2\"],\"details\":"
			  "{\"web2\":null}}]}",
			  buf, sizeof(buf)),
		  EXIT_OK);
	ASSERT_TRUE(!strstr(buf, "(null)"));
	ASSERT_CONTAINS(buf, "web2 refused (?)");
	ASSERT_EQ(printed(text_filter,
			  "{\"tracker\":\"wakeup\",\"filter\":{\"comm\":null,\"pid\":7}}", buf,
			  sizeof(buf)),
		  EXIT_OK);
	ASSERT_CONTAINS(buf, "Tracker wakeup: filter comm=? pid=7");
	ASSERT_EQ(printed(text_config,
			  "{\"settings\":{\"control\":{\"socket\":\"/s\"}},\"origins\":"
			  "{\"control.socket\":null},\"saved_problem\":null}",
			  buf, sizeof(buf)),
		  EXIT_OK);
	ASSERT_CONTAINS(buf, "control.socket = \"/s\"  # ?\n");
	ASSERT_EQ(printed_to(STDERR_FILENO, text_config, "{\"settings\":{},\"saved_problem\":null}",
			     buf, sizeof(buf)),
		  EXIT_OK);
	ASSERT_CONTAINS(buf, "the file has a problem: ?\n");
	ASSERT_EQ(printed(text_hist,
			  "{\"hists\":[],\"skipped\":[{\"tracker\":null,\"reason\":\"x\"},"
			  "{\"tracker\":\"fs\"}]}",
			  buf, sizeof(buf)),
		  EXIT_OK);
	ASSERT_CONTAINS(buf, "Not loaded, skipped: ?, fs.\n");

	/* status: relayd with a local fallback but no directory; a module without its ABI. */
	ASSERT_EQ(printed(output_text.status,
			  "{\"version\":\"1\",\"module\":{\"state\":\"loaded\",\"loaded\":true},"
			  "\"session\":{\"name\":\"s\"},\"output\":{\"relayd\":\"net://r\","
			  "\"fallback_local\":true}}",
			  buf, sizeof(buf)),
		  EXIT_OK);
	ASSERT_TRUE(!strstr(buf, "(null)"));
	ASSERT_TRUE(!strstr(buf, "ABI -1"));
	ASSERT_CONTAINS(buf, "net://r, else ?\n");
	ASSERT_CONTAINS(buf, "loaded, ABI ?\n");
	ASSERT_EQ(printed(output_text.status,
			  "{\"module\":{\"state\":\"loaded\",\"abi_major\":1,\"abi_minor\":4}}",
			  buf, sizeof(buf)),
		  EXIT_OK);
	ASSERT_CONTAINS(buf, "loaded, ABI 1.4\n");

	/* show-snapshot from a latencyd without causes_total: no "Causes (-1)". */
	ASSERT_EQ(printed(text_snapshot, "{\"id\":7,\"causes\":[]}", buf, sizeof(buf)), EXIT_OK);
	ASSERT_CONTAINS(buf, "\nCauses:\n");
	ASSERT_EQ(printed(text_snapshot, "{\"id\":7,\"causes\":[],\"causes_total\":0}", buf,
			  sizeof(buf)),
		  EXIT_OK);
	ASSERT_CONTAINS(buf, "\nCauses (0):\n");
}

/*
 * A string member that is null or of another type: json_object_get_string() gives NULL for
 * null (strcmp crashed on reload's "operation") and the JSON text of a number, so each is
 * read only as a string.
 */
static void test_not_strings(void)
{
	char buf[4096];

	ASSERT_EQ(printed(text_reloaded, "{\"source\":\"/etc/l.conf\",\"operation\":null}", buf,
			  sizeof(buf)),
		  EXIT_OK);
	ASSERT_STREQ(buf, "Configuration reloaded from /etc/l.conf.\n");
	ASSERT_EQ(printed(text_reloaded, "{\"source\":7,\"operation\":[\"update\"]}", buf,
			  sizeof(buf)),
		  EXIT_OK);
	ASSERT_STREQ(buf, "Configuration reloaded from built-in defaults.\n");
	ASSERT_EQ(printed(text_reloaded, "{\"operation\":\"update\"}", buf, sizeof(buf)), EXIT_OK);
	ASSERT_CONTAINS(buf, "Pending: the session's update, once lttng-sessiond answers");
	ASSERT_EQ(printed(text_config, "{\"settings\":{},\"source\":null,\"saved_file\":null}", buf,
			  sizeof(buf)),
		  EXIT_OK);
	ASSERT_STREQ(buf, "# the configuration latencyd runs with: built-in defaults (no file)\n");
	ASSERT_EQ(printed(text_config, "{\"settings\":{},\"saved_file\":5}", buf, sizeof(buf)),
		  EXIT_OK);
	ASSERT_TRUE(!strstr(buf, "overridden"));
	ASSERT_EQ(printed(text_filter, "{\"tracker\":null,\"filter\":{\"comm\":3}}", buf,
			  sizeof(buf)),
		  EXIT_OK);
	ASSERT_CONTAINS(buf, "Tracker ?: filter comm=3, runtime only");
	ASSERT_EQ(printed(text_incidents,
			  "{\"host\":7,\"incidents\":[{\"incident\":1,\"origin\":[],"
			  "\"time\":0,\"recorded\":[2],\"refused\":[\"web2\"],\"details\":"
			  "{\"web2\":{}}}]}",
			  buf, sizeof(buf)),
		  EXIT_OK);
	ASSERT_TRUE(!strstr(buf, "[]"));
	ASSERT_CONTAINS(buf, "web2 refused (?)");
	ASSERT_EQ(printed(output_text.trackers, "{\"trackers\":[{\"name\":5,\"enabled\":true}]}",
			  buf, sizeof(buf)),
		  EXIT_OK);
	ASSERT_CONTAINS(buf, "\n?  ");
	ASSERT_EQ(printed(output_text.status,
			  "{\"version\":\"1\",\"session\":{\"name\":\"s\"},"
			  "\"ratelimit\":{\"trackers\":[{\"tracker\":null,"
			  "\"rate\":1,\"burst\":2}]}}",
			  buf, sizeof(buf)),
		  EXIT_OK);
	ASSERT_TRUE(!strstr(buf, "(null)"));
	ASSERT_CONTAINS(buf, "?: 1/s, burst 2");
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
	RUN(test_null_strings);
	RUN(test_not_strings);
	RUN(test_hist);
	return 0;
}
