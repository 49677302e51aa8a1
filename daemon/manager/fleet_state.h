/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The manager's side of the fleet, shared by its files: peers.c (between the MQTT client,
 * the recorder and the catalog), members.c (who is in the fleet, from retained presences),
 * outbox.c (a local incident not yet published: retried within fleet.max_age, then given
 * up) and answers.c (refusals and stale requests said together once a window; each local
 * incident's outcome logged once every member answered or fleet.answer_within passed).
 * Everything here runs on the main loop.
 */
#ifndef LATENCYD_FLEET_STATE_H
#define LATENCYD_FLEET_STATE_H

#include <stdbool.h>
#include <stdint.h>

#include <systemd/sd-event.h>

#include "fleet.h"
#include "fleet_client.h"

struct manager;

#define MEMBERS_MAX	 1024 /* hosts of a group this host keeps track of */
#define OUTBOX_MAX	 16   /* local incidents waiting for the broker */
#define SUMMARIES_MAX	 64   /* local incidents waiting for their members' answers */
/* Refusals and stale requests are published and logged together, once per window. */
#define ANSWER_WINDOW_NS (UINT64_C(2) * 1000000000)

struct fleet_member {
	char host[PROTO_FLEET_NAME_MAX + 1];
	bool online;
	uint64_t since_realtime_ns;
	uint64_t gone;	    /* its place in the order members went away (fleet_state.departures) */
	uint64_t confirmed; /* the connection (fleet_state.connections) it was last heard on */
	uint32_t every_s;   /* its presence's renewal period, 0: it renews nothing */
	uint64_t heard_ns;  /* its last presence, or this host's last connection (monotonic) */
	uint64_t proof_ns;  /* this host's own presence first back past its bound; 0: not yet */
};

struct outbox_item {
	struct proto_fleet_alert alert;
	uint64_t deadline_realtime_ns; /* the alert's end + fleet.max_age */
	uint32_t seq; /* its publish awaiting the broker's PUBACK (fleet_acked()); 0: none */
	bool waited;  /* not handed on at once, or published again: its delay is logged */
};

/* What this host did not record for its peers in the current window, by status and budget. */
enum answer_kind { ANSWER_STALE, ANSWER_ORIGIN, ANSWER_TOTAL, ANSWER_QUEUE, ANSWER_KINDS };
/* A window's answers of one kind to one origin: one result message (to that origin). */
#define ANSWERS_MAX 64
struct answer {
	enum answer_kind kind;
	struct proto_fleet_result res;
};

struct summary {
	char incident[PROTO_FLEET_INCIDENT_MAX + 1];
	uint64_t deadline_ns; /* CLOCK_MONOTONIC */
};

struct fleet_state {
	struct fleet_member *members;
	size_t n_members;
	/* Members seen going away: a presence's since is when that member started, not when it
	 * left, so the member gone longest is found by this count. */
	uint64_t departures;
	/* Connections to the broker so far, and until when (CLOCK_MONOTONIC) the members
	 * online before the latest one may confirm it with their retained presence. */
	uint64_t connections;
	uint64_t confirm_by_ns;
	bool connected;		/* members_reconnected() until members_disconnected() */
	struct fleet_link link; /* the connection as last taken (fleet_take()) */
	/* When this host's own presence last came back from the broker (CLOCK_MONOTONIC; 0:
	 * never): the broker delivers to us, so a member silent meanwhile is the silent one. */
	uint64_t self_heard_ns;
	/* Set for the next of confirm_by_ns and the members' renewal bounds (members.c). */
	sd_event_source *members_timer;
	struct outbox_item outbox[OUTBOX_MAX];
	size_t n_outbox;
	sd_event_source *outbox_timer;
	uint64_t outbox_deadline;	    /* realtime ns outbox_timer fires at */
	struct answer answers[ANSWERS_MAX]; /* more origins in one window: said at once */
	size_t n_answers;
	sd_event_source *answer_timer;
	struct summary summaries[SUMMARIES_MAX];
	size_t n_summaries;
	sd_event_source *summary_timer;
	uint64_t answered[ANSWER_KINDS]; /* since the fleet started, for the metrics */
	uint64_t unknown_results;	 /* incidents named in results this host does not keep */
	uint64_t unknown_messages;	 /* results naming one of them or more (the metrics') */
	uint64_t more_said;		 /* results counting more incidents than they name */
};

/* members.c */
/* A member's presence, or this host's own back from the broker. */
void members_update(struct manager *m, const struct proto_fleet_presence *p);
/* Connected (again): who is online is what the retained presences now say (members.c). */
void members_reconnected(struct manager *m);
/* Not connected: no member is timed out for want of a renewal until the next connection. */
void members_disconnected(struct manager *m);
/* The online members and this host: their names (borrowed until the next update) into
 * hosts, at most max; how many. */
size_t members_now(struct manager *m, const char **hosts, size_t max);

/* outbox.c */
/* Publishes a local incident's alert, kept until the broker acknowledges it: published
 * again after a helper's end or when the connection is back, within its bound; given up
 * past it, said in the incident and counted. */
void outbox_publish(struct manager *m, struct proto_fleet_alert *a);
/* Connected again, or an alert's outcome came (fleet_take() woke the main loop). */
void outbox_flush(struct manager *m);

/* answers.c */
/* A peer's incident this host did not record: said in the window's one result message. */
void answers_add(struct manager *m, const struct proto_fleet_alert *a, const char *status,
		 const char *budget);
/* R: an origin's (R->host) alerts not recorded, R->status and R->budget, R->count of them. */
void answers_add_many(struct manager *m, const struct proto_fleet_result *r);
/* A local incident: its outcome logged once everyone answered or answer_within passed. */
void answers_watch(struct manager *m, const char *incident);
void answers_result_noted(struct manager *m, const char *incident);
void fleet_state_free(struct manager *m);
/* What HOST did for INCIDENT (STATUS, with DETAIL), into the catalog's incidents. */
void fleet_note_incident(struct manager *m, const char *incident, const char *host,
			 const char *status, const char *detail);

#endif /* LATENCYD_FLEET_STATE_H */
