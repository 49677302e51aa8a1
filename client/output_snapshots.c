/* SPDX-License-Identifier: GPL-2.0-only */
/* Text output of list-snapshots, show-snapshot and delete-snapshot. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <json-c/json.h>

#include "latencyctl.h"

static struct json_object *get(struct json_object *o, const char *key)
{
	struct json_object *v = NULL;

	json_object_object_get_ex(o, key, &v);
	return v;
}

/* Member KEY if it is an array, else NULL: json-c aborts on an array call on anything else. */
static struct json_object *array(struct json_object *o, const char *key)
{
	struct json_object *v = get(o, key);

	return json_object_is_type(v, json_type_array) ? v : NULL;
}

static const char *str(struct json_object *o, const char *key, const char *dflt)
{
	return json_str(get(o, key), dflt);
}

static int64_t num(struct json_object *o, const char *key)
{
	struct json_object *v = get(o, key);

	return v && json_object_is_type(v, json_type_int) ? json_object_get_int64(v) : -1;
}

static void time_text(char *buf, size_t size, int64_t t)
{
	time_t tt = (time_t)t;
	struct tm tm;

	if (t < 0 || !localtime_r(&tt, &tm) || !strftime(buf, size, "%Y-%m-%d %H:%M:%S", &tm))
		snprintf(buf, size, "-");
}

/* A reason a list leaves unsaid: a delay past the threshold, a manual record, or none. */
static bool plain_reason(const char *reason)
{
	return !*reason || strcmp(reason, PROTO_REASON_THRESHOLD) == 0 ||
	       strcmp(reason, PROTO_REASON_MANUAL) == 0;
}

/*
 * A cause's delay, ">=61.2s" when it is a lower bound: a key discarded as stale (1.17) was
 * still pending when the module gave up on it.
 */
static void delay_text(char *buf, size_t size, struct json_object *c)
{
	bool bound = strcmp(str(c, PROTO_KEY_REASON, ""), PROTO_REASON_DISCARDED) == 0;
	char delay[32];

	ns_text(delay, sizeof(delay), c, PROTO_KEY_DELAY_NS, false);
	snprintf(buf, size, "%s%s", bound && strcmp(delay, "-") != 0 ? ">=" : "", delay);
}

/* "syscalls pid 812 (usleep) 31.4ms", "block pid 0 (kworker/0:1) >=61.2s (discarded)" */
static void cause_text(char *buf, size_t size, struct json_object *c)
{
	const char *reason, *said;
	char delay[40];

	if (!c) {
		snprintf(buf, size, "-");
		return;
	}
	reason = str(c, PROTO_KEY_REASON, "");
	said = plain_reason(reason) ? NULL : reason;
	delay_text(delay, sizeof(delay), c);
	if (strcmp(reason, PROTO_REASON_PEER) == 0) {
		snprintf(buf, size, "peer %s: %s tid %" PRId64 " (%s) %s, incident %s",
			 str(c, PROTO_KEY_ORIGIN, "?"), str(c, PROTO_KEY_ORIGIN_TRACKER, "?"),
			 num(c, PROTO_KEY_TID), str(c, PROTO_KEY_COMM, "?"), delay,
			 str(c, PROTO_KEY_INCIDENT, "?"));
		return;
	}
	/* The usual reasons go unsaid; others (timeout, discarded, a newer latencyd's) are
	 * shown as spelled. */
	snprintf(buf, size, "%s pid %" PRId64 " (%s) %s%s%s%s", str(c, PROTO_KEY_TRACKER, "?"),
		 num(c, PROTO_KEY_PID), str(c, PROTO_KEY_COMM, "?"), delay, said ? " (" : "",
		 said ? said : "", said ? ")" : "");
}

static const char *location(struct json_object *e)
{
	return str(e, PROTO_KEY_PATH, str(e, PROTO_KEY_URL, "-"));
}

/* 1.15: what the last deletion of a local snapshot left on disk, in a few words (the list's
 * status) and in a sentence (show-snapshot); NULL: none (or an older latencyd's entry). */
static const struct {
	const char *state, *brief, *said;
} deletions[] = {
	{PROTO_DELETION_UNDELETABLE, "undeletable", "cannot be deleted, kept whole"},
	{PROTO_DELETION_PARTIAL, "deleted in part", "deleted in part, what is left cannot be"},
	{PROTO_DELETION_PARTIAL_DELETABLE, "deleted in part",
	 "deleted in part, what is left can be deleted now"},
	{PROTO_DELETION_GONE, "directory gone", "its directory is gone (removed outside latencyd)"},
};

static const char *deletion_text(struct json_object *e, bool brief)
{
	const char *state = str(e, PROTO_KEY_DELETION, NULL);

	for (size_t i = 0; state && i < sizeof(deletions) / sizeof(deletions[0]); i++)
		if (strcmp(state, deletions[i].state) == 0)
			return brief ? deletions[i].brief : deletions[i].said;
	return state; /* a newer latencyd's: as it spells it */
}

/* "complete", "failed (deleted in part)" */
static void status_text(char *buf, size_t size, struct json_object *e)
{
	const char *deletion = deletion_text(e, true);

	snprintf(buf, size, "%s%s%s%s", str(e, PROTO_KEY_STATUS, "?"), deletion ? " (" : "",
		 deletion ? deletion : "", deletion ? ")" : "");
}

int text_snapshots(struct json_object *result)
{
	static const char *const head[] = {"ID",	  "TIME", "STATUS",  "CAUSES",
					   "FIRST CAUSE", "SIZE", "LOCATION"};
	struct json_object *list = get(result, PROTO_KEY_SNAPSHOTS);
	struct columns t;
	char when[32], cause[160], size[32], status[64];
	size_t n;

	if (!list || !json_object_is_type(list, json_type_array)) {
		fprintf(stderr, "latencyctl: list-snapshots: malformed reply from latencyd\n");
		return EXIT_CONNECT;
	}
	n = json_object_array_length(list);
	if (n == 0) {
		printf("No snapshots.\n");
	} else {
		columns_init(&t, head, sizeof(head) / sizeof(head[0]));
		for (size_t i = 0; i < n; i++) {
			struct json_object *e = json_object_array_get_idx(list, i);

			time_text(when, sizeof(when), num(e, PROTO_KEY_TIME));
			cause_text(cause, sizeof(cause), get(e, PROTO_KEY_CAUSE));
			bytes_text(size, sizeof(size), num(e, PROTO_KEY_BYTES));
			status_text(status, sizeof(status), e);
			columns_cell(&t, "%" PRId64, num(e, PROTO_KEY_ID));
			columns_cell(&t, "%s", when);
			columns_cell(&t, "%s", status);
			columns_cell(&t, "%" PRId64, num(e, PROTO_KEY_CAUSES));
			columns_cell(&t, "%s", cause);
			columns_cell(&t, "%s", size);
			columns_cell(&t, "%s", location(e));
		}
		columns_print(&t);
		columns_done(&t);
	}
	/* The newest first: what --limit asks for, or as many as one reply holds. */
	if (num(result, PROTO_KEY_MATCHED) > (int64_t)n)
		printf("%" PRId64 " older snapshot(s) not shown: listed are the %zu newest, as "
		       "--limit asks or one reply holds.\n",
		       num(result, PROTO_KEY_MATCHED) - (int64_t)n, n);
	if (num(result, PROTO_KEY_SUPPRESSED) > 0)
		printf("%" PRId64 " alert(s) suppressed by the rate limit in all.\n",
		       num(result, PROTO_KEY_SUPPRESSED));
	return EXIT_OK;
}

/* "History   complete over the last 1.2s (buffers full), 3400 events" */
static void history_text(struct json_object *h)
{
	char window[32];

	if (!h)
		return;
	ns_text(window, sizeof(window), h, PROTO_KEY_WINDOW_NS, false);
	printf("  History   complete over the last %s%s, %" PRId64 " events\n", window,
	       json_object_get_boolean(get(h, PROTO_KEY_WRAPPED))
		       ? " (buffers full)"
		       : " (buffers not full: all since the session started)",
	       num(h, PROTO_KEY_EVENTS));
}

/* The automatic analysis (analysis.auto): its state and one line per alert explained. */
static void analysis_text(struct json_object *a, int64_t id)
{
	struct json_object *causes = array(a, PROTO_KEY_CAUSES),
			   *missing = array(a, PROTO_KEY_MISSING_EVENTS);
	size_t n = causes ? json_object_array_length(causes) : 0;

	if (!a)
		return;
	printf("\nAnalysis (%s", str(a, PROTO_KEY_STATUS, "?"));
	if (get(a, PROTO_KEY_EVENTS))
		printf(", %" PRId64 " events", num(a, PROTO_KEY_EVENTS));
	printf("; latencyctl analyze %" PRId64 " tells the whole story):\n", id);
	if (get(a, PROTO_KEY_ERROR))
		printf("  %s\n", str(a, PROTO_KEY_ERROR, "?"));
	for (size_t i = 0; i < n; i++)
		printf("  %s\n", str(json_object_array_get_idx(causes, i), PROTO_KEY_SUMMARY, "?"));
	if (n == 0 && !get(a, PROTO_KEY_ERROR))
		printf("  no alert event in the snapshot to explain\n");
	if (missing && json_object_array_length(missing) > 0)
		printf("  (%zu event classes missing from the snapshot: see latencyctl analyze)\n",
		       json_object_array_length(missing));
}

/* What each kind of stack shows, as a heading. */
static const char *stack_heading(const char *kind)
{
	if (strcmp(kind, PROTO_STACK_TASK) == 0)
		return "where it waited in the kernel";
	if (strcmp(kind, PROTO_STACK_WAKER) == 0)
		return "the task that woke it, at the wakeup";
	if (strcmp(kind, PROTO_STACK_IN) == 0)
		return "where the interval began";
	return "where the alert was raised";
}

/* The causes' kernel stacks, innermost frame first, as the kernel prints them. */
static void stacks_text(struct json_object *causes)
{
	size_t n = causes ? json_object_array_length(causes) : 0;
	bool heading = false;

	for (size_t i = 0; i < n; i++) {
		struct json_object *c = json_object_array_get_idx(causes, i),
				   *stack = get(c, PROTO_KEY_STACK),
				   *frames = array(stack, PROTO_KEY_FRAMES),
				   *addrs = array(stack, PROTO_KEY_ADDRESSES);

		if (!frames || !json_object_array_length(frames))
			continue;
		if (!heading)
			printf("\nKernel stacks:\n");
		heading = true;
		printf("  alert %" PRId64 " (%s, tid %" PRId64 " %s), %s:\n", num(c, PROTO_KEY_SEQ),
		       str(c, PROTO_KEY_TRACKER, "?"), num(c, PROTO_KEY_TID),
		       str(c, PROTO_KEY_COMM, "?"), stack_heading(str(stack, PROTO_KEY_KIND, "")));
		if (get(stack, PROTO_KEY_ERROR))
			printf("    (unnamed: %s)\n", str(stack, PROTO_KEY_ERROR, "?"));
		for (size_t j = 0; j < json_object_array_length(frames); j++) {
			struct json_object *a = addrs ? json_object_array_get_idx(addrs, j) : NULL;

			printf("    %s%s%s\n", json_str(json_object_array_get_idx(frames, j), "?"),
			       json_str(a, NULL) ? "  " : "", json_str(a, ""));
		}
	}
}

int text_snapshot(struct json_object *e)
{
	static const char *const head[] = {"TRACKER", "REASON", "PID", "TID", "COMM", "DELAY"};
	struct json_object *causes = array(e, PROTO_KEY_CAUSES);
	char buf[64], buf2[64];
	struct columns t;
	size_t n = causes ? json_object_array_length(causes) : 0;

	time_text(buf, sizeof(buf), num(e, PROTO_KEY_TIME));
	printf("Snapshot %" PRId64 "\n", num(e, PROTO_KEY_ID));
	printf("  Time      %s\n", buf);
	printf("  Status    %s%s%s\n", str(e, PROTO_KEY_STATUS, "?"),
	       get(e, PROTO_KEY_ERROR) ? ": " : "", str(e, PROTO_KEY_ERROR, ""));
	if (deletion_text(e, false))
		printf("  Deletion  %s%s%s\n", deletion_text(e, false),
		       get(e, PROTO_KEY_DELETION_NOTE) ? ": " : "",
		       str(e, PROTO_KEY_DELETION_NOTE, ""));
	printf("  Location  %s\n", location(e));
	if (get(e, PROTO_KEY_RELAYD_PATH))
		printf("            on the relayd host: %s (under its output directory)\n",
		       str(e, PROTO_KEY_RELAYD_PATH, "?"));
	if (get(e, PROTO_KEY_LATE_DIRECTORY))
		printf("            lttng-sessiond may still write it in %s (the next start looks "
		       "there)\n",
		       str(e, PROTO_KEY_LATE_DIRECTORY, "?"));
	bytes_text(buf, sizeof(buf), num(e, PROTO_KEY_BYTES));
	printf("  Size      %s\n", buf);
	ns_text(buf, sizeof(buf), e, PROTO_KEY_RECORD_NS, false);
	ns_text(buf2, sizeof(buf2), e, PROTO_KEY_DETECT_TO_RECORD_NS, false);
	printf("  Record    %s, started %s after the first alert ended\n", buf, buf2);
	if (get(e, PROTO_KEY_FELL_BACK))
		printf("  Relayd    failed (%s): recorded locally instead\n",
		       str(e, PROTO_KEY_RELAYD_ERROR, "?"));
	history_text(get(e, PROTO_KEY_HISTORY));
	/* causes_total is 1.2's: an older latencyd's entry says no count. */
	if (num(e, PROTO_KEY_CAUSES_TOTAL) >= 0)
		printf("\nCauses (%" PRId64 "):\n", num(e, PROTO_KEY_CAUSES_TOTAL));
	else
		printf("\nCauses:\n");
	columns_init(&t, head, sizeof(head) / sizeof(head[0]));
	for (size_t i = 0; i < n; i++) {
		struct json_object *c = json_object_array_get_idx(causes, i);

		delay_text(buf, sizeof(buf), c);
		columns_cell(&t, "%s", str(c, PROTO_KEY_TRACKER, "?"));
		columns_cell(&t, "%s", str(c, PROTO_KEY_REASON, "?"));
		columns_cell(&t, "%" PRId64, num(c, PROTO_KEY_PID));
		columns_cell(&t, "%" PRId64, num(c, PROTO_KEY_TID));
		columns_cell(&t, "%s", str(c, PROTO_KEY_COMM, "?"));
		columns_cell(&t, "%s", buf);
	}
	columns_print(&t);
	columns_done(&t);
	if (num(e, PROTO_KEY_CAUSES_TOTAL) > (int64_t)n)
		printf("(%zu of %" PRId64 " shown; all are in the catalog)\n", n,
		       num(e, PROTO_KEY_CAUSES_TOTAL));
	stacks_text(causes);
	analysis_text(get(e, PROTO_KEY_ANALYSIS), num(e, PROTO_KEY_ID));
	return EXIT_OK;
}

int text_snapshot_deleted(struct json_object *result)
{
	if (get(result, PROTO_KEY_KEPT))
		printf("Snapshot %" PRId64 " deleted from the catalog; its files stay in %s.\n",
		       num(result, PROTO_KEY_ID), str(result, PROTO_KEY_KEPT, "?"));
	else if (get(result, PROTO_KEY_URL))
		printf("Snapshot %" PRId64
		       " deleted from the catalog; its files stay on the relayd "
		       "host (%s).\n",
		       num(result, PROTO_KEY_ID), str(result, PROTO_KEY_URL, "?"));
	else
		printf("Snapshot %" PRId64 " deleted.\n", num(result, PROTO_KEY_ID));
	return EXIT_OK;
}

static void now_text(char *buf, size_t size)
{
	time_t t = time(NULL);
	struct tm tm;

	if (!localtime_r(&t, &tm) || !strftime(buf, size, "%H:%M:%S", &tm))
		snprintf(buf, size, "-");
}

/* watch: one line per event, as it comes. */
int text_event(const char *name, struct json_object *data)
{
	char when[16], cause[160];
	struct json_object *causes = array(data, PROTO_KEY_CAUSES);

	now_text(when, sizeof(when));
	if (strcmp(name, PROTO_EVENT_SNAPSHOT) == 0) {
		cause_text(cause, sizeof(cause),
			   causes ? json_object_array_get_idx(causes, 0) : NULL);
		printf("%s  snapshot %" PRId64 " %s: %s", when, num(data, PROTO_KEY_ID),
		       str(data, PROTO_KEY_STATUS, "?"), cause);
		if (num(data, PROTO_KEY_CAUSES_TOTAL) > 1)
			printf(" (+%" PRId64 " more)", num(data, PROTO_KEY_CAUSES_TOTAL) - 1);
		printf("  %s\n", get(data, PROTO_KEY_ERROR) ? str(data, PROTO_KEY_ERROR, "")
							    : location(data));
	} else if (strcmp(name, PROTO_EVENT_SUPPRESSED) == 0) {
		cause_text(cause, sizeof(cause), get(data, PROTO_KEY_ALERT));
		printf("%s  suppressed by the rate limit: %s", when, cause);
		if (num(data, PROTO_KEY_ALERTS) > 1)
			printf(" (+%" PRId64 " more)", num(data, PROTO_KEY_ALERTS) - 1);
		printf("\n");
	} else if (strcmp(name, PROTO_EVENT_LOST) == 0) {
		printf("%s  latencyd missed %" PRId64 " alert records\n", when,
		       num(data, PROTO_KEY_LOST));
	} else if (strcmp(name, PROTO_EVENT_PEER) == 0) {
		printf("%s  peer %s: alert of tracker %s (incident %s): recording\n", when,
		       str(data, PROTO_KEY_ORIGIN, "?"), str(data, PROTO_KEY_TRACKER, "?"),
		       str(data, PROTO_KEY_INCIDENT, "?"));
	} else if (strcmp(name, PROTO_EVENT_FLEET) == 0) {
		printf("%s  fleet: %s (%s)\n", when, str(data, PROTO_KEY_STATE, "?"),
		       str(data, PROTO_KEY_DETAIL, ""));
	} else {
		printf("%s  %s\n", when, name);
	}
	return EXIT_OK; /* flushed by watch, which stops when it fails (stdout_check()) */
}

/* record: the snapshot that answered it, or the alert the rate limit refused. */
int text_recorded(const char *name, struct json_object *data)
{
	if (strcmp(name, PROTO_EVENT_SUPPRESSED) == 0) {
		printf("Not recorded: the rate limit refused it (see latencyctl status).\n");
		return EXIT_DAEMON;
	}
	if (get(data, PROTO_KEY_ERROR)) {
		printf("Snapshot %" PRId64 " failed: %s\n", num(data, PROTO_KEY_ID),
		       str(data, PROTO_KEY_ERROR, "?"));
		return EXIT_DAEMON;
	}
	printf("Snapshot %" PRId64 " recorded: %s\n", num(data, PROTO_KEY_ID), location(data));
	return EXIT_OK;
}
