/*
 * lt-fault-flood THREADS SECONDS: a flood of short system calls from THREADS threads for
 * SECONDS seconds, for the syscalls tracker with a tiny threshold to turn into alerts:
 * getrandom() of 512 bytes, a few microseconds each under TCG, so that every call passes
 * the smallest threshold, 1 us. (A getppid() does not, once the tracker's per-CPU fast
 * path keeps its own work out of the measured interval.) Prints "calls N seconds S rate
 * R/s cpu C ms" (the calls made, not the alerts: the scenario reads those from the module's
 * counters; C is this process's user and system CPU, the tracker's work in the calls
 * included). Exit 0 unless a thread fails.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static atomic_bool stop;
static atomic_ulong calls;

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void *spin(void *arg)
{
	char buf[512];
	unsigned long n = 0;

	(void)arg;
	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		if (getrandom(buf, sizeof(buf), 0) != (ssize_t)sizeof(buf)) {
			perror("getrandom");
			exit(1);
		}
		n++;
	}
	atomic_fetch_add(&calls, n);
	return NULL;
}

int main(int argc, char **argv)
{
	struct timespec d;
	struct rusage ru;
	pthread_t *t;
	double start, secs;
	int n;

	if (argc != 3 || (n = atoi(argv[1])) < 1 || n > 64 || atof(argv[2]) <= 0) {
		fprintf(stderr, "usage: lt-fault-flood THREADS SECONDS\n");
		return 2;
	}
	secs = atof(argv[2]);
	d.tv_sec = (time_t)secs;
	d.tv_nsec = (long)((secs - (double)d.tv_sec) * 1e9);
	t = calloc((size_t)n, sizeof(*t));
	if (!t)
		return 1;
	start = now_s();
	for (int i = 0; i < n; i++)
		if (pthread_create(&t[i], NULL, spin, NULL)) {
			perror("pthread_create");
			return 1;
		}
	nanosleep(&d, NULL);
	atomic_store(&stop, 1);
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	secs = now_s() - start;
	if (getrusage(RUSAGE_SELF, &ru)) {
		perror("getrusage");
		return 1;
	}
	printf("calls %lu seconds %.2f rate %.0f/s cpu %ld ms\n", atomic_load(&calls), secs,
	       (double)atomic_load(&calls) / secs,
	       (long)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000 +
		       (long)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1000);
	free(t);
	return 0;
}
