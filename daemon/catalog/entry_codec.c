// SPDX-License-Identifier: GPL-2.0-only
/*
 * A catalog entry's spelling in JSON: one table per record, read top to bottom in the order
 * the members are written. The tables are the schema; proto/README.md describes it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "entry.h"
#include "entry_tables.h"
#include "proto.h"

#define FIELD(key, type_, st, member, ...)                                                         \
	{                                                                                          \
		.name = key, .type = type_, .offset = offsetof(st, member), __VA_ARGS__            \
	}
#define LIST(key, type_, st, member, count, ...)                                                   \
	FIELD(key, type_, st, member, .count_offset = offsetof(st, count), __VA_ARGS__)

static const struct codec_field stack_fields[] = {
	FIELD(PROTO_KEY_KIND, CODEC_STRING, struct catalog_stack, kind),
	LIST(PROTO_KEY_FRAMES, CODEC_STRINGS, struct catalog_stack, frames, n_frames),
	LIST(PROTO_KEY_ADDRESSES, CODEC_STRINGS, struct catalog_stack, addresses, n_addresses,
	     .flags = CODEC_OPTIONAL),
	FIELD(PROTO_KEY_ERROR, CODEC_STRING, struct catalog_stack, error, .flags = CODEC_OPTIONAL),
	{0},
};

static const struct codec_table stack_table = {
	.what = "stack",
	.size = sizeof(struct catalog_stack),
	.fields = stack_fields,
	.extra = CODEC_NO_EXTRA,
};

/* A cause's kind, from its reason: what it writes besides what every cause has. */
enum {
	ALERT = 1 << 0,
	MANUAL = 1 << 1,
	PEER = 1 << 2,
};

static unsigned cause_kind(const void *obj)
{
	const char *reason = ((const struct catalog_cause *)obj)->reason;

	if (reason && strcmp(reason, PROTO_REASON_MANUAL) == 0)
		return MANUAL;
	if (reason && strcmp(reason, PROTO_REASON_PEER) == 0)
		return PEER;
	return ALERT;
}

#define CAUSE(key, type_, member, kinds_, ...)                                                     \
	FIELD(key, type_, struct catalog_cause, member, .kinds = (kinds_), __VA_ARGS__)

static const struct codec_field cause_fields[] = {
	CAUSE(PROTO_KEY_TRACKER, CODEC_STRING, tracker, 0),
	CAUSE(PROTO_KEY_REASON, CODEC_STRING, reason, 0),
	CAUSE(PROTO_KEY_REQUEST, CODEC_U64, request, MANUAL),
	CAUSE(PROTO_KEY_MESSAGE, CODEC_STRING, message, MANUAL),
	CAUSE(PROTO_KEY_ORIGIN, CODEC_STRING, origin, PEER),
	CAUSE(PROTO_KEY_INCIDENT, CODEC_STRING, incident, PEER),
	CAUSE(PROTO_KEY_ORIGIN_TRACKER, CODEC_STRING, origin_tracker, PEER),
	CAUSE(PROTO_KEY_SEQ, CODEC_U64, seq, ALERT),
	CAUSE(PROTO_KEY_PID, CODEC_I64, pid, ALERT | MANUAL),
	CAUSE(PROTO_KEY_TID, CODEC_I64, tid, 0),
	CAUSE(PROTO_KEY_COMM, CODEC_STRING, comm, 0),
	CAUSE(PROTO_KEY_START_NS, CODEC_U64, start_ns, 0),
	CAUSE(PROTO_KEY_END_NS, CODEC_U64, end_ns, 0),
	CAUSE(PROTO_KEY_DELAY_NS, CODEC_U64, delay_ns, 0),
	CAUSE(PROTO_KEY_THRESHOLD_NS, CODEC_U64, threshold_ns, ALERT | MANUAL),
	CAUSE(PROTO_KEY_START_REALTIME_NS, CODEC_U64, start_realtime_ns, PEER),
	CAUSE(PROTO_KEY_END_REALTIME_NS, CODEC_U64, end_realtime_ns, PEER),
	CAUSE(PROTO_KEY_RECEIVED_TO_RECORD_NS, CODEC_U64, received_to_record_ns, PEER),
	CAUSE(PROTO_KEY_DATA_WORDS, CODEC_U64S, data, ALERT, .count = LATENCY_TRACKER_DATA_WORDS),
	CAUSE(PROTO_KEY_STACK, CODEC_OBJECT, stack, 0, .flags = CODEC_OPTIONAL,
	      .sub = &stack_table),
	{0},
};

static const struct codec_table cause_table = {
	.what = "cause",
	.size = sizeof(struct catalog_cause),
	.fields = cause_fields,
	.kind = cause_kind,
	.extra = offsetof(struct catalog_cause, extra),
};

static const struct codec_field stream_fields[] = {
	FIELD(PROTO_KEY_CHANNEL, CODEC_STRING, struct catalog_stream, channel),
	FIELD(PROTO_KEY_CPU, CODEC_I64, struct catalog_stream, cpu),
	FIELD(PROTO_KEY_EVENTS, CODEC_U64, struct catalog_stream, events),
	FIELD(PROTO_KEY_BYTES, CODEC_U64, struct catalog_stream, bytes),
	FIELD(PROTO_KEY_FIRST_NS, CODEC_I64, struct catalog_stream, first_ns),
	FIELD(PROTO_KEY_LAST_NS, CODEC_I64, struct catalog_stream, last_ns),
	FIELD(PROTO_KEY_SPAN_NS, CODEC_U64, struct catalog_stream, span_ns),
	{0},
};

static const struct codec_table stream_table = {
	.what = "stream",
	.size = sizeof(struct catalog_stream),
	.fields = stream_fields,
	.extra = CODEC_NO_EXTRA,
};

enum {
	WINDOWED = 1 << 0, /* a whole snapshot: its window too */
	SAMPLED = 1 << 1,
};

static unsigned history_kind(const void *obj)
{
	return ((const struct catalog_history *)obj)->sampled ? SAMPLED : WINDOWED;
}

static const struct codec_field history_fields[] = {
	FIELD(PROTO_KEY_WINDOW_NS, CODEC_U64, struct catalog_history, window_ns, .kinds = WINDOWED),
	FIELD(PROTO_KEY_WRAPPED, CODEC_BOOL, struct catalog_history, wrapped, .kinds = WINDOWED),
	FIELD(PROTO_KEY_EVENTS, CODEC_U64, struct catalog_history, events),
	FIELD(PROTO_KEY_BYTES, CODEC_U64, struct catalog_history, bytes),
	FIELD(PROTO_KEY_EVENTS_PER_SEC, CODEC_DOUBLE, struct catalog_history, events_per_sec),
	FIELD(PROTO_KEY_BYTES_PER_EVENT, CODEC_DOUBLE, struct catalog_history, bytes_per_event),
	LIST(PROTO_KEY_STREAMS, CODEC_ARRAY, struct catalog_history, streams, n_streams,
	     .sub = &stream_table),
	FIELD(PROTO_KEY_STREAMS_TOTAL, CODEC_U64, struct catalog_history, streams_total),
	FIELD(PROTO_KEY_TIME, CODEC_U64, struct catalog_history, time),
	FIELD(PROTO_KEY_BUFFER_BYTES_PER_CPU, CODEC_U64, struct catalog_history,
	      buffer_bytes_per_cpu),
	FIELD(PROTO_KEY_EXPECTED_WINDOW_NS, CODEC_U64, struct catalog_history, expected_window_ns),
	FIELD(PROTO_KEY_SAMPLED, CODEC_BOOL, struct catalog_history, sampled,
	      .flags = CODEC_OPTIONAL),
	{0},
};

const struct codec_table catalog_history_table = {
	.what = "history",
	.size = sizeof(struct catalog_history),
	.fields = history_fields,
	.kind = history_kind,
	.extra = CODEC_NO_EXTRA,
};

static const struct codec_field analysis_cause_fields[] = {
	FIELD(PROTO_KEY_SEQ, CODEC_U64, struct catalog_analysis_cause, seq),
	FIELD(PROTO_KEY_TRACKER, CODEC_STRING, struct catalog_analysis_cause, tracker),
	FIELD(PROTO_KEY_TID, CODEC_I64, struct catalog_analysis_cause, tid),
	FIELD(PROTO_KEY_COMM, CODEC_STRING, struct catalog_analysis_cause, comm),
	FIELD(PROTO_KEY_SUMMARY, CODEC_STRING, struct catalog_analysis_cause, summary),
	FIELD(PROTO_KEY_EXPLAINED, CODEC_DOUBLE, struct catalog_analysis_cause, explained),
	{0},
};

static const struct codec_table analysis_cause_table = {
	.what = "analysed cause",
	.size = sizeof(struct catalog_analysis_cause),
	.fields = analysis_cause_fields,
	.extra = CODEC_NO_EXTRA,
};

/* An analysis made took its time; done and partial ones have results, failed ones an
 * error; a skipped one has its status only. */
enum {
	MADE = 1 << 0,
	RESULTS = 1 << 1,
};

static unsigned analysis_kind(const void *obj)
{
	const char *status = ((const struct catalog_analysis *)obj)->status;

	if (!status || strcmp(status, "skipped") == 0)
		return 0;
	if (strcmp(status, "done") == 0 || strcmp(status, "partial") == 0)
		return MADE | RESULTS;
	return MADE;
}

static const struct codec_field analysis_fields[] = {
	FIELD(PROTO_KEY_ANALYSIS_MS, CODEC_U64, struct catalog_analysis, analysis_ms,
	      .kinds = MADE),
	FIELD(PROTO_KEY_STATUS, CODEC_STRING, struct catalog_analysis, status),
	FIELD(PROTO_KEY_ERROR, CODEC_STRING, struct catalog_analysis, error,
	      .flags = CODEC_OPTIONAL),
	FIELD(PROTO_KEY_EVENTS, CODEC_U64, struct catalog_analysis, events, .kinds = RESULTS),
	LIST(PROTO_KEY_PROBLEMS, CODEC_STRINGS, struct catalog_analysis, problems, n_problems,
	     .kinds = RESULTS),
	LIST(PROTO_KEY_MISSING_EVENTS, CODEC_STRINGS, struct catalog_analysis, missing_events,
	     n_missing_events, .kinds = RESULTS),
	LIST(PROTO_KEY_CAUSES, CODEC_ARRAY, struct catalog_analysis, causes, n_causes,
	     .kinds = RESULTS, .sub = &analysis_cause_table),
	{0},
};

const struct codec_table catalog_analysis_table = {
	.what = "analysis",
	.size = sizeof(struct catalog_analysis),
	.fields = analysis_fields,
	.kind = analysis_kind,
	.extra = CODEC_NO_EXTRA,
};

static const char *const status_names[] = {
	[CATALOG_FAILED] = PROTO_SNAP_FAILED,
	[CATALOG_RECORDING] = PROTO_SNAP_RECORDING,
	[CATALOG_COMPLETE] = PROTO_SNAP_COMPLETE,
	NULL,
};

static const char *const deletion_names[] = {
	[CATALOG_DELETION_NONE] = PROTO_DELETION_NONE,
	[CATALOG_DELETION_UNDELETABLE] = PROTO_DELETION_UNDELETABLE,
	[CATALOG_DELETION_PARTIAL] = PROTO_DELETION_PARTIAL,
	[CATALOG_DELETION_PARTIAL_DELETABLE] = PROTO_DELETION_PARTIAL_DELETABLE,
	[CATALOG_DELETION_GONE] = PROTO_DELETION_GONE,
	NULL,
};

#define ENTRY(key, type_, member, ...) FIELD(key, type_, struct catalog_entry, member, __VA_ARGS__)

static const struct codec_field entry_fields[] = {
	ENTRY(PROTO_KEY_ID, CODEC_U64, id),
	ENTRY(PROTO_KEY_STATUS, CODEC_ENUM, status, .names = status_names),
	ENTRY(PROTO_KEY_TIME, CODEC_U64, time, .flags = CODEC_OPTIONAL),
	ENTRY(PROTO_KEY_NAME, CODEC_STRING, name, .flags = CODEC_OPTIONAL),
	ENTRY(PROTO_KEY_CAUSES, CODEC_ARRAY, causes,
	      .count_offset = offsetof(struct catalog_entry, n_causes), .flags = CODEC_CAPPED,
	      .sub = &cause_table),
	ENTRY(PROTO_KEY_CAUSES_TOTAL, CODEC_U64, causes_total, .flags = CODEC_OPTIONAL),
	ENTRY(PROTO_KEY_DISKS, CODEC_MAP, disks,
	      .count_offset = offsetof(struct catalog_entry, n_disks), .flags = CODEC_OPTIONAL),
	ENTRY(PROTO_KEY_INCIDENT, CODEC_STRING, incident, .flags = CODEC_OPTIONAL),
	ENTRY(PROTO_KEY_DETECT_TO_RECORD_NS, CODEC_U64, detect_to_record_ns,
	      .flags = CODEC_OPTIONAL),
	ENTRY(PROTO_KEY_WAKEUP_TO_RECORD_NS, CODEC_U64, wakeup_to_record_ns,
	      .flags = CODEC_OPTIONAL),
	ENTRY(PROTO_KEY_RECORD_NS, CODEC_U64, record_ns, .flags = CODEC_OPTIONAL),
	ENTRY(PROTO_KEY_FELL_BACK, CODEC_BOOL, fell_back, .flags = CODEC_OPTIONAL),
	ENTRY(PROTO_KEY_RELAYD_ERROR, CODEC_STRING, relayd_error, .flags = CODEC_OPTIONAL),
	ENTRY(PROTO_KEY_ERROR, CODEC_STRING, error, .flags = CODEC_OPTIONAL),
	ENTRY(PROTO_KEY_DELETION, CODEC_ENUM, deletion, .flags = CODEC_OPTIONAL,
	      .names = deletion_names),
	ENTRY(PROTO_KEY_DELETION_NOTE, CODEC_STRING, deletion_note, .flags = CODEC_OPTIONAL),
	ENTRY(PROTO_KEY_PATH, CODEC_STRING, path, .flags = CODEC_OPTIONAL),
	ENTRY(PROTO_KEY_URL, CODEC_STRING, url, .flags = CODEC_OPTIONAL),
	ENTRY(PROTO_KEY_RELAYD_PATH, CODEC_STRING, relayd_path, .flags = CODEC_OPTIONAL),
	ENTRY(PROTO_KEY_LATE_DIRECTORY, CODEC_STRING, late_directory, .flags = CODEC_OPTIONAL),
	ENTRY(PROTO_KEY_BYTES, CODEC_U64, bytes, .flags = CODEC_OPTIONAL),
	ENTRY(PROTO_KEY_HISTORY, CODEC_OBJECT, history, .flags = CODEC_OPTIONAL,
	      .sub = &catalog_history_table),
	ENTRY(PROTO_KEY_ANALYSIS, CODEC_OBJECT, analysis, .flags = CODEC_OPTIONAL,
	      .sub = &catalog_analysis_table),
	{0},
};

static const struct codec_table entry_table = {
	.what = "snapshot",
	.size = sizeof(struct catalog_entry),
	.fields = entry_fields,
	.extra = offsetof(struct catalog_entry, extra),
};

_Static_assert(sizeof(struct catalog_disk) == sizeof(struct codec_pair) &&
		       offsetof(struct catalog_disk, dev) == offsetof(struct codec_pair, key) &&
		       offsetof(struct catalog_disk, name) == offsetof(struct codec_pair, value),
	       "a catalog_disk is a codec_pair");

struct json_object *catalog_entry_to_json(const struct catalog_entry *e, enum catalog_form form,
					  size_t max_causes)
{
	struct catalog_entry shown = *e;
	struct json_object *o, *first;

	switch (form) {
	case CATALOG_FORM_FILE:
		shown.causes_total = 0;
		return codec_encode(&entry_table, &shown, 0);
	case CATALOG_FORM_VIEW:
		shown.causes_total = 0;
		o = codec_encode(&entry_table, &shown, max_causes);
		if (o && json_object_object_add(o, PROTO_KEY_CAUSES_TOTAL,
						json_object_new_int64((int64_t)e->n_causes)) < 0) {
			json_object_put(o);
			return NULL;
		}
		return o;
	case CATALOG_FORM_SUMMARY:
		break;
	}
	/* The count where the list was, and the first cause: a summary fits in a frame. */
	shown.n_causes = 0;
	shown.causes_total = 0;
	o = codec_encode(&entry_table, &shown, 0);
	if (o && json_object_object_add(o, PROTO_KEY_CAUSES,
					json_object_new_int64((int64_t)e->n_causes)) < 0) {
		json_object_put(o);
		return NULL;
	}
	if (o && e->n_causes) {
		first = catalog_cause_to_json(&e->causes[0]);
		if (!first || json_object_object_add(o, PROTO_KEY_CAUSE, first) < 0) {
			json_object_put(first);
			json_object_put(o);
			return NULL;
		}
	}
	return o;
}

int catalog_entry_from_json(struct json_object *o, struct catalog_entry *e,
			    codec_problem_fn *problem, void *arg)
{
	int r = codec_decode(&entry_table, o, e, problem, arg);

	if (r < 0)
		catalog_entry_free(e);
	return r;
}

void catalog_entry_free(struct catalog_entry *e)
{
	codec_free(&entry_table, e);
}

struct json_object *catalog_cause_to_json(const struct catalog_cause *c)
{
	return codec_encode(&cause_table, c, 0);
}

int catalog_cause_from_json(struct json_object *o, struct catalog_cause *c,
			    codec_problem_fn *problem, void *arg)
{
	int r = codec_decode(&cause_table, o, c, problem, arg);

	if (r < 0)
		catalog_cause_free(c);
	return r;
}

void catalog_cause_free(struct catalog_cause *c)
{
	codec_free(&cause_table, c);
}

struct json_object *catalog_history_to_json(const struct catalog_history *h)
{
	return codec_encode(&catalog_history_table, h, 0);
}

void catalog_history_free(struct catalog_history *h)
{
	codec_free(&catalog_history_table, h);
	free(h);
}

void catalog_analysis_free(struct catalog_analysis *a)
{
	codec_free(&catalog_analysis_table, a);
	free(a);
}

void catalog_stack_free(struct catalog_stack *s)
{
	codec_free(&stack_table, s);
	free(s);
}

void catalog_view_fit(struct json_object *view, size_t budget)
{
	struct json_object *causes = NULL;
	size_t len = proto_json_length(view), n, keep;

	if (len <= budget || !json_object_object_get_ex(view, PROTO_KEY_CAUSES, &causes))
		return;
	n = json_object_array_length(causes);
	for (keep = n; keep > 0 && len > budget; keep--)
		len -= proto_json_length(json_object_array_get_idx(causes, keep - 1)) + (keep > 1);
	if (keep < n)
		json_object_array_del_idx(causes, keep, n - keep);
}
