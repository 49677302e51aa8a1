// SPDX-License-Identifier: GPL-2.0-only
/*
 * latency_tracker_selftest: micro-benchmark of the hot path, reported next to the cost
 * of the alert tracepoint (an LTTng kernel event when an LTTng session records it, a
 * static branch when nothing does). Output lines are "name value", times in ns with one
 * decimal; single-thread figures are the best of 5 rounds, as usual for micro-benchmarks
 * (a round interrupted by the host or a timer is not the cost of the code).
 */
#include <linux/atomic.h>
#include <linux/delay.h>
#include <linux/err.h>
#include <linux/kdev_t.h>
#include <linux/kthread.h>
#include <linux/minmax.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>

#include <trace/events/latency_tracker.h>

#include "selftest.h"

#define BENCH_ROUNDS 5
#define BENCH_KEYS 1024

struct bench_cpu {
	struct task_struct *task;
	struct latency_tracker *t;
	atomic_t *ready;
	unsigned int nr_threads;
	unsigned int cpu;
	unsigned int n;
	u64 ns;
	int errors;
};

/* Tenths of ns per operation. */
static u64 bench_per_op(u64 ns, u64 ops)
{
	return div64_u64(ns * 10, max_t(u64, ops, 1));
}

static void bench_line(struct st_report *r, const char *name, u64 tenths)
{
	st_printf(r, "%s %llu.%llu\n", name, tenths / 10, tenths % 10);
}

/* What a threshold alert without a stack looks like. */
static void bench_record(struct latency_tracker_record *rec)
{
	memset(rec, 0, sizeof(*rec));
	rec->size = sizeof(*rec);
	rec->version = LATENCY_TRACKER_RECORD_VERSION;
	rec->kind = LATENCY_TRACKER_REC_ALERT;
	memcpy(rec->tracker, "st_bench", sizeof("st_bench"));
	rec->tracker_type = LATENCY_TRACKER_TYPE_SELFTEST;
	rec->reason = LATENCY_TRACKER_REASON_THRESHOLD;
	rec->pid = current->tgid;
	rec->tid = current->pid;
	memcpy(rec->comm, current->comm, sizeof(rec->comm));
	rec->start_cpu = raw_smp_processor_id();
	rec->end_cpu = rec->start_cpu;
	rec->end_ns = latency_tracker_now();
	rec->start_ns = rec->end_ns - NSEC_PER_MSEC;
	rec->delay_ns = NSEC_PER_MSEC;
	rec->threshold_ns = NSEC_PER_MSEC;
}

static u64 bench_pairs(struct latency_tracker *t, u64 tag, unsigned int n, int *errors)
{
	u64 t0, t1;
	unsigned int i;

	t0 = ktime_get_ns();
	for (i = 0; i < n; i++) {
		u64 key[2] = { tag, i % BENCH_KEYS };

		if (latency_tracker_event_in(t, key, sizeof(key), NULL) ||
		    latency_tracker_event_out(t, key, sizeof(key), NULL))
			(*errors)++;
	}
	t1 = ktime_get_ns();
	return t1 - t0;
}

static int bench_thread(void *arg)
{
	struct bench_cpu *bc = arg;

	atomic_inc(bc->ready);
	while (atomic_read(bc->ready) < bc->nr_threads)
		cond_resched();	/* the creator may need this CPU to start the others */
	bc->ns = bench_pairs(bc->t, 0x100 + bc->cpu, bc->n, &bc->errors);
	while (!kthread_should_stop())
		schedule_timeout_interruptible(1);
	return 0;
}

/*
 * Every online CPU at once, each on its own keys: one round. Returns the sum over CPUs of
 * their elapsed ns (for the mean per pair) and the slowest CPU's (for the throughput).
 */
static int bench_all_cpus_round(struct latency_tracker *t, unsigned int n, u64 *sum,
				u64 *worst, int *errors)
{
	struct bench_cpu *cpus;
	atomic_t ready = ATOMIC_INIT(0);
	unsigned int cpu, nr = num_online_cpus();
	int ret = 0;

	cpus = kcalloc(nr_cpu_ids, sizeof(*cpus), GFP_KERNEL);
	if (!cpus)
		return -ENOMEM;
	for_each_online_cpu(cpu) {
		struct bench_cpu *bc = &cpus[cpu];

		bc->t = t;
		bc->ready = &ready;
		bc->nr_threads = nr;
		bc->cpu = cpu;
		bc->n = n;
		bc->task = kthread_create_on_cpu(bench_thread, bc, cpu, "lt_bench/%u");
		if (IS_ERR(bc->task)) {
			ret = PTR_ERR(bc->task);
			bc->task = NULL;
			/* The others wait for a thread that will never come. */
			atomic_add(nr, &ready);
			break;
		}
		wake_up_process(bc->task);
	}
	*sum = 0;
	*worst = 0;
	for_each_online_cpu(cpu) {
		if (!cpus[cpu].task)
			continue;
		while (!READ_ONCE(cpus[cpu].ns) && !ret)
			msleep(10);
		kthread_stop(cpus[cpu].task);
		*sum += cpus[cpu].ns;
		*worst = max(*worst, cpus[cpu].ns);
		*errors += cpus[cpu].errors;
	}
	kfree(cpus);
	return ret;
}

static int bench_all_cpus(struct st_report *r, struct latency_tracker *t, unsigned int n)
{
	u64 sum, worst, best_sum = U64_MAX, best_worst = U64_MAX;
	unsigned int nr = num_online_cpus(), round;
	int errors = 0, ret;

	for (round = 0; round < BENCH_ROUNDS; round++) {
		ret = bench_all_cpus_round(t, n, &sum, &worst, &errors);
		if (ret)
			return ret;
		best_sum = min(best_sum, sum);
		best_worst = min(best_worst, worst);
	}
	st_printf(r, "cpus %u\n", nr);
	bench_line(r, "pair_all_cpus_ns", bench_per_op(best_sum, (u64)n * nr));
	st_printf(r, "pair_all_cpus_per_ms %llu\n",
		  div64_u64((u64)n * nr * NSEC_PER_MSEC, max_t(u64, best_worst, 1)));
	st_printf(r, "errors_all_cpus %d\n", errors);
	return 0;
}

/*
 * The syscalls tracker's fast path: one event_pair per call, its start time known, the
 * end read from the clock, data[0] one of 16 system call numbers (the key of hist/per
 * syscall).
 */
static u64 bench_event_pairs(struct latency_tracker *t, unsigned int n, int *errors)
{
	struct latency_tracker_in in = { };
	u64 key[2] = { 4, 0 }, t0;
	unsigned int i;

	t0 = ktime_get_ns();
	in.ts = latency_tracker_now();
	for (i = 0; i < n; i++) {
		in.data[0] = i % 16;
		*errors += latency_tracker_event_pair(t, key, sizeof(key), &in, NULL) < 0;
	}
	return ktime_get_ns() - t0;
}

/* The block tracker's path: event_in then event_out, data[0] one of 4 disks' dev_t. */
static u64 bench_disk_pairs(struct latency_tracker *t, unsigned int n, int *errors)
{
	struct latency_tracker_in in = { };
	u64 t0;
	unsigned int i;

	t0 = ktime_get_ns();
	for (i = 0; i < n; i++) {
		u64 key[2] = { 5, i % BENCH_KEYS };

		in.data[0] = MKDEV(259, i % 4);
		if (latency_tracker_event_in(t, key, sizeof(key), &in) ||
		    latency_tracker_event_out(t, key, sizeof(key), NULL))
			(*errors)++;
	}
	return ktime_get_ns() - t0;
}

struct bench_hist {
	const char *name;	/* of the output lines: NAME_none_ns, NAME_keyed_ns */
	enum latency_tracker_hist_dim dim;
	const char *per;
	u64 (*pairs)(struct latency_tracker *t, unsigned int n, int *errors);
};

static const struct bench_hist bench_hists[] = {
	{ "hist_syscall_pair", LATENCY_TRACKER_HIST_SYSCALL, "syscall", bench_event_pairs },
	{ "hist_disk_in_out", LATENCY_TRACKER_HIST_DISK, "disk", bench_disk_pairs },
};

/*
 * What a keyed histogram adds to a pair: the same loop with hist/per none and with the
 * split, alternated round by round so that both see the same machine, best of each.
 */
static int bench_hist(struct st_report *r, const struct bench_hist *bh, unsigned int n)
{
	struct latency_tracker_params p;
	struct latency_tracker *t;
	u64 best[2] = { U64_MAX, U64_MAX };
	unsigned int round, keyed;
	int errors = 0, ret = 0;
	char line[64];

	st_params_init(&p, "st_bench_hist", LATENCY_TRACKER_DUP_REJECT, 4096,
		       3600 * NSEC_PER_SEC);
	p.hist_dim = bh->dim;
	p.hist_key_word = 0;
	t = st_tracker_new(&p);
	if (IS_ERR(t))
		return PTR_ERR(t);
	for (round = 0; round < 2 * BENCH_ROUNDS && !ret; round++) {
		keyed = round & 1;
		ret = st_hist_write(t, "hist/per", keyed ? bh->per : "none");
		if (!ret)
			best[keyed] = min(best[keyed], bh->pairs(t, n, &errors));
		cond_resched();
	}
	latency_tracker_destroy(t);
	if (ret)
		return ret;
	snprintf(line, sizeof(line), "%s_none_ns", bh->name);
	bench_line(r, line, bench_per_op(best[0], n));
	snprintf(line, sizeof(line), "%s_keyed_ns", bh->name);
	bench_line(r, line, bench_per_op(best[1], n));
	snprintf(line, sizeof(line), "errors_%s", bh->name);
	st_printf(r, "%s %d\n", line, errors);
	return 0;
}

int st_bench(struct st_report *r, unsigned int n)
{
	struct latency_tracker_record rec;
	struct latency_tracker_params p;
	struct latency_tracker *t;
	u64 best_pair = U64_MAX, best_in = U64_MAX, best_out = U64_MAX;
	u64 best_lookup = U64_MAX, best_tp = U64_MAX, t0, t1, i;
	unsigned int round, per_round = max(n / BENCH_ROUNDS, 1U);
	int errors = 0, ret;

	st_params_init(&p, "st_bench", LATENCY_TRACKER_DUP_REJECT, 4096, 3600 * NSEC_PER_SEC);
	t = st_tracker_new(&p);
	if (IS_ERR(t))
		return PTR_ERR(t);

	for (round = 0; round < BENCH_ROUNDS; round++) {
		u64 in_ns = 0, out_ns = 0, done = 0;

		best_pair = min(best_pair, bench_pairs(t, 1, per_round, &errors));

		/* event_in and event_out alone, BENCH_KEYS keys pending at a time. */
		while (done < per_round) {
			t0 = ktime_get_ns();
			for (i = 0; i < BENCH_KEYS; i++)
				errors += !!latency_tracker_event_in(t, (u64[2]){ 2, i }, 16, NULL);
			t1 = ktime_get_ns();
			in_ns += t1 - t0;
			for (i = 0; i < BENCH_KEYS; i++)
				errors += !!latency_tracker_event_out(t, (u64[2]){ 2, i }, 16, NULL);
			out_ns += ktime_get_ns() - t1;
			done += BENCH_KEYS;
			cond_resched();
		}
		best_in = min(best_in, div64_u64(in_ns * per_round, done));
		best_out = min(best_out, div64_u64(out_ns * per_round, done));

		/* Lock-free lookups hitting BENCH_KEYS pending keys. */
		for (i = 0; i < BENCH_KEYS; i++)
			errors += !!latency_tracker_event_in(t, (u64[2]){ 3, i }, 16, NULL);
		t0 = ktime_get_ns();
		for (i = 0; i < per_round; i++)
			errors += !!latency_tracker_lookup(t, (u64[2]){ 3, i % BENCH_KEYS }, 16,
							   NULL);
		best_lookup = min(best_lookup, ktime_get_ns() - t0);
		for (i = 0; i < BENCH_KEYS; i++)
			errors += !!latency_tracker_event_out(t, (u64[2]){ 3, i }, 16, NULL);

		/* The alert tracepoint alone, with a full record. */
		bench_record(&rec);
		t0 = ktime_get_ns();
		for (i = 0; i < per_round; i++)
			trace_latency_tracker_alert(&rec);
		best_tp = min(best_tp, ktime_get_ns() - t0);
		cond_resched();
	}

	st_printf(r, "pairs_per_round %u\n", per_round);
	bench_line(r, "pair_1cpu_ns", bench_per_op(best_pair, per_round));
	bench_line(r, "event_in_ns", bench_per_op(best_in, per_round));
	bench_line(r, "event_out_ns", bench_per_op(best_out, per_round));
	bench_line(r, "lookup_ns", bench_per_op(best_lookup, per_round));
	bench_line(r, "tracepoint_ns", bench_per_op(best_tp, per_round));
	st_printf(r, "tracepoint_enabled %d\n", trace_latency_tracker_alert_enabled() ? 1 : 0);
	st_printf(r, "errors_1cpu %d\n", errors);

	ret = bench_all_cpus(r, t, per_round);
	latency_tracker_destroy(t);
	for (i = 0; i < ARRAY_SIZE(bench_hists) && !ret; i++)
		ret = bench_hist(r, &bench_hists[i], per_round);
	return ret;
}
