// SPDX-License-Identifier: GPL-2.0-only
/*
 * latency_tracker: alert records. A record is built from the closed (or timed-out)
 * entry, shown to the tracker's callback, then rate-limited into the shared ring; only a
 * record that entered the ring is also emitted as the latency_tracker_alert tracepoint,
 * so the notification file and a trace snapshot hold the same alerts. The tracepoint is
 * emitted before the readers are woken, so a reader that takes a snapshot on wake-up
 * finds the alert in it.
 */
#include <linux/sched.h>
#include <linux/string.h>

#include "internal.h"

#define CREATE_TRACE_POINTS
#include <trace/events/latency_tracker.h>

EXPORT_TRACEPOINT_SYMBOL_GPL(latency_tracker_alert);
EXPORT_TRACEPOINT_SYMBOL_GPL(latency_tracker_device_name);

static_assert(sizeof(unsigned long) == sizeof(__u64), "stack entries are 64-bit");

/* Entry owned by the caller or under its bucket lock. Leaves reason/end_* to the caller. */
void lt_record_from_entry(struct latency_tracker *t, struct lt_table *tbl,
			  struct lt_entry *e, struct latency_tracker_record *rec)
{
	lt_record_init(rec, LATENCY_TRACKER_REC_ALERT);
	memcpy(rec->tracker, t->name, sizeof(rec->tracker));
	rec->tracker_type = t->type;
	rec->pid = e->pid;
	rec->tid = e->tid;
	rec->start_cpu = e->start_cpu;
	memcpy(rec->comm, e->comm, sizeof(rec->comm));
	rec->start_ns = e->start_ns;
	rec->threshold_ns = READ_ONCE(t->threshold_ns);
	memcpy(rec->data, e->data, sizeof(rec->data));
	if (e->timed_out)
		rec->flags |= LATENCY_TRACKER_REC_F_TIMED_OUT;
	if (tbl->stack_mode == LATENCY_TRACKER_STACK_IN && e->nr_stack) {
		rec->nr_stack = e->nr_stack;
		memcpy(rec->stack, lt_entry_stack(tbl, e), e->nr_stack * sizeof(rec->stack[0]));
		rec->flags |= LATENCY_TRACKER_REC_F_STACK_IN;
	}
}

/* A pair closed by event_pair, which has no entry. Leaves start_cpu, reason, end_*. */
void lt_record_from_pair(struct latency_tracker *t, const struct latency_tracker_in *in,
			 struct latency_tracker_record *rec)
{
	struct task_struct *task = in->task ? in->task : current;

	lt_record_init(rec, LATENCY_TRACKER_REC_ALERT);
	memcpy(rec->tracker, t->name, sizeof(rec->tracker));
	rec->tracker_type = t->type;
	rec->pid = task->tgid;
	rec->tid = task->pid;
	/* As lt_entry_fill(): a racing rename may tear it, never overrun it. */
	memcpy(rec->comm, task->comm, sizeof(rec->comm));
	rec->comm[sizeof(rec->comm) - 1] = '\0';
	rec->start_ns = in->ts;
	rec->threshold_ns = READ_ONCE(t->threshold_ns);
	memcpy(rec->data, in->data, sizeof(rec->data));
}

/* Any context, outside lt_enter(). */
void lt_alert_emit(struct latency_tracker *t, struct latency_tracker_record *rec, void *priv)
{
	bool timeout = rec->reason == LATENCY_TRACKER_REASON_TIMEOUT;

	lt_count(t->stats, timeout ? LT_TIMEOUTS : LT_ALERTS);
	if (t->cb && !t->cb(t, rec, priv)) {
		lt_count(t->stats, LT_FILTERED);
		return;
	}
	switch (lt_notify_push(rec, &t->limit)) {
	case LT_PUSH_OK:
		/* Tracepoint first, then wake the readers (see lt_notify_wake()). */
		trace_latency_tracker_alert(rec);
		lt_notify_wake();
		break;
	case LT_PUSH_THROTTLED:
		lt_count(t->stats, LT_THROTTLED);
		break;
	case LT_PUSH_SUPPRESSED:
		lt_count(t->stats, LT_SUPPRESSED);
		break;
	case LT_PUSH_BUSY:
		lt_count(t->stats, LT_BUSY);
		break;
	}
}
