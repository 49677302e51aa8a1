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

/*
 * Whether SN can be deleted: its directory opens (no link) and can be emptied, and its
 * session directory lets it go. 0 when it is gone already.
 */
static int check_one(int top, const struct collector_snapshot *sn)
{
	int host = open_dir(top, sn->host_dir), session, snap = -ENOENT, r;

	session = host >= 0 ? open_dir(host, sn->session_dir) : host;
	if (session >= 0)
		snap = open_dir(session, sn->name);
	r = snap;
	/* AT_EACCESS: as the caller's filesystem ids, which root's override is part of. */
	if (snap >= 0)
		r = faccessat(snap, ".", W_OK | X_OK, AT_EACCESS) < 0 ||
				    faccessat(session, ".", W_OK | X_OK, AT_EACCESS) < 0
			    ? -errno
			    : 0;
	if (snap >= 0)
		close(snap);
	if (session >= 0)
		close(session);
	if (host >= 0)
		close(host);
	return r == -ENOENT ? 0 : r;
}

int collector_delete(const struct collector_scan *s, const struct collector_incident *inc,
		     size_t *blocker)
{
	int top = open(s->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), r = 0;

	if (top < 0)
		return -errno;
	/* All or none: half an incident would be kept, its other hosts' snapshots gone. */
	for (size_t i = 0; i < inc->n; i++) {
		r = check_one(top, &inc->snaps[i]);
		if (r < 0) {
			*blocker = i;
			close(top);
			return r;
		}
	}
	for (size_t i = 0; i < inc->n; i++) {
		const struct collector_snapshot *sn = &inc->snaps[i];
		int host = open_dir(top, sn->host_dir), session, e;

		session = host >= 0 ? open_dir(host, sn->session_dir) : host;
		e = session >= 0 ? remove_dir(session, sn->name, DEPTH_MAX) : session;
		if (e < 0 && e != -ENOENT && !r) {
			r = e;
			*blocker = i;
		}
		if (session >= 0)
			close(session);
		if (host >= 0)
			close(host);
	}
	close(top);
	return r;
}
