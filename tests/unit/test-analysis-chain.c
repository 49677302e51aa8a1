/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The snapshot analysis on a log built event by event (what the reader produces from a
 * trace): a reader blocked in read, woken by a writer that slept in nanosleep until a timer
 * woke it, then waiting for its CPU held by another task; and a task preempted. Checks the timeline, the critical path, the tables,
 * and that the LAMI output has every property the LAMI 1.0 specification requires.
 */
#include <json-c/json.h>

#include "an.h"
#include "analysis.h"
#include "chain.h"
#include "results.h"
#include "tables.h"
#include "tests.h"

#define MS 1000000ULL
#define T0 (1700000000ULL * 1000000000ULL)

enum { A = 10, B = 20, HOG = 30 };

static struct an_result *r;
static int32_t sys_read, sys_nanosleep;

/*
 * Makes r an empty log of NCPU CPUs, for a case to add its events to; returns the log it
 * replaces, which the case puts back with log_restore().
 */
static struct an_result *log_replace(unsigned ncpu)
{
	struct an_result *saved = r;

	r = an_result_new("/test");
	ASSERT_TRUE(r);
	r->log.ncpu = ncpu;
	return saved;
}

static void log_restore(struct an_result *saved)
{
	an_result_free(r);
	r = saved;
}

static void ev(uint64_t ms, uint16_t cpu, uint16_t type, int32_t a, int32_t b, int64_t d)
{
	struct an_ev *e = an_vec_push(&r->log.ev);

	ASSERT_TRUE(e);
	*e = (struct an_ev){
		.ts = T0 + ms * MS, .cpu = cpu, .type = type, .a = a, .b = b, .d = (uint64_t)d};
	if (!r->log.first_ts)
		r->log.first_ts = e->ts;
	r->log.last_ts = e->ts;
	r->log.counts[type]++;
	r->log.events++;
}

static void comm(int32_t tid, const char *name)
{
	struct an_task *t = an_task_get(&r->log, tid);

	ASSERT_TRUE(t);
	snprintf(t->comm, sizeof(t->comm), "%s", name);
	t->pid = tid;
}

static int32_t sysname(const char *name)
{
	char **s = an_vec_push(&r->log.sysnames);

	ASSERT_TRUE(s && (*s = strdup(name)));
	return (int32_t)r->log.sysnames.n - 1;
}

/* An offcpu alert of task A over [START, END] ms, raised at AT ms. */
static void alert(uint64_t at, uint64_t start, uint64_t end, const char *name, uint64_t seq)
{
	struct an_alert *al;

	ev(at, 0, EV_ALERT, 0, 0, 0);
	al = an_vec_push(&r->log.alerts);
	ASSERT_TRUE(al);
	*al = (struct an_alert){.ts = T0 + at * MS,
				.start = T0 + start * MS,
				.end = T0 + end * MS,
				.delay = (end - start) * MS,
				.tid = A,
				.pid = A,
				.reason = 1,
				.seq = seq};
	snprintf(al->tracker, sizeof(al->tracker), "offcpu");
	snprintf(al->comm, sizeof(al->comm), "%s", name);
}

/*
 * The log, analysed with what latencyd knew of it (NULL: nothing), in r; returns the log it
 * replaces (log_restore()).
 */
static struct an_result *build(const struct an_known *known)
{
	struct an_options opt = {.tables = true, .known = known};
	struct an_result *saved = log_replace(2);
	char *why = NULL;

	comm(A, "reader");
	comm(B, "writer");
	comm(HOG, "hog");
	sys_read = sysname("read");
	sys_nanosleep = sysname("nanosleep");
	ev(0, 0, EV_SWITCH, 0, A, 0); /* A runs on CPU 0 */
	ev(0, 1, EV_SWITCH, 0, B, 0); /* B runs on CPU 1 */
	ev(1, 0, EV_SYS_ENTRY, sys_read, 0, 0);
	ev(2, 0, EV_SWITCH, A, 0, 1); /* A blocks (S) in read */
	ev(5, 1, EV_SYS_ENTRY, sys_nanosleep, 0, 0);
	ev(6, 1, EV_SWITCH, B, 0, 1);	 /* B sleeps */
	ev(10, 0, EV_SWITCH, 0, HOG, 0); /* the hog takes CPU 0 */
	ev(46, 1, EV_HRTIMER_ENTRY, 0, 0, 0);
	ev(46, 1, EV_WAKING, B, 1, 0); /* a timer wakes B */
	ev(46, 1, EV_HRTIMER_EXIT, 0, 0, 0);
	ev(47, 1, EV_SWITCH, 0, B, 0);
	ev(47, 1, EV_SYS_EXIT, sys_nanosleep, 0, 0);
	ev(48, 1, EV_WAKING, A, 0, 0); /* B's write wakes A, for CPU 0 */
	ev(49, 1, EV_IRQ_ENTRY, 11, 0, 0);
	ev(49, 1, EV_IRQ_EXIT, 11, 0, 0);
	ev(58, 0, EV_SWITCH, HOG, A, 0); /* the hog lets A run at last */
	ev(58, 0, EV_SYS_EXIT, sys_read, 0, 1);
	alert(60, 2, 58, "reader", 7);
	ASSERT_EQ(an_compute(r, &opt, &why), 0);
	return saved;
}

static void test_timeline(void)
{
	const struct an_cause *c = AN_AT(&r->causes, struct an_cause, 0);
	const struct an_interval *iv;

	ASSERT_EQ(r->causes.n, 1);
	ASSERT_EQ(c->timeline.n, 2);
	iv = AN_AT(&c->timeline, struct an_interval, 0);
	ASSERT_EQ(iv->state, ST_BLOCKED_S);
	ASSERT_EQ(iv->t1 - iv->t0, 46 * MS);
	ASSERT_EQ(iv->syscall, sys_read);
	ASSERT_EQ(iv->wake, WK_TASK);
	ASSERT_EQ(iv->who, B);
	iv = AN_AT(&c->timeline, struct an_interval, 1);
	ASSERT_EQ(iv->state, ST_RUNNABLE);
	ASSERT_EQ(iv->t1 - iv->t0, 10 * MS);
	ASSERT_EQ(iv->by, HOG);
	ASSERT_EQ(iv->cpu, 0);
}

static void test_chain(void)
{
	const struct an_cause *c = AN_AT(&r->causes, struct an_cause, 0);
	const struct an_link *l;
	char summary[512];
	double explained;

	/* A blocked; B over it: running, blocked until 46 (timer), runnable, running; A runnable */
	ASSERT_EQ(c->links.n, 6);
	l = AN_AT(&c->links, struct an_link, 1);
	ASSERT_EQ(l->iv.state, ST_RUNNING);
	ASSERT_EQ(l->iv.t1 - l->iv.t0, 4 * MS); /* from the alert's start, 2 ms */
	l = AN_AT(&c->links, struct an_link, 2);
	ASSERT_EQ(l->depth, 1);
	ASSERT_EQ(l->tid, B);
	ASSERT_EQ(l->iv.state, ST_BLOCKED_S);
	ASSERT_EQ(l->iv.wake, WK_TIMER);
	ASSERT_EQ(l->iv.syscall, sys_nanosleep);
	ASSERT_EQ(l->iv.t1 - l->iv.t0, 40 * MS);
	l = AN_AT(&c->links, struct an_link, 4);
	ASSERT_EQ(l->tid, B);
	ASSERT_EQ(l->iv.state, ST_RUNNING);
	ASSERT_EQ(l->iv.cpu, 1);
	explained = an_cause_summary(&r->log, c, summary, sizeof(summary));
	ASSERT_TRUE(explained > 0.99);
	ASSERT_CONTAINS(summary, "reader (tid 10) blocked-interruptible in read");
	ASSERT_CONTAINS(summary, "<- writer (tid 20) blocked-interruptible in nanosleep");
	ASSERT_CONTAINS(summary, "woken by a timer expiring");
	ASSERT_CONTAINS(c->story, "runnable, CPU 0 held by hog (tid 30)");
}

static const struct an_table *find_table(const char *name)
{
	for (size_t i = 0; i < r->tables.n; i++) {
		const struct an_table *t = AN_AT(&r->tables, struct an_table, i);

		if (strcmp(t->cls->name, name) == 0)
			return t;
	}
	return NULL;
}

static void test_tables(void)
{
	const struct an_table *t = find_table("syscall-latency");
	const struct an_cell *c;

	ASSERT_TRUE(t);
	ASSERT_EQ(an_rows(t), 2);
	c = t->cells.v;
	ASSERT_STREQ(c[0].s, "read"); /* the longest first */
	ASSERT_EQ(c[1].v, 1);
	ASSERT_EQ(c[4].v, (long long)(57 * MS));
	ASSERT_EQ(c[5].kind, C_UNKNOWN); /* no deviation of one */
	t = find_table("irq-stats");
	ASSERT_TRUE(t);
	ASSERT_EQ(an_rows(t), 1);
	t = find_table("cpu-usage-per-process");
	ASSERT_TRUE(t);
	c = t->cells.v;
	ASSERT_EQ(c[0].v, HOG); /* 48 ms of 60 */
	ASSERT_EQ(c[2].v, (long long)(48 * MS));
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

static bool one_of(const char *s, const char *const *set)
{
	for (; *set; set++)
		if (strcmp(s, *set) == 0)
			return true;
	return false;
}

/* A cell as LAMI 1.0 requires for its column's class. */
static void check_cell(struct json_object *cell, const char *cls)
{
	static const char *const plain[] = {"string", "bool", NULL};
	static const char *const value[] = {"number", "ratio",	 "timestamp", "duration",
					    "size",   "bitrate", NULL};
	static const char *const name[] = {"syscall", "disk", "part", "netif", NULL};
	const char *c;

	if (!cell)
		return; /* empty */
	if (one_of(cls, plain)) {
		ASSERT_TRUE(!json_object_is_type(cell, json_type_object));
		return;
	}
	ASSERT_TRUE(json_object_is_type(cell, json_type_object));
	c = json_object_get_string(get(cell, "class"));
	if (strcmp(c, "unknown") == 0)
		return;
	ASSERT_STREQ(c, cls);
	if (one_of(c, value))
		ASSERT_TRUE(json_object_is_type(get(cell, "value"), json_type_int) ||
			    json_object_is_type(get(cell, "value"), json_type_double));
	else if (one_of(c, name))
		ASSERT_TRUE(json_object_is_type(get(cell, "name"), json_type_string));
	else if (strcmp(c, "irq") == 0)
		ASSERT_TRUE(json_object_is_type(get(cell, "nr"), json_type_int));
	else if (strcmp(c, "cpu") == 0)
		ASSERT_TRUE(json_object_is_type(get(cell, "id"), json_type_int));
	else if (strcmp(c, "time-range") == 0)
		ASSERT_TRUE(json_object_is_type(get(get(cell, "begin"), "value"), json_type_int) &&
			    json_object_is_type(get(get(cell, "end"), "value"), json_type_int));
	else
		ASSERT_STREQ(c, "process"); /* no required property */
}

static void test_lami(void)
{
	static const char *const classes[] = {
		"string", "number",  "bool",	"ratio",   "timestamp", "time-range", "duration",
		"size",	  "bitrate", "syscall", "process", "path",	"fd",	      "irq",
		"cpu",	  "disk",    "part",	"netif",   "mixed",	NULL};
	struct json_object *meta = an_lami_metadata(), *res = an_lami_results(r), *tc, *results;
	size_t critical = 0;

	ASSERT_EQ(json_object_get_int(get(get(meta, "mi-version"), "major")), 1);
	ASSERT_EQ(json_object_get_int(get(get(meta, "mi-version"), "minor")), 0);
	tc = get(meta, "table-classes");
	ASSERT_TRUE(json_object_object_length(tc) > 0);
	json_object_object_foreach(tc, name, klass)
	{
		struct json_object *cols = get(klass, "column-descriptions");

		(void)name;
		for (size_t i = 0; i < json_object_array_length(cols); i++) {
			struct json_object *col = json_object_array_get_idx(cols, i), *unit;

			ASSERT_TRUE(one_of(json_object_get_string(get(col, "class")), classes));
			/* LAMI 1.0: a unit is a number column's only */
			if (json_object_object_get_ex(col, "unit", &unit))
				ASSERT_STREQ(json_object_get_string(get(col, "class")), "number");
		}
	}
	results = get(res, "results");
	ASSERT_TRUE(json_object_array_length(results) >= 4);
	for (size_t i = 0; i < json_object_array_length(results); i++) {
		struct json_object *t = json_object_array_get_idx(results, i), *cls, *cols, *data;
		struct json_object *range = get(t, "time-range");

		ASSERT_STREQ(json_object_get_string(get(range, "class")), "time-range");
		/* LAMI 1.0: its ends are timestamp objects */
		ASSERT_STREQ(json_object_get_string(get(get(range, "begin"), "class")),
			     "timestamp");
		ASSERT_STREQ(json_object_get_string(get(get(range, "end"), "class")), "timestamp");
		ASSERT_TRUE(json_object_get_int64(get(get(range, "end"), "value")) >=
			    json_object_get_int64(get(get(range, "begin"), "value")));
		cls = get(t, "class");
		if (json_object_is_type(cls, json_type_object)) {
			ASSERT_STREQ(json_object_get_string(get(cls, "inherit")), "critical-path");
			cls = get(tc, "critical-path");
			critical++;
		} else {
			cls = get(tc, json_object_get_string(cls));
		}
		cols = get(cls, "column-descriptions");
		data = get(t, "data");
		ASSERT_TRUE(json_object_array_length(data) >= 1);
		for (size_t j = 0; j < json_object_array_length(data); j++) {
			struct json_object *row = json_object_array_get_idx(data, j);

			ASSERT_EQ(json_object_array_length(row), json_object_array_length(cols));
			for (size_t k = 0; k < json_object_array_length(row); k++)
				check_cell(json_object_array_get_idx(row, k),
					   json_object_get_string(get(
						   json_object_array_get_idx(cols, k), "class")));
		}
	}
	ASSERT_EQ(critical, 1);
	json_object_put(meta);
	json_object_put(res);
}

static void test_json(void)
{
	struct json_object *o = an_result_json(r), *alert, *link;

	ASSERT_TRUE(!json_object_get_boolean(get(o, "partial")));
	alert = json_object_array_get_idx(get(o, "alerts"), 0);
	link = json_object_array_get_idx(get(alert, "chain"), 0);
	ASSERT_STREQ(json_object_get_string(get(get(link, "woken_by"), "kind")), "task");
	ASSERT_EQ(json_object_get_int(get(get(link, "woken_by"), "tid")), B);
	ASSERT_STREQ(json_object_get_string(get(link, "syscall")), "read");
	json_object_put(o);
}

/* A running task preempted (switched out runnable) waits behind its preemptor. */
static void test_preempted(void)
{
	struct an_result *saved;
	struct an_vec hist = AN_VEC(struct an_interval);
	const struct an_interval *iv;

	saved = log_replace(1);
	comm(A, "victim");
	comm(HOG, "hog");
	ev(0, 0, EV_SWITCH, 0, A, 0);
	ev(2, 0, EV_WAKING, HOG, 0, 0);
	ev(2, 0, EV_SWITCH, A, HOG, 0); /* prev_state 0: preempted */
	ev(9, 0, EV_SWITCH, HOG, A, 1);
	ASSERT_EQ(an_timeline(&r->log, A, T0, T0 + 10 * MS, &hist), 0);
	ASSERT_EQ(hist.n, 3);
	iv = AN_AT(&hist, struct an_interval, 1);
	ASSERT_EQ(iv->state, ST_RUNNABLE);
	ASSERT_EQ(iv->by, HOG);
	ASSERT_EQ(iv->t1 - iv->t0, 7 * MS);
	iv = AN_AT(&hist, struct an_interval, 2);
	ASSERT_EQ(iv->state, ST_RUNNING);
	ASSERT_EQ(iv->t1 - iv->t0, 1 * MS);
	an_vec_free(&hist);
	log_restore(saved);
}

/*
 * Two levels deep: A waits for B, which waits for C, which sleeps until a timer. An
 * interrupt that completed I/O on CPU 1 earlier leaves nothing on the wakeups tasks make
 * there later (B's by C carries no block device), and B's "meanwhile" header is said once,
 * not again when its lines resume after C's.
 */
static void test_nested_story(void)
{
	enum { C = 40, DEV = (8 << 20) | 16 };
	struct an_result *saved;
	const struct an_cause *c;
	const struct an_link *l;
	struct an_options opt = {0};
	char *why = NULL;
	const char *p;
	size_t b_blocked = 0;

	saved = log_replace(2);
	comm(A, "client");
	comm(B, "middle");
	comm(C, "backend");
	sys_read = sysname("read");
	sys_nanosleep = sysname("nanosleep");
	ev(0, 0, EV_SWITCH, 0, A, 0);
	ev(0, 1, EV_SWITCH, 0, B, 0);
	ev(1, 0, EV_SYS_ENTRY, sys_read, 0, 0);
	ev(2, 0, EV_SWITCH, A, 0, 1); /* A blocks in read */
	ev(3, 1, EV_SYS_ENTRY, sys_read, 0, 0);
	ev(4, 1, EV_SWITCH, B, C, 1); /* B blocks in read, C runs */
	ev(5, 1, EV_SYS_ENTRY, sys_nanosleep, 0, 0);
	ev(6, 1, EV_SWITCH, C, 0, 1); /* C sleeps */
	ev(30, 1, EV_IRQ_ENTRY, 11, 0, 0);
	ev(30, 1, EV_BLOCK_COMPLETE, DEV, -1, 0); /* someone else's I/O, completed */
	ev(30, 1, EV_IRQ_EXIT, 11, 0, 0);
	ev(40, 1, EV_HRTIMER_ENTRY, 0, 0, 0);
	ev(40, 1, EV_WAKING, C, 1, 0);
	ev(40, 1, EV_HRTIMER_EXIT, 0, 0, 0);
	ev(41, 1, EV_SWITCH, 0, C, 0);
	ev(41, 1, EV_SYS_EXIT, sys_nanosleep, 0, 0);
	ev(42, 1, EV_WAKING, B, 1, 0); /* C, a task, wakes B */
	ev(43, 1, EV_SWITCH, C, B, 1);
	ev(43, 1, EV_SYS_EXIT, sys_read, 0, 1);
	ev(45, 1, EV_WAKING, A, 0, 0); /* B wakes A */
	ev(46, 0, EV_SWITCH, 0, A, 0);
	ev(46, 0, EV_SYS_EXIT, sys_read, 0, 1);
	alert(47, 2, 46, "client", 8);
	ASSERT_EQ(an_compute(r, &opt, &why), 0);
	ASSERT_EQ(r->causes.n, 1);
	c = AN_AT(&r->causes, struct an_cause, 0);
	for (size_t i = 0; i < c->links.n; i++) {
		l = AN_AT(&c->links, struct an_link, i);
		if (l->tid == B && l->iv.state == ST_BLOCKED_S) {
			ASSERT_EQ(l->iv.wake, WK_TASK);
			ASSERT_EQ(l->iv.who, C);
			ASSERT_EQ(l->iv.dev, 0);
			b_blocked++;
		}
	}
	ASSERT_EQ(b_blocked, 1);
	ASSERT_TRUE(c->story);
	ASSERT_CONTAINS(c->story, "backend (tid 40) meanwhile:");
	p = strstr(c->story, "middle (tid 20) meanwhile:");
	ASSERT_TRUE(p);
	/* B's lines resume after C's: no second header. */
	ASSERT_TRUE(!strstr(p + 1, "middle (tid 20) meanwhile:"));
	ASSERT_TRUE(!strstr(c->story, "completing I/O"));
	log_restore(saved);
}

/*
 * Woken for a CPU a hog keeps 60 ms, then a kworker slips in for 1 ms before the task runs:
 * the wait is the hog's, the longest holder, not the last one.
 */
static void test_longest_holder(void)
{
	enum { KWORKER = 40 };
	struct an_result *saved;
	struct an_vec hist = AN_VEC(struct an_interval);
	const struct an_interval *iv;

	saved = log_replace(2);
	ev(0, 0, EV_SWITCH, 0, HOG, 0);
	ev(0, 1, EV_SWITCH, A, 0, 1); /* A blocks on CPU 1 */
	ev(1, 1, EV_WAKING, A, 0, 0); /* woken for CPU 0 */
	ev(61, 0, EV_SWITCH, HOG, KWORKER, 1);
	ev(62, 0, EV_SWITCH, KWORKER, A, 1);
	ev(63, 0, EV_SWITCH, A, 0, 1);
	ev(64, 1, EV_WAKING, A, 0, 0); /* and again, still waiting when the window ends */
	ev(64, 0, EV_SWITCH, 0, HOG, 0);
	ev(69, 0, EV_SWITCH, HOG, KWORKER, 0);
	ASSERT_EQ(an_timeline(&r->log, A, T0, T0 + 70 * MS, &hist), 0);
	iv = AN_AT(&hist, struct an_interval, 1);
	ASSERT_EQ(iv->state, ST_RUNNABLE);
	ASSERT_EQ(iv->t1 - iv->t0, 61 * MS);
	ASSERT_EQ(iv->by, HOG);
	iv = AN_AT(&hist, struct an_interval, hist.n - 1);
	ASSERT_EQ(iv->state, ST_RUNNABLE);
	ASSERT_EQ(iv->by, HOG); /* 5 ms against the kworker's 1 */
	an_vec_free(&hist);
	log_restore(saved);
}

/*
 * sched_waking's target_cpu is the CPU the task last ran on (CPU 0, a hog's), not the one
 * the wakeup then chose: the task runs on CPU 1, out of idle. Its wait is CPU 1's.
 */
/* The interval A's one wakeup ended (its waker in it), in the log made since
 * log_replace(); the log SAVED put back. */
static struct an_interval woken(struct an_result *saved)
{
	struct an_vec hist = AN_VEC(struct an_interval);
	struct an_interval iv = {0};
	bool found = false;

	ASSERT_EQ(an_timeline(&r->log, A, T0, T0 + 10 * MS, &hist), 0);
	for (size_t i = 0; i < hist.n && !found; i++) {
		iv = *AN_AT(&hist, struct an_interval, i);
		found = iv.wake != WK_NONE;
	}
	an_vec_free(&hist);
	log_restore(saved);
	ASSERT_TRUE(found);
	return iv;
}

/*
 * The innermost context wakes: a hard irq that comes in during a timer's expiry (a softirq,
 * interrupts on) woke A, not the timer; a disk's completion in BLOCK_SOFTIRQ is what woke A
 * even when a tick's irq came in between.
 */
static void test_wake_innermost(void)
{
	struct an_result *saved;
	struct an_interval iv;

	saved = log_replace(2);
	ev(0, 0, EV_SWITCH, 0, A, 0);
	ev(0, 1, EV_SWITCH, 0, B, 0);
	ev(1, 0, EV_SWITCH, A, 0, 1); /* A blocks */
	ev(2, 1, EV_SOFTIRQ_ENTRY, 1, 0, 0);
	ev(2, 1, EV_TIMER_ENTRY, 0, 0, 0);
	ev(3, 1, EV_IRQ_ENTRY, 30, 0, 0);
	ev(3, 1, EV_WAKING, A, 0, 0);
	ev(3, 1, EV_IRQ_EXIT, 30, 0, 0);
	ev(4, 1, EV_TIMER_EXIT, 0, 0, 0);
	ev(4, 1, EV_SOFTIRQ_EXIT, 1, 0, 0);
	ev(5, 0, EV_SWITCH, 0, A, 0);
	iv = woken(saved);
	ASSERT_EQ(iv.wake, WK_IRQ);
	ASSERT_EQ(iv.who, 30);

	/* A timer expiring inside that irq is the timer's wakeup, through the irq. */
	saved = log_replace(2);
	ev(0, 0, EV_SWITCH, 0, A, 0);
	ev(1, 0, EV_SWITCH, A, 0, 1);
	ev(3, 1, EV_IRQ_ENTRY, 30, 0, 0);
	ev(3, 1, EV_HRTIMER_ENTRY, 0, 0, 0);
	ev(3, 1, EV_WAKING, A, 0, 0);
	ev(3, 1, EV_HRTIMER_EXIT, 0, 0, 0);
	ev(3, 1, EV_IRQ_EXIT, 30, 0, 0);
	ev(5, 0, EV_SWITCH, 0, A, 0);
	iv = woken(saved);
	ASSERT_EQ(iv.wake, WK_TIMER);
	ASSERT_EQ(iv.via, 30);

	saved = log_replace(2);
	ev(0, 0, EV_SWITCH, 0, A, 0);
	ev(1, 0, EV_SWITCH, A, 0, 2); /* A waits for its disk (D) */
	ev(2, 1, EV_SOFTIRQ_ENTRY, 4, 0, 0);
	ev(2, 1, EV_BLOCK_COMPLETE, 8, 4, 0);
	ev(3, 1, EV_IRQ_ENTRY, 0, 0, 0);
	ev(3, 1, EV_IRQ_EXIT, 0, 0, 0);
	ev(3, 1, EV_WAKING, A, 0, 0);
	ev(4, 1, EV_SOFTIRQ_EXIT, 4, 0, 0);
	ev(5, 0, EV_SWITCH, 0, A, 0);
	iv = woken(saved);
	ASSERT_EQ(iv.wake, WK_SOFTIRQ);
	ASSERT_EQ(iv.dev, 8);
}

static void test_woken_elsewhere(void)
{
	enum { KWORKER = 40 };
	struct an_result *saved;
	struct an_vec hist = AN_VEC(struct an_interval);
	const struct an_interval *iv = NULL;

	saved = log_replace(2);
	ev(0, 0, EV_SWITCH, A, HOG, 1); /* A blocks on CPU 0, the hog runs there */
	ev(0, 1, EV_SWITCH, B, 0, 1);	/* CPU 1 goes idle */
	ev(1, 1, EV_WAKING, A, 0, 0);	/* target_cpu: where A last ran */
	ev(2, 0, EV_SWITCH, HOG, KWORKER, 0);
	ev(3, 1, EV_SWITCH, 0, A, 0); /* A runs on CPU 1 */
	ASSERT_EQ(an_timeline(&r->log, A, T0, T0 + 5 * MS, &hist), 0);
	for (size_t i = 0; i < hist.n; i++)
		if (AN_AT(&hist, struct an_interval, i)->state == ST_RUNNABLE)
			iv = AN_AT(&hist, struct an_interval, i);
	ASSERT_TRUE(iv);
	ASSERT_EQ(iv->cpu, 1);
	ASSERT_EQ(iv->by, 0); /* CPU 1 idle, not "held by" CPU 0's hog */
	an_vec_free(&hist);
	log_restore(saved);
}

/* Woken while a hog held its CPU, still waiting once the hog left it idle: over the part of
 * the wait shown (the window begins after the hog left), the CPU was idle. */
static void test_holder_in_window(void)
{
	struct an_result *saved;
	struct an_vec hist = AN_VEC(struct an_interval);
	const struct an_interval *iv;

	saved = log_replace(2);
	ev(0, 0, EV_SWITCH, A, HOG, 1);
	ev(1, 1, EV_WAKING, A, 0, 0);
	ev(20, 0, EV_SWITCH, HOG, 0, 1); /* the hog sleeps, CPU 0 idle */
	ev(30, 0, EV_SWITCH, 0, A, 0);
	ASSERT_EQ(an_timeline(&r->log, A, T0 + 20 * MS, T0 + 40 * MS, &hist), 0);
	iv = AN_AT(&hist, struct an_interval, 0);
	ASSERT_EQ(iv->state, ST_RUNNABLE);
	ASSERT_EQ(iv->t0, T0 + 20 * MS);
	ASSERT_EQ(iv->by, 0);
	an_vec_free(&hist);
	log_restore(saved);
}

/* Each CPU's first event, as the reader records it: where its history in the snapshot starts. */
static void cpu_first_from_events(void)
{
	for (size_t i = 0; i < r->log.ev.n; i++) {
		const struct an_ev *e = AN_AT(&r->log.ev, struct an_ev, i);

		while (r->log.cpu_first.n <= e->cpu)
			ASSERT_TRUE(an_vec_push(&r->log.cpu_first));
		if (!*AN_AT(&r->log.cpu_first, uint64_t, e->cpu))
			*AN_AT(&r->log.cpu_first, uint64_t, e->cpu) = e->ts;
	}
}

static const struct an_cell *process_row(const struct an_table *t, int32_t tid)
{
	for (size_t i = 0; i < an_rows(t); i++) {
		const struct an_cell *c = AN_AT(&t->cells, struct an_cell, i * t->cls->ncols);

		if (c[0].v == tid)
			return c;
	}
	return NULL;
}

/*
 * A flight recorder's busier CPU keeps a shorter history: CPU 1's starts 60 ms after CPU 0's.
 * The task its first switch takes off it ran there since that history began, as far as the
 * trace knows, not since the window's start.
 */
static void test_cpu_history_late(void)
{
	struct an_result *saved;
	struct an_options opt = {.tables = true};
	const struct an_table *t;
	const struct an_cell *c;
	char *why = NULL;
	uint64_t first1, out1 = T0 + 70 * MS;
	double share;

	saved = log_replace(2);
	comm(B, "worker");
	comm(HOG, "hog");
	ev(0, 0, EV_SWITCH, 0, B, 0);
	ev(60, 1, EV_IRQ_ENTRY, 11, 0, 0); /* CPU 1's history starts */
	ev(60, 1, EV_IRQ_EXIT, 11, 0, 0);
	ev(70, 1, EV_SWITCH, HOG, 0, 1);
	ev(100, 0, EV_SWITCH, B, 0, 1);
	cpu_first_from_events();
	first1 = *AN_AT(&r->log.cpu_first, uint64_t, 1);
	ASSERT_EQ(an_compute(r, &opt, &why), 0);
	t = find_table("cpu-usage-per-process");
	ASSERT_TRUE(t);
	c = process_row(t, HOG);
	ASSERT_TRUE(c);
	ASSERT_EQ(c[2].v, (long long)(out1 - first1));
	c = process_row(t, B);
	ASSERT_TRUE(c);
	ASSERT_EQ(c[2].v, (long long)(r->log.last_ts - r->log.first_ts));
	t = find_table("cpu-usage-per-cpu");
	ASSERT_TRUE(t);
	/* CPU 1's share of its own history, which the window's start does not dilute. */
	c = AN_AT(&t->cells, struct an_cell, 1 * t->cls->ncols);
	share = c[1].r - (double)(out1 - first1) / (double)(r->log.last_ts - first1);
	ASSERT_TRUE(share < 1e-9 && share > -1e-9);
	log_restore(saved);
}

/*
 * A new task placed on CPU 0 before CPU 0's history starts ran there unseen (the alert says
 * it left CPU 0): its wait is unknown until that history starts, not runnable, and not
 * explained. A task CPU 1's first switch takes off ran there since CPU 1's history began.
 */
static void test_cpu_history_edge(void)
{
	struct an_result *saved;
	struct an_options opt = {0};
	struct an_vec hist = AN_VEC(struct an_interval);
	const struct an_cause *c;
	const struct an_interval *iv;
	uint64_t first0, first1, waited = 0;
	char *why = NULL, summary[512];

	saved = log_replace(2);
	comm(A, "reader");
	comm(B, "worker");
	ev(0, 1, EV_SWITCH, 0, B, 0);
	ev(1, 1, EV_WAKEUP_NEW, A, 0, 0); /* A placed on CPU 0 */
	ev(30, 1, EV_SWITCH, B, 0, 1);
	ev(50, 0, EV_IRQ_ENTRY, 11, 0, 0); /* CPU 0's history starts */
	ev(50, 0, EV_IRQ_EXIT, 11, 0, 0);
	ev(55, 0, EV_SWITCH, B, 0, 1); /* B ran on CPU 0 since at least 50 */
	ev(60, 1, EV_SWITCH, 0, A, 0); /* A on CPU 1 */
	alert(61, 5, 60, "reader", 9);
	cpu_first_from_events();
	first0 = *AN_AT(&r->log.cpu_first, uint64_t, 0);
	first1 = *AN_AT(&r->log.cpu_first, uint64_t, 1);
	ASSERT_EQ(an_compute(r, &opt, &why), 0);
	ASSERT_EQ(r->causes.n, 1);
	c = AN_AT(&r->causes, struct an_cause, 0);
	for (size_t i = 0; i < c->timeline.n; i++) {
		iv = AN_AT(&c->timeline, struct an_interval, i);
		if (iv->state == ST_RUNNABLE) {
			ASSERT_TRUE(iv->t0 >= first0);
			waited += iv->t1 - iv->t0;
		}
	}
	ASSERT_EQ(waited, c->t1 - first0);
	ASSERT_TRUE(an_cause_summary(&r->log, c, summary, sizeof(summary)) <
		    (double)(c->t1 - first0) / (double)(c->t1 - c->t0) + 1e-9);
	/* B: running on CPU 1 from its history's start, then on CPU 0 from CPU 0's. */
	ASSERT_EQ(an_timeline(&r->log, B, first1, r->log.last_ts, &hist), 0);
	iv = AN_AT(&hist, struct an_interval, 0);
	ASSERT_EQ(iv->state, ST_RUNNING);
	ASSERT_EQ(iv->cpu, 1);
	ASSERT_EQ(iv->t0, first1);
	for (size_t i = 0; i < hist.n; i++) {
		iv = AN_AT(&hist, struct an_interval, i);
		if (iv->state == ST_RUNNING && iv->cpu == 0) {
			ASSERT_EQ(iv->t0, first0);
			waited = 0;
		}
	}
	ASSERT_EQ(waited, 0);
	an_vec_free(&hist);
	log_restore(saved);
}

/* Runnable on a CPU the idle task had: waiting for it to wake, not behind a task. */
static void test_runnable_idle(void)
{
	struct an_interval iv = {.state = ST_RUNNABLE, .cpu = 1, .by = 0};
	char buf[128];

	an_runnable_text(&r->log, &iv, buf, sizeof(buf));
	ASSERT_STREQ(buf, "CPU 1 idle, waking up");
	iv.by = HOG;
	an_runnable_text(&r->log, &iv, buf, sizeof(buf));
	ASSERT_STREQ(buf, "CPU 1 held by hog (tid 30)");
}

/* The same log over another window: the alert (2..58 ms) outside it, then inside again. */
static void test_recompute(void)
{
	struct an_options opt = {.tables = true, .begin_ns = T0 + 59 * MS, .end_ns = T0 + 60 * MS};
	size_t problems = r->log.problems.n, tables = r->tables.n;
	char *why = NULL;

	ASSERT_EQ(an_recompute(r, &opt, &why), 0);
	ASSERT_EQ(r->causes.n, 0);
	ASSERT_EQ(r->begin, T0 + 59 * MS);
	opt.begin_ns = opt.end_ns = 0;
	ASSERT_EQ(an_recompute(r, &opt, &why), 0);
	ASSERT_EQ(r->causes.n, 1);
	ASSERT_EQ(r->tables.n, tables);
	ASSERT_EQ(r->log.problems.n, problems); /* what the log lost is said once */
}

/*
 * What latencyd knew: the stack of this alert (the same tracker and seq, not another's) is
 * shown under the wait it explains, and a disk the trace never named gets its name.
 */
static void test_known(void)
{
	static const char *const frames[] = {"wait_woken+0x6c/0xa0", "n_tty_read+0x3c1/0x5e0"};
	static const char *const other[] = {"not_this_one+0x1/0x2"};
	static const struct an_known_stack stacks[] = {
		{.tracker = "offcpu", .seq = 8, .kind = "waker", .frames = other, .n_frames = 1},
		{.tracker = "wakeup", .seq = 7, .kind = "alert", .frames = other, .n_frames = 1},
		{.tracker = "offcpu", .seq = 7, .kind = "task", .frames = frames, .n_frames = 2},
	};
	static const struct an_known_disk disks[] = {{.dev = 254U << 20 | 16, .name = "vdb"}};
	static const struct an_known known = {
		.disks = disks, .n_disks = 1, .stacks = stacks, .n_stacks = 3};
	struct an_options bare = {.tables = true};
	struct an_result *saved = build(&known);
	const struct an_cause *c;
	char *why = NULL;

	c = AN_AT(&r->causes, struct an_cause, 0);
	ASSERT_STREQ(c->stack.kind, "task");
	ASSERT_EQ(c->stack.frames.n, 2);
	ASSERT_STREQ(*AN_AT(&c->stack.frames, char *, 1), "n_tty_read+0x3c1/0x5e0");
	ASSERT_EQ(c->stack.link, 0); /* the 46 ms in read */
	ASSERT_CONTAINS(c->story, "in read, woken by writer (tid 20)");
	ASSERT_CONTAINS(c->story, "      kernel stack, where it waited:\n"
				  "        wait_woken+0x6c/0xa0\n"
				  "        n_tty_read+0x3c1/0x5e0\n");
	ASSERT_TRUE(!strstr(c->story, "not_this_one"));
	ASSERT_STREQ(an_disk_name(&r->log, 254U << 20 | 16), "vdb");
	ASSERT_TRUE(!an_disk_name(&r->log, 254U << 20));
	ASSERT_EQ(an_recompute(r, &bare, &why), 0);
	c = AN_AT(&r->causes, struct an_cause, 0);
	ASSERT_EQ(c->stack.frames.n, 0);
	ASSERT_TRUE(!strstr(c->story, "kernel stack"));
	log_restore(saved);
}

/*
 * A timeout alert flagged DISCARDED (a key the module gave up on as stale): its reason is
 * "discarded" and its story says the delay is a lower bound; without the flag, "timeout".
 */
static void test_discarded(void)
{
	struct an_options opt = {.tables = true};
	struct an_alert *a = AN_AT(&r->log.alerts, struct an_alert, 0);
	struct json_object *o;
	char *why = NULL;

	a->reason = AN_REASON_TIMEOUT;
	a->flags = AN_ALERT_F_DISCARDED;
	ASSERT_EQ(an_recompute(r, &opt, &why), 0);
	ASSERT_CONTAINS(
		AN_AT(&r->causes, struct an_cause, 0)->story,
		"reader (tid 10) waited at least 56.000 ms (offcpu tracker, discarded as stale");
	o = an_result_json(r);
	ASSERT_STREQ(json_object_get_string(
			     get(json_object_array_get_idx(get(o, "alerts"), 0), "reason")),
		     "discarded");
	json_object_put(o);

	a->flags = 0;
	ASSERT_EQ(an_recompute(r, &opt, &why), 0);
	ASSERT_CONTAINS(AN_AT(&r->causes, struct an_cause, 0)->story,
			"reader (tid 10) waited 56.000 ms (offcpu tracker, timeout):");
	o = an_result_json(r);
	ASSERT_STREQ(json_object_get_string(
			     get(json_object_array_get_idx(get(o, "alerts"), 0), "reason")),
		     "timeout");
	json_object_put(o);
	a->reason = 1;
	ASSERT_EQ(an_recompute(r, &opt, &why), 0);
}

int main(void)
{
	build(NULL);
	RUN(test_runnable_idle);
	RUN(test_timeline);
	RUN(test_chain);
	RUN(test_tables);
	RUN(test_lami);
	RUN(test_json);
	RUN(test_preempted);
	RUN(test_nested_story);
	RUN(test_longest_holder);
	RUN(test_cpu_history_late);
	RUN(test_woken_elsewhere);
	RUN(test_wake_innermost);
	RUN(test_holder_in_window);
	RUN(test_cpu_history_edge);
	RUN(test_recompute);
	RUN(test_known);
	RUN(test_discarded);
	an_result_free(r);
	return 0;
}
