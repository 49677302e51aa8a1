/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * text/text_clean.c: a task name is anyone's (prctl(PR_SET_NAME)); with ESC, BEL or a C1
 * control in it, an alert would drive the terminal of whoever reads latencyctl's text. Each
 * text that latencyd sends reaches the terminal cleaned: list-snapshots' table, show-snapshot,
 * watch's lines, status, config's names, an error, the hello of a latencyd refused. Printable
 * UTF-8 (a name in Japanese) stays as it is.
 */
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <json-c/json.h>

#include "latencyctl.h"
#include "printed.h"
#include "tests.h"
#include "fake-latencyd.h"

/* ESC ] 0 ; title BEL, CSI 2 J (clear), a C1 CSI (U+009B), DEL, a newline and a tab. */
#define EVIL	     "\\u001b]0;PWNED\\u0007\\u001b[2J\\u009b31m\\u007fa\\nb\\tc"
#define EVIL_SHOWN   "?]0;PWNED??[2J?31m?a?b?c"
#define UTF8	     "caf\xc3\xa9-\xe6\x97\xa5\xe6\x9c\xac-\xf0\x9f\x98\x80"
#define UTF8_ESCAPED "caf\\u00e9-\\u65e5\\u672c-\\ud83d\\ude00"

/* No byte in TEXT that a terminal takes as a control: C0 but the newline ending a line, DEL,
 * C1 in UTF-8. */
static void assert_no_control(const char *text)
{
	for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
		if ((*p < 0x20 && *p != '\n') || *p == 0x7f ||
		    (*p == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f)) {
			fprintf(stderr, "control byte 0x%02x at %td in:\n%s\n", *p,
				(const char *)p - text, text);
			ASSERT_TRUE(!"a control byte printed");
		}
	}
}

static void test_clean(void)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
		{"plain text", "plain text"},
		{"\x1b]52;c;aGk=\x07", "?]52;c;aGk=?"},
		{"a\nb\tc\rd\x7f", "a?b?c?d?"},
		{"\xc2\x9b"
		 "2J\xc2\x85",
		 "?2J?"},				  /* C1: one '?' for its two bytes */
		{"\xc2\xa0\xc2\xbf", "\xc2\xa0\xc2\xbf"}, /* U+00A0, U+00BF: printable */
		{UTF8, UTF8},
		{"\xff\xfe", "??"},	      /* no UTF-8 */
		{"\xe6\x97", "??"},	      /* cut */
		{"\xc0\xaf", "??"},	      /* overlong '/' */
		{"\xed\xa0\x80", "???"},      /* a surrogate */
		{"\xf4\x90\x80\x80", "????"}, /* above U+10FFFF */
		{"", ""},
	};
	char buf[64];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *d = text_clean_dup(cases[i].in, false);

		snprintf(buf, sizeof(buf), "%s", cases[i].in);
		text_clean(buf, false);
		ASSERT_STREQ(buf, cases[i].out);
		ASSERT_STREQ(d, cases[i].out);
		free(d);
	}
	snprintf(buf, sizeof(buf), "a 1\nb\x1b 2\n");
	text_clean(buf, true);
	ASSERT_STREQ(buf, "a 1\nb? 2\n");
}

#define CAUSE(comm)                                                                                \
	"{\"tracker\":\"syscalls\",\"reason\":\"threshold\",\"pid\":812,\"tid\":815,"              \
	"\"comm\":\"" comm "\",\"delay_ns\":12500000,\"seq\":7,"                                   \
	"\"stack\":{\"kind\":\"task\",\"frames\":[\"do_nanosleep" EVIL "\"]}}"
#define SNAPSHOT(comm)                                                                             \
	"{\"id\":4,\"status\":\"complete\",\"time\":1764100000,\"causes\":1,\"causes_total\":1,"   \
	"\"cause\":" CAUSE(comm) ",\"causes\":[" CAUSE(                                            \
		comm) "],\"bytes\":1024,"                                                          \
		      "\"path\":\"/var/lib/latencyd/snapshots/snap-4" EVIL "\"}"

static int snapshot_event(struct json_object *data)
{
	return output_text.event(PROTO_EVENT_SNAPSHOT, data);
}

static int suppressed_event(struct json_object *data)
{
	return output_text.event(PROTO_EVENT_SUPPRESSED, data);
}

static int unknown_event(struct json_object *data)
{
	return output_text.event("new\x1b[2J", data);
}

static int recorded(struct json_object *data)
{
	return output_text.recorded(PROTO_EVENT_SNAPSHOT, data);
}

static void test_snapshots(void)
{
	char buf[8192];

	printed_to(STDOUT_FILENO, output_text.snapshots,
		   "{\"snapshots\":[" SNAPSHOT(EVIL) "," SNAPSHOT(UTF8_ESCAPED) "],\"matched\":2}",
		   buf, sizeof(buf));
	assert_no_control(buf);
	ASSERT_CONTAINS(buf, "(" EVIL_SHOWN ")");
	ASSERT_CONTAINS(buf, "snap-4" EVIL_SHOWN "\n");
	ASSERT_CONTAINS(buf, "(" UTF8 ")");

	printed_to(STDOUT_FILENO, output_text.snapshot, SNAPSHOT(EVIL), buf, sizeof(buf));
	assert_no_control(buf);
	ASSERT_CONTAINS(buf, " " EVIL_SHOWN " ");
	ASSERT_CONTAINS(buf, "tid 815 " EVIL_SHOWN ")");
	ASSERT_CONTAINS(buf, "do_nanosleep" EVIL_SHOWN "\n");

	printed_to(STDOUT_FILENO, snapshot_event, SNAPSHOT(EVIL), buf, sizeof(buf));
	assert_no_control(buf);
	ASSERT_CONTAINS(buf, "(" EVIL_SHOWN ")");
	printed_to(STDOUT_FILENO, suppressed_event, "{\"alert\":" CAUSE(EVIL) ",\"alerts\":1}", buf,
		   sizeof(buf));
	assert_no_control(buf);
	ASSERT_CONTAINS(buf, "(" EVIL_SHOWN ")");
	printed_to(STDOUT_FILENO, unknown_event, "{}", buf, sizeof(buf));
	assert_no_control(buf);
	ASSERT_CONTAINS(buf, "new?[2J\n");
	printed_to(STDOUT_FILENO, recorded, SNAPSHOT(EVIL), buf, sizeof(buf));
	assert_no_control(buf);
	ASSERT_CONTAINS(buf, "recorded: /var/lib/latencyd/snapshots/snap-4" EVIL_SHOWN "\n");
}

static void test_status_config(void)
{
	char buf[8192];

	printed_to(STDOUT_FILENO, output_text.status,
		   "{\"version\":\"1.0" EVIL "\",\"pid\":1,\"module\":{\"state\":\"broken" EVIL
		   "\",\"detail\":\"" EVIL "\"}}",
		   buf, sizeof(buf));
	assert_no_control(buf);
	ASSERT_CONTAINS(buf, "latencyd 1.0" EVIL_SHOWN "\n");
	ASSERT_CONTAINS(buf, "broken" EVIL_SHOWN ": " EVIL_SHOWN "\n");

	printed_to(STDOUT_FILENO, output_text.config,
		   "{\"settings\":{\"control\":{\"sock" EVIL "\":\"/s\"}},\"origins\":{}}", buf,
		   sizeof(buf));
	assert_no_control(buf);
	ASSERT_CONTAINS(buf, "sock" EVIL_SHOWN);
}

static void test_error(void)
{
	struct test_capture capture;
	char *text;

	test_capture_start(&capture, STDERR_FILENO);
	output_text.error("show-snapshot", "not-found\x1b[2J",
			  "no snapshot \x1b]0;PWNED\x07\n\xc2\x9b"
			  "31m");
	text = test_capture_end(&capture);
	assert_no_control(text);
	ASSERT_STREQ(text,
		     "latencyctl: show-snapshot: no snapshot ?]0;PWNED???31m (not-found?[2J)\n");
	free(text);
}

/* What ctl_call() says on stderr (to free) when latencyd answers HELLO and REPLY. */
static char *called(const char *path, const char *hello, const char *reply, int expect)
{
	struct ctl ctl = {.socket = path, .timeout_usec = 10000000, .out = &output_text};
	struct json_object *result = NULL;
	struct test_capture capture;
	pid_t pid = serve(path, hello, reply);
	char *text;
	int status, r;

	test_capture_start(&capture, STDERR_FILENO);
	r = ctl_call(&ctl, PROTO_CMD_SHOW_SNAPSHOT, NULL, &result);
	text = test_capture_end(&capture);
	if (r != expect)
		fprintf(stderr, "ctl_call: %d, not %d; it said: %s\n", r, expect, text);
	ASSERT_EQ(r, expect);
	json_object_put(result);
	ASSERT_TRUE(waitpid(pid, &status, 0) == pid);
	return text;
}

static void test_conn(void)
{
	char dir[] = "/tmp/test-output-clean.XXXXXX", path[64];
	char *text;

	ASSERT_TRUE(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/sock", dir);

	/* A protocol latencyctl does not speak: the hello's version is said. */
	text = called(path,
		      "{\"hello\":{\"protocol\":99,\"revision\":0,\"server\":\"latencyd\","
		      "\"version\":\"9" EVIL "\"}}\n",
		      NULL, EXIT_DAEMON);
	assert_no_control(text);
	ASSERT_CONTAINS(text, "latencyctl: latencyd 9" EVIL_SHOWN ": ");
	free(text);

	/* Without a version: no empty word. */
	text = called(path,
		      "{\"hello\":{\"protocol\":99,\"revision\":0,\"server\":\"latencyd\"}}\n",
		      NULL, EXIT_DAEMON);
	ASSERT_CONTAINS(text, "latencyctl: latencyd: ");
	free(text);

	/* An error reply. */
	text = called(path,
		      "{\"hello\":{\"protocol\":1,\"revision\":0,\"server\":\"latencyd\","
		      "\"version\":\"1\"}}\n",
		      "{\"id\":1,\"ok\":false,\"error\":{\"code\":\"not-found\","
		      "\"message\":\"no snapshot " EVIL "\"}}\n",
		      EXIT_DAEMON);
	assert_no_control(text);
	ASSERT_CONTAINS(text,
			"latencyctl: show-snapshot: no snapshot " EVIL_SHOWN " (not-found)\n");
	free(text);

	unlink(path);
	ASSERT_TRUE(rmdir(dir) == 0);
}

int main(void)
{
	signal(SIGPIPE, SIG_IGN);
	RUN(test_clean);
	RUN(test_snapshots);
	RUN(test_status_config);
	RUN(test_error);
	RUN(test_conn);
	return 0;
}
