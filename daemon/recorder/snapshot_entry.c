// SPDX-License-Identifier: GPL-2.0-only
/*
 * What the recorder knows of a snapshot, as its catalog entry (catalog/entry.h): where it
 * went, how long it took, why, and later how much history it held. The manager adds what
 * only it can know and keeps the entry.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fsutil.h"
#include "proto.h"
#include "reader_result.h"
#include "recorder_internal.h"

static int causes_entry(const struct waiter_result *res, struct catalog_entry *e)
{
	int r;

	e->causes = calloc(res->n ? res->n : 1, sizeof(*e->causes));
	if (!e->causes)
		return -ENOMEM;
	for (size_t i = 0; i < res->n; i++) {
		r = cause_to_catalog(&res->causes[i], &e->causes[i]);
		if (r < 0)
			return r;
		e->n_causes++;
	}
	return 0;
}

/*
 * Where it is, or why there is none: a failed record keeps its partial output, and one
 * abandoned at a stop with none yet where sessiond may still write it. OUT: the output of
 * the session that recorded it (or of the settings in force, when no session did).
 */
static void where(const struct waiter_result *res, const struct flight_output *out,
		  const char *path, struct catalog_entry *e, int *r)
{
	const struct flight_record *rec = &res->rec;
	char relayd_path[PATH_MAX];

	if (res->error < 0) {
		e->status = CATALOG_FAILED;
		e->error = catalog_strdup(rec->relayd_error == res->error && !rec->fell_back
						  ? flight_record_why(rec)
						  : flight_strerror(res->error),
					  r);
		e->path = catalog_strdup(path, r);
		/*
		 * Not one never handed to a session (its own output unknown: none will come),
		 * nor one to relayd, whose late output would land on the relayd host.
		 */
		if (res->error == FLIGHT_ERR_ABANDONED && !path && res->output &&
		    !res->output->relayd_url)
			e->late_directory = catalog_strdup(res->output->local_dir, r);
	} else if (rec->to_relayd) {
		/* The files are on the relayd host: where they are there, as far as we know. */
		e->status = CATALOG_COMPLETE;
		e->url = catalog_strdup(out->relayd_url, r);
		if (rec->relayd_dir[0]) {
			snprintf(relayd_path, sizeof(relayd_path), "%s/%s-*", rec->relayd_dir,
				 res->name);
			e->relayd_path = catalog_strdup(relayd_path, r);
		}
	} else {
		e->status = CATALOG_COMPLETE;
		e->path = catalog_strdup(path, r);
		e->bytes = path ? dir_size(path) : 0;
	}
}

int snapshot_entry(const struct waiter_result *res, const struct flight_output *out,
		   const char *path, uint64_t detect_ns, struct catalog_entry *e)
{
	int r = 0;

	*e = (struct catalog_entry){
		.id = res->id,
		.time = (uint64_t)time(NULL),
		.detect_to_record_ns = detect_ns,
		.wakeup_to_record_ns = res->rec.start_ns - res->wakeup_ns,
		.record_ns = res->rec.duration_ns,
		.fell_back = res->rec.fell_back,
	};
	e->name = catalog_strdup(res->name, &r);
	e->incident = res->incident[0] ? catalog_strdup(res->incident, &r) : NULL;
	if (res->rec.fell_back)
		e->relayd_error = catalog_strdup(flight_record_why(&res->rec), &r);
	where(res, out, path, e, &r);
	if (r == 0)
		r = causes_entry(res, e);
	if (r < 0)
		catalog_entry_free(e);
	return r;
}

struct catalog_history *history_entry(const struct history_job *j, uint64_t expected_ns)
{
	const struct history *h = &j->h;
	struct catalog_history *o = reader_history_new(
		h, h->n < HISTORY_STREAMS_LISTED ? h->n : HISTORY_STREAMS_LISTED);

	if (!o)
		return NULL;
	o->sampled = j->sampled;
	o->window_ns = h->window_ns;
	o->wrapped = h->wrapped;
	o->events = h->events;
	o->bytes = h->bytes;
	o->events_per_sec = h->events_per_sec;
	o->bytes_per_event = h->bytes_per_event;
	o->time = j->time;
	o->buffer_bytes_per_cpu = j->capacity;
	o->expected_window_ns = expected_ns;
	return o;
}
