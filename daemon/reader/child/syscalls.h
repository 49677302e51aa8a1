/* SPDX-License-Identifier: GPL-2.0-only */
/* syscalls.c: the system calls latencyd-reader refuses itself, a seccomp filter. */
#ifndef LATENCYD_READER_SYSCALLS_H
#define LATENCYD_READER_SYSCALLS_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Loads the filter (no_new_privs must be set): sockets, signals to other processes, opens
 * that write or create, changes to files' names, modes, owners and attributes, io_uring,
 * user namespaces and the like refused with EPERM; with SANITIZED false ptrace and exec
 * too. Another ABI's calls kill the process. -errno, WHY set.
 */
int syscalls_confine(bool sanitized, char *why, size_t whylen);

#endif /* LATENCYD_READER_SYSCALLS_H */
