/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * latency_tracker_selftest: in-kernel tests of the tracker API, alert generators for the
 * user-space tests, a background stress load and a micro-benchmark. Driven through
 * /sys/kernel/latency_tracker_selftest/ (see selftest.c).
 */
#ifndef _LT_SELFTEST_H
#define _LT_SELFTEST_H

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

/* cases.c */
int st_run_cases(struct st_report *r, const char *only);

/* bench.c */
int st_bench(struct st_report *r, unsigned int n);

/* selftest.c: shared helpers. */
void st_params_init(struct latency_tracker_params *p, const char *name,
		    enum latency_tracker_dup_policy dup, u32 max_keys, u64 threshold_ns);
struct latency_tracker *st_tracker_new(const struct latency_tracker_params *p);

#endif /* _LT_SELFTEST_H */
