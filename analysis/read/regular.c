/* SPDX-License-Identifier: GPL-2.0-only */
/* Opening only regular files, the check made on the descriptor (regular.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "an.h"
#include "regular.h"

const char *an_file_kind(mode_t mode)
{
	if (S_ISREG(mode))
		return "a regular file";
	if (S_ISDIR(mode))
		return "a directory";
	if (S_ISFIFO(mode))
		return "a FIFO";
	if (S_ISLNK(mode))
		return "a symbolic link";
	if (S_ISSOCK(mode))
		return "a socket";
	return "a device";
}

static int refuse(const char *path, int fd, int e, const char *what, char **why)
{
	if (fd >= 0)
		close(fd);
	if (why)
		*why = an_asprintf("%s: %s", path, what);
	errno = e;
	return -e;
}

/*
 * The file itself is opened only once known regular: a snapshot's name may be a link to a
 * device, whose open alone does something (a watchdog, a tape rewinding). O_PATH opens
 * nothing, and /proc/self/fd reopens that very file. Without /proc, opened directly:
 * O_NONBLOCK, a FIFO's open (and a device's) returns at once, to be refused.
 */
/* FD when it is a regular file (path names it), else refused. */
static int regular(const char *path, int fd, char **why)
{
	struct stat st;
	char what[64];

	if (fd < 0 || fstat(fd, &st) < 0)
		return refuse(path, fd, errno, strerror(errno), why);
	if (!S_ISREG(st.st_mode)) {
		snprintf(what, sizeof(what), "%s, not a regular file", an_file_kind(st.st_mode));
		return refuse(path, fd, EINVAL, what, why);
	}
	return fd;
}

int an_open_regular(const char *path, char **why)
{
	int at = regular(path, open(path, O_PATH | O_CLOEXEC), why), fd, e;
	char self[64];

	if (at < 0)
		return at;
	snprintf(self, sizeof(self), "/proc/self/fd/%d", at);
	fd = open(self, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0 && errno == ENOENT)
		fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	e = errno;
	close(at);
	errno = e;
	return regular(path, fd, why);
}

FILE *an_fopen_regular(const char *path, char **why)
{
	int fd = an_open_regular(path, why);
	FILE *f = fd >= 0 ? fdopen(fd, "rb") : NULL;

	if (fd >= 0 && !f)
		refuse(path, fd, errno, strerror(errno), why);
	return f;
}
