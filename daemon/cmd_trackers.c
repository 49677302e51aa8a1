/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * "trackers": the trackers the kernel module has, from SYSFS/kernel/latency_tracker/NAME/
 * (enabled, threshold_ns, timeout_ns, stats/), and the one place that writes a tracker's
 * sysfs file (tracker_write(), used by set-threshold, set-timeout, enable, disable). The
 * sysfs root is manager->sysfs_root, so tests point it at a fake tree.
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

#include "latencyd.h"

/* snprintf for paths: a path that does not fit is empty (and opens nothing). */
__attribute__((format(printf, 3, 4))) static void pathf(char *buf, size_t size, const char *fmt,
							...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= size)
		buf[0] = 0;
}

/* A tracker name is a sysfs directory name: no '/', no "." or "..", not too long. */
static bool tracker_name_valid(const char *name)
{
	size_t n = strlen(name);

	if (n == 0 || n > LATENCY_TRACKER_NAME_LEN)
		return false;
	for (const char *p = name; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || *p == '_' || *p == '-' || *p == '.'))
			return false;
	return strcmp(name, ".") != 0 && strcmp(name, "..") != 0;
}

/* A directory of the module's sysfs tree that has an "enabled" file is a tracker. */
static bool is_tracker(const char *base, const char *name)
{
	char path[PATH_MAX];
	struct stat st;

	pathf(path, sizeof(path), "%s/%s/enabled", base, name);
	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static void base_dir(const struct manager *m, char *buf, size_t size)
{
	pathf(buf, size, "%s/%s", m->sysfs_root, LATENCY_TRACKER_SYSFS_DIR);
}

static int read_u64(const char *path, uint64_t *ret)
{
	char buf[64], *end;
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = 0;
	errno = 0;
	*ret = strtoull(buf, &end, 10);
	if (end == buf || errno || (*end && *end != '\n'))
		return -EBADMSG;
	return 0;
}

int tracker_check(const struct manager *m, const char *name, struct proto_error *err)
{
	char base[PATH_MAX];

	if (!tracker_name_valid(name))
		return proto_error_set(err, PROTO_ERR_BAD_ARGUMENT, "invalid tracker name '%s'",
				       name);
	base_dir(m, base, sizeof(base));
	if (!is_tracker(base, name))
		return proto_error_set(err, PROTO_ERR_NOT_FOUND,
				       "no tracker '%s' (see latencyctl trackers)", name);
	return 0;
}

int tracker_read(const struct manager *m, const char *name, const char *file, uint64_t *ret)
{
	char path[PATH_MAX];

	pathf(path, sizeof(path), "%s/%s/%s/%s", m->sysfs_root, LATENCY_TRACKER_SYSFS_DIR, name,
	      file);
	return read_u64(path, ret);
}

/*
 * Writes TEXT into the tracker's FILE (the privileged step: the one sysfs write of latencyd).
 * The kernel's refusal is reported as it is: EINVAL (value out of range, or not allowed with
 * the other settings), EBUSY (only while disabled).
 */
int tracker_write_text(const struct manager *m, const char *name, const char *file,
		       const char *text, struct proto_error *err)
{
	char path[PATH_MAX];
	size_t n = strlen(text);
	int fd, r;

	r = tracker_check(m, name, err);
	if (r < 0)
		return r;
	pathf(path, sizeof(path), "%s/%s/%s/%s", m->sysfs_root, LATENCY_TRACKER_SYSFS_DIR, name,
	      file);
	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC | O_NOFOLLOW); /* as a shell does */
	if (fd < 0) {
		r = -errno;
		return proto_error_set(err, r == -EACCES ? PROTO_ERR_REFUSED : PROTO_ERR_INTERNAL,
				       "cannot open %s of tracker %s: %s", file, name,
				       strerror(-r));
	}
	if (write(fd, text, n) != (ssize_t)n)
		r = -errno ?: -EIO;
	close(fd);
	if (r == -EINVAL)
		return proto_error_set(err, PROTO_ERR_REFUSED,
				       "the kernel refused %s = %.*s for tracker %s: invalid "
				       "value (EINVAL: out of range or in conflict with the "
				       "tracker's other settings)",
				       file, (int)strcspn(text, "\n"), text, name);
	if (r == -EBUSY)
		return proto_error_set(err, PROTO_ERR_REFUSED,
				       "the kernel refused %s = %.*s for tracker %s: busy "
				       "(EBUSY: disable the tracker first)",
				       file, (int)strcspn(text, "\n"), text, name);
	if (r < 0)
		return proto_error_set(err, PROTO_ERR_INTERNAL, "cannot write %s of tracker %s: %s",
				       file, name, strerror(-r));
	return 0;
}

int tracker_write(const struct manager *m, const char *name, const char *file, uint64_t value,
		  struct proto_error *err)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%" PRIu64 "\n", value);
	return tracker_write_text(m, name, file, buf, err);
}

/* The filter files: {"pid", "tid", "comm", "cgroup_id"}, those that are set (non-zero). */
struct json_object *tracker_filter_json(const struct manager *m, const char *name)
{
	static const struct {
		const char *file, *key;
	} ids[] = {{"filter_tgid", PROTO_KEY_PID},
		   {"filter_tid", PROTO_KEY_TID},
		   {"filter_cgroup_id", PROTO_KEY_CGROUP_ID}};
	struct json_object *o = json_object_new_object();
	char path[PATH_MAX], comm[64];
	uint64_t v;
	ssize_t n;
	int fd;

	for (size_t i = 0; o && i < sizeof(ids) / sizeof(ids[0]); i++)
		if (tracker_read(m, name, ids[i].file, &v) == 0 && v)
			json_object_object_add(o, ids[i].key, json_object_new_int64((int64_t)v));
	pathf(path, sizeof(path), "%s/%s/%s/filter_comm", m->sysfs_root, LATENCY_TRACKER_SYSFS_DIR,
	      name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	n = fd >= 0 ? read(fd, comm, sizeof(comm) - 1) : -1;
	if (fd >= 0)
		close(fd);
	if (n > 0) {
		comm[n] = 0;
		comm[strcspn(comm, "\n")] = 0;
		if (o && comm[0])
			json_object_object_add(o, PROTO_KEY_COMM, json_object_new_string(comm));
	}
	return o;
}

static struct json_object *tracker_object(const struct manager *m, const char *base,
					  const char *name, int *r)
{
	static const char *const files[] = {PROTO_KEY_ENABLED, PROTO_KEY_THRESHOLD_NS,
					    PROTO_KEY_TIMEOUT_NS};
	struct json_object *o = json_object_new_object(), *stats = json_object_new_object();
	char path[PATH_MAX];
	struct dirent *de;
	uint64_t v;
	DIR *d;

	if (!o || !stats) {
		json_object_put(o);
		json_object_put(stats);
		*r = -ENOMEM;
		return NULL;
	}
	result_add_string(o, PROTO_KEY_NAME, name, r);
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		pathf(path, sizeof(path), "%s/%s/%s", base, name, files[i]);
		if (read_u64(path, &v) < 0)
			continue;
		if (i == 0)
			result_add_bool(o, files[i], v != 0, r);
		else
			result_add_int(o, files[i], (int64_t)v, r);
	}
	/* stats/: every counter file with one number (delay_hist_ns is not one). */
	pathf(path, sizeof(path), "%s/%s/stats", base, name);
	d = opendir(path);
	while (d && (de = readdir(d))) {
		char p[PATH_MAX];

		if (de->d_name[0] == '.')
			continue;
		pathf(p, sizeof(p), "%s/%s", path, de->d_name);
		if (read_u64(p, &v) == 0)
			result_add_int(stats, de->d_name, (int64_t)v, r);
	}
	if (d)
		closedir(d);
	result_add(o, PROTO_KEY_STATS, stats, r);
	result_add(o, PROTO_KEY_FILTER, tracker_filter_json(m, name), r);
	return o;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

int cmd_trackers(struct manager *m, const struct control_peer *peer, struct json_object *args,
		 struct json_object **result, struct proto_error *err)
{
	struct json_object *o, *list;
	char base[PATH_MAX], **names = NULL;
	size_t n = 0;
	struct dirent *de;
	DIR *d;
	int r;

	r = args_none(args, err);
	if (r < 0)
		return r;

	base_dir(m, base, sizeof(base));
	d = opendir(base);
	while (d && (de = readdir(d))) {
		char **nn;

		if (de->d_name[0] == '.' || !is_tracker(base, de->d_name))
			continue;
		nn = realloc(names, (n + 1) * sizeof(*names));
		if (!nn || !(nn[n] = strdup(de->d_name))) {
			names = nn ?: names;
			r = -ENOMEM;
			break;
		}
		names = nn;
		n++;
	}
	if (d)
		closedir(d);
	if (n > 1)
		qsort(names, n, sizeof(*names), by_name);

	o = json_object_new_object();
	list = json_object_new_array();
	if (!o || !list)
		r = -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		struct json_object *t = r < 0 ? NULL : tracker_object(m, base, names[i], &r);

		if (t && json_object_array_add(list, t) < 0) {
			json_object_put(t);
			r = -ENOMEM;
		}
		free(names[i]);
	}
	free(names);
	if (r >= 0)
		result_add_bool(o, PROTO_KEY_LOADED, d != NULL, &r);
	else
		json_object_put(list);
	if (r >= 0)
		result_add(o, PROTO_KEY_TRACKERS, list, &r);
	return result_done(o, r, result);
}
