/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * spawn_helper.c: latencyd's helper processes (latencyd-fleet, latencyd-reader), found and
 * started alike: an executable of its own each (never a fork without exec in this
 * multithreaded daemon), at normal priority, with the descriptors it is given and no other.
 */
#ifndef LATENCYD_SPAWN_HELPER_H
#define LATENCYD_SPAWN_HELPER_H

#include <stddef.h>
#include <sys/types.h>

/* Where a helper's descriptors start (stdin is /dev/null, stdout and stderr latencyd's). */
#define SPAWN_FIRST_FD 3

/* NAME beside latencyd (a build tree, one prefix), else in LIBEXECDIR, into BUF; 0 when
 * executable there, else -errno (BUF still names where it was looked for). */
int spawn_helper_path(const char *name, const char *libexecdir, char *buf, size_t size);
/*
 * PATH run with ARGV: FDS[i] at SPAWN_FIRST_FD + i, no other descriptor past them, every
 * signal unblocked and default, SCHED_OTHER; latencyd's environment. *PID set; -errno.
 * FDS must be at SPAWN_FIRST_FD + N_FDS or above, for each dup2 to copy (one onto itself
 * would keep close-on-exec).
 */
int spawn_helper(const char *path, char *const argv[], const int *fds, size_t n_fds, pid_t *pid);

#endif /* LATENCYD_SPAWN_HELPER_H */
