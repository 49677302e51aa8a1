// SPDX-License-Identifier: GPL-2.0-only
/*
 * latency_tracker_block: the "block" tracker. A block request is a key (its disk and
 * first sector) from block:block_rq_issue, when the driver is handed the request, to
 * block:block_rq_complete, when the driver completes it; one that took at least
 * threshold_ns raises an alert with the device, sector, size and rwbs of the request.
 * This is the device's service time (plus the driver's queueing), not the time the
 * request waited in the I/O scheduler before being issued.
 *
 * The task is the one current at issue: with blk-mq that is usually the task that
 * submitted the I/O (direct issue or its plug flush), but a request issued later by a
 * queue run from kblockd or from another task's completion shows that task instead. The
 * filters apply to that issuing task; completions (hard or soft interrupt context, or
 * any task polling) are never filtered: they only close keys that exist.
 *
 * Requests left out, and why:
 *   - without a disk, or passthrough (SG_IO, NVMe admin...): their sector means nothing,
 *     the block tracepoints report it as 0, so every such request would share one key;
 *   - zero bytes (the flushes of blk-flush.c, empty barriers): no sector either, and
 *     their cost is seen where it hurts, e.g. by the syscalls tracker on fsync().
 *
 * Duplicates: a key already pending is kept (DUP_REJECT). A request requeued by the
 * driver (BLK_STS_RESOURCE) is issued again with the same key: keeping the first issue
 * measures what the issuer waits for, requeues included. Two requests in flight on the
 * same sector of the same disk (rare: O_DIRECT readers of one block) are one key: the
 * first completion closes it, the other completion is counted as unmatched. A zone
 * append is not tracked: its completion carries the sector the device chose, so it would
 * never match, and its key, discarded as stale, would raise a false alert.
 *
 * Partial completions (a driver completing a request in several chunks) close the key
 * at the first chunk: the sector moves on afterwards.
 *
 * Cost: nothing while disabled (no probe registered). Enabled: a few loads, one filter
 * check and one table operation per request issued and per request completed. The rwbs
 * text is only built for alerts: the request's flags are kept in data[3] meanwhile.
 */
#include <linux/blk-mq.h>
#include <linux/blkdev.h>
#include <linux/kernel.h>
#include <linux/kdev_t.h>
#include <linux/module.h>
#include <linux/string.h>

#include "common.h"
#include "blkreq.h"

static struct latency_tracker *ltt_blk;
static struct ltt_filter ltt_blk_filter;

static void ltt_blk_issue(void *data, struct request *rq)
{
	struct latency_tracker_in in = { };
	struct ltt_blk_key key;

	if (req_op(rq) == REQ_OP_ZONE_APPEND)
		return;
	if (!ltt_blk_key_of(rq, &key) || !ltt_filter_match(&ltt_blk_filter, current))
		return;
	ltt_blk_in(&key, rq, &in);
	latency_tracker_event_in(ltt_blk, &key, sizeof(key), &in);
}

/* Any context: hard irq, softirq (blk_mq_complete_request_remote), or a polling task. */
static void ltt_blk_complete(void *data, struct request *rq, blk_status_t error,
			     unsigned int nr_bytes)
{
	struct ltt_blk_key key;

	if (!ltt_blk_key_of(rq, &key))
		return;
	latency_tracker_event_out(ltt_blk, &key, sizeof(key), NULL);
}

/* Completions first: an issue seen always has its completion probe in place. */
static struct ltt_probe ltt_blk_probes[] = {
	{ .name = "block_rq_complete", .func = ltt_blk_complete },
	{ .name = "block_rq_issue", .func = ltt_blk_issue },
};

static const struct latency_tracker_params ltt_blk_params = {
	.name = "block",
	.type = LATENCY_TRACKER_TYPE_BLOCK,
	.key_size = sizeof(struct ltt_blk_key),
	.dup_policy = LATENCY_TRACKER_DUP_REJECT,
	.stack_mode = LATENCY_TRACKER_STACK_NONE,
	.stale_alert = true, /* every completion is seen: a stale request is a late one */
	.cb = ltt_blk_cb,
	.activate = ltt_probes_activate,
	.deactivate = ltt_probes_deactivate,
	.hist_dim = LATENCY_TRACKER_HIST_DISK,
	.hist_key = ltt_blk_hist_key,
};

static int __init ltt_blk_init(void)
{
	ltt_blk = ltt_tracker_create(&ltt_blk_params, ltt_blk_probes, ARRAY_SIZE(ltt_blk_probes),
				  &ltt_blk_filter);
	return PTR_ERR_OR_ZERO(ltt_blk);
}

static void __exit ltt_blk_exit(void)
{
	ltt_tracker_destroy(ltt_blk, &ltt_blk_filter);
}

module_init(ltt_blk_init);
module_exit(ltt_blk_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("latency_tracker: block requests, from issue to completion");
