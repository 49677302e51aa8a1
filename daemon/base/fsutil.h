/* SPDX-License-Identifier: GPL-2.0-only */
/* fsutil.c: directory trees: create, measure, delete, find. */
#ifndef LATENCYD_BASE_FSUTIL_H
#define LATENCYD_BASE_FSUTIL_H

#include <stdint.h>
#include <sys/types.h>

/* Creates PATH and its missing parents with MODE; -errno. */
int mkdir_p(const char *path, mode_t mode);
/* Bytes used by a directory tree (0 if it does not exist). */
uint64_t dir_size(const char *path);
/* Deletes a directory tree; -errno on failure, 0 if it did not exist. */
int rm_tree(const char *path);
/* The greatest (newest, for LTTng's dated names) DIR/PREFIX-*, malloc'd; NULL if none. */
char *path_newest(const char *dir, const char *prefix);

#endif /* LATENCYD_BASE_FSUTIL_H */
