// SPDX-License-Identifier: GPL-2.0-only
/*
 * The lttng-sessiond that holds the session, watched through a pidfd: its exit wakes the
 * main loop once, instead of a check of the session every few seconds that wakes an idle
 * machine for nothing (issue #19). The pid comes from sessiond's pid file in its run
 * directory (/var/run/lttng as root, $LTTNG_HOME/.lttng otherwise, as lttng-sessiond
 * writes it); when that cannot be read, the caller keeps checking periodically instead.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "log.h"
#include "recorder_internal.h"

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif

static void pidfile_path(char *buf, size_t size)
{
	const char *home = getenv("LTTNG_HOME");

	if (getuid() == 0)
		snprintf(buf, size, "/var/run/lttng/lttng-sessiond.pid");
	else
		snprintf(buf, size, "%s/.lttng/lttng-sessiond.pid",
			 home && *home ? home : (getenv("HOME") ? getenv("HOME") : "/"));
}

static int on_exit_event(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
	struct sessiond_watch *w = userdata;
	pid_t pid = w->pid;

	sessiond_watch_stop(w);
	log_warnx("lttng-sessiond (pid %d) exited", (int)pid);
	w->on_exit(w->arg);
	return 0;
}

int sessiond_watch_start(struct sessiond_watch *w, sd_event *event)
{
	char path[PATH_MAX];
	long pid = 0;
	FILE *f;
	int fd, r;

	pidfile_path(path, sizeof(path));
	f = fopen(path, "re");
	if (!f)
		return -errno;
	r = fscanf(f, "%ld", &pid) == 1 && pid > 0 && pid < INT_MAX ? 0 : -EINVAL;
	fclose(f);
	if (r < 0)
		return r;
	if (w->source && w->pid == (pid_t)pid)
		return 0;
	sessiond_watch_stop(w);
	fd = (int)syscall(SYS_pidfd_open, (pid_t)pid, 0);
	if (fd < 0)
		return -errno; /* gone already (ESRCH), or a kernel without pidfds */
	r = sd_event_add_io(event, &w->source, fd, EPOLLIN, on_exit_event, w);
	if (r < 0) {
		close(fd);
		return r;
	}
	sd_event_source_set_io_fd_own(w->source, 1);
	sd_event_source_set_description(w->source, "sessiond-exit");
	w->pid = (pid_t)pid;
	log_debug("watching lttng-sessiond (pid %ld, from %s)", pid, path);
	sessiond_boost(w->pid, w->boost);
	return 0;
}

void sessiond_watch_stop(struct sessiond_watch *w)
{
	w->source = sd_event_source_disable_unref(w->source);
	w->pid = 0;
}
