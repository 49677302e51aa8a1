// SPDX-License-Identifier: GPL-2.0-only
/*
 * latency_tracker_selftest: the statistics and the scanner's bookkeeping of trackers made
 * for the test: the mean delay past a 64-bit sum of delays, the bound of oldest_ns kept
 * fresh with neither a timeout nor a staleness.
 */
#include <linux/delay.h>
#include <linux/limits.h>
#include <linux/time64.h>

#include "selftest.h"

#define ST_STATS_DIR "/sys/" LATENCY_TRACKER_SYSFS_DIR "/"

/*
 * Delays whose sum passes 2^64: three of 2^64 - 2 ns and one of 5 ns, each pair with both
 * its times given. Their sum is 3 * 2^64 - 1, whose mean is 3 * 2^62 - 1 exactly: a
 * 64-bit sum would give (2^64 - 1) / 4 instead. Both the API and stats/delay_mean_ns,
 * which latencyd reads, must give it.
 */
int st_stats_delay_sum(struct st_report *r)
{
	struct latency_tracker_in in = { .ts = 1 };
	struct latency_tracker_out out = { .ts = U64_MAX };
	const u64 mean = (3ULL << 62) - 1;
	struct latency_tracker_params p;
	struct latency_tracker_stats s;
	struct latency_tracker *t = NULL;
	char path[96];
	u64 v = 0;
	int ret = 0, i;

	st_params_init(&p, "st_delay_sum", LATENCY_TRACKER_DUP_REJECT, 16,
		       3600 * NSEC_PER_SEC);
	ST_NEW(t, &p);
	for (i = 0; i < 3; i++)
		ST_EQ(latency_tracker_event_pair(t, &i, sizeof(i), &in, &out), 1);
	out.ts = in.ts + 5;
	ST_EQ(latency_tracker_event_pair(t, &i, sizeof(i), &in, &out), 0);
	latency_tracker_get_stats(t, &s);
	ST_EQ(s.delay_count, 4);
	ST_CHECK(s.delay_max_ns == U64_MAX - 1);
	ST_CHECK(s.delay_sum_ns == U64_MAX);
	ST_EQ(s.delay_sum_hi, 2);
	if (s.delay_mean_ns != mean) {
		st_printf(r, "  %s: delay_mean_ns %llu, expected %llu\n", __func__,
			  s.delay_mean_ns, mean);
		ret = -EINVAL;
		goto out;
	}
	snprintf(path, sizeof(path), ST_STATS_DIR "%s/stats/delay_mean_ns", p.name);
	ST_EQ(st_read_u64(path, &v), 0);
	if (v != mean) {
		st_printf(r, "  %s: stats/delay_mean_ns %llu, expected %llu\n", __func__, v, mean);
		ret = -EINVAL;
	}
out:
	latency_tracker_destroy(t);
	return ret;
}

/*
 * With timeout_ns and stale_ns both 0, oldest_ns (what the syscalls tracker checks at each
 * switch-in before a lookup) must still rise once the key that lowered it has ended: the
 * scanner refreshes it every second then. Waits up to 10 s, for a slow emulated machine.
 */
int st_stats_oldest_refresh(struct st_report *r)
{
	struct latency_tracker_params p;
	struct latency_tracker *t = NULL;
	int ret = 0;

	st_params_init(&p, "st_oldest", LATENCY_TRACKER_DUP_REJECT, 16, NSEC_PER_SEC);
	ST_NEW(t, &p);
	ST_EQ(st_hist_write(t, "timeout_ns", "0"), 0);
	ST_EQ(st_hist_write(t, "stale_ns", "0"), 0);
	ST_EQ(latency_tracker_event_in(t, "k", 1, NULL), 0);
	ST_CHECK(latency_tracker_oldest_ns(t) != U64_MAX);
	ST_EQ(latency_tracker_event_out(t, "k", 1, NULL), 0);
	ST_WAIT(latency_tracker_oldest_ns(t) == U64_MAX, 10000);
	ST_CHECK(latency_tracker_oldest_ns(t) == U64_MAX);
out:
	latency_tracker_destroy(t);
	return ret;
}
