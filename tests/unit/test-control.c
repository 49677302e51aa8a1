/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * daemon/control.c, dispatch.c and the commands, in one process over a temporary socket
 * (in the spirit of systemd's test-varlink.c): the test's clients use non-blocking sockets
 * and run the daemon's event loop whenever they would wait. Bad JSON, unknown commands,
 * oversize frames, missing handshakes, floods of clients and clients that vanish mid-reply
 * must each be answered, and the server must keep serving everybody else.
 */
#include <errno.h>
#include <execinfo.h>
#include <grp.h>
#include <limits.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>
#include <latency_tracker.h>

#include "catalog.h"
#include "commands.h"
#include "manager.h"
#include "tests.h"

#define DEADLINE_USEC (20 * 1000000ULL)

static char dir[] = "/tmp/test-control-XXXXXX";
static char sock_path[108], sysfs[128];
static struct manager *m;

static const struct control_limits limits = {
	.clients_max = 8,
	.output_high = PROTO_FRAME_MAX,
	.output_max = 16 * PROTO_FRAME_MAX,
	.handshake_timeout_usec = 300000,
};

struct tc {
	int fd;
	struct proto_decoder dec;
};

static uint64_t now_usec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000ULL + (uint64_t)ts.tv_nsec / 1000;
}

/* Lets the daemon run for a moment: what a client does instead of blocking. */
static void pump(void)
{
	ASSERT_TRUE(sd_event_run(m->event, 5000) >= 0);
}

static void pump_until_clients(unsigned n)
{
	uint64_t deadline = now_usec() + DEADLINE_USEC;

	while (control_clients(m->control) != n) {
		ASSERT_TRUE(now_usec() < deadline);
		pump();
	}
}

static struct tc *tc_connect(void)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	struct tc *c = calloc(1, sizeof(*c));

	ASSERT_TRUE(c);
	strcpy(sa.sun_path, sock_path);
	c->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	ASSERT_TRUE(c->fd >= 0);
	ASSERT_EQ(connect(c->fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	proto_decoder_init(&c->dec, PROTO_FRAME_MAX);
	return c;
}

static void tc_free(struct tc *c)
{
	close(c->fd);
	proto_decoder_done(&c->dec);
	free(c);
}

static void tc_send_raw(struct tc *c, const char *data, size_t len)
{
	uint64_t deadline = now_usec() + DEADLINE_USEC;

	while (len > 0) {
		ssize_t n = send(c->fd, data, len, MSG_DONTWAIT | MSG_NOSIGNAL);

		if (n > 0) {
			data += n;
			len -= (size_t)n;
			continue;
		}
		ASSERT_TRUE(errno == EAGAIN);
		ASSERT_TRUE(now_usec() < deadline);
		pump();
	}
}

static void tc_send(struct tc *c, const char *line)
{
	tc_send_raw(c, line, strlen(line));
}

/* Reads what is there without waiting; returns 1 for a frame, 0 for none yet, -1 at EOF. */
static int tc_poll(struct tc *c, struct json_object **ret)
{
	char *buf;
	size_t len;
	ssize_t n;
	int r;

	for (;;) {
		r = proto_decoder_next(&c->dec, ret);
		ASSERT_TRUE(r >= 0);
		if (r > 0)
			return 1;
		ASSERT_EQ(proto_decoder_space(&c->dec, &buf, &len), 0);
		n = recv(c->fd, buf, len, MSG_DONTWAIT);
		if (n > 0) {
			proto_decoder_commit(&c->dec, (size_t)n);
			continue;
		}
		if (n == 0 || errno == ECONNRESET)
			return -1;
		ASSERT_TRUE(errno == EAGAIN);
		return 0;
	}
}

/* The next message from the daemon, or NULL when it closed the connection. */
static struct json_object *tc_recv(struct tc *c)
{
	uint64_t deadline = now_usec() + DEADLINE_USEC;
	struct json_object *o;
	int r;

	while ((r = tc_poll(c, &o)) == 0) {
		ASSERT_TRUE(now_usec() < deadline);
		pump();
	}
	return r > 0 ? o : NULL;
}

static void tc_expect_eof(struct tc *c)
{
	struct json_object *o = tc_recv(c);

	if (o)
		fprintf(stderr, "unexpected: %s\n", json_object_to_json_string(o));
	ASSERT_TRUE(o == NULL);
}

static void tc_hello(struct tc *c)
{
	struct json_object *o;
	struct proto_hello h;
	struct proto_error err;

	tc_send(c, "{\"hello\":{\"protocol\":1,\"client\":\"test-control\"}}\n");
	o = tc_recv(c);
	ASSERT_TRUE(o);
	ASSERT_EQ(proto_message_kind(o), PROTO_MSG_HELLO);
	ASSERT_EQ(proto_hello_parse(o, &h, &err), 0);
	ASSERT_EQ(h.protocol, PROTO_VERSION);
	ASSERT_EQ(h.revision, PROTO_REVISION);
	ASSERT_STREQ(h.server, "latencyd");
	ASSERT_STREQ(h.version, LATENCYD_VERSION);
	json_object_put(o);
}

/* Checks that o (consumed) is an error reply with this id, code and message part. */
static void expect_error(struct json_object *o, int64_t id, const char *code, const char *part)
{
	struct proto_reply rep;
	struct proto_error err;

	ASSERT_TRUE(o);
	ASSERT_EQ(proto_reply_parse(o, &rep, &err), 0);
	ASSERT_TRUE(!rep.ok);
	ASSERT_EQ(rep.id, id);
	ASSERT_STREQ(rep.code_name, code);
	ASSERT_CONTAINS(rep.message, part);
	json_object_put(o);
}

/* Checks that o is a successful reply with this id; returns its result (borrowed from o). */
static struct json_object *expect_ok(struct json_object *o, int64_t id)
{
	struct proto_reply rep;
	struct proto_error err;

	ASSERT_TRUE(o);
	ASSERT_EQ(proto_reply_parse(o, &rep, &err), 0);
	ASSERT_TRUE(rep.ok);
	ASSERT_EQ(rep.id, id);
	return rep.result;
}

static struct json_object *get(struct json_object *o, const char *key)
{
	struct json_object *v = NULL;

	ASSERT_TRUE(json_object_object_get_ex(o, key, &v));
	return v;
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	ASSERT_TRUE(f);
	fputs(text, f);
	fclose(f);
}

static void test_status_version(void)
{
	struct tc *c = tc_connect();
	struct json_object *o, *res, *mod;
	char path[PATH_MAX];

	tc_hello(c);
	tc_send(c, "{\"id\":1,\"command\":\"status\"}\n");
	o = tc_recv(c);
	res = expect_ok(o, 1);
	ASSERT_STREQ(json_object_get_string(get(res, "version")), LATENCYD_VERSION);
	ASSERT_EQ(json_object_get_int64(get(res, "pid")), getpid());
	ASSERT_TRUE(json_object_get_int64(get(res, "uptime_usec")) >= 0);
	mod = get(res, "module");
	ASSERT_STREQ(json_object_get_string(get(mod, "state")), "not-loaded");
	ASSERT_TRUE(!json_object_get_boolean(get(mod, "loaded")));
	json_object_put(o);

	tc_send(c, "{\"id\":2,\"command\":\"version\",\"args\":{}}\n");
	o = tc_recv(c);
	res = expect_ok(o, 2);
	ASSERT_STREQ(json_object_get_string(get(res, "version")), LATENCYD_VERSION);
	ASSERT_EQ(json_object_get_int(get(res, "protocol")), PROTO_VERSION);
	ASSERT_EQ(json_object_get_int(get(res, "abi_major")), LATENCY_TRACKER_ABI_MAJOR);
	json_object_put(o);

	/* A module speaking another major ABI is reported as an error state. */
	snprintf(path, sizeof(path), "mkdir -p '%s/module/%s' '%s/%s'", sysfs,
		 LATENCY_TRACKER_MODULE_NAME, sysfs, LATENCY_TRACKER_SYSFS_DIR);
	ASSERT_EQ(system(path), 0);
	snprintf(path, sizeof(path), "%s/%s/abi_version", sysfs, LATENCY_TRACKER_SYSFS_DIR);
	write_file(path, "9.1\n");
	tc_send(c, "{\"id\":3,\"command\":\"status\"}\n");
	o = tc_recv(c);
	mod = get(expect_ok(o, 3), "module");
	ASSERT_STREQ(json_object_get_string(get(mod, "state")), "abi-mismatch");
	ASSERT_TRUE(json_object_get_boolean(get(mod, "loaded")));
	ASSERT_EQ(json_object_get_int(get(mod, "abi_major")), 9);
	ASSERT_EQ(json_object_get_int(get(mod, "abi_minor")), 1);
	ASSERT_CONTAINS(json_object_get_string(get(mod, "detail")), "not supported");
	json_object_put(o);
	snprintf(path, sizeof(path), "rm -r '%s/module' '%s/kernel'", sysfs, sysfs);
	ASSERT_EQ(system(path), 0);
	tc_free(c);
}

static void test_handshake(void)
{
	struct tc *c;

	/* A request before hello: refused, then closed. */
	c = tc_connect();
	tc_send(c, "{\"id\":1,\"command\":\"status\"}\n");
	expect_error(tc_recv(c), PROTO_ID_NONE, "bad-request", "handshake required");
	tc_expect_eof(c);
	tc_free(c);

	/* Garbage before hello: not a latencyd client. */
	c = tc_connect();
	tc_send(c, "GET / HTTP/1.1\n");
	expect_error(tc_recv(c), PROTO_ID_NONE, "bad-request", "invalid JSON");
	tc_expect_eof(c);
	tc_free(c);

	/* Another protocol version. */
	c = tc_connect();
	tc_send(c, "{\"hello\":{\"protocol\":99}}\n");
	expect_error(tc_recv(c), PROTO_ID_NONE, "unsupported-version", "protocol version 99");
	tc_expect_eof(c);
	tc_free(c);

	/* Silence: the handshake times out. */
	c = tc_connect();
	expect_error(tc_recv(c), PROTO_ID_NONE, "bad-request", "handshake timeout");
	tc_expect_eof(c);
	tc_free(c);
	pump_until_clients(0);
}

static void test_bad_requests(void)
{
	static const struct {
		const char *line;
		int64_t id;
		const char *code, *part;
	} cases[] = {
		{"garbage\n", PROTO_ID_NONE, "bad-request", "invalid JSON"},
		{"[1]\n", PROTO_ID_NONE, "bad-request", "not a JSON object"},
		{"{\"id\":2,\"command\":\"frobnicate\"}\n", 2, "unknown-command",
		 "unknown command 'frobnicate'"},
		{"{\"id\":3,\"command\":\"status\",\"args\":{\"verbose\":true}}\n", 3,
		 "bad-argument", "unknown field 'verbose'"},
		{"{\"id\":4,\"command\":\"status\",\"args\":[]}\n", 4, "bad-request",
		 "field 'args' must be an object"},
		{"{\"id\":5,\"command\":\"status\",\"ID\":5}\n", 5, "bad-request",
		 "unknown field 'ID'"},
		{"{\"id\":6}\n", PROTO_ID_NONE, "bad-request", "not a request"},
		/* Never answered as id 9223372036854775807, nor as command "sta". */
		{"{\"id\":9223372036854775808,\"command\":\"status\"}\n", PROTO_ID_NONE,
		 "bad-request", "field 'id' must be a non-negative integer"},
		{"{\"id\":11,\"command\":\"sta\\u0000tus\"}\n", 11, "bad-request",
		 "field 'command' must be a string without NUL bytes"},
		{"{\"hello\":{\"protocol\":1}}\n", PROTO_ID_NONE, "bad-request", "already"},
	};
	struct tc *c = tc_connect();
	struct json_object *o;

	tc_hello(c);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		fprintf(stderr, "   %s", cases[i].line);
		tc_send(c, cases[i].line);
		expect_error(tc_recv(c), cases[i].id, cases[i].code, cases[i].part);
	}
	/* The same connection still works. */
	tc_send(c, "{\"id\":7,\"command\":\"version\"}\n");
	o = tc_recv(c);
	expect_ok(o, 7);
	json_object_put(o);
	tc_free(c);
}

static void test_oversize(void)
{
	size_t len = PROTO_FRAME_MAX + 4000;
	char *big = malloc(len);
	struct tc *c = tc_connect();
	struct json_object *o;
	int n;

	/* The largest frame is accepted by the framing (and refused by the field table). */
	ASSERT_TRUE(big);
	tc_hello(c);
	n = snprintf(big, len, "{\"id\":8,\"command\":\"status\",\"args\":{\"pad\":\"");
	memset(big + n, 'p', PROTO_FRAME_MAX - (size_t)n - 4);
	memcpy(big + PROTO_FRAME_MAX - 4, "\"}}\n", 4);
	tc_send_raw(c, big, PROTO_FRAME_MAX);
	expect_error(tc_recv(c), 8, "bad-argument", "unknown field 'pad'");

	/* One byte more is too large: an error, then the connection closes. */
	memset(big, 'x', len);
	tc_send_raw(c, big, len);
	expect_error(tc_recv(c), PROTO_ID_NONE, "too-large", "exceeds 65536 bytes");
	tc_expect_eof(c);
	tc_free(c);
	free(big);

	c = tc_connect();
	tc_hello(c);
	tc_send(c, "{\"id\":1,\"command\":\"status\"}\n");
	o = tc_recv(c);
	expect_ok(o, 1);
	json_object_put(o);
	tc_free(c);
}

/*
 * An event too large for a frame is dropped for its watchers, who stay and get the next:
 * an error about no request would end their watch, as a reload's does.
 */
static void test_oversize_event(void)
{
	size_t len = PROTO_FRAME_MAX + 16;
	char *pad = malloc(len + 1);
	struct json_object *big = json_object_new_object(), *small = json_object_new_object(), *o;
	struct proto_event e;
	struct proto_error err;
	struct tc *c = tc_connect();

	ASSERT_TRUE(pad && big && small);
	memset(pad, 'p', len);
	pad[len] = 0;
	json_object_object_add(big, "pad", json_object_new_string(pad));
	json_object_object_add(small, "n", json_object_new_int(2));
	tc_hello(c);
	tc_send(c, "{\"id\":1,\"command\":\"watch\"}\n");
	o = tc_recv(c);
	expect_ok(o, 1);
	json_object_put(o);

	control_broadcast(m->control, PROTO_EVENT_FLEET, big);
	control_broadcast(m->control, PROTO_EVENT_FLEET, small);
	o = tc_recv(c);
	ASSERT_TRUE(o);
	if (proto_event_parse(o, &e, &err) < 0)
		fprintf(stderr, "not an event: %s\n", json_object_to_json_string(o));
	ASSERT_EQ(proto_event_parse(o, &e, &err), 0);
	ASSERT_STREQ(e.name, PROTO_EVENT_FLEET);
	ASSERT_EQ(json_object_get_int(json_object_object_get(e.data, "n")), 2);
	json_object_put(o);

	ASSERT_EQ(control_stats(m->control)->events_too_large, 1);

	/* Still served. */
	tc_send(c, "{\"id\":2,\"command\":\"version\"}\n");
	o = tc_recv(c);
	expect_ok(o, 2);
	json_object_put(o);
	tc_free(c);
	json_object_put(big);
	json_object_put(small);
	free(pad);
}

static void test_many_clients(void)
{
	struct tc *c[limits.clients_max + 4], *extra;
	struct json_object *o;
	unsigned i;

	pump_until_clients(0);
	for (i = 0; i < limits.clients_max; i++) {
		c[i] = tc_connect();
		tc_hello(c[i]);
	}
	ASSERT_EQ(control_clients(m->control), limits.clients_max);

	/* One more is told the daemon is busy, and closed. */
	extra = tc_connect();
	expect_error(tc_recv(extra), PROTO_ID_NONE, "busy", "too many clients (8)");
	tc_expect_eof(extra);
	tc_free(extra);

	/* Everybody else is still served, in any order. */
	for (i = limits.clients_max; i-- > 0;) {
		tc_send(c[i], "{\"id\":1,\"command\":\"status\"}\n");
		o = tc_recv(c[i]);
		expect_ok(o, 1);
		json_object_put(o);
	}
	/* Leaving frees slots for newcomers. */
	for (i = 0; i < 3; i++)
		tc_free(c[i]);
	pump_until_clients(limits.clients_max - 3);
	for (i = 0; i < 3; i++) {
		c[i] = tc_connect();
		tc_hello(c[i]);
	}
	ASSERT_EQ(control_clients(m->control), limits.clients_max);
	for (i = 0; i < limits.clients_max; i++)
		tc_free(c[i]);
	pump_until_clients(0);
}

static char *requests(int n, size_t *ret_len)
{
	char *buf = malloc((size_t)n * 48), *p = buf;

	ASSERT_TRUE(buf);
	for (int i = 1; i <= n; i++)
		p += sprintf(p, "{\"id\":%d,\"command\":\"status\"}\n", i);
	*ret_len = (size_t)(p - buf);
	return buf;
}

static void test_pipelining(void)
{
	const int n = 3000;
	size_t len, sent = 0;
	char *buf = requests(n, &len);
	struct tc *c = tc_connect();
	struct json_object *o;
	uint64_t deadline = now_usec() + DEADLINE_USEC;
	int got = 0;

	/* Replies (~120 bytes each) outgrow output_high: the daemon pauses reading us until we
	 * read, and every reply still arrives, in order. */
	tc_hello(c);
	while (got < n) {
		ASSERT_TRUE(now_usec() < deadline);
		if (sent < len) {
			ssize_t k =
				send(c->fd, buf + sent, len - sent, MSG_DONTWAIT | MSG_NOSIGNAL);

			ASSERT_TRUE(k > 0 || errno == EAGAIN);
			if (k > 0)
				sent += (size_t)k;
		}
		while (tc_poll(c, &o) > 0) {
			expect_ok(o, ++got);
			json_object_put(o);
		}
		pump();
	}
	ASSERT_EQ(sent, len);
	tc_free(c);
	free(buf);
}

static void test_vanishing_clients(void)
{
	size_t len;
	char *buf = requests(1500, &len);
	struct tc *c;
	struct json_object *o;
	int got = 0;

	/* Gone before reading a single reply. */
	pump_until_clients(0);
	c = tc_connect();
	tc_hello(c);
	tc_send_raw(c, buf, len);
	tc_free(c);
	pump_until_clients(0);

	/* Gone after a few replies, mid-stream. */
	c = tc_connect();
	tc_hello(c);
	tc_send_raw(c, buf, len);
	while (got < 10) {
		o = tc_recv(c);
		expect_ok(o, ++got);
		json_object_put(o);
	}
	tc_free(c);
	pump_until_clients(0);

	/* A client that stops reading while the daemon must write is dropped at output_max. */
	struct control_limits small = limits;
	small.output_high = 64 * PROTO_FRAME_MAX; /* no backpressure: let the output grow */
	small.output_max = 32 * 1024;
	control_set_limits(m->control, &small);
	free(buf);
	buf = requests(10000, &len);
	c = tc_connect();
	tc_hello(c);
	for (size_t sent = 0; sent < len && control_clients(m->control) > 0;) {
		ssize_t k = send(c->fd, buf + sent, len - sent, MSG_DONTWAIT | MSG_NOSIGNAL);

		if (k > 0)
			sent += (size_t)k;
		else if (errno == EPIPE || errno == ECONNRESET)
			break;
		ASSERT_TRUE(k > 0 || errno == EAGAIN);
		pump();
	}
	pump_until_clients(0);
	got = 0;
	while ((o = tc_recv(c))) {
		json_object_put(o);
		got++;
	}
	ASSERT_TRUE(got < 10000);
	tc_free(c);
	control_set_limits(m->control, &limits);

	/* Half-close: the requests sent before it are answered, then the daemon closes. */
	c = tc_connect();
	tc_send(c, "{\"hello\":{\"protocol\":1}}\n{\"id\":1,\"command\":\"version\"}\n");
	ASSERT_EQ(shutdown(c->fd, SHUT_WR), 0);
	o = tc_recv(c);
	ASSERT_EQ(proto_message_kind(o), PROTO_MSG_HELLO);
	json_object_put(o);
	o = tc_recv(c);
	expect_ok(o, 1);
	json_object_put(o);
	tc_expect_eof(c);
	tc_free(c);

	/* And the daemon still serves. */
	c = tc_connect();
	tc_hello(c);
	tc_send(c, "{\"id\":2,\"command\":\"status\"}\n");
	o = tc_recv(c);
	expect_ok(o, 2);
	json_object_put(o);
	tc_free(c);
	free(buf);
}

/*
 * What a child running as nobody must see: NULL for a successful reply, an error code for an
 * error reply to its request, or one of these.
 */
#define WANT_REFUSED	"refused at accept" /* not-authorized instead of the hello, then EOF */
#define WANT_NO_CONNECT "no connect"	    /* the socket file keeps it out: EACCES */

/* In a child running as nobody: sends REQ (a hello, a request), exits 0 if it got WANT. */
static void child_call(const char *req, const char *want)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	struct timeval tv = {.tv_sec = 10};
	struct proto_decoder dec;
	struct json_object *o = NULL;
	struct proto_reply rep;
	struct proto_error err;
	bool refused = want && strcmp(want, WANT_REFUSED) == 0;
	int fd, frames = 0;
	char end[16];

	if (setgroups(0, NULL) < 0 || setresgid(65534, 65534, 65534) < 0 ||
	    setresuid(65534, 65534, 65534) < 0)
		_exit(10);
	strcpy(sa.sun_path, sock_path);
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	if (fd < 0)
		_exit(11);
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		_exit(want && strcmp(want, WANT_NO_CONNECT) == 0 && errno == EACCES ? 0 : 11);
	if (want && strcmp(want, WANT_NO_CONNECT) == 0)
		_exit(16);
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (send(fd, req, strlen(req), MSG_NOSIGNAL) != (ssize_t)strlen(req))
		_exit(12);
	proto_decoder_init(&dec, PROTO_FRAME_MAX);
	/* The hello's answer, then the request's; a refused peer gets no hello. */
	while (frames < 2) {
		char *buf;
		size_t len;
		ssize_t n;

		if (proto_decoder_next(&dec, &o) > 0) {
			if (++frames == 1 && proto_message_kind(o) == PROTO_MSG_HELLO) {
				json_object_put(o);
				continue;
			}
			break;
		}
		proto_decoder_space(&dec, &buf, &len);
		n = read(fd, buf, len);
		if (n <= 0)
			_exit(13);
		proto_decoder_commit(&dec, (size_t)n);
	}
	if (refused != (frames == 1))
		_exit(17);
	if (proto_reply_parse(o, &rep, &err) < 0)
		_exit(14);
	if (refused ? rep.ok || strcmp(rep.code_name, "not-authorized") != 0 ||
			      !strstr(rep.message, "may not use latencyd's control socket")
	    : want ? rep.ok || strcmp(rep.code_name, want) != 0
		   : !rep.ok) {
		fprintf(stderr, "child: %s\n", json_object_to_json_string(o));
		_exit(15);
	}
	/* Refused: latencyd closes the connection (EOF), it does not wait for a timeout. */
	if (refused && read(fd, end, sizeof(end)) != 0)
		_exit(18);
	_exit(0);
}

static void run_child_req(const char *req, const char *want_code)
{
	uint64_t deadline = now_usec() + DEADLINE_USEC;
	int status;
	pid_t pid;

	pid = fork();
	ASSERT_TRUE(pid >= 0);
	if (pid == 0)
		child_call(req, want_code);
	while (waitpid(pid, &status, WNOHANG) == 0) {
		ASSERT_TRUE(now_usec() < deadline);
		pump();
	}
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(WEXITSTATUS(status), 0);
}

static void run_child(const char *want_code)
{
	run_child_req("{\"hello\":{\"protocol\":1}}\n{\"id\":1,\"command\":\"status\"}\n",
		      want_code);
}

#define CHILD_HELLO "{\"hello\":{\"protocol\":1}}\n"
#define SET_THRESHOLD                                                                              \
	CHILD_HELLO "{\"id\":1,\"command\":\"set-threshold\",\"args\":{\"tracker\":\"wakeup\","    \
		    "\"threshold_ns\":7000}}\n"

static void read_file(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "r");

	ASSERT_TRUE(f);
	ASSERT_TRUE(fgets(buf, (int)size, f));
	fclose(f);
}

static void make_tracker(const char *name)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "mkdir -p '%s/%s/%s/stats'", sysfs, LATENCY_TRACKER_SYSFS_DIR,
		 name);
	ASSERT_EQ(system(path), 0);
	snprintf(path, sizeof(path), "%s/%s/%s/enabled", sysfs, LATENCY_TRACKER_SYSFS_DIR, name);
	write_file(path, "0\n");
	snprintf(path, sizeof(path), "%s/%s/%s/threshold_ns", sysfs, LATENCY_TRACKER_SYSFS_DIR,
		 name);
	write_file(path, "5000000\n");
	snprintf(path, sizeof(path), "%s/%s/%s/timeout_ns", sysfs, LATENCY_TRACKER_SYSFS_DIR, name);
	write_file(path, "0\n");
	snprintf(path, sizeof(path), "%s/%s/%s/stats/alerts", sysfs, LATENCY_TRACKER_SYSFS_DIR,
		 name);
	write_file(path, "42\n");
	snprintf(path, sizeof(path), "%s/%s/%s/stats/delay_hist_ns", sysfs,
		 LATENCY_TRACKER_SYSFS_DIR, name);
	write_file(path, "1024 3\n2048 1\n");
}

static void test_trackers(void)
{
	struct tc *c = tc_connect();
	struct json_object *o, *res, *list, *t;
	char path[PATH_MAX], buf[64];

	make_tracker("wakeup");
	make_tracker("offcpu");
	/* Not a tracker: no "enabled" file. */
	snprintf(path, sizeof(path), "mkdir -p '%s/%s/other'", sysfs, LATENCY_TRACKER_SYSFS_DIR);
	ASSERT_EQ(system(path), 0);
	tc_hello(c);
	tc_send(c, "{\"id\":1,\"command\":\"trackers\"}\n");
	o = tc_recv(c);
	res = expect_ok(o, 1);
	ASSERT_TRUE(json_object_get_boolean(get(res, "loaded")));
	list = get(res, "trackers");
	ASSERT_EQ(json_object_array_length(list), 2);
	t = json_object_array_get_idx(list, 0);
	ASSERT_STREQ(json_object_get_string(get(t, "name")), "offcpu");
	ASSERT_TRUE(!json_object_get_boolean(get(t, "enabled")));
	ASSERT_EQ(json_object_get_int64(get(t, "threshold_ns")), 5000000);
	ASSERT_EQ(json_object_get_int64(get(t, "timeout_ns")), 0);
	ASSERT_EQ(json_object_get_int64(get(get(t, "stats"), "alerts")), 42);
	ASSERT_TRUE(!json_object_object_get_ex(get(t, "stats"), "delay_hist_ns", NULL));
	json_object_put(o);

	tc_send(c, "{\"id\":2,\"command\":\"trackers\",\"args\":{\"x\":1}}\n");
	o = tc_recv(c);
	expect_error(o, 2, "bad-argument", "x");

	/* set-threshold, set-timeout, enable, disable write the sysfs file. */
	tc_send(c, "{\"id\":3,\"command\":\"set-threshold\",\"args\":{\"tracker\":\"wakeup\","
		   "\"threshold_ns\":1500000}}\n");
	o = tc_recv(c);
	res = expect_ok(o, 3);
	ASSERT_EQ(json_object_get_int64(get(res, "threshold_ns")), 1500000);
	ASSERT_EQ(json_object_get_int64(get(res, "previous")), 5000000);
	ASSERT_TRUE(!json_object_get_boolean(get(res, "saved")));
	json_object_put(o);
	snprintf(path, sizeof(path), "%s/%s/wakeup/threshold_ns", sysfs, LATENCY_TRACKER_SYSFS_DIR);
	read_file(path, buf, sizeof(buf));
	ASSERT_STREQ(buf, "1500000\n");

	tc_send(c, "{\"id\":4,\"command\":\"set-timeout\",\"args\":{\"tracker\":\"wakeup\","
		   "\"timeout_ns\":10000000}}\n");
	o = tc_recv(c);
	res = expect_ok(o, 4);
	ASSERT_EQ(json_object_get_int64(get(res, "previous")), 0);
	json_object_put(o);
	snprintf(path, sizeof(path), "%s/%s/wakeup/timeout_ns", sysfs, LATENCY_TRACKER_SYSFS_DIR);
	read_file(path, buf, sizeof(buf));
	ASSERT_STREQ(buf, "10000000\n");

	tc_send(c, "{\"id\":5,\"command\":\"enable\",\"args\":{\"tracker\":\"wakeup\"}}\n");
	o = tc_recv(c);
	res = expect_ok(o, 5);
	ASSERT_TRUE(json_object_get_boolean(get(res, "enabled")));
	ASSERT_TRUE(!json_object_get_boolean(get(res, "previous")));
	json_object_put(o);
	snprintf(path, sizeof(path), "%s/%s/wakeup/enabled", sysfs, LATENCY_TRACKER_SYSFS_DIR);
	read_file(path, buf, sizeof(buf));
	ASSERT_STREQ(buf, "1\n");
	tc_send(c, "{\"id\":6,\"command\":\"disable\",\"args\":{\"tracker\":\"wakeup\"}}\n");
	o = tc_recv(c);
	expect_ok(o, 6);
	json_object_put(o);
	read_file(path, buf, sizeof(buf));
	ASSERT_STREQ(buf, "0\n");

	/* Unknown trackers, names that leave the directory, bad and missing values. */
	tc_send(c, "{\"id\":7,\"command\":\"enable\",\"args\":{\"tracker\":\"nope\"}}\n");
	o = tc_recv(c);
	expect_error(o, 7, "not-found", "nope");
	tc_send(c, "{\"id\":8,\"command\":\"enable\",\"args\":{\"tracker\":\"other\"}}\n");
	o = tc_recv(c);
	expect_error(o, 8, "not-found", "other");
	tc_send(c, "{\"id\":9,\"command\":\"enable\",\"args\":{\"tracker\":\"../kernel\"}}\n");
	o = tc_recv(c);
	expect_error(o, 9, "bad-argument", "invalid tracker name");
	/* 32 characters: no room for the NUL of the kernel's name (LATENCY_TRACKER_NAME_LEN). */
	tc_send(c, "{\"id\":109,\"command\":\"enable\",\"args\":{\"tracker\":"
		   "\"abcdefghijklmnopqrstuvwxyzabcdef\"}}\n");
	o = tc_recv(c);
	expect_error(o, 109, "bad-argument", "invalid tracker name");
	tc_send(c, "{\"id\":10,\"command\":\"set-threshold\",\"args\":{\"tracker\":\"wakeup\","
		   "\"threshold_ns\":-1}}\n");
	o = tc_recv(c);
	expect_error(o, 10, "bad-argument", "threshold_ns");
	tc_send(c, "{\"id\":11,\"command\":\"set-threshold\",\"args\":{\"tracker\":\"wakeup\"}}\n");
	o = tc_recv(c);
	expect_error(o, 11, "bad-argument", "threshold_ns");
	tc_send(c, "{\"id\":12,\"command\":\"enable\",\"args\":{\"tracker\":\"wakeup\","
		   "\"threshold_ns\":1}}\n");
	o = tc_recv(c);
	expect_error(o, 12, "bad-argument", "threshold_ns");
	tc_free(c);
}

/* A sysfs filter file of tracker wakeup: its first line. */
static void read_filter(const char *file, char *buf, size_t size)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s/wakeup/%s", sysfs, LATENCY_TRACKER_SYSFS_DIR, file);
	read_file(path, buf, size);
}

#define SET_WAKEUP(id, ns)                                                                         \
	"{\"id\":" #id ",\"command\":\"set-threshold\",\"args\":{\"tracker\":\"wakeup\","          \
	"\"threshold_ns\":" #ns "}}\n"
#define SET_OFFCPU(id, ns)                                                                         \
	"{\"id\":" #id ",\"command\":\"set-threshold\",\"args\":{\"tracker\":\"offcpu\","          \
	"\"threshold_ns\":" #ns "}}\n"

static void expect_threshold(const char *tracker, const char *want)
{
	char path[PATH_MAX], buf[64];

	snprintf(path, sizeof(path), "%s/%s/%s/threshold_ns", sysfs, LATENCY_TRACKER_SYSFS_DIR,
		 tracker);
	read_file(path, buf, sizeof(buf));
	ASSERT_STREQ(buf, want);
}

static uint64_t accepted(void)
{
	return control_stats(m->control)->accepted;
}

/* Sends DATA and closes at once; returns once the daemon has let it go (accepted since). */
static void send_and_close(struct tc *c, const char *data, size_t len, uint64_t since)
{
	uint64_t deadline = now_usec() + DEADLINE_USEC;

	tc_send_raw(c, data, len);
	tc_free(c);
	while (accepted() == since || control_clients(m->control)) {
		ASSERT_TRUE(now_usec() < deadline);
		pump();
	}
}

/*
 * A client that sends its requests and closes at once has hung up: nothing sent to it can
 * arrive, but each request it sent is still run, to its end of input, as after a
 * half-close. The limits of a connection still hold.
 */
static void test_hangup(void)
{
	const char *two = CHILD_HELLO SET_WAKEUP(1, 7001) SET_OFFCPU(2, 7002);
	size_t len, n;
	char *buf = requests(3000, &len), *big;
	uint64_t since, deadline = now_usec() + DEADLINE_USEC;
	struct pollfd pfd;
	struct tc *c;
	int unread;

	/* Closed before latencyd read anything: both requests run. */
	pump_until_clients(0);
	since = accepted();
	send_and_close(tc_connect(), two, strlen(two), since);
	expect_threshold("wakeup", "7001\n");
	expect_threshold("offcpu", "7002\n");

	/* Closed with the hello's reply unread (a reset, not only a hang-up): it runs too. */
	since = accepted();
	c = tc_connect();
	tc_send(c, CHILD_HELLO);
	pfd = (struct pollfd){.fd = c->fd, .events = POLLIN};
	while (poll(&pfd, 1, 0) == 0) {
		ASSERT_TRUE(now_usec() < deadline);
		pump();
	}
	send_and_close(c, SET_WAKEUP(1, 7003), strlen(SET_WAKEUP(1, 7003)), since);
	expect_threshold("wakeup", "7003\n");

	/* A flood of requests and the end: every one runs, the last one too. */
	big = malloc(len + PROTO_FRAME_MAX + 256);
	ASSERT_TRUE(big);
	n = (size_t)sprintf(big, "%s", CHILD_HELLO);
	memcpy(big + n, buf, len);
	n += len;
	n += (size_t)sprintf(big + n, "%s", SET_WAKEUP(3001, 7004));
	send_and_close(tc_connect(), big, n, accepted());
	expect_threshold("wakeup", "7004\n");
	/* The same, closed once replies wait unread and latencyd no longer reads (output_high). */
	since = accepted();
	c = tc_connect();
	tc_send_raw(c, big, n - strlen(SET_WAKEUP(3001, 7004)));
	tc_send(c, SET_WAKEUP(3001, 7005));
	while (ioctl(c->fd, FIONREAD, &unread) == 0 && unread < 100000) {
		ASSERT_TRUE(now_usec() < deadline);
		pump();
	}
	send_and_close(c, "", 0, since);
	expect_threshold("wakeup", "7005\n");

	/* A frame too large still ends the connection: what follows it never runs. */
	n = (size_t)sprintf(big, "%s", CHILD_HELLO);
	memset(big + n, 'x', PROTO_FRAME_MAX + 1);
	n += PROTO_FRAME_MAX + 1;
	n += (size_t)sprintf(big + n, "\n%s", SET_WAKEUP(1, 7006));
	send_and_close(tc_connect(), big, n, accepted());
	expect_threshold("wakeup", "7005\n");
	free(big);
	free(buf);
}

/*
 * filter: what the kernel would refuse, or what C would read otherwise than it was sent, is
 * refused before anything is written: a comm cut at a NUL byte, a pid or tid past the
 * kernel's PID_MAX_LIMIT, UINT64_MAX (the handler's "not given") above all.
 */
static void test_filter(void)
{
	static const char *const files[] = {"filter_tgid", "filter_tid", "filter_comm",
					    "filter_cgroup_id"};
	static const struct {
		const char *args, *part;
	} bad[] = {
		{"\"comm\":\"a\\u0000b\"", "field 'comm' must be a string without NUL bytes"},
		/* json-c's reading of any integer past 2^64 - 1 too. */
		{"\"pid\":18446744073709551615", "field 'pid' is too large"},
		{"\"tid\":99999999999999999999", "field 'tid' is too large"},
		{"\"pid\":4194305", "4194304, not 4194305"},
		{"\"tid\":4194305,\"comm\":\"x\"", "field 'tid'"},
	};
	struct tc *c = tc_connect();
	char path[PATH_MAX], req[256], buf[64];
	struct json_object *o;

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s/wakeup/%s", sysfs, LATENCY_TRACKER_SYSFS_DIR,
			 files[i]);
		write_file(path, i == 2 ? "\n" : "9\n");
	}
	tc_hello(c);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(req, sizeof(req),
			 "{\"id\":%zu,\"command\":\"filter\",\"args\":{\"tracker\":\"wakeup\",%s}}"
			 "\n",
			 i + 1, bad[i].args);
		fprintf(stderr, "   %s", req);
		tc_send(c, req);
		expect_error(tc_recv(c), (int64_t)i + 1, "bad-argument", bad[i].part);
	}
	read_filter("filter_tgid", buf, sizeof(buf));
	ASSERT_STREQ(buf, "9\n");
	read_filter("filter_tid", buf, sizeof(buf));
	ASSERT_STREQ(buf, "9\n");
	read_filter("filter_comm", buf, sizeof(buf));
	ASSERT_STREQ(buf, "\n");

	/* The kernel's largest pid is one. */
	tc_send(c, "{\"id\":20,\"command\":\"filter\",\"args\":{\"tracker\":\"wakeup\","
		   "\"pid\":4194304,\"tid\":0}}\n");
	o = tc_recv(c);
	expect_ok(o, 20);
	json_object_put(o);
	read_filter("filter_tgid", buf, sizeof(buf));
	ASSERT_STREQ(buf, "4194304\n");
	read_filter("filter_tid", buf, sizeof(buf));
	ASSERT_STREQ(buf, "0\n");
	tc_free(c);
}

static void no_problem(void *arg, const char *field, const char *what)
{
	fprintf(stderr, "%s: %s\n", field, what);
	ASSERT_TRUE(!"a test entry does not decode");
}

static void add_string(struct json_object *o, const char *key, const char *value)
{
	json_object_object_add(o, key, json_object_new_string(value));
}

static void add_int(struct json_object *o, const char *key, int64_t value)
{
	json_object_object_add(o, key, json_object_new_int64(value));
}

/* An alert cause with a 16-frame stack, named with addresses (the longest a stack gets). */
static struct json_object *stacked_cause(int seq)
{
	struct json_object *c = json_object_new_object(), *stack = json_object_new_object(),
			   *frames = json_object_new_array(), *addrs = json_object_new_array(),
			   *data = json_object_new_array();
	char buf[64];

	add_string(c, PROTO_KEY_TRACKER, "syscalls");
	add_string(c, PROTO_KEY_REASON, "threshold");
	add_int(c, PROTO_KEY_SEQ, seq);
	add_int(c, PROTO_KEY_PID, 812);
	add_int(c, PROTO_KEY_TID, 815 + seq);
	add_string(c, PROTO_KEY_COMM, "postgres");
	add_int(c, PROTO_KEY_START_NS, 1000000000);
	add_int(c, PROTO_KEY_END_NS, 1012500000);
	add_int(c, PROTO_KEY_DELAY_NS, 12500000);
	add_int(c, PROTO_KEY_THRESHOLD_NS, 10000000);
	for (int i = 0; i < LATENCY_TRACKER_DATA_WORDS; i++)
		json_object_array_add(data, json_object_new_int64(202 + i));
	json_object_object_add(c, PROTO_KEY_DATA_WORDS, data);
	add_string(stack, PROTO_KEY_KIND, PROTO_STACK_TASK);
	for (int i = 0; i < 16; i++) {
		snprintf(buf, sizeof(buf), "__mutex_lock_slowpath_%02d+0x1c4/0x2a0 [ext4]", i);
		json_object_array_add(frames, json_object_new_string(buf));
		snprintf(buf, sizeof(buf), "0xffffffffc0%08x", 0x1234ea + i * 0x40);
		json_object_array_add(addrs, json_object_new_string(buf));
	}
	json_object_object_add(stack, PROTO_KEY_FRAMES, frames);
	json_object_object_add(stack, PROTO_KEY_ADDRESSES, addrs);
	json_object_object_add(c, PROTO_KEY_STACK, stack);
	return c;
}

/* A complete snapshot as a large machine records it: N_CPUS streams, N_CAUSES stacked causes,
 * disks and an analysis. */
static void add_big_entry(struct catalog *cat, uint64_t id, int n_cpus, int n_causes)
{
	struct json_object *o = json_object_new_object(), *causes = json_object_new_array(),
			   *disks = json_object_new_object(), *h = json_object_new_object(),
			   *streams = json_object_new_array(), *a = json_object_new_object(),
			   *ac = json_object_new_array(), *x;
	struct catalog_entry e;
	char buf[128];

	add_int(o, PROTO_KEY_ID, (int64_t)id);
	add_string(o, PROTO_KEY_STATUS, PROTO_SNAP_COMPLETE);
	add_int(o, PROTO_KEY_TIME, 1764100000 + (int64_t)id);
	snprintf(buf, sizeof(buf), "snap-%llu", (unsigned long long)id);
	add_string(o, PROTO_KEY_NAME, buf);
	for (int i = 0; i < n_causes; i++)
		json_object_array_add(causes, stacked_cause(i));
	json_object_object_add(o, PROTO_KEY_CAUSES, causes);
	add_string(disks, "254:0", "vda");
	add_string(disks, "8:16", "sdb");
	json_object_object_add(o, PROTO_KEY_DISKS, disks);
	add_int(o, PROTO_KEY_DETECT_TO_RECORD_NS, 350000);
	add_int(o, PROTO_KEY_RECORD_NS, 41000000);
	snprintf(buf, sizeof(buf), "/var/lib/latencyd/snapshots/snap-%llu-20261125-195340-0",
		 (unsigned long long)id);
	add_string(o, PROTO_KEY_PATH, buf);
	add_int(o, PROTO_KEY_BYTES, 8392704);
	add_int(h, PROTO_KEY_WINDOW_NS, 3000000000);
	json_object_object_add(h, PROTO_KEY_WRAPPED, json_object_new_boolean(1));
	add_int(h, PROTO_KEY_EVENTS, 52012345);
	add_int(h, PROTO_KEY_BYTES, 1884640123);
	json_object_object_add(h, PROTO_KEY_EVENTS_PER_SEC, json_object_new_double(17333333.5));
	json_object_object_add(h, PROTO_KEY_BYTES_PER_EVENT, json_object_new_double(36.25));
	for (int cpu = 0; cpu < n_cpus; cpu++) {
		x = json_object_new_object();
		add_string(x, PROTO_KEY_CHANNEL, "channel0");
		add_int(x, PROTO_KEY_CPU, cpu);
		add_int(x, PROTO_KEY_EVENTS, 812345 + cpu);
		add_int(x, PROTO_KEY_BYTES, 29446123 + cpu);
		add_int(x, PROTO_KEY_FIRST_NS, 1761234567890123456);
		add_int(x, PROTO_KEY_LAST_NS, 1761234570890123456);
		add_int(x, PROTO_KEY_SPAN_NS, 3000000000);
		json_object_array_add(streams, x);
	}
	json_object_object_add(h, PROTO_KEY_STREAMS, streams);
	add_int(h, PROTO_KEY_STREAMS_TOTAL, n_cpus);
	add_int(h, PROTO_KEY_TIME, 1764100000);
	add_int(h, PROTO_KEY_BUFFER_BYTES_PER_CPU, 4194304);
	add_int(h, PROTO_KEY_EXPECTED_WINDOW_NS, 3000000000);
	json_object_object_add(o, PROTO_KEY_HISTORY, h);
	add_int(a, PROTO_KEY_ANALYSIS_MS, 120);
	add_string(a, PROTO_KEY_STATUS, "done");
	add_int(a, PROTO_KEY_EVENTS, 52012345);
	json_object_object_add(a, PROTO_KEY_PROBLEMS, json_object_new_array());
	json_object_object_add(a, PROTO_KEY_MISSING_EVENTS, json_object_new_array());
	x = json_object_new_object();
	add_int(x, PROTO_KEY_SEQ, 0);
	add_string(x, PROTO_KEY_TRACKER, "syscalls");
	add_int(x, PROTO_KEY_TID, 815);
	add_string(x, PROTO_KEY_COMM, "postgres");
	add_string(x, PROTO_KEY_SUMMARY, "blocked 12.1 ms on mutex held by 816 (vacuum)");
	json_object_object_add(x, PROTO_KEY_EXPLAINED, json_object_new_double(0.97));
	json_object_array_add(ac, x);
	json_object_object_add(a, PROTO_KEY_CAUSES, ac);
	json_object_object_add(o, PROTO_KEY_ANALYSIS, a);

	ASSERT_EQ(catalog_entry_from_json(o, &e, no_problem, NULL), 0);
	ASSERT_TRUE(catalog_insert(cat, &e));
	json_object_put(o);
}

/* The ids of a list-snapshots reply's summaries, checked newest first from NEWEST on. */
static size_t expect_newest(struct json_object *res, uint64_t newest)
{
	struct json_object *list = get(res, PROTO_KEY_SNAPSHOTS);
	size_t n = json_object_array_length(list);

	for (size_t i = 0; i < n; i++)
		ASSERT_EQ(json_object_get_int64(
				  get(json_object_array_get_idx(list, i), PROTO_KEY_ID)),
			  newest - i);
	return n;
}

/*
 * A catalog of large snapshots (64 CPUs' streams, stacked causes) is far more than a frame:
 * list-snapshots lists the newest that fit one reply and counts them all, --limit still
 * keeps fewer; show-snapshot of a hundred stacked causes lists the first that fit, with
 * their total.
 */
static void test_big_catalog(void)
{
	enum { N = 40, CPUS = 64 };
	struct tc *c = tc_connect();
	struct json_object *o, *res, *causes;
	struct catalog *cat;
	char path[PATH_MAX];
	bool recovered;
	size_t n;

	snprintf(path, sizeof(path), "%s/catalog", dir);
	ASSERT_EQ(catalog_open(path, &cat, &recovered), 0);
	for (uint64_t id = 1; id <= N; id++)
		add_big_entry(cat, id, id % 2 ? CPUS : 8, 2);
	m->catalog = cat;
	tc_hello(c);

	tc_send(c, "{\"id\":1,\"command\":\"list-snapshots\"}\n");
	o = tc_recv(c);
	res = expect_ok(o, 1);
	n = expect_newest(res, N);
	ASSERT_TRUE(n > 1 && n < N);
	ASSERT_EQ(json_object_get_int64(get(res, PROTO_KEY_MATCHED)), N);
	ASSERT_EQ(json_object_get_int64(get(res, PROTO_KEY_SUPPRESSED)), 0);
	res = json_object_array_get_idx(get(res, PROTO_KEY_SNAPSHOTS), 0);
	ASSERT_EQ(json_object_get_int64(get(res, PROTO_KEY_CAUSES)), 2);
	ASSERT_EQ(json_object_array_length(
			  get(get(get(res, PROTO_KEY_CAUSE), PROTO_KEY_STACK), PROTO_KEY_FRAMES)),
		  16);
	json_object_put(o);

	tc_send(c, "{\"id\":2,\"command\":\"list-snapshots\",\"args\":{\"limit\":3}}\n");
	o = tc_recv(c);
	res = expect_ok(o, 2);
	ASSERT_EQ(expect_newest(res, N), 3);
	ASSERT_EQ(json_object_get_int64(get(res, PROTO_KEY_MATCHED)), N);
	json_object_put(o);

	/* The filters count what matched them, past the budget too. */
	tc_send(c, "{\"id\":3,\"command\":\"list-snapshots\",\"args\":{\"since\":1764100011}}\n");
	o = tc_recv(c);
	res = expect_ok(o, 3);
	ASSERT_TRUE(expect_newest(res, N) > 1);
	ASSERT_EQ(json_object_get_int64(get(res, PROTO_KEY_MATCHED)), N - 10);
	json_object_put(o);

	/* A hundred causes with their stacks: the first ones, and how many there are. */
	add_big_entry(cat, N + 1, CPUS, CATALOG_VIEW_CAUSES);
	tc_send(c, "{\"id\":4,\"command\":\"show-snapshot\",\"args\":{\"id\":41}}\n");
	o = tc_recv(c);
	res = expect_ok(o, 4);
	causes = get(res, PROTO_KEY_CAUSES);
	n = json_object_array_length(causes);
	ASSERT_TRUE(n > 1 && n < CATALOG_VIEW_CAUSES);
	for (size_t i = 0; i < n; i++)
		ASSERT_EQ(json_object_get_int64(
				  get(json_object_array_get_idx(causes, i), PROTO_KEY_SEQ)),
			  i);
	ASSERT_EQ(json_object_get_int64(get(res, PROTO_KEY_CAUSES_TOTAL)), CATALOG_VIEW_CAUSES);
	ASSERT_EQ(json_object_array_length(get(get(res, PROTO_KEY_HISTORY), PROTO_KEY_STREAMS)),
		  CPUS);
	json_object_put(o);
	/* One that fits is whole. */
	tc_send(c, "{\"id\":5,\"command\":\"show-snapshot\",\"args\":{\"id\":40}}\n");
	o = tc_recv(c);
	res = expect_ok(o, 5);
	ASSERT_EQ(json_object_array_length(get(res, PROTO_KEY_CAUSES)), 2);
	ASSERT_EQ(json_object_get_int64(get(res, PROTO_KEY_CAUSES_TOTAL)), 2);
	json_object_put(o);

	tc_free(c);
	m->catalog = NULL;
	catalog_free(cat);
}

static mode_t sock_mode(void)
{
	struct stat st;

	ASSERT_EQ(stat(sock_path, &st), 0);
	return st.st_mode & 07777;
}

/* Applies m->conf's control group as a reload would, keeping the test's limits. */
static void reconfigure(void)
{
	control_reconfigure(m->control, &m->conf->control);
	control_set_limits(m->control, &limits);
}

/* The lines of TEXT that contain NEEDLE. */
static int count_lines(const char *text, const char *needle)
{
	int n = 0;

	for (const char *p = text; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

/* In a child running as nobody: N set-threshold requests on one connection, each refused. */
static void child_refused_requests(int n)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	struct timeval tv = {.tv_sec = 10};
	struct proto_decoder dec;
	struct json_object *o;
	struct proto_reply rep;
	struct proto_error err;
	size_t len = strlen(CHILD_HELLO), size = len + (size_t)n * 128;
	char *req = malloc(size);
	int fd, frames = 0;

	if (!req || setgroups(0, NULL) < 0 || setresgid(65534, 65534, 65534) < 0 ||
	    setresuid(65534, 65534, 65534) < 0)
		_exit(10);
	strcpy(req, CHILD_HELLO);
	for (int i = 1; i <= n; i++)
		len += (size_t)snprintf(req + len, size - len,
					"{\"id\":%d,\"command\":\"set-threshold\",\"args\":{"
					"\"tracker\":\"wakeup\",\"threshold_ns\":7000}}\n",
					i);
	strcpy(sa.sun_path, sock_path);
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		_exit(11);
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (send(fd, req, len, MSG_NOSIGNAL) != (ssize_t)len)
		_exit(12);
	proto_decoder_init(&dec, PROTO_FRAME_MAX);
	while (frames <= n) {
		char *buf;
		size_t space;
		ssize_t k;

		if (proto_decoder_next(&dec, &o) > 0) {
			if (frames++ > 0 &&
			    (proto_reply_parse(o, &rep, &err) < 0 || rep.ok ||
			     rep.id != frames - 1 || strcmp(rep.code_name, "not-authorized") != 0))
				_exit(14);
			json_object_put(o);
			continue;
		}
		proto_decoder_space(&dec, &buf, &space);
		k = read(fd, buf, space);
		if (k <= 0)
			_exit(13);
		proto_decoder_commit(&dec, (size_t)k);
	}
	_exit(0);
}

/*
 * Refusals are logged at most once an interval per uid: a read_group member pipelining
 * admin commands, or a stranger connecting in a loop, must not flood the journal (whose
 * rate limit would then drop latencyd's alerts too). Each request is still answered.
 */
static void test_refusals_logged_once(void)
{
	uint64_t deadline = now_usec() + DEADLINE_USEC;
	struct test_capture cap;
	int status;
	char *text;
	pid_t pid;

	test_capture_start(&cap, STDERR_FILENO);
	pid = fork();
	ASSERT_TRUE(pid >= 0);
	if (pid == 0)
		child_refused_requests(300);
	while (waitpid(pid, &status, WNOHANG) == 0) {
		ASSERT_TRUE(now_usec() < deadline);
		pump();
	}
	text = test_capture_end(&cap);
	fputs(text, stderr);
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(WEXITSTATUS(status), 0);
	ASSERT_TRUE(count_lines(text, "refused: 'set-threshold' needs admin access") <= 1);
	free(text);
}

/*
 * Refused peers do not take client slots: one that may do nothing holds many connections
 * (more than clients_max and than latencyd's refused budget) while root is still served.
 */
static void test_refused_flood(void)
{
	enum { N = 24 };
	struct json_object *o;
	int ready[2], go[2], status;
	uint64_t deadline;
	struct tc *c;
	char byte;
	pid_t pid;

	ASSERT_EQ(pipe(ready), 0);
	ASSERT_EQ(pipe(go), 0);
	pid = fork();
	ASSERT_TRUE(pid >= 0);
	if (pid == 0) {
		struct sockaddr_un sa = {.sun_family = AF_UNIX};
		struct timeval tv = {.tv_sec = 10};
		int fds[N];

		if (setgroups(0, NULL) < 0 || setresgid(65534, 65534, 65534) < 0 ||
		    setresuid(65534, 65534, 65534) < 0)
			_exit(10);
		strcpy(sa.sun_path, sock_path);
		for (int i = 0; i < N; i++) {
			struct proto_decoder dec;
			struct proto_reply rep;
			struct proto_error err;
			char *buf;
			size_t len;
			ssize_t n;

			fds[i] = socket(AF_UNIX, SOCK_STREAM, 0);
			if (fds[i] < 0 || connect(fds[i], (struct sockaddr *)&sa, sizeof(sa)) < 0)
				_exit(11);
			setsockopt(fds[i], SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
			proto_decoder_init(&dec, PROTO_FRAME_MAX);
			while (proto_decoder_next(&dec, &o) == 0) {
				proto_decoder_space(&dec, &buf, &len);
				n = read(fds[i], buf, len);
				if (n <= 0)
					_exit(13);
				proto_decoder_commit(&dec, (size_t)n);
			}
			if (proto_reply_parse(o, &rep, &err) < 0 || rep.ok ||
			    strcmp(rep.code_name, "not-authorized") != 0)
				_exit(14);
		}
		/* Every connection is still open on this side. */
		if (write(ready[1], "r", 1) != 1 || read(go[0], &byte, 1) != 1)
			_exit(15);
		_exit(0);
	}
	close(ready[1]);
	close(go[0]);
	deadline = now_usec() + DEADLINE_USEC;
	for (;;) {
		struct pollfd pfd = {.fd = ready[0], .events = POLLIN};

		if (poll(&pfd, 1, 0) == 1)
			break;
		ASSERT_TRUE(now_usec() < deadline);
		pump();
	}
	ASSERT_EQ(read(ready[0], &byte, 1), 1);
	ASSERT_EQ(control_clients(m->control), 0);
	c = tc_connect();
	tc_hello(c);
	tc_send(c, "{\"id\":1,\"command\":\"status\"}\n");
	o = tc_recv(c);
	expect_ok(o, 1);
	json_object_put(o);
	tc_free(c);

	ASSERT_EQ(write(go[1], "g", 1), 1);
	while (waitpid(pid, &status, WNOHANG) == 0) {
		ASSERT_TRUE(now_usec() < deadline);
		pump();
	}
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(WEXITSTATUS(status), 0);
	close(ready[0]);
	close(go[1]);
}

static void test_authorization(void)
{
	struct test_capture cap;
	char path[PATH_MAX], buf[64], *text;
	struct group *g = getgrgid(65534);
	struct conf_diag diag = {0};

	if (geteuid() != 0 || !g || !getpwuid(65534)) {
		fprintf(stderr, "   skipped: needs root and uid/gid 65534\n");
		return;
	}
	ASSERT_EQ(chmod(dir, 0755), 0);

	/* No group configured: the file (0660) keeps others out. */
	ASSERT_EQ(sock_mode(), 0660);
	run_child(WANT_NO_CONNECT);
	/* Through a wider file, latencyd itself refuses them at once. */
	ASSERT_EQ(chmod(sock_path, 0666), 0);
	run_child(WANT_REFUSED);
	test_capture_start(&cap, STDERR_FILENO);
	test_refused_flood();
	text = test_capture_end(&cap);
	fputs(text, stderr);
	ASSERT_TRUE(count_lines(text, "refused: uid 65534 may not use") <= 1);
	free(text);

	/* A group configured: the file is opened to all (reload), latencyd decides. */
	ASSERT_EQ(chmod(sock_path, 0660), 0);
	ASSERT_EQ(conf_set(m->conf, "control.read_group", g->gr_name, &diag), 0);
	reconfigure();
	ASSERT_EQ(sock_mode(), 0666);
	run_child(NULL);
	/* A read-group member may list trackers but not change them: the file stays. */
	snprintf(path, sizeof(path), "%s/%s/wakeup/threshold_ns", sysfs, LATENCY_TRACKER_SYSFS_DIR);
	write_file(path, "5000000\n");
	run_child_req(CHILD_HELLO "{\"id\":1,\"command\":\"trackers\"}\n", NULL);
	run_child_req(SET_THRESHOLD, "not-authorized");
	test_refusals_logged_once();
	run_child_req(CHILD_HELLO "{\"id\":1,\"command\":\"enable\",\"args\":{\"tracker\":"
				  "\"wakeup\"}}\n",
		      "not-authorized");
	read_file(path, buf, sizeof(buf));
	ASSERT_STREQ(buf, "5000000\n");
	/* An admin-group member may. */
	ASSERT_EQ(conf_set(m->conf, "control.admin_group", g->gr_name, &diag), 0);
	reconfigure();
	run_child_req(SET_THRESHOLD, NULL);
	read_file(path, buf, sizeof(buf));
	ASSERT_STREQ(buf, "7000\n");
	/* A member of admin_group alone (issue #17) connects, reads and changes state. */
	ASSERT_EQ(conf_set(m->conf, "control.read_group", "", &diag), 0);
	reconfigure();
	ASSERT_EQ(sock_mode(), 0666);
	run_child(NULL);
	write_file(path, "5000000\n");
	run_child_req(SET_THRESHOLD, NULL);
	read_file(path, buf, sizeof(buf));
	ASSERT_STREQ(buf, "7000\n");

	/* No group again: the file is closed again. */
	ASSERT_EQ(conf_set(m->conf, "control.admin_group", "", &diag), 0);
	reconfigure();
	ASSERT_EQ(sock_mode(), 0660);
	run_child(WANT_NO_CONNECT);
	ASSERT_EQ(diag.n, 0);
}

static void test_socket_files(void)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	char path[PATH_MAX];
	struct control *other;
	struct stat st;
	int fd;

	/* A second daemon on a live socket is refused; the first one's socket stays. */
	ASSERT_EQ(control_new(m->event, &m->conf->control, &commands_table, m, &other), 0);
	ASSERT_EQ(control_listen(other, sock_path), -EADDRINUSE);
	control_free(other);
	ASSERT_EQ(stat(sock_path, &st), 0);

	/* A socket nobody listens on is stale: replaced, and removed again at exit. */
	snprintf(path, sizeof(path), "%s/stale.sock", dir);
	strcpy(sa.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	ASSERT_EQ(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	close(fd);
	ASSERT_EQ(control_new(m->event, &m->conf->control, &commands_table, m, &other), 0);
	ASSERT_EQ(control_listen(other, path), 0);
	control_free(other);
	ASSERT_TRUE(stat(path, &st) < 0 && errno == ENOENT);

	/* Anything else at the path is left alone. */
	snprintf(path, sizeof(path), "%s/file.sock", dir);
	write_file(path, "not a socket\n");
	ASSERT_EQ(control_new(m->event, &m->conf->control, &commands_table, m, &other), 0);
	ASSERT_EQ(control_listen(other, path), -EEXIST);
	control_free(other);
	ASSERT_EQ(stat(path, &st), 0);
	ASSERT_TRUE(S_ISREG(st.st_mode));
}

/*
 * Every wait here has its deadline; a run that outlives them all is stuck in a call: its
 * stack said before the end, for ctest's timeout would say nothing of where.
 */
static void on_stuck(int sig)
{
	static const char said[] = "test-control: stuck for 90 s, in:\n";
	void *frames[32];

	(void)sig;
	if (write(STDERR_FILENO, said, sizeof(said) - 1) < 0) {
		/* Nothing better to do: abort() follows. */
	}
	backtrace_symbols_fd(frames, backtrace(frames, 32), STDERR_FILENO);
	abort();
}

int main(void)
{
	struct conf_source src = {0};
	struct conf *conf;
	struct stat st;
	char cmd[PATH_MAX];

	signal(SIGALRM, on_stuck);
	alarm(90);
	log_init("latencyd", getenv("TEST_DEBUG") ? LOG_DEBUG : LOG_INFO);
	unsetenv("LISTEN_FDS");
	unsetenv("NOTIFY_SOCKET");
	ASSERT_TRUE(mkdtemp(dir));
	snprintf(sock_path, sizeof(sock_path), "%s/run/ctl.sock", dir);
	snprintf(sysfs, sizeof(sysfs), "%s/sys", dir);
	ASSERT_EQ(mkdir(sysfs, 0755), 0);

	ASSERT_EQ(conf_new_defaults(&conf), 0);
	ASSERT_EQ(conf_set(conf, "control.socket", sock_path, NULL), 0);
	ASSERT_EQ(conf_set(conf, "session.enabled", "false", NULL), 0);
	ASSERT_EQ(manager_new(&src, conf, &commands_table, &m), 0);
	m->sysfs_root = sysfs;
	control_set_limits(m->control, &limits);
	ASSERT_EQ(manager_start(m), 0);
	ASSERT_STREQ(control_path(m->control), sock_path);
	ASSERT_EQ(stat(sock_path, &st), 0);
	ASSERT_TRUE(S_ISSOCK(st.st_mode));
	ASSERT_EQ(st.st_mode & 07777, 0660);

	RUN(test_status_version);
	RUN(test_handshake);
	RUN(test_bad_requests);
	RUN(test_oversize);
	RUN(test_oversize_event);
	RUN(test_many_clients);
	RUN(test_pipelining);
	RUN(test_vanishing_clients);
	RUN(test_trackers);
	RUN(test_filter);
	RUN(test_hangup);
	RUN(test_big_catalog);
	RUN(test_authorization);

	RUN(test_socket_files);

	/* Shutdown removes the socket it created. */
	manager_free(m);
	ASSERT_TRUE(stat(sock_path, &st) < 0 && errno == ENOENT);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : 1;
}
