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
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fleet_state.h"
#include "log.h"
#include "manager.h"
#include "thread.h"

/* How long after a connection the presences it delivers may take: a broker sends the
 * retained ones right after the SUBACK, so this is a safety margin, not a wait. */
#define MEMBERS_CONFIRM_NS (UINT64_C(10) * 1000000000)

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

/* Past the bound of the latest connection: who did not confirm it went away meanwhile. */
static void expire(struct fleet_state *fs)
{
	if (!fs->confirm_by_ns || now_ns() < fs->confirm_by_ns)
		return;
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

void members_reconnected(struct manager *m)
{
	struct fleet_state *fs = m->fleet_state;

	expire(fs);
	fs->connections++;
	fs->confirm_by_ns = now_ns() + MEMBERS_CONFIRM_NS;
}

void members_update(struct manager *m, const struct proto_fleet_presence *p)
{
	struct fleet_state *fs = m->fleet_state;
	struct fleet_member *mb = find(fs, p->host);
	bool online = strcmp(p->state, PROTO_FLEET_ONLINE) == 0;

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
