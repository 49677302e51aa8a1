// SPDX-License-Identifier: GPL-2.0-only
/*
 * A local incident's alert that could not go out (not connected to the broker): kept, not
 * handed to libmosquitto, which would queue it and deliver it on the next connection
 * however late. It is published when the connection is back, if its alert is still younger
 * than fleet.max_age, and given up once it is not: the incident says so, and its members
 * are not asked to record a window that has long left their buffers.
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

static void give_up(struct manager *m, const struct outbox_item *it)
{
	char why[160];

	snprintf(why, sizeof(why),
		 "not published: the broker was not reachable within fleet.max_age (%" PRIu64
		 " ms)",
		 fleet_max_age_ns(m->fleet) / 1000000);
	log_warnx("fleet: incident %s %s; its peers recorded nothing for it", it->alert.incident,
		  why);
	if (m->catalog && catalog_incident_unpublished(m->catalog, it->alert.incident, why,
						       (uint64_t)time(NULL)) == 0)
		manager_catalog_changed(m);
}

/* Publishes what is still young enough, gives up the rest; re-arms the timer. */
static int on_timer(sd_event_source *s, uint64_t usec, void *userdata);

static void run(struct manager *m)
{
	struct fleet_state *fs = m->fleet_state;
	uint64_t now = realtime_ns(), next = 0;
	size_t kept = 0;

	for (size_t i = 0; i < fs->n_outbox; i++) {
		struct outbox_item *it = &fs->outbox[i];
		int r = -ETIME;

		if (now < it->deadline_realtime_ns)
			r = fleet_publish_alert(m->fleet, &it->alert,
						it->deadline_realtime_ns - now);
		if (r == 0) {
			/* The realtime clock may have stepped back since the alert ended. */
			if (now >= it->alert.end_realtime_ns)
				log_info("fleet: incident %s published %" PRIu64 " ms late",
					 it->alert.incident,
					 (now - it->alert.end_realtime_ns) / 1000000);
			else
				log_info("fleet: incident %s published; the realtime clock is "
					 "%" PRIu64 " ms behind its alert's end (it stepped back)",
					 it->alert.incident,
					 (it->alert.end_realtime_ns - now) / 1000000);
			continue;
		}
		if (r == -ETIME) {
			give_up(m, it);
			continue;
		}
		if (!next || it->deadline_realtime_ns < next)
			next = it->deadline_realtime_ns;
		fs->outbox[kept++] = *it;
	}
	fs->n_outbox = kept;
	sd_event_source_disable_unref(fs->outbox_timer);
	fs->outbox_timer = NULL;
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
	int r = -ETIME;

	if (now < deadline)
		r = fleet_publish_alert(m->fleet, a, deadline - now);
	if (r == 0)
		return;
	if (r != -ENOTCONN && r != -ETIME) {
		log_warnx("fleet: incident %s not published: %s", a->incident, strerror(-r));
		if (m->catalog &&
		    catalog_incident_unpublished(m->catalog, a->incident, strerror(-r),
						 (uint64_t)time(NULL)) == 0)
			manager_catalog_changed(m);
		return;
	}
	if (fs->n_outbox == OUTBOX_MAX) {
		give_up(m, &fs->outbox[0]);
		memmove(&fs->outbox[0], &fs->outbox[1], --fs->n_outbox * sizeof(fs->outbox[0]));
	}
	fs->outbox[fs->n_outbox++] = (struct outbox_item){*a, deadline};
	log_info("fleet: incident %s waits for the broker (not connected), at most %" PRIu64 " ms",
		 a->incident, now < deadline ? (deadline - now) / 1000000 : 0);
	run(m);
}

void outbox_flush(struct manager *m)
{
	if (m->fleet_state->n_outbox)
		run(m);
}
