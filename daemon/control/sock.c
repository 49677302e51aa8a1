/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Unix stream listening sockets: taken from systemd (socket activation) or bound at a path.
 * Binding creates the parent directory (0755), removes a stale socket only when nothing
 * answers on it and creates the socket with the mode asked for (control.c says which and
 * why); sock_set_mode() gives that mode to a socket file afterwards, also one systemd made.
 * No control logic here.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <systemd/sd-daemon.h>

#include "control.h"
#include "log.h"

#define LISTEN_BACKLOG 16

/* Returns 1 and the fd when systemd passed one listening unix stream socket, 0 for none. */
int sock_from_systemd(int *ret_fd)
{
	int n, fd = SD_LISTEN_FDS_START;

	n = sd_listen_fds(1);
	if (n < 0)
		return log_warn_errno(n, "socket activation");
	if (n == 0)
		return 0;
	if (n > 1) {
		log_warnx("socket activation: expected one socket, got %d", n);
		return -EINVAL;
	}
	if (sd_is_socket_unix(fd, SOCK_STREAM, 1, NULL, 0) <= 0) {
		log_warnx("socket activation: fd %d is not a listening unix stream socket", fd);
		return -EINVAL;
	}
	if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) < 0)
		return log_warn_errno(errno, "socket activation: fd %d", fd);
	*ret_fd = fd;
	return 1;
}

static int mkdir_parents(const char *path, mode_t mode)
{
	char dir[PATH_MAX];

	if (snprintf(dir, sizeof(dir), "%s", path) >= (int)sizeof(dir))
		return -ENAMETOOLONG;
	for (char *p = strchr(dir + 1, '/'); p; p = strchr(p + 1, '/')) {
		*p = '\0';
		if (mkdir(dir, mode) == 0) {
			/* Exactly mode, whatever the umask. */
			if (chmod(dir, mode) < 0)
				return log_warn_errno(errno, "chmod %s", dir);
		} else if (errno != EEXIST) {
			return log_warn_errno(errno, "mkdir %s", dir);
		}
		*p = '/';
	}
	return 0;
}

static int set_addr(struct sockaddr_un *sa, const char *path)
{
	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(sa->sun_path))
		return -ENAMETOOLONG;
	memcpy(sa->sun_path, path, strlen(path));
	return 0;
}

/* A socket file nobody listens on is left over from a crash: remove it. */
static int remove_stale(const char *path)
{
	struct sockaddr_un sa;
	struct stat st;
	int fd, r;

	if (lstat(path, &st) < 0)
		return errno == ENOENT ? 0 : log_warn_errno(errno, "%s", path);
	if (!S_ISSOCK(st.st_mode)) {
		log_warnx("%s exists and is not a socket; not touching it", path);
		return -EEXIST;
	}
	r = set_addr(&sa, path);
	if (r < 0)
		return r;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return log_warn_errno(errno, "socket");
	r = connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ? -errno : 0;
	close(fd);
	if (r == 0 || r == -EAGAIN) {
		log_warnx("%s: another process listens on it (is latencyd already running?)", path);
		return -EADDRINUSE;
	}
	if (r != -ECONNREFUSED)
		return log_warn_errno(r, "cannot tell whether %s is stale", path);
	if (unlink(path) < 0 && errno != ENOENT)
		return log_warn_errno(errno, "cannot remove stale socket %s", path);
	log_info("removed stale socket %s", path);
	return 0;
}

int sock_set_mode(const char *path, mode_t mode)
{
	struct stat st;

	if (lstat(path, &st) < 0)
		return log_warn_errno(errno, "%s", path);
	if (!S_ISSOCK(st.st_mode)) {
		log_warnx("%s is not a socket; not changing its mode", path);
		return -ENOTSOCK;
	}
	if ((st.st_mode & 07777) == mode)
		return 0;
	/* No lchmod on Linux: the lstat above saw a socket, in a directory only root writes. */
	if (chmod(path, mode) < 0)
		return log_warn_errno(errno, "chmod %s to %04o", path, (unsigned)mode);
	log_info("control socket %s: mode %04o", path, (unsigned)mode);
	return 0;
}

int sock_bind(const char *path, mode_t mode, int *ret_fd, struct sock_id *ret_id)
{
	struct sockaddr_un sa;
	struct stat st;
	mode_t old;
	int fd, r;

	r = set_addr(&sa, path);
	if (r < 0)
		return log_warn_errno(r, "%s", path);
	r = mkdir_parents(path, 0755);
	if (r < 0)
		return r;
	r = remove_stale(path);
	if (r < 0)
		return r;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return log_warn_errno(errno, "socket");
	old = umask(0177); /* born 0600, widened below before anyone can connect (listen) */
	r = bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ? -errno : 0;
	umask(old);
	if (r < 0) {
		log_warn_errno(r, "bind %s", path);
		goto fail;
	}
	if (stat(path, &st) < 0) {
		r = log_warn_errno(errno, "stat %s", path);
		goto fail_unlink;
	}
	ret_id->dev = st.st_dev;
	ret_id->ino = st.st_ino;
	if (chmod(path, mode) < 0) {
		r = log_warn_errno(errno, "chmod %s to %04o", path, (unsigned)mode);
		goto fail_unlink;
	}
	if (listen(fd, LISTEN_BACKLOG) < 0) {
		r = log_warn_errno(errno, "listen %s", path);
		goto fail_unlink;
	}
	*ret_fd = fd;
	return 0;

fail_unlink:
	unlink(path);
fail:
	close(fd);
	return r;
}

/* Unlinks path only if it is still the socket we bound (not a successor's). */
void sock_unlink_if_ours(const char *path, const struct sock_id *id)
{
	struct stat st;

	if (lstat(path, &st) < 0 || st.st_dev != id->dev || st.st_ino != id->ino)
		return;
	if (unlink(path) < 0)
		log_warn("unlink %s", path);
}
