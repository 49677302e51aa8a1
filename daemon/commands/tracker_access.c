/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A tracker's sysfs files as the commands use them (set-threshold, set-timeout, enable,
 * disable, filter): the kernel layer's -errno turned into the reply a client reads.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <json-c/json.h>

#include "commands.h"

static int reply(struct proto_error *err, int r, bool opened, const char *name, const char *file,
		 const char *text)
{
	enum proto_errcode code = PROTO_ERR_INTERNAL;
	char why[512];

	if (!opened && r == -EINVAL)
		code = PROTO_ERR_BAD_ARGUMENT;
	else if (!opened && r == -ENOENT)
		code = PROTO_ERR_NOT_FOUND;
	else if ((!opened && r == -EACCES) || (opened && (r == -EINVAL || r == -EBUSY)))
		code = PROTO_ERR_REFUSED;
	ktracker_write_problem(why, sizeof(why), r, opened, name, file, text);
	return proto_error_set(err, code, "%s", why);
}

int tracker_not_found(const struct manager *m, const char *name, const char *also,
		      struct proto_error *err)
{
	char **names = NULL, list[PROTO_MESSAGE_MAX];
	const char *near;
	size_t n = 0, len = 0;
	int r;

	if (ktracker_list(m->sysfs_root, &names, &n) < 0)
		return proto_error_set(err, PROTO_ERR_NOT_FOUND,
				       "no tracker '%s': the latency_tracker module is not loaded",
				       name);
	/* The kernel's names, not a list of latencyd's: a newer module's trackers count. */
	near = proto_nearest(name, (const char *const *)names, n);
	list[0] = 0;
	for (size_t i = 0; i < n && len < sizeof(list); i++)
		len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%s", i ? ", " : "",
					names[i]);
	r = proto_error_set(err, PROTO_ERR_NOT_FOUND, "no tracker '%s'%s%s%s; the kernel has %s%s",
			    name, near ? " (did you mean '" : "", near ? near : "",
			    near ? "'?)" : "", n ? list : "none", also);
	ktracker_list_free(names, n);
	return r;
}

int tracker_check(const struct manager *m, const char *name, struct proto_error *err)
{
	int r = ktracker_check(m->sysfs_root, name);

	if (r == -ENOENT)
		return tracker_not_found(m, name, "", err);
	return r < 0 ? reply(err, r, false, name, "", "") : 0;
}

int tracker_read(const struct manager *m, const char *name, const char *file, uint64_t *ret)
{
	return ktracker_read(m->sysfs_root, name, file, ret);
}

int tracker_write_text(const struct manager *m, const char *name, const char *file,
		       const char *text, struct proto_error *err)
{
	bool opened;
	int r = ktracker_write_text(m->sysfs_root, name, file, text, &opened);

	return r < 0 ? reply(err, r, opened, name, file, text) : 0;
}

int tracker_write(const struct manager *m, const char *name, const char *file, uint64_t value,
		  struct proto_error *err)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%llu\n", (unsigned long long)value);
	return tracker_write_text(m, name, file, buf, err);
}

struct json_object *tracker_filter_json(const struct manager *m, const char *name)
{
	static const struct {
		const char *file, *key;
	} ids[] = {{"filter_tgid", PROTO_KEY_PID},
		   {"filter_tid", PROTO_KEY_TID},
		   {"filter_cgroup_id", PROTO_KEY_CGROUP_ID}};
	struct json_object *o = json_object_new_object();
	char comm[64];
	uint64_t v;

	for (size_t i = 0; o && i < sizeof(ids) / sizeof(ids[0]); i++)
		if (tracker_read(m, name, ids[i].file, &v) == 0 && v)
			json_object_object_add(o, ids[i].key, json_object_new_int64((int64_t)v));
	if (o && ktracker_read_text(m->sysfs_root, name, "filter_comm", comm, sizeof(comm)) == 0 &&
	    comm[0])
		json_object_object_add(o, PROTO_KEY_COMM, json_object_new_string(comm));
	return o;
}
