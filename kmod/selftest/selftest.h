/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * latency_tracker_selftest: in-kernel tests of the tracker API, alert generators for the
 * user-space tests, a background stress load and a micro-benchmark. Driven through
 * /sys/kernel/latency_tracker_selftest/ (see selftest.c).
 */
#ifndef _LT_SELFTEST_H
#define _LT_SELFTEST_H

#include <linux/err.h>
#include <linux/types.h>
#include <latency_tracker/latency_tracker.h>

#define ST_RESULTS_SIZE (4 * PAGE_SIZE)

/* A growing text report: one line per check that failed, one per case. */
struct st_report {
	char *buf;
	size_t len;
	int passed;
	int failed;
};

__printf(2, 3) void st_printf(struct st_report *r, const char *fmt, ...);

/* In a case, whose result is ret and whose cleanup label is "out". On failure: report the line, set ret, jump to the case's cleanup label "out". */
#define ST_CHECK(cond)								\
	do {									\
		if (!(cond)) {							\
			st_printf(r, "  %s:%d: %s\n", __func__, __LINE__, #cond);	\
			ret = -EINVAL;						\
			goto out;						\
		}								\
	} while (0)

#define ST_EQ(a, b)								\
	do {									\
		long long _a = (long long)(a), _b = (long long)(b);		\
		if (_a != _b) {							\
			st_printf(r, "  %s:%d: %s = %lld, expected %lld\n",	\
				  __func__, __LINE__, #a, _a, _b);		\
			ret = -EINVAL;						\
			goto out;						\
		}								\
	} while (0)

#define ST_NEW(t, p)								\
	do {									\
		t = st_tracker_new(p);						\
		if (IS_ERR(t)) {						\
			st_printf(r, "  %s: create %s: %ld\n", __func__,	\
				  (p)->name, PTR_ERR(t));			\
			ret = PTR_ERR(t);					\
			t = NULL;						\
			goto out;						\
		}								\
	} while (0)

/* Polls cond every 5 ms for up to ms milliseconds (msleep(): linux/delay.h). */
#define ST_WAIT(cond, ms)							\
	do {									\
		unsigned int _i;						\
		for (_i = 0; _i < (ms) / 5 && !(cond); _i++)			\
			msleep(5);						\
	} while (0)

/* cases.c */
int st_run_cases(struct st_report *r, const char *only);

/* hist_cases.c: the hist/ files, read and written through sysfs. */
int st_hist_buckets(struct st_report *r);
int st_hist_reset(struct st_report *r);
int st_hist_per(struct st_report *r);
int st_hist_write(struct latency_tracker *t, const char *file, const char *s);
int st_hist_other(struct st_report *r);

/* stats_cases.c: the statistics and oldest_ns. */
int st_stats_delay_sum(struct st_report *r);
int st_stats_oldest_refresh(struct st_report *r);

/* bench.c */
int st_bench(struct st_report *r, unsigned int n);

/* selftest.c: shared helpers. */
void st_params_init(struct latency_tracker_params *p, const char *name,
		    enum latency_tracker_dup_policy dup, u32 max_keys, u64 threshold_ns);
struct latency_tracker *st_tracker_new(const struct latency_tracker_params *p);
/* The whole of a file into buf (SIZE with its NUL), in pieces smaller than a page, as sysfs
 * and seq files hand them. Return: 0 or -errno. */
int st_read_file(const char *path, char *buf, size_t size);
/* The number in a sysfs file (a module parameter...). Return: 0 or -errno. */
int st_read_u64(const char *path, u64 *v);

#endif /* _LT_SELFTEST_H */
