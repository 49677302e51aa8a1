// SPDX-License-Identifier: GPL-2.0-only
/*
 * latency_tracker_iosched: the "iosched" tracker. A block request is a key (its disk and
 * first sector, the block tracker's key: the same layout, so that what reads one reads the
 * other) from block:block_rq_insert, when it is queued in the I/O scheduler (or, without
 * one, in blk-mq's software queue), to block:block_rq_issue, when the driver is handed
 * it; one that took at least threshold_ns raises an alert with the device, sector, size
 * and rwbs of the request, the block tracker's data words. This is the time a request
 * waited in the scheduler: the block tracker measures what follows, issue to completion.
 *
 * Requests never inserted are not seen: blk-mq issues a request directly to the driver,
 * without insertion, when the queue has no scheduler ("none") and the driver has room
 * (blk_mq_try_issue_directly()), and also with a scheduler for some requests (a flush,
 * or a plug flushed straight to an idle hardware queue). Their issue finds no key and is
 * counted as unmatched, not as a pair of zero delay: the statistics (delay_count, the
 * histogram) describe only the requests that did wait in a queue, and delay_count plus
 * unmatched is the count of requests issued. On a disk without a scheduler, most
 * requests are of that kind.
 *
 * The task is the one current at insertion, usually the one that submitted the I/O (or
 * flushed its plug; kblockd's worker for a requeued request). The filters apply to that
 * task; issues (any task, kblockd's worker often) are never filtered: they only close
 * keys that exist.
 *
 * Requests left out, as by the block tracker, and why: without a disk, or passthrough
 * (their sector means nothing); zero bytes (flushes, empty barriers: no sector).
 *
 * Duplicates: an insertion of a key already pending replaces it (DUP_REPLACE). The key
 * left behind is most often one of a request merged into another while queued (it is
 * freed, never issued): kept, it would make the next request on that sector look as old
 * as it. A request the driver hands back (BLK_STS_RESOURCE, requeue) is issued again
 * without a new insertion: its second issue is unmatched. A merged request that no
 * insertion of the same sector replaces stays until stale_ns discards it, silently (no
 * stale_alert): a stale key here is such a merged request, not a late one.
 *
 * Cost: nothing while disabled (no probe registered). Enabled: a few loads, one filter
 * check and one table operation per request inserted and per request issued.
 */
#include <linux/blk-mq.h>
#include <linux/blkdev.h>
#include <linux/kernel.h>
#include <linux/kdev_t.h>
#include <linux/module.h>
#include <linux/string.h>

#include "common.h"
#include "blkreq.h"

static struct latency_tracker *ltt_ios;
static struct ltt_filter ltt_ios_filter;

static void ltt_ios_insert(void *data, struct request *rq)
{
	struct latency_tracker_in in = { };
	struct ltt_blk_key key;

	if (!ltt_blk_key_of(rq, &key) || !ltt_filter_match(&ltt_ios_filter, current))
		return;
	ltt_blk_in(&key, rq, &in);
	latency_tracker_event_in(ltt_ios, &key, sizeof(key), &in);
}

/* Any task; with the queue's dispatch in progress, never in hard irq context. */
static void ltt_ios_issue(void *data, struct request *rq)
{
	struct ltt_blk_key key;

	if (!ltt_blk_key_of(rq, &key))
		return;
	latency_tracker_event_out(ltt_ios, &key, sizeof(key), NULL);
}

/* Issues first: an insertion seen always has its issue probe in place. */
static struct ltt_probe ltt_ios_probes[] = {
	{ .name = "block_rq_issue", .func = ltt_ios_issue },
	{ .name = "block_rq_insert", .func = ltt_ios_insert },
};

/* Its records are the block tracker's type: the same data words (uapi header). */
static const struct latency_tracker_params ltt_ios_params = {
	.name = "iosched",
	.type = LATENCY_TRACKER_TYPE_BLOCK,
	.key_size = sizeof(struct ltt_blk_key),
	.dup_policy = LATENCY_TRACKER_DUP_REPLACE,
	.stack_mode = LATENCY_TRACKER_STACK_NONE,
	.cb = ltt_blk_cb,
	.activate = ltt_probes_activate,
	.deactivate = ltt_probes_deactivate,
	.hist_dim = LATENCY_TRACKER_HIST_DISK,
	.hist_key = ltt_blk_hist_key,
};

static int __init ltt_ios_init(void)
{
	ltt_ios = ltt_tracker_create(&ltt_ios_params, ltt_ios_probes, ARRAY_SIZE(ltt_ios_probes),
				     &ltt_ios_filter);
	return PTR_ERR_OR_ZERO(ltt_ios);
}

static void __exit ltt_ios_exit(void)
{
	ltt_tracker_destroy(ltt_ios, &ltt_ios_filter);
}

module_init(ltt_ios_init);
module_exit(ltt_ios_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("latency_tracker: block requests, from insertion to issue");
