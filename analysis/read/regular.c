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
#include "regular_open.h"

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

/* The file itself opened only once known regular (regular_open.h). */
int an_open_regular(const char *path, char **why)
{
	struct stat st;
	char what[64];
	int fd = regular_open(path, &st);

	if (fd >= 0)
		return fd;
	if (fd != -EINVAL)
		return refuse(path, -1, -fd, strerror(-fd), why);
	snprintf(what, sizeof(what), "%s, not a regular file", an_file_kind(st.st_mode));
	return refuse(path, -1, EINVAL, what, why);
}

FILE *an_fopen_regular(const char *path, char **why)
{
	int fd = an_open_regular(path, why);
	FILE *f = fd >= 0 ? fdopen(fd, "rb") : NULL;

	if (fd >= 0 && !f)
		refuse(path, fd, errno, strerror(errno), why);
	return f;
}
