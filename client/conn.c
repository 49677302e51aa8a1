/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * One exchange with latencyd: connect, hello, one request, its reply, all before one
 * deadline. Problems are reported here, where they are understood, and turned into the
 * exit status: EXIT_CONNECT when latencyd cannot be reached or talked to, EXIT_DAEMON
 * when it answers with an error.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "latencyctl.h"

/* One request per connection: its id. */
#define REQUEST_ID 1

struct conn {
	const struct ctl *ctl;
	int fd;
	uint64_t start, deadline; /* CLOCK_MONOTONIC, usec */
	struct proto_decoder dec;
	const struct ctl_events *waiting; /* once the reply came: the events waited for */
};

static uint64_t now_usec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000ULL + (uint64_t)ts.tv_nsec / 1000;
}

int conn_poll_timeout(uint64_t deadline, uint64_t now)
{
	uint64_t ms;

	if (deadline == UINT64_MAX)
		return -1;
	ms = (deadline - now) / 1000 + ((deadline - now) % 1000 != 0);
	return ms > INT_MAX ? INT_MAX : (int)ms;
}

/* Waits for events on the socket until the deadline; -ETIMEDOUT after it. */
static int wait_for(struct conn *c, short events)
{
	struct pollfd pfd = {.fd = c->fd, .events = events};
	uint64_t now;
	int r;

	for (;;) {
		now = now_usec();
		if (now >= c->deadline)
			return -ETIMEDOUT;
		r = poll(&pfd, 1, conn_poll_timeout(c->deadline, now));
		if (r > 0)
			return 0;
		if (r < 0 && errno != EINTR)
			return -errno;
	}
}

static void connect_error(const char *path, int r)
{
	switch (-r) {
	case ENOENT:
		fprintf(stderr, "latencyctl: latencyd is not running: no socket at %s\n", path);
		break;
	case ECONNREFUSED:
		fprintf(stderr, "latencyctl: latencyd is not running: nothing listens on %s\n",
			path);
		break;
	case EACCES:
	case EPERM:
		fprintf(stderr, "latencyctl: permission denied on %s\n", path);
		break;
	case ETIMEDOUT:
		fprintf(stderr, "latencyctl: timed out connecting to %s\n", path);
		break;
	default:
		fprintf(stderr, "latencyctl: cannot connect to %s: %s\n", path, strerror(-r));
		break;
	}
}

static int conn_open(struct conn *c)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	const char *path = c->ctl->socket;

	if (strlen(path) >= sizeof(sa.sun_path)) {
		connect_error(path, -ENAMETOOLONG);
		return EXIT_CONNECT;
	}
	memcpy(sa.sun_path, path, strlen(path));
	c->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (c->fd < 0) {
		connect_error(path, -errno);
		return EXIT_CONNECT;
	}
	/* A full backlog makes a non-blocking unix connect fail with EAGAIN: retry a while. */
	while (connect(c->fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		int r = -errno;

		if (r == -EAGAIN && now_usec() < c->deadline) {
			usleep(10000);
			continue;
		}
		connect_error(path, r == -EAGAIN ? -ETIMEDOUT : r);
		return EXIT_CONNECT;
	}
	return EXIT_OK;
}

static int lost(const char *what, int r)
{
	fprintf(stderr, "latencyctl: %s: %s\n", what,
		r == -ETIMEDOUT ? "latencyd did not answer in time" : strerror(-r));
	return EXIT_CONNECT;
}

/*
 * Reading failed with R. Past the deadline of the events waited for, the request itself was
 * answered: what the wait's end means is the command's to say (ctl_events.timed_out).
 */
static int read_failed(const struct conn *c, int r)
{
	if (r == -ETIMEDOUT && c->waiting && c->waiting->timed_out)
		return c->waiting->timed_out(c->waiting->arg);
	return lost("reading from latencyd", r);
}

/* Sends msg (consumed); 0 or -errno. */
static int send_frame(struct conn *c, struct json_object *msg)
{
	struct proto_buf out = {0};
	int r;

	r = proto_buf_add_frame(&out, msg, PROTO_FRAME_MAX);
	json_object_put(msg);
	while (r >= 0 && proto_buf_pending(&out) > 0) {
		ssize_t n = send(c->fd, proto_buf_head(&out), proto_buf_pending(&out),
				 MSG_NOSIGNAL | MSG_DONTWAIT);

		if (n >= 0)
			proto_buf_consume(&out, (size_t)n);
		else if (errno == EAGAIN)
			r = wait_for(c, POLLOUT);
		else if (errno != EINTR)
			r = -errno;
	}
	proto_buf_done(&out);
	return r < 0 ? r : 0;
}

static int send_msg(struct conn *c, struct json_object *msg)
{
	int r = send_frame(c, msg);

	return r < 0 ? lost("sending to latencyd", r) : EXIT_OK;
}

/* Reads the next message; events are skipped unless want_events. */
static int recv_any(struct conn *c, struct json_object **ret, bool want_events)
{
	for (;;) {
		char *buf;
		size_t len;
		ssize_t n;
		int r;

		r = proto_decoder_next(&c->dec, ret);
		if (r > 0 && !want_events && proto_message_kind(*ret) == PROTO_MSG_EVENT) {
			json_object_put(*ret);
			continue;
		}
		if (r > 0)
			return EXIT_OK;
		if (r < 0) {
			char *why = text_clean_dup(proto_decoder_error(&c->dec), false);

			fprintf(stderr, "latencyctl: unexpected data from latencyd: %s\n",
				why ?: "?");
			free(why);
			return EXIT_CONNECT;
		}
		r = proto_decoder_space(&c->dec, &buf, &len);
		if (r < 0)
			return read_failed(c, r);
		n = recv(c->fd, buf, len, MSG_DONTWAIT);
		if (n > 0) {
			proto_decoder_commit(&c->dec, (size_t)n);
			continue;
		}
		if (n == 0) {
			fprintf(stderr, "latencyctl: latencyd closed the connection\n");
			return EXIT_CONNECT;
		}
		if (errno == EAGAIN)
			r = wait_for(c, POLLIN);
		else if (errno != EINTR)
			r = -errno;
		if (r < 0)
			return read_failed(c, r);
	}
}

static int recv_msg(struct conn *c, struct json_object **ret)
{
	return recv_any(c, ret, false);
}

/* An error reply: the daemon's answer, printed through the output. */
static int daemon_error(const struct conn *c, const char *command, struct json_object *msg)
{
	struct proto_error err;
	struct proto_reply rep;

	if (proto_reply_parse(msg, &rep, &err) < 0 || rep.ok) {
		text_clean(err.message, false);
		fprintf(stderr, "latencyctl: unexpected reply from latencyd: %s\n",
			rep.ok ? "not an error" : err.message);
		return EXIT_CONNECT;
	}
	c->ctl->out->error(c->ctl->label ?: command, rep.code_name, rep.message);
	return EXIT_DAEMON;
}

static int handshake(struct conn *c)
{
	struct proto_hello ours = {
		.protocol = PROTO_VERSION,
		.revision = PROTO_REVISION,
		.client = "latencyctl",
		.version = LATENCYD_VERSION,
	};
	struct json_object *msg = NULL;
	struct proto_error err;
	struct proto_hello theirs;
	int r;

	if (proto_hello_new(&ours, &msg) < 0)
		return lost("hello", -ENOMEM);
	/*
	 * A latencyd that turns us away (busy, not authorized) may close before our hello is
	 * sent: its error is still there to read, and says more than EPIPE.
	 */
	r = send_frame(c, msg);
	if (r < 0 && r != -EPIPE && r != -ECONNRESET)
		return lost("sending to latencyd", r);
	r = recv_msg(c, &msg);
	if (r != EXIT_OK)
		return r;
	if (proto_message_kind(msg) == PROTO_MSG_REPLY)
		r = daemon_error(c, "hello", msg);
	else if (proto_hello_parse(msg, &theirs, &err) < 0) {
		text_clean(err.message, false);
		fprintf(stderr, "latencyctl: unexpected hello from latencyd: %s\n", err.message);
		r = EXIT_CONNECT;
	} else if (proto_hello_check(&theirs, &err) < 0) {
		char *version = text_clean_dup(theirs.version, false);

		text_clean(err.message, false);
		fprintf(stderr, "latencyctl: latencyd%s%s: %s\n", version && version[0] ? " " : "",
			version ?: "", err.message);
		free(version);
		r = EXIT_DAEMON;
	}
	json_object_put(msg);
	return r;
}

/* After the reply: events to on_event until it returns something else than EXIT_CONTINUE. */
static int events(struct conn *c, const char *command, const struct ctl_events *ev)
{
	struct json_object *msg;
	struct proto_event e;
	struct proto_error err;
	struct proto_reply rep;
	int r;

	/* From the start, as the reply's: --timeout bounds record's whole wait. */
	c->deadline = ev->timeout_usec ? c->start + ev->timeout_usec : UINT64_MAX;
	c->waiting = ev;
	for (;;) {
		r = recv_any(c, &msg, true);
		if (r != EXIT_OK)
			return r;
		if (proto_event_parse(msg, &e, &err) < 0) {
			/* An error about no request: why latencyd ends the connection (a reload). */
			if (proto_reply_parse(msg, &rep, &err) == 0 && !rep.ok &&
			    rep.id == PROTO_ID_NONE) {
				r = daemon_error(c, command, msg);
				json_object_put(msg);
				return r;
			}
			json_object_put(msg);
			continue; /* a reply to nothing we asked: not ours to judge */
		}
		r = ev->on_event(e.name, e.data, ev->arg);
		json_object_put(msg);
		if (r != EXIT_CONTINUE)
			return r;
	}
}

int ctl_call(const struct ctl *ctl, const char *command, struct json_object *args,
	     struct json_object **ret_result)
{
	return ctl_call_events(ctl, command, args, ret_result, NULL);
}

int ctl_call_events(const struct ctl *ctl, const char *command, struct json_object *args,
		    struct json_object **ret_result, const struct ctl_events *ev)
{
	struct conn c = {.ctl = ctl, .fd = -1, .start = now_usec()};
	struct json_object *msg = NULL;
	struct proto_error err;
	struct proto_reply rep;
	int r;

	*ret_result = NULL;
	c.deadline = c.start + ctl->timeout_usec;
	proto_decoder_init(&c.dec, PROTO_FRAME_MAX);
	r = conn_open(&c);
	if (r == EXIT_OK)
		r = handshake(&c);
	if (r != EXIT_OK)
		json_object_put(args);
	else if (proto_request_new(REQUEST_ID, command, args, &msg) < 0)
		r = lost(command, -ENOMEM);
	if (r == EXIT_OK)
		r = send_msg(&c, msg);
	if (r == EXIT_OK)
		r = recv_msg(&c, &msg);
	if (r == EXIT_OK) {
		if (proto_reply_parse(msg, &rep, &err) < 0) {
			text_clean(err.message, false);
			fprintf(stderr, "latencyctl: unexpected reply from latencyd: %s\n",
				err.message);
			r = EXIT_CONNECT;
		} else if (rep.id != REQUEST_ID && (rep.ok || rep.id != PROTO_ID_NONE)) {
			/* An error with "id":null is about the frame sent (too large, say): ours. */
			fprintf(stderr,
				"latencyctl: unexpected reply from latencyd: id %" PRId64
				" answers no request (ours is %d)\n",
				rep.id, REQUEST_ID);
			r = EXIT_CONNECT;
		} else if (!rep.ok) {
			r = daemon_error(&c, command, msg);
		} else {
			*ret_result = json_object_get(rep.result);
		}
		json_object_put(msg);
	}
	if (r == EXIT_OK && ev && ev->ready)
		r = ev->ready(*ret_result, ev->arg);
	if (r == EXIT_OK && ev)
		r = events(&c, command, ev);
	proto_decoder_done(&c.dec);
	if (c.fd >= 0)
		close(c.fd);
	return r;
}

/* Reads a result leniently (newer daemons add fields); a mistyped field is a bad reply. */
int result_dispatch(struct json_object *obj, const struct proto_field *fields, void *out,
		    const char *what)
{
	struct proto_error err;

	if (proto_fields_dispatch(obj, fields, PROTO_DISPATCH_ALLOW_UNKNOWN, out, &err) < 0) {
		text_clean(err.message, false);
		fprintf(stderr, "latencyctl: unexpected %s from latencyd: %s\n", what, err.message);
		return EXIT_CONNECT;
	}
	return EXIT_OK;
}
