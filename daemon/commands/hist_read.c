/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * One tracker's histograms for "hist" (cmd_hist.c): hist/delay_ns, and hist/by_key once
 * hist/per says the split asked for, read in the main loop (a sysfs read takes
 * microseconds, and the realtime waiter, another thread, never touches these files). Disk
 * keys are named from SYSFS/dev/block under the same root as the trackers.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "commands.h"

/* The kernel's words for what a read may meet; R and WHY as khist_read() gave them. */
static int read_problem(int r, const char *why, struct proto_error *err)
{
	/* No such tracker, or no hist/ in it (a module older than ABI 1.4): WHY says which. */
	if (r == -ENOENT)
		return proto_error_set(err, PROTO_ERR_NOT_FOUND, "%s", why);
	/* hist/by_key is root's: each read renders every key in the kernel. */
	if (r == -EACCES)
		return proto_error_set(
			err, PROTO_ERR_REFUSED,
			"%s: the kernel lets root alone read it, and latencyd does not "
			"run as root",
			why);
	return proto_error_set(err, PROTO_ERR_INTERNAL, "%s", why);
}

const char *hist_root_alone(int r)
{
	/* The kernel's hist/per and hist/reset are root's to write: what a latencyd run as
	 * another user meets, which strerror() alone does not tell. */
	if ((r == -EACCES || r == -EPERM) && geteuid() != 0)
		return ": the kernel lets root alone write it, and latencyd does not run as root";
	return "";
}

/* hist/per set to PER unless it is already: a change resets the keyed histograms that
 * every client sees, so it needs admin access. */
static int set_per(struct manager *m, const struct control_caller *caller, const char *tracker,
		   const char *per, struct proto_error *err)
{
	char now[32] = "", what[96];
	bool opened;
	int r;

	if (ktracker_read_text(m->sysfs_root, tracker, KHIST_PER, now, sizeof(now)) == 0 &&
	    strcmp(now, per) == 0)
		return 0;
	snprintf(what, sizeof(what), "hist --per %s (tracker %s is per %s)", per, tracker,
		 now[0] ? now : "?");
	r = caller_authorize(caller, what, ACCESS_ADMIN, &m->conf->control, geteuid(), err);
	if (r < 0)
		return r;
	r = ktracker_write_text(m->sysfs_root, tracker, KHIST_PER, per, &opened);
	if (r == -EOPNOTSUPP)
		return proto_error_set(err, PROTO_ERR_BAD_ARGUMENT,
				       "tracker %s has no histogram per %s (per disk: block, "
				       "iosched; per syscall: syscalls; per cpu: every tracker)",
				       tracker, per);
	if (r < 0)
		return proto_error_set(err, PROTO_ERR_REFUSED,
				       "cannot set hist/per of %s to %s: %s%s", tracker, per,
				       strerror(-r), hist_root_alone(r));
	log_info("tracker %s: histograms now per %s (client %u)", tracker, per, caller->id);
	return 0;
}

/*
 * hist/per already PER, for a disk asked without a split (hist --disk): reading one disk
 * must not change, for every user, what the split histograms count; the split is set by
 * asking for it, with admin access.
 */
static int check_per(struct manager *m, const char *tracker, const char *per,
		     struct proto_error *err)
{
	char now[32] = "";

	if (ktracker_read_text(m->sysfs_root, tracker, KHIST_PER, now, sizeof(now)) == 0 &&
	    strcmp(now, per) == 0)
		return 0;
	return proto_error_set(err, PROTO_ERR_REFUSED,
			       "disk: tracker %s is per %s, not per %s: set its split first, "
			       "'latencyctl hist %s --per %s' (admin access; a change resets the "
			       "split histograms every user sees)",
			       tracker, now[0] ? now : "?", per, tracker, per);
}

/* Only DEV's counts, as if the tracker had seen that disk alone. */
static void keep_disk(struct proto_hist *h, const char *dev, const char *name)
{
	size_t kept = 0;

	memset(h->counts, 0, sizeof(h->counts));
	for (size_t i = 0; i < h->nkeys; i++)
		if (strcmp(h->keys[i].key, dev) == 0) {
			memcpy(h->counts, h->keys[i].counts, sizeof(h->counts));
			h->keys[kept++] = h->keys[i];
		}
	h->nkeys = kept;
	snprintf(h->disk, sizeof(h->disk), "%s", name);
}

int hist_read(struct manager *m, const struct control_caller *caller, const struct hist_want *w,
	      struct proto_hist *h, struct proto_error *err)
{
	static struct proto_hist keyed; /* the main loop's alone: one read at a time */
	char why[KHIST_WHY_LEN];
	int r;

	r = khist_read(m->sysfs_root, w->tracker, false, h, why, sizeof(why));
	if (r < 0)
		return read_problem(r, why, err);
	snprintf(h->tracker, sizeof(h->tracker), "%s", w->tracker);
	if (!w->per)
		return 0;
	r = w->per_kept ? check_per(m, w->tracker, w->per, err)
			: set_per(m, caller, w->tracker, w->per, err);
	if (r < 0)
		return r;
	r = khist_read(m->sysfs_root, w->tracker, true, &keyed, why, sizeof(why));
	if (r < 0)
		return read_problem(r, why, err);
	snprintf(h->per, sizeof(h->per), "%s", w->per);
	h->keys_since_ns = keyed.since_ns;
	h->nkeys = keyed.nkeys;
	memcpy(h->keys, keyed.keys, keyed.nkeys * sizeof(keyed.keys[0]));
	for (size_t i = 0; w->disks && i < h->nkeys; i++)
		if (strcmp(w->per, KHIST_PER_DISK) == 0)
			snprintf(h->keys[i].name, sizeof(h->keys[i].name), "%s",
				 kdisks_name(w->disks, h->keys[i].key));
	if (w->disk_dev) {
		keep_disk(h, w->disk_dev, w->disk_name);
		h->since_ns = keyed.since_ns;
		h->now_ns = keyed.now_ns;
	}
	return 0;
}
