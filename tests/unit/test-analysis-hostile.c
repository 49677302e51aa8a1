/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Snapshots a peer could send (analysis/read/): metadata declaring the classes of interest
 * with other fields, packets whose content is shorter than their header, a stream refused
 * once another was salvaged, thousands of irqs, a session that did not record
 * sched_process_exec and sched_migrate_task (alone, or beside hosts' that did), and
 * metadata too big or of too many event classes for babeltrace2 to be given. Each is read
 * muxed and stream by stream, in one thread and two: the same result or the same error,
 * never a crash, and a problem naming what is wrong and where.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>

#include "an.h"
#include "analysis-result.h"
#include "deal.h"
#include "lttng_packet.h"
#include "results.h"
#include "salvage.h"
#include "snapshot.h"
#include "streams.h"
#include "tests.h"

static char root[] = "/tmp/test-analysis-hostile.XXXXXX";

/* LTTng's layout (lttng_packet.h), a kernel trace. Its event classes follow. */
static const char meta_head[] =
	"/* CTF 1.8 */\n"
	"typealias integer { size = 32; align = 8; signed = false; } := uint32_t;\n"
	"typealias integer { size = 32; align = 8; signed = true; } := int32_t;\n"
	"typealias integer { size = 64; align = 8; signed = true; } := int64_t;\n"
	"typealias integer { size = 64; align = 8; signed = false; } := uint64_t;\n"
	"typealias integer { size = 8; align = 8; signed = false; } := uint8_t;\n"
	"trace { major = 1; minor = 8; byte_order = le;\n"
	"	uuid = \"cccccccc-0000-4000-8000-000000000000\";\n"
	"	packet.header := struct { uint32_t magic; uint8_t uuid[16]; uint32_t stream_id;\n"
	"		uint64_t stream_instance_id; }; };\n"
	"env { hostname = \"peer\"; tracer_name = \"lttng-modules\"; tracer_major = 2;\n"
	"	tracer_minor = 13; };\n"
	"clock { name = \"monotonic\"; freq = 1000000000; offset_s = 1700000000; absolute = "
	"true; };\n"
	"typealias integer { size = 64; align = 8; signed = false; map = clock.monotonic.value; "
	"} := clock_t;\n"
	"stream { id = 0; event.header := struct { uint32_t id; clock_t timestamp; };\n"
	"	packet.context := struct { clock_t timestamp_begin; clock_t timestamp_end;\n"
	"		uint64_t content_size; uint64_t packet_size; uint64_t packet_seq_num;\n"
	"		uint64_t events_discarded; uint32_t cpu_id; }; };\n";

enum { SWITCH, WAKING, TIMER, IRQ_ENTRY, IRQ_EXIT, EXIT, ALERT, EXEC, MIGRATE };

static const char *const classes[] = {
	[SWITCH] = "name = \"sched_switch\"; fields := struct { string prev_comm; int32_t "
		   "prev_tid; int32_t prev_prio; int64_t prev_state; string next_comm; int32_t "
		   "next_tid; int32_t next_prio; };",
	[WAKING] = "name = \"sched_waking\"; fields := struct { string comm; int32_t tid; "
		   "int32_t prio; int32_t target_cpu; };",
	[TIMER] = "name = \"timer_hrtimer_expire_entry\"; fields := struct { uint64_t hrtimer; };",
	[IRQ_ENTRY] = "name = \"irq_handler_entry\"; fields := struct { int32_t irq; string name; "
		      "};",
	[IRQ_EXIT] = "name = \"irq_handler_exit\"; fields := struct { int32_t irq; int32_t ret; "
		     "};",
	[EXIT] = "name = \"sched_process_exit\"; fields := struct { string comm; int32_t tid; "
		 "int32_t prio; };",
	[ALERT] = "name = \"latency_tracker_alert\"; fields := struct { string tracker; uint64_t "
		  "seq; int32_t pid; int32_t tid; string comm; uint64_t delay_ns; };",
	[EXEC] = "name = \"sched_process_exec\"; fields := struct { string filename; int32_t tid; "
		 "int32_t old_tid; };",
	[MIGRATE] = "name = \"sched_migrate_task\"; fields := struct { string comm; int32_t tid; "
		    "int32_t prio; int32_t orig_cpu; int32_t dest_cpu; };",
};

/* The classes of DIR's metadata, a trace of HOST: each of classes[], or its replacement in
 * ALT (NULL: as is, "": not declared). */
static void metadata_of(const char *dir, const char *const *alt, const char *host)
{
	const char *peer = strstr(meta_head, "\"peer\"");
	char path[900];
	FILE *f;

	ASSERT_TRUE(peer);
	ASSERT_EQ(mkdir(dir, 0755), 0);
	snprintf(path, sizeof(path), "%s/metadata", dir);
	f = fopen(path, "w");
	ASSERT_TRUE(f);
	fprintf(f, "%.*s\"%s\"%s", (int)(peer - meta_head), meta_head, host,
		peer + strlen("\"peer\""));
	for (int i = 0; i <= MIGRATE; i++) {
		const char *c = alt && alt[i] ? alt[i] : classes[i];

		if (*c)
			fprintf(f, "event { id = %d; stream_id = 0; %s };\n", i, c);
	}
	ASSERT_EQ(fclose(f), 0);
}

static void metadata(const char *dir, const char *const *alt)
{
	metadata_of(dir, alt, "peer");
}

/* A stream file being written: packet after packet of LTTng's layout. */
struct w {
	FILE *f;
	long start;
	uint32_t cpu;
	uint64_t seq, first, last;
};

static void put(struct w *w, const void *p, size_t n)
{
	ASSERT_EQ(fwrite(p, 1, n, w->f), n);
}

static void put32(struct w *w, uint32_t v)
{
	put(w, &v, sizeof(v));
}

static void put64(struct w *w, uint64_t v)
{
	put(w, &v, sizeof(v));
}

static void puts0(struct w *w, const char *s)
{
	put(w, s, strlen(s) + 1);
}

static void packet_begin(struct w *w)
{
	static const uint8_t uuid[16] = {0xcc, 0xcc, 0xcc, 0xcc, 0, 0, 0x40, 0, 0x80};
	const uint64_t ctx[6] = {0};

	w->start = ftell(w->f);
	w->first = 0;
	put32(w, 0xc1fc1fc1);
	put(w, uuid, sizeof(uuid));
	put32(w, 0);
	put64(w, w->cpu); /* stream_instance_id */
	put(w, ctx, sizeof(ctx));
	put32(w, w->cpu);
}

/* The packet's context written: its times, its sizes (CONTENT: 0, its own), its number. */
static void packet_end(struct w *w, uint64_t content, uint64_t end_ts)
{
	long end = ftell(w->f);
	uint64_t bits = (uint64_t)(end - w->start) * 8;
	const uint64_t ctx[5] = {w->first, end_ts ? end_ts : w->last, content ? content : bits,
				 bits, w->seq++};

	ASSERT_EQ(fseek(w->f, w->start + 32, SEEK_SET), 0);
	put(w, ctx, sizeof(ctx));
	ASSERT_EQ(fseek(w->f, end, SEEK_SET), 0);
}

static void stream_open(struct w *w, const char *dir, const char *name, uint32_t cpu)
{
	char path[700];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	*w = (struct w){.f = fopen(path, "wb"), .cpu = cpu};
	ASSERT_TRUE(w->f);
}

static void stream_close(struct w *w)
{
	ASSERT_EQ(fclose(w->f), 0);
}

static void header(struct w *w, uint32_t id, uint64_t ts)
{
	if (!w->first)
		w->first = ts;
	w->last = ts;
	put32(w, id);
	put64(w, ts);
}

static void ev_switch(struct w *w, uint64_t ts, int32_t prev, int64_t state, int32_t next)
{
	header(w, SWITCH, ts);
	puts0(w, "prev");
	put32(w, (uint32_t)prev);
	put32(w, 120);
	put64(w, (uint64_t)state);
	puts0(w, "next");
	put32(w, (uint32_t)next);
	put32(w, 120);
}

static void ev_waking(struct w *w, uint64_t ts, int32_t tid, int32_t cpu)
{
	header(w, WAKING, ts);
	puts0(w, "sleeper");
	put32(w, (uint32_t)tid);
	put32(w, 120);
	put32(w, (uint32_t)cpu);
}

static void ev_irq(struct w *w, uint64_t ts, int32_t irq)
{
	char name[32];

	snprintf(name, sizeof(name), "q%d", irq);
	header(w, IRQ_ENTRY, ts);
	put32(w, (uint32_t)irq);
	puts0(w, name);
	header(w, IRQ_EXIT, ts + 1);
	put32(w, (uint32_t)irq);
	put32(w, 1);
}

static void ev_alert(struct w *w, uint64_t ts, int32_t tid)
{
	header(w, ALERT, ts);
	puts0(w, "offcpu");
	put64(w, 1);
	put32(w, (uint32_t)tid);
	put32(w, (uint32_t)tid);
	puts0(w, "sleeper");
	put64(w, 400);
}

/* A sleeper (tid 300) blocked on CPU 0, woken from CPU 1 by tid 400, and its alert. */
static void story(const char *dir)
{
	struct w a, b;

	stream_open(&a, dir, "chan_0", 0);
	stream_open(&b, dir, "chan_1", 1);
	packet_begin(&a);
	packet_begin(&b);
	ev_switch(&a, 1000, 0, 0, 300);
	ev_switch(&b, 1010, 0, 0, 400);
	ev_switch(&a, 1100, 300, 1, 0);
	ev_waking(&b, 1400, 300, 0);
	ev_switch(&a, 1500, 0, 0, 300);
	ev_alert(&a, 1600, 300);
	packet_end(&a, 0, 0);
	packet_end(&b, 0, 0);
	stream_close(&a);
	stream_close(&b);
}

static void rm_rf(const char *path)
{
	char cmd[700];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", path);
	ASSERT_EQ(system(cmd), 0);
}

/* ROOT/NAME/kernel made, its path in kernel; ROOT/NAME in dir. */
static void snapshot_dir(char dir[600], char kernel[700], const char *name)
{
	snprintf(dir, 600, "%s/%s", root, name);
	ASSERT_EQ(mkdir(dir, 0755), 0);
	snprintf(kernel, 700, "%s/kernel", dir);
}

static int read_snapshot(const char *dir, unsigned threads, struct an_result **r, char **why)
{
	struct an_options opt = {.tables = true, .threads = threads};
	struct an_snapshot s;
	int e = an_snapshot_read(dir, AN_WANT_ANALYSIS, &opt, NULL, &s);

	*r = s.result;
	s.result = NULL;
	*why = s.analysis_why;
	s.analysis_why = NULL;
	an_snapshot_free(&s);
	return e;
}

static char *json_of(const struct an_result *r)
{
	struct json_object *o = an_result_json(r);
	char *s = strdup(json_object_to_json_string(o));

	json_object_put(o);
	return s;
}

static char *lami_of(const struct an_result *r)
{
	struct json_object *o = an_lami_results(r);
	char *s = strdup(json_object_to_json_string(o));

	json_object_put(o);
	return s;
}

/*
 * DIR read muxed, then stream by stream in one thread and two: the same text, JSON and
 * LAMI, or the same error. The muxed result (NULL: the error, in *why).
 */
static struct an_result *read_alike(const char *dir, char **why)
{
	struct an_result *first = NULL;
	char *text = NULL, *json = NULL;
	int e0 = 0;

	*why = NULL;
	for (unsigned t = 0; t <= 2; t++) {
		struct an_result *r;
		char *w;
		int e = read_snapshot(dir, t, &r, &w);

		if (t == 0) {
			e0 = e;
			first = r;
			*why = w;
			if (r) {
				text = result_text(r);
				json = json_of(r);
			}
			continue;
		}
		ASSERT_EQ(e, e0);
		if (e0 < 0) {
			ASSERT_STREQ(w, *why);
		} else {
			char *t2 = result_text(r), *j2 = json_of(r);

			ASSERT_STREQ(t2, text);
			ASSERT_STREQ(j2, json);
			free(t2);
			free(j2);
		}
		free(w);
		an_result_free(r);
	}
	free(text);
	free(json);
	return first;
}

/*
 * Classes of interest declared with other fields: a timer expiry without any (its handler
 * read a field it never looked up: babeltrace2 was handed a member that is not there, and
 * crashed), a sched_process_exit whose tid is a string, a sched_waking whose target_cpu is
 * (an integer read from a string field is babeltrace2's memory: a tid that is an address,
 * another on each reading). Their events are left out, each class said with its field.
 */
static void test_classes_with_other_fields(void)
{
	const char *alt[MIGRATE + 1] = {
		[TIMER] = "name = \"timer_hrtimer_expire_entry\"; fields := struct { };",
		[EXIT] = "name = \"sched_process_exit\"; fields := struct { string comm; string "
			 "tid; };",
		[WAKING] = "name = \"sched_waking\"; fields := struct { string comm; int32_t tid; "
			   "int32_t prio; string target_cpu; };",
	};
	char dir[600], kernel[700], *why;
	struct an_result *r;
	struct w a;

	snapshot_dir(dir, kernel, "classes");
	metadata(kernel, alt);
	stream_open(&a, kernel, "chan_0", 0);
	packet_begin(&a);
	ev_switch(&a, 1000, 0, 0, 300);
	header(&a, TIMER, 1100);
	header(&a, EXIT, 1200);
	puts0(&a, "sleeper");
	puts0(&a, "300");
	header(&a, WAKING, 1300);
	puts0(&a, "sleeper");
	put32(&a, 300);
	put32(&a, 120);
	puts0(&a, "2");
	ev_switch(&a, 1400, 300, 0, 0);
	packet_end(&a, 0, 0);
	stream_close(&a);
	r = read_alike(dir, &why);
	ASSERT_TRUE(r);
	ASSERT_TRUE(r->log.partial);
	ASSERT_EQ(r->log.events, 5);
	ASSERT_EQ(r->log.counts[EV_SWITCH], 2);
	ASSERT_EQ(r->log.counts[EV_HRTIMER_ENTRY], 1);
	ASSERT_EQ(r->log.counts[EV_EXIT] + r->log.counts[EV_WAKING], 0);
	ASSERT_TRUE(has_problem(r, "event class \"sched_process_exit\" (id 5) has no integer "
				   "field \"tid\": its events are left out (1)"));
	ASSERT_TRUE(has_problem(r, "event class \"sched_waking\" (id 1) has no integer field "
				   "\"target_cpu\": its events are left out (1)"));
	an_result_free(r);
	free(why);
	rm_rf(dir);
}

/*
 * A packet whose content is shorter than its own header: babeltrace2 fails on it, and a
 * failure while reading ends every stream's reading, here before any event. Its file is
 * left out, named, and the other CPU's stream read.
 */
static void test_content_shorter_than_header(void)
{
	char dir[600], kernel[700], *why;
	struct an_result *r;
	struct w a, b;

	snapshot_dir(dir, kernel, "content");
	metadata(kernel, NULL);
	stream_open(&a, kernel, "chan_0", 0);
	stream_open(&b, kernel, "chan_1", 1);
	packet_begin(&a);
	packet_begin(&b);
	ev_switch(&a, 1000, 0, 0, 300);
	ev_switch(&b, 1010, 0, 0, 400);
	ev_switch(&b, 1020, 400, 1, 0);
	packet_end(&a, 8, 0);
	packet_end(&b, 0, 0);
	stream_close(&a);
	stream_close(&b);
	r = read_alike(dir, &why);
	ASSERT_TRUE(r);
	ASSERT_TRUE(r->log.partial);
	ASSERT_EQ(r->log.events, 2);
	ASSERT_TRUE(has_problem(r, "kernel/chan_0: damaged stream file left out"));
	an_result_free(r);
	free(why);
	rm_rf(dir);
}

/*
 * A stream refused by babeltrace2 (a packet ending past what ns from the origin hold)
 * once another was salvaged, that is read through a temporary directory of links: the
 * problem names the snapshot's file, not that directory.
 */
static void test_refused_after_salvage(void)
{
	char dir[600], kernel[700], *why, file[800];
	struct an_result *r;
	struct w a, b;

	snapshot_dir(dir, kernel, "refused");
	metadata(kernel, NULL);
	stream_open(&a, kernel, "chan_0", 0);
	stream_open(&b, kernel, "chan_1", 1);
	packet_begin(&a);
	ev_switch(&a, 1000, 0, 0, 300);
	packet_end(&a, 0, 0);
	packet_begin(&a);
	ev_switch(&a, 2000, 300, 0, 0);
	packet_end(&a, 0, UINT64_MAX); /* babeltrace2 2.0 aborts on it: checked first */
	packet_begin(&b);
	ev_switch(&b, 1010, 0, 0, 400);
	packet_end(&b, 0, INT64_MAX);
	stream_close(&a);
	stream_close(&b);
	r = read_alike(dir, &why);
	ASSERT_TRUE(r);
	ASSERT_TRUE(r->log.partial);
	ASSERT_EQ(r->log.events, 1);
	snprintf(file, sizeof(file), "Failed to index CTF stream file '%s/chan_1'", kernel);
	ASSERT_TRUE(has_problem(r, file));
	ASSERT_TRUE(!has_problem(r, "latency-analysis."));
	an_result_free(r);
	free(why);
	rm_rf(dir);
}

/*
 * Irqs by the thousand, of every number (the map's keys at their bounds included): their
 * names alike on every path. (Merging the streams' names used to look each irq up by
 * walking the map, quadratic: this snapshot took a minute to merge, it now takes none; the
 * test checks the names, not the time.)
 */
#define IRQS 60000
static void test_many_irqs(void)
{
	static const int32_t edges[] = {INT32_MIN, -1, 0, INT32_MAX};
	char dir[600], kernel[700], *why;
	struct an_result *r;
	struct w w[2];

	snapshot_dir(dir, kernel, "irqs");
	metadata(kernel, NULL);
	stream_open(&w[0], kernel, "chan_0", 0);
	stream_open(&w[1], kernel, "chan_1", 1);
	packet_begin(&w[0]);
	packet_begin(&w[1]);
	for (int32_t i = 0; i < IRQS; i++)
		ev_irq(&w[i % 2], 1000 + 2 * (uint64_t)i, i < 4 ? edges[i] : 1000 + i);
	packet_end(&w[0], 0, 0);
	packet_end(&w[1], 0, 0);
	stream_close(&w[0]);
	stream_close(&w[1]);
	r = read_alike(dir, &why);
	ASSERT_TRUE(r);
	ASSERT_EQ(r->log.irqname_v.n, IRQS);
	for (int i = 0; i < 4; i++) {
		char name[32];

		snprintf(name, sizeof(name), "q%d", edges[i]);
		ASSERT_STREQ(an_irq_name(&r->log, edges[i]), name);
	}
	an_result_free(r);
	free(why);
	rm_rf(dir);
}

/* The result's alerts explained, as JSON. */
static char *alerts_of(const struct an_result *r)
{
	struct json_object *o = an_result_json(r), *a = NULL;
	char *s;

	ASSERT_TRUE(json_object_object_get_ex(o, "alerts", &a));
	s = strdup(json_object_to_json_string(a));
	json_object_put(o);
	return s;
}

/* The notes for classes not recorded, in text, JSON and LAMI: whether each is said. */
static void check_undeclared(const struct an_result *r, bool exec, bool migrate)
{
	static const char *const e = "sched_process_exec: a thread that ran another program",
				 *const m = "sched_migrate_task: a woken task is taken to wait on "
					    "the CPU its wakeup targeted";
	char *text = result_text(r), *json = json_of(r), *lami = lami_of(r), said[200];

	snprintf(said, sizeof(said), "not recorded: %s", e);
	ASSERT_EQ(strstr(text, said) != NULL, exec);
	ASSERT_EQ(strstr(lami, said) != NULL, exec);
	snprintf(said, sizeof(said), "not recorded: %s", m);
	ASSERT_EQ(strstr(text, said) != NULL, migrate);
	ASSERT_EQ(strstr(lami, said) != NULL, migrate);
	ASSERT_EQ(strstr(json, e) != NULL, exec);
	ASSERT_EQ(strstr(json, m) != NULL, migrate);
	free(text);
	free(json);
	free(lami);
}

/*
 * A session that did not record sched_process_exec and sched_migrate_task (an older
 * latencyd's, or made by hand) is said so, from the metadata; one that did, where no task
 * exec'd or moved, is not, and nor is a trace without sched_switch (userspace's). The
 * results are the same either way.
 */
static void test_undeclared(void)
{
	static const char *const none[MIGRATE + 1] = {[EXEC] = "", [MIGRATE] = ""};
	static const char *const no_migrate[MIGRATE + 1] = {[MIGRATE] = ""};
	static const char *const no_switch[MIGRATE + 1] = {
		[SWITCH] = "", [EXEC] = "", [MIGRATE] = ""};
	static const struct {
		const char *name;
		const char *const *alt;
		bool exec, migrate;
	} cases[] = {
		{"declared", NULL, false, false},
		{"undeclared", none, true, true},
		{"no-migrate", no_migrate, false, true},
	};
	char *causes[3] = {NULL};

	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		char dir[600], kernel[700], *why;
		struct an_result *r;

		snapshot_dir(dir, kernel, cases[c].name);
		metadata(kernel, cases[c].alt);
		story(kernel);
		r = read_alike(dir, &why);
		ASSERT_TRUE(r && !r->log.partial && r->causes.n == 1);
		check_undeclared(r, cases[c].exec, cases[c].migrate);
		causes[c] = alerts_of(r);
		an_result_free(r);
		free(why);
		rm_rf(dir);
	}
	for (size_t c = 1; c < 3; c++)
		ASSERT_STREQ(causes[c], causes[0]);
	for (size_t c = 0; c < 3; c++)
		free(causes[c]);
	{
		char dir[600], kernel[700], *why;
		struct an_result *r;
		struct w a;

		snapshot_dir(dir, kernel, "no-switch");
		metadata(kernel, no_switch);
		stream_open(&a, kernel, "chan_0", 0);
		packet_begin(&a);
		ev_irq(&a, 1000, 5);
		packet_end(&a, 0, 0);
		stream_close(&a);
		r = read_alike(dir, &why);
		ASSERT_TRUE(r);
		check_undeclared(r, false, false);
		an_result_free(r);
		free(why);
		rm_rf(dir);
	}
}

/*
 * Several hosts' kernel traces analysed together (an incident's directory, snapshots side
 * by side): a class one of them did not record is said of that one, named, though another
 * recorded it; a class none of them recorded is said as for one trace.
 */
static void test_undeclared_per_trace(void)
{
	static const char *const no_migrate[MIGRATE + 1] = {[MIGRATE] = ""};
	static const char *const none[MIGRATE + 1] = {[EXEC] = "", [MIGRATE] = ""};
	static const struct {
		const char *host;
		const char *const *alt;
	} hosts[] = {{"h1", NULL}, {"h2", no_migrate}, {"h3", none}};
	static const char *const exec_in =
		"not recorded: sched_process_exec in h3/kernel: a thread that ran another program";
	static const char *const migrate_in =
		"not recorded: sched_migrate_task in h2/kernel, h3/kernel: a woken task is taken "
		"to wait on the CPU its wakeup targeted";
	char dir[600], host[700], kernel[800], *why, *text, *lami, *json;
	struct an_result *r;

	snprintf(dir, sizeof(dir), "%s/hosts", root);
	ASSERT_EQ(mkdir(dir, 0755), 0);
	for (size_t h = 0; h < sizeof(hosts) / sizeof(hosts[0]); h++) {
		struct w a;

		snprintf(host, sizeof(host), "%s/%s", dir, hosts[h].host);
		ASSERT_EQ(mkdir(host, 0755), 0);
		snprintf(kernel, sizeof(kernel), "%s/kernel", host);
		metadata_of(kernel, hosts[h].alt, hosts[h].host);
		stream_open(&a, kernel, "chan_0", 0);
		packet_begin(&a);
		ev_switch(&a, 1000 + h, 0, 0, 300 + (int32_t)h);
		ev_switch(&a, 2000 + h, 300 + (int32_t)h, 1, 0);
		if (h == 1)
			ev_alert(&a, 2100, 301);
		packet_end(&a, 0, 0);
		stream_close(&a);
	}
	r = read_alike(dir, &why);
	ASSERT_TRUE(r && !r->log.partial);
	text = result_text(r);
	json = json_of(r);
	lami = lami_of(r);
	ASSERT_CONTAINS(text, exec_in);
	ASSERT_CONTAINS(text, migrate_in);
	/* json-c writes '/' as "\\/" */
	ASSERT_CONTAINS(json, "sched_process_exec in h3\\/kernel: ");
	ASSERT_CONTAINS(json, "sched_migrate_task in h2\\/kernel, h3\\/kernel: ");
	ASSERT_CONTAINS(lami, "; not recorded: sched_process_exec in h3\\/kernel: ");
	ASSERT_TRUE(!strstr(text, "not recorded: sched_process_exec: "));
	ASSERT_TRUE(!strstr(text, "not recorded: sched_migrate_task: "));
	free(text);
	free(json);
	free(lami);
	an_result_free(r);
	free(why);
	/* Without h1, no kernel trace recorded sched_migrate_task. */
	snprintf(host, sizeof(host), "%s/h1", dir);
	rm_rf(host);
	r = read_alike(dir, &why);
	ASSERT_TRUE(r && !r->log.partial);
	text = result_text(r);
	ASSERT_CONTAINS(text, exec_in);
	ASSERT_CONTAINS(text, "not recorded: sched_migrate_task: a woken task is taken to wait");
	ASSERT_TRUE(!strstr(text, "sched_migrate_task in "));
	free(text);
	an_result_free(r);
	free(why);
	rm_rf(dir);
}

/* DIR's metadata made BYTES bigger by a comment (babeltrace2 would parse it cheaply). */
static void pad_metadata(const char *dir, size_t bytes)
{
	char path[900];
	FILE *f;

	snprintf(path, sizeof(path), "%s/metadata", dir);
	f = fopen(path, "a");
	ASSERT_TRUE(f);
	fputs("/*", f);
	for (size_t i = 4; i < bytes; i++)
		fputc(i % 64 ? 'x' : '\n', f);
	fputs("*/", f);
	ASSERT_EQ(fclose(f), 0);
}

/*
 * How the classes added are written, all TSDL that babeltrace2 parses: "event", what is
 * between it and its block, and the start of each one's name (a string).
 */
struct form {
	const char *between, *name;
};

static const struct form plain = {" ", "x"};

/* DIR's metadata with N more event classes (of ids past classes[]'), written as FORM says. */
static void more_classes(const char *dir, unsigned n, const struct form *form)
{
	char path[900];
	FILE *f;

	snprintf(path, sizeof(path), "%s/metadata", dir);
	f = fopen(path, "a");
	ASSERT_TRUE(f);
	for (unsigned i = 0; i < n; i++)
		fprintf(f,
			"event%s{ name = \"%s%u\"; id = %u; stream_id = 0; fields := struct { "
			"uint32_t a; }; };\n",
			form->between, form->name, i, 100 + i);
	ASSERT_EQ(fclose(f), 0);
}

/* ROOT/NAME with two hosts' kernel traces, h1's metadata padded by PAD bytes and NCLASSES
 * more event classes written as FORM says. */
static void big_and_small(char dir[600], const char *name, size_t pad, unsigned nclasses,
			  const struct form *form)
{
	char kernel[800];

	snprintf(dir, 600, "%s/%s", root, name);
	ASSERT_EQ(mkdir(dir, 0755), 0);
	for (int h = 1; h <= 2; h++) {
		char host[700];
		struct w a;

		snprintf(host, sizeof(host), "%s/h%d", dir, h);
		ASSERT_EQ(mkdir(host, 0755), 0);
		snprintf(kernel, sizeof(kernel), "%s/kernel", host);
		metadata_of(kernel, NULL, h == 1 ? "h1" : "h2");
		if (h == 1 && pad)
			pad_metadata(kernel, pad);
		if (h == 1 && nclasses)
			more_classes(kernel, nclasses, form);
		stream_open(&a, kernel, "chan_0", 0);
		packet_begin(&a);
		ev_switch(&a, 1000, 0, 0, 300 + h);
		ev_switch(&a, 2000, 300 + h, 1, 0);
		if (h == 2)
			ev_switch(&a, 3000, 0, 0, 302);
		packet_end(&a, 0, 0);
		stream_close(&a);
	}
}

/*
 * A trace whose metadata passes the limit of bytes or of event classes (libbabeltrace2
 * parses it whole, per thread, in a time that grows faster than its classes: a hostile one
 * costs it a minute and gigabytes) is left out before babeltrace2 sees it, the problem
 * naming its file and the limit; the snapshot's other trace is analysed. The default
 * limits, then those the caller gives (latencyctl analyze --max-metadata,
 * --max-event-classes).
 */
static void test_metadata_limit(void)
{
	static const struct form forms[] = {
		{" ", "x"},
		{"/**/", "x"},
		{" // c\n", "x"},
		{" /* event { */\n\t", "x"},
		{" ", "x \\\" event { /* "},
	};
	char dir[600], file[800], said[900], *why;
	struct an_result *r;

	big_and_small(dir, "big-metadata", (size_t)AN_METADATA_MAX_DEFAULT + 1, 0, &plain);
	r = read_alike(dir, &why);
	ASSERT_TRUE(r && r->log.partial);
	ASSERT_EQ(r->log.events, 3); /* h2's */
	snprintf(file, sizeof(file), "%s/h1/kernel/metadata: ", dir);
	ASSERT_TRUE(has_problem(r, file));
	snprintf(said, sizeof(said), "bytes of metadata, over the limit of %llu",
		 (unsigned long long)AN_METADATA_MAX_DEFAULT);
	ASSERT_TRUE(has_problem(r, said));
	ASSERT_TRUE(has_problem(r, "the trace is left out"));
	an_result_free(r);
	free(why);
	rm_rf(dir);

	/*
	 * Event classes: 9 of the test's and those added; a word "event" not a block's
	 * (stream.event.header) is none. Counted as babeltrace2 reads the text: a comment
	 * between "event" and its block (a class all the same), a string holding "event {",
	 * "/" "*" or an escaped quote (none, and no comment).
	 */
	for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
		big_and_small(dir, "many-classes", 0, AN_EVENT_CLASSES_MAX_DEFAULT, &forms[i]);
		r = read_alike(dir, &why);
		ASSERT_TRUE(r && r->log.partial);
		ASSERT_EQ(r->log.events, 3);
		snprintf(said, sizeof(said),
			 "%s/h1/kernel/metadata: %d event classes, over the limit of %d", dir,
			 AN_EVENT_CLASSES_MAX_DEFAULT + 9, AN_EVENT_CLASSES_MAX_DEFAULT);
		ASSERT_TRUE(has_problem(r, said));
		an_result_free(r);
		free(why);
		rm_rf(dir);
	}
	/* The same forms, babeltrace2 given them: it reads the trace, of the classes counted. */
	for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
		big_and_small(dir, "few-classes", 0, 20, &forms[i]);
		for (unsigned t = 0; t <= 2; t++) {
			struct an_options opt = {
				.tables = true, .threads = t, .max_event_classes = 28};

			ASSERT_EQ(an_analyze(dir, &opt, &r, &why), 0);
			ASSERT_EQ(r->log.events, 3);
			ASSERT_TRUE(has_problem(r, "29 event classes, over the limit of 28"));
			an_result_free(r);
			opt.max_event_classes = 29;
			ASSERT_EQ(an_analyze(dir, &opt, &r, &why), 0);
			ASSERT_EQ(r->log.events, 5);
			ASSERT_TRUE(!r->log.partial);
			an_result_free(r);
		}
		rm_rf(dir);
	}

	big_and_small(dir, "limit", 100 << 10, 0, &plain);
	for (unsigned t = 0; t <= 2; t++) {
		struct an_options opt = {.tables = true, .threads = t, .max_metadata = 64 << 10};

		ASSERT_EQ(an_analyze(dir, &opt, &r, &why), 0);
		ASSERT_EQ(r->log.events, 3);
		ASSERT_TRUE(has_problem(r, "over the limit of 65536"));
		an_result_free(r);
		/* the default takes it */
		opt.max_metadata = 0;
		ASSERT_EQ(an_analyze(dir, &opt, &r, &why), 0);
		ASSERT_EQ(r->log.events, 5);
		ASSERT_TRUE(!r->log.partial);
		an_result_free(r);
	}
	rm_rf(dir);
}

/*
 * A "metadata" that is not a regular file, a FIFO (its open waited for a writer for ever):
 * its trace is left out, said; the snapshot's other trace is analysed, a FIFO among its
 * stream files left out as babeltrace2 does. With no other trace, the error says why.
 */
static void test_metadata_not_regular(void)
{
	char dir[600], path[1400], *why;
	struct an_result *r;

	alarm(120); /* a safety net: what is asserted is the outcome */
	big_and_small(dir, "fifo", 0, 0, &plain);
	snprintf(path, sizeof(path), "%s/h1/kernel/metadata", dir);
	ASSERT_EQ(unlink(path), 0);
	ASSERT_EQ(mkfifo(path, 0644), 0);
	snprintf(path, sizeof(path), "%s/h2/kernel/chan_1", dir);
	ASSERT_EQ(mkfifo(path, 0644), 0);
	r = read_alike(dir, &why);
	ASSERT_TRUE(r && r->log.partial);
	ASSERT_EQ(r->log.events, 3); /* h2's */
	snprintf(path, sizeof(path),
		 "%s/h1/kernel/metadata: a FIFO, not a regular file: its trace is left out", dir);
	ASSERT_TRUE(has_problem(r, path));
	ASSERT_EQ(r->log.problems.n, 1);
	an_result_free(r);
	free(why);

	snprintf(path, sizeof(path), "%s/h2", dir);
	rm_rf(path);
	r = read_alike(dir, &why);
	ASSERT_TRUE(!r && why);
	snprintf(path, sizeof(path),
		 "%s/h1/kernel/metadata: a FIFO, not a regular file: no CTF trace under %s", dir,
		 dir);
	ASSERT_STREQ(why, path);
	free(why);
	rm_rf(dir);
	alarm(0);
}

static void put_be(FILE *f, uint64_t v, int n)
{
	for (int i = n; i-- > 0;)
		ASSERT_EQ(fputc((int)(v >> (8 * i) & 0xff), f), (int)(v >> (8 * i) & 0xff));
}

/*
 * A stream file cut short, whose LTTng index says its packets end inside one (an index
 * is no packet header): the packets kept are those its headers make whole up to the
 * index's end, in one salvage, said once (a copy cut inside a packet would be refused
 * and salvaged again: the file said twice, the first time wrongly).
 */
static void test_index_inside_packet(void)
{
	char dir[600], kernel[700], path[800], want[900], *why;
	struct an_result *r;
	long ends[3];
	struct w a;
	FILE *f;

	snapshot_dir(dir, kernel, "index");
	metadata(kernel, NULL);
	stream_open(&a, kernel, "chan_0", 0);
	for (int i = 0; i < 4; i++) {
		packet_begin(&a);
		ev_switch(&a, 1000 + 100 * (uint64_t)i, 0, 0, 300);
		ev_switch(&a, 1050 + 100 * (uint64_t)i, 300, 1, 0);
		packet_end(&a, 0, 0);
		if (i < 3)
			ends[i] = ftell(a.f);
	}
	stream_close(&a);
	snprintf(path, sizeof(path), "%s/chan_0", kernel);
	ASSERT_EQ(truncate(path, ends[2] + 100), 0); /* the last packet cut short */
	snprintf(path, sizeof(path), "%s/index", kernel);
	ASSERT_EQ(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/index/chan_0.idx", kernel);
	f = fopen(path, "wb");
	ASSERT_TRUE(f);
	put_be(f, 0xc1f1dcc1, 4);
	put_be(f, 1, 4);
	put_be(f, 1, 4);
	put_be(f, 16, 4); /* entries of offset and packet_size alone */
	put_be(f, 0, 8);
	put_be(f, (uint64_t)ends[0] * 8, 8);
	put_be(f, (uint64_t)ends[0], 8);
	put_be(f, (uint64_t)(ends[1] - ends[0]) * 8, 8);
	put_be(f, (uint64_t)ends[1], 8);
	put_be(f, (uint64_t)(ends[2] - ends[1] - 10) * 8, 8); /* 10 bytes short of its end */
	ASSERT_EQ(fclose(f), 0);
	r = read_alike(dir, &why);
	ASSERT_TRUE(r && r->log.partial);
	ASSERT_EQ(r->log.events, 4);
	snprintf(want, sizeof(want),
		 "%s/chan_0: damaged, its first 2 complete packets kept (%ld of %ld bytes)", kernel,
		 ends[1], ends[2] + 100);
	ASSERT_TRUE(has_problem(r, want));
	ASSERT_EQ(r->log.problems.n, 1);
	an_result_free(r);
	free(why);
	rm_rf(dir);
}

/*
 * A FIFO where the analysis reads a file itself, as when one replaced a file after the
 * snapshot's files were listed and checked (a name checked then opened): refused, not
 * waited on, with or without a writer. A stream file being dealt to shards (where can it be
 * cut?), then the trace's metadata (is the trace of LTTng's layout? is it whole?).
 */
static void test_fifo_after_listing(void)
{
	struct an_vec units = AN_VEC(struct an_unit), dirs = AN_VEC(char *);
	char dir[600], kernel[700], path[800], want[900], *why = NULL;
	struct an_shard shards[2];
	struct an_unit *u;

	/* The open of a FIFO waits for a writer for ever: this fails the test instead. */
	alarm(60);
	memset(shards, 0, sizeof(shards));
	snapshot_dir(dir, kernel, "fifo-race");
	metadata(kernel, NULL);
	ASSERT_TRUE(an_trace_is_lttng(kernel));
	snprintf(path, sizeof(path), "%s/chan_0", kernel);
	ASSERT_EQ(mkfifo(path, 0644), 0);
	*(char **)an_vec_push(&dirs) = kernel;
	/* Listed as a regular file of 1 MiB: the shards differ enough for a cut to be looked for. */
	u = an_vec_push(&units);
	ASSERT_TRUE(u);
	*u = (struct an_unit){
		.name = strdup("chan_0"), .size = 1 << 20, .bytes = 1 << 20, .lttng = true};
	ASSERT_EQ(an_deal(&units, &dirs, shards, 2), 0);
	ASSERT_EQ(units.n, 1);
	free(AN_AT(&units, struct an_unit, 0)->name);
	an_vec_free(&units);
	an_vec_free(&dirs);

	snprintf(path, sizeof(path), "%s/metadata", kernel);
	ASSERT_EQ(unlink(path), 0);
	ASSERT_EQ(mkfifo(path, 0644), 0);
	ASSERT_TRUE(!an_trace_is_lttng(kernel));
	ASSERT_EQ(an_check_metadata(kernel, NULL, &why), -EIO);
	snprintf(want, sizeof(want), "%s: a FIFO, not a regular file: the trace is left out", path);
	ASSERT_STREQ(why, want);
	free(why);
	rm_rf(dir);
	alarm(0);
}

int main(void)
{
	ASSERT_TRUE(mkdtemp(root));
	RUN(test_classes_with_other_fields);
	RUN(test_content_shorter_than_header);
	RUN(test_refused_after_salvage);
	RUN(test_undeclared);
	RUN(test_undeclared_per_trace);
	RUN(test_metadata_limit);
	RUN(test_metadata_not_regular);
	RUN(test_fifo_after_listing);
	RUN(test_index_inside_packet);
	RUN(test_many_irqs);
	rm_rf(root);
	return 0;
}
