/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The fleet (latencyd.conf fleet.*): this host's alerts published through an MQTT broker
 * (libmosquitto) so that its peers record their history too, and its peers' alerts
 * received. The MQTT network thread is libmosquitto's own: it never records (a peer's
 * alert is handed to the alert callback, which queues it for the realtime waiter) and
 * never touches latencyd's state; what the main loop must know (the connection, peers'
 * results) waits in a list behind an eventfd. Messages: proto/fleet.h.
 */
#ifndef LATENCYD_FLEET_CLIENT_H
#define LATENCYD_FLEET_CLIENT_H

#include <stdbool.h>
#include <stdint.h>

#include "conf.h"
#include "fleet.h" /* proto/: the messages */

/* Called on the MQTT thread for each new peer alert of this group: 0, or -errno when it
 * could not be queued (counted as dropped). */
typedef int (*fleet_alert_fn)(const struct proto_fleet_alert *a, uint64_t received_ns,
			      void *userdata);

enum fleet_note_kind {
	FLEET_CONNECTED,    /* detail: the broker */
	FLEET_DISCONNECTED, /* detail: why */
	FLEET_RESULT,	    /* result: what a peer did for an incident */
	FLEET_PEER_ALERT,   /* alert: a peer's alert that was queued for recording */
};

struct fleet_note {
	struct fleet_note *next;
	enum fleet_note_kind kind;
	char detail[160];
	struct proto_fleet_result result;
	struct proto_fleet_alert alert;
};

struct fleet_status {
	bool connected;
	char broker[256];
	char host[PROTO_FLEET_NAME_MAX + 1];
	char group[PROTO_FLEET_NAME_MAX + 1];
	char detail[160]; /* the last connection problem, "" if none */
	uint64_t published, publish_failed, received, reconnects;
	/* dropped: malformed or oversized, another group, host not the topic's, duplicates
	 * of an incident (QoS 1 redelivery), not queued (the waiter's queue was full) */
	uint64_t malformed, foreign, mismatch, duplicate, busy;
};

struct fleet;

/* Resolves the host name, reads the password file, sets up TLS; a problem is said with the
 * setting's name (-errno). The alert callback is called on the MQTT thread. */
int fleet_new(const struct conf *c, fleet_alert_fn fn, void *userdata, struct fleet **ret);
/* Connects in the background: a broker that is down is retried with backoff. */
int fleet_start(struct fleet *f);
const char *fleet_host(const struct fleet *f);
int fleet_eventfd(const struct fleet *f);
struct fleet_note *fleet_take(struct fleet *f);
void fleet_note_free(struct fleet_note *n);
/* Publishes (QoS 1) without waiting: host, group and boot id are filled in here. */
int fleet_publish_alert(struct fleet *f, struct proto_fleet_alert *a);
int fleet_publish_result(struct fleet *f, const char *incident, const char *status);
void fleet_status(struct fleet *f, struct fleet_status *st);
void fleet_free(struct fleet *f);

#endif /* LATENCYD_FLEET_CLIENT_H */
