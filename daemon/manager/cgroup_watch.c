// SPDX-License-Identifier: GPL-2.0-only
/*
 * A tracker's filter_cgroup written as a path follows the cgroup at that path. The kernel
 * filters on the cgroup's id, and systemd gives a restarted service a new cgroup, a new id,
 * at the same path: without this the filter would match a cgroup that is gone, and the
 * tracker would raise nothing more for that service until a reload. A cgroup is made and
 * removed by mkdir and rmdir in its parent, which inotify reports; the parent may go and
 * come back too (a delegated service's own tree, a user's slice at each login), so every
 * existing directory from the cgroup tree's root down to the path is watched. A change
 * that names a directory of a path (a sibling's does not) sets the watches again and
 * resolves the paths (trackers_follow_cgroups(), a stat each). No filter by path, no watch
 * and no wakeup.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/vfs.h>

#include <linux/magic.h>

#include "log.h"
#include "manager.h"

#define WATCH_MASK (IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_ONLYDIR)

/* 1: DIR is a directory of a cgroup v2 tree, 0: it is missing, -1: it is something else. */
static int cgroup_dir(const char *dir)
{
	struct statfs sfs;

	if (statfs(dir, &sfs) < 0)
		return errno == ENOENT ? 0 : -1;
	return sfs.f_type == CGROUP2_SUPER_MAGIC ? 1 : -1;
}

/* Whether NAME is a directory's name on one of the paths followed. */
static bool on_a_path(const struct manager *m, const char *name)
{
	size_t n = strlen(name);

	for (size_t i = 0; n && i < TRACKER_COUNT; i++) {
		char path[PATH_MAX];

		if (!cgroup_spec_path(m->conf->trackers[i].filter_cgroup, path, sizeof(path)))
			continue;
		for (const char *p = path; (p = strstr(p, name)); p++)
			if (p > path && p[-1] == '/' && (p[n] == '/' || p[n] == 0))
				return true;
	}
	return false;
}

static int on_change(sd_event_source *s, const struct inotify_event *ev, void *userdata)
{
	struct manager *m = userdata;

	/*
	 * A watch gone (its directory removed), or events lost (the queue overflowed): set
	 * again from what exists now.
	 */
	if ((ev->mask & (IN_IGNORED | IN_Q_OVERFLOW)) || (ev->len && on_a_path(m, ev->name)))
		manager_cgroup_watch(m);
	return 0;
}

static void stop(struct manager *m)
{
	for (size_t i = 0; i < m->n_cgroup_watch; i++) {
		sd_event_source_disable_unref(m->cgroup_watch[i].source);
		free(m->cgroup_watch[i].dir);
	}
	free(m->cgroup_watch);
	m->cgroup_watch = NULL;
	m->n_cgroup_watch = 0;
}

static bool watched(struct manager *m, const char *dir)
{
	for (size_t i = 0; i < m->n_cgroup_watch; i++)
		if (strcmp(m->cgroup_watch[i].dir, dir) == 0)
			return true;
	return false;
}

static int watch_one(struct manager *m, const char *tracker, const char *dir)
{
	struct cgroup_watch *grown, *w;
	int r;

	if (watched(m, dir))
		return 0;
	grown = realloc(m->cgroup_watch, (m->n_cgroup_watch + 1) * sizeof(*grown));
	if (!grown)
		return -ENOMEM;
	m->cgroup_watch = grown;
	w = &grown[m->n_cgroup_watch];
	*w = (struct cgroup_watch){.dir = strdup(dir)};
	if (!w->dir)
		return -ENOMEM;
	r = sd_event_add_inotify(m->event, &w->source, dir, WATCH_MASK, on_change, m);
	if (r < 0) {
		free(w->dir);
		log_warnx("trackers.%s.filter_cgroup: cannot watch %s (%s): a cgroup made again "
			  "there is followed at the next reload only",
			  tracker, dir, strerror(-r));
		return r;
	}
	sd_event_source_set_description(w->source, "cgroup-watch");
	m->n_cgroup_watch++;
	return 0;
}

/*
 * The directories above PATH in the cgroup tree, watched from its root down, each before
 * its child is looked for: a child made meanwhile is reported by its parent's watch. The
 * first missing one ends it (its parent reports it when it is made).
 */
static int watch_down(struct manager *m, const char *tracker, char *path)
{
	char *end = strrchr(path, '/');
	bool in_tree = false;
	int r;

	if (!end || end == path)
		return 0;
	*end = 0; /* the parent: the last directory watched */
	for (char *slash = path + 1;; slash++) {
		bool last = !(slash = strchr(slash, '/'));
		int kind;

		if (!last)
			*slash = 0;
		kind = cgroup_dir(path);
		if (kind > 0) {
			in_tree = true;
			r = watch_one(m, tracker, path);
			if (r < 0)
				return r;
		}
		if (!last)
			*slash = '/';
		/* Above the tree's root, go on down; within it, a missing one ends it. */
		if (last || (in_tree && kind <= 0))
			return 0;
	}
}

void manager_cgroup_watch(struct manager *m)
{
	bool any = false;

	stop(m);
	for (size_t i = 0; i < TRACKER_COUNT; i++) {
		char path[PATH_MAX];

		if (!cgroup_spec_path(m->conf->trackers[i].filter_cgroup, path, sizeof(path)))
			continue;
		any = true;
		if (watch_down(m, tracker_names[i], path) == -ENOMEM)
			log_warnx("trackers.%s.filter_cgroup: no memory to watch %s",
				  tracker_names[i], path);
	}
	/* What changed before the watches were set. */
	if (any)
		trackers_follow_cgroups(m->sysfs_root, m->conf);
}

void manager_cgroup_unwatch(struct manager *m)
{
	stop(m);
}
