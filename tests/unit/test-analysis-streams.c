/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Streams decoded apart, in one thread or several, then merged (analysis/read/parallel.c,
 * merge.c), against the muxed pass (reader.c) on a snapshot written here: two traces (the
 * second's UUID sorts first, its directory last), streams whose ids go against their
 * files' names, many events at the same time on different streams, tasks whose comm
 * changes and changes back on other CPUs, forks, exits, execs, migrations and alerts saying
 * who a task is (its identities over time compared one by one), irqs and disks
 * named differently on different CPUs, syscalls first seen in a different order on each
 * CPU. The log (every table, in order) and the JSON and text results must be the same,
 * whatever the threads; a damaged stream file sends every path to the muxed pass, alike.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>

#include "an.h"
#include "analysis-result.h"
#include "results.h"
#include "snapshot.h"
#include "tests.h"

static char root[] = "/tmp/test-analysis-streams.XXXXXX";

#define META_HEAD                                                                                  \
	"/* CTF 1.8 */\n"                                                                          \
	"typealias integer { size = 8; align = 8; signed = false; } := uint8_t;\n"                 \
	"typealias integer { size = 32; align = 8; signed = false; } := uint32_t;\n"               \
	"typealias integer { size = 32; align = 8; signed = true; } := int32_t;\n"                 \
	"typealias integer { size = 64; align = 8; signed = true; } := int64_t;\n"                 \
	"typealias integer { size = 64; align = 8; signed = false; } := uint64_t;\n"

/* LTTng's layout: the stream's own id in its packet header (streams can be split). */
#define META_BODY                                                                                  \
	"	major = 1; minor = 8; byte_order = le;\n"                                                \
	"	packet.header := struct { uint32_t magic; uint8_t uuid[16]; uint32_t stream_id;\n"       \
	"		uint64_t stream_instance_id; };\n"                                                      \
	"};\n"                                                                                     \
	"env { hostname = \"testhost\"; tracer_name = \"lttng-modules\"; tracer_major = 2;\n"      \
	"	tracer_minor = 13; };\n"                                                                 \
	"clock { name = \"monotonic\"; freq = 1000000000; offset_s = 1700000000; absolute = "      \
	"true; };\n"                                                                               \
	"typealias integer { size = 64; align = 8; signed = false; map = clock.monotonic.value; "  \
	"} := clock_t;\n"                                                                          \
	"stream {\n"                                                                               \
	"	id = 0;\n"                                                                               \
	"	event.header := struct { uint32_t id; clock_t timestamp; };\n"                           \
	"	packet.context := struct { clock_t timestamp_begin; clock_t timestamp_end;\n"            \
	"		uint64_t content_size; uint64_t packet_size; uint64_t packet_seq_num;\n"                \
	"		uint64_t events_discarded; uint32_t cpu_id;\n"                                          \
	"	};\n"                                                                                    \
	"};\n"                                                                                     \
	"event { name = \"sched_switch\"; id = 0; stream_id = 0; fields := struct {\n"             \
	"	string prev_comm; int32_t prev_tid; int32_t prev_prio; int64_t prev_state;\n"            \
	"	string next_comm; int32_t next_tid; int32_t next_prio; }; };\n"                          \
	"event { name = \"sched_waking\"; id = 1; stream_id = 0; fields := struct {\n"             \
	"	string comm; int32_t tid; int32_t prio; int32_t target_cpu; }; };\n"                     \
	"event { name = \"sched_process_fork\"; id = 2; stream_id = 0; fields := struct {\n"       \
	"	string parent_comm; int32_t parent_tid; int32_t parent_pid;\n"                           \
	"	string child_comm; int32_t child_tid; int32_t child_pid; }; };\n"                        \
	"event { name = \"irq_handler_entry\"; id = 3; stream_id = 0; fields := struct {\n"        \
	"	int32_t irq; string name; }; };\n"                                                       \
	"event { name = \"syscall_entry_read\"; id = 4; stream_id = 0; fields := struct {\n"       \
	"	uint64_t fd; }; };\n"                                                                    \
	"event { name = \"syscall_exit_read\"; id = 5; stream_id = 0; fields := struct {\n"        \
	"	int64_t ret; }; };\n"                                                                    \
	"event { name = \"syscall_entry_write\"; id = 6; stream_id = 0; fields := struct {\n"      \
	"	uint64_t fd; }; };\n"                                                                    \
	"event { name = \"syscall_exit_write\"; id = 7; stream_id = 0; fields := struct {\n"       \
	"	int64_t ret; }; };\n"                                                                    \
	"event { name = \"latency_tracker_alert\"; id = 8; stream_id = 0; fields := struct {\n"    \
	"	uint64_t delay_ns; uint64_t seq; int32_t pid; int32_t tid; string tracker;\n"            \
	"	string comm; }; };\n"                                                                    \
	"event { name = \"lttng_statedump_block_device\"; id = 9; stream_id = 0;\n"                \
	"	fields := struct { uint32_t dev; string diskname; }; };\n"                               \
	"event { name = \"other_event\"; id = 10; stream_id = 0; fields := struct {\n"             \
	"	uint32_t x; }; };\n"                                                                     \
	"event { name = \"sched_process_exit\"; id = 11; stream_id = 0; fields := struct {\n"      \
	"	string comm; int32_t tid; int32_t prio; }; };\n"                                         \
	"event { name = \"sched_process_exec\"; id = 12; stream_id = 0; fields := struct {\n"      \
	"	string filename; int32_t tid; int32_t old_tid; }; };\n"                                  \
	"event { name = \"sched_migrate_task\"; id = 13; stream_id = 0; fields := struct {\n"      \
	"	string comm; int32_t tid; int32_t prio; int32_t orig_cpu; int32_t dest_cpu; }; "         \
	"};\n"

static void rm_rf(const char *path)
{
	char cmd[600];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", path);
	ASSERT_EQ(system(cmd), 0);
}

static void put(FILE *f, const void *p, size_t n)
{
	ASSERT_EQ(fwrite(p, 1, n, f), n);
}

static void put_i32(FILE *f, int32_t v)
{
	put(f, &v, sizeof(v));
}

static void put_u64(FILE *f, uint64_t v)
{
	put(f, &v, sizeof(v));
}

static void put_str(FILE *f, const char *s)
{
	put(f, s, strlen(s) + 1);
}

static uint32_t rnd_state;

static uint32_t rnd(uint32_t n)
{
	rnd_state = rnd_state * 1103515245u + 12345u;
	return (rnd_state >> 8) % n;
}

static const char *const comms[] = {"bash", "ls", "worker", "kworker/0:1",
				    "a-very-long-command-name"};

/* One event of a random kind at ts on cpu. */
static void event(FILE *f, uint64_t ts, int cpu)
{
	uint32_t kind = rnd(14);
	int32_t tid = (int32_t)rnd(12) + 1;
	char name[32];

	put(f, &kind, sizeof(kind));
	put_u64(f, ts);
	switch (kind) {
	case 0:
		put_str(f, comms[rnd(5)]);
		put_i32(f, tid);
		put_i32(f, 120);
		put_u64(f, rnd(3));
		put_str(f, comms[rnd(5)]);
		put_i32(f, (int32_t)rnd(12) + 1);
		put_i32(f, 120);
		break;
	case 1:
		put_str(f, comms[rnd(5)]);
		put_i32(f, tid);
		put_i32(f, 120);
		put_i32(f, cpu);
		break;
	case 2:
		put_str(f, comms[rnd(5)]);
		put_i32(f, tid);
		put_i32(f, tid);
		put_str(f, comms[rnd(5)]);
		put_i32(f, (int32_t)rnd(30) + 1);
		put_i32(f, (int32_t)rnd(30) + 1);
		break;
	case 3:
		snprintf(name, sizeof(name), "eth%u", rnd(3));
		put_i32(f, (int32_t)rnd(4) + 10);
		put_str(f, name);
		break;
	case 4:
	case 6:
		put_u64(f, rnd(10));
		break;
	case 5:
	case 7:
		put_u64(f, rnd(100));
		break;
	case 8:
		put_u64(f, 1000 + rnd(1000));
		put_u64(f, rnd(1000));
		put_i32(f, (int32_t)rnd(30) + 1);
		put_i32(f, tid);
		put_str(f, "offcpu");
		put_str(f, comms[rnd(5)]);
		break;
	case 9:
		snprintf(name, sizeof(name), "vd%c", 'a' + (int)rnd(3));
		put(f, &(uint32_t){(254u << 20) | rnd(3)}, sizeof(uint32_t));
		put_str(f, name);
		break;
	case 11:
		put_str(f, comms[rnd(5)]);
		put_i32(f, tid);
		put_i32(f, 120);
		break;
	case 12:
		snprintf(name, sizeof(name), "/usr/bin/%s", comms[rnd(5)]);
		put_str(f, name);
		put_i32(f, tid);
		put_i32(f, rnd(4) ? tid : (int32_t)rnd(12) + 1);
		break;
	case 13:
		put_str(f, comms[rnd(5)]);
		put_i32(f, tid);
		put_i32(f, 120);
		put_i32(f, (int32_t)rnd(4));
		put_i32(f, (int32_t)rnd(4));
		break;
	default:
		put(f, &(uint32_t){rnd(5)}, sizeof(uint32_t));
		break;
	}
}

/*
 * A stream file of one packet or several, as a flight recorder's snapshot holds them:
 * numbered from 7 (the earlier ones overwritten), a packet's beginning the end of the one
 * before, the events' times going up by 0 to 2 ns from 1000 (the other streams' times often
 * the same). LTTng's packet layout: packet_size at byte 56, where salvage.c reads it.
 */
struct packets {
	const char *name;
	uint64_t id;
	uint32_t cpu;
	size_t packets, events; /* events per packet, of a random size each */
	uint32_t seed;
	size_t gap_at;	   /* this packet's number skips one (0: none) */
	size_t discard_at; /* from this packet on, the tracer counts 5 events lost more each */
};

static void stream_packets(const char *dir, const uint8_t uuid[16], const struct packets *sp)
{
	const uint32_t magic = 0xc1fc1fc1, stream_id = 0;
	uint64_t ts = 1000, seq = 7, lost = 0;
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, sp->name);
	f = fopen(path, "w+b");
	ASSERT_TRUE(f);
	rnd_state = sp->seed;
	for (size_t k = 0; k < sp->packets; k++) {
		long start = ftell(f), end;
		uint64_t ctx[6];

		if (sp->gap_at && k == sp->gap_at)
			seq++;
		if (sp->discard_at && k >= sp->discard_at)
			lost += 5;
		/* begin, end, content and packet sizes, seq num, discarded */
		ctx[0] = ts;
		put(f, &magic, sizeof(magic));
		put(f, uuid, 16);
		put(f, &stream_id, sizeof(stream_id));
		put_u64(f, sp->id);
		put(f, ctx, sizeof(ctx)); /* written below */
		put(f, &sp->cpu, sizeof(sp->cpu));
		for (size_t i = 0; i < sp->events; i++) {
			ts += rnd(3);
			event(f, ts, (int)sp->cpu);
		}
		end = ftell(f);
		ctx[1] = ts;
		ctx[2] = ctx[3] = (uint64_t)(end - start) * 8;
		ctx[4] = seq++;
		ctx[5] = lost;
		ASSERT_EQ(fseek(f, start + 32, SEEK_SET), 0);
		put(f, ctx, sizeof(ctx));
		ASSERT_EQ(fseek(f, end, SEEK_SET), 0);
	}
	ASSERT_EQ(fclose(f), 0);
}

static void trace(const char *dir, const char *uuid)
{
	char path[512], *meta = NULL;
	FILE *f;

	ASSERT_EQ(mkdir(dir, 0755), 0);
	snprintf(path, sizeof(path), "%s/metadata", dir);
	f = fopen(path, "w");
	ASSERT_TRUE(f);
	ASSERT_TRUE(asprintf(&meta, META_HEAD "trace {\n\tuuid = \"%s\";\n" META_BODY, uuid) > 0);
	put(f, meta, strlen(meta));
	free(meta);
	ASSERT_EQ(fclose(f), 0);
}

/*
 * Over 512 KiB of stream files (below, one thread reads all): kernel/ with 4 streams (ids
 * against the files' order, one without events), ust/ (its UUID sorting first) with 2.
 */
#define EVENTS_PER_STREAM 8000
static void snapshot(void)
{
	static const uint8_t k[16] = {0xbb, 0xbb, 0xbb, 0xbb, 0, 0, 0x40, 0, 0x80},
			     u[16] = {0xaa, 0xaa, 0xaa, 0xaa, 0, 0, 0x40, 0, 0x80};
	char kernel[512], ust[512];

	snprintf(kernel, sizeof(kernel), "%s/kernel", root);
	snprintf(ust, sizeof(ust), "%s/ust", root);
	trace(kernel, "bbbbbbbb-0000-4000-8000-000000000000");
	trace(ust, "aaaaaaaa-0000-4000-8000-000000000000");
	stream_packets(kernel, k, &(struct packets){"chan_0", 3, 0, 1, EVENTS_PER_STREAM, 1, 0, 0});
	stream_packets(kernel, k, &(struct packets){"chan_1", 2, 1, 1, EVENTS_PER_STREAM, 2, 0, 0});
	stream_packets(kernel, k,
		       &(struct packets){"chan_2", 1, 2, 1, EVENTS_PER_STREAM / 2, 3, 0, 0});
	stream_packets(kernel, k, &(struct packets){"chan_3", 0, 3, 1, 0, 4, 0, 0});
	stream_packets(ust, u,
		       &(struct packets){"chan_0", 1, 0, 1, EVENTS_PER_STREAM / 3, 5, 0, 0});
	stream_packets(ust, u,
		       &(struct packets){"chan_1", 0, 1, 1, EVENTS_PER_STREAM / 3, 6, 0, 0});
}

static struct an_result *read_cut(const char *path, unsigned threads, unsigned *graphs,
				  unsigned *cuts)
{
	struct an_options opt = {.tables = true, .threads = threads, .io_usage = true};
	struct an_snapshot s;
	struct an_result *r;

	ASSERT_EQ(an_snapshot_read(path, AN_WANT_ANALYSIS, &opt, NULL, &s), 0);
	r = s.result;
	s.result = NULL;
	*graphs = s.graphs;
	if (cuts)
		*cuts = s.cuts;
	an_snapshot_free(&s);
	ASSERT_TRUE(r);
	return r;
}

static struct an_result *read_with(const char *path, unsigned threads, unsigned *graphs)
{
	return read_cut(path, threads, graphs, NULL);
}

static bool strs_equal(const struct an_vec *a, const struct an_vec *b)
{
	if (a->n != b->n)
		return false;
	for (size_t i = 0; i < a->n; i++)
		if (strcmp(*AN_AT(a, char *, i), *AN_AT(b, char *, i)) != 0)
			return false;
	return true;
}

static bool same(const struct an_vec *a, const struct an_vec *b, size_t size)
{
	return a->n == b->n && (!a->n || memcmp(a->v, b->v, a->n * size) == 0);
}

static int by_lost(const void *a, const void *b)
{
	const struct an_lost *x = a, *y = b;

	if (x->t0 != y->t0)
		return x->t0 < y->t0 ? -1 : 1;
	if (x->t1 != y->t1)
		return x->t1 < y->t1 ? -1 : 1;
	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	return (x->n > y->n) - (x->n < y->n);
}

/* Where events were lost: the same ranges, in any order (the timeline sorts them). */
static void check_lost(const struct an_log *a, const struct an_log *b)
{
	struct an_lost *x = calloc(a->lost.n + 1, sizeof(*x)),
		       *y = calloc(b->lost.n + 1, sizeof(*y));

	ASSERT_TRUE(x && y);
	ASSERT_EQ(a->lost.n, b->lost.n);
	if (a->lost.n) {
		memcpy(x, a->lost.v, a->lost.n * sizeof(*x));
		memcpy(y, b->lost.v, b->lost.n * sizeof(*y));
	}
	qsort(x, a->lost.n, sizeof(*x), by_lost);
	qsort(y, b->lost.n, sizeof(*y), by_lost);
	for (size_t i = 0; i < a->lost.n; i++)
		ASSERT_EQ(by_lost(&x[i], &y[i]), 0);
	free(x);
	free(y);
}

/* Every table of the log, in its order. */
static void check_logs(const struct an_log *a, const struct an_log *b)
{
	ASSERT_TRUE(same(&a->ev, &b->ev, sizeof(struct an_ev)));
	ASSERT_EQ(a->tasks.n, b->tasks.n);
	for (size_t i = 0; i < a->tasks.n; i++) {
		const struct an_task *x = AN_AT(&a->tasks, struct an_task, i);
		const struct an_task *y = AN_AT(&b->tasks, struct an_task, i);

		ASSERT_EQ(x->tid, y->tid);
		ASSERT_EQ(x->pid, y->pid);
		ASSERT_STREQ(x->comm, y->comm);
		ASSERT_EQ(x->ident, y->ident);
		ASSERT_EQ(x->nident, y->nident);
	}
	ASSERT_EQ(a->idents.n, b->idents.n);
	for (size_t i = 0; i < a->idents.n; i++) {
		const struct an_ident *x = AN_AT(&a->idents, struct an_ident, i);
		const struct an_ident *y = AN_AT(&b->idents, struct an_ident, i);

		ASSERT_EQ(x->ts, y->ts);
		ASSERT_EQ(x->pid, y->pid);
		ASSERT_EQ(x->run, y->run);
		ASSERT_STREQ(x->comm, y->comm);
	}
	ASSERT_TRUE(same(&a->alerts, &b->alerts, sizeof(struct an_alert)));
	ASSERT_TRUE(strs_equal(&a->sysnames, &b->sysnames));
	ASSERT_TRUE(strs_equal(&a->irqname_v, &b->irqname_v));
	for (int32_t irq = 0; irq < 20; irq++)
		ASSERT_STREQ(an_irq_name(a, irq), an_irq_name(b, irq));
	ASSERT_TRUE(same(&a->packets, &b->packets, sizeof(struct an_packet)));
	ASSERT_TRUE(same(&a->disks, &b->disks, sizeof(struct an_disk)));
	ASSERT_TRUE(memcmp(a->counts, b->counts, sizeof(a->counts)) == 0);
	ASSERT_EQ(a->events, b->events);
	ASSERT_EQ(a->discarded, b->discarded);
	check_lost(a, b);
	ASSERT_EQ(a->first_ts, b->first_ts);
	ASSERT_EQ(a->last_ts, b->last_ts);
	ASSERT_TRUE(same(&a->cpu_first, &b->cpu_first, sizeof(uint64_t)));
	ASSERT_EQ(a->ncpu, b->ncpu);
	ASSERT_EQ(a->partial, b->partial);
	ASSERT_TRUE(strs_equal(&a->problems, &b->problems));
}

static void check_results(const struct an_result *a, const struct an_result *b)
{
	struct json_object *ja = an_result_json(a), *jb = an_result_json(b);
	char *ta = result_text(a), *tb = result_text(b);

	check_logs(&a->log, &b->log);
	ASSERT_STREQ(json_object_to_json_string(ja), json_object_to_json_string(jb));
	ASSERT_STREQ(ta, tb);
	json_object_put(ja);
	json_object_put(jb);
	free(ta);
	free(tb);
}

/* The muxer's order at the same time: the ust trace (UUID aa...) first, then by stream id. */
static void test_muxed_order(void)
{
	unsigned graphs;
	struct an_result *r = read_with(root, 0, &graphs);
	const struct an_log *log = &r->log;
	size_t ties = 0;

	ASSERT_EQ(graphs, 1);
	ASSERT_EQ(log->events,
		  2 * EVENTS_PER_STREAM + EVENTS_PER_STREAM / 2 + 2 * (EVENTS_PER_STREAM / 3));
	for (size_t i = 1; i < log->ev.n; i++) {
		const struct an_ev *p = AN_AT(&log->ev, struct an_ev, i - 1);
		const struct an_ev *e = AN_AT(&log->ev, struct an_ev, i);

		ASSERT_TRUE(p->ts <= e->ts);
		ties += p->ts == e->ts && p->cpu != e->cpu;
	}
	ASSERT_TRUE(ties > 1000);
	ASSERT_TRUE(log->tasks.n > 12 && log->alerts.n > 100 && log->disks.n == 3);
	/* Names changing all the time, from every CPU: identities by the thousand. */
	ASSERT_TRUE(log->idents.n > 1000 && log->counts[EV_EXEC] > 100);
	ASSERT_EQ(log->sysnames.n, 2);
	an_result_free(r);
}

static void test_threads_alike(void)
{
	unsigned graphs;
	struct an_result *muxed = read_with(root, 0, &graphs);

	for (unsigned t = 1; t <= 5; t++) {
		struct an_result *r = read_with(root, t, &graphs);

		/* As many graphs as shards, none read again muxed: 4 streams with events. */
		ASSERT_EQ(graphs, (t < 5 ? t : 5));
		check_results(muxed, r);
		an_result_free(r);
	}
	an_result_free(muxed);
}

/* The stop flag ends the threads' reading as it ends the muxed pass'. */
static void test_stop(void)
{
	struct an_options opt = {.tables = true, .threads = 2};
	const volatile bool stop = true;
	struct an_snapshot s;

	ASSERT_EQ(an_snapshot_read(root, AN_WANT_ANALYSIS, &opt, &stop, &s), -ECANCELED);
	ASSERT_STREQ(s.analysis_why, "stopped");
	ASSERT_EQ(s.graphs, 2);
	an_snapshot_free(&s);
}

/*
 * ROOT-NAME/kernel (its path into kernel), a trace of two streams: chan_0, eight packets
 * of 3000 events (a gap in their numbers, events lost, as given), and chan_1, one packet.
 * The trace's UUID is FILL's byte over and over; ROOT-NAME goes into dir.
 */
static void two_streams(char dir[600], char kernel[700], const char *name, uint8_t fill,
			size_t gap_at, size_t discard_at)
{
	const uint8_t uuid[16] = {fill, fill, fill, fill, 0, 0, 0x40, 0, 0x80};
	char text[40];

	snprintf(dir, 600, "%s-%s", root, name);
	ASSERT_EQ(mkdir(dir, 0755), 0);
	snprintf(kernel, 700, "%s/kernel", dir);
	snprintf(text, sizeof(text), "%02x%02x%02x%02x-0000-4000-8000-000000000000", fill, fill,
		 fill, fill);
	trace(kernel, text);
	stream_packets(kernel, uuid,
		       &(struct packets){"chan_0", 0, 0, 8, 3000, 7, gap_at, discard_at});
	stream_packets(kernel, uuid, &(struct packets){"chan_1", 1, 1, 1, 3000, 8, 0, 0});
}

/*
 * One CPU's stream eight times the other's: two threads read it in two pieces, cut between
 * packets, and get what the muxed pass gets. Not where the cut would not read the same:
 * packets not numbered in sequence, or events lost (babeltrace2 reports a stream's first
 * packet's running count as lost). Either loss is a range where CPU 0's context is not
 * known: a packet missing, from the end of the one before it to the beginning of the next;
 * events, to the end of the packet that counts them.
 */
static void test_cut_streams(void)
{
	static const struct {
		size_t gap_at, discard_at;
		bool cut;
	} cases[] = {
		{0, 0, true},  /* every packet may start a piece */
		{4, 0, true},  /* one may not: the others may */
		{0, 1, false}, /* events lost from the second packet on: none may */
	};

	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		char dir[600], kernel[700];
		struct an_result *muxed, *r;
		unsigned graphs, cuts;

		char name[16];

		snprintf(name, sizeof(name), "cut%zu", c);
		two_streams(dir, kernel, name, 0xcc, cases[c].gap_at, cases[c].discard_at);
		muxed = read_cut(dir, 0, &graphs, &cuts);
		ASSERT_EQ(cuts, 0);
		ASSERT_EQ(muxed->log.events, 9 * 3000);
		ASSERT_EQ(muxed->log.discarded,
			  cases[c].discard_at ? 5 * (8 - cases[c].discard_at) : 0);
		ASSERT_EQ(muxed->log.lost.n, cases[c].discard_at ? 8 - cases[c].discard_at
					     : cases[c].gap_at	 ? 1
								 : 0);
		/* A packet missing is counted and said, as events discarded are. */
		ASSERT_EQ(muxed->log.discarded_packets, cases[c].gap_at ? 1 : 0);
		ASSERT_EQ(has_problem(muxed, "packets missing from the streams"),
			  cases[c].gap_at != 0);
		for (size_t i = 0; i < muxed->log.lost.n; i++) {
			const struct an_lost *l = AN_AT(&muxed->log.lost, struct an_lost, i);

			ASSERT_EQ(l->cpu, 0);
			ASSERT_EQ(l->n, cases[c].discard_at ? 5 : 0);
			ASSERT_TRUE(l->t0 <= l->t1);
		}
		for (unsigned t = 1; t <= 3; t++) {
			r = read_cut(dir, t, &graphs, &cuts);
			ASSERT_EQ(graphs, t < 2 ? t : 2); /* 2 streams: 2 shards at most */
			check_results(muxed, r);
			ASSERT_EQ(cuts > 0, t > 1 && cases[c].cut);
			an_result_free(r);
		}
		an_result_free(muxed);
		rm_rf(dir);
	}
}

/* Packet K of DIR/NAME (a file of LTTng's packets): the LEN bytes at byte AT of it set to V's. */
static void poison_packet(const char *dir, const char *name, size_t k, long at, uint64_t v,
			  size_t len)
{
	uint64_t off = 0;
	char path[800];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "r+b");
	ASSERT_TRUE(f);
	for (size_t i = 0; i < k; i++) {
		uint64_t size;

		ASSERT_EQ(fseek(f, (long)off + 56, SEEK_SET), 0);
		ASSERT_EQ(fread(&size, sizeof(size), 1, f), 1);
		off += size / 8;
	}
	ASSERT_EQ(fseek(f, (long)off + at, SEEK_SET), 0);
	put(f, &v, len);
	ASSERT_EQ(fclose(f), 0);
}

/*
 * A stream file whose sixth packet says what babeltrace2 2.0 aborts on (an assertion): a
 * size past 2^63 bits, an all-ones time. No cut is made in it, and every path reads the
 * first five packets, salvaged, alike, without babeltrace2 ever seeing the sixth.
 */
static void test_cut_damaged(void)
{
	static const struct {
		long at;
		uint64_t v;
	} poisons[] = {
		{56, UINT64_MAX - 7},	       /* packet_size */
		{48, (UINT64_C(1) << 63) + 8}, /* content_size */
		{40, UINT64_MAX},	       /* timestamp_end */
		{72, UINT64_MAX},	       /* events_discarded */
	};

	for (size_t i = 0; i < sizeof(poisons) / sizeof(poisons[0]); i++) {
		char dir[600], kernel[700];
		struct an_result *muxed, *r;
		unsigned g0, g2, cuts;

		char name[16];

		snprintf(name, sizeof(name), "bad%zu", i);
		two_streams(dir, kernel, name, 0xdd, 0, 0);
		poison_packet(kernel, "chan_0", 5, poisons[i].at, poisons[i].v, 8);
		muxed = read_cut(dir, 0, &g0, NULL);
		r = read_cut(dir, 2, &g2, &cuts);
		ASSERT_TRUE(muxed->log.partial);
		ASSERT_EQ(muxed->log.events, 6 * 3000);
		ASSERT_EQ(cuts, 0);
		ASSERT_EQ(g2, g0); /* the streams path sent it to the muxed pass at once */
		check_results(muxed, r);
		an_result_free(muxed);
		an_result_free(r);
		rm_rf(dir);
	}
}

/* DIR read muxed and in two threads, alike: the muxed result; the graphs each built. */
static struct an_result *read_alike(const char *dir, unsigned *g0, unsigned *g2)
{
	struct an_result *a = read_with(dir, 0, g0), *b = read_with(dir, 2, g2);

	check_results(a, b);
	an_result_free(b);
	return a;
}

/*
 * A packet naming a CPU no kernel has (its context damaged): its events are left out and
 * counted, the tables keep a row per real CPU, every path alike.
 */
static void test_damaged_cpu(void)
{
	const uint32_t bogus = 0x400000;
	char path[600];
	unsigned g0, g2;
	uint32_t cpu;
	struct an_result *a;
	FILE *f;

	snprintf(path, sizeof(path), "%s/kernel/chan_0", root);
	f = fopen(path, "r+b");
	ASSERT_TRUE(f);
	ASSERT_EQ(fseek(f, 80, SEEK_SET), 0); /* cpu_id, after the header and the context */
	ASSERT_EQ(fread(&cpu, sizeof(cpu), 1, f), 1);
	ASSERT_EQ(fseek(f, 80, SEEK_SET), 0);
	ASSERT_EQ(fwrite(&bogus, sizeof(bogus), 1, f), 1);
	ASSERT_EQ(fclose(f), 0);
	a = read_alike(root, &g0, &g2);
	ASSERT_TRUE(a->log.damaged > 0 && a->log.damaged <= EVENTS_PER_STREAM);
	ASSERT_TRUE(a->log.ncpu < 16);
	ASSERT_TRUE(has_problem(a, "events left out: without a time, or on a CPU past"));
	an_result_free(a);
	f = fopen(path, "r+b");
	ASSERT_TRUE(f);
	ASSERT_EQ(fseek(f, 80, SEEK_SET), 0);
	ASSERT_EQ(fwrite(&cpu, sizeof(cpu), 1, f), 1);
	ASSERT_EQ(fclose(f), 0);
}

/* A stream file cut in its packet: every path reads it muxed, salvaged, alike. */
static void test_damaged(void)
{
	char path[600];
	unsigned g0, g2;
	struct an_result *a;

	snprintf(path, sizeof(path), "%s/kernel/chan_1", root);
	ASSERT_EQ(truncate(path, 5000), 0);
	a = read_alike(root, &g0, &g2);
	ASSERT_TRUE(a->log.partial);
	ASSERT_EQ(g0, 2);
	ASSERT_EQ(g2, g0); /* the packets checked first: the streams path sent it on at once */
	an_result_free(a);
}

/*
 * What no packet check sees, in a stream's fourth packet. An event of no known class: the
 * streams path's graphs fail, then every path reads what came before it, muxed. A packet of
 * a stream class the metadata lacks, sound by its header otherwise: babeltrace2 refuses the
 * file (its index cannot be built), salvaging would keep it whole, refused again, for ever:
 * it is left out instead, said so. Every path alike.
 */
static void test_damaged_unseen(void)
{
	static const struct {
		const char *name;
		long at; /* in the packet */
		uint32_t v;
		bool left_out; /* the file; else read up to the packet */
	} cases[] = {
		/* the first event's id: after the packet's header (32 bytes), context (48), cpu */
		{"event", 84, 99, false},
		{"class", 20, 1, true}, /* stream_id */
	};

	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		char dir[600], kernel[700];
		struct an_result *a;
		unsigned g0, g2;

		two_streams(dir, kernel, cases[c].name, 0xee, 0, 0);
		poison_packet(kernel, "chan_0", 3, cases[c].at, cases[c].v, 4);
		a = read_alike(dir, &g0, &g2);
		ASSERT_TRUE(a->log.partial && a->log.problems.n >= 1);
		if (cases[c].left_out) {
			ASSERT_EQ(a->log.events, 3000); /* chan_1's */
			ASSERT_TRUE(strstr(*AN_AT(&a->log.problems, char *, 0),
					   "chan_0: damaged stream file left out"));
		} else {
			ASSERT_TRUE(a->log.events > 3 * 3000 && a->log.events < 9 * 3000);
			ASSERT_TRUE(g2 > g0); /* the streams path's graphs failed, then muxed */
		}
		an_result_free(a);
		rm_rf(dir);
	}
}

/*
 * Two snapshots of one session in one directory (latencyd's output directory), their traces
 * alike: the older one's traces are left out and named, so that no event counts twice, and
 * the result is that of the newest alone, whatever the threads.
 */
static void test_same_session_twice(void)
{
	char two[sizeof(root) + 16], cmd[8 * sizeof(two)];
	struct an_result *alone, *r;
	unsigned graphs;
	size_t left = 0;

	snprintf(two, sizeof(two), "%s.two", root);
	snprintf(cmd, sizeof(cmd),
		 "mkdir -p %s/snap-1 %s/snap-2 && cp -a %s/kernel %s/ust %s/snap-1", two, two, root,
		 root, two);
	ASSERT_EQ(system(cmd), 0);
	snprintf(cmd, sizeof(cmd), "cp -a %s/kernel %s/ust %s/snap-2 && touch %s/snap-2/*/metadata",
		 root, root, two, two);
	ASSERT_EQ(system(cmd), 0);
	alone = read_with(root, 0, &graphs);
	for (unsigned t = 0; t <= 2; t++) {
		r = read_with(two, t, &graphs);
		ASSERT_EQ(r->log.events, alone->log.events);
		ASSERT_EQ(r->log.alerts.n, alone->log.alerts.n);
		left = 0;
		for (size_t i = 0; i < r->log.problems.n; i++) {
			const char *p = *AN_AT(&r->log.problems, char *, i);

			if (strstr(p, "/snap-1/") && strstr(p, "/snap-2/") &&
			    strstr(p, "an older snapshot of the same session: left out"))
				left++;
		}
		ASSERT_EQ(left, 2); /* kernel/ and ust/ */
		an_result_free(r);
	}
	an_result_free(alone);
	rm_rf(two);
}

int main(void)
{
	ASSERT_TRUE(mkdtemp(root));
	snapshot();
	RUN(test_muxed_order);
	RUN(test_threads_alike);
	RUN(test_stop);
	RUN(test_cut_streams);
	RUN(test_cut_damaged);
	RUN(test_damaged_cpu);
	RUN(test_damaged_unseen);
	RUN(test_damaged);
	RUN(test_same_session_twice);
	rm_rf(root);
	return 0;
}
