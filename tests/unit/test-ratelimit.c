// SPDX-License-Identifier: GPL-2.0-only
/* The token buckets, driven by a fake clock. */
#include <stdint.h>
#include <stdio.h>

#include "ratelimit.h"
#include "tests.h"

#define SEC 1000000000ull

static void test_burst_then_rate(void)
{
	struct bucket b;
	uint64_t t = 5 * SEC;
	int allowed = 0;

	bucket_init(&b, 1.0, 3.0, t);
	/* A full bucket lets the burst through at once, then nothing until it refills. */
	for (int i = 0; i < 10; i++)
		allowed += buckets_take_all((struct bucket *[]){&b}, 1, t);
	ASSERT_EQ(allowed, 3);
	ASSERT_TRUE(!buckets_take_all((struct bucket *[]){&b}, 1, t + SEC / 2));
	ASSERT_TRUE(buckets_take_all((struct bucket *[]){&b}, 1, t + SEC));
	ASSERT_TRUE(!buckets_take_all((struct bucket *[]){&b}, 1, t + SEC + 1));
}

static void test_storm_is_bounded_by_rate(void)
{
	struct bucket b;
	uint64_t t0 = SEC, t;
	int allowed = 0;

	bucket_init(&b, 2.0, 4.0, t0);
	/* 100 alerts a second for 10 s: burst + rate * duration get through. */
	for (t = t0; t < t0 + 10 * SEC; t += SEC / 100)
		allowed += buckets_take_all((struct bucket *[]){&b}, 1, t);
	ASSERT_TRUE(allowed >= 4 + 19 && allowed <= 4 + 20);
}

static void test_refill_caps_at_burst(void)
{
	struct bucket b;

	bucket_init(&b, 10.0, 2.0, 0);
	bucket_take(&b);
	bucket_take(&b);
	ASSERT_EQ((long)(bucket_tokens(&b, 3600 * SEC) * 1000), 2000);
}

static void test_all_or_nothing(void)
{
	struct bucket global, tracker;
	struct bucket *both[] = {&global, &tracker};

	bucket_init(&global, 1.0, 5.0, 0);
	bucket_init(&tracker, 1.0, 1.0, 0);
	ASSERT_TRUE(buckets_take_all(both, 2, 0));
	/* The tracker's bucket is empty: the global one must not be charged. */
	ASSERT_TRUE(!buckets_take_all(both, 2, 1));
	ASSERT_EQ((long)(bucket_tokens(&global, 1) * 1000), 4000);
}

static void test_unlimited_and_clock_going_back(void)
{
	struct bucket b;

	bucket_init(&b, 0, 1, 100);
	for (int i = 0; i < 1000; i++)
		ASSERT_TRUE(buckets_take_all((struct bucket *[]){&b}, 1, 100));
	bucket_init(&b, 1.0, 1.0, 10 * SEC);
	ASSERT_TRUE(buckets_take_all((struct bucket *[]){&b}, 1, 10 * SEC));
	/* A time before the last one earns nothing. */
	ASSERT_TRUE(!buckets_take_all((struct bucket *[]){&b}, 1, 2 * SEC));
}

static void test_reconfigure_keeps_earned_tokens(void)
{
	struct bucket b;

	bucket_init(&b, 1.0, 10.0, 0);
	for (int i = 0; i < 10; i++)
		bucket_take(&b);
	bucket_configure(&b, 100.0, 10.0, SEC / 10);
	ASSERT_EQ((long)(bucket_tokens(&b, SEC / 10) * 10), 1);
	ASSERT_EQ((long)bucket_tokens(&b, SEC / 5), 10);
}

/* A peer's alert: its origin's bucket and the total; a noisy origin never takes a quiet one's. */
static void test_peer_budgets(void)
{
	struct limits l = {0};
	struct conf c = {0};
	struct cause noisy = {.kind = CAUSE_PEER}, quiet = {.kind = CAUSE_PEER};
	int allowed = 0;

	c.ratelimit.rate = 1;
	c.ratelimit.burst = 1;
	c.fleet.peer_rate = 0.001;
	c.fleet.peer_burst = 2;
	c.fleet.total_rate = 0.001;
	c.fleet.total_burst = 4;
	snprintf(noisy.peer.alert.host, sizeof(noisy.peer.alert.host), "h1");
	snprintf(quiet.peer.alert.host, sizeof(quiet.peer.alert.host), "h2");
	ASSERT_EQ(limits_configure(&l, &c, SEC), 0);
	for (int i = 0; i < 10; i++)
		allowed += limits_allow_peer(&l, &noisy, SEC) == NULL;
	ASSERT_EQ(allowed, 2);
	ASSERT_STREQ(limits_allow_peer(&l, &noisy, SEC), PROTO_FLEET_BUDGET_ORIGIN);
	/* The quiet origin's burst is whole; the total (4) runs out after it. */
	ASSERT_TRUE(limits_allow_peer(&l, &quiet, SEC) == NULL);
	ASSERT_TRUE(limits_allow_peer(&l, &quiet, SEC) == NULL);
	snprintf(quiet.peer.alert.host, sizeof(quiet.peer.alert.host), "h3");
	ASSERT_STREQ(limits_allow_peer(&l, &quiet, SEC), PROTO_FLEET_BUDGET_TOTAL);
	/* limits_allow() answers the same for a peer's cause; the local bucket is untouched. */
	ASSERT_TRUE(!limits_allow(&l, &quiet, SEC));
	ASSERT_EQ((long)limits_tokens(&l.global, SEC), 1);
	limits_done(&l);
}

/*
 * What was allowed but never tried gives its tokens back, to every bucket it took them from:
 * the global one and its tracker's for a local alert, its origin's and the total for a
 * peer's; never past a bucket's burst, never to a bucket without a limit.
 */
static void test_give_back(void)
{
	struct conf_bucket wakeup = {.tracker = "wakeup", .rate = 0.001, .burst = 1};
	struct cause alert = {.kind = CAUSE_ALERT}, peer = {.kind = CAUSE_PEER};
	struct limits l = {0};
	struct conf c = {0};

	c.ratelimit.rate = 0.001;
	c.ratelimit.burst = 2;
	c.ratelimit.trackers = (struct conf_buckets){.v = &wakeup, .n = 1};
	c.fleet.peer_rate = 0.001;
	c.fleet.peer_burst = 1;
	c.fleet.total_rate = 0.001;
	c.fleet.total_burst = 1;
	snprintf((char *)alert.alert.tracker, sizeof(alert.alert.tracker), "wakeup");
	snprintf(peer.peer.alert.host, sizeof(peer.peer.alert.host), "h1");
	ASSERT_EQ(limits_configure(&l, &c, SEC), 0);

	ASSERT_TRUE(limits_allow(&l, &alert, SEC));
	ASSERT_TRUE(!limits_allow(&l, &alert, SEC)); /* its tracker's bucket is empty */
	limits_give_back(&l, &alert);
	ASSERT_EQ((long)limits_tokens(&l.global, SEC), 2);
	ASSERT_EQ((long)limits_tokens(&l.trackers[0].b, SEC), 1);
	ASSERT_TRUE(limits_allow(&l, &alert, SEC));
	/* Given back twice: no more than the burst. */
	limits_give_back(&l, &alert);
	limits_give_back(&l, &alert);
	ASSERT_EQ((long)(limits_tokens(&l.global, SEC) * 1000), 2000);
	ASSERT_EQ((long)(limits_tokens(&l.trackers[0].b, SEC) * 1000), 1000);

	ASSERT_TRUE(limits_allow_peer(&l, &peer, SEC) == NULL);
	ASSERT_STREQ(limits_allow_peer(&l, &peer, SEC), PROTO_FLEET_BUDGET_ORIGIN);
	limits_give_back(&l, &peer);
	ASSERT_TRUE(limits_allow_peer(&l, &peer, SEC) == NULL);
	/* The local alerts' buckets were not the peer's to fill. */
	ASSERT_EQ((long)(limits_tokens(&l.global, SEC) * 1000), 2000);
	limits_done(&l);

	/* No limit, nothing to count. */
	c = (struct conf){0};
	ASSERT_EQ(limits_configure(&l, &c, SEC), 0);
	limits_give_back(&l, &alert);
	ASSERT_EQ((long)limits_tokens(&l.global, SEC), -1);
	limits_done(&l);
}

int main(void)
{
	RUN(test_burst_then_rate);
	RUN(test_storm_is_bounded_by_rate);
	RUN(test_refill_caps_at_burst);
	RUN(test_all_or_nothing);
	RUN(test_unlimited_and_clock_going_back);
	RUN(test_reconfigure_keeps_earned_tokens);
	RUN(test_peer_budgets);
	RUN(test_give_back);
	return 0;
}
