/* SPDX-License-Identifier: GPL-2.0-only WITH Linux-syscall-note */
/*
 * The kernel <-> user-space ABI of the latency_tracker module: the one definition,
 * included by the module and by latencyd.
 */
#ifndef _UAPI_LATENCY_TRACKER_H
#define _UAPI_LATENCY_TRACKER_H

#include <linux/types.h>

#define LATENCY_TRACKER_MODULE_NAME "latency_tracker"

/* A major bump breaks readers; a minor bump only appends fields or values. */
#define LATENCY_TRACKER_ABI_MAJOR 1
#define LATENCY_TRACKER_ABI_MINOR 0

/* sysfs root of the module's own files, relative to /sys. */
#define LATENCY_TRACKER_SYSFS_DIR "kernel/latency_tracker"

#endif /* _UAPI_LATENCY_TRACKER_H */
