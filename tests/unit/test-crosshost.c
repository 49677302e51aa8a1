/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The wait that crosses hosts, on two logs built event by event: a client on web1
 * (10.0.0.1) sends a request to postgres on db1 (10.0.0.2), whose clock is 5 s ahead; the
 * server waits 40 ms on its disk, replies (and its timer retransmits the reply), and the
 * client, blocked in recvfrom, is woken by the reply in NET_RX. Checks the packet matching,
 * the clock alignment from the packets both ways (the retransmission not tightening it
 * wrongly), the chain going on into db1, and what is said when db1's snapshot is missing
 * or begins too late.
 */
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "an.h"
#include "analysis-result.h"
#include "analysis.h"
#include "chain.h"
#include "crosshost.h"
#include "results.h"
#include "tests.h"

#define US   1000ULL
#define MS   1000000ULL
#define T0   (1700000000ULL * 1000000000ULL)
#define SKEW (5000 * MS) /* db1's clock minus web1's */

enum { CLIENT = 412, POSTGRES = 977, NET_RX = 3 };

static struct an_result *web, *db;

static int32_t sysname(struct an_result *r, const char *name)
{
	char **s = an_vec_push(&r->log.sysnames);

	ASSERT_TRUE(s && (*s = strdup(name)));
	return (int32_t)r->log.sysnames.n - 1;
}

/* A TCP segment from web1 (out) or db1 (!out): sent (xmit) or received, at ts on cpu. */
static void seg(struct an_result *r, uint64_t ts, uint16_t cpu, bool xmit, bool from_web,
		uint32_t seq, uint32_t ack, uint32_t len)
{
	struct an_packet *p = an_vec_push(&r->log.packets);
	uint8_t w[4] = {10, 0, 0, 1}, d[4] = {10, 0, 0, 2};

	ASSERT_TRUE(p);
	*p = (struct an_packet){.family = 4,
				.proto = 6,
				.sport = from_web ? 41234 : 5432,
				.dport = from_web ? 5432 : 41234,
				.seq = seq,
				.ack = ack,
				.len = len,
				.flags = 0x10,
				.ev = (int32_t)r->log.ev.n,
				.tid = -1};
	memcpy(p->saddr, from_web ? w : d, 4);
	memcpy(p->daddr, from_web ? d : w, 4);
	result_ev(r, ts, cpu, xmit ? EV_NET_XMIT : EV_NET_RECV, (int32_t)r->log.packets.n - 1, 0,
		  0);
}

static void alert(struct an_result *r, uint64_t start, uint64_t end)
{
	struct an_alert *al = an_vec_push(&r->log.alerts);

	ASSERT_TRUE(al);
	*al = (struct an_alert){.ts = end,
				.start = start,
				.end = end,
				.delay = end - start,
				.tid = CLIENT,
				.pid = CLIENT,
				.reason = 1,
				.seq = 1};
	snprintf(al->tracker, sizeof(al->tracker), "syscalls");
	snprintf(al->comm, sizeof(al->comm), "client");
	result_ev(r, end, 0, EV_ALERT, 0, 0, 0);
}

static void compute(struct an_result *r)
{
	struct an_options opt = {.tables = false};
	char *why = NULL;

	ASSERT_EQ(an_compute(r, &opt, &why), 0);
}

/* web1's side: the request out at 1 ms, blocked in recvfrom from 2 ms, the reply in at 44.3. */
static struct an_result *build_web(void)
{
	struct an_result *r = an_result_new("/web1");
	int32_t recvfrom;

	ASSERT_TRUE(r);
	r->log.ncpu = 2;
	result_comm(r, CLIENT, "client");
	recvfrom = sysname(r, "recvfrom");
	result_ev(r, T0, 0, EV_SWITCH, 0, CLIENT, 0);
	result_ev(r, T0 + 1 * MS, 0, EV_SYS_ENTRY, sysname(r, "sendto"), 0, 0);
	seg(r, T0 + 1 * MS, 0, true, true, 1000, 5000, 100); /* the request */
	result_ev(r, T0 + 1 * MS + 10 * US, 0, EV_SYS_EXIT, 1, 0, 100);
	seg(r, T0 + 1450 * US, 1, false, false, 5000, 1100, 0); /* db1's ACK of it */
	result_ev(r, T0 + 2 * MS, 0, EV_SYS_ENTRY, recvfrom, 0, 0);
	result_ev(r, T0 + 2 * MS, 0, EV_SWITCH, CLIENT, 0, 1);
	result_ev(r, T0 + 44300 * US, 1, EV_IRQ_ENTRY, 10, 0, 0);
	result_ev(r, T0 + 44300 * US, 1, EV_SOFTIRQ_RAISE, NET_RX, 0, 0);
	result_ev(r, T0 + 44300 * US, 1, EV_IRQ_EXIT, 10, 0, 0);
	result_ev(r, T0 + 44300 * US, 1, EV_SOFTIRQ_ENTRY, NET_RX, 0, 0);
	seg(r, T0 + 44300 * US, 1, false, false, 5000, 1100, 200); /* the reply */
	result_ev(r, T0 + 44310 * US, 1, EV_WAKING, CLIENT, 0, 0);
	result_ev(r, T0 + 44320 * US, 1, EV_SOFTIRQ_EXIT, NET_RX, 0, 0);
	result_ev(r, T0 + 44400 * US, 0, EV_SWITCH, 0, CLIENT, 0);
	result_ev(r, T0 + 44400 * US, 0, EV_SYS_EXIT, recvfrom, 0, 200);
	seg(r, T0 + 44500 * US, 0, true, true, 1100, 5200, 0);	   /* its ACK */
	seg(r, T0 + 45300 * US, 1, false, false, 5000, 1100, 200); /* the retransmission */
	alert(r, T0 + 2 * MS, T0 + 44400 * US);
	compute(r);
	return r;
}

/*
 * db1's side, on its clock (SKEW ahead), from BEGIN: the request in at 1.2 ms wakes
 * postgres, blocked in fsync from 3 ms to 43 ms, the reply out at 44 ms, again at 45.
 */
static struct an_result *build_db(uint64_t begin)
{
	struct an_result *r = an_result_new("/db1");
	const uint64_t t = T0 + SKEW;
	int32_t fsync;

	ASSERT_TRUE(r);
	r->log.ncpu = 1;
	result_comm(r, POSTGRES, "postgres");
	fsync = sysname(r, "fsync");
	if (begin <= 1 * MS) {
		result_ev(r, t + begin, 0, EV_SWITCH, POSTGRES, 0, 1);
		result_ev(r, t + 1200 * US, 0, EV_SOFTIRQ_ENTRY, NET_RX, 0, 0);
		seg(r, t + 1200 * US, 0, false, true, 1000, 5000, 100);
		result_ev(r, t + 1210 * US, 0, EV_WAKING, POSTGRES, 0, 0);
		seg(r, t + 1250 * US, 0, true, false, 5000, 1100, 0);
		result_ev(r, t + 1300 * US, 0, EV_SOFTIRQ_EXIT, NET_RX, 0, 0);
		result_ev(r, t + 2 * MS, 0, EV_SWITCH, 0, POSTGRES, 0);
	} else {
		result_ev(r, t + begin, 0, EV_SWITCH, 0, POSTGRES, 0);
	}
	result_ev(r, t + 3 * MS, 0, EV_SYS_ENTRY, fsync, 0, 0);
	result_ev(r, t + 3 * MS, 0, EV_SWITCH, POSTGRES, 0, 2); /* D */
	result_ev(r, t + 43 * MS, 0, EV_IRQ_ENTRY, 11, 0, 0);
	result_ev(r, t + 43 * MS, 0, EV_BLOCK_COMPLETE, (254 << 20) | 0, 0, 0);
	result_ev(r, t + 43 * MS, 0, EV_WAKING, POSTGRES, 0, 0);
	result_ev(r, t + 43 * MS, 0, EV_IRQ_EXIT, 11, 0, 0);
	result_ev(r, t + 43500 * US, 0, EV_SWITCH, 0, POSTGRES, 0);
	result_ev(r, t + 43500 * US, 0, EV_SYS_EXIT, fsync, 0, 0);
	seg(r, t + 44 * MS, 0, true, false, 5000, 1100, 200); /* sent by postgres */
	result_ev(r, t + 44700 * US, 0, EV_SOFTIRQ_ENTRY, NET_RX, 0, 0);
	seg(r, t + 44700 * US, 0, false, true, 1100, 5200, 0);
	result_ev(r, t + 44710 * US, 0, EV_SOFTIRQ_EXIT, NET_RX, 0, 0);
	result_ev(r, t + 45 * MS, 0, EV_SOFTIRQ_ENTRY, 1, 0, 0); /* TIMER: a retransmission */
	seg(r, t + 45 * MS, 0, true, false, 5000, 1100, 200);
	result_ev(r, t + 45010 * US, 0, EV_SOFTIRQ_EXIT, 1, 0, 0);
	compute(r);
	return r;
}

static void test_across(void)
{
	struct an_crosshost_host hosts[] = {{"web1", &web->log}, {"db1", &db->log}};
	const struct an_cause *c;
	const struct an_crossing *x;
	const struct an_link *l;
	struct an_host_time split[AN_HOST_SPLIT_MAX];
	bool fsync_seen = false;

	ASSERT_EQ(an_crosshost(hosts, 2, 0, &web->causes), 0);
	c = result_cause(web);
	ASSERT_EQ(c->crossings.n, 1);
	x = AN_AT(&c->crossings, struct an_crossing, 0);
	l = AN_AT(&c->links, struct an_link, x->link);
	ASSERT_EQ(l->tid, CLIENT);
	ASSERT_EQ(l->iv.wake, WK_SOFTIRQ);
	ASSERT_STREQ(x->host, "db1");
	ASSERT_EQ(x->sender, POSTGRES);			/* the first sending, not the timer's */
	ASSERT_EQ(x->sent, T0 + SKEW + 44 * MS);	/* on db1's clock */
	ASSERT_EQ(x->offset, (int64_t)SKEW);		/* the middle of the bounds */
	ASSERT_EQ(x->uncertainty, (int64_t)(200 * US)); /* 5 s - 0.2 ms .. 5 s + 0.2 ms */
	ASSERT_EQ(x->remote, 42 * MS);			/* 2 ms to 44 ms, on db1 */
	ASSERT_EQ(x->flight, 310 * US);			/* sent at 44, woke at 44.31 */
	ASSERT_EQ(an_cross_host_ns(c), 42 * MS);
	ASSERT_EQ(an_cross_host_split(c, split, AN_HOST_SPLIT_MAX), 1);
	ASSERT_STREQ(split[0].host, "db1");
	ASSERT_EQ(split[0].ns, 42 * MS);
	for (size_t i = x->link + 1; i < c->links.n; i++) {
		l = AN_AT(&c->links, struct an_link, i);
		if (l->depth == 0)
			break; /* the client again, after its wakeup */
		ASSERT_EQ(l->depth, 1);
		ASSERT_EQ(l->tid, POSTGRES);
		ASSERT_STREQ(l->host, "db1");
		if (l->iv.state == ST_BLOCKED_D) {
			ASSERT_EQ(l->iv.wake, WK_IRQ);
			ASSERT_EQ(l->iv.who, 11);
			ASSERT_STREQ(an_sysname(l->log, l->iv.syscall), "fsync");
			ASSERT_EQ(l->iv.t1 - l->iv.t0, 40 * MS);
			fsync_seen = true;
		}
	}
	ASSERT_TRUE(fsync_seen);
	ASSERT_CONTAINS(c->story, "sent by postgres (tid 977 on db1)");
	ASSERT_CONTAINS(c->story, "postgres (tid 977 on db1) meanwhile:");
	ASSERT_CONTAINS(c->story, "blocked-uninterruptible in fsync");
	ASSERT_TRUE(!cause_has_note(c, "cross by"));
}

static void test_json(void)
{
	struct json_object *o = an_result_json(web), *chain, *link = NULL, *p, *v;

	ASSERT_TRUE(json_object_object_get_ex(
		json_object_array_get_idx(json_object_object_get(o, "alerts"), 0), "chain",
		&chain));
	for (size_t i = 0; i < json_object_array_length(chain) && !link; i++)
		if (json_object_object_get_ex(json_object_array_get_idx(chain, i), "packet", &p))
			link = json_object_array_get_idx(chain, i);
	ASSERT_TRUE(link);
	ASSERT_STREQ(json_object_get_string(json_object_object_get(p, "from")), "10.0.0.2:5432");
	ASSERT_STREQ(json_object_get_string(json_object_object_get(p, "host")), "db1");
	ASSERT_TRUE(json_object_object_get_ex(p, "sender", &v));
	ASSERT_EQ(json_object_get_int(json_object_object_get(v, "tid")), POSTGRES);
	ASSERT_EQ(json_object_get_int64(json_object_object_get(p, "clock_offset_ns")),
		  (int64_t)SKEW);
	ASSERT_CONTAINS(json_object_to_json_string_ext(o, JSON_C_TO_STRING_SPACED),
			"\"cross_host_by_host\": [ { \"host\": \"db1\", \"ns\": 42000000 } ]");
	json_object_put(o);
}

/* db1 absent: the chain stops at the packet and says why. */
static void test_missing_peer(void)
{
	struct an_result *alone = build_web();
	struct an_crosshost_host hosts[] = {{"web1", &alone->log}};
	const struct an_cause *c;

	ASSERT_EQ(an_crosshost(hosts, 1, 0, &alone->causes), 0);
	c = result_cause(alone);
	ASSERT_EQ(c->crossings.n, 0);
	ASSERT_TRUE(cause_has_note(c, "10.0.0.2:5432 > 10.0.0.1:41234 TCP seq 5000:5200"));
	ASSERT_TRUE(cause_has_note(c, "in no other host's snapshot"));
	an_result_free(alone);
}

/* db1's snapshot begins at 30 ms: the reply is matched, what came before is said unknown. */
static void test_late_peer(void)
{
	struct an_result *w = build_web(), *d = build_db(30 * MS);
	struct an_crosshost_host hosts[] = {{"web1", &w->log}, {"db1", &d->log}};
	const struct an_cause *c;
	const struct an_crossing *x;

	ASSERT_EQ(an_crosshost(hosts, 2, 0, &w->causes), 0);
	c = result_cause(w);
	ASSERT_EQ(c->crossings.n, 1);
	x = AN_AT(&c->crossings, struct an_crossing, 0);
	ASSERT_EQ(x->sender, POSTGRES);
	/* web1's ACK of the reply is the only bound from above now: 5 s + 0.2 ms. */
	ASSERT_EQ(x->offset - (int64_t)SKEW + x->uncertainty, (int64_t)(200 * US));
	ASSERT_TRUE(x->remote > 40 * MS);
	ASSERT_TRUE(cause_has_note(c, "db1's snapshot begins"));
	an_result_free(w);
	an_result_free(d);
}

/*
 * The same wait over UDP: the client's request datagram (IP id 7, from a connected socket)
 * and the reply, REPLY_LEN bytes with IP id REPLY_ID, over FAMILY; db1 also sent an earlier
 * reply of OTHER_LEN bytes (with id REPLY_ID - 1, or 0 when REPLY_ID is 0) on that flow.
 */
struct udp_case {
	uint8_t family;
	uint16_t reply_id;
	uint32_t reply_len, other_len;
};

static void dgram(struct an_result *r, uint64_t ts, uint16_t cpu, bool xmit, bool from_web,
		  const struct udp_case *u, uint16_t id, uint32_t len)
{
	struct an_packet *p = an_vec_push(&r->log.packets);

	ASSERT_TRUE(p);
	*p = (struct an_packet){.family = u->family,
				.proto = 17,
				.sport = from_web ? 41234 : 53,
				.dport = from_web ? 53 : 41234,
				.len = len,
				.ipid = u->family == 4 ? id : 0,
				.ev = (int32_t)r->log.ev.n,
				.tid = -1};
	p->saddr[0] = p->daddr[0] = 10;
	p->saddr[3] = from_web ? 1 : 2;
	p->daddr[3] = from_web ? 2 : 1;
	result_ev(r, ts, cpu, xmit ? EV_NET_XMIT : EV_NET_RECV, (int32_t)r->log.packets.n - 1, 0,
		  0);
}

static struct an_result *build_web_udp(const struct udp_case *u)
{
	struct an_result *r = an_result_new("/web1");
	int32_t recvfrom;

	ASSERT_TRUE(r);
	r->log.ncpu = 2;
	result_comm(r, CLIENT, "client");
	recvfrom = sysname(r, "recvfrom");
	result_ev(r, T0, 0, EV_SWITCH, 0, CLIENT, 0);
	dgram(r, T0 + 1 * MS, 0, true, true, u, 7, 40); /* the request */
	result_ev(r, T0 + 2 * MS, 0, EV_SYS_ENTRY, recvfrom, 0, 0);
	result_ev(r, T0 + 2 * MS, 0, EV_SWITCH, CLIENT, 0, 1);
	result_ev(r, T0 + 44300 * US, 1, EV_SOFTIRQ_ENTRY, NET_RX, 0, 0);
	dgram(r, T0 + 44300 * US, 1, false, false, u, u->reply_id, u->reply_len);
	result_ev(r, T0 + 44310 * US, 1, EV_WAKING, CLIENT, 0, 0);
	result_ev(r, T0 + 44320 * US, 1, EV_SOFTIRQ_EXIT, NET_RX, 0, 0);
	result_ev(r, T0 + 44400 * US, 0, EV_SWITCH, 0, CLIENT, 0);
	result_ev(r, T0 + 44400 * US, 0, EV_SYS_EXIT, recvfrom, 0, (int64_t)u->reply_len);
	alert(r, T0 + 2 * MS, T0 + 44400 * US);
	compute(r);
	return r;
}

static struct an_result *build_db_udp(const struct udp_case *u)
{
	struct an_result *r = an_result_new("/db1");
	const uint64_t t = T0 + SKEW;

	ASSERT_TRUE(r);
	r->log.ncpu = 1;
	result_comm(r, POSTGRES, "named");
	result_ev(r, t, 0, EV_SWITCH, 0, POSTGRES, 0);
	dgram(r, t + 500 * US, 0, true, false, u, u->reply_id ? u->reply_id - 1 : 0, u->other_len);
	dgram(r, t + 1200 * US, 0, false, true, u, 7, 40);
	dgram(r, t + 44 * MS, 0, true, false, u, u->reply_id, u->reply_len);
	compute(r);
	return r;
}

/* The crossing of a UDP case (one), after an_crosshost(). */
static const struct an_crossing *udp_crossing(const struct udp_case *u, struct an_result **w,
					      struct an_result **d)
{
	*w = build_web_udp(u);
	*d = build_db_udp(u);
	struct an_crosshost_host hosts[] = {{"web1", &(*w)->log}, {"db1", &(*d)->log}};

	ASSERT_EQ(an_crosshost(hosts, 2, 0, &(*w)->causes), 0);
	ASSERT_EQ(result_cause(*w)->crossings.n, 1);
	return AN_AT(&result_cause(*w)->crossings, struct an_crossing, 0);
}

/* Told apart by the IP id (IPv4, connected) or by the length: followed. */
static void test_udp_unique(void)
{
	static const struct udp_case cases[] = {{4, 300, 64, 64}, {6, 0, 64, 80}};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct an_result *w, *d;
		const struct an_crossing *x = udp_crossing(&cases[i], &w, &d);
		struct json_object *o = an_result_json(w);

		ASSERT_TRUE(x->peer);
		ASSERT_EQ(x->candidates, 1);
		ASSERT_EQ(x->sender, POSTGRES);
		ASSERT_EQ(x->sent, T0 + SKEW + 44 * MS);
		/* Between 5 s - 0.3 ms (the reply) and 5 s + 0.2 ms (the request). */
		ASSERT_EQ(x->offset, (int64_t)(SKEW - 50 * US));
		ASSERT_EQ(x->uncertainty, (int64_t)(250 * US));
		ASSERT_CONTAINS(json_object_to_json_string_ext(o, JSON_C_TO_STRING_SPACED),
				"\"match\": \"unique\"");
		json_object_put(o);
		an_result_free(w);
		an_result_free(d);
	}
}

/* Equal datagrams (IPv4 with IP id 0; IPv6): ambiguous, never guessed. */
static void test_udp_ambiguous(void)
{
	static const struct udp_case cases[] = {{4, 0, 64, 64}, {6, 0, 64, 64}};
	static const char *const why[] = {"IP id 0", "IPv6 carries no IP id"};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct an_result *w, *d;
		const struct an_crossing *x = udp_crossing(&cases[i], &w, &d);
		const struct an_cause *c = result_cause(w);
		const char *json;
		struct json_object *o = an_result_json(w);

		ASSERT_TRUE(!x->peer);
		ASSERT_EQ(x->candidates, 2);
		ASSERT_STREQ(x->host, "db1");
		ASSERT_EQ(an_cross_host_ns(c), 0);
		ASSERT_TRUE(cause_has_note(c, "is one of 2 alike"));
		ASSERT_TRUE(cause_has_note(c, why[i]));
		ASSERT_CONTAINS(c->story,
				"one of 2 sent alike on db1: not told apart, not followed");
		ASSERT_TRUE(!strstr(c->story, "named (tid 977 on db1) meanwhile:"));
		json = json_object_to_json_string_ext(o, JSON_C_TO_STRING_SPACED);
		ASSERT_CONTAINS(json, "\"match\": \"ambiguous\"");
		ASSERT_CONTAINS(json, "\"candidates\": 2");
		json_object_put(o);
		an_result_free(w);
		an_result_free(d);
	}
}

/*
 * Ten seconds of requests and replies, one every 100 ms, while db1's clock runs 100 ppm
 * fast: the drift-free bounds cross (1 ms apart at the ends), so the clocks are fitted with
 * their drift and the last wait, at 10 s, is aligned with the offset of that moment.
 */
#define DRIFT_PPM 100
static uint64_t db_clock(uint64_t web_t) /* db1's clock when web1's reads web_t */
{
	return web_t + SKEW + (web_t - T0) / (1000000 / DRIFT_PPM);
}

/* The drift said in a note, in ppm; 0 if none. */
static double ppm_noted(const struct an_cause *c)
{
	double ppm = 0;

	for (size_t i = 0; i < c->notes.n; i++) {
		const char *at = strstr(*AN_AT(&c->notes, char *, i), "drift apart by ");

		if (at && sscanf(at, "drift apart by %lf ppm", &ppm) == 1)
			return ppm;
	}
	return 0;
}

static void test_drift(void)
{
	struct an_result *w = an_result_new("/web1"), *d = an_result_new("/db1");
	struct an_crosshost_host hosts[] = {{"web1", &w->log}, {"db1", &d->log}};
	const uint64_t end = T0 + 10000 * MS;
	const struct an_crossing *x;
	int32_t recvfrom;
	int64_t truth;

	ASSERT_TRUE(w && d);
	w->log.ncpu = d->log.ncpu = 1;
	result_comm(w, CLIENT, "client");
	result_comm(d, POSTGRES, "postgres");
	recvfrom = sysname(w, "recvfrom");
	result_ev(w, T0, 0, EV_SWITCH, 0, CLIENT, 0);
	result_ev(d, db_clock(T0), 0, EV_SWITCH, 0, POSTGRES, 0);
	for (uint32_t k = 0; k < 100; k++) {
		uint64_t t = T0 + k * 100 * MS;

		seg(w, t, 0, true, true, 1000 + k * 100, 5000 + k * 100, 100);
		seg(d, db_clock(t + 200 * US), 0, false, true, 1000 + k * 100, 5000 + k * 100, 100);
		if (k == 99) /* the last reply comes later, after the client blocked */
			break;
		seg(d, db_clock(t + 1 * MS), 0, true, false, 5000 + k * 100, 1100 + k * 100, 100);
		seg(w, t + 1300 * US, 0, false, false, 5000 + k * 100, 1100 + k * 100, 100);
	}
	result_ev(w, end - 90 * MS, 0, EV_SYS_ENTRY, recvfrom, 0, 0);
	result_ev(w, end - 90 * MS, 0, EV_SWITCH, CLIENT, 0, 1);
	seg(d, db_clock(end - 1 * MS), 0, true, false, 14900, 10900, 100);
	result_ev(w, end, 0, EV_SOFTIRQ_ENTRY, NET_RX, 0, 0);
	seg(w, end, 0, false, false, 14900, 10900, 100);
	result_ev(w, end + 10 * US, 0, EV_WAKING, CLIENT, 0, 0);
	result_ev(w, end + 20 * US, 0, EV_SOFTIRQ_EXIT, NET_RX, 0, 0);
	result_ev(w, end + 100 * US, 0, EV_SWITCH, 0, CLIENT, 0);
	result_ev(w, end + 100 * US, 0, EV_SYS_EXIT, recvfrom, 0, 100);
	alert(w, end - 90 * MS, end + 100 * US);
	compute(w);
	compute(d);
	ASSERT_EQ(an_crosshost(hosts, 2, 0, &w->causes), 0);
	ASSERT_EQ(result_cause(w)->crossings.n, 1);
	x = AN_AT(&result_cause(w)->crossings, struct an_crossing, 0);
	truth = (int64_t)(db_clock(end) - end); /* 5 s + 1 ms */
	ASSERT_TRUE(x->uncertainty >= 0 && x->uncertainty < 300 * (int64_t)US);
	ASSERT_TRUE(llabs(x->offset - truth) <= x->uncertainty);
	ASSERT_TRUE(ppm_noted(result_cause(w)) > 95 && ppm_noted(result_cause(w)) < 105);
	ASSERT_TRUE(!cause_has_note(result_cause(w), "cross by"));
	an_result_free(w);
	an_result_free(d);
}

int main(void)
{
	web = build_web();
	db = build_db(0);
	RUN(test_across);
	RUN(test_json);
	RUN(test_missing_peer);
	RUN(test_late_peer);
	RUN(test_udp_unique);
	RUN(test_udp_ambiguous);
	RUN(test_drift);
	an_result_free(web);
	an_result_free(db);
	return 0;
}
