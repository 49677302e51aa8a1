// SPDX-License-Identifier: GPL-2.0-only
/*
 * A local incident's alert on its way to the broker: kept here until the broker
 * acknowledges it (its PUBACK, told by latencyd-fleet: fleet_acked()), not merely until
 * the helper took it, for a helper that dies or is killed before the PUBACK loses what
 * libmosquitto held. One not handed on (not connected), or lost with its helper, is
 * published again when the connection is back, if its alert is still younger than
 * fleet.max_age; peers drop a duplicate by its incident (helper/inbound.c). Past that bound
 * it is given up: the log and the incident say so, counted once as failed, and its members
 * are not asked to record a window that has long left their buffers. An alert already
 * handed on is not sent again on a reconnection of the same helper: libmosquitto sends it
 * again itself after the CONNACK (helper/mqtt.c).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "fleet_state.h"
#include "log.h"
#include "manager.h"
#include "thread.h"

/* A publish the helper could not take for now (-EAGAIN, -ENOBUFS): tried again this soon. */
#define RETRY_NS (UINT64_C(250) * 1000 * 1000)

static void unpublished(struct manager *m, const char *incident, const char *why)
{
	log_warnx("fleet: incident %s %s; its peers recorded nothing for it", incident, why);
	if (m->catalog &&
	    catalog_incident_unpublished(m->catalog, incident, why, (uint64_t)time(NULL)) == 0)
		manager_catalog_changed(m);
}

/* IT, never handed on: counted failed, said in the log and the incident. */
static void give_up(struct manager *m, const struct outbox_item *it)
{
	char why[200];

	snprintf(why, sizeof(why),
		 "not published: the broker was not reachable within fleet.max_age (%" PRIu64
		 " ms)",
		 fleet_max_age_ns(m->fleet) / 1000000);
	fleet_publish_lost(m->fleet);
	unpublished(m, it->alert.incident, why);
}

/*
 * IT, handed on, no longer followed (WHY): libmosquitto sends it when it can, and its peers
 * answer stale if it comes late. Counted once its outcome comes (fleet_publish_let_go()).
 */
static void let_go(struct manager *m, const struct outbox_item *it, const char *why)
{
	log_info("fleet: incident %s %s: left to go out late, for its peers to find stale",
		 it->alert.incident, why);
	fleet_publish_let_go(m->fleet, it->seq);
}

static void published(const struct outbox_item *it, uint64_t now)
{
	/* The realtime clock may have stepped back since the alert ended. */
	if (!it->waited)
		log_debug("fleet: incident %s published (acknowledged by the broker)",
			  it->alert.incident);
	else if (now >= it->alert.end_realtime_ns)
		log_info("fleet: incident %s published %" PRIu64
			 " ms late (acknowledged by the broker)",
			 it->alert.incident, (now - it->alert.end_realtime_ns) / 1000000);
	else
		log_info("fleet: incident %s published; the realtime clock is %" PRIu64
			 " ms behind its alert's end (it stepped back)",
			 it->alert.incident, (it->alert.end_realtime_ns - now) / 1000000);
}

/*
 * IT not handed on at once, or lost after it was (WHY): it waits for the broker, its delay
 * logged when it goes out. Said once, when it starts to wait: the retries every RETRY_NS
 * say nothing more.
 */
static void waits(struct outbox_item *it, const char *why, uint64_t now)
{
	if (it->waited)
		return;
	it->waited = true;
	log_info("fleet: incident %s waits for the broker (%s), at most %" PRIu64 " ms",
		 it->alert.incident, why,
		 now < it->deadline_realtime_ns ? (it->deadline_realtime_ns - now) / 1000000 : 0);
}

/* Why fleet_acked() or fleet_publish_alert() said R. */
static const char *why_waits(int r, bool handed)
{
	if (r == -EAGAIN && handed)
		return "the fleet process had no place for it";
	if (r == -EAGAIN)
		return "the fleet process does not read its requests";
	if (r == -ENOBUFS)
		return "too many alerts await the broker's acknowledgement";
	return handed ? "not handed on, or lost with the fleet process: published again"
		      : "not connected";
}

/*
 * IT's state, and its publish when none is under way: false once it is done with (acked,
 * refused, given up). *RETRY: the helper could not take it for now.
 */
static bool step(struct manager *m, struct outbox_item *it, uint64_t now, bool *retry)
{
	int r = it->seq ? fleet_acked(m->fleet, it->seq) : 0; /* 0, seq 0: none under way */

	if (r == 1) {
		published(it, now);
		return false;
	}
	if (r == -EIO) { /* counted failed by the helper */
		unpublished(m, it->alert.incident,
			    "not published: refused by the broker or its MQTT client (the "
			    "fleet process's log says why)");
		return false;
	}
	/* Not handed on, lost with its helper, or no place for it there: published again. */
	if (r < 0) {
		waits(it, why_waits(r, true), now);
		it->seq = 0;
	}
	if (now >= it->deadline_realtime_ns) {
		if (it->seq) /* the broker slow or frozen */
			let_go(m, it, "not acknowledged by the broker within fleet.max_age");
		else
			give_up(m, it);
		return false;
	}
	if (it->seq)
		return true; /* awaits its PUBACK */
	if (r == -EAGAIN) {  /* the helper had no place for it: again after RETRY_NS, not now */
		*retry = true;
		return true;
	}
	r = fleet_publish_alert(m->fleet, &it->alert, it->deadline_realtime_ns - now, &it->seq);
	if (r == -EAGAIN || r == -ENOBUFS || r == -ENOTCONN) {
		*retry |= r != -ENOTCONN; /* not connected: again once it is (outbox_flush()) */
		waits(it, why_waits(r, false), now);
	} else if (r < 0) {
		fleet_publish_lost(m->fleet);
		unpublished(m, it->alert.incident, strerror(-r));
		return false;
	}
	return true;
}

static int on_timer(sd_event_source *s, uint64_t usec, void *userdata);

/* Each item's outcome taken, its publish made if due; re-arms the timer. */
static void run(struct manager *m)
{
	struct fleet_state *fs = m->fleet_state;
	uint64_t now = realtime_ns(), next = 0;
	bool retry = false;
	size_t kept = 0;

	for (size_t i = 0; i < fs->n_outbox; i++) {
		struct outbox_item *it = &fs->outbox[i];

		if (!step(m, it, now, &retry))
			continue;
		if (!next || it->deadline_realtime_ns < next)
			next = it->deadline_realtime_ns;
		fs->outbox[kept++] = *it;
	}
	fs->n_outbox = kept;
	if (retry && next && next > now + RETRY_NS)
		next = now + RETRY_NS;
	sd_event_source_disable_unref(fs->outbox_timer);
	fs->outbox_timer = NULL;
	fs->outbox_deadline = next;
	if (next && sd_event_add_time_relative(m->event, &fs->outbox_timer, CLOCK_MONOTONIC,
					       (next - now) / 1000 + 1, 1000, on_timer, m) >= 0)
		sd_event_source_set_description(fs->outbox_timer, "fleet-outbox");
}

static int on_timer(sd_event_source *s, uint64_t usec, void *userdata)
{
	(void)s;
	(void)usec;
	run(userdata);
	return 0;
}

void outbox_publish(struct manager *m, struct proto_fleet_alert *a)
{
	struct fleet_state *fs = m->fleet_state;
	uint64_t now = realtime_ns(), deadline = a->end_realtime_ns + fleet_max_age_ns(m->fleet);
	struct outbox_item *it;
	bool retry = false;

	if (fs->n_outbox == OUTBOX_MAX) {
		if (fs->outbox[0].seq)
			let_go(m, &fs->outbox[0],
			       "no longer followed (newer alerts fill the outbox)");
		else
			give_up(m, &fs->outbox[0]);
		memmove(&fs->outbox[0], &fs->outbox[1], --fs->n_outbox * sizeof(fs->outbox[0]));
	}
	it = &fs->outbox[fs->n_outbox++];
	*it = (struct outbox_item){*a, deadline, 0, false};
	/* Only this one: the others wait for their outcome, the connection or their timer. */
	if (!step(m, it, now, &retry)) {
		fs->n_outbox--;
		return;
	}
	/* The timer re-armed for this one's deadline too, when it comes first. */
	if (!fs->outbox_timer || retry || deadline < fs->outbox_deadline)
		run(m);
}

void outbox_flush(struct manager *m)
{
	if (m->fleet_state->n_outbox)
		run(m);
}
