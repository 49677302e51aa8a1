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

#include "privdrop.h"
#include "privs.h"

int privdrop(const char *user, char *as, size_t assize, char *why, size_t whylen)
{
	struct passwd *pw;
	int r;

	why[0] = 0;
	r = privs_drop_limits(why, whylen);
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
	(void)privs_empty_bounding_set(); /* root: CAP_SETPCAP is there */
	if (initgroups(pw->pw_name, pw->pw_gid) < 0 ||
	    setresgid(pw->pw_gid, pw->pw_gid, pw->pw_gid) < 0 ||
	    setresuid(pw->pw_uid, pw->pw_uid, pw->pw_uid) < 0) {
		int e = errno;

		snprintf(why, whylen, "cannot become %s: %s", pw->pw_name, strerror(e));
		return -e;
	}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 || setuid(0) == 0 || !privs_none())
		return snprintf(why, whylen, "root or a capability is still within reach"), -EPERM;
	return chdir("/") < 0 ? -errno : 0;
}
