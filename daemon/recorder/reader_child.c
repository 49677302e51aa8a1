// SPDX-License-Identifier: GPL-2.0-only
/* latencyd-reader spawned for a snapshot, and its result read back (reader_child.h). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "reader_child.h"
#include "reader_result.h"
#include "spawn_helper.h"
#include "thread.h"

_Static_assert(READER_RESULT_FD == SPAWN_FIRST_FD, "the result pipe is its first descriptor");

/* How often a reader that closed its pipe is looked at until it exits. */
#define REAP_POLL_MS 20

static int reader_path(char *buf, size_t size)
{
	const char *env = secure_getenv("LATENCYD_READER");

	if (env && *env) {
		snprintf(buf, size, "%s", env);
		return access(buf, X_OK) == 0 ? 0 : -errno;
	}
	return spawn_helper_path(READER_NAME, LATENCYD_LIBEXECDIR, buf, size);
}

static uint64_t timeout_ms(void)
{
	const char *env = secure_getenv("LATENCYD_READER_TIMEOUT");
	char *end;
	unsigned long v;

	if (env && *env) {
		v = strtoul(env, &end, 10);
		if (!*end && v > 0 && v <= READER_TIMEOUT_SEC)
			return (uint64_t)v * 1000;
	}
	return (uint64_t)READER_TIMEOUT_SEC * 1000;
}

/* CLOCK_MONOTONIC in ms, as the deadline and poll() count. */
static uint64_t now_ms(void)
{
	return now_ns() / 1000000;
}

static int spawn(const char *exe, const struct reader_request *req, int result_fd, pid_t *pid)
{
	char mem[32];
	char *argv[] = {(char *)READER_NAME, "--max-memory", mem, (char *)req->path, NULL, NULL};

	snprintf(mem, sizeof(mem), "%" PRIu64, req->max_memory);
	if (req->analyse) {
		argv[3] = "--analyse";
		argv[4] = (char *)req->path;
	}
	return spawn_helper(exe, argv, &result_fd, 1, pid);
}

/* The read end, and the write end at READER_RESULT_FD + 1 or above: the dup2 onto
 * READER_RESULT_FD must copy it (a dup2 onto itself would keep close-on-exec). */
static int result_pipe(int *rd, int *wr)
{
	int p[2];

	/* Non-blocking for latencyd only: the flag is the pipe end's, not the descriptor's. */
	if (pipe2(p, O_CLOEXEC) < 0)
		return -errno;
	if (fcntl(p[0], F_SETFL, O_NONBLOCK) < 0) {
		close(p[0]);
		close(p[1]);
		return -errno;
	}
	*rd = p[0];
	*wr = fcntl(p[1], F_DUPFD_CLOEXEC, READER_RESULT_FD + 1);
	close(p[1]);
	if (*wr < 0) {
		close(*rd);
		return -errno;
	}
	return 0;
}

struct child {
	pid_t pid;
	int fd, stop_fd;
	uint64_t deadline;
	char *buf;
	size_t len;
	int status;
};

static void kill_and_reap(struct child *c)
{
	kill(c->pid, SIGKILL);
	while (waitpid(c->pid, &c->status, 0) < 0 && errno == EINTR)
		;
}

/* Waits for STOP_FD or FD (if >= 0) until the deadline: 1 FD ready, 0 timed out,
 * -ECANCELED stopped. */
static int wait_for(struct child *c, int fd, int max_ms)
{
	struct pollfd p[2] = {{.fd = c->stop_fd, .events = POLLIN}, {.fd = fd, .events = POLLIN}};
	uint64_t now = now_ms();
	int ms, n;

	if (now >= c->deadline)
		return 0;
	ms = c->deadline - now > INT_MAX ? INT_MAX : (int)(c->deadline - now);
	if (max_ms >= 0 && ms > max_ms)
		ms = max_ms;
	n = poll(p, fd >= 0 ? 2 : 1, ms);
	if (n < 0)
		return errno == EINTR ? 1 : -errno;
	if (p[0].revents)
		return -ECANCELED;
	return fd >= 0 ? p[1].revents != 0 : 1;
}

/* The result until end of file: 0, -ECANCELED, -ETIMEDOUT, -EFBIG or -errno. */
static int read_result(struct child *c)
{
	size_t cap = 64 * 1024;

	if (!(c->buf = malloc(cap)))
		return -ENOMEM;
	for (;;) {
		ssize_t n;
		int r = wait_for(c, c->fd, -1);

		if (r < 0)
			return r;
		if (r == 0)
			return -ETIMEDOUT;
		if (c->len == cap) {
			char *more = cap > READER_RESULT_MAX ? NULL : realloc(c->buf, cap * 2);

			if (!more)
				return cap > READER_RESULT_MAX ? -EFBIG : -ENOMEM;
			c->buf = more;
			cap *= 2;
		}
		n = read(c->fd, c->buf + c->len, cap - c->len);
		if (n == 0)
			return 0;
		if (n < 0 && errno != EAGAIN && errno != EINTR)
			return -errno;
		if (n > 0)
			c->len += (size_t)n;
		if (c->len > READER_RESULT_MAX)
			return -EFBIG;
	}
}

/* Its exit once it closed the pipe, within the same deadline. */
static int reap(struct child *c)
{
	for (;;) {
		pid_t p = waitpid(c->pid, &c->status, WNOHANG);
		int r;

		if (p == c->pid)
			return 0;
		if (p < 0 && errno != EINTR)
			return -errno;
		r = wait_for(c, -1, REAP_POLL_MS);
		if (r < 0)
			return r;
		if (r == 0 && now_ms() >= c->deadline)
			return -ETIMEDOUT;
	}
}

static void exit_text(int status, char *buf, size_t size)
{
	if (WIFEXITED(status))
		snprintf(buf, size, READER_NAME " exited with status %d", WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		snprintf(buf, size, READER_NAME " killed by signal %d (%s)", WTERMSIG(status),
			 strsignal(WTERMSIG(status)));
	else
		snprintf(buf, size, READER_NAME " ended (wait status %#x)", (unsigned)status);
}

static int decode(struct child *c, const struct reader_request *req, struct reader_result *res,
		  char *why, size_t whylen)
{
	struct json_tokener *tok;
	struct json_object *o;
	char what[200];
	int r;

	if (c->len == 0)
		return snprintf(why, whylen, READER_NAME " wrote no result"), -EPROTO;
	if (reader_result_shape(c->buf, c->len, what, sizeof(what)) < 0)
		return snprintf(why, whylen, READER_NAME "'s result refused: %s", what), -EPROTO;
	if (!(tok = json_tokener_new()))
		return snprintf(why, whylen, "no memory"), -ENOMEM;
	o = json_tokener_parse_ex(tok, c->buf, (int)c->len);
	r = json_tokener_get_error(tok) == json_tokener_success && tok->char_offset == (int)c->len;
	json_tokener_free(tok);
	if (!o || !r) {
		json_object_put(o);
		return snprintf(why, whylen, READER_NAME "'s result is not one JSON object"),
		       -EPROTO;
	}
	r = reader_result_from_json(o, req->analyse, res, what, sizeof(what));
	json_object_put(o);
	if (r < 0)
		snprintf(why, whylen, READER_NAME "'s result refused: %s", what);
	return r == -EINVAL ? -EPROTO : r;
}

int reader_child_run(const struct reader_request *req, int stop_fd, struct reader_result *res,
		     char *why, size_t whylen)
{
	struct child c = {.fd = -1, .stop_fd = stop_fd};
	char exe[PATH_MAX];
	int wr = -1, r;

	r = reader_path(exe, sizeof(exe));
	if (r < 0)
		return snprintf(why, whylen, "cannot run %s: %s", exe, strerror(-r)), r;
	r = result_pipe(&c.fd, &wr);
	if (r < 0)
		return snprintf(why, whylen, "cannot make a pipe: %s", strerror(-r)), r;
	r = spawn(exe, req, wr, &c.pid);
	close(wr);
	if (r < 0) {
		close(c.fd);
		return snprintf(why, whylen, "cannot run %s: %s", exe, strerror(-r)), r;
	}
	c.deadline = now_ms() + timeout_ms();
	r = read_result(&c);
	if (r == 0)
		r = reap(&c);
	if (r < 0)
		kill_and_reap(&c);
	close(c.fd);
	if (r == -EFBIG)
		snprintf(why, whylen,
			 READER_NAME "'s result too large (more than %u bytes): killed",
			 READER_RESULT_MAX);
	else if (r == -ETIMEDOUT)
		snprintf(why, whylen, READER_NAME " took more than %" PRIu64 " s: killed",
			 timeout_ms() / 1000);
	else if (r == -ECANCELED)
		snprintf(why, whylen, "latencyd is stopping: " READER_NAME " killed");
	else if (r < 0)
		snprintf(why, whylen, "reading " READER_NAME "'s result: %s", strerror(-r));
	else if (!WIFEXITED(c.status) || WEXITSTATUS(c.status) != 0) {
		exit_text(c.status, why, whylen);
		/* glib aborts when an allocation is refused (g_malloc). */
		if (WIFSIGNALED(c.status) && WTERMSIG(c.status) == SIGABRT && req->max_memory) {
			size_t n = strlen(why);

			snprintf(why + n, whylen - n,
				 " (out of memory within analysis.max_memory, %" PRIu64 " bytes?)",
				 req->max_memory);
		}
		r = -EPROTO;
	} else
		r = decode(&c, req, res, why, whylen);
	free(c.buf);
	return r;
}
