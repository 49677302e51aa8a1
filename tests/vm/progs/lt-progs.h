/* Helpers shared by the test programs (header only: each program is one file). */
#ifndef LT_PROGS_H
#define LT_PROGS_H

#include <errno.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

/* Says FAIL: and why, then exits 1 (taking the process's other threads with it). */
__attribute__((format(printf, 1, 2), noreturn)) static inline void fail(const char *fmt, ...)
{
	va_list ap;

	printf("FAIL: ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	exit(1);
}

/* Waits up to 5 s for task pid to be asleep (state S in /proc/PID/stat). */
static inline int wait_sleeping(pid_t pid)
{
	char path[64], buf[256], *p;
	int i;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	for (i = 0; i < 5000; i++) {
		FILE *f = fopen(path, "r");

		if (f) {
			p = fgets(buf, sizeof(buf), f) ? strrchr(buf, ')') : NULL;
			fclose(f);
			if (p && p[1] == ' ' && p[2] == 'S')
				return 0;
		}
		usleep(1000);
	}
	return -1;
}

/* Pins the calling thread to one CPU: 0, or -errno. */
static inline int pin_cpu(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set) ? -errno : 0;
}

#endif /* LT_PROGS_H */
