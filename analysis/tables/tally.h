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
	double sum;
	/* Welford's running mean and sum of squared deviations: a sum of squares less the
	 * squared sum cancels to noise for latencies of nanoseconds over seconds. */
	double mean, m2;
};

struct keyed {
	struct an_map map;
	struct an_vec rows; /* struct stats */
};

/* One interrupt or softirq handler's run: what the distributions bin. */
struct irq_run {
	uint64_t key; /* as struct tally's irq */
	uint64_t dur;
};

struct top {
	uint64_t ts, dur;
	int64_t x, y; /* syscall: who (an_who_key), sys; block: dev, sector */
	int64_t z;    /* syscall: ret; block: bytes */
};

/* What one process read and wrote (iousage.c): bytes by kind of file descriptor, as far as
 * the trace tells (enum io_kind), and its block requests' bytes. */
enum io_kind { IO_FILE, IO_NET, IO_UNKNOWN, IO__KINDS };
struct io_use {
	int32_t tid;		  /* the first task seen of the process */
	uint64_t ts;		  /* when: it is named as it was then */
	uint64_t read[IO__KINDS]; /* system calls' returned bytes */
	uint64_t written[IO__KINDS];
	uint64_t block_read, block_written; /* block requests it issued */
};

struct tally {
	const struct an_log *log;
	uint64_t begin, end;
	unsigned ncpu;
	/* Per task, a row per identity (an_who_key): a thread that exec'd or was renamed ran
	 * as one program, then as another; a reused tid is another process's thread. */
	struct keyed run;     /* running time per task (tid 0: idle) */
	struct keyed sys;     /* system call latencies per call */
	struct keyed sysproc; /* ... per task, as it was when the call began */
	struct keyed irq;     /* handler durations per irq; softirqs with bit 32 set */
	struct keyed disk;    /* block request latencies per device */
	struct an_vec topsys; /* struct top: every system call in the window */
	struct an_vec topblk; /* struct top: every block request in the window */
	struct an_vec irqrun; /* struct irq_run: every handler run in the window */
	uint64_t *busy;	      /* per CPU: time not idle */
	/* The pass's own state. */
	int32_t *cur;		/* per CPU: the running task, -1 unknown */
	uint64_t *since;	/* per CPU: since when */
	uint64_t *irq_ts;	/* per CPU: the irq handler's entry, 0 none */
	uint64_t *sirq_ts;	/* per CPU: the softirq's entry, 0 none */
	struct an_map pend_map; /* tid + 1 -> index in pend + 1 */
	struct an_vec pend;	/* the system call each task is in */
	struct an_map blk_map;	/* block request key + 1 -> index in blk + 1 */
	struct an_vec blk;	/* struct blk_pending: each pending block request */
	/* I/O usage per process: its key (iousage.c) + 1 -> index in io + 1 */
	struct an_map io_map;
	struct an_vec io;    /* struct io_use */
	signed char *sys_io; /* per system call index: -1 no I/O, else IO_* | IO_WRITES */
};

/* iousage.c: each system call's I/O kind (tally.sys_io), and the bytes credited. */
#define IO_WRITES 0x10
int an_io_kinds(const struct an_log *log, signed char **kinds);
int an_io_syscall(struct tally *t, int32_t tid, uint64_t ts, int32_t sys, int64_t ret);
int an_io_block(struct tally *t, int32_t tid, uint64_t ts, int32_t rwbs, uint64_t bytes);

/* The log's events over [begin, end] tallied into T; -1 when out of memory. Either way, T is
 * freed with an_tally_free(). */
int an_tally(const struct an_log *log, uint64_t begin, uint64_t end, struct tally *t);
void an_tally_free(struct tally *t);

#endif /* LATENCY_ANALYSIS_TALLY_H */
