/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The fleet in the manager: a peer's alert goes from the MQTT thread straight to the
 * recorder's queue (it records at once, under its peer bucket); a local snapshot is
 * published as an incident; what each host did for an incident (recorded, refused by its
 * peer bucket, failed) is published by it and kept by all in the catalog's incidents. A
 * local alert is published as the waiter starts its record (RECORDER_ADMITTED), so that
 * the peers do not wait for that record to end. A peer-triggered record is never published
 * again: no storms, no loops.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <json-c/json.h>

#include "log.h"
#include "manager.h"

static int on_peer_alert(const struct proto_fleet_alert *a, uint64_t received_ns, void *userdata)
{
	struct manager *m = userdata; /* the MQTT thread: only the recorder's queue is safe */

	return recorder_peer(m->recorder, a, received_ns);
}

static void note_incident(struct manager *m, const char *incident, const char *host,
			  const char *status)
{
	if (catalog_incident_note(m->catalog, incident, host, status, (uint64_t)time(NULL)) < 0)
		return;
	manager_catalog_changed(m);
}

static void broadcast_fleet(struct manager *m, const char *what, const char *detail)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, PROTO_KEY_STATE, json_object_new_string(what));
	json_object_object_add(o, PROTO_KEY_DETAIL, json_object_new_string(detail));
	control_broadcast(m->control, PROTO_EVENT_FLEET, o);
	json_object_put(o);
}

static void on_peer_noted(struct manager *m, const struct proto_fleet_alert *a)
{
	struct json_object *o = json_object_new_object();

	log_info("fleet: alert from %s (tracker %s, %s tid %" PRId64 ", %" PRIu64
		 " ns), incident %s: recording",
		 a->host, a->tracker, a->comm, a->tid, a->delay_ns, a->incident);
	json_object_object_add(o, PROTO_KEY_ORIGIN, json_object_new_string(a->host));
	json_object_object_add(o, PROTO_KEY_INCIDENT, json_object_new_string(a->incident));
	json_object_object_add(o, PROTO_KEY_TRACKER, json_object_new_string(a->tracker));
	json_object_object_add(o, PROTO_KEY_DELAY_NS, json_object_new_int64((int64_t)a->delay_ns));
	control_broadcast(m->control, PROTO_EVENT_PEER, o);
	json_object_put(o);
}

static int on_notes(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
	struct manager *m = userdata;
	struct fleet_note *list = fleet_take(m->fleet);

	for (struct fleet_note *n = list; n; n = n->next) {
		switch (n->kind) {
		case FLEET_CONNECTED:
			log_info("fleet: connected to %s as %s, group %s", n->detail,
				 fleet_host(m->fleet), m->conf->fleet.group);
			broadcast_fleet(m, "connected", n->detail);
			break;
		case FLEET_DISCONNECTED:
			log_warnx("fleet: not connected to %s (%s): local detection goes on, "
				  "reconnecting",
				  m->conf->fleet.broker, n->detail);
			broadcast_fleet(m, "disconnected", n->detail);
			break;
		case FLEET_RESULT:
			note_incident(m, n->result.incident, n->result.host, n->result.status);
			break;
		case FLEET_PEER_ALERT:
			on_peer_noted(m, &n->alert);
			break;
		}
	}
	fleet_note_free(list);
	return 0;
}

int manager_start_fleet(struct manager *m)
{
	const struct conf *c = m->conf;
	int r;

	if (!c->fleet.enabled || !m->recorder)
		return 0;
	r = fleet_new(c, on_peer_alert, m, &m->fleet);
	if (r < 0)
		return log_warn_errno(r, "fleet: cannot set up the MQTT client for %s",
				      c->fleet.broker);
	recorder_set_fleet_host(m->recorder, fleet_host(m->fleet));
	r = sd_event_add_io(m->event, &m->fleet_notes, fleet_eventfd(m->fleet), EPOLLIN, on_notes,
			    m);
	if (r < 0)
		return log_warn_errno(r, "fleet: cannot watch the MQTT thread");
	sd_event_source_set_description(m->fleet_notes, "fleet-notes");
	r = fleet_start(m->fleet);
	if (r < 0)
		return r;
	log_info("fleet: host %s, group %s, broker %s%s%s", fleet_host(m->fleet), c->fleet.group,
		 c->fleet.broker, c->fleet.publish ? "" : ", not publishing",
		 c->fleet.record_peers ? "" : ", not recording peers' alerts");
	return 0;
}

/* The realtime interval of a local cause, from its monotonic one and the clocks' offset. */
static void alert_of(const struct cause *c, struct proto_fleet_alert *a)
{
	struct timespec mono, real;
	uint64_t start, end;

	clock_gettime(CLOCK_REALTIME, &real);
	clock_gettime(CLOCK_MONOTONIC, &mono);
	a->mono_to_realtime_ns = ((int64_t)real.tv_sec - (int64_t)mono.tv_sec) * 1000000000 +
				 (real.tv_nsec - mono.tv_nsec);
	cause_tracker(c, a->tracker);
	cause_comm(c, a->comm);
	if (c->kind == CAUSE_ALERT) {
		a->tid = c->alert.tid;
		a->delay_ns = c->alert.delay_ns;
		start = c->alert.start_ns;
		end = c->alert.end_ns;
	} else {
		a->tid = c->manual.pid;
		start = end = c->manual.time_ns;
	}
	a->start_realtime_ns = (uint64_t)((int64_t)start + a->mono_to_realtime_ns);
	a->end_realtime_ns = (uint64_t)((int64_t)end + a->mono_to_realtime_ns);
}

void manager_fleet_publish(struct manager *m, const char *incident, const struct cause *c)
{
	struct proto_fleet_alert a = {0};
	int r;

	if (!m->fleet || !incident[0])
		return;
	alert_of(c, &a);
	snprintf(a.incident, sizeof(a.incident), "%s", incident);
	r = fleet_publish_alert(m->fleet, &a);
	if (r < 0)
		log_warnx("fleet: incident %s not published: %s", incident,
			  r == -ENOTCONN ? "not connected to the broker" : strerror(-r));
}

void manager_fleet_snapshot(struct manager *m, const struct recorder_snapshot *s)
{
	const char *status = s->error < 0 ? PROTO_FLEET_FAILED : PROTO_FLEET_RECORDED;

	if (!m->fleet || !s->incident)
		return;
	note_incident(m, s->incident, fleet_host(m->fleet), status);
	/* The origin's too: every host's incidents then list every host that recorded. */
	if (s->causes[0].kind == CAUSE_PEER || m->conf->fleet.publish)
		fleet_publish_result(m->fleet, s->incident, status);
}

void manager_fleet_refused(struct manager *m, const struct cause *c)
{
	const char *incident = c->peer.alert.incident;

	if (!m->fleet)
		return;
	log_info("fleet: incident %s from %s refused by the peer bucket (fleet.peer_rate)",
		 incident, c->peer.alert.host);
	note_incident(m, incident, fleet_host(m->fleet), PROTO_FLEET_REFUSED);
	fleet_publish_result(m->fleet, incident, PROTO_FLEET_REFUSED);
}

void manager_stop_fleet(struct manager *m)
{
	sd_event_source_disable_unref(m->fleet_notes);
	m->fleet_notes = NULL;
	fleet_free(m->fleet); /* stops the MQTT thread: nothing calls the recorder after */
	m->fleet = NULL;
}
