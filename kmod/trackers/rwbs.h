/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The rwbs text of a block request ("R", "WS", "RA"...), as the block tracepoints print
 * it, for the alerts of the block and iosched trackers.
 */
#ifndef _LTT_RWBS_H
#define _LTT_RWBS_H

#include <linux/blk_types.h>
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

#endif /* _LTT_RWBS_H */
