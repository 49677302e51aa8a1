// SPDX-License-Identifier: GPL-2.0-only
/*
 * latency_tracker: module entry points and parameters. The parameters are the defaults
 * of new trackers and the sizes of the notification ring; each is validated against its
 * declared limits (tunable.c), so a bad value makes the load fail with -EINVAL.
 */
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/time64.h>

#include "internal.h"

struct lt_defaults lt_defaults = {
	.threshold_ns = NSEC_PER_MSEC,
	.timeout_ns = 0,
	.stale_ns = 60 * NSEC_PER_SEC,
	.max_keys = 4096,
	.ring_records = 1024,
	.alert_rate = 200,
	.alert_burst = 200,
	.freelist_shared = false,
};

atomic_t lt_live_objects = ATOMIC_INIT(0);

struct lt_param {
	const struct lt_range *range;
	u64 *v64;
	unsigned int *v32;
};

static int lt_param_set(const char *val, const struct kernel_param *kp)
{
	const struct lt_param *p = kp->arg;
	u64 v;
	int ret;

	ret = lt_parse_u64(val, p->range, &v);
	if (ret) {
		pr_err("latency_tracker: invalid %s '%s'\n", p->range->name, val);
		return ret;
	}
	if (p->v64)
		*p->v64 = v;
	else
		*p->v32 = v;
	return 0;
}

static int lt_param_get(char *buf, const struct kernel_param *kp)
{
	const struct lt_param *p = kp->arg;

	return scnprintf(buf, PAGE_SIZE, "%llu\n", p->v64 ? *p->v64 : (u64)*p->v32);
}

static const struct kernel_param_ops lt_param_ops = {
	.set = lt_param_set,
	.get = lt_param_get,
};

#define LT_PARAM(_name, _range, _ptr64, _ptr32, _desc)			\
	static struct lt_param lt_param_##_name = {				\
		.range = &(_range), .v64 = (_ptr64), .v32 = (_ptr32),		\
	};									\
	module_param_cb(_name, &lt_param_ops, &lt_param_##_name, 0444);	\
	MODULE_PARM_DESC(_name, _desc)

#define LT_PARAM64(_name, _range, _field, _desc) \
	LT_PARAM(_name, _range, &lt_defaults._field, NULL, _desc)
#define LT_PARAM32(_name, _range, _field, _desc) \
	LT_PARAM(_name, _range, NULL, &lt_defaults._field, _desc)

LT_PARAM64(threshold_ns, lt_range_threshold, threshold_ns,
	   "Default threshold of new trackers, ns (1000..3600e9, default 1 ms)");
LT_PARAM64(timeout_ns, lt_range_timeout, timeout_ns,
	   "Default timeout of new trackers, ns (0 = off, or 1e6..3600e9; default off)");
LT_PARAM64(stale_ns, lt_range_stale, stale_ns,
	   "Default age at which a pending key is discarded, ns (0 = never, 1e6..86400e9; 60 s)");
LT_PARAM32(max_keys, lt_range_max_keys, max_keys,
	   "Default concurrent keys of new trackers (16..1048576, default 4096)");
LT_PARAM32(ring_records, lt_range_ring, ring_records,
	   "Records kept for the notification file (power of two, 16..65536, default 1024)");
LT_PARAM32(alert_rate_per_s, lt_range_rate, alert_rate,
	   "Initial alert rate limit, records per second (1..1000000, default 200)");
LT_PARAM32(alert_burst, lt_range_burst, alert_burst,
	   "Initial alert burst (1..65536, default 200)");

module_param_named(freelist_shared, lt_defaults.freelist_shared, bool, 0444);
MODULE_PARM_DESC(freelist_shared,
		 "Benchmark only: one free list shared by all CPUs instead of one per CPU");

static int __init latency_tracker_init(void)
{
	int ret;

	if (lt_defaults.timeout_ns && lt_defaults.stale_ns &&
	    lt_defaults.timeout_ns >= lt_defaults.stale_ns) {
		pr_err("latency_tracker: timeout_ns must be below stale_ns\n");
		return -EINVAL;
	}
	ret = lt_notify_init(lt_defaults.ring_records);
	if (ret)
		return ret;
	ret = lt_sysfs_init();
	if (ret)
		goto err_notify;
	ret = lt_notify_register();
	if (ret)
		goto err_sysfs;
	return 0;

err_sysfs:
	lt_sysfs_exit();
err_notify:
	lt_notify_exit();
	return ret;
}

static void __exit latency_tracker_exit(void)
{
	/* Trackers live in modules that depend on this one: they are gone already. */
	WARN_ON(lt_trackers_check_empty());
	lt_notify_unregister();
	lt_sysfs_exit();
	lt_notify_exit();
	WARN(atomic_read(&lt_live_objects), "latency_tracker: %d objects leaked\n",
	     atomic_read(&lt_live_objects));
}

module_init(latency_tracker_init);
module_exit(latency_tracker_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Runtime latency tracker");
MODULE_VERSION("0.1.0");
