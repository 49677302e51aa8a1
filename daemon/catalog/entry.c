/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A catalog entry's parts: its causes as JSON, and the entry as clients see it. The keys
 * are proto.h's, so that the file, the replies and the events spell an entry alike.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <json-c/json.h>

#include "catalog.h"
#include "proto.h"
#include "result.h"

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

static struct json_object *alert_json(const struct latency_tracker_record *a, int *r)
{
	struct json_object *o = json_object_new_object(), *data = json_object_new_array();
	struct cause c = {.kind = CAUSE_ALERT, .alert = *a};
	char tracker[LATENCY_TRACKER_NAME_LEN + 1], comm[LATENCY_TRACKER_COMM_LEN + 1];

	if (!o)
		*r = -ENOMEM;
	cause_tracker(&c, tracker);
	cause_comm(&c, comm);
	result_add_string(o, PROTO_KEY_TRACKER, tracker, r);
	result_add_string(o, PROTO_KEY_REASON,
			  a->reason == LATENCY_TRACKER_REASON_TIMEOUT ? PROTO_REASON_TIMEOUT
								      : PROTO_REASON_THRESHOLD,
			  r);
	result_add_int(o, PROTO_KEY_SEQ, (int64_t)a->seq, r);
	result_add_int(o, PROTO_KEY_PID, a->pid, r);
	result_add_int(o, PROTO_KEY_TID, a->tid, r);
	result_add_string(o, PROTO_KEY_COMM, comm, r);
	result_add_int(o, PROTO_KEY_START_NS, (int64_t)a->start_ns, r);
	result_add_int(o, PROTO_KEY_END_NS, (int64_t)a->end_ns, r);
	result_add_int(o, PROTO_KEY_DELAY_NS, (int64_t)a->delay_ns, r);
	result_add_int(o, PROTO_KEY_THRESHOLD_NS, (int64_t)a->threshold_ns, r);
	for (int i = 0; data && i < LATENCY_TRACKER_DATA_WORDS; i++)
		json_object_array_add(data, json_object_new_int64((int64_t)a->data[i]));
	result_add(o, PROTO_KEY_DATA_WORDS, data, r);
	return o;
}

/* A manual cause has the shape of an alert (clients list causes alike) and its request. */
static struct json_object *manual_json(const struct cause_manual *m, int *r)
{
	struct json_object *o = json_object_new_object();

	if (!o)
		*r = -ENOMEM;
	result_add_string(o, PROTO_KEY_TRACKER, CAUSE_MANUAL_TRACKER, r);
	result_add_string(o, PROTO_KEY_REASON, PROTO_REASON_MANUAL, r);
	result_add_int(o, PROTO_KEY_REQUEST, (int64_t)m->request, r);
	result_add_string(o, PROTO_KEY_MESSAGE, m->message, r);
	result_add_int(o, PROTO_KEY_PID, m->pid, r);
	result_add_int(o, PROTO_KEY_TID, m->pid, r);
	result_add_string(o, PROTO_KEY_COMM, "latencyctl", r);
	result_add_int(o, PROTO_KEY_START_NS, (int64_t)m->time_ns, r);
	result_add_int(o, PROTO_KEY_END_NS, (int64_t)m->time_ns, r);
	result_add_int(o, PROTO_KEY_DELAY_NS, 0, r);
	result_add_int(o, PROTO_KEY_THRESHOLD_NS, 0, r);
	return o;
}

/* A peer's alert: which host, which incident, and what the origin saw. */
static struct json_object *peer_json(const struct cause_peer *p, int *r)
{
	const struct proto_fleet_alert *a = &p->alert;
	struct json_object *o = json_object_new_object();

	if (!o)
		*r = -ENOMEM;
	result_add_string(o, PROTO_KEY_TRACKER, CAUSE_PEER_TRACKER, r);
	result_add_string(o, PROTO_KEY_REASON, PROTO_REASON_PEER, r);
	result_add_string(o, PROTO_KEY_ORIGIN, a->host, r);
	result_add_string(o, PROTO_KEY_INCIDENT, a->incident, r);
	result_add_string(o, PROTO_KEY_ORIGIN_TRACKER, a->tracker, r);
	result_add_int(o, PROTO_KEY_TID, a->tid, r);
	result_add_string(o, PROTO_KEY_COMM, a->comm, r);
	result_add_int(o, PROTO_KEY_DELAY_NS, (int64_t)a->delay_ns, r);
	result_add_int(o, PROTO_KEY_START_REALTIME_NS, (int64_t)a->start_realtime_ns, r);
	result_add_int(o, PROTO_KEY_END_REALTIME_NS, (int64_t)a->end_realtime_ns, r);
	result_add_int(o, PROTO_KEY_START_NS, (int64_t)p->time_ns, r);
	result_add_int(o, PROTO_KEY_END_NS, (int64_t)p->time_ns, r);
	result_add_int(o, PROTO_KEY_RECEIVED_TO_RECORD_NS, (int64_t)(p->time_ns - p->received_ns),
		       r);
	return o;
}

struct json_object *cause_json(const struct cause *c)
{
	struct json_object *o;
	int r = 0;

	if (c->kind == CAUSE_MANUAL)
		o = manual_json(&c->manual, &r);
	else if (c->kind == CAUSE_PEER)
		o = peer_json(&c->peer, &r);
	else
		o = alert_json(&c->alert, &r);
	if (r < 0) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

static struct json_object *member(struct json_object *o, const char *key)
{
	struct json_object *v = NULL;

	json_object_object_get_ex(o, key, &v);
	return v;
}

struct json_object *catalog_entry_copy(struct json_object *entry, int *r)
{
	struct json_object *o = json_object_new_object();

	if (!o) {
		*r = -ENOMEM;
		return NULL;
	}
	json_object_object_foreach(entry, key, val)
	{
		if (strcmp(key, PROTO_KEY_CAUSES) != 0)
			result_add(o, key, json_object_get(val), r);
	}
	return o;
}

struct json_object *catalog_entry_view(struct json_object *entry, size_t max_causes, int *r)
{
	struct json_object *o = catalog_entry_copy(entry, r),
			   *causes = member(entry, PROTO_KEY_CAUSES);
	struct json_object *shown = o ? json_object_new_array() : NULL;
	size_t n = json_object_array_length(causes);

	for (size_t i = 0; shown && i < n && i < max_causes; i++)
		json_object_array_add(shown, json_object_get(json_object_array_get_idx(causes, i)));
	if (o)
		result_add(o, PROTO_KEY_CAUSES, shown, r); /* NULL shown: -ENOMEM */
	result_add_int(o, PROTO_KEY_CAUSES_TOTAL, (int64_t)n, r);
	return o;
}
