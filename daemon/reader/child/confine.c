// SPDX-License-Identifier: GPL-2.0-only
/*
 * As OpenBSD's daemons do with their parsers: the process that decodes a snapshot owns
 * nothing worth taking. A snapshot's userspace channels hold whatever a traced application
 * wrote into its ring buffers; a parser bug that bytes there can reach finds a process
 * without a capability, that cannot gain one, at normal priority, with bounded memory.
 *
 * It keeps latencyd's uid (root, under latencyd.service): the snapshot files are root's,
 * written by lttng-consumerd with mode 0640 or so, which a capability-less uid 0 reads as
 * their owner. Running it as another account (_latencyd) would need every snapshot
 * chmod'ed or chown'ed first, by root, on each record. Without CAP_DAC_OVERRIDE,
 * CAP_SYS_ADMIN, CAP_SYS_MODULE and the others, uid 0 reads and writes only what root
 * owns, which ProtectSystem=strict in the unit (same namespace, same cgroup) keeps to
 * latencyd's own directories; the seccomp filter (syscalls.c) refuses the writes, and
 * what else root's uid alone is trusted with.
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/capability.h>

#include "confine.h"
#include "privs.h"
#include "syscalls.h"

/* The reader's niceness, as latencyd's threads off the realtime path (thread.h). */
#define READER_NICE 10

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SANITIZED true
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) ||                         \
	__has_feature(memory_sanitizer)
#define SANITIZED true
#endif
#endif
#ifndef SANITIZED
#define SANITIZED false
#endif

bool confine_sanitized(void)
{
	return SANITIZED;
}

/* -E, WHY saying WHAT failed and why. */
static int failed(int e, const char *what, char *why, size_t whylen)
{
	snprintf(why, whylen, "%s: %s", what, strerror(e));
	return -e;
}

static int no_capabilities(char *why, size_t whylen)
{
	struct __user_cap_header_struct h = {.version = _LINUX_CAPABILITY_VERSION_3};
	struct __user_cap_data_struct d[2] = {{0}};
	int r;

	/* Unprivileged (a test), the bounding set cannot be changed and gives nothing. */
	r = privs_empty_bounding_set();
	if (r < 0 && !(r == -EPERM && geteuid() != 0))
		return failed(-r, "cannot empty the capability bounding set", why, whylen);
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0 && errno != EINVAL)
		return failed(errno, "cannot clear the ambient capabilities", why, whylen);
	if (syscall(SYS_capset, &h, d) < 0)
		return failed(errno, "cannot drop the capabilities", why, whylen);
	return 0;
}

static int scheduling(char *why, size_t whylen)
{
	struct sched_param p = {.sched_priority = 0};

	if (sched_setscheduler(0, SCHED_OTHER, &p) < 0)
		return failed(errno, "cannot run SCHED_OTHER", why, whylen);
	if (getpriority(PRIO_PROCESS, 0) < READER_NICE &&
	    setpriority(PRIO_PROCESS, 0, READER_NICE) < 0)
		return failed(errno, "cannot set nice 10", why, whylen);
	return 0;
}

static int memory_bound(uint64_t max_memory, char *why, size_t whylen)
{
	const struct rlimit as = {max_memory, max_memory};

	if (!max_memory || SANITIZED)
		return 0;
	if (setrlimit(RLIMIT_AS, &as) < 0)
		return failed(errno, "cannot bound the address space (RLIMIT_AS)", why, whylen);
	return 0;
}

int confine(uint64_t max_memory, char *why, size_t whylen)
{
	int r;

	why[0] = 0;
	if ((r = privs_drop_limits(why, whylen)) < 0 || (r = scheduling(why, whylen)) < 0 ||
	    (r = memory_bound(max_memory, why, whylen)) < 0 ||
	    (r = no_capabilities(why, whylen)) < 0)
		return r;
	/* No core of a snapshot's data, and nothing of it to ptrace or read through /proc. */
	if (setrlimit(RLIMIT_CORE, &(const struct rlimit){0, 0}) < 0 ||
	    prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0)
		return failed(errno, "cannot make it undumpable", why, whylen);
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return failed(errno, "cannot set no_new_privs", why, whylen);
	if (!privs_none())
		return snprintf(why, whylen, "a capability is still there"), -EPERM;
	return syscalls_confine(SANITIZED, why, whylen);
}
