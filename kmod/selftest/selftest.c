// SPDX-License-Identifier: GPL-2.0-only
/*
 * latency_tracker_selftest: test driver of the tracker core (testing only, never loaded
 * in production). Files in /sys/kernel/latency_tracker_selftest/:
 *   run      (w) "all" or a case name: runs the in-kernel cases (cases.c); the write
 *            fails with -EIO if one failed. results (r) holds the report.
 *   emit     (w) alerts on the "selftest" tracker, raised in the writer's context:
 *            "threshold N": N keys closed over the threshold; key i has data[0] = i,
 *            data[1] = 0xfeed, data[2] = N, start = now - 2 s;
 *            "timeout": opens key T (the timeout alert comes from the scanner);
 *            "close": closes key T;
 *            "sched N": the next N context switches each raise an alert from inside the
 *            sched_switch tracepoint (runqueue lock held), for the prev task, data[0] =
 *            0xc0ffee: readers must still be woken, through irq_work, without deadlock;
 *            "flood MS": alerts as fast as the writer can raise them for MS ms (at most
 *            60000; a signal ends it early), data[1] = 0xf100d; writers run in parallel,
 *            one more source each: the kernel side of the alert-flood test.
 *   stress   (rw) "1" starts a load on tracker "selftest_stress": one thread per online
 *            CPU plus a pinned hard-irq hrtimer per CPU, calling event_in/event_out and
 *            leaving keys pending; "0" stops it (unloading the module stops it too).
 *   bench    (w) "N": runs the micro-benchmark with N pairs per measure (bench.c);
 *            the report lands in results.
 */
#include <linux/delay.h>
#include <linux/fs.h>
#include <linux/hrtimer.h>
#include <linux/kstrtox.h>
#include <linux/kobject.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/sysfs.h>
#include <linux/tracepoint.h>

#include "selftest.h"

#define ST_KEY_THRESHOLD 1
#define ST_KEY_TIMEOUT 2
#define ST_KEY_SCHED 3
#define ST_KEY_FLOOD 4
#define ST_FLOOD_MAGIC 0xf100d
#define ST_FLOOD_MAX_MS 60000
#define ST_SCHED_MAGIC 0xc0ffee
#define ST_EMIT_MAX 100000
#define ST_STRESS_TIMER_NS (100 * NSEC_PER_USEC)

static DEFINE_MUTEX(st_lock);		/* one command at a time */
static struct kobject *st_kobj;
static struct latency_tracker *st_tracker;
static struct st_report st_last;

struct st_stress_cpu {
	struct task_struct *task;
	struct hrtimer timer;
	unsigned int cpu;
	unsigned long ticks;
};

static struct latency_tracker *st_stress_tracker;
static struct st_stress_cpu *st_stress_cpus;

void st_printf(struct st_report *r, const char *fmt, ...)
{
	va_list args;

	if (r->len >= ST_RESULTS_SIZE - 1)
		return;
	va_start(args, fmt);
	r->len += vscnprintf(r->buf + r->len, ST_RESULTS_SIZE - r->len, fmt, args);
	va_end(args);
}

void st_params_init(struct latency_tracker_params *p, const char *name,
		    enum latency_tracker_dup_policy dup, u32 max_keys, u64 threshold_ns)
{
	memset(p, 0, sizeof(*p));
	p->name = name;
	p->type = LATENCY_TRACKER_TYPE_SELFTEST;
	p->key_size = 16;
	p->max_keys = max_keys;
	p->threshold_ns = threshold_ns;
	p->dup_policy = dup;
}

int st_read_file(const char *path, char *buf, size_t size)
{
	struct file *f;
	loff_t pos = 0;
	ssize_t n;

	f = filp_open(path, O_RDONLY, 0);
	if (IS_ERR(f))
		return PTR_ERR(f);
	do {
		n = kernel_read(f, buf + pos, min_t(loff_t, 1000, size - 1 - pos), &pos);
	} while (n > 0 && pos < size - 1);
	filp_close(f, NULL);
	buf[pos] = '\0';
	return n < 0 ? n : 0;
}

int st_read_u64(const char *path, u64 *v)
{
	char buf[32];
	int ret = st_read_file(path, buf, sizeof(buf));

	return ret ? ret : kstrtou64(buf, 10, v);
}

/* Creates and enables. */
struct latency_tracker *st_tracker_new(const struct latency_tracker_params *p)
{
	struct latency_tracker *t;
	int ret;

	t = latency_tracker_create(p);
	if (IS_ERR(t))
		return t;
	ret = latency_tracker_enable(t);
	if (ret) {
		latency_tracker_destroy(t);
		return ERR_PTR(ret);
	}
	return t;
}

/* emit */

/* Key {k0, k1} opened 2 s ago and closed now: an alert over any threshold. */
static int st_alert(u64 k0, u64 k1, u64 d0, u64 d1, u64 d2)
{
	struct latency_tracker_in in = { .data = { d0, d1, d2 } };
	u64 key[2] = { k0, k1 };
	int ret;

	in.ts = latency_tracker_now() - 2 * NSEC_PER_SEC;
	ret = latency_tracker_event_in(st_tracker, key, sizeof(key), &in);
	if (ret)
		return ret;
	ret = latency_tracker_event_out(st_tracker, key, sizeof(key), NULL);
	return ret == 1 ? 0 : ret < 0 ? ret : -EIO;
}

static int st_emit_threshold(unsigned int n)
{
	unsigned int i;
	int ret;

	for (i = 0; i < n; i++) {
		ret = st_alert(ST_KEY_THRESHOLD, i, i, 0xfeed, n);
		if (ret)
			return ret;
		cond_resched();
	}
	return 0;
}

/* Not under st_lock: each writer is one more source of the flood, its key its pid. */
static int st_emit_flood(unsigned int ms)
{
	u64 end = ktime_get_ns() + (u64)ms * NSEC_PER_MSEC;
	unsigned long i;
	int ret;

	for (i = 0; ktime_get_ns() < end; i++) {
		ret = st_alert(ST_KEY_FLOOD, current->pid, i, ST_FLOOD_MAGIC, 0);
		if (ret)
			return ret;
		if (signal_pending(current))
			return -EINTR;
		cond_resched();
	}
	return 0;
}

/* Alerts raised inside sched_switch. */

static atomic_t st_sched_left = ATOMIC_INIT(0);

static void st_sched_probe(void *data, bool preempt, struct task_struct *prev,
			   struct task_struct *next, unsigned int prev_state)
{
	struct latency_tracker_in in = { .task = prev, .data = { ST_SCHED_MAGIC } };
	u64 key[2] = { ST_KEY_SCHED, prev->pid };

	if (atomic_dec_if_positive(&st_sched_left) < 0)
		return;
	in.ts = latency_tracker_now() - 2 * NSEC_PER_SEC;
	/* A switch the tracker could not take (busy on this CPU) gives its turn back: the
	 * test counts alerts, and the next switch raises this one. */
	if (latency_tracker_event_in(st_tracker, key, sizeof(key), &in))
		atomic_inc(&st_sched_left);
	else
		latency_tracker_event_out(st_tracker, key, sizeof(key), NULL);
}

static void st_find_tracepoint(struct tracepoint *tp, void *priv)
{
	struct tracepoint **found = priv;

	if (!strcmp(tp->name, "sched_switch"))
		*found = tp;
}

static int st_emit_sched(unsigned int n)
{
	struct tracepoint *tp = NULL;
	int ret, i;

	for_each_kernel_tracepoint(st_find_tracepoint, &tp);
	if (!tp)
		return -ENOENT;
	atomic_set(&st_sched_left, n);
	ret = tracepoint_probe_register(tp, st_sched_probe, NULL);
	if (ret)
		return ret;
	for (i = 0; i < 200 && atomic_read(&st_sched_left) > 0; i++)
		msleep(10);
	tracepoint_probe_unregister(tp, st_sched_probe, NULL);
	tracepoint_synchronize_unregister();
	return atomic_read(&st_sched_left) > 0 ? -ETIMEDOUT : 0;
}

static ssize_t emit_store(struct kobject *kobj, struct kobj_attribute *attr,
			  const char *buf, size_t count)
{
	u64 key[2] = { ST_KEY_TIMEOUT, 0 };
	unsigned int n;
	int ret;

	if (sscanf(buf, "flood %u", &n) == 1) {
		if (n < 1 || n > ST_FLOOD_MAX_MS)
			return -EINVAL;
		ret = st_emit_flood(n);
		return ret ?: count;
	}
	mutex_lock(&st_lock);
	if (sscanf(buf, "threshold %u", &n) == 1 && n >= 1 && n <= ST_EMIT_MAX)
		ret = st_emit_threshold(n);
	else if (sscanf(buf, "sched %u", &n) == 1 && n >= 1 && n <= ST_EMIT_MAX)
		ret = st_emit_sched(n);
	else if (sysfs_streq(buf, "timeout"))
		ret = latency_tracker_event_in(st_tracker, key, sizeof(key), NULL);
	else if (sysfs_streq(buf, "close"))
		ret = latency_tracker_event_out(st_tracker, key, sizeof(key), NULL) < 0 ?
		      -ENOENT : 0;
	else
		ret = -EINVAL;
	mutex_unlock(&st_lock);
	return ret ?: count;
}

/* stress */

static enum hrtimer_restart st_stress_tick(struct hrtimer *h)
{
	struct st_stress_cpu *sc = container_of(h, struct st_stress_cpu, timer);
	u64 key[2] = { 0x10000 + sc->cpu, (sc->ticks / 2) % 64 };

	if (sc->ticks++ & 1)
		latency_tracker_event_out(st_stress_tracker, key, sizeof(key), NULL);
	else
		latency_tracker_event_in(st_stress_tracker, key, sizeof(key), NULL);
	hrtimer_forward_now(h, ns_to_ktime(ST_STRESS_TIMER_NS));
	return HRTIMER_RESTART;
}

static int st_stress_thread(void *arg)
{
	struct st_stress_cpu *sc = arg;
	unsigned long i = 0;

	hrtimer_init(&sc->timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_PINNED_HARD);
	sc->timer.function = st_stress_tick;
	hrtimer_start(&sc->timer, ns_to_ktime(ST_STRESS_TIMER_NS), HRTIMER_MODE_REL_PINNED_HARD);
	while (!kthread_should_stop()) {
		u64 key[2] = { sc->cpu, i % 512 };
		struct latency_tracker_key_info info;

		latency_tracker_event_in(st_stress_tracker, key, sizeof(key), NULL);
		latency_tracker_lookup(st_stress_tracker, key, sizeof(key), &info);
		/* Every 16th key stays pending: timeouts, stale cleanup, unload with keys. */
		if (i % 16)
			latency_tracker_event_out(st_stress_tracker, key, sizeof(key), NULL);
		if (!(++i % 256))
			usleep_range(50, 100);
		else
			cond_resched();
	}
	hrtimer_cancel(&sc->timer);
	return 0;
}

static void st_stress_stop(void)
{
	unsigned int cpu;

	if (st_stress_cpus) {
		for (cpu = 0; cpu < nr_cpu_ids; cpu++) {
			if (st_stress_cpus[cpu].task)
				kthread_stop(st_stress_cpus[cpu].task);
		}
		kfree(st_stress_cpus);
		st_stress_cpus = NULL;
	}
	/* Threads cancel their timers before they exit: nothing calls the tracker now. */
	latency_tracker_destroy(st_stress_tracker);
	st_stress_tracker = NULL;
}

static int st_stress_start(void)
{
	struct latency_tracker_params p;
	struct task_struct *task;
	unsigned int cpu;
	int ret;

	if (st_stress_tracker)
		return 0;

	st_params_init(&p, "selftest_stress", LATENCY_TRACKER_DUP_REJECT, 1024,
		       50 * NSEC_PER_USEC);
	p.timeout_ns = 5 * NSEC_PER_MSEC;
	p.stale_ns = 50 * NSEC_PER_MSEC;
	p.stack_mode = LATENCY_TRACKER_STACK_ALERT;
	st_stress_tracker = st_tracker_new(&p);
	if (IS_ERR(st_stress_tracker)) {
		ret = PTR_ERR(st_stress_tracker);
		st_stress_tracker = NULL;
		return ret;
	}
	st_stress_cpus = kcalloc(nr_cpu_ids, sizeof(*st_stress_cpus), GFP_KERNEL);
	if (!st_stress_cpus) {
		ret = -ENOMEM;
		goto err;
	}
	for_each_online_cpu(cpu) {
		struct st_stress_cpu *sc = &st_stress_cpus[cpu];

		sc->cpu = cpu;
		task = kthread_create_on_cpu(st_stress_thread, sc, cpu, "lt_stress/%u");
		if (IS_ERR(task)) {
			ret = PTR_ERR(task);
			goto err;
		}
		sc->task = task;
		wake_up_process(task);
	}
	return 0;
err:
	st_stress_stop();
	return ret;
}

static ssize_t stress_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%d\n", st_stress_tracker ? 1 : 0);
}

static ssize_t stress_store(struct kobject *kobj, struct kobj_attribute *attr,
			    const char *buf, size_t count)
{
	int ret = 0;

	mutex_lock(&st_lock);
	if (sysfs_streq(buf, "1"))
		ret = st_stress_start();
	else if (sysfs_streq(buf, "0"))
		st_stress_stop();
	else
		ret = -EINVAL;
	mutex_unlock(&st_lock);
	return ret ?: count;
}

/* run, bench, results */

static ssize_t run_store(struct kobject *kobj, struct kobj_attribute *attr,
			 const char *buf, size_t count)
{
	char name[32];
	int ret;

	if (sscanf(buf, "%31s", name) != 1)
		return -EINVAL;
	mutex_lock(&st_lock);
	st_last.len = 0;
	st_last.buf[0] = '\0';
	st_last.passed = 0;
	st_last.failed = 0;
	ret = st_run_cases(&st_last, strcmp(name, "all") ? name : NULL);
	st_printf(&st_last, "summary: %d passed, %d failed\n", st_last.passed, st_last.failed);
	if (!ret && st_last.failed)
		ret = -EIO;
	mutex_unlock(&st_lock);
	return ret ?: count;
}

static ssize_t bench_store(struct kobject *kobj, struct kobj_attribute *attr,
			   const char *buf, size_t count)
{
	unsigned int n;
	int ret;

	if (kstrtouint(buf, 10, &n) || n < 1000 || n > 100000000)
		return -EINVAL;
	mutex_lock(&st_lock);
	st_last.len = 0;
	st_last.buf[0] = '\0';
	ret = st_bench(&st_last, n);
	mutex_unlock(&st_lock);
	return ret ?: count;
}

static ssize_t results_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	ssize_t ret;

	mutex_lock(&st_lock);
	ret = sysfs_emit(buf, "%s", st_last.buf);
	mutex_unlock(&st_lock);
	return ret;
}

static struct kobj_attribute st_run_attr = __ATTR_WO(run);
static struct kobj_attribute st_emit_attr = __ATTR_WO(emit);
static struct kobj_attribute st_stress_attr = __ATTR_RW(stress);
static struct kobj_attribute st_bench_attr = __ATTR_WO(bench);
static struct kobj_attribute st_results_attr = __ATTR_RO(results);

static struct attribute *st_attrs[] = {
	&st_run_attr.attr,
	&st_emit_attr.attr,
	&st_stress_attr.attr,
	&st_bench_attr.attr,
	&st_results_attr.attr,
	NULL
};

static const struct attribute_group st_group = {
	.attrs = st_attrs,
};

static int __init st_init(void)
{
	struct latency_tracker_params p = {
		.name = "selftest",
		.type = LATENCY_TRACKER_TYPE_SELFTEST,
		.key_size = 16,
		.max_keys = 256,
		.threshold_ns = NSEC_PER_MSEC,
		.dup_policy = LATENCY_TRACKER_DUP_REJECT,
		.stack_mode = LATENCY_TRACKER_STACK_ALERT,
	};
	int ret;

	st_last.buf = kzalloc(ST_RESULTS_SIZE, GFP_KERNEL);
	if (!st_last.buf)
		return -ENOMEM;

	st_tracker = latency_tracker_create(&p);
	if (IS_ERR(st_tracker)) {
		ret = PTR_ERR(st_tracker);
		goto err_buf;
	}
	ret = latency_tracker_enable(st_tracker);
	if (ret)
		goto err_tracker;

	st_kobj = kobject_create_and_add("latency_tracker_selftest", kernel_kobj);
	if (!st_kobj) {
		ret = -ENOMEM;
		goto err_tracker;
	}
	ret = sysfs_create_group(st_kobj, &st_group);
	if (ret)
		goto err_kobj;
	return 0;

err_kobj:
	kobject_put(st_kobj);
err_tracker:
	latency_tracker_destroy(st_tracker);
err_buf:
	kfree(st_last.buf);
	return ret;
}

static void __exit st_exit(void)
{
	sysfs_remove_group(st_kobj, &st_group);
	kobject_put(st_kobj);
	mutex_lock(&st_lock);
	st_stress_stop();
	mutex_unlock(&st_lock);
	latency_tracker_destroy(st_tracker);
	kfree(st_last.buf);
}

module_init(st_init);
module_exit(st_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("latency_tracker self-tests and micro-benchmark (testing only)");
