// SPDX-License-Identifier: GPL-2.0-only
/*
 * A cause's names, and the cause as the catalog keeps it: what the waiter took (a kernel
 * record, a request, a peer's alert) in the one shape clients list alike.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cause.h"
#include "entry.h"
#include "proto.h"

void cause_tracker(const struct cause *c, char name[LATENCY_TRACKER_NAME_LEN + 1])
{
	if (c->kind != CAUSE_ALERT) {
		snprintf(name, LATENCY_TRACKER_NAME_LEN + 1, "%s",
			 c->kind == CAUSE_MANUAL ? CAUSE_MANUAL_TRACKER : CAUSE_PEER_TRACKER);
		return;
	}
	memcpy(name, c->alert.tracker, LATENCY_TRACKER_NAME_LEN);
	name[LATENCY_TRACKER_NAME_LEN] = 0;
}

void cause_comm(const struct cause *c, char comm[LATENCY_TRACKER_COMM_LEN + 1])
{
	if (c->kind != CAUSE_ALERT) {
		snprintf(comm, LATENCY_TRACKER_COMM_LEN + 1, "%s",
			 c->kind == CAUSE_MANUAL ? "latencyctl" : c->peer.alert.comm);
		return;
	}
	memcpy(comm, c->alert.comm, LATENCY_TRACKER_COMM_LEN);
	comm[LATENCY_TRACKER_COMM_LEN] = 0;
}

/*
 * A timeout flagged DISCARDED is the key's last record, its delay a lower bound: told apart
 * from one still pending, which may yet end. The flag means nothing on other reasons.
 */
const char *cause_alert_reason(const struct latency_tracker_record *a)
{
	if (a->reason != LATENCY_TRACKER_REASON_TIMEOUT)
		return PROTO_REASON_THRESHOLD;
	return a->flags & LATENCY_TRACKER_REC_F_DISCARDED ? PROTO_REASON_DISCARDED
							  : PROTO_REASON_TIMEOUT;
}

static void alert_fields(const struct latency_tracker_record *a, struct catalog_cause *o, int *r)
{
	o->reason = catalog_strdup(cause_alert_reason(a), r);
	o->seq = a->seq;
	o->pid = a->pid;
	o->tid = a->tid;
	o->start_ns = a->start_ns;
	o->end_ns = a->end_ns;
	o->delay_ns = a->delay_ns;
	o->threshold_ns = a->threshold_ns;
	memcpy(o->data, a->data, sizeof(o->data));
}

/* A manual cause has the shape of an alert (clients list causes alike) and its request. */
static void manual_fields(const struct cause_manual *m, struct catalog_cause *o, int *r)
{
	o->reason = catalog_strdup(PROTO_REASON_MANUAL, r);
	o->request = m->request;
	o->message = catalog_strdup(m->message, r);
	o->pid = m->pid;
	o->tid = m->pid;
	o->start_ns = m->time_ns;
	o->end_ns = m->time_ns;
}

/* A peer's alert: which host, which incident, and what the origin saw. */
static void peer_fields(const struct cause_peer *p, struct catalog_cause *o, int *r)
{
	const struct proto_fleet_alert *a = &p->alert;

	o->reason = catalog_strdup(PROTO_REASON_PEER, r);
	o->origin = catalog_strdup(a->host, r);
	o->incident = catalog_strdup(a->incident, r);
	o->origin_tracker = catalog_strdup(a->tracker, r);
	o->tid = a->tid;
	o->delay_ns = a->delay_ns;
	o->start_realtime_ns = a->start_realtime_ns;
	o->end_realtime_ns = a->end_realtime_ns;
	o->start_ns = p->time_ns;
	o->end_ns = p->time_ns;
	o->received_to_record_ns = p->time_ns - p->received_ns;
}

int cause_to_catalog(const struct cause *c, struct catalog_cause *o)
{
	char tracker[LATENCY_TRACKER_NAME_LEN + 1], comm[LATENCY_TRACKER_COMM_LEN + 1];
	int r = 0;

	*o = (struct catalog_cause){0};
	cause_tracker(c, tracker);
	cause_comm(c, comm);
	o->tracker = catalog_strdup(tracker, &r);
	o->comm = catalog_strdup(comm, &r);
	if (c->kind == CAUSE_MANUAL)
		manual_fields(&c->manual, o, &r);
	else if (c->kind == CAUSE_PEER)
		peer_fields(&c->peer, o, &r);
	else
		alert_fields(&c->alert, o, &r);
	if (r < 0)
		catalog_cause_free(o);
	return r;
}
