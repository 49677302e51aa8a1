/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * tally.c: the statistics' one pass over the log, what statistics.c makes its tables of:
 * durations summed per key (a task, a system call, an irq, a disk) and the longest single
 * ones, over the window [begin, end].
 */
#ifndef LATENCY_ANALYSIS_TALLY_H
#define LATENCY_ANALYSIS_TALLY_H

#include <stdint.h>

#include "an.h"

struct stats {
	uint64_t key, count, min, max;
	double sum, sumsq;
};

struct keyed {
	struct an_map map;
	struct an_vec rows; /* struct stats */
};

struct top {
	uint64_t ts, dur;
	int64_t x, y; /* syscall: tid, sys; block: dev, sector */
	int64_t z;    /* syscall: ret; block: bytes */
};

struct tally {
	uint64_t begin, end;
	unsigned ncpu;
	struct keyed run;     /* running time per task (tid 0: idle) */
	struct keyed sys;     /* system call latencies per call */
	struct keyed sysproc; /* ... per task */
	struct keyed irq;     /* handler durations per irq; softirqs with bit 32 set */
	struct keyed disk;    /* block request latencies per device */
	struct an_vec topsys; /* struct top: every system call in the window */
	struct an_vec topblk; /* struct top: every block request in the window */
	uint64_t *busy;	      /* per CPU: time not idle */
	/* The pass's own state. */
	int32_t *cur;		/* per CPU: the running task, -1 unknown */
	uint64_t *since;	/* per CPU: since when */
	uint64_t *irq_ts;	/* per CPU: the irq handler's entry, 0 none */
	uint64_t *sirq_ts;	/* per CPU: the softirq's entry, 0 none */
	struct an_map pend_map; /* tid + 1 -> index in pend + 1 */
	struct an_vec pend;	/* the system call each task is in */
	struct an_map blk_map;	/* block request key + 1 -> index in blk + 1 */
	struct an_vec blk;	/* uint64_t: each pending block request's issue */
};

/* The log's events over [begin, end] tallied into T; -1 when out of memory. Either way, T is
 * freed with an_tally_free(). */
int an_tally(const struct an_log *log, uint64_t begin, uint64_t end, struct tally *t);
void an_tally_free(struct tally *t);

#endif /* LATENCY_ANALYSIS_TALLY_H */
