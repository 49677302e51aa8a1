/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A block request as the block and iosched trackers see it: the same key (so that a
 * request is the same key in both, and both split their histograms per disk alike), the
 * same data words, and the rwbs text ("R", "WS", "RA"...) of their alerts as the block
 * tracepoints print it. Each tracker module compiles its own copy.
 */
#ifndef _LTT_BLKREQ_H
#define _LTT_BLKREQ_H

#include <linux/blk-mq.h>
#include <linux/blk_types.h>
#include <linux/blkdev.h>
#include <linux/kdev_t.h>
#include <linux/string.h>
#if IS_ENABLED(CONFIG_BLK_DEV_IO_TRACE)
#include <linux/blktrace_api.h>
#endif

/* blk_fill_rwbs() writes at most 8 bytes (RWBS_LEN) today; leave room. */
#define LTT_RWBS_BUF 16

#if !IS_ENABLED(CONFIG_BLK_DEV_IO_TRACE)
/* blk_fill_rwbs() only exists with blktrace: the same letters, same order. */
static inline void ltt_fill_rwbs(char *rwbs, blk_opf_t opf)
{
	int i = 0;

	if (opf & REQ_PREFLUSH)
		rwbs[i++] = 'F';
	switch (opf & REQ_OP_MASK) {
	case REQ_OP_WRITE:
		rwbs[i++] = 'W';
		break;
	case REQ_OP_DISCARD:
		rwbs[i++] = 'D';
		break;
	case REQ_OP_SECURE_ERASE:
		rwbs[i++] = 'D';
		rwbs[i++] = 'E';
		break;
	case REQ_OP_FLUSH:
		rwbs[i++] = 'F';
		break;
	case REQ_OP_READ:
		rwbs[i++] = 'R';
		break;
	default:
		rwbs[i++] = 'N';
	}
	if (opf & REQ_FUA)
		rwbs[i++] = 'F';
	if (opf & REQ_RAHEAD)
		rwbs[i++] = 'A';
	if (opf & REQ_SYNC)
		rwbs[i++] = 'S';
	if (opf & REQ_META)
		rwbs[i++] = 'M';
	rwbs[i] = '\0';
}
#else
#define ltt_fill_rwbs blk_fill_rwbs
#endif

/* No padding: every byte of the key is hashed and compared. */
struct ltt_blk_key {
	u64 sector;
	u32 dev;
} __packed;

/*
 * Same device as the block tracepoints: the whole disk's dev_t, partitions remapped.
 * Left out: no disk or passthrough (the sector means nothing), zero bytes (flushes).
 */
static inline bool ltt_blk_key_of(struct request *rq, struct ltt_blk_key *key)
{
	struct gendisk *disk = rq->q->disk;

	if (!disk || blk_rq_is_passthrough(rq) || !blk_rq_bytes(rq))
		return false;
	memset(key, 0, sizeof(*key));
	key->sector = blk_rq_pos(rq);
	key->dev = disk_devt(disk);
	return true;
}

/* The record's data words (uapi: LATENCY_TRACKER_TYPE_BLOCK); data[3] holds the flags
 * until ltt_blk_cb() turns them into the rwbs text. */
static inline void ltt_blk_in(const struct ltt_blk_key *key, struct request *rq,
			      struct latency_tracker_in *in)
{
	in->data[0] = (u64)MAJOR(key->dev) << 32 | MINOR(key->dev);
	in->data[1] = key->sector;
	in->data[2] = blk_rq_bytes(rq);
	in->data[3] = (__force u64)rq->cmd_flags;
}

static inline bool ltt_blk_cb(struct latency_tracker *t, struct latency_tracker_record *rec,
			      void *priv)
{
	char rwbs[LTT_RWBS_BUF] = { };

	ltt_fill_rwbs(rwbs, (__force blk_opf_t)(u32)rec->data[3]);
	ltt_pack_text(&rec->data[3], 1, rwbs, sizeof(rwbs));
	return true;
}

/* hist/per "disk": the key's whole-disk dev_t. */
static inline u32 ltt_blk_hist_key(const void *key, size_t len, const u64 *data)
{
	return ((const struct ltt_blk_key *)key)->dev;
}

#endif /* _LTT_BLKREQ_H */
