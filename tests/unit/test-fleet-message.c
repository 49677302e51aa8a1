/* SPDX-License-Identifier: GPL-2.0-only */
/* proto/fleet.c: the fleet's messages built, parsed back, and every malformed one refused. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fleet.h"
#include "tests.h"

static int parse(const char *text, struct proto_fleet_alert *a, char *why)
{
	return proto_fleet_alert_parse(text, strlen(text), a, why, 160);
}

static void test_alert_round_trip(void)
{
	struct proto_fleet_alert in = {
		.host = "web1",
		.group = "lab",
		.boot_id = "b",
		.incident = "web1-42",
		.tracker = "syscalls",
		.comm = "postgres",
		.tid = 977,
		.delay_ns = 48000000,
		.start_realtime_ns = 1000,
		.end_realtime_ns = 48001000,
		.mono_to_realtime_ns = -5,
	};
	struct proto_fleet_alert out;
	char *text = NULL, why[160];

	ASSERT_EQ(proto_fleet_alert_new(&in, &text), 0);
	ASSERT_EQ(parse(text, &out, why), 0);
	ASSERT_STREQ(out.host, "web1");
	ASSERT_STREQ(out.incident, "web1-42");
	ASSERT_STREQ(out.comm, "postgres");
	ASSERT_EQ(out.tid, 977);
	ASSERT_EQ(out.delay_ns, 48000000);
	ASSERT_EQ(out.end_realtime_ns, 48001000);
	ASSERT_EQ(out.mono_to_realtime_ns, -5);
	free(text);
}

/* Each bad alert with what the refusal must say: a case refused for another reason than
 * the one it stands for would prove nothing. */
static void test_alert_refused(void)
{
	static const struct {
		const char *text, *why;
	} bad[] = {
		{"", "empty payload"},
		{"not json", "not one JSON object"},
		{"[1]", "not one JSON object"},
		{"{} trailing", "not one JSON object"},
		/* Held to JSON as a client's frame is: a second "host" would be another host. */
		{"{\"v\":3,\"sent_realtime_ns\":1,\"host\":\"a\",\"host\":\"b\",\"group\":\"g\","
		 "\"incident\":\"a-1\",\"tracker\":\"t\",\"start_realtime_ns\":1,"
		 "\"end_realtime_ns\":2}",
		 "duplicate member 'host'"},
		{"{\"v\":3,\"sent_realtime_ns\":NaN,\"host\":\"a\",\"group\":\"g\","
		 "\"incident\":\"a-1\",\"tracker\":\"t\",\"start_realtime_ns\":1,"
		 "\"end_realtime_ns\":2}",
		 "NaN or Infinity"},
		{"{\"v\":9,\"sent_realtime_ns\":1,\"host\":\"a\",\"group\":\"g\",\"incident\":\"a-"
		 "1\",\"tracker\":\"t\",\"start_realtime_ns\":1,\"end_realtime_ns\":2}",
		 "version 9, not "},
		{"{\"v\":3,\"sent_realtime_ns\":1,\"host\":\"a/"
		 "b\",\"group\":\"g\",\"incident\":\"a-1\",\"tracker\":\"t\","
		 "\"start_realtime_ns\":1,\"end_realtime_ns\":2}",
		 "\"host\" is missing, too long or not a valid name"},
		{"{\"v\":3,\"sent_realtime_ns\":1,\"host\":\"a\",\"group\":\"g\",\"incident\":\"a-"
		 "x\",\"tracker\":\"t\","
		 "\"start_realtime_ns\":1,\"end_realtime_ns\":2}",
		 "\"a-x\" is not an incident"},
		{"{\"v\":3,\"sent_realtime_ns\":1,\"host\":\"a\",\"group\":\"g\",\"incident\":\"a-"
		 "0\",\"tracker\":\"t\","
		 "\"start_realtime_ns\":1,\"end_realtime_ns\":2}",
		 "\"a-0\" is not an incident"},
		{"{\"v\":3,\"sent_realtime_ns\":1,\"host\":\"a\",\"group\":\"g\",\"incident\":\"a-"
		 "1\",\"tracker\":\"t\","
		 "\"start_realtime_ns\":3,\"end_realtime_ns\":2}",
		 "the alert ends before it starts"},
		{"{\"v\":3,\"sent_realtime_ns\":1,\"host\":\"a\",\"group\":\"g\",\"incident\":\"a-"
		 "1\",\"tracker\":\"t\","
		 "\"start_realtime_ns\":-1,\"end_realtime_ns\":2}",
		 "'start_realtime_ns' must be a non-negative integer"},
		{"{\"v\":3,\"sent_realtime_ns\":1,\"host\":\"a\",\"group\":\"g\",\"incident\":\"a-"
		 "1\",\"tracker\":\"t\","
		 "\"start_realtime_ns\":1}",
		 "missing required field 'end_realtime_ns'"},
		{"{\"v\":3,\"sent_realtime_ns\":1,\"host\":\"a\",\"group\":\"g\",\"incident\":\"a-"
		 "1\",\"tracker\":\"t\","
		 "\"start_realtime_ns\":1,\"end_realtime_ns\":2,\"comm\":\"a name longer than "
		 "16\"}",
		 "\"comm\" is missing, too long or not a valid text"},
		{"{\"v\":3,\"sent_realtime_ns\":1,\"host\":\"a\",\"group\":\"g\",\"incident\":\"a-"
		 "1\","
		 "\"tracker\":\"t\",\"start_realtime_ns\":1,\"end_realtime_ns\":2,\"comm\":"
		 "\"\\u001b[2J\"}",
		 "\"comm\" is missing, too long or not a valid text"},
		{"{\"v\":3,\"host\":\"a\",\"group\":\"g\",\"incident\":\"a-1\",\"tracker\":\"t\","
		 "\"start_realtime_ns\":1,\"end_realtime_ns\":2}",
		 "missing required field 'sent_realtime_ns'"},
	};
	struct proto_fleet_alert a;
	char why[160], big[PROTO_FLEET_MAX + 2];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		why[0] = 0;
		ASSERT_TRUE(parse(bad[i].text, &a, why) < 0);
		ASSERT_CONTAINS(why, bad[i].why);
	}
	memset(big, ' ', sizeof(big) - 1);
	big[sizeof(big) - 1] = 0;
	ASSERT_EQ(parse(big, &a, why), -EMSGSIZE);
	ASSERT_CONTAINS(why, "bytes, more than");
	ASSERT_EQ(proto_fleet_alert_parse("{\"v\":3}\0x", 9, &a, why, sizeof(why)), -EINVAL);
	ASSERT_CONTAINS(why, "a NUL byte in the payload");
	/* The good one the bad ones differ from. */
	ASSERT_EQ(parse("{\"v\":3,\"sent_realtime_ns\":1,\"host\":\"a\",\"group\":\"g\","
			"\"incident\":\"a-1\",\"tracker\":\"t\",\"start_realtime_ns\":1,"
			"\"end_realtime_ns\":2,\"comm\":\"kworker/0:1\"}",
			&a, why),
		  0);
}

static int parse_presence(const char *text, struct proto_fleet_presence *p, char *why)
{
	return proto_fleet_presence_parse(text, strlen(text), p, why, 160);
}

/* every_s: written only when there is one, read back; absent is a member that renews
 * nothing, and so is an integer above the range (a later version's); zero, a negative or
 * not an integer, the message is refused with the reason. */
static void test_presence_every(void)
{
	static const char *const bad[] = {
		"0", "-1", "1.5", "3601.0", "1e3", "\"60\"", "null", "true", "[60]",
	};
	/* json-c reads an integer past 2^64 as 2^64 - 1: above the range too. */
	static const char *const above[] = {
		"3601",
		"4294967296",
		"18446744073709551615",
		"99999999999999999999999",
	};
	struct proto_fleet_presence p = {.host = "web1",
					 .group = "lab",
					 .state = PROTO_FLEET_ONLINE,
					 .every_s = 60},
				    out;
	char *text = NULL, msg[256], why[160];

	ASSERT_EQ(proto_fleet_presence_new(&p, &text), 0);
	ASSERT_CONTAINS(text, "\"every_s\":60");
	ASSERT_EQ(parse_presence(text, &out, why), 0);
	ASSERT_EQ(out.every_s, 60);
	free(text);
	p.every_s = 0;
	ASSERT_EQ(proto_fleet_presence_new(&p, &text), 0);
	ASSERT_TRUE(strstr(text, "every_s") == NULL);
	ASSERT_EQ(parse_presence(text, &out, why), 0);
	ASSERT_EQ(out.every_s, 0);
	free(text);
	for (uint32_t v = PROTO_FLEET_EVERY_MIN_S; v <= PROTO_FLEET_EVERY_MAX_S;
	     v += PROTO_FLEET_EVERY_MAX_S - 1) {
		snprintf(msg, sizeof(msg),
			 "{\"v\":3,\"host\":\"a\",\"group\":\"g\",\"state\":\"online\","
			 "\"every_s\":%u}",
			 v);
		ASSERT_EQ(parse_presence(msg, &out, why), 0);
		ASSERT_EQ(out.every_s, v);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(msg, sizeof(msg),
			 "{\"v\":3,\"host\":\"a\",\"group\":\"g\",\"state\":\"online\","
			 "\"every_s\":%s}",
			 bad[i]);
		why[0] = 0;
		ASSERT_TRUE(parse_presence(msg, &out, why) < 0);
		ASSERT_CONTAINS(why, "every_s");
		ASSERT_EQ(out.every_s, 0);
	}
	for (size_t i = 0; i < sizeof(above) / sizeof(above[0]); i++) {
		snprintf(msg, sizeof(msg),
			 "{\"v\":3,\"host\":\"a\",\"group\":\"g\",\"state\":\"online\","
			 "\"every_s\":%s}",
			 above[i]);
		out.every_s = 7;
		ASSERT_EQ(parse_presence(msg, &out, why), 0);
		ASSERT_EQ(out.every_s, 0);
		ASSERT_TRUE(strcmp(out.host, "a") == 0 &&
			    strcmp(out.state, PROTO_FLEET_ONLINE) == 0);
	}
}

static void test_result_and_names(void)
{
	struct proto_fleet_result in = {.host = "db1",
					.group = "lab",
					.status = PROTO_FLEET_REFUSED,
					.n = 2,
					.incidents = {"web1-42", "web2-7"},
					.count = 9,
					.budget = PROTO_FLEET_BUDGET_ORIGIN},
				  out;
	static const char *const bad[] = {
		"{\"v\":3,\"host\":\"a\",\"group\":\"g\",\"incidents\":[\"a-1\"],\"status\":"
		"\"maybe\"}",
		"{\"v\":3,\"host\":\"a\",\"group\":\"g\",\"incidents\":[],\"status\":\"stale\"}",
		"{\"v\":3,\"host\":\"a\",\"group\":\"g\",\"incidents\":[1],\"status\":\"stale\"}",
		"{\"v\":3,\"host\":\"a\",\"group\":\"g\",\"incidents\":\"a-1\",\"status\":"
		"\"stale\"}",
		"{\"v\":3,\"host\":\"a\",\"group\":\"g\",\"incidents\":[\"a-1\"],\"status\":"
		"\"local\","
		"\"path\":\"/x\\n\"}",
		"{\"v\":3,\"host\":\"a\",\"group\":\"g\",\"incidents\":[\"a-1\"],\"status\":"
		"\"refused\","
		"\"budget\":\"mine\"}",
	};
	struct proto_fleet_presence p = {.host = "web1",
					 .group = "lab",
					 .boot_id = "b",
					 .state = PROTO_FLEET_ONLINE,
					 .since_realtime_ns = 5},
				    pout;
	char *text = NULL, why[160], origin[64], topic[64], many[PROTO_FLEET_MAX];
	uint64_t seq;
	int len;

	ASSERT_EQ(proto_fleet_result_new(&in, &text), 0);
	ASSERT_EQ(proto_fleet_result_parse(text, strlen(text), &out, why, sizeof(why)), 0);
	ASSERT_STREQ(out.status, "refused");
	ASSERT_EQ(out.n, 2);
	ASSERT_STREQ(out.incidents[1], "web2-7");
	ASSERT_EQ(out.count, 9);
	ASSERT_STREQ(out.budget, "origin");
	free(text);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		why[0] = 0;
		ASSERT_TRUE(proto_fleet_result_parse(bad[i], strlen(bad[i]), &out, why,
						     sizeof(why)) < 0);
		ASSERT_TRUE(why[0] != 0);
	}
	/* One incident more than a result may name. */
	len = snprintf(many, sizeof(many),
		       "{\"v\":3,\"host\":\"a\",\"group\":\"g\",\"status\":\"stale\","
		       "\"incidents\":[");
	for (int i = 0; i <= PROTO_FLEET_RESULT_INCIDENTS; i++)
		len += snprintf(many + len, sizeof(many) - (size_t)len, "%s\"a-%d\"", i ? "," : "",
				i + 1);
	snprintf(many + len, sizeof(many) - (size_t)len, "]}");
	ASSERT_TRUE(proto_fleet_result_parse(many, strlen(many), &out, why, sizeof(why)) < 0);
	/* Presence: round trip, and a state that is not one. */
	ASSERT_EQ(proto_fleet_presence_new(&p, &text), 0);
	ASSERT_EQ(proto_fleet_presence_parse(text, strlen(text), &pout, why, sizeof(why)), 0);
	ASSERT_STREQ(pout.state, "online");
	ASSERT_EQ(pout.since_realtime_ns, 5);
	free(text);
	text = "{\"v\":3,\"host\":\"a\",\"group\":\"g\",\"state\":\"away\"}";
	ASSERT_TRUE(proto_fleet_presence_parse(text, strlen(text), &pout, why, sizeof(why)) < 0);
	test_presence_every();
	ASSERT_EQ(proto_fleet_incident_parse("web-1.lab-17", origin, sizeof(origin), &seq), 0);
	ASSERT_STREQ(origin, "web-1.lab");
	ASSERT_EQ(seq, 17);
	ASSERT_TRUE(proto_fleet_incident_parse("-17", NULL, 0, NULL) < 0);
	ASSERT_TRUE(proto_fleet_incident_parse("web1-", NULL, 0, NULL) < 0);
	ASSERT_TRUE(!proto_fleet_name_valid("") && !proto_fleet_name_valid("a b") &&
		    proto_fleet_name_valid("a_B-1.c"));
	ASSERT_EQ(proto_fleet_topic(topic, sizeof(topic), "latencyd", "lab", "alert", "+"), 0);
	ASSERT_STREQ(topic, "latencyd/lab/alert/+");
	ASSERT_EQ(proto_fleet_topic(topic, 8, "latencyd", "lab", "alert", "+"), -ENAMETOOLONG);
	ASSERT_EQ(proto_fleet_result_topic(topic, sizeof(topic), "latencyd", "lab", "h1", "h2"), 0);
	ASSERT_STREQ(topic, "latencyd/lab/result/h1/h2");
}

int main(void)
{
	test_alert_round_trip();
	test_alert_refused();
	test_result_and_names();
	printf("ok\n");
	return 0;
}
