/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * "trackers": the trackers the kernel module has, from SYSFS/kernel/latency_tracker/NAME/
 * (enabled, threshold_ns, timeout_ns, stats/, filters), read through the kernel layer.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>
#include <latency_tracker.h>

#include "commands.h"

struct stats_ctx {
	struct json_object *o;
	int *r;
};

static void add_stat(const char *counter, uint64_t value, void *userdata)
{
	struct stats_ctx *ctx = userdata;

	result_add_int(ctx->o, counter, (int64_t)value, ctx->r);
}

static struct json_object *tracker_object(const struct manager *m, const char *name, int *r)
{
	static const char *const files[] = {PROTO_KEY_ENABLED, PROTO_KEY_THRESHOLD_NS,
					    PROTO_KEY_TIMEOUT_NS};
	struct json_object *o = json_object_new_object(), *stats = json_object_new_object();
	struct stats_ctx ctx = {stats, r};
	uint64_t v;

	if (!o || !stats) {
		json_object_put(o);
		json_object_put(stats);
		*r = -ENOMEM;
		return NULL;
	}
	result_add_string(o, PROTO_KEY_NAME, name, r);
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		if (ktracker_read(m->sysfs_root, name, files[i], &v) < 0)
			continue;
		if (i == 0)
			result_add_bool(o, files[i], v != 0, r);
		else
			result_add_int(o, files[i], (int64_t)v, r);
	}
	ktracker_stats(m->sysfs_root, name, add_stat, &ctx);
	result_add(o, PROTO_KEY_STATS, stats, r);
	result_add(o, PROTO_KEY_FILTER, tracker_filter_json(m, name), r);
	return o;
}

int cmd_trackers(struct manager *m, const struct control_caller *caller, struct json_object *args,
		 struct json_object **result, struct proto_error *err)
{
	struct json_object *o, *list;
	char **names = NULL;
	size_t n = 0;
	int r, listed;

	r = args_none(args, err);
	if (r < 0)
		return r;
	listed = ktracker_list(m->sysfs_root, &names, &n);
	r = listed == -ENOMEM ? -ENOMEM : 0;
	o = json_object_new_object();
	list = json_object_new_array();
	if (!o || !list)
		r = -ENOMEM;
	for (size_t i = 0; r >= 0 && i < n; i++) {
		struct json_object *t = tracker_object(m, names[i], &r);

		if (t && json_object_array_add(list, t) < 0) {
			json_object_put(t);
			r = -ENOMEM;
		}
	}
	if (listed >= 0)
		ktracker_list_free(names, n);
	if (r >= 0)
		result_add_bool(o, PROTO_KEY_LOADED, listed >= 0, &r);
	else
		json_object_put(list);
	if (r >= 0)
		result_add(o, PROTO_KEY_TRACKERS, list, &r);
	return result_done(o, r, result);
}
