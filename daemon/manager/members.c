// SPDX-License-Identifier: GPL-2.0-only
/*
 * Who is in the fleet: each latencyd announces itself with a retained presence message
 * (online) and leaves a last will (offline) that the broker publishes if it goes away
 * without a word. An incident's members are the hosts online when it began.
 *
 * A member that dies while this host is not connected (the broker down or out of reach)
 * leaves no word this host hears: its last will goes out when the broker notices, to
 * whoever is subscribed then, and a broker that restarted without persistence has neither
 * its will nor its retained presence. So each connection starts over: those online before
 * it stay online until MEMBERS_CONFIRM_NS after it, and only those whose retained presence
 * the new subscription delivers (within milliseconds, right after the SUBACK) stay on.
 *
 * A broker that crashed with persistence restores a retained "online" whose member died
 * meanwhile, and no will ever goes out for it: that presence confirms a dead member. So a
 * member renews its presence every every_s seconds (fleet.presence_every), and one not
 * heard of for PROTO_FLEET_PRESENCE_LAPSE times that, while this host is connected, went
 * away. A member that does not say every_s (an older latencyd) renews nothing and is kept
 * as before. While this host is not connected nothing can be heard: each reconnection
 * counts as the last word of the members online before it, and the confirmation above
 * decides; no member's bound falls before it.
 *
 * Silence proves nothing while the broker or the link stalls: every renewal is held, ours
 * too, and this host notices its own connection lost only by the MQTT keepalive (up to a
 * minute). So a member is timed out only once this host's own presence, renewed as every
 * member's is, came back from the broker past that member's bound: the broker delivers to
 * us, and the member is the silent one. Even then MEMBERS_BACKLOG_NS more: a broker that
 * resumes hands on what it held, ours and the member's, in whatever order it reads them.
 * If our own presence never comes back (an ACL that keeps this host from reading its own
 * topic), no member is timed out: the side where a dead member stays listed, as before the
 * renewals, rather than live ones flapping.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fleet_state.h"
#include "log.h"
#include "manager.h"
#include "thread.h"

#define NS_PER_SEC	   UINT64_C(1000000000)
/* How long after a connection the presences it delivers may take: a broker sends the
 * retained ones right after the SUBACK, so this is a safety margin, not a wait. */
#define MEMBERS_CONFIRM_NS (UINT64_C(10) * NS_PER_SEC)
#define MEMBERS_TIMER_US   100000 /* the timer's accuracy: a member goes a little later */
/* How long a broker that resumes may take to hand on its backlog, ours and a member's
 * presences: within milliseconds, so this is a margin, not a wait. */
#define MEMBERS_BACKLOG_NS NS_PER_SEC

static struct fleet_member *find(struct fleet_state *fs, const char *host)
{
	for (size_t i = 0; i < fs->n_members; i++)
		if (strcmp(fs->members[i].host, host) == 0)
			return &fs->members[i];
	return NULL;
}

/* The member gone longest, whose place a new one takes when the table is full; NULL: none
 * gone. Hosts come and go over a fleet's life: the table holds who is there. */
static struct fleet_member *longest_gone(struct fleet_state *fs)
{
	struct fleet_member *oldest = NULL;

	for (size_t i = 0; i < fs->n_members; i++)
		if (!fs->members[i].online && (!oldest || fs->members[i].gone < oldest->gone))
			oldest = &fs->members[i];
	return oldest;
}

static void went_away(struct fleet_state *fs, struct fleet_member *mb)
{
	mb->online = false;
	mb->gone = ++fs->departures;
}

/*
 * The bound of a member that renews its presence: 0, none, or not while this host is not
 * connected. Never before the confirmation of the latest connection, which decides who is
 * still there after it (and says so). every_s < 2^32: the product stays below 2^64.
 */
static uint64_t lapse_at(const struct fleet_state *fs, const struct fleet_member *mb)
{
	uint64_t at;

	if (!fs->connected || !mb->online || !mb->every_s)
		return 0;
	at = mb->heard_ns + (uint64_t)mb->every_s * PROTO_FLEET_PRESENCE_LAPSE * NS_PER_SEC;
	return fs->confirm_by_ns > at ? fs->confirm_by_ns : at;
}

/* Each member past its bound keeps the first of our own presences back since (its proof):
 * later ones, however often they come, never put its going off. */
static void prove(struct fleet_state *fs)
{
	for (size_t i = 0; i < fs->n_members; i++) {
		struct fleet_member *mb = &fs->members[i];
		uint64_t at = lapse_at(fs, mb);

		if (at && !mb->proof_ns && fs->self_heard_ns >= at)
			mb->proof_ns = fs->self_heard_ns;
	}
}

/* When a member went away for want of a renewal: 0, not proven (yet). A proof is never
 * before its bound: a presence or a reconnection that moves the bound clears it. */
static uint64_t gone_at(const struct fleet_state *fs, const struct fleet_member *mb)
{
	return lapse_at(fs, mb) && mb->proof_ns ? mb->proof_ns + MEMBERS_BACKLOG_NS : 0;
}

/* Past the bound of the latest connection: who did not confirm it went away meanwhile; and
 * who renews its presence but was not heard of in time, as our own presence proved. */
static void expire(struct fleet_state *fs)
{
	uint64_t now = now_ns();

	if (fs->confirm_by_ns && now >= fs->confirm_by_ns) {
		fs->confirm_by_ns = 0;
		for (size_t i = 0; i < fs->n_members; i++) {
			struct fleet_member *mb = &fs->members[i];

			if (mb->online && mb->confirmed != fs->connections) {
				log_info("fleet: member %s went away (no presence since this host "
					 "reconnected)",
					 mb->host);
				went_away(fs, mb);
			}
		}
	}
	prove(fs); /* the bounds are earlier once the confirmation is over */
	for (size_t i = 0; i < fs->n_members; i++) {
		struct fleet_member *mb = &fs->members[i];
		uint64_t at = gone_at(fs, mb);

		if (at && now >= at) {
			log_info("fleet: member %s went away (no presence for %" PRIu64 " s)",
				 mb->host, (now - mb->heard_ns) / NS_PER_SEC);
			went_away(fs, mb);
		}
	}
}

/* The next time expire() has something to do: 0, none. A member past its bound but not
 * proven yet waits for our own presence, which sets the timer again (members_update()). */
static uint64_t next_due(const struct fleet_state *fs)
{
	uint64_t next = fs->confirm_by_ns;

	for (size_t i = 0; i < fs->n_members; i++) {
		uint64_t at = gone_at(fs, &fs->members[i]);

		if (at && (!next || at < next))
			next = at;
	}
	return next;
}

static void arm(struct manager *m, uint64_t at);

/* Status, the metrics and a new incident count members as they read them (expire()); this
 * says in the log when one went away as it does, whoever reads. */
static int on_timer(sd_event_source *s, uint64_t usec, void *userdata)
{
	struct manager *m = userdata;

	(void)s;
	(void)usec;
	expire(m->fleet_state);
	arm(m, next_due(m->fleet_state));
	return 0;
}

/* The timer set for AT (CLOCK_MONOTONIC ns; 0: off). Without an event loop (a unit test),
 * expire() alone, as status reads, does the work. */
static void arm(struct manager *m, uint64_t at)
{
	struct fleet_state *fs = m->fleet_state;
	uint64_t usec = at / 1000 + 1;

	if (!m->event)
		return;
	if (!at) {
		if (fs->members_timer)
			sd_event_source_set_enabled(fs->members_timer, SD_EVENT_OFF);
	} else if (!fs->members_timer) {
		if (sd_event_add_time(m->event, &fs->members_timer, CLOCK_MONOTONIC, usec,
				      MEMBERS_TIMER_US, on_timer, m) >= 0)
			sd_event_source_set_description(fs->members_timer, "fleet-members");
	} else if (sd_event_source_set_time(fs->members_timer, usec) >= 0) {
		sd_event_source_set_enabled(fs->members_timer, SD_EVENT_ONESHOT);
	}
}

/* The timer set for AT unless it goes off by then already: a renewal since moved its
 * member's going later, and the timer, early then, finds the next one due (on_timer()). */
static void arm_by(struct manager *m, uint64_t at)
{
	sd_event_source *t = m->fleet_state->members_timer;
	uint64_t usec;
	int on;

	if (!at || (t && sd_event_source_get_enabled(t, &on) >= 0 && on != SD_EVENT_OFF &&
		    sd_event_source_get_time(t, &usec) >= 0 && usec <= at / 1000 + 1))
		return;
	arm(m, at);
}

void members_reconnected(struct manager *m)
{
	struct fleet_state *fs = m->fleet_state;
	uint64_t now = now_ns();

	expire(fs);
	fs->connections++;
	fs->confirm_by_ns = now + MEMBERS_CONFIRM_NS;
	fs->connected = true;
	/* Not heard of while this host was away: timed from now, once the confirmation kept
	 * them. */
	for (size_t i = 0; i < fs->n_members; i++) {
		fs->members[i].heard_ns = now;
		fs->members[i].proof_ns = 0;
	}
	arm(m, next_due(fs));
}

void members_disconnected(struct manager *m)
{
	struct fleet_state *fs = m->fleet_state;

	expire(fs);
	fs->connected = false;
	arm(m, next_due(fs));
}

/*
 * Our own presence back: whoever published it, the broker delivered it to us at this
 * moment, and that is all it says. Another client publishing under this host's name (a
 * second host with the same fleet.host, a forger the broker's ACL lets through) at worst
 * keeps this fresh: it proves the broker's delivery to us as well as ours would, and a
 * member still goes only for its own silence past its bound.
 */
static void self_heard(struct manager *m)
{
	struct fleet_state *fs = m->fleet_state;

	fs->self_heard_ns = now_ns();
	prove(fs);
	arm_by(m, next_due(fs));
}

void members_update(struct manager *m, const struct proto_fleet_presence *p)
{
	struct fleet_state *fs = m->fleet_state;
	struct fleet_member *mb = find(fs, p->host);
	bool online = strcmp(p->state, PROTO_FLEET_ONLINE) == 0;

	if (strcmp(p->host, fleet_host(m->fleet)) == 0) {
		self_heard(m); /* never a member of its own */
		return;
	}
	if (!mb) {
		if (!online)
			return; /* gone before we knew it: nothing to forget */
		if (fs->n_members >= MEMBERS_MAX) {
			mb = longest_gone(fs);
			if (!mb) {
				log_warnx("fleet: more than %d members online in group %s: %s not "
					  "tracked",
					  MEMBERS_MAX, fleet_group(m->fleet), p->host);
				return;
			}
			log_info("fleet: member %s, gone, forgotten for %s (%d members kept)",
				 mb->host, p->host, MEMBERS_MAX);
		} else {
			if (fs->n_members % 16 == 0) {
				struct fleet_member *v =
					realloc(fs->members, (fs->n_members + 16) * sizeof(*v));

				if (!v)
					return;
				fs->members = v;
			}
			mb = &fs->members[fs->n_members++];
		}
		memset(mb, 0, sizeof(*mb));
		snprintf(mb->host, sizeof(mb->host), "%s", p->host);
	}
	if (mb->online != online)
		log_info("fleet: member %s %s", p->host, online ? "online" : "went away");
	if (mb->online && !online)
		went_away(fs, mb);
	mb->online = online;
	mb->confirmed = fs->connections;
	mb->since_realtime_ns = p->since_realtime_ns;
	/* A renewal, which changes nothing else, is not logged. */
	mb->every_s = p->every_s;
	mb->heard_ns = now_ns();
	mb->proof_ns = 0;
}

size_t members_now(struct manager *m, const char **hosts, size_t max)
{
	struct fleet_state *fs = m->fleet_state;
	size_t n = 0;

	expire(fs);
	if (max)
		hosts[n++] = fleet_host(m->fleet);
	for (size_t i = 0; i < fs->n_members && n < max; i++)
		if (fs->members[i].online)
			hosts[n++] = fs->members[i].host;
	return n;
}

size_t manager_fleet_members_online(struct manager *m)
{
	size_t n = 0;

	if (m->fleet_state)
		expire(m->fleet_state);
	for (size_t i = 0; m->fleet_state && i < m->fleet_state->n_members; i++)
		n += m->fleet_state->members[i].online;
	return n;
}
