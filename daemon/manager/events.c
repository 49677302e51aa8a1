/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the flight recorder reports, as the rest of latencyd sees it: a snapshot becomes a
 * catalog entry, log lines (with journal fields) and an event for watching clients; so do
 * suppressed alerts and lost records; a measured history or an analysis joins its
 * snapshot's entry. The catalog is saved at once for a snapshot; the rest, which an alert
 * storm changes many times a second, reaches the file at most once a second (save.c).
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <json-c/json.h>

#include "fsutil.h"
#include "kernel.h"
#include "log.h"
#include "manager.h"
#include "thread.h"

static void log_cause(int prio, const struct cause *c, uint64_t id, const char *what)
{
	char tracker[64], pid[32], comm[48], delay[48], sid[48];
	/* With a snapshot id: an alert that got one; without, one the rate limit refused. */
	const char *fields[] = {id ? LOG_MID_ALERT : LOG_MID_REFUSED,
				tracker,
				pid,
				comm,
				delay,
				id ? sid : NULL,
				NULL};
	char t[LATENCY_TRACKER_NAME_LEN + 1], n[LATENCY_TRACKER_COMM_LEN + 1];
	pid_t p = c->kind == CAUSE_ALERT ? c->alert.pid : c->manual.pid;
	uint64_t d = c->kind == CAUSE_ALERT ? c->alert.delay_ns : 0;

	cause_tracker(c, t);
	cause_comm(c, n);
	snprintf(tracker, sizeof(tracker), "TRACKER=%s", t);
	snprintf(pid, sizeof(pid), "PID=%d", p);
	snprintf(comm, sizeof(comm), "COMM=%s", n);
	snprintf(delay, sizeof(delay), "DELAY_NS=%" PRIu64, d);
	snprintf(sid, sizeof(sid), "SNAPSHOT_ID=%" PRIu64, id);
	log_fields(prio, fields, "alert from tracker %s: pid %d (%s) %" PRIu64 " ns: %s", t, p, n,
		   d, what);
}

/* Sends event NAME with {key: val} (val taken) to watching clients. */
static void broadcast(struct manager *m, const char *event, const char *key,
		      struct json_object *val)
{
	struct json_object *data = json_object_new_object();

	if (data && val) {
		json_object_object_add(data, key, val);
		control_broadcast(m->control, event, data);
	} else {
		json_object_put(val);
	}
	json_object_put(data);
}

static void add_disk(const char *dev, const char *name, void *arg)
{
	json_object_object_add(arg, dev, json_object_new_string(name));
}

/* The names the analysis gives the block events' device numbers (the trace has none). */
static void add_disks(struct json_object *entry)
{
	struct json_object *disks = json_object_new_object();

	if (disks && kernel_disks(KERNEL_DISKS_DIR, add_disk, disks) > 0)
		json_object_object_add(entry, PROTO_KEY_DISKS, disks);
	else
		json_object_put(disks);
}

/* Why relayd did not get a snapshot: the recorder's sentence, else LTTng's error. */
static const char *relayd_error(const struct flight_record *rec)
{
	return rec->relayd_why[0] ? rec->relayd_why : flight_strerror(rec->relayd_error);
}

/* relayd's changes of state: once when it fails, once when it answers again. */
static void log_relayd(struct manager *m, const struct recorder_snapshot *s)
{
	const struct flight_record *rec = s->rec;
	uint64_t now = now_ns();

	if (rec->relayd_slow)
		log_warnx("snapshot %" PRIu64 " went to lttng-relayd, but %s: the next records go "
			  "to the local directory; relayd is tried again in %.1fs",
			  s->id, relayd_error(rec),
			  rec->retry_ns > now ? (double)(rec->retry_ns - now) / 1e9 : 0.0);
	else if (rec->relayd_down)
		log_warnx("snapshot %" PRIu64 ": %s; %s; relayd is tried again in %.1fs", s->id,
			  relayd_error(rec),
			  rec->fell_back ? "recording to the local directory instead"
					 : "no local fallback (output.fallback_local is false)",
			  rec->retry_ns > now ? (double)(rec->retry_ns - now) / 1e9 : 0.0);
	else if (rec->relayd_skipped)
		log_info("snapshot %" PRIu64 " not sent to lttng-relayd, %s", s->id,
			 relayd_error(rec));
	else if (rec->relayd_back)
		log_info("lttng-relayd at %s answers again: snapshot %" PRIu64 " went to it",
			 m->conf->output.relayd, s->id);
}

static void on_snapshot(struct manager *m, const struct recorder_snapshot *s)
{
	const struct conf *c = m->conf;
	struct json_object *e = catalog_add_entry(m->catalog, s->id), *causes, *view;
	int r = 0;

	if (!e)
		return;
	causes = json_object_new_array();
	for (size_t i = 0; causes && i < s->n; i++)
		json_object_array_add(causes, cause_json(&s->causes[i]));
	if (causes)
		manager_stacks_add(causes, s->causes, s->n, KSYMS_PATH, KSYMS_RESTRICT_PATH);
	json_object_object_add(e, PROTO_KEY_TIME, json_object_new_int64((int64_t)time(NULL)));
	json_object_object_add(e, PROTO_KEY_NAME, json_object_new_string(s->name));
	json_object_object_add(e, PROTO_KEY_CAUSES, causes);
	add_disks(e);
	if (s->incident)
		json_object_object_add(e, PROTO_KEY_INCIDENT, json_object_new_string(s->incident));
	json_object_object_add(e, PROTO_KEY_DETECT_TO_RECORD_NS,
			       json_object_new_int64((int64_t)s->detect_ns));
	json_object_object_add(e, PROTO_KEY_WAKEUP_TO_RECORD_NS,
			       json_object_new_int64((int64_t)s->wakeup_to_record_ns));
	json_object_object_add(e, PROTO_KEY_RECORD_NS,
			       json_object_new_int64((int64_t)s->rec->duration_ns));
	if (s->rec->fell_back) {
		json_object_object_add(e, PROTO_KEY_FELL_BACK, json_object_new_boolean(1));
		json_object_object_add(e, PROTO_KEY_RELAYD_ERROR,
				       json_object_new_string(relayd_error(s->rec)));
	}
	log_relayd(m, s);
	if (s->error < 0) {
		json_object_object_add(e, PROTO_KEY_STATUS,
				       json_object_new_string(PROTO_SNAP_FAILED));
		json_object_object_add(e, PROTO_KEY_ERROR,
				       json_object_new_string(s->rec->relayd_error == s->error &&
									      !s->rec->fell_back
								      ? relayd_error(s->rec)
								      : flight_strerror(s->error)));
		if (s->path)
			json_object_object_add(e, PROTO_KEY_PATH, json_object_new_string(s->path));
		log_warnx("snapshot %" PRIu64 " failed: %s%s%s%s%s", s->id,
			  flight_strerror(s->error), s->disk_full ? " (no space left in " : "",
			  s->disk_full ? c->output.directory : "", s->disk_full ? ")" : "",
			  s->path ? "; its partial output stays in the catalog" : "");
	} else if (s->rec->to_relayd) {
		/* The files are on the relayd host: where they are there, as far as we know. */
		json_object_object_add(e, PROTO_KEY_URL, json_object_new_string(c->output.relayd));
		if (s->rec->relayd_dir[0]) {
			char where[PATH_MAX];

			snprintf(where, sizeof(where), "%s/%s-*", s->rec->relayd_dir, s->name);
			json_object_object_add(e, PROTO_KEY_RELAYD_PATH,
					       json_object_new_string(where));
		}
		json_object_object_add(e, PROTO_KEY_STATUS,
				       json_object_new_string(PROTO_SNAP_COMPLETE));
	} else {
		if (s->path) {
			json_object_object_add(e, PROTO_KEY_PATH, json_object_new_string(s->path));
			json_object_object_add(e, PROTO_KEY_BYTES,
					       json_object_new_int64((int64_t)dir_size(s->path)));
		}
		json_object_object_add(e, PROTO_KEY_STATUS,
				       json_object_new_string(PROTO_SNAP_COMPLETE));
	}
	for (size_t i = 0; i < s->n; i++)
		log_cause(i == 0 ? LOG_NOTICE : LOG_INFO, &s->causes[i], s->id,
			  i == 0 ? "snapshot" : "joins the snapshot");
	if (s->error >= 0) {
		char sid[48];

		snprintf(sid, sizeof(sid), "SNAPSHOT_ID=%" PRIu64, s->id);
		log_fields(LOG_INFO, (const char *const[]){LOG_MID_SNAPSHOT, sid, NULL},
			   "snapshot %" PRIu64 " %s%s in %" PRIu64 " us, %" PRIu64
			   " us after detection, %zu cause(s)%s",
			   s->id, s->path ? "at " : "to ", s->path ? s->path : c->output.relayd,
			   s->rec->duration_ns / 1000, s->detect_ns / 1000, s->n,
			   s->rec->fell_back ? " (relayd failed: fell back to local)" : "");
	}
	manager_fleet_snapshot(m, s);
	manager_catalog_update(m);
	view = catalog_entry_view(e, CATALOG_VIEW_CAUSES, &r);
	if (r >= 0 && view)
		control_broadcast(m->control, PROTO_EVENT_SNAPSHOT, view);
	json_object_put(view);
}

/* One event per batch of a tracker's suppressed alerts: the first, and how many. */
static void on_suppressed(struct manager *m, const struct cause *first, size_t n)
{
	struct json_object *alert = cause_json(first), *data = json_object_new_object();
	char tracker[LATENCY_TRACKER_NAME_LEN + 1];

	cause_tracker(first, tracker);
	/* A peer's: said with the window's other refusals, in one line (answers.c). */
	if (first->kind == CAUSE_PEER)
		manager_fleet_refused(m, first);
	else
		log_cause(LOG_INFO, first, 0, "suppressed by the rate limit");
	if (n > 1)
		log_info("%zu more alerts from tracker %s suppressed by the rate limit", n - 1,
			 tracker);
	if (data) {
		json_object_object_add(data, PROTO_KEY_ALERT, json_object_get(alert));
		json_object_object_add(data, PROTO_KEY_ALERTS, json_object_new_int64((int64_t)n));
		control_broadcast(m->control, PROTO_EVENT_SUPPRESSED, data);
	}
	json_object_put(data);
	catalog_add_suppressed(m->catalog, tracker, alert);
	for (size_t i = 1; i < n; i++)
		catalog_add_suppressed(m->catalog, tracker, NULL);
	manager_catalog_changed(m);
}

static void on_history(struct manager *m, const struct recorder_history *j)
{
	struct json_object *h, *e;
	char what[48];

	if (j->id)
		snprintf(what, sizeof(what), "snapshot %" PRIu64, j->id);
	else
		snprintf(what, sizeof(what), "the calibration snapshot");
	if (j->error && j->id && !catalog_find(m->catalog, j->id)) {
		/* Deleted (retention, delete-snapshot) while it was being read. */
		log_debug("history of %s not measured: deleted meanwhile", what);
		return;
	}
	if (j->error) {
		log_warnx("cannot measure the history of %s: %s", what, j->err);
		return;
	}
	h = history_to_json(j->h);
	if (!h)
		return;
	json_object_object_add(h, PROTO_KEY_TIME, json_object_new_int64((int64_t)j->time));
	json_object_object_add(h, PROTO_KEY_BUFFER_BYTES_PER_CPU,
			       json_object_new_int64((int64_t)j->capacity));
	json_object_object_add(h, PROTO_KEY_EXPECTED_WINDOW_NS,
			       json_object_new_int64((int64_t)j->expected_ns));
	if (j->sampled) {
		/* A few packets per CPU: their span is not the buffers' window, their rate is. */
		json_object_object_del(h, PROTO_KEY_WINDOW_NS);
		json_object_object_del(h, PROTO_KEY_WRAPPED);
		json_object_object_add(h, PROTO_KEY_SAMPLED, json_object_new_boolean(1));
		log_info("history of %s (a sample of the buffers): %.0f events/s x %.1f bytes on "
			 "the busiest CPU: %" PRIu64 " KiB per CPU hold about %" PRIu64 " ms",
			 what, j->h->events_per_sec, j->h->bytes_per_event, j->capacity / 1024,
			 j->expected_ns / 1000000);
	} else {
		log_info("history of %s: complete over the last %" PRIu64 " ms%s; %.0f events/s x "
			 "%.1f bytes on the busiest CPU: %" PRIu64
			 " KiB per CPU hold about %" PRIu64 " ms",
			 what, j->h->window_ns / 1000000,
			 j->h->wrapped ? ""
				       : " (buffers not full yet: all since the session started)",
			 j->h->events_per_sec, j->h->bytes_per_event, j->capacity / 1024,
			 j->expected_ns / 1000000);
	}
	e = j->id ? catalog_find(m->catalog, j->id) : NULL;
	if (e) {
		struct json_object *copy = NULL;

		json_object_object_add(e, PROTO_KEY_HISTORY, json_object_get(h));
		manager_catalog_changed(m);
		/* status shows the measurement without the streams: a copy, for the catalog
		 * entry keeps its own (a later save would write the edits). */
		json_object_deep_copy(h, &copy, NULL);
		json_object_put(h);
		h = copy;
		if (!h)
			return;
	}
	json_object_object_del(h, PROTO_KEY_STREAMS);
	json_object_object_add(h, PROTO_KEY_SOURCE,
			       json_object_new_string(j->id ? "snapshot" : "calibration"));
	if (j->id)
		json_object_object_add(h, PROTO_KEY_ID, json_object_new_int64((int64_t)j->id));
	json_object_put(m->last_history);
	m->last_history = h;
}

/* The analysis of a snapshot: it joins the snapshot's entry if it is still there. */
static void on_analysis(struct manager *m, uint64_t id, struct json_object *summary)
{
	struct json_object *e = catalog_find(m->catalog, id);

	if (!e || !summary) {
		json_object_put(summary); /* deleted meanwhile (retention, delete-snapshot) */
		return;
	}
	json_object_object_add(e, PROTO_KEY_ANALYSIS, summary);
	manager_catalog_changed(m);
}

void manager_on_recorder(const struct recorder_event *ev, void *userdata)
{
	struct manager *m = userdata;

	switch (ev->kind) {
	case RECORDER_SNAPSHOT:
		on_snapshot(m, &ev->snapshot);
		break;
	case RECORDER_SUPPRESSED:
		on_suppressed(m, ev->suppressed.first, ev->suppressed.n);
		break;
	case RECORDER_LOST:
		log_warnx("missed %" PRIu64 " alert records (reader too slow)", ev->lost);
		broadcast(m, PROTO_EVENT_LOST, PROTO_KEY_LOST,
			  json_object_new_int64((int64_t)ev->lost));
		manager_catalog_changed(m);
		break;
	case RECORDER_HISTORY:
		on_history(m, &ev->history);
		break;
	case RECORDER_ANALYSIS:
		on_analysis(m, ev->analysis.id, ev->analysis.summary);
		break;
	case RECORDER_ADMITTED:
		manager_fleet_publish(m, ev->admitted.incident, ev->admitted.cause);
		break;
	}
}
