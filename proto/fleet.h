/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The fleet's messages, published through an MQTT broker (latencyd.conf fleet.*): one JSON
 * object per message, at most PROTO_FLEET_MAX bytes. Topics:
 *
 *   PREFIX/GROUP/alert/HOST    a host's alert got a snapshot: its peers record theirs
 *   PREFIX/GROUP/result/HOST   what a host did for an incident: recorded, or refused
 *
 * A host subscribes to its own group only; a message whose group or version differs is
 * dropped and counted. Defined here once, documented in proto/README.md.
 */
#ifndef LATENCYD_PROTO_FLEET_H
#define LATENCYD_PROTO_FLEET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PROTO_FLEET_VERSION 1
#define PROTO_FLEET_MAX	    4096 /* bytes of one message: a larger one is dropped */

#define PROTO_FLEET_TOPIC_ALERT	 "alert"
#define PROTO_FLEET_TOPIC_RESULT "result"

/* Names: a host, a group, a tracker: [A-Za-z0-9._-], at most this many bytes. */
#define PROTO_FLEET_NAME_MAX	 63
/* An incident: "ORIGIN-SEQ", the origin host and its snapshot's number there. */
#define PROTO_FLEET_INCIDENT_MAX (PROTO_FLEET_NAME_MAX + 21)

#define PROTO_FLEET_KEY_VERSION		  "v"
#define PROTO_FLEET_KEY_HOST		  "host"
#define PROTO_FLEET_KEY_GROUP		  "group"
#define PROTO_FLEET_KEY_BOOT_ID		  "boot_id"
#define PROTO_FLEET_KEY_INCIDENT	  "incident"
#define PROTO_FLEET_KEY_TRACKER		  "tracker"
#define PROTO_FLEET_KEY_TID		  "tid"
#define PROTO_FLEET_KEY_COMM		  "comm"
#define PROTO_FLEET_KEY_DELAY_NS	  "delay_ns"
#define PROTO_FLEET_KEY_START_REALTIME_NS "start_realtime_ns"
#define PROTO_FLEET_KEY_END_REALTIME_NS	  "end_realtime_ns"
#define PROTO_FLEET_KEY_MONO_TO_REALTIME  "monotonic_to_realtime_ns"
#define PROTO_FLEET_KEY_STATUS		  "status"

/* result status */
#define PROTO_FLEET_RECORDED "recorded"
#define PROTO_FLEET_REFUSED  "refused"
#define PROTO_FLEET_FAILED   "failed"

/* PREFIX/GROUP/alert/HOST: an alert on HOST got a snapshot. */
struct proto_fleet_alert {
	char host[PROTO_FLEET_NAME_MAX + 1];
	char group[PROTO_FLEET_NAME_MAX + 1];
	char boot_id[40];			     /* /proc/sys/kernel/random/boot_id */
	char incident[PROTO_FLEET_INCIDENT_MAX + 1]; /* "HOST-SEQ" */
	char tracker[PROTO_FLEET_NAME_MAX + 1];
	char comm[17];
	int64_t tid;
	uint64_t delay_ns;
	/* The alert's interval on CLOCK_REALTIME, and the origin's CLOCK_REALTIME minus
	 * CLOCK_MONOTONIC when it published (its trace's clock is monotonic). */
	uint64_t start_realtime_ns, end_realtime_ns;
	int64_t mono_to_realtime_ns;
};

/* PREFIX/GROUP/result/HOST: what HOST did for an incident. */
struct proto_fleet_result {
	char host[PROTO_FLEET_NAME_MAX + 1];
	char group[PROTO_FLEET_NAME_MAX + 1];
	char incident[PROTO_FLEET_INCIDENT_MAX + 1];
	char status[16]; /* recorded, refused, failed */
};

/* True for a name of [A-Za-z0-9._-] of 1..PROTO_FLEET_NAME_MAX bytes. */
bool proto_fleet_name_valid(const char *s);
/* "ORIGIN-SEQ" into its parts; -EINVAL when it is not an incident id. */
int proto_fleet_incident_parse(const char *incident, char *origin, size_t size, uint64_t *seq);
void proto_fleet_incident_format(char *buf, size_t size, const char *origin, uint64_t seq);
/* "PREFIX/GROUP/KIND/HOST" ("+" as HOST to subscribe); -ENAMETOOLONG when it does not fit. */
int proto_fleet_topic(char *buf, size_t size, const char *prefix, const char *group,
		      const char *kind, const char *host);

/* The message as text (malloc'd) into *ret; -errno. */
int proto_fleet_alert_new(const struct proto_fleet_alert *a, char **ret);
int proto_fleet_result_new(const struct proto_fleet_result *r, char **ret);
/* Parses and checks a received payload; -EINVAL (why says what is wrong), -EMSGSIZE. */
int proto_fleet_alert_parse(const void *payload, size_t len, struct proto_fleet_alert *a, char *why,
			    size_t whylen);
int proto_fleet_result_parse(const void *payload, size_t len, struct proto_fleet_result *r,
			     char *why, size_t whylen);

#endif /* LATENCYD_PROTO_FLEET_H */
