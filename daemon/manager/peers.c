/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The fleet in the manager: a peer's alert goes from the fleet's reader thread straight to the
 * recorder's queue, if its origin's and the total bucket admit it (it records at once); the
 * main loop hears of it after, and of the refused ones as a count per origin; a local
 * snapshot is published as an incident, whose members are the hosts online then; what each
 * host did for an incident (recorded to the collector, locally only, refused, failed,
 * stale) is published by it and kept by all in the catalog's incidents. A local alert is
 * published as the waiter starts its record (RECORDER_ADMITTED), so that the peers do not
 * wait for that record to end. A peer-triggered record is never published again: no
 * storms, no loops. fleet_state.h says where the rest is.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <json-c/json.h>

#include "fleet_state.h"
#include "log.h"
#include "manager.h"

static int on_peer_alert(const struct proto_fleet_alert *a, uint64_t received_ns,
			 const char **budget, void *userdata)
{
	struct manager *m =
		userdata; /* the fleet's reader thread: only the recorder's queue is safe */

	return recorder_peer(m->recorder, a, received_ns, budget);
}

/* The incident's members, as this host sees them now: the origin, itself, those online. */
/*
 * An incident's members: for a local incident, the hosts online as it begins, whose results
 * come to this host; for a peer's, this host alone (results go to their origin only: the
 * origin's catalog has the whole incident, this one what this host did).
 */
static void open_incident(struct manager *m, const char *incident, const char *origin)
{
	const char **hosts = calloc(MEMBERS_MAX + 2, sizeof(*hosts));
	size_t n = 0;

	if (!hosts || !m->catalog) {
		free(hosts);
		return;
	}
	if (strcmp(origin, fleet_host(m->fleet)) == 0)
		n = members_now(m, hosts, MEMBERS_MAX + 1); /* this host among them */
	else
		hosts[n++] = fleet_host(m->fleet);
	if (catalog_incident_members(m->catalog, incident, hosts, n, (uint64_t)time(NULL)) == 0)
		manager_catalog_changed(m);
	free(hosts);
}

static void on_result(struct manager *m, const struct proto_fleet_result *res)
{
	/* At most one of them is set, by the status (proto/fleet.h). */
	const char *detail = res->path[0] ? res->path : res->budget[0] ? res->budget : res->reason;
	bool kept = false, unknown = false;

	for (size_t i = 0; i < res->n; i++) {
		/*
		 * Only this host's own incidents come here, and each was kept when it was
		 * published: one it does not keep is forged, or older than the newest
		 * CATALOG_INCIDENTS_KEEP. Noted, it would push out the real ones.
		 */
		if (m->catalog && !catalog_incident_find(m->catalog, res->incidents[i])) {
			uint64_t n = ++m->fleet_state->unknown_results;

			unknown = true;
			if ((n & (n - 1)) == 0) /* 1, 2, 4...: a flood is a few lines */
				log_warnx("fleet: %s sent a result for %s, an incident this host "
					  "does not keep (forged, or aged out): dropped (%" PRIu64
					  " so far)",
					  res->host, res->incidents[i], n);
			continue;
		}
		fleet_note_incident(m, res->incidents[i], res->host, res->status, detail);
		answers_result_noted(m, res->incidents[i]);
		kept = true;
	}
	/* Counted by message, as the fleet's other drops are: dropped in part or whole. */
	if (unknown)
		m->fleet_state->unknown_messages++;
	/* Its count is the sender's word: said only beside an incident this host keeps, and a
	 * flood of such results is a few lines (1, 2, 4...). */
	if (kept && res->count > res->n) {
		uint64_t n = ++m->fleet_state->more_said;

		if ((n & (n - 1)) == 0)
			log_info("fleet: %s says %" PRIu64 " more incident(s) were %s (%" PRIu64
				 " such result(s) so far)",
				 res->host, res->count - res->n, res->status, n);
	}
}

uint64_t manager_fleet_unknown_results(struct manager *m)
{
	return m->fleet_state ? m->fleet_state->unknown_messages : 0;
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

/*
 * The connection's changes since the last look, from counts that only grow (LINK): a loss
 * and a reconnection between two looks are both seen, whatever notes were dropped.
 */
static void on_link(struct manager *m, const struct fleet_link *link)
{
	struct fleet_link *was = &m->fleet_state->link;

	if (link->losses != was->losses && m->fleet_state->connected)
		members_disconnected(m);
	if (link->connects != was->connects && link->connected)
		members_reconnected(m);
	else if (!link->connected && m->fleet_state->connected)
		members_disconnected(m);
	*was = *link;
}

static int on_notes(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
	struct manager *m = userdata;
	struct fleet_link link;
	struct fleet_note *list = fleet_take(m->fleet, &link);

	on_link(m, &link);
	for (struct fleet_note *n = list; n; n = n->next) {
		switch (n->ev.kind) {
		case FLEET_CONNECTED:
			log_info("fleet: connected to %s as %s, group %s", n->ev.detail,
				 fleet_host(m->fleet), fleet_group(m->fleet));
			broadcast_fleet(m, "connected", n->ev.detail);
			break;
		case FLEET_DISCONNECTED:
			log_warnx("fleet: not connected to %s (%s): local detection goes on, "
				  "reconnecting",
				  fleet_broker(m->fleet), n->ev.detail);
			broadcast_fleet(m, "disconnected", n->ev.detail);
			break;
		case FLEET_ERROR:
			log_warnx("fleet: %s", n->ev.detail);
			broadcast_fleet(m, "error", n->ev.detail);
			break;
		case FLEET_RESULT:
			on_result(m, &n->ev.result);
			break;
		case FLEET_PEER_ALERT: /* admitted: its budgets were applied before it was queued */
			open_incident(m, n->ev.alert.incident, n->ev.alert.host);
			on_peer_noted(m, &n->ev.alert);
			break;
		case FLEET_UNANSWERED: /* never a note: the client merges them (FLEET_REFUSALS) */
			break;
		case FLEET_REFUSALS: /* counted, answered and logged once a window (answers.c) */
			answers_add_many(m, &n->ev.result);
			break;
		case FLEET_PRESENCE:
			members_update(m, &n->ev.presence);
			break;
		}
	}
	fleet_note_free(list);
	/* The connection back, or an alert's outcome: what the outbox holds moves on. */
	outbox_flush(m);
	return 0;
}

int manager_start_fleet(struct manager *m)
{
	const struct conf *c = m->conf;
	int r;

	if (!c->fleet.enabled || !m->recorder)
		return 0;
	m->fleet_state = calloc(1, sizeof(*m->fleet_state));
	if (!m->fleet_state)
		return -ENOMEM;
	r = fleet_new(c, on_peer_alert, m, &m->fleet);
	if (r < 0)
		return log_warn_errno(r, "fleet: cannot set up the MQTT client for %s",
				      c->fleet.broker);
	recorder_set_fleet_host(m->recorder, fleet_host(m->fleet),
				catalog_incident_base(m->catalog));
	r = sd_event_add_io(m->event, &m->fleet_notes, fleet_eventfd(m->fleet), EPOLLIN, on_notes,
			    m);
	if (r < 0)
		return log_warn_errno(r, "fleet: cannot watch the fleet's reader thread");
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
	/* A task names itself (prctl, pthread_setname_np) with any bytes; the fleet's text is
	 * printable ASCII, which peers and latencyd-fleet check. */
	cause_comm(c, a->comm);
	proto_fleet_text_clean(a->comm);
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

	if (!m->fleet || !incident[0])
		return;
	alert_of(c, &a);
	snprintf(a.incident, sizeof(a.incident), "%s", incident);
	/*
	 * Out first, the incident's bookkeeping after (its members, a hundred and more): the
	 * peers' records wait for the publish, and no answer is read before this returns.
	 */
	outbox_publish(m, &a);
	open_incident(m, incident, fleet_host(m->fleet));
	answers_watch(m, incident);
}

void manager_fleet_snapshot(struct manager *m, const struct recorder_snapshot *s)
{
	const struct catalog_entry *e = s->entry;
	struct proto_fleet_result res = {.n = 1, .count = 1};

	if (!m->fleet || !e->incident)
		return;
	/* Where it is: on the collector, or on this host's disk only (a relayd that failed). */
	if (s->error < 0) {
		snprintf(res.status, sizeof(res.status), "%s", PROTO_FLEET_FAILED);
		snprintf(res.reason, sizeof(res.reason), "%s", flight_strerror(s->error));
	} else if (s->rec->to_relayd) {
		snprintf(res.status, sizeof(res.status), "%s", PROTO_FLEET_RECORDED);
	} else {
		snprintf(res.status, sizeof(res.status), "%s", PROTO_FLEET_LOCAL);
		snprintf(res.path, sizeof(res.path), "%s",
			 e->path && proto_fleet_text_valid(e->path) ? e->path : "");
	}
	snprintf(res.incidents[0], sizeof(res.incidents[0]), "%s", e->incident);
	fleet_note_incident(m, e->incident, fleet_host(m->fleet), res.status,
			    res.path[0] ? res.path : res.reason);
	answers_result_noted(m, e->incident);
	/* To the origin, which lists what each member did; its own it knows. */
	if (s->causes[0].kind == CAUSE_PEER)
		fleet_publish_result(m->fleet, &res);
}

void manager_fleet_refused(struct manager *m, const struct cause *c)
{
	if (!m->fleet)
		return;
	answers_add(m, &c->peer.alert, PROTO_FLEET_REFUSED, PROTO_FLEET_BUDGET_ORIGIN);
}

void manager_fleet_stale(struct manager *m, const struct cause *c)
{
	if (!m->fleet)
		return;
	fleet_count_stale(m->fleet);
	answers_add(m, &c->peer.alert, PROTO_FLEET_STALE, "");
}

void manager_stop_fleet(struct manager *m)
{
	sd_event_source_disable_unref(m->fleet_notes);
	m->fleet_notes = NULL;
	fleet_state_free(m);  /* the window's refusals said while the client can still */
	fleet_free(m->fleet); /* stops its reader thread: nothing calls the recorder after */
	m->fleet = NULL;
}
