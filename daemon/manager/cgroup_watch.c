// SPDX-License-Identifier: GPL-2.0-only
/*
 * A tracker's filter_cgroup written as a path follows the cgroup at that path. The kernel
 * filters on the cgroup's id, and systemd gives a restarted service a new cgroup, a new id,
 * at the same path: without this the filter would match a cgroup that is gone, and the
 * tracker would raise nothing more for that service until a reload. A cgroup is made and
 * removed by mkdir and rmdir in its parent, which inotify reports: the parents are watched,
 * and at each change in one the paths are resolved again (trackers_follow_cgroups(), a
 * stat each). No filter by path, no watch and no wakeup.
 */
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/inotify.h>

#include "log.h"
#include "manager.h"

static int on_change(sd_event_source *s, const struct inotify_event *ev, void *userdata)
{
	struct manager *m = userdata;

	trackers_follow_cgroups(m->sysfs_root, m->conf);
	return 0;
}

static void stop(struct manager *m)
{
	for (size_t i = 0; i < TRACKER_COUNT; i++)
		m->cgroup_watch[i] = sd_event_source_disable_unref(m->cgroup_watch[i]);
}

void manager_cgroup_watch(struct manager *m)
{
	char parents[TRACKER_COUNT][PATH_MAX];
	size_t n = 0;

	stop(m);
	for (size_t i = 0; i < TRACKER_COUNT; i++) {
		char path[PATH_MAX];
		bool seen = false;
		int r;

		if (!cgroup_spec_path(m->conf->trackers[i].filter_cgroup, path, sizeof(path)))
			continue;
		snprintf(parents[n], sizeof(parents[n]), "%s", dirname(path));
		for (size_t j = 0; j < n && !seen; j++)
			seen = strcmp(parents[j], parents[n]) == 0;
		if (seen)
			continue;
		r = sd_event_add_inotify(m->event, &m->cgroup_watch[n], parents[n],
					 IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO |
						 IN_ONLYDIR,
					 on_change, m);
		if (r < 0) {
			log_warnx("trackers.%s.filter_cgroup: cannot watch %s (%s): a cgroup made "
				  "again there is followed at the next reload only",
				  tracker_names[i], parents[n], strerror(-r));
			continue;
		}
		sd_event_source_set_description(m->cgroup_watch[n], "cgroup-watch");
		n++;
	}
	/* What changed between the apply and the watch. */
	if (n)
		trackers_follow_cgroups(m->sysfs_root, m->conf);
}

void manager_cgroup_unwatch(struct manager *m)
{
	stop(m);
}
