// SPDX-License-Identifier: GPL-2.0-only
/*
 * The collector's retention (catalog/collector.c) on a real tree shaped as lttng-relayd
 * writes it: incidents over several hosts, a snapshot of no fleet, foreign entries, symbolic
 * links out of the tree, a snapshot being written, one held open by a process named
 * lttng-relayd (found through the real /proc), one too deep to read.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fsuid.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "collector.h"
#include "fsutil.h"
#include "fault-files.h"
#include "tests.h"
#include "tree_delete.h"

static char tmp[] = "/tmp/test-collector.XXXXXX";
static char dir[256];
static int64_t now;

#define HOUR_AGO 3600

static __attribute__((format(printf, 1, 2))) char *path_of(const char *fmt, ...)
{
	va_list ap;
	char *p;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&p, fmt, ap);
	va_end(ap);
	ASSERT_TRUE(n > 0);
	return p;
}

static void set_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	now = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static bool exists(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0;
}

static void write_kib(const char *path, size_t kib)
{
	static char block[1024];
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	memset(block, 0x55, sizeof(block));
	ASSERT_TRUE(fd >= 0);
	for (size_t i = 0; i < kib; i++)
		ASSERT_EQ(write(fd, block, sizeof(block)), (long)sizeof(block));
	close(fd);
}

/* nftw() passes no context pointer: the time its callback sets. */
static struct timespec set_to[2];

static int set_time(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	return utimensat(AT_FDCWD, path, set_to, AT_SYMLINK_NOFOLLOW);
}

/* Everything under PATH (links themselves, not their targets) modified AGE seconds ago. */
static void age(const char *path, int64_t age_sec)
{
	set_to[0].tv_sec = set_to[1].tv_sec = (time_t)(now / 1000000000 - age_sec);
	set_to[0].tv_nsec = set_to[1].tv_nsec = 0;
	ASSERT_EQ(nftw(path, set_time, 16, FTW_PHYS), 0);
}

/* DIR/HOST_DIR/SESSION/NAME with relayd's stream layout, KIB KiB of data, AGE s old. */
static char *snapshot(const char *host_dir, const char *session, const char *name, size_t kib,
		      int64_t age_sec)
{
	char *s = path_of("%s/%s/%s/%s", dir, host_dir, session, name), *p, *f;

	p = path_of("%s/ust/uid/0/64-bit", s);
	ASSERT_EQ(mkdir_p(p, 0755), 0);
	f = path_of("%s/%s", p, "metadata");
	write_kib(f, 4);
	free(f);
	f = path_of("%s/%s", p, "chan_0");
	write_kib(f, kib);
	free(f);
	free(p);
	age(s, age_sec);
	return s;
}

static const struct collector_incident *find(const struct collector_scan *s, const char *id)
{
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->incidents[i].id, id))
			return &s->incidents[i];
	return NULL;
}

static void scan(struct collector_scan *s)
{
	set_now();
	ASSERT_EQ(collector_scan(dir, "snap", "/proc", now, s), 0);
}

/* A process named lttng-relayd holding FILE open until killed. */
static pid_t fake_relayd(const char *file)
{
	int p[2];
	char c;
	pid_t pid;

	ASSERT_EQ(pipe(p), 0);
	pid = fork();
	ASSERT_TRUE(pid >= 0);
	if (pid == 0) {
		int fd = open(file, O_RDONLY);

		prctl(PR_SET_PDEATHSIG, SIGKILL); /* the test aborted: it goes too */
		prctl(PR_SET_NAME, "lttng-relayd");
		if (write(p[1], fd >= 0 ? "y" : "n", 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	close(p[1]);
	ASSERT_EQ(read(p[0], &c, 1), 1);
	ASSERT_EQ(c, 'y');
	close(p[0]);
	return pid;
}

struct tree {
	char *a[3], *b[2], *solo, *c[2], *d[2], *e[2], *deep;
	char *outside, *precious, *outside2, *evil_snap, *foreign[6];
	uint64_t total;
};
static struct tree tree;
static struct tree *const t = &tree;
static pid_t relayd;

static void build(void)
{
	char *p;

	t->outside = path_of("%s/outside", tmp);
	t->precious = path_of("%s/precious", t->outside);
	ASSERT_EQ(mkdir_p(t->outside, 0755), 0);
	write_kib(t->precious, 8);
	/* A top-level link to a tree that looks like relayd's: never followed. */
	t->outside2 = path_of("%s/outside2", tmp);
	ASSERT_EQ(mkdir_p(t->outside2, 0755), 0);
	t->evil_snap = path_of("%s/%s/%s", t->outside2, "latencyd-x-20261125-100000",
			       "snap-1-h1-1@x-20261125-100000-0");
	ASSERT_EQ(mkdir_p(t->evil_snap, 0755), 0);
	p = path_of("%s/%s", dir, "evil");
	ASSERT_EQ(symlink(t->outside2, p), 0);
	free(p);
	age(t->outside2, 5 * HOUR_AGO);

	/* h1-1 over three hosts, the oldest; h1's holds links out of the tree. */
	t->a[0] = snapshot("h1", "latencyd-h1-20261125-100000", "snap-1-h1-1@h1-20261125-100100-0",
			   64, 5000);
	t->a[1] = snapshot("h2", "latencyd-h2-20261125-100000", "snap-7-h1-1@h2-20261125-100100-0",
			   64, 5000);
	t->a[2] = snapshot("h3", "latencyd-h3-20261125-100000", "snap-3-h1-1@h3-20261125-100100-0",
			   64, 5000);
	p = path_of("%s/escape", t->a[0]);
	ASSERT_EQ(symlink(t->outside, p), 0);
	free(p);
	p = path_of("%s/ust/escape-file", t->a[0]);
	ASSERT_EQ(symlink(t->precious, p), 0);
	free(p);
	age(t->a[0], 5000); /* the links changed its directories */
	/* An origin whose name holds '-'. */
	t->b[0] = snapshot("web-1", "latencyd-w-20261125-100000",
			   "snap-5-web-1-5@web-1-20261125-100200-0", 32, 4000);
	t->b[1] = snapshot("h2", "latencyd-h2-20261125-100000",
			   "snap-8-web-1-5@h2-20261125-100200-0", 32, 4000);
	/* No fleet: a group of its own. */
	t->solo =
		snapshot("solo", "latencyd-20261125-100000", "snap-4-20261125-100500-0", 16, 3500);
	/* h2-1: h2's is old, h3's is being written. */
	t->c[0] = snapshot("h2", "latencyd-h2-20261125-100000", "snap-9-h2-1@h2-20261125-100300-0",
			   32, 3000);
	t->c[1] = snapshot("h3", "latencyd-h3-20261125-100000", "snap-4-h2-1@h3-20261125-100300-0",
			   32, 0);
	/* h1-2: held open by lttng-relayd. */
	t->d[0] = snapshot("h1", "latencyd-h1-20261125-100000", "snap-2-h1-2@h1-20261125-100400-0",
			   48, 2000);
	t->d[1] = snapshot("h2", "latencyd-h2-20261125-100000", "snap-10-h1-2@h2-20261125-100400-0",
			   48, 2000);
	t->e[0] = snapshot("h3", "latencyd-h3-20261125-100000", "snap-5-h3-7@h3-20261125-100500-0",
			   16, 1000);
	t->e[1] = snapshot("h1", "latencyd-h1-20261125-100000", "snap-3-h3-7@h1-20261125-100500-0",
			   16, 1000);

	/* Foreign: left alone, whatever their age. */
	t->foreign[0] = path_of("%s/README", dir);
	write_kib(t->foreign[0], 1);
	t->foreign[1] = path_of("%s/h1/notes.txt", dir);
	write_kib(t->foreign[1], 1);
	t->foreign[2] = path_of("%s/h1/trace-20261125-100000/kernel", dir);
	ASSERT_EQ(mkdir_p(t->foreign[2], 0755), 0);
	t->foreign[3] = snapshot("h1", "latencyd-h1-20261125-100000",
				 "snapshot-1-20261125-100000-0", 4, 6000);
	t->foreign[4] = snapshot("h1", "latencyd-h1-20261125-100000",
				 "snap-9-nohost-20261125-100000-0", 4, 6000);
	t->foreign[5] = path_of("%s/h1/undated", dir);
	ASSERT_EQ(mkdir_p(t->foreign[5], 0755), 0);
	free(snapshot("h1", "latencyd-h1-20261125-100000", "snap-3-h1-x@h1-20261125-100000-0", 4,
		      6000));
	/* A link named like h1-1's snapshot of h2: neither counted nor deleted through. */
	p = path_of("%s/h2/latencyd-h2-20261125-100000/%s", dir,
		    "snap-8-h1-1@h2-20261125-100100-1");
	ASSERT_EQ(symlink(t->outside, p), 0);
	free(p);
	age(t->foreign[2], 6000);

	/* Deeper than anything relayd writes: cannot be read, so it is kept. */
	t->deep = snapshot("h3", "latencyd-h3-20261125-100000", "snap-6-h3-8@h3-20261125-100000-0",
			   4, 6000);
	p = path_of("%s/%s", t->deep, "a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a");
	ASSERT_EQ(mkdir_p(p, 0755), 0);
	free(p);
	age(t->deep, 6000);

	for (size_t i = 0; i < 3; i++)
		t->total += dir_size(t->a[i]);
	for (size_t i = 0; i < 2; i++)
		t->total += dir_size(t->b[i]) + dir_size(t->c[i]) + dir_size(t->d[i]) +
			    dir_size(t->e[i]);
	t->total += dir_size(t->solo) + dir_size(t->deep);
}

static void test_scan(void)
{
	const struct collector_incident *inc;
	struct collector_scan s;
	char hosts[128];

	scan(&s);
	/* Oldest first by their newest snapshot: h2-1 is being written, so it is the newest. */
	ASSERT_EQ(s.n, 7);
	ASSERT_STREQ(s.incidents[0].id, "h3-8");
	ASSERT_STREQ(s.incidents[1].id, "h1-1");
	ASSERT_STREQ(s.incidents[2].id, "web-1-5");
	ASSERT_STREQ(s.incidents[3].id, "solo/latencyd-20261125-100000/snap-4-20261125-100500-0");
	ASSERT_STREQ(s.incidents[4].id, "h1-2");
	ASSERT_STREQ(s.incidents[5].id, "h3-7");
	ASSERT_STREQ(s.incidents[6].id, "h2-1");
	ASSERT_EQ(s.total, t->total);
	/* README, notes.txt, trace-*, snapshot-1-*, snap-9-nohost-*, undated, snap-3-h1-x@h1-*,
	 * the evil and snap-8 links. */
	ASSERT_EQ(s.foreign, 9);

	inc = find(&s, "h1-1");
	ASSERT_TRUE(inc && inc->fleet && inc->n == 3 && !inc->busy);
	ASSERT_EQ(inc->bytes, dir_size(t->a[0]) + dir_size(t->a[1]) + dir_size(t->a[2]));
	collector_hosts(inc, hosts, sizeof(hosts));
	ASSERT_STREQ(hosts, "h1, h2, h3");
	inc = find(&s, "web-1-5");
	ASSERT_TRUE(inc && inc->n == 2 && !inc->busy);
	collector_hosts(inc, hosts, sizeof(hosts));
	ASSERT_STREQ(hosts, "h2, web-1");
	inc = &s.incidents[3];
	ASSERT_TRUE(!inc->fleet && inc->n == 1 && !inc->busy);
	collector_hosts(inc, hosts, sizeof(hosts));
	ASSERT_STREQ(hosts, "solo");
	inc = find(&s, "h2-1");
	ASSERT_TRUE(inc->busy && inc->n == 2);
	inc = find(&s, "h1-2");
	ASSERT_TRUE(inc->busy && inc->n == 2); /* held by the fake relayd */
	inc = find(&s, "h3-8");
	ASSERT_TRUE(inc->busy && inc->snaps[0].unreadable);
	ASSERT_EQ(s.error, -ELOOP);
	ASSERT_CONTAINS(s.error_path, "snap-6-h3-8@h3-20261125-100000-0");
	collector_scan_free(&s);

	ASSERT_EQ(collector_scan("/nonexistent/relayd", "snap", "/proc", now, &s), -ENOENT);
	ASSERT_EQ(s.error, -ENOENT);
	ASSERT_STREQ(s.error_path, "/nonexistent/relayd");
	collector_scan_free(&s);
}

static enum collector_verdict verdict(const struct collector_scan *s, const char *id)
{
	const struct collector_incident *inc = find(s, id);

	ASSERT_TRUE(inc);
	return inc->verdict;
}

static void test_choose(void)
{
	const char *solo = "solo/latencyd-20261125-100000/snap-4-20261125-100500-0";
	struct collector_limits l = {0};
	struct collector_scan s;
	uint64_t a, b;

	scan(&s);
	a = find(&s, "h1-1")->bytes;
	b = find(&s, "web-1-5")->bytes;
	ASSERT_EQ(collector_choose(&s, &l, now), 0);

	/* Older than 2500 s, but for the unreadable one. */
	l.max_age_ns = 2500ULL * 1000000000;
	ASSERT_EQ(collector_choose(&s, &l, now), 3);
	ASSERT_EQ(verdict(&s, "h1-1"), COLLECTOR_MAX_AGE);
	ASSERT_EQ(verdict(&s, "web-1-5"), COLLECTOR_MAX_AGE);
	ASSERT_EQ(verdict(&s, solo), COLLECTOR_MAX_AGE);
	ASSERT_EQ(verdict(&s, "h1-2"), COLLECTOR_KEEP);
	ASSERT_EQ(verdict(&s, "h3-8"), COLLECTOR_KEEP);

	/* Exactly at the limit once the oldest went: it alone. */
	l.max_age_ns = 0;
	l.max_bytes = s.total - a;
	ASSERT_EQ(collector_choose(&s, &l, now), 1);
	ASSERT_EQ(verdict(&s, "h1-1"), COLLECTOR_MAX_BYTES);
	ASSERT_EQ(verdict(&s, "web-1-5"), COLLECTOR_KEEP);
	/* One byte less: the next oldest whole, then the one after. */
	l.max_bytes = s.total - a - b - 1;
	ASSERT_EQ(collector_choose(&s, &l, now), 3);
	ASSERT_EQ(verdict(&s, "web-1-5"), COLLECTOR_MAX_BYTES);
	ASSERT_EQ(verdict(&s, solo), COLLECTOR_MAX_BYTES);
	ASSERT_EQ(verdict(&s, "h1-2"), COLLECTOR_KEEP);
	/* Below what can be reached: busy incidents are passed over and still count. */
	l.max_bytes = 1;
	ASSERT_EQ(collector_choose(&s, &l, now), 4);
	ASSERT_EQ(verdict(&s, "h3-7"), COLLECTOR_MAX_BYTES);
	ASSERT_EQ(verdict(&s, "h1-2"), COLLECTOR_KEEP);
	ASSERT_EQ(verdict(&s, "h2-1"), COLLECTOR_KEEP);
	ASSERT_EQ(verdict(&s, "h3-8"), COLLECTOR_KEEP);
	/* Both limits: max_age's choice first, then the oldest left. */
	l.max_age_ns = 3700ULL * 1000000000;
	l.max_bytes = s.total - a - b - find(&s, solo)->bytes;
	ASSERT_EQ(collector_choose(&s, &l, now), 3);
	ASSERT_EQ(verdict(&s, "h1-1"), COLLECTOR_MAX_AGE);
	ASSERT_EQ(verdict(&s, "web-1-5"), COLLECTOR_MAX_AGE);
	ASSERT_EQ(verdict(&s, solo), COLLECTOR_MAX_BYTES);
	collector_scan_free(&s);
}

/*
 * Snapshots dated ahead of the collector's clock (a clock stepped back, a touch -d): not
 * taken for being written, since relayd's open files say that, but as new: never past
 * max_age, the last to go past max_bytes, which would otherwise never bound them. One
 * within COLLECTOR_FRESH_NS ahead may still be written: kept. A tree of its own.
 */
static void test_ahead_of_clock(void)
{
	const char *session = "latencyd-20261125-100000";
	const int64_t years = 5 * 365 * 86400LL;
	struct collector_limits l = {.max_age_ns = 3600ULL * 1000000000};
	char saved[sizeof(dir)], *old, *ahead, *ahead2, *soon, *recent;
	const struct collector_incident *inc;
	struct collector_scan s;

	memcpy(saved, dir, sizeof(dir));
	snprintf(dir, sizeof(dir), "%s/ahead", tmp);
	ASSERT_EQ(mkdir(dir, 0755), 0);
	set_now();
	old = snapshot("h1", session, "snap-1-20261125-100000-0", 16, 2 * HOUR_AGO);
	recent = snapshot("h1", session, "snap-2-20261125-100000-0", 16, 100);
	ahead = snapshot("h1", session, "snap-3-20261125-100000-0", 16, -years);
	ahead2 = snapshot("h2", session, "snap-4-h2-4@h2-20261125-100000-0", 16, -2 * years);
	soon = snapshot("h1", session, "snap-5-20261125-100000-0", 16, -30);
	ASSERT_EQ(collector_scan(dir, "snap", "/proc", now, &s), 0);
	ASSERT_EQ(s.n, 5);
	ASSERT_EQ(s.ahead, 2);
	ASSERT_TRUE(strstr(s.ahead_path, "/snap-3-20261125-100000-0") ||
		    strstr(s.ahead_path, "/snap-4-h2-4@h2-20261125-100000-0"));
	ASSERT_TRUE(!find(&s, "h2-4")->busy);
	inc = &s.incidents[4];
	ASSERT_TRUE(inc->n == 1 && !strcmp(inc->snaps[0].name, "snap-4-h2-4@h2-20261125-100000-0"));
	inc = &s.incidents[3];
	ASSERT_TRUE(inc->n == 1 && !strcmp(inc->snaps[0].name, "snap-3-20261125-100000-0"));
	ASSERT_TRUE(!inc->busy && !inc->snaps[0].fresh);
	inc = &s.incidents[2];
	ASSERT_TRUE(inc->n == 1 && !strcmp(inc->snaps[0].name, "snap-5-20261125-100000-0"));
	ASSERT_TRUE(inc->busy && inc->snaps[0].fresh);

	/* By age: the old one alone. */
	ASSERT_EQ(collector_choose(&s, &l, now), 1);
	ASSERT_EQ(s.incidents[0].verdict, COLLECTOR_MAX_AGE);
	for (size_t i = 1; i < s.n; i++)
		ASSERT_EQ(s.incidents[i].verdict, COLLECTOR_KEEP);
	/* By size: the old one, the recent one, then those ahead, oldest first. */
	l.max_bytes = s.total - s.incidents[0].bytes - s.incidents[1].bytes - 1;
	ASSERT_EQ(collector_choose(&s, &l, now), 3);
	ASSERT_EQ(s.incidents[1].verdict, COLLECTOR_MAX_BYTES);
	ASSERT_EQ(s.incidents[2].verdict, COLLECTOR_KEEP);
	ASSERT_EQ(s.incidents[3].verdict, COLLECTOR_MAX_BYTES);
	ASSERT_EQ(s.incidents[4].verdict, COLLECTOR_KEEP);
	l.max_bytes = 1;
	ASSERT_EQ(collector_choose(&s, &l, now), 4);
	ASSERT_EQ(s.incidents[2].verdict, COLLECTOR_KEEP);
	ASSERT_EQ(s.incidents[4].verdict, COLLECTOR_MAX_BYTES);
	collector_scan_free(&s);

	ASSERT_EQ(rm_tree(dir), 0);
	memcpy(dir, saved, sizeof(dir));
	free(old);
	free(recent);
	free(ahead);
	free(ahead2);
	free(soon);
}

/*
 * A session directory that cannot be listed (read here without root's override, as relayd's
 * user could make it): an incident of the fleet may have a snapshot in it, so none is
 * deleted, not even the part that was seen; a snapshot of no fleet is whole by itself.
 */
static void test_unlisted(void)
{
	const char *solo = "solo/latencyd-20261125-100000/snap-4-20261125-100500-0";
	const struct collector_limits l = {.max_age_ns = 2500ULL * 1000000000};
	char *hidden = path_of("%s/h3/latencyd-h3-20261125-100000", dir);
	const struct collector_incident *inc;
	struct collector_scan s;

	ASSERT_EQ(chmod(tmp, 0755), 0);
	ASSERT_EQ(chmod(hidden, 0), 0);
	setfsgid(65534);
	setfsuid(65534);
	set_now();
	ASSERT_EQ(collector_scan(dir, "snap", "/proc", now, &s), 0);
	setfsuid(0);
	setfsgid(0);
	ASSERT_EQ(chmod(hidden, 0755), 0);
	ASSERT_EQ(chmod(tmp, 0700), 0);

	ASSERT_EQ(s.error, -EACCES);
	ASSERT_CONTAINS(s.error_path, "h3/latencyd-h3-20261125-100000");
	inc = find(&s, "h1-1");
	ASSERT_TRUE(inc && inc->n == 2 && inc->busy); /* h3's snapshot was not seen */
	ASSERT_TRUE(find(&s, "web-1-5")->busy);
	ASSERT_EQ(collector_choose(&s, &l, now), 1);
	ASSERT_EQ(verdict(&s, solo), COLLECTOR_MAX_AGE);
	ASSERT_EQ(verdict(&s, "h1-1"), COLLECTOR_KEEP);
	ASSERT_EQ(verdict(&s, "web-1-5"), COLLECTOR_KEEP);
	collector_scan_free(&s);
	free(hidden);
}

static void test_delete(void)
{
	const struct collector_limits l = {.max_bytes = 1};
	struct collector_scan s;
	struct collector_deletion d;
	char *p;
	int status;

	scan(&s);
	ASSERT_EQ(collector_choose(&s, &l, now), 4);
	for (size_t i = 0; i < s.n; i++)
		if (s.incidents[i].verdict != COLLECTOR_KEEP)
			ASSERT_EQ(collector_delete(&s, &s.incidents[i], &d), 0);
	collector_scan_free(&s);

	for (size_t i = 0; i < 3; i++)
		ASSERT_TRUE(!exists(t->a[i]));
	for (size_t i = 0; i < 2; i++) {
		ASSERT_TRUE(!exists(t->b[i]) && !exists(t->e[i]));
		ASSERT_TRUE(exists(t->c[i]) && exists(t->d[i]));
	}
	ASSERT_TRUE(!exists(t->solo) && exists(t->deep));
	/* The links went, not what they point to. */
	ASSERT_TRUE(exists(t->precious) && exists(t->evil_snap));
	ASSERT_EQ(dir_size(t->precious), 8192);
	for (size_t i = 0; i < 6; i++)
		ASSERT_TRUE(exists(t->foreign[i]));
	p = path_of("%s/h2/latencyd-h2-20261125-100000/%s", dir,
		    "snap-8-h1-1@h2-20261125-100100-1");
	ASSERT_TRUE(exists(p));
	free(p);
	/* Session directories stay: relayd may still write into them. */
	p = path_of("%s/solo/latencyd-20261125-100000", dir);
	ASSERT_TRUE(exists(p));
	free(p);

	/* relayd let go, the fresh one aged: both go now. */
	kill(relayd, SIGKILL);
	ASSERT_EQ(waitpid(relayd, &status, 0), relayd);
	age(t->c[1], 2000);
	scan(&s);
	ASSERT_EQ(s.n, 3);
	ASSERT_TRUE(!find(&s, "h1-2")->busy && !find(&s, "h2-1")->busy);
	ASSERT_EQ(s.total, dir_size(t->c[0]) + dir_size(t->c[1]) + dir_size(t->d[0]) +
				   dir_size(t->d[1]) + dir_size(t->deep));
	ASSERT_EQ(collector_choose(&s, &l, now), 2);
	ASSERT_EQ(collector_delete(&s, find(&s, "h1-2"), &d), 0);
	ASSERT_EQ(collector_delete(&s, find(&s, "h2-1"), &d), 0);
	collector_scan_free(&s);
	ASSERT_TRUE(!exists(t->c[0]) && !exists(t->c[1]) && !exists(t->d[0]) && !exists(t->d[1]));
	ASSERT_TRUE(exists(t->precious));
}

static int give_away(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return lchown(path, 65534, 65534);
}

/* Hosts H1 and H2's trees given to relayd's user (nobody), as relayd writes them. */
static void give_hosts_away(const char *h1, const char *h2)
{
	for (const char *h = h1; h; h = h == h1 ? h2 : NULL) {
		char *p = path_of("%s/%s", dir, h);

		ASSERT_EQ(nftw(p, give_away, 16, FTW_PHYS), 0);
		free(p);
	}
}

/* collector_delete() as relayd's user: what the collector run as that user does. */
static int delete_as_relayd(const struct collector_scan *s, const struct collector_incident *inc,
			    struct collector_deletion *d)
{
	int r;

	ASSERT_EQ(chmod(tmp, 0755), 0);
	setfsgid(65534);
	setfsuid(65534);
	r = collector_delete(s, inc, d);
	setfsuid(0);
	setfsgid(0);
	ASSERT_EQ(chmod(tmp, 0700), 0);
	return r;
}

/*
 * One host's snapshot of an incident that cannot be deleted (its session directory is not
 * writable to relayd's user, deleting as that user): none of the incident goes, not even
 * the snapshots that could, and the one that blocks it is named.
 */
static void test_all_or_none(void)
{
	const struct collector_limits l = {.max_age_ns = 2500ULL * 1000000000};
	char *one = snapshot("h4", "latencyd-h4-20261125-100000",
			     "snap-1-h4-1@h4-20261125-100600-0", 8, 4000);
	char *two = snapshot("h5", "latencyd-h5-20261125-100000",
			     "snap-2-h4-1@h5-20261125-100600-0", 8, 4000);
	char *locked = path_of("%s/h5/latencyd-h5-20261125-100000", dir);
	const struct collector_incident *inc;
	struct collector_scan s;
	struct collector_deletion d;

	give_hosts_away("h4", "h5");
	ASSERT_EQ(chmod(locked, 0555), 0);
	scan(&s);
	inc = find(&s, "h4-1");
	ASSERT_TRUE(inc && inc->n == 2 && !inc->busy);
	ASSERT_EQ(collector_choose(&s, &l, now), 1);
	ASSERT_EQ(delete_as_relayd(&s, inc, &d), -EACCES);
	ASSERT_TRUE(d.blocker < inc->n && !d.deleted && !d.partial && !d.freed);
	ASSERT_STREQ(inc->snaps[d.blocker].host_dir, "h5");
	ASSERT_TRUE(exists(one) && exists(two));
	/* Writable again: both go. */
	ASSERT_EQ(chmod(locked, 0755), 0);
	ASSERT_EQ(collector_delete(&s, inc, &d), 0);
	ASSERT_TRUE(!exists(one) && !exists(two));
	collector_scan_free(&s);
	free(locked);
	free(one);
	free(two);
}

/* Whether every file under PATH is still there: the snapshot() layout, whole. */
static bool whole(const char *path)
{
	char *m = path_of("%s/ust/uid/0/64-bit/metadata", path);
	char *c = path_of("%s/ust/uid/0/64-bit/chan_0", path);
	bool r = exists(m) && exists(c);

	free(m);
	free(c);
	return r;
}

/*
 * Deeper than the snapshot and its session directory: a directory inside a snapshot that
 * relayd's user cannot write to, deleting as that user. The check goes down the whole
 * tree: none of the incident goes, and the snapshot that blocks it is named.
 */
static void test_nested_read_only(void)
{
	const struct collector_limits l = {.max_age_ns = 2500ULL * 1000000000};
	char *one = snapshot("h6", "latencyd-h6-20261125-100000",
			     "snap-1-h6-1@h6-20261125-100600-0", 8, 4000);
	char *two = snapshot("h7", "latencyd-h7-20261125-100000",
			     "snap-2-h6-1@h7-20261125-100600-0", 8, 4000);
	char *ro = path_of("%s/ust/uid/0", two);
	const struct collector_incident *inc;
	struct collector_scan s;
	struct collector_deletion d;

	give_hosts_away("h6", "h7");
	ASSERT_EQ(chmod(ro, 0555), 0);
	age(two, 4000);
	scan(&s);
	inc = find(&s, "h6-1");
	ASSERT_TRUE(inc && inc->n == 2 && !inc->busy);
	ASSERT_EQ(collector_choose(&s, &l, now), 1);
	ASSERT_EQ(delete_as_relayd(&s, inc, &d), -EACCES);
	ASSERT_TRUE(d.blocker < inc->n && !d.deleted && !d.partial && !d.freed);
	ASSERT_STREQ(inc->snaps[d.blocker].host_dir, "h7");
	ASSERT_TRUE(whole(one) && whole(two));
	ASSERT_EQ(chmod(ro, 0755), 0);
	ASSERT_EQ(collector_delete(&s, inc, &d), 0);
	ASSERT_TRUE(!exists(one) && !exists(two));
	collector_scan_free(&s);
	free(ro);
	free(one);
	free(two);
}

/* An immutable file deep in one host's snapshot (chattr +i): root cannot unlink it either. */
static void test_nested_immutable(void)
{
	const struct collector_limits l = {.max_age_ns = 2500ULL * 1000000000};
	char *one = snapshot("h6", "latencyd-h6-20261125-100000",
			     "snap-3-h6-2@h6-20261125-100700-0", 8, 4000);
	char *two = snapshot("h7", "latencyd-h7-20261125-100000",
			     "snap-4-h6-2@h7-20261125-100700-0", 8, 4000);
	char *file = path_of("%s/ust/uid/0/64-bit/chan_0", two);
	const struct collector_incident *inc;
	struct collector_scan s;
	struct collector_deletion d;

	test_immutable(file, true);
	scan(&s);
	inc = find(&s, "h6-2");
	ASSERT_TRUE(inc && inc->n == 2 && !inc->busy);
	ASSERT_EQ(collector_choose(&s, &l, now), 1);
	ASSERT_EQ(collector_delete(&s, inc, &d), -EPERM);
	ASSERT_TRUE(d.blocker < inc->n && !d.deleted && !d.partial && !d.freed);
	ASSERT_STREQ(inc->snaps[d.blocker].host_dir, "h7");
	ASSERT_TRUE(whole(one) && whole(two));
	test_immutable(file, false);
	ASSERT_EQ(collector_delete(&s, inc, &d), 0);
	ASSERT_TRUE(!exists(one) && !exists(two));
	collector_scan_free(&s);
	free(file);
	free(one);
	free(two);
}

/*
 * A file bind-mounted over one deep in a snapshot (in a mount namespace of a child's own):
 * its unlink would fail with EBUSY after the rest went, so the check refuses the incident.
 */
static void test_bind_mounted_file(void)
{
	const struct collector_limits l = {.max_age_ns = 2500ULL * 1000000000};
	char *one = snapshot("h8", "latencyd-h8-20261125-100000",
			     "snap-5-h8-2@h8-20261125-100700-0", 8, 4000);
	char *two = snapshot("h9", "latencyd-h9-20261125-100000",
			     "snap-6-h8-2@h9-20261125-100700-0", 8, 4000);
	char *file = path_of("%s/ust/uid/0/64-bit/chan_0", two);
	char *source = path_of("%s/bind-source", tmp);
	const struct collector_incident *inc;
	struct collector_scan s;
	struct collector_deletion d;
	int status;
	pid_t pid;

	test_write_file(tmp, "bind-source", "another file system's file\n");
	age(source, 4000); /* not a file being written */
	pid = fork();
	ASSERT_TRUE(pid >= 0);
	if (pid == 0) {
		ASSERT_EQ(unshare(CLONE_NEWNS), 0);
		ASSERT_EQ(mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL), 0);
		ASSERT_EQ(mount(source, file, NULL, MS_BIND, NULL), 0);
		scan(&s);
		inc = find(&s, "h8-2");
		ASSERT_TRUE(inc && inc->n == 2);
		ASSERT_EQ(collector_choose(&s, &l, now), 1);
		ASSERT_EQ(collector_delete(&s, inc, &d), -EBUSY);
		ASSERT_TRUE(!d.deleted && !d.partial && !d.freed);
		ASSERT_CONTAINS(d.where, "chan_0");
		ASSERT_TRUE(whole(one) && whole(two));
		collector_scan_free(&s);
		_exit(0);
	}
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	/* Out of the child's namespace, the file is a file again: the incident goes. */
	scan(&s);
	inc = find(&s, "h8-2");
	ASSERT_TRUE(inc);
	ASSERT_EQ(collector_choose(&s, &l, now), 1);
	ASSERT_EQ(collector_delete(&s, inc, &d), 0);
	ASSERT_TRUE(!exists(one) && !exists(two));
	collector_scan_free(&s);
	free(source);
	free(file);
	free(one);
	free(two);
}

/*
 * An overlayfs whose layers are on other file systems (Debian's default, xino off) gives its
 * files their layer's device and its directories its own: one mount all the same, whose
 * snapshot the check lets go and the deletion deletes (in a mount namespace of a child's).
 */
static void test_overlay_devices(void)
{
	char *base = path_of("%s/ovl", tmp), *layer = path_of("%s/t", base);
	char *lower = path_of("%s/lower", base), *merged = path_of("%s/merged", base);
	char *upper = path_of("%s/upper", layer), *work = path_of("%s/work", layer), *opts, *kernel;
	struct tree_outcome o;
	struct stat d, f;
	int status, fd;
	pid_t pid;

	ASSERT_TRUE(asprintf(&opts, "lowerdir=%s,upperdir=%s,workdir=%s", lower, upper, work) > 0);
	kernel = path_of("%s/snap-1-x/kernel", merged);
	ASSERT_EQ(mkdir_p(lower, 0755), 0);
	ASSERT_EQ(mkdir_p(layer, 0755), 0);
	ASSERT_EQ(mkdir_p(merged, 0755), 0);
	pid = fork();
	ASSERT_TRUE(pid >= 0);
	if (pid == 0) {
		ASSERT_EQ(unshare(CLONE_NEWNS), 0);
		ASSERT_EQ(mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL), 0);
		ASSERT_EQ(mount("tmpfs", layer, "tmpfs", 0, "size=4m"), 0);
		ASSERT_EQ(mkdir(upper, 0755), 0);
		ASSERT_EQ(mkdir(work, 0755), 0);
		if (mount("overlay", merged, "overlay", 0, opts) < 0) {
			printf("SKIP: no overlayfs here: %s\n", strerror(errno));
			_exit(0);
		}
		ASSERT_EQ(mkdir_p(kernel, 0755), 0);
		test_write_file(kernel, "metadata", "/* CTF 1.8 */\n");
		test_write_file(kernel, "chan_0", "events");
		ASSERT_EQ(stat(kernel, &d), 0);
		ASSERT_EQ(stat(path_of("%s/chan_0", kernel), &f), 0);
		if (d.st_dev == f.st_dev) {
			printf("SKIP: this overlayfs gives its files its own device (xino on)\n");
			_exit(0);
		}
		fd = open(merged, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		ASSERT_TRUE(fd >= 0);
		ASSERT_EQ(tree_check(fd, "merged", "snap-1-x", &o), 0);
		ASSERT_EQ(tree_remove(fd, "merged", "snap-1-x", &o), 0);
		ASSERT_EQ(o.removed, 4);
		ASSERT_EQ(access(kernel, F_OK), -1);
		_exit(0);
	}
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	ASSERT_EQ(rm_tree(base), 0);
	free(opts);
	free(kernel);
	free(work);
	free(upper);
	free(merged);
	free(lower);
	free(layer);
	free(base);
}

/*
 * The check passes, then a deletion fails anyway (a directory made immutable between the
 * two, a real fault from a real file system): the deletion stops there, and says what went
 * (the first host's snapshot whole, the files of the second's), where it stopped, and that
 * the third host's snapshot is left whole.
 */
static void test_fault_after_check(void)
{
	char *one = snapshot("h6", "latencyd-h6-20261125-100000",
			     "snap-5-h6-3@h6-20261125-100800-0", 8, 4000);
	char *two = snapshot("h7", "latencyd-h7-20261125-100000",
			     "snap-6-h6-3@h7-20261125-100800-0", 8, 4000);
	char *three = snapshot("h8", "latencyd-h8-20261125-100000",
			       "snap-7-h6-3@h8-20261125-100800-0", 8, 4000);
	char *watched = path_of("%s/ust/uid/0/64-bit", two), *uid = path_of("%s/ust/uid/0", two);
	uint64_t first = dir_size(one), files = dir_size(watched), third = dir_size(three);
	const struct collector_incident *inc;
	struct collector_deletion d;
	struct collector_scan s;
	struct test_fault f;

	scan(&s);
	inc = find(&s, "h6-3");
	ASSERT_TRUE(inc && inc->n == 3 && !inc->busy);
	ASSERT_STREQ(inc->snaps[1].host_dir, "h7");
	test_fault_arm(&f, watched, uid);
	ASSERT_EQ(collector_delete(&s, inc, &d), -EPERM);
	test_fault_done(&f);
	ASSERT_EQ(d.blocker, 1);
	ASSERT_EQ(d.deleted, 1);
	ASSERT_TRUE(d.partial);
	ASSERT_EQ(d.freed, first + files);
	ASSERT_CONTAINS(d.where, "h7/latencyd-h7-20261125-100000/snap-6-h6-3@h7-20261125-100800-0/"
				 "ust/uid/0/64-bit");
	ASSERT_TRUE(!exists(one) && exists(watched) && !whole(two) && whole(three));
	/* The fault gone, a later pass deletes what is left. */
	test_immutable(uid, false);
	collector_scan_free(&s);
	scan(&s);
	inc = find(&s, "h6-3");
	ASSERT_TRUE(inc && inc->n == 2);
	ASSERT_EQ(collector_delete(&s, inc, &d), 0);
	ASSERT_TRUE(d.deleted == 2 && !d.partial && d.freed == third);
	ASSERT_TRUE(!exists(two) && !exists(three));
	collector_scan_free(&s);
	free(watched);
	free(uid);
	free(one);
	free(two);
	free(three);
}

int main(void)
{
	char *held;

	ASSERT_TRUE(mkdtemp(tmp));
	snprintf(dir, sizeof(dir), "%s/relayd", tmp);
	ASSERT_EQ(mkdir(dir, 0755), 0);
	set_now();
	build();
	held = path_of("%s/ust/uid/0/64-bit/chan_0", t->d[1]);
	relayd = fake_relayd(held);
	free(held);
	RUN(test_ahead_of_clock);
	RUN(test_scan);
	RUN(test_choose);
	RUN(test_unlisted);
	RUN(test_delete);
	if (geteuid() == 0)
		RUN(test_all_or_none);
	if (geteuid() == 0)
		RUN(test_nested_read_only);
	if (geteuid() == 0)
		RUN(test_nested_immutable);
	if (geteuid() == 0)
		RUN(test_bind_mounted_file);
	if (geteuid() == 0)
		RUN(test_overlay_devices);
	if (geteuid() == 0)
		RUN(test_fault_after_check);
	ASSERT_EQ(rm_tree(tmp), 0);
	if (geteuid() != 0) {
		printf("SKIP: test_all_or_none needs root (to give the tree away)\n");
		return EXIT_TEST_SKIP;
	}
	return 0;
}
