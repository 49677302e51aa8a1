/* SPDX-License-Identifier: GPL-2.0-only */
/* fsutil.c: directory trees: create, measure, delete, find; files replaced whole, read whole. */
#ifndef LATENCYD_BASE_FSUTIL_H
#define LATENCYD_BASE_FSUTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Creates PATH and its missing parents with MODE; -errno. */
int mkdir_p(const char *path, mode_t mode);
/* Bytes used by a directory tree (0 if it does not exist). */
uint64_t dir_size(const char *path);
/*
 * dir_size() as *BYTES, and 0 when every file was counted; else -errno: a directory that
 * could not be read (EACCES, EMFILE...) left out, *BYTES what was counted.
 */
int dir_size_read(const char *path, uint64_t *bytes);
/* Deletes a directory tree; -errno on failure, 0 if it did not exist. */
int rm_tree(const char *path);
/* The greatest (newest, for LTTng's dated names) directory DIR/PREFIX-*, malloc'd; NULL if
 * none. */
char *path_newest(const char *dir, const char *prefix);

#define FILE_DURABLE (1u << 0) /* fsync the file, and its directory after the rename */
/*
 * Replaces PATH with the LEN bytes of DATA (a newline appended when NEWLINE) through TMP,
 * created with MODE and renamed over PATH: a reader sees the old file or the new one,
 * never half of one. Whatever was named TMP before is removed first (a FIFO, another's
 * file, an empty directory): -ENOTEMPTY when it is a directory that is not empty, left as
 * it is; -EPERM when it may not be removed (immutable, another's file in a sticky
 * directory). TMP is removed on failure. FLAGS: FILE_DURABLE. 0, or -errno when PATH was
 * not replaced; with FILE_DURABLE, a positive errno when PATH was replaced but its
 * directory could not be opened or synced: a crash may bring back the old file.
 */
int file_replace(const char *path, const char *tmp, const char *data, size_t len, bool newline,
		 mode_t mode, unsigned flags);
/*
 * The content of PATH, a sysfs or proc file of at most SIZE - 1 bytes, in BUF, NUL-terminated:
 * one read(), as such a file hands its whole text to the first one. 0 or -errno.
 */
int file_read_small(const char *path, char *buf, size_t size);
/*
 * Whether the task whose /proc directory is PATH (relative to DIRFD, or AT_FDCWD) is named
 * NAME: its comm, 15 characters at most, as the kernel keeps it.
 */
bool proc_comm_is(int dirfd, const char *path, const char *name);

#endif /* LATENCYD_BASE_FSUTIL_H */
