// SPDX-License-Identifier: GPL-2.0-only
/*
 * What this host says of incidents, at a bounded rate:
 *
 * - A peer's alert it did not record (stale, or refused by a budget) is not answered alone:
 *   the window's refusals of one kind to one origin go out as one result message, to that
 *   origin only, naming up to PROTO_FLEET_RESULT_INCIDENTS incidents and counting the
 *   rest; one log line per kind. A busy fleet of N hosts then costs each host a few
 *   messages a window, not one per incident, and the broker's deliveries per incident grow
 *   with N, not N². Such an incident is not kept in this host's catalog (its origin's
 *   has it): a flood of them would push out the incidents that were recorded.
 * - A local incident's outcome (who recorded, where, who refused, who never answered) is
 *   logged once, when every member answered or fleet.answer_within passed.
 * - What each host did for an incident, this one's or a peer's answer, is noted in the
 *   catalog's incidents (fleet_note_incident).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <json-c/json.h>

#include "fleet_state.h"
#include "log.h"
#include "manager.h"
#include "thread.h"

static const struct {
	const char *status, *budget, *why;
} kinds[ANSWER_KINDS] = {
	[ANSWER_STALE] = {PROTO_FLEET_STALE, "", "stale (older than fleet.max_age)"},
	[ANSWER_ORIGIN] = {PROTO_FLEET_REFUSED, PROTO_FLEET_BUDGET_ORIGIN,
			   "refused by their origin's bucket (fleet.peer_rate)"},
	[ANSWER_TOTAL] = {PROTO_FLEET_REFUSED, PROTO_FLEET_BUDGET_TOTAL,
			  "refused by the bucket of all origins (fleet.total_rate)"},
	[ANSWER_QUEUE] = {PROTO_FLEET_REFUSED, PROTO_FLEET_BUDGET_QUEUE,
			  "refused: too many peers' alerts were waiting"},
};

void fleet_note_incident(struct manager *m, const char *incident, const char *host,
			 const char *status, const char *detail)
{
	if (!m->catalog || catalog_incident_note(m->catalog, incident, host, status, detail,
						 (uint64_t)time(NULL)) < 0)
		return;
	manager_catalog_changed(m);
}

static void flush_answers(struct manager *m)
{
	struct fleet_state *fs = m->fleet_state;

	for (int k = 0; k < ANSWER_KINDS; k++) {
		char list[512] = "";
		size_t len = 0;
		uint64_t count = 0, named = 0;

		for (size_t a = 0; a < fs->n_answers; a++) {
			const struct proto_fleet_result *res = &fs->answers[a].res;

			if (fs->answers[a].kind != (enum answer_kind)k)
				continue;
			count += res->count;
			named += res->n;
			for (size_t i = 0; i < res->n && len < sizeof(list); i++)
				len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%s",
							len ? ", " : "", res->incidents[i]);
			if (m->fleet && fleet_publish_result(m->fleet, &fs->answers[a].res) < 0)
				log_debug("fleet: a result was not published (not connected)");
		}
		if (count)
			log_info("fleet: %" PRIu64 " peer alert(s) in the last %" PRIu64
				 " s %s: %s%s",
				 count, ANSWER_WINDOW_NS / 1000000000, kinds[k].why, list,
				 count > named || len >= sizeof(list) ? ", ..." : "");
	}
	fs->n_answers = 0;
}

/* The window's answer of kind K to ORIGIN: found, or a new one (all said first if full). */
static struct proto_fleet_result *answer_for(struct manager *m, enum answer_kind k,
					     const char *origin)
{
	struct fleet_state *fs = m->fleet_state;
	char o[PROTO_FLEET_NAME_MAX + 1];
	struct answer *a;

	for (size_t i = 0; i < fs->n_answers; i++) {
		a = &fs->answers[i];
		if (a->kind == k &&
		    proto_fleet_incident_parse(a->res.incidents[0], o, sizeof(o), NULL) == 0 &&
		    strcmp(o, origin) == 0)
			return &a->res;
	}
	if (fs->n_answers == ANSWERS_MAX)
		flush_answers(m);
	a = &fs->answers[fs->n_answers++];
	memset(a, 0, sizeof(*a));
	a->kind = k;
	return &a->res;
}

static int on_answer_timer(sd_event_source *s, uint64_t usec, void *userdata)
{
	struct manager *m = userdata;

	(void)usec;
	sd_event_source_disable_unref(s);
	m->fleet_state->answer_timer = NULL;
	flush_answers(m);
	return 0;
}

void answers_add_many(struct manager *m, const struct proto_fleet_result *r)
{
	struct fleet_state *fs = m->fleet_state;
	struct proto_fleet_result *res;
	int k = ANSWER_STALE;

	if (r->n < 1)
		return; /* the origin is found by the incidents named */
	if (strcmp(r->status, PROTO_FLEET_REFUSED) == 0)
		k = strcmp(r->budget, PROTO_FLEET_BUDGET_TOTAL) == 0   ? ANSWER_TOTAL
		    : strcmp(r->budget, PROTO_FLEET_BUDGET_QUEUE) == 0 ? ANSWER_QUEUE
								       : ANSWER_ORIGIN;
	fs->answered[k] += r->count;
	res = answer_for(m, (enum answer_kind)k, r->host); /* the incidents' origin (checked) */
	snprintf(res->status, sizeof(res->status), "%s", kinds[k].status);
	snprintf(res->budget, sizeof(res->budget), "%s", kinds[k].budget);
	for (size_t i = 0; i < r->n && res->n < PROTO_FLEET_RESULT_INCIDENTS; i++)
		snprintf(res->incidents[res->n++], sizeof(res->incidents[0]), "%s",
			 r->incidents[i]);
	res->count += r->count;
	if (!fs->answer_timer &&
	    sd_event_add_time_relative(m->event, &fs->answer_timer, CLOCK_MONOTONIC,
				       ANSWER_WINDOW_NS / 1000, 100000, on_answer_timer, m) >= 0)
		sd_event_source_set_description(fs->answer_timer, "fleet-answers");
	if (!fs->answer_timer)
		flush_answers(m); /* no timer: said at once rather than never */
}

void answers_add(struct manager *m, const struct proto_fleet_alert *a, const char *status,
		 const char *budget)
{
	struct proto_fleet_result r = {.n = 1, .count = 1};

	snprintf(r.host, sizeof(r.host), "%s", a->host);
	snprintf(r.status, sizeof(r.status), "%s", status);
	snprintf(r.budget, sizeof(r.budget), "%s", budget ?: "");
	snprintf(r.incidents[0], sizeof(r.incidents[0]), "%s", a->incident);
	answers_add_many(m, &r);
}

#define HOSTS_NAMED 8 /* in one part of a log line, then "and N more" */

/* "h1, h2" of the incident's KEY list, with each host's detail; "" when empty. */
static void hosts_of(char *buf, size_t size, struct json_object *inc, const char *key)
{
	struct json_object *hosts, *details = NULL, *d;
	size_t len = 0;

	buf[0] = 0;
	if (!json_object_object_get_ex(inc, key, &hosts))
		return;
	json_object_object_get_ex(inc, PROTO_KEY_DETAILS, &details);
	for (size_t i = 0, n = json_object_array_length(hosts); i < n && len < size; i++) {
		const char *h = json_object_get_string(json_object_array_get_idx(hosts, i));

		/* A large fleet: a line the journal shows whole (latencyctl incidents has all). */
		if (i == HOSTS_NAMED && n > HOSTS_NAMED + 1) {
			snprintf(buf + len, size - len, " and %zu more", n - i);
			break;
		}

		len += (size_t)snprintf(buf + len, size - len, "%s%s", i ? ", " : "", h);
		if (len < size && details && json_object_object_get_ex(details, h, &d))
			len += (size_t)snprintf(buf + len, size - len, " (%s)",
						json_object_get_string(d));
	}
}

static struct json_object *incident_view(struct manager *m, const char *incident, bool *done)
{
	struct json_object *o = m->catalog ? catalog_incident_find(m->catalog, incident) : NULL;
	struct json_object *view, *silent;

	if (!o)
		return NULL;
	view = catalog_incident_view(o, (uint64_t)time(NULL),
				     m->conf->fleet.answer_within_ns / 1000000000);
	*done = view && json_object_object_get_ex(view, PROTO_KEY_PENDING, &silent) &&
		json_object_array_length(silent) == 0;
	return view;
}

/* The incident's outcome, from its VIEW (catalog_incident_view()), in one log line. */
static void log_outcome(const char *incident, struct json_object *view)
{
	static const struct {
		const char *key, *label;
	} parts[] = {
		{PROTO_FLEET_RECORDED, "recorded by"}, {PROTO_FLEET_LOCAL, "local only"},
		{PROTO_FLEET_REFUSED, "refused by"},   {PROTO_FLEET_FAILED, "failed on"},
		{PROTO_FLEET_STALE, "stale on"},       {PROTO_KEY_NO_ANSWER, "no answer from"},
		{PROTO_KEY_PENDING, "pending"},
	};
	char line[1024], hosts[512], field[PROTO_FLEET_INCIDENT_MAX + 16];
	size_t len = 0;
	struct json_object *v;

	for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]) && len < sizeof(line); i++) {
		hosts_of(hosts, sizeof(hosts), view, parts[i].key);
		if (hosts[0])
			len += (size_t)snprintf(line + len, sizeof(line) - len, "%s%s %s",
						len ? "; " : "", parts[i].label, hosts);
	}
	snprintf(field, sizeof(field), "INCIDENT=%s", incident);
	if (json_object_object_get_ex(view, PROTO_KEY_UNPUBLISHED, &v))
		log_fields(LOG_WARNING, (const char *const[]){LOG_MID_INCIDENT, field, NULL},
			   "fleet: incident %s: %s", incident, json_object_get_string(v));
	else
		log_fields(LOG_INFO, (const char *const[]){LOG_MID_INCIDENT, field, NULL},
			   "fleet: incident %s: %s", incident, len ? line : "no member");
}

static void summarise(struct manager *m, const char *incident)
{
	bool done;
	struct json_object *view = incident_view(m, incident, &done);

	if (view)
		log_outcome(incident, view);
	json_object_put(view);
}

static int on_summary_timer(sd_event_source *s, uint64_t usec, void *userdata);

/* Logs the incidents that are done or due, re-arms the timer for the next one. */
static void run_summaries(struct manager *m, bool due_only)
{
	struct fleet_state *fs = m->fleet_state;
	uint64_t now = now_ns(), next = 0;
	size_t kept = 0;

	for (size_t i = 0; i < fs->n_summaries; i++) {
		struct summary *s = &fs->summaries[i];
		bool done = false, due = now >= s->deadline_ns;
		struct json_object *view =
			due || !due_only ? incident_view(m, s->incident, &done) : NULL;

		if (view && (done || due))
			log_outcome(s->incident, view);
		json_object_put(view);
		if (done || due)
			continue;
		if (!next || s->deadline_ns < next)
			next = s->deadline_ns;
		fs->summaries[kept++] = *s;
	}
	fs->n_summaries = kept;
	sd_event_source_disable_unref(fs->summary_timer);
	fs->summary_timer = NULL;
	if (next &&
	    sd_event_add_time_relative(m->event, &fs->summary_timer, CLOCK_MONOTONIC,
				       (next - now) / 1000 + 1, 100000, on_summary_timer, m) >= 0)
		sd_event_source_set_description(fs->summary_timer, "fleet-summaries");
}

static int on_summary_timer(sd_event_source *s, uint64_t usec, void *userdata)
{
	(void)s;
	(void)usec;
	run_summaries(userdata, false);
	return 0;
}

void answers_watch(struct manager *m, const char *incident)
{
	struct fleet_state *fs = m->fleet_state;

	if (fs->n_summaries == SUMMARIES_MAX) {
		summarise(m, fs->summaries[0].incident); /* said early rather than never */
		memmove(&fs->summaries[0], &fs->summaries[1],
			--fs->n_summaries * sizeof(fs->summaries[0]));
	}
	snprintf(fs->summaries[fs->n_summaries].incident, sizeof(fs->summaries[0].incident), "%s",
		 incident);
	fs->summaries[fs->n_summaries++].deadline_ns = now_ns() + m->conf->fleet.answer_within_ns;
	run_summaries(m, true);
}

/*
 * One member answered: the incident is summed up once none is left silent. Only that
 * incident is looked at, by counting (its view is built once, for the log line): an origin
 * hears from every member of every incident, a hundred answers at once and more.
 */
void answers_result_noted(struct manager *m, const char *incident)
{
	struct fleet_state *fs = m->fleet_state;

	for (size_t i = 0; i < fs->n_summaries; i++) {
		if (strcmp(fs->summaries[i].incident, incident) != 0)
			continue;
		if (!m->catalog || catalog_incident_silent(m->catalog, incident) != 0)
			return;
		summarise(m, incident);
		memmove(&fs->summaries[i], &fs->summaries[i + 1],
			(--fs->n_summaries - i) * sizeof(fs->summaries[0]));
		return; /* the timer, armed for the earliest, finds nothing due then */
	}
}

void fleet_state_free(struct manager *m)
{
	struct fleet_state *fs = m->fleet_state;

	if (!fs)
		return;
	flush_answers(m); /* said before going */
	sd_event_source_disable_unref(fs->answer_timer);
	sd_event_source_disable_unref(fs->outbox_timer);
	sd_event_source_disable_unref(fs->summary_timer);
	sd_event_source_disable_unref(fs->members_timer);
	free(fs->members);
	free(fs);
	m->fleet_state = NULL;
}
