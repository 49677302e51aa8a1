/* SPDX-License-Identifier: GPL-2.0-only */
/* Finding and starting latencyd's helper processes (spawn_helper.h). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "spawn_helper.h"

extern char **environ;

int spawn_helper_path(const char *name, const char *libexecdir, char *buf, size_t size)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	/* Beside latencyd: a build tree, or a tree installed in one prefix. */
	if (n > 0) {
		char *slash;

		self[n] = 0;
		slash = strrchr(self, '/');
		if (slash) {
			snprintf(buf, size, "%.*s/%s", (int)(slash - self), self, name);
			if (access(buf, X_OK) == 0)
				return 0;
		}
	}
	snprintf(buf, size, "%s/%s", libexecdir, name);
	return access(buf, X_OK) == 0 ? 0 : -errno;
}

int spawn_helper(const char *path, char *const argv[], const int *fds, size_t n_fds, pid_t *pid)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	sigset_t none, all;
	int r;

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
	for (size_t i = 0; i < n_fds; i++)
		posix_spawn_file_actions_adddup2(&fa, fds[i], SPAWN_FIRST_FD + (int)i);
		/* Libraries open files and sockets without close-on-exec (liblttng-ctl,
	 * libbabeltrace2): none goes to a process that parses what latencyd does not trust.
	 * The helpers close them too, for a libc without this. */
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 34))
	posix_spawn_file_actions_addclosefrom_np(&fa, SPAWN_FIRST_FD + (int)n_fds);
#endif
	/* latencyd's blocked and ignored signals (SIGPIPE) are not the helper's. */
	sigemptyset(&none);
	sigfillset(&all);
	posix_spawnattr_init(&attr);
	/* The thread that spawns it may run SCHED_FIFO: a helper, which parses hostile input,
	 * runs at normal priority, where it cannot starve the host. */
	/* A session of its own: no controlling terminal (latencyd run from a root shell), whose
	 * input it could otherwise type into (TIOCSTI). */
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF |
						POSIX_SPAWN_SETSCHEDULER | POSIX_SPAWN_SETSID);
	posix_spawnattr_setsigmask(&attr, &none);
	posix_spawnattr_setsigdefault(&attr, &all);
	posix_spawnattr_setschedpolicy(&attr, SCHED_OTHER);
	posix_spawnattr_setschedparam(&attr, &(struct sched_param){.sched_priority = 0});
	r = -posix_spawn(pid, path, &fa, &attr, argv, environ);
	posix_spawnattr_destroy(&attr);
	posix_spawn_file_actions_destroy(&fa);
	return r;
}
