/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * hist.c: a tracker's log2 histograms, SYSFS/kernel/latency_tracker/NAME/hist/ (module ABI
 * 1.4): delay_ns (every paired delay), by_key (the same split per CPU, disk or system
 * call, as hist/per says), per and reset. Parsed strictly: a malformed line is -EBADMSG
 * with the file and the line said in WHY.
 */
#ifndef LATENCYD_KERNEL_HIST_H
#define LATENCYD_KERNEL_HIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <latency_tracker.h>

#include "proto.h"

#define KHIST_DIR      "hist"
#define KHIST_DELAY    "hist/delay_ns"
#define KHIST_BY_KEY   "hist/by_key"
#define KHIST_PER      "hist/per"
#define KHIST_RESET    "hist/reset"
#define KHIST_FILE_MAX (1024 * 1024)
#define KHIST_WHY_LEN  256

/* hist/per's words. */
#define KHIST_PER_NONE	  "none"
#define KHIST_PER_CPU	  "cpu"
#define KHIST_PER_DISK	  "disk"
#define KHIST_PER_SYSCALL "syscall"

/*
 * One read fills a struct proto_hist (proto.h, the one definition of a histogram):
 * delay_ns its since_ns, now_ns and counts; by_key its since_ns, now_ns, per (the file's
 * word, "none" included) and keys, in the kernel's order, names left empty.
 */
/* The text of a delay_ns (BY_KEY false) or by_key file, named FILE in WHY. */
int khist_parse(const char *text, const char *file, bool by_key, struct proto_hist *h, char *why,
		size_t whylen);
/*
 * Reads and parses the tracker's delay_ns or by_key into H. Every error says why in WHY:
 * -EINVAL for a name that is no tracker's, -ENOENT without the tracker or without its
 * hist/ (a module before ABI 1.4), each said apart.
 */
int khist_read(const char *sysfs_root, const char *tracker, bool by_key, struct proto_hist *h,
	       char *why, size_t whylen);
/* A word of hist/per: true for none, cpu, disk, syscall. */
bool khist_per_valid(const char *word);

#endif /* LATENCYD_KERNEL_HIST_H */
