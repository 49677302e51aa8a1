/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A peer's alert as latencyd takes it from latencyd-fleet: a receipt time past this
 * host's CLOCK_MONOTONIC, or none, is refused (it would become the cause's time in the catalog);
 * a peer whose clock is far from this host's is named (fleet_skew.c), once per origin and
 * hour, every such alert counted, the lines of many origins spaced out.
 */
#include <stdio.h>
#include <string.h>

#include "fleet-setup.h"
#include "fleet_skew.h"
#include "fleet_wire.h"
#include "tests.h"
#include "thread.h"

#define SEC (UINT64_C(1000000000))

static struct fleet_wire_event e;

static void test_received_time(void)
{
	uint32_t kinds[] = {FLEET_PEER_ALERT, FLEET_UNANSWERED};
	char why[160];

	for (size_t i = 0; i < 2; i++) {
		test_fleet_peer_alert(&e, kinds[i]);
		ASSERT_TRUE(fleet_wire_event_check(&e, sizeof(e), "h1", "lab", why, sizeof(why)));
		e.ev.received_ns = UINT64_MAX;
		ASSERT_TRUE(!fleet_wire_event_check(&e, sizeof(e), "h1", "lab", why, sizeof(why)));
		ASSERT_CONTAINS(why, "received_ns in the future");
		e.ev.received_ns = now_ns() + 3600 * SEC;
		ASSERT_TRUE(!fleet_wire_event_check(&e, sizeof(e), "h1", "lab", why, sizeof(why)));
		e.ev.received_ns = 0;
		ASSERT_TRUE(!fleet_wire_event_check(&e, sizeof(e), "h1", "lab", why, sizeof(why)));
		ASSERT_CONTAINS(why, "received_ns 0");
	}
}

static struct proto_fleet_alert alert_of(const char *host, uint64_t sent)
{
	struct proto_fleet_alert a = {.sent_realtime_ns = sent};

	snprintf(a.host, sizeof(a.host), "%s", host);
	snprintf(a.incident, sizeof(a.incident), "%s-1", host);
	return a;
}

static void test_skew(void)
{
	static struct fleet_skew s; /* zeroed: nothing said yet */
	const uint64_t max_age = 5 * SEC, recv = 1000000 * SEC;
	uint64_t now = 100 * SEC;
	struct proto_fleet_alert a;
	char msg[400];

	/* Within half of max_age either way: nothing, not counted. */
	a = alert_of("h2", recv + 2 * SEC);
	ASSERT_TRUE(!fleet_skew_check(&s, &a, recv, max_age, now, msg, sizeof(msg)));
	a = alert_of("h2", recv - 2 * SEC);
	ASSERT_TRUE(!fleet_skew_check(&s, &a, recv, max_age, now, msg, sizeof(msg)));
	ASSERT_EQ(s.count, 0);

	/* 6 s ahead: said, with the host, how far, which way and the setting. */
	a = alert_of("h2", recv + 6 * SEC);
	ASSERT_TRUE(fleet_skew_check(&s, &a, recv, max_age, now, msg, sizeof(msg)));
	ASSERT_CONTAINS(msg, "h2's clock is 6.0 s ahead of this host's");
	ASSERT_CONTAINS(msg, "fleet.max_age (5.0 s)");
	ASSERT_CONTAINS(msg, "stale");
	ASSERT_EQ(s.count, 1);

	/* Another origin, behind: its own line, but not within a second of the last one. */
	a = alert_of("h3", recv - 4 * SEC);
	ASSERT_TRUE(!fleet_skew_check(&s, &a, recv, max_age, now + SEC / 2, msg, sizeof(msg)));
	ASSERT_TRUE(fleet_skew_check(&s, &a, recv, max_age, now + 2 * SEC, msg, sizeof(msg)));
	ASSERT_CONTAINS(msg, "h3's clock is 4.0 s behind this host's, or its alert took");
	ASSERT_EQ(s.count, 3);

	/* Not again within the hour, counted all the same. */
	a = alert_of("h2", recv + 6 * SEC);
	for (int i = 0; i < 10; i++) {
		now += 10 * SEC;
		ASSERT_TRUE(!fleet_skew_check(&s, &a, recv, max_age, now, msg, sizeof(msg)));
	}
	ASSERT_EQ(s.count, 13);

	/* An hour after h2's line: said again. */
	a = alert_of("h2", recv + 6 * SEC);
	now = 100 * SEC + FLEET_SKEW_SAY_EVERY_NS;
	ASSERT_TRUE(fleet_skew_check(&s, &a, recv, max_age, now, msg, sizeof(msg)));

	/* Many origins: the table stays bounded, each new origin said (spaced out). */
	for (int i = 0; i < 3 * FLEET_SKEW_ORIGINS; i++) {
		char host[16];

		snprintf(host, sizeof(host), "m%d", i);
		a = alert_of(host, recv + 10 * SEC);
		now += 2 * SEC;
		ASSERT_TRUE(fleet_skew_check(&s, &a, recv, max_age, now, msg, sizeof(msg)));
	}
}

int main(void)
{
	RUN(test_received_time);
	RUN(test_skew);
	return 0;
}
