/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * "status": the daemon (version, pid, uptime), the kernel module's state, and the flight
 * recorder's state (session, output, history, rate limits, counters) rendered from
 * struct recorder_status, local retention's failures, and the control socket's clients.
 */
#include <errno.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "commands.h"

static struct json_object *module_object(const struct kmodule_status *st, int *r)
{
	struct json_object *o = json_object_new_object();

	if (!o) {
		*r = -ENOMEM;
		return NULL;
	}
	result_add_string(o, PROTO_KEY_STATE, kmodule_state_to_string(st->state), r);
	result_add_bool(o, PROTO_KEY_LOADED, st->state != KMODULE_NOT_LOADED, r);
	if (st->abi_known) {
		result_add_int(o, PROTO_KEY_ABI_MAJOR, st->abi_major, r);
		result_add_int(o, PROTO_KEY_ABI_MINOR, st->abi_minor, r);
	}
	if (st->detail[0])
		result_add_string(o, PROTO_KEY_DETAIL, st->detail, r);
	return o;
}

static struct json_object *obj(void)
{
	return json_object_new_object();
}

static struct json_object *session_object(const struct manager *m, const struct recorder_status *st,
					  int *r)
{
	const struct conf *c = m->conf;
	struct json_object *o = obj();

	result_add_string(o, PROTO_KEY_NAME, c->session.name, r);
	result_add_string(o, PROTO_KEY_STATE, st->session_present ? "recording" : "absent", r);
	result_add_string(o, PROTO_KEY_DOMAIN,
			  c->session.domain == CONF_DOMAIN_KERNEL ? "kernel" : "userspace", r);
	result_add_int(o, PROTO_KEY_RECREATED, st->recreated, r);
	if (st->session_error)
		result_add_string(o, PROTO_KEY_DETAIL, flight_strerror(st->session_error), r);
	if (st->session_op) {
		result_add_string(o, PROTO_KEY_OPERATION, st->session_op, r);
		result_add_int(o, PROTO_KEY_OPERATION_NS, (int64_t)st->session_op_ns, r);
	}
	result_add_bool(o, PROTO_KEY_REALTIME, st->realtime, r);
	result_add_int(o, PROTO_KEY_WAITER_THREADS, (int64_t)st->waiter_threads, r);
	/* 1.17: of them, those that stopped on an error (the log says why) */
	result_add_int(o, PROTO_KEY_WAITER_ENDED, (int64_t)st->waiter_ended, r);
	result_add_bool(o, PROTO_KEY_MEMORY_LOCKED, m->memory_locked, r);
	return o;
}

static struct json_object *history_object(const struct manager *m, const struct recorder_status *st,
					  int *r)
{
	const struct conf *c = m->conf;
	uint64_t bytes = st->subbuf_size * c->session.num_subbuf;
	struct json_object *o = obj();

	result_add_int(o, PROTO_KEY_BUFFER_BYTES_PER_CPU, (int64_t)bytes, r);
	result_add_int(o, PROTO_KEY_SUBBUF_SIZE, (int64_t)st->subbuf_size, r);
	result_add_int(o, PROTO_KEY_NUM_SUBBUF, (int64_t)c->session.num_subbuf, r);
	if (st->history_target_ns) {
		/* session.history: what the buffers were sized for, and from which rate. */
		result_add_int(o, PROTO_KEY_TARGET_NS, (int64_t)st->history_target_ns, r);
		result_add_int(o, PROTO_KEY_RESIZED, st->resized, r);
		if (st->sized_events_per_sec > 0) {
			result_add(o, PROTO_KEY_SIZED_EVENTS_PER_SEC,
				   json_object_new_double(st->sized_events_per_sec), r);
			result_add(o, PROTO_KEY_SIZED_BYTES_PER_EVENT,
				   json_object_new_double(st->sized_bytes_per_event), r);
		}
	}
	if (m->last_history) {
		struct json_object *bpe = NULL, *eps = NULL;

		json_object_object_get_ex(m->last_history, PROTO_KEY_BYTES_PER_EVENT, &bpe);
		json_object_object_get_ex(m->last_history, PROTO_KEY_EVENTS_PER_SEC, &eps);
		result_add_int(o, PROTO_KEY_EXPECTED_WINDOW_NS,
			       (int64_t)history_expected_ns(bytes, json_object_get_double(bpe),
							    json_object_get_double(eps)),
			       r);
		result_add(o, PROTO_KEY_MEASURED, json_object_get(m->last_history), r);
	}
	return o;
}

/* The global bucket and [{tracker, rate, burst, tokens}] of the per-tracker ones. */
static struct json_object *ratelimit_object(const struct manager *m,
					    const struct recorder_status *st, int *r)
{
	struct json_object *o = obj(), *list = json_object_new_array();

	result_add(o, PROTO_KEY_RATE, json_object_new_double(m->conf->ratelimit.rate), r);
	result_add_int(o, PROTO_KEY_BURST, (int64_t)m->conf->ratelimit.burst, r);
	if (st->tokens >= 0)
		result_add(o, PROTO_KEY_TOKENS, json_object_new_double(st->tokens), r);
	for (size_t i = 0; list && i < st->n_buckets && *r >= 0; i++) {
		const struct recorder_bucket *b = &st->buckets[i];
		struct json_object *t = obj();

		result_add_string(t, PROTO_KEY_TRACKER, b->tracker, r);
		result_add(t, PROTO_KEY_RATE, json_object_new_double(b->rate), r);
		result_add(t, PROTO_KEY_BURST, json_object_new_double(b->burst), r);
		if (b->tokens >= 0)
			result_add(t, PROTO_KEY_TOKENS, json_object_new_double(b->tokens), r);
		if (*r >= 0 && json_object_array_add(list, t) < 0)
			*r = -ENOMEM;
		if (*r < 0)
			json_object_put(t);
	}
	result_add(o, PROTO_KEY_TRACKERS, list, r);
	return o;
}

static struct json_object *counters_object(const struct recorder_status *st, int *r)
{
	struct json_object *o = obj();

	result_add_int(o, PROTO_KEY_ALERTS, (int64_t)st->counters.alerts, r);
	result_add_int(o, PROTO_KEY_SNAPSHOTS, (int64_t)st->counters.snapshots, r);
	result_add_int(o, PROTO_KEY_FAILED, (int64_t)st->counters.failed, r);
	result_add_int(o, PROTO_KEY_CAUSES, (int64_t)st->counters.causes, r);
	result_add_int(o, PROTO_KEY_SUPPRESSED, (int64_t)st->counters.suppressed, r);
	result_add_int(o, PROTO_KEY_KERNEL_SUPPRESSED, (int64_t)st->counters.kernel_suppressed, r);
	result_add_int(o, PROTO_KEY_LOST, (int64_t)st->counters.lost, r);
	result_add_int(o, PROTO_KEY_PEERS, (int64_t)st->counters.peers, r);
	/* 1.17: reads of the notification file dropped, a record in them not the module's */
	result_add_int(o, PROTO_KEY_UNREADABLE, (int64_t)st->counters.garbage, r);
	/* 1.23: snapshot reads latencyd-reader gave no result for */
	result_add_int(o, PROTO_KEY_READER_FAILED, (int64_t)st->counters.reader_failed, r);
	if (st->counters.snapshots + st->counters.failed > 0) {
		result_add_int(o, PROTO_KEY_DETECT_LAST_NS, st->detect_last_ns, r);
		result_add_int(o, PROTO_KEY_DETECT_MAX_NS, st->detect_max_ns, r);
	}
	return o;
}

/* The broker connection and what came and went through it. */
static struct json_object *fleet_object(struct manager *m, int *r)
{
	struct json_object *o = obj(), *dropped = obj(), *proc = obj();
	struct fleet_status st;

	fleet_status(m->fleet, &st);
	result_add_bool(o, PROTO_KEY_CONNECTED, st.connected, r);
	result_add_bool(o, PROTO_KEY_SUBSCRIBED, st.subscribed, r);
	result_add_int(o, PROTO_KEY_MEMBERS_ONLINE, (int64_t)manager_fleet_members_online(m), r);
	result_add_string(o, PROTO_KEY_BROKER, st.broker, r);
	result_add_string(o, PROTO_KEY_HOST, st.host, r);
	result_add_string(o, PROTO_KEY_GROUP, st.group, r);
	if (st.detail[0])
		result_add_string(o, PROTO_KEY_DETAIL, st.detail, r);
	result_add_int(o, PROTO_KEY_PUBLISHED, (int64_t)st.published, r);
	result_add_int(o, PROTO_KEY_FAILED, (int64_t)st.publish_failed, r);
	result_add_int(o, PROTO_KEY_RECEIVED, (int64_t)st.received, r);
	result_add_int(o, PROTO_KEY_RECONNECTS, (int64_t)st.reconnects, r);
	result_add_int(dropped, "malformed", (int64_t)st.malformed, r);
	result_add_int(dropped, "foreign", (int64_t)st.foreign, r);
	result_add_int(dropped, "mismatch", (int64_t)st.mismatch, r);
	result_add_int(dropped, "duplicate", (int64_t)st.duplicate, r);
	result_add_int(dropped, "busy", (int64_t)st.busy, r);
	result_add_int(dropped, "stale", (int64_t)st.stale, r);
	/* 1.17: results naming an incident this host does not keep */
	result_add_int(dropped, PROTO_KEY_UNKNOWN, (int64_t)manager_fleet_unknown_results(m), r);
	result_add(o, PROTO_KEY_DROPPED, dropped, r);
	result_add_int(o, PROTO_KEY_NOTES_DROPPED, (int64_t)st.notes_dropped, r);
	result_add_int(o, PROTO_KEY_CLOCK_SKEWED, (int64_t)st.clock_skewed, r);
	/* latencyd-fleet: pid 0 while it is down, to be started again */
	result_add_int(proc, PROTO_KEY_PID, st.pid, r);
	result_add_string(proc, PROTO_KEY_USER, st.user, r);
	result_add_int(proc, PROTO_KEY_RESTARTS, (int64_t)st.restarts, r);
	result_add_int(proc, PROTO_KEY_REJECTED, (int64_t)st.rejected, r);
	result_add(o, PROTO_KEY_PROCESS, proc, r);
	return o;
}

/* On the collector: lttng-relayd's tree as the last retention pass left it. */
static struct json_object *collector_object(struct manager *m, int *r)
{
	struct json_object *o = obj();
	struct collector_status st;

	if (!manager_collector_status(m, &st))
		return o;
	result_add_string(o, PROTO_KEY_DIRECTORY, m->conf->collector.directory, r);
	result_add_int(o, PROTO_KEY_INCIDENTS, (int64_t)st.kept, r);
	result_add_int(o, PROTO_KEY_BYTES, (int64_t)st.kept_bytes, r);
	result_add_int(o, PROTO_KEY_DELETED, (int64_t)st.deleted, r);
	result_add_int(o, PROTO_KEY_DELETED_BYTES, (int64_t)st.deleted_bytes, r);
	result_add_int(o, PROTO_KEY_DELETED_IN_PART, (int64_t)st.deleted_in_part, r);
	result_add_int(o, PROTO_KEY_LAST_PASS, (int64_t)st.last_pass_realtime_ns, r);
	if (st.problem[0])
		result_add_string(o, PROTO_KEY_PROBLEM, st.problem, r);
	return o;
}

/* The local snapshots that deletions left on disk, whole or in part (catalog.c). */
static struct json_object *retention_object(struct manager *m, int *r)
{
	struct json_object *o = obj();
	struct catalog_deletions d;

	manager_catalog_recheck(m);
	catalog_deletions(m->catalog, &d);
	result_add_int(o, PROTO_KEY_UNDELETABLE, (int64_t)d.undeletable, r);
	result_add_int(o, PROTO_KEY_DELETED_IN_PART, (int64_t)d.deleted_in_part, r);
	return o;
}

static void add_recorder(struct manager *m, struct json_object *o, int *r)
{
	const struct conf *c = m->conf;
	struct recorder_status st;
	struct json_object *out = obj();

	recorder_status(m->recorder, &st);
	result_add_string(out, PROTO_KEY_DIRECTORY, c->output.directory, r);
	result_add_string(out, PROTO_KEY_RELAYD, c->output.relayd, r);
	result_add_bool(out, PROTO_KEY_FALLBACK_LOCAL, c->output.fallback_local, r);
	result_add(o, PROTO_KEY_SESSION, session_object(m, &st, r), r);
	result_add(o, PROTO_KEY_OUTPUT, out, r);
	result_add(o, PROTO_KEY_HISTORY, history_object(m, &st, r), r);
	result_add(o, PROTO_KEY_RATELIMIT, ratelimit_object(m, &st, r), r);
	result_add(o, PROTO_KEY_COUNTERS, counters_object(&st, r), r);
	if (m->catalog)
		result_add(o, PROTO_KEY_RETENTION, retention_object(m, r), r);
	if (m->fleet)
		result_add(o, PROTO_KEY_FLEET, fleet_object(m, r), r);
}

/* The control socket: who is connected, and what became of connections (control.c). */
static struct json_object *control_object(const struct manager *m, int *r)
{
	const struct control_stats *st = control_stats(m->control);
	struct json_object *o = obj();

	result_add_int(o, PROTO_KEY_CLIENTS, control_clients(m->control), r);
	result_add_int(o, PROTO_KEY_MAX_CLIENTS, control_clients_max(m->control), r);
	result_add_int(o, PROTO_KEY_ACCEPTED, (int64_t)st->accepted, r);
	result_add_int(o, PROTO_KEY_REFUSED, (int64_t)st->refused, r);
	result_add_int(o, PROTO_KEY_BUSY, (int64_t)st->busy, r);
	result_add_int(o, PROTO_KEY_DROPPED_SLOW, (int64_t)st->dropped_slow, r);
	result_add_int(o, PROTO_KEY_TIMED_OUT, (int64_t)st->timed_out, r);
	result_add_int(o, PROTO_KEY_BAD_FRAMES, (int64_t)st->bad_frames, r);
	result_add_int(o, PROTO_KEY_ACCEPT_FAILED, (int64_t)st->accept_failed, r);
	result_add_int(o, PROTO_KEY_GROUPS_TIMED_OUT, (int64_t)st->groups_timed_out, r);
	result_add_int(o, PROTO_KEY_WAITING, control_waiting(m->control), r);
	result_add_int(o, PROTO_KEY_EVENTS_TOO_LARGE, (int64_t)st->events_too_large, r);
	return o;
}

int cmd_status(struct manager *m, const struct control_caller *caller, struct json_object *args,
	       struct json_object **result, struct proto_error *err)
{
	struct json_object *o;
	uint64_t now;
	int r;

	r = args_none(args, err);
	if (r < 0)
		return r;

	manager_refresh_module(m);
	r = sd_event_now(m->event, CLOCK_MONOTONIC, &now);
	if (r < 0)
		return r;

	o = json_object_new_object();
	if (!o)
		return -ENOMEM;
	result_add_string(o, PROTO_KEY_VERSION, LATENCYD_VERSION, &r);
	result_add_int(o, PROTO_KEY_PID, getpid(), &r);
	result_add_int(o, PROTO_KEY_UPTIME_USEC, (int64_t)(now - m->start_usec), &r);
	result_add(o, PROTO_KEY_MODULE, module_object(&m->module, &r), &r);
	if (m->recorder)
		add_recorder(m, o, &r);
	if (m->collector)
		result_add(o, PROTO_KEY_COLLECTOR, collector_object(m, &r), &r);
	if (m->control)
		result_add(o, PROTO_KEY_CONTROL, control_object(m, &r), &r);
	return result_done(o, r, result);
}
