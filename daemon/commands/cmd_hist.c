/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * "hist" (1.9): a tracker's log2 histogram of delays, or "io"'s four levels (syscalls, fs,
 * iosched, block) side by side, each with its percentiles as bucket bounds (proto's
 * hist_codec.c). A split per CPU, disk or system call sets the tracker's hist/per first;
 * "disk" keeps block and iosched to one disk, read from a split per disk that is there
 * already (or asked for with it); "reset" zeroes what was read, after the read.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>
#include <latency_tracker.h>

#include "commands.h"

struct hist_args {
	const char *tracker, *per, *disk;
	bool reset;
};

/* An I/O's levels, from the system call down to the device. */
static const char *const io_levels[] = {LATENCY_TRACKER_NAME_SYSCALLS, LATENCY_TRACKER_NAME_FS,
					LATENCY_TRACKER_NAME_IOSCHED, LATENCY_TRACKER_NAME_BLOCK};
#define N_IO_LEVELS (sizeof(io_levels) / sizeof(io_levels[0]))

static bool has_disks(const char *tracker)
{
	return strcmp(tracker, LATENCY_TRACKER_NAME_BLOCK) == 0 ||
	       strcmp(tracker, LATENCY_TRACKER_NAME_IOSCHED) == 0;
}

/* "a, b, c" of the disks. */
static void list_text(char *buf, size_t size, char *const *names, size_t n)
{
	size_t len = 0;

	buf[0] = 0;
	for (size_t i = 0; i < n && len < size; i++)
		len += (size_t)snprintf(buf + len, size - len, "%s%s", i ? ", " : "", names[i]);
}

static int tracker_problem(const struct manager *m, const char *name, int r,
			   struct proto_error *err)
{
	if (r == -EINVAL)
		return proto_error_set(err, PROTO_ERR_BAD_ARGUMENT, "invalid tracker name '%s'",
				       name);
	return tracker_not_found(m, name, " (and io: syscalls, fs, iosched, block)", err);
}

static int disk_problem(const struct kdisks *d, const char *name, struct proto_error *err)
{
	char *names[KDISKS_MAX], list[512];

	for (size_t i = 0; i < d->n; i++)
		names[i] = (char *)d->v[i].name;
	list_text(list, sizeof(list), names, d->n);
	return proto_error_set(err, PROTO_ERR_NOT_FOUND, "no disk '%s'; the disks are %s", name,
			       d->n ? list : "none (no /sys/dev/block)");
}

static int none_loaded(const struct manager *m, struct proto_error *err)
{
	char **names = NULL;
	size_t n = 0;

	if (ktracker_list(m->sysfs_root, &names, &n) < 0)
		return proto_error_set(err, PROTO_ERR_NOT_FOUND,
				       "io: the latency_tracker module is not loaded");
	ktracker_list_free(names, n);
	return proto_error_set(err, PROTO_ERR_NOT_FOUND,
			       "io: none of its trackers (syscalls, fs, iosched, block) is loaded");
}

/* The arguments' combinations that mean nothing, before anything is read. */
static int check_args(const struct hist_args *a, bool io, struct proto_error *err)
{
	if (a->per && strcmp(a->per, KHIST_PER_CPU) && strcmp(a->per, KHIST_PER_DISK) &&
	    strcmp(a->per, KHIST_PER_SYSCALL))
		return proto_error_set(err, PROTO_ERR_BAD_ARGUMENT,
				       "per: '%s' is not cpu, disk or syscall", a->per);
	if (io && a->per)
		return proto_error_set(err, PROTO_ERR_BAD_ARGUMENT,
				       "per: not with io, whose levels split differently (disk: "
				       "its block and iosched levels on one disk)");
	if (a->disk && !io && !has_disks(a->tracker))
		return proto_error_set(err, PROTO_ERR_BAD_ARGUMENT,
				       "disk: tracker %s has no disks (disk is for block, "
				       "iosched and io)",
				       a->tracker);
	if (a->disk && a->per && strcmp(a->per, KHIST_PER_DISK))
		return proto_error_set(err, PROTO_ERR_BAD_ARGUMENT,
				       "disk: a disk's histogram is per disk, not per %s", a->per);
	return 0;
}

static int skip(struct json_object *skipped, const char *tracker)
{
	struct json_object *o = json_object_new_object();
	int r = 0;

	result_add_string(o, PROTO_KEY_TRACKER, tracker, &r);
	result_add_string(o, PROTO_KEY_REASON, "not loaded", &r);
	if (r >= 0 && json_object_array_add(skipped, o) < 0)
		r = -ENOMEM;
	if (r < 0)
		json_object_put(o);
	return r;
}

/* Each tracker read into LIST, or, for io's levels that the kernel lacks, into SKIPPED. */
static int read_all(struct manager *m, const struct control_caller *caller,
		    const struct hist_args *a, const char *const *trackers, size_t n,
		    const struct kdisks *disks, struct json_object *list,
		    struct json_object *skipped, bool *read, struct proto_error *err)
{
	struct proto_hist *h = calloc(1, sizeof(*h));
	struct json_object *o;
	int r = h ? 0 : -ENOMEM;

	for (size_t i = 0; r >= 0 && i < n; i++) {
		struct hist_want w = {.tracker = trackers[i], .per = a->per, .disks = disks};

		r = ktracker_check(m->sysfs_root, trackers[i]);
		if (r == -ENOENT && n > 1) {
			r = skip(skipped, trackers[i]);
			continue;
		}
		if (r < 0) {
			r = tracker_problem(m, trackers[i], r, err);
			break;
		}
		if (a->disk && has_disks(trackers[i])) {
			/* Read per disk; the split set only when asked for (--per disk). */
			w.per = KHIST_PER_DISK;
			w.per_kept = !a->per;
			w.disk_dev = kdisks_dev(disks, a->disk);
			w.disk_name = a->disk;
		}
		r = hist_read(m, caller, &w, h, err);
		if (r >= 0 && (r = proto_hist_to_json(h, &o)) >= 0 &&
		    json_object_array_add(list, o) < 0) {
			json_object_put(o);
			r = -ENOMEM;
		}
		read[i] = r >= 0;
	}
	free(h);
	return r;
}

static int reset(struct manager *m, const char *const *trackers, size_t n, const bool *read,
		 struct proto_error *err)
{
	for (size_t i = 0; i < n; i++) {
		bool opened;
		int r;

		if (!read[i])
			continue;
		r = ktracker_write_text(m->sysfs_root, trackers[i], KHIST_RESET, "1\n", &opened);
		if (r < 0)
			return proto_error_set(err, PROTO_ERR_REFUSED,
					       "cannot reset the histograms of %s: %s%s",
					       trackers[i], strerror(-r), hist_root_alone(r));
	}
	return 0;
}

int cmd_hist(struct manager *m, const struct control_caller *caller, struct json_object *args,
	     struct json_object **result, struct proto_error *err)
{
	static const struct proto_field fields[] = {
		{PROTO_KEY_TRACKER, PROTO_FIELD_STRING, PROTO_FIELD_REQUIRED,
		 offsetof(struct hist_args, tracker)},
		{PROTO_KEY_PER, PROTO_FIELD_STRING, 0, offsetof(struct hist_args, per)},
		{PROTO_KEY_DISK, PROTO_FIELD_STRING, 0, offsetof(struct hist_args, disk)},
		{PROTO_KEY_RESET, PROTO_FIELD_BOOL, 0, offsetof(struct hist_args, reset)},
		{NULL},
	};
	static struct kdisks disks; /* the main loop's alone */
	struct hist_args a = {0};
	struct json_object *o, *list, *skipped;
	bool io, read[N_IO_LEVELS] = {false};
	const char *const *trackers;
	size_t n;
	int r;

	r = proto_fields_dispatch(args, fields, 0, &a, err);
	if (r < 0)
		return r;
	io = strcmp(a.tracker, PROTO_HIST_IO) == 0;
	r = check_args(&a, io, err);
	if (r < 0)
		return r;
	if (a.reset && (r = caller_authorize(caller, "hist --reset", ACCESS_ADMIN,
					     &m->conf->control, geteuid(), err)) < 0)
		return r;
	kdisks_read(m->sysfs_root, &disks);
	if (a.disk && !kdisks_dev(&disks, a.disk))
		return disk_problem(&disks, a.disk, err);
	trackers = io ? io_levels : &a.tracker;
	n = io ? N_IO_LEVELS : 1;

	o = json_object_new_object();
	list = json_object_new_array();
	skipped = json_object_new_array();
	r = o && list && skipped ? 0 : -ENOMEM;
	if (r >= 0)
		r = read_all(m, caller, &a, trackers, n, &disks, list, skipped, read, err);
	if (r >= 0 && json_object_array_length(list) == 0)
		r = none_loaded(m, err);
	if (r >= 0 && a.reset)
		r = reset(m, trackers, n, read, err);
	if (r < 0) {
		json_object_put(o);
		json_object_put(list);
		json_object_put(skipped);
		return r;
	}
	if (a.reset)
		log_info("client %u (uid %u) reset the histograms of %s", caller->id,
			 (unsigned)caller->uid, a.tracker);
	result_add(o, PROTO_KEY_HISTS, list, &r);
	result_add(o, PROTO_KEY_SKIPPED, skipped, &r);
	result_add_bool(o, PROTO_KEY_WAS_RESET, a.reset, &r);
	return result_done(o, r, result);
}
