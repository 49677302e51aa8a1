// SPDX-License-Identifier: GPL-2.0-only
/*
 * latencyd's state as Prometheus metrics, in the text exposition format (0.0.4), which
 * node_exporter's textfile collector reads and `promtool check metrics` checks: one
 * renderer for `latencyctl metrics` and the textfile (metrics_file.c). Names follow the
 * Prometheus conventions: a `latencyd_` prefix, base units (seconds, bytes), `_total` on
 * counters, and labels for what a dashboard sums over (tracker, reason, status).
 *
 * The counters are the ones latencyd and the module keep anyway: rendering reads them and
 * the trackers' sysfs files (microseconds), on the main loop, never on the realtime waiter.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include <json-c/json.h>

#include "fleet_state.h"
#include "log.h"
#include "manager.h"
#include "metrics.h"
#include "metrics_internal.h"
#include "thread.h"

/* The family being written: a sample of another name starts a new one. */
struct prom {
	FILE *f;
};

static void family(struct prom *p, const char *name, const char *type, const char *help)
{
	fprintf(p->f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* A label value as the format spells it: backslash, double quote and newline escaped. */
static void label_value(FILE *f, const char *v)
{
	for (; *v; v++) {
		if (*v == '\\' || *v == '"')
			fprintf(f, "\\%c", *v);
		else if (*v == '\n')
			fputs("\\n", f);
		else
			fputc(*v, f);
	}
}

/* NAME{K1="V1",K2="V2"} VALUE: LABELS is NULL or a NULL-terminated list of pairs. */
static void sample(struct prom *p, const char *name, const char *const *labels, uint64_t value)
{
	fputs(name, p->f);
	for (size_t i = 0; labels && labels[i]; i += 2) {
		fprintf(p->f, "%s%s=\"", i ? "," : "{", labels[i]);
		label_value(p->f, labels[i + 1]);
		fputc('"', p->f);
	}
	fprintf(p->f, "%s %" PRIu64 "\n", labels && labels[0] ? "}" : "", value);
}

static void sample_seconds(struct prom *p, const char *name, uint64_t ns)
{
	fprintf(p->f, "%s %.9f\n", name, (double)ns / 1e9);
}

static void one(struct prom *p, const char *name, const char *type, const char *help,
		uint64_t value)
{
	family(p, name, type, help);
	sample(p, name, NULL, value);
}

struct tracker_counters {
	uint64_t alerts, timeouts, drops, pairs;
};

static void tracker_counter(const char *counter, uint64_t value, void *userdata)
{
	struct tracker_counters *c = userdata;

	if (strcmp(counter, "alerts") == 0)
		c->alerts = value;
	else if (strcmp(counter, "timeouts") == 0)
		c->timeouts = value;
	else if (strcmp(counter, "drops") == 0)
		c->drops = value;
	else if (strcmp(counter, "delay_count") == 0)
		c->pairs = value;
}

/* The module's own counters, per tracker loaded (its sysfs files). */
static void trackers(struct prom *p, const struct manager *m)
{
	struct tracker_counters *c = NULL;
	char **names = NULL;
	size_t n = 0;

	if (ktracker_list(m->sysfs_root, &names, &n) < 0 || !n || !(c = calloc(n, sizeof(*c)))) {
		ktracker_list_free(names, n);
		return;
	}
	for (size_t i = 0; i < n; i++)
		ktracker_stats(m->sysfs_root, names[i], tracker_counter, &c[i]);
	family(p, "latencyd_tracker_alerts_total", "counter",
	       "Alerts a tracker of the latency_tracker module raised, by reason: a delay past "
	       "its threshold, or a pair left open past its timeout (the module counts there "
	       "too the last alert of a pair it discarded as stale, a snapshot's reason "
	       "discarded).");
	for (size_t i = 0; i < n; i++) {
		sample(p, "latencyd_tracker_alerts_total",
		       (const char *const[]){"tracker", names[i], "reason", "threshold", NULL},
		       c[i].alerts);
		sample(p, "latencyd_tracker_alerts_total",
		       (const char *const[]){"tracker", names[i], "reason", "timeout", NULL},
		       c[i].timeouts);
	}
	family(p, "latencyd_tracker_pairs_total", "counter",
	       "Entry and exit events a tracker paired, each a delay measured.");
	for (size_t i = 0; i < n; i++)
		sample(p, "latencyd_tracker_pairs_total",
		       (const char *const[]){"tracker", names[i], NULL}, c[i].pairs);
	family(p, "latencyd_tracker_dropped_events_total", "counter",
	       "Events a tracker could not pair or report: table full, invalid key, nested on "
	       "its CPU, suppressed or throttled alerts, stale or discarded keys.");
	for (size_t i = 0; i < n; i++)
		sample(p, "latencyd_tracker_dropped_events_total",
		       (const char *const[]){"tracker", names[i], NULL}, c[i].drops);
	metrics_histograms(p->f, m, names, n);
	free(c);
	ktracker_list_free(names, n);
}

static void recorder_metrics(struct prom *p, struct manager *m)
{
	struct recorder_status st;

	recorder_status(m->recorder, &st);
	one(p, "latencyd_alerts_taken_total", "counter",
	    "Kernel alerts and manual records (latencyctl record) latencyd's waiter took.",
	    st.counters.alerts);
	one(p, "latencyd_peer_alerts_taken_total", "counter",
	    "Fleet peers' alerts latencyd's waiter took, to record this host's history too.",
	    st.counters.peers);
	family(p, "latencyd_snapshots_total", "counter",
	       "Snapshot records latencyd made, by status: complete or failed.");
	sample(p, "latencyd_snapshots_total", (const char *const[]){"status", "complete", NULL},
	       st.counters.snapshots);
	sample(p, "latencyd_snapshots_total", (const char *const[]){"status", "failed", NULL},
	       st.counters.failed);
	one(p, "latencyd_snapshot_causes_total", "counter",
	    "Alerts that are causes of a snapshot (several may share one record).",
	    st.counters.causes);
	family(p, "latencyd_alerts_suppressed_total", "counter",
	       "Alerts not recorded, by who refused them: latencyd's rate limits, or the "
	       "module's global alert limit.");
	sample(p, "latencyd_alerts_suppressed_total",
	       (const char *const[]){"by", "rate_limit", NULL}, st.counters.suppressed);
	sample(p, "latencyd_alerts_suppressed_total", (const char *const[]){"by", "kernel", NULL},
	       st.counters.kernel_suppressed);
	one(p, "latencyd_alerts_lost_total", "counter",
	    "Alert records the waiter missed (it read the notification file too slowly).",
	    st.counters.lost);
	one(p, "latencyd_alert_reads_unreadable_total", "counter",
	    "Reads of the notification file the waiter dropped whole, with the alerts in them: "
	    "a record in them was not the latency_tracker module's (a module of another ABI).",
	    st.counters.garbage);
	one(p, "latencyd_reader_failed_total", "counter",
	    "Snapshot reads latencyd-reader gave no result for (killed by a signal, past its "
	    "memory bound or time, garbage): their history and analysis failed, the log says why.",
	    st.counters.reader_failed);
	one(p, "latencyd_waiter_threads_ended", "gauge",
	    "Realtime waiter threads that stopped on an error (the log says why); once all of "
	    "them did, latencyd stops (exit status 1) for a restart.",
	    st.waiter_ended);
	if (st.counters.snapshots + st.counters.failed > 0) {
		family(p, "latencyd_detect_to_record_seconds", "gauge",
		       "From an alert's end to its snapshot record's start: the last one, and the "
		       "largest since latencyd started.");
		fprintf(p->f, "latencyd_detect_to_record_seconds{stat=\"last\"} %.9f\n",
			(double)st.detect_last_ns / 1e9);
		fprintf(p->f, "latencyd_detect_to_record_seconds{stat=\"max\"} %.9f\n",
			(double)st.detect_max_ns / 1e9);
	}
}

static uint64_t member_u64(struct json_object *o, const char *key)
{
	struct json_object *v;

	return json_object_object_get_ex(o, key, &v) ? (uint64_t)json_object_get_int64(v) : 0;
}

static void catalog_metrics(struct prom *p, struct manager *m)
{
	struct catalog_deletions d;
	uint64_t bytes = 0;

	manager_catalog_recheck(m); /* first: a directory found gone holds 0 bytes */
	/* Sizes from a damaged catalog may add up past 2^64: a sum that wrapped would look small. */
	for (size_t i = 0; i < catalog_count(m->catalog); i++) {
		uint64_t b = catalog_at(m->catalog, i)->bytes;

		bytes = b > UINT64_MAX - bytes ? UINT64_MAX : bytes + b;
	}
	one(p, "latencyd_catalog_snapshots", "gauge",
	    "Snapshots the catalog holds (after retention).", catalog_count(m->catalog));
	one(p, "latencyd_catalog_bytes", "gauge",
	    "Bytes the catalog's local snapshots take on disk.", bytes);
	catalog_deletions(m->catalog, &d);
	one(p, "latencyd_retention_undeletable_snapshots", "gauge",
	    "Local snapshots whose last deletion, by retention or a client, failed: on disk "
	    "whole or in part, taking room retention cannot free (show-snapshot says where and "
	    "why).",
	    d.undeletable);
	one(p, "latencyd_retention_deleted_in_part_total", "counter",
	    "Deletions of a local snapshot that failed past their check, leaving part of it.",
	    d.deleted_in_part);
	one(p, "latencyd_retention_forgotten_total", "counter",
	    "Undeletable local snapshots dropped from the catalog past its 20000 entries, their "
	    "files left on disk.",
	    d.forgotten);
	if (m->last_history && member_u64(m->last_history, PROTO_KEY_WINDOW_NS)) {
		family(p, "latencyd_history_window_seconds", "gauge",
		       "How far back the last snapshot measured was complete: the history an "
		       "alert's snapshot explains.");
		sample_seconds(p, "latencyd_history_window_seconds",
			       member_u64(m->last_history, PROTO_KEY_WINDOW_NS));
	}
	if (m->last_history && member_u64(m->last_history, PROTO_KEY_EXPECTED_WINDOW_NS)) {
		family(p, "latencyd_history_expected_window_seconds", "gauge",
		       "The history the buffers hold at the last measured event rate.");
		sample_seconds(p, "latencyd_history_expected_window_seconds",
			       member_u64(m->last_history, PROTO_KEY_EXPECTED_WINDOW_NS));
	}
}

static void fleet_metrics(struct prom *p, struct manager *m)
{
	static const char *const dropped[] = {
		"malformed", "foreign", "mismatch", "duplicate", "busy", "stale", PROTO_KEY_UNKNOWN,
	};
	static const struct {
		const char *budget;
		enum answer_kind kind;
	} refusals[] = {{PROTO_FLEET_BUDGET_ORIGIN, ANSWER_ORIGIN},
			{PROTO_FLEET_BUDGET_TOTAL, ANSWER_TOTAL},
			{PROTO_FLEET_BUDGET_QUEUE, ANSWER_QUEUE}};
	struct fleet_status st;
	uint64_t counts[7];

	fleet_status(m->fleet, &st);
	memcpy(counts,
	       (uint64_t[]){st.malformed, st.foreign, st.mismatch, st.duplicate, st.busy, st.stale,
			    manager_fleet_unknown_results(m)},
	       sizeof(counts));
	one(p, "latencyd_fleet_connected", "gauge", "Whether the MQTT broker is connected (1).",
	    st.connected);
	one(p, "latencyd_fleet_members_online", "gauge",
	    "Members of this host's fleet group the broker says are online, other than this host.",
	    manager_fleet_members_online(m));
	one(p, "latencyd_fleet_incidents", "gauge",
	    "Fleet incidents this host keeps, its own and its peers': at most 256, each side's "
	    "oldest going first; peers' never push out its own newest 128.",
	    json_object_array_length(catalog_incidents(m->catalog)));
	family(p, "latencyd_fleet_messages_total", "counter",
	       "Fleet messages through the broker, by direction.");
	sample(p, "latencyd_fleet_messages_total",
	       (const char *const[]){"direction", "published", NULL}, st.published);
	sample(p, "latencyd_fleet_messages_total",
	       (const char *const[]){"direction", "received", NULL}, st.received);
	one(p, "latencyd_fleet_publish_failures_total", "counter",
	    "Fleet messages the broker did not take.", st.publish_failed);
	one(p, "latencyd_fleet_reconnects_total", "counter", "Connections to the broker lost.",
	    st.reconnects);
	family(p, "latencyd_fleet_dropped_messages_total", "counter",
	       "Messages from the broker refused, by reason: malformed or oversized, another "
	       "group, a host not the topic's, a duplicate, the waiter's queue full, stale, "
	       "unknown (a result naming an incident that this host does not keep).");
	for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); i++)
		sample(p, "latencyd_fleet_dropped_messages_total",
		       (const char *const[]){"reason", dropped[i], NULL}, counts[i]);
	family(p, "latencyd_fleet_refusals_total", "counter",
	       "Peers' alerts this host did not record, by the budget that refused them: the "
	       "origin's (fleet.peer_rate), all origins' (fleet.total_rate), the queue of peer "
	       "alerts waiting.");
	for (size_t i = 0; i < sizeof(refusals) / sizeof(refusals[0]); i++)
		sample(p, "latencyd_fleet_refusals_total",
		       (const char *const[]){"budget", refusals[i].budget, NULL},
		       m->fleet_state ? m->fleet_state->answered[refusals[i].kind] : 0);
	one(p, "latencyd_fleet_helper_restarts_total", "counter",
	    "Times latencyd-fleet (the MQTT process) died and was started again.", st.restarts);
	one(p, "latencyd_fleet_rejected_records_total", "counter",
	    "Records from latencyd-fleet that failed latencyd's own check.", st.rejected);
	one(p, "latencyd_fleet_notes_dropped_total", "counter",
	    "What latencyd-fleet reported (peers' results, presences, connection changes) that "
	    "the main loop never saw: 256 were waiting for it already.",
	    st.notes_dropped);
	one(p, "latencyd_fleet_clock_skewed_total", "counter",
	    "Peers' alerts sent by a clock more than fleet.max_age / 2 from this host's, or "
	    "delivered that late.",
	    st.clock_skewed);
}

/* The control socket (control.c): its clients, and what became of connections. */
static void control_metrics(struct prom *p, struct manager *m)
{
	const struct control_stats *st = control_stats(m->control);

	one(p, "latencyd_control_clients", "gauge", "Clients connected to the control socket.",
	    control_clients(m->control));
	one(p, "latencyd_control_waiting", "gauge",
	    "Connections waiting for their user's groups from the group database, not yet "
	    "clients.",
	    control_waiting(m->control));
	one(p, "latencyd_control_max_clients", "gauge",
	    "Clients the control socket takes at once (control.max_clients).",
	    control_clients_max(m->control));
	one(p, "latencyd_control_accepted_total", "counter",
	    "Connections to the control socket accepted, those refused after included.",
	    st->accepted);
	family(p, "latencyd_control_refused_total", "counter",
	       "Control connections refused, by reason: not_authorized (at accept time, or "
	       "closed after a reload took their groups away), busy (no client slot or file "
	       "descriptor left for it).");
	sample(p, "latencyd_control_refused_total",
	       (const char *const[]){"reason", "not_authorized", NULL}, st->refused);
	sample(p, "latencyd_control_refused_total", (const char *const[]){"reason", "busy", NULL},
	       st->busy);
	one(p, "latencyd_control_dropped_slow_total", "counter",
	    "Clients dropped for not reading their output (past its limit, or none read for "
	    "30 s).",
	    st->dropped_slow);
	one(p, "latencyd_control_timed_out_total", "counter",
	    "Clients closed for sending no hello, or leaving a request unfinished, for 10 s.",
	    st->timed_out);
	one(p, "latencyd_control_bad_frames_total", "counter",
	    "Requests that were too large, not JSON, not UTF-8, or cut by the end of input.",
	    st->bad_frames);
	one(p, "latencyd_control_groups_timed_out_total", "counter",
	    "Connections closed (busy) because the group database did not give their user's "
	    "groups within 10 s of the hello.",
	    st->groups_timed_out);
	one(p, "latencyd_control_events_too_large_total", "counter",
	    "Watch events dropped for a client because one did not fit in a frame (64 KiB).",
	    st->events_too_large);
	one(p, "latencyd_control_accept_failures_total", "counter",
	    "Failed accepts on the control socket (out of descriptors or memory), retried each "
	    "second.",
	    st->accept_failed);
}

int manager_metrics_text(struct manager *m, char **text)
{
	struct prom p;
	size_t len;

	*text = NULL;
	p.f = open_memstream(text, &len);
	if (!p.f)
		return -errno;
	family(&p, "latencyd_info", "gauge", "latencyd's version, as a label.");
	sample(&p, "latencyd_info", (const char *const[]){"version", LATENCYD_VERSION, NULL}, 1);
	one(&p, "latencyd_module_loaded", "gauge",
	    "Whether the latency_tracker module is loaded with an ABI latencyd reads (1).",
	    m->module.state == KMODULE_LOADED);
	trackers(&p, m);
	if (m->recorder)
		recorder_metrics(&p, m);
	if (m->catalog)
		catalog_metrics(&p, m);
	if (m->fleet && m->catalog)
		fleet_metrics(&p, m);
	if (m->control)
		control_metrics(&p, m);
	one(&p, "latencyd_metrics_textfile_failures_total", "counter",
	    "Writes of metrics.textfile that failed (the log says why).", m->metrics_failures);
	if (fclose(p.f) != 0) {
		free(*text);
		*text = NULL;
		return -ENOMEM;
	}
	return 0;
}

/*
 * The renderings being read in parts: a read's later parts come from its first part's text,
 * under the id the first part's reply gave, so that a key appearing meanwhile cannot shift
 * their line numbers. A read's parts may come on several connections (latencyctl asks one
 * request per connection), so the id, not the connection, names them; but only the user
 * who asked the first part reads or ends one, its id is random (not the next after another
 * reader's), and a user holds at most PER_USER_MAX, so that no reader can end or push out
 * another user's read. Bounded: a reader that went away leaves its text for KEEP_NS after
 * the part it last asked, RENDERINGS_MAX are kept, and a new one pushes the oldest out past
 * KEPT_BYTES_MAX; a part asked of one no longer kept is an error, never another text.
 */
#define RENDERINGS_MAX METRICS_RENDERINGS_MAX
#define PER_USER_MAX   METRICS_RENDERINGS_PER_USER
#define KEEP_NS	       ((uint64_t)METRICS_KEEP_SEC * 1000000000)
#define KEPT_BYTES_MAX ((size_t)16 << 20)

struct rendering {
	char *text; /* NULL: a free place */
	size_t len;
	uint64_t id;
	uid_t owner;
	uint64_t used_ns; /* CLOCK_MONOTONIC: its last part asked */
};

struct metrics_renderings {
	struct rendering kept[RENDERINGS_MAX];
};

static void rendering_drop(struct rendering *k)
{
	free(k->text);
	*k = (struct rendering){0};
}

/* Drops the renderings not asked for in KEEP_NS; the bytes the others hold. */
static size_t renderings_expire(struct metrics_renderings *rs)
{
	uint64_t now = now_ns();
	size_t bytes = 0;

	for (size_t i = 0; i < RENDERINGS_MAX; i++) {
		struct rendering *k = &rs->kept[i];

		if (k->text && now - k->used_ns >= KEEP_NS)
			rendering_drop(k);
		bytes += k->text ? k->len : 0;
	}
	return bytes;
}

/* The oldest rendering kept (by its last use), OWNER's alone if MINE, or NULL. */
static struct rendering *renderings_oldest(struct metrics_renderings *rs, bool mine, uid_t owner)
{
	struct rendering *oldest = NULL;

	for (size_t i = 0; i < RENDERINGS_MAX; i++) {
		struct rendering *k = &rs->kept[i];

		if (k->text && (!mine || k->owner == owner) &&
		    (!oldest || k->used_ns < oldest->used_ns))
			oldest = k;
	}
	return oldest;
}

/*
 * A rendering's id: random, never 0, and below 2^53, the integers a reader of JSON as
 * doubles (jq, JavaScript) still reads exactly.
 */
static uint64_t rendering_id(void)
{
	uint64_t id = 0;

	while (!id) {
		if (getrandom(&id, sizeof(id), 0) != sizeof(id))
			id = now_ns() ^ ((uint64_t)rand() << 20);
		id &= (UINT64_C(1) << 53) - 1;
	}
	return id;
}

int manager_metrics_keep(struct manager *m, uid_t owner, char *text, uint64_t *id)
{
	struct metrics_renderings *rs = m->metrics_paged;
	size_t len = strlen(text), bytes, held = 0;
	struct rendering *k = NULL, *drop;

	if (!rs) {
		rs = m->metrics_paged = calloc(1, sizeof(*rs));
		if (!rs) {
			free(text);
			return -ENOMEM;
		}
	}
	bytes = renderings_expire(rs);
	for (size_t i = 0; i < RENDERINGS_MAX; i++)
		held += rs->kept[i].text && rs->kept[i].owner == owner;
	/* A user at its quota gives up its own oldest first: never another user's. */
	if (held >= PER_USER_MAX) {
		k = renderings_oldest(rs, true, owner);
		bytes -= k->len;
		rendering_drop(k);
	}
	for (size_t i = 0; i < RENDERINGS_MAX && !k; i++)
		if (!rs->kept[i].text)
			k = &rs->kept[i];
	while (!k || (bytes + len > KEPT_BYTES_MAX && bytes)) {
		drop = renderings_oldest(rs, false, owner);
		bytes -= drop->len;
		rendering_drop(drop);
		if (!k)
			k = drop;
	}
	*k = (struct rendering){.text = text,
				.len = len,
				.id = rendering_id(),
				.owner = owner,
				.used_ns = now_ns()};
	*id = k->id;
	return 0;
}

/* The place of OWNER's rendering ID if it is still kept, else NULL. */
static struct rendering *rendering_find(struct manager *m, uid_t owner, uint64_t id)
{
	struct metrics_renderings *rs = m->metrics_paged;

	if (!rs)
		return NULL;
	renderings_expire(rs);
	for (size_t i = 0; i < RENDERINGS_MAX; i++)
		if (rs->kept[i].text && rs->kept[i].id == id && rs->kept[i].owner == owner)
			return &rs->kept[i];
	return NULL;
}

int manager_metrics_kept(struct manager *m, uid_t owner, uint64_t id, const char **text)
{
	struct rendering *k = rendering_find(m, owner, id);

	if (!k)
		return -ENOENT;
	k->used_ns = now_ns();
	*text = k->text;
	return 0;
}

void manager_metrics_forget(struct manager *m, uid_t owner, uint64_t id)
{
	struct rendering *k = rendering_find(m, owner, id);

	if (k)
		rendering_drop(k);
}

void manager_metrics_paged_free(struct manager *m)
{
	struct metrics_renderings *rs = m->metrics_paged;

	if (!rs)
		return;
	for (size_t i = 0; i < RENDERINGS_MAX; i++)
		rendering_drop(&rs->kept[i]);
	free(rs);
	m->metrics_paged = NULL;
}
