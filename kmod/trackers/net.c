// SPDX-License-Identifier: GPL-2.0-only
/*
 * latency_tracker_net: the "net" tracker. A received packet is a key (the skb pointer)
 * from net:netif_receive_skb to its delivery: the first copy to the reader
 * (skb:skb_copy_datagram_iovec), its free by the reader (skb:consume_skb) or its drop
 * (skb:kfree_skb, data[3] = 1). A packet delivered at least threshold_ns after it was
 * received raises an alert: the reader was late (not scheduled, busy elsewhere) or the
 * packet waited behind others in the socket queue.
 *
 * Why the copy too: in 6.1 a UDP reader frees the skb through consume_skb's tracepoint
 * (skb_consume_udp -> __consume_stateless_skb), but a TCP reader frees it through
 * tcp_eat_recv_skb -> skb_attempt_defer_free / __kfree_skb, which trace nothing; the
 * copy to user space is traced for both and is the moment the owner got the data.
 *
 * The task: at receive time current is whatever the softirq interrupted, so the record's
 * task is set by the callback to current at the end, the consumer, when the end happens
 * in task context (recvmsg, close). An end in softirq context (a drop on the receive
 * path, a socket destroyed from an RCU callback, a forwarded packet freed after its
 * transmission) has no consumer: pid = tid = 0, comm empty; timeout alerts too.
 *
 * Filters: the task is not known at receive, so every packet is tracked and the
 * filters (filter_tgid, filter_tid, filter_comm, filter_cgroup_id) are applied to the
 * consumer when an alert is raised; a filtered-out alert is counted in stats/filtered,
 * an alert without a consumer is filtered out whenever a filter is set.
 *
 * Not every skb's end is traced: TCP segments merged into the previous one in the
 * receive queue (tcp_try_coalesce) and skbs freed with __kfree_skb or
 * kfree_skb_partial never reach a tracepoint. TCP segments without payload (pure ACKs,
 * SYN, FIN), which never reach a reader, are not tracked at all; the rest are discarded
 * as stale after stale_ns (default 1 s, counted in stats/stale) so they cannot fill the
 * table. A packet still unread after stale_ns is discarded the same way, without an
 * alert (no stale_alert: most stale keys here are segments coalesced into another), unless
 * timeout_ns (below stale_ns) raises a timeout alert first. An skb address that
 * comes back for a new packet restarts its key (dup policy replace).
 *
 * Cost: nothing while disabled (no probe registered). Enabled: a bounded parse of the
 * linear header and one table insert per received packet; one read of skb->skb_iif per
 * consume_skb, kfree_skb and datagram copy (very frequent, transmitted packets
 * included), and a lock-free lookup only for skbs that were received (skb_iif set);
 * the locked remove only when that lookup hits.
 */
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/skbuff.h>
#include <linux/string.h>
#include <net/ip.h>

#include "common.h"
#include "../src/wrapper.h"

#define LTT_NET_STALE_NS NSEC_PER_SEC
#define LTT_NET_MAX_KEYS 16384

static struct latency_tracker *ltt_net;
static struct ltt_filter ltt_net_filter;

static u16 ltt_net_be16(const u8 *p)
{
	return p[0] << 8 | p[1];
}

/*
 * At netif_receive_skb, skb->data points at the network header. Reads only what
 * skb_headlen() says is in the linear area. Fills data[1] and data[2]. Return: false
 * for a TCP segment without payload (never delivered to a reader: not tracked).
 */
static bool ltt_net_parse(const struct sk_buff *skb, u64 *data)
{
	unsigned int hlen = skb_headlen(skb), off, len;
	u16 proto = ntohs(skb->protocol);
	const u8 *h = skb->data;
	bool ports = true;
	u8 ipproto;

	data[1] = proto;
	if (proto == ETH_P_IP) {
		const struct iphdr *ip = (const struct iphdr *)h;

		if (hlen < sizeof(*ip) || ip->version != 4 || ip->ihl < 5)
			return true;
		ipproto = ip->protocol;
		off = ip->ihl * 4;
		len = ntohs(ip->tot_len);
		/* Only the first fragment carries the transport header. */
		if (ip->frag_off & htons(IP_OFFSET))
			ports = false;
	} else if (proto == ETH_P_IPV6) {
		const struct ipv6hdr *ip6 = (const struct ipv6hdr *)h;

		if (hlen < sizeof(*ip6) || ip6->version != 6)
			return true;
		/* The first next header: extension headers are not walked. */
		ipproto = ip6->nexthdr;
		off = sizeof(*ip6);
		len = off + ntohs(ip6->payload_len);
	} else {
		return true;
	}
	data[1] |= (u64)ipproto << 16;
	if (!ports || (ipproto != IPPROTO_TCP && ipproto != IPPROTO_UDP) || hlen < off + 4)
		return true;
	data[2] = ltt_net_be16(h + off) | (u64)ltt_net_be16(h + off + 2) << 16;
	/*
	 * TCP data offset (header length in words) is the high nibble of byte 12. A length
	 * of 0 is a BIG TCP packet (over 64 KiB, IPv4): it has payload.
	 */
	if (ipproto == IPPROTO_TCP && len && hlen >= off + 13 &&
	    len <= off + (h[off + 12] >> 4) * 4)
		return false;
	return true;
}

static void ltt_net_receive(void *data, struct sk_buff *skb)
{
	struct latency_tracker_in in = { };
	unsigned long key = (unsigned long)skb;

	if (!ltt_net_parse(skb, in.data))
		return;
	in.data[0] = skb->dev ? skb->dev->ifindex : 0;
	latency_tracker_event_in(ltt_net, &key, sizeof(key), &in);
}

static void ltt_net_end(const struct sk_buff *skb, u64 dropped)
{
	struct latency_tracker_out out = { .data_mask = BIT(3) };
	unsigned long key = (unsigned long)skb;
	int ret;

	/*
	 * The miss path, for every freed skb: skb_iif is zero in an skb allocated here
	 * (transmitted packets) and set by __netif_receive_skb_core(). A received skb
	 * already closed (copied, then freed) misses the lock-free lookup, so only a hit
	 * takes the bucket lock, and misses are not counted as unmatched. A lookup that gave
	 * up on a chain changing under it (-EBUSY) is no miss: event_out() decides under the
	 * lock, and the pair is not lost.
	 */
	if (likely(!skb->skb_iif))
		return;
	ret = latency_tracker_lookup(ltt_net, &key, sizeof(key), NULL);
	if (ret && ret != -EBUSY)
		return;
	out.data[3] = dropped;
	latency_tracker_event_out(ltt_net, &key, sizeof(key), &out);
}

static void ltt_net_copy(void *data, const struct sk_buff *skb, int len)
{
	ltt_net_end(skb, 0);
}

static void ltt_net_consume(LT_CONSUME_SKB_PROTO)
{
	ltt_net_end(skb, 0);
}

static void ltt_net_kfree(LT_KFREE_SKB_PROTO)
{
	ltt_net_end(skb, 1);
}

/* The ends registered first and removed last: a packet seen received has its end seen. */
static struct ltt_probe ltt_net_probes[] = {
	{ .name = "skb_copy_datagram_iovec", .func = ltt_net_copy },
	{ .name = "consume_skb", .func = ltt_net_consume },
	{ .name = "kfree_skb", .func = ltt_net_kfree },
	{ .name = "netif_receive_skb", .func = ltt_net_receive },
};

/* The record's task is the consumer: current at the end, if that is a task. */
static bool ltt_net_cb(struct latency_tracker *t, struct latency_tracker_record *rec,
		       void *priv)
{
	struct task_struct *task = current;

	BUILD_BUG_ON(sizeof(rec->comm) != sizeof(task->comm));
	if (rec->reason != LATENCY_TRACKER_REASON_THRESHOLD || !in_task()) {
		rec->pid = 0;
		rec->tid = 0;
		memset(rec->comm, 0, sizeof(rec->comm));
		return !rcu_access_pointer(ltt_net_filter.conf);
	}
	if (!ltt_filter_match(&ltt_net_filter, task))
		return false;
	rec->pid = task->tgid;
	rec->tid = task->pid;
	memcpy(rec->comm, task->comm, sizeof(rec->comm));
	return true;
}

static const struct latency_tracker_params ltt_net_params = {
	.name = "net",
	.type = LATENCY_TRACKER_TYPE_NET,
	.key_size = sizeof(unsigned long),
	.max_keys = LTT_NET_MAX_KEYS,
	.stale_ns = LTT_NET_STALE_NS,
	/* Most of its stale keys are ends it cannot see (above), not late packets. */
	.dup_policy = LATENCY_TRACKER_DUP_REPLACE,
	.stack_mode = LATENCY_TRACKER_STACK_NONE,
	.cb = ltt_net_cb,
	.activate = ltt_probes_activate,
	.deactivate = ltt_probes_deactivate,
};

static int __init ltt_net_init(void)
{
	ltt_net = ltt_tracker_create(&ltt_net_params, ltt_net_probes, ARRAY_SIZE(ltt_net_probes),
				  &ltt_net_filter);
	return PTR_ERR_OR_ZERO(ltt_net);
}

static void __exit ltt_net_exit(void)
{
	ltt_tracker_destroy(ltt_net, &ltt_net_filter);
}

module_init(ltt_net_init);
module_exit(ltt_net_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("latency_tracker: received packets, from the device to their reader");
