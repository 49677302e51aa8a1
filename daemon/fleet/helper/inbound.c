/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What arrives from the broker, on the network thread: a peer's alert, a result for one of
 * this host's incidents, a member's presence or our own. Each is parsed and checked
 * (proto/fleet.c) and handed on to latencyd (records.c), or counted and dropped: a message
 * must name our group, come from the host its topic names, and speak only for that host's
 * incidents; an incident is handed on once, and an alert older than fleet.max_age is
 * answered as stale, never recorded.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include <mosquitto.h>

#include "mqtt_internal.h"
#include "thread.h"

/* True the first time an incident of its origin is seen (QoS 1 may deliver twice). */
static bool first_time(struct mqtt *m, const struct proto_fleet_alert *a)
{
	struct seen_origin *o = NULL, *oldest = &m->seen[0];
	uint64_t seq;

	if (proto_fleet_incident_parse(a->incident, NULL, 0, &seq) < 0)
		return false;
	for (size_t i = 0; i < SEEN_ORIGINS && !o; i++) {
		if (strcmp(m->seen[i].host, a->host) == 0)
			o = &m->seen[i];
		else if (m->seen[i].used < oldest->used)
			oldest = &m->seen[i];
	}
	if (!o) {
		o = oldest;
		memset(o, 0, sizeof(*o));
		snprintf(o->host, sizeof(o->host), "%s", a->host);
	}
	o->used = ++m->seen_clock;
	/* Another boot of the origin numbers its incidents again. */
	if (strcmp(o->boot_id, a->boot_id) != 0) {
		memset(o->seq, 0, sizeof(o->seq));
		snprintf(o->boot_id, sizeof(o->boot_id), "%s", a->boot_id);
	}
	for (size_t i = 0; i < SEEN_PER_ORIGIN; i++)
		if (o->seq[i] == seq)
			return false;
	o->seq[o->next] = seq;
	o->next = (o->next + 1) % SEEN_PER_ORIGIN;
	return true;
}

/*
 * PREFIX/GROUP/KIND/HOST, or PREFIX/GROUP/result/ORIGIN/HOST with ORIGIN this host: the kind
 * and the host, or false for a topic not ours.
 */
static bool topic_parts(const struct mqtt *m, const char *t, char *kind, size_t ksize, char *host,
			size_t hsize)
{
	size_t plen = strlen(m->s->prefix), glen = strlen(m->s->group), olen = strlen(m->s->host);
	const char *k, *h;

	if (strncmp(t, m->s->prefix, plen) != 0 || t[plen] != '/' ||
	    strncmp(t + plen + 1, m->s->group, glen) != 0 || t[plen + 1 + glen] != '/')
		return false;
	k = t + plen + glen + 2;
	h = strchr(k, '/');
	if (!h || (size_t)(h - k) >= ksize)
		return false;
	snprintf(kind, ksize, "%.*s", (int)(h - k), k);
	if (strcmp(kind, PROTO_FLEET_TOPIC_RESULT) == 0) {
		if (strncmp(h + 1, m->s->host, olen) != 0 || h[1 + olen] != '/')
			return false; /* another origin's: never subscribed to */
		h += 1 + olen;
	}
	if (strchr(h + 1, '/') || strlen(h + 1) >= hsize)
		return false;
	snprintf(host, hsize, "%s", h + 1);
	return true;
}

/*
 * What every message must pass: it parsed (PARSED, the parser's result), names our group,
 * and its sender CLAIMED to be the host of its topic. Counted otherwise.
 */
static bool accepted(struct mqtt *m, int parsed, const char *group, const char *claimed,
		     const char *host)
{
	if (parsed < 0)
		mqtt_count(m, &m->st.malformed);
	else if (strcmp(group, m->s->group) != 0)
		mqtt_count(m, &m->st.foreign);
	else if (strcmp(claimed, host) != 0)
		mqtt_count(m, &m->st.mismatch);
	else
		return true;
	return false;
}

/* A host speaks only for its own incidents. Counted otherwise. */
static bool own_incident(struct mqtt *m, const struct proto_fleet_alert *a, const char *host)
{
	char origin[PROTO_FLEET_NAME_MAX + 1];

	if (proto_fleet_incident_parse(a->incident, origin, sizeof(origin), NULL) == 0 &&
	    strcmp(origin, host) == 0)
		return true;
	mqtt_count(m, &m->st.mismatch);
	return false;
}

static void on_alert(struct mqtt *m, const struct mosquitto_message *msg, const char *host,
		     uint64_t received)
{
	struct fleet_wire_event e = {.ev.kind = FLEET_PEER_ALERT, .ev.received_ns = received};
	struct proto_fleet_alert *a = &e.ev.alert;
	char why[160];

	/* Dropped (and counted), our own back from the broker, or fleet.record_peers = false:
	 * this host only publishes. */
	if (!accepted(m,
		      proto_fleet_alert_parse(msg->payload, (size_t)msg->payloadlen, a, why,
					      sizeof(why)),
		      a->group, a->host, host) ||
	    !own_incident(m, a, host) || strcmp(host, m->s->host) == 0 || !m->s->record_peers)
		return;
	if (!first_time(m, a)) {
		mqtt_count(m, &m->st.duplicate);
		return;
	}
	if (fleet_wire_stale(a, m->s->max_age_ns)) {
		/* Held by a broker, or clocks apart: never recorded, but answered. */
		pthread_mutex_lock(&m->lock);
		m->st.stale++;
		pthread_mutex_unlock(&m->lock);
		e.ev.kind = FLEET_UNANSWERED;
		snprintf(e.ev.detail, sizeof(e.ev.detail), "%s", PROTO_FLEET_STALE);
	}
	mqtt_send_event(m, &e);
}

/* A result names this host's incidents only: it came on this host's result topic. */
static bool about_own_incidents(struct mqtt *m, const struct proto_fleet_result *r)
{
	char origin[PROTO_FLEET_NAME_MAX + 1];

	for (size_t i = 0; i < r->n; i++)
		if (proto_fleet_incident_parse(r->incidents[i], origin, sizeof(origin), NULL) < 0 ||
		    strcmp(origin, m->s->host) != 0) {
			mqtt_count(m, &m->st.mismatch);
			return false;
		}
	return true;
}

static void on_result(struct mqtt *m, const struct mosquitto_message *msg, const char *host)
{
	struct fleet_wire_event e = {.ev.kind = FLEET_RESULT};
	char why[160];

	if (accepted(m,
		     proto_fleet_result_parse(msg->payload, (size_t)msg->payloadlen, &e.ev.result,
					      why, sizeof(why)),
		     e.ev.result.group, e.ev.result.host, host) &&
	    about_own_incidents(m, &e.ev.result))
		mqtt_send_event(m, &e);
}

/*
 * Our own presence, back from the broker, goes on too: latencyd learns from it that the
 * broker still delivers to this host, before it times a silent member out (members.c). One
 * that another client published under our name (a forger, or a second host with the same
 * fleet.host) says just as much about that delivery, and nothing more.
 */
static void on_presence(struct mqtt *m, const struct mosquitto_message *msg, const char *host)
{
	struct fleet_wire_event e = {.ev.kind = FLEET_PRESENCE};
	char why[160];

	if (msg->payloadlen == 0)
		return; /* a retained presence cleared */
	if (accepted(m,
		     proto_fleet_presence_parse(msg->payload, (size_t)msg->payloadlen,
						&e.ev.presence, why, sizeof(why)),
		     e.ev.presence.group, e.ev.presence.host, host))
		mqtt_send_event(m, &e);
}

#define OVERSIZE_WHY                                                                               \
	"the broker sends messages larger than the maximum packet size this host asked for: "      \
	"set its message_size_limit (README, Broker)"

void mqtt_on_message(struct mosquitto *mosq, void *userdata, const struct mosquitto_message *msg)
{
	struct mqtt *m = userdata;
	char kind[PROTO_FLEET_NAME_MAX + 1], host[PROTO_FLEET_NAME_MAX + 1];
	uint64_t received = now_ns();

	(void)mosq;
	pthread_mutex_lock(&m->lock);
	m->st.received++;
	pthread_mutex_unlock(&m->lock);
	/*
	 * Refused before any parsing. A payload past the packet size this client asked for
	 * means a broker that ignores it: this process has paid for it in memory already, and
	 * only the broker's message_size_limit protects it.
	 */
	if (msg->payloadlen < 0 || msg->payloadlen > PROTO_FLEET_MAX) {
		if (msg->payloadlen > PROTO_FLEET_PACKET_MAX)
			mqtt_problem(m, FLEET_ERROR, OVERSIZE_WHY);
		mqtt_count(m, &m->st.malformed);
		return;
	}
	if (!msg->topic || !topic_parts(m, msg->topic, kind, sizeof(kind), host, sizeof(host)) ||
	    !proto_fleet_name_valid(host)) {
		mqtt_count(m, &m->st.foreign);
		return;
	}
	if (strcmp(kind, PROTO_FLEET_TOPIC_ALERT) == 0)
		on_alert(m, msg, host, received);
	else if (strcmp(kind, PROTO_FLEET_TOPIC_RESULT) == 0)
		on_result(m, msg, host);
	else if (strcmp(kind, PROTO_FLEET_TOPIC_PRESENCE) == 0)
		on_presence(m, msg, host);
	else
		mqtt_count(m, &m->st.foreign);
}
