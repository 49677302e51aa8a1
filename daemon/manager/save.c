/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The catalog to disk, retention first: at once (a snapshot, a reload), or within
 * CATALOG_DELAY_USEC for the rest, which an alert storm changes many times a second (a
 * save rewrites the whole file and fsyncs it).
 */
#include <time.h>

#include "log.h"
#include "manager.h"

#define CATALOG_DELAY_USEC (1000000ULL)

/*
 * The undeletable snapshots checked again, at most once per CATALOG_RECHECK_USEC: a walk of
 * their trees on the main loop, which a scrape of the metrics every second, a status loop
 * or an alert storm's saves would otherwise repeat for each of them every time. How many
 * became deletable or gone.
 */
static size_t recheck(struct manager *m)
{
	uint64_t now;

	if (sd_event_now(m->event, CLOCK_MONOTONIC, &now) < 0)
		return 0;
	return catalog_recheck_undeletable(m->catalog, now);
}

void manager_catalog_update(struct manager *m)
{
	const struct conf_retention *rt = &m->conf->retention;
	const struct retention ret = {(unsigned)rt->max_count, rt->max_bytes, rt->max_age};
	int r;

	if (!m->catalog)
		return;
	/* A reload may have changed output.directory: the snapshots it gets are deletable, and
	 * so stay those of the directories it had before. */
	if (catalog_set_output(m->catalog, m->conf->output.directory, RECORDER_SNAPSHOT_PREFIX) < 0)
		log_warnx("retention: no memory to note %s", m->conf->output.directory);
	/* Those the operator made deletable since (chattr -i...) count again, and go if past a
	 * limit. */
	recheck(m);
	r = catalog_apply_retention(m->catalog, &ret, (uint64_t)time(NULL));
	if (r > 0)
		log_info("retention: deleted %d snapshot(s)", r);
	else if (r < 0)
		log_warn_errno(r, "retention");
	if (m->save)
		sd_event_source_set_enabled(m->save, SD_EVENT_OFF);
	r = catalog_save(m->catalog);
	if (r < 0)
		log_warn_errno(r, "cannot save the catalog");
}

void manager_catalog_recheck(struct manager *m)
{
	/* Saved, and retention run, within a second: one deletable again may be past a limit. */
	if (m->catalog && recheck(m) > 0)
		manager_catalog_changed(m);
}

static int on_save(sd_event_source *s, uint64_t usec, void *userdata)
{
	manager_catalog_update(userdata);
	return 0;
}

void manager_catalog_changed(struct manager *m)
{
	uint64_t now;
	int on = SD_EVENT_OFF;

	if (m->save && sd_event_source_get_enabled(m->save, &on) >= 0 && on != SD_EVENT_OFF)
		return;
	if (!m->save || sd_event_now(m->event, CLOCK_MONOTONIC, &now) < 0 ||
	    sd_event_source_set_time(m->save, now + CATALOG_DELAY_USEC) < 0 ||
	    sd_event_source_set_enabled(m->save, SD_EVENT_ONESHOT) < 0)
		manager_catalog_update(m);
}

int manager_catalog_timer(struct manager *m)
{
	int r;

	r = sd_event_add_time(m->event, &m->save, CLOCK_MONOTONIC, 0, 0, on_save, m);
	if (r < 0)
		return log_warn_errno(r, "cannot add the catalog save timer");
	sd_event_source_set_description(m->save, "catalog-save");
	sd_event_source_set_enabled(m->save, SD_EVENT_OFF);
	return 0;
}
