/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * latencyctl's command line: --timeout takes a duration as every other option does ("5s",
 * "500ms", or "2" for 2s) and refuses what would round to nothing; an empty --socket is a
 * usage error that names it; show-snapshot -1 names the snapshot id, not an option; analyze
 * says latencyd's error as its own, not show-snapshot's; with --json, latencyd's error is
 * JSON on stdout, on one line; set-threshold -1s names the duration; watch's stream of
 * lines, and watch without a flight recorder.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "commands.h"
#include "fake-latencyd.h"
#include "tests.h"

#define HELLO                                                                                      \
	"{\"hello\":{\"protocol\":1,\"revision\":0,\"server\":\"latencyd\",\"version\":\"1\"}}\n"

/* What ctl_global(C, ARG) says on stderr (to free), and its return in *R. */
static char *global(struct ctl *ctl, int c, const char *arg, int *r)
{
	struct test_capture capture;

	test_capture_start(&capture, STDERR_FILENO);
	*r = ctl_global(ctl, c, arg);
	return test_capture_end(&capture);
}

static void test_timeout(void)
{
	static const struct {
		const char *arg;
		uint64_t usec;
	} good[] = {
		{"5s", 5000000}, {"2", 2000000},      {"0.3", 300000},	      {"500ms", 500000},
		{"1ms", 1000},	 {"2min", 120000000}, {"1d", 86400000000ULL},
	};
	static const struct {
		const char *arg, *said;
	} bad[] = {
		{"1e-9", "latencyctl: invalid --timeout '1e-9': "},
		{"0", "latencyctl: invalid --timeout '0': it must be positive\n"},
		{"-1", "latencyctl: invalid --timeout '-1': it must be positive\n"},
		{"5x", "latencyctl: invalid --timeout '5x': "},
		{"", "latencyctl: invalid --timeout '': "},
		{"500us", "latencyctl: --timeout '500us' is below 1ms\n"},
		{"0.0009", "latencyctl: --timeout '0.0009' is below 1ms\n"},
		{"25h", "latencyctl: --timeout '25h' is above 1d\n"},
	};
	struct ctl ctl = {.timeout_usec = 7};
	char *text;
	int r;

	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		text = global(&ctl, 't', good[i].arg, &r);
		ASSERT_EQ(r, EXIT_OK);
		ASSERT_STREQ(text, "");
		ASSERT_EQ(ctl.timeout_usec, good[i].usec);
		free(text);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ctl.timeout_usec = 7;
		text = global(&ctl, 't', bad[i].arg, &r);
		ASSERT_EQ(r, EXIT_USAGE);
		ASSERT_CONTAINS(text, bad[i].said);
		ASSERT_EQ(ctl.timeout_usec, 7);
		free(text);
	}
}

static void test_socket(void)
{
	struct ctl ctl = {.socket = "/run/x"};
	char *text;
	int r;

	text = global(&ctl, 's', "", &r);
	ASSERT_EQ(r, EXIT_USAGE);
	ASSERT_STREQ(text, "latencyctl: --socket wants a path, not an empty word\n");
	ASSERT_STREQ(ctl.socket, "/run/x");
	free(text);
}

/* What command ARGV[0] says on FD (to free) against the socket PATH, printing through OUT;
 * its exit in *R. */
static char *ran_out(const char *path, const struct output *out, int fd, int argc,
		     const char **argv, int *r)
{
	struct ctl ctl = {.socket = path, .timeout_usec = 10000000, .out = out};
	const struct command *cmd = command_find(argv[0]);
	char *copy[8];
	struct test_capture capture;

	ASSERT_TRUE(cmd && argc < 8);
	for (int i = 0; i < argc; i++)
		copy[i] = (char *)argv[i];
	copy[argc] = NULL;
	test_capture_start(&capture, fd);
	*r = cmd->run(&ctl, cmd, argc, copy);
	if (out == &output_json)
		stdout_check();
	return test_capture_end(&capture);
}

static char *ran(const char *path, int fd, int argc, const char **argv, int *r)
{
	return ran_out(path, &output_text, fd, argc, argv, r);
}

static void test_negative_id(void)
{
	const char *show[] = {"show-snapshot", "-1"};
	const char *del[] = {"delete-snapshot", "--json", "-12"};
	const char *after[] = {"show-snapshot", "3", "-7"};
	const char *timeout[] = {"show-snapshot", "-t", "-1", "3"};
	char *text;
	int r;

	text = ran("/nonexistent", STDERR_FILENO, 2, show, &r);
	ASSERT_EQ(r, EXIT_USAGE);
	ASSERT_CONTAINS(text, "latencyctl: show-snapshot: invalid snapshot id '-1': ");
	free(text);
	text = ran("/nonexistent", STDERR_FILENO, 3, del, &r);
	ASSERT_EQ(r, EXIT_USAGE);
	ASSERT_CONTAINS(text, "latencyctl: delete-snapshot: invalid snapshot id '-12': ");
	free(text);
	text = ran("/nonexistent", STDERR_FILENO, 3, after, &r);
	ASSERT_EQ(r, EXIT_USAGE);
	ASSERT_CONTAINS(text, "invalid snapshot id '-7'");
	free(text);
	/* An option's value is the option's. */
	text = ran("/nonexistent", STDERR_FILENO, 4, timeout, &r);
	ASSERT_EQ(r, EXIT_USAGE);
	ASSERT_CONTAINS(text, "latencyctl: invalid --timeout '-1'");
	free(text);
}

/* A negative duration is the duration's error, not getopt's "invalid option -- '1'". */
static void test_negative_duration(void)
{
	static const struct {
		const char *argv[6];
		int argc;
		const char *said;
	} cases[] = {
		{{"set-threshold", "wakeup", "-1s"},
		 3,
		 "latencyctl: set-threshold: invalid duration '-1s': a threshold is positive\n"},
		{{"set-timeout", "wakeup", "-5ms", "--save"},
		 4,
		 "latencyctl: set-timeout: invalid duration '-5ms': a timeout is 0 (off) or "
		 "positive\n"},
		{{"set-threshold", "-t", "5", "wakeup", "-0.5ms"},
		 5,
		 "latencyctl: set-threshold: invalid duration '-0.5ms': "},
	};
	char *text;
	int r;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *argv[6];

		memcpy(argv, cases[i].argv, sizeof(argv));
		text = ran("/nonexistent", STDERR_FILENO, cases[i].argc, argv, &r);
		ASSERT_EQ(r, EXIT_USAGE);
		ASSERT_CONTAINS(text, cases[i].said);
		ASSERT_TRUE(strstr(text, "invalid option") == NULL);
		free(text);
	}
}

/* Each line of TEXT a JSON object of its own; how many. */
static int json_lines(const char *text)
{
	char *copy = strdup(text), *save = NULL;
	int n = 0;

	ASSERT_TRUE(copy != NULL);
	for (char *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		struct json_object *o = json_tokener_parse(line);

		if (!o || !json_object_is_type(o, json_type_object)) {
			fprintf(stderr, "not a JSON object on its own line: '%s'\n", line);
			ASSERT_TRUE(false);
		}
		json_object_put(o);
		n++;
	}
	free(copy);
	return n;
}

#define WATCHING "{\"id\":1,\"ok\":true,\"result\":{\"recording\":true}}\n"
#define LOST	 "{\"event\":\"lost\",\"data\":{\"lost\":3}}\n"
#define CLOSED                                                                                     \
	"{\"id\":null,\"ok\":false,\"error\":{\"code\":\"not-authorized\",\"message\":\"uid 7 "    \
	"may not use latencyd's control socket\"}}\n"
#define NOT_RECORDING "{\"id\":1,\"ok\":true,\"result\":{\"recording\":false}}\n"

/*
 * watch --json: one object per line to the end, the error that ends the stream too (a reload
 * that took the user's access away); without the flight recorder, an error at once rather
 * than a wait for events that cannot come, said on stdout with --json, on stderr without.
 */
static void test_watch(void)
{
	char dir[] = "/tmp/test-client-cli.XXXXXX", path[64];
	const char *watch[] = {"watch"};
	char *text;
	pid_t pid;
	int r;

	ASSERT_TRUE(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/sock", dir);

	pid = serve(path, HELLO, WATCHING LOST CLOSED);
	text = ran_out(path, &output_json, STDOUT_FILENO, 1, watch, &r);
	ASSERT_TRUE(waitpid(pid, NULL, 0) == pid);
	ASSERT_EQ(r, EXIT_DAEMON);
	ASSERT_EQ(json_lines(text), 2);
	ASSERT_CONTAINS(text, "{\"event\":\"lost\",\"data\":{\"lost\":3}}\n");
	ASSERT_CONTAINS(text, "{\"error\":{\"code\":\"not-authorized\",\"message\":\"uid 7 may "
			      "not use latencyd's control socket\"}}\n");
	free(text);

	pid = serve(path, HELLO, NOT_RECORDING);
	text = ran(path, STDERR_FILENO, 1, watch, &r);
	ASSERT_TRUE(waitpid(pid, NULL, 0) == pid);
	ASSERT_EQ(r, EXIT_DAEMON);
	ASSERT_STREQ(text, "latencyctl: watch: latencyd's flight recorder is off (session.enabled "
			   "= false): no events will come (not-found)\n");
	free(text);
	pid = serve(path, HELLO, NOT_RECORDING);
	text = ran_out(path, &output_json, STDOUT_FILENO, 1, watch, &r);
	ASSERT_TRUE(waitpid(pid, NULL, 0) == pid);
	ASSERT_EQ(r, EXIT_DAEMON);
	ASSERT_EQ(json_lines(text), 1);
	ASSERT_CONTAINS(text, "{\"error\":{\"code\":\"not-found\",");
	free(text);

	unlink(path);
	ASSERT_TRUE(rmdir(dir) == 0);
}

#define NOT_FOUND                                                                                  \
	"{\"id\":1,\"ok\":false,\"error\":{\"code\":\"not-found\",\"message\":\"no snapshot "      \
	"999\"}}\n"

static void test_errors(void)
{
	char dir[] = "/tmp/test-client-cli.XXXXXX", path[64];
	const char *analyze[] = {"analyze", "999"};
	struct test_capture capture;
	char *text;
	pid_t pid;
	int r;

	ASSERT_TRUE(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/sock", dir);

	pid = serve(path, HELLO, NOT_FOUND);
	text = ran(path, STDERR_FILENO, 2, analyze, &r);
	ASSERT_TRUE(waitpid(pid, NULL, 0) == pid);
	ASSERT_EQ(r, EXIT_DAEMON);
	ASSERT_STREQ(text, "latencyctl: analyze: no snapshot 999 (not-found)\n");
	free(text);

	/* --json: on stdout, through the writer that sees a failed write. */
	test_capture_start(&capture, STDOUT_FILENO);
	output_json.error("show-snapshot", "not-found", "no snapshot 999");
	r = stdout_check();
	text = test_capture_end(&capture);
	ASSERT_EQ(r, EXIT_OK);
	ASSERT_STREQ(text,
		     "{\"error\":{\"code\":\"not-found\",\"message\":\"no snapshot 999\"}}\n");
	free(text);

	unlink(path);
	ASSERT_TRUE(rmdir(dir) == 0);
}

/*
 * watch waits for events with no deadline (UINT64_MAX): poll() must wait for ever (-1), not
 * for what the microseconds to UINT64_MAX make once cut to an int. A deadline far off, but
 * not none, waits INT_MAX ms at most; one near is rounded up to the next millisecond.
 */
static void test_poll_timeout(void)
{
	uint64_t now = 123456789;

	ASSERT_EQ(conn_poll_timeout(UINT64_MAX, now), -1);
	ASSERT_EQ(conn_poll_timeout(UINT64_MAX, 0), -1);
	ASSERT_EQ(conn_poll_timeout(UINT64_MAX - 1, now), INT_MAX);
	ASSERT_EQ(conn_poll_timeout(now + (uint64_t)INT_MAX * 1000 + 1, now), INT_MAX);
	ASSERT_EQ(conn_poll_timeout(now + (uint64_t)INT_MAX * 1000, now), INT_MAX);
	ASSERT_EQ(conn_poll_timeout(now + 5000000, now), 5000);
	ASSERT_EQ(conn_poll_timeout(now + 1, now), 1);
	ASSERT_EQ(conn_poll_timeout(now + 1001, now), 2);
}

int main(void)
{
	signal(SIGPIPE, SIG_IGN);
	RUN(test_timeout);
	RUN(test_socket);
	RUN(test_negative_id);
	RUN(test_negative_duration);
	RUN(test_watch);
	RUN(test_errors);
	RUN(test_poll_timeout);
	return 0;
}
