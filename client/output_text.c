/* SPDX-License-Identifier: GPL-2.0-only */
/* Text output: label/value tables aligned on the longest label, durations with units. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <json-c/json.h>

#include "latencyctl.h"

/* Label/value rows, as many as come, each value as long as it is. */
struct table {
	size_t n, cap;
	struct {
		const char *label;
		char *value;
	} * rows;
	bool failed; /* out of memory: a row is missing */
};

__attribute__((format(printf, 3, 4))) static void row(struct table *t, const char *label,
						      const char *fmt, ...)
{
	char *value = NULL;
	va_list ap;

	if (t->failed)
		return;
	if (t->n == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 32;
		void *rows = realloc(t->rows, cap * sizeof(*t->rows));

		if (!rows) {
			t->failed = true;
			return;
		}
		t->rows = rows;
		t->cap = cap;
	}
	va_start(ap, fmt);
	if (vasprintf(&value, fmt, ap) < 0)
		value = NULL;
	va_end(ap);
	if (!value) {
		t->failed = true;
		return;
	}
	t->rows[t->n].label = label;
	t->rows[t->n].value = value;
	t->n++;
}

static void table_done(struct table *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->rows[i].value);
	free(t->rows);
	t->rows = NULL;
	t->n = t->cap = 0;
}

/* Prints the rows and frees them: EXIT_OK, or EXIT_CONNECT when one was lost. */
static int print_table(struct table *t)
{
	int width = 0;

	for (size_t i = 0; i < t->n; i++)
		if ((int)strlen(t->rows[i].label) > width)
			width = (int)strlen(t->rows[i].label);
	for (size_t i = 0; i < t->n; i++)
		printf("%-*s  %s\n", width, t->rows[i].label, t->rows[i].value);
	table_done(t);
	if (!t->failed)
		return EXIT_OK;
	fprintf(stderr, "latencyctl: out of memory: rows left out\n");
	return EXIT_CONNECT;
}

struct status_module {
	const char *state;
	bool loaded;
	int64_t abi_major, abi_minor;
	const char *detail;
};

struct status {
	const char *version;
	int64_t pid, uptime_usec;
	struct json_object *module;
	struct json_object *session, *output, *history, *ratelimit, *counters, *fleet;
	struct json_object *collector, *control, *retention;
};

/* The control socket (1.12): "2 clients (max 64); 3 busy, 1 dropped slow, ...", and a row for
 * the group database only once a connection waited for it (1.18, 1.19), one for dropped
 * events once one was (1.21). */
static int control_row(struct table *t, struct json_object *control)
{
	struct {
		int64_t clients, max_clients, accepted, refused, busy, dropped_slow, timed_out,
			bad_frames, accept_failed, groups_timed_out, waiting, events_too_large;
	} c = {0};
#define CTL(f) offsetof(__typeof__(c), f)
	const struct proto_field fields[] = {
		{PROTO_KEY_CLIENTS, PROTO_FIELD_INT, 0, CTL(clients)},
		{PROTO_KEY_MAX_CLIENTS, PROTO_FIELD_INT, 0, CTL(max_clients)},
		{PROTO_KEY_ACCEPTED, PROTO_FIELD_INT, 0, CTL(accepted)},
		{PROTO_KEY_REFUSED, PROTO_FIELD_INT, 0, CTL(refused)},
		{PROTO_KEY_BUSY, PROTO_FIELD_INT, 0, CTL(busy)},
		{PROTO_KEY_DROPPED_SLOW, PROTO_FIELD_INT, 0, CTL(dropped_slow)},
		{PROTO_KEY_TIMED_OUT, PROTO_FIELD_INT, 0, CTL(timed_out)},
		{PROTO_KEY_BAD_FRAMES, PROTO_FIELD_INT, 0, CTL(bad_frames)},
		{PROTO_KEY_ACCEPT_FAILED, PROTO_FIELD_INT, 0, CTL(accept_failed)},
		{PROTO_KEY_GROUPS_TIMED_OUT, PROTO_FIELD_INT, 0, CTL(groups_timed_out)},
		{PROTO_KEY_WAITING, PROTO_FIELD_INT, 0, CTL(waiting)},
		{PROTO_KEY_EVENTS_TOO_LARGE, PROTO_FIELD_INT, 0, CTL(events_too_large)},
		{NULL},
	};
#undef CTL
	int r = result_dispatch(control, fields, &c, "control status");

	if (r != EXIT_OK)
		return r;
	row(t, "Control:", "%" PRId64 " client(s) of %" PRId64 "; %" PRId64 " accepted", c.clients,
	    c.max_clients, c.accepted);
	row(t, "",
	    "%" PRId64 " refused, %" PRId64 " busy, %" PRId64 " dropped slow, %" PRId64
	    " timed out, %" PRId64 " bad frame(s), %" PRId64 " failed accept(s)",
	    c.refused, c.busy, c.dropped_slow, c.timed_out, c.bad_frames, c.accept_failed);
	if (c.waiting || c.groups_timed_out)
		row(t, "",
		    "%" PRId64 " waiting for their user's groups, %" PRId64
		    " closed for want of them (busy)",
		    c.waiting, c.groups_timed_out);
	if (c.events_too_large)
		row(t, "", "%" PRId64 " watch event(s) dropped, too large for a frame",
		    c.events_too_large);
	return EXIT_OK;
}

/* 1.13: local snapshots deletions left on disk; a row only when there are some. */
static int retention_row(struct table *t, struct json_object *retention)
{
	struct {
		int64_t undeletable, deleted_in_part;
	} d = {0};
	const struct proto_field fields[] = {
		{PROTO_KEY_UNDELETABLE, PROTO_FIELD_INT, 0, offsetof(__typeof__(d), undeletable)},
		{PROTO_KEY_DELETED_IN_PART, PROTO_FIELD_INT, 0,
		 offsetof(__typeof__(d), deleted_in_part)},
		{NULL},
	};
	int r = result_dispatch(retention, fields, &d, "retention status");

	if (r == EXIT_OK && (d.undeletable || d.deleted_in_part))
		row(t, "Retention:",
		    "%" PRId64
		    " snapshot(s) retention cannot delete (show-snapshot says where and why); "
		    "%" PRId64 " deletion(s) failed part way since start",
		    d.undeletable, d.deleted_in_part);
	return r;
}

/* The flight recorder's part of status: absent when latencyd runs without a session. */
struct status_recorder {
	const char *name, *state, *domain, *detail, *directory, *relayd;
	const char *operation; /* 1.14 */
	int64_t operation_ns;
	int64_t recreated, buffer, subbuf_size, num_subbuf, burst, expected_ns;
	int64_t target_ns, resized;
	double sized_eps, sized_bpe;
	struct json_object *measured, *rl_trackers;
	bool realtime, memory_locked, fallback_local;
	double rate, tokens;
	int64_t alerts, snapshots, failed, causes, suppressed, kernel_suppressed, lost;
	int64_t detect_last_ns, detect_max_ns, waiter_threads;
	int64_t waiter_ended, unreadable; /* 1.17 */
	int64_t reader_failed;		  /* 1.23 */
};

/* The last measured history: "510ms (buffers full), snapshot 3 at 12:03:04". */
static void measured_rows(struct table *t, const struct status_recorder *rc)
{
	struct json_object *m = rc->measured, *v;
	char window[48], expected[48], when[16] = "?", source[48];
	double eps = 0, bpe = 0;
	bool wrapped;
	time_t tt;
	struct tm tm;

	if (!m) {
		row(t, "History window:",
		    "not measured yet (from the first snapshot, or a "
		    "calibration snapshot soon after start)");
		return;
	}
	if (json_object_object_get_ex(m, PROTO_KEY_EVENTS_PER_SEC, &v))
		eps = json_object_get_double(v);
	if (json_object_object_get_ex(m, PROTO_KEY_BYTES_PER_EVENT, &v))
		bpe = json_object_get_double(v);
	if (json_object_object_get_ex(m, PROTO_KEY_TIME, &v) &&
	    (tt = (time_t)json_object_get_int64(v)) > 0 && localtime_r(&tt, &tm))
		strftime(when, sizeof(when), "%H:%M:%S", &tm);
	ns_text(window, sizeof(window), m, PROTO_KEY_WINDOW_NS, false);
	if (rc->expected_ns > 0)
		proto_duration_format(expected, sizeof(expected), (uint64_t)rc->expected_ns);
	else
		snprintf(expected, sizeof(expected), "unknown (no event rate)");
	row(t, "History window:", "expected %s (%.0f events/s x %.1f bytes on the busiest CPU)",
	    expected, eps, bpe);
	if (json_object_object_get_ex(m, PROTO_KEY_ID, &v))
		snprintf(source, sizeof(source), "snapshot %" PRId64, json_object_get_int64(v));
	else
		snprintf(source, sizeof(source), "the calibration snapshot");
	if (json_object_object_get_ex(m, PROTO_KEY_SAMPLED, &v) && json_object_get_boolean(v)) {
		row(t, "", "rate measured in a sample of the buffers (%s) at %s", source, when);
		return;
	}
	wrapped = json_object_object_get_ex(m, PROTO_KEY_WRAPPED, &v) && json_object_get_boolean(v);
	row(t, "", "measured %s%s in %s at %s", window,
	    wrapped ? " (buffers full)" : " (buffers not full: all since the session started)",
	    source, when);
}

/* "syscalls 0.5/s burst 2 (1.0 now)" for each per-tracker bucket. */
static void ratelimit_tracker_rows(struct table *t, struct json_object *list)
{
	for (size_t i = 0; list && i < json_object_array_length(list); i++) {
		struct json_object *b = json_object_array_get_idx(list, i), *v;
		const char *name = "?";
		double rate = 0, burst = 0, tokens = -1;

		if (json_object_object_get_ex(b, PROTO_KEY_TRACKER, &v))
			name = json_str(v, "?");
		if (json_object_object_get_ex(b, PROTO_KEY_RATE, &v))
			rate = json_object_get_double(v);
		if (json_object_object_get_ex(b, PROTO_KEY_BURST, &v))
			burst = json_object_get_double(v);
		if (json_object_object_get_ex(b, PROTO_KEY_TOKENS, &v))
			tokens = json_object_get_double(v);
		if (rate > 0)
			row(t, "", "%s: %g/s, burst %g, %.1f token(s) now", name, rate, burst,
			    tokens);
		else
			row(t, "", "%s: no limit", name);
	}
}

/* The session's operation under way: "re-create: waiting for lttng-sessiond for 12.0 s
 * (since 10:02:03)". */
static void operation_row(struct table *t, const char *op, int64_t ns)
{
	time_t since = time(NULL) - (time_t)(ns / 1000000000);
	char when[16] = "?";
	struct tm tm;

	if (localtime_r(&since, &tm))
		strftime(when, sizeof(when), "%H:%M:%S", &tm);
	row(t, "", "%s: waiting for lttng-sessiond for %.1f s (since %s)", op, (double)ns / 1e9,
	    when);
}

#define REC(f) offsetof(struct status_recorder, f)

static int recorder_rows(struct table *t, const struct status *st)
{
	static const struct proto_field session_fields[] = {
		{PROTO_KEY_NAME, PROTO_FIELD_STRING, 0, REC(name)},
		{PROTO_KEY_STATE, PROTO_FIELD_STRING, 0, REC(state)},
		{PROTO_KEY_DOMAIN, PROTO_FIELD_STRING, 0, REC(domain)},
		{PROTO_KEY_DETAIL, PROTO_FIELD_STRING, 0, REC(detail)},
		{PROTO_KEY_RECREATED, PROTO_FIELD_INT, 0, REC(recreated)},
		{PROTO_KEY_REALTIME, PROTO_FIELD_BOOL, 0, REC(realtime)},
		{PROTO_KEY_MEMORY_LOCKED, PROTO_FIELD_BOOL, 0, REC(memory_locked)},
		{PROTO_KEY_WAITER_THREADS, PROTO_FIELD_INT, 0, REC(waiter_threads)},
		{PROTO_KEY_WAITER_ENDED, PROTO_FIELD_INT, 0, REC(waiter_ended)},
		{PROTO_KEY_OPERATION, PROTO_FIELD_STRING, 0, REC(operation)},
		{PROTO_KEY_OPERATION_NS, PROTO_FIELD_INT, 0, REC(operation_ns)},
		{NULL},
	};
	static const struct proto_field output_fields[] = {
		{PROTO_KEY_DIRECTORY, PROTO_FIELD_STRING, 0, REC(directory)},
		{PROTO_KEY_RELAYD, PROTO_FIELD_STRING, 0, REC(relayd)},
		{PROTO_KEY_FALLBACK_LOCAL, PROTO_FIELD_BOOL, 0, REC(fallback_local)},
		{NULL},
	};
	static const struct proto_field history_fields[] = {
		{PROTO_KEY_BUFFER_BYTES_PER_CPU, PROTO_FIELD_INT, 0, REC(buffer)},
		{PROTO_KEY_SUBBUF_SIZE, PROTO_FIELD_INT, 0, REC(subbuf_size)},
		{PROTO_KEY_NUM_SUBBUF, PROTO_FIELD_INT, 0, REC(num_subbuf)},
		{PROTO_KEY_EXPECTED_WINDOW_NS, PROTO_FIELD_INT, 0, REC(expected_ns)},
		{PROTO_KEY_TARGET_NS, PROTO_FIELD_INT, 0, REC(target_ns)},
		{PROTO_KEY_RESIZED, PROTO_FIELD_INT, 0, REC(resized)},
		{PROTO_KEY_SIZED_EVENTS_PER_SEC, PROTO_FIELD_DOUBLE, 0, REC(sized_eps)},
		{PROTO_KEY_SIZED_BYTES_PER_EVENT, PROTO_FIELD_DOUBLE, 0, REC(sized_bpe)},
		{PROTO_KEY_MEASURED, PROTO_FIELD_OBJECT, 0, REC(measured)},
		{NULL},
	};
	static const struct proto_field ratelimit_fields[] = {
		{PROTO_KEY_RATE, PROTO_FIELD_DOUBLE, 0, REC(rate)},
		{PROTO_KEY_BURST, PROTO_FIELD_INT, 0, REC(burst)},
		{PROTO_KEY_TOKENS, PROTO_FIELD_DOUBLE, 0, REC(tokens)},
		{PROTO_KEY_TRACKERS, PROTO_FIELD_ARRAY, 0, REC(rl_trackers)},
		{NULL},
	};
	static const struct proto_field counter_fields[] = {
		{PROTO_KEY_ALERTS, PROTO_FIELD_INT, 0, REC(alerts)},
		{PROTO_KEY_SNAPSHOTS, PROTO_FIELD_INT, 0, REC(snapshots)},
		{PROTO_KEY_FAILED, PROTO_FIELD_INT, 0, REC(failed)},
		{PROTO_KEY_CAUSES, PROTO_FIELD_INT, 0, REC(causes)},
		{PROTO_KEY_SUPPRESSED, PROTO_FIELD_INT, 0, REC(suppressed)},
		{PROTO_KEY_KERNEL_SUPPRESSED, PROTO_FIELD_INT, 0, REC(kernel_suppressed)},
		{PROTO_KEY_LOST, PROTO_FIELD_INT, 0, REC(lost)},
		{PROTO_KEY_UNREADABLE, PROTO_FIELD_INT, 0, REC(unreadable)},
		{PROTO_KEY_READER_FAILED, PROTO_FIELD_INT, 0, REC(reader_failed)},
		{PROTO_KEY_DETECT_LAST_NS, PROTO_FIELD_INT, 0, REC(detect_last_ns)},
		{PROTO_KEY_DETECT_MAX_NS, PROTO_FIELD_INT, 0, REC(detect_max_ns)},
		{NULL},
	};
	struct status_recorder rc = {
		.name = "?", .state = "?", .domain = "?", .tokens = -1, .detect_last_ns = -1};
	int r = EXIT_OK;

	if (!st->session)
		return EXIT_OK;
	r = result_dispatch(st->session, session_fields, &rc, "session status");
	if (r == EXIT_OK && st->output)
		r = result_dispatch(st->output, output_fields, &rc, "output status");
	if (r == EXIT_OK && st->history)
		r = result_dispatch(st->history, history_fields, &rc, "history status");
	if (r == EXIT_OK && st->ratelimit)
		r = result_dispatch(st->ratelimit, ratelimit_fields, &rc, "rate limit status");
	if (r == EXIT_OK && st->counters)
		r = result_dispatch(st->counters, counter_fields, &rc, "counters");
	if (r != EXIT_OK)
		return r;
	row(t, "Session:", "%s (%s), %s%s%s", rc.name, rc.domain, rc.state, rc.detail ? ": " : "",
	    rc.detail ?: "");
	if (rc.recreated)
		row(t, "", "re-created %" PRId64 " time(s)", rc.recreated);
	if (rc.operation)
		operation_row(t, rc.operation, rc.operation_ns);
	row(t, "Waiter:", "%s, %s, memory %s", rc.realtime ? "SCHED_FIFO" : "normal priority",
	    rc.waiter_threads > 1 ? "a thread per CPU" : "one thread",
	    rc.memory_locked ? "locked" : "not locked");
	if (rc.waiter_ended > 0)
		row(t, "",
		    "%" PRId64 " of %" PRId64 " thread(s) stopped on an error%s (see the log)",
		    rc.waiter_ended, rc.waiter_threads,
		    rc.waiter_ended < rc.waiter_threads ? "" : ": no alert is read");
	if (rc.relayd && rc.relayd[0])
		row(t, "Output:", "%s%s%s", rc.relayd, rc.fallback_local ? ", else " : "",
		    rc.fallback_local ? rc.directory ?: "?" : "");
	else
		row(t, "Output:", "%s", rc.directory ?: "?");
	row(t, "History buffer:", "%" PRId64 " KiB per CPU (%" PRId64 " x %" PRId64 " bytes)",
	    rc.buffer / 1024, rc.num_subbuf, rc.subbuf_size);
	if (rc.target_ns > 0) {
		char target[32];

		proto_duration_format(target, sizeof(target), (uint64_t)rc.target_ns);
		if (rc.sized_eps > 0)
			row(t, "",
			    "sized for %s of history (session.history) from %.0f events/s x "
			    "%.1f bytes, re-sized %" PRId64 " time(s)",
			    target, rc.sized_eps, rc.sized_bpe, rc.resized);
		else
			row(t, "",
			    "to be sized for %s of history (session.history) once the event "
			    "rate is measured",
			    target);
	}
	measured_rows(t, &rc);
	if (rc.rate > 0)
		row(t, "Rate limit:", "%g/s, burst %" PRId64 ", %.1f token(s) now", rc.rate,
		    rc.burst, rc.tokens);
	else
		row(t, "Rate limit:", "none");
	ratelimit_tracker_rows(t, rc.rl_trackers);
	row(t, "Alerts:",
	    "%" PRId64 " (%" PRId64 " in snapshots, %" PRId64 " suppressed, %" PRId64
	    " dropped by the module, %" PRId64 " lost)",
	    rc.alerts, rc.causes, rc.suppressed, rc.kernel_suppressed, rc.lost);
	if (rc.unreadable > 0)
		row(t, "",
		    "%" PRId64 " read(s) of the notification file dropped: a record in them was "
		    "not the module's (see the log)",
		    rc.unreadable);
	row(t, "Snapshots:", "%" PRId64 " (%" PRId64 " failed)", rc.snapshots, rc.failed);
	if (rc.reader_failed > 0)
		row(t, "",
		    "%" PRId64 " read(s) by latencyd-reader gave no result: their history and "
		    "analysis failed (see the log)",
		    rc.reader_failed);
	if (st->retention && (r = retention_row(t, st->retention)) != EXIT_OK)
		return r;
	if (rc.detect_last_ns >= 0) {
		char last[32], max[32];

		proto_duration_format(last, sizeof(last), (uint64_t)rc.detect_last_ns);
		proto_duration_format(max, sizeof(max), (uint64_t)rc.detect_max_ns);
		row(t, "Alert to record:", "last %s, max %s", last, max);
	}
	if (st->fleet) {
		char fleet[TEXT_LINE_MAX];

		fleet_text(fleet, sizeof(fleet), st->fleet);
		row(t, "Fleet:", "%s", fleet);
	}
	return EXIT_OK;
}

static int print_status(struct json_object *result)
{
	static const struct proto_field fields[] = {
		{PROTO_KEY_VERSION, PROTO_FIELD_STRING, 0, offsetof(struct status, version)},
		{PROTO_KEY_PID, PROTO_FIELD_INT, 0, offsetof(struct status, pid)},
		{PROTO_KEY_UPTIME_USEC, PROTO_FIELD_INT, 0, offsetof(struct status, uptime_usec)},
		{PROTO_KEY_MODULE, PROTO_FIELD_OBJECT, 0, offsetof(struct status, module)},
		{PROTO_KEY_SESSION, PROTO_FIELD_OBJECT, 0, offsetof(struct status, session)},
		{PROTO_KEY_OUTPUT, PROTO_FIELD_OBJECT, 0, offsetof(struct status, output)},
		{PROTO_KEY_HISTORY, PROTO_FIELD_OBJECT, 0, offsetof(struct status, history)},
		{PROTO_KEY_RATELIMIT, PROTO_FIELD_OBJECT, 0, offsetof(struct status, ratelimit)},
		{PROTO_KEY_COUNTERS, PROTO_FIELD_OBJECT, 0, offsetof(struct status, counters)},
		{PROTO_KEY_FLEET, PROTO_FIELD_OBJECT, 0, offsetof(struct status, fleet)},
		{PROTO_KEY_COLLECTOR, PROTO_FIELD_OBJECT, 0, offsetof(struct status, collector)},
		{PROTO_KEY_CONTROL, PROTO_FIELD_OBJECT, 0, offsetof(struct status, control)},
		{PROTO_KEY_RETENTION, PROTO_FIELD_OBJECT, 0, offsetof(struct status, retention)},
		{NULL},
	};
	static const struct proto_field module_fields[] = {
		{PROTO_KEY_STATE, PROTO_FIELD_STRING, 0, offsetof(struct status_module, state)},
		{PROTO_KEY_LOADED, PROTO_FIELD_BOOL, 0, offsetof(struct status_module, loaded)},
		{PROTO_KEY_ABI_MAJOR, PROTO_FIELD_INT, 0,
		 offsetof(struct status_module, abi_major)},
		{PROTO_KEY_ABI_MINOR, PROTO_FIELD_INT, 0,
		 offsetof(struct status_module, abi_minor)},
		{PROTO_KEY_DETAIL, PROTO_FIELD_STRING, 0, offsetof(struct status_module, detail)},
		{NULL},
	};
	struct status st = {.version = "?", .pid = -1, .uptime_usec = -1};
	struct status_module mod = {.state = "unknown", .abi_major = -1, .abi_minor = -1};
	struct table t = {0};
	char uptime[64];
	int r;

	r = result_dispatch(result, fields, &st, "status");
	if (r == EXIT_OK)
		r = result_dispatch(st.module, module_fields, &mod, "module status");
	if (r != EXIT_OK)
		return r;

	row(&t, "Daemon:", "latencyd %s", st.version);
	row(&t, "PID:", "%" PRId64, st.pid);
	if (st.uptime_usec >= 0) {
		format_duration(uptime, sizeof(uptime), (uint64_t)st.uptime_usec);
		row(&t, "Uptime:", "%s", uptime);
	}
	/* An ABI latencyd could not read is absent: no "-1.-1". */
	if (strcmp(mod.state, PROTO_MODULE_LOADED) == 0 && mod.abi_major >= 0 && mod.abi_minor >= 0)
		row(&t, "Kernel module:", "loaded, ABI %" PRId64 ".%" PRId64, mod.abi_major,
		    mod.abi_minor);
	else if (strcmp(mod.state, PROTO_MODULE_LOADED) == 0)
		row(&t, "Kernel module:", "loaded, ABI ?");
	else if (strcmp(mod.state, PROTO_MODULE_NOT_LOADED) == 0)
		row(&t, "Kernel module:", "not loaded");
	else
		row(&t, "Kernel module:", "%s%s%s", mod.state, mod.detail ? ": " : "",
		    mod.detail ?: "");
	r = recorder_rows(&t, &st);
	if (r == EXIT_OK && st.collector) {
		char collector[TEXT_LINE_MAX];

		collector_text(collector, sizeof(collector), st.collector);
		row(&t, "Collector:", "%s", collector);
	}
	if (r == EXIT_OK && st.control)
		r = control_row(&t, st.control);
	if (r == EXIT_OK)
		return print_table(&t);
	table_done(&t);
	return r;
}

struct version {
	const char *version;
	int64_t protocol, revision, abi_major, abi_minor;
};

static int print_version(struct json_object *result)
{
	static const struct proto_field fields[] = {
		{PROTO_KEY_VERSION, PROTO_FIELD_STRING, 0, offsetof(struct version, version)},
		{PROTO_KEY_PROTOCOL, PROTO_FIELD_INT, 0, offsetof(struct version, protocol)},
		{PROTO_KEY_REVISION, PROTO_FIELD_INT, 0, offsetof(struct version, revision)},
		{PROTO_KEY_ABI_MAJOR, PROTO_FIELD_INT, 0, offsetof(struct version, abi_major)},
		{PROTO_KEY_ABI_MINOR, PROTO_FIELD_INT, 0, offsetof(struct version, abi_minor)},
		{NULL},
	};
	struct version v = {.version = "?"};
	struct table t = {0};
	int r;

	r = result_dispatch(result, fields, &v, "version");
	if (r != EXIT_OK)
		return r;
	row(&t, "latencyctl:", "%s (protocol %d.%d)", LATENCYD_VERSION, PROTO_VERSION,
	    PROTO_REVISION);
	row(&t, "latencyd:", "%s (protocol %" PRId64 ".%" PRId64 ")", v.version, v.protocol,
	    v.revision);
	row(&t, "Kernel module ABI:", "%" PRId64 ".%" PRId64, v.abi_major, v.abi_minor);
	return print_table(&t);
}

static void count_text(char *buf, size_t size, struct json_object *o, const char *key)
{
	struct json_object *v;

	if (o && json_object_object_get_ex(o, key, &v) && json_object_is_type(v, json_type_int))
		snprintf(buf, size, "%" PRId64, json_object_get_int64(v));
	else
		snprintf(buf, size, "-");
}

#define TRACKER_COLS 10

static int print_trackers(struct json_object *result)
{
	static const char *const head[TRACKER_COLS] = {
		"TRACKER", "ENABLED",  "THRESHOLD", "TIMEOUT", "EVENTS",
		"ALERTS",  "TIMEOUTS", "DROPS",	    "MEAN",    "MAX",
	};
	struct json_object *list = NULL, *loaded, *t, *stats, *name, *en;
	char cells[TRACKER_COLS][48];
	struct columns tab;
	size_t n;

	if (!json_object_object_get_ex(result, PROTO_KEY_TRACKERS, &list) ||
	    !json_object_is_type(list, json_type_array)) {
		fprintf(stderr, "latencyctl: trackers: malformed reply from latencyd\n");
		return EXIT_CONNECT;
	}
	n = json_object_array_length(list);
	if (n == 0) {
		if (json_object_object_get_ex(result, PROTO_KEY_LOADED, &loaded) &&
		    !json_object_get_boolean(loaded))
			printf("No trackers: the latency_tracker module is not loaded.\n");
		else
			printf("No trackers.\n");
		return EXIT_OK;
	}
	columns_init(&tab, head, TRACKER_COLS);
	for (size_t i = 0; i < n; i++) {
		t = json_object_array_get_idx(list, i);
		stats = NULL;
		json_object_object_get_ex(t, PROTO_KEY_STATS, &stats);
		name = NULL;
		json_object_object_get_ex(t, PROTO_KEY_NAME, &name);
		snprintf(cells[0], sizeof(cells[0]), "%s", json_str(name, "?"));
		snprintf(cells[1], sizeof(cells[1]), "%s",
			 !json_object_object_get_ex(t, PROTO_KEY_ENABLED, &en) ? "-"
			 : json_object_get_boolean(en)			       ? "yes"
									       : "no");
		ns_text(cells[2], sizeof(cells[2]), t, PROTO_KEY_THRESHOLD_NS, false);
		ns_text(cells[3], sizeof(cells[3]), t, PROTO_KEY_TIMEOUT_NS, true);
		count_text(cells[4], sizeof(cells[4]), stats, "events_in");
		count_text(cells[5], sizeof(cells[5]), stats, "alerts");
		count_text(cells[6], sizeof(cells[6]), stats, "timeouts");
		count_text(cells[7], sizeof(cells[7]), stats, "drops");
		/* ns_text() says "-" for a missing stats object too. */
		ns_text(cells[8], sizeof(cells[8]), stats, "delay_mean_ns", false);
		ns_text(cells[9], sizeof(cells[9]), stats, "delay_max_ns", false);
		for (int c = 0; c < TRACKER_COLS; c++)
			columns_cell(&tab, "%s", cells[c]);
	}
	columns_print(&tab);
	columns_done(&tab);
	return EXIT_OK;
}

/* ", saved in FILE." or ", runtime only (not saved)." */
void saved_text(char *buf, size_t size, struct json_object *result)
{
	struct json_object *saved = NULL, *file = NULL;

	json_object_object_get_ex(result, PROTO_KEY_SAVED, &saved);
	json_object_object_get_ex(result, PROTO_KEY_SAVED_FILE, &file);
	if (saved && json_object_get_boolean(saved))
		snprintf(buf, size, ", saved in %s.", json_str(file, "?"));
	else
		snprintf(buf, size, ", runtime only (not saved).");
}

static int print_tracker_set(struct json_object *result, const char *file)
{
	struct json_object *tracker = NULL, *v, *prev;
	bool enabled = strcmp(file, PROTO_KEY_ENABLED) == 0;
	char now[48], was[48] = "", saved[PATH_MAX + 32];

	json_object_object_get_ex(result, PROTO_KEY_TRACKER, &tracker);
	saved_text(saved, sizeof(saved), result);
	if (enabled) {
		json_object_object_get_ex(result, file, &v);
		snprintf(now, sizeof(now), "%s",
			 v && json_object_get_boolean(v) ? "enabled" : "disabled");
		if (json_object_object_get_ex(result, PROTO_KEY_PREVIOUS, &prev))
			snprintf(was, sizeof(was), " (was %s)",
				 json_object_get_boolean(prev) ? "enabled" : "disabled");
		printf("Tracker %s: %s%s%s\n", json_str(tracker, "?"), now, was, saved);
		return EXIT_OK;
	}
	ns_text(now, sizeof(now), result, file, strcmp(file, PROTO_KEY_TIMEOUT_NS) == 0);
	if (json_object_object_get_ex(result, PROTO_KEY_PREVIOUS, &prev)) {
		char p[40];

		ns_text(p, sizeof(p), result, PROTO_KEY_PREVIOUS,
			strcmp(file, PROTO_KEY_TIMEOUT_NS) == 0);
		snprintf(was, sizeof(was), " (was %s)", p);
	}
	printf("Tracker %s: %s %s%s%s\n", json_str(tracker, "?"),
	       strcmp(file, PROTO_KEY_TIMEOUT_NS) == 0 ? "timeout" : "threshold", now, was, saved);
	return EXIT_OK;
}

static void print_error(const char *command, const char *code, const char *message)
{
	char *c = text_clean_dup(code, false), *m = text_clean_dup(message, false);

	fprintf(stderr, "latencyctl: %s: %s (%s)\n", command, m ?: "?", c ?: "?");
	free(c);
	free(m);
}

/* Each result cleaned (text_clean.c) before a renderer reads it: none prints raw text. */
#define CLEANED(fn, lines)                                                                         \
	static int clean_##fn(struct json_object *result)                                          \
	{                                                                                          \
		text_clean_tree(result, lines);                                                    \
		return fn(result);                                                                 \
	}
CLEANED(print_status, false)
CLEANED(print_version, false)
CLEANED(print_trackers, false)
CLEANED(text_snapshots, false)
CLEANED(text_snapshot, false)
CLEANED(text_snapshot_deleted, false)
CLEANED(text_config, false)
CLEANED(text_reloaded, false)
CLEANED(text_filter, false)
CLEANED(text_incidents, false)
CLEANED(text_hist, false)
/* The metrics text is latencyd's Prometheus rendering: lines, its newlines kept. */
CLEANED(text_metrics, true)
#undef CLEANED

static int clean_tracker_set(struct json_object *result, const char *file)
{
	text_clean_tree(result, false);
	return print_tracker_set(result, file);
}

/* An event's name is latencyd's too: a newer one's is printed as it comes. */
static int clean_event(int (*fn)(const char *, struct json_object *), const char *name,
		       struct json_object *data)
{
	char *n = text_clean_dup(name, false);
	int r;

	text_clean_tree(data, false);
	r = fn(n ?: "?", data);
	free(n);
	return r;
}

static int clean_text_event(const char *name, struct json_object *data)
{
	return clean_event(text_event, name, data);
}

static int clean_text_recorded(const char *name, struct json_object *data)
{
	return clean_event(text_recorded, name, data);
}

const struct output output_text = {
	.name = "text",
	.status = clean_print_status,
	.version = clean_print_version,
	.trackers = clean_print_trackers,
	.tracker_set = clean_tracker_set,
	.snapshots = clean_text_snapshots,
	.snapshot = clean_text_snapshot,
	.snapshot_deleted = clean_text_snapshot_deleted,
	.event = clean_text_event,
	.recorded = clean_text_recorded,
	.config = clean_text_config,
	.reloaded = clean_text_reloaded,
	.filter = clean_text_filter,
	.incidents = clean_text_incidents,
	.metrics = clean_text_metrics,
	.hist = clean_text_hist,
	.error = print_error,
};
