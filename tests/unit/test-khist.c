// SPDX-License-Identifier: GPL-2.0-only
/*
 * kernel/hist.c: the module's hist/delay_ns and hist/by_key (ABI 1.4) as the kernel writes
 * them, read from files in a temporary sysfs tree, and every malformed line refused with
 * the file and the line named.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kernel.h"
#include "tests.h"

static char root[64];
static char dir[128];

static void setup(void)
{
	snprintf(root, sizeof(root), "/tmp/test-khist.XXXXXX");
	ASSERT_TRUE(mkdtemp(root));
	snprintf(dir, sizeof(dir), "%s/kernel", root);
	mkdir(dir, 0755);
	snprintf(dir, sizeof(dir), "%s/kernel/latency_tracker", root);
	mkdir(dir, 0755);
	snprintf(dir, sizeof(dir), "%s/kernel/latency_tracker/block", root);
	mkdir(dir, 0755);
	test_write_file(dir, "enabled", "1\n");
	snprintf(dir, sizeof(dir), "%s/kernel/latency_tracker/block/hist", root);
	mkdir(dir, 0755);
}

static void teardown(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	ASSERT_EQ(system(cmd), 0);
}

static void test_delay(void)
{
	static struct proto_hist h;
	char why[KHIST_WHY_LEN] = "";

	test_write_file(dir, "delay_ns",
			"since_ns 1000 now_ns 2001000\n0 4\n4096 10\n8192 25\n1048576 5\n");
	ASSERT_EQ(khist_read(root, "block", false, &h, why, sizeof(why)), 0);
	ASSERT_EQ(h.since_ns, 1000);
	ASSERT_EQ(h.now_ns, 2001000);
	ASSERT_EQ(h.counts[0], 4);
	ASSERT_EQ(h.counts[12], 10);
	ASSERT_EQ(h.counts[13], 25);
	ASSERT_EQ(h.counts[20], 5);
	ASSERT_EQ(proto_hist_total(h.counts), 44);
	ASSERT_EQ(h.nkeys, 0);

	/* An empty histogram: the header alone, no final newline. */
	test_write_file(dir, "delay_ns", "since_ns 5 now_ns 5");
	ASSERT_EQ(khist_read(root, "block", false, &h, why, sizeof(why)), 0);
	ASSERT_EQ(proto_hist_total(h.counts), 0);

	/* No hist/ file (a module before 1.4), no tracker, no tracker name: each said apart. */
	unlink(test_write_file(dir, "delay_ns", ""));
	ASSERT_EQ(khist_read(root, "block", false, &h, why, sizeof(why)), -ENOENT);
	ASSERT_STREQ(why, "tracker block has no histograms (hist/): its module is older than "
			  "latency_tracker ABI 1.4");
	memset(why, 'x', sizeof(why) - 1);
	ASSERT_EQ(khist_read(root, "nope", false, &h, why, sizeof(why)), -ENOENT);
	ASSERT_STREQ(why, "no tracker 'nope' (see latencyctl trackers)");
	memset(why, 'x', sizeof(why) - 1);
	ASSERT_EQ(khist_read(root, "../..", false, &h, why, sizeof(why)), -EINVAL);
	ASSERT_STREQ(why, "invalid tracker name '../..'");
}

static void test_by_key(void)
{
	static struct proto_hist h;
	char why[KHIST_WHY_LEN] = "", text[8192];
	size_t len;

	test_write_file(dir, "by_key",
			"since_ns 10 now_ns 20\nper disk\n253:0 4096 9\n253:0 8192 20\n"
			"7:0 1048576 5\nother 2 1\n");
	ASSERT_EQ(khist_read(root, "block", true, &h, why, sizeof(why)), 0);
	ASSERT_STREQ(h.per, "disk");
	ASSERT_EQ(h.nkeys, 3);
	ASSERT_STREQ(h.keys[0].key, "253:0");
	ASSERT_EQ(h.keys[0].counts[12], 9);
	ASSERT_EQ(h.keys[0].counts[13], 20);
	ASSERT_STREQ(h.keys[1].key, "7:0");
	ASSERT_EQ(h.keys[1].counts[20], 5);
	ASSERT_STREQ(h.keys[2].key, "other");
	ASSERT_EQ(h.keys[2].counts[1], 1);

	test_write_file(dir, "by_key", "since_ns 10 now_ns 20\nper none\n");
	ASSERT_EQ(khist_read(root, "block", true, &h, why, sizeof(why)), 0);
	ASSERT_STREQ(h.per, "none");
	ASSERT_EQ(h.nkeys, 0);

	/* 64 CPUs and "other", larger than a page: read whole. */
	len = (size_t)snprintf(text, sizeof(text), "since_ns 1 now_ns 2\nper cpu\n");
	for (int cpu = 0; cpu < 64; cpu++)
		len += (size_t)snprintf(text + len, sizeof(text) - len, "%d 1024 %d\n%d 2048 1\n",
					cpu, cpu + 1, cpu);
	snprintf(text + len, sizeof(text) - len, "other 1024 7\n");
	test_write_file(dir, "by_key", text);
	ASSERT_EQ(khist_read(root, "block", true, &h, why, sizeof(why)), 0);
	ASSERT_EQ(h.nkeys, 65);
	ASSERT_STREQ(h.keys[63].key, "63");
	ASSERT_EQ(h.keys[63].counts[10], 64);
	ASSERT_EQ(h.keys[64].counts[10], 7);
}

/*
 * A tracker whose enabled file fits in PATH_MAX but not its hist/delay_ns (6 bytes longer):
 * the error is said, WHY is not left as it was.
 */
static void test_long_path(void)
{
	static struct proto_hist h;
	const char *tail = "/kernel/latency_tracker/block/enabled";
	char why[KHIST_WHY_LEN], path[PATH_MAX], cmd[2 * PATH_MAX];
	size_t len = strlen(root);

	/* ROOT/ddd.../ddd... : components of at most 200 bytes, up to the length wanted. */
	memcpy(path, root, len);
	while (len + strlen(tail) < PATH_MAX - 4) {
		size_t n = PATH_MAX - 4 - strlen(tail) - len;

		n = n > 201 ? 201 : n < 2 ? 2 : n;
		path[len] = '/';
		memset(path + len + 1, 'd', n - 1);
		len += n;
	}
	path[len] = 0;
	ASSERT_EQ(len + strlen(tail), PATH_MAX - 4);
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s/kernel/latency_tracker/block'", path);
	ASSERT_EQ(system(cmd), 0);
	snprintf(cmd, sizeof(cmd), "%s/kernel/latency_tracker/block", path);
	test_write_file(cmd, "enabled", "1\n");

	memset(why, 'x', sizeof(why) - 1);
	why[sizeof(why) - 1] = 0;
	ASSERT_EQ(khist_read(path, "block", false, &h, why, sizeof(why)), -ENAMETOOLONG);
	ASSERT_STREQ(why, "cannot read hist/delay_ns of tracker block: its path is too long");
}

static void bad(bool by_key, const char *text, const char *message)
{
	static struct proto_hist h;
	char why[KHIST_WHY_LEN] = "";

	ASSERT_EQ(khist_parse(text, "block/hist/by_key", by_key, &h, why, sizeof(why)), -EBADMSG);
	ASSERT_CONTAINS(why, message);
}

static void test_malformed(void)
{
	bad(false, "", "block/hist/by_key line 1: empty file");
	bad(false, "since 1 now 2\n", "line 1: expected 'since_ns N now_ns N'");
	bad(false, "since_ns 1 now_ns 2 3\n", "line 1: expected 'since_ns N now_ns N'");
	bad(false, "since_ns -1 now_ns 2\n", "line 1: expected");
	bad(false, "since_ns 18446744073709551616 now_ns 2\n", "line 1: expected");
	bad(false, "since_ns 9 now_ns 2\n", "line 1: now_ns 2 is before since_ns 9");
	bad(false, "since_ns 1 now_ns 2\n4096\n", "line 2: expected '<lower bound ns> <count>'");
	bad(false, "since_ns 1 now_ns 2\n4096 1 2\n",
	    "line 2: expected '<lower bound ns> <count>'");
	bad(false, "since_ns 1 now_ns 2\n4096  1\n", "line 2: expected");
	bad(false, "since_ns 1 now_ns 2\n4096 x\n", "line 2: expected");
	bad(false, "since_ns 1 now_ns 2\n\n", "line 2: expected");
	bad(false, "since_ns 1 now_ns 2\n1 5\n", "line 2: 1 is no bucket's lower bound");
	bad(false, "since_ns 1 now_ns 2\n4096 1\n3000 1\n", "line 3: 3000 is no bucket's");
	bad(false, "since_ns 1 now_ns 2\n4096 1\n2048 1\n",
	    "line 3: bucket 2048 after bucket 4096: buckets must increase");
	bad(false, "since_ns 1 now_ns 2\n4096 1\n4096 1\n", "line 3: bucket 4096 after");
	bad(true, "since_ns 1 now_ns 2\n", "line 1: missing line 2 'per WORD'");
	bad(true, "since_ns 1 now_ns 2\nper disks\n",
	    "line 2: expected 'per none|cpu|disk|syscall'");
	bad(true, "since_ns 1 now_ns 2\nper none\n0 1 1\n",
	    "line 3: a bucket line while per is none");
	bad(true, "since_ns 1 now_ns 2\nper disk\n8 4096 1\n",
	    "line 3: '8' is not a key of per disk");
	bad(true, "since_ns 1 now_ns 2\nper cpu\n8:0 4096 1\n",
	    "line 3: '8:0' is not a key of per cpu");
	bad(true, "since_ns 1 now_ns 2\nper syscall\nread 4096 1\n", "line 3: 'read' is not a key");
	bad(true, "since_ns 1 now_ns 2\nper cpu\n1 4096\n",
	    "line 3: expected '<lower bound ns> <count>'");
	bad(true, "since_ns 1 now_ns 2\nper cpu\n1\n",
	    "line 3: expected '<key> <lower bound ns> <count>'");
	bad(true, "since_ns 1 now_ns 2\nper cpu\n1 4096 1\n2 4096 1\n1 8192 1\n",
	    "line 5: key 1 again after another: keys must be grouped");
	bad(true, "since_ns 1 now_ns 2\nper cpu\n1 8192 1\n1 4096 1\n",
	    "line 4: bucket 4096 after");
}

/* More keys than the module keeps: it counts them under "other", so this is no module. */
static void test_too_many_keys(void)
{
	char text[8192];
	size_t len = (size_t)snprintf(text, sizeof(text), "since_ns 1 now_ns 2\nper cpu\n");

	for (int cpu = 0; cpu < 66; cpu++)
		len += (size_t)snprintf(text + len, sizeof(text) - len, "%d 1024 1\n", cpu);
	bad(true, text, "line 68: more than 64 keys and 'other'");
}

int main(void)
{
	setup();
	RUN(test_delay);
	RUN(test_by_key);
	RUN(test_malformed);
	RUN(test_too_many_keys);
	RUN(test_long_path);
	teardown();
	return 0;
}
