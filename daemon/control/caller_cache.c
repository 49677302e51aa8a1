/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The users' supplementary groups, as caller.c read them, kept CALLER_CACHE_USEC per uid and
 * primary gid. Reading them (getpwuid_r, getgrouplist) goes through NSS: with sssd or LDAP a
 * lookup may take long (on a thread of its own, caller_worker.c, while the connection
 * waits); with groups configured any local user may connect at will. Kept a few seconds, a
 * user's connections cost one lookup per interval. A reload empties the table
 * (caller_lookups_reset()), so that the clients re-checked against the new groups, and
 * anyone who connects after it, are checked against the group database as it is then. The
 * table is small and fixed: the oldest entry makes room.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "control.h"

static void entry_clear(struct caller_cache_entry *e)
{
	free(e->groups);
	*e = (struct caller_cache_entry){0};
}

static gid_t *copy(const gid_t *groups, int n)
{
	gid_t *c;

	if (n <= 0)
		return NULL;
	c = malloc((size_t)n * sizeof(*c));
	if (c)
		memcpy(c, groups, (size_t)n * sizeof(*c));
	return c;
}

/* Its age at NOW: 0 when read later than NOW (the clock is monotonic: never, but safe). */
static uint64_t age(const struct caller_cache_entry *e, uint64_t now_usec)
{
	return now_usec >= e->at_usec ? now_usec - e->at_usec : 0;
}

int caller_cache_get(struct caller_cache *cache, uid_t uid, gid_t gid, uint64_t now_usec,
		     gid_t **ret, int *ret_n)
{
	for (size_t i = 0; cache && i < CALLER_CACHE_SIZE; i++) {
		struct caller_cache_entry *e = &cache->v[i];

		if (!e->used || e->uid != uid || e->gid != gid)
			continue;
		if (age(e, now_usec) >= CALLER_CACHE_STALE_USEC) {
			entry_clear(e);
			return 0;
		}
		*ret = copy(e->groups, e->ngroups);
		if (!*ret && e->ngroups > 0)
			return -ENOMEM;
		*ret_n = e->ngroups;
		return age(e, now_usec) < CALLER_CACHE_USEC ? 1 : 2;
	}
	return 0;
}

void caller_cache_put(struct caller_cache *cache, uid_t uid, gid_t gid, const gid_t *groups, int n,
		      uint64_t now_usec)
{
	struct caller_cache_entry *slot = NULL;

	if (!cache)
		return;
	for (size_t i = 0; i < CALLER_CACHE_SIZE; i++) {
		struct caller_cache_entry *e = &cache->v[i];

		if (e->used && e->uid == uid && e->gid == gid) {
			slot = e;
			break;
		}
		if (!slot || (slot->used && (!e->used || e->at_usec < slot->at_usec)))
			slot = e;
	}
	entry_clear(slot);
	slot->groups = copy(groups, n);
	if (!slot->groups && n > 0)
		return; /* not kept: read again next time */
	slot->used = true;
	slot->uid = uid;
	slot->gid = gid;
	slot->ngroups = n > 0 ? n : 0;
	slot->at_usec = now_usec;
}

void caller_cache_clear(struct caller_cache *cache)
{
	for (size_t i = 0; cache && i < CALLER_CACHE_SIZE; i++)
		entry_clear(&cache->v[i]);
}
