/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * As OpenBSD's daemons do with their parsers: the process that reads what peers send owns
 * nothing worth taking. It keeps no capability (the bounding set emptied too, so that no
 * later exec could regain one) and cannot become root again; a key file it must read is
 * made readable to its account by the operator (latencyd.conf(5), fleet.user).
 */
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <linux/capability.h>
#include <sys/syscall.h>

#include "privdrop.h"

static void empty_bounding_set(void)
{
	for (int cap = 0; cap <= 63; cap++)
		if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) < 0 && errno == EINVAL)
			break; /* past the kernel's last capability */
}

/* True when no capability is effective, permitted or inheritable. */
static bool no_capability(void)
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
 * realtime.lock_memory needs) are not this process's: taken over, it could run SCHED_FIFO
 * above the waiter or lock memory without bound. Each at 0, soft and hard, a regular
 * user's default (RLIMIT_NICE 0: no niceness below the one it has), so it cannot be raised
 * again once root is gone.
 */
static int drop_limits(char *why, size_t whylen)
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

int privdrop(const char *user, char *as, size_t assize, char *why, size_t whylen)
{
	struct passwd *pw;
	int r;

	why[0] = 0;
	r = drop_limits(why, whylen);
	if (r < 0)
		return r;
	if (geteuid() != 0) {
		pw = getpwuid(geteuid());
		snprintf(as, assize, "%s", pw ? pw->pw_name : "?");
		return prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ? -errno : 0;
	}
	errno = 0;
	pw = getpwnam(user);
	if (!pw) {
		snprintf(why, whylen,
			 "fleet.user: no user '%s' on this system: the fleet process runs as "
			 "nobody instead",
			 user);
		pw = getpwnam("nobody");
		if (!pw)
			return snprintf(why, whylen, "fleet.user: neither '%s' nor nobody exists",
					user),
			       -ENOENT;
	}
	if (pw->pw_uid == 0)
		return snprintf(why, whylen, "fleet.user: '%s' is root", pw->pw_name), -EPERM;
	snprintf(as, assize, "%s", pw->pw_name);
	empty_bounding_set();
	if (initgroups(pw->pw_name, pw->pw_gid) < 0 ||
	    setresgid(pw->pw_gid, pw->pw_gid, pw->pw_gid) < 0 ||
	    setresuid(pw->pw_uid, pw->pw_uid, pw->pw_uid) < 0) {
		int e = errno;

		snprintf(why, whylen, "cannot become %s: %s", pw->pw_name, strerror(e));
		return -e;
	}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 || setuid(0) == 0 || !no_capability())
		return snprintf(why, whylen, "root or a capability is still within reach"), -EPERM;
	return chdir("/") < 0 ? -errno : 0;
}
