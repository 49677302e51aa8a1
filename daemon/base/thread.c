/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * latencyd's threads. With realtime.lock_memory, mlockall(MCL_FUTURE) locks every new
 * thread's whole stack, 8 MiB each with glibc's default: three threads made latencyd
 * resident at ~58 MB instead of ~8 (bench/RESULTS.md, idle cost). Each thread gets a stack
 * sized for what it runs instead, with room to spare: a stack overflow is a crash.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <pthread.h>
#include <sched.h>
#include <string.h>
#include <sys/resource.h>

#include "log.h"
#include "thread.h"

int thread_start(pthread_t *t, int policy, int priority, size_t stack, void *(*fn)(void *),
		 void *arg, const char *name)
{
	struct sched_param sp = {.sched_priority = priority};
	pthread_attr_t a;
	int r;

	/*
	 * Refused before the thread starts: pthread_setname_np() refuses it too (ERANGE), but
	 * once the thread runs, which then goes by its creator's name, unseen.
	 */
	if (strlen(name) > THREAD_NAME_MAX)
		return -ENAMETOOLONG;
	r = pthread_attr_init(&a);
	if (r != 0)
		return -r;
	/* Explicit: never the creating thread's policy (the main thread may run SCHED_FIFO). */
	r = pthread_attr_setinheritsched(&a, PTHREAD_EXPLICIT_SCHED);
	if (r == 0)
		r = pthread_attr_setschedpolicy(&a, policy);
	if (r == 0)
		r = pthread_attr_setschedparam(&a, &sp);
	if (r == 0)
		r = pthread_attr_setstacksize(&a, stack);
	if (r == 0)
		r = pthread_create(t, &a, fn, arg);
	pthread_attr_destroy(&a);
	if (r != 0)
		return -r;
	r = pthread_setname_np(*t, name);
	if (r != 0)
		log_debug("thread %s keeps its creator's name: %s", name, strerror(r));
	return 0;
}

int thread_start_rt(pthread_t *t, int priority, size_t stack, void *(*fn)(void *), void *arg,
		    const char *name, bool *got_rt)
{
	int r = -EINVAL;

	*got_rt = false;
	if (priority > 0) {
		r = thread_start(t, SCHED_FIFO, priority, stack, fn, arg, name);
		*got_rt = r == 0;
	}
	if (r < 0)
		r = thread_start(t, SCHED_OTHER, 0, stack, fn, arg, name);
	return r;
}

void thread_background(void)
{
	/* Per thread on Linux (setpriority(2)); a failure leaves it at nice 0, which is fine. */
	if (setpriority(PRIO_PROCESS, 0, THREAD_NICE_BACKGROUND) < 0) {
		/* nothing to do */
	}
}

int pi_mutex_init(pthread_mutex_t *m)
{
	pthread_mutexattr_t a;
	int r;

	pthread_mutexattr_init(&a);
	r = pthread_mutexattr_setprotocol(&a, PTHREAD_PRIO_INHERIT);
	if (r == 0)
		r = pthread_mutex_init(m, &a);
	pthread_mutexattr_destroy(&a);
	return -r;
}

int thread_cpus_parse(const char *s, cpu_set_t *set)
{
	CPU_ZERO(set);
	do {
		char *end;
		unsigned long a = strtoul(s, &end, 10), b = a;

		if (!isdigit((unsigned char)*s))
			return -EINVAL;
		if (*end == '-') {
			s = end + 1;
			if (!isdigit((unsigned char)*s))
				return -EINVAL;
			b = strtoul(s, &end, 10);
		}
		if (b < a || b >= CPU_SETSIZE)
			return -EINVAL;
		for (unsigned long c = a; c <= b; c++)
			CPU_SET(c, set);
		s = end;
	} while (*s++ == ',');
	return s[-1] == 0 ? 0 : -EINVAL;
}

int thread_pin(const char *s)
{
	cpu_set_t set;

	if (!s || !s[0])
		return 0;
	if (thread_cpus_parse(s, &set) < 0)
		return -EINVAL;
	/* Inherited by the threads created after, and across fork and exec. */
	return sched_setaffinity(0, sizeof(set), &set) < 0 ? -errno : 0;
}
