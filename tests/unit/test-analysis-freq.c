/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The frequency distributions (--freq) and the I/O usage (--io-usage) on a log built event
 * by event: system calls, interrupts and block requests of known durations and sizes.
 * Bucket counts and bounds are worked out by hand here from the lttng-analyses rule (equal
 * widths between the minimum and the maximum, the maximum in the last bucket), and the
 * same distributions are checked in the JSON and the LAMI output.
 */
#include <json-c/json.h>

#include "an.h"
#include "analysis.h"
#include "results.h"
#include "tables.h"
#include "tests.h"

#define US 1000ULL
#define T0 (1700000000ULL * 1000000000ULL)

enum { A = 10, B = 20, C = 21 };
#define DEV (8U << 20)

static struct an_result *r;
static int32_t sys_read, sys_write, sys_pread, sys_pwrite, sys_recvfrom, sys_sendto;

static void ev(uint64_t us, uint16_t cpu, uint16_t type, int32_t a, int32_t b, int32_t c, int64_t d)
{
	struct an_ev *e = an_vec_push(&r->log.ev);

	ASSERT_TRUE(e);
	*e = (struct an_ev){.ts = T0 + us * US,
			    .cpu = cpu,
			    .type = type,
			    .a = a,
			    .b = b,
			    .c = c,
			    .d = (uint64_t)d};
	if (!r->log.first_ts)
		r->log.first_ts = e->ts;
	r->log.last_ts = e->ts;
	r->log.counts[type]++;
	r->log.events++;
}

/* A system call on CPU by its running task: DUR us from AT, returning RET. */
static void call(uint64_t at, uint16_t cpu, int32_t sys, uint64_t dur, int64_t ret)
{
	ev(at, cpu, EV_SYS_ENTRY, sys, 0, 0, 0);
	ev(at + dur, cpu, EV_SYS_EXIT, sys, 0, 0, ret);
}

static void task(int32_t tid, int32_t pid, const char *name)
{
	struct an_task *t = an_task_get(&r->log, tid);

	ASSERT_TRUE(t);
	snprintf(t->comm, sizeof(t->comm), "%s", name);
	t->pid = pid;
}

static int32_t sysname(const char *name)
{
	char **s = an_vec_push(&r->log.sysnames);

	ASSERT_TRUE(s && (*s = strdup(name)));
	return (int32_t)r->log.sysnames.n - 1;
}

static void build(void)
{
	r = an_result_new("/test");
	ASSERT_TRUE(r);
	r->log.ncpu = 2;
	task(A, A, "reader");
	task(B, B, "writer");
	task(C, B, "writer2"); /* a thread of B's process */
	sys_read = sysname("read");
	sys_write = sysname("write");
	sys_pread = sysname("pread64");
	sys_pwrite = sysname("pwrite64");
	sys_recvfrom = sysname("recvfrom");
	sys_sendto = sysname("sendto");
	ev(0, 0, EV_SWITCH, 0, A, 0, 0);
	ev(0, 1, EV_SWITCH, 0, B, 0, 0);
	/* A: reads of 10, 20, 30, 40 and 100 us, 100 bytes each, on a descriptor of unknown kind */
	call(1000, 0, sys_read, 10, 100);
	call(2000, 0, sys_read, 20, 100);
	call(3000, 0, sys_read, 30, 100);
	call(4000, 0, sys_read, 40, 100);
	call(5000, 0, sys_read, 100, 100);
	call(6000, 0, sys_pread, 50, 200);
	call(7000, 0, sys_recvfrom, 60, 300);
	call(8000, 0, sys_pwrite, 70, -5); /* an error: no bytes */
	/* B, then its thread C: writes of 15 and 5 us, a send of 25 us */
	call(1000, 1, sys_write, 15, 50);
	call(2000, 1, sys_sendto, 25, 70);
	ev(3000, 1, EV_SWITCH, B, C, 0, 1);
	call(3100, 1, sys_write, 5, 30);
	/* irq 11 three times 5 us; softirq NET_RX 8 and 16 us */
	for (uint64_t t = 4000; t <= 4200; t += 100) {
		ev(t, 1, EV_IRQ_ENTRY, 11, 0, 0, 0);
		ev(t + 5, 1, EV_IRQ_EXIT, 11, 0, 0, 0);
	}
	ev(9000, 0, EV_SOFTIRQ_ENTRY, 3, 0, 0, 0);
	ev(9008, 0, EV_SOFTIRQ_EXIT, 3, 0, 0, 0);
	ev(9100, 0, EV_SOFTIRQ_ENTRY, 3, 0, 0, 0);
	ev(9116, 0, EV_SOFTIRQ_EXIT, 3, 0, 0, 0);
	/* block: A reads 8 sectors (200 us); C, running where an issue without a tid happened,
	 * writes 16 (50 us); A's flush (100 us) moves no data of its own */
	ev(9500, 0, EV_BLOCK_ISSUE, (int32_t)DEV, A, 8, 100);
	ev(9600, 1, EV_BLOCK_ISSUE, (int32_t)DEV, -1, 16, 200);
	ev(9650, 1, EV_BLOCK_COMPLETE, (int32_t)DEV, AN_RWBS_WRITE | 0x20, 16, 200);
	ev(9700, 0, EV_BLOCK_COMPLETE, (int32_t)DEV, AN_RWBS_READ, 8, 100);
	ev(9800, 0, EV_BLOCK_ISSUE, (int32_t)DEV, A, 0, 300);
	ev(9900, 0, EV_BLOCK_COMPLETE, (int32_t)DEV, 0x100, 0, 300);
	ev(10000, 0, EV_SWITCH, A, 0, 0, 1);
}

static void compute(unsigned resolution, unsigned limit, bool io)
{
	struct an_options opt = {
		.tables = true, .freq_resolution = resolution, .limit = limit, .io_usage = io};
	char *why = NULL;

	ASSERT_EQ(an_recompute(r, &opt, &why), 0);
}

static const struct an_table *distribution(const char *subject)
{
	for (size_t i = 0; i < r->freq.n; i++) {
		const struct an_table *t = AN_AT(&r->freq, struct an_table, i);

		if (strcmp(t->subject, subject) == 0)
			return t;
	}
	fprintf(stderr, "no distribution of %s\n", subject);
	ASSERT_TRUE(0);
	return NULL;
}

/* Bucket I: its bounds in ns and its count. */
static void bucket(const struct an_table *t, size_t i, uint64_t lower, uint64_t upper,
		   int64_t count)
{
	const struct an_cell *c = AN_AT(&t->cells, struct an_cell, i * 3);

	ASSERT_TRUE(i < an_rows(t));
	ASSERT_EQ((uint64_t)c[0].v, lower);
	ASSERT_EQ((uint64_t)c[1].v, upper);
	ASSERT_EQ(c[2].v, count);
}

static void test_syscalls(void)
{
	const struct an_table *t;

	compute(4, 2, false);
	/* all 11 calls, 5 to 100 us: bounds 5 + 95 * i / 4 us */
	t = distribution("all system calls");
	ASSERT_STREQ(t->cls->name, "syscall-latency-freq");
	ASSERT_EQ(an_rows(t), 4);
	bucket(t, 0, 5000, 28750, 5);	/* 5 10 15 20 25 */
	bucket(t, 1, 28750, 52500, 3);	/* 30 40 50 */
	bucket(t, 2, 52500, 76250, 2);	/* 60 70 */
	bucket(t, 3, 76250, 100000, 1); /* 100: the maximum, in the last bucket */
	ASSERT_CONTAINS(t->title, "all system calls (11, 5.0 us to 100.0 us, 4 buckets)");
	t = distribution("read");
	bucket(t, 0, 10000, 32500, 3);
	bucket(t, 1, 32500, 55000, 1);
	bucket(t, 2, 55000, 77500, 0);
	bucket(t, 3, 77500, 100000, 1);
	t = distribution("write");
	bucket(t, 0, 5000, 7500, 1);
	bucket(t, 3, 12500, 15000, 1);
	/* --limit 2: the two most frequent calls after all of them, then a disk, two irqs */
	ASSERT_EQ(r->freq.n, 3 + 1 + 2);
	/* a width that is not a whole number of ns: bounds rounded down, 5 + 95 * i / 3 us */
	compute(3, 2, false);
	t = distribution("all system calls");
	bucket(t, 0, 5000, 36666, 6);	/* 5 10 15 20 25 30 */
	bucket(t, 1, 36666, 68333, 3);	/* 40 50 60 */
	bucket(t, 2, 68333, 100000, 2); /* 70 100 */
}

static void test_disks_irqs(void)
{
	const struct an_table *t;

	compute(4, 0, false);
	t = distribution("8:0");
	ASSERT_STREQ(t->cls->name, "disk-latency-freq");
	bucket(t, 0, 50000, 87500, 1);
	bucket(t, 1, 87500, 125000, 1);
	bucket(t, 2, 125000, 162500, 0);
	bucket(t, 3, 162500, 200000, 1);
	/* all equal: one bucket, not lttng-analyses' empty table */
	t = distribution("irq 11 ?");
	ASSERT_STREQ(t->cls->name, "irq-duration-freq");
	ASSERT_EQ(an_rows(t), 1);
	bucket(t, 0, 5000, 5000, 3);
	t = distribution("softirq 3 NET_RX");
	bucket(t, 0, 8000, 10000, 1);
	bucket(t, 3, 14000, 16000, 1);
	/* the first distributions of each kind are the most frequent subjects' */
	ASSERT_STREQ(AN_AT(&r->freq, struct an_table, r->freq.n - 2)->subject, "irq 11 ?");
	compute(1, 0, false);
	bucket(distribution("8:0"), 0, 50000, 200000, 3);
}

/* Every value in the bucket its printed bounds say, however narrow or wide the range. */
static void test_buckets(void)
{
	static const struct {
		uint64_t min, max;
		unsigned res;
	} cases[] = {{0, 3, 10}, {7, 8, 1000}, {100, 1100, 7}, {0, UINT64_MAX / 2, 1000}};

	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		uint64_t min = cases[k].min, max = cases[k].max, step = (max - min) / 5000 + 1;
		unsigned res = cases[k].res;

		ASSERT_EQ(an_freq_bound(0, min, max, res), min);
		ASSERT_EQ(an_freq_bound(res, min, max, res), max);
		for (uint64_t v = min; v <= max && v >= min; v += step) {
			unsigned i = an_freq_bucket(v, min, max, res);

			ASSERT_TRUE(i < res);
			ASSERT_TRUE(an_freq_bound(i, min, max, res) <= v);
			ASSERT_TRUE(i == res - 1 || v < an_freq_bound(i + 1, min, max, res));
		}
		ASSERT_EQ(an_freq_bucket(max, min, max, res), res - 1);
	}
}

static const struct an_cell *io_row(const char *cls, int32_t tid)
{
	for (size_t i = 0; i < r->tables.n; i++) {
		const struct an_table *t = AN_AT(&r->tables, struct an_table, i);

		if (strcmp(t->cls->name, cls) != 0)
			continue;
		for (size_t j = 0; j < an_rows(t); j++) {
			const struct an_cell *c = AN_AT(&t->cells, struct an_cell, j * 6);

			if (c[0].v == tid)
				return c;
		}
		return NULL;
	}
	ASSERT_TRUE(0);
	return NULL;
}

static void test_io_usage(void)
{
	const struct an_cell *c;

	compute(0, 0, true);
	c = io_row("io-usage-read", A);
	ASSERT_TRUE(c);
	ASSERT_EQ(c[0].pid, A);
	ASSERT_EQ(c[1].v, 500 + 200 + 300); /* all read calls */
	ASSERT_EQ(c[2].v, 200);		    /* pread64: a file */
	ASSERT_EQ(c[3].v, 300);		    /* recvfrom: the network */
	ASSERT_EQ(c[4].v, 500);		    /* read: unknown */
	ASSERT_EQ(c[5].v, 8 * 512);	    /* its block read */
	ASSERT_TRUE(!io_row("io-usage-read", B));
	/* B's process, its thread C's write and block request with it */
	c = io_row("io-usage-write", B);
	ASSERT_TRUE(c);
	ASSERT_EQ(c[1].v, 50 + 70 + 30);
	ASSERT_EQ(c[2].v, 0);
	ASSERT_EQ(c[3].v, 70);
	ASSERT_EQ(c[4].v, 50 + 30);
	ASSERT_EQ(c[5].v, 16 * 512);
	ASSERT_TRUE(!io_row("io-usage-write", C));
	/* A's failed pwrite64 and flush wrote nothing */
	ASSERT_TRUE(!io_row("io-usage-write", A));
}

/* The JSON and LAMI distributions hold the result's buckets; none without --freq. */
static void test_outputs(void)
{
	struct json_object *o, *d, *lami, *res;
	size_t found = 0;

	compute(0, 0, false);
	o = an_result_json(r);
	ASSERT_TRUE(!json_object_object_get_ex(o, "distributions", NULL));
	json_object_put(o);
	compute(4, 0, false);
	o = an_result_json(r);
	ASSERT_TRUE(json_object_object_get_ex(o, "distributions", &d));
	ASSERT_EQ(json_object_array_length(d), r->freq.n);
	lami = an_lami_results(r);
	ASSERT_TRUE(json_object_object_get_ex(lami, "results", &res));
	for (size_t i = 0; i < json_object_array_length(res); i++) {
		struct json_object *x = json_object_array_get_idx(res, i), *cls, *inherit, *data,
				   *j, *buckets;
		const struct an_table *t;

		json_object_object_get_ex(x, "class", &cls);
		if (!json_object_object_get_ex(cls, "inherit", &inherit) ||
		    !strstr(json_object_get_string(inherit), "-freq"))
			continue;
		t = AN_AT(&r->freq, struct an_table, found);
		j = json_object_array_get_idx(d, found++);
		ASSERT_STREQ(json_object_get_string(inherit), t->cls->name);
		json_object_object_get_ex(x, "data", &data);
		json_object_object_get_ex(j, "buckets", &buckets);
		ASSERT_EQ(json_object_array_length(data), an_rows(t));
		ASSERT_EQ(json_object_array_length(buckets), an_rows(t));
		for (size_t b = 0; b < an_rows(t); b++) {
			struct json_object *row = json_object_array_get_idx(data, b), *v, *jb;

			jb = json_object_array_get_idx(buckets, b);
			json_object_object_get_ex(json_object_array_get_idx(row, 0), "value", &v);
			ASSERT_EQ(json_object_get_int64(v),
				  AN_AT(&t->cells, struct an_cell, b * 3)->v);
			/* LAMI 1.0: a count is a number object */
			json_object_object_get_ex(json_object_array_get_idx(row, 2), "value", &v);
			ASSERT_EQ(json_object_get_int64(v),
				  AN_AT(&t->cells, struct an_cell, b * 3 + 2)->v);
			json_object_object_get_ex(jb, "count", &v);
			ASSERT_EQ(json_object_get_int64(v),
				  AN_AT(&t->cells, struct an_cell, b * 3 + 2)->v);
		}
	}
	ASSERT_EQ(found, r->freq.n);
	json_object_put(lami);
	json_object_put(o);
}

int main(void)
{
	build();
	RUN(test_syscalls);
	RUN(test_disks_irqs);
	RUN(test_buckets);
	RUN(test_io_usage);
	RUN(test_outputs);
	an_result_free(r);
	return 0;
}
