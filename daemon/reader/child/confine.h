/* SPDX-License-Identifier: GPL-2.0-only */
/* confine.c: latencyd-reader leaves latencyd's privileges before it opens the snapshot. */
#ifndef LATENCYD_READER_CONFINE_H
#define LATENCYD_READER_CONFINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* True when a sanitizer reserves address space beyond any sensible RLIMIT_AS. */
bool confine_sanitized(void);
/*
 * No capability (effective, permitted, inheritable, ambient, bounding set), none to gain
 * (no_new_privs), RLIMIT_RTPRIO, RTTIME, NICE and MEMLOCK at 0, nice 10 and SCHED_OTHER,
 * at most MAX_MEMORY bytes of address space (0: no bound; none under a sanitizer), and the
 * system calls that reach beyond it refused (syscalls.h). The uid stays (see confine.c).
 * -errno, WHY set.
 */
int confine(uint64_t max_memory, char *why, size_t whylen);

#endif /* LATENCYD_READER_CONFINE_H */
