/* SPDX-License-Identifier: GPL-2.0-only */
/* Finding and starting latencyd-fleet (fleet_spawn.h). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fleet_spawn.h"
#include "fleet_wire.h"

extern char **environ;

int fleet_helper_path(char *buf, size_t size)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	/* Beside latencyd: a build tree, or a tree installed in one prefix. */
	if (n > 0) {
		char *slash;

		self[n] = 0;
		slash = strrchr(self, '/');
		if (slash) {
			snprintf(buf, size, "%.*s/" FLEET_HELPER_NAME, (int)(slash - self), self);
			if (access(buf, X_OK) == 0)
				return 0;
		}
	}
	snprintf(buf, size, "%s/" FLEET_HELPER_NAME, LATENCYD_LIBEXECDIR);
	return access(buf, X_OK) == 0 ? 0 : -errno;
}

/* A socketpair whose child end is at 5 or above: posix_spawn's dup2 onto 3 and 4 must
 * really copy it (a dup2 onto itself would keep close-on-exec). */
static int pair(int *mine, int *theirs)
{
	int sv[2], r;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		return -errno;
	*theirs = fcntl(sv[1], F_DUPFD_CLOEXEC, FLEET_WIRE_EVENT_FD + 1);
	r = *theirs < 0 ? -errno : 0;
	close(sv[1]);
	/* Not handed out on failure: the caller's cleanup closes what it holds, once. */
	if (r < 0)
		close(sv[0]);
	else
		*mine = sv[0];
	return r;
}

int fleet_spawn(const char *path, struct fleet_child *c)
{
	char *argv[] = {(char *)FLEET_HELPER_NAME, NULL};
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	sigset_t none, all;
	int req = -1, ev = -1, r;

	c->pid = 0;
	c->request_fd = c->event_fd = -1;
	r = pair(&c->request_fd, &req);
	if (r < 0)
		return r;
	r = pair(&c->event_fd, &ev);
	if (r < 0)
		goto fail;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, req, FLEET_WIRE_REQUEST_FD);
	posix_spawn_file_actions_adddup2(&fa, ev, FLEET_WIRE_EVENT_FD);
	/* Libraries open files and sockets without close-on-exec (liblttng-ctl,
	 * libbabeltrace2): none goes to the process that parses the network. It closes them
	 * itself too (helper/main.c), for a libc without this. */
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 34))
	posix_spawn_file_actions_addclosefrom_np(&fa, FLEET_WIRE_EVENT_FD + 1);
#endif
	/* latencyd's blocked and ignored signals (SIGPIPE) are not the helper's. */
	sigemptyset(&none);
	sigfillset(&all);
	posix_spawnattr_init(&attr);
	/* The reader that spawns it may run SCHED_FIFO: the helper, which parses the network,
	 * runs at normal priority, where a flood cannot starve the host. */
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF |
						POSIX_SPAWN_SETSCHEDULER);
	posix_spawnattr_setsigmask(&attr, &none);
	posix_spawnattr_setsigdefault(&attr, &all);
	posix_spawnattr_setschedpolicy(&attr, SCHED_OTHER);
	posix_spawnattr_setschedparam(&attr, &(struct sched_param){.sched_priority = 0});
	r = -posix_spawn(&c->pid, path, &fa, &attr, argv, environ);
	posix_spawnattr_destroy(&attr);
	posix_spawn_file_actions_destroy(&fa);
	if (r == 0) {
		close(req);
		close(ev);
		return 0;
	}
fail:
	fleet_child_close(c);
	if (req >= 0)
		close(req);
	if (ev >= 0)
		close(ev);
	c->pid = 0;
	return r;
}

void fleet_child_close(struct fleet_child *c)
{
	if (c->request_fd >= 0)
		close(c->request_fd);
	if (c->event_fd >= 0)
		close(c->event_fd);
	c->request_fd = c->event_fd = -1;
}

void fleet_exit_text(int status, char *buf, size_t size)
{
	if (WIFEXITED(status))
		snprintf(buf, size, "exited with status %d", WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		snprintf(buf, size, "killed by signal %d (%s)", WTERMSIG(status),
			 strsignal(WTERMSIG(status)));
	else
		snprintf(buf, size, "ended (wait status %#x)", (unsigned)status);
}
