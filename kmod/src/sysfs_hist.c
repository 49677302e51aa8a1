// SPDX-License-Identifier: GPL-2.0-only
/*
 * latency_tracker: a tracker's hist/ directory (ABI 1.4; the formats are in the uapi
 * header). by_key is a binary attribute only because it may exceed a page: its content
 * is text like the others'.
 */
#include <linux/kobject.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#include "internal.h"

#define to_tracker(k) container_of(k, struct latency_tracker, kobj)

/* Only "1": a reset is an action, not a value. */
static const struct lt_range lt_range_reset = {
	.name = "reset", .min = 1, .max = 1,
};

static ssize_t delay_ns_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	return lt_hist_delay_show(to_tracker(kobj), buf);
}

static ssize_t per_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%s\n",
			  lt_hist_per_names[READ_ONCE(to_tracker(kobj)->hist.per)]);
}

static ssize_t per_store(struct kobject *kobj, struct kobj_attribute *attr,
			 const char *buf, size_t count)
{
	int per = sysfs_match_string(lt_hist_per_names, buf);

	if (per < 0)
		return -EINVAL;
	per = lt_hist_set_per(to_tracker(kobj), per);
	return per ?: count;
}

static ssize_t reset_store(struct kobject *kobj, struct kobj_attribute *attr,
			   const char *buf, size_t count)
{
	u64 v;
	int ret = lt_parse_u64(buf, &lt_range_reset, &v);

	if (ret)
		return ret;
	lt_hist_reset(to_tracker(kobj));
	return count;
}

static struct kobj_attribute lt_hist_delay_attr = __ATTR_RO(delay_ns);
static struct kobj_attribute lt_hist_per_attr = __ATTR_RW(per);
static struct kobj_attribute lt_hist_reset_attr = __ATTR_WO(reset);

static struct attribute *lt_hist_attrs[] = {
	&lt_hist_delay_attr.attr,
	&lt_hist_per_attr.attr,
	&lt_hist_reset_attr.attr,
	NULL
};

static ssize_t by_key_read(struct file *file, struct kobject *kobj,
			   struct bin_attribute *attr, char *buf, loff_t off, size_t count)
{
	return lt_hist_by_key_read(to_tracker(kobj), buf, off, count);
}

/*
 * Size 0: no fixed size, reads end where the text does. Root only: each read from offset
 * 0 renders every key and CPU into a fresh buffer under the hist lock, which a loop of
 * unprivileged reads would keep busy.
 */
static BIN_ATTR_ADMIN_RO(by_key, 0);

static struct bin_attribute *lt_hist_bin_attrs[] = {
	&bin_attr_by_key,
	NULL
};

const struct attribute_group lt_hist_group = {
	.name = "hist",
	.attrs = lt_hist_attrs,
	.bin_attrs = lt_hist_bin_attrs,
};
