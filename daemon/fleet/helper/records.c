/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What latencyd-fleet tells latencyd: records on the event socket (fleet_wire.h), each
 * with the counters as they are, from the network thread and the request loop alike.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/socket.h>

#include "mqtt_internal.h"
#include "thread.h"

/*
 * A record for latencyd, with the counters as they are now: the status is copied and sent
 * under send_lock, so a later record never carries older counters. Blocking: latencyd's
 * reader thread only checks and queues, and a peer's alert is not dropped here.
 */
void mqtt_send_event(struct mqtt *m, struct fleet_wire_event *e)
{
	e->type = FLEET_WIRE_EVENT;
	pthread_mutex_lock(&m->send_lock);
	pthread_mutex_lock(&m->lock);
	e->st = m->st;
	m->dirty = false;
	pthread_mutex_unlock(&m->lock);
	if (send(m->event_fd, e, sizeof(*e), MSG_NOSIGNAL) < 0) {
		/* latencyd is gone: the request loop sees its end too, and exits. */
	}
	pthread_mutex_lock(&m->lock);
	m->sent_ns = now_ns();
	pthread_mutex_unlock(&m->lock);
	pthread_mutex_unlock(&m->send_lock);
}

void mqtt_event(struct mqtt *m, enum fleet_note_kind kind, const char *detail)
{
	struct fleet_wire_event e = {.ev.kind = kind};

	snprintf(e.ev.detail, sizeof(e.ev.detail), "%s", detail ?: "");
	mqtt_send_event(m, &e);
}

/* A counter changed and nothing else: latencyd's status follows, within a period. */
void mqtt_count(struct mqtt *m, uint64_t *counter)
{
	struct fleet_wire_event e = {.ev.kind = FLEET_WIRE_COUNTERS};
	bool now;

	pthread_mutex_lock(&m->lock);
	(*counter)++;
	m->dirty = true;
	now = now_ns() - m->sent_ns >= COUNTERS_PERIOD_NS;
	pthread_mutex_unlock(&m->lock);
	if (now)
		mqtt_send_event(m, &e);
}

void mqtt_ack(struct mqtt *m, uint32_t seq, int rc, uint64_t *counter)
{
	struct fleet_wire_event e = {.ev.kind = FLEET_WIRE_ACK, .seq = seq, .rc = rc};

	if (counter) {
		pthread_mutex_lock(&m->lock);
		(*counter)++;
		pthread_mutex_unlock(&m->lock);
	}
	mqtt_send_event(m, &e);
}

void mqtt_not_taken(struct mqtt *m, const struct fleet_wire_request *q, int r)
{
	/* Not connected, no place, no memory: latencyd publishes an alert again, or counts. */
	if (q->type == FLEET_WIRE_PUBLISH_ALERT)
		mqtt_ack(m, q->seq, r, r == -EIO ? &m->st.publish_failed : NULL);
	else
		mqtt_count(m, &m->st.publish_failed);
}

/*
 * The heartbeat, with the counters, once FLEET_WIRE_HEARTBEAT_NS passed since the last
 * (beat_ns, the request loop's alone): the network thread's records do not make one, for
 * latencyd kills a helper whose request loop sent none for FLEET_WIRE_SILENCE_NS. Else the
 * counters if they changed, at most every COUNTERS_PERIOD_NS.
 */
void mqtt_flush(struct mqtt *m)
{
	struct fleet_wire_event e = {.ev.kind = FLEET_WIRE_COUNTERS};
	uint64_t now = now_ns();
	bool due;

	if (now - m->beat_ns >= FLEET_WIRE_HEARTBEAT_NS) {
		m->beat_ns = now;
		e.ev.kind = FLEET_WIRE_HEARTBEAT;
		mqtt_send_event(m, &e);
		return;
	}
	pthread_mutex_lock(&m->lock);
	due = m->dirty && now - m->sent_ns >= COUNTERS_PERIOD_NS;
	pthread_mutex_unlock(&m->lock);
	if (due)
		mqtt_send_event(m, &e);
}

/*
 * A connection problem for status and, once per distinct reason, for the log: a broker
 * that refuses us is retried every minute, and the journal must not fill with the retries.
 */
void mqtt_problem(struct mqtt *m, enum fleet_note_kind kind, const char *why)
{
	bool new;

	pthread_mutex_lock(&m->lock);
	snprintf(m->st.detail, sizeof(m->st.detail), "%s", why);
	new = fleet_said_new(&m->said, why);
	pthread_mutex_unlock(&m->lock);
	mqtt_event(m, new ? kind : FLEET_WIRE_COUNTERS, why);
}
