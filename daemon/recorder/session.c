/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The LTTng flight-recorder session in its slot: created at start, re-created when
 * lttng-sessiond lost it (a restart), re-created when its settings change on reload.
 * sessiond's exit is an event (sessiond_watch.c): while the session is there and sessiond
 * is watched, nothing here wakes up; after sessiond exited, after a record failed as if
 * the session were gone, or when sessiond cannot be watched, the session is checked
 * every few seconds until it is there again. Every call to sessiond is the sessiond
 * worker's (sessiond_worker.c), a job at a time: what comes meanwhile (a reload, a check)
 * waits for the job under way, and the main loop never waits for sessiond.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fsutil.h"
#include "proto.h"
#include "recorder_internal.h"

#define CHECK_USEC	      (3 * 1000000ULL)
/*
 * At start, how long the session's creation is waited for before latencyd goes on without
 * it (it is made once sessiond answers): a creation takes well under a second, the first
 * of a kernel session seconds when sessiond loads its probes.
 */
#define SESSION_START_WAIT_NS (10 * 1000000000ULL)

/*
 * session.history: buffers hold target x events/s x bytes/event of the busiest CPU, with
 * this much room (rates vary); re-sized when the history they would hold drifts under
 * HISTORY_LOW of the target, or when a quarter of them would do (memory matters too).
 * Re-sizing re-creates the session, losing what it held: hence the hysteresis.
 */
#define HISTORY_ROOM 1.25
#define HISTORY_LOW  0.9
#define SUBBUF_MIN   (4 * 1024ULL)
#define SUBBUF_MAX   (256 * 1024 * 1024ULL)

/*
 * In a fleet, the kernel session also records packets sent and received with their IP and
 * TCP/UDP headers (lttng-modules' net_dev_queue and net_if_receive_skb, the kernel's
 * netif_receive_skb): what following a wait from one host into another needs, to match a
 * packet sent on one with its receipt on the other.
 */
static const char *const fleet_events[] = {"net_dev_queue", "net_if_receive_skb"};

/* session.events, and the fleet's when the fleet is on and they are not there already. */
static const char *const *events_of(struct session *se, const struct conf *c)
{
	size_t n = 0;

	for (char **e = c->session.events; e && *e && n < SESSION_EVENTS_MAX; e++)
		se->events[n++] = *e;
	for (size_t i = 0; c->fleet.enabled && c->session.domain == CONF_DOMAIN_KERNEL &&
			   i < sizeof(fleet_events) / sizeof(fleet_events[0]);
	     i++) {
		bool have = false;

		for (size_t k = 0; k < n && !have; k++)
			have = strcmp(se->events[k], fleet_events[i]) == 0;
		if (!have && n < SESSION_EVENTS_MAX)
			se->events[n++] = fleet_events[i];
	}
	se->events[n] = NULL;
	return se->events;
}

static void settings_from(struct session *se, const struct conf *c, struct flight_settings *s)
{
	*s = (struct flight_settings){
		.session = c->session.name,
		.domain = c->session.domain == CONF_DOMAIN_USERSPACE ? FLIGHT_DOMAIN_USERSPACE
								     : FLIGHT_DOMAIN_KERNEL,
		.subbuf_size =
			se->sizing.subbuf_size ? se->sizing.subbuf_size : c->session.subbuf_size,
		.num_subbuf = c->session.num_subbuf,
		.events = events_of(se, c),
		.syscalls = c->session.syscalls,
		.local_dir = c->output.directory,
		.relayd_url = c->output.relayd[0] ? c->output.relayd : NULL,
		.fallback_local = c->output.fallback_local,
		.max_size = c->output.max_size,
		.relayd_timeout_ns = c->output.relayd_timeout_ns,
	};
}

/*
 * lttng-sessiond enables a kernel event no loaded probe offers without a word, and records
 * nothing for it: each such name is said once per session created (the probes sessiond
 * loads may have changed with it, after a restart). The configuration check knows only the
 * probes latencyd's drop-in loads; this knows the ones loaded. Not the user space domain,
 * whose applications come and go with their events.
 */
static void check_events(const struct flight_settings *s, char **offered)
{
	bool found;

	if (s->domain != FLIGHT_DOMAIN_KERNEL || !offered)
		return;
	for (const char *const *e = s->events; e && *e; e++) {
		found = false;
		for (char **o = offered; *o && !found; o++)
			found = conf_event_match(*e, *o);
		if (!found)
			log_warnx("event %s: no LTTng probe lttng-sessiond has loaded offers it, "
				  "the session records nothing for it (lttng list -k lists those "
				  "offered; lttng-sessiond --kmod-probes loads others)",
				  *e);
	}
}

static const char *const op_names[][2] = {
	[SESSION_OP_CREATE] = {"create", "creation"},
	[SESSION_OP_RECREATE] = {"re-create", "re-creation"},
	[SESSION_OP_CHECK] = {"check", "check"},
	[SESSION_OP_UPDATE] = {"update", "update"},
	[SESSION_OP_DESTROY] = {"destroy", "destroy"},
};

const char *session_op_name(int op)
{
	return op >= 0 && op <= SESSION_OP_DESTROY ? op_names[op][0] : "?";
}

const char *session_op_noun(int op)
{
	return op >= 0 && op <= SESSION_OP_DESTROY ? op_names[op][1] : "?";
}

/*
 * Hands OP to the worker, with the settings in force (re-sized to RESIZE_TO sub-buffers, 0:
 * not a re-size); false: no memory (the check retries).
 */
static bool submit_sized(struct session *se, enum session_op op, uint64_t resize_to)
{
	struct flight_settings s;
	struct session_job *j;

	settings_from(se, se->conf, &s);
	if (resize_to)
		s.subbuf_size = resize_to;
	j = session_job_new(op, op == SESSION_OP_UPDATE ? NULL : &s);
	if (!j) {
		log_warnx("no memory for the session's %s: tried again later", session_op_noun(op));
		return false;
	}
	j->relayd_timeout_ns = se->conf->output.relayd_timeout_ns;
	if (resize_to)
		j->resize_from = session_subbuf_size(se);
	sd_event_now(se->event, CLOCK_MONOTONIC, &j->since);
	j->since *= 1000;
	se->job = j;
	sessiond_worker_submit(se->worker, j);
	return true;
}

static bool submit(struct session *se, enum session_op op)
{
	return submit_sized(se, op, 0);
}

/* The next job, if the worker has none: a reload's first, then a check. */
static void next_job(struct session *se)
{
	if (se->job)
		return;
	if (se->reload == SESSION_RELOAD_RECREATE) {
		/* Whatever made this create, it is of the settings in force. */
		se->check_due = false;
		if (submit(se, SESSION_OP_RECREATE))
			se->reload = SESSION_RELOAD_NONE;
	} else if (se->reload == SESSION_RELOAD_LIVE) {
		if (submit(se, SESSION_OP_UPDATE))
			se->reload = SESSION_RELOAD_NONE;
	} else if (se->check_due) {
		if (submit(se, SESSION_OP_CHECK))
			se->check_due = false;
	}
}

/* The check timer USEC from now, on until the session is there and sessiond watched. */
static void check_in(struct session *se, uint64_t usec)
{
	uint64_t now;

	if (se->check && sd_event_now(se->event, CLOCK_MONOTONIC, &now) >= 0) {
		sd_event_source_set_time(se->check, now + usec);
		sd_event_source_set_enabled(se->check, SD_EVENT_ON);
	}
}

/* A session the worker created: said, and told to the recorder. */
static void created(struct session *se, const struct session_job *j)
{
	const struct flight_settings *s = &j->s;

	se->error = 0;
	if (j->replaced)
		log_warnx(
			"LTTng session %s was already there (left by a latencyd that was killed?): "
			"destroyed it and created it anew",
			s->session);
	log_info("LTTng %s session %s recording (%" PRIu64 " x %" PRIu64 " bytes per CPU), "
		 "snapshots to %s%s%s",
		 s->domain == FLIGHT_DOMAIN_KERNEL ? "kernel" : "userspace", s->session,
		 s->num_subbuf, s->subbuf_size, s->relayd_url ? s->relayd_url : s->local_dir,
		 s->relayd_url && s->fallback_local ? ", falling back to " : "",
		 s->relayd_url && s->fallback_local ? s->local_dir : "");
	check_events(s, j->offered);
	if (se->created)
		se->created(se->created_arg, s->domain == FLIGHT_DOMAIN_KERNEL);
	if (j->unprobed[0])
		log_warnx("records to lttng-relayd are not checked first, a relayd that hangs "
			  "blocks them until lttng-sessiond's own timeout: %s",
			  j->unprobed);
}

/*
 * A session.history re-size ended: its size is the one in use from now on, unless a reload
 * chose another meanwhile (its re-creation follows).
 */
static void resized(struct session *se, const struct session_job *j)
{
	bool ours = se->sizing.pending == j->s.subbuf_size;

	if (ours)
		se->sizing.pending = 0;
	if (j->created) {
		if (ours)
			se->sizing.subbuf_size = j->s.subbuf_size;
		se->sizing.resized++;
		return;
	}
	/*
	 * The old session is gone too: the check creates it again with the size it had, and
	 * the next measurement asks for this one again.
	 */
	log_warnx("session.history: LTTng session %s not re-created with %" PRIu64
		  " KiB sub-buffers, trying again with %" PRIu64 " KiB",
		  j->s.session, j->s.subbuf_size / 1024, j->resize_from / 1024);
}

static void job_done(struct session *se, struct session_job *j)
{
	if (j->gone)
		log_warnx("LTTng session %s is gone (lttng-sessiond restarted?), re-creating it",
			  j->s.session);
	if (j->created) {
		created(se, j);
		if (j->op == SESSION_OP_CHECK)
			se->recreated++;
	} else if (j->tried) {
		if (j->error != se->error)
			log_warnx("cannot create LTTng session %s: %s", j->s.session,
				  flight_strerror(j->error));
		se->error = j->error;
	}
	if (j->resize_from)
		resized(se, j);
	if (j->op == SESSION_OP_UPDATE)
		return;
	/* The session is there and its sessiond's exit will say when to look again. */
	if (j->present && sessiond_watch_start(&se->sessiond, se->event) == 0)
		sd_event_source_set_enabled(se->check, SD_EVENT_OFF);
	else if (!j->present && j->op == SESSION_OP_RECREATE)
		se->check_due = true; /* the old session is gone: made again at once */
	else
		check_in(se, CHECK_USEC);
}

static int on_worker(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
	struct session *se = userdata;
	struct session_job *j = sessiond_worker_take(se->worker);

	if (!j)
		return 0;
	se->job = NULL;
	job_done(se, j);
	session_job_free(j);
	next_job(se);
	return 0;
}

static int on_check(sd_event_source *s, uint64_t usec, void *userdata)
{
	struct session *se = userdata;

	/* Looked at again in a while whatever happens: the job's end may turn it off. */
	sd_event_source_set_time(s, usec + CHECK_USEC);
	se->check_due = true;
	next_job(se);
	return 0;
}

void session_check_soon(struct session *se)
{
	check_in(se, 0);
}

static void on_sessiond_exit(void *arg)
{
	session_check_soon(arg);
}

int session_init(struct session *se, sd_event *event, const struct conf *conf)
{
	int r;

	*se = (struct session){.event = event, .conf = conf};
	se->sessiond.on_exit = on_sessiond_exit;
	se->sessiond.arg = se;
	se->sessiond.boost = (unsigned)conf->realtime.sessiond_boost;
	r = pi_mutex_init(&se->slot.lock);
	if (r < 0)
		return r;
	se->slot_init = true;
	return 0;
}

int session_start(struct session *se)
{
	uint64_t now;
	int r;

	r = mkdir_p(se->conf->output.directory, 0750);
	if (r < 0)
		return log_warn_errno(r, "cannot create %s", se->conf->output.directory);
	r = sessiond_worker_new(&se->slot, &se->worker);
	if (r < 0)
		return log_warn_errno(r, "cannot start the sessiond worker thread");
	r = sd_event_add_io(se->event, &se->worker_done, sessiond_worker_eventfd(se->worker),
			    EPOLLIN, on_worker, se);
	if (r >= 0)
		r = sd_event_now(se->event, CLOCK_MONOTONIC, &now);
	if (r >= 0)
		r = sd_event_add_time(se->event, &se->check, CLOCK_MONOTONIC, now + CHECK_USEC, 0,
				      on_check, se);
	if (r < 0)
		return log_warn_errno(r, "cannot add the session check timer");
	sd_event_source_set_description(se->worker_done, "sessiond-worker");
	sd_event_source_set_description(se->check, "session-check");
	sd_event_source_set_enabled(se->check, SD_EVENT_OFF);
	if (!submit(se, SESSION_OP_CREATE)) {
		check_in(se, 0);
		return 0;
	}
	/* Before the main loop runs: the session is there at READY=1 when sessiond answers. */
	if (sessiond_worker_wait(se->worker, now_ns() + SESSION_START_WAIT_NS))
		on_worker(NULL, -1, 0, se);
	else
		log_warnx("lttng-sessiond has not answered the session's creation in %llu s: "
			  "latencyd starts without its session, made once sessiond answers (status "
			  "says how long it has waited)",
			  SESSION_START_WAIT_NS / 1000000000ULL);
	return 0;
}

int session_operation(const struct session *se, uint64_t *ns)
{
	uint64_t now;

	*ns = 0;
	if (!se->job)
		return -1;
	if (sd_event_now(se->event, CLOCK_MONOTONIC, &now) >= 0 && now * 1000 > se->job->since)
		*ns = now * 1000 - se->job->since;
	return (int)se->job->op;
}

int session_busy(const struct session *se, uint64_t *ns)
{
	*ns = 0;
	return se->worker ? sessiond_worker_busy(se->worker, ns) : -1;
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
	       a->session.history_ns != b->session.history_ns ||
	       !strv_equal(a->session.events, b->session.events) ||
	       a->session.syscalls != b->session.syscalls ||
	       strcmp(a->output.directory, b->output.directory) != 0 ||
	       strcmp(a->output.relayd, b->output.relayd) != 0 ||
	       a->output.fallback_local != b->output.fallback_local ||
	       a->output.max_size != b->output.max_size;
}

int session_reconfigure(struct session *se, const struct conf *c, const struct conf *old)
{
	int r, op = -1;

	se->conf = c;
	if (!session_changed(old, c)) {
		/* Live: the session's history is not worth losing for it. */
		if (old->output.relayd_timeout_ns != c->output.relayd_timeout_ns) {
			/* A re-creation queued makes the session with it too. */
			op = se->reload == SESSION_RELOAD_RECREATE ? SESSION_OP_RECREATE
								   : SESSION_OP_UPDATE;
			if (se->reload == SESSION_RELOAD_NONE)
				se->reload = SESSION_RELOAD_LIVE;
		}
	} else {
		op = SESSION_OP_RECREATE;
		/* A new target (or none) starts again from session.subbuf_size until measured. */
		if (old->session.history_ns != c->session.history_ns ||
		    old->session.num_subbuf != c->session.num_subbuf || !c->session.history_ns)
			se->sizing = (struct session_sizing){0};
		r = mkdir_p(c->output.directory, 0750);
		if (r < 0)
			log_warn_errno(r, "cannot create %s", c->output.directory);
		se->reload = SESSION_RELOAD_RECREATE;
		/*
		 * The worker may be inside a job for as long as sessiond takes (a record holds
		 * the slot, sessiond is stopped): the main loop does not wait for it.
		 */
		if (se->job)
			log_info("session settings changed: the session is re-created once the "
				 "session's %s under way ends",
				 session_op_noun((int)se->job->op));
		else
			log_info("session settings changed: re-creating the session");
	}
	next_job(se);
	return op;
}

uint64_t session_subbuf_size(const struct session *se)
{
	return se->sizing.subbuf_size ? se->sizing.subbuf_size : se->conf->session.subbuf_size;
}

/* The smallest power of two sub-buffer giving TARGET_NS of history at the measured rate. */
static uint64_t subbuf_for(const struct conf *c, uint64_t target_ns, double eps, double bpe)
{
	double need =
		(double)target_ns / 1e9 * eps * bpe * HISTORY_ROOM / (double)c->session.num_subbuf;
	uint64_t size = SUBBUF_MIN;

	while (size < SUBBUF_MAX && (double)size < need)
		size *= 2;
	return size;
}

bool session_fit_history(struct session *se, const struct history *h)
{
	const struct conf *c = se->conf;
	uint64_t target = c->session.history_ns, now = session_subbuf_size(se), want;
	uint64_t expected;
	char t[32];

	if (!target || h->events_per_sec <= 0 || h->bytes_per_event <= 0)
		return false;
	want = subbuf_for(c, target, h->events_per_sec, h->bytes_per_event);
	expected = history_expected_ns(now * c->session.num_subbuf, h->bytes_per_event,
				       h->events_per_sec);
	se->sizing.events_per_sec = h->events_per_sec;
	se->sizing.bytes_per_event = h->bytes_per_event;
	if (want == now || (expected >= (uint64_t)((double)target * HISTORY_LOW) && want * 4 > now))
		return false;
	/* The worker is busy (sessiond may be slow, or stopped): the next measurement asks again. */
	if (se->job || se->reload == SESSION_RELOAD_RECREATE)
		return false;
	proto_duration_format(t, sizeof(t), target);
	log_info("session.history = %s: %.0f events/s x %.1f bytes on the busiest CPU need "
		 "%" PRIu64 " x %" PRIu64 " KiB per CPU (they were %" PRIu64 " KiB, about %" PRIu64
		 " ms): re-creating the session, the history recorded so far is lost",
		 t, h->events_per_sec, h->bytes_per_event, c->session.num_subbuf, want / 1024,
		 now / 1024, expected / 1000000);
	/* In use once the worker made the session: the old one records until then. */
	if (!submit_sized(se, SESSION_OP_RECREATE, want))
		return false;
	se->sizing.pending = want;
	return true;
}

bool session_present(struct session *se)
{
	bool present = true;

	if (pthread_mutex_trylock(&se->slot.lock) == 0) {
		present = se->slot.flight != NULL;
		pthread_mutex_unlock(&se->slot.lock);
	}
	return present;
}

int session_done_by(struct session *se, uint64_t deadline_ns, bool waiter_left, int *left_op,
		    uint64_t *left_ns)
{
	*left_op = -1;
	*left_ns = 0;
	se->check = sd_event_source_disable_unref(se->check);
	se->worker_done = sd_event_source_disable_unref(se->worker_done);
	sessiond_watch_stop(&se->sessiond);
	/*
	 * With the waiter left inside a record (liblttng-ctl is not to be called from two
	 * threads at once), the worker ends its job without destroying the session, which
	 * stays in sessiond with the slot, its lock and its memory, left to the waiter.
	 */
	if (se->worker && sessiond_worker_stop_by(se->worker, !waiter_left, deadline_ns) < 0) {
		*left_op = sessiond_worker_busy(se->worker, left_ns);
		return -ETIMEDOUT;
	}
	if (waiter_left)
		return se->slot.flight ? -ETIMEDOUT : 0;
	session_done(se);
	return 0;
}

void session_done(struct session *se)
{
	se->check = sd_event_source_disable_unref(se->check);
	se->worker_done = sd_event_source_disable_unref(se->worker_done);
	sessiond_watch_stop(&se->sessiond);
	sessiond_worker_free(se->worker); /* the job under way ends first; frees it */
	se->worker = NULL;
	se->job = NULL;
	if (se->slot_init) {
		flight_destroy(se->slot.flight);
		se->slot.flight = NULL;
		pthread_mutex_destroy(&se->slot.lock);
		se->slot_init = false;
	}
}
