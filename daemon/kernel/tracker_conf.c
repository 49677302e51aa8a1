/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The trackers.* settings, written to the trackers' sysfs files at start and on reload. On
 * reload only the settings the edit changed are written, so a threshold set at run time by
 * latencyctl survives a reload that did not touch it; but a setting that has not reached the
 * kernel is written again at every reload until it does: all of them for a tracker that was
 * missing or has been recreated (its module loaded, or reloaded with its defaults), the ones
 * the kernel refused or that failed otherwise. A tracker whose module is not loaded is
 * skipped (said once when the configuration enables it); a value the kernel refuses is
 * logged with its setting name and the rest still applies.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include <latency_tracker.h>

#include "kernel.h"
#include "log.h"

/* The settings a reload compares with the previous configuration (max_keys: with the kernel). */
enum {
	SET_THRESHOLD = 1 << 0,
	SET_TIMEOUT = 1 << 1,
	SET_COMM = 1 << 2,
	SET_CGROUP = 1 << 3,
	SET_BURST = 1 << 4,
	SET_RATE = 1 << 5,
	SET_ENABLED = 1 << 6,
	SET_ALL = (1 << 7) - 1,
};

/*
 * The previous configuration tells what the kernel holds only for what was written: per
 * tracker, the settings to write at the next apply whatever the edit (missing tracker, write
 * refused or failed), and the directory written to, since a module loaded again makes a new
 * one holding the module's defaults.
 */
static struct tracker_state {
	unsigned pending;
	dev_t dev;
	ino_t ino;
	/* filter_cgroup's id as last written, while the kernel is known to hold it. */
	bool cgroup_written;
	bool cgroup_gone; /* its path names no cgroup now: said once */
	uint64_t cgroup_id;
} states[TRACKER_COUNT];

struct apply {
	const char *root;
	const char *name;
	unsigned errors, writes;
	unsigned failed; /* SET_* */
};

static void apply_write(struct apply *a, unsigned bit, const char *setting, const char *file,
			const char *text)
{
	char why[256];
	bool opened;
	int r;

	a->writes++;
	r = ktracker_write_text(a->root, a->name, file, text, &opened);
	if (r < 0) {
		ktracker_write_problem(why, sizeof(why), r, opened, a->name, file, text);
		log_warnx("trackers.%s.%s: %s", a->name, setting, why);
		a->errors++;
		a->failed |= bit;
	}
}

static void apply_u64(struct apply *a, unsigned bit, const char *setting, const char *file,
		      uint64_t v)
{
	char text[32];

	snprintf(text, sizeof(text), "%" PRIu64 "\n", v);
	apply_write(a, bit, setting, file, text);
}

/* False when the tracker directory is not the one the last apply wrote to. */
static bool same_directory(const char *root, const char *name, struct tracker_state *s)
{
	struct stat st;
	bool same;

	if (ktracker_stat(root, name, &st) < 0) {
		s->dev = 0;
		s->ino = 0;
		return false;
	}
	same = st.st_dev == s->dev && st.st_ino == s->ino;
	s->dev = st.st_dev;
	s->ino = st.st_ino;
	return same;
}

static bool str_changed(const char *a, const char *b)
{
	return !a || !b || strcmp(a, b) != 0;
}

static void apply_tracker(const char *root, size_t i, const struct conf_tracker *t,
			  const struct conf_tracker *old)
{
	struct apply a = {.root = root, .name = tracker_names[i]};
	struct tracker_state *s = &states[i];
	uint64_t enabled = 0, keys = 0, id, v;
	unsigned redo;
	bool paused = false, same;
	char text[64], why[256];

	if (ktracker_check(root, a.name) < 0) {
		if (t->enabled && (!old || !old->enabled))
			log_warnx("trackers.%s.enabled: the kernel has no tracker %s (module "
				  "%s%s not loaded)",
				  a.name, a.name, LATENCY_TRACKER_TRACKER_MODULE_PREFIX, a.name);
		s->pending = SET_ALL;
		return;
	}
	same = same_directory(root, a.name, s); /* recorded at every apply */
	if (!old || !same)
		s->pending = SET_ALL;
	redo = s->pending;
	ktracker_read(root, a.name, "enabled", &enabled);
	/* max_keys is preallocated: it only changes while the tracker is disabled. */
	if (t->max_keys && ktracker_read(root, a.name, "max_keys", &keys) == 0 &&
	    keys != t->max_keys) {
		if (enabled)
			apply_u64(&a, 0, "max_keys", "enabled", 0);
		apply_u64(&a, 0, "max_keys", "max_keys", t->max_keys);
		paused = enabled != 0;
	}
	if ((redo & SET_THRESHOLD) || old->threshold_ns != t->threshold_ns)
		apply_u64(&a, SET_THRESHOLD, "threshold", "threshold_ns", t->threshold_ns);
	if ((redo & SET_TIMEOUT) || old->timeout_ns != t->timeout_ns)
		apply_u64(&a, SET_TIMEOUT, "timeout", "timeout_ns", t->timeout_ns);
	if ((redo & SET_COMM) || str_changed(old->filter_comm, t->filter_comm)) {
		snprintf(text, sizeof(text), "%s\n", t->filter_comm);
		apply_write(&a, SET_COMM, "filter_comm", "filter_comm", text);
	}
	if ((redo & SET_CGROUP) || str_changed(old->filter_cgroup, t->filter_cgroup)) {
		if (cgroup_resolve(t->filter_cgroup, &id, why, sizeof(why)) < 0) {
			log_warnx("trackers.%s.filter_cgroup: %s", a.name, why);
			a.errors++;
			a.failed |= SET_CGROUP;
		} else {
			apply_u64(&a, SET_CGROUP, "filter_cgroup", "filter_cgroup_id", id);
		}
		s->cgroup_written = !(a.failed & SET_CGROUP);
		s->cgroup_gone = false;
		s->cgroup_id = id;
	}
	/*
	 * A module older than ABI 1.3 has no such files: "no limit of its own" is what it
	 * does anyway, so only a limit actually asked for is an error there.
	 */
	if (((redo & SET_BURST) || old->alert_burst != t->alert_burst) &&
	    (t->alert_rate ||
	     ktracker_read(root, a.name, LATENCY_TRACKER_FILE_ALERT_BURST, &v) == 0))
		apply_u64(&a, SET_BURST, "alert_burst", LATENCY_TRACKER_FILE_ALERT_BURST,
			  t->alert_burst);
	if (((redo & SET_RATE) || old->alert_rate != t->alert_rate) &&
	    (t->alert_rate ||
	     ktracker_read(root, a.name, LATENCY_TRACKER_FILE_ALERT_RATE, &v) == 0))
		apply_u64(&a, SET_RATE, "alert_rate", LATENCY_TRACKER_FILE_ALERT_RATE,
			  t->alert_rate);
	/* Enabled last, so that it starts with its threshold and filters in place. */
	if ((redo & SET_ENABLED) || old->enabled != t->enabled)
		apply_u64(&a, SET_ENABLED, "enabled", "enabled", t->enabled);
	else if (paused)
		apply_u64(&a, SET_ENABLED, "enabled", "enabled", 1);
	s->pending = a.failed;
	if (!a.writes || a.errors)
		return;
	/*
	 * What the kernel holds, not what the configuration says: a setting the edit left alone
	 * may have been changed at run time (latencyctl, a hand-written sysfs file).
	 */
	if (ktracker_read(root, a.name, "enabled", &enabled) == 0 && enabled &&
	    ktracker_read(root, a.name, "threshold_ns", &v) == 0)
		log_info("tracker %s: enabled, threshold %" PRIu64 " ns", a.name, v);
	else if (!t->enabled)
		log_debug("tracker %s: configured, disabled", a.name);
}

static void follow_cgroup(const char *root, const char *name, const char *spec,
			  struct tracker_state *s)
{
	char path[PATH_MAX], why[256], text[32];
	uint64_t id, held;
	bool opened;
	int r;

	if (!s->cgroup_written || !cgroup_spec_path(spec, path, sizeof(path)))
		return;
	if (cgroup_resolve(spec, &id, why, sizeof(why)) < 0) {
		if (!s->cgroup_gone)
			log_warnx(
				"trackers.%s.filter_cgroup: %s: the filter matches nothing until a "
				"cgroup is made there again",
				name, why);
		s->cgroup_gone = true;
		return;
	}
	if (id == s->cgroup_id) {
		if (s->cgroup_gone)
			log_info("tracker %s: cgroup %s is back, the same", name, path);
		s->cgroup_gone = false;
		return;
	}
	/* Not read (the tracker's module going or coming): looked at again at the next change. */
	if (ktracker_read(root, name, "filter_cgroup_id", &held) < 0)
		return;
	/* Another id there: latencyctl filter changed it at run time, which stays. */
	if (held != s->cgroup_id) {
		log_info("tracker %s: its cgroup filter was changed at run time: %s is followed "
			 "again from the next reload that changes trackers.%s.filter_cgroup",
			 name, path, name);
		s->cgroup_written = false;
		return;
	}
	snprintf(text, sizeof(text), "%" PRIu64 "\n", id);
	r = ktracker_write_text(root, name, "filter_cgroup_id", text, &opened);
	if (r < 0) {
		ktracker_write_problem(why, sizeof(why), r, opened, name, "filter_cgroup_id", text);
		log_warnx("trackers.%s.filter_cgroup: cgroup %s was made again: %s", name, path,
			  why);
		return;
	}
	log_info("tracker %s: cgroup %s was made again (id %" PRIu64 ", was %" PRIu64
		 "): the filter follows it",
		 name, path, id, s->cgroup_id);
	s->cgroup_id = id;
	s->cgroup_gone = false;
}

void trackers_cgroup_saved(const char *tracker, uint64_t id)
{
	for (size_t i = 0; i < TRACKER_COUNT; i++)
		if (strcmp(tracker_names[i], tracker) == 0)
			states[i] = (struct tracker_state){.pending = states[i].pending,
							   .dev = states[i].dev,
							   .ino = states[i].ino,
							   .cgroup_written = true,
							   .cgroup_id = id};
}

void trackers_follow_cgroups(const char *sysfs_root, const struct conf *c)
{
	for (size_t i = 0; i < TRACKER_COUNT; i++)
		follow_cgroup(sysfs_root, tracker_names[i], c->trackers[i].filter_cgroup,
			      &states[i]);
}

void trackers_apply(const char *sysfs_root, const struct conf *c, const struct conf *old)
{
	for (size_t i = 0; i < TRACKER_COUNT; i++)
		apply_tracker(sysfs_root, i, &c->trackers[i], old ? &old->trackers[i] : NULL);
}
