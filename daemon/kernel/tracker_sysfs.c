/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The trackers' sysfs files, SYSFS/kernel/latency_tracker/NAME/: the one place that reads
 * and writes them (the privileged step: latencyd's only sysfs writes). Every function
 * returns 0 or -errno as the kernel gave it; callers say what it means to their user. The
 * sysfs root is a parameter, so that tests point it at a fake tree.
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

#include <latency_tracker.h>

#include "fsutil.h"
#include "kernel.h"
#include "log.h"

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

	if (n == 0 || n >= LATENCY_TRACKER_NAME_LEN) /* its NUL included */
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

/*
 * Digits and an optional newline, as hist.c reads the module's numbers: strtoull would take
 * "-1" as 2^64-1, and leading blanks or a sign. -EBADMSG (BUF holds the content) or -ERANGE.
 */
static int read_u64(const char *path, uint64_t *ret, char *buf, size_t size)
{
	uint64_t v = 0;
	const char *p = buf;
	int r;

	r = file_read_small(path, buf, size);
	if (r < 0)
		return r;
	if (*p < '0' || *p > '9')
		return -EBADMSG;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (v > (UINT64_MAX - (uint64_t)(*p - '0')) / 10)
			return -ERANGE;
		v = v * 10 + (uint64_t)(*p - '0');
	}
	if (*p && strcmp(p, "\n") != 0)
		return -EBADMSG;
	*ret = v;
	return 0;
}

int ktracker_check(const char *root, const char *name)
{
	char base[PATH_MAX];

	if (!tracker_name_valid(name))
		return -EINVAL;
	pathf(base, sizeof(base), "%s/%s", root, LATENCY_TRACKER_SYSFS_DIR);
	return is_tracker(base, name) ? 0 : -ENOENT;
}

int ktracker_stat(const char *root, const char *name, struct stat *st)
{
	char path[PATH_MAX];

	if (!tracker_name_valid(name))
		return -EINVAL;
	pathf(path, sizeof(path), "%s/%s/%s", root, LATENCY_TRACKER_SYSFS_DIR, name);
	return stat(path, st) < 0 ? -errno : 0;
}

int ktracker_read(const char *root, const char *name, const char *file, uint64_t *ret)
{
	char path[PATH_MAX], buf[64];
	int r;

	if (!tracker_name_valid(name))
		return -EINVAL;
	pathf(path, sizeof(path), "%s/%s/%s/%s", root, LATENCY_TRACKER_SYSFS_DIR, name, file);
	r = read_u64(path, ret, buf, sizeof(buf));
	if (r == -EBADMSG || r == -ERANGE)
		log_warnx("%s: %s: '%.*s'", path,
			  r == -ERANGE ? "number out of range" : "unexpected content, not a number",
			  (int)strcspn(buf, "\n"), buf);
	return r;
}

int ktracker_read_text(const char *root, const char *name, const char *file, char *buf, size_t size)
{
	char path[PATH_MAX];
	int r;

	if (!tracker_name_valid(name) || size == 0)
		return -EINVAL;
	pathf(path, sizeof(path), "%s/%s/%s/%s", root, LATENCY_TRACKER_SYSFS_DIR, name, file);
	r = file_read_small(path, buf, size);
	if (r == 0)
		buf[strcspn(buf, "\n")] = 0;
	return r;
}

int ktracker_write_text(const char *root, const char *name, const char *file, const char *text,
			bool *opened)
{
	char path[PATH_MAX];
	size_t n = strlen(text);
	ssize_t w;
	int fd, r = ktracker_check(root, name);

	*opened = false;
	if (r < 0)
		return r;
	pathf(path, sizeof(path), "%s/%s/%s/%s", root, LATENCY_TRACKER_SYSFS_DIR, name, file);
	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC | O_NOFOLLOW); /* as a shell does */
	if (fd < 0)
		return -errno;
	*opened = true;
	w = write(fd, text, n);
	/* errno says something only when write() failed: a short write has no cause of its own. */
	if (w < 0)
		r = -errno;
	else if ((size_t)w != n)
		r = -EIO;
	close(fd);
	return r;
}

int ktracker_write(const char *root, const char *name, const char *file, uint64_t value,
		   bool *opened)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%" PRIu64 "\n", value);
	return ktracker_write_text(root, name, file, buf, opened);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

int ktracker_list(const char *root, char ***ret, size_t *n_ret)
{
	char base[PATH_MAX], **names = NULL;
	struct dirent *de;
	size_t n = 0;
	int r = 0;
	DIR *d;

	pathf(base, sizeof(base), "%s/%s", root, LATENCY_TRACKER_SYSFS_DIR);
	d = opendir(base);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
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
	closedir(d);
	if (r < 0) {
		ktracker_list_free(names, n);
		return r;
	}
	if (n > 1)
		qsort(names, n, sizeof(*names), by_name);
	*ret = names;
	*n_ret = n;
	return 0;
}

void ktracker_list_free(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

int ktracker_stats(const char *root, const char *name,
		   void (*fn)(const char *counter, uint64_t value, void *userdata), void *userdata)
{
	char path[PATH_MAX], buf[64];
	struct dirent *de;
	uint64_t v;
	DIR *d;

	if (!tracker_name_valid(name))
		return -EINVAL;
	pathf(path, sizeof(path), "%s/%s/%s/stats", root, LATENCY_TRACKER_SYSFS_DIR, name);
	d = opendir(path);
	if (!d)
		return -errno;
	/* Every counter file with one number (delay_hist_ns is not one). */
	while ((de = readdir(d))) {
		char p[PATH_MAX];

		if (de->d_name[0] == '.')
			continue;
		pathf(p, sizeof(p), "%s/%s", path, de->d_name);
		if (read_u64(p, &v, buf, sizeof(buf)) == 0)
			fn(de->d_name, v, userdata);
	}
	closedir(d);
	return 0;
}

void ktracker_write_problem(char *buf, size_t size, int r, bool opened, const char *name,
			    const char *file, const char *text)
{
	int len = (int)strcspn(text, "\n");

	if (r == -EINVAL && !opened)
		snprintf(buf, size, "invalid tracker name '%s'", name);
	else if (r == -ENOENT && !opened)
		snprintf(buf, size, "no tracker '%s' (see latencyctl trackers)", name);
	else if (!opened)
		snprintf(buf, size, "cannot open %s of tracker %s: %s", file, name, strerror(-r));
	else if (r == -EINVAL)
		snprintf(buf, size,
			 "the kernel refused %s = %.*s for tracker %s: invalid value (EINVAL: out "
			 "of range or in conflict with the tracker's other settings)",
			 file, len, text, name);
	/* The cgroup filter alone looks its value up: for it ENOENT means no such cgroup. */
	else if (r == -ENOENT && strcmp(file, "filter_cgroup_id") == 0)
		snprintf(buf, size,
			 "the kernel refused %s = %.*s for tracker %s: no such cgroup (ENOENT: no "
			 "cgroup v2 cgroup has that id)",
			 file, len, text, name);
	else if (r == -ENOENT)
		snprintf(buf, size, "the kernel refused %s = %.*s for tracker %s: %s (ENOENT)",
			 file, len, text, name, strerror(-r));
	else if (r == -EBUSY)
		snprintf(buf, size,
			 "the kernel refused %s = %.*s for tracker %s: busy (EBUSY: disable the "
			 "tracker first)",
			 file, len, text, name);
	else
		snprintf(buf, size, "cannot write %s of tracker %s: %s", file, name, strerror(-r));
}
