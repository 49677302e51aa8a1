// SPDX-License-Identifier: GPL-2.0-only
/*
 * latency_tracker: module entry points.
 */
#include <linux/module.h>
#include <linux/kobject.h>
#include <linux/sysfs.h>

#include <uapi/latency_tracker.h>

static struct kobject *lt_kobj;

static ssize_t abi_version_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%u.%u\n", LATENCY_TRACKER_ABI_MAJOR, LATENCY_TRACKER_ABI_MINOR);
}

static struct kobj_attribute abi_version_attr = __ATTR_RO(abi_version);

static int __init latency_tracker_init(void)
{
	int ret;

	lt_kobj = kobject_create_and_add("latency_tracker", kernel_kobj);
	if (!lt_kobj)
		return -ENOMEM;
	ret = sysfs_create_file(lt_kobj, &abi_version_attr.attr);
	if (ret) {
		kobject_put(lt_kobj);
		return ret;
	}
	return 0;
}

static void __exit latency_tracker_exit(void)
{
	kobject_put(lt_kobj);
}

module_init(latency_tracker_init);
module_exit(latency_tracker_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Runtime latency tracker");
MODULE_VERSION("0.1.0");
