/* SPDX-License-Identifier: GPL-2.0-only */
/* The record syscall-peer.bpf.c submits to its ring buffer, shared with the loader. */
#ifndef SYSCALL_PEER_H
#define SYSCALL_PEER_H

#include <linux/types.h>

struct peer_event {
	__u32 tid;
	__u32 pid;
	__s64 id;
	__u64 delay_ns;
	__s64 ret;
};

#endif
