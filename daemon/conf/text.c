/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The settings kept as text: each type's check (paths, names, URLs, task names, CPU lists,
 * cgroups), before value.c keeps the string. Every problem is written as text for the
 * caller's "FILE:LINE: setting: problem".
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/un.h>

#include <latency_tracker.h>

#include "conf_internal.h"
#include "fleet.h"
#include "proto.h"
#include "thread.h"

#define SUN_PATH_SIZE sizeof(((struct sockaddr_un *)0)->sun_path)

int conf_broker_parse(const char *url, char *host, size_t size, unsigned *port, bool *tls)
{
	const char *p, *colon;
	bool secure;
	unsigned long v = 0;
	size_t len;
	char *end;

	if (strncmp(url, "mqtt://", 7) == 0)
		secure = false, p = url + 7;
	else if (strncmp(url, "mqtts://", 8) == 0)
		secure = true, p = url + 8;
	else
		return -EINVAL;
	colon = strrchr(p, ':');
	/* [v6]:port: the last colon after the bracket. */
	if (p[0] == '[' && (!strchr(p, ']') || (colon && colon < strchr(p, ']'))))
		colon = NULL;
	len = colon ? (size_t)(colon - p) : strlen(p);
	if (colon) {
		errno = 0;
		v = strtoul(colon + 1, &end, 10);
		if (!colon[1] || *end || errno || v == 0 || v > 65535)
			return -EINVAL;
	}
	if (len == 0 || len > 253 || strcspn(p, "/?# \t\n@") < strlen(p))
		return -EINVAL;
	if (p[0] == '[' && (len < 3 || p[len - 1] != ']'))
		return -EINVAL;
	if (host) {
		if (p[0] == '[')
			snprintf(host, size, "%.*s", (int)len - 2, p + 1);
		else
			snprintf(host, size, "%.*s", (int)len, p);
	}
	if (port)
		*port = colon ? (unsigned)v : secure ? 8883 : 1883;
	if (tls)
		*tls = secure;
	return 0;
}

static bool all_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

/* No ".." component: a filter must not name a directory outside the cgroup tree. */
static bool has_dotdot(const char *path)
{
	for (const char *p = path; (p = strstr(p, "..")); p += 2)
		if ((p == path || p[-1] == '/') && (p[2] == '/' || p[2] == 0))
			return true;
	return false;
}

int conf_cgroup_spec_check(const char *spec)
{
	char *end;

	if (!spec[0])
		return 0;
	if (all_digits(spec)) {
		errno = 0;
		return strtoull(spec, &end, 10) == 0 || errno ? -EINVAL : 0;
	}
	/* Room for "/sys/fs/cgroup/" in front of a relative path. */
	if (strlen(spec) + 16 >= PATH_MAX || strchr(spec, '\n') || has_dotdot(spec))
		return -EINVAL;
	return 0;
}

static int check_socket_path(const char *value, char *why, size_t whylen)
{
	if (value[0] != '/' || strlen(value) >= SUN_PATH_SIZE) {
		snprintf(why, whylen, "must be an absolute path of at most %zu bytes",
			 SUN_PATH_SIZE - 1);
		return -EINVAL;
	}
	return 0;
}

static int check_name(const char *value, char *why, size_t whylen)
{
	if (!value[0] || strpbrk(value, "/ \t\n*?")) {
		snprintf(why, whylen,
			 "'%s' must be a non-empty name without '/', "
			 "spaces or wildcards",
			 value);
		return -EINVAL;
	}
	return 0;
}

/* CONF_PATH, and CONF_PATH_OFF, which "" turns off. */
static int check_path(const struct conf_key *k, const char *value, char *why, size_t whylen)
{
	if (k->type == CONF_PATH_OFF && !value[0])
		return 0;
	if (value[0] != '/' || strlen(value) >= PATH_MAX) {
		snprintf(why, whylen, "must be an absolute path");
		return -EINVAL;
	}
	return 0;
}

static int check_url(const char *value, char *why, size_t whylen)
{
	if (value[0] && strncmp(value, "net://", 6) != 0 && strncmp(value, "net6://", 7) != 0 &&
	    strncmp(value, "tcp://", 6) != 0) {
		snprintf(why, whylen, "'%s' is not empty nor a net://, net6:// or tcp:// URL",
			 value);
		return -EINVAL;
	}
	return 0;
}

static int check_comm(const char *value, char *why, size_t whylen)
{
	if (strlen(value) >= LATENCY_TRACKER_COMM_LEN || strchr(value, '\n')) {
		snprintf(why, whylen, "'%s' is not a task name (at most %d bytes, one line)", value,
			 LATENCY_TRACKER_COMM_LEN - 1);
		return -EINVAL;
	}
	return 0;
}

static int check_cpu_list(const char *value, char *why, size_t whylen)
{
	cpu_set_t set;

	if (value[0] && thread_cpus_parse(value, &set) < 0) {
		snprintf(why, whylen,
			 "'%s' is not a list of CPUs such as \"0\" or \"0-1,4\" (below %d)", value,
			 CPU_SETSIZE);
		return -EINVAL;
	}
	return 0;
}

static int check_broker(const char *value, char *why, size_t whylen)
{
	if (conf_broker_parse(value, NULL, 0, NULL, NULL) < 0) {
		snprintf(why, whylen, "'%s' is not mqtt://HOST[:PORT] nor mqtts://HOST[:PORT]",
			 value);
		return -EINVAL;
	}
	return 0;
}

/* k->min: "" is allowed too (no name). */
static int check_fleet_name(const struct conf_key *k, const char *value, char *why, size_t whylen)
{
	if ((value[0] || !k->min) && !proto_fleet_name_valid(value)) {
		snprintf(why, whylen,
			 "'%s' is not a name of 1 to %d letters, digits, '.', "
			 "'_' or '-'%s",
			 value, PROTO_FLEET_NAME_MAX, k->min ? " (or \"\")" : "");
		return -EINVAL;
	}
	return 0;
}

static int check_cgroup(const char *value, char *why, size_t whylen)
{
	if (conf_cgroup_spec_check(value) < 0) {
		snprintf(why, whylen,
			 "'%s' is not a cgroup: a path under /sys/fs/cgroup (absolute or "
			 "relative to it, no '..') or a cgroup id",
			 value);
		return -EINVAL;
	}
	return 0;
}

/*
 * A node_exporter textfile: its collector reads the .prom files of its directory only, and
 * the directory is the package's (or the admin's): latencyd writes a file there, it never
 * makes the directory.
 */
static int check_prom_file(const char *value, char *why, size_t whylen)
{
	char dir[PATH_MAX];
	const char *slash = strrchr(value, '/');
	size_t len = strlen(value);
	struct stat st;

	if (!value[0])
		return 0;
	if (value[0] != '/' || len >= PATH_MAX || len < 6 || strcmp(value + len - 5, ".prom") ||
	    !slash || slash[1] == '.') {
		snprintf(why, whylen,
			 "'%s' is not an absolute path to a file named *.prom (what the "
			 "textfile collector reads)",
			 value);
		return -EINVAL;
	}
	snprintf(dir, sizeof(dir), "%.*s", (int)(slash - value) ?: 1, value);
	if (stat(dir, &st) < 0 || !S_ISDIR(st.st_mode)) {
		snprintf(why, whylen, "directory %s: %s", dir,
			 stat(dir, &st) < 0 ? strerror(errno) : "not a directory");
		return -EINVAL;
	}
	return 0;
}

int conf_check_text(const struct conf_key *k, const char *value, char *why, size_t whylen)
{
	switch (k->type) {
	case CONF_SOCKET_PATH:
		return check_socket_path(value, why, whylen);
	case CONF_NAME:
		return check_name(value, why, whylen);
	case CONF_PATH:
	case CONF_PATH_OFF:
		return check_path(k, value, why, whylen);
	case CONF_URL:
		return check_url(value, why, whylen);
	case CONF_COMM:
		return check_comm(value, why, whylen);
	case CONF_CPU_LIST:
		return check_cpu_list(value, why, whylen);
	case CONF_BROKER:
		return check_broker(value, why, whylen);
	case CONF_FLEET_NAME:
		return check_fleet_name(k, value, why, whylen);
	case CONF_CGROUP:
		return check_cgroup(value, why, whylen);
	case CONF_PROM_FILE:
		return check_prom_file(value, why, whylen);
	default:
		return 0; /* CONF_STRING: anything */
	}
}
