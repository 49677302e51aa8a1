// SPDX-License-Identifier: GPL-2.0-only
/*
 * Test double of the kernel module's notification file for host tests: writes alert
 * records (the real ABI, kmod/include/uapi/latency_tracker.h) to a FIFO that latencyd reads
 * as module.notify_path. end_ns is now on CLOCK_MONOTONIC, like the module's clock.
 * Usage: alert-write FIFO TRACKER COUNT [GAP_MS]   (COUNT writes of one record each)
 * ALERT_STACK=0xADDR,0xADDR,... in the environment: each record carries that kernel stack,
 * as the syscalls tracker's blocked-task stack (flag STACK_TASK).
 * ALERT_ONE_WRITE=1: the COUNT records (at most 16, no gap) go in one write(), so that
 * all of them have ended before the reader sees the first.
 * ALERT_COMM=BYTES: the task's name, any bytes (a task sets its own), instead of alert-write.
 * ALERT_REASON=timeout: a timeout record (pending past timeout_ns, 2 s); =discarded: the
 * last record of a key discarded as stale, 61.2 s old (reason TIMEOUT, flag DISCARDED).
 */
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <latency_tracker.h>

/* Records one write() can carry (ALERT_ONE_WRITE). */
#define ONE_WRITE_MAX 16

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int main(int argc, char **argv)
{
	struct latency_tracker_record rec, batch[ONE_WRITE_MAX];
	const char *one = getenv("ALERT_ONE_WRITE"), *reason = getenv("ALERT_REASON");
	bool one_write = one && !strcmp(one, "1");
	long count, gap_ms;
	int fd;

	if (argc < 4 || argc > 5) {
		fprintf(stderr, "usage: alert-write FIFO TRACKER COUNT [GAP_MS]\n");
		return 2;
	}
	count = atol(argv[3]);
	gap_ms = argc == 5 ? atol(argv[4]) : 0;
	if (one_write && (count < 1 || count > ONE_WRITE_MAX || gap_ms)) {
		fprintf(stderr, "alert-write: ALERT_ONE_WRITE=1 takes 1 to %d records, no gap\n",
			ONE_WRITE_MAX);
		return 2;
	}
	if (reason && strcmp(reason, "timeout") != 0 && strcmp(reason, "discarded") != 0) {
		fprintf(stderr, "alert-write: ALERT_REASON is timeout or discarded, not \"%s\"\n",
			reason);
		return 2;
	}
	fd = open(argv[1], O_WRONLY);
	if (fd < 0) {
		perror(argv[1]);
		return 1;
	}
	for (long i = 0; i < count; i++) {
		struct timespec gap = {gap_ms / 1000, (gap_ms % 1000) * 1000000};

		memset(&rec, 0, sizeof(rec));
		rec.size = sizeof(rec);
		rec.version = LATENCY_TRACKER_RECORD_VERSION;
		rec.kind = LATENCY_TRACKER_REC_ALERT;
		rec.seq = (uint64_t)i;
		strncpy((char *)rec.tracker, argv[2], sizeof(rec.tracker) - 1);
		rec.tracker_type = LATENCY_TRACKER_TYPE_SELFTEST;
		rec.reason = LATENCY_TRACKER_REASON_THRESHOLD;
		rec.pid = rec.tid = getpid();
		strncpy((char *)rec.comm,
			getenv("ALERT_COMM") ? getenv("ALERT_COMM") : "alert-write",
			sizeof(rec.comm) - 1);
		rec.end_ns = now_ns();
		rec.delay_ns = 5000000;
		if (reason) {
			rec.reason = LATENCY_TRACKER_REASON_TIMEOUT;
			rec.end_cpu = LATENCY_TRACKER_CPU_NONE;
			rec.delay_ns = 2000000000;
		}
		if (reason && !strcmp(reason, "discarded")) {
			rec.flags |= LATENCY_TRACKER_REC_F_DISCARDED;
			rec.delay_ns = 61200000000ULL;
		}
		/* A host up for less than the delay: an interval from boot on. */
		if (rec.delay_ns > rec.end_ns)
			rec.delay_ns = rec.end_ns;
		rec.start_ns = rec.end_ns - rec.delay_ns;
		rec.threshold_ns = 1000000;
		rec.data[0] = (uint64_t)i;
		for (const char *p = getenv("ALERT_STACK");
		     p && *p && rec.nr_stack < LATENCY_TRACKER_STACK_DEPTH;) {
			char *end;
			unsigned long long a = strtoull(p, &end, 16);

			if (end == p)
				break;
			rec.stack[rec.nr_stack++] = a;
			rec.flags |= LATENCY_TRACKER_REC_F_STACK_TASK;
			p = *end == ',' ? end + 1 : end;
		}
		if (one_write) {
			batch[i] = rec;
			continue;
		}
		if (write(fd, &rec, sizeof(rec)) != (ssize_t)sizeof(rec)) {
			perror("write");
			return 1;
		}
		if (gap_ms)
			nanosleep(&gap, NULL);
	}
	if (one_write && write(fd, batch, (size_t)count * sizeof(rec)) !=
				 (ssize_t)((size_t)count * sizeof(rec))) {
		perror("write");
		return 1;
	}
	close(fd);
	return 0;
}
