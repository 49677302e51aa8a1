/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fleet/fleet_wire.c: what latencyd accepts from latencyd-fleet. The helper parses the
 * network; a helper taken over can send any bytes, and each lie below is refused.
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "fleet-setup.h"
#include "fleet_wire.h"
#include "tests.h"

static struct fleet_wire_event e;

/* A peer's alert as a sound helper sends it: h2's incident, group lab, to h1. */
static void good_alert(void)
{
	test_fleet_peer_alert(&e, FLEET_PEER_ALERT);
	snprintf(e.st.detail, sizeof(e.st.detail), "connected");
}

static bool check(size_t len, char *why)
{
	return fleet_wire_event_check(&e, len, "h1", "lab", why, 160);
}

static void test_alert(void)
{
	char why[160];

	good_alert();
	ASSERT_TRUE(check(sizeof(e), why));
	ASSERT_TRUE(!check(sizeof(e) - 1, why)); /* short */
	ASSERT_CONTAINS(why, "not an event");
	e.type = FLEET_WIRE_STOP;
	ASSERT_TRUE(!check(sizeof(e), why));
	good_alert();
	e.ev.kind = 99;
	ASSERT_TRUE(!check(sizeof(e), why));
	ASSERT_CONTAINS(why, "unknown kind");
	e.ev.kind = FLEET_WIRE_HEARTBEAT; /* the counters, from the request loop */
	ASSERT_TRUE(check(sizeof(e), why));
	good_alert(); /* our own incident, as if a peer's */
	snprintf(e.ev.alert.host, sizeof(e.ev.alert.host), "h1");
	snprintf(e.ev.alert.incident, sizeof(e.ev.alert.incident), "h1-7");
	ASSERT_TRUE(!check(sizeof(e), why));
	good_alert(); /* h3's incident from h2 */
	snprintf(e.ev.alert.incident, sizeof(e.ev.alert.incident), "h3-7");
	ASSERT_TRUE(!check(sizeof(e), why));
	ASSERT_CONTAINS(why, "not its sender's incident");
	good_alert();
	snprintf(e.ev.alert.group, sizeof(e.ev.alert.group), "other");
	ASSERT_TRUE(!check(sizeof(e), why));
	good_alert(); /* a name without its terminator */
	memset(e.ev.alert.host, 'a', sizeof(e.ev.alert.host));
	ASSERT_TRUE(!check(sizeof(e), why));
	good_alert(); /* an escape sequence for a terminal */
	snprintf(e.ev.alert.comm, sizeof(e.ev.alert.comm), "\x1b[2J");
	ASSERT_TRUE(!check(sizeof(e), why));
	good_alert();
	memset(e.st.detail, 'x', sizeof(e.st.detail));
	ASSERT_TRUE(!check(sizeof(e), why));
	ASSERT_CONTAINS(why, "status");
}

static void test_result_and_presence(void)
{
	struct proto_fleet_result *r = &e.ev.result;
	char why[160];

	memset(&e, 0, sizeof(e));
	e.type = FLEET_WIRE_EVENT;
	e.ev.kind = FLEET_RESULT;
	snprintf(r->host, sizeof(r->host), "h2");
	snprintf(r->group, sizeof(r->group), "lab");
	snprintf(r->status, sizeof(r->status), "%s", PROTO_FLEET_RECORDED);
	snprintf(r->incidents[0], sizeof(r->incidents[0]), "h1-3");
	r->n = r->count = 1;
	ASSERT_TRUE(check(sizeof(e), why));
	r->n = 2; /* the second incident is empty */
	r->count = 2;
	ASSERT_TRUE(!check(sizeof(e), why));
	ASSERT_CONTAINS(why, "a result that does not pass the protocol's checks");
	/*
	 * Every slot a valid incident of h1's, and the bytes that follow the array (count's)
	 * one too, were they read as a 25th: only the bound refuses n past the array.
	 */
	for (int i = 0; i < PROTO_FLEET_RESULT_INCIDENTS; i++)
		snprintf(r->incidents[i], sizeof(r->incidents[i]), "h1-%d", i + 1);
	r->n = r->count = PROTO_FLEET_RESULT_INCIDENTS;
	ASSERT_TRUE(check(sizeof(e), why));
	_Static_assert(offsetof(struct proto_fleet_result, count) ==
			       offsetof(struct proto_fleet_result, incidents) +
				       sizeof(r->incidents),
		       "count follows the incidents");
	memcpy(&r->count, "h1-25\0\0", sizeof(r->count)); /* >= 25, whatever the byte order */
	r->n = PROTO_FLEET_RESULT_INCIDENTS + 1;
	ASSERT_TRUE(!check(sizeof(e), why));
	ASSERT_CONTAINS(why, "a result that does not pass the protocol's checks");
	memset(r->incidents, 0, sizeof(r->incidents));
	snprintf(r->incidents[0], sizeof(r->incidents[0]), "h1-3");
	r->n = r->count = 1;
	snprintf(r->status, sizeof(r->status), "owned");
	ASSERT_TRUE(!check(sizeof(e), why));
	ASSERT_CONTAINS(why, "a result that does not pass the protocol's checks");
	/* Results come to their origin only: one about h3's incidents is not for h1. */
	snprintf(r->status, sizeof(r->status), "%s", PROTO_FLEET_RECORDED);
	snprintf(r->incidents[0], sizeof(r->incidents[0]), "h3-3");
	ASSERT_TRUE(!check(sizeof(e), why));
	ASSERT_CONTAINS(why, "not about this host's incidents");

	memset(&e, 0, sizeof(e));
	e.type = FLEET_WIRE_EVENT;
	e.ev.kind = FLEET_PRESENCE;
	snprintf(e.ev.presence.host, sizeof(e.ev.presence.host), "h2");
	snprintf(e.ev.presence.group, sizeof(e.ev.presence.group), "lab");
	snprintf(e.ev.presence.state, sizeof(e.ev.presence.state), "%s", PROTO_FLEET_ONLINE);
	ASSERT_TRUE(check(sizeof(e), why));
	/* A renewal period: none (an older member), or one the protocol allows. */
	e.ev.presence.every_s = PROTO_FLEET_EVERY_MAX_S;
	ASSERT_TRUE(check(sizeof(e), why));
	e.ev.presence.every_s = PROTO_FLEET_EVERY_MAX_S + 1;
	ASSERT_TRUE(!check(sizeof(e), why));
	ASSERT_CONTAINS(why, "presence");
	e.ev.presence.every_s = UINT32_MAX;
	ASSERT_TRUE(!check(sizeof(e), why));
	e.ev.presence.every_s = 0;
	snprintf(e.ev.presence.state, sizeof(e.ev.presence.state), "root");
	ASSERT_TRUE(!check(sizeof(e), why));
}

/* The helper's settings: a presence renewed 1 s to 1 h apart, never 0 (never renewed). */
static void test_settings(void)
{
	static struct fleet_wire_settings s = {.type = FLEET_WIRE_SETTINGS,
					       .user = "nobody",
					       .host = "h1",
					       .group = "lab",
					       .prefix = "latencyd",
					       .broker_host = "127.0.0.1",
					       .port = 1883,
					       .max_age_ns = 5000000000ULL,
					       .presence_every_s = 60};

	ASSERT_TRUE(fleet_wire_settings_check(&s, sizeof(s)));
	s.presence_every_s = 0;
	ASSERT_TRUE(!fleet_wire_settings_check(&s, sizeof(s)));
	s.presence_every_s = PROTO_FLEET_EVERY_MAX_S + 1;
	ASSERT_TRUE(!fleet_wire_settings_check(&s, sizeof(s)));
	s.presence_every_s = PROTO_FLEET_EVERY_MIN_S;
	ASSERT_TRUE(fleet_wire_settings_check(&s, sizeof(s)));
}

static void test_requests(void)
{
	static struct fleet_wire_request q;

	q.type = FLEET_WIRE_PUBLISH_ALERT;
	q.seq = 1; /* an alert's outcome names it: 0 is none */
	snprintf(q.alert.host, sizeof(q.alert.host), "h1");
	snprintf(q.alert.group, sizeof(q.alert.group), "lab");
	snprintf(q.alert.incident, sizeof(q.alert.incident), "h1-1");
	snprintf(q.alert.tracker, sizeof(q.alert.tracker), "syscalls");
	ASSERT_TRUE(fleet_wire_request_check(&q, sizeof(q)));
	ASSERT_TRUE(!fleet_wire_request_check(&q, sizeof(q) + 1));
	q.seq = 0;
	ASSERT_TRUE(!fleet_wire_request_check(&q, sizeof(q)));
	q.seq = 1;
	snprintf(q.alert.incident, sizeof(q.alert.incident), "h2-1");
	ASSERT_TRUE(!fleet_wire_request_check(&q, sizeof(q)));
	q.type = FLEET_WIRE_STOP;
	ASSERT_TRUE(fleet_wire_request_check(&q, sizeof(q)));
	/* A place to forget names its alert. */
	q.type = FLEET_WIRE_FORGET;
	ASSERT_TRUE(fleet_wire_request_check(&q, sizeof(q)));
	q.seq = 0;
	ASSERT_TRUE(!fleet_wire_request_check(&q, sizeof(q)));
	/* A result goes to one origin, another host: h1 answering h2 and h3 at once, or itself,
	 * is no request. */
	memset(&q, 0, sizeof(q));
	q.type = FLEET_WIRE_PUBLISH_RESULT;
	snprintf(q.result.host, sizeof(q.result.host), "h1");
	snprintf(q.result.group, sizeof(q.result.group), "lab");
	snprintf(q.result.status, sizeof(q.result.status), "%s", PROTO_FLEET_STALE);
	snprintf(q.result.incidents[0], sizeof(q.result.incidents[0]), "h2-4");
	snprintf(q.result.incidents[1], sizeof(q.result.incidents[1]), "h2-5");
	q.result.n = q.result.count = 2;
	ASSERT_TRUE(fleet_wire_request_check(&q, sizeof(q)));
	snprintf(q.result.incidents[1], sizeof(q.result.incidents[1]), "h3-5");
	ASSERT_TRUE(!fleet_wire_request_check(&q, sizeof(q)));
	snprintf(q.result.incidents[0], sizeof(q.result.incidents[0]), "h1-4");
	q.result.n = q.result.count = 1;
	ASSERT_TRUE(!fleet_wire_request_check(&q, sizeof(q)));
}

int main(void)
{
	RUN(test_alert);
	RUN(test_result_and_presence);
	RUN(test_requests);
	RUN(test_settings);
	printf("ok\n");
	return 0;
}
