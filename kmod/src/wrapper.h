/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * latency_tracker: the one place for kernel-version differences and for the choice of
 * clock. Every #if on the kernel version lives here, each with a comment naming the
 * kernel change it follows. Supported: 6.1 and later (built on Debian's 6.1, 6.12 and
 * 6.12-rt headers).
 */
#ifndef _LT_WRAPPER_H
#define _LT_WRAPPER_H

#include <linux/cgroup.h>
#include <linux/err.h>
#include <linux/errno.h>
#include <linux/version.h>
#include <linux/timekeeping.h>

#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 1, 0)
#error "latency_tracker needs Linux 6.1 or later"
#endif

/*
 * The trace clock: LTTng's kernel tracer (lttng-modules 2.13, wrapper/trace-clock.h,
 * trace_clock_monotonic_wrapper()) reads ktime_get_mono_fast_ns() on 64-bit
 * architectures, so record timestamps can be located in a kernel snapshot. NMI-safe.
 * LTTng additionally clamps it per CPU so it never goes backwards; delays here are
 * computed with a clamp at 0 instead.
 */
static inline u64 lt_clock_ns(void)
{
	return ktime_get_mono_fast_ns();
}

/*
 * v6.12 "fs: remove no_llseek" dropped no_llseek; our file has its own llseek, so no
 * wrapper is needed. v6.10 "tracing: Remove second parameter of __assign_str()" changed
 * __assign_str(); the trace event copies fixed-size arrays instead of using __string()
 * so that one definition builds on both.
 */

/*
 * Depth below the root of the cgroup v2 (default hierarchy) cgroup whose id is @id, or
 * -ENOENT. Process context (takes cgroup and kernfs locks). cgroup_get_from_id() is
 * exported (GPL) on 6.1 and on 6.12 and looks only in the default hierarchy; an unknown
 * id gives an ERR_PTR() or, on kernels before v6.0's rework of it, NULL: both are
 * handled. struct cgroup's level and the inline cgroup_ancestor() that the probes use are
 * the same on 6.1 and 6.12.
 */
static inline int lt_cgroup_level_of_id(u64 id)
{
#ifdef CONFIG_CGROUPS
	struct cgroup *cgrp = cgroup_get_from_id(id);
	int level;

	if (IS_ERR_OR_NULL(cgrp))
		return -ENOENT;
	level = cgrp->level;
	cgroup_put(cgrp);
	return level;
#else
	return -ENOENT;
#endif
}

/*
 * The net tracker's probes on skb tracepoints whose arguments changed: v6.3 "net: add
 * location to trace_consume_skb()" gave consume_skb the caller's address; v6.11 "net: add
 * rx_sk to trace_kfree_skb" gave kfree_skb the receiving socket. The probes' parameter
 * lists for the kernel built against (the types are net.c's includes).
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 3, 0)
#define LT_CONSUME_SKB_PROTO void *data, struct sk_buff *skb, void *location
#else
#define LT_CONSUME_SKB_PROTO void *data, struct sk_buff *skb
#endif
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 11, 0)
#define LT_KFREE_SKB_PROTO                                                      \
	void *data, struct sk_buff *skb, void *location,                        \
	enum skb_drop_reason reason, struct sock *rx_sk
#else
#define LT_KFREE_SKB_PROTO                                                      \
	void *data, struct sk_buff *skb, void *location,                        \
	enum skb_drop_reason reason
#endif

#endif /* _LT_WRAPPER_H */
