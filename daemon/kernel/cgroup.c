/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Cgroup filters as people write them: a cgroup v2 directory ("system.slice/nginx.service",
 * relative to /sys/fs/cgroup, or absolute) or its id. The kernel filters on the id, which on
 * cgroup v2 is the directory's inode number; a path is resolved each time it is applied, and
 * again whenever its parent directory changes (manager/cgroup_watch.c), because a cgroup
 * that is re-created (a service restarted) gets a new id.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>

#include <linux/magic.h>

#include "kernel.h"

#define CGROUP_ROOT "/sys/fs/cgroup"

static bool is_id(const char *spec)
{
	return spec[strspn(spec, "0123456789")] == 0;
}

bool cgroup_spec_path(const char *spec, char *path, size_t size)
{
	if (!spec || !spec[0] || conf_cgroup_spec_check(spec) < 0 || is_id(spec))
		return false;
	return snprintf(path, size, "%s%s%s", spec[0] == '/' ? "" : CGROUP_ROOT,
			spec[0] == '/' ? "" : "/", spec) < (int)size;
}

int cgroup_resolve(const char *spec, uint64_t *id, char *why, size_t whylen)
{
	char path[PATH_MAX];
	struct statfs sfs;
	struct stat st;

	*id = 0;
	if (conf_cgroup_spec_check(spec) < 0) {
		snprintf(why, whylen, "'%s' is not a cgroup path or id", spec);
		return -EINVAL;
	}
	if (!spec[0])
		return 0;
	if (is_id(spec)) { /* the check said it is one */
		*id = strtoull(spec, NULL, 10);
		return 0;
	}
	if (!cgroup_spec_path(spec, path, sizeof(path))) {
		snprintf(why, whylen, "'%s' is not a cgroup path or id", spec);
		return -EINVAL;
	}
	if (stat(path, &st) < 0 || statfs(path, &sfs) < 0) {
		int r = -errno;

		snprintf(why, whylen, "cgroup %s: %s", path, strerror(-r));
		return r;
	}
	if (!S_ISDIR(st.st_mode) || sfs.f_type != CGROUP2_SUPER_MAGIC) {
		snprintf(why, whylen, "%s is not a cgroup v2 directory", path);
		return -ENOTDIR;
	}
	*id = st.st_ino;
	return 0;
}
