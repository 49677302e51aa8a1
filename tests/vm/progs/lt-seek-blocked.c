/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * lt-seek-blocked: lseek() on /dev/latency_tracker while another thread of the process
 * sleeps in read() on the same open file, the ring idle. The lseek must return at once,
 * not wait for a read that may never end; the read then still wakes on the next alert
 * and returns it. Needs latency_tracker and latency_tracker_selftest loaded (the alert is
 * raised through the self-test's emit file).
 * Prints PASS/FAIL; exits 0 on success.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "latency_tracker.h"
#include "lt-progs.h"

#define EMIT	 "/sys/kernel/latency_tracker_selftest/emit"
#define RSIZE	 sizeof(struct latency_tracker_record)
#define MAXREC	 16
#define LIMIT_NS 5000000000ULL

struct fd_thread {
	int fd;
	_Atomic pid_t tid;
	_Atomic int done;
	long ret;
	int err;
	pthread_t thread;
};

static struct latency_tracker_record recs[MAXREC];

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static void *read_run(void *arg)
{
	struct fd_thread *ft = arg;
	ssize_t n;

	ft->tid = (pid_t)syscall(SYS_gettid);
	n = read(ft->fd, recs, sizeof(recs));
	ft->err = errno;
	ft->ret = (long)n;
	ft->done = 1;
	return NULL;
}

static void *seek_run(void *arg)
{
	struct fd_thread *ft = arg;
	off_t r = lseek(ft->fd, 0, SEEK_END);

	ft->err = errno;
	ft->ret = (long)r;
	ft->done = 1;
	return NULL;
}

static void start(struct fd_thread *ft, void *(*fn)(void *))
{
	if (pthread_create(&ft->thread, NULL, fn, ft))
		fail("pthread_create");
}

static void wait_done(struct fd_thread *ft, const char *what)
{
	uint64_t t0 = now_ns();

	while (!ft->done) {
		if (now_ns() - t0 > LIMIT_NS)
			fail("%s: still blocked after 5 s", what);
		usleep(1000);
	}
	pthread_join(ft->thread, NULL);
}

int main(void)
{
	struct fd_thread rd = {.fd = -1}, sk = {.fd = -1};
	uint64_t t0, took;
	int fd, efd;

	setvbuf(stdout, NULL, _IOLBF, 0);
	fd = open(LATENCY_TRACKER_DEV_PATH, O_RDONLY);
	if (fd < 0)
		fail("open %s: %s", LATENCY_TRACKER_DEV_PATH, strerror(errno));
	if (lseek(fd, 0, SEEK_END) < 0)
		fail("lseek SEEK_END: %s", strerror(errno));
	rd.fd = sk.fd = fd;

	start(&rd, read_run);
	while (!rd.tid)
		usleep(1000);
	if (wait_sleeping(rd.tid))
		fail("the reader never slept in read()");

	t0 = now_ns();
	start(&sk, seek_run);
	wait_done(&sk, "lseek(SEEK_END) while another thread is blocked in read()");
	took = now_ns() - t0;
	if (sk.ret != 0)
		fail("lseek(SEEK_END): %ld (%s)", sk.ret, strerror(sk.err));
	if (rd.done)
		fail("read() returned %ld (%s) with nothing to read", rd.ret, strerror(rd.err));
	printf("PASS: lseek returned in %" PRIu64 " us while a read() slept\n", took / 1000);

	efd = open(EMIT, O_WRONLY);
	if (efd < 0 || write(efd, "threshold 1", 11) != 11)
		fail("emit: %s", strerror(errno));
	close(efd);
	wait_done(&rd, "read() after an alert");
	if (rd.ret != (long)RSIZE)
		fail("read() after the alert: %ld (%s), expected one record", rd.ret,
		     strerror(rd.err));
	if (recs[0].kind != LATENCY_TRACKER_REC_ALERT || recs[0].data[1] != 0xfeed ||
	    recs[0].data[2] != 1)
		fail("read() after the alert: kind %u data1 %" PRIx64 " data2 %" PRIu64,
		     recs[0].kind, (uint64_t)recs[0].data[1], (uint64_t)recs[0].data[2]);
	printf("PASS: the blocked read() then returned the next alert\n");
	close(fd);
	return 0;
}
