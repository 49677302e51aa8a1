/* SPDX-License-Identifier: GPL-2.0-only */
/* daemon/kernel/kmodule.c: the ABI string parser and the module state read from a fake sysfs. */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include <latency_tracker.h>

#include "kernel.h"
#include "log.h"
#include "tests.h"

static char root[] = "/tmp/test-kmodule-XXXXXX";

static void make_dir(const char *rel)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	ASSERT_TRUE(mkdir(path, 0755) == 0 || errno == EEXIST);
}

static void write_abi(const char *text)
{
	char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s/abi_version", root, LATENCY_TRACKER_SYSFS_DIR);
	f = fopen(path, "w");
	ASSERT_TRUE(f);
	fputs(text, f);
	fclose(f);
}

static void test_parse_abi(void)
{
	static const char *const bad[] = {
		"",    "1",   "1.",   ".1",   "1.0x",	       "1.0\n\n",
		"a.b", "1,0", " 1.0", "-1.0", "99999999999.0",
	};
	unsigned ma = 7, mi = 7;

	ASSERT_EQ(kmodule_parse_abi("1.0\n", &ma, &mi), 0);
	ASSERT_EQ(ma, 1);
	ASSERT_EQ(mi, 0);
	ASSERT_EQ(kmodule_parse_abi("12.34", &ma, &mi), 0);
	ASSERT_EQ(ma, 12);
	ASSERT_EQ(mi, 34);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ASSERT_TRUE(kmodule_parse_abi(bad[i], &ma, &mi) < 0);
		ASSERT_EQ(ma, 12);
	}
}

static void test_states(void)
{
	struct kmodule_status st;
	char abi[32];

	ASSERT_STREQ(kmodule_state_to_string(KMODULE_NOT_LOADED), "not-loaded");
	ASSERT_STREQ(kmodule_state_to_string(KMODULE_LOADED), "loaded");
	ASSERT_STREQ(kmodule_state_to_string(KMODULE_ABI_MISMATCH), "abi-mismatch");
	ASSERT_STREQ(kmodule_state_to_string(KMODULE_ERROR), "error");

	kmodule_query(root, &st);
	ASSERT_EQ(st.state, KMODULE_NOT_LOADED);
	ASSERT_TRUE(!st.abi_known);
	ASSERT_STREQ(st.detail, "");

	/* /sys/module/NAME present but no abi_version file: an error, never "loaded". */
	make_dir("module");
	make_dir("module/" LATENCY_TRACKER_MODULE_NAME);
	kmodule_query(root, &st);
	ASSERT_EQ(st.state, KMODULE_ERROR);
	ASSERT_CONTAINS(st.detail, "abi_version: No such file or directory");

	make_dir("kernel");
	make_dir(LATENCY_TRACKER_SYSFS_DIR);
	snprintf(abi, sizeof(abi), "%d.%d\n", LATENCY_TRACKER_ABI_MAJOR, LATENCY_TRACKER_ABI_MINOR);
	write_abi(abi);
	kmodule_query(root, &st);
	ASSERT_EQ(st.state, KMODULE_LOADED);
	ASSERT_TRUE(st.abi_known);
	ASSERT_EQ(st.abi_major, LATENCY_TRACKER_ABI_MAJOR);
	ASSERT_EQ(st.abi_minor, LATENCY_TRACKER_ABI_MINOR);

	/* A newer minor is compatible. */
	snprintf(abi, sizeof(abi), "%d.%d\n", LATENCY_TRACKER_ABI_MAJOR,
		 LATENCY_TRACKER_ABI_MINOR + 5);
	write_abi(abi);
	kmodule_query(root, &st);
	ASSERT_EQ(st.state, KMODULE_LOADED);
	ASSERT_EQ(st.abi_minor, LATENCY_TRACKER_ABI_MINOR + 5);

	/* Another major is not. */
	snprintf(abi, sizeof(abi), "%d.0\n", LATENCY_TRACKER_ABI_MAJOR + 1);
	write_abi(abi);
	kmodule_query(root, &st);
	ASSERT_EQ(st.state, KMODULE_ABI_MISMATCH);
	ASSERT_TRUE(st.abi_known);
	ASSERT_EQ(st.abi_major, LATENCY_TRACKER_ABI_MAJOR + 1);
	ASSERT_CONTAINS(st.detail, "is not supported");

	write_abi("garbage\n");
	kmodule_query(root, &st);
	ASSERT_EQ(st.state, KMODULE_ERROR);
	ASSERT_TRUE(!st.abi_known);
	ASSERT_CONTAINS(st.detail, "unexpected content 'garbage'");
}

/*
 * A tracker's numbers are read as strictly as hist.c reads the module's: "-1" is not 2^64-1,
 * and a bad file is named in the log.
 */
static void test_tracker_numbers(void)
{
	static const char *const bad[] = {"-1\n", "",	"\n",	 " 5\n",
					  "+5",	  "5x", "5\n\n", "18446744073709551616\n"};
	char dir[PATH_MAX], warning[512];
	uint64_t v = 7;

	make_dir("kernel");
	make_dir(LATENCY_TRACKER_SYSFS_DIR);
	make_dir(LATENCY_TRACKER_SYSFS_DIR "/numbers");
	snprintf(dir, sizeof(dir), "%s/%s/numbers", root, LATENCY_TRACKER_SYSFS_DIR);
	test_write_file(dir, "threshold_ns", "18446744073709551615\n");
	ASSERT_EQ(ktracker_read(root, "numbers", "threshold_ns", &v), 0);
	ASSERT_TRUE(v == UINT64_MAX);
	test_write_file(dir, "threshold_ns", "42");
	ASSERT_EQ(ktracker_read(root, "numbers", "threshold_ns", &v), 0);
	ASSERT_EQ(v, 42);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		test_write_file(dir, "threshold_ns", bad[i]);
		v = 7;
		ASSERT_EQ(ktracker_read(root, "numbers", "threshold_ns", &v),
			  i + 1 == sizeof(bad) / sizeof(bad[0]) ? -ERANGE : -EBADMSG);
		ASSERT_EQ(v, 7);
		log_last_warning(warning, sizeof(warning));
		ASSERT_CONTAINS(warning, "numbers/threshold_ns: ");
	}
}

/* A tracker's text file: its first line, cut to the buffer; a missing file is -ENOENT. */
static void test_tracker_text(void)
{
	char dir[PATH_MAX], buf[16];

	snprintf(dir, sizeof(dir), "%s/%s/numbers", root, LATENCY_TRACKER_SYSFS_DIR);
	test_write_file(dir, "probes", "sched_switch\nsched_waking\n");
	ASSERT_EQ(ktracker_read_text(root, "numbers", "probes", buf, sizeof(buf)), 0);
	ASSERT_STREQ(buf, "sched_switch");
	ASSERT_EQ(ktracker_read_text(root, "numbers", "probes", buf, 6), 0);
	ASSERT_STREQ(buf, "sched");
	test_write_file(dir, "probes", "");
	ASSERT_EQ(ktracker_read_text(root, "numbers", "probes", buf, sizeof(buf)), 0);
	ASSERT_STREQ(buf, "");
	ASSERT_EQ(ktracker_read_text(root, "numbers", "missing", buf, sizeof(buf)), -ENOENT);
	ASSERT_EQ(ktracker_read_text(root, "Bad/Name", "probes", buf, sizeof(buf)), -EINVAL);
}

/* A short write is -EIO: whatever errno held before, write() did not fail. */
static void test_short_write(void)
{
	struct rlimit old, small = {.rlim_cur = 2, .rlim_max = RLIM_INFINITY};
	char dir[PATH_MAX];
	bool opened = false;
	int r;

	snprintf(dir, sizeof(dir), "%s/%s/numbers", root, LATENCY_TRACKER_SYSFS_DIR);
	test_write_file(dir, "enabled", "0\n");
	ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &old), 0);
	small.rlim_max = old.rlim_max;
	ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &small), 0); /* the file takes 2 of the 6 bytes */
	errno = ENOTTY;
	r = ktracker_write(root, "numbers", "enabled", 1234, &opened);
	ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &old), 0);
	ASSERT_TRUE(opened);
	ASSERT_EQ(r, -EIO);
}

/* Why a write failed, naming what the kernel refused: ENOENT is a cgroup's for the cgroup
 * filter alone. */
static void test_write_problem(void)
{
	char why[256];

	ktracker_write_problem(why, sizeof(why), -ENOENT, true, "wakeup", "filter_cgroup_id",
			       "12345\n");
	ASSERT_STREQ(why, "the kernel refused filter_cgroup_id = 12345 for tracker wakeup: no such "
			  "cgroup (ENOENT: no cgroup v2 cgroup has that id)");
	ktracker_write_problem(why, sizeof(why), -ENOENT, true, "wakeup", "threshold_ns", "7\n");
	ASSERT_STREQ(why, "the kernel refused threshold_ns = 7 for tracker wakeup: No such file or "
			  "directory (ENOENT)");
	ktracker_write_problem(why, sizeof(why), -ENOENT, false, "wakeup", "threshold_ns", "7\n");
	ASSERT_STREQ(why, "no tracker 'wakeup' (see latencyctl trackers)");
	ktracker_write_problem(why, sizeof(why), -EBUSY, true, "wakeup", "filter_tgid", "1\n");
	ASSERT_CONTAINS(why, "filter_tgid = 1 for tracker wakeup: busy");
}

int main(void)
{
	char cmd[PATH_MAX];

	ASSERT_TRUE(mkdtemp(root));
	RUN(test_parse_abi);
	RUN(test_states);
	RUN(test_tracker_numbers);
	RUN(test_tracker_text);
	RUN(test_short_write);
	RUN(test_write_problem);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	return system(cmd) == 0 ? 0 : 1;
}
