// SPDX-License-Identifier: GPL-2.0-only
/*
 * The catalog entry's one codec against committed files: each entry of a set covering
 * every kind of snapshot and cause is encoded and compared byte for byte with its .json
 * under golden/catalog/, and each file decodes back to an entry that encodes the same.
 * A change of spelling shows up here as a diff to review, not in a client months later.
 * LATENCYD_GOLDEN_UPDATE=1 rewrites the files instead (then review them with git diff).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "entry.h"
#include "proto.h"
#include "tests.h"

#define PRINT_FLAGS (JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE)

static char *frames[] = {"mutex_lock+0x1c/0x40", "do_sys_open+0x2a/0x90 [ext4]"};
static char *addresses[] = {"0xffffffff81a0c21c", "0xffffffffc01234ea"};
static struct catalog_stack task_stack = {
	.kind = PROTO_STACK_TASK,
	.frames = frames,
	.n_frames = 2,
	.addresses = addresses,
	.n_addresses = 2,
};
static char *unnamed[] = {"?", "?"};
static struct catalog_stack unnamed_stack = {
	.kind = PROTO_STACK_WAKER,
	.frames = unnamed,
	.n_frames = 2,
	.error = "/proc/kallsyms: no addresses shown (kernel.kptr_restrict, no CAP_SYSLOG)",
};

static struct catalog_cause alert = {
	.tracker = "syscalls",
	.reason = PROTO_REASON_THRESHOLD,
	.seq = 41,
	.pid = 812,
	.tid = 815,
	.comm = "postgres",
	.start_ns = 1000000000,
	.end_ns = 1012500000,
	.delay_ns = 12500000,
	.threshold_ns = 10000000,
	.data = {202, 3, 0, 0},
	.stack = &task_stack,
};
static struct catalog_cause timeout = {
	.tracker = "wakeup",
	.reason = PROTO_REASON_TIMEOUT,
	.seq = 0,
	.pid = 9,
	.tid = 9,
	.comm = "kworker/0:1",
	.start_ns = 2000000000,
	.end_ns = 2100000000,
	.delay_ns = 100000000,
	.threshold_ns = 5000000,
	.stack = &unnamed_stack,
};
static struct catalog_cause manual = {
	.tracker = "manual",
	.reason = PROTO_REASON_MANUAL,
	.request = 3,
	.message = "before the \"deploy\" / rollback",
	.pid = 4242,
	.tid = 4242,
	.comm = "latencyctl",
	.start_ns = 3000000000,
	.end_ns = 3000000000,
};
static struct catalog_cause peer = {
	.tracker = "peer",
	.reason = PROTO_REASON_PEER,
	.origin = "db-1",
	.incident = "db-1:1764100000000042",
	.origin_tracker = "block",
	.tid = 77,
	.comm = "jbd2/vda1-8",
	.start_ns = 5000000000,
	.end_ns = 5000000000,
	.delay_ns = 48000000,
	.start_realtime_ns = UINT64_C(1764100000000000000),
	.end_realtime_ns = UINT64_C(1764100000048000000),
	.received_to_record_ns = 210000,
};

static struct catalog_disk disks[] = {{"254:0", "vda"}, {"8:16", "sdb"}};
static struct catalog_stream streams[] = {
	{"channel0", 0, 52000, 1884000, 1000, 3001000, 3000000},
	{"channel0", 1, 12, 640, 2000, 2000, 0},
};
static struct catalog_history history = {
	.window_ns = 3000000,
	.wrapped = true,
	.events = 52012,
	.bytes = 1884640,
	.events_per_sec = 17333333.5,
	.bytes_per_event = 36.25,
	.streams = streams,
	.n_streams = 2,
	.streams_total = 2,
	.time = 1764100001,
	.buffer_bytes_per_cpu = 2097152,
	.expected_window_ns = 3333333,
};
static char *problems[] = {"stream channel0_1: cut short at 2 events"};
static char *missing[] = {"sched_waking"};
static struct catalog_analysis_cause analysed[] = {
	{41, "syscalls", 815, "postgres", "blocked 12.1 ms on mutex held by 816 (vacuum)", 0.97},
};
static struct catalog_analysis analysis = {
	.analysis_ms = 184,
	.status = "partial",
	.events = 52012,
	.problems = problems,
	.n_problems = 1,
	.missing_events = missing,
	.n_missing_events = 1,
	.causes = analysed,
	.n_causes = 1,
};
static struct catalog_analysis skipped = {.status = "skipped"};

static struct catalog_cause local_causes[2];
static struct catalog_cause all_causes[4];

/* Every kind of entry latencyd writes, by file name. */
static const struct golden {
	const char *file;
	struct catalog_entry e;
} golden[] = {
	{"local-complete.json",
	 {.id = 12,
	  .status = CATALOG_COMPLETE,
	  .time = 1764100000,
	  .name = "snap-12",
	  .causes = local_causes,
	  .n_causes = 2,
	  .disks = disks,
	  .n_disks = 2,
	  .detect_to_record_ns = 350000,
	  .wakeup_to_record_ns = 90000,
	  .record_ns = 41000000,
	  .path = "/var/lib/latencyd/snapshots/snap-12-20261125-195340-0",
	  .bytes = 8392704,
	  .history = &history,
	  .analysis = &analysis}},
	{"relayd-manual.json",
	 {.id = 13,
	  .status = CATALOG_COMPLETE,
	  .time = 1764100060,
	  .name = "snap-13",
	  .causes = &manual,
	  .n_causes = 1,
	  .detect_to_record_ns = 120000,
	  .wakeup_to_record_ns = 60000,
	  .record_ns = 88000000,
	  .url = "net://collector.example:5342",
	  .relayd_path = "db-2/latencyd-20261125-1953/snap-13-*",
	  .analysis = &skipped}},
	{"failed-fell-back.json",
	 {.id = 14,
	  .status = CATALOG_FAILED,
	  .time = 1764100120,
	  .name = "snap-14",
	  .causes = &alert,
	  .n_causes = 1,
	  .detect_to_record_ns = 500000,
	  .wakeup_to_record_ns = 100000,
	  .record_ns = 2000000,
	  .fell_back = true,
	  .relayd_error = "relayd at net://collector.example did not answer in 2s",
	  .error = "No space left on device",
	  .path = "/var/lib/latencyd/snapshots/snap-14-20261125-195540-0"}},
	{"failed-abandoned.json",
	 {.id = 18,
	  .status = CATALOG_FAILED,
	  .time = 1764100300,
	  .name = "snap-18",
	  .causes = &alert,
	  .n_causes = 1,
	  .detect_to_record_ns = 450000,
	  .record_ns = 10000000000,
	  .error = "abandoned at the stop: lttng-sessiond did not answer",
	  .late_directory = "/var/lib/latencyd/snapshots"}},
	{"peer-incident.json",
	 {.id = 15,
	  .status = CATALOG_COMPLETE,
	  .time = 1764100180,
	  .name = "snap-15",
	  .causes = &peer,
	  .n_causes = 1,
	  .incident = "db-1:1764100000000042",
	  .detect_to_record_ns = 410000,
	  .wakeup_to_record_ns = 80000,
	  .record_ns = 39000000,
	  .url = "net://collector.example:5342"}},
	{"recording.json", {.id = 16, .status = CATALOG_RECORDING}},
	{"adopted.json",
	 {.id = 17,
	  .status = CATALOG_COMPLETE,
	  .time = 1764100240,
	  .name = "snap-17-20261125-195720-0",
	  .path = "/var/lib/latencyd/snapshots/snap-17-20261125-195720-0",
	  .bytes = 4096,
	  .error = "found on disk after latencyd stopped before cataloguing it: causes unknown"}},
};

static char *read_text(const char *path)
{
	FILE *f = fopen(path, "r");
	char *text = NULL;
	size_t size = 0;

	if (!f)
		return NULL;
	ASSERT_TRUE(getdelim(&text, &size, 0, f) >= 0);
	fclose(f);
	return text;
}

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	ASSERT_TRUE(f);
	fprintf(f, "%s\n", text);
	fclose(f);
}

static char *golden_path(const char *file)
{
	char *p;

	ASSERT_TRUE(asprintf(&p, "%s/golden/catalog/%s", LATENCYD_TEST_SRCDIR, file) > 0);
	return p;
}

/* Compares O's text with FILE's (or writes it with LATENCYD_GOLDEN_UPDATE); returns the
 * file's text. */
static char *check_golden(const char *file, struct json_object *o)
{
	char *path = golden_path(file), *want, *got;

	ASSERT_TRUE(o);
	ASSERT_TRUE(asprintf(&got, "%s\n", json_object_to_json_string_ext(o, PRINT_FLAGS)) > 0);
	if (getenv("LATENCYD_GOLDEN_UPDATE"))
		write_text(path, json_object_to_json_string_ext(o, PRINT_FLAGS));
	want = read_text(path);
	if (!want) {
		fprintf(stderr, "%s: missing (LATENCYD_GOLDEN_UPDATE=1 writes it)\n", path);
		exit(1);
	}
	ASSERT_STREQ(got, want);
	free(got);
	free(path);
	return want;
}

static void no_problem(void *arg, const char *field, const char *what)
{
	fprintf(stderr, "%s: unexpected problem: %s: %s\n", (const char *)arg, field, what);
	exit(1);
}

static void test_file_form(void)
{
	local_causes[0] = alert;
	local_causes[1] = timeout;
	for (size_t i = 0; i < sizeof(golden) / sizeof(golden[0]); i++) {
		const struct golden *g = &golden[i];
		struct json_object *o = catalog_entry_to_json(&g->e, CATALOG_FORM_FILE, 0), *again;
		char *text = check_golden(g->file, o);
		struct json_object *parsed = json_tokener_parse(text);
		struct catalog_entry back;

		/* Decoded from the file, then encoded: the same bytes, nothing reported. */
		ASSERT_EQ(catalog_entry_from_json(parsed, &back, no_problem, (void *)g->file), 0);
		json_object_put(parsed);
		again = catalog_entry_to_json(&back, CATALOG_FORM_FILE, 0);
		ASSERT_STREQ(json_object_to_json_string_ext(again, PRINT_FLAGS),
			     json_object_to_json_string_ext(o, PRINT_FLAGS));
		ASSERT_EQ(back.id, g->e.id);
		ASSERT_EQ(back.status, g->e.status);
		ASSERT_EQ(back.n_causes, g->e.n_causes);
		ASSERT_EQ(back.n_disks, g->e.n_disks);
		ASSERT_EQ(!back.history, !g->e.history);
		ASSERT_EQ(!back.analysis, !g->e.analysis);
		catalog_entry_free(&back);
		json_object_put(again);
		json_object_put(o);
		free(text);
	}
}

/* What the typed reading gives back of the file: the fields the analysis reads. */
static void test_decoded_fields(void)
{
	char *path = golden_path("local-complete.json"), *text = read_text(path);
	struct json_object *o = json_tokener_parse(text);
	struct catalog_entry e;
	const struct catalog_cause *c;
	const char *name;
	uint32_t dev;

	ASSERT_EQ(catalog_entry_from_json(o, &e, no_problem, path), 0);
	ASSERT_TRUE(catalog_entry_disk(&e, 0, &dev, &name));
	ASSERT_EQ(dev, 254u << 20 | 0);
	ASSERT_STREQ(name, "vda");
	ASSERT_TRUE(!catalog_entry_disk(&e, 2, &dev, &name));
	c = catalog_entry_alert(&e, "syscalls", 41);
	ASSERT_TRUE(c && c->stack);
	ASSERT_STREQ(c->stack->kind, PROTO_STACK_TASK);
	ASSERT_STREQ(c->stack->frames[1], "do_sys_open+0x2a/0x90 [ext4]");
	ASSERT_EQ(c->data[0], 202);
	ASSERT_TRUE(!catalog_entry_alert(&e, "syscalls", 42));
	ASSERT_TRUE(catalog_entry_alert(&e, "wakeup", 0));
	ASSERT_EQ(e.history->streams[0].span_ns, 3000000);
	ASSERT_TRUE(e.history->events_per_sec == 17333333.5);
	ASSERT_STREQ(e.analysis->causes[0].summary,
		     "blocked 12.1 ms on mutex held by 816 (vacuum)");
	catalog_entry_free(&e);
	json_object_put(o);
	free(text);
	free(path);
}

/* show-snapshot and the snapshot event: causes capped, with their total; list-snapshots:
 * their number and the first. */
static void test_wire_forms(void)
{
	struct catalog_entry e = golden[0].e;
	struct json_object *view, *summary;

	all_causes[0] = alert;
	all_causes[1] = timeout;
	all_causes[2] = manual;
	all_causes[3] = peer;
	e.causes = all_causes;
	e.n_causes = 4;
	view = catalog_entry_to_json(&e, CATALOG_FORM_VIEW, 2);
	summary = catalog_entry_to_json(&e, CATALOG_FORM_SUMMARY, 0);

	free(check_golden("view-capped.json", view));
	free(check_golden("summary.json", summary));
	json_object_put(view);
	json_object_put(summary);
}

struct problems {
	char text[1024];
	size_t n;
};

static void collect(void *arg, const char *field, const char *what)
{
	struct problems *p = arg;
	size_t len = strlen(p->text);

	snprintf(p->text + len, sizeof(p->text) - len, "%s: %s\n", field, what);
	p->n++;
}

/* A catalog another latencyd wrote: what cannot be read is named and left out, what is
 * unknown is kept as it is, and the rest of the entry is there. */
static void test_unknown_and_mistyped(void)
{
	struct json_object *o = json_tokener_parse(
		"{\"id\": 21, \"status\": \"complete\", \"bytes\": \"12\", \"future\": [1, 2],"
		" \"causes\": [{\"tracker\": \"syscalls\", \"reason\": \"threshold\","
		" \"seq\": -3, \"tid\": 5, \"stack\": {\"kind\": \"task\", \"frames\": [\"a\", "
		"7]}}],"
		" \"disks\": {\"254:0\": \"vda\", \"8:0\": 3}, \"status2\": null,"
		" \"history\": {\"window_ns\": true, \"events_per_sec\": 1e400}}");
	struct problems p = {.n = 0};
	struct catalog_entry e;
	struct json_object *again, *v;

	ASSERT_EQ(catalog_entry_from_json(o, &e, collect, &p), 0);
	ASSERT_CONTAINS(p.text, "bytes: must be a non-negative integer; left out");
	ASSERT_CONTAINS(p.text, "future: unknown to this latencyd; kept as it is");
	ASSERT_CONTAINS(p.text, "causes[0].seq: must be a non-negative integer; left out");
	ASSERT_CONTAINS(p.text, "causes[0].stack.frames[1]: must be a string; left out");
	ASSERT_CONTAINS(p.text, "disks.8:0: must be a string; left out");
	ASSERT_CONTAINS(p.text, "status2: unknown to this latencyd; kept as it is");
	ASSERT_CONTAINS(p.text, "history.window_ns: must be a non-negative integer; left out");
	ASSERT_CONTAINS(p.text, "history.events_per_sec: must be a finite number; left out");
	ASSERT_EQ(p.n, 8);
	ASSERT_EQ(e.id, 21);
	ASSERT_EQ(e.status, CATALOG_COMPLETE);
	ASSERT_EQ(e.bytes, 0);
	ASSERT_EQ(e.n_causes, 1);
	ASSERT_EQ(e.causes[0].tid, 5);
	ASSERT_EQ(e.causes[0].stack->n_frames, 1);
	ASSERT_EQ(e.n_disks, 1);
	/* Written back: the unknown members as they were, the mistyped ones gone. */
	again = catalog_entry_to_json(&e, CATALOG_FORM_FILE, 0);
	ASSERT_TRUE(json_object_object_get_ex(again, "future", &v));
	ASSERT_EQ(json_object_array_length(v), 2);
	ASSERT_TRUE(!json_object_object_get_ex(again, "bytes", NULL));
	catalog_entry_free(&e);
	json_object_put(again);
	json_object_put(o);

	/* Not an object, or a status this latencyd does not know. */
	o = json_tokener_parse("[1]");
	ASSERT_EQ(catalog_entry_from_json(o, &e, collect, &p), -EINVAL);
	json_object_put(o);
	p = (struct problems){.n = 0};
	o = json_tokener_parse("{\"id\": 22, \"status\": \"archived\"}");
	ASSERT_EQ(catalog_entry_from_json(o, &e, collect, &p), 0);
	ASSERT_CONTAINS(p.text, "status: has a value latencyd does not know; left out");
	ASSERT_EQ(e.status, CATALOG_FAILED);
	catalog_entry_free(&e);
	json_object_put(o);
}

int main(void)
{
	RUN(test_file_form);
	RUN(test_decoded_fields);
	RUN(test_wire_forms);
	RUN(test_unknown_and_mistyped);
	return 0;
}
