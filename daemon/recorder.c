// SPDX-License-Identifier: GPL-2.0-only
/*
 * The flight recorder as the main loop sees it. At start: the privilege check, memory
 * locking, the kernel modules, the catalog, the LTTng session and the realtime waiter
 * (waiter.c). Then: a periodic check that re-creates the session when lttng-sessiond lost
 * it, and the waiter's results turned into log entries, catalog entries and retention.
 *
 * What a SIGHUP changes live: ratelimit.*, retention.*, log.*, control.* groups. Changes to
 * session.* or output.* re-create the session (the history recorded so far is lost).
 * module.*, realtime.*, catalog.directory and session.enabled need a restart.
 */
#include <errno.h>
#include <glob.h>
#include <signal.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>
#include <lttng/lttng.h>

#include "catalog.h"
#include "latencyd.h"

#define CHECK_USEC	   (3 * 1000000ULL)
/*
 * A catalog save writes the whole file and fsyncs it: a snapshot's entry is saved at once,
 * but suppressed counts, history windows and analyses, which a storm changes many times a
 * second, reach the file at most once per CATALOG_DELAY_USEC.
 */
#define CATALOG_DELAY_USEC (1000000ULL)
#define SNAPSHOT_NAME	   "snap"
/*
 * Without an alert there is no snapshot to measure the history from: one calibration
 * snapshot this long after start gives status a window to show. Long enough for the
 * session's start-up to be past, short enough to answer soon after a (re)start.
 */
#define CALIBRATE_USEC	   (10 * 1000000ULL)
#define CALIBRATE_DIR	   "calibration"

/* Manual records waiting for their snapshot (latencyctl record); more are refused (busy). */
#define MANUAL_MAX 16

struct recorder {
	struct manager *m;
	struct flight_slot slot;
	bool slot_init;
	struct waiter *waiter;
	struct history_worker *history; /* each local snapshot's history and analysis.auto */
	sd_event_source *results, *check, *measured, *calibrate;
	sd_event_source *save; /* a catalog save due (catalog_changed), off when none is */
	/* The last history measured (status.history.measured), NULL before the first one. */
	struct json_object *last_history;
	struct catalog *catalog;
	struct modload *modload;
	char *loaded[2 + TRACKER_COUNT]; /* modules we loaded, unloaded in reverse order */
	size_t n_loaded;
	char *state_path; /* RUNTIME_DIR/modules.json: loaded[], for a successor if we are killed */
	bool state_foreign; /* that file is another running latencyd's: leave it alone */
	bool rt, memory_locked;
	int session_error; /* last failure to create the session, 0 if none */
	/* From an alert's end to its record's start, of the last and the slowest snapshot. */
	int64_t detect_last_ns, detect_max_ns;
	unsigned recreated; /* times the session was re-created */
	/* Manual records (latencyctl record) in flight: their reasons, by request number. */
	struct manual_request {
		uint64_t seq;
		char *reason;
	} manual[MANUAL_MAX];
	uint64_t manual_seq;
};

static void catalog_changed(struct recorder *rc);

static int mkdir_p(const char *path, mode_t mode)
{
	char *p = strdup(path), *s;
	int r = 0;

	if (!p)
		return -ENOMEM;
	for (s = p + 1; r == 0; s++) {
		if (*s != '/' && *s != 0)
			continue;
		char c = *s;

		*s = 0;
		if (mkdir(p, mode) < 0 && errno != EEXIST)
			r = -errno;
		*s = c;
		if (!c)
			break;
	}
	free(p);
	return r;
}

static void settings_from(const struct conf *c, struct flight_settings *s)
{
	*s = (struct flight_settings){
		.session = c->session.name,
		.domain = (enum flight_domain)c->session.domain,
		.subbuf_size = c->session.subbuf_size,
		.num_subbuf = c->session.num_subbuf,
		.events = (const char *const *)c->session.events,
		.syscalls = c->session.syscalls,
		.local_dir = c->output.directory,
		.relayd_url = c->output.relayd[0] ? c->output.relayd : NULL,
		.fallback_local = c->output.fallback_local,
		.max_size = c->output.max_size,
	};
}

/* Under slot.lock: (re)creates the session. */
static int create_session(struct recorder *rc)
{
	struct flight_settings s;
	int r;

	settings_from(rc->m->conf, &s);
	flight_destroy(rc->slot.flight);
	rc->slot.flight = NULL;
	r = flight_create(&s, &rc->slot.flight);
	if (r < 0) {
		if (r != rc->session_error)
			log_warnx("cannot create LTTng session %s: %s", s.session,
				  flight_strerror(r));
		rc->session_error = r;
		return r;
	}
	rc->session_error = 0;
	if (flight_replaced(rc->slot.flight))
		log_warnx(
			"LTTng session %s was already there (left by a latencyd that was killed?): "
			"destroyed it and created it anew",
			s.session);
	log_info("LTTng %s session %s recording (%" PRIu64 " x %" PRIu64 " bytes per CPU), "
		 "snapshots to %s%s%s",
		 s.domain == FLIGHT_DOMAIN_KERNEL ? "kernel" : "userspace", s.session, s.num_subbuf,
		 s.subbuf_size, s.relayd_url ? s.relayd_url : s.local_dir,
		 s.relayd_url && s.fallback_local ? ", falling back to " : "",
		 s.relayd_url && s.fallback_local ? s.local_dir : "");
	return 0;
}

static int on_check(sd_event_source *s, uint64_t usec, void *userdata)
{
	struct recorder *rc = userdata;
	int r;

	/* The waiter is recording: the session is there, look again next time. */
	if (pthread_mutex_trylock(&rc->slot.lock) == 0) {
		r = rc->slot.flight ? flight_exists(rc->slot.flight) : 0;
		if (r == 0) {
			if (rc->slot.flight)
				log_warnx("LTTng session %s is gone (lttng-sessiond restarted?), "
					  "re-creating it",
					  rc->m->conf->session.name);
			if (create_session(rc) == 0)
				rc->recreated++;
		}
		pthread_mutex_unlock(&rc->slot.lock);
	}
	sd_event_source_set_time(s, usec + CHECK_USEC);
	return 0;
}

static void check_soon(struct recorder *rc)
{
	uint64_t now;

	if (sd_event_now(rc->m->event, CLOCK_MONOTONIC, &now) >= 0)
		sd_event_source_set_time(rc->check, now);
}

/* The record's strings, NUL-terminated whatever the writer put there. */
struct alert_names {
	char tracker[LATENCY_TRACKER_NAME_LEN + 1];
	char comm[LATENCY_TRACKER_COMM_LEN + 1];
};

static void names_of(const struct latency_tracker_record *a, struct alert_names *n)
{
	memcpy(n->tracker, a->tracker, LATENCY_TRACKER_NAME_LEN);
	n->tracker[LATENCY_TRACKER_NAME_LEN] = 0;
	memcpy(n->comm, a->comm, LATENCY_TRACKER_COMM_LEN);
	n->comm[LATENCY_TRACKER_COMM_LEN] = 0;
}

static struct json_object *alert_json(const struct latency_tracker_record *a)
{
	struct json_object *o = json_object_new_object(), *data = json_object_new_array();
	struct alert_names n;

	names_of(a, &n);
	json_object_object_add(o, "tracker", json_object_new_string(n.tracker));
	json_object_object_add(o, "reason",
			       json_object_new_string(a->reason == LATENCY_TRACKER_REASON_TIMEOUT
							      ? "timeout"
							      : "threshold"));
	json_object_object_add(o, "seq", json_object_new_int64((int64_t)a->seq));
	json_object_object_add(o, "pid", json_object_new_int(a->pid));
	json_object_object_add(o, "tid", json_object_new_int(a->tid));
	json_object_object_add(o, "comm", json_object_new_string(n.comm));
	json_object_object_add(o, "start_ns", json_object_new_int64((int64_t)a->start_ns));
	json_object_object_add(o, "end_ns", json_object_new_int64((int64_t)a->end_ns));
	json_object_object_add(o, "delay_ns", json_object_new_int64((int64_t)a->delay_ns));
	json_object_object_add(o, "threshold_ns", json_object_new_int64((int64_t)a->threshold_ns));
	for (int i = 0; i < LATENCY_TRACKER_DATA_WORDS; i++)
		json_object_array_add(data, json_object_new_int64((int64_t)a->data[i]));
	json_object_object_add(o, "data", data);
	return o;
}

static void log_alert(int prio, const struct latency_tracker_record *a, uint64_t id,
		      const char *what)
{
	char tracker[64], pid[32], comm[48], delay[48], sid[48];
	const char *fields[] = {tracker, pid, comm, delay, id ? sid : NULL, NULL};

	struct alert_names n;

	names_of(a, &n);
	snprintf(tracker, sizeof(tracker), "TRACKER=%s", n.tracker);
	snprintf(pid, sizeof(pid), "PID=%d", a->pid);
	snprintf(comm, sizeof(comm), "COMM=%s", n.comm);
	snprintf(delay, sizeof(delay), "DELAY_NS=%" PRIu64, (uint64_t)a->delay_ns);
	snprintf(sid, sizeof(sid), "SNAPSHOT_ID=%" PRIu64, id);
	log_fields(prio, fields, "alert from tracker %s: pid %d (%s) %" PRIu64 " ns: %s", n.tracker,
		   a->pid, n.comm, (uint64_t)a->delay_ns, what);
}

/* The newest DIR/NAME-* (LTTng appends the date and a counter). */
static char *find_snapshot(const char *dir, const char *name)
{
	char pattern[PATH_MAX];
	char *p = NULL;
	glob_t g;

	snprintf(pattern, sizeof(pattern), "%s/%s-*", dir, name);
	if (glob(pattern, GLOB_NOSORT, NULL, &g) == 0) {
		for (size_t i = 0; i < g.gl_pathc; i++)
			if (!p || strcmp(g.gl_pathv[i], p) > 0)
				p = g.gl_pathv[i];
		p = p ? strdup(p) : NULL;
	}
	globfree(&g);
	return p;
}

static bool session_gone(int err)
{
	return err == -LTTNG_ERR_SESS_NOT_FOUND || err == -LTTNG_ERR_NO_SESSIOND ||
	       err == -LTTNG_ERR_NO_SESSION || err == -LTTNG_ERR_FATAL;
}

/* The reason of manual request seq, taken out of the table ("" if unknown). */
static char *take_reason(struct recorder *rc, uint64_t seq)
{
	for (size_t i = 0; i < MANUAL_MAX; i++) {
		if (rc->manual[i].reason && rc->manual[i].seq == seq) {
			char *r = rc->manual[i].reason;

			rc->manual[i].reason = NULL;
			return r;
		}
	}
	return NULL;
}

static bool is_manual(const struct latency_tracker_record *a)
{
	return strncmp((const char *)a->tracker, WAITER_MANUAL_TRACKER, LATENCY_TRACKER_NAME_LEN) ==
	       0;
}

/* An alert as the catalog and the events carry it; a manual one with its request. */
static struct json_object *cause_json(struct recorder *rc, const struct latency_tracker_record *a)
{
	struct json_object *o = alert_json(a);
	char *reason;

	if (o && is_manual(a)) {
		reason = take_reason(rc, a->data[0]);
		json_object_object_add(o, PROTO_KEY_REASON, json_object_new_string("manual"));
		json_object_object_add(o, PROTO_KEY_REQUEST,
				       json_object_new_int64((int64_t)a->data[0]));
		json_object_object_add(o, PROTO_KEY_MESSAGE, json_object_new_string(reason ?: ""));
		free(reason);
	}
	return o;
}

int recorder_request(struct recorder *rc, const char *reason, pid_t pid, uint64_t *seq)
{
	size_t slot = MANUAL_MAX;
	int r;

	if (!rc->waiter)
		return -ENODEV;
	for (size_t i = 0; i < MANUAL_MAX; i++)
		if (!rc->manual[i].reason)
			slot = i;
	if (slot == MANUAL_MAX)
		return -EBUSY;
	rc->manual[slot].reason = strdup(reason);
	if (!rc->manual[slot].reason)
		return -ENOMEM;
	rc->manual[slot].seq = *seq = ++rc->manual_seq;
	r = waiter_request(rc->waiter, *seq, pid);
	if (r < 0) {
		free(rc->manual[slot].reason);
		rc->manual[slot].reason = NULL;
	}
	return r;
}

static void broadcast(struct recorder *rc, const char *event, const char *key,
		      struct json_object *val)
{
	struct json_object *data = json_object_new_object();

	if (data && val) {
		json_object_object_add(data, key, val);
		control_broadcast(rc->m->control, event, data);
	} else {
		json_object_put(val);
	}
	json_object_put(data);
}

static uint64_t buffer_bytes(const struct conf *c)
{
	return c->session.subbuf_size * c->session.num_subbuf;
}

/* The analysis of a snapshot is done: it joins the snapshot's entry if it is still there. */
static void on_analysed(struct recorder *rc, uint64_t id, struct json_object *summary)
{
	struct json_object *e = catalog_find(rc->catalog, id);

	if (!e) {
		json_object_put(summary); /* deleted meanwhile (retention, delete-snapshot) */
		return;
	}
	json_object_object_add(e, PROTO_KEY_ANALYSIS, summary);
	catalog_changed(rc);
}

/*
 * Queued for the normal-priority snapshot reader: its history window, and with
 * analysis.auto (live on SIGHUP) its analysis, in one pass.
 */
static void read_snapshot(struct recorder *rc, struct json_object *e, uint64_t id, const char *path)
{
	const struct conf *c = rc->m->conf;
	bool analyse = c->analysis.autorun;
	struct json_object *summary;
	int r;

	if (!rc->history)
		return;
	r = history_worker_submit(rc->history, id, path, buffer_bytes(c), c->session.subbuf_size,
				  &analyse);
	if (r < 0)
		log_warn_errno(r, "cannot measure the history of snapshot %" PRIu64, id);
	if (!c->analysis.autorun || (r == 0 && analyse))
		return;
	log_warnx("snapshot %" PRIu64 " not analysed: %s", id,
		  r == 0 ? "too many snapshots waiting for analysis" : strerror(-r));
	summary = json_object_new_object();
	json_object_object_add(summary, PROTO_KEY_STATUS, json_object_new_string("skipped"));
	json_object_object_add(e, PROTO_KEY_ANALYSIS, summary);
}

/* One event per batch of a tracker's suppressed alerts: the first, and how many. */
static void broadcast_suppressed(struct recorder *rc, struct json_object *alert, size_t n)
{
	struct json_object *data = json_object_new_object();

	if (data) {
		json_object_object_add(data, PROTO_KEY_ALERT, json_object_get(alert));
		json_object_object_add(data, PROTO_KEY_ALERTS, json_object_new_int64((int64_t)n));
		control_broadcast(rc->m->control, PROTO_EVENT_SUPPRESSED, data);
	}
	json_object_put(data);
}

static void on_snapshot(struct recorder *rc, const struct waiter_result *res)
{
	const struct conf *c = rc->m->conf;
	struct json_object *e = catalog_add_entry(rc->catalog, res->id), *causes;
	uint64_t detect = 0;
	char *path = NULL;

	if (!e)
		return;
	if (res->recs[0].end_ns && res->rec.start_ns > res->recs[0].end_ns)
		detect = res->rec.start_ns - res->recs[0].end_ns;
	rc->detect_last_ns = (int64_t)detect;
	if (rc->detect_last_ns > rc->detect_max_ns)
		rc->detect_max_ns = rc->detect_last_ns;
	causes = json_object_new_array();
	for (size_t i = 0; i < res->n; i++)
		json_object_array_add(causes, cause_json(rc, &res->recs[i]));
	json_object_object_add(e, "time", json_object_new_int64((int64_t)time(NULL)));
	json_object_object_add(e, "name", json_object_new_string(res->name));
	json_object_object_add(e, "causes", causes);
	json_object_object_add(e, "detect_to_record_ns", json_object_new_int64((int64_t)detect));
	json_object_object_add(
		e, "wakeup_to_record_ns",
		json_object_new_int64((int64_t)(res->rec.start_ns - res->wakeup_ns)));
	json_object_object_add(e, "record_ns",
			       json_object_new_int64((int64_t)res->rec.duration_ns));
	if (res->rec.fell_back) {
		json_object_object_add(e, "fell_back", json_object_new_boolean(1));
		json_object_object_add(
			e, "relayd_error",
			json_object_new_string(flight_strerror(res->rec.relayd_error)));
	}
	if (res->error < 0) {
		struct statvfs fs;
		char *partial = find_snapshot(c->output.directory, res->name);
		bool full = statvfs(c->output.directory, &fs) == 0 &&
			    (uint64_t)fs.f_bavail * fs.f_frsize <
				    c->session.subbuf_size * c->session.num_subbuf;

		json_object_object_add(e, "status", json_object_new_string(SNAP_FAILED));
		json_object_object_add(e, "error",
				       json_object_new_string(flight_strerror(res->error)));
		/* What a failed record wrote stays with its entry: retention deletes it. */
		if (partial)
			json_object_object_add(e, "path", json_object_new_string(partial));
		log_warnx("snapshot %" PRIu64 " failed: %s%s%s%s%s", res->id,
			  flight_strerror(res->error), full ? " (no space left in " : "",
			  full ? c->output.directory : "", full ? ")" : "",
			  partial ? "; its partial output stays in the catalog" : "");
		free(partial);
		if (session_gone(res->error))
			check_soon(rc);
	} else if (res->rec.to_relayd) {
		/* The files are on the relayd host: where they are there, as far as we know. */
		json_object_object_add(e, PROTO_KEY_URL, json_object_new_string(c->output.relayd));
		if (res->rec.relayd_dir[0]) {
			char where[PATH_MAX];

			snprintf(where, sizeof(where), "%s/%s-*", res->rec.relayd_dir, res->name);
			json_object_object_add(e, PROTO_KEY_RELAYD_PATH,
					       json_object_new_string(where));
		}
		json_object_object_add(e, "status", json_object_new_string(SNAP_COMPLETE));
	} else {
		path = find_snapshot(c->output.directory, res->name);
		if (path) {
			json_object_object_add(e, "path", json_object_new_string(path));
			json_object_object_add(e, "bytes",
					       json_object_new_int64((int64_t)dir_size(path)));
			read_snapshot(rc, e, res->id, path);
		}
		json_object_object_add(e, "status", json_object_new_string(SNAP_COMPLETE));
	}
	for (size_t i = 0; i < res->n; i++)
		log_alert(i == 0 ? LOG_NOTICE : LOG_INFO, &res->recs[i], res->id,
			  i == 0 ? "snapshot" : "joins the snapshot");
	if (res->error >= 0)
		log_info("snapshot %" PRIu64 " %s%s in %" PRIu64 " us, %" PRIu64
			 " us after detection, %zu cause(s)%s",
			 res->id, path ? "at " : "to ", path ? path : c->output.relayd,
			 res->rec.duration_ns / 1000, detect / 1000, res->n,
			 res->rec.fell_back ? " (relayd failed: fell back to local)" : "");
	free(path);
	if (rc->m->control) {
		int r = 0;
		struct json_object *view = snapshot_view(e, SNAPSHOT_VIEW_CAUSES, &r);

		if (r < 0) {
			json_object_put(view);
			view = NULL;
		}
		if (view) {
			control_broadcast(rc->m->control, PROTO_EVENT_SNAPSHOT, view);
			json_object_put(view);
		}
	}
}

/* Retention, then the catalog to disk. */
static void catalog_update(struct recorder *rc)
{
	const struct conf_retention *rt = &rc->m->conf->retention;
	const struct retention ret = {(unsigned)rt->max_count, rt->max_bytes, rt->max_age};
	int r;

	r = catalog_apply_retention(rc->catalog, &ret, (uint64_t)time(NULL));
	if (r > 0)
		log_info("retention: deleted %d snapshot(s)", r);
	else if (r < 0)
		log_warn_errno(r, "retention");
	if (rc->save)
		sd_event_source_set_enabled(rc->save, SD_EVENT_OFF);
	r = catalog_save(rc->catalog);
	if (r < 0)
		log_warn_errno(r, "cannot save the catalog");
}

static int on_save(sd_event_source *s, uint64_t usec, void *userdata)
{
	catalog_update(userdata);
	return 0;
}

/* The catalog changed in a way that may wait: saved within CATALOG_DELAY_USEC. */
static void catalog_changed(struct recorder *rc)
{
	uint64_t now;
	int on = SD_EVENT_OFF;

	if (rc->save && sd_event_source_get_enabled(rc->save, &on) >= 0 && on != SD_EVENT_OFF)
		return;
	if (!rc->save || sd_event_now(rc->m->event, CLOCK_MONOTONIC, &now) < 0 ||
	    sd_event_source_set_time(rc->save, now + CATALOG_DELAY_USEC) < 0 ||
	    sd_event_source_set_enabled(rc->save, SD_EVENT_ONESHOT) < 0)
		catalog_update(rc);
}

static int on_results(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
	struct recorder *rc = userdata;
	struct waiter_result *list = waiter_take_results(rc->waiter);
	bool snapshot = false;

	if (!list)
		return 0;
	for (struct waiter_result *res = list; res; res = res->next) {
		switch (res->kind) {
		case WAITER_SNAPSHOT:
			on_snapshot(rc, res);
			snapshot = true;
			break;
		case WAITER_SUPPRESSED: {
			struct alert_names n;

			struct json_object *alert = cause_json(rc, &res->recs[0]);

			names_of(&res->recs[0], &n);
			log_alert(LOG_INFO, &res->recs[0], 0, "suppressed by the rate limit");
			if (res->n > 1)
				log_info("%zu more alerts from tracker %s suppressed by the rate "
					 "limit",
					 res->n - 1, n.tracker);
			broadcast_suppressed(rc, alert, res->n);
			catalog_add_suppressed(rc->catalog, n.tracker, alert);
			for (size_t i = 1; i < res->n; i++)
				catalog_add_suppressed(rc->catalog, n.tracker, NULL);
			break;
		}
		case WAITER_LOST:
			log_warnx("missed %" PRIu64 " alert records (reader too slow)",
				  (uint64_t)res->recs[0].lost);
			broadcast(rc, PROTO_EVENT_LOST, PROTO_KEY_LOST,
				  json_object_new_int64((int64_t)res->recs[0].lost));
			break;
		}
	}
	waiter_result_free(list);
	if (snapshot)
		catalog_update(rc);
	else
		catalog_changed(rc);
	return 0;
}

static void on_measured(struct recorder *rc, struct history_job *j)
{
	struct json_object *h, *e;
	char what[48];
	uint64_t expected;

	if (j->id)
		snprintf(what, sizeof(what), "snapshot %" PRIu64, j->id);
	else
		snprintf(what, sizeof(what), "the calibration snapshot");
	if (j->error && j->id && !catalog_find(rc->catalog, j->id)) {
		/* Deleted (retention, delete-snapshot) while it was being read. */
		log_debug("history of %s not measured: deleted meanwhile", what);
		return;
	}
	if (j->error) {
		log_warnx("cannot measure the history of %s: %s", what, j->err);
		return;
	}
	expected = history_expected_ns(j->capacity, j->h.bytes_per_event, j->h.events_per_sec);
	h = history_to_json(&j->h);
	if (!h)
		return;
	json_object_object_add(h, PROTO_KEY_TIME, json_object_new_int64((int64_t)j->time));
	json_object_object_add(h, PROTO_KEY_BUFFER_BYTES_PER_CPU,
			       json_object_new_int64((int64_t)j->capacity));
	json_object_object_add(h, PROTO_KEY_EXPECTED_WINDOW_NS,
			       json_object_new_int64((int64_t)expected));
	log_info("history of %s: complete over the last %" PRIu64 " ms%s; %.0f events/s x %.1f "
		 "bytes on the busiest CPU: %" PRIu64 " KiB per CPU hold about %" PRIu64 " ms",
		 what, j->h.window_ns / 1000000,
		 j->h.wrapped ? "" : " (buffers not full yet: all since the session started)",
		 j->h.events_per_sec, j->h.bytes_per_event, j->capacity / 1024, expected / 1000000);
	e = j->id ? catalog_find(rc->catalog, j->id) : NULL;
	if (e) {
		json_object_object_add(e, PROTO_KEY_HISTORY, json_object_get(h));
		catalog_changed(rc);
	}
	/* status shows the measurement without the streams, and where it comes from: a copy,
	 * for the catalog entry keeps its own (a later save would write the edits). */
	if (e) {
		struct json_object *copy = NULL;

		json_object_deep_copy(h, &copy, NULL);
		json_object_put(h);
		h = copy;
		if (!h)
			return;
	}
	json_object_object_del(h, "streams");
	json_object_object_add(h, PROTO_KEY_SOURCE,
			       json_object_new_string(j->id ? "snapshot" : "calibration"));
	if (j->id)
		json_object_object_add(h, PROTO_KEY_ID, json_object_new_int64((int64_t)j->id));
	json_object_put(rc->last_history);
	rc->last_history = h;
}

static int on_history(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
	struct recorder *rc = userdata;
	struct history_job *list = history_worker_take(rc->history);

	for (struct history_job *j = list; j; j = j->next) {
		on_measured(rc, j);
		if (j->analysis)
			on_analysed(rc, j->id, j->analysis);
		j->analysis = NULL;
	}
	history_job_free(list);
	return 0;
}

/* Once, unless a snapshot was measured first; later if there is no session yet. */
static int on_calibrate(sd_event_source *s, uint64_t usec, void *userdata)
{
	struct recorder *rc = userdata;
	const struct conf *c = rc->m->conf;
	bool have_session = true;

	if (rc->last_history)
		return 0;
	if (pthread_mutex_trylock(&rc->slot.lock) == 0) {
		have_session = rc->slot.flight != NULL;
		pthread_mutex_unlock(&rc->slot.lock);
	}
	if (!have_session) {
		sd_event_source_set_time(s, usec + CALIBRATE_USEC);
		sd_event_source_set_enabled(s, SD_EVENT_ONESHOT);
		return 0;
	}
	log_debug("recording a calibration snapshot to measure the history window");
	if (history_worker_submit(rc->history, 0, NULL, buffer_bytes(c), c->session.subbuf_size,
				  NULL) < 0)
		log_warnx("cannot schedule the calibration snapshot");
	return 0;
}

/* The history worker, its results and the calibration timer. */
static int start_history(struct recorder *rc, uint64_t now)
{
	const struct conf *c = rc->m->conf;
	char scratch[PATH_MAX];
	int r;

	snprintf(scratch, sizeof(scratch), "%s/%s", c->catalog.directory, CALIBRATE_DIR);
	rm_tree(scratch); /* left by a crash during a calibration */
	r = history_worker_new(&rc->slot, scratch, &rc->history);
	if (r < 0)
		return log_warn_errno(r, "cannot start the snapshot reader thread");
	r = sd_event_add_io(rc->m->event, &rc->measured, history_worker_eventfd(rc->history),
			    EPOLLIN, on_history, rc);
	if (r >= 0)
		r = sd_event_add_time(rc->m->event, &rc->calibrate, CLOCK_MONOTONIC,
				      now + CALIBRATE_USEC, 0, on_calibrate, rc);
	if (r < 0)
		return log_warn_errno(r, "cannot watch the snapshot reader thread");
	sd_event_source_set_description(rc->measured, "history-results");
	sd_event_source_set_description(rc->calibrate, "history-calibration");
	return 0;
}

int recorder_new(struct manager *m, struct recorder **ret)
{
	struct recorder *rc = calloc(1, sizeof(*rc));
	int r;

	if (!rc)
		return -ENOMEM;
	rc->m = m;
	r = pi_mutex_init(&rc->slot.lock);
	if (r < 0) {
		free(rc);
		return r;
	}
	rc->slot_init = true;
	*ret = rc;
	return 0;
}

static void save_state(struct recorder *rc)
{
	int r = modload_state_write(rc->state_path, getpid(), rc->loaded, rc->n_loaded);

	if (r < 0)
		log_warn_errno(r,
			       "cannot write %s: if latencyd is killed, the next one will not "
			       "unload the modules it loaded",
			       rc->state_path);
}

static bool remember(struct recorder *rc, const char *name)
{
	if (rc->n_loaded == sizeof(rc->loaded) / sizeof(rc->loaded[0]) ||
	    !(rc->loaded[rc->n_loaded] = strdup(name)))
		return false;
	rc->n_loaded++;
	save_state(rc);
	return true;
}

/* Loads NAME unless it is there; a module we loaded is unloaded at exit. */
static int load_module(struct recorder *rc, const char *name, const char *params, bool required)
{
	bool loaded;
	int r;

	for (size_t i = 0; i < rc->n_loaded; i++)
		if (strcmp(rc->loaded[i], name) == 0)
			return 0; /* adopted */
	r = modload_load(rc->modload, name, params, &loaded);
	if (r == -ENOENT && !required) {
		log_debug("kernel module %s is not installed", name);
		return 0;
	}
	if (r < 0) {
		log_warnx("cannot load kernel module %s: %s%s", name, strerror(-r),
			  r == -ENOENT ? " (not installed? see modinfo)" : "");
		return r;
	}
	if (loaded) {
		remember(rc, name);
		log_info("loaded kernel module %s", name);
	}
	return 0;
}

static void module_names(const struct conf *c, char names[][64], size_t *n)
{
	*n = 0;
	snprintf(names[(*n)++], 64, "%s", c->module.name);
	for (size_t i = 0; i < TRACKER_COUNT; i++)
		snprintf(names[(*n)++], 64, "%s%s", LATENCY_TRACKER_TRACKER_MODULE_PREFIX,
			 tracker_names[i]);
	if (c->module.probe[0])
		snprintf(names[(*n)++], 64, "%s", c->module.probe);
}

/* Whether PID is a latencyd still running: not a zombie, not a process that got its pid. */
static bool latencyd_alive(pid_t pid)
{
	char path[64], stat[128] = "", *end;
	FILE *f;

	if (pid == getpid() || (kill(pid, 0) < 0 && errno != EPERM))
		return false;
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return false;
	if (!fgets(stat, sizeof(stat), f))
		stat[0] = 0;
	fclose(f);
	/* "PID (COMM) STATE ...": COMM may hold anything, so look from the last ')'. */
	end = strrchr(stat, ')');
	return end && end[1] == ' ' && end[2] != 'Z' && end[2] != 'X' &&
	       strncmp(strchr(stat, '(') ? strchr(stat, '(') + 1 : "", "latencyd)", 9) == 0;
}

/*
 * The modules a killed latencyd loaded are ours to unload now: the state file it left
 * names them. A live latencyd's file means another instance runs here: refuse to start.
 */
static int adopt_modules(struct recorder *rc)
{
	const struct conf *c = rc->m->conf;
	char names[2 + TRACKER_COUNT][64], **old = NULL, adopted[512] = "";
	size_t n_names, n_old = 0, len = 0;
	pid_t pid = 0;
	int r;

	r = modload_state_read(rc->state_path, &pid, &old, &n_old);
	if (r == -ENOENT)
		goto out_save;
	if (r < 0) {
		log_warnx("ignoring %s: %s", rc->state_path,
			  r == -EBADMSG ? "not a latencyd state file" : strerror(-r));
		goto out_save;
	}
	if (latencyd_alive(pid)) {
		log_warnx("latencyd %d is running (%s): not starting another one", (int)pid,
			  rc->state_path);
		rc->state_foreign = true;
		r = -EBUSY;
		goto out;
	}
	module_names(c, names, &n_names);
	for (size_t i = 0; rc->modload && i < n_old; i++) {
		bool ours = false;

		for (size_t k = 0; k < n_names && !ours; k++)
			ours = strcmp(old[i], names[k]) == 0;
		if (!ours || !modload_is_loaded(rc->modload, old[i]) || !remember(rc, old[i]))
			continue;
		if (len < sizeof(adopted))
			len += (size_t)snprintf(adopted + len, sizeof(adopted) - len, "%s%s",
						len ? ", " : "", old[i]);
	}
	if (rc->n_loaded)
		log_warnx("latencyd %d stopped without unloading the kernel modules it loaded "
			  "(killed?): %s; this instance takes them over and unloads them when it "
			  "stops",
			  (int)pid, adopted);
	else if (n_old && !rc->modload)
		log_warnx("latencyd %d left kernel modules loaded (see %s); module.load = false: "
			  "they stay",
			  (int)pid, rc->state_path);
out_save:
	save_state(rc);
	r = 0;
out:
	for (size_t i = 0; i < n_old; i++)
		free(old[i]);
	free(old);
	return r;
}

/*
 * The state file goes in the control socket's directory, /run/latencyd by default: a
 * runtime directory, configured with the socket, and gone at reboot with the modules.
 */
static int state_path_of(const struct conf *c, char **ret)
{
	const char *slash = strrchr(c->control.socket, '/');
	int len = slash ? (int)(slash - c->control.socket) : 1;

	char *dir;
	int r;

	if (asprintf(&dir, "%.*s", len, slash ? c->control.socket : ".") < 0)
		return -ENOMEM;
	r = dir[0] ? mkdir_p(dir, 0755) : 0;
	if (r < 0)
		log_warn_errno(r, "cannot create %s", dir);
	else if (asprintf(ret, "%s/modules.json", dir) < 0)
		r = -ENOMEM;
	free(dir);
	return r;
}

/*
 * The core, then every tracker (a disabled tracker registers no probe: loading it costs
 * nothing and lets latencyctl enable it), then the LTTng probe. A tracker the
 * configuration enables must be installed; the others may be missing. First, the modules
 * a killed instance left are taken over.
 */
static int load_modules(struct recorder *rc)
{
	const struct conf *c = rc->m->conf;
	char name[64];
	int r;

	r = load_module(rc, c->module.name, c->module.parameters, true);
	for (size_t i = 0; r >= 0 && i < TRACKER_COUNT; i++) {
		snprintf(name, sizeof(name), "%s%s", LATENCY_TRACKER_TRACKER_MODULE_PREFIX,
			 tracker_names[i]);
		r = load_module(rc, name, NULL, c->trackers[i].enabled);
		if (r < 0)
			log_warnx("trackers.%s.enabled = true needs module %s", tracker_names[i],
				  name);
	}
	if (r >= 0 && c->module.probe[0])
		r = load_module(rc, c->module.probe, NULL, true);
	return r;
}

int recorder_start(struct recorder *rc)
{
	const struct conf *c = rc->m->conf;
	bool recovered;
	uint64_t now;
	int r;

	if (conf_needs_root(c) && geteuid() != 0) {
		log_warnx("latencyd must run as root (session.domain = \"kernel\" or module.load "
			  "= true need it); only session.domain = \"userspace\" with module.load "
			  "= false runs unprivileged");
		return -EPERM;
	}
	if (c->realtime.lock_memory) {
		if (mlockall(MCL_CURRENT | MCL_FUTURE) < 0) {
			log_warn("cannot lock memory (realtime.lock_memory)");
			munlockall(); /* a failed mlockall() may leave MCL_FUTURE set */
		} else
			rc->memory_locked = true;
	}
	r = c->module.load ? modload_new(&rc->modload) : 0;
	if (r < 0)
		return log_warn_errno(r, "cannot initialise libkmod");
	r = state_path_of(c, &rc->state_path);
	if (r < 0)
		return r;
	r = adopt_modules(rc);
	if (r < 0)
		return r;
	if (c->module.load && (r = load_modules(rc)) < 0)
		return r;
	manager_refresh_module(rc->m);

	r = mkdir_p(c->output.directory, 0750);
	if (r < 0)
		return log_warn_errno(r, "cannot create %s", c->output.directory);
	r = catalog_open(c->catalog.directory, &rc->catalog, &recovered);
	if (r < 0)
		return log_warn_errno(r, "cannot open the catalog in %s", c->catalog.directory);
	if (recovered)
		log_warnx("catalog in %s recovered after a crash or corruption",
			  c->catalog.directory);
	r = catalog_adopt_orphans(rc->catalog, c->output.directory, SNAPSHOT_NAME);
	if (r > 0 && catalog_save(rc->catalog) < 0)
		log_warnx("cannot save the catalog in %s", c->catalog.directory);
	if (r > 0)
		log_warnx("%d snapshot(s) in %s were not in the catalog (latencyd stopped before "
			  "saving it); added with unknown causes",
			  r, c->output.directory);
	else if (r < 0)
		log_warn_errno(r, "cannot scan %s for snapshots missing from the catalog",
			       c->output.directory);

	pthread_mutex_lock(&rc->slot.lock);
	create_session(rc); /* a failure is retried by the periodic check */
	pthread_mutex_unlock(&rc->slot.lock);

	r = waiter_new(c->module.notify_path, &rc->slot, SNAPSHOT_NAME,
		       catalog_next_id(rc->catalog), &rc->waiter);
	if (r < 0)
		return log_warn_errno(r, "cannot open the notification file %s",
				      c->module.notify_path);
	r = waiter_configure(rc->waiter, c->ratelimit.rate, (unsigned)c->ratelimit.burst,
			     c->ratelimit.trackers);
	if (r < 0)
		return r;
	r = sd_event_add_io(rc->m->event, &rc->results, waiter_eventfd(rc->waiter), EPOLLIN,
			    on_results, rc);
	if (r < 0)
		return log_warn_errno(r, "cannot watch the waiter");
	sd_event_source_set_description(rc->results, "waiter-results");
	r = sd_event_now(rc->m->event, CLOCK_MONOTONIC, &now);
	if (r >= 0)
		r = sd_event_add_time(rc->m->event, &rc->check, CLOCK_MONOTONIC, now + CHECK_USEC,
				      0, on_check, rc);
	if (r < 0)
		return log_warn_errno(r, "cannot add the session check timer");
	sd_event_source_set_description(rc->check, "session-check");
	sd_event_source_set_enabled(rc->check, SD_EVENT_ON);
	r = sd_event_add_time(rc->m->event, &rc->save, CLOCK_MONOTONIC, now + CATALOG_DELAY_USEC, 0,
			      on_save, rc);
	if (r < 0)
		return log_warn_errno(r, "cannot add the catalog save timer");
	sd_event_source_set_description(rc->save, "catalog-save");
	sd_event_source_set_enabled(rc->save, SD_EVENT_OFF);
	r = start_history(rc, now);
	if (r < 0)
		return r;

	r = waiter_start(rc->waiter, (unsigned)c->realtime.priority, &rc->rt);
	if (r < 0)
		return log_warn_errno(r, "cannot start the waiter thread");
	if (c->realtime.priority && !rc->rt)
		log_warnx("cannot run the waiter at SCHED_FIFO priority %" PRIu64
			  ": it runs at normal priority",
			  c->realtime.priority);
	log_info("waiting for alerts on %s", c->module.notify_path);
	return 0;
}

static bool strv_equal(char **a, char **b)
{
	for (; a && b && *a && *b; a++, b++)
		if (strcmp(*a, *b) != 0)
			return false;
	return (!a || !*a) && (!b || !*b);
}

static bool session_changed(const struct conf *a, const struct conf *b)
{
	return strcmp(a->session.name, b->session.name) != 0 ||
	       a->session.domain != b->session.domain ||
	       a->session.subbuf_size != b->session.subbuf_size ||
	       a->session.num_subbuf != b->session.num_subbuf ||
	       !strv_equal(a->session.events, b->session.events) ||
	       a->session.syscalls != b->session.syscalls ||
	       strcmp(a->output.directory, b->output.directory) != 0 ||
	       strcmp(a->output.relayd, b->output.relayd) != 0 ||
	       a->output.fallback_local != b->output.fallback_local ||
	       a->output.max_size != b->output.max_size;
}

static bool restart_needed(const struct conf *a, const struct conf *b)
{
	return a->module.load != b->module.load || strcmp(a->module.name, b->module.name) ||
	       strcmp(a->module.parameters, b->module.parameters) ||
	       strcmp(a->module.probe, b->module.probe) ||
	       strcmp(a->module.notify_path, b->module.notify_path) ||
	       strcmp(a->catalog.directory, b->catalog.directory) ||
	       a->realtime.priority != b->realtime.priority ||
	       a->realtime.lock_memory != b->realtime.lock_memory ||
	       a->session.enabled != b->session.enabled;
}

void recorder_reconfigure(struct recorder *rc, const struct conf *old)
{
	const struct conf *c = rc->m->conf;

	if (!rc->waiter)
		return;
	waiter_configure(rc->waiter, c->ratelimit.rate, (unsigned)c->ratelimit.burst,
			 c->ratelimit.trackers);
	if (session_changed(old, c)) {
		int r = mkdir_p(c->output.directory, 0750);

		if (r < 0)
			log_warn_errno(r, "cannot create %s", c->output.directory);
		log_info("session settings changed: re-creating the session");
		pthread_mutex_lock(&rc->slot.lock);
		if (strcmp(old->session.name, c->session.name) != 0 && rc->slot.flight) {
			flight_destroy(rc->slot.flight);
			rc->slot.flight = NULL;
		}
		create_session(rc);
		pthread_mutex_unlock(&rc->slot.lock);
	}
	if (restart_needed(old, c))
		log_warnx("module.*, realtime.*, catalog.directory and session.enabled changes "
			  "take effect at the next start");
	catalog_update(rc); /* retention with the new limits */
}

static struct json_object *obj(void)
{
	return json_object_new_object();
}

struct catalog *recorder_catalog(struct recorder *rc)
{
	return rc->catalog;
}

/* [{tracker, rate, burst, tokens}] of the per-tracker buckets. */
static struct json_object *bucket_list(struct waiter *w, int *r)
{
	struct waiter_bucket_state b[32];
	struct json_object *list = json_object_new_array();
	size_t n = waiter_get_buckets(w, b, 32);

	for (size_t i = 0; list && i < n && i < 32; i++) {
		struct json_object *o = obj();

		result_add_string(o, PROTO_KEY_TRACKER, b[i].tracker, r);
		result_add(o, PROTO_KEY_RATE, json_object_new_double(b[i].rate), r);
		result_add(o, PROTO_KEY_BURST, json_object_new_double(b[i].burst), r);
		if (b[i].tokens >= 0)
			result_add(o, PROTO_KEY_TOKENS, json_object_new_double(b[i].tokens), r);
		if (*r >= 0 && json_object_array_add(list, o) < 0)
			*r = -ENOMEM;
		if (*r < 0) {
			json_object_put(o);
			break;
		}
	}
	return list;
}

int recorder_status(struct recorder *rc, struct json_object *o)
{
	const struct conf *c = rc->m->conf;
	struct json_object *sess = obj(), *out = obj(), *hist = obj(), *rl = obj(), *cnt = obj();
	struct waiter_stats st = {0};
	double tokens = -1;
	const char *state;
	int r = 0;

	if (rc->waiter)
		waiter_get_stats(rc->waiter, &st, &tokens);
	/* The waiter may be recording: do not wait for it, the last known state will do. */
	if (pthread_mutex_trylock(&rc->slot.lock) == 0) {
		state = rc->slot.flight ? "recording" : "absent";
		pthread_mutex_unlock(&rc->slot.lock);
	} else {
		state = "recording";
	}
	result_add_string(sess, PROTO_KEY_NAME, c->session.name, &r);
	result_add_string(sess, PROTO_KEY_STATE, state, &r);
	result_add_string(sess, PROTO_KEY_DOMAIN,
			  c->session.domain == FLIGHT_DOMAIN_KERNEL ? "kernel" : "userspace", &r);
	result_add_int(sess, PROTO_KEY_RECREATED, rc->recreated, &r);
	if (rc->session_error)
		result_add_string(sess, PROTO_KEY_DETAIL, flight_strerror(rc->session_error), &r);
	result_add_bool(sess, PROTO_KEY_REALTIME, rc->rt, &r);
	result_add_bool(sess, PROTO_KEY_MEMORY_LOCKED, rc->memory_locked, &r);

	result_add_string(out, PROTO_KEY_DIRECTORY, c->output.directory, &r);
	result_add_string(out, PROTO_KEY_RELAYD, c->output.relayd, &r);
	result_add_bool(out, PROTO_KEY_FALLBACK_LOCAL, c->output.fallback_local, &r);

	result_add_int(hist, PROTO_KEY_BUFFER_BYTES_PER_CPU,
		       (int64_t)(c->session.subbuf_size * c->session.num_subbuf), &r);
	result_add_int(hist, PROTO_KEY_SUBBUF_SIZE, (int64_t)c->session.subbuf_size, &r);
	result_add_int(hist, PROTO_KEY_NUM_SUBBUF, (int64_t)c->session.num_subbuf, &r);
	if (rc->last_history) {
		struct json_object *bpe, *eps;

		json_object_object_get_ex(rc->last_history, "bytes_per_event", &bpe);
		json_object_object_get_ex(rc->last_history, "events_per_sec", &eps);
		result_add_int(hist, PROTO_KEY_EXPECTED_WINDOW_NS,
			       (int64_t)history_expected_ns(buffer_bytes(c),
							    json_object_get_double(bpe),
							    json_object_get_double(eps)),
			       &r);
		result_add(hist, PROTO_KEY_MEASURED, json_object_get(rc->last_history), &r);
	}

	result_add(rl, PROTO_KEY_RATE, json_object_new_double(c->ratelimit.rate), &r);
	result_add_int(rl, PROTO_KEY_BURST, (int64_t)c->ratelimit.burst, &r);
	if (tokens >= 0)
		result_add(rl, PROTO_KEY_TOKENS, json_object_new_double(tokens), &r);
	if (rc->waiter)
		result_add(rl, PROTO_KEY_TRACKERS, bucket_list(rc->waiter, &r), &r);

	result_add_int(cnt, PROTO_KEY_ALERTS, (int64_t)st.alerts, &r);
	result_add_int(cnt, PROTO_KEY_SNAPSHOTS, (int64_t)st.snapshots, &r);
	result_add_int(cnt, PROTO_KEY_FAILED, (int64_t)st.failed, &r);
	result_add_int(cnt, PROTO_KEY_CAUSES, (int64_t)st.causes, &r);
	result_add_int(cnt, PROTO_KEY_SUPPRESSED, (int64_t)st.suppressed, &r);
	result_add_int(cnt, PROTO_KEY_KERNEL_SUPPRESSED, (int64_t)st.kernel_suppressed, &r);
	result_add_int(cnt, PROTO_KEY_LOST, (int64_t)st.lost, &r);
	if (st.snapshots + st.failed > 0) {
		result_add_int(cnt, PROTO_KEY_DETECT_LAST_NS, rc->detect_last_ns, &r);
		result_add_int(cnt, PROTO_KEY_DETECT_MAX_NS, rc->detect_max_ns, &r);
	}

	result_add(o, PROTO_KEY_SESSION, sess, &r);
	result_add(o, PROTO_KEY_OUTPUT, out, &r);
	result_add(o, PROTO_KEY_HISTORY, hist, &r);
	result_add(o, PROTO_KEY_RATELIMIT, rl, &r);
	result_add(o, PROTO_KEY_COUNTERS, cnt, &r);
	return r;
}

void recorder_free(struct recorder *rc)
{
	if (!rc)
		return;
	waiter_free(rc->waiter);	  /* closes the notification file: the module can go */
	history_worker_free(rc->history); /* before the session: it may be recording */
	sd_event_source_disable_unref(rc->results);
	sd_event_source_disable_unref(rc->check);
	sd_event_source_disable_unref(rc->measured);
	sd_event_source_disable_unref(rc->calibrate);
	sd_event_source_disable_unref(rc->save); /* its change is in the save below */
	json_object_put(rc->last_history);
	if (rc->slot_init) {
		flight_destroy(rc->slot.flight);
		pthread_mutex_destroy(&rc->slot.lock);
	}
	if (rc->catalog) {
		catalog_save(rc->catalog);
		catalog_free(rc->catalog);
	}
	for (size_t i = rc->n_loaded; i-- > 0;) {
		int r = modload_unload(rc->modload, rc->loaded[i]);

		if (r < 0) {
			log_warn_errno(r, "cannot unload kernel module %s", rc->loaded[i]);
			continue;
		}
		log_info("unloaded kernel module %s", rc->loaded[i]);
		free(rc->loaded[i]);
		memmove(&rc->loaded[i], &rc->loaded[i + 1], (--rc->n_loaded - i) * sizeof(char *));
	}
	/* What could not be unloaded stays in the file, for the next instance to try. */
	if (rc->state_path && rc->n_loaded)
		save_state(rc);
	else if (rc->state_path && !rc->state_foreign)
		unlink(rc->state_path);
	for (size_t i = 0; i < rc->n_loaded; i++)
		free(rc->loaded[i]);
	free(rc->state_path);
	modload_free(rc->modload);
	for (size_t i = 0; i < MANUAL_MAX; i++)
		free(rc->manual[i].reason);
	free(rc);
}
