// SPDX-License-Identifier: GPL-2.0-only
/*
 * lttng-probe-latency_tracker: lets an LTTng kernel session record the
 * latency_tracker:latency_tracker_alert tracepoint. Built out of tree against the
 * lttng-modules source the VM runs (its Kbuild.common and include/), it depends on
 * lttng-tracer only, not on latency_tracker.ko: load order is free. Installed as
 * lttng-probe-latency_tracker.ko, lttng-sessiond loads it with
 * --extra-kmod-probes=latency_tracker.
 */
#include <linux/module.h>
#include <lttng/tracer.h>

/*
 * The kernel-side definition first, so that a mismatch between its prototype and the
 * LTTng event below fails to build.
 */
#include <trace/events/latency_tracker.h>

#include <wrapper/tracepoint.h>

/* Create the LTTng probe from our own instrumentation header. */
#undef TRACE_INCLUDE_PATH
#undef TRACE_INCLUDE_FILE
#define LTTNG_PACKAGE_BUILD
#define CREATE_TRACE_POINTS
#define TRACE_INCLUDE_PATH instrumentation/events

#include <instrumentation/events/latency_tracker.h>

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("LTTng probe for the latency_tracker alert tracepoint");
MODULE_VERSION("0.1.0");
