/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The fleet (latencyd.conf fleet.*): this host's alerts published through an MQTT broker
 * so that its peers record their history too, and its peers' alerts received. The MQTT
 * client and the parsing of what peers send run in latencyd-fleet, a process of its own
 * without root or any capability (fleet/helper/); here, its records are checked again
 * (fleet_wire.h) by a thread that hands a peer's alert to the alert callback, which queues
 * it for the realtime waiter. What the main loop must know waits behind an eventfd: the
 * connection (struct fleet_link, never lost), each member's latest presence and each
 * origin's refusals (merged), and the other notes in a bounded list. A helper that dies, or
 * sends no heartbeat for FLEET_WIRE_SILENCE_NS, is started again; the local path never
 * waits for it, and a publish is a request whose outcome comes later (fleet_acked()).
 * Messages: proto/fleet.h.
 */
#ifndef LATENCYD_FLEET_CLIENT_H
#define LATENCYD_FLEET_CLIENT_H

#include <stdbool.h>
#include <stdint.h>

#include "conf.h"
#include "fleet.h" /* proto/: the messages */

/* Called on the fleet's reader thread for each new peer alert of this group: 0 when it was
 * admitted and queued, or -errno when refused, *budget naming the budget that refused it
 * (PROTO_FLEET_BUDGET_*). */
typedef int (*fleet_alert_fn)(const struct proto_fleet_alert *a, uint64_t received_ns,
			      const char **budget, void *userdata);

enum fleet_note_kind {
	/* For the log: the connection's state is struct fleet_link's, whatever is dropped. */
	FLEET_CONNECTED,    /* detail: the broker */
	FLEET_DISCONNECTED, /* detail: why; said once per distinct reason, not per retry */
	FLEET_ERROR,	    /* detail: connected, but the broker refused the subscription, or
			     * sent a packet past the maximum packet size asked for */
	FLEET_RESULT,	    /* result: what a peer did for incidents */
	FLEET_PEER_ALERT,   /* alert: a peer's alert that was queued for recording */
	FLEET_UNANSWERED,   /* alert, detail (a status), budget: a peer's alert not recorded */
	/* presence: a member came, went or renewed; or ours, back. A member's latest only,
	 * never dropped for the other notes. */
	FLEET_PRESENCE,
	/* result: an origin's alerts not recorded (FLEET_UNANSWERED merged; host: the
	 * origin), the first PROTO_FLEET_RESULT_INCIDENTS named, all counted; never from the
	 * helper */
	FLEET_REFUSALS,
};

/* Crosses from the helper (fleet_wire.h), then waits in a list for the main loop. */
struct fleet_event {
	uint32_t kind; /* enum fleet_note_kind */
	char detail[160];
	char budget[16];
	uint64_t received_ns; /* FLEET_PEER_ALERT: when the helper read it (CLOCK_MONOTONIC) */
	union {
		struct proto_fleet_result result;
		struct proto_fleet_alert alert;
		struct proto_fleet_presence presence;
	};
};

struct fleet_note {
	struct fleet_note *next;
	struct fleet_event ev;
};

struct fleet_status {
	bool connected;
	bool subscribed; /* the broker granted the group's subscription */
	char broker[256];
	char host[PROTO_FLEET_NAME_MAX + 1];
	char group[PROTO_FLEET_NAME_MAX + 1];
	char detail[160]; /* the last connection problem, "" if none */
	uint64_t published, publish_failed, received, reconnects;
	/* dropped: malformed or oversized, another group, host not the topic's (or an incident
	 * not its own), duplicates of an incident (QoS 1 redelivery), not queued (the waiter's
	 * queue was full), stale (older than fleet.max_age) */
	uint64_t malformed, foreign, mismatch, duplicate, busy, stale;
	/* latencyd-fleet: its pid (0 while it is down), whom it runs as, how often it died
	 * and was started again, and its records that failed latencyd's own check */
	int32_t pid;
	char user[33];
	uint64_t restarts, rejected;
	/* what the helper said that the main loop never saw: NOTES_MAX were waiting for it */
	uint64_t notes_dropped;
	/* peers' alerts sent by a clock more than fleet.max_age / 2 from this host's, or
	 * delivered that late (fleet_skew.c) */
	uint64_t clock_skewed;
};

/* The connection as fleet_take() returns it: counts that only grow, so that the main loop
 * sees every change, however many notes were dropped. */
struct fleet_link {
	bool connected;
	uint64_t connects; /* connections to the broker so far */
	uint64_t losses;   /* of them, lost (the helper's end included) */
};

struct fleet;

/* Resolves the host name, reads the password file, finds the helper and its user; a
 * problem is said with the setting's name (-errno). The alert callback is called on the
 * fleet's reader thread. */
int fleet_new(const struct conf *c, fleet_alert_fn fn, void *userdata, struct fleet **ret);
/* Starts the helper, which connects in the background: a broker that is down is retried
 * with backoff. */
int fleet_start(struct fleet *f);
/* The settings it runs with, which a reload does not change (they need a restart). */
const char *fleet_host(const struct fleet *f);
const char *fleet_group(const struct fleet *f);
const char *fleet_broker(const struct fleet *f);
uint64_t fleet_max_age_ns(const struct fleet *f);
int fleet_eventfd(const struct fleet *f);
/* The notes since the last call, the presences and refusals after the others; the
 * connection into *LINK. Called when the eventfd is readable, which an alert's outcome
 * (fleet_acked()) makes it too. */
struct fleet_note *fleet_take(struct fleet *f, struct fleet_link *link);
void fleet_note_free(struct fleet_note *n);
/* Publishes (QoS 1, MQTT v5) without waiting, to expire at the broker after ttl_ns: host,
 * group, boot id and the time sent are filled in here; *SEQ names it for fleet_acked().
 * -ENOTCONN while not connected, -EAGAIN while the helper does not read its requests,
 * -ENOBUFS with too many awaiting their outcome: nothing is queued then, for a request
 * must not be delivered late (the caller retries). Nothing is counted here: the caller
 * says fleet_publish_lost() once, for an alert it gives up. */
int fleet_publish_alert(struct fleet *f, struct proto_fleet_alert *a, uint64_t ttl_ns,
			uint32_t *seq);
/* SEQ's outcome: 0 while it awaits the broker's PUBACK; 1 acknowledged; -EIO refused, by
 * the broker or libmosquitto (counted failed by the helper); -EAGAIN the helper could not
 * take it for now (no place, no memory: to publish again later); -ENOTCONN not handed on,
 * or lost with its helper (to publish again); -ENOENT not known. SEQ is forgotten unless 0
 * is returned. */
int fleet_acked(struct fleet *f, uint32_t seq);
/* A publish given up (an alert, none of its publishes awaiting an outcome; a result not
 * sent): counted failed, once. */
void fleet_publish_lost(struct fleet *f);
/* SEQ's outcome no longer awaited by the caller (an alert handed on past its max_age, which
 * libmosquitto still delivers), counted once when it comes: published or refused by the
 * helper; failed here if it was not taken, if its helper ends first, or if its place is
 * needed for a new alert's outcome (the helper then told to free its own, FLEET_WIRE_FORGET).
 */
void fleet_publish_let_go(struct fleet *f, uint32_t seq);
/* A peer's alert that went stale after it was taken (queued for the recorder): counted. */
void fleet_count_stale(struct fleet *f);
/* Host and group are filled in here; not sent (not connected): counted failed. */
int fleet_publish_result(struct fleet *f, struct proto_fleet_result *res);
void fleet_status(struct fleet *f, struct fleet_status *st);
void fleet_free(struct fleet *f);

#endif /* LATENCYD_FLEET_CLIENT_H */
