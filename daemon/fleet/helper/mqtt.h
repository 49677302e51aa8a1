/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * latencyd-fleet's MQTT client (libmosquitto, MQTT v5) in a thread of its own: connect in
 * the background, reconnect with backoff, subscribe to the group, announce this host with
 * a retained presence, renewed, and a last will, publish with QoS 1. Everything that
 * arrives is parsed and checked here (proto/fleet.c); what passes goes to latencyd as a
 * record on the event socket (fleet_wire.h), with the counters.
 */
#ifndef LATENCYD_FLEET_MQTT_H
#define LATENCYD_FLEET_MQTT_H

#include <stddef.h>
#include <stdint.h>

#include "fleet_wire.h"

struct mqtt;

/* S is kept; EVENT_FD takes the records; USER is whom this process runs as. -errno, WHY
 * saying which setting failed. */
int mqtt_new(const struct fleet_wire_settings *s, int event_fd, const char *user, struct mqtt **ret,
	     char *why, size_t whylen);
int mqtt_start(struct mqtt *m);
/* A PUBLISH_* request: 0 (taken: libmosquitto sends it, after the next CONNACK if the
 * connection just dropped; an alert's PUBACK is told as FLEET_WIRE_ACK), -ENOTCONN
 * (nothing queued: the caller retries), -EIO, -ENOMEM, -ENOBUFS (ALERT_MIDS await their
 * PUBACK). */
int mqtt_publish(struct mqtt *m, const struct fleet_wire_request *q);
/* The alert published as SEQ, which latencyd awaits no more (FLEET_WIRE_FORGET): its place
 * among the ALERT_MIDS freed, its PUBACK, if it comes, counted published without a
 * FLEET_WIRE_ACK. An unknown SEQ (acknowledged meanwhile) is nothing to forget. */
void mqtt_forget(struct mqtt *m, uint32_t seq);
/* Renews this host's presence if fleet.presence_every passed since the last one while
 * connected; the milliseconds until it is called again (the next renewal due, or sooner
 * while one skipped waits for a PUBACK). */
int mqtt_renew(struct mqtt *m);
/* Sends the heartbeat latencyd watches if FLEET_WIRE_HEARTBEAT_NS passed since the last,
 * else the counters if they changed since the last record (count() holds them back for a
 * while under a flood); called by the request loop alone, every second or so. */
void mqtt_flush(struct mqtt *m);
/* The outcome of latencyd's PUBLISH_ALERT SEQ (FLEET_WIRE_ACK), with one counted in
 * *COUNTER, a field of its status (NULL: none). */
void mqtt_ack(struct mqtt *m, uint32_t seq, int rc, uint64_t *counter);
/* Request Q that mqtt_publish() did not take (R): an alert's outcome told (FLEET_WIRE_ACK),
 * and what libmosquitto refused (-EIO), or a result not sent, counted failed. */
void mqtt_not_taken(struct mqtt *m, const struct fleet_wire_request *q, int r);
/* Says offline, disconnects, stops the thread, frees. */
void mqtt_free(struct mqtt *m);

#endif /* LATENCYD_FLEET_MQTT_H */
