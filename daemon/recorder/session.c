/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The LTTng flight-recorder session in its slot: created at start, re-created when
 * lttng-sessiond lost it (a restart), re-created when its settings change on reload.
 * sessiond's exit is an event (sessiond_watch.c): while the session is there and sessiond
 * is watched, nothing here wakes up; after sessiond exited, after a record failed as if
 * the session were gone, or when sessiond cannot be watched, the session is checked
 * every few seconds until it is there again. The waiter records under the slot's lock;
 * the main loop never waits for it (trylock), the state it last saw will do.
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include <time.h>

#include "fsutil.h"
#include "proto.h"
#include "recorder_internal.h"

#define CHECK_USEC (3 * 1000000ULL)

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
static void check_events(const struct flight_settings *s)
{
	char **offered = NULL;
	bool found;

	if (s->domain != FLIGHT_DOMAIN_KERNEL || flight_kernel_events(&offered) < 0)
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
	conf_strv_free(offered);
}

/* Under slot.lock: (re)creates the session. */
static int create_session(struct session *se)
{
	struct flight_settings s;
	int r;

	settings_from(se, se->conf, &s);
	/* Whatever made this create, it is of the settings in force: a reload's wait is over. */
	se->reload = SESSION_RELOAD_NONE;
	flight_destroy(se->slot.flight);
	se->slot.flight = NULL;
	r = flight_create(&s, &se->slot.flight);
	if (r < 0) {
		if (r != se->error)
			log_warnx("cannot create LTTng session %s: %s", s.session,
				  flight_strerror(r));
		se->error = r;
		return r;
	}
	se->error = 0;
	if (flight_replaced(se->slot.flight))
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
	check_events(&s);
	if (se->created)
		se->created(se->created_arg, s.domain == FLIGHT_DOMAIN_KERNEL);
	if (flight_relayd_unprobed(se->slot.flight))
		log_warnx("records to lttng-relayd are not checked first, a relayd that hangs "
			  "blocks them until lttng-sessiond's own timeout: %s",
			  flight_relayd_unprobed(se->slot.flight));
	return 0;
}

/*
 * Under slot.lock: a reload's settings that waited for the slot. 1: the session was
 * re-created for them, 0: nothing to re-create, < 0: it could not be (the check retries).
 */
static int apply_reload(struct session *se)
{
	int r = 0;

	if (se->reload == SESSION_RELOAD_RECREATE) {
		log_info("session settings changed: re-creating the session");
		r = create_session(se);
		if (r == 0)
			r = 1;
	} else if (se->reload == SESSION_RELOAD_LIVE && se->slot.flight) {
		flight_set_relayd_timeout(se->slot.flight, se->conf->output.relayd_timeout_ns);
	}
	se->reload = SESSION_RELOAD_NONE;
	return r;
}

static int on_check(sd_event_source *s, uint64_t usec, void *userdata)
{
	struct session *se = userdata;
	bool there = false;
	int r;

	/* The waiter is recording: the session is there, look again next time. */
	if (pthread_mutex_trylock(&se->slot.lock) == 0) {
		r = apply_reload(se);
		if (r == 0)
			r = se->slot.flight ? flight_exists(se->slot.flight) : 0;
		if (r == 0) {
			if (se->slot.flight)
				log_warnx("LTTng session %s is gone (lttng-sessiond restarted?), "
					  "re-creating it",
					  se->conf->session.name);
			if (create_session(se) == 0)
				se->recreated++;
		}
		there = se->slot.flight != NULL;
		pthread_mutex_unlock(&se->slot.lock);
	}
	/* The session is there and its sessiond's exit will say when to look again. */
	if (there && sessiond_watch_start(&se->sessiond, se->event) == 0) {
		sd_event_source_set_enabled(s, SD_EVENT_OFF);
		return 0;
	}
	sd_event_source_set_time(s, usec + CHECK_USEC);
	return 0;
}

void session_check_soon(struct session *se)
{
	uint64_t now;

	if (se->check && sd_event_now(se->event, CLOCK_MONOTONIC, &now) >= 0) {
		sd_event_source_set_time(se->check, now);
		sd_event_source_set_enabled(se->check, SD_EVENT_ON);
	}
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
	pthread_mutex_lock(&se->slot.lock);
	create_session(se); /* a failure is retried by the periodic check */
	pthread_mutex_unlock(&se->slot.lock);
	r = sd_event_now(se->event, CLOCK_MONOTONIC, &now);
	/* At once: the first check starts watching sessiond, or keeps checking without. */
	if (r >= 0)
		r = sd_event_add_time(se->event, &se->check, CLOCK_MONOTONIC, now, 0, on_check, se);
	if (r < 0)
		return log_warn_errno(r, "cannot add the session check timer");
	sd_event_source_set_description(se->check, "session-check");
	sd_event_source_set_enabled(se->check, SD_EVENT_ON);
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
	       a->session.history_ns != b->session.history_ns ||
	       !strv_equal(a->session.events, b->session.events) ||
	       a->session.syscalls != b->session.syscalls ||
	       strcmp(a->output.directory, b->output.directory) != 0 ||
	       strcmp(a->output.relayd, b->output.relayd) != 0 ||
	       a->output.fallback_local != b->output.fallback_local ||
	       a->output.max_size != b->output.max_size;
}

void session_reconfigure(struct session *se, const struct conf *c, const struct conf *old)
{
	int r;

	se->conf = c;
	if (!session_changed(old, c)) {
		/* Live: the session's history is not worth losing for it. */
		if (se->reload == SESSION_RELOAD_NONE)
			se->reload = SESSION_RELOAD_LIVE;
	} else {
		/* A new target (or none) starts again from session.subbuf_size until measured. */
		if (old->session.history_ns != c->session.history_ns ||
		    old->session.num_subbuf != c->session.num_subbuf || !c->session.history_ns)
			se->sizing = (struct session_sizing){0};
		r = mkdir_p(c->output.directory, 0750);
		if (r < 0)
			log_warn_errno(r, "cannot create %s", c->output.directory);
		se->reload = SESSION_RELOAD_RECREATE;
	}
	/*
	 * A record holds the slot for as long as lttng-sessiond takes to serve it, without
	 * bound when sessiond is stopped: the main loop does not wait for it, the check
	 * applies the settings once the record has ended.
	 */
	if (pthread_mutex_trylock(&se->slot.lock) != 0) {
		if (se->reload == SESSION_RELOAD_RECREATE)
			log_info("session settings changed: the session is re-created once the "
				 "record under way ends");
		session_check_soon(se);
		return;
	}
	r = apply_reload(se);
	pthread_mutex_unlock(&se->slot.lock);
	/* The old session is gone: the check creates the new one once it can be. */
	if (r < 0)
		session_check_soon(se);
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
	uint64_t before = se->sizing.subbuf_size, expected;
	char t[32];
	int r;

	if (!target || h->events_per_sec <= 0 || h->bytes_per_event <= 0)
		return false;
	want = subbuf_for(c, target, h->events_per_sec, h->bytes_per_event);
	expected = history_expected_ns(now * c->session.num_subbuf, h->bytes_per_event,
				       h->events_per_sec);
	se->sizing.events_per_sec = h->events_per_sec;
	se->sizing.bytes_per_event = h->bytes_per_event;
	if (want == now || (expected >= (uint64_t)((double)target * HISTORY_LOW) && want * 4 > now))
		return false;
	/*
	 * A record holds the slot for as long as lttng-sessiond takes, without bound when it is
	 * stopped: the main loop does not wait, the next measurement asks again.
	 */
	if (pthread_mutex_trylock(&se->slot.lock) != 0)
		return false;
	proto_duration_format(t, sizeof(t), target);
	log_info("session.history = %s: %.0f events/s x %.1f bytes on the busiest CPU need "
		 "%" PRIu64 " x %" PRIu64 " KiB per CPU (they were %" PRIu64 " KiB, about %" PRIu64
		 " ms): re-creating the session, the history recorded so far is lost",
		 t, h->events_per_sec, h->bytes_per_event, c->session.num_subbuf, want / 1024,
		 now / 1024, expected / 1000000);
	se->sizing.subbuf_size = want;
	r = create_session(se);
	if (r == 0)
		se->sizing.resized++;
	else
		se->sizing.subbuf_size = before;
	pthread_mutex_unlock(&se->slot.lock);
	/*
	 * The old session is gone too: the check creates it again with the size it had, and
	 * the next measurement asks for this one again.
	 */
	if (r < 0) {
		log_warnx("session.history: LTTng session %s not re-created with %" PRIu64
			  " KiB sub-buffers, trying again with %" PRIu64 " KiB",
			  c->session.name, want / 1024, now / 1024);
		session_check_soon(se);
	}
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

static void *destroy_thread(void *arg)
{
	flight_destroy(arg);
	return NULL;
}

/*
 * flight_destroy() on a thread of its own, waited for until DEADLINE_NS: lttng-sessiond
 * answers it (a stop, then a destroy, each waited for) or the stop goes on without it.
 * -ETIMEDOUT: the thread and F are left to it.
 */
static int destroy_by(struct flight *f, uint64_t deadline_ns)
{
	struct timespec ts = {
		.tv_sec = (time_t)(deadline_ns / 1000000000u),
		.tv_nsec = (long)(deadline_ns % 1000000000u),
	};
	pthread_t t;
	int r;

	r = thread_start(&t, SCHED_OTHER, 0, THREAD_STACK_WAITER, destroy_thread, f,
			 "latencyd-destroy");
	if (r < 0) {
		flight_destroy(f); /* no thread: unbounded, as before */
		return 0;
	}
	r = pthread_clockjoin_np(t, NULL, CLOCK_MONOTONIC, &ts);
	if (r == 0)
		return 0;
	pthread_detach(t);
	return -ETIMEDOUT;
}

int session_done_by(struct session *se, uint64_t deadline_ns, bool waiter_left)
{
	struct flight *f = se->slot.flight;

	if (waiter_left) {
		/*
		 * The waiter is inside liblttng-ctl, which is not to be called from two threads at
		 * once, and holds the slot: the session, its lock and its memory are left to it.
		 */
		se->check = sd_event_source_disable_unref(se->check);
		sessiond_watch_stop(&se->sessiond);
		return f ? -ETIMEDOUT : 0;
	}
	se->slot.flight = NULL;
	if (f && destroy_by(f, deadline_ns) < 0) {
		session_done(se);
		return -ETIMEDOUT;
	}
	session_done(se);
	return 0;
}

void session_done(struct session *se)
{
	sd_event_source_disable_unref(se->check);
	se->check = NULL;
	sessiond_watch_stop(&se->sessiond);
	if (se->slot_init) {
		flight_destroy(se->slot.flight);
		se->slot.flight = NULL;
		pthread_mutex_destroy(&se->slot.lock);
		se->slot_init = false;
	}
}
