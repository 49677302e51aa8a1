// SPDX-License-Identifier: GPL-2.0-only
/*
 * Control-socket clients for the host robustness tests (test-flood.sh), speaking the wire
 * protocol directly (proto/), so that a client can misbehave in ways latencyctl never does.
 *
 *   ctl-flood clients SOCK N ROUNDS [CMD...]
 *                                     N threads connect, wait for each other, then each
 *                                     pipelines ROUNDS x (status, version, trackers, config)
 *                                     and checks every reply: ok, in order, the right shape;
 *                                     CMD runs once they all started, during the flood.
 *                                     Exit 0 when all N x 4 x ROUNDS replies are right and
 *                                     CMD succeeded.
 *   ctl-flood stall MODE SOCK         a stalled client; exits 0 when latencyd closes it:
 *       silent       connects and sends nothing
 *       half-hello   sends half a hello
 *       half-frame   says hello, then sends half a request
 *       oversize     says hello, then a frame longer than the protocol allows (send
 *                    errors once latencyd has closed are expected and ignored); prints
 *                    the error code latencyd sent before closing
 *   ctl-flood noread-watch SOCK       says hello, asks to watch, never reads; exits 0 once
 *                                     latencyd has dropped it (then it reads what is left)
 *   ctl-flood noread-reply SOCK N     says hello, pipelines N config requests, never reads;
 *                                     exits 0 once latencyd has dropped it
 *   ctl-flood hold SOCK N             opens N connections, each saying hello, and prints
 *                                     what each got ("hello", or the error: "busy: ...");
 *                                     then "holding K connections", and holds them until
 *                                     its standard input ends
 *   ctl-flood steady SOCK N           says hello, then sends N requests over N/2 seconds, each
 *                                     send the end of one and the start of the next (never a
 *                                     whole frame at a time); exit 0 when all are answered
 *   ctl-flood vanish SOCK N           pipelines N requests and closes without reading
 *   ctl-flood vanish-mid SOCK N       pipelines N requests, reads 5 replies, closes
 *
 * Each waits for latencyd at most DEADLINE_SEC, a guard against a hang, not a measurement.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "proto.h"

#define DEADLINE_SEC 60
#define HELLO	     "{\"hello\":{\"protocol\":1,\"client\":\"ctl-flood\"}}\n"

static const char *sock_path;
static pthread_barrier_t barrier;
static int rounds;

static int dial(void)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", sock_path);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		perror(sock_path);
		exit(1);
	}
	return fd;
}

static int send_all(int fd, const char *buf, size_t len)
{
	while (len > 0) {
		ssize_t n = send(fd, buf, len, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

/* The next frame; NULL at EOF (or after the deadline, said on stderr). */
static struct json_object *next_frame(int fd, struct proto_decoder *dec)
{
	struct json_object *o;
	struct pollfd p = {.fd = fd, .events = POLLIN};
	char *buf;
	size_t len;
	ssize_t n;
	int r;

	for (;;) {
		r = proto_decoder_next(dec, &o);
		if (r > 0)
			return o;
		if (r < 0) {
			fprintf(stderr, "bad frame from latencyd: %s\n", proto_decoder_error(dec));
			exit(1);
		}
		if (poll(&p, 1, DEADLINE_SEC * 1000) != 1) {
			fprintf(stderr, "latencyd said nothing for %d s\n", DEADLINE_SEC);
			return NULL;
		}
		proto_decoder_space(dec, &buf, &len);
		n = recv(fd, buf, len, 0);
		if (n <= 0)
			return NULL;
		proto_decoder_commit(dec, (size_t)n);
	}
}

static const char *const commands[] = {"status", "version", "trackers", "config"};
#define N_COMMANDS (sizeof(commands) / sizeof(commands[0]))

/* Does reply answer request id (command commands[id % N]) as latencyd must? */
static const char *check(struct json_object *o, int64_t id)
{
	const char *key[N_COMMANDS] = {"pid", "protocol", "trackers", "settings"};
	struct proto_reply rep;
	struct proto_error err;

	if (!o)
		return "connection closed early";
	if (proto_reply_parse(o, &rep, &err) < 0)
		return "not a reply";
	if (rep.id != id)
		return "reply out of order";
	if (!rep.ok)
		return rep.message;
	if (!json_object_object_get_ex(rep.result, key[id % N_COMMANDS], NULL))
		return "a result without its main field";
	return NULL;
}

static void *client_thread(void *arg)
{
	long nr = (long)arg, ok = 0;
	struct proto_decoder dec;
	struct json_object *o;
	char *reqs = NULL;
	size_t len = 0;
	const char *why;
	FILE *f;
	int fd;

	fd = dial();
	pthread_barrier_wait(&barrier); /* every client connected before anyone talks */
	f = open_memstream(&reqs, &len);
	fputs(HELLO, f);
	for (int64_t id = 0; id < (int64_t)rounds * (int64_t)N_COMMANDS; id++)
		fprintf(f, "{\"id\":%lld,\"command\":\"%s\"}\n", (long long)id,
			commands[id % N_COMMANDS]);
	fclose(f);
	proto_decoder_init(&dec, PROTO_FRAME_MAX);
	/* A refused client (busy) may find the socket closed: its error is still to read. */
	if (send_all(fd, reqs, len) < 0)
		fprintf(stderr, "client %ld: send: %s\n", nr, strerror(errno));
	o = next_frame(fd, &dec);
	if (o && proto_message_kind(o) == PROTO_MSG_REPLY) {
		fprintf(stderr, "client %ld: %s\n", nr, check(o, PROTO_ID_NONE));
		json_object_put(o);
		goto out;
	}
	if (!o || proto_message_kind(o) != PROTO_MSG_HELLO) {
		fprintf(stderr, "client %ld: no hello: %s\n", nr,
			o ? json_object_to_json_string(o) : "closed");
		json_object_put(o);
		goto out;
	}
	json_object_put(o);
	for (int64_t id = 0; id < (int64_t)rounds * (int64_t)N_COMMANDS; id++, ok++) {
		o = next_frame(fd, &dec);
		why = check(o, id);
		if (why) {
			fprintf(stderr, "client %ld, request %lld: %s%s%s\n", nr, (long long)id,
				why, o ? ": " : "", o ? json_object_to_json_string(o) : "");
			json_object_put(o);
			break;
		}
		json_object_put(o);
	}
out:
	proto_decoder_done(&dec);
	free(reqs);
	close(fd);
	return (void *)ok;
}

/* Runs cmd while the clients flood latencyd; returns its exit status. */
static int run_during(char **cmd)
{
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		execvp(cmd[0], cmd);
		perror(cmd[0]);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) < 0)
		return 1;
	printf("%s exited with %d during the flood\n", cmd[0],
	       WIFEXITED(status) ? WEXITSTATUS(status) : 128);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

static int clients(int n, char **cmd)
{
	pthread_t *t = calloc((size_t)n, sizeof(*t));
	long total = 0;
	int cmd_status = 0;
	void *ok;

	if (!t || pthread_barrier_init(&barrier, NULL, (unsigned)n + 1) != 0)
		return 1;
	for (long i = 0; i < n; i++)
		if (pthread_create(&t[i], NULL, client_thread, (void *)i) != 0) {
			perror("pthread_create");
			return 1;
		}
	pthread_barrier_wait(&barrier);
	if (cmd[0])
		cmd_status = run_during(cmd);
	for (int i = 0; i < n; i++) {
		pthread_join(t[i], &ok);
		total += (long)ok;
	}
	printf("%d clients: %ld of %ld replies right\n", n, total,
	       (long)n * rounds * (long)N_COMMANDS);
	free(t);
	return total == (long)n * rounds * (long)N_COMMANDS && cmd_status == 0 ? 0 : 1;
}

/* Reads until latencyd closes; prints the last error it sent. */
static int until_closed(int fd)
{
	struct proto_decoder dec;
	struct json_object *o;
	struct proto_reply rep;
	struct proto_error err;
	const char *last = "nothing";
	char copy[PROTO_MESSAGE_MAX + 64];

	proto_decoder_init(&dec, PROTO_FRAME_MAX);
	while ((o = next_frame(fd, &dec))) {
		if (proto_reply_parse(o, &rep, &err) == 0 && !rep.ok) {
			snprintf(copy, sizeof(copy), "%s: %s", rep.code_name, rep.message);
			last = copy;
		}
		json_object_put(o);
	}
	proto_decoder_done(&dec);
	/* A deadline is not a close: next_frame() said so; EOF is what we wait for. */
	printf("closed by latencyd after: %s\n", last);
	return strcmp(last, "nothing") == 0 ? 1 : 0;
}

static int stall(const char *mode)
{
	struct proto_decoder dec;
	struct json_object *o;
	int fd = dial();

	if (strcmp(mode, "silent") == 0)
		return until_closed(fd);
	if (strcmp(mode, "half-hello") == 0) {
		send_all(fd, HELLO, 12);
		return until_closed(fd);
	}
	if (strcmp(mode, "half-frame") == 0) {
		send_all(fd, HELLO, strlen(HELLO));
		proto_decoder_init(&dec, PROTO_FRAME_MAX);
		o = next_frame(fd, &dec);
		if (!o || proto_message_kind(o) != PROTO_MSG_HELLO)
			return 1;
		json_object_put(o);
		proto_decoder_done(&dec);
		send_all(fd, "{\"id\":1,\"comm", 13);
		return until_closed(fd);
	}
	if (strcmp(mode, "oversize") == 0) {
		static char big[PROTO_FRAME_MAX + 4096];

		send_all(fd, HELLO, strlen(HELLO));
		memset(big, 'x', sizeof(big));
		/* latencyd may close before the end: what it sent is read all the same. */
		send_all(fd, big, sizeof(big));
		return until_closed(fd);
	}
	fprintf(stderr, "unknown stall mode %s\n", mode);
	return 2;
}

/* Waits, without reading, for latencyd to close its end (POLLRDHUP). */
static int until_dropped(int fd)
{
	struct pollfd p = {.fd = fd, .events = POLLRDHUP};
	time_t end = time(NULL) + 10 * DEADLINE_SEC;
	char buf[65536];

	while (time(NULL) < end) {
		if (poll(&p, 1, 1000) == 1 && (p.revents & (POLLRDHUP | POLLHUP))) {
			while (recv(fd, buf, sizeof(buf), MSG_DONTWAIT) > 0)
				;
			printf("dropped by latencyd\n");
			return 0;
		}
	}
	fprintf(stderr, "never dropped\n");
	return 1;
}

/* Never reads while latencyd is there; tells that it was dropped by a reset or EOF. */
static int noread_watch(void)
{
	static const char req[] = HELLO "{\"id\":1,\"command\":\"watch\"}\n";
	int fd = dial();
	int rcvbuf = 4096;

	/* A small receive buffer: latencyd's own limit, not the kernel's, must stop it. */
	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	send_all(fd, req, sizeof(req) - 1);
	printf("watching without reading\n");
	fflush(stdout);
	/* POLLRDHUP: latencyd closed its end; the unread events are still in our buffer. */
	return until_dropped(fd);
}

/* Large replies asked for and never read: latencyd's output waits for nobody. */
static int noread_reply(int n)
{
	char *reqs = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&reqs, &len);
	int fd = dial(), rcvbuf = 4096;

	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	fputs(HELLO, f);
	for (int i = 0; i < n; i++)
		fprintf(f, "{\"id\":%d,\"command\":\"config\"}\n", i);
	fclose(f);
	/* latencyd stops reading once its replies wait: what does not fit waits here. */
	(void)send(fd, reqs, len, MSG_DONTWAIT | MSG_NOSIGNAL);
	free(reqs);
	printf("asked without reading\n");
	fflush(stdout);
	return until_dropped(fd);
}

/* N connections held open (idle after their hello) until stdin ends. */
static int hold(int n)
{
	struct proto_reply rep;
	struct proto_error err;
	int *fds = calloc((size_t)n, sizeof(int)), held = 0;
	char byte;

	for (int i = 0; fds && i < n; i++) {
		struct proto_decoder dec;
		struct json_object *o;

		fds[i] = dial();
		proto_decoder_init(&dec, PROTO_FRAME_MAX);
		/* A busy latencyd may have closed already: its error is still to read. */
		send_all(fds[i], HELLO, strlen(HELLO));
		o = next_frame(fds[i], &dec);
		if (o && proto_message_kind(o) == PROTO_MSG_HELLO) {
			printf("hello\n");
			held++;
		} else if (o && proto_reply_parse(o, &rep, &err) == 0 && !rep.ok) {
			printf("%s: %s\n", rep.code_name, rep.message);
			close(fds[i]);
		} else {
			printf("closed\n");
			close(fds[i]);
		}
		json_object_put(o);
		proto_decoder_done(&dec);
	}
	printf("holding %d connections\n", held);
	fflush(stdout);
	while (read(0, &byte, 1) > 0)
		;
	free(fds);
	return 0;
}

/* A slow but steady client: every frame ends, none within one read. */
static int steady(int n)
{
	struct timespec half = {0, 500 * 1000 * 1000};
	struct proto_decoder dec;
	struct json_object *o;
	char frame[128];
	int fd = dial(), len, cut;
	const char *why;

	proto_decoder_init(&dec, PROTO_FRAME_MAX);
	send_all(fd, HELLO, strlen(HELLO));
	o = next_frame(fd, &dec);
	if (!o || proto_message_kind(o) != PROTO_MSG_HELLO)
		return 1;
	json_object_put(o);
	/* ids 4k+1: "version" in check()'s table */
	len = snprintf(frame, sizeof(frame), "{\"id\":1,\"command\":\"version\"}\n");
	cut = len / 2;
	send_all(fd, frame, (size_t)cut);
	for (int i = 0; i < n; i++) {
		char next[128], chunk[256];
		int nlen = snprintf(next, sizeof(next), "{\"id\":%d,\"command\":\"version\"}\n",
				    (i + 1) * (int)N_COMMANDS + 1);
		int clen = snprintf(chunk, sizeof(chunk), "%s%.*s", frame + cut,
				    i + 1 < n ? nlen / 2 : 0, next);

		nanosleep(&half, NULL);
		send_all(fd, chunk, (size_t)clen);
		o = next_frame(fd, &dec);
		why = check(o, i * (int64_t)N_COMMANDS + 1);
		if (why) {
			fprintf(stderr, "steady, request %d: %s\n", i, why);
			return 1;
		}
		json_object_put(o);
		memcpy(frame, next, (size_t)nlen + 1);
		len = nlen;
		cut = len / 2;
	}
	printf("%d requests sent over %d s, all answered\n", n, n / 2);
	proto_decoder_done(&dec);
	close(fd);
	return 0;
}

static int vanish(int n, int read_some)
{
	struct proto_decoder dec;
	struct json_object *o;
	char *reqs = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&reqs, &len);
	int fd = dial();

	fputs(HELLO, f);
	for (int i = 0; i < n; i++)
		fprintf(f, "{\"id\":%d,\"command\":\"%s\"}\n", i, commands[i % N_COMMANDS]);
	fclose(f);
	if (!read_some) {
		/* As much as the socket takes right away, then gone. */
		(void)send(fd, reqs, len, MSG_DONTWAIT | MSG_NOSIGNAL);
		close(fd);
		free(reqs);
		return 0;
	}
	send_all(fd, reqs, len);
	proto_decoder_init(&dec, PROTO_FRAME_MAX);
	for (int i = 0; i < 6; i++) { /* the hello and 5 replies */
		o = next_frame(fd, &dec);
		if (!o)
			return 1;
		json_object_put(o);
	}
	proto_decoder_done(&dec);
	close(fd);
	free(reqs);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 5 && strcmp(argv[1], "clients") == 0) {
		sock_path = argv[2];
		rounds = atoi(argv[4]);
		return clients(atoi(argv[3]), argv + 5);
	}
	if (argc == 4 && strcmp(argv[1], "stall") == 0) {
		sock_path = argv[3];
		return stall(argv[2]);
	}
	if (argc == 3 && strcmp(argv[1], "noread-watch") == 0) {
		sock_path = argv[2];
		return noread_watch();
	}
	if (argc == 4 && strcmp(argv[1], "noread-reply") == 0) {
		sock_path = argv[2];
		return noread_reply(atoi(argv[3]));
	}
	if (argc == 4 && strcmp(argv[1], "hold") == 0) {
		sock_path = argv[2];
		return hold(atoi(argv[3]));
	}
	if (argc == 4 && strcmp(argv[1], "steady") == 0) {
		sock_path = argv[2];
		return steady(atoi(argv[3]));
	}
	if (argc == 4 && strncmp(argv[1], "vanish", 6) == 0) {
		sock_path = argv[2];
		return vanish(atoi(argv[3]), strcmp(argv[1], "vanish-mid") == 0);
	}
	fprintf(stderr, "usage: see the comment at the top of ctl-flood.c\n");
	return 2;
}
