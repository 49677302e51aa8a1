/* SPDX-License-Identifier: GPL-2.0-only */
/* thread.c: latencyd's threads, their stacks and priorities; the clock they share. */
#ifndef LATENCYD_BASE_THREAD_H
#define LATENCYD_BASE_THREAD_H

#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

/*
 * A thread at POLICY/PRIORITY with a STACK-byte stack, named NAME (THREAD_NAME_MAX
 * characters at most, else -ENAMETOOLONG: the kernel's comm); -errno.
 */
#define THREAD_NAME_MAX	    15
#define THREAD_STACK_WAITER (512 * 1024)  /* poll, read, liblttng-ctl's record */
#define THREAD_STACK_WORKER (1024 * 1024) /* libbabeltrace2 reading a snapshot */
int thread_start(pthread_t *t, int policy, int priority, size_t stack, void *(*fn)(void *),
		 void *arg, const char *name);
/*
 * At SCHED_FIFO PRIORITY when it is above 0 and the thread may have it, else at normal
 * priority; *GOT_RT says which. -errno when neither could start.
 */
int thread_start_rt(pthread_t *t, int priority, size_t stack, void *(*fn)(void *), void *arg,
		    const char *name, bool *got_rt);
/*
 * Called first by a thread that reads snapshots (history, analysis): its cost is per
 * snapshot, bounded by the rate limit, but under an alert storm it must yield to the
 * machine's own work, and to latencyd's main loop and waiter.
 */
#define THREAD_NICE_BACKGROUND 10
void thread_background(void);

/*
 * A mutex shared with the realtime waiter: priority inheritance, so that a normal thread
 * holding it runs at the waiter's priority until it lets go. -errno.
 */
int pi_mutex_init(pthread_mutex_t *m);

/* "0", "0-1,4" into SET (not checked against the CPUs there are); -EINVAL. */
int thread_cpus_parse(const char *s, cpu_set_t *set);
/* The calling thread, and every thread and process it starts from now on, on the CPUs of
 * S ("" = all, nothing done); -errno (a CPU that is not online: -EINVAL). */
int thread_pin(const char *s);

/* CLOCK_MONOTONIC in ns: the clock of alert records, rate limits and time limits. */
static inline uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* CLOCK_REALTIME in ns: the clock hosts compare (fleet requests, the collector's files). */
static inline uint64_t realtime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

#endif /* LATENCYD_BASE_THREAD_H */
