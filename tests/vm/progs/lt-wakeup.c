/*
 * lt-wakeup HOG_MS: provokes one wakeup latency of about HOG_MS milliseconds. A victim
 * (comm "lt-wk-victim", SCHED_OTHER, pinned to CPU 1) blocks reading a pipe; a SCHED_FIFO
 * hog (comm "lt-wk-hog") pinned to CPU 1 starts spinning; the waker (this process, comm
 * "lt-wk-waker", pinned to CPU 0) then writes the pipe, which wakes the victim, and the
 * hog keeps CPU 1 for HOG_MS more milliseconds after the write, so the victim waits at
 * least that long to run. Prints "victim=TID waker=TID hog=TID"; exit 0 on success.
 */
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lt-progs.h"

static void pin(int cpu)
{
	int r = pin_cpu(cpu);

	if (r) {
		fprintf(stderr, "sched_setaffinity: %s\n", strerror(-r));
		exit(1);
	}
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

/* Waits until task @pid sleeps (state S in /proc/PID/stat). */
int main(int argc, char **argv)
{
	volatile long long *written;
	int vp[2], hp[2], status, ok = 1;
	pid_t victim, hog;
	long long hog_ms;
	char c = 'x';

	if (argc != 2)
		return 2;
	hog_ms = atoll(argv[1]);
	written = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (written == MAP_FAILED || pipe(vp) || pipe(hp))
		return 1;
	*written = 0;
	pin(0);
	prctl(PR_SET_NAME, "lt-wk-waker");

	victim = fork();
	if (victim == 0) {
		pin(1);
		prctl(PR_SET_NAME, "lt-wk-victim");
		_exit(read(vp[0], &c, 1) == 1 ? 0 : 1);
	}
	if (victim < 0 || wait_sleeping(victim)) {
		fprintf(stderr, "lt-wakeup: the victim does not block\n");
		return 1;
	}

	hog = fork();
	if (hog == 0) {
		struct sched_param sp = {.sched_priority = 50};
		long long start, end = 0;

		pin(1);
		prctl(PR_SET_NAME, "lt-wk-hog");
		if (sched_setscheduler(0, SCHED_FIFO, &sp)) {
			perror("sched_setscheduler");
			_exit(1);
		}
		if (write(hp[1], &c, 1) != 1)
			_exit(1);
		/* Spin until HOG_MS after the write; 5 s at most, whatever happens. */
		start = now_ms();
		for (;;) {
			long long t = now_ms(), w = *written;

			if (w && !end)
				end = w + hog_ms;
			if ((end && t >= end) || t - start > 5000)
				break;
		}
		_exit(end ? 0 : 1);
	}
	if (hog < 0 || read(hp[0], &c, 1) != 1) {
		fprintf(stderr, "lt-wakeup: the hog did not start\n");
		return 1;
	}
	/* The hog spins on CPU 1: wake the victim there. */
	if (write(vp[1], &c, 1) != 1)
		return 1;
	*written = now_ms();

	if (waitpid(hog, &status, 0) != hog || !WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "lt-wakeup: the hog failed\n");
		ok = 0;
	}
	if (waitpid(victim, &status, 0) != victim || !WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "lt-wakeup: the victim failed\n");
		ok = 0;
	}
	printf("victim=%d waker=%d hog=%d\n", victim, getpid(), hog);
	return ok ? 0 : 1;
}
