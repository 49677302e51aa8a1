/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * daemon/recorder/cause.c: a kernel alert's reason as the catalog keeps it. A timeout
 * record flagged DISCARDED (module ABI 1.7: a key given up on as stale) is "discarded",
 * one without the flag "timeout", whatever other flags either carries; the flag means
 * nothing on a threshold record. The catalog's codec (as an older latencyd has it) reads a
 * "discarded" cause back whole, as a kernel alert, with no problem.
 */
#include <json-c/json.h>

#include "cause.h"
#include "entry.h"
#include "proto.h"
#include "tests.h"

/* A kernel alert of tracker block, REASON and FLAGS, pending 61.2 s. */
static struct cause alert(uint32_t reason, uint32_t flags)
{
	struct cause c = {.kind = CAUSE_ALERT};

	snprintf((char *)c.alert.tracker, sizeof(c.alert.tracker), "block");
	snprintf((char *)c.alert.comm, sizeof(c.alert.comm), "kworker/0:1");
	c.alert.kind = LATENCY_TRACKER_REC_ALERT;
	c.alert.reason = reason;
	c.alert.flags = flags;
	c.alert.seq = 77;
	c.alert.pid = c.alert.tid = 1234;
	c.alert.start_ns = 1000000000;
	c.alert.delay_ns = 61200000000ULL;
	c.alert.end_ns = c.alert.start_ns + c.alert.delay_ns;
	c.alert.threshold_ns = 50000000;
	c.alert.data[0] = 8ULL << 20;
	return c;
}

/* The reason cause_to_catalog() gives a record of REASON and FLAGS, in BUF. */
static void reason_of(uint32_t reason, uint32_t flags, char *buf, size_t size)
{
	struct cause c = alert(reason, flags);
	struct catalog_cause cc;

	ASSERT_EQ(cause_to_catalog(&c, &cc), 0);
	snprintf(buf, size, "%s", cc.reason ? cc.reason : "(null)");
	catalog_cause_free(&cc);
}

static void test_reasons(void)
{
	char r[32];

	reason_of(LATENCY_TRACKER_REASON_TIMEOUT, LATENCY_TRACKER_REC_F_DISCARDED, r, sizeof(r));
	ASSERT_STREQ(r, PROTO_REASON_DISCARDED);
	ASSERT_STREQ(r, "discarded");
	reason_of(LATENCY_TRACKER_REASON_TIMEOUT,
		  LATENCY_TRACKER_REC_F_DISCARDED | LATENCY_TRACKER_REC_F_STACK_ALERT, r,
		  sizeof(r));
	ASSERT_STREQ(r, "discarded");
	reason_of(LATENCY_TRACKER_REASON_TIMEOUT, 0, r, sizeof(r));
	ASSERT_STREQ(r, "timeout");
	reason_of(LATENCY_TRACKER_REASON_TIMEOUT, LATENCY_TRACKER_REC_F_STACK_ALERT, r, sizeof(r));
	ASSERT_STREQ(r, "timeout");
	reason_of(LATENCY_TRACKER_REASON_THRESHOLD, 0, r, sizeof(r));
	ASSERT_STREQ(r, "threshold");
	reason_of(LATENCY_TRACKER_REASON_THRESHOLD, LATENCY_TRACKER_REC_F_TIMED_OUT, r, sizeof(r));
	ASSERT_STREQ(r, "threshold");
	reason_of(LATENCY_TRACKER_REASON_THRESHOLD, LATENCY_TRACKER_REC_F_DISCARDED, r, sizeof(r));
	ASSERT_STREQ(r, "threshold");
}

static void count_problem(void *arg, const char *field, const char *what)
{
	fprintf(stderr, "problem: %s: %s\n", field, what);
	++*(int *)arg;
}

/* A "discarded" cause keeps its alert's members through the catalog's spelling. */
static void test_catalog_round_trip(void)
{
	struct cause c = alert(LATENCY_TRACKER_REASON_TIMEOUT, LATENCY_TRACKER_REC_F_DISCARDED);
	struct catalog_cause cc, back = {0};
	struct json_object *o;
	int problems = 0;

	ASSERT_EQ(cause_to_catalog(&c, &cc), 0);
	ASSERT_EQ(cc.delay_ns, 61200000000ULL);
	ASSERT_EQ(cc.end_ns, c.alert.end_ns);
	o = catalog_cause_to_json(&cc);
	ASSERT_TRUE(o);
	ASSERT_EQ(catalog_cause_from_json(o, &back, count_problem, &problems), 0);
	ASSERT_EQ(problems, 0);
	ASSERT_STREQ(back.reason, "discarded");
	ASSERT_STREQ(back.tracker, "block");
	ASSERT_STREQ(back.comm, "kworker/0:1");
	ASSERT_EQ(back.seq, 77);
	ASSERT_EQ(back.pid, 1234);
	ASSERT_EQ(back.delay_ns, 61200000000ULL);
	ASSERT_EQ(back.threshold_ns, 50000000);
	ASSERT_EQ(back.data[0], 8ULL << 20);
	ASSERT_TRUE(!back.extra);
	json_object_put(o);
	catalog_cause_free(&back);
	catalog_cause_free(&cc);
}

int main(void)
{
	RUN(test_reasons);
	RUN(test_catalog_round_trip);
	return 0;
}
