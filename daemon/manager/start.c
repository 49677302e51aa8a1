/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * latencyd's start, in order: the privileged steps (the root check, memory locking, the
 * kernel modules), the module's ABI, the catalog (with snapshots a crash left out of it),
 * then the flight recorder. A step that fails stops the start with a clear message: a
 * latencyd that cannot do its job must not look as if it did.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <latency_tracker.h>

#include "fsutil.h"
#include "log.h"
#include "manager.h"

void manager_refresh_module(struct manager *m)
{
	kmodule_query(m->sysfs_root, &m->module);
}

/*
 * The module speaks another major ABI than latencyd was built for: its records would be
 * read wrong. The waiter is never started on it.
 */
static int check_abi(struct manager *m)
{
	manager_refresh_module(m);
	if (m->module.state != KMODULE_ABI_MISMATCH)
		return 0;
	log_warnx("kernel module %s speaks ABI %u.%u, latencyd %s needs %u.x: not starting "
		  "(install the module and latencyd of one release together)",
		  LATENCY_TRACKER_MODULE_NAME, m->module.abi_major, m->module.abi_minor,
		  LATENCYD_VERSION, LATENCY_TRACKER_ABI_MAJOR);
	return -EPROTO;
}

/*
 * A record abandoned at a stop (lttng-sessiond did not answer) is in the catalog as failed,
 * with no output: sessiond, once it answers again, may still write it, in the directory of
 * the session it was handed to (late_directory: a reload or this start may have changed
 * output.directory since; an entry without it, of an older latencyd, is looked for where
 * the settings in force say). Its directory then joins its entry, which retention deletes
 * with it. Returns how many did.
 */
static int claim_late_outputs(struct manager *m)
{
	struct catalog_entry *e;
	int n = 0, sized;

	for (size_t i = 0; (e = catalog_at(m->catalog, i)); i++) {
		if (e->status != CATALOG_FAILED || e->path || e->url || !e->name)
			continue;
		e->path = path_newest(e->late_directory ?: m->conf->output.directory, e->name);
		if (!e->path)
			continue;
		free(e->late_directory); /* found: path says where */
		e->late_directory = NULL;
		sized = dir_size_read(e->path, &e->bytes);
		log_warnx("snapshot %" PRIu64 " failed, and lttng-sessiond wrote its output after "
			  "latencyd stopped waiting for it: %s, kept with its entry",
			  e->id, e->path);
		if (sized < 0)
			log_warnx("%s: %s: its size is what could be read of it: %" PRIu64 " bytes",
				  e->path, strerror(-sized), e->bytes);
		n++;
	}
	return n;
}

static int open_catalog(struct manager *m)
{
	const struct conf *c = m->conf;
	struct catalog_adoption a;
	bool recovered;
	int r, late;

	r = mkdir_p(c->output.directory, 0750);
	if (r < 0)
		return log_warn_errno(r, "cannot create %s", c->output.directory);
	r = catalog_open(c->catalog.directory, &m->catalog, &recovered);
	if (r < 0)
		return log_warn_errno(r, "cannot open the catalog in %s", c->catalog.directory);
	if (recovered)
		log_warnx("catalog in %s recovered after a crash or corruption",
			  c->catalog.directory);
	r = catalog_set_output(m->catalog, c->output.directory, RECORDER_SNAPSHOT_PREFIX);
	if (r < 0)
		return log_warn_errno(r, "cannot open the catalog in %s", c->catalog.directory);
	late = claim_late_outputs(m);
	r = catalog_adopt_orphans(m->catalog, c->output.directory, RECORDER_SNAPSHOT_PREFIX, &a);
	/* What was adopted, or reserved, whatever stopped the scan: not to be lost again. */
	if ((a.adopted || a.problems || late > 0) && catalog_save(m->catalog) < 0)
		log_warnx("cannot save the catalog in %s", c->catalog.directory);
	if (a.adopted)
		log_warnx("%zu snapshot(s) in %s were not in the catalog (latencyd stopped before "
			  "saving it, or their entries were deleted with --keep-files); added "
			  "with unknown causes",
			  a.adopted, c->output.directory);
	if (a.problems)
		log_warnx("%zu entr%s of %s could not be looked at (said above): not adopted, "
			  "their ids not handed out; adopted at a start that can",
			  a.problems, a.problems == 1 ? "y" : "ies", c->output.directory);
	if (r < 0)
		log_warn_errno(r, "cannot scan %s for snapshots missing from the catalog",
			       c->output.directory);
	return manager_catalog_timer(m);
}

int manager_start_recorder(struct manager *m)
{
	const struct conf *c = m->conf;
	int r;

	r = priv_check_root(c);
	if (r < 0)
		return r;
	if (c->realtime.lock_memory)
		m->memory_locked = priv_lock_memory();
	r = kmodules_start(c, &m->kmodules);
	if (r < 0)
		return r;
	r = check_abi(m);
	if (r < 0)
		return r;
	r = open_catalog(m);
	if (r < 0)
		return r;
	r = recorder_new(m->event, c, manager_on_recorder, m, &m->recorder);
	if (r < 0)
		return r;
	return recorder_start(m->recorder, catalog_next_id(m->catalog));
}
