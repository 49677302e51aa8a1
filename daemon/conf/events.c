/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * session.events checked where it is typed. lttng-sessiond enables a kernel event of any
 * name and records nothing for one no loaded probe offers, without a word: "sched_swich"
 * would cost a whole flight recorder's scheduling history, found out at the first
 * incident. The names are LTTng's, which are not always the kernel's (irq_softirq_entry).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <latency_tracker.h>

#include "proto.h"
#include "conf_internal.h"

/*
 * The events of the probes latencyd's lttng-sessiond drop-in loads (CONF_KERNEL_PROBES),
 * from lttng-modules 2.13 (2.13.9, Debian 12's lttng-modules-dkms; 2.13.23 has the same):
 * include/instrumentation/events/{sched,irq,timer,block,net,lttng-statedump}.h. An event's
 * name is the map argument of the LTTNG_TRACEPOINT_EVENT*_MAP macros (timer.h maps the
 * kernel's hrtimer_start to timer_hrtimer_start, irq.h softirq_entry to irq_softirq_entry)
 * and the name argument of the others, TRACE_SYSTEM added to none. Every kernel version's
 * branch is here: block_rq_abort and block_sleeprq are for kernels older than Debian 12's,
 * and lttng_statedump_process_mnt_ns needs a kernel source tree (a DKMS build against
 * headers lacks it); the rest is what those probes define built for Linux 6.1 and 6.12.
 * Plus latencyd's own event (LATENCY_TRACKER_TRACE_EVENT, module.probe). Sorted (bsearch).
 */
const char *const conf_kernel_events[] = {
	"block_bio_backmerge",
	"block_bio_bounce",
	"block_bio_complete",
	"block_bio_frontmerge",
	"block_bio_queue",
	"block_bio_remap",
	"block_dirty_buffer",
	"block_getrq",
	"block_plug",
	"block_rq_abort",
	"block_rq_complete",
	"block_rq_insert",
	"block_rq_issue",
	"block_rq_merge",
	"block_rq_remap",
	"block_rq_requeue",
	"block_sleeprq",
	"block_split",
	"block_touch_buffer",
	"block_unplug",
	"irq_handler_entry",
	"irq_handler_exit",
	"irq_softirq_entry",
	"irq_softirq_exit",
	"irq_softirq_raise",
	LATENCY_TRACKER_TRACE_EVENT,
	"lttng_statedump_block_device",
	"lttng_statedump_cpu_topology",
	"lttng_statedump_end",
	"lttng_statedump_file_descriptor",
	"lttng_statedump_interrupt",
	"lttng_statedump_network_interface",
	"lttng_statedump_process_cgroup_ns",
	"lttng_statedump_process_ipc_ns",
	"lttng_statedump_process_mnt_ns",
	"lttng_statedump_process_net_ns",
	"lttng_statedump_process_pid_ns",
	"lttng_statedump_process_state",
	"lttng_statedump_process_time_ns",
	"lttng_statedump_process_user_ns",
	"lttng_statedump_process_uts_ns",
	"lttng_statedump_start",
	"lttng_statedump_vm_map",
	"net_dev_queue",
	"net_dev_xmit",
	"net_if_receive_skb",
	"net_if_receive_skb_entry",
	"net_if_receive_skb_exit",
	"net_if_receive_skb_list_entry",
	"net_if_receive_skb_list_exit",
	"net_if_rx",
	"net_if_rx_entry",
	"net_if_rx_exit",
	"net_if_rx_ni_entry",
	"net_if_rx_ni_exit",
	"net_napi_gro_frags_entry",
	"net_napi_gro_frags_exit",
	"net_napi_gro_receive_entry",
	"net_napi_gro_receive_exit",
	"sched_kthread_stop",
	"sched_kthread_stop_ret",
	"sched_migrate_task",
	"sched_pi_setprio",
	"sched_process_exec",
	"sched_process_exit",
	"sched_process_fork",
	"sched_process_free",
	"sched_process_wait",
	"sched_stat_blocked",
	"sched_stat_iowait",
	"sched_stat_runtime",
	"sched_stat_sleep",
	"sched_stat_wait",
	"sched_switch",
	"sched_wait_task",
	"sched_wakeup",
	"sched_wakeup_new",
	"sched_waking",
	"timer_cancel",
	"timer_expire_entry",
	"timer_expire_exit",
	"timer_hrtimer_cancel",
	"timer_hrtimer_expire_entry",
	"timer_hrtimer_expire_exit",
	"timer_hrtimer_init",
	"timer_hrtimer_start",
	"timer_init",
	"timer_itimer_expire",
	"timer_itimer_state",
	"timer_start",
};

const size_t conf_n_kernel_events = sizeof(conf_kernel_events) / sizeof(conf_kernel_events[0]);

/* As lttng enable-event takes a name: '*' matches any run of characters, anywhere. */
bool conf_event_match(const char *pattern, const char *event)
{
	const char *star = NULL, *resume = NULL;

	while (*event) {
		if (*pattern == '*') {
			star = ++pattern;
			resume = event;
		} else if (*pattern == *event) {
			pattern++;
			event++;
		} else if (star) {
			pattern = star;
			event = ++resume;
		} else {
			return false;
		}
	}
	while (*pattern == '*')
		pattern++;
	return !*pattern;
}

static int compare(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* LTTng's system call events: syscall_entry_NAME, compat_syscall_exit_NAME... */
static bool is_syscall(const char *name)
{
	return strncmp(name, "syscall_", 8) == 0 || strncmp(name, "compat_syscall_", 15) == 0;
}

int conf_event_check(const char *name, char *why, size_t whylen)
{
	static const char unloaded[] =
		"latencyd's lttng-sessiond drop-in loads (" CONF_KERNEL_PROBES
		") nor latencyd's own: it records nothing unless "
		"lttng-sessiond also loads its probe (--kmod-probes)";
	const char *near;

	/* A tracepoint enabler never matches a system call: those are session.syscalls'. */
	if (is_syscall(name)) {
		snprintf(why, whylen,
			 "'%s' is a system call, which session.events does not record: "
			 "session.syscalls = true records every system call",
			 name);
		return -EINVAL;
	}
	if (strchr(name, '*')) {
		for (size_t i = 0; i < conf_n_kernel_events; i++)
			if (conf_event_match(name, conf_kernel_events[i]))
				return 0;
		snprintf(why, whylen, "'%s' matches none of the events of the probes %s", name,
			 unloaded);
		return 1;
	}
	if (bsearch(&name, conf_kernel_events, conf_n_kernel_events, sizeof(conf_kernel_events[0]),
		    compare))
		return 0;
	near = proto_nearest(name, conf_kernel_events, conf_n_kernel_events);
	if (near) {
		snprintf(why, whylen, "'%s' is not an event; did you mean '%s'?", name, near);
		return -EINVAL;
	}
	snprintf(why, whylen, "'%s' is not among the events of the probes %s", name, unloaded);
	return 1;
}
