/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * privs.c: the steps by which a process that parses untrusted bytes leaves what latencyd
 * holds (latencyd-fleet's privdrop.c, latencyd-reader's confine.c): no capability within
 * reach, no realtime priority or locked memory.
 */
#ifndef LATENCYD_PRIVS_H
#define LATENCYD_PRIVS_H

#include <stdbool.h>
#include <stddef.h>

/* Drops every capability from the bounding set; -errno of the first refused drop (EPERM
 * without CAP_SETPCAP), 0 when the set is empty. */
int privs_empty_bounding_set(void);
/* True when no capability is effective, permitted or inheritable. */
bool privs_none(void);
/*
 * RLIMIT_RTPRIO, RLIMIT_RTTIME, RLIMIT_NICE and RLIMIT_MEMLOCK at 0, soft and hard: no
 * SCHED_FIFO, no niceness below the one it has, no locked memory, and none to be raised
 * again. -errno, WHY set.
 */
int privs_drop_limits(char *why, size_t whylen);

#endif /* LATENCYD_PRIVS_H */
