// SPDX-License-Identifier: GPL-2.0-only
/*
 * The collector's "being written" check (catalog/collector_busy.c) when the collector may list
 * lttng-relayd's descriptors but not read where they point: /proc/PID/fd/N needs ptrace read
 * access, which a latencyd without CAP_SYS_PTRACE lacks towards a relayd holding capabilities
 * it has not (a root relayd) or run by another user. Such a relayd must count as unseen (the
 * manager warns), never as a relayd holding nothing. Needs root with CAP_SYS_PTRACE: the test
 * takes it out of its own effective set around the scans that must not see.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <dirent.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "collector.h"
#include "fsutil.h"
#include "tests.h"

#define SESSION "latencyd-20261125-100000"
#define SNAP	"snap-4-20261125-100500-0"
#define KEY	"solo/" SESSION "/" SNAP
#define NOBODY	65534

static char tmp[] = "/tmp/test-collector-unseen.XXXXXX";
static char dir[256], proc[256], held[512];

static void caps(struct __user_cap_data_struct data[2], bool set)
{
	struct __user_cap_header_struct h = {.version = _LINUX_CAPABILITY_VERSION_3};

	ASSERT_EQ(syscall(set ? SYS_capset : SYS_capget, &h, data), 0);
}

static bool effective_ptrace(void)
{
	struct __user_cap_data_struct d[2];

	caps(d, false);
	return d[CAP_TO_INDEX(CAP_SYS_PTRACE)].effective & CAP_TO_MASK(CAP_SYS_PTRACE);
}

/* CAP_SYS_PTRACE in or out of this process's effective set (it stays permitted). */
static void set_ptrace(bool on)
{
	struct __user_cap_data_struct d[2];

	caps(d, false);
	if (on)
		d[CAP_TO_INDEX(CAP_SYS_PTRACE)].effective |= CAP_TO_MASK(CAP_SYS_PTRACE);
	else
		d[CAP_TO_INDEX(CAP_SYS_PTRACE)].effective &= ~CAP_TO_MASK(CAP_SYS_PTRACE);
	caps(d, true);
	ASSERT_EQ(effective_ptrace(), on);
}

/*
 * A process named lttng-relayd holding HELD open on descriptor 9 until killed: root with this
 * process's capabilities, or given to nobody (which empties its capabilities) once it is open.
 */
static pid_t fake_relayd(bool as_nobody)
{
	int p[2];
	char c;
	pid_t pid;

	ASSERT_EQ(pipe(p), 0);
	pid = fork();
	ASSERT_TRUE(pid >= 0);
	if (pid == 0) {
		int fd = open(held, O_RDONLY);
		bool ok = fd >= 0 && dup2(fd, 9) == 9;

		prctl(PR_SET_PDEATHSIG, SIGKILL); /* the test aborted: it goes too */
		prctl(PR_SET_NAME, "lttng-relayd");
		if (as_nobody)
			ok = ok && setresgid(NOBODY, NOBODY, NOBODY) == 0 &&
			     setresuid(NOBODY, NOBODY, NOBODY) == 0;
		if (write(p[1], ok ? "y" : "n", 1) != 1)
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

static void end(pid_t pid)
{
	int status;

	kill(pid, SIGKILL);
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
}

/*
 * A /proc of PID alone (a link to its directory in the real one), so that the counts are this
 * test's whatever other lttng-relayd runs on the host: the permission checks stay procfs's.
 */
static void proc_of(pid_t pid)
{
	char link[320], target[64];

	ASSERT_EQ(rm_tree(proc), 0);
	ASSERT_EQ(mkdir(proc, 0755), 0);
	snprintf(link, sizeof(link), "%s/%d", proc, (int)pid);
	snprintf(target, sizeof(target), "/proc/%d", (int)pid);
	ASSERT_EQ(symlink(target, link), 0);
}

static void scan(struct collector_scan *s, const char *proc_path)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	ASSERT_EQ(collector_scan(dir, "snap", proc_path,
				 (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec, s),
		  0);
	ASSERT_EQ(s->nsnaps, 1);
	ASSERT_STREQ(s->snaps[0].key, KEY);
	ASSERT_TRUE(!s->snaps[0].fresh); /* only its open file can tell it is being written */
}

/* What a collector with CAP_SYS_PTRACE sees of a relayd: the snapshot held. */
static void sees(pid_t pid)
{
	struct collector_scan s;

	proc_of(pid);
	scan(&s, proc);
	ASSERT_TRUE(s.snaps[0].held && s.incidents[0].busy);
	ASSERT_EQ(s.relayd_unseen, 0);
	collector_scan_free(&s);
}

/* Without it: relayd unseen, from its own /proc entry and from the real /proc alike. */
static void sees_not(pid_t pid)
{
	char fd9[64], link[PATH_MAX];
	struct collector_scan s;
	DIR *d;

	snprintf(fd9, sizeof(fd9), "/proc/%d/fd", (int)pid);
	proc_of(pid);
	set_ptrace(false);
	/* What the collector meets: the directory lists, its links do not read. */
	d = opendir(fd9);
	ASSERT_TRUE(d);
	closedir(d);
	snprintf(fd9, sizeof(fd9), "/proc/%d/fd/9", (int)pid);
	ASSERT_EQ(readlink(fd9, link, sizeof(link)), -1);
	ASSERT_TRUE(errno == EACCES || errno == EPERM);
	scan(&s, proc);
	ASSERT_EQ(s.relayd_unseen, 1);
	ASSERT_TRUE(!s.snaps[0].held);
	collector_scan_free(&s);
	scan(&s, "/proc");
	ASSERT_TRUE(s.relayd_unseen >= 1);
	collector_scan_free(&s);
	set_ptrace(true);
}

/* A root relayd holds capabilities a collector without CAP_SYS_PTRACE lacks. */
static void test_root_relayd(void)
{
	pid_t pid = fake_relayd(false);

	sees(pid);
	sees_not(pid);
	sees(pid); /* CAP_SYS_PTRACE back: seen again */
	end(pid);
}

/* A relayd of its own user (lttng-relayd's account): another user's process. */
static void test_other_user_relayd(void)
{
	pid_t pid = fake_relayd(true);

	sees(pid);
	sees_not(pid);
	end(pid);
}

/* PATH written an hour ago. */
static void age_hour(const char *path)
{
	struct timespec t[2];

	clock_gettime(CLOCK_REALTIME, &t[0]);
	t[0].tv_sec -= 3600;
	t[1] = t[0];
	ASSERT_EQ(utimensat(AT_FDCWD, path, t, 0), 0);
}

int main(void)
{
	char *snap, *data;
	int fd;

	if (geteuid() != 0 || !effective_ptrace()) {
		printf("SKIP: needs root with CAP_SYS_PTRACE (to take it away)\n");
		return EXIT_TEST_SKIP;
	}
	ASSERT_TRUE(mkdtemp(tmp));
	snprintf(dir, sizeof(dir), "%s/relayd", tmp);
	snprintf(proc, sizeof(proc), "%s/proc", tmp);
	ASSERT_TRUE(asprintf(&snap, "%s/solo/%s/%s", dir, SESSION, SNAP) > 0);
	ASSERT_TRUE(asprintf(&data, "%s/kernel", snap) > 0);
	ASSERT_EQ(mkdir_p(data, 0755), 0);
	snprintf(held, sizeof(held), "%s/chan_0", data);
	fd = open(held, O_WRONLY | O_CREAT, 0644);
	ASSERT_TRUE(fd >= 0);
	ASSERT_EQ(write(fd, "x", 1), 1);
	close(fd);
	/* Not fresh: only its open descriptor says it is being written. */
	age_hour(held);
	age_hour(data);
	age_hour(snap);
	free(data);
	free(snap);
	RUN(test_root_relayd);
	RUN(test_other_user_relayd);
	ASSERT_EQ(rm_tree(tmp), 0);
	return 0;
}
