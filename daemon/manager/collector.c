// SPDX-License-Identifier: GPL-2.0-only
/*
 * The fleet's collector (collector.enabled, on the lttng-relayd host): retention over relayd's
 * output directory by whole incidents, at start, every collector.interval and at each reload (so
 * latencyctl reload runs a pass at once, with the new limits). What to delete is chosen by
 * catalog/collector.c; here are the timer, the log lines, and the memory of what was said
 * already, so that a problem that lasts is one warning, not one a minute. Off, there is no
 * timer at all: an idle latencyd makes no wakeup.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "collector.h"
#include "log.h"
#include "manager.h"
#include "thread.h"

/* A pass may run this late, to share a wakeup with other timers: retention is not urgent. */
#define ACCURACY_USEC (5ULL * 1000000)

/* The timer's userdata, freed with it. */
struct collector_state {
	struct manager *m;
	int error;	  /* the unreadable directory last warned about, 0: none */
	char *error_path; /* ... and its path */
	size_t foreign;	  /* entries left alone, last said at debug level */
	bool unseen;	  /* relayd's open files could not be read, said */
	bool ahead;	  /* snapshots dated ahead of the clock, said */
	bool failing;	  /* a deletion failed in the last pass, said */
	struct collector_status status;
};

static void format_bytes(uint64_t b, char *buf, size_t size)
{
	static const char *const units[] = {"KiB", "MiB", "GiB", "TiB"};
	double v = (double)b / 1024;
	size_t u = 0;

	if (b < 1024) {
		snprintf(buf, size, "%" PRIu64 " B", b);
		return;
	}
	while (v >= 1024 && u + 1 < sizeof(units) / sizeof(units[0])) {
		v /= 1024;
		u++;
	}
	snprintf(buf, size, "%.1f %s", v, units[u]);
}

/* What the scan could not see, each said once while it lasts. */
static void report_scan(struct collector_state *st, const struct collector_scan *s)
{
	const char *path = s->error_path ? s->error_path : "?";

	if (s->error && (s->error != st->error || !st->error_path || strcmp(path, st->error_path)))
		log_warnx("collector: cannot read %s: %s; what is under it is kept%s (said once)",
			  path, strerror(-s->error),
			  s->unlisted ? ", and every fleet incident until it can be read" : "");
	else if (!s->error && st->error)
		log_info("collector: %s can be read again", st->error_path);
	st->error = s->error;
	free(st->error_path);
	st->error_path = s->error_path ? strdup(s->error_path) : NULL;
	if (s->foreign != st->foreign)
		log_debug("collector: %zu entries of %s are not latencyd's snapshots: left alone",
			  s->foreign, s->dir ? s->dir : "?");
	st->foreign = s->foreign;
	if (s->relayd_unseen && !st->unseen)
		log_warnx("collector: cannot read lttng-relayd's open files (/proc/PID/fd): a "
			  "snapshot is taken as being written only while its files changed within "
			  "the last %llu s",
			  COLLECTOR_FRESH_NS / 1000000000ULL);
	st->unseen = s->relayd_unseen > 0;
	if (s->ahead && !st->ahead)
		log_warnx("collector: %zu snapshot(s) of %s dated ahead of this host's clock (the "
			  "first: %s), by a clock stepped back since or by hand: taken as new, "
			  "never past collector.max_age, the last to go past collector.max_bytes "
			  "(said once)",
			  s->ahead, s->dir ? s->dir : "?", s->ahead_path ? s->ahead_path : "?");
	st->ahead = s->ahead > 0;
}

/* What a deletion came to, for the pass's status. */
enum outcome {
	DELETED,
	KEPT,	 /* the check refused: all of it is kept */
	PARTIAL, /* a deletion failed past the check: some of it went */
};

/* The check passed, a deletion failed anyway: what went and what is left, each time. */
static void say_partial(const struct collector_incident *inc, const struct collector_deletion *d,
			int r)
{
	char size[32];

	format_bytes(d->freed, size, sizeof(size));
	log_warnx("collector: %s %s deleted in part: cannot delete %s: %s; of its %zu "
		  "snapshot(s), %zu deleted (%s), %d in part, %zu whole: a later pass deletes "
		  "what is left once it can",
		  inc->fleet ? "incident" : "snapshot", inc->id, d->where, collector_strerror(r),
		  inc->n, d->deleted, size, d->partial ? 1 : 0,
		  inc->n - d->deleted - (d->partial ? 1 : 0));
}

/* INC deleted; *FREED: the bytes that went, in part or whole. */
static enum outcome delete_incident(struct collector_state *st, const struct collector_scan *s,
				    const struct collector_incident *inc, bool failed,
				    uint64_t *freed)
{
	struct collector_deletion d;
	char size[32], hosts[256];
	int r = collector_delete(s, inc, &d);

	*freed = d.freed;
	st->status.deleted_bytes += d.freed;
	if (r < 0 && (d.deleted || d.partial)) {
		st->status.deleted_in_part++;
		say_partial(inc, &d, r);
		return PARTIAL;
	}
	if (r < 0) {
		if (!st->failing && !failed)
			log_warnx("collector: cannot delete %s %s: %s: %s; all of it is kept "
				  "(until a pass deletes all it chose, further failures are at "
				  "debug level)",
				  inc->fleet ? "incident" : "snapshot", inc->id, d.where,
				  collector_strerror(r));
		else
			log_debug("collector: cannot delete %s: %s: %s", inc->id, d.where,
				  collector_strerror(r));
		return KEPT;
	}
	st->status.deleted++;
	format_bytes(d.freed, size, sizeof(size));
	collector_hosts(inc, hosts, sizeof(hosts));
	log_info("collector: deleted %s %s (%zu snapshot%s, %s, from %s): over collector.%s",
		 inc->fleet ? "incident" : "snapshot", inc->id, inc->n, inc->n == 1 ? "" : "s",
		 size, hosts, inc->verdict == COLLECTOR_MAX_AGE ? "max_age" : "max_bytes");
	return DELETED;
}

static void run(struct collector_state *st)
{
	const struct conf_collector *c = &st->m->conf->collector;
	const struct collector_limits l = {c->max_age_ns, c->max_bytes};
	struct collector_scan s;
	char partial[128] = "";
	bool failed = false, chosen;
	int64_t now;
	int r;

	now = (int64_t)realtime_ns();
	r = collector_scan(c->directory, RECORDER_SNAPSHOT_PREFIX, "/proc", now, &s);
	report_scan(st, &s);
	if (r == -ENOMEM)
		log_warn_errno(r, "collector: scan of %s", c->directory);
	chosen = r >= 0 && collector_choose(&s, &l, now) > 0;
	st->status.kept = 0;
	st->status.kept_bytes = 0;
	for (size_t i = 0; r >= 0 && i < s.n; i++) {
		const struct collector_incident *inc = &s.incidents[i];
		enum outcome o = KEPT;
		uint64_t freed = 0;

		if (chosen && inc->verdict != COLLECTOR_KEEP) {
			o = delete_incident(st, &s, inc, failed, &freed);
			failed |= o != DELETED;
			if (o == PARTIAL)
				snprintf(partial, sizeof(partial), "%.100s", inc->id);
		}
		/* What a deletion left, in part or whole, is still in the tree. */
		if (o != DELETED) {
			st->status.kept++;
			st->status.kept_bytes += inc->bytes > freed ? inc->bytes - freed : 0;
		}
	}
	st->failing = failed;
	st->status.last_pass_realtime_ns = (uint64_t)now;
	if (r < 0 || s.error)
		snprintf(st->status.problem, sizeof(st->status.problem), "cannot read %.150s: %s",
			 r < 0		? c->directory
			 : s.error_path ? s.error_path
					: "?",
			 strerror(r < 0 ? -r : -s.error));
	else if (partial[0])
		snprintf(st->status.problem, sizeof(st->status.problem),
			 "%s was deleted in part (the log says what is left)", partial);
	else if (failed)
		snprintf(st->status.problem, sizeof(st->status.problem),
			 "a deletion failed (the log says which)");
	else
		st->status.problem[0] = 0;
	collector_scan_free(&s);
}

static uint64_t period_usec(const struct manager *m)
{
	return m->conf->collector.interval_ns / 1000;
}

/* Late by at most ACCURACY_USEC, or a quarter of a shorter period. */
static void next_pass(sd_event_source *source, const struct manager *m, uint64_t from)
{
	uint64_t period = period_usec(m);

	sd_event_source_set_time_accuracy(source,
					  period / 4 < ACCURACY_USEC ? period / 4 : ACCURACY_USEC);
	sd_event_source_set_time(source, from + period);
}

static int on_timer(sd_event_source *source, uint64_t usec, void *userdata)
{
	struct collector_state *st = userdata;

	run(st);
	next_pass(source, st->m, usec);
	return 0;
}

static void free_state(void *userdata)
{
	struct collector_state *st = userdata;

	free(st->error_path);
	free(st);
}

int manager_collector_start(struct manager *m)
{
	const struct conf_collector *c = &m->conf->collector;
	struct collector_state *st;
	char size[32] = "no limit", age[32] = "no limit";
	uint64_t now;
	int r;

	if (!c->enabled || m->collector)
		return 0;
	st = calloc(1, sizeof(*st));
	if (!st)
		return log_warn_errno(-ENOMEM, "collector");
	st->m = m;
	/* The first pass at once, from the loop: READY=1 does not wait for it. */
	r = sd_event_now(m->event, CLOCK_MONOTONIC, &now);
	if (r >= 0)
		r = sd_event_add_time(m->event, &m->collector, CLOCK_MONOTONIC, now, ACCURACY_USEC,
				      on_timer, st);
	if (r < 0) {
		free(st);
		return log_warn_errno(r, "cannot add the collector's timer");
	}
	sd_event_source_set_destroy_callback(m->collector, free_state);
	sd_event_source_set_description(m->collector, "collector");
	/* A time source fires once unless it is on: on_timer moves it a period on. */
	sd_event_source_set_enabled(m->collector, SD_EVENT_ON);
	if (c->max_bytes)
		format_bytes(c->max_bytes, size, sizeof(size));
	if (c->max_age_ns)
		snprintf(age, sizeof(age), "%" PRIu64 " s", c->max_age_ns / 1000000000);
	log_info("collector: retention over %s by whole incidents every %" PRIu64 " s: max_age %s, "
		 "max_bytes %s",
		 c->directory, c->interval_ns / 1000000000, age, size);
	if (!c->max_age_ns && !c->max_bytes)
		log_warnx("collector: neither collector.max_age nor collector.max_bytes is set: "
			  "nothing is deleted");
	return 0;
}

bool manager_collector_status(struct manager *m, struct collector_status *st)
{
	struct collector_state *cs =
		m->collector ? sd_event_source_get_userdata(m->collector) : NULL;

	if (cs)
		*st = cs->status;
	return cs != NULL;
}

void manager_collector_stop(struct manager *m)
{
	m->collector = sd_event_source_disable_unref(m->collector);
}

void manager_collector_reload(struct manager *m)
{
	uint64_t now;

	if (!m->conf->collector.enabled) {
		if (m->collector)
			log_info("collector: off (collector.enabled = false)");
		manager_collector_stop(m);
		return;
	}
	if (!m->collector && manager_collector_start(m) < 0)
		return;
	run(sd_event_source_get_userdata(m->collector));
	if (sd_event_now(m->event, CLOCK_MONOTONIC, &now) >= 0)
		next_pass(m->collector, m, now);
}
