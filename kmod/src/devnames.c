// SPDX-License-Identifier: GPL-2.0-only
/*
 * latency_tracker: device_names (ABI 1.5). latencyd writes its host's block devices, one
 * "MAJOR:MINOR NAME" line each, when its session starts; each becomes one
 * latency_tracker_device_name tracepoint, which that session records in a channel of its
 * own. The block, iosched and fs trackers' events carry only a dev_t: with the names in
 * the snapshot itself, an incident analysed on the collector names a peer's disks as the
 * peer does. (LTTng's statedump has a block device event too, but finds the devices
 * through a kallsyms lookup of block_class that distribution kernels do not allow.)
 */
#include <linux/ctype.h>
#include <linux/kdev_t.h>
#include <linux/kernel.h>
#include <linux/string.h>

#include "internal.h"

#include <trace/events/latency_tracker.h>

/*
 * One line, without its newline: "MAJOR:MINOR NAME", two decimal numbers and one space.
 * Not sscanf(), whose %u skips blanks and wraps past 32 bits, and a blank in whose format
 * matches none: it would take " 8:0 sda", "8:0sda" and "4294967304:0 sda" (as 8:0).
 */
static int lt_devname_line(const char *line, size_t len)
{
	char text[64], *minor_s, *name;
	unsigned int major, minor;
	size_t i, nlen;

	if (!len || len >= sizeof(text) || memchr(line, '\0', len))
		return -EINVAL;
	memcpy(text, line, len);
	text[len] = '\0';
	minor_s = strchr(text, ':');
	name = minor_s ? strchr(minor_s, ' ') : NULL;
	if (!name)
		return -EINVAL;
	*minor_s++ = '\0';
	*name++ = '\0';
	/* kstrtouint() takes a leading '+': a digit first. It refuses what overflows. */
	if (!isdigit(text[0]) || !isdigit(minor_s[0]) || kstrtouint(text, 10, &major) ||
	    kstrtouint(minor_s, 10, &minor) || major > MAJOR(~0U) || minor > MINOR(~0U))
		return -EINVAL;
	nlen = strlen(name);
	if (!nlen || nlen >= LATENCY_TRACKER_DEVNAME_LEN)
		return -EINVAL;
	for (i = 0; i < nlen; i++)
		if (!isalnum(name[i]) && name[i] != '.' && name[i] != '_' && name[i] != '-')
			return -EINVAL;
	trace_latency_tracker_device_name(MKDEV(major, minor), name);
	return 0;
}

static ssize_t device_names_store(struct kobject *kobj, struct kobj_attribute *attr,
				  const char *buf, size_t count)
{
	const char *p = buf, *end = buf + count, *nl;
	int ret;

	while (p < end) {
		nl = memchr(p, '\n', end - p);
		ret = lt_devname_line(p, (nl ? nl : end) - p);
		if (ret)
			return ret;
		p = nl ? nl + 1 : end;
	}
	return count;
}

struct kobj_attribute lt_device_names_attr = __ATTR_WO(device_names);
