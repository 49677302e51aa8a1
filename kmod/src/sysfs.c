// SPDX-License-Identifier: GPL-2.0-only
/*
 * latency_tracker: the configuration ABI in sysfs (usable under lockdown, unlike
 * debugfs). /sys/kernel/latency_tracker/ holds the global files, one directory per
 * tracker holds its tunables and a stats/ directory. File names and meanings are listed
 * in the uapi header. Writes are parsed by lt_parse_u64() against the declared limits:
 * garbage or out-of-range values give -EINVAL and change nothing.
 */
#include <linux/kobject.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#include "internal.h"

struct kobject *lt_root_kobj;

#define to_tracker(k) container_of(k, struct latency_tracker, kobj)

/*
 * sysfs hands a store the bytes written plus a NUL: a write with a NUL of its own, such as
 * "1\0junk", would be parsed as "1". Such a write is refused whole.
 */
static bool lt_text_ok(const char *buf, size_t count)
{
	return strnlen(buf, count) == count;
}

/*
 * Global files, one table: a value of lt_defaults (writable when it declares a range), a
 * total of the ring, or the ABI version. The root is a plain kobject (kobj_sysfs_ops), so
 * the NUL check is done here rather than in a sysfs_ops of ours.
 */

enum lt_global_kind {
	LT_G_ABI_VERSION,
	LT_G_DEFAULT,		/* an unsigned int of lt_defaults */
	LT_G_RING,		/* a u64 of struct lt_notify_stats */
};

struct lt_global_attr {
	struct kobj_attribute attr;
	enum lt_global_kind kind;
	unsigned int *val;		/* LT_G_DEFAULT */
	const struct lt_range *range;	/* LT_G_DEFAULT: the writable ones */
	size_t off;			/* LT_G_RING */
};

#define to_global(a) container_of(a, struct lt_global_attr, attr)

static ssize_t lt_global_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	struct lt_global_attr *ga = to_global(attr);
	struct lt_notify_stats st;

	switch (ga->kind) {
	case LT_G_ABI_VERSION:
		return sysfs_emit(buf, "%u.%u\n", LATENCY_TRACKER_ABI_MAJOR,
				  LATENCY_TRACKER_ABI_MINOR);
	case LT_G_DEFAULT:
		return sysfs_emit(buf, "%u\n", READ_ONCE(*ga->val));
	case LT_G_RING:
		lt_notify_stats(&st);
		return sysfs_emit(buf, "%llu\n", *(u64 *)((char *)&st + ga->off));
	}
	return -EIO;
}

static ssize_t lt_global_store(struct kobject *kobj, struct kobj_attribute *attr,
			       const char *buf, size_t count)
{
	struct lt_global_attr *ga = to_global(attr);
	u64 v;
	int ret = lt_text_ok(buf, count) ? lt_parse_u64(buf, ga->range, &v) : -EINVAL;

	if (ret)
		return ret;
	WRITE_ONCE(*ga->val, v);
	return count;
}

#define LT_GLOBAL_RO(_name, _kind, ...) {					\
	.attr = __ATTR(_name, 0444, lt_global_show, NULL),			\
	.kind = _kind, __VA_ARGS__						\
}

#define LT_GLOBAL_RW(_name, _field, _range) {					\
	.attr = __ATTR(_name, 0644, lt_global_show, lt_global_store),		\
	.kind = LT_G_DEFAULT, .val = &lt_defaults._field, .range = &_range,	\
}

#define LT_GLOBAL_RING(_name, _field)						\
	LT_GLOBAL_RO(_name, LT_G_RING, .off = offsetof(struct lt_notify_stats, _field))

static struct lt_global_attr lt_globals[] = {
	LT_GLOBAL_RO(abi_version, LT_G_ABI_VERSION),
	LT_GLOBAL_RO(ring_records, LT_G_DEFAULT, .val = &lt_defaults.ring_records),
	LT_GLOBAL_RW(alert_rate_per_s, alert_rate, lt_range_rate),
	LT_GLOBAL_RW(alert_burst, alert_burst, lt_range_burst),
	LT_GLOBAL_RING(records_written, written),
	LT_GLOBAL_RING(alerts_suppressed, suppressed),
	LT_GLOBAL_RING(alerts_dropped, dropped),
};

/* Filled from lt_globals[] and device_names by lt_sysfs_init(); the last one stays NULL. */
static struct attribute *lt_root_attrs[ARRAY_SIZE(lt_globals) + 2];

static const struct attribute_group lt_root_group = {
	.attrs = lt_root_attrs,
};

/* Per-tracker tunables. */

const char *const lt_stack_names[LT_STACK_MODES] = {
	[LATENCY_TRACKER_STACK_NONE] = "none",
	[LATENCY_TRACKER_STACK_ALERT] = "alert",
	[LATENCY_TRACKER_STACK_IN] = "in",
};

static const char *const lt_dup_names[] = {
	[LATENCY_TRACKER_DUP_REJECT] = "reject",
	[LATENCY_TRACKER_DUP_REPLACE] = "replace",
	[LATENCY_TRACKER_DUP_NEST] = "nest",
};

static ssize_t enabled_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%d\n", READ_ONCE(to_tracker(kobj)->enabled));
}

static ssize_t enabled_store(struct kobject *kobj, struct kobj_attribute *attr,
			     const char *buf, size_t count)
{
	struct latency_tracker *t = to_tracker(kobj);
	int ret;
	u64 v;

	ret = lt_parse_u64(buf, &lt_range_bool, &v);
	if (ret)
		return ret;
	if (v)
		ret = latency_tracker_enable(t);
	else
		latency_tracker_disable(t);
	return ret ?: count;
}

#define LT_U64_ATTR(_name, _field)						\
static ssize_t _name##_show(struct kobject *kobj, struct kobj_attribute *attr,	\
			    char *buf)						\
{										\
	return sysfs_emit(buf, "%llu\n",					\
			  (u64)READ_ONCE(to_tracker(kobj)->_field));		\
}

LT_U64_ATTR(threshold_ns, threshold_ns)
LT_U64_ATTR(timeout_ns, timeout_ns)
LT_U64_ATTR(stale_ns, stale_ns)
LT_U64_ATTR(max_keys, max_keys)
LT_U64_ATTR(key_size, key_size)
LT_U64_ATTR(type, type)

/* A tunable written as one integer: parsed against its declared range, then set. */
#define LT_U64_STORE(_name, _range, _set)					\
static ssize_t _name##_store(struct kobject *kobj, struct kobj_attribute *attr,	\
			     const char *buf, size_t count)			\
{										\
	u64 v;									\
	int ret = lt_parse_u64(buf, &_range, &v);				\
										\
	if (!ret)								\
		ret = _set(to_tracker(kobj), v);				\
	return ret ?: count;							\
}

LT_U64_STORE(threshold_ns, lt_range_threshold, latency_tracker_set_threshold)
LT_U64_STORE(timeout_ns, lt_range_timeout, latency_tracker_set_timeout)
LT_U64_STORE(stale_ns, lt_range_stale, lt_tracker_set_stale)
LT_U64_STORE(max_keys, lt_range_max_keys, lt_tracker_set_max_keys)

/*
 * The tracker's own alert limit. Written without the tracker's lock: each value is one
 * WRITE_ONCE() that the next alert reads under the ring lock (notify.c).
 */
static ssize_t alert_rate_per_s_show(struct kobject *kobj, struct kobj_attribute *attr,
				     char *buf)
{
	return sysfs_emit(buf, "%u\n", READ_ONCE(to_tracker(kobj)->limit.rate));
}

static ssize_t alert_rate_per_s_store(struct kobject *kobj, struct kobj_attribute *attr,
				      const char *buf, size_t count)
{
	u64 v;
	int ret = lt_parse_u64(buf, &lt_range_tracker_rate, &v);

	if (ret)
		return ret;
	WRITE_ONCE(to_tracker(kobj)->limit.rate, v);
	return count;
}

static ssize_t alert_burst_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%u\n", READ_ONCE(to_tracker(kobj)->limit.burst));
}

static ssize_t alert_burst_store(struct kobject *kobj, struct kobj_attribute *attr,
				 const char *buf, size_t count)
{
	u64 v;
	int ret = lt_parse_u64(buf, &lt_range_burst, &v);

	if (ret)
		return ret;
	WRITE_ONCE(to_tracker(kobj)->limit.burst, v);
	return count;
}

static ssize_t stack_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%s\n", lt_stack_names[READ_ONCE(to_tracker(kobj)->stack_mode)]);
}

static ssize_t stack_store(struct kobject *kobj, struct kobj_attribute *attr,
			   const char *buf, size_t count)
{
	int m = sysfs_match_string(lt_stack_names, buf);

	if (m < 0)
		return -EINVAL;
	m = lt_tracker_set_stack_mode(to_tracker(kobj), m);
	return m ?: count;
}

static ssize_t dup_policy_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%s\n", lt_dup_names[to_tracker(kobj)->dup_policy]);
}

static struct kobj_attribute lt_tracker_files[] = {
	__ATTR_RW(enabled),
	__ATTR_RW(threshold_ns),
	__ATTR_RW(timeout_ns),
	__ATTR_RW(stale_ns),
	__ATTR_RW(max_keys),
	__ATTR_RW(stack),
	__ATTR_RW(alert_rate_per_s),
	__ATTR_RW(alert_burst),
	__ATTR_RO(key_size),
	__ATTR_RO(type),
	__ATTR_RO(dup_policy),
};

/* Filled from lt_tracker_files[] by lt_sysfs_init(); the last one stays NULL. */
static struct attribute *lt_tracker_attrs[ARRAY_SIZE(lt_tracker_files) + 1];

static const struct attribute_group lt_tracker_group = {
	.attrs = lt_tracker_attrs,
};

/* Per-tracker statistics, read-only, in stats/. */

/* Computed from the sum of every CPU's statistics, numbered after the plain counters. */
enum lt_stat_derived {
	LT_S_BUSY = LT_NR_COUNTERS,
	LT_S_DROPS,
	LT_S_DELAY_COUNT,
	LT_S_DELAY_MIN,
	LT_S_DELAY_MAX,
	LT_S_DELAY_MEAN,
};

struct lt_stat_attr {
	struct kobj_attribute attr;
	unsigned int idx;		/* enum lt_counter, else enum lt_stat_derived */
};

static ssize_t lt_stat_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	struct lt_stat_attr *sa = container_of(attr, struct lt_stat_attr, attr);
	struct latency_tracker *t = to_tracker(kobj);
	struct lt_stats sum;
	u64 v = 0;
	int cpu;

	/* A plain counter is read alone: no need to add up every CPU's histogram. */
	if (sa->idx < LT_NR_COUNTERS) {
		for_each_possible_cpu(cpu)
			v += READ_ONCE(per_cpu_ptr(t->stats, cpu)->cnt[sa->idx]);
		return sysfs_emit(buf, "%llu\n", v);
	}
	lt_stats_sum(t->stats, &sum);
	switch (sa->idx) {
	case LT_S_BUSY:
		v = lt_stats_busy(&sum);
		break;
	case LT_S_DROPS:
		v = lt_stats_drops(&sum);
		break;
	case LT_S_DELAY_COUNT:
		v = sum.delay_count;
		break;
	case LT_S_DELAY_MIN:
		v = sum.delay_min;
		break;
	case LT_S_DELAY_MAX:
		v = sum.delay_max;
		break;
	case LT_S_DELAY_MEAN:
		v = lt_stats_mean(&sum);
		break;
	}
	return sysfs_emit(buf, "%llu\n", v);
}

static ssize_t pending_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	u64 pending = 0, free = 0;

	latency_tracker_count_keys(to_tracker(kobj), &pending, &free);
	return sysfs_emit(buf, "%llu\n", pending);
}

static ssize_t delay_hist_ns_show(struct kobject *kobj, struct kobj_attribute *attr,
				  char *buf)
{
	struct lt_stats sum;
	int i, len = 0;

	lt_stats_sum(to_tracker(kobj)->stats, &sum);
	for (i = 0; i < LT_HIST_BUCKETS; i++) {
		if (sum.hist[i])
			len += sysfs_emit_at(buf, len, "%llu %llu\n",
					     i ? 1ULL << i : 0ULL, sum.hist[i]);
	}
	return len;
}

#define LT_STAT(_name, _idx) {							\
	.attr = __ATTR(_name, 0444, lt_stat_show, NULL),			\
	.idx = _idx,								\
}

static struct lt_stat_attr lt_stats_files[] = {
	LT_STAT(events_in, LT_EVENTS_IN),
	LT_STAT(events_out, LT_EVENTS_OUT),
	LT_STAT(alerts, LT_ALERTS),
	LT_STAT(timeouts, LT_TIMEOUTS),
	LT_STAT(suppressed, LT_SUPPRESSED),
	LT_STAT(filtered, LT_FILTERED),
	LT_STAT(duplicates, LT_DUPLICATES),
	LT_STAT(table_full, LT_TABLE_FULL),
	LT_STAT(key_invalid, LT_KEY_INVALID),
	LT_STAT(unmatched, LT_UNMATCHED),
	LT_STAT(busy, LT_S_BUSY),
	LT_STAT(stale, LT_STALE),
	LT_STAT(discarded, LT_DISCARDED),
	LT_STAT(throttled, LT_THROTTLED),
	LT_STAT(drops, LT_S_DROPS),
	LT_STAT(delay_count, LT_S_DELAY_COUNT),
	LT_STAT(delay_min_ns, LT_S_DELAY_MIN),
	LT_STAT(delay_max_ns, LT_S_DELAY_MAX),
	LT_STAT(delay_mean_ns, LT_S_DELAY_MEAN),
	/* A read walks the whole key table under the tracker's lock: root's alone. */
	{ .attr = __ATTR(pending, 0400, pending_show, NULL) },
	{ .attr = __ATTR_RO(delay_hist_ns) },
};

/* Filled from lt_stats_files[] by lt_sysfs_init(); the last one stays NULL. */
static struct attribute *lt_stats_attrs[ARRAY_SIZE(lt_stats_files) + 1];

static const struct attribute_group lt_stats_group = {
	.name = "stats",
	.attrs = lt_stats_attrs,
};

static const struct attribute_group *lt_tracker_groups[] = {
	&lt_tracker_group,
	&lt_stats_group,
	&lt_hist_group,
	NULL
};

static void lt_tracker_kobj_release(struct kobject *kobj)
{
	lt_tracker_release(to_tracker(kobj));
}

/* kobj_sysfs_ops, plus the NUL check for every file of a tracker (trackers' own too). */
static ssize_t lt_tracker_attr_show(struct kobject *kobj, struct attribute *attr, char *buf)
{
	struct kobj_attribute *ka = container_of(attr, struct kobj_attribute, attr);

	return ka->show ? ka->show(kobj, ka, buf) : -EIO;
}

static ssize_t lt_tracker_attr_store(struct kobject *kobj, struct attribute *attr,
				     const char *buf, size_t count)
{
	struct kobj_attribute *ka = container_of(attr, struct kobj_attribute, attr);

	if (!ka->store)
		return -EIO;
	if (!lt_text_ok(buf, count))
		return -EINVAL;
	return ka->store(kobj, ka, buf, count);
}

static const struct sysfs_ops lt_tracker_sysfs_ops = {
	.show = lt_tracker_attr_show,
	.store = lt_tracker_attr_store,
};

static const struct kobj_type lt_tracker_ktype = {
	.release = lt_tracker_kobj_release,
	.sysfs_ops = &lt_tracker_sysfs_ops,
	.default_groups = lt_tracker_groups,
};

/* On failure t has been freed (through its kobject release). */
int lt_sysfs_tracker_add(struct latency_tracker *t)
{
	int ret;

	ret = kobject_init_and_add(&t->kobj, &lt_tracker_ktype, lt_root_kobj, "%s", t->name);
	if (ret)
		kobject_put(&t->kobj);
	return ret;
}

/* Returns once no sysfs read or write of t runs any more. */
void lt_sysfs_tracker_del(struct latency_tracker *t)
{
	kobject_del(&t->kobj);
}

int lt_sysfs_init(void)
{
	size_t i;
	int ret;

	for (i = 0; i < ARRAY_SIZE(lt_globals); i++)
		lt_root_attrs[i] = &lt_globals[i].attr.attr;
	lt_root_attrs[i] = &lt_device_names_attr.attr;
	for (i = 0; i < ARRAY_SIZE(lt_tracker_files); i++)
		lt_tracker_attrs[i] = &lt_tracker_files[i].attr;
	for (i = 0; i < ARRAY_SIZE(lt_stats_files); i++)
		lt_stats_attrs[i] = &lt_stats_files[i].attr.attr;
	lt_root_kobj = kobject_create_and_add(LATENCY_TRACKER_MODULE_NAME, kernel_kobj);
	if (!lt_root_kobj)
		return -ENOMEM;
	ret = sysfs_create_group(lt_root_kobj, &lt_root_group);
	if (ret) {
		kobject_put(lt_root_kobj);
		lt_root_kobj = NULL;
	}
	return ret;
}

void lt_sysfs_exit(void)
{
	sysfs_remove_group(lt_root_kobj, &lt_root_group);
	kobject_put(lt_root_kobj);
	lt_root_kobj = NULL;
}
