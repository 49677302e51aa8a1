// SPDX-License-Identifier: GPL-2.0-only
/*
 * The collector's "being written" check by open descriptors: a snapshot relayd still writes
 * may have had no new data for a minute (a stalled sender), so its mtimes alone do not tell.
 * Its files are then open in lttng-relayd, whose descriptors in /proc/PID/fd name them. Kept
 * apart from the tree's scan (collector.c): this reads /proc, not the collector's tree.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "collector_internal.h"
#include "fsutil.h"

#define RELAYD_COMM "lttng-relayd"

/* True when PID's command is lttng-relayd (its main thread's name). */
static bool is_relayd(int proc, const char *pid)
{
	return proc_comm_is(proc, pid, RELAYD_COMM);
}

/* Marks the snapshots under which the open file PATH lies. */
static void mark_held(struct collector_scan *s, const char *path)
{
	size_t n = strlen(s->dir);

	if (strncmp(path, s->dir, n) != 0 || path[n] != '/')
		return;
	path += n + 1;
	for (size_t i = 0; i < s->nsnaps; i++) {
		struct collector_snapshot *sn = &s->snaps[i];
		size_t h = strlen(sn->host_dir), e = strlen(sn->session_dir), m = strlen(sn->name);
		const char *p = path;

		if (strncmp(p, sn->host_dir, h) || p[h] != '/')
			continue;
		p += h + 1;
		if (strncmp(p, sn->session_dir, e) || p[e] != '/')
			continue;
		p += e + 1;
		if (!strncmp(p, sn->name, m) && (p[m] == '/' || p[m] == 0))
			sn->held = true;
	}
}

/*
 * Whether the files PID's descriptors name can be read, each marking the snapshot it lies in.
 * The directory lists to anyone who may open it, but each name needs ptrace read access to
 * relayd (proc(5)): CAP_SYS_PTRACE, or relayd's user with every capability relayd holds. A
 * name refused is refused for all: false, so that relayd counts as unseen, never as holding
 * nothing.
 */
static bool read_held(struct collector_scan *s, DIR *fds)
{
	struct dirent *fe;

	while ((fe = readdir(fds))) {
		char link[PATH_MAX];
		ssize_t n;

		if (is_dot(fe->d_name))
			continue;
		n = readlinkat(dirfd(fds), fe->d_name, link, sizeof(link) - 1);
		if (n < 0 && (errno == EACCES || errno == EPERM))
			return false;
		if (n <= 0) /* ENOENT: closed meanwhile */
			continue;
		link[n] = 0;
		mark_held(s, link);
	}
	return true;
}

void collector_scan_relayd(struct collector_scan *s, const char *proc_path)
{
	int proc = open(proc_path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = proc >= 0 ? fdopendir(proc) : NULL;
	struct dirent *de;

	if (!d) {
		if (proc >= 0)
			close(proc);
		s->relayd_unseen++; /* no /proc: nothing can be seen */
		return;
	}
	while ((de = readdir(d))) {
		char fdpath[NAME_MAX + 16];
		DIR *fds;
		int fd;

		if (!digits(de->d_name, strlen(de->d_name)) || !is_relayd(dirfd(d), de->d_name))
			continue;
		snprintf(fdpath, sizeof(fdpath), "%s/fd", de->d_name);
		fd = openat(dirfd(d), fdpath, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		fds = fd >= 0 ? fdopendir(fd) : NULL;
		if (!fds) {
			if (fd >= 0)
				close(fd);
			else if (errno != ENOENT) /* ENOENT: it exited meanwhile */
				s->relayd_unseen++;
			continue;
		}
		if (!read_held(s, fds))
			s->relayd_unseen++;
		closedir(fds);
	}
	closedir(d);
}
