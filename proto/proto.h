/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The latencyd control protocol: the one definition, linked into latencyd and latencyctl.
 *
 * Everything that crosses the control socket is named here: the protocol version, limits,
 * command and event names, error codes, JSON field names, and the functions that frame,
 * build, parse and validate messages. proto/README.md describes the wire format.
 *
 * Library rules: nothing here logs, prints or exits. Functions return 0 (or a count) on
 * success and a negative errno on failure; protocol-level failures also fill a
 * struct proto_error with a typed code and a message meant for the peer.
 */
#ifndef LATENCYD_PROTO_H
#define LATENCYD_PROTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct json_object;
struct json_tokener;

/*
 * Protocol version. PROTO_VERSION changes only when a message, command, field or error code
 * changes meaning or goes away; peers whose PROTO_VERSION differs refuse each other with
 * "unsupported-version". PROTO_REVISION counts compatible additions (new commands, new
 * optional arguments, new result fields, new error codes, new events); peers ignore result
 * fields and error codes they do not know. Never change what a command means: add a new one.
 *
 * Changelog (append only):
 *   1.0  latencyd 0.1.0: hello; commands status, version; error codes bad-request,
 *        unknown-command, bad-argument, not-authorized, too-large, internal,
 *        unsupported-version, busy; event shape (no event is sent yet).
 *   1.1  commands trackers, set-threshold, set-timeout, enable, disable; error codes
 *        not-found, refused.
 *   1.2  commands filter, list-snapshots, show-snapshot, delete-snapshot, watch, record,
 *        config, reload; events snapshot, suppressed, lost.
 *   1.3  argument "save" of set-threshold, set-timeout, enable, disable, filter (result
 *        "saved_file"); config results "origins", "saved_file", "saved_problem"; reload
 *        result "saved_problem".
 *   1.4  the fleet: command incidents; list-snapshots argument "incident"; events peer,
 *        fleet; entries' "incident" and peer causes; status "fleet", counters "peers".
 *   1.5  entries' "disks" and causes' "stack"; status history "target_ns", "resized",
 *        "sized_events_per_sec", "sized_bytes_per_event".
 *   1.6  status history.measured "sampled" (a calibration's sample: no "window_ns" nor
 *        "wrapped" then).
 *   1.7  incidents' "members", "local", "stale", "pending", "no_answer", "details",
 *        "unpublished"; status fleet "subscribed", "members_online", dropped "stale".
 *   1.8  incidents "matched"; status fleet "process", "collector".
 *   1.9  commands hist (the trackers' log2 histograms and their percentiles, module ABI 1.4)
 *        and metrics (argument "from_line"; result "text": the Prometheus text format, as
 *        many lines as fit a frame, and "next_line" when more are left).
 *   1.10 status fleet "notes_dropped".
 *   1.11 status collector "deleted_in_part".
 *   1.12 status "control": the control socket's clients and what happened to connections.
 *   1.13 status "retention": local snapshots a deletion left on disk ("undeletable") and
 *        deletions that failed part way ("deleted_in_part").
 *   1.14 status session "operation", "operation_ns": the session's operation waiting for
 *        lttng-sessiond, and for how long; reload "operation": the session's part pending.
 *   1.15 entries' "deletion" and "deletion_note": what the last deletion of a local snapshot
 *        left on disk, and where and why it failed (before, a note inside "error").
 *   1.16 metrics "rendering": the id of the text a read's parts come from, given by its
 *        first part and sent back with the others.
 *   1.17 causes' reason "discarded": a kernel alert of a key discarded as stale (module ABI
 *        1.7), its delay_ns a lower bound; status fleet dropped "unknown": peers' results
 *        that name an incident this host does not keep.
 *        Status session "waiter_ended" and counters "unreadable": the realtime waiter's
 *        threads that stopped on an error, and the reads of alerts it dropped.
 *        Entries' "late_directory": where a record abandoned at a stop may still land.
 *   1.18 status control "groups_timed_out": connections closed (busy) because the group
 *        database did not answer for their user within the handshake's time.
 *   1.19 status control "waiting": connections waiting for their user's groups, not in
 *        "clients" until admitted.
 *   1.20 delete-snapshot "keep_files": the catalog entry deleted alone, its local files left
 *        where they are (the reply's "kept" names them).
 *   1.21 status control "events_too_large": watch events dropped because one did not fit in
 *        a frame (the watcher stays, and gets the next).
 *   1.22 status fleet "clock_skewed": peers' alerts sent by a clock more than
 *        fleet.max_age / 2 from this host's (or delivered that late).
 *   1.23 status counters "reader_failed": snapshot reads that latencyd-reader (the confined
 *        process that reads each snapshot) gave no result for.
 */
#define PROTO_VERSION  1
#define PROTO_REVISION 23

/* Limits. */
#define PROTO_FRAME_MAX		  (64 * 1024) /* bytes in one frame, newline included */
/* What a reply's or an event's bulk (a list, a view's causes) may take of a frame: the
 * rest is the envelope, with room. */
#define PROTO_PAYLOAD_BUDGET	  (PROTO_FRAME_MAX - 4096)
#define PROTO_JSON_DEPTH_MAX	  32  /* nesting of objects and arrays */
#define PROTO_MESSAGE_MAX	  256 /* bytes of an error message, NUL included */
#define PROTO_SOCKET_PATH_DEFAULT "/run/latencyd/latencyd.sock"

/* Commands (request "command"). */
#define PROTO_CMD_STATUS	  "status"
#define PROTO_CMD_VERSION	  "version"
#define PROTO_CMD_TRACKERS	  "trackers"
#define PROTO_CMD_SET_THRESHOLD	  "set-threshold"
#define PROTO_CMD_SET_TIMEOUT	  "set-timeout"
#define PROTO_CMD_ENABLE	  "enable"
#define PROTO_CMD_DISABLE	  "disable"
#define PROTO_CMD_LIST_SNAPSHOTS  "list-snapshots"
#define PROTO_CMD_SHOW_SNAPSHOT	  "show-snapshot"
#define PROTO_CMD_DELETE_SNAPSHOT "delete-snapshot"
#define PROTO_CMD_WATCH		  "watch"
#define PROTO_CMD_RECORD	  "record"
#define PROTO_CMD_CONFIG	  "config"
#define PROTO_CMD_RELOAD	  "reload"
#define PROTO_CMD_FILTER	  "filter"
#define PROTO_CMD_INCIDENTS	  "incidents" /* 1.4 */
#define PROTO_CMD_METRICS	  "metrics"   /* 1.9 */
#define PROTO_CMD_HIST		  "hist"      /* 1.9 */

/* Events (1.2), sent to clients that ran watch or record. */
#define PROTO_EVENT_SNAPSHOT   "snapshot"   /* a snapshot was taken (or failed), with causes */
#define PROTO_EVENT_SUPPRESSED "suppressed" /* an alert the rate limit refused */
#define PROTO_EVENT_LOST       "lost"	    /* latencyd missed alert records */
#define PROTO_EVENT_FLEET      "fleet"	    /* 1.4: the broker connection changed: state, detail */
#define PROTO_EVENT_PEER       "peer"	    /* 1.4: a peer's alert is being recorded */

/* Events (event "event"); reserved for streaming, none is sent by protocol 1.0. */
#define PROTO_EVENT_ALERT "alert"

/* Envelope fields. */
#define PROTO_KEY_HELLO	   "hello"
#define PROTO_KEY_PROTOCOL "protocol"
#define PROTO_KEY_REVISION "revision"
#define PROTO_KEY_CLIENT   "client"
#define PROTO_KEY_SERVER   "server"
#define PROTO_KEY_VERSION  "version"
#define PROTO_KEY_ID	   "id"
#define PROTO_KEY_COMMAND  "command"
#define PROTO_KEY_ARGS	   "args"
#define PROTO_KEY_OK	   "ok"
#define PROTO_KEY_RESULT   "result"
#define PROTO_KEY_ERROR	   "error"
#define PROTO_KEY_CODE	   "code"
#define PROTO_KEY_MESSAGE  "message"
#define PROTO_KEY_EVENT	   "event"
#define PROTO_KEY_DATA	   "data"

/* Result fields of "version" (and "status"). */
#define PROTO_KEY_ABI_MAJOR "abi_major"
#define PROTO_KEY_ABI_MINOR "abi_minor"

/* Result fields of "status". */
#define PROTO_KEY_PID			"pid"
#define PROTO_KEY_UPTIME_USEC		"uptime_usec"
#define PROTO_KEY_MODULE		"module"
#define PROTO_KEY_LOADED		"loaded"
#define PROTO_KEY_STATE			"state"
#define PROTO_KEY_DETAIL		"detail"
/* status: the flight recorder */
#define PROTO_KEY_SESSION		"session"
#define PROTO_KEY_NAME			"name"
#define PROTO_KEY_DOMAIN		"domain"
#define PROTO_KEY_RECREATED		"recreated"
#define PROTO_KEY_REALTIME		"realtime"
#define PROTO_KEY_MEMORY_LOCKED		"memory_locked"
#define PROTO_KEY_WAITER_THREADS	"waiter_threads"
#define PROTO_KEY_OUTPUT		"output"
#define PROTO_KEY_DIRECTORY		"directory"
#define PROTO_KEY_RELAYD		"relayd"
#define PROTO_KEY_FALLBACK_LOCAL	"fallback_local"
#define PROTO_KEY_HISTORY		"history"
#define PROTO_KEY_BUFFER_BYTES_PER_CPU	"buffer_bytes_per_cpu"
#define PROTO_KEY_SUBBUF_SIZE		"subbuf_size"
#define PROTO_KEY_NUM_SUBBUF		"num_subbuf"
#define PROTO_KEY_EXPECTED_WINDOW_NS	"expected_window_ns"
/* status.history with session.history (1.5): the target, the re-sizes made for it, the
 * busiest CPU's rate the buffers were last sized from. */
#define PROTO_KEY_TARGET_NS		"target_ns"
#define PROTO_KEY_RESIZED		"resized"
#define PROTO_KEY_SIZED_EVENTS_PER_SEC	"sized_events_per_sec"
#define PROTO_KEY_SIZED_BYTES_PER_EVENT "sized_bytes_per_event"
#define PROTO_KEY_MEASURED		"measured"
#define PROTO_KEY_WINDOW_NS		"window_ns"
#define PROTO_KEY_WRAPPED		"wrapped"
#define PROTO_KEY_SAMPLED		"sampled"
#define PROTO_KEY_EVENTS_PER_SEC	"events_per_sec"
#define PROTO_KEY_BYTES_PER_EVENT	"bytes_per_event"
#define PROTO_KEY_RATELIMIT		"ratelimit"
#define PROTO_KEY_RATE			"rate"
#define PROTO_KEY_BURST			"burst"
#define PROTO_KEY_TOKENS		"tokens"
#define PROTO_KEY_COUNTERS		"counters"
#define PROTO_KEY_ANALYSIS		"analysis" /* snapshot: the automatic analysis (1.3) */
#define PROTO_KEY_ALERTS		"alerts"
#define PROTO_KEY_SNAPSHOTS		"snapshots"
#define PROTO_KEY_FAILED		"failed"
#define PROTO_KEY_CAUSES		"causes"
#define PROTO_KEY_SUPPRESSED		"suppressed"
#define PROTO_KEY_KERNEL_SUPPRESSED	"kernel_suppressed"
#define PROTO_KEY_LOST			"lost"
#define PROTO_KEY_DETECT_LAST_NS	"detect_to_record_last_ns"
#define PROTO_KEY_DETECT_MAX_NS		"detect_to_record_max_ns"
/* 1.17: status session "waiter_ended", waiter threads that stopped on an error; counters
 * "unreadable", reads of the notification file dropped (a record in them not the module's) */
#define PROTO_KEY_WAITER_ENDED		"waiter_ended"
#define PROTO_KEY_UNREADABLE		"unreadable"
/* 1.23: status counters, snapshot reads latencyd-reader gave no result for */
#define PROTO_KEY_READER_FAILED		"reader_failed"

/* Arguments and results of trackers, set-threshold, set-timeout, enable, disable. */
#define PROTO_KEY_TRACKER	"tracker"
#define PROTO_KEY_TRACKERS	"trackers"
#define PROTO_KEY_ENABLED	"enabled"
#define PROTO_KEY_THRESHOLD_NS	"threshold_ns"
#define PROTO_KEY_TIMEOUT_NS	"timeout_ns"
#define PROTO_KEY_STATS		"stats"
#define PROTO_KEY_PREVIOUS	"previous"
#define PROTO_KEY_SAVED		"saved"
#define PROTO_KEY_SAVE		"save"		/* 1.3: persist the change */
#define PROTO_KEY_SAVED_FILE	"saved_file"	/* 1.3: where it was saved */
#define PROTO_KEY_ORIGINS	"origins"	/* 1.3: config: where each setting came from */
#define PROTO_KEY_SAVED_PROBLEM "saved_problem" /* 1.3: why the saved file was ignored */
/* threshold_ns and timeout_ns (0 = off) take the kernel's ranges (kmod/src/tunable.c). */
#define PROTO_THRESHOLD_MIN_NS	UINT64_C(1000)
#define PROTO_THRESHOLD_MAX_NS	UINT64_C(3600000000000)
#define PROTO_TIMEOUT_MIN_NS	UINT64_C(1000000)
#define PROTO_TIMEOUT_MAX_NS	UINT64_C(3600000000000)
/* filter's pid and tid (0 = any): the kernel refuses more than PID_MAX_LIMIT, 2^22 on 64-bit
 * (kmod/trackers/common.c). */
#define PROTO_PID_MAX		UINT64_C(4194304)

/* record's "message": bytes at most (latencyd keeps it with the manual cause) */
#define PROTO_RECORD_MESSAGE_MAX 256

/* list-snapshots, show-snapshot, delete-snapshot (1.2) */
#define PROTO_KEY_SINCE	       "since"
#define PROTO_KEY_LIMIT	       "limit"
#define PROTO_KEY_MATCHED      "matched"
#define PROTO_KEY_TOTAL	       "total"
#define PROTO_KEY_CAUSE	       "cause"
#define PROTO_KEY_CAUSES_TOTAL "causes_total"
#define PROTO_KEY_STATUS       "status"
#define PROTO_KEY_DELETED      "deleted"
#define PROTO_KEY_TIME	       "time"
#define PROTO_KEY_PATH	       "path"
#define PROTO_KEY_URL	       "url"
#define PROTO_KEY_RELAYD_PATH  "relayd_path"
#define PROTO_KEY_BYTES	       "bytes"
#define PROTO_KEY_DELAY_NS     "delay_ns"
#define PROTO_KEY_COMM	       "comm"
#define PROTO_KEY_TID	       "tid"
#define PROTO_KEY_REASON       "reason"
#define PROTO_KEY_REQUEST      "request"
#define PROTO_KEY_RECORDING    "recording"
#define PROTO_KEY_SOURCE       "source"
#define PROTO_KEY_SETTINGS     "settings"
#define PROTO_KEY_RELOADED     "reloaded"
#define PROTO_KEY_FILTER       "filter"
#define PROTO_KEY_CGROUP       "cgroup"
#define PROTO_KEY_CGROUP_ID    "cgroup_id"
#define PROTO_KEY_CLEAR	       "clear"
#define PROTO_KEY_ALERT	       "alert"
#define PROTO_KEY_ALERTS       "alerts" /* suppressed event: alerts it stands for (1.3) */
#define PROTO_KEY_DATA_WORDS   "data"
/* A cause's kernel stack (1.5), named at alert time: kind (PROTO_STACK_*), frames
 * ("function+0xoff/0xsize [module]", innermost first), addresses (only with
 * kernel.kptr_restrict = 0), error (why the frames could not be named). */
/* A catalog entry's block devices when it was recorded (1.5): {"MAJ:MIN": "vda"}. */
#define PROTO_KEY_DISKS	       "disks"
#define PROTO_KEY_STACK	       "stack"
#define PROTO_KEY_KIND	       "kind"
#define PROTO_KEY_FRAMES       "frames"
#define PROTO_KEY_ADDRESSES    "addresses"
#define PROTO_STACK_TASK       "task"  /* where the tracked task waited in the kernel */
#define PROTO_STACK_WAKER      "waker" /* the task that woke it, at the wakeup */
#define PROTO_STACK_ALERT      "alert" /* the context that raised the alert */
#define PROTO_STACK_IN	       "in"    /* the context that started the interval */

/*
 * "hist" (1.9): args tracker (or PROTO_HIST_IO), per, disk, reset; result "hists" (one per
 * tracker read) and "skipped" ({tracker, reason}: io's levels whose tracker is not loaded).
 */
#define PROTO_HIST_IO		"io" /* the four levels of an I/O: syscalls, fs, iosched, block */
#define PROTO_KEY_PER		"per"
#define PROTO_KEY_DISK		"disk"
#define PROTO_KEY_RESET		"reset"
#define PROTO_KEY_HISTS		"hists"
#define PROTO_KEY_SKIPPED	"skipped"
#define PROTO_KEY_SINCE_NS	"since_ns"
#define PROTO_KEY_NOW_NS	"now_ns"
#define PROTO_KEY_COUNT		"count"
#define PROTO_KEY_BUCKETS	"buckets"
#define PROTO_KEY_LOWER_NS	"lower_ns"
#define PROTO_KEY_UPPER_NS	"upper_ns"
#define PROTO_KEY_PERCENTILES	"percentiles"
#define PROTO_KEY_P50		"p50"
#define PROTO_KEY_P90		"p90"
#define PROTO_KEY_P99		"p99"
#define PROTO_KEY_MAX		"max"
#define PROTO_KEY_KEYS		"keys"
#define PROTO_KEY_KEY		"key"
#define PROTO_KEY_KEYS_SINCE_NS "keys_since_ns"
#define PROTO_KEY_WAS_RESET	"was_reset"

/* Values of status.module.state. */
#define PROTO_MODULE_NOT_LOADED	  "not-loaded"
#define PROTO_MODULE_LOADED	  "loaded"
#define PROTO_MODULE_ABI_MISMATCH "abi-mismatch"
#define PROTO_MODULE_ERROR	  "error"

/* Error codes. The enum is internal; the string names are the wire format and are stable. */
enum proto_errcode {
	PROTO_ERR_NONE = 0,
	PROTO_ERR_BAD_REQUEST,	       /* "bad-request": bad frame, message or handshake */
	PROTO_ERR_UNKNOWN_COMMAND,     /* "unknown-command" */
	PROTO_ERR_BAD_ARGUMENT,	       /* "bad-argument": args fail the command's field table */
	PROTO_ERR_NOT_AUTHORIZED,      /* "not-authorized" */
	PROTO_ERR_TOO_LARGE,	       /* "too-large": a frame above PROTO_FRAME_MAX */
	PROTO_ERR_INTERNAL,	       /* "internal" */
	PROTO_ERR_UNSUPPORTED_VERSION, /* "unsupported-version" */
	PROTO_ERR_BUSY,		       /* "busy": too many clients */
	PROTO_ERR_NOT_FOUND,	       /* "not-found": no such tracker (or snapshot) */
	PROTO_ERR_REFUSED,	       /* "refused": the kernel (or latencyd) refused the change */
	PROTO_ERR_UNRECOGNIZED,	       /* a code from a newer peer; no wire name of its own */
	_PROTO_ERR_MAX,
};

struct proto_error {
	enum proto_errcode code;
	char message[PROTO_MESSAGE_MAX];
};

/* error.c */
const char *proto_errcode_to_string(enum proto_errcode code);
enum proto_errcode proto_errcode_from_string(const char *name);
int proto_errcode_to_errno(enum proto_errcode code);
int proto_error_set(struct proto_error *err, enum proto_errcode code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * duration.c: "10ms", "500us" (or "µs"), "1.5ms", "2s", "250ns" to nanoseconds, exactly; a
 * unit is required. Returns 0, or -EINVAL/-ERANGE with *why (a static string) saying why.
 * proto_duration_format() writes the largest unit reached with up to three decimals
 * ("1.5ms", "500µs", "250ns") and returns the length like snprintf.
 */
int proto_duration_parse(const char *s, uint64_t *ret_ns, const char **why);
size_t proto_duration_format(char *buf, size_t size, uint64_t ns);
/*
 * ns in the unit of TYPED, a duration as the user wrote it, when it is exact there with at
 * most six decimals ("0.001ms" for 1µs when TYPED is "7200000ms"), else as
 * proto_duration_format() writes it: a range said in the units of the value it refuses.
 */
size_t proto_duration_format_unit(char *buf, size_t size, uint64_t ns, const char *typed);

/*
 * frame.c: one JSON object per line. A frame is at most `max` bytes, its newline included.
 * Frames are encoded into a growable output buffer that the caller writes out and consumes.
 * The decoder is fed by the caller's I/O: proto_decoder_space() gives room to read into,
 * proto_decoder_commit() accounts what was read, proto_decoder_next() returns frames.
 * It never holds more than `max` bytes, skips empty lines, and after an error resumes at
 * the next line, so one bad frame costs only that frame.
 */
struct proto_decoder {
	char *buf;
	size_t start; /* first byte not yet consumed */
	size_t len;   /* bytes held, from buf[0] */
	size_t cap;
	size_t scanned; /* bytes from start already known to hold no newline */
	size_t max;
	bool discarding; /* skipping the rest of an oversize frame */
	struct json_tokener *tok;
	char error[PROTO_MESSAGE_MAX];
};

struct proto_buf {
	char *data;
	size_t start, len, cap;
};

int proto_buf_add_frame(struct proto_buf *b, struct json_object *obj, size_t max);
/* O's length as JSON, at least what it takes in a frame (which escapes less): what a
 * command counts against PROTO_PAYLOAD_BUDGET. */
size_t proto_json_length(struct json_object *o);
size_t proto_buf_pending(const struct proto_buf *b);
const char *proto_buf_head(const struct proto_buf *b);
void proto_buf_consume(struct proto_buf *b, size_t n);
void proto_buf_done(struct proto_buf *b);
void proto_decoder_init(struct proto_decoder *d, size_t max);
void proto_decoder_done(struct proto_decoder *d);
int proto_decoder_space(struct proto_decoder *d, char **ret, size_t *ret_len);
void proto_decoder_commit(struct proto_decoder *d, size_t n);
ssize_t proto_decoder_feed(struct proto_decoder *d, const void *data, size_t n);
int proto_decoder_next(struct proto_decoder *d, struct json_object **ret);
size_t proto_decoder_pending(const struct proto_decoder *d);
const char *proto_decoder_error(const struct proto_decoder *d);

/*
 * fields.c: a typed field table validates one JSON object and stores its members into a C
 * struct at the given offsets (borrowed references: they live as long as the object).
 * Unknown, mistyped and missing fields fail with PROTO_ERR_BAD_ARGUMENT naming the field.
 */
enum proto_field_type {
	PROTO_FIELD_BOOL,   /* bool */
	PROTO_FIELD_INT,    /* int64_t */
	PROTO_FIELD_UINT,   /* uint64_t; negative values fail */
	PROTO_FIELD_DOUBLE, /* double; integers accepted */
	PROTO_FIELD_STRING, /* const char *; one holding a NUL byte (\u0000) fails */
	PROTO_FIELD_OBJECT, /* struct json_object * */
	PROTO_FIELD_ARRAY,  /* struct json_object * */
	PROTO_FIELD_ANY,    /* struct json_object *, any type */
};

#define PROTO_FIELD_REQUIRED (1u << 0) /* absence is an error */
#define PROTO_FIELD_NULLABLE (1u << 1) /* JSON null is accepted and means absent */
/* An integer past the type's range is read as json-c clamps it (UINT64_MAX, INT64_MAX or
 * INT64_MIN), not refused: for a field that reads every value past a bound alike. */
#define PROTO_FIELD_CLAMPED  (1u << 2)

struct proto_field {
	const char *name; /* NULL ends the table */
	enum proto_field_type type;
	unsigned flags;
	size_t offset;
};

#define PROTO_DISPATCH_ALLOW_UNKNOWN (1u << 0) /* ignore members not in the table */

int proto_fields_dispatch(struct json_object *obj, const struct proto_field *fields, unsigned flags,
			  void *out, struct proto_error *err);

/* message.c: the four message kinds, told apart by their first-level keys. */
enum proto_msg_kind {
	PROTO_MSG_INVALID,
	PROTO_MSG_HELLO,   /* {"hello":{...}} */
	PROTO_MSG_REQUEST, /* {"id":N,"command":"...","args":{...}} */
	PROTO_MSG_REPLY,   /* {"id":N,"ok":true,"result":{...}} or "ok":false,"error":{...} */
	PROTO_MSG_EVENT,   /* {"event":"...","data":{...}} */
};

#define PROTO_ID_NONE (-1) /* a reply to a message whose id is unknown carries "id":null */

struct proto_hello {
	int64_t protocol;
	int64_t revision;
	const char *client; /* client hello */
	const char *server; /* server hello */
	const char *version;
};

struct proto_request {
	int64_t id;
	const char *command;
	struct json_object *args; /* NULL when absent */
};

/*
 * A snapshot's catalog entry (catalog.json, list-snapshots, show-snapshot, the snapshot
 * event): the keys and values not shared with other replies. The catalog file and the
 * replies use the same spelling, so that an entry travels without translation.
 */
#define PROTO_KEY_NEXT_ID	      "next_id"	      /* catalog.json */
#define PROTO_KEY_INCIDENT_BASE	      "incident_base" /* catalog.json */
#define PROTO_KEY_RECENT	      "recent"	      /* suppressed: the latest alerts */
#define PROTO_KEY_BY_TRACKER	      "by_tracker"    /* suppressed: counts per tracker */
#define PROTO_KEY_SEQ		      "seq"	      /* an alert's number in the kernel */
#define PROTO_KEY_START_NS	      "start_ns"      /* an alert's interval, CLOCK_MONOTONIC */
#define PROTO_KEY_END_NS	      "end_ns"
#define PROTO_KEY_DETECT_TO_RECORD_NS "detect_to_record_ns"
#define PROTO_KEY_WAKEUP_TO_RECORD_NS "wakeup_to_record_ns"
#define PROTO_KEY_RECORD_NS	      "record_ns"
#define PROTO_KEY_FELL_BACK	      "fell_back"    /* relayd failed, recorded locally */
#define PROTO_KEY_RELAYD_ERROR	      "relayd_error" /* why relayd failed */
#define PROTO_KEY_STREAMS	      "streams"	     /* history: per stream */
#define PROTO_KEY_SUMMARY	      "summary"	     /* analysis: one line */
#define PROTO_KEY_EVENTS	      "events"
#define PROTO_KEY_MISSING_EVENTS      "missing_events" /* analysis: events the session lacks */
#define PROTO_KEY_TEXT		      "text"	       /* metrics (1.9) */
#define PROTO_KEY_FROM_LINE	      "from_line"      /* metrics: the first line wanted */
#define PROTO_KEY_NEXT_LINE	      "next_line"      /* metrics: where the next part starts */
#define PROTO_KEY_RENDERING	      "rendering"      /* metrics: the parts' text (1.16) */
#define PROTO_KEY_STREAMS_TOTAL	      "streams_total"  /* history: streams, all of them */
#define PROTO_KEY_CHANNEL	      "channel"	       /* history: a stream's */
#define PROTO_KEY_CPU		      "cpu"
#define PROTO_KEY_FIRST_NS	      "first_ns" /* also hist: a key's first bucket */
#define PROTO_KEY_COUNTS	      "counts"	 /* hist: a key's counts from first_ns on */
#define PROTO_KEY_LAST_NS	      "last_ns"
#define PROTO_KEY_SPAN_NS	      "span_ns"
#define PROTO_KEY_ANALYSIS_MS	      "analysis_ms" /* analysis: how long it took */
#define PROTO_KEY_PROBLEMS	      "problems"    /* analysis: what was wrong with the trace */
#define PROTO_KEY_EXPLAINED	      "explained"   /* analysis: the share of a delay explained */

/* An entry's status. */
#define PROTO_SNAP_RECORDING "recording"
#define PROTO_SNAP_COMPLETE  "complete"
#define PROTO_SNAP_FAILED    "failed"

/* 1.15: an entry's "deletion", what its last deletion left on disk ("none" is not written). */
#define PROTO_KEY_DELETION		 "deletion"
#define PROTO_KEY_DELETION_NOTE		 "deletion_note" /* where and why it failed */
#define PROTO_DELETION_NONE		 "none"
#define PROTO_DELETION_UNDELETABLE	 "undeletable" /* a file cannot go: kept whole */
#define PROTO_DELETION_PARTIAL		 "partial"     /* deleted in part, the rest cannot go */
#define PROTO_DELETION_PARTIAL_DELETABLE "partial-deletable" /* the rest can go now */
#define PROTO_DELETION_GONE		 "gone"		     /* removed outside latencyd */
/* catalog.json: its entries' deletion state is in these members, not in their error */
#define PROTO_KEY_DELETION_MEMBERS	 "deletion_members"

/* 1.17: a failed entry abandoned at a stop: where lttng-sessiond may still write its output. */
#define PROTO_KEY_LATE_DIRECTORY "late_directory"

/* A cause's reason. */
#define PROTO_REASON_THRESHOLD "threshold"
#define PROTO_REASON_TIMEOUT   "timeout"
#define PROTO_REASON_MANUAL    "manual"
#define PROTO_REASON_PEER      "peer" /* 1.4: a fleet peer's alert */
/* 1.17: a timeout alert flagged LATENCY_TRACKER_REC_F_DISCARDED, the key's last: its end
 * never came, delay_ns is its age at the discard, a lower bound of its latency */
#define PROTO_REASON_DISCARDED "discarded"

/* The fleet (1.4): incidents, peers' causes, the broker connection. */
#define PROTO_KEY_INCIDENT		"incident"
#define PROTO_KEY_INCIDENTS		"incidents"
#define PROTO_KEY_ORIGIN		"origin"
#define PROTO_KEY_ORIGIN_TRACKER	"origin_tracker"
#define PROTO_KEY_START_REALTIME_NS	"start_realtime_ns"
#define PROTO_KEY_END_REALTIME_NS	"end_realtime_ns"
#define PROTO_KEY_RECEIVED_TO_RECORD_NS "received_to_record_ns"
#define PROTO_KEY_FLEET			"fleet"
#define PROTO_KEY_CONNECTED		"connected"
#define PROTO_KEY_BROKER		"broker"
#define PROTO_KEY_HOST			"host"
#define PROTO_KEY_GROUP			"group"
#define PROTO_KEY_HOSTS			"hosts"
#define PROTO_KEY_RECORDED		"recorded"
#define PROTO_KEY_REFUSED		"refused"
#define PROTO_KEY_PUBLISHED		"published"
#define PROTO_KEY_RECEIVED		"received"
#define PROTO_KEY_DROPPED		"dropped"
#define PROTO_KEY_RECONNECTS		"reconnects"
#define PROTO_KEY_PEERS			"peers" /* counters: peers' alerts taken */
/* 1.7: an incident's members and what each did (#26) */
#define PROTO_KEY_MEMBERS		"members"
#define PROTO_KEY_LOCAL			"local"
#define PROTO_KEY_STALE			"stale"
#define PROTO_KEY_PENDING		"pending"
#define PROTO_KEY_NO_ANSWER		"no_answer"
#define PROTO_KEY_DETAILS		"details"
#define PROTO_KEY_UNPUBLISHED		"unpublished"
#define PROTO_KEY_SUBSCRIBED		"subscribed"
#define PROTO_KEY_MEMBERS_ONLINE	"members_online"
/* 1.8: fleet.process, the unprivileged MQTT process; status's collector (#26) */
#define PROTO_KEY_PROCESS		"process"
#define PROTO_KEY_USER			"user"
#define PROTO_KEY_RESTARTS		"restarts"
#define PROTO_KEY_REJECTED		"rejected"
#define PROTO_KEY_COLLECTOR		"collector"
#define PROTO_KEY_DELETED_BYTES		"deleted_bytes"
#define PROTO_KEY_LAST_PASS		"last_pass_realtime_ns"
#define PROTO_KEY_PROBLEM		"problem"
/* 1.10: what latencyd-fleet reported that latencyd's main loop never took */
#define PROTO_KEY_NOTES_DROPPED		"notes_dropped"
/* 1.22: status fleet, peers' alerts sent by a clock far from this host's */
#define PROTO_KEY_CLOCK_SKEWED		"clock_skewed"
/* 1.17: status fleet dropped "unknown": results for incidents this host does not keep */
#define PROTO_KEY_UNKNOWN		"unknown"
/* 1.11: the collector's incidents deleted in part (a deletion failed past its check) */
#define PROTO_KEY_DELETED_IN_PART	"deleted_in_part"
/* 1.12: status's control socket */
#define PROTO_KEY_CONTROL		"control"
#define PROTO_KEY_CLIENTS		"clients"
#define PROTO_KEY_MAX_CLIENTS		"max_clients"
#define PROTO_KEY_ACCEPTED		"accepted"
#define PROTO_KEY_BUSY			"busy"
#define PROTO_KEY_DROPPED_SLOW		"dropped_slow"
#define PROTO_KEY_TIMED_OUT		"timed_out"
#define PROTO_KEY_BAD_FRAMES		"bad_frames"
#define PROTO_KEY_ACCEPT_FAILED		"accept_failed"
/* 1.18: status control, connections whose groups the database did not give in time */
#define PROTO_KEY_GROUPS_TIMED_OUT	"groups_timed_out"
#define PROTO_KEY_WAITING		"waiting"
/* 1.21: status control, watch events dropped as too large for a frame */
#define PROTO_KEY_EVENTS_TOO_LARGE	"events_too_large"
#define PROTO_KEY_KEEP_FILES		"keep_files"
#define PROTO_KEY_KEPT			"kept"
/* 1.13: status's local retention (and "deleted_in_part") */
#define PROTO_KEY_RETENTION		"retention"
#define PROTO_KEY_UNDELETABLE		"undeletable"
/* 1.14: the session's operation waiting for lttng-sessiond (status session, reload) */
#define PROTO_KEY_OPERATION		"operation"
#define PROTO_KEY_OPERATION_NS		"operation_ns"

struct proto_reply {
	int64_t id;
	bool ok;
	struct json_object *result; /* ok */
	enum proto_errcode code;    /* !ok */
	const char *code_name;	    /* !ok, as received */
	const char *message;	    /* !ok */
};

struct proto_event {
	const char *name;
	struct json_object *data;
};

enum proto_msg_kind proto_message_kind(struct json_object *msg);
int proto_hello_new(const struct proto_hello *h, struct json_object **ret);
int proto_hello_parse(struct json_object *msg, struct proto_hello *h, struct proto_error *err);
int proto_hello_check(const struct proto_hello *h, struct proto_error *err);
int proto_request_new(int64_t id, const char *command, struct json_object *args,
		      struct json_object **ret);
int proto_request_parse(struct json_object *msg, struct proto_request *req,
			struct proto_error *err);
int proto_reply_new(int64_t id, struct json_object *result, struct json_object **ret);
int proto_reply_error_new(int64_t id, const struct proto_error *e, struct json_object **ret);
int proto_reply_parse(struct json_object *msg, struct proto_reply *rep, struct proto_error *err);
int proto_event_new(const char *name, struct json_object *data, struct json_object **ret);
int proto_event_parse(struct json_object *msg, struct proto_event *ev, struct proto_error *err);

/*
 * hist.c: the trackers' log2 histograms (latency_tracker ABI 1.4, hist/): bucket I holds the
 * delays in [2^I, 2^(I+1)) ns, bucket 0 those in [0, 2). COUNTS are PROTO_HIST_BUCKETS
 * counts by bucket. A percentile is the upper bound of the bucket that holds the
 * nearest-rank delay (the ceil(permille * total / 1000)th smallest): an upper bound, never
 * an interpolated value. Returns the bucket, -ENODATA when the histogram is empty, -EINVAL
 * for a permille outside 1..1000 (1000: the max's bucket).
 */
#define PROTO_HIST_BUCKETS 64
uint64_t proto_hist_lower_ns(unsigned i);
uint64_t proto_hist_upper_ns(unsigned i); /* UINT64_MAX for the last bucket */
/* The bucket whose lower bound is LOWER_NS (0 or a power of two from 2), or -EINVAL. */
int proto_hist_bucket(uint64_t lower_ns);
uint64_t proto_hist_total(const uint64_t *counts); /* saturates at UINT64_MAX */
int proto_hist_percentile(const uint64_t *counts, unsigned permille, uint64_t *upper_ns);

/*
 * hist_codec.c: one tracker's histogram, as latencyd reads it from the kernel and as the
 * "hist" command carries it (one of its "hists"). Counts are by bucket (COUNTS above);
 * keys, when the tracker's histogram is split (per), in the kernel's order.
 */
#define PROTO_HIST_KEYS_MAX  65 /* the module's 64 (LATENCY_TRACKER_HIST_KEYS) and "other" */
#define PROTO_HIST_NAME_LEN  32
#define PROTO_HIST_KEY_LEN   24
#define PROTO_HIST_PER_LEN   16
#define PROTO_HIST_KEY_OTHER "other" /* the keys past the 64th, together */
struct proto_hist_key {
	char key[PROTO_HIST_KEY_LEN];	/* "3" (cpu), "8:0" (disk), "202" (syscall), "other" */
	char name[PROTO_HIST_NAME_LEN]; /* "vda" for a disk; "" when unknown */
	uint64_t counts[PROTO_HIST_BUCKETS];
};
struct proto_hist {
	char tracker[PROTO_HIST_NAME_LEN];
	char per[PROTO_HIST_PER_LEN];	/* "" (not split), "cpu", "disk", "syscall" */
	char disk[PROTO_HIST_NAME_LEN]; /* "": every disk; else counts are that disk's */
	uint64_t since_ns, now_ns;	/* CLOCK_MONOTONIC: the interval the counts cover */
	uint64_t keys_since_ns; /* with per: the keys' start (the split's change or reset) */
	uint64_t counts[PROTO_HIST_BUCKETS];
	size_t nkeys;
	struct proto_hist_key keys[PROTO_HIST_KEYS_MAX];
};
/* {tracker, since_ns, now_ns, count, buckets: [{lower_ns, upper_ns, count}] (the non-empty
 * ones), percentiles: {p50, p90, p99, max} (bucket upper bounds; {} when empty), and per,
 * disk, keys_since_ns, keys: [{key, name, count, buckets, percentiles}] when set}. */
int proto_hist_to_json(const struct proto_hist *h, struct json_object **ret);
/* The same back; the counts, not the derived members, are read. Unknown members are
 * ignored (a newer latencyd may add some). */
int proto_hist_from_json(struct json_object *o, struct proto_hist *h, struct proto_error *err);
/* H minus PREV, bucket by bucket (a reset in between: H as it is), over PREV's now_ns to
 * H's: what happened between two reads. Keys are matched by name. */
void proto_hist_delta(struct proto_hist *h, const struct proto_hist *prev);

/* nearest.c: of N CHOICES (NULL ones skipped), WORD itself or the one a typo away from it
 * (two edits at most, fewer than half the word), for "did you mean"; NULL when none is, or
 * two are as near. */
const char *proto_nearest(const char *word, const char *const *choices, size_t n);

#endif /* LATENCYD_PROTO_H */
