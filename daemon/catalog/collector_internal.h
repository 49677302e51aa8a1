/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Inside the collector's retention (collector.c, collector_busy.c, collector_delete.c): the
 * helpers its files share and the busy check's entry point. collector.h stays the public
 * interface; nothing outside these files includes this.
 */
#ifndef LATENCYD_CATALOG_COLLECTOR_INTERNAL_H
#define LATENCYD_CATALOG_COLLECTOR_INTERNAL_H

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "collector.h"
#include "tree_delete.h"

/* As deep as a deletion goes: what the scan can measure, it can delete. */
#define DEPTH_MAX TREE_DEPTH_MAX

static inline bool is_dot(const char *name)
{
	return !strcmp(name, ".") || !strcmp(name, "..");
}

static inline bool digits(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return false;
	return n > 0;
}

/* Directory NAME under DFD, never through a symbolic link: its fd, -ENOTDIR, or -errno. */
static inline int open_dir(int dfd, const char *name)
{
	int fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (fd >= 0)
		return fd;
	return errno == ELOOP ? -ENOTDIR : -errno;
}

/*
 * collector_busy.c: marks held the snapshots of S under which a file is open in an
 * lttng-relayd process, read from PROC_PATH (/proc); counts in s->relayd_unseen what could
 * not be read.
 */
void collector_scan_relayd(struct collector_scan *s, const char *proc_path);

#endif /* LATENCYD_CATALOG_COLLECTOR_INTERNAL_H */
