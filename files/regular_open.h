/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A file opened to be read only once known to be a regular file, the check made on what is
 * opened: a name may be a FIFO (whose open, then whose reads, wait for a writer for ever) or
 * a device (whose open alone may act: a watchdog armed, a tape rewound), or become one
 * between a check by name and the open. latencyd's configuration and the analysis' own
 * reads of a snapshot open their files through it.
 */
#ifndef LATENCYD_FILES_REGULAR_OPEN_H
#define LATENCYD_FILES_REGULAR_OPEN_H

#include <sys/stat.h>

/*
 * A descriptor (O_RDONLY, O_NONBLOCK, close-on-exec) on PATH, symbolic links followed, and
 * in *ST what it is; else -errno: -EINVAL when PATH is no regular file (*ST then says what
 * it is), -ESTALE when it was replaced by another file while opened.
 */
int regular_open(const char *path, struct stat *st);

#endif
