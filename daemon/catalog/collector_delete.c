// SPDX-License-Identifier: GPL-2.0-only
/*
 * The collector's deletion of an incident's snapshots (collector_delete(), collector.h).
 * latencyd runs as root there and the tree belongs to relayd's user, who could point a
 * symbolic link at anything for root to delete: every level is opened with openat() and
 * O_NOFOLLOW and emptied with unlinkat(), a link removed, never followed. Kept apart from the
 * scan (collector.c), which only reads.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "collector_internal.h"

/* Directory NAME under PARENT and everything in it; a link is removed, never followed. */
static int remove_dir(int parent, const char *name, int depth)
{
	int fd = open_dir(parent, name), r = 0;
	struct dirent *de;
	DIR *d;

	if (fd < 0)
		return fd;
	d = fdopendir(fd);
	if (!d) {
		r = -errno;
		close(fd);
		return r;
	}
	while ((de = readdir(d))) {
		int e = -ENOTDIR;

		if (is_dot(de->d_name))
			continue;
		if (de->d_type == DT_DIR || de->d_type == DT_UNKNOWN)
			e = depth > 0 ? remove_dir(dirfd(d), de->d_name, depth - 1) : -ELOOP;
		if (e == -ENOTDIR)
			e = unlinkat(dirfd(d), de->d_name, 0) < 0 ? -errno : 0;
		if (e < 0 && e != -ENOENT && !r)
			r = e;
	}
	closedir(d);
	if (r == 0 && unlinkat(parent, name, AT_REMOVEDIR) < 0 && errno != ENOENT)
		r = -errno;
	return r;
}

int collector_delete(const struct collector_scan *s, const struct collector_incident *inc)
{
	int top = open(s->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), r = 0;

	if (top < 0)
		return -errno;
	for (size_t i = 0; i < inc->n; i++) {
		const struct collector_snapshot *sn = &inc->snaps[i];
		int host = open_dir(top, sn->host_dir), session, e;

		session = host >= 0 ? open_dir(host, sn->session_dir) : host;
		e = session >= 0 ? remove_dir(session, sn->name, DEPTH_MAX) : session;
		if (e < 0 && e != -ENOENT && !r)
			r = e;
		if (session >= 0)
			close(session);
		if (host >= 0)
			close(host);
	}
	close(top);
	return r;
}
