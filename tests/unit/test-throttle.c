/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * daemon/control/throttle.c on a real sd-event loop, with a short interval: a key's first
 * line is logged, the rest counted and said at the end of each interval; a quiet key is
 * forgotten; keys beyond the table share one count.
 */
#include <stdio.h>

#include "control.h"
#include "tests.h"

#define INTERVAL_USEC 20000ULL

static struct said {
	unsigned key;
	uint64_t count;
	char last[PROTO_MESSAGE_MAX];
} said[THROTTLE_KEYS + 4];
static size_t n_said;

static void say(unsigned key, uint64_t count, uint64_t interval_usec, const char *last)
{
	ASSERT_EQ(interval_usec, INTERVAL_USEC);
	ASSERT_TRUE(n_said < sizeof(said) / sizeof(said[0]));
	said[n_said].key = key;
	said[n_said].count = count;
	snprintf(said[n_said].last, sizeof(said[n_said].last), "%s", last);
	n_said++;
}

static const struct said *said_of(unsigned key)
{
	for (size_t i = 0; i < n_said; i++)
		if (said[i].key == key)
			return &said[i];
	return NULL;
}

/* Runs the loop until the running interval ends (its timer is the loop's only source). */
static void interval_end(sd_event *e, struct throttle *t)
{
	sd_event_source *timer = t->timer;

	ASSERT_TRUE(timer);
	n_said = 0;
	while (t->timer == timer && n_said == 0 && t->n > 0)
		ASSERT_TRUE(sd_event_run(e, UINT64_MAX) >= 0);
}

static void test_per_key(void)
{
	struct throttle t;
	sd_event *e;

	ASSERT_EQ(sd_event_new(&e), 0);
	throttle_init(&t, e, "test-throttle", INTERVAL_USEC, say);
	ASSERT_TRUE(throttle_now(NULL, 1, "no throttle: each logged"));

	/* The first of each key is logged; the others are counted. */
	ASSERT_TRUE(throttle_now(&t, 1000, "a1"));
	for (int i = 0; i < 500; i++)
		ASSERT_TRUE(!throttle_now(&t, 1000, i == 499 ? "a-last" : "a"));
	ASSERT_TRUE(throttle_now(&t, 1001, "b1"));
	ASSERT_EQ(n_said, 0);

	/* The interval's end: one line for 1000's 500, none for 1001, then forgotten. */
	interval_end(e, &t);
	ASSERT_EQ(n_said, 1);
	ASSERT_EQ(said[0].key, 1000);
	ASSERT_EQ(said[0].count, 500);
	ASSERT_STREQ(said[0].last, "a-last");
	ASSERT_TRUE(throttle_now(&t, 1001, "b2"));
	/* 1000 had lines: the next interval counts its lines too. */
	ASSERT_TRUE(!throttle_now(&t, 1000, "a2"));
	interval_end(e, &t);
	ASSERT_EQ(n_said, 1);
	ASSERT_EQ(said[0].count, 1);
	ASSERT_STREQ(said[0].last, "a2");

	/* An interval without any: every key forgotten, no timer runs, the next is logged. */
	interval_end(e, &t);
	ASSERT_EQ(n_said, 0);
	ASSERT_TRUE(!t.timer);
	ASSERT_EQ(t.n, 0);
	ASSERT_TRUE(throttle_now(&t, 1000, "a3"));

	/* Stopping says what is counted. */
	ASSERT_TRUE(!throttle_now(&t, 1000, "a4"));
	n_said = 0;
	throttle_done(&t);
	ASSERT_EQ(n_said, 1);
	ASSERT_EQ(said[0].count, 1);
	ASSERT_TRUE(!t.timer);
	sd_event_unref(e);
}

/* Many keys (uids) make a bounded number of lines: those beyond the table share one count. */
static void test_many_keys(void)
{
	struct throttle t;
	unsigned logged = 0;
	sd_event *e;

	ASSERT_EQ(sd_event_new(&e), 0);
	throttle_init(&t, e, "test-throttle", INTERVAL_USEC, say);
	for (unsigned round = 0; round < 3; round++)
		for (unsigned key = 0; key < 100; key++)
			logged += throttle_now(&t, key, "many");
	ASSERT_EQ(logged, THROTTLE_KEYS);
	interval_end(e, &t);
	ASSERT_EQ(n_said, THROTTLE_KEYS + 1);
	for (unsigned key = 0; key < THROTTLE_KEYS; key++)
		ASSERT_EQ(said_of(key)->count, 2);
	ASSERT_EQ(said_of(THROTTLE_OTHERS)->count, 3 * (100 - THROTTLE_KEYS));
	throttle_done(&t);
	sd_event_unref(e);
}

int main(void)
{
	RUN(test_per_key);
	RUN(test_many_keys);
	return 0;
}
