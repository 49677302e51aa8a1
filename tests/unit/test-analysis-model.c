/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The model's replay and what the result says of it, on logs built by hand: a CPU's
 * interrupt context across a switch (a handler's exit lost, a PREEMPT_RT softirq
 * preempted), events the tracer discarded (the context reset at the loss's end), the packet
 * a receive batch or a loopback device woke a task for, an exited task, syscall names not
 * UTF-8, the alerts explained (the largest, the rest said), a latency's deviation, a stream
 * whose time goes backwards, and a PREEMPT_RT kernel told by its version.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "an.h"
#include "analysis-result.h"
#include "analysis.h"
#include "chain.h"
#include "ctf.h"
#include "results.h"
#include "tables.h"
#include "tests.h"

#define MS 1000000ULL
#define T0 (1700000000ULL * 1000000000ULL)

enum { A = 10, B = 20, C = 30, KSOFTIRQD = 40, RT_TASK = 50, NET_RX = 3 };

static struct an_log L;

/* An event at MS/10 ms into the log. */
static void ev(uint64_t tenths, uint16_t cpu, uint16_t type, int32_t a, int32_t b, int64_t d)
{
	struct an_ev *e = an_vec_push(&L.ev);

	ASSERT_TRUE(e);
	*e = (struct an_ev){.ts = T0 + tenths * MS / 10,
			    .cpu = cpu,
			    .type = type,
			    .a = a,
			    .b = b,
			    .d = (uint64_t)d};
	if (!L.first_ts)
		L.first_ts = e->ts;
	L.last_ts = e->ts;
	L.counts[type]++;
	L.events++;
}

static void reset(unsigned ncpu)
{
	an_log_free(&L);
	an_log_init(&L);
	L.ncpu = ncpu;
}

/* TID's interval in state STATE (blocked ones alike) over [t0, t1] tenths of ms. */
static struct an_interval blocked_of(int32_t tid, uint64_t t0, uint64_t t1)
{
	struct an_vec tl = AN_VEC(struct an_interval);
	struct an_interval found = {.state = ST_UNKNOWN};

	ASSERT_EQ(an_timeline(&L, tid, T0 + t0 * MS / 10, T0 + t1 * MS / 10, &tl), 0);
	for (size_t i = 0; i < tl.n; i++)
		if (an_blocked(AN_AT(&tl, struct an_interval, i)->state))
			found = *AN_AT(&tl, struct an_interval, i);
	an_vec_free(&tl);
	ASSERT_TRUE(an_blocked(found.state));
	return found;
}

/* An irq_handler_exit lost: a wakeup on that CPU after a switch is the running task's. */
static void test_lost_irq_exit(void)
{
	struct an_interval iv;

	reset(2);
	ev(0, 0, EV_SWITCH, 0, A, 0);
	ev(0, 1, EV_SWITCH, 0, C, 0);
	ev(10, 0, EV_SWITCH, A, 0, 1);
	ev(20, 1, EV_IRQ_ENTRY, 5, 0, 0); /* its exit lost */
	ev(30, 1, EV_SWITCH, C, B, 1);
	ev(100, 1, EV_WAKING, A, 0, 0);
	ev(110, 0, EV_SWITCH, 0, A, 0);
	iv = blocked_of(A, 0, 120);
	ASSERT_EQ(iv.wake, WK_TASK);
	ASSERT_EQ(iv.who, B);
	ASSERT_TRUE(!iv.inferred);
}

/* An hrtimer_expire_exit and a softirq_exit lost alike. */
static void test_lost_timer_softirq_exit(void)
{
	struct an_interval iv;

	reset(2);
	ev(0, 0, EV_SWITCH, 0, A, 0);
	ev(0, 1, EV_SWITCH, 0, B, 0);
	ev(10, 0, EV_SWITCH, A, 0, 1);
	ev(20, 1, EV_HRTIMER_ENTRY, 0, 0, 0);
	ev(21, 1, EV_SOFTIRQ_ENTRY, NET_RX, 0, 0);
	ev(30, 1, EV_SWITCH, B, C, 1);
	ev(100, 1, EV_WAKING, A, 0, 0);
	iv = blocked_of(A, 0, 110);
	ASSERT_EQ(iv.wake, WK_TASK);
	ASSERT_EQ(iv.who, C);
}

/*
 * PREEMPT_RT: ksoftirqd preempted in a NET_RX softirq by an RT task, which wakes A (its
 * own doing), then ksoftirqd goes on and wakes A again from the softirq.
 */
static void test_rt_softirq_preempted(void)
{
	struct an_interval iv;

	for (int rt = 0; rt < 2; rt++) {
		reset(2);
		L.preempt_rt = rt;
		ev(0, 0, EV_SWITCH, 0, A, 0);
		ev(0, 1, EV_SWITCH, 0, KSOFTIRQD, 0);
		ev(5, 1, EV_SOFTIRQ_ENTRY, NET_RX, 0, 0);
		ev(10, 0, EV_SWITCH, A, 0, 1);
		ev(20, 1, EV_SWITCH, KSOFTIRQD, RT_TASK, 0x100); /* preempted */
		ev(30, 1, EV_WAKING, A, 0, 0);
		ev(35, 0, EV_SWITCH, 0, A, 0);
		ev(40, 0, EV_SWITCH, A, 0, 1);
		ev(50, 1, EV_SWITCH, RT_TASK, KSOFTIRQD, 1);
		ev(60, 1, EV_WAKING, A, 0, 0);
		ev(70, 1, EV_SOFTIRQ_EXIT, NET_RX, 0, 0);
		iv = blocked_of(A, 0, 38);
		ASSERT_EQ(iv.wake, WK_TASK); /* the RT task, not the softirq it preempted */
		ASSERT_EQ(iv.who, RT_TASK);
		iv = blocked_of(A, 38, 80);
		/* On RT the softirq goes on in ksoftirqd; elsewhere a switch inside one is a lost
		 * exit, and the wakeup is ksoftirqd's. */
		ASSERT_EQ(iv.wake, rt ? WK_SOFTIRQ : WK_TASK);
		ASSERT_EQ(iv.who, rt ? NET_RX : KSOFTIRQD);
	}
}

static void lost(uint64_t t0, uint64_t t1, uint32_t cpu)
{
	struct an_lost *l = an_vec_push(&L.lost);

	ASSERT_TRUE(l);
	*l = (struct an_lost){.t0 = T0 + t0 * MS / 10, .t1 = T0 + t1 * MS / 10, .n = 7, .cpu = cpu};
}

/*
 * Events discarded on CPU 1 over [1 ms, 3 ms] (babeltrace2's range: the previous packet's
 * end, this one's): the tracer lost them after this packet's last recorded event, an irq
 * entry at 2 ms whose exit is among them. Its context is reset at 3 ms: a wakeup there at
 * 3.5 ms is the running task's, inferred; lost on the other CPU, the irq's, as recorded.
 */
static void test_discarded_range(void)
{
	struct an_interval iv;

	reset(2);
	ev(0, 0, EV_SWITCH, 0, A, 0);
	ev(0, 1, EV_SWITCH, 0, B, 0);
	ev(5, 0, EV_SWITCH, A, 0, 1);
	ev(11, 1, EV_SYS_ENTRY, 0, 0, 0); /* the packet's first event */
	ev(20, 1, EV_IRQ_ENTRY, 5, 0, 0);
	ev(35, 1, EV_WAKING, A, 0, 0);
	ev(36, 0, EV_SWITCH, 0, A, 0);
	lost(10, 30, 1);
	iv = blocked_of(A, 0, 40);
	ASSERT_EQ(iv.wake, WK_TASK);
	ASSERT_EQ(iv.who, B);
	ASSERT_TRUE(iv.inferred);
	AN_AT(&L.lost, struct an_lost, 0)->cpu = 0;
	iv = blocked_of(A, 0, 40);
	ASSERT_EQ(iv.wake, WK_IRQ);
	ASSERT_EQ(iv.who, 5);
	ASSERT_TRUE(!iv.inferred);
}

/*
 * An irq entered before a loss's range begins and a wakeup inside the range, both recorded:
 * the context holds until the range's end, the waker is the irq, not inferred. A wait that
 * ends before a range's end does not span the loss: not inferred either.
 */
static void test_discarded_inside(void)
{
	struct an_interval iv;

	reset(2);
	ev(0, 0, EV_SWITCH, 0, A, 0);
	ev(0, 1, EV_SWITCH, 0, B, 0);
	ev(5, 0, EV_SWITCH, A, 0, 1);
	ev(8, 1, EV_IRQ_ENTRY, 5, 0, 0);
	ev(20, 1, EV_WAKING, A, 0, 0);
	ev(21, 0, EV_SWITCH, 0, A, 0);
	lost(10, 30, 1);
	iv = blocked_of(A, 0, 25);
	ASSERT_EQ(iv.wake, WK_IRQ);
	ASSERT_EQ(iv.who, 5);
	ASSERT_TRUE(!iv.inferred);

	reset(2);
	ev(0, 0, EV_SWITCH, 0, A, 0);
	ev(0, 1, EV_SWITCH, 0, B, 0);
	ev(20, 1, EV_SYS_ENTRY, 0, 0, 0);
	ev(500, 0, EV_SWITCH, A, 0, 1);
	ev(600, 1, EV_WAKING, A, 0, 0);
	ev(610, 0, EV_SWITCH, 0, A, 0);
	lost(10, 1000, 1);
	iv = blocked_of(A, 0, 700);
	ASSERT_EQ(iv.wake, WK_TASK);
	ASSERT_EQ(iv.who, B);
	ASSERT_TRUE(!iv.inferred);
}

/*
 * Two ranges lost on one CPU from the same time (the muxed and per-stream reads give them
 * in either order): the result is the same whatever the order.
 */
static void test_discarded_order(void)
{
	for (int order = 0; order < 2; order++) {
		struct an_interval iv;

		reset(2);
		ev(0, 0, EV_SWITCH, 0, A, 0);
		ev(0, 1, EV_SWITCH, 0, B, 0);
		ev(100, 0, EV_SWITCH, A, 0, 1);
		ev(200, 1, EV_WAKING, A, 0, 0);
		ev(210, 0, EV_SWITCH, 0, A, 0);
		lost(10, order ? 20 : 500, 1);
		lost(10, order ? 500 : 20, 1);
		iv = blocked_of(A, 0, 300);
		ASSERT_EQ(iv.wake, WK_TASK);
		ASSERT_TRUE(!iv.inferred);
	}
}

/* A packet sent or received on a device that batches (a GRO list), or (LO) one by one. */
static int32_t packet_on(bool lo, uint16_t cpu, uint64_t tenths, bool sent, uint8_t peer,
			 uint16_t sport, uint16_t dport)
{
	struct an_packet *p = an_vec_push(&L.packets);
	const uint8_t me[4] = {10, 0, 0, 1}, them[4] = {10, 0, 0, peer};

	ASSERT_TRUE(p);
	*p = (struct an_packet){.family = 4,
				.proto = 6,
				.sport = sport,
				.dport = dport,
				.len = 100,
				.per_packet = lo && !sent,
				.ev = (int32_t)L.ev.n,
				.tid = -1};
	memcpy(p->saddr, sent ? me : them, 4);
	memcpy(p->daddr, sent ? them : me, 4);
	ev(tenths, cpu, sent ? EV_NET_XMIT : EV_NET_RECV, (int32_t)L.packets.n - 1, 0, 0);
	return (int32_t)L.packets.n - 1;
}

static int32_t packet(uint16_t cpu, uint64_t tenths, bool sent, uint8_t peer, uint16_t sport,
		      uint16_t dport)
{
	return packet_on(false, cpu, tenths, sent, peer, sport, dport);
}

/*
 * A receive batch (GRO list): three packets of three flows before any is handed over. A
 * task woken in it is woken for the reply to what it sent; one that sent nothing on any of
 * them cannot be told which.
 */
static void test_batch_receive(void)
{
	struct an_interval iv;
	int32_t reply;

	for (int sent = 0; sent < 2; sent++) {
		reset(2);
		ev(0, 0, EV_SWITCH, 0, A, 0);
		if (sent)
			packet(0, 5, true, 2, 41000, 80); /* A's request */
		ev(10, 0, EV_SWITCH, A, 0, 1);
		ev(20, 1, EV_SOFTIRQ_ENTRY, NET_RX, 0, 0);
		packet(1, 20, false, 3, 80, 41001);
		reply = packet(1, 20, false, 2, 80, 41000);
		packet(1, 20, false, 4, 443, 41002);
		ev(21, 1, EV_WAKING, A, 0, 0);
		ev(22, 1, EV_SOFTIRQ_EXIT, NET_RX, 0, 0);
		iv = blocked_of(A, 0, 30);
		ASSERT_EQ(iv.wake, WK_SOFTIRQ);
		ASSERT_EQ(iv.pkt, (sent ? reply : -1));
		ASSERT_EQ(iv.rx_flows, (sent ? 0 : 3));
	}
	/* Packets of one flow: the first delivered woke the reader. */
	reset(2);
	ev(0, 0, EV_SWITCH, 0, A, 0);
	ev(10, 0, EV_SWITCH, A, 0, 1);
	ev(20, 1, EV_SOFTIRQ_ENTRY, NET_RX, 0, 0);
	reply = packet(1, 20, false, 3, 80, 41001);
	packet(1, 20, false, 3, 80, 41001);
	ev(21, 1, EV_WAKING, A, 0, 0);
	iv = blocked_of(A, 0, 30);
	ASSERT_EQ(iv.pkt, reply);
	ASSERT_EQ(iv.rx_flows, 0);
}

/*
 * A server's request: sent to the address and port it replied from before, by a client it
 * never sent to, in a batch with another flow: the request, whatever its peer.
 */
static void test_batch_local_port(void)
{
	struct an_interval iv;
	int32_t request;

	reset(2);
	ev(0, 0, EV_SWITCH, 0, A, 0);
	packet(0, 5, true, 3, 53, 41001); /* its reply to an earlier client */
	ev(10, 0, EV_SWITCH, A, 0, 1);
	ev(20, 1, EV_SOFTIRQ_ENTRY, NET_RX, 0, 0);
	packet(1, 20, false, 5, 80, 41003);
	request = packet(1, 20, false, 4, 41002, 53);
	ev(21, 1, EV_WAKING, A, 0, 0);
	iv = blocked_of(A, 0, 30);
	ASSERT_EQ(iv.pkt, request);
	ASSERT_EQ(iv.rx_flows, 0);
}

/*
 * A GRO list is handed over every 8 packets at most, and before another device's poll: a
 * flow received 9 packets or more before the wakeup, or before a loopback packet, is not
 * among those the wakeup may be for.
 */
static void test_batch_window(void)
{
	struct an_interval iv;
	int32_t first;

	for (int lo = 0; lo < 2; lo++) {
		reset(2);
		ev(0, 0, EV_SWITCH, 0, A, 0);
		ev(10, 0, EV_SWITCH, A, 0, 1);
		ev(20, 1, EV_SOFTIRQ_ENTRY, NET_RX, 0, 0);
		packet(1, 20, false, 3, 80, 41001);
		if (lo)
			packet_on(true, 1, 20, false, 6, 9000, 9001);
		first = packet(1, 20, false, 4, 443, 41002);
		for (int i = 0; i < (lo ? 1 : 7); i++)
			packet(1, 20, false, 4, 443, 41002);
		ev(21, 1, EV_WAKING, A, 0, 0);
		iv = blocked_of(A, 0, 30);
		ASSERT_EQ(iv.pkt, first);
		ASSERT_EQ(iv.rx_flows, 0);
	}
}

/*
 * Loopback (and veth) hand each packet to its socket as it is traced: a server woken right
 * after a client's request, in a softirq that received another flow first, was woken for
 * the request, though it sent nothing before.
 */
static void test_loopback_receive(void)
{
	struct an_interval iv;
	int32_t request;

	reset(2);
	ev(0, 0, EV_SWITCH, 0, A, 0);
	ev(10, 0, EV_SWITCH, A, 0, 1);
	ev(20, 1, EV_SOFTIRQ_ENTRY, NET_RX, 0, 0);
	packet_on(true, 1, 20, false, 1, 6000, 7000);
	request = packet_on(true, 1, 20, false, 1, 41234, 53);
	ev(21, 1, EV_WAKING, A, 0, 0);
	ev(22, 1, EV_SOFTIRQ_EXIT, NET_RX, 0, 0);
	iv = blocked_of(A, 0, 30);
	ASSERT_EQ(iv.wake, WK_SOFTIRQ);
	ASSERT_EQ(iv.pkt, request);
	ASSERT_EQ(iv.rx_flows, 0);
}

/* sched_process_exit, then its last switch (prev_state EXIT_DEAD): exited to the end. */
static void test_exited(void)
{
	struct an_vec tl = AN_VEC(struct an_interval);

	for (int64_t state = 0x10; state <= 0x20; state += 0x10) {
		reset(1);
		ev(0, 0, EV_SWITCH, 0, A, 0);
		ev(10, 0, EV_EXIT, A, 0, 0);
		ev(11, 0, EV_SWITCH, A, 0, state);
		ev(50, 0, EV_SWITCH, 0, B, 0);
		tl.n = 0;
		ASSERT_EQ(an_timeline(&L, A, T0, T0 + 6 * MS, &tl), 0);
		ASSERT_EQ(tl.n, 2);
		ASSERT_EQ(AN_AT(&tl, struct an_interval, 0)->state, ST_RUNNING);
		ASSERT_EQ(AN_AT(&tl, struct an_interval, 1)->state, ST_EXITED);
		ASSERT_EQ(AN_AT(&tl, struct an_interval, 1)->t1, T0 + 6 * MS);
	}
	/* Its exit unseen (before the snapshot's events of it): the switch says it. */
	reset(1);
	ev(0, 0, EV_SWITCH, 0, A, 0);
	ev(11, 0, EV_SWITCH, A, 0, 0x20);
	tl.n = 0;
	ASSERT_EQ(an_timeline(&L, A, T0, T0 + 2 * MS, &tl), 0);
	ASSERT_EQ(AN_AT(&tl, struct an_interval, tl.n - 1)->state, ST_EXITED);
	an_vec_free(&tl);
}

/* A syscall name of bytes that are not UTF-8: mended, one index however often seen. */
static void test_sysname_utf8(void)
{
	int32_t i, j;

	reset(1);
	i = an_sysname_index(&L, "r\xff\xfe"
				 "d");
	j = an_sysname_index(&L, "r\xff\xfe"
				 "d");
	ASSERT_TRUE(i >= 0);
	ASSERT_EQ(i, j);
	ASSERT_STREQ(an_sysname(&L, i), "r??d");
	ASSERT_EQ(an_sysname_index(&L, "read"), i + 1);
}

/*
 * 20 alerts, the largest late in the window, and one whose start is after its end: the 16
 * largest are explained (at equal delays, the earliest), the text and LAMI say how many of
 * how many, and the garbled one is a problem.
 */
static void test_alerts_largest(void)
{
	struct an_result *r = an_result_new("/alerts");
	struct an_options opt = {.tables = false};
	struct json_object *lami, *title = NULL;
	char *why = NULL, *text;
	bool has[21] = {false};

	ASSERT_TRUE(r);
	r->log.ncpu = 1;
	result_ev(r, T0, 0, EV_SWITCH, 0, A, 0);
	for (int k = 0; k <= 20; k++) {
		struct an_alert *al = an_vec_push(&r->log.alerts);
		uint64_t ts = T0 + (uint64_t)(k + 1) * 10 * MS;

		ASSERT_TRUE(al);
		/* delays 1..20 ms, the first 4 tied at 1 ms; alert 20: garbled */
		*al = (struct an_alert){.ts = ts,
					.start = k == 20 ? ts + 5 * MS : ts - (k < 4 ? 1 : k) * MS,
					.end = ts,
					.delay = (uint64_t)(k < 4 ? 1 : k) * MS,
					.tid = A,
					.pid = A,
					.reason = 1,
					.seq = (uint64_t)k};
		snprintf(al->tracker, sizeof(al->tracker), "offcpu");
		result_ev(r, ts, 0, EV_ALERT, k, 0, 0);
	}
	ASSERT_EQ(an_compute(r, &opt, &why), 0);
	ASSERT_EQ(r->causes.n, AN_ALERTS_DEFAULT);
	ASSERT_EQ(r->alerts_window, 20);
	ASSERT_EQ(r->alerts_garbled, 1);
	for (size_t i = 0; i < r->causes.n; i++) {
		const struct an_cause *c = AN_AT(&r->causes, struct an_cause, i);

		has[c->alert.seq] = true;
		if (i)
			ASSERT_TRUE(c->alert.ts >
				    AN_AT(&r->causes, struct an_cause, i - 1)->alert.ts);
	}
	/* 4..19 are the 16 largest; of the four tied at 1 ms none is left */
	for (int k = 4; k < 20; k++)
		ASSERT_TRUE(has[k]);
	ASSERT_TRUE(!has[0] && !has[20]);
	text = result_text(r);
	ASSERT_CONTAINS(text, "16 of 21 latency alerts explained; of the 20 in the window, the "
			      "largest; 1 with a garbled interval");
	ASSERT_CONTAINS(text, "alert 20 (offcpu, tid 10): its start");
	free(text);
	lami = an_lami_results(r);
	for (size_t i = 0; i < json_object_array_length(json_object_object_get(lami, "results"));
	     i++) {
		struct json_object *t =
			json_object_array_get_idx(json_object_object_get(lami, "results"), i);
		struct json_object *cls = json_object_object_get(t, "class");

		if (json_object_is_type(cls, json_type_object) &&
		    strcmp(json_object_get_string(json_object_object_get(cls, "inherit")),
			   "alerts") == 0)
			title = json_object_object_get(cls, "title");
	}
	ASSERT_TRUE(title);
	ASSERT_CONTAINS(json_object_get_string(title), "(16 of 21 explained: the largest)");
	json_object_put(lami);
	an_result_free(r);
}

/* Three calls of 10 s and 0, 2, 4 ns more: their deviation is 2 ns, not noise. */
static void test_stddev(void)
{
	struct an_result *r = an_result_new("/stddev");
	struct an_options opt = {.tables = true};
	const struct an_cell *row = NULL;
	char *why = NULL;
	uint64_t ts = T0;
	int32_t sys;

	ASSERT_TRUE(r);
	r->log.ncpu = 1;
	sys = an_sysname_index(&r->log, "read");
	result_ev(r, ts, 0, EV_SWITCH, 0, A, 0);
	for (uint64_t k = 0; k < 3; k++) {
		result_ev(r, ++ts, 0, EV_SYS_ENTRY, sys, 0, 0);
		ts += 10000000000ULL + 2 * k;
		result_ev(r, ts, 0, EV_SYS_EXIT, sys, 0, 0);
	}
	ASSERT_EQ(an_compute(r, &opt, &why), 0);
	for (size_t i = 0; i < r->tables.n; i++) {
		const struct an_table *t = AN_AT(&r->tables, struct an_table, i);

		if (strcmp(t->cls->name, "syscall-latency") == 0 && an_rows(t))
			row = t->cells.v;
	}
	ASSERT_TRUE(row);
	ASSERT_EQ(row[1].v, 3);
	ASSERT_EQ(row[3].v, 10000000002);
	ASSERT_EQ(row[5].kind, C_DURATION);
	ASSERT_EQ(row[5].v, 2);
	an_result_free(r);
}

/* A stream whose time goes backwards: the problem names its file, its CPU and the times. */
static void test_backwards(void)
{
	char root[] = "/tmp/test-analysis-model.XXXXXX", kernel[64], cmd[128];
	static const uint64_t k0[] = {1000, 3000, 2000}, k1[] = {1500, 2500};
	static const char *const dirs[] = {"kernel", NULL};

	ASSERT_TRUE(mkdtemp(root));
	ctf_mkdirs(root, dirs);
	snprintf(kernel, sizeof(kernel), "%s/kernel", root);
	ctf_trace_dir(kernel);
	ctf_stream(kernel, "flight_0", 0, k0, 3);
	ctf_stream(kernel, "flight_1", 1, k1, 2);
	for (unsigned threads = 0; threads <= 2; threads++) {
		struct an_options opt = {.tables = true, .threads = threads};
		struct an_result *r = NULL;
		char *why = NULL, *text, want[256];

		ASSERT_EQ(an_analyze(root, &opt, &r, &why), 0);
		ASSERT_TRUE(an_result_partial(r));
		text = result_text(r);
		snprintf(want, sizeof(want),
			 "%s/flight_0 (CPU 0): time goes backwards, to 1700000000000002000 ns "
			 "since the epoch after 1700000000000003000",
			 kernel);
		ASSERT_CONTAINS(text, want);
		ASSERT_TRUE(!strstr(text, "muxer"));
		free(text);
		an_result_free(r);
	}
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	ASSERT_EQ(system(cmd), 0);
}

/* A PREEMPT_RT kernel as its uname version says, older RT kernels' spelling too. */
static void test_preempt_rt_version(void)
{
	static const struct {
		const char *version;
		bool rt;
	} cases[] = {
		{"#1 SMP PREEMPT_RT Debian 6.1.76-1 (2024-02-01)", true},
		{"#1 SMP PREEMPT RT Tue Jan 8 12:00:00 CET 2019", true},
		{"#1 SMP PREEMPT_DYNAMIC Debian 6.1.76-1 (2024-02-01)", false},
	};
	static const uint64_t ts[] = {1000, 2000};
	static const char *const dirs[] = {"kernel", NULL};

	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		char root[] = "/tmp/test-analysis-model.XXXXXX", path[600], cmd[128];
		struct an_options opt = {.tables = false};
		struct an_result *r = NULL;
		char *why = NULL;
		FILE *f;

		ASSERT_TRUE(mkdtemp(root));
		ctf_mkdirs(root, dirs);
		snprintf(path, sizeof(path), "%s/kernel/metadata", root);
		f = fopen(path, "w");
		ASSERT_TRUE(f);
		ASSERT_TRUE(fprintf(f, "%senv { kernel_version = \"%s\"; };\n", ctf_metadata,
				    cases[c].version) > 0);
		ASSERT_EQ(fclose(f), 0);
		snprintf(path, sizeof(path), "%s/kernel", root);
		ctf_stream(path, "flight_0", 0, ts, 2);
		ASSERT_EQ(an_analyze(root, &opt, &r, &why), 0);
		ASSERT_EQ(r->log.preempt_rt, cases[c].rt);
		an_result_free(r);
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
		ASSERT_EQ(system(cmd), 0);
	}
}

int main(void)
{
	an_log_init(&L);
	RUN(test_lost_irq_exit);
	RUN(test_lost_timer_softirq_exit);
	RUN(test_rt_softirq_preempted);
	RUN(test_discarded_range);
	RUN(test_discarded_inside);
	RUN(test_discarded_order);
	RUN(test_batch_receive);
	RUN(test_batch_local_port);
	RUN(test_batch_window);
	RUN(test_loopback_receive);
	RUN(test_exited);
	RUN(test_sysname_utf8);
	RUN(test_alerts_largest);
	RUN(test_stddev);
	RUN(test_backwards);
	RUN(test_preempt_rt_version);
	an_log_free(&L);
	return 0;
}
