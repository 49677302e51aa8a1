/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The fleet's messages, published through an MQTT broker (latencyd.conf fleet.*): one JSON
 * object per message, at most PROTO_FLEET_MAX bytes. Topics:
 *
 *   PREFIX/GROUP/alert/HOST             a host's alert got a snapshot: its peers record theirs
 *   PREFIX/GROUP/result/ORIGIN/HOST     what HOST did for ORIGIN's incidents: recorded,
 *                                       local, refused...: for the origin alone
 *   PREFIX/GROUP/presence/HOST          retained: the host is a member (online, renewed) or
 *                                       went away
 *
 * A host subscribes to its own group's alerts and presences and to the results for its own
 * incidents only: an incident costs the broker one delivery per member and one per answer,
 * not one per member per answer. A message whose group or version differs is dropped and
 * counted. A host speaks only for itself: its messages' host, and an alert's incident
 * origin, are its topic's host. Defined here once, documented in proto/README.md.
 */
#ifndef LATENCYD_PROTO_FLEET_H
#define LATENCYD_PROTO_FLEET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PROTO_FLEET_VERSION 3
#define PROTO_FLEET_MAX	    4096 /* bytes of one message: a larger one is dropped */

/*
 * Bytes of the MQTT packet that carries one: the message, its topic (five names at most) and
 * the packet's headers and properties (under 400 bytes), with room to spare. A member asks
 * the broker for this Maximum Packet Size (MQTT v5) when it connects: a larger packet is
 * never sent to it, so never read into its memory.
 */
#define PROTO_FLEET_PACKET_MAX (PROTO_FLEET_MAX + 1024)

#define PROTO_FLEET_TOPIC_ALERT	   "alert"
#define PROTO_FLEET_TOPIC_RESULT   "result"
#define PROTO_FLEET_TOPIC_PRESENCE "presence"

/* Names: a host, a group, a tracker: [A-Za-z0-9._-], at most this many bytes. */
#define PROTO_FLEET_NAME_MAX	 63
/* An incident: "ORIGIN-SEQ", the origin host and its snapshot's number there plus its
 * catalog's incident_base (catalog.h). */
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
#define PROTO_FLEET_KEY_SENT_REALTIME_NS  "sent_realtime_ns"
#define PROTO_FLEET_KEY_STATUS		  "status"
#define PROTO_FLEET_KEY_INCIDENTS	  "incidents"
#define PROTO_FLEET_KEY_COUNT		  "count"
#define PROTO_FLEET_KEY_BUDGET		  "budget"
#define PROTO_FLEET_KEY_PATH		  "path"
#define PROTO_FLEET_KEY_REASON		  "reason"
#define PROTO_FLEET_KEY_STATE		  "state"
#define PROTO_FLEET_KEY_SINCE_REALTIME_NS "since_realtime_ns"
#define PROTO_FLEET_KEY_EVERY_S		  "every_s"

/* result status: what a host did for an incident */
#define PROTO_FLEET_RECORDED "recorded" /* its snapshot is on the collector (lttng-relayd) */
#define PROTO_FLEET_LOCAL    "local"	/* recorded on its own disk only (path) */
#define PROTO_FLEET_REFUSED  "refused"	/* a budget refused it (budget) */
#define PROTO_FLEET_FAILED   "failed"	/* the record failed (reason) */
#define PROTO_FLEET_STALE    "stale"	/* older than the receiver's fleet.max_age */

/* refused: which budget */
#define PROTO_FLEET_BUDGET_ORIGIN "origin" /* the origin's own bucket (fleet.peer_rate) */
#define PROTO_FLEET_BUDGET_TOTAL  "total"  /* all origins' (fleet.total_rate) */
#define PROTO_FLEET_BUDGET_QUEUE  "queue"  /* too many peer alerts waiting already */

/* presence state */
#define PROTO_FLEET_ONLINE  "online"
#define PROTO_FLEET_OFFLINE "offline"

/*
 * A presence is renewed every every_s seconds (fleet.presence_every), published with the MQTT
 * v5 message expiry PROTO_FLEET_PRESENCE_LAPSE times that: a member not heard of for as long
 * went away, and the broker, persistent or not, drops its retained presence by then.
 */
#define PROTO_FLEET_EVERY_MIN_S	   1
#define PROTO_FLEET_EVERY_MAX_S	   3600
#define PROTO_FLEET_PRESENCE_LAPSE 3

/* Incidents one result names: refusals and stale requests of a window go in one message,
 * past this many only counted. */
#define PROTO_FLEET_RESULT_INCIDENTS 24
#define PROTO_FLEET_PATH_MAX	     255
#define PROTO_FLEET_REASON_MAX	     127

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
	uint64_t sent_realtime_ns; /* when it was (last) published: retries are later */
};

/* PREFIX/GROUP/result/HOST: what HOST did for incidents, one status for all of them. */
struct proto_fleet_result {
	char host[PROTO_FLEET_NAME_MAX + 1];
	char group[PROTO_FLEET_NAME_MAX + 1];
	char status[16]; /* PROTO_FLEET_RECORDED ... */
	size_t n;	 /* incidents named, 1..PROTO_FLEET_RESULT_INCIDENTS */
	char incidents[PROTO_FLEET_RESULT_INCIDENTS][PROTO_FLEET_INCIDENT_MAX + 1];
	uint64_t count;	 /* incidents it stands for, >= n: the rest were only counted */
	char budget[16]; /* refused: PROTO_FLEET_BUDGET_* */
	char path[PROTO_FLEET_PATH_MAX + 1];	 /* local: the snapshot's directory there */
	char reason[PROTO_FLEET_REASON_MAX + 1]; /* failed, stale: why */
};

/*
 * PREFIX/GROUP/presence/HOST, retained: HOST is a member, or went away (its last will).
 * every_s is optional: a member that does not send it (a latencyd before it) renews nothing
 * and is never timed out. One that sends it says PROTO_FLEET_EVERY_MIN_S..MAX_S; an integer
 * above that (a later version's wider range) is read as absent, anything else that is not
 * a positive integer refuses the message.
 */
struct proto_fleet_presence {
	char host[PROTO_FLEET_NAME_MAX + 1];
	char group[PROTO_FLEET_NAME_MAX + 1];
	char boot_id[40];
	char state[8]; /* online, offline */
	uint64_t since_realtime_ns;
	uint32_t every_s; /* seconds between renewals, 0: not said (or above the range) */
};

/* True for a name of [A-Za-z0-9._-] of 1..PROTO_FLEET_NAME_MAX bytes. */
bool proto_fleet_name_valid(const char *s);
/* True for text a peer may send to be shown (comm, path, reason): printable ASCII, no
 * control byte, no escape sequence reaching a terminal or a log line. */
bool proto_fleet_text_valid(const char *s);
/* S made valid text: each byte outside printable ASCII becomes '?'. */
void proto_fleet_text_clean(char *s);
/* True for a result's status (PROTO_FLEET_RECORDED ...), and for its budget ("" or
 * PROTO_FLEET_BUDGET_*). */
bool proto_fleet_status_valid(const char *s);
bool proto_fleet_budget_valid(const char *s);
/* A's end further than MAX_AGE_NS from NOW (CLOCK_REALTIME ns), either way: too old, or
 * from as far in the future (clocks apart). */
bool proto_fleet_alert_stale(const struct proto_fleet_alert *a, uint64_t now, uint64_t max_age_ns);
/* "ORIGIN-SEQ" into its parts; -EINVAL when it is not an incident id. */
int proto_fleet_incident_parse(const char *incident, char *origin, size_t size, uint64_t *seq);
void proto_fleet_incident_format(char *buf, size_t size, const char *origin, uint64_t seq);
/* "PREFIX/GROUP/KIND/HOST" ("+" as HOST to subscribe); -ENAMETOOLONG when it does not fit. */
int proto_fleet_topic(char *buf, size_t size, const char *prefix, const char *group,
		      const char *kind, const char *host);
/* "PREFIX/GROUP/result/ORIGIN/HOST" ("+" as HOST to subscribe). */
int proto_fleet_result_topic(char *buf, size_t size, const char *prefix, const char *group,
			     const char *origin, const char *host);

/* The message as text (malloc'd) into *ret; -errno. */
int proto_fleet_alert_new(const struct proto_fleet_alert *a, char **ret);
int proto_fleet_result_new(const struct proto_fleet_result *r, char **ret);
int proto_fleet_presence_new(const struct proto_fleet_presence *p, char **ret);
/* Parses and checks a received payload; -EINVAL (why says what is wrong), -EMSGSIZE. */
int proto_fleet_alert_parse(const void *payload, size_t len, struct proto_fleet_alert *a, char *why,
			    size_t whylen);
int proto_fleet_result_parse(const void *payload, size_t len, struct proto_fleet_result *r,
			     char *why, size_t whylen);
int proto_fleet_presence_parse(const void *payload, size_t len, struct proto_fleet_presence *p,
			       char *why, size_t whylen);

#endif /* LATENCYD_PROTO_FLEET_H */
