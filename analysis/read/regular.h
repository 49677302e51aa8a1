/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A snapshot's files opened to be read by the analysis itself (not by babeltrace2): only a
 * regular file, checked on the open descriptor. A name checked first and opened after may
 * meanwhile name a FIFO (whose open, then whose reads, wait for a writer for ever) or a
 * symbolic link to one.
 */
#ifndef LATENCY_ANALYSIS_REGULAR_H
#define LATENCY_ANALYSIS_REGULAR_H

#include <stdio.h>
#include <sys/types.h>

/*
 * A descriptor to read path, a regular file; else -errno (-EINVAL: a file of another kind),
 * and *why (when why is not NULL; to free) naming path and what is wrong.
 */
int an_open_regular(const char *path, char **why);
/* The same as a stream ("rb"); NULL when refused, errno set. */
FILE *an_fopen_regular(const char *path, char **why);
/* What a file of mode is, for a message: "a FIFO", "a symbolic link", ... */
const char *an_file_kind(mode_t mode);

#endif /* LATENCY_ANALYSIS_REGULAR_H */
