/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A latencyd for latencyctl's unit tests: a child process that answers one connection on a
 * Unix socket with the lines it is given, for what latencyctl does with them (its messages,
 * its exit status). The tests' own: nothing of latencyd's code runs.
 */
#ifndef LATENCYD_FAKE_LATENCYD_H
#define LATENCYD_FAKE_LATENCYD_H

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests.h"

/* Reads up to the end of a line from C; exits the child if the client is gone. */
static inline void line_read(int c)
{
	char b = 0;

	while (b != '\n')
		if (read(c, &b, 1) != 1)
			_exit(1);
}

static inline void line_write(int c, const char *line)
{
	if (write(c, line, strlen(line)) != (ssize_t)strlen(line))
		_exit(1);
}

/* A latencyd (a child) that answers one connection's hello with HELLO and, unless NULL, its
 * request with REPLY. */
static inline pid_t serve(const char *path, const char *hello, const char *reply)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	int s = socket(AF_UNIX, SOCK_STREAM, 0), c;
	pid_t pid;
	char b;

	ASSERT_TRUE(s >= 0);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	unlink(path);
	ASSERT_TRUE(bind(s, (struct sockaddr *)&sa, sizeof(sa)) == 0 && listen(s, 1) == 0);
	pid = fork();
	ASSERT_TRUE(pid >= 0);
	if (pid > 0) {
		close(s);
		return pid;
	}
	c = accept(s, NULL, NULL);
	if (c < 0)
		_exit(1);
	line_read(c);
	line_write(c, hello);
	if (reply) {
		line_read(c);
		line_write(c, reply);
	}
	shutdown(c, SHUT_WR);
	while (read(c, &b, 1) > 0)
		;
	_exit(0);
}

#endif /* LATENCYD_FAKE_LATENCYD_H */
