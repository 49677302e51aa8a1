// SPDX-License-Identifier: GPL-2.0-only
/*
 * A CPU-bound "server" for bench/observer-bench.sh: THREADS threads, each running fixed
 * units of arithmetic (about UNIT_US of CPU each, calibrated at start) back to back, as a
 * busy request-serving process would, until SIGTERM or SIGINT. Each unit is measured three
 * ways: its wall time (CLOCK_MONOTONIC, the clock of latencyd's catalog), the thread's CPU
 * time over it (CLOCK_THREAD_CPUTIME_ID) and the scheduler's run_delay of the thread over it
 * (/proc/thread-self/schedstat, kept open and read again with pread: one system call a
 * unit, a constant cost). run_delay is the time the thread was runnable but not running
 * (the wait a preempting task adds); wall - cpu is that plus, in a VM, the time the
 * hypervisor took the CPU (steal). Units are contiguous (a unit starts with the readings
 * that ended the one before), so that no wait falls between two of them.
 * On stop, OUT gets one line per unit: "THREAD START_NS WALL_NS CPU_NS RUN_DELAY_NS"
 * (START_NS on CLOCK_MONOTONIC).
 * stdout: "ready ITERATIONS UNIT_CPU_NS" once calibrated and running, then at exit
 * "units N span_ns S wait_ns W run_delay_ns D", all threads: their units' wall time,
 * wall - cpu and run_delay summed.
 * Usage: busy-server [-t THREADS] [-c CPUS] [-u UNIT_US] [-d MAX_S] OUT
 *   -c CPUS: every thread (and the calibration) on these CPUs, e.g. 1 or 0-1; default any.
 *   -d MAX_S: stop after this long anyway (default 600), the units' room sized for it.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define THREADS_MAX 64

struct unit {
	uint64_t start;
	uint32_t wall, cpu, run_delay;
};

struct worker {
	pthread_t thread;
	struct unit *units;
	size_t n, cap;
	int schedstat; /* /proc/thread-self/schedstat, opened by the thread itself */
};

static atomic_int stop;
static uint64_t iterations;
static volatile uint64_t sink;

static uint64_t read_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The unit of work: xorshift rounds, each depending on the one before. */
static uint64_t work(uint64_t iters, uint64_t x)
{
	for (uint64_t i = 0; i < iters; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
	}
	return x;
}

/* A unit's times in 32 bits: 4.29 s at most. */
static uint32_t clamp32(uint64_t ns)
{
	return ns > UINT32_MAX ? UINT32_MAX : (uint32_t)ns;
}

/* The thread's run_delay (the second field of its schedstat), in ns; 0 if unreadable. */
static uint64_t run_delay(int fd)
{
	char buf[96];
	ssize_t len = pread(fd, buf, sizeof(buf) - 1, 0);
	char *p;

	if (len <= 0)
		return 0;
	buf[len] = 0;
	strtoull(buf, &p, 10);
	return strtoull(p, NULL, 10);
}

static void *run(void *arg)
{
	struct worker *w = arg;
	uint64_t x = (uint64_t)(uintptr_t)w | 1, t0, c0, d0;

	w->schedstat = open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC);
	if (w->schedstat < 0) {
		perror("busy-server: /proc/thread-self/schedstat");
		exit(1);
	}
	t0 = read_ns(CLOCK_MONOTONIC);
	c0 = read_ns(CLOCK_THREAD_CPUTIME_ID);
	d0 = run_delay(w->schedstat);
	while (!atomic_load_explicit(&stop, memory_order_relaxed) && w->n < w->cap) {
		uint64_t t1, c1, d1;

		x = work(iterations, x);
		t1 = read_ns(CLOCK_MONOTONIC);
		c1 = read_ns(CLOCK_THREAD_CPUTIME_ID);
		d1 = run_delay(w->schedstat);
		w->units[w->n++] =
			(struct unit){t0, clamp32(t1 - t0), clamp32(c1 - c0), clamp32(d1 - d0)};
		t0 = t1;
		c0 = c1;
		d0 = d1;
	}
	sink = x;
	close(w->schedstat);
	return NULL;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Iterations for about unit_ns of CPU: the median of 7 timed trials. */
static void calibrate(uint64_t unit_ns, uint64_t *cpu_ns)
{
	uint64_t iters = 1000, x = 88172645463325252u, c, t[7];

	for (;;) {
		c = read_ns(CLOCK_THREAD_CPUTIME_ID);
		x = work(iters, x);
		c = read_ns(CLOCK_THREAD_CPUTIME_ID) - c;
		if (c >= 2000000 || iters >= UINT64_MAX / 4)
			break;
		iters *= 2;
	}
	iterations = iters * unit_ns / (c ? c : 1);
	if (!iterations)
		iterations = 1;
	for (int i = 0; i < 7; i++) {
		c = read_ns(CLOCK_THREAD_CPUTIME_ID);
		x = work(iterations, x);
		t[i] = read_ns(CLOCK_THREAD_CPUTIME_ID) - c;
	}
	qsort(t, 7, sizeof(t[0]), cmp_u64);
	if (t[3])
		iterations = iterations * unit_ns / t[3];
	/* One more, with the final count: the unit's CPU time as started. */
	c = read_ns(CLOCK_THREAD_CPUTIME_ID);
	sink = work(iterations, x);
	*cpu_ns = read_ns(CLOCK_THREAD_CPUTIME_ID) - c;
}

/* "0-1,3" into a CPU set; -1 if malformed. */
static int parse_cpus(const char *s, cpu_set_t *set)
{
	CPU_ZERO(set);
	while (*s) {
		char *end;
		long a = strtol(s, &end, 10), b;

		if (end == s || a < 0 || a >= CPU_SETSIZE)
			return -1;
		b = a;
		if (*end == '-') {
			s = end + 1;
			b = strtol(s, &end, 10);
			if (end == s || b < a || b >= CPU_SETSIZE)
				return -1;
		}
		for (long i = a; i <= b; i++)
			CPU_SET(i, set);
		if (*end == ',')
			end++;
		else if (*end)
			return -1;
		s = end;
	}
	return CPU_COUNT(set) ? 0 : -1;
}

static void usage(void)
{
	fprintf(stderr, "usage: busy-server [-t THREADS] [-c CPUS] [-u UNIT_US] [-d MAX_S] OUT\n");
	exit(2);
}

int main(int argc, char **argv)
{
	struct worker w[THREADS_MAX];
	long threads = 1, unit_us = 200, max_s = 600;
	const char *cpus = NULL;
	uint64_t unit_cpu, total = 0, delay = 0, span = 0;
	int64_t wait = 0;
	struct timespec timeout;
	cpu_set_t set;
	sigset_t sigs;
	FILE *out;
	int opt, sig;

	while ((opt = getopt(argc, argv, "t:c:u:d:")) != -1) {
		switch (opt) {
		case 't':
			threads = atol(optarg);
			break;
		case 'c':
			cpus = optarg;
			break;
		case 'u':
			unit_us = atol(optarg);
			break;
		case 'd':
			max_s = atol(optarg);
			break;
		default:
			usage();
		}
	}
	if (optind != argc - 1 || threads < 1 || threads > THREADS_MAX || unit_us < 10 ||
	    unit_us > 100000 || max_s < 1)
		usage();
	if (cpus && (parse_cpus(cpus, &set) < 0 || sched_setaffinity(0, sizeof(set), &set) < 0)) {
		fprintf(stderr, "busy-server: cannot run on CPUs %s: %s\n", cpus,
			errno ? strerror(errno) : "not a CPU list");
		return 1;
	}
	out = fopen(argv[optind], "w");
	if (!out) {
		perror(argv[optind]);
		return 1;
	}
	calibrate((uint64_t)unit_us * 1000, &unit_cpu);

	/* SIGTERM and SIGINT for the main thread's sigtimedwait only (the workers inherit the mask). */
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGINT);
	pthread_sigmask(SIG_BLOCK, &sigs, NULL);
	for (long i = 0; i < threads; i++) {
		w[i].n = 0;
		w[i].cap = (size_t)max_s * 1000000 / (size_t)unit_us * 2 + 1024;
		w[i].units = mmap(NULL, w[i].cap * sizeof(struct unit), PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (w[i].units == MAP_FAILED) {
			perror("mmap");
			return 1;
		}
		errno = pthread_create(&w[i].thread, NULL, run, &w[i]);
		if (errno) {
			perror("pthread_create");
			return 1;
		}
	}
	printf("ready %llu %llu\n", (unsigned long long)iterations, (unsigned long long)unit_cpu);
	fflush(stdout);

	timeout = (struct timespec){max_s, 0};
	do
		sig = sigtimedwait(&sigs, NULL, &timeout);
	while (sig < 0 && errno == EINTR);
	atomic_store(&stop, 1);
	for (long i = 0; i < threads; i++)
		pthread_join(w[i].thread, NULL);
	for (long i = 0; i < threads; i++) {
		for (size_t k = 0; k < w[i].n; k++) {
			const struct unit *u = &w[i].units[k];

			fprintf(out, "%ld %llu %u %u %u\n", i, (unsigned long long)u->start,
				u->wall, u->cpu, u->run_delay);
			wait += (int64_t)u->wall - (int64_t)u->cpu;
			span += u->wall;
			delay += u->run_delay;
		}
		total += w[i].n;
	}
	if (fclose(out)) {
		perror(argv[optind]);
		return 1;
	}
	printf("units %llu span_ns %llu wait_ns %lld run_delay_ns %llu\n",
	       (unsigned long long)total, (unsigned long long)span, (long long)wait,
	       (unsigned long long)delay);
	return 0;
}
