// SPDX-License-Identifier: GPL-2.0-only
/*
 * latency_tracker_app: the "app" tracker. Application markers without custom kernel
 * code: a process writes "begin COOKIE" to the misc device LATENCY_TRACKER_APP_PATH
 * when a piece of work starts (a request, a transaction) and the same or another
 * process writes "end COOKIE" when it ends; the key is the cookie's bytes. Work that
 * took at least threshold_ns raises an alert whose task is the writer of begin and
 * whose data[0..3] hold the cookie. From a shell:
 *
 *	echo "begin req42" >/dev/latency_tracker_app
 *	echo "end req42" >/dev/latency_tracker_app
 *
 * Syntax, strict: one command per write(): "begin " or "end " and a COOKIE of 1 to
 * LATENCY_TRACKER_APP_COOKIE_MAX printable non-space ASCII bytes, an optional trailing
 * newline, nothing else. Anything else fails with -EINVAL and changes nothing, so a
 * buggy caller finds out at once. Reads fail with -EINVAL.
 *
 * What a well-formed write never does is fail because of the tracking: the markers sit
 * in the hot path of a server, which should not need error handling for them. "end" of
 * an unknown cookie (never begun, filtered out, discarded as stale, written while
 * disabled) succeeds and is counted in stats/unmatched; a full table succeeds and is
 * counted in stats/table_full; "begin" of a pending cookie restarts it (dup policy
 * replace: a reused cookie whose end was lost), counted in stats/duplicates.
 *
 * Filters apply to the writer of begin (filter_tgid, filter_tid, filter_comm,
 * filter_cgroup_id); a filtered-out begin is not stored, so its end is unmatched.
 *
 * Cost: no tracepoint, so the probes file is empty. While disabled a write is copied
 * (at most 39 bytes) and validated, then ignored: no table access. Enabled: one table
 * insert or remove per write, plus the write(2) itself (about a microsecond).
 *
 * Access: mode 0660, owner root. Markers are not read-only observation: a writer can
 * fill the table (hiding other applications' work) and raise alerts at will, which
 * count against the alert rate limit shared by every tracker; so not every local user
 * may write. Grant a service through its group with a udev rule, e.g.
 *	KERNEL=="latency_tracker_app", GROUP="www-data", MODE="0660"
 * in /etc/udev/rules.d/60-latency-tracker-app.rules.
 *
 * Unload: the file operations are owned by this module, so an open file holds a module
 * reference and rmmod fails with EBUSY until it is closed.
 */
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "common.h"

#define LTT_APP_BEGIN "begin "
#define LTT_APP_END "end "
/* The longest command: "begin ", the longest cookie and a newline. */
#define LTT_APP_CMD_MAX (sizeof(LTT_APP_BEGIN) - 1 + LATENCY_TRACKER_APP_COOKIE_MAX + 1)

static struct latency_tracker *ltt_app;
static struct ltt_filter ltt_app_filter;
/* Set between activate and deactivate: a disabled tracker is not even looked up. */
static bool ltt_app_active;

/* Return: the cookie's length, 0 if @buf is not a valid command. */
static size_t ltt_app_parse(const char *buf, size_t len, bool *begin, const char **cookie)
{
	size_t plen, i;

	if (len && buf[len - 1] == '\n')
		len--;
	if (len > sizeof(LTT_APP_BEGIN) - 1 &&
	    !memcmp(buf, LTT_APP_BEGIN, sizeof(LTT_APP_BEGIN) - 1)) {
		*begin = true;
		plen = sizeof(LTT_APP_BEGIN) - 1;
	} else if (len > sizeof(LTT_APP_END) - 1 &&
		   !memcmp(buf, LTT_APP_END, sizeof(LTT_APP_END) - 1)) {
		*begin = false;
		plen = sizeof(LTT_APP_END) - 1;
	} else {
		return 0;
	}
	len -= plen;
	if (len > LATENCY_TRACKER_APP_COOKIE_MAX)
		return 0;
	/* Printable ASCII, no space: not isgraph(), which takes Latin-1 too. */
	for (i = 0; i < len; i++) {
		if (buf[plen + i] <= ' ' || buf[plen + i] >= 0x7f)
			return 0;
	}
	*cookie = buf + plen;
	return len;
}

static ssize_t ltt_app_write(struct file *file, const char __user *ubuf, size_t count,
			     loff_t *ppos)
{
	struct latency_tracker_in in = { };
	char buf[LTT_APP_CMD_MAX];
	const char *cookie;
	size_t len;
	bool begin;

	if (!count || count > sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	len = ltt_app_parse(buf, count, &begin, &cookie);
	if (!len)
		return -EINVAL;
	if (!READ_ONCE(ltt_app_active))
		return count;
	if (!begin) {
		latency_tracker_event_out(ltt_app, cookie, len, NULL);
		return count;
	}
	if (!ltt_filter_match(&ltt_app_filter, current))
		return count;
	ltt_pack_text(in.data, LATENCY_TRACKER_DATA_WORDS, cookie, len);
	latency_tracker_event_in(ltt_app, cookie, len, &in);
	return count;
}

static ssize_t ltt_app_read(struct file *file, char __user *ubuf, size_t count, loff_t *ppos)
{
	return -EINVAL;
}

static const struct file_operations ltt_app_fops = {
	.owner = THIS_MODULE,
	.write = ltt_app_write,
	.read = ltt_app_read,
	.llseek = noop_llseek,
};

static struct miscdevice ltt_app_dev = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = LATENCY_TRACKER_APP_DEV_NAME,
	.fops = &ltt_app_fops,
	.mode = 0660,
};

static int ltt_app_activate(struct latency_tracker *t)
{
	WRITE_ONCE(ltt_app_active, true);
	return 0;
}

/* A write racing with this sees -ENODEV from the core, which it ignores. */
static void ltt_app_deactivate(struct latency_tracker *t)
{
	WRITE_ONCE(ltt_app_active, false);
}

static const struct latency_tracker_params ltt_app_params = {
	.name = "app",
	.type = LATENCY_TRACKER_TYPE_APP,
	.key_size = LATENCY_TRACKER_APP_COOKIE_MAX,
	.dup_policy = LATENCY_TRACKER_DUP_REPLACE,
	.stack_mode = LATENCY_TRACKER_STACK_NONE,
	.stale_alert = true, /* a begin never ended is what the application asked to hear of */
	.activate = ltt_app_activate,
	.deactivate = ltt_app_deactivate,
};

static int __init ltt_app_init(void)
{
	int ret;

	BUILD_BUG_ON(LATENCY_TRACKER_APP_COOKIE_MAX > LATENCY_TRACKER_DATA_WORDS * sizeof(u64));
	ltt_app = ltt_tracker_create(&ltt_app_params, NULL, 0, &ltt_app_filter);
	if (IS_ERR(ltt_app))
		return PTR_ERR(ltt_app);
	/* Last: the device is usable as soon as it exists. */
	ret = misc_register(&ltt_app_dev);
	if (ret)
		ltt_tracker_destroy(ltt_app, &ltt_app_filter);
	return ret;
}

static void __exit ltt_app_exit(void)
{
	/* No file is open (each holds a module reference): no write is running. */
	misc_deregister(&ltt_app_dev);
	ltt_tracker_destroy(ltt_app, &ltt_app_filter);
}

module_init(ltt_app_init);
module_exit(ltt_app_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("latency_tracker: application begin/end markers written to a device");
