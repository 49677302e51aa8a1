// SPDX-License-Identifier: GPL-2.0-only
/*
 * bench-syscalls [ITERATIONS]: a system-call-heavy load. Each iteration makes three short
 * system calls (getppid, a 64-byte read of /dev/zero, a 64-byte write to /dev/null), the
 * kind of load where a per-system-call hook costs the most. Prints the elapsed time in ns
 * (CLOCK_MONOTONIC).
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int main(int argc, char **argv)
{
	long iterations = 100000;
	int zero = open("/dev/zero", O_RDONLY), null = open("/dev/null", O_WRONLY);
	char buf[64], *end;
	uint64_t t0;

	if (argc > 2 || (argc == 2 && ((iterations = strtol(argv[1], &end, 10)) < 1 || *end))) {
		fprintf(stderr, "usage: bench-syscalls [ITERATIONS] (a positive number)\n");
		return 2;
	}
	if (zero < 0 || null < 0) {
		perror("bench-syscalls: open");
		return 1;
	}
	t0 = now_ns();
	for (long i = 0; i < iterations; i++) {
		syscall(SYS_getppid);
		if (read(zero, buf, sizeof(buf)) != sizeof(buf) ||
		    write(null, buf, sizeof(buf)) != sizeof(buf)) {
			perror("bench-syscalls: read/write");
			return 1;
		}
	}
	printf("%llu\n", (unsigned long long)(now_ns() - t0));
	return 0;
}
