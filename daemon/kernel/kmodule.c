/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The latency_tracker kernel module as user space sees it: loaded or not (/sys/module/NAME)
 * and the ABI it speaks (/sys/kernel/latency_tracker/abi_version, "MAJOR.MINOR\n"). A major
 * ABI other than the one latencyd was built against is an error state, never used.
 * Loading the module (libkmod) will live here too, behind the privileged boundary.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <latency_tracker.h>

#include "fsutil.h"
#include "kernel.h"
#include "log.h"
#include "proto.h"

#define ABI_FILE "abi_version"

static const char *const state_names[] = {
	[KMODULE_NOT_LOADED] = PROTO_MODULE_NOT_LOADED,
	[KMODULE_LOADED] = PROTO_MODULE_LOADED,
	[KMODULE_ABI_MISMATCH] = PROTO_MODULE_ABI_MISMATCH,
	[KMODULE_ERROR] = PROTO_MODULE_ERROR,
};

const char *kmodule_state_to_string(enum kmodule_state state)
{
	if ((unsigned)state >= sizeof(state_names) / sizeof(state_names[0]))
		return NULL;
	return state_names[state];
}

static int parse_number(const char **p, unsigned *ret)
{
	unsigned long v = 0;
	const char *s = *p;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	for (; *s >= '0' && *s <= '9'; s++) {
		v = v * 10 + (unsigned long)(*s - '0');
		if (v > UINT_MAX)
			return -ERANGE;
	}
	*ret = (unsigned)v;
	*p = s;
	return 0;
}

/* "MAJOR.MINOR" with an optional trailing newline, nothing else. */
int kmodule_parse_abi(const char *s, unsigned *major, unsigned *minor)
{
	unsigned ma, mi;
	int r;

	r = parse_number(&s, &ma);
	if (r < 0)
		return r;
	if (*s++ != '.')
		return -EINVAL;
	r = parse_number(&s, &mi);
	if (r < 0)
		return r;
	if (*s == '\n')
		s++;
	if (*s)
		return -EINVAL;
	*major = ma;
	*minor = mi;
	return 0;
}

__attribute__((format(printf, 3, 4))) static void
set_state(struct kmodule_status *st, enum kmodule_state state, const char *fmt, ...)
{
	va_list ap;

	st->state = state;
	va_start(ap, fmt);
	vsnprintf(st->detail, sizeof(st->detail), fmt, ap);
	va_end(ap);
}

void kmodule_query(const char *sysfs_root, struct kmodule_status *st)
{
	char path[PATH_MAX], buf[64];
	int r;

	memset(st, 0, sizeof(*st));
	snprintf(path, sizeof(path), "%s/module/%s", sysfs_root, LATENCY_TRACKER_MODULE_NAME);
	if (access(path, F_OK) < 0) {
		if (errno == ENOENT) {
			st->state = KMODULE_NOT_LOADED;
			return;
		}
		set_state(st, KMODULE_ERROR, "%s: %s", path, strerror(errno));
		return;
	}

	snprintf(path, sizeof(path), "%s/%s/%s", sysfs_root, LATENCY_TRACKER_SYSFS_DIR, ABI_FILE);
	r = file_read_small(path, buf, sizeof(buf));
	if (r < 0) {
		set_state(st, KMODULE_ERROR, "module loaded but %s: %s", path, strerror(-r));
		return;
	}
	r = kmodule_parse_abi(buf, &st->abi_major, &st->abi_minor);
	if (r < 0) {
		buf[strcspn(buf, "\n")] = '\0';
		set_state(st, KMODULE_ERROR, "%s: unexpected content '%.32s'", path, buf);
		return;
	}
	st->abi_known = true;
	if (st->abi_major != LATENCY_TRACKER_ABI_MAJOR) {
		set_state(st, KMODULE_ABI_MISMATCH,
			  "module ABI %u.%u is not supported: latencyd speaks ABI %u.x",
			  st->abi_major, st->abi_minor, LATENCY_TRACKER_ABI_MAJOR);
		return;
	}
	st->state = KMODULE_LOADED;
}
