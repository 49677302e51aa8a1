// SPDX-License-Identifier: GPL-2.0-only
/*
 * latency_tracker_selftest: the hist/ files (ABI 1.4) of trackers made for the test,
 * read and written through sysfs as user space does, after pairs of known delays
 * (event_pair with both times given, so each delay and its bucket are exact).
 */
#include <linux/fs.h>
#include <linux/kobject.h>
#include <linux/preempt.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/string.h>
#include <linux/timekeeping.h>

#include "selftest.h"

#define ST_HIST_BUF 8192
#define ST_HIST_DIR "/sys/" LATENCY_TRACKER_SYSFS_DIR "/"

static void st_hist_path(struct latency_tracker *t, const char *file, char *path, size_t size)
{
	snprintf(path, size, ST_HIST_DIR "%s/%s", kobject_name(latency_tracker_kobj(t)), file);
}

/* Reads the whole of FILE of tracker t into buf (ST_HIST_BUF bytes). */
static int st_hist_read(struct latency_tracker *t, const char *file, char *buf)
{
	char path[96];

	st_hist_path(t, file, path, sizeof(path));
	return st_read_file(path, buf, ST_HIST_BUF);
}

/* Writes s to FILE of tracker t. Return: 0 or the write's error. */
int st_hist_write(struct latency_tracker *t, const char *file, const char *s)
{
	char path[96];
	struct file *f;
	loff_t pos = 0;
	ssize_t n;

	st_hist_path(t, file, path, sizeof(path));
	f = filp_open(path, O_WRONLY, 0);
	if (IS_ERR(f))
		return PTR_ERR(f);
	n = kernel_write(f, s, strlen(s), &pos);
	filp_close(f, NULL);
	return n < 0 ? n : 0;
}

/* The header line; returns what follows it, NULL if malformed. */
static const char *st_hist_header(const char *buf, u64 *since, u64 *now)
{
	int n = 0;

	if (sscanf(buf, "since_ns %llu now_ns %llu\n%n", since, now, &n) != 2 || !n)
		return NULL;
	return buf + n;
}

/* A pair of key {k, 0} with data[0] = d0 that took delay ns. */
static int st_hist_pair(struct latency_tracker *t, u64 k, u64 d0, u64 delay)
{
	struct latency_tracker_in in = { .data = { d0 } };
	struct latency_tracker_out out = { };
	u64 key[2] = { k, 0 };

	out.ts = latency_tracker_now();
	in.ts = out.ts - delay;
	return latency_tracker_event_pair(t, key, sizeof(key), &in, &out);
}

static u32 st_hist_key(const void *key, size_t len, const u64 *data)
{
	return data[0];
}

static void st_hist_params(struct latency_tracker_params *p, const char *name, bool keyed)
{
	st_params_init(p, name, LATENCY_TRACKER_DUP_REJECT, 64, NSEC_PER_SEC);
	if (keyed) {
		p->hist_dim = LATENCY_TRACKER_HIST_SYSCALL;
		p->hist_key = st_hist_key;
	}
}

/* Each delay in the bucket of its log2, printed by the lower bound; 0 and 1 in "0". */
static const u64 st_hist_delays[] = { 0, 1, 2, 3, 1000, 1023, 1024, 5000000 };
static const char st_hist_lines[] = "0 2\n2 2\n512 2\n1024 1\n4194304 1\n";

int st_hist_buckets(struct st_report *r)
{
	struct latency_tracker_params p;
	struct latency_tracker *t = NULL;
	const char *rest;
	u64 since, now, t0;
	char *buf;
	size_t i;
	int ret = 0;

	buf = kmalloc(ST_HIST_BUF, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	t0 = ktime_get_ns();
	st_hist_params(&p, "st_hist_buckets", false);
	ST_NEW(t, &p);
	for (i = 0; i < ARRAY_SIZE(st_hist_delays); i++)
		ST_EQ(st_hist_pair(t, i, 0, st_hist_delays[i]), 0);
	ST_EQ(st_hist_read(t, "hist/delay_ns", buf), 0);
	rest = st_hist_header(buf, &since, &now);
	ST_CHECK(rest);
	ST_CHECK(since >= t0 && since <= now && now <= ktime_get_ns());
	ST_CHECK(!strcmp(rest, st_hist_lines));
	/* The same buckets as stats/, which has no header. */
	ST_EQ(st_hist_read(t, "stats/delay_hist_ns", buf), 0);
	ST_CHECK(!strcmp(buf, st_hist_lines));
out:
	latency_tracker_destroy(t);
	kfree(buf);
	return ret;
}

int st_hist_reset(struct st_report *r)
{
	static const char *const bad[] = { "0", "2", "x", "1 ", "1\n\n" };
	struct latency_tracker_params p;
	struct latency_tracker *t = NULL;
	u64 since, now, t0;
	const char *rest;
	char *buf;
	size_t i;
	int ret = 0;

	buf = kmalloc(ST_HIST_BUF, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	st_hist_params(&p, "st_hist_reset", true);
	ST_NEW(t, &p);
	ST_EQ(st_hist_write(t, "hist/per", "syscall"), 0);
	for (i = 0; i < ARRAY_SIZE(st_hist_delays); i++)
		ST_EQ(st_hist_pair(t, i, 5, st_hist_delays[i]), 0);
	for (i = 0; i < ARRAY_SIZE(bad); i++)
		ST_EQ(st_hist_write(t, "hist/reset", bad[i]), -EINVAL);
	ST_EQ(st_hist_read(t, "hist/delay_ns", buf), 0);
	ST_CHECK(!strcmp(st_hist_header(buf, &since, &now) ?: "", st_hist_lines));

	t0 = ktime_get_ns();
	ST_EQ(st_hist_write(t, "hist/reset", "1\n"), 0);
	ST_EQ(st_hist_read(t, "hist/delay_ns", buf), 0);
	rest = st_hist_header(buf, &since, &now);
	ST_CHECK(rest && !*rest);
	ST_CHECK(since >= t0 && since <= now);
	ST_EQ(st_hist_read(t, "hist/by_key", buf), 0);
	rest = st_hist_header(buf, &since, &now);
	ST_CHECK(rest && !strcmp(rest, "per syscall\n"));
	ST_CHECK(since >= t0 && since <= now);
	/* stats/ keeps counting from the start. */
	ST_EQ(st_hist_read(t, "stats/delay_hist_ns", buf), 0);
	ST_CHECK(!strcmp(buf, st_hist_lines));

	/* Counted again after it, by the same key slot. */
	ST_EQ(st_hist_pair(t, 1, 5, 100), 0);
	ST_EQ(st_hist_read(t, "hist/delay_ns", buf), 0);
	ST_CHECK(!strcmp(st_hist_header(buf, &since, &now) ?: "", "64 1\n"));
	ST_EQ(st_hist_read(t, "hist/by_key", buf), 0);
	ST_CHECK(!strcmp(st_hist_header(buf, &since, &now) ?: "", "per syscall\n5 64 1\n"));
out:
	latency_tracker_destroy(t);
	kfree(buf);
	return ret;
}

int st_hist_per(struct st_report *r)
{
	struct latency_tracker_in in = { .data = { 11 } };
	struct latency_tracker_out out = { };
	struct latency_tracker *t = NULL, *plain = NULL;
	u64 key[2] = { 4, 0 };
	struct latency_tracker_params p;
	char *buf, want[64];
	u64 since, now;
	int ret = 0, cpu;

	buf = kmalloc(ST_HIST_BUF, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	st_hist_params(&p, "st_hist_plain", false);
	ST_NEW(plain, &p);
	st_hist_params(&p, "st_hist_per", true);
	ST_NEW(t, &p);

	ST_EQ(st_hist_read(t, "hist/per", buf), 0);
	ST_CHECK(!strcmp(buf, "none\n"));
	ST_EQ(st_hist_write(t, "hist/per", "bogus"), -EINVAL);
	ST_EQ(st_hist_write(t, "hist/per", "syscal"), -EINVAL);
	ST_EQ(st_hist_write(t, "hist/per", "disk"), -EOPNOTSUPP);
	ST_EQ(st_hist_write(plain, "hist/per", "syscall"), -EOPNOTSUPP);
	ST_EQ(st_hist_write(plain, "hist/per", "disk\n"), -EOPNOTSUPP);
	ST_EQ(st_hist_read(t, "hist/per", buf), 0);
	ST_CHECK(!strcmp(buf, "none\n"));
	/* Nothing is kept by key before per is set. */
	ST_EQ(st_hist_pair(t, 1, 7, 100), 0);
	ST_EQ(st_hist_read(t, "hist/by_key", buf), 0);
	ST_CHECK(!strcmp(st_hist_header(buf, &since, &now) ?: "", "per none\n"));

	ST_EQ(st_hist_write(t, "hist/per", "syscall\n"), 0);
	ST_EQ(st_hist_read(t, "hist/per", buf), 0);
	ST_CHECK(!strcmp(buf, "syscall\n"));
	ST_EQ(st_hist_pair(t, 1, 7, 100), 0);
	ST_EQ(st_hist_pair(t, 2, 9, 3000), 0);
	ST_EQ(st_hist_pair(t, 3, 7, 70), 0);
	/* Through the table too: the key of data[] given at event_in. */
	in.ts = latency_tracker_now();
	out.ts = in.ts + 5000;
	ST_EQ(latency_tracker_event_in(t, key, sizeof(key), &in), 0);
	ST_EQ(latency_tracker_event_out(t, key, sizeof(key), &out), 0);
	ST_EQ(st_hist_read(t, "hist/by_key", buf), 0);
	ST_CHECK(!strcmp(st_hist_header(buf, &since, &now) ?: "",
			 "per syscall\n7 64 2\n9 2048 1\n11 4096 1\n"));

	/* cpu: every tracker has it; a change of per starts by_key afresh. */
	ST_EQ(st_hist_write(plain, "hist/per", "cpu"), 0);
	ST_EQ(st_hist_write(t, "hist/per", "cpu"), 0);
	ST_EQ(st_hist_read(t, "hist/by_key", buf), 0);
	ST_CHECK(!strcmp(st_hist_header(buf, &since, &now) ?: "", "per cpu\n"));
	preempt_disable();
	cpu = smp_processor_id();
	st_hist_pair(t, 5, 7, 100);
	preempt_enable();
	ST_EQ(st_hist_read(t, "hist/by_key", buf), 0);
	snprintf(want, sizeof(want), "per cpu\n%d 64 1\n", cpu);
	ST_CHECK(!strcmp(st_hist_header(buf, &since, &now) ?: "", want));

	ST_EQ(st_hist_write(t, "hist/per", "none"), 0);
	ST_EQ(st_hist_read(t, "hist/by_key", buf), 0);
	ST_CHECK(!strcmp(st_hist_header(buf, &since, &now) ?: "", "per none\n"));
out:
	latency_tracker_destroy(t);
	latency_tracker_destroy(plain);
	kfree(buf);
	return ret;
}

/* More keys than kept: the first LATENCY_TRACKER_HIST_KEYS by key, the rest as other. */
int st_hist_other(struct st_report *r)
{
	const unsigned int extra = 6, n = LATENCY_TRACKER_HIST_KEYS + extra;
	struct latency_tracker_params p;
	struct latency_tracker *t = NULL;
	const char *rest, *line;
	char *buf, want[32];
	unsigned int i;
	u64 since, now;
	int ret = 0;

	buf = kmalloc(ST_HIST_BUF, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	st_hist_params(&p, "st_hist_other", true);
	ST_NEW(t, &p);
	ST_EQ(st_hist_write(t, "hist/per", "syscall"), 0);
	for (i = 0; i < n; i++)
		ST_EQ(st_hist_pair(t, i, 1000 + i, 100), 0);
	/* A key kept is still found once the slots are full. */
	ST_EQ(st_hist_pair(t, 0, 1000, 100), 0);
	ST_EQ(st_hist_read(t, "hist/by_key", buf), 0);
	rest = st_hist_header(buf, &since, &now);
	ST_CHECK(rest && !strncmp(rest, "per syscall\n", 12));
	line = rest + 12;
	for (i = 0; i < LATENCY_TRACKER_HIST_KEYS; i++) {
		snprintf(want, sizeof(want), "%u 64 %u\n", 1000 + i, i ? 1 : 2);
		ST_CHECK(!strncmp(line, want, strlen(want)));
		line += strlen(want);
	}
	snprintf(want, sizeof(want), "other 64 %u\n", extra);
	ST_CHECK(!strcmp(line, want));
out:
	latency_tracker_destroy(t);
	kfree(buf);
	return ret;
}
