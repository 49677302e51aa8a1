/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The flight recorder as the main loop sees it: the session (session.c), the realtime
 * waiter (waiter.c), the snapshot readers (history_worker.c, analysis_job.c) and the
 * calibration record (calibration.c). The waiter's results become events for the
 * recorder's owner (recorder.h); a local snapshot is handed to the readers, and their
 * results become events too.
 *
 * What a reload changes live: ratelimit.* and analysis.auto here; session.* and output.*
 * re-create the session (the history recorded so far is lost), on the sessiond worker: the
 * reload does not wait for it, and a record under way meanwhile is found where its own
 * session put it (its result keeps that session's output). module.*, realtime.* and
 * session.enabled need a restart (the manager says so).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>

#include "analysis_job.h"
#include "fsutil.h"
#include "proto.h"
#include "recorder_internal.h"

struct recorder {
	sd_event *event;
	const struct conf *conf;
	recorder_event_fn emit;
	void *userdata;
	struct session session;
	struct waiter *waiter;
	struct history_worker *history; /* each local snapshot's history and analysis.auto */
	sd_event_source *results, *measured;
	struct calibration calibration;
	bool rt;
	int64_t detect_last_ns, detect_max_ns;
	uint64_t manual_seq;
	char fleet_host[PROTO_FLEET_NAME_MAX + 1]; /* "" without a fleet */
	uint64_t incident_base;			   /* catalog_incident_base() */
	int reload_op; /* what the last reload asked of the sessiond worker, -1: nothing */
	struct waiter_stats said; /* the waiter's problems the log has told of */
	bool blind;		  /* RECORDER_BLIND emitted */
};

/*
 * What a stop waits at most for lttng-sessiond, across the record under way and the
 * session's destroy: far longer than either takes when sessiond answers (a record of
 * large buffers to a slow disk takes seconds), and well within systemd's TimeoutStopSec
 * (30 s in latencyd.service), which leaves the rest of the stop (the catalog saved, the
 * modules unloaded) the time it needs before a SIGKILL.
 */
#define RECORDER_STOP_GRACE_NS (10 * 1000000000ULL)
/* What the session's destroy still gets when sessiond answered the waiter just too late. */
#define RECORDER_STOP_LATE_NS  (1000000000ULL)

/* A recorder whose stop left a thread inside liblttng-ctl: it still uses it. */
static struct recorder *left_behind;

static void emit(struct recorder *rc, const struct recorder_event *ev)
{
	rc->emit(ev, rc->userdata);
}

/*
 * The output of the session that recorded RES, in *OUT: the record's own (one abandoned at
 * a stop has it too: the waiter takes it before the record), or without one (no session
 * recorded it: it wrote nothing) the session's settings in force.
 */
static void output_of(const struct recorder *rc, const struct waiter_result *res,
		      struct flight_output *out)
{
	const struct conf *c = rc->conf;

	if (res->output) {
		*out = *res->output;
		return;
	}
	*out = (struct flight_output){
		.local_dir = c->output.directory,
		.relayd_url = c->output.relayd[0] ? c->output.relayd : NULL,
		.subbuf_size = session_subbuf_size(&rc->session),
		.num_subbuf = c->session.num_subbuf,
	};
}

/*
 * Queued for the normal-priority snapshot reader: its history window, and with
 * analysis.auto (live on reload) its analysis, in one pass. OUT: the buffers it was
 * recorded from.
 */
static void read_snapshot(struct recorder *rc, uint64_t id, const char *path,
			  const struct flight_output *out)
{
	const struct conf *c = rc->conf;
	struct recorder_event ev = {.kind = RECORDER_ANALYSIS, .analysis.id = id};
	bool analyse = c->analysis.autorun;
	int r;

	if (!rc->history)
		return;
	r = history_worker_submit(rc->history, id, path, out->subbuf_size * out->num_subbuf,
				  out->subbuf_size, false, &analyse, c->analysis.max_memory);
	if (r < 0)
		log_warn_errno(r, "cannot measure the history of snapshot %" PRIu64, id);
	if (!c->analysis.autorun || (r == 0 && analyse))
		return;
	log_warnx("snapshot %" PRIu64 " not analysed: %s", id,
		  r == 0 ? "too many snapshots waiting for analysis" : strerror(-r));
	ev.analysis.summary = analysis_skipped();
	emit(rc, &ev);
}

static void on_snapshot(struct recorder *rc, const struct waiter_result *res)
{
	struct recorder_event ev = {.kind = RECORDER_SNAPSHOT};
	struct recorder_snapshot *s = &ev.snapshot;
	struct catalog_entry entry;
	const struct cause *first = &res->causes[0];
	uint64_t end = first->kind == CAUSE_ALERT    ? first->alert.end_ns
		       : first->kind == CAUSE_MANUAL ? first->manual.time_ns
						     : first->peer.received_ns;
	uint64_t detect_ns = end && res->rec.start_ns > end ? res->rec.start_ns - end : 0;
	struct flight_output out;
	char *path = NULL;
	int r;

	output_of(rc, res, &out);
	*s = (struct recorder_snapshot){
		.entry = &entry,
		.error = res->error,
		.rec = &res->rec,
		.directory = out.local_dir,
		.causes = res->causes,
		.n = res->n,
	};
	rc->detect_last_ns = (int64_t)detect_ns;
	if (rc->detect_last_ns > rc->detect_max_ns)
		rc->detect_max_ns = rc->detect_last_ns;
	if (res->error < 0) {
		struct statvfs fs;

		/* What a failed record wrote stays with its entry: retention deletes it. */
		path = path_newest(out.local_dir, res->name);
		s->disk_full =
			statvfs(out.local_dir, &fs) == 0 &&
			(uint64_t)fs.f_bavail * fs.f_frsize < out.subbuf_size * out.num_subbuf;
		if (flight_session_gone(res->error))
			session_check_soon(&rc->session);
		sessiond_watch_consumerd(&rc->session.sessiond);
	} else if (!res->rec.to_relayd) {
		path = path_newest(out.local_dir, res->name);
	}
	r = snapshot_entry(res, &out, path, detect_ns, &entry);
	if (r < 0) {
		log_warn_errno(r, "snapshot %" PRIu64 " left out of the catalog", res->id);
	} else {
		emit(rc, &ev);
		catalog_entry_free(&entry); /* what the callback did not take */
	}
	if (res->error >= 0 && path)
		read_snapshot(rc, res->id, path, &out);
	free(path);
}

/* Whether a power of two lies in (SAID, NOW]: a count said at 1, 2, 4... is a few lines. */
static bool count_to_say(uint64_t said, uint64_t now)
{
	for (uint64_t p = 1; p && p <= now; p <<= 1)
		if (p > said)
			return true;
	return false;
}

/*
 * What went wrong on the waiter's threads, which do not log. RUNNING: from the main loop,
 * which is told when the last thread stopped (not at a stop, which ends them anyway).
 */
static void say_waiter_problems(struct recorder *rc, bool running)
{
	struct waiter_stats st;
	size_t n = waiter_threads(rc->waiter);

	waiter_get_stats(rc->waiter, &st, NULL);
	if (count_to_say(rc->said.garbage, st.garbage))
		log_warnx(
			"%s holds a record that is not the latency_tracker module's (a module of "
			"another ABI?): the read it came in was dropped whole, with the alerts in "
			"it (%" PRIu64 " such read%s so far)",
			rc->conf->module.notify_path, st.garbage, st.garbage > 1 ? "s" : "");
	if (count_to_say(rc->said.nomem, st.nomem))
		log_warnx("the realtime waiter had no memory for what it read: an alert or a "
			  "request not recorded (a latencyctl record waiting for it times out), or "
			  "an event not sent (%" PRIu64 " time%s so far)",
			  st.nomem, st.nomem > 1 ? "s" : "");
	if (count_to_say(rc->said.pool_empty, st.pool_empty))
		log_info("the realtime waiter's results outran the main loop, which takes them: "
			 "it took memory from malloc() on its way to the record (%" PRIu64
			 " result%s so far)",
			 st.pool_empty, st.pool_empty > 1 ? "s" : "");
	if (count_to_say(rc->said.unpinned, st.unpinned))
		log_warnx("a realtime waiter thread could not be pinned to its CPU (a cpuset "
			  "changed, a CPU went offline): it runs anywhere, and an alert on that "
			  "CPU wakes every thread (%" PRIu64 " so far)",
			  st.unpinned);
	if (count_to_say(rc->said.takeovers, st.takeovers))
		log_warnx("during an alert storm, the waiter thread reading alerts did not run "
			  "for %d ms (a realtime task of a higher priority holding its "
			  "CPU?): another thread took its place (%" PRIu64 " time%s so far)",
			  STORM_TAKEOVER_MS, st.takeovers, st.takeovers > 1 ? "s" : "");
	if (st.ended > rc->said.ended)
		log_warn_errno(st.end_error,
			       "a waiter thread stopped waiting for alerts (%zu of %zu left%s); "
			       "its %s of %s failed",
			       n - st.ended, n,
			       st.ended < n ? "" : ": no alert can be read any more",
			       st.end_call ? st.end_call : "?", rc->conf->module.notify_path);
	rc->said = st;
	if (running && n && st.ended >= n && !rc->blind) {
		struct recorder_event ev = {.kind = RECORDER_BLIND};

		rc->blind = true;
		emit(rc, &ev);
	}
}

static int on_results(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
	struct recorder *rc = userdata;
	struct waiter_result *list = waiter_take_results(rc->waiter);

	for (struct waiter_result *res = list; res; res = res->next) {
		struct recorder_event ev = {0};

		switch (res->kind) {
		case WAITER_SNAPSHOT:
			on_snapshot(rc, res);
			break;
		case WAITER_SUPPRESSED:
			ev.kind = RECORDER_SUPPRESSED;
			ev.suppressed.first = &res->causes[0];
			ev.suppressed.n = res->n;
			emit(rc, &ev);
			break;
		case WAITER_LOST:
			ev.kind = RECORDER_LOST;
			ev.lost = res->lost;
			emit(rc, &ev);
			break;
		case WAITER_CALIBRATED:
			calibration_ended(&rc->calibration, res);
			break;
		case WAITER_ADMITTED:
			ev.kind = RECORDER_ADMITTED;
			ev.admitted.id = res->id;
			ev.admitted.incident = res->incident;
			ev.admitted.cause = &res->causes[0];
			emit(rc, &ev);
			break;
		case WAITER_STALE:
			ev.kind = RECORDER_STALE;
			ev.stale = &res->causes[0];
			emit(rc, &ev);
			break;
		}
	}
	waiter_result_free(list);
	say_waiter_problems(rc, s != NULL);
	return 0;
}

static int on_history(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
	struct recorder *rc = userdata;
	struct history_job *list = history_worker_take(rc->history);

	for (struct history_job *j = list; j; j = j->next) {
		struct recorder_event ev = {.kind = RECORDER_HISTORY};

		ev.history = (struct recorder_history){
			.id = j->id,
			.error = j->error,
			.err = j->err,
			.h = &j->h,
			.capacity = j->capacity,
			.sampled = j->sampled,
		};
		if (!j->error) {
			ev.history.expected_ns = history_expected_ns(
				j->capacity, j->h.bytes_per_event, j->h.events_per_sec);
			ev.history.entry = history_entry(j, ev.history.expected_ns);
			calibration_measured(&rc->calibration);
		}
		emit(rc, &ev);
		if (!j->error && session_fit_history(&rc->session, &j->h))
			calibration_again(&rc->calibration);
		if (j->analysis) {
			struct recorder_event an = {.kind = RECORDER_ANALYSIS};

			an.analysis.id = j->id;
			an.analysis.summary = j->analysis; /* taken */
			j->analysis = NULL;
			emit(rc, &an);
		}
	}
	history_job_free(list);
	return 0;
}

/* The readers, their results and the calibration timer. */
static int start_readers(struct recorder *rc, uint64_t now)
{
	const struct conf *c = rc->conf;
	int r;

	calibration_init(&rc->calibration, &rc->session, c->catalog.directory, rc->emit,
			 rc->userdata);
	r = history_worker_new(&rc->history);
	if (r < 0)
		return log_warn_errno(r, "cannot start the snapshot reader thread");
	r = sd_event_add_io(rc->event, &rc->measured, history_worker_eventfd(rc->history), EPOLLIN,
			    on_history, rc);
	if (r >= 0)
		r = calibration_start(&rc->calibration, rc->event, rc->waiter, rc->history, now);
	if (r < 0)
		return log_warn_errno(r, "cannot watch the snapshot reader thread");
	sd_event_source_set_description(rc->measured, "history-results");
	return 0;
}

static void on_session_created(void *arg, bool kernel)
{
	struct recorder *rc = arg;
	struct recorder_event ev = {.kind = RECORDER_SESSION, .session.kernel = kernel};

	emit(rc, &ev);
}

int recorder_new(sd_event *event, const struct conf *conf, recorder_event_fn fn, void *userdata,
		 struct recorder **ret)
{
	struct recorder *rc = calloc(1, sizeof(*rc));
	int r;

	if (!rc)
		return -ENOMEM;
	rc->event = event;
	rc->conf = conf;
	rc->emit = fn;
	rc->userdata = userdata;
	rc->reload_op = -1;
	r = session_init(&rc->session, event, conf);
	if (r < 0) {
		free(rc);
		return r;
	}
	rc->session.created = on_session_created;
	rc->session.created_arg = rc;
	*ret = rc;
	return 0;
}

int recorder_start(struct recorder *rc, uint64_t first_id)
{
	const struct conf *c = rc->conf;
	uint64_t now;
	size_t n;
	int r;

	r = session_start(&rc->session);
	if (r < 0)
		return r;
	r = waiter_new(c->module.notify_path, &rc->session.slot, RECORDER_SNAPSHOT_PREFIX, first_id,
		       &rc->waiter);
	if (r < 0)
		return log_warn_errno(r, "cannot open the notification file %s",
				      c->module.notify_path);
	r = waiter_configure(rc->waiter, c, rc->fleet_host[0] ? rc->fleet_host : NULL,
			     rc->incident_base);
	if (r < 0)
		return r;
	r = sd_event_add_io(rc->event, &rc->results, waiter_eventfd(rc->waiter), EPOLLIN,
			    on_results, rc);
	if (r < 0)
		return log_warn_errno(r, "cannot watch the waiter");
	sd_event_source_set_description(rc->results, "waiter-results");
	r = sd_event_now(rc->event, CLOCK_MONOTONIC, &now);
	if (r < 0)
		return r;
	r = start_readers(rc, now);
	if (r < 0)
		return r;
	r = waiter_start(rc->waiter, (unsigned)c->realtime.priority, c->realtime.waiter_per_cpu,
			 &rc->rt);
	if (r < 0)
		return log_warn_errno(r, "cannot start the waiter's threads");
	if (c->realtime.priority && !rc->rt)
		log_warnx("cannot run the waiter at SCHED_FIFO priority %" PRIu64
			  ": it runs at normal priority",
			  c->realtime.priority);
	n = waiter_threads(rc->waiter);
	log_info("waiting for alerts on %s (%zu waiter thread%s)", c->module.notify_path, n,
		 n > 1 ? "s, one per CPU" : "");
	return 0;
}

void recorder_reconfigure(struct recorder *rc, const struct conf *conf, const struct conf *old)
{
	rc->conf = conf;
	rc->reload_op = -1;
	if (!rc->waiter)
		return;
	waiter_configure(rc->waiter, conf, rc->fleet_host[0] ? rc->fleet_host : NULL,
			 rc->incident_base);
	rc->reload_op = session_reconfigure(&rc->session, conf, old);
}

int recorder_request(struct recorder *rc, const char *message, pid_t pid, uint64_t *seq)
{
	int r;

	if (!rc || !rc->waiter)
		return -ENODEV;
	r = waiter_request(rc->waiter, rc->manual_seq + 1, pid, message);
	if (r == 0)
		*seq = ++rc->manual_seq;
	return r;
}

void recorder_set_fleet_host(struct recorder *rc, const char *host, uint64_t incident_base)
{
	snprintf(rc->fleet_host, sizeof(rc->fleet_host), "%s", host ?: "");
	rc->incident_base = incident_base;
	if (rc->waiter)
		waiter_configure(rc->waiter, rc->conf, host, incident_base);
}

int recorder_peer(struct recorder *rc, const struct proto_fleet_alert *a, uint64_t received_ns,
		  const char **refused_by)
{
	*refused_by = PROTO_FLEET_BUDGET_QUEUE;
	return rc && rc->waiter ? waiter_peer(rc->waiter, a, received_ns, refused_by) : -ENODEV;
}

const char *recorder_session_operation(struct recorder *rc, uint64_t *ns)
{
	int op = rc ? session_operation(&rc->session, ns) : -1;

	return op < 0 ? NULL : session_op_name(op);
}

const char *recorder_session_pending(struct recorder *rc)
{
	return rc && rc->reload_op >= 0 ? session_op_name(rc->reload_op) : NULL;
}

uint64_t recorder_waiter_busy_ns(struct recorder *rc)
{
	return rc && rc->waiter ? waiter_busy_ns(rc->waiter) : 0;
}

void recorder_status(struct recorder *rc, struct recorder_status *st)
{
	struct waiter_stats ws = {0};

	*st = (struct recorder_status){.tokens = -1};
	if (rc->waiter) {
		waiter_get_stats(rc->waiter, &ws, &st->tokens);
		st->n_buckets =
			waiter_get_buckets(rc->waiter, st->buckets, RECORDER_STATUS_BUCKETS);
		if (st->n_buckets > RECORDER_STATUS_BUCKETS)
			st->n_buckets = RECORDER_STATUS_BUCKETS;
	}
	st->session_present = session_present(&rc->session);
	st->session_error = rc->session.error;
	st->session_op = recorder_session_operation(rc, &st->session_op_ns);
	st->recreated = rc->session.recreated;
	st->subbuf_size = session_subbuf_size(&rc->session);
	st->history_target_ns = rc->conf->session.history_ns;
	st->resized = rc->session.sizing.resized;
	st->sized_events_per_sec = rc->session.sizing.events_per_sec;
	st->sized_bytes_per_event = rc->session.sizing.bytes_per_event;
	st->realtime = rc->rt;
	st->waiter_threads = rc->waiter ? waiter_threads(rc->waiter) : 0;
	st->waiter_ended = ws.ended;
	st->counters.alerts = ws.alerts;
	st->counters.snapshots = ws.snapshots;
	st->counters.failed = ws.failed;
	st->counters.causes = ws.causes;
	st->counters.suppressed = ws.suppressed;
	st->counters.kernel_suppressed = ws.kernel_suppressed;
	st->counters.lost = ws.lost;
	st->counters.peers = ws.peers;
	st->counters.garbage = ws.garbage;
	st->counters.reader_failed = rc->history ? history_worker_failed(rc->history) : 0;
	st->detect_last_ns = rc->detect_last_ns;
	st->detect_max_ns = rc->detect_max_ns;
}

bool recorder_left_running(void)
{
	return left_behind != NULL;
}

static unsigned grace_s(void)
{
	return (unsigned)(RECORDER_STOP_GRACE_NS / 1000000000u);
}

/* "lttng-sessiond (pid N)", or without the pid when it is not watched. */
static void sessiond_name(char *buf, size_t size, pid_t pid)
{
	if (pid > 0)
		snprintf(buf, size, "lttng-sessiond (pid %d)", (int)pid);
	else
		snprintf(buf, size, "lttng-sessiond");
}

/* What made RES's snapshot, for the log: its first cause. */
static void first_cause(const struct waiter_result *res, char *buf, size_t size)
{
	char tracker[LATENCY_TRACKER_NAME_LEN + 1], comm[LATENCY_TRACKER_COMM_LEN + 1];
	const struct cause *c = &res->causes[0];

	cause_tracker(c, tracker);
	cause_comm(c, comm);
	if (c->kind == CAUSE_ALERT)
		snprintf(buf, size, "an alert from tracker %s on %s, pid %d", tracker, comm,
			 (int)c->alert.pid);
	else if (c->kind == CAUSE_MANUAL)
		snprintf(buf, size, "a latencyctl record from %s, pid %d", comm,
			 (int)c->manual.pid);
	else
		snprintf(buf, size, "a fleet peer's alert from tracker %s, incident %s", tracker,
			 res->incident);
}

/*
 * The record the stop gave up on (RES; NULL: none, or no memory when ERR is -ENOMEM) is
 * said, and a snapshot's goes to the catalog as failed with its cause: the alert is not
 * lost, its id never handed out again, and the output sessiond may still write joins the
 * entry at the next start. The waiter thread drops its own result of it.
 */
static void abandoned(struct recorder *rc, const char *sessiond, struct waiter_result *res, int err)
{
	char why[PROTO_FLEET_INCIDENT_MAX + 128];
	uint64_t ms;

	if (!res && err == -ENOMEM) {
		log_warnx("%s did not answer within %u s of the stop: the record under way is "
			  "abandoned, and there was no memory left to keep it in the catalog",
			  sessiond, grace_s());
		return;
	}
	if (!res) {
		/* No record was under way, and the thread past its own did not end after it. */
		log_warnx("%s did not answer within %u s of the stop, and a waiter thread that "
			  "was out of its record by then has not ended since: it is left to end "
			  "with the process, and what it had not handed over is lost",
			  sessiond, grace_s());
		return;
	}
	ms = res->rec.duration_ns / 1000000;
	if (res->kind != WAITER_SNAPSHOT || !res->n) {
		log_warnx("%s did not answer within %u s of the stop: the calibration record, "
			  "under way for %" PRIu64 " ms, is abandoned (no alert waited for it)",
			  sessiond, grace_s(), ms);
		return;
	}
	first_cause(res, why, sizeof(why));
	log_warnx("%s did not answer within %u s of the stop: the record of snapshot %" PRIu64
		  " (%s, for %s), under way for %" PRIu64
		  " ms, is abandoned; the catalog keeps it as failed",
		  sessiond, grace_s(), res->id, res->name, why, ms);
	on_snapshot(rc, res);
}

void recorder_free(struct recorder *rc)
{
	uint64_t deadline = now_ns() + RECORDER_STOP_GRACE_NS;
	struct waiter_result *left = NULL;
	bool waiter_left = false;
	char sessiond[64];
	uint64_t op_ns, now;
	int op, r;

	if (!rc)
		return;
	sessiond_name(sessiond, sizeof(sessiond), rc->session.sessiond.pid);
	/*
	 * The waiter ends the record under way first: its snapshot, and what the threads
	 * queued before they stopped, still go to the catalog, saved after this.
	 */
	if (rc->waiter) {
		uint64_t busy = waiter_busy_ns(rc->waiter);

		/* A stop held up by lttng-sessiond (stopped, overloaded) says why it waits. */
		if (busy)
			log_info("waiting for the record under way (for %" PRIu64
				 " ms so far) to end, %u s at most",
				 busy / 1000000, grace_s());
		r = waiter_stop_by(rc->waiter, deadline, &left);
		waiter_left = r < 0;
		/* What the threads handed over first: the record abandoned is the newest. */
		on_results(NULL, -1, 0, rc);
		if (waiter_left)
			abandoned(rc, sessiond, left, r);
		waiter_result_free(left);
		/*
		 * sessiond answered the record just past the deadline, and the thread ended: the
		 * session's destroy that follows gets a moment too, not a deadline already gone.
		 */
		now = now_ns();
		if (!waiter_left && now > deadline)
			deadline = now + RECORDER_STOP_LATE_NS;
	}
	waiter_free(rc->waiter);	  /* closes the notification file: the module can go */
	history_worker_free(rc->history); /* before the session: it may be recording */
	rc->results = sd_event_source_disable_unref(rc->results);
	rc->measured = sd_event_source_disable_unref(rc->measured);
	calibration_stop(&rc->calibration);
	/* Not a job done whose result the main loop, stopping, did not take. */
	op = session_busy(&rc->session, &op_ns);
	if (op >= 0)
		log_info("waiting for the session's %s under way (for %" PRIu64
			 " ms so far) to end, %u s at most",
			 session_op_noun(op), op_ns / 1000000, grace_s());
	if (session_done_by(&rc->session, deadline, waiter_left, &op, &op_ns) < 0) {
		if (op >= 0 && op != SESSION_OP_DESTROY)
			log_warnx("%s did not answer within %u s of the stop: the session's %s, "
				  "under way for %" PRIu64 " ms, is abandoned",
				  sessiond, grace_s(), session_op_noun(op), op_ns / 1000000);
		if (op != SESSION_OP_DESTROY)
			log_warnx("LTTng session %s is left in %s, which did not answer: the "
				  "next start of latencyd destroys it and creates it anew",
				  rc->conf->session.name, sessiond);
		else
			log_warnx("LTTng session %s is left in %s, which did not answer its "
				  "destroy within %u s of the stop: the next start of latencyd "
				  "destroys it and creates it anew",
				  rc->conf->session.name, sessiond, grace_s());
		waiter_left = true;
	}
	/* A thread inside liblttng-ctl still uses the session's slot and the waiter. */
	if (waiter_left) {
		left_behind = rc;
		return;
	}
	free(rc);
}
