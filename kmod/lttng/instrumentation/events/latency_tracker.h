/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * LTTng view of the latency_tracker_alert tracepoint (include/trace/events/
 * latency_tracker.h): the same fields, with the tracker name as a string and the stack
 * as a sequence of hexadecimal addresses; and of latency_tracker_device_name, its fields
 * named as LTTng's statedump names a block device's (dev, diskname).
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM latency_tracker

#if !defined(LTTNG_TRACE_LATENCY_TRACKER_H) || defined(TRACE_HEADER_MULTI_READ)
#define LTTNG_TRACE_LATENCY_TRACKER_H

#include <lttng/tracepoint-event.h>
#include <linux/types.h>
#include <uapi/latency_tracker.h>

LTTNG_TRACEPOINT_EVENT(latency_tracker_alert,

	TP_PROTO(const struct latency_tracker_record *rec),

	TP_ARGS(rec),

	TP_FIELDS(
		ctf_string(tracker, (const char *)rec->tracker)
		ctf_integer(u32, tracker_type, rec->tracker_type)
		ctf_integer(u32, reason, rec->reason)
		ctf_integer_hex(u32, flags, rec->flags)
		ctf_integer(u64, seq, rec->seq)
		ctf_integer(s32, pid, rec->pid)
		ctf_integer(s32, tid, rec->tid)
		ctf_array_text(char, comm, (const char *)rec->comm, LATENCY_TRACKER_COMM_LEN)
		ctf_integer(u32, start_cpu, rec->start_cpu)
		ctf_integer(u32, end_cpu, rec->end_cpu)
		ctf_integer(u64, start_ns, rec->start_ns)
		ctf_integer(u64, end_ns, rec->end_ns)
		ctf_integer(u64, delay_ns, rec->delay_ns)
		ctf_integer(u64, threshold_ns, rec->threshold_ns)
		ctf_array(u64, data, rec->data, LATENCY_TRACKER_DATA_WORDS)
		ctf_sequence_hex(u64, stack, rec->stack, u32,
				 min_t(u32, rec->nr_stack, LATENCY_TRACKER_STACK_DEPTH))
	)
)

LTTNG_TRACEPOINT_EVENT(latency_tracker_device_name,

	TP_PROTO(u32 dev, const char *name),

	TP_ARGS(dev, name),

	TP_FIELDS(
		ctf_integer(u32, dev, dev)
		ctf_string(diskname, name)
	)
)

#endif /* LTTNG_TRACE_LATENCY_TRACKER_H */

/* This part must be outside protection. */
#include <lttng/define_trace.h>
