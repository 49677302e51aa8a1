/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Between latencyd (root) and latencyd-fleet, its unprivileged MQTT process: fixed-layout
 * records over two SOCK_SEQPACKET socketpairs, one record per packet, both ends built from
 * this header (the helper is started from the same build, never another version).
 *
 *   requests (fd 3 in the helper): latencyd sends SETTINGS once, then PUBLISH_*, FORGET
 *     and STOP, and never waits for an answer there.
 *   events (fd 4 in the helper): EVENT records, from the helper only: a note for the main
 *     loop (a connection change, a peer's alert, result or presence) with the counters; an
 *     alert's outcome (FLEET_WIRE_ACK: the broker's PUBACK, or why it was not handed on);
 *     and, every FLEET_WIRE_HEARTBEAT_NS, the heartbeat of its request loop, with them.
 *
 * The helper parses the network's JSON; latencyd reads only these records, and checks each
 * again (fleet_wire_event_check()): a helper taken over can send any bytes at all.
 */
#ifndef LATENCYD_FLEET_WIRE_H
#define LATENCYD_FLEET_WIRE_H

#include <stddef.h>
#include <stdint.h>

#include "fleet_client.h"

#define FLEET_WIRE_REQUEST_FD 3
#define FLEET_WIRE_EVENT_FD   4

enum fleet_wire_type {
	FLEET_WIRE_SETTINGS = 0x51ee7001,
	FLEET_WIRE_PUBLISH_ALERT,
	FLEET_WIRE_PUBLISH_RESULT,
	FLEET_WIRE_STOP, /* say offline, disconnect, exit */
	FLEET_WIRE_EVENT,
	/* seq: an alert let go whose place latencyd gives to a new one; the helper frees its
	 * own place for it, and counts its PUBACK, if it comes, as a result's (published) */
	FLEET_WIRE_FORGET,
};

/* What the helper needs to know, all of it: it reads no configuration of its own. */
struct fleet_wire_settings {
	uint32_t type;
	char user[33]; /* the account to run as (fleet.user) */
	char host[PROTO_FLEET_NAME_MAX + 1], group[PROTO_FLEET_NAME_MAX + 1];
	char prefix[PROTO_FLEET_NAME_MAX + 1], boot_id[40];
	char broker[256]; /* as configured, for messages */
	char broker_host[256];
	uint32_t port;
	uint8_t tls, record_peers;
	char username[128];
	char password[1024]; /* read by latencyd: the file may stay root's */
	char ca_file[1024], cert_file[1024], key_file[1024]; /* read by the helper */
	uint64_t max_age_ns;
	uint64_t since_realtime_ns; /* in the presence */
	uint32_t presence_every_s;  /* the presence renewed this often (fleet.presence_every) */
};

struct fleet_wire_request {
	uint32_t type;
	uint32_t seq;	 /* PUBLISH_ALERT: not 0, named by its FLEET_WIRE_ACK; FORGET: its */
	uint64_t ttl_ns; /* PUBLISH_ALERT: the broker drops it after this */
	union {
		struct proto_fleet_alert alert;
		struct proto_fleet_result result;
	};
};

/* An event's kind when only the counters or the connection changed: not a note, kept by
 * latencyd's reader thread for status. */
#define FLEET_WIRE_COUNTERS	0x7f
/*
 * The counters too, sent by the helper's request loop alone (the one that reads latencyd's
 * requests), every FLEET_WIRE_HEARTBEAT_NS: a helper with no heartbeat for
 * FLEET_WIRE_SILENCE_NS is hung, and latencyd kills it, however many records its network
 * thread sends meanwhile (a request loop stalled while peers' alerts keep coming).
 */
#define FLEET_WIRE_HEARTBEAT	0x7d
#define FLEET_WIRE_HEARTBEAT_NS (UINT64_C(1000) * 1000 * 1000)
#define FLEET_WIRE_SILENCE_NS	(UINT64_C(10) * 1000 * 1000 * 1000)
/*
 * An event's kind for the outcome of the PUBLISH_ALERT of that seq: rc 0, the broker's
 * PUBACK; -EIO, the broker refused it (or libmosquitto did); -ENOTCONN, -ENOMEM, -ENOBUFS:
 * never handed to libmosquitto. Not a note: latencyd's outbox keeps the alert until then.
 */
#define FLEET_WIRE_ACK		0x7e

struct fleet_wire_event {
	uint32_t type;
	struct fleet_event ev;
	struct fleet_status st; /* the helper's counters and connection, as of this event */
	uint32_t seq;		/* FLEET_WIRE_ACK: the request's */
	int32_t rc;		/* FLEET_WIRE_ACK: its outcome */
};

/*
 * The connection problems said lately: one attempt may fail with two messages (a TLS
 * error, then libmosquitto's own summary), and a broker retried every minute must not
 * fill the journal with them. Said again only after a connection, or once forgotten.
 */
#define FLEET_SAID_MAX 4
struct fleet_said {
	char text[FLEET_SAID_MAX][160];
	unsigned next;
};
/* True the first time WHY is seen since fleet_said_clear(); remembered then. */
bool fleet_said_new(struct fleet_said *s, const char *why);
void fleet_said_clear(struct fleet_said *s);

/*
 * Checks a record received from the helper, LEN bytes: its type, every name and text
 * terminated and of the protocol's characters, counts in range, an alert of our GROUP
 * from another host than HOST and of an incident of its own, received no later than now
 * (CLOCK_MONOTONIC). False with WHY set.
 */
bool fleet_wire_event_check(const struct fleet_wire_event *e, size_t len, const char *host,
			    const char *group, char *why, size_t whylen);
/* Older than MAX_AGE_NS by this host's clock, or from as far in its future (clocks apart):
 * the helper judges an alert so as it arrives, latencyd again as it takes it. */
bool fleet_wire_stale(const struct proto_fleet_alert *a, uint64_t max_age_ns);
/* The same for the helper's side: a request or the settings, LEN bytes. */
bool fleet_wire_request_check(const struct fleet_wire_request *q, size_t len);
bool fleet_wire_settings_check(const struct fleet_wire_settings *s, size_t len);

#endif /* LATENCYD_FLEET_WIRE_H */
