// SPDX-License-Identifier: GPL-2.0-only
/*
 * Retention over the fleet collector's lttng-relayd tree, by whole incidents: every host's
 * snapshot of an incident goes at once, or none does (half an incident explains nothing).
 *
 * The tree is read with openat() and O_NOFOLLOW at every level, and deleted the same way:
 * latencyd runs as root there, and the tree belongs to relayd's user, who could otherwise
 * point a symbolic link at anything for root to measure or delete. Exactly three levels
 * are read (host, session, snapshot); whatever else is there is counted and left alone.
 *
 * An incident's time is its newest snapshot's newest modification time, not the date in
 * the names: those are the recording hosts' local times (time zones, clocks of their own),
 * while the mtimes are all from the collector's one clock, and they are needed anyway to
 * tell a snapshot still being written. A time ahead of that clock (stepped back since, or
 * a touch -d) tells nothing of its age: such an incident counts as new, never past max_age
 * and the last to go past max_bytes, which still bounds it.
 *
 * This file scans, groups and chooses; the check for snapshots still open in lttng-relayd is
 * in collector_busy.c, the deletion in collector_delete.c (collector_internal.h).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "collector_internal.h"
#include "fleet.h"

/*
 * The length of NAME without its "-YYYYMMDD-HHMMSS" suffix (and "-N" after it when COUNTED,
 * as relayd numbers snapshots), or 0 when it has none.
 */
static size_t undated_len(const char *name, bool counted)
{
	size_t n = strlen(name), i = n;

	if (counted) {
		while (i > 0 && name[i - 1] >= '0' && name[i - 1] <= '9')
			i--;
		if (i == n || i == 0 || name[i - 1] != '-')
			return 0;
		n = i - 1;
	}
	if (n <= 16 || name[n - 16] != '-' || !digits(name + n - 15, 8) || name[n - 7] != '-' ||
	    !digits(name + n - 6, 6))
		return 0;
	return n - 16;
}

/*
 * PREFIX-ID, or PREFIX-ID-INCIDENT@HOST in a fleet (the first N bytes of NAME): true, with
 * the incident and host (empty outside a fleet). The incident is what lies between
 * PREFIX-ID- and the last '@': its origin may hold '-', a host name never holds '@'.
 */
static bool parse_name(const char *name, size_t n, const char *prefix, char *incident, char *host)
{
	size_t p = strlen(prefix), i = p + 1, len;
	const char *rest, *at;

	if (n <= i || strncmp(name, prefix, p) != 0 || name[p] != '-')
		return false;
	while (i < n && name[i] >= '0' && name[i] <= '9')
		i++;
	if (i == p + 1)
		return false;
	incident[0] = host[0] = 0;
	if (i == n)
		return true;
	if (name[i] != '-')
		return false;
	rest = name + i + 1;
	len = n - i - 1;
	at = memrchr(rest, '@', len);
	if (!at || (size_t)(at - rest) > PROTO_FLEET_INCIDENT_MAX ||
	    len - (size_t)(at - rest) - 1 > PROTO_FLEET_NAME_MAX)
		return false;
	snprintf(incident, PROTO_FLEET_INCIDENT_MAX + 1, "%.*s", (int)(at - rest), rest);
	snprintf(host, PROTO_FLEET_NAME_MAX + 1, "%.*s", (int)(len - (size_t)(at - rest) - 1),
		 at + 1);
	return proto_fleet_incident_parse(incident, NULL, 0, NULL) == 0 &&
	       proto_fleet_name_valid(host);
}

static int64_t ns_of(const struct timespec *t)
{
	return (int64_t)t->tv_sec * 1000000000 + t->tv_nsec;
}

/* Keeps the first unreadable directory, DIR/PATH, for the caller's one warning. */
static void note_error(struct collector_scan *s, int err, const char *path)
{
	if (s->error)
		return;
	s->error = err;
	if (asprintf(&s->error_path, "%s/%s", s->dir, path) < 0)
		s->error_path = NULL;
}

/*
 * A host or session directory not listed whole: any incident of the fleet may have a
 * snapshot in what was not seen, and deleting the others would leave half of it.
 */
static void note_unlisted(struct collector_scan *s, int err, const char *path)
{
	s->unlisted = true;
	note_error(s, err, path);
}

/* Adds the bytes of the files under directory DFD (taken) and its newest modification. */
static int measure(int dfd, int depth, uint64_t *bytes, int64_t *newest)
{
	DIR *d = fdopendir(dfd);
	struct dirent *de;
	int r = 0;

	if (!d) {
		r = -errno;
		close(dfd);
		return r;
	}
	while (r == 0 && (errno = 0, de = readdir(d))) {
		struct stat st;
		int fd;

		if (is_dot(de->d_name))
			continue;
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
			r = errno == ENOENT ? 0 : -errno;
			continue;
		}
		if (S_ISLNK(st.st_mode))
			continue; /* neither followed nor counted */
		if (ns_of(&st.st_mtim) > *newest)
			*newest = ns_of(&st.st_mtim);
		if (S_ISREG(st.st_mode))
			*bytes += (uint64_t)st.st_blocks * 512;
		if (!S_ISDIR(st.st_mode))
			continue;
		fd = depth > 0 ? open_dir(dirfd(d), de->d_name) : -ELOOP;
		r = fd < 0 ? fd : measure(fd, depth - 1, bytes, newest);
	}
	if (r == 0 && errno)
		r = -errno;
	closedir(d);
	return r;
}

static int add_snapshot(struct collector_scan *s, const char *host_dir, const char *session_dir,
			const char *name, const char *incident, const char *host,
			struct collector_snapshot **ret)
{
	struct collector_snapshot *sn, *grown;

	/* Doubled whenever the count reaches a power of two: no capacity to keep. */
	if ((s->nsnaps & (s->nsnaps - 1)) == 0) {
		grown = realloc(s->snaps, (s->nsnaps ? 2 * s->nsnaps : 1) * sizeof(*sn));
		if (!grown)
			return -ENOMEM;
		s->snaps = grown;
	}
	sn = &s->snaps[s->nsnaps];
	memset(sn, 0, sizeof(*sn));
	sn->host_dir = strdup(host_dir);
	sn->session_dir = strdup(session_dir);
	sn->name = strdup(name);
	sn->host = strdup(host[0] ? host : host_dir);
	if (incident[0])
		sn->key = strdup(incident);
	else if (asprintf(&sn->key, "%s/%s/%s", host_dir, session_dir, name) < 0)
		sn->key = NULL;
	s->nsnaps++; /* freed with the scan, even half made */
	if (!sn->host_dir || !sn->session_dir || !sn->name || !sn->host || !sn->key)
		return -ENOMEM;
	*ret = sn;
	return 0;
}

/* HOST_DIR/SESSION_DIR/NAME, or NULL when memory lacks. */
static char *path_of(const char *host_dir, const char *session_dir, const char *name)
{
	char *path;

	return asprintf(&path, "%s/%s/%s", host_dir, session_dir, name) < 0 ? NULL : path;
}

/* The snapshots of DIR/HOST_DIR/SESSION_DIR (DFD, taken). */
static int scan_session(struct collector_scan *s, int dfd, const char *host_dir,
			const char *session_dir, const char *prefix, int64_t now_ns)
{
	char incident[PROTO_FLEET_INCIDENT_MAX + 1], host[PROTO_FLEET_NAME_MAX + 1];
	DIR *d = fdopendir(dfd);
	struct collector_snapshot *sn;
	struct dirent *de;
	int r = 0;

	if (!d) {
		close(dfd);
		return -errno;
	}
	while (r >= 0 && (errno = 0, de = readdir(d))) {
		size_t n = undated_len(de->d_name, true);
		struct stat st;
		int fd = -1;

		if (is_dot(de->d_name))
			continue;
		if (!n || !parse_name(de->d_name, n, prefix, incident, host) ||
		    (fd = open_dir(dirfd(d), de->d_name)) == -ENOTDIR) {
			s->foreign++;
			continue;
		}
		r = add_snapshot(s, host_dir, session_dir, de->d_name, incident, host, &sn);
		if (r < 0) {
			if (fd >= 0)
				close(fd);
			break;
		}
		if (fd >= 0 && fstat(fd, &st) < 0) {
			int e = -errno;

			close(fd);
			fd = e;
		}
		if (fd >= 0) {
			sn->time_ns = ns_of(&st.st_mtim);
			fd = measure(fd, DEPTH_MAX, &sn->bytes, &sn->time_ns);
		}
		if (fd < 0) {
			char *path = path_of(host_dir, session_dir, de->d_name);

			sn->unreadable = true;
			note_error(s, fd, path ? path : de->d_name);
			free(path);
		}
		/* Far ahead of the clock, it is not being written (relayd's open files would
		 * say so) but dated by a clock since stepped back, or by hand. */
		sn->fresh = sn->time_ns > now_ns - (int64_t)COLLECTOR_FRESH_NS &&
			    sn->time_ns < now_ns + (int64_t)COLLECTOR_FRESH_NS;
		if (sn->time_ns >= now_ns + (int64_t)COLLECTOR_FRESH_NS && !s->ahead++)
			s->ahead_path = path_of(host_dir, session_dir, de->d_name);
		s->total += sn->bytes;
	}
	if (r >= 0 && errno)
		r = -errno;
	closedir(d);
	return r;
}

/* DIR/HOST_DIR (DFD, taken): its sessions. */
static int scan_host(struct collector_scan *s, int dfd, const char *host_dir, const char *prefix,
		     int64_t now_ns)
{
	DIR *d = fdopendir(dfd);
	struct dirent *de;
	int r = 0;

	if (!d) {
		close(dfd);
		return -errno;
	}
	while (r >= 0 && (errno = 0, de = readdir(d))) {
		int fd;

		if (is_dot(de->d_name))
			continue;
		fd = undated_len(de->d_name, false) ? open_dir(dirfd(d), de->d_name) : -ENOTDIR;
		if (fd == -ENOTDIR) {
			s->foreign++;
			continue;
		}
		if (fd >= 0)
			fd = scan_session(s, fd, host_dir, de->d_name, prefix, now_ns);
		if (fd == -ENOMEM)
			r = fd;
		else if (fd < 0) {
			char *path;

			if (asprintf(&path, "%s/%s", host_dir, de->d_name) < 0)
				path = NULL;
			note_unlisted(s, fd, path ? path : host_dir);
			free(path);
		}
	}
	if (r >= 0 && errno)
		r = -errno;
	closedir(d);
	return r;
}

static int scan_top(struct collector_scan *s, const char *prefix, int64_t now_ns)
{
	DIR *d = opendir(s->dir);
	struct dirent *de;
	int r = 0;

	if (!d)
		return -errno;
	while (r >= 0 && (errno = 0, de = readdir(d))) {
		int fd;

		if (is_dot(de->d_name))
			continue;
		fd = open_dir(dirfd(d), de->d_name);
		if (fd == -ENOTDIR) {
			s->foreign++;
			continue;
		}
		if (fd >= 0)
			fd = scan_host(s, fd, de->d_name, prefix, now_ns);
		if (fd == -ENOMEM)
			r = fd;
		else if (fd < 0)
			note_unlisted(s, fd, de->d_name);
	}
	if (r >= 0 && errno)
		r = -errno;
	closedir(d);
	return r;
}

static int by_key(const void *a, const void *b)
{
	const struct collector_snapshot *x = a, *y = b;
	int c = strcmp(x->key, y->key);

	return c ? c : strcmp(x->host, y->host);
}

static int by_time(const void *a, const void *b)
{
	const struct collector_incident *x = a, *y = b;

	if (x->time_ns != y->time_ns)
		return x->time_ns < y->time_ns ? -1 : 1;
	return strcmp(x->id, y->id);
}

/* The snapshots, sorted by key, into incidents, oldest first. */
static int group(struct collector_scan *s)
{
	if (!s->nsnaps)
		return 0;
	qsort(s->snaps, s->nsnaps, sizeof(*s->snaps), by_key);
	s->incidents = calloc(s->nsnaps, sizeof(*s->incidents));
	if (!s->incidents)
		return -ENOMEM;
	for (size_t i = 0; i < s->nsnaps; i++) {
		struct collector_snapshot *sn = &s->snaps[i];
		struct collector_incident *inc = &s->incidents[s->n];

		if (i > 0 && !strcmp(sn->key, sn[-1].key)) {
			inc--;
		} else {
			inc->id = sn->key;
			inc->fleet = !strchr(sn->key, '/');
			inc->snaps = sn;
			inc->time_ns = sn->time_ns;
			s->n++;
		}
		inc->n++;
		inc->bytes += sn->bytes;
		if (sn->time_ns > inc->time_ns)
			inc->time_ns = sn->time_ns;
		inc->busy |= sn->fresh || sn->held || sn->unreadable || (inc->fleet && s->unlisted);
	}
	qsort(s->incidents, s->n, sizeof(*s->incidents), by_time);
	return 0;
}

int collector_scan(const char *dir, const char *prefix, const char *proc, int64_t now_ns,
		   struct collector_scan *s)
{
	int r;

	memset(s, 0, sizeof(*s));
	s->dir = realpath(dir, NULL);
	if (!s->dir) {
		r = -errno;
		s->error = r;
		s->error_path = strdup(dir);
		return r;
	}
	r = scan_top(s, prefix, now_ns);
	if (r < 0) {
		s->error = s->error ? s->error : r;
		if (!s->error_path)
			s->error_path = strdup(s->dir);
		return r;
	}
	if (s->nsnaps)
		collector_scan_relayd(s, proc);
	return group(s);
}

void collector_scan_free(struct collector_scan *s)
{
	for (size_t i = 0; i < s->nsnaps; i++) {
		free(s->snaps[i].host_dir);
		free(s->snaps[i].session_dir);
		free(s->snaps[i].name);
		free(s->snaps[i].key);
		free(s->snaps[i].host);
	}
	free(s->snaps);
	free(s->incidents);
	free(s->dir);
	free(s->error_path);
	free(s->ahead_path);
	memset(s, 0, sizeof(*s));
}

size_t collector_choose(struct collector_scan *s, const struct collector_limits *l, int64_t now_ns)
{
	uint64_t total = s->total;
	size_t chosen = 0;

	for (size_t i = 0; i < s->n; i++) {
		struct collector_incident *inc = &s->incidents[i];

		inc->verdict = COLLECTOR_KEEP;
		if (!l->max_age_ns || inc->busy || inc->time_ns >= now_ns ||
		    (uint64_t)(now_ns - inc->time_ns) <= l->max_age_ns)
			continue;
		inc->verdict = COLLECTOR_MAX_AGE;
		total -= inc->bytes;
		chosen++;
	}
	for (size_t i = 0; l->max_bytes && total > l->max_bytes && i < s->n; i++) {
		struct collector_incident *inc = &s->incidents[i];

		if (inc->busy || inc->verdict != COLLECTOR_KEEP)
			continue;
		inc->verdict = COLLECTOR_MAX_BYTES;
		total -= inc->bytes;
		chosen++;
	}
	return chosen;
}

static int by_string(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void collector_hosts(const struct collector_incident *inc, char *buf, size_t size)
{
	const char **hosts = calloc(inc->n, sizeof(*hosts));
	size_t len = 0;

	if (size)
		buf[0] = 0;
	if (!hosts)
		return;
	for (size_t i = 0; i < inc->n; i++)
		hosts[i] = inc->snaps[i].host;
	qsort(hosts, inc->n, sizeof(*hosts), by_string);
	for (size_t i = 0; i < inc->n && len < size; i++)
		if (i == 0 || strcmp(hosts[i], hosts[i - 1]))
			len += (size_t)snprintf(buf + len, size - len, "%s%s", len ? ", " : "",
						hosts[i]);
	free(hosts);
}
