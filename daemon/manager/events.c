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
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <json-c/json.h>

#include "fsutil.h"
#include "kernel.h"
#include "log.h"
#include "manager.h"
#include "thread.h"

/*
 * A cause as a log line with journal fields, by its kind: a kernel alert's task and delay, a
 * request's client, a peer's task and delay on its origin (a thread id there, no pid, and
 * the origin and incident that say where).
 */
static void log_cause(int prio, const struct cause *c, uint64_t id, const char *what)
{
	char tracker[64], task[48], comm[48], delay[48], sid[48];
	char origin[PROTO_FLEET_NAME_MAX + 16], incident[PROTO_FLEET_INCIDENT_MAX + 16];
	char t[LATENCY_TRACKER_NAME_LEN + 1], n[LATENCY_TRACKER_COMM_LEN + 1];
	const struct proto_fleet_alert *a = &c->peer.alert;
	const char *reason = c->kind == CAUSE_ALERT ? cause_alert_reason(&c->alert) : "";
	bool discarded = strcmp(reason, PROTO_REASON_DISCARDED) == 0;
	bool timeout = strcmp(reason, PROTO_REASON_TIMEOUT) == 0;
	const char *fields[9];
	size_t k = 0;

	cause_tracker(c, t);
	cause_comm(c, n);
	snprintf(tracker, sizeof(tracker), "TRACKER=%s", t);
	snprintf(comm, sizeof(comm), "COMM=%s", n);
	snprintf(sid, sizeof(sid), "SNAPSHOT_ID=%" PRIu64, id);
	if (c->kind == CAUSE_PEER) {
		snprintf(task, sizeof(task), "TID=%" PRId64, a->tid);
		snprintf(delay, sizeof(delay), "DELAY_NS=%" PRIu64, a->delay_ns);
		snprintf(origin, sizeof(origin), "ORIGIN=%s", a->host);
		snprintf(incident, sizeof(incident), "INCIDENT=%s", a->incident);
	} else {
		snprintf(task, sizeof(task), "PID=%d",
			 (int)(c->kind == CAUSE_ALERT ? c->alert.pid : c->manual.pid));
		snprintf(delay, sizeof(delay), "DELAY_NS=%" PRIu64,
			 c->kind == CAUSE_ALERT ? (uint64_t)c->alert.delay_ns : 0);
	}
	/* With a snapshot id: an alert that got one; without, one the rate limit refused. */
	fields[k++] = id ? LOG_MID_ALERT : LOG_MID_REFUSED;
	fields[k++] = tracker;
	fields[k++] = task;
	fields[k++] = comm;
	fields[k++] = delay;
	if (id)
		fields[k++] = sid;
	if (c->kind == CAUSE_PEER) {
		fields[k++] = origin;
		fields[k++] = incident;
	}
	fields[k] = NULL;
	if (c->kind == CAUSE_PEER)
		log_fields(prio, fields,
			   "alert from tracker %s: tid %" PRId64 " (%s) %" PRIu64
			   " ns on %s, incident %s (tracker %s there): %s",
			   t, a->tid, n, a->delay_ns, a->host, a->incident, a->tracker, what);
	else if (c->kind == CAUSE_ALERT)
		log_fields(prio, fields,
			   "alert from tracker %s: pid %d (%s) %s%" PRIu64 " ns%s: %s", t,
			   (int)c->alert.pid, n, discarded ? "at least " : "",
			   (uint64_t)c->alert.delay_ns,
			   discarded ? " (discarded as stale, its end never seen)"
			   : timeout ? " (timeout, still pending)"
				     : "",
			   what);
	else
		log_fields(prio, fields, "alert from tracker %s: pid %d (%s) 0 ns: %s", t,
			   (int)c->manual.pid, n, what);
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
	struct catalog_entry *e = arg;
	struct catalog_disk *grown = realloc(e->disks, (e->n_disks + 1) * sizeof(*grown));
	int r = 0;

	if (!grown)
		return;
	e->disks = grown;
	grown[e->n_disks] =
		(struct catalog_disk){catalog_strdup(dev, &r), catalog_strdup(name, &r)};
	if (r < 0) {
		free(grown[e->n_disks].dev);
		free(grown[e->n_disks].name);
		return;
	}
	e->n_disks++;
}

/* relayd's changes of state: once when it fails, once when it answers again. */
static void log_relayd(struct manager *m, const struct recorder_snapshot *s)
{
	const struct flight_record *rec = s->rec;
	uint64_t now = now_ns(), id = s->entry->id;

	if (rec->relayd_slow)
		log_warnx("snapshot %" PRIu64 " went to lttng-relayd, but %s: the next records go "
			  "to the local directory; relayd is tried again in %.1fs",
			  id, flight_record_why(rec),
			  rec->retry_ns > now ? (double)(rec->retry_ns - now) / 1e9 : 0.0);
	else if (rec->relayd_down)
		log_warnx("snapshot %" PRIu64 ": %s; %s; relayd is tried again in %.1fs", id,
			  flight_record_why(rec),
			  rec->fell_back ? "recording to the local directory instead"
					 : "no local fallback (output.fallback_local is false)",
			  rec->retry_ns > now ? (double)(rec->retry_ns - now) / 1e9 : 0.0);
	else if (rec->relayd_skipped)
		log_info("snapshot %" PRIu64 " not sent to lttng-relayd, %s", id,
			 flight_record_why(rec));
	else if (rec->relayd_back)
		log_info("lttng-relayd at %s answers again: snapshot %" PRIu64 " went to it",
			 s->entry->url ? s->entry->url : "(unknown)", id);
}

/* Where snapshot E went, for the log: never empty, even when it is not known. */
static const char *snapshot_place(const struct catalog_entry *e, char *buf, size_t size)
{
	if (e->path)
		snprintf(buf, size, "at %s", e->path);
	else if (e->url && e->url[0])
		snprintf(buf, size, "to %s", e->url);
	else
		snprintf(buf, size, "at an unknown place (its directory was not found)");
	return buf;
}

/* The record's outcome, then a line per cause (with journal fields). */
static void log_snapshot(struct manager *m, const struct recorder_snapshot *s)
{
	const struct catalog_entry *e = s->entry;
	char place[PATH_MAX + 64];

	log_relayd(m, s);
	if (s->error < 0)
		log_warnx("snapshot %" PRIu64 " failed: %s%s%s%s%s", e->id,
			  flight_strerror(s->error), s->disk_full ? " (no space left in " : "",
			  s->disk_full ? s->directory : "", s->disk_full ? ")" : "",
			  e->path ? "; its partial output stays in the catalog" : "");
	for (size_t i = 0; i < s->n; i++)
		log_cause(i == 0 ? LOG_NOTICE : LOG_INFO, &s->causes[i], e->id,
			  i == 0 ? "snapshot" : "joins the snapshot");
	if (s->error >= 0) {
		char sid[48];

		snprintf(sid, sizeof(sid), "SNAPSHOT_ID=%" PRIu64, e->id);
		log_fields(LOG_INFO, (const char *const[]){LOG_MID_SNAPSHOT, sid, NULL},
			   "snapshot %" PRIu64 " %s in %" PRIu64 " us, %" PRIu64
			   " us after detection, %zu cause(s)%s",
			   e->id, snapshot_place(e, place, sizeof(place)), e->record_ns / 1000,
			   e->detect_to_record_ns / 1000, s->n,
			   e->fell_back ? " (relayd failed: fell back to local)" : "");
	}
}

/* The recorder's entry, with the stacks named and the disks' names, joins the catalog. */
static void on_snapshot(struct manager *m, const struct recorder_snapshot *s)
{
	struct catalog_entry *e;
	struct json_object *view;
	uint64_t id = s->entry->id;

	if (!m->ksyms)
		m->ksyms = ksyms_cache_new(KSYMS_PATH, KSYMS_MODULES_PATH);
	manager_stacks_add(s->entry, s->causes, s->n, m->ksyms, KSYMS_PATH, KSYMS_RESTRICT_PATH);
	/* The names the analysis gives the block events' device numbers (the trace has none). */
	kernel_disks(KERNEL_DISKS_DIR, add_disk, s->entry);
	log_snapshot(m, s);
	manager_fleet_snapshot(m, s);
	e = catalog_insert(m->catalog, s->entry);
	if (!e) {
		log_warnx("snapshot %" PRIu64 " left out of the catalog: %s", id,
			  errno == EEXIST
				  ? "the catalog has an entry of its id already, kept as it "
				    "is (a second entry would share its directory)"
			  : errno == ERANGE ? "every snapshot id has been handed out"
					    : "out of memory");
		return;
	}
	/* Before retention, which may delete this very entry (a snapshot larger than max_bytes,
	 * or older ones that cannot be deleted): the watchers still hear of the record. */
	view = catalog_entry_to_json(e, CATALOG_FORM_VIEW, CATALOG_VIEW_CAUSES);
	manager_catalog_update(m);
	if (view) {
		/* As show-snapshot: within one frame, with the event's envelope. */
		catalog_view_fit(view, PROTO_PAYLOAD_BUDGET);
		control_broadcast(m->control, PROTO_EVENT_SNAPSHOT, view);
	}
	json_object_put(view);
}

/* One event per batch of a tracker's suppressed alerts: the first, and how many. */
static void on_suppressed(struct manager *m, const struct cause *first, size_t n)
{
	struct catalog_cause alert;
	struct json_object *data = json_object_new_object();
	char tracker[LATENCY_TRACKER_NAME_LEN + 1];
	bool kept = cause_to_catalog(first, &alert) == 0;

	cause_tracker(first, tracker);
	/* A peer's: said with the window's other refusals, in one line (answers.c). */
	if (first->kind == CAUSE_PEER)
		manager_fleet_refused(m, first);
	else
		log_cause(LOG_INFO, first, 0, "suppressed by the rate limit");
	if (n > 1)
		log_info("%zu more alerts from tracker %s suppressed by the rate limit", n - 1,
			 tracker);
	if (data && kept) {
		json_object_object_add(data, PROTO_KEY_ALERT, catalog_cause_to_json(&alert));
		json_object_object_add(data, PROTO_KEY_ALERTS, json_object_new_int64((int64_t)n));
		control_broadcast(m->control, PROTO_EVENT_SUPPRESSED, data);
	}
	json_object_put(data);
	catalog_add_suppressed(m->catalog, tracker, kept ? &alert : NULL, n);
	if (kept)
		catalog_cause_free(&alert);
	manager_catalog_changed(m);
}

static void log_history(const struct recorder_history *j, const char *what)
{
	if (j->sampled)
		/* A few packets per CPU: their span is not the buffers' window, their rate is. */
		log_info("history of %s (a sample of the buffers): %.0f events/s x %.1f bytes on "
			 "the busiest CPU: %" PRIu64 " KiB per CPU hold about %" PRIu64 " ms",
			 what, j->h->events_per_sec, j->h->bytes_per_event, j->capacity / 1024,
			 j->expected_ns / 1000000);
	else
		log_info("history of %s: complete over the last %" PRIu64 " ms%s; %.0f events/s x "
			 "%.1f bytes on the busiest CPU: %" PRIu64
			 " KiB per CPU hold about %" PRIu64 " ms",
			 what, j->h->window_ns / 1000000,
			 j->h->wrapped ? ""
				       : " (buffers not full yet: all since the session started)",
			 j->h->events_per_sec, j->h->bytes_per_event, j->capacity / 1024,
			 j->expected_ns / 1000000);
}

/* A measured history joins its snapshot's entry; status shows the latest, without its
 * streams. */
static void on_history(struct manager *m, const struct recorder_history *j)
{
	struct catalog_history *h = j->entry; /* taken */
	struct catalog_entry *e = j->id ? catalog_find(m->catalog, j->id) : NULL;
	struct json_object *shown;
	char what[48];

	if (j->id)
		snprintf(what, sizeof(what), "snapshot %" PRIu64, j->id);
	else
		snprintf(what, sizeof(what), "the calibration snapshot");
	if (j->error && j->id && !e)
		/* Deleted (retention, delete-snapshot) while it was being read. */
		log_debug("history of %s not measured: deleted meanwhile", what);
	else if (j->error)
		log_warnx("cannot measure the history of %s: %s", what, j->err);
	else
		log_history(j, what);
	if (j->error || !h) {
		catalog_history_free(h); /* NULL: nothing */
		return;
	}
	shown = catalog_history_to_json(h);
	if (e) {
		catalog_history_free(e->history);
		e->history = h;
		manager_catalog_changed(m);
	} else {
		catalog_history_free(h);
	}
	if (!shown)
		return;
	json_object_object_del(shown, PROTO_KEY_STREAMS);
	json_object_object_add(shown, PROTO_KEY_SOURCE,
			       json_object_new_string(j->id ? "snapshot" : "calibration"));
	if (j->id)
		json_object_object_add(shown, PROTO_KEY_ID, json_object_new_int64((int64_t)j->id));
	json_object_put(m->last_history);
	m->last_history = shown;
}

/* The analysis of a snapshot: it joins the snapshot's entry if it is still there. */
static void on_analysis(struct manager *m, uint64_t id, struct catalog_analysis *summary)
{
	struct catalog_entry *e = catalog_find(m->catalog, id);

	if (!e || !summary) {
		catalog_analysis_free(summary); /* deleted meanwhile (retention, delete-snapshot) */
		return;
	}
	catalog_analysis_free(e->analysis);
	e->analysis = summary;
	manager_catalog_changed(m);
}

/*
 * The block devices' names into the kernel session just started, through the module
 * (device_names), so that each snapshot names its host's disks wherever it is read.
 */
static void announce_devices(struct manager *m)
{
	uint64_t now = 0;
	int n = kdisks_announce(m->sysfs_root, &now);

	if (n == -ENOENT)
		log_info("the latency_tracker module has no device_names (ABI before 1.5): "
			 "snapshots read on another host name disks by number");
	else if (n < 0)
		log_warn_errno(n, "cannot write the block devices' names to the module");
	m->devices_named = now;
	m->devices_announced = n >= 0;
}

/*
 * A disk that came after the session started (hot-plugged, a loop device): its name is
 * written too, after the record that saw the change, so the snapshots that follow name it.
 */
static void announce_new_devices(struct manager *m)
{
	if (!m->devices_announced || kdisks_signature(m->sysfs_root) == m->devices_named)
		return;
	log_info("the block devices changed: their names written again for the snapshots");
	announce_devices(m);
}

void manager_on_recorder(const struct recorder_event *ev, void *userdata)
{
	struct manager *m = userdata;

	switch (ev->kind) {
	case RECORDER_SNAPSHOT:
		on_snapshot(m, &ev->snapshot);
		announce_new_devices(m);
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
	case RECORDER_STALE:
		manager_fleet_stale(m, ev->stale);
		break;
	case RECORDER_SESSION:
		if (ev->session.kernel)
			announce_devices(m);
		break;
	case RECORDER_BLIND:
		/* Answering and pinging the watchdog while blind would hide it from systemd. */
		manager_stop_failed(m, "every realtime waiter thread stopped on an error (said "
				       "above): no alert can be read any more");
		break;
	}
}
