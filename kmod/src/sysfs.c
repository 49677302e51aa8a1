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

/* Global files. */

static ssize_t abi_version_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%u.%u\n", LATENCY_TRACKER_ABI_MAJOR, LATENCY_TRACKER_ABI_MINOR);
}

static ssize_t ring_records_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%u\n", lt_defaults.ring_records);
}

static ssize_t alert_rate_per_s_show(struct kobject *kobj, struct kobj_attribute *attr,
				     char *buf)
{
	return sysfs_emit(buf, "%u\n", READ_ONCE(lt_defaults.alert_rate));
}

static ssize_t alert_rate_per_s_store(struct kobject *kobj, struct kobj_attribute *attr,
				      const char *buf, size_t count)
{
	u64 v;
	int ret = lt_text_ok(buf, count) ? lt_parse_u64(buf, &lt_range_rate, &v) : -EINVAL;

	if (ret)
		return ret;
	WRITE_ONCE(lt_defaults.alert_rate, v);
	return count;
}

static ssize_t alert_burst_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%u\n", READ_ONCE(lt_defaults.alert_burst));
}

static ssize_t alert_burst_store(struct kobject *kobj, struct kobj_attribute *attr,
				 const char *buf, size_t count)
{
	u64 v;
	int ret = lt_text_ok(buf, count) ? lt_parse_u64(buf, &lt_range_burst, &v) : -EINVAL;

	if (ret)
		return ret;
	WRITE_ONCE(lt_defaults.alert_burst, v);
	return count;
}

static ssize_t records_written_show(struct kobject *kobj, struct kobj_attribute *attr,
				    char *buf)
{
	struct lt_notify_stats st;

	lt_notify_stats(&st);
	return sysfs_emit(buf, "%llu\n", st.written);
}

static ssize_t alerts_suppressed_show(struct kobject *kobj, struct kobj_attribute *attr,
				      char *buf)
{
	struct lt_notify_stats st;

	lt_notify_stats(&st);
	return sysfs_emit(buf, "%llu\n", st.suppressed);
}

static ssize_t alerts_dropped_show(struct kobject *kobj, struct kobj_attribute *attr,
				   char *buf)
{
	struct lt_notify_stats st;

	lt_notify_stats(&st);
	return sysfs_emit(buf, "%llu\n", st.dropped);
}

static struct kobj_attribute lt_abi_version_attr = __ATTR_RO(abi_version);
static struct kobj_attribute lt_ring_records_attr = __ATTR_RO(ring_records);
static struct kobj_attribute lt_alert_rate_attr = __ATTR_RW(alert_rate_per_s);
static struct kobj_attribute lt_alert_burst_attr = __ATTR_RW(alert_burst);
static struct kobj_attribute lt_records_written_attr = __ATTR_RO(records_written);
static struct kobj_attribute lt_alerts_suppressed_attr = __ATTR_RO(alerts_suppressed);
static struct kobj_attribute lt_alerts_dropped_attr = __ATTR_RO(alerts_dropped);

static struct attribute *lt_root_attrs[] = {
	&lt_abi_version_attr.attr,
	&lt_ring_records_attr.attr,
	&lt_alert_rate_attr.attr,
	&lt_alert_burst_attr.attr,
	&lt_records_written_attr.attr,
	&lt_alerts_suppressed_attr.attr,
	&lt_alerts_dropped_attr.attr,
	NULL
};

static const struct attribute_group lt_root_group = {
	.attrs = lt_root_attrs,
};

/* Per-tracker tunables. */

static const char *const lt_stack_names[] = {
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

static struct kobj_attribute lt_enabled_attr = __ATTR_RW(enabled);
static struct kobj_attribute lt_threshold_attr = __ATTR_RW(threshold_ns);
static struct kobj_attribute lt_timeout_attr = __ATTR_RW(timeout_ns);
static struct kobj_attribute lt_stale_attr = __ATTR_RW(stale_ns);
static struct kobj_attribute lt_max_keys_attr = __ATTR_RW(max_keys);
static struct kobj_attribute lt_stack_attr = __ATTR_RW(stack);
static struct kobj_attribute lt_key_size_attr = __ATTR_RO(key_size);
static struct kobj_attribute lt_type_attr = __ATTR_RO(type);
static struct kobj_attribute lt_dup_policy_attr = __ATTR_RO(dup_policy);

static struct attribute *lt_tracker_attrs[] = {
	&lt_enabled_attr.attr,
	&lt_threshold_attr.attr,
	&lt_timeout_attr.attr,
	&lt_stale_attr.attr,
	&lt_max_keys_attr.attr,
	&lt_stack_attr.attr,
	&lt_key_size_attr.attr,
	&lt_type_attr.attr,
	&lt_dup_policy_attr.attr,
	NULL
};

static const struct attribute_group lt_tracker_group = {
	.attrs = lt_tracker_attrs,
};

/* Per-tracker statistics, read-only, in stats/. */

struct lt_counter_attr {
	struct kobj_attribute attr;
	enum lt_counter idx;
};

static ssize_t lt_counter_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	struct lt_counter_attr *ca = container_of(attr, struct lt_counter_attr, attr);
	u64 sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += READ_ONCE(per_cpu_ptr(to_tracker(kobj)->stats, cpu)->cnt[ca->idx]);
	return sysfs_emit(buf, "%llu\n", sum);
}

#define LT_COUNTER_ATTR(_name, _idx)						\
static struct lt_counter_attr lt_stat_##_name = {				\
	.attr = __ATTR(_name, 0444, lt_counter_show, NULL),			\
	.idx = _idx,								\
}

LT_COUNTER_ATTR(events_in, LT_EVENTS_IN);
LT_COUNTER_ATTR(events_out, LT_EVENTS_OUT);
LT_COUNTER_ATTR(alerts, LT_ALERTS);
LT_COUNTER_ATTR(timeouts, LT_TIMEOUTS);
LT_COUNTER_ATTR(suppressed, LT_SUPPRESSED);
LT_COUNTER_ATTR(filtered, LT_FILTERED);
LT_COUNTER_ATTR(duplicates, LT_DUPLICATES);
LT_COUNTER_ATTR(table_full, LT_TABLE_FULL);
LT_COUNTER_ATTR(key_invalid, LT_KEY_INVALID);
LT_COUNTER_ATTR(unmatched, LT_UNMATCHED);
LT_COUNTER_ATTR(busy, LT_BUSY);
LT_COUNTER_ATTR(stale, LT_STALE);
LT_COUNTER_ATTR(discarded, LT_DISCARDED);

enum lt_derived {
	LT_D_DROPS,
	LT_D_DELAY_COUNT,
	LT_D_DELAY_MIN,
	LT_D_DELAY_MAX,
	LT_D_DELAY_MEAN,
};

struct lt_derived_attr {
	struct kobj_attribute attr;
	enum lt_derived idx;
};

static ssize_t lt_derived_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	struct lt_derived_attr *da = container_of(attr, struct lt_derived_attr, attr);
	struct lt_stats sum;
	u64 v = 0;

	lt_stats_sum(to_tracker(kobj)->stats, &sum);
	switch (da->idx) {
	case LT_D_DROPS:
		v = lt_stats_drops(&sum);
		break;
	case LT_D_DELAY_COUNT:
		v = sum.delay_count;
		break;
	case LT_D_DELAY_MIN:
		v = sum.delay_min;
		break;
	case LT_D_DELAY_MAX:
		v = sum.delay_max;
		break;
	case LT_D_DELAY_MEAN:
		v = sum.delay_count ? div64_u64(sum.delay_sum, sum.delay_count) : 0;
		break;
	}
	return sysfs_emit(buf, "%llu\n", v);
}

#define LT_DERIVED_ATTR(_name, _idx)						\
static struct lt_derived_attr lt_stat_##_name = {				\
	.attr = __ATTR(_name, 0444, lt_derived_show, NULL),			\
	.idx = _idx,								\
}

LT_DERIVED_ATTR(drops, LT_D_DROPS);
LT_DERIVED_ATTR(delay_count, LT_D_DELAY_COUNT);
LT_DERIVED_ATTR(delay_min_ns, LT_D_DELAY_MIN);
LT_DERIVED_ATTR(delay_max_ns, LT_D_DELAY_MAX);
LT_DERIVED_ATTR(delay_mean_ns, LT_D_DELAY_MEAN);

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

static struct kobj_attribute lt_stat_pending = __ATTR_RO(pending);
static struct kobj_attribute lt_stat_delay_hist = __ATTR_RO(delay_hist_ns);

static struct attribute *lt_stats_attrs[] = {
	&lt_stat_events_in.attr.attr,
	&lt_stat_events_out.attr.attr,
	&lt_stat_alerts.attr.attr,
	&lt_stat_timeouts.attr.attr,
	&lt_stat_suppressed.attr.attr,
	&lt_stat_filtered.attr.attr,
	&lt_stat_duplicates.attr.attr,
	&lt_stat_table_full.attr.attr,
	&lt_stat_key_invalid.attr.attr,
	&lt_stat_unmatched.attr.attr,
	&lt_stat_busy.attr.attr,
	&lt_stat_stale.attr.attr,
	&lt_stat_discarded.attr.attr,
	&lt_stat_drops.attr.attr,
	&lt_stat_delay_count.attr.attr,
	&lt_stat_delay_min_ns.attr.attr,
	&lt_stat_delay_max_ns.attr.attr,
	&lt_stat_delay_mean_ns.attr.attr,
	&lt_stat_pending.attr,
	&lt_stat_delay_hist.attr,
	NULL
};

static const struct attribute_group lt_stats_group = {
	.name = "stats",
	.attrs = lt_stats_attrs,
};

static const struct attribute_group *lt_tracker_groups[] = {
	&lt_tracker_group,
	&lt_stats_group,
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
	int ret;

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
