// SPDX-License-Identifier: GPL-2.0-only
/*
 * latency_tracker: tunables as data. Each tunable declares its limits once; module
 * parameters, sysfs writes and the in-kernel setters all validate through here.
 */
#include <linux/ctype.h>
#include <linux/kernel.h>
#include <linux/log2.h>
#include <linux/time64.h>

#include "internal.h"

#define LT_HOUR_NS (3600ULL * NSEC_PER_SEC)
#define LT_DAY_NS (24ULL * LT_HOUR_NS)

const struct lt_range lt_range_threshold = {
	.name = "threshold_ns", .min = NSEC_PER_USEC, .max = LT_HOUR_NS,
};

/*
 * The scan period is timeout / 4, at least 1 ms and 256 ns per bucket of the key table
 * (scan.c): shorter timeouts cannot be honoured, and a timeout alert may come one period
 * late.
 */
const struct lt_range lt_range_timeout = {
	.name = "timeout_ns", .min = NSEC_PER_MSEC, .max = LT_HOUR_NS, .zero_ok = true,
};

const struct lt_range lt_range_stale = {
	.name = "stale_ns", .min = NSEC_PER_MSEC, .max = LT_DAY_NS, .zero_ok = true,
};

const struct lt_range lt_range_max_keys = {
	.name = "max_keys", .min = 16, .max = 1U << 20,
};

const struct lt_range lt_range_ring = {
	.name = "ring_records", .min = 16, .max = 1U << 16, .pow2 = true,
};

const struct lt_range lt_range_rate = {
	.name = "alert_rate_per_s", .min = 1, .max = 1000000,
};

const struct lt_range lt_range_burst = {
	.name = "alert_burst", .min = 1, .max = 1U << 16,
};

/* A tracker's own alert limit (its alert_burst shares lt_range_burst); 0: none. */
const struct lt_range lt_range_tracker_rate = {
	.name = "alert_rate_per_s", .min = 1, .max = 1000000, .zero_ok = true,
};

const struct lt_range lt_range_bool = {
	.name = "bool", .min = 0, .max = 1,
};

bool lt_range_ok(const struct lt_range *r, u64 v)
{
	if (v == 0 && r->zero_ok)
		return true;
	if (v < r->min || v > r->max)
		return false;
	return !r->pow2 || is_power_of_2(v);
}

/*
 * Decimal only, one optional trailing newline, nothing else: "12\n" is accepted;
 * " 12", "+12", "12 ms", "0x10", "-1" and out-of-range values are -EINVAL.
 */
int lt_parse_u64(const char *buf, const struct lt_range *r, u64 *out)
{
	u64 v;

	/* kstrtou64() would take a leading '+'. */
	if (!isdigit(buf[0]) || kstrtou64(buf, 10, &v))
		return -EINVAL;
	if (!lt_range_ok(r, v))
		return -EINVAL;
	*out = v;
	return 0;
}
