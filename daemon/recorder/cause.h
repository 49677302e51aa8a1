/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What made latencyd record a snapshot: a kernel alert, a request (latencyctl record), or a
 * fleet peer's alert. The waiter takes them, the recorder queues and records them, and
 * hands each to the catalog as a struct catalog_cause (cause.c).
 */
#ifndef LATENCYD_CAUSE_H
#define LATENCYD_CAUSE_H

#include <stdint.h>
#include <sys/types.h>

#include <latency_tracker.h>

#include "fleet.h"

/* latencyctl record --reason: at most this many bytes. */
#define CAUSE_MESSAGE_MAX    256
/* The tracker names manual and peer causes go by (rate limits, the catalog, events). */
#define CAUSE_MANUAL_TRACKER "manual"
#define CAUSE_PEER_TRACKER   "peer"

enum cause_kind {
	CAUSE_ALERT,  /* alert: a record from the notification file */
	CAUSE_MANUAL, /* manual: latencyctl record */
	CAUSE_PEER,   /* peer: a fleet peer's alert got a snapshot there */
};

struct cause_manual {
	uint64_t request; /* the request's number, in the snapshot event its client waits for */
	pid_t pid;	  /* the client */
	uint64_t time_ns; /* CLOCK_MONOTONIC when the waiter took it */
	char message[CAUSE_MESSAGE_MAX + 1];
};

struct cause_peer {
	struct proto_fleet_alert alert; /* as the origin published it */
	uint64_t time_ns;		/* CLOCK_MONOTONIC when the waiter took it */
	uint64_t received_ns;		/* CLOCK_MONOTONIC when it came from the broker */
};

struct cause {
	enum cause_kind kind;
	union {
		struct latency_tracker_record alert;
		struct cause_manual manual;
		struct cause_peer peer;
	};
};

struct catalog_cause;

/* The tracker a cause counts against, NUL-terminated. */
void cause_tracker(const struct cause *c, char name[LATENCY_TRACKER_NAME_LEN + 1]);
/* The task it names: the alert's, the requesting latencyctl, the origin's. */
void cause_comm(const struct cause *c, char comm[LATENCY_TRACKER_COMM_LEN + 1]);
/* A kernel alert's reason as the catalog spells it: PROTO_REASON_THRESHOLD, _TIMEOUT or
 * _DISCARDED. */
const char *cause_alert_reason(const struct latency_tracker_record *a);
/* C as the catalog keeps it, in *O (freed with catalog_cause_free()); 0 or -ENOMEM. */
int cause_to_catalog(const struct cause *c, struct catalog_cause *o);

#endif /* LATENCYD_CAUSE_H */
