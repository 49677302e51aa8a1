/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Inside latencyd-fleet's MQTT client: its state and what its files share. mqtt.c is the
 * connection (setup, the network thread, subscriptions, presence, publishing); inbound.c
 * what arrives from the broker; records.c what goes to latencyd. mqtt.h stays the
 * interface to main.c.
 */
#ifndef LATENCYD_FLEET_MQTT_INTERNAL_H
#define LATENCYD_FLEET_MQTT_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include <mosquitto.h>

#include "mqtt.h"

#define KEEPALIVE_SEC	   30
#define RECONNECT_MIN_SEC  1
#define RECONNECT_MAX_SEC  60
/*
 * The backoff starts again from RECONNECT_MIN_SEC only after a connection that lasted
 * STABLE_AFTER_SEC. SHORT_LIVED_SAY connections in a row that the broker closed within
 * SHORT_LIVED_SEC of its CONNACK: another client probably uses this client id, said once
 * (on_disconnect()).
 */
#define STABLE_AFTER_SEC   30
#define SHORT_LIVED_SEC	   10
#define SHORT_LIVED_SAY	   3
/* The SUBACK awaited after the CONNACK: none by then, the connection is closed and made again. */
#define SUBACK_TIMEOUT_SEC 10
#define SEEN_ORIGINS	   64 /* origins whose recent incidents are remembered */
#define SEEN_PER_ORIGIN	   32 /* an origin's recent incidents, to hand each on once */
#define TOPIC_MAX	   (5 * PROTO_FLEET_NAME_MAX + 16)
#define PRESENCE_MIDS	   4 /* presences in flight at once: one online, then the offline one */
/* Alerts handed to libmosquitto and not acknowledged yet, whose outcome latencyd awaits:
 * more than its outbox holds (manager/fleet_state.h: OUTBOX_MAX). */
#define ALERT_MIDS	   64
/* A counter alone goes to latencyd at most this often: a flood of bad messages costs one
 * record per period, not one each (mqtt_flush() sends what is left). */
#define COUNTERS_PERIOD_NS (100 * 1000 * 1000)
/* How often a renewal skipped for a pending presence looks for its PUBACK (mqtt_renew()). */
#define RENEW_RETRY_NS	   (100 * 1000 * 1000)

/* One origin's recent incidents: a ring of their numbers, per boot of the origin. */
struct seen_origin {
	char host[PROTO_FLEET_NAME_MAX + 1];
	char boot_id[40];
	uint64_t seq[SEEN_PER_ORIGIN];
	size_t next;
	uint64_t used; /* the least recently used origin makes room for a new one */
};

struct mqtt {
	const struct fleet_wire_settings *s;
	struct mosquitto *mosq;
	mosquitto_property *connect_props; /* sent with each CONNECT: our maximum packet size */
	int event_fd;
	pthread_t thread;	/* the network thread (run()) */
	pthread_cond_t wake;	/* its backoff, cut short by mqtt_free() */
	unsigned backoff_sec;	/* before the next reconnect (under lock, as what follows) */
	uint64_t up_ns;		/* the last CONNACK (CLOCK_MONOTONIC): how long it lasted */
	unsigned short_lived;	/* connections in a row the broker closed soon after accepting */
	bool clientid_said;	/* ... and that another client may use our client id is said */
	uint64_t suback_due_ns; /* the SUBACK is awaited until then; 0: none awaited */
	char drop_why[160];	/* why we close this connection ourselves; "": we do not */
	bool started;
	bool stopping, closed; /* mqtt_free() said DISCONNECT; on_disconnect() saw it done */

	pthread_mutex_t lock; /* the status: both threads write */
	struct fleet_status st;
	bool dirty;		   /* a counter changed since the last record */
	pthread_mutex_t send_lock; /* records leave whole and in order, from either thread */
	uint64_t sent_ns;	   /* when the last record left (under lock) */
	uint64_t beat_ns;	   /* the request loop's last heartbeat (mqtt_flush()) */
	struct fleet_said said;	   /* connection problems sent: each is said once */
	bool attempt_said;	   /* why this connection attempt failed is said (CONNACK, TLS) */
	bool tls_named;		   /* ... and it is a named TLS cause: a generic line keeps it */
	/*
	 * Publishes awaiting the broker's PUBACK: published counts one once it comes. pub_lock
	 * is held from a publish until its mid is known, so that a PUBACK never comes first.
	 */
	pthread_mutex_t pub_lock;
	uint64_t unacked; /* requests handed to libmosquitto, not acked */
	struct {
		int mid;      /* 0: a free place */
		uint32_t seq; /* latencyd's request (FLEET_WIRE_ACK) */
	} alert_mid[ALERT_MIDS];
	int presence_mid[PRESENCE_MIDS]; /* our presences' mids: not requests */
	unsigned presence_next;
	bool presence_skipped; /* a renewal skipped for a pending presence (publish_presence()) */
	uint64_t presence_due_ns; /* the next renewal (CLOCK_MONOTONIC; under lock) */
	/* The network thread's own: incidents already handed on. */
	struct seen_origin seen[SEEN_ORIGINS];
	uint64_t seen_clock;
};

/* records.c: records for latencyd, each with the counters; any thread may send one. */
void mqtt_send_event(struct mqtt *m, struct fleet_wire_event *e);
/* A note of KIND with DETAIL (NULL: none). */
void mqtt_event(struct mqtt *m, enum fleet_note_kind kind, const char *detail);
/* Counts one in *COUNTER (a field of m->st). */
void mqtt_count(struct mqtt *m, uint64_t *counter);
/* A connection problem: for status, and a note of KIND the first time WHY is said. */
void mqtt_problem(struct mqtt *m, enum fleet_note_kind kind, const char *why);

/* inbound.c: libmosquitto's message callback (USERDATA: the struct mqtt). */
void mqtt_on_message(struct mosquitto *mosq, void *userdata, const struct mosquitto_message *msg);

#endif /* LATENCYD_FLEET_MQTT_INTERNAL_H */
