/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Which sending a received packet is, on logs built event by event: a client on web1
 * (10.0.0.1), blocked in recvfrom from 2 ms, is woken at 44.3 ms by a packet that a server
 * on db1 (10.0.0.2, its clock SKEW ahead) sent at 44 ms, after a request web1 sent at 1 ms.
 * Checks a datagram or an ACK found among any number of its flow's sendings, the sendings
 * it cannot be told apart from all counted and those after its receipt not, a coalesced
 * segment matched to the sending of its last byte, a packet sent on the host itself
 * followed there, a packet web1 handed on to a container followed to db1 (and one sent
 * again from a later softirq not taken for a copy), the ambiguity
 * said per protocol, forged extreme timestamps, a flow wrapping its sequence space, many
 * datagrams alike matched in no more than N log N, flows whose hashes collide kept apart,
 * and a log's sendings indexed once for all its alerts.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "an.h"
#include "analysis-result.h"
#include "analysis.h"
#include "chain.h"
#include "crosshost.h"
#include "results.h"
#include "sends.h"
#include "tests.h"

#define US   1000ULL
#define MS   1000000ULL
#define T0   (1700000000ULL * 1000000000ULL)
#define SKEW (5000 * MS)
#define MANY 600 /* more sendings of a flow than were once looked at */

enum { CLIENT = 412, SERVER = 977, WORKER = 978, NET_TX = 2, NET_RX = 3 };

/* A packet's headers: TCP (6) or UDP (17), from web1 or to it. */
struct pk {
	uint8_t proto;
	uint32_t seq, ack, len;
	uint16_t ipid;
};

static uint64_t base = T0; /* web1's clock at the start */
static uint64_t skew = SKEW;

/* K sent (xmit) or received at TS on CPU, from web1 (FROM_WEB) or to it; LOCAL: loopback. */
static void packet(struct an_result *r, uint64_t ts, uint16_t cpu, bool xmit, bool from_web,
		   bool local, const struct pk *k)
{
	struct an_packet *p = an_vec_push(&r->log.packets);
	uint16_t web_port = 41234, server_port = k->proto == 6 ? 5432 : 53;

	ASSERT_TRUE(p);
	*p = (struct an_packet){.family = 4,
				.proto = k->proto,
				.sport = from_web ? web_port : server_port,
				.dport = from_web ? server_port : web_port,
				.seq = k->seq,
				.ack = k->ack,
				.len = k->len,
				.ipid = k->ipid,
				.flags = 0x10,
				.ev = (int32_t)r->log.ev.n,
				.tid = -1};
	p->saddr[0] = p->daddr[0] = local ? 127 : 10;
	p->saddr[3] = local ? 1 : from_web ? 1 : 2;
	p->daddr[3] = local ? 1 : from_web ? 2 : 1;
	result_ev(r, ts, cpu, xmit ? EV_NET_XMIT : EV_NET_RECV, (int32_t)r->log.packets.n - 1, 0,
		  0);
}

static void compute(struct an_result *r)
{
	struct an_options opt = {.tables = false};
	char *why = NULL;

	ASSERT_EQ(an_compute(r, &opt, &why), 0);
}

static const struct pk request_udp = {17, 0, 0, 40, 7}, request_tcp = {6, 1000, 5000, 100, 0};

/* Builds of a sends index (an_sends_build() indexing a log anew). */
static unsigned builds;

int __real_an_sends_build(struct an_sends *s, const struct an_log *log);
int __wrap_an_sends_build(struct an_sends *s, const struct an_log *log);
int __wrap_an_sends_build(struct an_sends *s, const struct an_log *log)
{
	if (!s->built || s->log != log)
		builds++;
	return __real_an_sends_build(s, log);
}

/* Set: every flow hashes alike, as flows crafted to collide would. */
static bool collide;

uint64_t __real_an_flow_hash(const struct an_packet *p);
uint64_t __wrap_an_flow_hash(const struct an_packet *p);
uint64_t __wrap_an_flow_hash(const struct an_packet *p)
{
	return collide ? 42 : __real_an_flow_hash(p);
}

static const struct pk *request_of(const struct pk *reply)
{
	return reply->proto == 6 ? &request_tcp : &request_udp;
}

/*
 * The client blocked in recvfrom from 2 ms, woken at 44.3 ms by REPLY in NET_RX; FORWARDED:
 * web1 received it first on its NIC and handed it on to a container from that softirq
 * (FORWARD_RX), or from NET_TX right after it in the same pass (FORWARD_TX); the
 * container's side received it in the next one.
 */
enum { FORWARD_NONE, FORWARD_RX, FORWARD_TX };
static void client_forwarded(struct an_result *r, const struct pk *reply, int forwarded)
{
	int32_t recvfrom = an_sysname_index(&r->log, "recvfrom");

	result_comm(r, CLIENT, "client");
	result_ev(r, base, 0, EV_SWITCH, 0, CLIENT, 0);
	packet(r, base + 1 * MS, 0, true, true, false, request_of(reply));
	result_ev(r, base + 2 * MS, 0, EV_SYS_ENTRY, recvfrom, 0, 0);
	result_ev(r, base + 2 * MS, 0, EV_SWITCH, CLIENT, 0, 1);
	if (forwarded) { /* its NIC's softirq, then the container's side (a backlog) */
		result_ev(r, base + 44280 * US, 0, EV_SOFTIRQ_ENTRY, NET_RX, 0, 0);
		packet(r, base + 44285 * US, 0, false, false, false, reply);
		if (forwarded == FORWARD_TX) {
			result_ev(r, base + 44286 * US, 0, EV_SOFTIRQ_EXIT, NET_RX, 0, 0);
			result_ev(r, base + 44287 * US, 0, EV_SOFTIRQ_ENTRY, NET_TX, 0, 0);
		}
		packet(r, base + 44290 * US, 0, true, false, false, reply);
		result_ev(r, base + 44292 * US, 0, EV_SOFTIRQ_EXIT, NET_RX, 0, 0);
	}
	result_ev(r, base + 44300 * US, 0, EV_SOFTIRQ_ENTRY, NET_RX, 0, 0);
	packet(r, base + 44300 * US, 0, false, false, false, reply);
	result_ev(r, base + 44310 * US, 0, EV_WAKING, CLIENT, 0, 0);
	result_ev(r, base + 44320 * US, 0, EV_SOFTIRQ_EXIT, NET_RX, 0, 0);
	result_ev(r, base + 44400 * US, 0, EV_SWITCH, 0, CLIENT, 0);
	result_ev(r, base + 44400 * US, 0, EV_SYS_EXIT, recvfrom, 0, 100);
}

static void client_side(struct an_result *r, const struct pk *reply)
{
	client_forwarded(r, reply, FORWARD_NONE);
}

static void alert(struct an_result *r)
{
	struct an_alert *al = an_vec_push(&r->log.alerts);

	ASSERT_TRUE(al);
	*al = (struct an_alert){.ts = base + 44400 * US,
				.start = base + 2 * MS,
				.end = base + 44400 * US,
				.delay = 42400 * US,
				.tid = CLIENT,
				.pid = CLIENT,
				.reason = 1,
				.seq = 1};
	snprintf(al->tracker, sizeof(al->tracker), "syscalls");
	snprintf(al->comm, sizeof(al->comm), "client");
	result_ev(r, base + 44400 * US, 0, EV_ALERT, 0, 0, 0);
}

static struct an_result *web_with(const struct pk *reply)
{
	struct an_result *r = an_result_new("/web1");

	ASSERT_TRUE(r);
	r->log.ncpu = 1;
	client_side(r, reply);
	alert(r);
	compute(r);
	return r;
}

/* db1's server, running from 0, with the request in at 1.2 ms; its sendings are added. */
static struct an_result *db_begin(const char *path, const struct pk *request)
{
	struct an_result *r = an_result_new(path);

	ASSERT_TRUE(r);
	r->log.ncpu = 1;
	result_comm(r, SERVER, "postgres");
	result_comm(r, WORKER, "worker");
	result_ev(r, base + skew, 0, EV_SWITCH, 0, SERVER, 0);
	if (request)
		packet(r, base + skew + 1200 * US, 0, false, true, false, request);
	return r;
}

static void db_send(struct an_result *r, uint64_t at, const struct pk *k)
{
	packet(r, base + skew + at, 0, true, false, false, k);
}

/* web1 and DB crossed; the one crossing. */
static const struct an_crossing *crossed(struct an_result *w, struct an_result *d)
{
	struct an_crosshost_host hosts[] = {{"web1", &w->log}, {"db1", &d->log}};

	ASSERT_EQ(an_crosshost(hosts, 2, 0, &w->causes), 0);
	ASSERT_EQ(result_cause(w)->crossings.n, 1);
	return AN_AT(&result_cause(w)->crossings, struct an_crossing, 0);
}

/*
 * A datagram (IP id 7) or an ACK (no data) sent at 44 ms, then MANY other sendings of its
 * flow before its receipt: found, whatever their number.
 */
static void test_many_after(void)
{
	static const struct pk replies[] = {{17, 0, 0, 108, 7}, {6, 5000, 1100, 0, 0}};

	for (size_t i = 0; i < sizeof(replies) / sizeof(replies[0]); i++) {
		const struct pk *reply = &replies[i];
		struct an_result *w = web_with(reply), *d = db_begin("/db1", request_of(reply));
		const struct an_crossing *x;

		db_send(d, 44 * MS, reply);
		for (uint32_t k = 0; k < MANY; k++) {
			struct pk other = *reply;

			if (reply->proto == 17)
				other.ipid = (uint16_t)(8 + k);
			else
				other.ack = 2000 + k;
			db_send(d, 44 * MS + 100 * US + k * 200, &other);
		}
		compute(d);
		x = crossed(w, d);
		ASSERT_TRUE(x->peer);
		ASSERT_EQ(x->candidates, 1);
		ASSERT_EQ(x->sender, SERVER);
		ASSERT_EQ(x->sent, base + skew + 44 * MS);
		ASSERT_TRUE(!cause_has_note(result_cause(w), "in no other host's snapshot"));
		an_result_free(w);
		an_result_free(d);
	}
}

/*
 * Atomic datagrams (IP id 0) of one length: one at 10 ms, MANY of another length, the one
 * at 44 ms. Both are candidates, however far apart: ambiguous, not followed.
 */
static void test_alike_far_apart(void)
{
	static const struct pk reply = {17, 0, 0, 64, 0}, other = {17, 0, 0, 100, 0};
	struct an_result *w = web_with(&reply), *d = db_begin("/db1", &request_udp);
	const struct an_crossing *x;

	db_send(d, 10 * MS, &reply);
	for (uint32_t k = 0; k < MANY; k++)
		db_send(d, 11 * MS + k * 10 * US, &other);
	db_send(d, 44 * MS, &reply);
	compute(d);
	x = crossed(w, d);
	ASSERT_TRUE(!x->peer);
	ASSERT_EQ(x->candidates, 2);
	ASSERT_TRUE(cause_has_note(result_cause(w), "is one of 2 alike"));
	an_result_free(w);
	an_result_free(d);
}

/*
 * Atomic datagrams alike sent at 44 ms, then at 46 and 50 ms: the request's receipt bounds
 * db1's clock at most 0.2 ms ahead of 5 s, so those came after the reply's receipt (44.3 ms
 * on web1, 44.5 ms at most on db1) and are no candidates: the match is unique.
 */
static void test_alike_after_receipt(void)
{
	static const struct pk reply = {17, 0, 0, 64, 0};
	struct an_result *w = web_with(&reply), *d = db_begin("/db1", &request_udp);
	const struct an_crossing *x;

	db_send(d, 44 * MS, &reply);
	db_send(d, 46 * MS, &reply);
	db_send(d, 50 * MS, &reply);
	compute(d);
	x = crossed(w, d);
	ASSERT_TRUE(x->peer);
	ASSERT_EQ(x->candidates, 1);
	ASSERT_EQ(x->sender, SERVER);
	ASSERT_EQ(x->sent, base + skew + 44 * MS);
	an_result_free(w);
	an_result_free(d);
}

/*
 * web1 coalesced (GRO) 5000:5200, sent as 5000:5100 by postgres at 30 ms and 5100:5200 by
 * the worker at 44 ms: the data was complete when the worker's came.
 */
static void test_coalesced(void)
{
	static const struct pk whole = {6, 5000, 1100, 200, 0}, first = {6, 5000, 1100, 100, 0},
			       last = {6, 5100, 1100, 100, 0};
	struct an_result *w = web_with(&whole), *d = db_begin("/db1", &request_tcp);
	const struct an_crossing *x;

	db_send(d, 30 * MS, &first);
	result_ev(d, base + skew + 40 * MS, 0, EV_SWITCH, SERVER, WORKER, 0);
	db_send(d, 44 * MS, &last);
	compute(d);
	x = crossed(w, d);
	ASSERT_TRUE(x->peer);
	ASSERT_EQ(x->sender, WORKER);
	ASSERT_EQ(x->sent, base + skew + 44 * MS);
	ASSERT_TRUE(x->remote > 40 * MS); /* from 2 ms to 44 ms, not to 30 ms */
	an_result_free(w);
	an_result_free(d);
}

/*
 * One host: postgres, on CPU 1, blocked in fsync from 3 to 40 ms, then replies over
 * loopback at 44 ms (a TCP segment), or through a bridge between containers (a datagram
 * handed on by the bridge in a softirq, on the same CPU, before the client's side gets it).
 */
static struct an_result *local_host(bool bridge)
{
	static const struct pk tcp = {6, 5000, 1100, 200, 0}, udp = {17, 0, 0, 64, 0};
	const struct pk *reply = bridge ? &udp : &tcp;
	struct an_result *r = an_result_new("/web1");
	int32_t fsync;

	ASSERT_TRUE(r);
	r->log.ncpu = 2;
	fsync = an_sysname_index(&r->log, "fsync");
	result_comm(r, SERVER, "postgres");
	result_comm(r, CLIENT, "client");
	result_ev(r, base, 0, EV_SWITCH, 0, CLIENT, 0);
	result_ev(r, base, 1, EV_SWITCH, 0, SERVER, 0);
	result_ev(r, base + 2 * MS, 0, EV_SYS_ENTRY, an_sysname_index(&r->log, "recvfrom"), 0, 0);
	result_ev(r, base + 2 * MS, 0, EV_SWITCH, CLIENT, 0, 1);
	result_ev(r, base + 3 * MS, 1, EV_SYS_ENTRY, fsync, 0, 0);
	result_ev(r, base + 3 * MS, 1, EV_SWITCH, SERVER, 0, 2);
	result_ev(r, base + 40 * MS, 1, EV_IRQ_ENTRY, 11, 0, 0);
	result_ev(r, base + 40 * MS, 1, EV_WAKING, SERVER, 0, 0);
	result_ev(r, base + 40 * MS, 1, EV_IRQ_EXIT, 11, 0, 0);
	result_ev(r, base + 40100 * US, 1, EV_SWITCH, 0, SERVER, 0);
	result_ev(r, base + 40100 * US, 1, EV_SYS_EXIT, fsync, 0, 0);
	packet(r, base + 44 * MS, 1, true, false, true, reply);
	if (bridge) {
		result_ev(r, base + 44100 * US, 1, EV_SOFTIRQ_ENTRY, NET_RX, 0, 0);
		packet(r, base + 44100 * US, 1, false, false, true, reply);
		packet(r, base + 44110 * US, 1, true, false, true, reply);
		result_ev(r, base + 44120 * US, 1, EV_SOFTIRQ_EXIT, NET_RX, 0, 0);
	}
	result_ev(r, base + 44300 * US, 0, EV_SOFTIRQ_ENTRY, NET_RX, 0, 0);
	packet(r, base + 44300 * US, 0, false, false, true, reply);
	result_ev(r, base + 44310 * US, 0, EV_WAKING, CLIENT, 0, 0);
	result_ev(r, base + 44320 * US, 0, EV_SOFTIRQ_EXIT, NET_RX, 0, 0);
	result_ev(r, base + 44400 * US, 0, EV_SWITCH, 0, CLIENT, 0);
	alert(r);
	compute(r);
	return r;
}

/* The chain goes on into postgres: its 37 ms in fsync explain the wait. */
static void assert_followed_here(const struct an_cause *c)
{
	bool fsync_seen = false;

	for (size_t i = 0; i < c->links.n; i++) {
		const struct an_link *l = AN_AT(&c->links, struct an_link, i);

		if (l->depth == 1 && l->tid == SERVER && l->iv.state == ST_BLOCKED_D &&
		    l->iv.t1 - l->iv.t0 == 37 * MS)
			fsync_seen = true;
		ASSERT_TRUE(!l->host);
	}
	ASSERT_TRUE(fsync_seen);
	ASSERT_CONTAINS(c->story, "sent by postgres (tid 977)");
	ASSERT_CONTAINS(c->story, "postgres (tid 977) meanwhile:");
}

static void test_local(void)
{
	for (int bridge = 0; bridge < 2; bridge++) {
		struct an_result *w = local_host(bridge), *d = db_begin("/db1", NULL);
		struct an_crosshost_host hosts[] = {{"web1", &w->log}, {"db1", &d->log}};

		compute(d);
		assert_followed_here(result_cause(w)); /* alone */
		ASSERT_EQ(an_crosshost(hosts, 2, 0, &w->causes), 0);
		assert_followed_here(result_cause(w)); /* in an incident */
		ASSERT_EQ(result_cause(w)->crossings.n, 0);
		ASSERT_TRUE(!cause_has_note(result_cause(w), "in no other host's snapshot"));
		ASSERT_TRUE(!cause_has_note(result_cause(w), "outside the incident"));
		an_result_free(w);
		an_result_free(d);
	}
}

/* The same TCP segment sent on db1 and db2 (shared addresses): said as a segment. */
static void test_segment_from_two_hosts(void)
{
	static const struct pk reply = {6, 5000, 1100, 200, 0};
	struct an_result *w = web_with(&reply), *d1 = db_begin("/db1", &request_tcp),
			 *d2 = db_begin("/db2", NULL);
	struct an_crosshost_host hosts[] = {
		{"web1", &w->log}, {"db1", &d1->log}, {"db2", &d2->log}};
	const struct an_crossing *x;
	const struct an_cause *c;

	db_send(d1, 44 * MS, &reply);
	db_send(d2, 44 * MS, &reply);
	compute(d1);
	compute(d2);
	ASSERT_EQ(an_crosshost(hosts, 3, 0, &w->causes), 0);
	c = result_cause(w);
	ASSERT_EQ(c->crossings.n, 1);
	x = AN_AT(&c->crossings, struct an_crossing, 0);
	ASSERT_TRUE(!x->peer);
	ASSERT_EQ(x->candidates, 2);
	ASSERT_TRUE(cause_has_note(c, "the segment that woke client"));
	ASSERT_TRUE(
		cause_has_note(c, "(same flow and sequence numbers) sent on db1 and 1 other host"));
	ASSERT_TRUE(!cause_has_note(c, "datagram"));
	ASSERT_TRUE(!cause_has_note(c, "IP id"));
	ASSERT_CONTAINS(c->story, "by a segment from 10.0.0.2:5432, one of 2 sent alike");
	an_result_free(w);
	an_result_free(d1);
	an_result_free(d2);
}

/*
 * Forged timestamps, past what an int64_t holds once the clocks' offset is added or the
 * bounds on it subtracted: web1's at 2^62 ns and db1's 2^62 + 2^61 ns ahead, or web1's
 * near the epoch and db1's over 2^63 ns ahead. Nothing overflows (the sanitizer would stop
 * the test), and the match is still found.
 */
static void test_extreme_timestamps(void)
{
	static const struct pk reply = {6, 5000, 1100, 200, 0};
	static const struct {
		uint64_t base, skew;
	} cases[] = {{1ULL << 62, (1ULL << 62) + (1ULL << 61)}, {1 * MS, (1ULL << 63) + SKEW}};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct an_result *w, *d;
		const struct an_crossing *x;

		base = cases[i].base;
		skew = cases[i].skew;
		w = web_with(&reply);
		d = db_begin("/db1", &request_tcp);
		db_send(d, 44 * MS, &reply);
		compute(d);
		x = crossed(w, d);
		ASSERT_EQ(x->candidates, 1);
		ASSERT_TRUE(result_cause(w)->story);
		an_result_free(w);
		an_result_free(d);
	}
	base = T0;
	skew = SKEW;
}

/*
 * db1 received the request near the epoch and sent the reply 2^63 + 2^61 ns later: the
 * bounds on its clock cross by more than an int64_t holds. Matched, without overflowing.
 */
static void test_extreme_crossed(void)
{
	static const struct pk reply = {6, 5000, 1100, 200, 0};
	struct an_result *w, *d;
	const struct an_crossing *x;

	base = 1ULL << 62;
	w = web_with(&reply);
	d = an_result_new("/db1");
	ASSERT_TRUE(d);
	d->log.ncpu = 1;
	result_comm(d, SERVER, "postgres");
	result_ev(d, 1 * MS, 0, EV_SWITCH, 0, SERVER, 0);
	packet(d, 2 * MS, 0, false, true, false, &request_tcp);
	packet(d, (1ULL << 63) + (1ULL << 61), 0, true, false, false, &reply);
	compute(d);
	x = crossed(w, d);
	ASSERT_EQ(x->candidates, 1);
	ASSERT_TRUE(x->peer);
	ASSERT_TRUE(result_cause(w)->story);
	an_result_free(w);
	an_result_free(d);
	base = T0;
}

/*
 * web1 received the reply on its NIC and handed it on, unchanged, to the client's
 * container in the same softirq (routed or bridged: pod to pod across nodes): that copy is
 * not a sending of web1's. The chain crosses to db1's postgres, for a data segment as for a
 * datagram; alone, the wait is not said to be sent on web1 from an interrupt.
 */
static void test_forwarded(void)
{
	static const struct pk replies[] = {{6, 5000, 1100, 200, 0}, {17, 0, 0, 64, 9}};

	/* Each reply handed on from NET_RX, then from NET_TX in the same pass. */
	for (size_t i = 0; i < 2 * sizeof(replies) / sizeof(replies[0]); i++) {
		const struct pk *reply = &replies[i % 2];
		struct an_result *w = an_result_new("/web1"),
				 *d = db_begin("/db1", request_of(reply));
		const struct an_crossing *x;

		ASSERT_TRUE(w);
		w->log.ncpu = 1;
		client_forwarded(w, reply, i < 2 ? FORWARD_RX : FORWARD_TX);
		alert(w);
		compute(w);
		for (size_t k = 0; k < result_cause(w)->links.n; k++)
			ASSERT_EQ(AN_AT(&result_cause(w)->links, struct an_link, k)->sender, 0);
		ASSERT_TRUE(result_cause(w)->story &&
			    !strstr(result_cause(w)->story, "sent on this host from an interrupt"));
		db_send(d, 44 * MS, reply);
		compute(d);
		x = crossed(w, d);
		ASSERT_TRUE(x->peer);
		ASSERT_EQ(x->candidates, 1);
		ASSERT_EQ(x->sender, SERVER);
		ASSERT_EQ(x->sent, base + skew + 44 * MS);
		ASSERT_CONTAINS(result_cause(w)->story, "sent by postgres (tid 977 on db1)");
		an_result_free(w);
		an_result_free(d);
	}
}

/*
 * ALIKE atomic datagrams (IP id 0) of one length from db1 to web1, each received, the last
 * waking the client: every one is looked up to align the clocks, each among all the
 * others. Matched in N log N, this takes a fraction of a second; matched in N^2, it would
 * run past ctest's timeout. The reply is one of ALIKE, not followed.
 */
#define ALIKE 40000
static void test_many_alike(void)
{
	static const struct pk reply = {17, 0, 0, 64, 0};
	struct an_result *w = an_result_new("/web1"), *d = db_begin("/db1", &request_udp);
	int32_t recvfrom;
	uint64_t end = 3 * MS + ALIKE * 10 * US + 300 * US;
	const struct an_crossing *x;
	struct an_alert *al;

	ASSERT_TRUE(w);
	w->log.ncpu = 1;
	recvfrom = an_sysname_index(&w->log, "recvfrom");
	result_comm(w, CLIENT, "client");
	result_ev(w, base, 0, EV_SWITCH, 0, CLIENT, 0);
	packet(w, base + 1 * MS, 0, true, true, false, &request_udp);
	result_ev(w, base + 2 * MS, 0, EV_SYS_ENTRY, recvfrom, 0, 0);
	result_ev(w, base + 2 * MS, 0, EV_SWITCH, CLIENT, 0, 1);
	result_ev(w, base + 3 * MS, 0, EV_SOFTIRQ_ENTRY, NET_RX, 0, 0);
	for (uint64_t i = 0; i < ALIKE; i++) {
		db_send(d, 3 * MS + i * 10 * US, &reply);
		packet(w, base + 3 * MS + i * 10 * US + 300 * US, 0, false, false, false, &reply);
	}
	result_ev(w, base + end, 0, EV_WAKING, CLIENT, 0, 0);
	result_ev(w, base + end + 1 * US, 0, EV_SOFTIRQ_EXIT, NET_RX, 0, 0);
	result_ev(w, base + end + 100 * US, 0, EV_SWITCH, 0, CLIENT, 0);
	result_ev(w, base + end + 100 * US, 0, EV_SYS_EXIT, recvfrom, 0, 64);
	al = an_vec_push(&w->log.alerts);
	ASSERT_TRUE(al);
	*al = (struct an_alert){.ts = base + end + 100 * US,
				.start = base + 2 * MS,
				.end = base + end + 100 * US,
				.delay = end + 100 * US - 2 * MS,
				.tid = CLIENT,
				.pid = CLIENT,
				.reason = 1,
				.seq = 1};
	snprintf(al->tracker, sizeof(al->tracker), "syscalls");
	snprintf(al->comm, sizeof(al->comm), "client");
	result_ev(w, base + end + 100 * US, 0, EV_ALERT, 0, 0, 0);
	compute(w);
	compute(d);
	x = crossed(w, d);
	ASSERT_TRUE(!x->peer);
	ASSERT_EQ(x->candidates, ALIKE);
	ASSERT_TRUE(cause_has_note(result_cause(w), "is one of 40000 alike"));
	an_result_free(w);
	an_result_free(d);
}

/*
 * db1 sent over 4 GiB on the flow to web1 in the snapshot, in 64 KiB segments from 10 to
 * 43 ms, then the reply at 44 ms: its sequence numbers are those of the first segment,
 * 4 GiB earlier. The reply is the one sent at 44 ms; its numbers as they were at 30 ms are
 * the first segment's; with no time to tell, both are candidates.
 */
static void test_seq_wrap(void)
{
	static const struct pk reply = {6, 5000, 1100, 200, 0};
	struct an_result *w = web_with(&reply), *d = db_begin("/db1", &request_tcp);
	const struct an_packet *r, *p;
	struct an_sends sends = {0};
	const struct an_crossing *x;
	unsigned n;

	for (uint32_t i = 0; i < 65536; i++) {
		struct pk seg = {6, 5000 + i * 65536u, 1100, 65536, 0};

		db_send(d, 10 * MS + i * 500, &seg);
	}
	db_send(d, 44 * MS, &reply);
	compute(d);
	x = crossed(w, d);
	ASSERT_TRUE(x->peer);
	ASSERT_EQ(x->candidates, 1);
	ASSERT_EQ(x->sent, base + skew + 44 * MS);
	ASSERT_TRUE(x->remote > 40 * MS); /* from 2 ms to 44 ms */

	r = AN_AT(&w->log.packets, struct an_packet, 1); /* the reply, received */
	ASSERT_TRUE(r->proto == 6 && r->seq == 5000 && r->len == 200);
	ASSERT_EQ(an_sends_build(&sends, &d->log), 0);
	p = an_sends_find(&sends, r, base + skew + 30 * MS, &n);
	ASSERT_TRUE(p);
	ASSERT_EQ(n, 1);
	ASSERT_EQ(an_packet_ts(&d->log, p), base + skew + 10 * MS);
	p = an_sends_find(&sends, r, base + skew + 45 * MS, &n);
	ASSERT_TRUE(p);
	ASSERT_EQ(n, 1);
	ASSERT_EQ(an_packet_ts(&d->log, p), base + skew + 44 * MS);
	p = an_sends_find(&sends, r, UINT64_MAX, &n);
	ASSERT_TRUE(p);
	ASSERT_EQ(n, 2);
	an_sends_free(&sends);
	an_result_free(w);
	an_result_free(d);
}

/*
 * db1 sends the reply's bytes at 10 ms, then another flow of its (port 5433) jumps its
 * sequence numbers by more than half their space twice, then the reply's flow sends on at
 * 44 ms. With the two flows' hashes the same, the reply is still found sent at 10 ms: the
 * other flow's numbers are not taken for the reply's.
 */
static void test_flows_colliding(void)
{
	static const struct pk reply = {6, 5000, 1100, 200, 0}, next = {6, 5200, 1100, 200, 0};
	static const struct pk other[] = {{6, 0x70000000u, 1, 100, 0}, {6, 0xE0000000u, 1, 100, 0}};
	struct an_result *w = web_with(&reply), *d = db_begin("/db1", &request_tcp);
	const struct an_packet *r, *p;
	struct an_sends sends = {0};
	unsigned n;

	collide = true;
	db_send(d, 10 * MS, &reply);
	for (int i = 0; i < 2; i++) {
		db_send(d, (20 + 10 * i) * MS, &other[i]);
		AN_AT(&d->log.packets, struct an_packet, d->log.packets.n - 1)->sport = 5433;
	}
	db_send(d, 44 * MS, &next);
	compute(d);
	r = AN_AT(&w->log.packets, struct an_packet, 1); /* the reply, received */
	ASSERT_TRUE(r->proto == 6 && r->seq == 5000 && r->len == 200);
	ASSERT_EQ(an_sends_build(&sends, &d->log), 0);
	p = an_sends_find(&sends, r, base + skew + 45 * MS, &n);
	ASSERT_TRUE(p);
	ASSERT_EQ(n, 1);
	ASSERT_EQ(an_packet_ts(&d->log, p), base + skew + 10 * MS);
	collide = false;
	an_sends_free(&sends);
	an_result_free(w);
	an_result_free(d);
}

/*
 * db1 received a datagram like the reply in one softirq at 5 ms and sent it from another
 * at 44 ms (no task's: a timer's): a sending of its own, not a copy handed on, which is
 * sent in the run of handlers that received it.
 */
static void test_forwarded_later(void)
{
	static const struct pk reply = {17, 0, 0, 64, 9};
	struct an_result *w = web_with(&reply), *d = db_begin("/db1", &request_udp);
	const struct an_crossing *x;

	result_ev(d, base + skew + 5 * MS, 0, EV_SOFTIRQ_ENTRY, NET_RX, 0, 0);
	packet(d, base + skew + 5 * MS, 0, false, false, false, &reply);
	result_ev(d, base + skew + 5 * MS + 10 * US, 0, EV_SOFTIRQ_EXIT, NET_RX, 0, 0);
	result_ev(d, base + skew + 44 * MS, 0, EV_SOFTIRQ_ENTRY, 1, 0, 0);
	db_send(d, 44 * MS + 5 * US, &reply);
	result_ev(d, base + skew + 44 * MS + 10 * US, 0, EV_SOFTIRQ_EXIT, 1, 0, 0);
	compute(d);
	x = crossed(w, d);
	ASSERT_EQ(x->candidates, 1);
	ASSERT_EQ(x->sent, base + skew + 44 * MS + 5 * US);
	an_result_free(w);
	an_result_free(d);
}

/* Three alerts of one log, each woken by a packet: the log's sendings are indexed once. */
static void test_indexed_once(void)
{
	static const struct pk reply = {6, 5000, 1100, 200, 0};
	struct an_result *r = an_result_new("/web1");

	ASSERT_TRUE(r);
	r->log.ncpu = 1;
	client_side(r, &reply);
	for (int i = 0; i < 3; i++)
		alert(r);
	builds = 0;
	compute(r);
	ASSERT_EQ(r->causes.n, 3);
	ASSERT_EQ(builds, 1);
	an_result_free(r);
}

int main(void)
{
	RUN(test_many_after);
	RUN(test_alike_far_apart);
	RUN(test_alike_after_receipt);
	RUN(test_coalesced);
	RUN(test_local);
	RUN(test_segment_from_two_hosts);
	RUN(test_extreme_timestamps);
	RUN(test_extreme_crossed);
	RUN(test_forwarded);
	RUN(test_forwarded_later);
	RUN(test_many_alike);
	RUN(test_seq_wrap);
	RUN(test_flows_colliding);
	RUN(test_indexed_once);
	return 0;
}
