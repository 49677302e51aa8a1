/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * daemon/conf/source.c: the files latencyd reads for libconfig (regular files only, never
 * opened for reading otherwise), @include as libconfig's scanner reads it, up to a number
 * of files, numbers libconfig 1.5 gets wrong, and the FILE:LINE of every message through
 * @include.
 */
#include <errno.h>
#include <limits.h>
#include <malloc.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <syslog.h>
#include <unistd.h>

#include "conf_internal.h"
#include "tests.h"

static char dir[] = "/tmp/test-conf-files-XXXXXX";

static const char *write_file(const char *name, const char *text)
{
	return test_write_file(dir, name, text);
}

/* Loads path; returns the conf or NULL, with the diagnostics in diag. */
static struct conf *load(const char *path, struct conf_diag *diag)
{
	struct conf_source src = {.path = path, .must_exist = true};
	struct conf *c = NULL;
	int r;

	conf_diag_clear(diag);
	r = conf_load(&src, &c, diag);
	for (size_t i = 0; i < diag->n; i++)
		fprintf(stderr, "   | %s\n", diag->lines[i]);
	ASSERT_EQ(r < 0, c == NULL);
	return c;
}

__attribute__((format(printf, 3, 4))) static void assert_line(const struct conf_diag *diag,
							      size_t i, const char *fmt, ...)
{
	char want[2 * PATH_MAX + 256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(want, sizeof(want), fmt, ap);
	va_end(ap);
	ASSERT_TRUE(i < diag->n);
	ASSERT_STREQ(diag->lines[i], want);
}

/*
 * An @include name is decoded as libconfig decodes it: "d\\" names the directory d\, a
 * FIFO f\ is not opened for good (it would block), "q\"x.conf" is the file q"x.conf.
 */
static void test_include_escapes(void)
{
	struct conf_diag diag = {0};
	char path[PATH_MAX], text[4 * PATH_MAX];
	struct conf *c;

	snprintf(path, sizeof(path), "%s/d\\", dir);
	ASSERT_EQ(mkdir(path, 0755), 0);
	snprintf(text, sizeof(text), "log: { level = \"info\"; };\n@include \"%s/d\\\\\"\n", dir);
	c = load(write_file("esc.conf", text), &diag);
	ASSERT_TRUE(c == NULL);
	snprintf(text, sizeof(text), "%s/esc.conf", dir);
	assert_line(&diag, 0, "%s:2: @include \"%s\": not a regular file", text, path);

	snprintf(path, sizeof(path), "%s/f\\", dir);
	ASSERT_EQ(mkfifo(path, 0600), 0);
	snprintf(text, sizeof(text), "@include \"%s/f\\\\\"\n", dir);
	c = load(write_file("esc.conf", text), &diag);
	ASSERT_TRUE(c == NULL);
	snprintf(text, sizeof(text), "%s/esc.conf", dir);
	assert_line(&diag, 0, "%s:1: @include \"%s\": not a regular file", text, path);

	/* A quote in the name; the file's own lines in its messages. */
	write_file("q\"x.conf", "session: { enabled = false; };\nlog: { level = \"loud\"; };\n");
	snprintf(text, sizeof(text),
		 "# outer\n  @include \"%s/q\\\"x.conf\"\n\ncontrol: { max_clients = 0; };\n", dir);
	c = load(write_file("esc.conf", text), &diag);
	ASSERT_TRUE(c == NULL);
	ASSERT_EQ(diag.n, 2);
	snprintf(path, sizeof(path), "%s/q\"x.conf", dir);
	assert_line(&diag, 0, "%s:2: log.level: 'loud' is not one of error, warning, info, debug",
		    path);
	snprintf(path, sizeof(path), "%s/esc.conf", dir);
	ASSERT_CONTAINS(diag.lines[1], path);
	ASSERT_CONTAINS(diag.lines[1], ":4: control.max_clients:");

	/* Only \\ and \" are escapes there: anything else is said, not guessed. */
	c = load(write_file("esc.conf", "@include \"/etc/\\nothing\"\n"), &diag);
	ASSERT_TRUE(c == NULL);
	ASSERT_CONTAINS(diag.lines[0], "esc.conf:1: @include: '\\n' in the name");
	conf_diag_clear(&diag);
}

/* @include as libconfig reads it: at a line's start, outside comments and strings. */
static void test_include_where(void)
{
	struct conf_diag diag = {0};
	char text[2 * PATH_MAX];
	struct conf *c;

	write_file("inner.conf", "session: { enabled = false; };");
	snprintf(text, sizeof(text),
		 "/* @include \"/nonexistent\"\n@include \"/nonexistent\" */\n"
		 "@include \"%s/inner.conf\" # the rest of its line is read\n"
		 "module: { parameters = \"a\n@include \\\"/nonexistent\\\"\"; };\n",
		 dir);
	c = load(write_file("where.conf", text), &diag);
	ASSERT_TRUE(c != NULL);
	ASSERT_TRUE(!c->session.enabled);
	ASSERT_STREQ(c->module.parameters, "a\n@include \"/nonexistent\"");
	conf_free(c);

	/* A missing file: which one, and why. */
	c = load(write_file("where.conf", "\n@include \"/nonexistent/x.conf\"\n"), &diag);
	ASSERT_TRUE(c == NULL);
	snprintf(text, sizeof(text), "%s/where.conf", dir);
	assert_line(&diag, 0, "%s:2: @include \"%s\": No such file or directory", text,
		    "/nonexistent/x.conf");

	/* A file that includes itself stops at libconfig's depth. */
	snprintf(text, sizeof(text), "@include \"%s/self.conf\"\n", dir);
	c = load(write_file("self.conf", text), &diag);
	ASSERT_TRUE(c == NULL);
	ASSERT_EQ(diag.n, 1);
	ASSERT_CONTAINS(diag.lines[0], "self.conf:1: @include");
	ASSERT_CONTAINS(diag.lines[0], "more than 10 files deep");

	/* An included file that ends inside a comment would swallow the including one. */
	write_file("inner.conf", "session: { enabled = false; };\n/* open\n");
	snprintf(text, sizeof(text), "@include \"%s/inner.conf\"\nlog: { level = \"x\"; };\n", dir);
	c = load(write_file("where.conf", text), &diag);
	ASSERT_TRUE(c == NULL);
	ASSERT_CONTAINS(diag.lines[0], "inner.conf:3: the file ends inside a /* comment */");
	conf_diag_clear(&diag);
}

/* Every file is read without blocking and must be a regular file. */
static void test_not_regular(void)
{
	struct conf_diag diag = {0};
	struct conf_entries e = {0};
	char fifo[PATH_MAX], text[2 * PATH_MAX];
	struct conf *c;

	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	ASSERT_EQ(mkfifo(fifo, 0600), 0);
	c = load(fifo, &diag);
	ASSERT_TRUE(c == NULL);
	assert_line(&diag, 0, "%s: not a regular file", fifo);

	/* control.save_file: a FIFO or a directory is reported, and the file alone applies. */
	ASSERT_EQ(conf_read_saved(fifo, &e, &diag), -EINVAL);
	conf_diag_clear(&diag);
	ASSERT_EQ(conf_read_saved(dir, &e, &diag), -EINVAL);
	assert_line(&diag, 0, "%s: not a regular file", dir);
	snprintf(text, sizeof(text), "control: { save_file = \"%s\"; };\n", fifo);
	c = load(write_file("main.conf", text), &diag);
	ASSERT_TRUE(c != NULL);
	assert_line(&diag, 0, "%s: not a regular file", fifo);
	ASSERT_STREQ(c->saved_problem, diag.lines[0]);
	conf_free(c);
	conf_diag_clear(&diag);
}

/*
 * Nothing but a regular file is opened for reading, a symbolic link followed: opening a
 * device can act (a watchdog). A socket's open fails (ENXIO), and so does /dev/tty's
 * without a controlling terminal: "not a regular file" shows that neither was opened.
 */
static void test_not_opened(void)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	char path[PATH_MAX], link[PATH_MAX], text[PATH_MAX + 16];
	struct conf_diag diag = {0};
	struct conf *c;
	pid_t pid;
	int fd, status;

	c = load("/dev/null", &diag);
	ASSERT_TRUE(c == NULL);
	assert_line(&diag, 0, "/dev/null: not a regular file");

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/sock", dir);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	ASSERT_TRUE(fd >= 0);
	ASSERT_EQ(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	c = load(sa.sun_path, &diag);
	ASSERT_TRUE(c == NULL);
	assert_line(&diag, 0, "%s: not a regular file", sa.sun_path);
	close(fd);

	/* An @include of a device, through a symbolic link, is refused too. */
	ASSERT_EQ(access("/dev/tty", F_OK), 0);
	snprintf(link, sizeof(link), "%s/tty.conf", dir);
	ASSERT_EQ(symlink("/dev/tty", link), 0);
	snprintf(text, sizeof(text), "@include \"%s\"\n", link);
	write_file("dev.conf", text);
	snprintf(path, sizeof(path), "%s/dev.conf", dir);
	pid = fork();
	ASSERT_TRUE(pid >= 0);
	if (pid == 0) {
		ASSERT_TRUE(setsid() >= 0);
		c = load(link, &diag);
		ASSERT_TRUE(c == NULL);
		assert_line(&diag, 0, "%s: not a regular file", link);
		c = load(path, &diag);
		ASSERT_TRUE(c == NULL);
		assert_line(&diag, 0, "%s:1: @include \"%s\": not a regular file", path, link);
		conf_diag_clear(&diag);
		_exit(0);
	}
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);

	/* A symbolic link to a regular file is read: the main file is often one. */
	snprintf(path, sizeof(path), "%s/real.conf", dir);
	write_file("real.conf", "log: { level = \"debug\"; };\n");
	snprintf(link, sizeof(link), "%s/link.conf", dir);
	ASSERT_EQ(symlink(path, link), 0);
	c = load(link, &diag);
	ASSERT_TRUE(c != NULL);
	ASSERT_EQ(diag.n, 0);
	ASSERT_EQ(c->log.level, LOG_DEBUG);
	conf_free(c);
}

/* The buffer is the file's size (a file of 16 MiB is rare), growing if the file does. */
static void test_read_size(void)
{
	char why[256], text[1026];
	const char *path;
	size_t len;
	char *buf;

	path = write_file("small.conf", "log: { level = \"info\"; };\n");
	buf = conf_file_read(path, CONF_FILE_MAX, &len, why, sizeof(why));
	ASSERT_TRUE(buf != NULL);
	ASSERT_EQ(len, strlen("log: { level = \"info\"; };\n"));
	ASSERT_TRUE(malloc_usable_size(buf) < 4096);
	free(buf);

	/* Up to MAX bytes exactly, one more is too many. */
	memset(text, '#', 1025);
	text[1025] = 0;
	text[1023] = '\n';
	text[1024] = 0;
	path = write_file("max.conf", text);
	buf = conf_file_read(path, 1024, &len, why, sizeof(why));
	ASSERT_TRUE(buf != NULL);
	ASSERT_EQ(len, 1024);
	free(buf);
	text[1024] = '#';
	path = write_file("max.conf", text);
	ASSERT_TRUE(conf_file_read(path, 1024, &len, why, sizeof(why)) == NULL);
	ASSERT_EQ(errno, EFBIG);
	ASSERT_STREQ(why, "larger than 1 KiB");

	/* A size of 0 said, more read: a file of /proc. */
	buf = conf_file_read("/proc/self/status", CONF_FILE_MAX, &len, why, sizeof(why));
	ASSERT_TRUE(buf != NULL);
	ASSERT_TRUE(len > 0 && strlen(buf) == len);
	ASSERT_CONTAINS(buf, "Pid:");
	free(buf);
}

/*
 * A small file that includes itself, on many lines: 64 files are read, the problems said
 * up to 50 (the rest counted), within a time the alarm bounds.
 */
static void test_include_bomb(void)
{
	char path[PATH_MAX], line[PATH_MAX + 16], want[2 * PATH_MAX], *text;
	const unsigned lines[] = {200, 30};
	struct conf_diag diag = {0};
	struct conf *c;

	snprintf(path, sizeof(path), "%s/bomb.conf", dir);
	snprintf(line, sizeof(line), "@include \"%s\"\n", path);
	snprintf(want, sizeof(want),
		 "\": more than 64 files to read, %s with all its @include files: "
		 "reading stops here",
		 path);
	text = malloc(200 * strlen(line) + 1);
	ASSERT_TRUE(text);
	for (size_t k = 0; k < sizeof(lines) / sizeof(lines[0]); k++) {
		text[0] = 0;
		for (unsigned i = 0; i < lines[k]; i++)
			strcat(text, line);
		c = load(write_file("bomb.conf", text), &diag);
		ASSERT_TRUE(c == NULL);
		/* Past the depth first, then the 65th file. */
		ASSERT_EQ(diag.n, 52);
		ASSERT_CONTAINS(diag.lines[0], "bomb.conf:1: @include");
		ASSERT_CONTAINS(diag.lines[0], "more than 10 files deep");
		ASSERT_CONTAINS(diag.lines[50], want);
		ASSERT_CONTAINS(diag.lines[51], path);
		ASSERT_CONTAINS(diag.lines[51], ": ... and ");
		ASSERT_CONTAINS(diag.lines[51], " more such problems");
	}
	free(text);
	conf_diag_clear(&diag);
}

/* 64 files are read, the first with 63 others; not 65. */
static void test_files_max(void)
{
	char path[PATH_MAX], line[PATH_MAX + 16], *text;
	struct conf_diag diag = {0};
	struct conf *c;

	write_file("leaf.conf", "# a leaf\n");
	snprintf(line, sizeof(line), "@include \"%s/leaf.conf\"\n", dir);
	text = malloc(64 * strlen(line) + 64);
	ASSERT_TRUE(text);
	strcpy(text, "log: { level = \"debug\"; };\n");
	for (unsigned i = 0; i < 63; i++)
		strcat(text, line);
	c = load(write_file("many.conf", text), &diag);
	ASSERT_TRUE(c != NULL);
	ASSERT_EQ(c->log.level, LOG_DEBUG);
	conf_free(c);
	strcat(text, line);
	c = load(write_file("many.conf", text), &diag);
	ASSERT_TRUE(c == NULL);
	ASSERT_EQ(diag.n, 1);
	snprintf(path, sizeof(path), "%s/many.conf", dir);
	assert_line(&diag, 0,
		    "%s:65: @include \"%s/leaf.conf\": more than 64 files to read, %s with all its "
		    "@include files: reading stops here",
		    path, dir, path);
	free(text);
	conf_diag_clear(&diag);
}

/* Past 16 MiB in all: one problem, and nothing more is read. */
static void test_too_large(void)
{
	struct conf_diag diag = {0};
	size_t n = 9 << 20;
	struct conf *c;
	char *text;

	text = malloc(n + 1);
	ASSERT_TRUE(text);
	memset(text, '#', n);
	for (size_t i = 99; i < n; i += 100)
		text[i] = '\n';
	text[n] = 0;
	write_file("big.conf", text);
	snprintf(text, n,
		 "@include \"%s/big.conf\"\n@include \"%s/big.conf\"\n"
		 "@include \"/nonexistent/x.conf\"\n",
		 dir, dir);
	c = load(write_file("big2.conf", text), &diag);
	ASSERT_TRUE(c == NULL);
	ASSERT_EQ(diag.n, 1);
	assert_line(&diag, 0, "%s/big2.conf: with its @include files, larger than 16 MiB", dir);
	free(text);
	conf_diag_clear(&diag);
}

/* A number past 32 bits is read as written, never as another setting's on its line. */
static void test_numbers(void)
{
	struct conf_diag diag = {0};
	struct conf *c;

	c = load(write_file("num.conf", "retention = { max_bytes = 4294967296L; }; "
					"collector = { max_bytes = 0; };\n"),
		 &diag);
	ASSERT_TRUE(c != NULL);
	ASSERT_EQ(c->retention.max_bytes, UINT64_C(4294967296));
	ASSERT_EQ(c->collector.max_bytes, 0);
	conf_free(c);

	c = load(write_file("num.conf",
			    "retention = { /* max_bytes = 8589934592; */ "
			    "max_bytes = 0; }; collector = { max_bytes = 0x100000001; };\n"),
		 &diag);
	ASSERT_TRUE(c != NULL);
	ASSERT_EQ(c->retention.max_bytes, 0);
	ASSERT_EQ(c->collector.max_bytes, UINT64_C(0x100000001));
	conf_free(c);

	/* Floats libconfig would make infinite or subnormal: out of range, with the name. */
	c = load(write_file("num.conf", "ratelimit: { rate = 1e400; };\n"
					"fleet: { peer_rate = 1e-320; };\n"),
		 &diag);
	ASSERT_TRUE(c == NULL);
	ASSERT_EQ(diag.n, 2);
	ASSERT_CONTAINS(diag.lines[0], "num.conf:1: ratelimit.rate: 1e400 is out of range");
	ASSERT_CONTAINS(diag.lines[1], "num.conf:2: fleet.peer_rate: 1e-320 is out of range");

	c = load(write_file("num.conf", "log: { level = \"info\"; };\nretention: { max_count = 1; "
					"max_bytes = -99999999999999999999; };\n"),
		 &diag);
	ASSERT_TRUE(c == NULL);
	ASSERT_EQ(diag.n, 1);
	ASSERT_CONTAINS(diag.lines[0], "num.conf:2: retention.max_bytes: the number is below");
	conf_diag_clear(&diag);
}

/* Messages libconfig gives alone: the duplicate's name, a byte order mark. */
static void test_messages(void)
{
	struct conf_diag diag = {0};
	char path[PATH_MAX];
	struct conf *c;

	c = load(write_file("dup.conf", "log: { level = \"info\";\n  level = \"debug\"; };\n"),
		 &diag);
	ASSERT_TRUE(c == NULL);
	snprintf(path, sizeof(path), "%s/dup.conf", dir);
	assert_line(&diag, 0, "%s:2: log.level: set a second time (first at %s:1)", path, path);

	c = load(write_file("bom.conf", "\xef\xbb\xbflog: { level = \"info\"; };\n"), &diag);
	ASSERT_TRUE(c == NULL);
	ASSERT_EQ(diag.n, 1);
	ASSERT_CONTAINS(diag.lines[0], "bom.conf:1: the file starts with a UTF-8 byte order mark");

	/* A last line without its newline is read, even a comment (libconfig's syntax error). */
	c = load(write_file("last.conf", "log: { level = \"debug\"; }; # no newline"), &diag);
	ASSERT_TRUE(c != NULL);
	conf_free(c);
	conf_diag_clear(&diag);
}

/* The saved-settings file: "@include" in a value is a value, not a directive. */
static void test_saved_include_word(void)
{
	struct conf_diag diag = {0};
	struct conf_entries e = {0};
	const char *saved;

	saved = write_file("saved.conf",
			   "# @include \"/etc/passwd\"\ntrackers: { irq: {\n"
			   "  filter_comm = \"@include\"; threshold = \"2ms\"; }; };\n");
	ASSERT_EQ(conf_read_saved(saved, &e, &diag), 0);
	ASSERT_EQ(diag.n, 0);
	ASSERT_EQ(e.n, 2);
	ASSERT_STREQ(e.v[0].value, "@include");
	conf_entries_clear(&e);

	saved = write_file("saved.conf", "trackers: { irq: { threshold = \"2ms\"; }; };\n"
					 "  @include \"/etc/passwd\"\n");
	ASSERT_EQ(conf_read_saved(saved, &e, &diag), -EINVAL);
	ASSERT_CONTAINS(diag.lines[0], "saved.conf:2: @include is not allowed here");
	conf_diag_clear(&diag);
}

int main(void)
{
	char cmd[PATH_MAX];

	/* A FIFO opened for reading would block, an @include loop be read for minutes: the
	 * test fails instead of hanging. */
	alarm(60);
	ASSERT_TRUE(mkdtemp(dir));
	RUN(test_include_escapes);
	RUN(test_include_where);
	RUN(test_not_regular);
	RUN(test_not_opened);
	RUN(test_read_size);
	RUN(test_include_bomb);
	RUN(test_files_max);
	RUN(test_too_large);
	RUN(test_numbers);
	RUN(test_messages);
	RUN(test_saved_include_word);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : 1;
}
