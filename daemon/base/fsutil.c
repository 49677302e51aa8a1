/* SPDX-License-Identifier: GPL-2.0-only */
/* Directory trees, for snapshots (catalog, recorder) and runtime directories. */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <glob.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fsutil.h"

int mkdir_p(const char *path, mode_t mode)
{
	char *p = strdup(path), *s;
	int r = 0;

	if (!p)
		return -ENOMEM;
	for (s = p + 1; r == 0; s++) {
		if (*s != '/' && *s != 0)
			continue;
		char c = *s;

		*s = 0;
		if (mkdir(p, mode) < 0 && errno != EEXIST)
			r = -errno;
		*s = c;
		if (!c)
			break;
	}
	free(p);
	return r;
}

/* nftw() passes no context pointer. */
static __thread uint64_t walk_total;
static __thread int walk_error;

static int add_size(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	if (flag == FTW_F)
		walk_total += (uint64_t)st->st_blocks * 512;
	else if ((flag == FTW_DNR || flag == FTW_NS) && !walk_error)
		walk_error = errno ? -errno : -EACCES;
	return 0;
}

int dir_size_read(const char *path, uint64_t *bytes)
{
	struct stat st;

	walk_total = 0;
	walk_error = 0;
	if (lstat(path, &st) < 0 && errno == ENOENT) {
		*bytes = 0;
		return 0;
	}
	if (nftw(path, add_size, 16, FTW_PHYS) < 0 && !walk_error)
		walk_error = errno ? -errno : -EIO;
	*bytes = walk_total;
	return walk_error;
}

uint64_t dir_size(const char *path)
{
	uint64_t bytes;

	dir_size_read(path, &bytes);
	return bytes;
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	return remove(path) < 0 ? -1 : 0;
}

int rm_tree(const char *path)
{
	struct stat st;

	if (lstat(path, &st) < 0)
		return errno == ENOENT ? 0 : -errno;
	return nftw(path, remove_one, 16, FTW_DEPTH | FTW_PHYS) < 0 ? -errno : 0;
}

char *path_newest(const char *dir, const char *prefix)
{
	char pattern[PATH_MAX];
	char *p = NULL;
	struct stat st;
	glob_t g;

	snprintf(pattern, sizeof(pattern), "%s/%s-*", dir, prefix);
	if (glob(pattern, GLOB_NOSORT, NULL, &g) == 0) {
		/* LTTng writes directories: a file of the name (a FIFO...) is none of its. */
		for (size_t i = 0; i < g.gl_pathc; i++)
			if ((!p || strcmp(g.gl_pathv[i], p) > 0) &&
			    lstat(g.gl_pathv[i], &st) == 0 && S_ISDIR(st.st_mode))
				p = g.gl_pathv[i];
		p = p ? strdup(p) : NULL;
	}
	globfree(&g);
	return p;
}

static int write_all(int fd, const char *buf, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, buf, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

/* The rename is durable only once the directory is: 0, or -errno when it is not known to be. */
static int sync_dir_of(const char *path)
{
	char dir[PATH_MAX];
	const char *slash = strrchr(path, '/');
	int fd, r = 0;

	snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - path) ?: 1 : 1,
		 slash ? path : ".");
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fsync(fd) < 0)
		r = -errno;
	close(fd);
	return r;
}

/*
 * Whether unlink()'s ERR on PATH says PATH is a directory: Linux says EISDIR, POSIX EPERM,
 * which also means a file unlink() may not remove (immutable, or another's in a sticky
 * directory): told apart by what PATH is.
 */
static bool unlink_met_dir(const char *path, int err)
{
	struct stat st;

	return err == EISDIR || (err == EPERM && lstat(path, &st) == 0 && S_ISDIR(st.st_mode));
}

/*
 * TMP created anew, for writing. Whatever has its name is not a temp of ours to reuse: a
 * FIFO would block the open until a reader came, a file of another owner or mode would
 * keep them through the rename. It goes first, then O_EXCL makes sure the file written is
 * the one created; an empty directory goes too, a non-empty one is left (-ENOTEMPTY). One
 * that cannot go says why (-EPERM: immutable, another's in a sticky directory).
 */
static int open_new(const char *tmp, mode_t mode)
{
	for (int tries = 0; tries < 3; tries++) {
		int fd, err;

		if (unlink(tmp) < 0 && (err = errno) != ENOENT) {
			if (!unlink_met_dir(tmp, err))
				return -err;
			/* EEXIST is rmdir()'s other word for a directory not empty. */
			if (rmdir(tmp) < 0)
				return errno == EEXIST ? -ENOTEMPTY : -errno;
		}
		fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode);
		if (fd >= 0 || errno != EEXIST)
			return fd < 0 ? -errno : fd;
	}
	return -EEXIST; /* made again each time it went: someone else writes it */
}

int file_replace(const char *path, const char *tmp, const char *data, size_t len, bool newline,
		 mode_t mode, unsigned flags)
{
	int fd = open_new(tmp, mode), r;

	if (fd < 0)
		return fd;
	r = write_all(fd, data, len);
	if (r == 0 && newline)
		r = write_all(fd, "\n", 1);
	if (r == 0 && (flags & FILE_DURABLE) && fsync(fd) < 0)
		r = -errno;
	if (close(fd) < 0 && r == 0)
		r = -errno;
	if (r == 0 && rename(tmp, path) < 0)
		r = -errno;
	if (r < 0) {
		unlink(tmp);
		return r;
	}
	/* PATH is the new file whatever the directory's sync says: no failure, but said. */
	return flags & FILE_DURABLE ? -sync_dir_of(path) : 0;
}

int file_read_small(const char *path, char *buf, size_t size)
{
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, size - 1);
	if (n < 0)
		n = -errno;
	close(fd);
	if (n < 0)
		return (int)n;
	buf[n] = 0;
	return 0;
}

bool proc_comm_is(int dirfd, const char *path, const char *name)
{
	char file[PATH_MAX], comm[32];
	ssize_t n;
	int fd;

	if ((size_t)snprintf(file, sizeof(file), "%s/comm", path) >= sizeof(file))
		return false;
	fd = openat(dirfd, file, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, comm, sizeof(comm) - 1);
	close(fd);
	if (n <= 0)
		return false;
	comm[n] = 0;
	comm[strcspn(comm, "\n")] = 0;
	return strcmp(comm, name) == 0;
}
