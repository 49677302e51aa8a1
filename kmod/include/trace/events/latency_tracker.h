/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The alert tracepoint: one event per alert that entered the notification ring, with the
 * record's fields; and the devices' names (device_names). TRACE_SYSTEM is unique to this module. LTTng records it through
 * lttng-probe-latency_tracker.ko (kmod/lttng/), whose field list must follow this one.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM latency_tracker

#if !defined(_TRACE_LATENCY_TRACKER_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_LATENCY_TRACKER_H

#include <linux/kdev_t.h>
#include <linux/minmax.h>
#include <linux/string.h>
#include <linux/tracepoint.h>
#include <uapi/latency_tracker.h>

TRACE_EVENT(latency_tracker_alert,

	TP_PROTO(const struct latency_tracker_record *rec),

	TP_ARGS(rec),

	TP_STRUCT__entry(
		__array(char, tracker, LATENCY_TRACKER_NAME_LEN)
		__array(char, comm, LATENCY_TRACKER_COMM_LEN)
		__field(u64, seq)
		__field(u32, tracker_type)
		__field(u32, reason)
		__field(u32, flags)
		__field(s32, pid)
		__field(s32, tid)
		__field(u32, start_cpu)
		__field(u32, end_cpu)
		__field(u64, start_ns)
		__field(u64, end_ns)
		__field(u64, delay_ns)
		__field(u64, threshold_ns)
		__array(u64, data, LATENCY_TRACKER_DATA_WORDS)
		__dynamic_array(u64, stack,
				min_t(u32, rec->nr_stack, LATENCY_TRACKER_STACK_DEPTH))
	),

	TP_fast_assign(
		memcpy(__entry->tracker, rec->tracker, LATENCY_TRACKER_NAME_LEN);
		memcpy(__entry->comm, rec->comm, LATENCY_TRACKER_COMM_LEN);
		__entry->seq = rec->seq;
		__entry->tracker_type = rec->tracker_type;
		__entry->reason = rec->reason;
		__entry->flags = rec->flags;
		__entry->pid = rec->pid;
		__entry->tid = rec->tid;
		__entry->start_cpu = rec->start_cpu;
		__entry->end_cpu = rec->end_cpu;
		__entry->start_ns = rec->start_ns;
		__entry->end_ns = rec->end_ns;
		__entry->delay_ns = rec->delay_ns;
		__entry->threshold_ns = rec->threshold_ns;
		memcpy(__entry->data, rec->data, sizeof(__entry->data));
		memcpy(__get_dynamic_array(stack), rec->stack,
		       __get_dynamic_array_len(stack));
	),

	TP_printk("tracker=%s reason=%u delay_ns=%llu pid=%d tid=%d comm=%s start_cpu=%u end_cpu=%u start_ns=%llu end_ns=%llu seq=%llu data=%llx,%llx,%llx,%llx",
		  __entry->tracker, __entry->reason, __entry->delay_ns, __entry->pid,
		  __entry->tid, __entry->comm, __entry->start_cpu, __entry->end_cpu,
		  __entry->start_ns, __entry->end_ns, __entry->seq, __entry->data[0],
		  __entry->data[1], __entry->data[2], __entry->data[3])
);

/*
 * A block device's name as its host calls it, written by latencyd into device_names when
 * its session starts: events of other trackers carry only a dev_t, and a snapshot read on
 * another host (a peer's, on the collector) then still names the device.
 */
TRACE_EVENT(latency_tracker_device_name,

	TP_PROTO(u32 dev, const char *name),

	TP_ARGS(dev, name),

	TP_STRUCT__entry(
		__field(u32, dev)
		__array(char, name, LATENCY_TRACKER_DEVNAME_LEN)
	),

	TP_fast_assign(
		__entry->dev = dev;
		strscpy(__entry->name, name, LATENCY_TRACKER_DEVNAME_LEN);
	),

	TP_printk("dev=%u:%u name=%s", MAJOR(__entry->dev), MINOR(__entry->dev), __entry->name)
);

#endif /* _TRACE_LATENCY_TRACKER_H */

/* This part must be outside protection. */
#include <trace/define_trace.h>
