/*
 * lt-syscalls MS EXPECT: the syscalls tracker seen from user space. Sleeps MS
 * milliseconds in nanosleep(2), then reads /dev/latency_tracker (only records raised
 * since it started) and expects EXPECT (0 or 1) alerts of the "syscalls" tracker for its
 * thread with syscall nr nanosleep or clock_nanosleep. With one, checks the return
 * value, that a stack of the blocked task came with it, and that the stack, symbolized
 * through /proc/kallsyms, shows the sleep path (a function with "nanosleep" in its name).
 * Prints PASS/FAIL lines; exit 0 on success.
 */
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "latency_tracker.h"

static int sym_of(uint64_t addr, char *out, size_t len)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	char line[512], name[256], type;
	uint64_t a, best = 0;
	int found = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%" SCNx64 " %c %255s", &a, &type, name) != 3)
			continue;
		if (type != 't' && type != 'T')
			continue;
		if (a <= addr && a > best) {
			best = a;
			snprintf(out, len, "%s+0x%" PRIx64, name, addr - a);
			found = 1;
		}
	}
	fclose(f);
	return found ? 0 : -1;
}

int main(int argc, char **argv)
{
	struct latency_tracker_record rec[16];
	struct timespec ts;
	int ms, expect, fd, n = 0, i, j, seen_path = 0;
	pid_t tid = (pid_t)syscall(SYS_gettid);
	struct latency_tracker_record hit = {0};

	if (argc != 3)
		return 2;
	ms = atoi(argv[1]);
	expect = atoi(argv[2]);
	fd = open(LATENCY_TRACKER_DEV_PATH, O_RDONLY | O_NONBLOCK);
	if (fd < 0) {
		printf("FAIL: open %s\n", LATENCY_TRACKER_DEV_PATH);
		return 1;
	}
	lseek(fd, 0, SEEK_END);
	ts.tv_sec = ms / 1000;
	ts.tv_nsec = (long)(ms % 1000) * 1000000L;
	syscall(SYS_nanosleep, &ts, NULL);
	/* Give the alert time to arrive. */
	poll(&(struct pollfd){.fd = fd, .events = POLLIN}, 1, 300);
	for (;;) {
		ssize_t r = read(fd, rec, sizeof(rec));

		if (r <= 0)
			break;
		for (i = 0; i < r / (ssize_t)sizeof(rec[0]); i++) {
			struct latency_tracker_record *x = &rec[i];

			if (x->kind != LATENCY_TRACKER_REC_ALERT ||
			    strcmp((char *)x->tracker, "syscalls"))
				continue;
			printf("alert tid=%d comm=%s nr=%" PRId64 " ret=%" PRId64
			       " delay_ns=%" PRIu64 " pending_at_stack_ns=%" PRIu64
			       " flags=%#x nr_stack=%u\n",
			       x->tid, (char *)x->comm, (int64_t)x->data[0], (int64_t)x->data[1],
			       (uint64_t)x->delay_ns, (uint64_t)x->data[2], x->flags, x->nr_stack);
			if (x->tid != tid ||
			    (x->data[0] != SYS_nanosleep && x->data[0] != SYS_clock_nanosleep))
				continue;
			hit = *x;
			n++;
		}
	}
	if (n != expect) {
		printf("FAIL: %d nanosleep alerts for tid %d, expected %d\n", n, tid, expect);
		return 1;
	}
	if (!n) {
		printf("PASS: no alert for tid %d (slept %d ms)\n", tid, ms);
		return 0;
	}
	if (hit.tracker_type != LATENCY_TRACKER_TYPE_SYSCALL || hit.data[1] != 0 ||
	    hit.delay_ns < (uint64_t)ms * 1000000ULL) {
		printf("FAIL: type %u ret %" PRId64 " delay %" PRIu64 "\n", hit.tracker_type,
		       (int64_t)hit.data[1], (uint64_t)hit.delay_ns);
		return 1;
	}
	if (!(hit.flags & LATENCY_TRACKER_REC_F_STACK_TASK) || !hit.nr_stack || !hit.data[2]) {
		printf("FAIL: no stack of the blocked task (flags %#x)\n", hit.flags);
		return 1;
	}
	for (j = 0; j < (int)hit.nr_stack && j < LATENCY_TRACKER_STACK_DEPTH; j++) {
		char s[300] = "?";

		sym_of((uint64_t)hit.stack[j], s, sizeof(s));
		printf("  #%d %#" PRIx64 " %s\n", j, (uint64_t)hit.stack[j], s);
		if (strstr(s, "nanosleep"))
			seen_path = 1;
	}
	if (!seen_path) {
		printf("FAIL: the stack does not show the sleep path\n");
		return 1;
	}
	printf("PASS: one alert for tid %d, nr %" PRIu64 ", stack through nanosleep\n", tid,
	       (uint64_t)hit.data[0]);
	return 0;
}
