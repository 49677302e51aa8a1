/* SPDX-License-Identifier: GPL-2.0-only */
/* Finding and starting latencyd-fleet (fleet_spawn.h). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fleet_spawn.h"
#include "fleet_wire.h"
#include "spawn_helper.h"

_Static_assert(FLEET_WIRE_REQUEST_FD == SPAWN_FIRST_FD && FLEET_WIRE_EVENT_FD == SPAWN_FIRST_FD + 1,
	       "the helper's sockets are its first descriptors");

int fleet_helper_path(char *buf, size_t size)
{
	return spawn_helper_path(FLEET_HELPER_NAME, LATENCYD_LIBEXECDIR, buf, size);
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
	int req = -1, ev = -1, r;

	c->pid = 0;
	c->request_fd = c->event_fd = -1;
	r = pair(&c->request_fd, &req);
	if (r < 0)
		return r;
	r = pair(&c->event_fd, &ev);
	if (r < 0)
		goto fail;
	/* Its request and event sockets at FLEET_WIRE_REQUEST_FD and FLEET_WIRE_EVENT_FD. */
	r = spawn_helper(path, argv, (const int[]){req, ev}, 2, &c->pid);
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
