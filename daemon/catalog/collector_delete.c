// SPDX-License-Identifier: GPL-2.0-only
/*
 * The collector's deletion of an incident's snapshots (collector_delete(), collector.h).
 * latencyd runs as root there and the tree belongs to relayd's user, who could point a
 * symbolic link at anything for root to delete: every level is opened with openat() and
 * O_NOFOLLOW and emptied with unlinkat(), a link removed, never followed (tree_delete.c).
 * All or none: every snapshot of the incident is checked, down to its last file, before any
 * is deleted, for half an incident explains nothing. Kept apart from the scan (collector.c),
 * which only reads.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "collector_internal.h"
#include "tree_delete.h"

/* SN's session directory under TOP, its fd; -ENOENT: SN is gone with it. */
static int open_session(int top, const struct collector_snapshot *sn)
{
	int host = open_dir(top, sn->host_dir), session;

	if (host < 0)
		return host;
	session = open_dir(host, sn->session_dir);
	close(host);
	return session;
}

/* Checks (REMOVE false) or deletes snapshot SN; O says what went and where it stopped. */
static int one(int top, const struct collector_snapshot *sn, bool remove, struct tree_outcome *o)
{
	int session = open_session(top, sn), r;
	char parent[PATH_MAX];

	snprintf(parent, sizeof(parent), "%s/%s", sn->host_dir, sn->session_dir);
	memset(o, 0, sizeof(*o));
	if (session == -ENOENT)
		return 0;
	if (session < 0) {
		snprintf(o->where, sizeof(o->where), "%s", parent);
		return session;
	}
	r = remove ? tree_remove(session, parent, sn->name, o)
		   : tree_check(session, parent, sn->name, o);
	close(session);
	return r;
}

int collector_delete(const struct collector_scan *s, const struct collector_incident *inc,
		     struct collector_deletion *d)
{
	int top = open(s->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), r = 0;
	struct tree_outcome o;

	memset(d, 0, sizeof(*d));
	if (top < 0) {
		r = -errno;
		snprintf(d->where, sizeof(d->where), "%s", s->dir);
		return r;
	}
	for (size_t i = 0; i < inc->n && r == 0; i++) {
		r = one(top, &inc->snaps[i], false, &o);
		d->blocker = i;
	}
	/* What the check could not foresee stops it there: the rest stays whole. */
	for (size_t i = 0; i < inc->n && r == 0; i++) {
		r = one(top, &inc->snaps[i], true, &o);
		d->freed += o.freed;
		d->blocker = i;
		d->partial = r < 0 && o.removed > 0;
		d->deleted += r == 0;
	}
	if (r < 0)
		snprintf(d->where, sizeof(d->where), "%s", o.where);
	close(top);
	return r;
}

const char *collector_strerror(int r)
{
	return tree_strerror(r);
}
