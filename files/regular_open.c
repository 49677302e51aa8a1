/* SPDX-License-Identifier: GPL-2.0-only */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include "regular_open.h"

/* FD's file when regular (with SAME, that very file): 0, else -errno. */
static int regular(int fd, const struct stat *same, struct stat *st)
{
	if (fstat(fd, st) < 0)
		return -errno;
	if (!S_ISREG(st->st_mode))
		return -EINVAL;
	if (same && (st->st_dev != same->st_dev || st->st_ino != same->st_ino))
		return -ESTALE;
	return 0;
}

/*
 * O_PATH opens nothing yet follows a symbolic link, and /proc/self/fd reopens that very
 * file. Without /proc, PATH itself, without blocking, and it must still be the file checked.
 */
int regular_open(const char *path, struct stat *st)
{
	int at = open(path, O_PATH | O_CLOEXEC), fd = -1, r;
	struct stat first;
	char self[64];

	if (at < 0)
		return -errno;
	r = regular(at, NULL, &first);
	if (r == -EINVAL)
		*st = first;
	if (r == 0) {
		snprintf(self, sizeof(self), "/proc/self/fd/%d", at);
		fd = open(self, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
		if (fd < 0 && errno == ENOENT)
			fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
		r = fd < 0 ? -errno : regular(fd, &first, st);
	}
	close(at);
	if (r < 0 && fd >= 0)
		close(fd);
	return r < 0 ? r : fd;
}
