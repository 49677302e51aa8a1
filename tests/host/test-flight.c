// SPDX-License-Identifier: GPL-2.0-only
/*
 * The flight recorder against a real lttng-sessiond and lttng-relayd (run under
 * tests/host/lttng-env, userspace domain: the host has no kernel tracer). An instrumented
 * application feeds the session; snapshots are read back with babeltrace2.
 * Usage: test-flight UST_APP
 */
#include <errno.h>
#include <glob.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <lttng/lttng.h>

#include "flight.h"
#include "tests.h"

static const char *tmp, *relayd_url, *relayd_out;
static char local_dir[512];
static const char *const events[] = {"lttng_ust_tracef:*", NULL};

static void sleep_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000};

	nanosleep(&ts, NULL);
}

/* The one directory matching PATTERN, or NULL. */
static char *find_one(const char *pattern)
{
	glob_t g;
	char *p = NULL;

	if (glob(pattern, 0, NULL, &g) == 0 && g.gl_pathc == 1)
		p = strdup(g.gl_pathv[0]);
	globfree(&g);
	return p;
}

/* Events babeltrace2 decodes from every trace directory under DIR. */
static long count_events(const char *dir)
{
	char cmd[1024];
	long n = -1;
	FILE *f;

	snprintf(cmd, sizeof(cmd),
		 "babeltrace2 $(find '%s' -name metadata -exec dirname {} \\;) 2>&1 | "
		 "grep -c 'lttng_ust_tracef:event'",
		 dir);
	f = popen(cmd, "r");
	ASSERT_TRUE(f);
	if (fscanf(f, "%ld", &n) != 1)
		n = -1;
	pclose(f);
	return n;
}

static struct flight_settings settings(const char *url, bool fallback)
{
	return (struct flight_settings){
		.session = "latencyd-test",
		.domain = FLIGHT_DOMAIN_USERSPACE,
		.subbuf_size = 4096,
		.num_subbuf = 4,
		.events = events,
		.local_dir = local_dir,
		.relayd_url = url,
		.fallback_local = fallback,
	};
}

/* Waits until an instrumented application is registered with sessiond. */
static bool wait_for_app(long ms)
{
	struct lttng_domain dom = {.type = LTTNG_DOMAIN_UST};
	struct lttng_handle *h = lttng_create_handle(NULL, &dom);
	struct lttng_event *ev = NULL;
	int n = 0;

	for (long waited = 0; waited < ms && n <= 0; waited += 100) {
		n = lttng_list_tracepoints(h, &ev);
		free(ev);
		ev = NULL;
		if (n <= 0)
			sleep_ms(100);
	}
	lttng_destroy_handle(h);
	return n > 0;
}

static void check_local_snapshot(const char *name)
{
	char pattern[600];
	char *dir;
	long n;

	snprintf(pattern, sizeof(pattern), "%s/%s-*", local_dir, name);
	dir = find_one(pattern);
	ASSERT_TRUE(dir);
	n = count_events(dir);
	fprintf(stderr, "   %s: %ld events\n", dir, n);
	ASSERT_TRUE(n > 0);
	free(dir);
}

/*
 * The session has one snapshot output of its own, at WHERE, so that a record sends only
 * the snapshot's name (flight.c).
 */
static void check_session_output(const char *where)
{
	struct lttng_snapshot_output_list *list = NULL;
	struct lttng_snapshot_output *o;
	int n = 0;

	ASSERT_EQ(lttng_snapshot_list_output("latencyd-test", &list), 0);
	while ((o = lttng_snapshot_output_list_get_next(list))) {
		fprintf(stderr, "   session output: %s %s\n", lttng_snapshot_output_get_name(o),
			lttng_snapshot_output_get_ctrl_url(o));
		ASSERT_CONTAINS(lttng_snapshot_output_get_ctrl_url(o), where);
		n++;
	}
	lttng_snapshot_output_list_destroy(list);
	ASSERT_EQ(n, 1);
}

static void test_local(void)
{
	struct flight_settings s = settings(NULL, false);
	struct flight *f, *again;
	struct flight_record rec;

	ASSERT_EQ(flight_create(&s, &f), 0);
	ASSERT_EQ(flight_exists(f), 1);
	check_session_output(local_dir);
	ASSERT_TRUE(wait_for_app(10000));
	sleep_ms(300); /* the application fills the buffers */
	ASSERT_EQ(flight_record(f, "snap-1", &rec), 0);
	ASSERT_TRUE(!rec.to_relayd && !rec.fell_back && rec.duration_ns > 0);
	check_local_snapshot("snap-1");
	/* Creating again replaces a session left behind (as after a crash). */
	ASSERT_EQ(flight_create(&s, &again), 0);
	ASSERT_EQ(flight_record(again, "snap-2", &rec), 0);
	flight_destroy(again);
	ASSERT_EQ(flight_exists(f), 0);
	flight_destroy(f);
}

static void test_relayd_and_fallback(void)
{
	struct flight_settings s = settings(relayd_url, true);
	struct flight *f;
	struct flight_record rec;
	char pattern[600];
	char *dir;
	pid_t relayd = (pid_t)atol(getenv("LATENCYD_TEST_RELAYD_PID"));

	ASSERT_EQ(flight_create(&s, &f), 0);
	check_session_output("127.0.0.1");
	sleep_ms(300);
	ASSERT_EQ(flight_record(f, "snap-3", &rec), 0);
	ASSERT_TRUE(rec.to_relayd && !rec.fell_back);
	snprintf(pattern, sizeof(pattern), "%s/*/latencyd-test-*/snap-3-*", relayd_out);
	dir = find_one(pattern);
	ASSERT_TRUE(dir);
	ASSERT_TRUE(count_events(dir) > 0);
	free(dir);

	/* relayd goes away: the snapshot lands locally and says so. */
	ASSERT_EQ(kill(relayd, SIGKILL), 0);
	sleep_ms(200);
	ASSERT_EQ(flight_record(f, "snap-4", &rec), 0);
	ASSERT_TRUE(rec.fell_back && !rec.to_relayd && rec.relayd_error < 0);
	fprintf(stderr, "   relayd error: %s\n", flight_strerror(rec.relayd_error));
	check_local_snapshot("snap-4");
	flight_destroy(f);

	/* Without fallback, the failure is the caller's to report. */
	s.fallback_local = false;
	ASSERT_EQ(flight_create(&s, &f), 0);
	ASSERT_TRUE(flight_record(f, "snap-5", &rec) < 0);
	snprintf(pattern, sizeof(pattern), "%s/snap-5-*", local_dir);
	ASSERT_TRUE(!find_one(pattern));
	flight_destroy(f);
}

static pid_t sessiond_pid(void)
{
	char path[600];
	long pid = -1;
	FILE *f;

	snprintf(path, sizeof(path), "%s/.lttng/lttng-sessiond.pid", getenv("LTTNG_HOME"));
	f = fopen(path, "r");
	if (f) {
		if (fscanf(f, "%ld", &pid) != 1)
			pid = -1;
		fclose(f);
	}
	return (pid_t)pid;
}

static void test_sessiond_restart(void)
{
	struct flight_settings s = settings(NULL, false);
	struct flight *f;
	struct flight_record rec;
	pid_t pid = sessiond_pid();

	ASSERT_EQ(flight_create(&s, &f), 0);
	ASSERT_TRUE(pid > 0);
	ASSERT_EQ(kill(pid, SIGKILL), 0);
	for (int i = 0; i < 50 && kill(pid, 0) == 0; i++)
		sleep_ms(100);
	ASSERT_EQ(flight_exists(f), 0);
	ASSERT_TRUE(flight_record(f, "snap-6", &rec) < 0);
	flight_destroy(f);

	ASSERT_EQ(system("lttng-sessiond --background >/dev/null 2>&1"), 0);
	for (int i = 0; i < 50 && !lttng_session_daemon_alive(); i++)
		sleep_ms(100);
	ASSERT_EQ(flight_create(&s, &f), 0);
	ASSERT_EQ(flight_exists(f), 1);
	/* The application notices the new sessiond and registers again, after a back-off. */
	ASSERT_TRUE(wait_for_app(20000));
	sleep_ms(300);
	ASSERT_EQ(flight_record(f, "snap-7", &rec), 0);
	check_local_snapshot("snap-7");
	flight_destroy(f);
}

int main(int argc, char **argv)
{
	pid_t app;

	signal(SIGPIPE, SIG_IGN);
	tmp = getenv("LATENCYD_TEST_TMP");
	relayd_url = getenv("LATENCYD_TEST_RELAYD_URL");
	relayd_out = getenv("LATENCYD_TEST_RELAYD_OUT");
	if (argc != 2 || !tmp || !relayd_url || !relayd_out) {
		fprintf(stderr, "usage: lttng-env --relayd test-flight UST_APP\n");
		return 2;
	}
	snprintf(local_dir, sizeof(local_dir), "%s/snapshots", tmp);

	app = fork();
	ASSERT_TRUE(app >= 0);
	if (app == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		execl(argv[1], argv[1], (char *)NULL);
		_exit(127);
	}
	RUN(test_local);
	RUN(test_relayd_and_fallback);
	RUN(test_sessiond_restart);
	kill(app, SIGTERM);
	waitpid(app, NULL, 0);
	return 0;
}
