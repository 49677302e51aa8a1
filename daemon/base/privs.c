/* SPDX-License-Identifier: GPL-2.0-only */
/* Leaving latencyd's privileges (privs.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/capability.h>

#include "privs.h"

int privs_empty_bounding_set(void)
{
	for (int cap = 0; cap <= 63; cap++) {
		if (prctl(PR_CAPBSET_READ, cap, 0, 0, 0) < 0)
			break; /* past the kernel's last capability */
		if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) < 0 && errno != EINVAL)
			return -errno;
	}
	return 0;
}

bool privs_none(void)
{
	struct __user_cap_header_struct h = {.version = _LINUX_CAPABILITY_VERSION_3};
	struct __user_cap_data_struct d[2] = {{0}};

	if (syscall(SYS_capget, &h, d) < 0)
		return false;
	for (int i = 0; i < 2; i++)
		if (d[i].effective || d[i].permitted || d[i].inheritable)
			return false;
	return true;
}

/*
 * latencyd's own limits (latencyd.service: LimitRTPRIO=99, and whatever memlock its
 * realtime.lock_memory needs) are not a helper's: taken over, it could run SCHED_FIFO
 * above the waiter or lock memory without bound. Each at 0, a regular user's default
 * (RLIMIT_NICE 0: no niceness below the one it has), so that none can be raised again once
 * the capabilities are gone.
 */
int privs_drop_limits(char *why, size_t whylen)
{
	static const struct {
		int resource;
		const char *name;
	} limits[] = {
		{RLIMIT_RTPRIO, "RLIMIT_RTPRIO"},
		{RLIMIT_RTTIME, "RLIMIT_RTTIME"},
		{RLIMIT_NICE, "RLIMIT_NICE"},
		{RLIMIT_MEMLOCK, "RLIMIT_MEMLOCK"},
	};
	const struct rlimit zero = {0, 0};

	for (size_t i = 0; i < sizeof(limits) / sizeof(limits[0]); i++)
		if (setrlimit(limits[i].resource, &zero) < 0) {
			int e = errno;

			snprintf(why, whylen, "cannot set %s to 0: %s", limits[i].name,
				 strerror(e));
			return -e;
		}
	return 0;
}
