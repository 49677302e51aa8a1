/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The trackers.* settings, written to the trackers' sysfs files at start and on reload. On
 * reload only the settings the edit changed are written, so a threshold set at run time by
 * latencyctl survives a reload that did not touch it. A tracker whose module is not loaded
 * is skipped (said once when the configuration enables it); a value the kernel refuses is
 * logged with its setting name and the rest still applies.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <latency_tracker.h>

#include "kernel.h"
#include "log.h"

struct apply {
	const char *root;
	const char *name;
	unsigned errors, writes;
};

static void apply_write(struct apply *a, const char *setting, const char *file, const char *text)
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
	}
}

static void apply_u64(struct apply *a, const char *setting, const char *file, uint64_t v)
{
	char text[32];

	snprintf(text, sizeof(text), "%" PRIu64 "\n", v);
	apply_write(a, setting, file, text);
}

static bool str_changed(const char *a, const char *b)
{
	return !a || !b || strcmp(a, b) != 0;
}

static void apply_tracker(const char *root, size_t i, const struct conf_tracker *t,
			  const struct conf_tracker *old)
{
	struct apply a = {.root = root, .name = tracker_names[i]};
	uint64_t enabled = 0, keys = 0, id, v;
	bool paused = false;
	char text[64], why[256];

	if (ktracker_check(root, a.name) < 0) {
		if (t->enabled && (!old || !old->enabled))
			log_warnx("trackers.%s.enabled: the kernel has no tracker %s (module "
				  "%s%s not loaded)",
				  a.name, a.name, LATENCY_TRACKER_TRACKER_MODULE_PREFIX, a.name);
		return;
	}
	ktracker_read(root, a.name, "enabled", &enabled);
	/* max_keys is preallocated: it only changes while the tracker is disabled. */
	if (t->max_keys && ktracker_read(root, a.name, "max_keys", &keys) == 0 &&
	    keys != t->max_keys) {
		if (enabled)
			apply_u64(&a, "max_keys", "enabled", 0);
		apply_u64(&a, "max_keys", "max_keys", t->max_keys);
		paused = enabled != 0;
	}
	if (!old || old->threshold_ns != t->threshold_ns)
		apply_u64(&a, "threshold", "threshold_ns", t->threshold_ns);
	if (!old || old->timeout_ns != t->timeout_ns)
		apply_u64(&a, "timeout", "timeout_ns", t->timeout_ns);
	if (!old || str_changed(old->filter_comm, t->filter_comm)) {
		snprintf(text, sizeof(text), "%s\n", t->filter_comm);
		apply_write(&a, "filter_comm", "filter_comm", text);
	}
	if (!old || str_changed(old->filter_cgroup, t->filter_cgroup)) {
		if (cgroup_resolve(t->filter_cgroup, &id, why, sizeof(why)) < 0) {
			log_warnx("trackers.%s.filter_cgroup: %s", a.name, why);
			a.errors++;
		} else
			apply_u64(&a, "filter_cgroup", "filter_cgroup_id", id);
	}
	/*
	 * A module older than ABI 1.3 has no such files: "no limit of its own" is what it
	 * does anyway, so only a limit actually asked for is an error there.
	 */
	if ((!old || old->alert_burst != t->alert_burst) &&
	    (t->alert_rate ||
	     ktracker_read(root, a.name, LATENCY_TRACKER_FILE_ALERT_BURST, &v) == 0))
		apply_u64(&a, "alert_burst", LATENCY_TRACKER_FILE_ALERT_BURST, t->alert_burst);
	if ((!old || old->alert_rate != t->alert_rate) &&
	    (t->alert_rate ||
	     ktracker_read(root, a.name, LATENCY_TRACKER_FILE_ALERT_RATE, &v) == 0))
		apply_u64(&a, "alert_rate", LATENCY_TRACKER_FILE_ALERT_RATE, t->alert_rate);
	/* Enabled last, so that it starts with its threshold and filters in place. */
	if (!old || old->enabled != t->enabled)
		apply_u64(&a, "enabled", "enabled", t->enabled);
	else if (paused)
		apply_u64(&a, "enabled", "enabled", 1);
	if (a.writes && !a.errors && t->enabled)
		log_info("tracker %s: enabled, threshold %" PRIu64 " ns", a.name, t->threshold_ns);
	else if (a.writes && !a.errors)
		log_debug("tracker %s: configured, disabled", a.name);
}

void trackers_apply(const char *sysfs_root, const struct conf *c, const struct conf *old)
{
	for (size_t i = 0; i < TRACKER_COUNT; i++)
		apply_tracker(sysfs_root, i, &c->trackers[i], old ? &old->trackers[i] : NULL);
}
