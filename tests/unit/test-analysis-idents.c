/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A thread named as it was at the time, and a runnable task's CPU as the scheduler moved
 * it, on a kernel trace of two CPUs written here with lttng-modules' event and field names,
 * read muxed and in two threads (the same JSON):
 *  - a waker that ran as bash, exec'd sleeper, and woke the alert's task: each link of the
 *    chain names it as it was then, and its pid (the exec says it) is known before too;
 *  - a tid reused by another process's thread after its first thread exited: a row per
 *    thread identity in the CPU usage per process, with its own name, pid and time;
 *  - a thread that renamed itself where no event says when: its run under the new name;
 *  - a thread whose exec's new name shows in a switch before its exec event: its run
 *    before keeps its old name; one that renamed itself long before an exec of that name
 *    keeps the rename for its run before;
 *  - a dying thread's last switch, a packet after its exit, once its tid was forked again:
 *    the new thread keeps its name;
 *  - a task woken on one CPU and placed on another by its wakeup (sched_migrate_task): it
 *    waits behind the task holding the CPU it was placed on, not the one it last ran on;
 *  - a preempted task pulled to another CPU's queue: its wait is behind each CPU's holder in
 *    turn, for as long as it waited there, each holder named as it was then.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <json-c/json.h>

#include "analysis.h"
#include "tests.h"

static char root[] = "/tmp/test-analysis-idents.XXXXXX";

#define ORIGIN (1700000000ULL * 1000000000ULL)
#define BASE   1000000ULL /* raw time of 0 ms */
#define MS     1000000ULL
#define US     1000ULL
#define T(ms)  (BASE + (uint64_t)((ms) * (double)MS))

static const char meta[] =
	"/* CTF 1.8 */\n"
	"typealias integer { size = 8; align = 8; signed = false; } := uint8_t;\n"
	"typealias integer { size = 32; align = 8; signed = false; } := uint32_t;\n"
	"typealias integer { size = 32; align = 8; signed = true; } := int32_t;\n"
	"typealias integer { size = 64; align = 8; signed = true; } := int64_t;\n"
	"typealias integer { size = 64; align = 8; signed = false; } := uint64_t;\n"
	"trace {\n"
	"	major = 1; minor = 8; byte_order = le;\n"
	"	uuid = \"cccccccc-0000-4000-8000-000000000000\";\n"
	"	packet.header := struct { uint32_t magic; uint8_t uuid[16]; uint32_t stream_id;\n"
	"		uint64_t stream_instance_id; };\n"
	"};\n"
	"env { hostname = \"testhost\"; tracer_name = \"lttng-modules\"; tracer_major = 2;\n"
	"	tracer_minor = 13; };\n"
	"clock { name = \"monotonic\"; freq = 1000000000; offset_s = 1700000000; absolute = "
	"true; };\n"
	"typealias integer { size = 64; align = 8; signed = false; map = clock.monotonic.value; "
	"} := clock_t;\n"
	"stream {\n"
	"	id = 0;\n"
	"	event.header := struct { uint32_t id; clock_t timestamp; };\n"
	"	packet.context := struct { clock_t timestamp_begin; clock_t timestamp_end;\n"
	"		uint64_t content_size; uint64_t packet_size; uint64_t packet_seq_num;\n"
	"		uint64_t events_discarded; uint32_t cpu_id;\n"
	"	};\n"
	"};\n"
	"event { name = \"sched_switch\"; id = 0; stream_id = 0; fields := struct {\n"
	"	string prev_comm; int32_t prev_tid; int32_t prev_prio; int64_t prev_state;\n"
	"	string next_comm; int32_t next_tid; int32_t next_prio; }; };\n"
	"event { name = \"sched_waking\"; id = 1; stream_id = 0; fields := struct {\n"
	"	string comm; int32_t tid; int32_t prio; int32_t target_cpu; }; };\n"
	"event { name = \"sched_process_fork\"; id = 2; stream_id = 0; fields := struct {\n"
	"	string parent_comm; int32_t parent_tid; int32_t parent_pid;\n"
	"	string child_comm; int32_t child_tid; int32_t child_pid; }; };\n"
	"event { name = \"sched_process_exit\"; id = 3; stream_id = 0; fields := struct {\n"
	"	string comm; int32_t tid; int32_t prio; }; };\n"
	"event { name = \"sched_process_exec\"; id = 4; stream_id = 0; fields := struct {\n"
	"	string filename; int32_t tid; int32_t old_tid; }; };\n"
	"event { name = \"sched_migrate_task\"; id = 5; stream_id = 0; fields := struct {\n"
	"	string comm; int32_t tid; int32_t prio; int32_t orig_cpu; int32_t dest_cpu; }; };\n"
	"event { name = \"latency_tracker_alert\"; id = 6; stream_id = 0; fields := struct {\n"
	"	uint64_t start_ns; uint64_t end_ns; uint64_t delay_ns; uint64_t seq; int32_t pid;\n"
	"	int32_t tid; uint32_t reason; string tracker; string comm; }; };\n"
	"event { name = \"irq_handler_entry\"; id = 7; stream_id = 0; fields := struct {\n"
	"	int32_t irq; string name; }; };\n"
	"event { name = \"irq_handler_exit\"; id = 8; stream_id = 0; fields := struct {\n"
	"	int32_t irq; int32_t ret; }; };\n"
	"event { name = \"sched_wakeup_new\"; id = 9; stream_id = 0; fields := struct {\n"
	"	string comm; int32_t tid; int32_t prio; int32_t target_cpu; }; };\n";

/* The two CPUs' stream files, written event by event in each CPU's time order, and where
 * their packet being written begins. */
static FILE *cpu_file[2];
static uint64_t cpu_first[2], cpu_last[2];
static long cpu_packet[2];
static uint64_t cpu_seq[2];

static void put(FILE *f, const void *p, size_t n)
{
	ASSERT_EQ(fwrite(p, 1, n, f), n);
}

static void i32(FILE *f, int32_t v)
{
	put(f, &v, sizeof(v));
}

static void u32(FILE *f, uint32_t v)
{
	put(f, &v, sizeof(v));
}

static void u64(FILE *f, uint64_t v)
{
	put(f, &v, sizeof(v));
}

static void str(FILE *f, const char *s)
{
	put(f, s, strlen(s) + 1);
}

static FILE *head(int cpu, uint32_t id, uint64_t ts)
{
	FILE *f = cpu_file[cpu];

	ASSERT_TRUE(ts >= cpu_last[cpu]);
	if (!cpu_first[cpu])
		cpu_first[cpu] = ts;
	cpu_last[cpu] = ts;
	u32(f, id);
	u64(f, ts);
	return f;
}

static void sw(int cpu, double ms, const char *pc, int32_t prev, int64_t state, const char *nc,
	       int32_t next)
{
	FILE *f = head(cpu, 0, T(ms));

	str(f, pc);
	i32(f, prev);
	i32(f, 20);
	put(f, &state, sizeof(state));
	str(f, nc);
	i32(f, next);
	i32(f, 20);
}

static void waking(int cpu, double ms, const char *comm, int32_t tid, int32_t target)
{
	FILE *f = head(cpu, 1, T(ms));

	str(f, comm);
	i32(f, tid);
	i32(f, 20);
	i32(f, target);
}

static void wakeup_new(int cpu, double ms, const char *comm, int32_t tid, int32_t target)
{
	FILE *f = head(cpu, 9, T(ms));

	str(f, comm);
	i32(f, tid);
	i32(f, 20);
	i32(f, target);
}

static void fork_(int cpu, double ms, const char *child, int32_t tid, int32_t pid)
{
	FILE *f = head(cpu, 2, T(ms));

	str(f, "init");
	i32(f, 1);
	i32(f, 1);
	str(f, child);
	i32(f, tid);
	i32(f, pid);
}

static void exit_(int cpu, double ms, const char *comm, int32_t tid)
{
	FILE *f = head(cpu, 3, T(ms));

	str(f, comm);
	i32(f, tid);
	i32(f, 20);
}

static void exec_(int cpu, double ms, const char *filename, int32_t tid)
{
	FILE *f = head(cpu, 4, T(ms));

	str(f, filename);
	i32(f, tid);
	i32(f, tid);
}

static void migrate(int cpu, double ms, const char *comm, int32_t tid, int32_t from, int32_t to)
{
	FILE *f = head(cpu, 5, T(ms));

	str(f, comm);
	i32(f, tid);
	i32(f, 20);
	i32(f, from);
	i32(f, to);
}

/* An off-CPU alert of TID over [START, END] ms (reason 1 threshold, 2 timeout). */
static void alert(int cpu, double ms, uint64_t seq, const char *comm, int32_t tid, double start,
		  double end, uint32_t reason)
{
	FILE *f = head(cpu, 6, T(ms));

	u64(f, T(start));
	u64(f, T(end));
	u64(f, T(end) - T(start));
	u64(f, seq);
	i32(f, tid);
	i32(f, tid);
	u32(f, reason);
	str(f, "offcpu");
	str(f, comm);
}

static void irq(int cpu, double ms, int32_t nr, const char *name, bool entry)
{
	FILE *f = head(cpu, entry ? 7 : 8, T(ms));

	i32(f, nr);
	if (entry)
		str(f, name);
	else
		i32(f, 1);
}

/* A packet of CPU's stream begins: its header, its context written at its end. */
static void packet_begin(int cpu)
{
	static const uint8_t uuid[16] = {0xcc, 0xcc, 0xcc, 0xcc, 0, 0, 0x40, 0, 0x80};
	const uint32_t magic = 0xc1fc1fc1, stream_id = 0;
	uint64_t ctx[6] = {0};

	cpu_packet[cpu] = ftell(cpu_file[cpu]);
	cpu_first[cpu] = 0;
	put(cpu_file[cpu], &magic, sizeof(magic));
	put(cpu_file[cpu], uuid, 16);
	put(cpu_file[cpu], &stream_id, sizeof(stream_id));
	u64(cpu_file[cpu], (uint64_t)cpu);
	put(cpu_file[cpu], ctx, sizeof(ctx)); /* written at the end */
	u32(cpu_file[cpu], (uint32_t)cpu);
}

static void packet_end(int cpu)
{
	FILE *f = cpu_file[cpu];
	long end = ftell(f);
	uint64_t bits = (uint64_t)(end - cpu_packet[cpu]) * 8;
	uint64_t ctx[6] = {cpu_first[cpu], cpu_last[cpu], bits, bits, cpu_seq[cpu]++, 0};

	ASSERT_EQ(fseek(f, cpu_packet[cpu] + 32, SEEK_SET), 0); /* the context, after the header */
	put(f, ctx, sizeof(ctx));
	ASSERT_EQ(fseek(f, end, SEEK_SET), 0);
}

static void stream_open(const char *dir, int cpu)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/chan_%d", dir, cpu);
	cpu_file[cpu] = fopen(path, "w+b");
	ASSERT_TRUE(cpu_file[cpu]);
	packet_begin(cpu);
}

static void stream_close(int cpu)
{
	packet_end(cpu);
	ASSERT_EQ(fclose(cpu_file[cpu]), 0);
}

enum {
	A = 200,   /* the reader, woken by W */
	W = 101,   /* bash, then sleeper */
	D = 300,   /* olddaemon (pid 300), exits; then worker, a thread of process 250 */
	M = 400,   /* the mover */
	HOG = 500, /* on CPU 1 */
	R = 900,   /* forked as its creator, renamed itself (prctl) unseen */
	X = 1000,  /* sh, exec'd cc1: its new name seen before its exec event */
	Y = 1100,  /* sh, renamed itself cc1 (prctl) and slept; later exec'd cc1 */
	Z = 1200,  /* oldz, exits; its tid forked again as newz before its last switch */
	P = 600,   /* preempts M on CPU 1 */
	H2 = 700,  /* on CPU 0 */
	K = 800,   /* preempts M on CPU 1 for 0.5 ms, before P */
};

static void trace(void)
{
	char dir[600];

	snprintf(dir, sizeof(dir), "%s/kernel", root);
	ASSERT_EQ(mkdir(dir, 0755), 0);
	test_write_file(dir, "metadata", meta);
	stream_open(dir, 0);
	stream_open(dir, 1);

	/* CPU 0: A blocks; olddaemon runs, exits; its tid comes back as worker. */
	sw(0, 0, "swapper/0", 0, 0, "reader", A);
	sw(0, 1, "reader", A, 1, "swapper/0", 0);
	fork_(0, 1.5, "olddaemon", D, D);
	wakeup_new(0, 1.6, "olddaemon", D, 0);
	sw(0, 2, "swapper/0", 0, 0, "olddaemon", D);
	exit_(0, 9.9, "olddaemon", D);
	sw(0, 10, "olddaemon", D, 0x80, "swapper/0", 0);
	fork_(0, 20, "worker", D, 250);
	wakeup_new(0, 20.1, "worker", D, 0);
	sw(0, 21, "swapper/0", 0, 0, "worker", D);
	sw(0, 40, "worker", D, 1, "swapper/0", 0);
	sw(0, 51, "swapper/0", 0, 0, "reader", A);
	alert(0, 52, 1, "reader", A, 1, 51, 1);
	/* M runs on CPU 0, blocks, is woken there by an irq and placed on CPU 1. */
	sw(0, 55, "reader", A, 1, "mover", M);
	sw(0, 56, "mover", M, 1, "swapper/0", 0);
	irq(0, 60, 12, "nic", true);
	waking(0, 60.001, "mover", M, 0);
	migrate(0, 60.002, "mover", M, 0, 1);
	irq(0, 60.003, 12, "nic", false);
	alert(0, 76, 2, "mover", M, 56, 75, 2);
	/* hog2 on CPU 0 from 95; M, preempted on CPU 1 at 100, is pulled here at 110. */
	sw(0, 95, "swapper/0", 0, 0, "hog2", H2);
	migrate(0, 110, "mover", M, 1, 0);
	sw(0, 125, "hog2", H2, 0, "mover", M);
	alert(0, 126, 3, "mover", M, 100, 125, 1);
	sw(0, 130, "mover", M, 1, "swapper/0", 0);
	/* X execs cc1: it blocks reading the program in, after the kernel gave it its name. */
	fork_(0, 200, "sh", X, X);
	wakeup_new(0, 200.1, "sh", X, 0);
	sw(0, 201, "swapper/0", 0, 0, "sh", X);
	sw(0, 210, "cc1", X, 2, "swapper/0", 0);
	sw(0, 212, "swapper/0", 0, 0, "cc1", X);
	exec_(0, 213, "/usr/lib/gcc/x86_64-linux-gnu/12/cc1", X);
	sw(0, 220, "cc1", X, 1, "swapper/0", 0);
	/* Y renames itself cc1, sleeps (interruptibly: not inside an exec), later execs cc1. */
	fork_(0, 300, "sh", Y, Y);
	wakeup_new(0, 300.1, "sh", Y, 0);
	sw(0, 301, "swapper/0", 0, 0, "sh", Y);
	sw(0, 305, "cc1", Y, 1, "swapper/0", 0);
	sw(0, 310, "swapper/0", 0, 0, "cc1", Y);
	exec_(0, 315, "/usr/bin/cc1", Y);
	sw(0, 320, "cc1", Y, 1, "swapper/0", 0);
	/* Z exits; its last switch, in the next packet, comes after CPU 1 forked its tid. */
	fork_(0, 400, "oldz", Z, Z);
	wakeup_new(0, 400.1, "oldz", Z, 0);
	sw(0, 401, "swapper/0", 0, 0, "oldz", Z);
	exit_(0, 409, "oldz", Z);
	packet_end(0);
	packet_begin(0);
	sw(0, 410, "oldz", Z, 0x20 /* EXIT_ZOMBIE, as lttng-modules says a dead task */,
	   "swapper/0", 0);

	/* CPU 1: W runs as bash, execs sleeper, sleeps, is woken by an irq and wakes A. */
	sw(1, 0, "swapper/1", 0, 0, "bash", W);
	exec_(1, 20, "/usr/bin/sleeper", W);
	sw(1, 30, "sleeper", W, 1, "swapper/1", 0);
	irq(1, 45, 11, "timer-dev", true);
	waking(1, 45.001, "sleeper", W, 1);
	irq(1, 45.002, 11, "timer-dev", false);
	sw(1, 45.003, "swapper/1", 0, 0, "sleeper", W);
	waking(1, 50, "reader", A, 0);
	sw(1, 52, "sleeper", W, 1, "swapper/1", 0);
	/* The hog holds CPU 1 until M runs there; then P preempts M. */
	sw(1, 55, "swapper/1", 0, 0, "hog", HOG);
	sw(1, 80, "hog", HOG, 0, "mover", M);
	sw(1, 100, "mover", M, 0, "kworker/1:1", K);
	sw(1, 100.5, "kworker/1:1", K, 1, "preemptor", P);
	exec_(1, 135, "/usr/local/bin/newprog", P);
	sw(1, 140, "newprog", P, 1, "swapper/1", 0);
	/* R comes as its creator's name; a later switch shows the name it gave itself. */
	fork_(1, 150, "spawner", R, 260);
	wakeup_new(1, 150.1, "spawner", R, 1);
	sw(1, 151, "swapper/1", 0, 0, "spawner", R);
	sw(1, 160, "pool-worker", R, 1, "swapper/1", 0);
	fork_(1, 409.5, "newz", Z, 1300);
	wakeup_new(1, 409.6, "newz", Z, 1);
	sw(1, 411, "swapper/1", 0, 0, "newz", Z);
	sw(1, 420, "newz", Z, 1, "swapper/1", 0);
	stream_close(0);
	stream_close(1);
}

static struct json_object *get(struct json_object *o, const char *key)
{
	struct json_object *v = NULL;

	if (!json_object_object_get_ex(o, key, &v)) {
		fprintf(stderr, "missing \"%s\" in %s\n", key, json_object_to_json_string(o));
		abort();
	}
	return v;
}

static bool has(struct json_object *o, const char *key)
{
	return json_object_object_get_ex(o, key, NULL);
}

static int64_t num(struct json_object *o, const char *key)
{
	return json_object_get_int64(get(o, key));
}

static const char *text(struct json_object *o, const char *key)
{
	return json_object_get_string(get(o, key));
}

static struct json_object *alert_of(struct json_object *result, int64_t seq)
{
	struct json_object *alerts = get(result, "alerts");

	for (size_t i = 0; i < json_object_array_length(alerts); i++) {
		struct json_object *a = json_object_array_get_idx(alerts, i);

		if (num(a, "seq") == seq)
			return a;
	}
	fprintf(stderr, "no alert %lld\n", (long long)seq);
	abort();
}

static uint64_t at(double ms)
{
	return ORIGIN + T(ms);
}

/* The chain's link of TID at DEPTH that begins at BEGIN ms; NULL: none. */
static struct json_object *link_at(struct json_object *a, int64_t depth, int32_t tid, double begin)
{
	struct json_object *chain = get(a, "chain");

	for (size_t i = 0; i < json_object_array_length(chain); i++) {
		struct json_object *l = json_object_array_get_idx(chain, i);

		if (num(l, "depth") == depth && num(l, "tid") == tid &&
		    (uint64_t)num(l, "begin_ns") == at(begin))
			return l;
	}
	return NULL;
}

static struct json_object *result;

static void read_both(void)
{
	struct an_options muxed = {.tables = true, .limit = 100},
			  threads = {.tables = true, .threads = 2, .limit = 100};
	struct an_result *a = NULL, *b = NULL;
	struct json_object *jb;
	char *why = NULL;

	ASSERT_EQ(an_analyze(root, &muxed, &a, &why), 0);
	ASSERT_EQ(an_analyze(root, &threads, &b, &why), 0);
	result = an_result_json(a);
	jb = an_result_json(b);
	/* The streams decoded apart say who each thread was as the muxed pass does. */
	ASSERT_STREQ(json_object_to_json_string(result), json_object_to_json_string(jb));
	json_object_put(jb);
	an_result_free(a);
	an_result_free(b);
}

/* W ran as bash, then as sleeper: each link names it as it was, with its pid. */
static void test_exec_chain(void)
{
	struct json_object *a = alert_of(result, 1), *l;

	l = link_at(a, 0, A, 1);
	ASSERT_TRUE(l);
	ASSERT_STREQ(text(l, "state"), "blocked-interruptible");
	ASSERT_STREQ(text(get(l, "woken_by"), "comm"), "sleeper");
	l = link_at(a, 1, W, 1);
	ASSERT_TRUE(l);
	ASSERT_STREQ(text(l, "state"), "running");
	ASSERT_STREQ(text(l, "comm"), "bash");
	ASSERT_EQ(num(l, "end_ns"), at(20)); /* cut at the exec */
	ASSERT_EQ(num(l, "pid"), W);	     /* the exec said it: its pid before too */
	l = link_at(a, 1, W, 20);
	ASSERT_TRUE(l);
	ASSERT_STREQ(text(l, "state"), "running");
	ASSERT_STREQ(text(l, "comm"), "sleeper");
	ASSERT_EQ(num(l, "end_ns"), at(30));
	l = link_at(a, 1, W, 30);
	ASSERT_TRUE(l);
	ASSERT_STREQ(text(l, "comm"), "sleeper");
	ASSERT_STREQ(text(get(l, "woken_by"), "kind"), "irq");
	ASSERT_CONTAINS(text(a, "story"), "bash (tid 101) meanwhile:");
	ASSERT_CONTAINS(text(a, "story"), "as sleeper (tid 101):");
}

/* The row of TABLE whose process is TID named NAME; NULL: none. */
static struct json_object *row_of(const char *table, int32_t tid, const char *name)
{
	struct json_object *rows = get(get(get(result, "tables"), table), "rows");

	for (size_t i = 0; i < json_object_array_length(rows); i++) {
		struct json_object *row = json_object_array_get_idx(rows, i);
		struct json_object *p = json_object_array_get_idx(row, 0);

		if (num(p, "tid") == tid && strcmp(text(p, "name"), name) == 0)
			return row;
	}
	return NULL;
}

/*
 * A row per thread identity: the time each ran as, with the pid it had. Tid 300 was
 * olddaemon's (pid 300) from 2 to 10 ms, then a thread of process 250, worker, from 21 to
 * 40 ms; tid 101 ran as bash up to its exec at 20 ms, then as sleeper (10 + 7 ms).
 */
static void test_usage_rows(void)
{
	struct json_object *row;

	row = row_of("cpu-usage-per-process", D, "olddaemon");
	ASSERT_TRUE(row);
	ASSERT_EQ(num(json_object_array_get_idx(row, 0), "pid"), D);
	ASSERT_EQ(json_object_get_int64(json_object_array_get_idx(row, 2)), 8 * MS);
	row = row_of("cpu-usage-per-process", D, "worker");
	ASSERT_TRUE(row);
	ASSERT_EQ(num(json_object_array_get_idx(row, 0), "pid"), 250);
	ASSERT_EQ(json_object_get_int64(json_object_array_get_idx(row, 2)), 19 * MS);
	row = row_of("cpu-usage-per-process", W, "bash");
	ASSERT_TRUE(row);
	ASSERT_EQ(json_object_get_int64(json_object_array_get_idx(row, 2)), 20 * MS);
	row = row_of("cpu-usage-per-process", W, "sleeper");
	ASSERT_TRUE(row);
	ASSERT_EQ(json_object_get_int64(json_object_array_get_idx(row, 2)),
		  10 * MS + 7 * MS - 3 * US);
}

/*
 * A rename no event dates (prctl, pthread_setname_np) names the thread's whole run: threads
 * name themselves as they start, and a worker's time is not its creator's.
 */
static void test_renamed_unseen(void)
{
	struct json_object *row = row_of("cpu-usage-per-process", R, "pool-worker");

	ASSERT_TRUE(row);
	ASSERT_EQ(num(json_object_array_get_idx(row, 0), "pid"), 260);
	ASSERT_EQ(json_object_get_int64(json_object_array_get_idx(row, 2)), 9 * MS);
	ASSERT_TRUE(!row_of("cpu-usage-per-process", R, "spawner"));
}

/*
 * The exec's new name, seen in a switch before its exec event, does not rename the run
 * before it: sh ran 201-210 ms, cc1 from its blocking read on (212-220 ms).
 */
static void test_exec_seen_early(void)
{
	struct json_object *row = row_of("cpu-usage-per-process", X, "sh");

	ASSERT_TRUE(row);
	ASSERT_EQ(json_object_get_int64(json_object_array_get_idx(row, 2)), 9 * MS);
	row = row_of("cpu-usage-per-process", X, "cc1");
	ASSERT_TRUE(row);
	ASSERT_EQ(json_object_get_int64(json_object_array_get_idx(row, 2)), 8 * MS);
}

/* The running time of TID's rows named NAME in the CPU usage per process. */
static int64_t usage_of(int32_t tid, const char *name)
{
	struct json_object *rows = get(get(get(result, "tables"), "cpu-usage-per-process"), "rows");
	int64_t ns = 0;

	for (size_t i = 0; i < json_object_array_length(rows); i++) {
		struct json_object *row = json_object_array_get_idx(rows, i);
		struct json_object *p = json_object_array_get_idx(row, 0);

		if (num(p, "tid") == tid && strcmp(text(p, "name"), name) == 0)
			ns += json_object_get_int64(json_object_array_get_idx(row, 2));
	}
	return ns;
}

/*
 * A rename long before an exec of the same name (Y slept under it in between, which a
 * thread inside its exec does not) is not the exec's name seen early: it names Y's run
 * from its fork (301-305 and 310-315 ms), the exec's identity dates from the exec (315-320).
 */
static void test_rename_before_exec(void)
{
	ASSERT_TRUE(!row_of("cpu-usage-per-process", Y, "sh"));
	ASSERT_EQ(usage_of(Y, "cc1"), 14 * MS);
	ASSERT_EQ(usage_of(X, "cc1"), 8 * MS); /* the early-seen exec name still undone */
	ASSERT_EQ(usage_of(X, "sh"), 9 * MS);
}

/*
 * A dying thread's last switch, in a packet after its exit's, once its tid was forked
 * again on another CPU: it names the thread that died, not the new one. (Which of the two
 * ran between the fork and that switch the tid cannot tell: the new one, from its fork.)
 */
static void test_dead_switch_after_reuse(void)
{
	struct json_object *row = row_of("cpu-usage-per-process", Z, "newz");

	ASSERT_TRUE(row);
	ASSERT_EQ(num(json_object_array_get_idx(row, 0), "pid"), 1300);
	row = row_of("cpu-usage-per-process", Z, "oldz");
	ASSERT_TRUE(row);
	ASSERT_EQ(num(json_object_array_get_idx(row, 0), "pid"), Z);
	ASSERT_EQ(usage_of(Z, "oldz") + usage_of(Z, "newz"), 18 * MS);
}

/* The last interval of alert SEQ's timeline. */
static struct json_object *last_interval(int64_t seq)
{
	struct json_object *tl = get(alert_of(result, seq), "timeline");

	ASSERT_TRUE(json_object_array_length(tl) > 0);
	return json_object_array_get_idx(tl, json_object_array_length(tl) - 1);
}

/*
 * Woken with CPU 0 (where M last ran, idle), placed on CPU 1 by its wakeup: still waiting
 * when the alert's interval ends, behind the hog on CPU 1.
 */
static void test_wakeup_placement(void)
{
	struct json_object *iv = last_interval(2);

	ASSERT_STREQ(text(iv, "state"), "runnable");
	ASSERT_EQ(num(iv, "begin_ns"), at(60.001));
	ASSERT_EQ(num(iv, "cpu"), 1);
	ASSERT_TRUE(!has(iv, "cpu_idle"));
	ASSERT_EQ(num(get(iv, "cpu_held_by"), "tid"), HOG);
	ASSERT_STREQ(text(get(iv, "cpu_held_by"), "comm"), "hog");
}

/*
 * Preempted on CPU 1 at 100 ms (by a kworker for 0.5 ms, then P, still running when M
 * leaves, later to exec newprog), pulled to CPU 0 at 110 ms, run there at 125 ms.
 */
static void test_moved_while_waiting(void)
{
	struct json_object *tl = get(alert_of(result, 3), "timeline"), *iv;

	ASSERT_EQ(json_object_array_length(tl), 2);
	iv = json_object_array_get_idx(tl, 0);
	ASSERT_STREQ(text(iv, "state"), "runnable");
	ASSERT_EQ(num(iv, "duration_ns"), 10 * MS);
	ASSERT_EQ(num(iv, "cpu"), 1);
	ASSERT_EQ(num(get(iv, "cpu_held_by"), "tid"), P);
	/* as it was then: it exec'd newprog later */
	ASSERT_STREQ(text(get(iv, "cpu_held_by"), "comm"), "preemptor");
	ASSERT_EQ(num(get(iv, "cpu_held_by"), "pid"), P);
	iv = json_object_array_get_idx(tl, 1);
	ASSERT_STREQ(text(iv, "state"), "runnable");
	ASSERT_EQ(num(iv, "duration_ns"), 15 * MS);
	ASSERT_EQ(num(iv, "cpu"), 0);
	ASSERT_EQ(num(get(iv, "cpu_held_by"), "tid"), H2);
}

int main(void)
{
	char cmd[600];

	ASSERT_TRUE(mkdtemp(root));
	trace();
	read_both();
	RUN(test_exec_chain);
	RUN(test_usage_rows);
	RUN(test_renamed_unseen);
	RUN(test_exec_seen_early);
	RUN(test_rename_before_exec);
	RUN(test_dead_switch_after_reuse);
	RUN(test_wakeup_placement);
	RUN(test_moved_while_waiting);
	json_object_put(result);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	ASSERT_EQ(system(cmd), 0);
	return 0;
}
