// SPDX-License-Identifier: GPL-2.0-only
/*
 * latency_tracker_selftest: the in-kernel test cases, one function each, listed in
 * st_cases[]. Each creates its own trackers (names st_*) and destroys them, pass or fail.
 */
#include <linux/delay.h>
#include <linux/err.h>
#include <linux/hrtimer.h>
#include <linux/kthread.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "selftest.h"

#define KEY(...) ((u64[2]){ __VA_ARGS__ })
#define KSZ (2 * sizeof(u64))

/* The keys of tracker t: how many are pending, how many free. */
#define ST_KEYS(t, want_pending, want_free)					\
	do {									\
		u64 keys_pending, keys_free;					\
										\
		ST_EQ(latency_tracker_count_keys(t, &keys_pending, &keys_free), 0); \
		ST_EQ(keys_pending, want_pending);				\
		ST_EQ(keys_free, want_free);					\
	} while (0)

/* The free keys of tracker t, for ST_WAIT(). */
static u64 st_keys_free(struct latency_tracker *t)
{
	u64 pending, free = 0;

	latency_tracker_count_keys(t, &pending, &free);
	return free;
}

/* Callback that records the last alert and, on request, re-enters the API. */
struct st_capture {
	raw_spinlock_t lock;
	unsigned int thresholds;
	unsigned int timeouts;
	struct latency_tracker_record last;
	u8 priv0;
	struct latency_tracker *reenter;
	int reenter_in;
	int reenter_out;
};

static bool st_capture_cb(struct latency_tracker *t, struct latency_tracker_record *rec,
			  void *priv)
{
	struct st_capture *c = latency_tracker_cb_data(t);
	unsigned long flags;

	raw_spin_lock_irqsave(&c->lock, flags);
	if (rec->reason == LATENCY_TRACKER_REASON_TIMEOUT)
		c->timeouts++;
	else
		c->thresholds++;
	c->last = *rec;
	if (priv)
		c->priv0 = *(u8 *)priv;
	raw_spin_unlock_irqrestore(&c->lock, flags);
	if (c->reenter) {
		c->reenter_in = latency_tracker_event_in(c->reenter, KEY(9, 9), KSZ, NULL);
		c->reenter_out = latency_tracker_event_out(c->reenter, KEY(9, 9), KSZ, NULL);
	}
	return false;	/* keep the notification ring for the user-space tests */
}

/*
 * Allocates a capture and makes it @p's alert callback. The capture is on the heap: its
 * record, with the stack, is too large for a case's frame.
 */
static struct st_capture *st_capture_new(struct latency_tracker_params *p)
{
	struct st_capture *c = kmalloc(sizeof(*c), GFP_KERNEL);

	if (!c)
		return NULL;
	memset(c, 0, sizeof(*c));
	raw_spin_lock_init(&c->lock);
	p->cb = st_capture_cb;
	p->cb_data = c;
	return c;
}

/* The tracker first: until it is gone, its callback may still write to the capture. */
static void st_capture_destroy(struct latency_tracker *t, struct st_capture *c)
{
	latency_tracker_destroy(t);
	kfree(c);
}

/*
 * ST_NEW for a tracker whose alerts c records. In the case's cleanup,
 * st_capture_destroy(t, c) frees both, whichever was made.
 */
#define ST_NEW_CAPTURE(t, c, p)							\
	do {									\
		c = st_capture_new(p);						\
		if (!c) {							\
			st_printf(r, "  %s: no memory for the capture\n", __func__);	\
			ret = -ENOMEM;						\
			goto out;						\
		}								\
		ST_NEW(t, p);							\
	} while (0)

static unsigned int st_captured(struct st_capture *c, bool timeouts)
{
	unsigned long flags;
	unsigned int n;

	raw_spin_lock_irqsave(&c->lock, flags);
	n = timeouts ? c->timeouts : c->thresholds;
	raw_spin_unlock_irqrestore(&c->lock, flags);
	return n;
}

static int st_basic(struct st_report *r)
{
	struct latency_tracker_params p;
	struct latency_tracker_key_info info;
	struct latency_tracker_stats s;
	struct latency_tracker *t = NULL;
	int ret = 0;

	st_params_init(&p, "st_basic", LATENCY_TRACKER_DUP_REJECT, 64, NSEC_PER_SEC);
	ST_NEW(t, &p);
	ST_EQ(latency_tracker_event_in(t, KEY(1, 2), KSZ, NULL), 0);
	ST_EQ(latency_tracker_lookup(t, KEY(1, 2), KSZ, &info), 0);
	ST_EQ(info.tid, current->pid);
	ST_EQ(info.pid, current->tgid);
	ST_CHECK(!info.timed_out);
	ST_CHECK(info.start_ns <= latency_tracker_now());
	ST_EQ(latency_tracker_lookup(t, KEY(1, 3), KSZ, NULL), -ENOENT);
	ST_EQ(latency_tracker_event_out(t, KEY(1, 2), KSZ, NULL), 0);
	ST_EQ(latency_tracker_lookup(t, KEY(1, 2), KSZ, &info), -ENOENT);
	ST_EQ(latency_tracker_event_out(t, KEY(1, 2), KSZ, NULL), -ENOENT);
	latency_tracker_get_stats(t, &s);
	ST_EQ(s.events_in, 1);
	ST_EQ(s.events_out, 1);
	ST_EQ(s.unmatched, 1);
	ST_EQ(s.alerts, 0);
	ST_EQ(s.delay_count, 1);
	ST_KEYS(t, 0, 64);
out:
	latency_tracker_destroy(t);
	return ret;
}

static int st_threshold(struct st_report *r)
{
	struct latency_tracker_in in = { .data = { 1, 2, 3, 4 } };
	struct latency_tracker_out o = { .data_mask = 1U << 1, .data = { 0, 42 } };
	struct latency_tracker_params p;
	struct latency_tracker_stats s;
	struct latency_tracker *t = NULL;
	struct st_capture *c = NULL;
	int ret = 0;

	st_params_init(&p, "st_threshold", LATENCY_TRACKER_DUP_REJECT, 64, NSEC_PER_MSEC);
	ST_NEW_CAPTURE(t, c, &p);

	/* Under the threshold: no alert. */
	ST_EQ(latency_tracker_event_in(t, KEY(1, 1), KSZ, NULL), 0);
	ST_EQ(latency_tracker_event_out(t, KEY(1, 1), KSZ, NULL), 0);
	ST_EQ(st_captured(c, false), 0);

	in.ts = latency_tracker_now() - 5 * NSEC_PER_MSEC;
	ST_EQ(latency_tracker_event_in(t, KEY(1, 2), KSZ, &in), 0);
	ST_EQ(latency_tracker_event_out(t, KEY(1, 2), KSZ, &o), 1);
	ST_EQ(st_captured(c, false), 1);
	ST_EQ(c->last.size, sizeof(struct latency_tracker_record));
	ST_EQ(c->last.version, LATENCY_TRACKER_RECORD_VERSION);
	ST_EQ(c->last.kind, LATENCY_TRACKER_REC_ALERT);
	ST_CHECK(!strcmp((const char *)c->last.tracker, "st_threshold"));
	ST_EQ(c->last.tracker_type, LATENCY_TRACKER_TYPE_SELFTEST);
	ST_EQ(c->last.reason, LATENCY_TRACKER_REASON_THRESHOLD);
	ST_EQ(c->last.start_ns, in.ts);
	ST_CHECK(c->last.delay_ns >= 5 * NSEC_PER_MSEC);
	ST_EQ(c->last.end_ns - c->last.start_ns, c->last.delay_ns);
	ST_EQ(c->last.threshold_ns, NSEC_PER_MSEC);
	ST_EQ(c->last.data[0], 1);
	ST_EQ(c->last.data[1], 42);
	ST_EQ(c->last.data[2], 3);
	ST_EQ(c->last.data[3], 4);
	ST_EQ(c->last.tid, current->pid);
	ST_EQ(c->last.pid, current->tgid);
	ST_CHECK(!strncmp((const char *)c->last.comm, current->comm, LATENCY_TRACKER_COMM_LEN));
	ST_CHECK(c->last.start_cpu < nr_cpu_ids);
	ST_CHECK(c->last.end_cpu < nr_cpu_ids);
	ST_CHECK(!(c->last.flags & LATENCY_TRACKER_REC_F_TIMED_OUT));
	latency_tracker_get_stats(t, &s);
	ST_EQ(s.alerts, 1);
	ST_EQ(s.filtered, 1);
	ST_EQ(s.events_out, 2);
out:
	st_capture_destroy(t, c);
	return ret;
}

static int st_dup_reject(struct st_report *r)
{
	struct latency_tracker_params p;
	struct latency_tracker_stats s;
	struct latency_tracker *t = NULL;
	int ret = 0;

	st_params_init(&p, "st_dup_reject", LATENCY_TRACKER_DUP_REJECT, 64, NSEC_PER_SEC);
	ST_NEW(t, &p);
	ST_EQ(latency_tracker_event_in(t, KEY(5, 5), KSZ, NULL), 0);
	ST_EQ(latency_tracker_event_in(t, KEY(5, 5), KSZ, NULL), -EEXIST);
	ST_EQ(latency_tracker_event_out(t, KEY(5, 5), KSZ, NULL), 0);
	ST_EQ(latency_tracker_event_out(t, KEY(5, 5), KSZ, NULL), -ENOENT);
	latency_tracker_get_stats(t, &s);
	ST_EQ(s.duplicates, 1);
	ST_EQ(s.events_in, 1);
	ST_EQ(s.unmatched, 1);
out:
	latency_tracker_destroy(t);
	return ret;
}

static int st_dup_replace(struct st_report *r)
{
	struct latency_tracker_in in = { .data = { 1 } };
	struct latency_tracker_key_info info;
	struct latency_tracker_params p;
	struct latency_tracker_stats s;
	struct latency_tracker *t = NULL;
	int ret = 0;

	st_params_init(&p, "st_dup_replace", LATENCY_TRACKER_DUP_REPLACE, 64,
		       5 * NSEC_PER_MSEC);
	ST_NEW(t, &p);
	in.ts = latency_tracker_now() - 10 * NSEC_PER_MSEC;
	ST_EQ(latency_tracker_event_in(t, KEY(6, 6), KSZ, &in), 0);
	in.ts = 0;
	in.data[0] = 2;
	ST_EQ(latency_tracker_event_in(t, KEY(6, 6), KSZ, &in), 0);
	ST_EQ(latency_tracker_lookup(t, KEY(6, 6), KSZ, &info), 0);
	ST_EQ(info.data[0], 2);
	/* Measured from the second event_in: under the threshold. */
	ST_EQ(latency_tracker_event_out(t, KEY(6, 6), KSZ, NULL), 0);
	ST_EQ(latency_tracker_event_out(t, KEY(6, 6), KSZ, NULL), -ENOENT);
	latency_tracker_get_stats(t, &s);
	ST_EQ(s.duplicates, 1);
	ST_KEYS(t, 0, 64);
out:
	latency_tracker_destroy(t);
	return ret;
}

static int st_dup_nest(struct st_report *r)
{
	struct latency_tracker_in in = { .data = { 1 } };
	struct latency_tracker_key_info info;
	struct latency_tracker_params p;
	struct latency_tracker *t = NULL;
	struct st_capture *c = NULL;
	u64 pending, free;
	int ret = 0;

	st_params_init(&p, "st_dup_nest", LATENCY_TRACKER_DUP_NEST, 64, NSEC_PER_USEC);
	ST_NEW_CAPTURE(t, c, &p);
	in.ts = latency_tracker_now() - NSEC_PER_MSEC;
	ST_EQ(latency_tracker_event_in(t, KEY(7, 7), KSZ, &in), 0);
	in.data[0] = 2;
	ST_EQ(latency_tracker_event_in(t, KEY(7, 7), KSZ, &in), 0);
	ST_EQ(latency_tracker_count_keys(t, &pending, &free), 0);
	ST_EQ(pending, 2);
	ST_EQ(latency_tracker_lookup(t, KEY(7, 7), KSZ, &info), 0);
	ST_EQ(info.data[0], 2);
	/* LIFO: the most recent first. */
	ST_EQ(latency_tracker_event_out(t, KEY(7, 7), KSZ, NULL), 1);
	ST_EQ(c->last.data[0], 2);
	ST_EQ(latency_tracker_event_out(t, KEY(7, 7), KSZ, NULL), 1);
	ST_EQ(c->last.data[0], 1);
	ST_EQ(latency_tracker_event_out(t, KEY(7, 7), KSZ, NULL), -ENOENT);
	ST_EQ(st_captured(c, false), 2);
out:
	st_capture_destroy(t, c);
	return ret;
}

/* The error of a creation expected to fail; a tracker created by mistake is destroyed. */
static long st_create_error(const struct latency_tracker_params *p)
{
	struct latency_tracker *t = latency_tracker_create(p);

	if (!IS_ERR(t)) {
		latency_tracker_destroy(t);
		return 0;
	}
	return PTR_ERR(t);
}

static int st_key_invalid(struct st_report *r)
{
	u8 big[LATENCY_TRACKER_KEY_MAX + 1] = { };
	struct latency_tracker_params p;
	struct latency_tracker_stats s;
	struct latency_tracker *t = NULL;
	int ret = 0;

	st_params_init(&p, "st_key_invalid", LATENCY_TRACKER_DUP_REJECT, 64, NSEC_PER_SEC);
	ST_NEW(t, &p);
	ST_EQ(latency_tracker_event_in(t, big, KSZ + 1, NULL), -E2BIG);
	ST_EQ(latency_tracker_event_in(t, big, 0, NULL), -EINVAL);
	ST_EQ(latency_tracker_event_out(t, big, sizeof(big), NULL), -E2BIG);
	ST_EQ(latency_tracker_lookup(t, big, 0, NULL), -EINVAL);
	latency_tracker_get_stats(t, &s);
	ST_EQ(s.key_invalid, 4);
	ST_EQ(s.events_in, 0);
	/* A shorter key than key_size is a different, valid key. */
	ST_EQ(latency_tracker_event_in(t, big, 1, NULL), 0);
	ST_EQ(latency_tracker_event_out(t, big, 2, NULL), -ENOENT);
	ST_EQ(latency_tracker_event_out(t, big, 1, NULL), 0);

	/* Bad parameters are refused at creation. */
	st_params_init(&p, "Bad-Name", LATENCY_TRACKER_DUP_REJECT, 64, NSEC_PER_SEC);
	ST_EQ(st_create_error(&p), -EINVAL);
	st_params_init(&p, "st_key_invalid", LATENCY_TRACKER_DUP_REJECT, 64, NSEC_PER_SEC);
	ST_EQ(st_create_error(&p), -EEXIST);
	st_params_init(&p, "st_bad", LATENCY_TRACKER_DUP_REJECT, 64, NSEC_PER_SEC);
	p.key_size = LATENCY_TRACKER_KEY_MAX + 1;
	ST_EQ(st_create_error(&p), -EINVAL);
	st_params_init(&p, "st_bad", LATENCY_TRACKER_DUP_REJECT, 8, NSEC_PER_SEC);
	ST_EQ(st_create_error(&p), -EINVAL);
	st_params_init(&p, "st_bad", LATENCY_TRACKER_DUP_REJECT, 64, 10);
	ST_EQ(st_create_error(&p), -EINVAL);
out:
	latency_tracker_destroy(t);
	return ret;
}

/* Also exercises stealing: 16 keys from one CPU need the other CPUs' free lists. */
static int st_table_full(struct st_report *r)
{
	struct latency_tracker_params p;
	struct latency_tracker_stats s;
	struct latency_tracker *t = NULL;
	u64 i;
	int ret = 0;

	st_params_init(&p, "st_table_full", LATENCY_TRACKER_DUP_REJECT, 16, NSEC_PER_SEC);
	ST_NEW(t, &p);
	for (i = 0; i < 16; i++)
		ST_EQ(latency_tracker_event_in(t, KEY(8, i), KSZ, NULL), 0);
	ST_EQ(latency_tracker_event_in(t, KEY(8, 16), KSZ, NULL), -ENOSPC);
	ST_EQ(latency_tracker_event_in(t, KEY(8, 17), KSZ, NULL), -ENOSPC);
	latency_tracker_get_stats(t, &s);
	ST_EQ(s.table_full, 2);
	ST_KEYS(t, 16, 0);
	for (i = 0; i < 16; i++)
		ST_EQ(latency_tracker_event_out(t, KEY(8, i), KSZ, NULL), 0);
	ST_KEYS(t, 0, 16);
	ST_EQ(latency_tracker_event_in(t, KEY(8, 16), KSZ, NULL), 0);
	ST_EQ(latency_tracker_event_out(t, KEY(8, 16), KSZ, NULL), 0);
out:
	latency_tracker_destroy(t);
	return ret;
}

/*
 * Replace on a full table: a pending key begun again restarts in place (an app's reused
 * cookie, a thread's next call), so its end measures from the new start; reject says the
 * key is pending, not that the table is full.
 */
static int st_replace_full(struct st_report *r)
{
	struct latency_tracker_in in = { .data = { 1 } };
	struct latency_tracker_key_info info;
	struct latency_tracker_params p;
	struct latency_tracker_stats s;
	struct latency_tracker *t = NULL;
	struct st_capture *c = NULL;
	u64 i, restart;
	int ret = 0;

	st_params_init(&p, "st_replace_full", LATENCY_TRACKER_DUP_REPLACE, 16, NSEC_PER_SEC);
	ST_NEW_CAPTURE(t, c, &p);
	in.ts = latency_tracker_now() - 2 * NSEC_PER_SEC;
	for (i = 0; i < 16; i++)
		ST_EQ(latency_tracker_event_in(t, KEY(18, i), KSZ, &in), 0);
	ST_KEYS(t, 16, 0);
	in.ts = 0;
	in.data[0] = 2;
	restart = latency_tracker_now();
	ST_EQ(latency_tracker_event_in(t, KEY(18, 0), KSZ, &in), 0);
	ST_EQ(latency_tracker_lookup(t, KEY(18, 0), KSZ, &info), 0);
	ST_EQ(info.data[0], 2);
	ST_CHECK(info.start_ns >= restart);
	/* A new key still finds the table full. */
	ST_EQ(latency_tracker_event_in(t, KEY(18, 16), KSZ, &in), -ENOSPC);
	/* Measured from the restart: no alert, where the first start would give 2 s. */
	ST_EQ(latency_tracker_event_out(t, KEY(18, 0), KSZ, NULL), 0);
	ST_EQ(st_captured(c, false), 0);
	latency_tracker_get_stats(t, &s);
	ST_EQ(s.duplicates, 1);
	ST_EQ(s.table_full, 1);
	ST_EQ(s.events_in, 17);
	ST_KEYS(t, 15, 1);
	st_capture_destroy(t, c);
	t = NULL;
	c = NULL;

	st_params_init(&p, "st_reject_full", LATENCY_TRACKER_DUP_REJECT, 16, NSEC_PER_SEC);
	ST_NEW(t, &p);
	for (i = 0; i < 16; i++)
		ST_EQ(latency_tracker_event_in(t, KEY(18, i), KSZ, NULL), 0);
	ST_EQ(latency_tracker_event_in(t, KEY(18, 3), KSZ, NULL), -EEXIST);
	latency_tracker_get_stats(t, &s);
	ST_EQ(s.duplicates, 1);
	ST_EQ(s.table_full, 0);
	ST_KEYS(t, 16, 0);
out:
	st_capture_destroy(t, c);
	return ret;
}

/*
 * event_pair needs no entry of the table: a slow pair alerts while other keys fill it
 * (a syscall that never blocked, while every other thread is blocked in one).
 */
static int st_pair_full(struct st_report *r)
{
	struct latency_tracker_in in = { .data = { 5, 6, 7, 8 } };
	struct latency_tracker_out o = { .data_mask = 1U << 1, .data = { 0, 42 } };
	struct latency_tracker_params p;
	struct latency_tracker_stats s;
	struct latency_tracker *t = NULL;
	struct st_capture *c = NULL;
	u64 i;
	int ret = 0;

	st_params_init(&p, "st_pair_full", LATENCY_TRACKER_DUP_REPLACE, 16, NSEC_PER_MSEC);
	p.priv_size = 16;
	ST_NEW_CAPTURE(t, c, &p);
	for (i = 0; i < 16; i++)
		ST_EQ(latency_tracker_event_in(t, KEY(19, i), KSZ, NULL), 0);
	ST_KEYS(t, 16, 0);
	in.ts = latency_tracker_now() - 5 * NSEC_PER_MSEC;
	in.priv = "abcdefghijklmno";
	ST_EQ(latency_tracker_event_pair(t, KEY(19, 99), KSZ, &in, &o), 1);
	ST_EQ(st_captured(c, false), 1);
	ST_EQ(c->last.reason, LATENCY_TRACKER_REASON_THRESHOLD);
	ST_EQ(c->last.start_ns, in.ts);
	ST_CHECK(c->last.delay_ns >= 5 * NSEC_PER_MSEC);
	ST_EQ(c->last.end_ns - c->last.start_ns, c->last.delay_ns);
	ST_EQ(c->last.data[0], 5);
	ST_EQ(c->last.data[1], 42);
	ST_EQ(c->last.data[3], 8);
	ST_EQ(c->last.tid, current->pid);
	ST_EQ(c->last.pid, current->tgid);
	ST_CHECK(!strncmp((const char *)c->last.comm, current->comm, LATENCY_TRACKER_COMM_LEN));
	ST_CHECK(c->last.start_cpu < nr_cpu_ids);
	ST_EQ(c->last.start_cpu, c->last.end_cpu);
	ST_EQ(c->last.nr_stack, 0);
	ST_EQ(c->priv0, 'a');
	/* Without a private area the callback sees a zeroed one. */
	in.priv = NULL;
	ST_EQ(latency_tracker_event_pair(t, KEY(19, 99), KSZ, &in, NULL), 1);
	ST_EQ(st_captured(c, false), 2);
	ST_EQ(c->priv0, 0);
	latency_tracker_get_stats(t, &s);
	ST_EQ(s.table_full, 0);
	ST_EQ(s.alerts, 2);
	ST_KEYS(t, 16, 0);
out:
	st_capture_destroy(t, c);
	return ret;
}

static int st_timeout_then_exit(struct st_report *r)
{
	struct latency_tracker_key_info info;
	struct latency_tracker_params p;
	struct latency_tracker_stats s;
	struct latency_tracker *t = NULL;
	struct st_capture *c = NULL;
	int ret = 0;

	st_params_init(&p, "st_timeout", LATENCY_TRACKER_DUP_REJECT, 64, NSEC_PER_MSEC);
	p.timeout_ns = 10 * NSEC_PER_MSEC;
	ST_NEW_CAPTURE(t, c, &p);
	ST_EQ(latency_tracker_event_in(t, KEY(10, 1), KSZ, NULL), 0);
	ST_WAIT(st_captured(c, true), 2000);
	ST_EQ(st_captured(c, true), 1);
	ST_EQ(c->last.reason, LATENCY_TRACKER_REASON_TIMEOUT);
	ST_EQ(c->last.end_cpu, LATENCY_TRACKER_CPU_NONE);
	ST_CHECK(c->last.delay_ns >= 10 * NSEC_PER_MSEC);
	ST_EQ(c->last.tid, current->pid);
	/* Still pending, marked; the timeout fires once. */
	ST_EQ(latency_tracker_lookup(t, KEY(10, 1), KSZ, &info), 0);
	ST_CHECK(info.timed_out);
	msleep(50);
	ST_EQ(st_captured(c, true), 1);
	ST_EQ(latency_tracker_event_out(t, KEY(10, 1), KSZ, NULL), 1);
	ST_EQ(c->last.reason, LATENCY_TRACKER_REASON_THRESHOLD);
	ST_CHECK(c->last.flags & LATENCY_TRACKER_REC_F_TIMED_OUT);
	ST_CHECK(c->last.end_cpu < nr_cpu_ids);
	latency_tracker_get_stats(t, &s);
	ST_EQ(s.timeouts, 1);
	ST_EQ(s.alerts, 1);
	/* Turning the timeout off at run time. */
	ST_EQ(latency_tracker_set_timeout(t, 0), 0);
	ST_EQ(latency_tracker_event_in(t, KEY(10, 2), KSZ, NULL), 0);
	msleep(50);
	ST_EQ(st_captured(c, true), 1);
	ST_EQ(latency_tracker_set_timeout(t, 10), -EINVAL);
out:
	st_capture_destroy(t, c);
	return ret;
}

static int st_stale(struct st_report *r)
{
	struct latency_tracker_params p;
	struct latency_tracker_stats s;
	struct latency_tracker *t = NULL;
	int ret = 0;

	/* Discarded younger than the threshold: no alert (st_stale_alert: older). */
	st_params_init(&p, "st_stale", LATENCY_TRACKER_DUP_REJECT, 64, NSEC_PER_SEC);
	p.stale_ns = 20 * NSEC_PER_MSEC;
	ST_NEW(t, &p);
	ST_EQ(latency_tracker_event_in(t, KEY(11, 1), KSZ, NULL), 0);
	ST_WAIT(latency_tracker_lookup(t, KEY(11, 1), KSZ, NULL) == -ENOENT, 2000);
	ST_EQ(latency_tracker_lookup(t, KEY(11, 1), KSZ, NULL), -ENOENT);
	ST_EQ(latency_tracker_event_out(t, KEY(11, 1), KSZ, NULL), -ENOENT);
	latency_tracker_get_stats(t, &s);
	ST_EQ(s.stale, 1);
	ST_EQ(s.alerts, 0);
	ST_EQ(s.timeouts, 0);
	ST_KEYS(t, 0, 64);
	/* A timeout must stay below the staleness. */
	ST_EQ(latency_tracker_set_timeout(t, 20 * NSEC_PER_MSEC), -EINVAL);
	ST_EQ(latency_tracker_set_timeout(t, 19 * NSEC_PER_MSEC), 0);
out:
	latency_tracker_destroy(t);
	return ret;
}

/*
 * A key discarded as stale after the threshold raises the alert its end never will: a
 * timeout record flagged DISCARDED, once, with F_TIMED_OUT if a timeout alert came first.
 * A tracker whose stale keys are ends it cannot see (net) discards them silently.
 */
static int st_stale_alert(struct st_report *r)
{
	struct latency_tracker_params p;
	struct latency_tracker_stats s;
	struct latency_tracker *t = NULL;
	struct st_capture *c = NULL;
	int ret = 0;

	st_params_init(&p, "st_stale_alert", LATENCY_TRACKER_DUP_REJECT, 64, NSEC_PER_MSEC);
	p.stale_ns = 20 * NSEC_PER_MSEC;
	p.stale_alert = true;
	ST_NEW_CAPTURE(t, c, &p);
	ST_EQ(latency_tracker_event_in(t, KEY(17, 1), KSZ, NULL), 0);
	ST_WAIT(st_captured(c, true), 2000);
	ST_EQ(st_captured(c, true), 1);
	ST_EQ(c->last.reason, LATENCY_TRACKER_REASON_TIMEOUT);
	ST_CHECK(c->last.flags & LATENCY_TRACKER_REC_F_DISCARDED);
	ST_CHECK(!(c->last.flags & LATENCY_TRACKER_REC_F_TIMED_OUT));
	ST_EQ(c->last.end_cpu, LATENCY_TRACKER_CPU_NONE);
	ST_CHECK(c->last.delay_ns >= 20 * NSEC_PER_MSEC);
	ST_EQ(c->last.end_ns - c->last.start_ns, c->last.delay_ns);
	ST_EQ(c->last.tid, current->pid);
	ST_EQ(latency_tracker_lookup(t, KEY(17, 1), KSZ, NULL), -ENOENT);
	ST_EQ(latency_tracker_event_out(t, KEY(17, 1), KSZ, NULL), -ENOENT);
	latency_tracker_get_stats(t, &s);
	ST_EQ(s.stale, 1);
	ST_EQ(s.timeouts, 1);
	ST_EQ(s.alerts, 0);
	/* The discard's alert goes out before its entry is freed (scan.c): wait for that. */
	ST_WAIT(st_keys_free(t) == 64, 2000);
	ST_KEYS(t, 0, 64);

	/* A timeout alert first: the discard is the key's last word, flagged so. */
	ST_EQ(latency_tracker_set_timeout(t, 5 * NSEC_PER_MSEC), 0);
	ST_EQ(latency_tracker_event_in(t, KEY(17, 2), KSZ, NULL), 0);
	ST_WAIT(st_captured(c, true) >= 3, 2000);
	ST_EQ(st_captured(c, true), 3);
	ST_CHECK(c->last.flags & LATENCY_TRACKER_REC_F_DISCARDED);
	ST_CHECK(c->last.flags & LATENCY_TRACKER_REC_F_TIMED_OUT);
	ST_CHECK(c->last.delay_ns >= 20 * NSEC_PER_MSEC);
	st_capture_destroy(t, c);
	t = NULL;
	c = NULL;

	/* Without stale_alert (an end the tracker may not see: filtered out, coalesced). */
	st_params_init(&p, "st_stale_silent", LATENCY_TRACKER_DUP_REJECT, 64, NSEC_PER_MSEC);
	p.stale_ns = 20 * NSEC_PER_MSEC;
	ST_NEW_CAPTURE(t, c, &p);
	ST_EQ(latency_tracker_event_in(t, KEY(17, 3), KSZ, NULL), 0);
	ST_WAIT(latency_tracker_lookup(t, KEY(17, 3), KSZ, NULL) == -ENOENT, 2000);
	ST_EQ(latency_tracker_lookup(t, KEY(17, 3), KSZ, NULL), -ENOENT);
	latency_tracker_get_stats(t, &s);
	ST_EQ(s.stale, 1);
	ST_EQ(s.timeouts, 0);
	ST_EQ(st_captured(c, true), 0);
out:
	st_capture_destroy(t, c);
	return ret;
}

#define ST_CORE_PARAM(name) "/sys/module/latency_tracker/parameters/" name

/* Creates a tracker that sets @timeout and @stale (0: not set); reads back what it got. */
static int st_defaults_of(u64 timeout, u64 stale, u64 *got_timeout, u64 *got_stale)
{
	char path[96];
	struct latency_tracker_params p;
	struct latency_tracker *t;
	int ret;

	st_params_init(&p, "st_defaults", LATENCY_TRACKER_DUP_REJECT, 16, NSEC_PER_MSEC);
	p.timeout_ns = timeout;
	p.stale_ns = stale;
	t = latency_tracker_create(&p);
	if (IS_ERR(t))
		return PTR_ERR(t);
	snprintf(path, sizeof(path), "/sys/" LATENCY_TRACKER_SYSFS_DIR "/%s/timeout_ns",
		 p.name);
	ret = st_read_u64(path, got_timeout);
	snprintf(path, sizeof(path), "/sys/" LATENCY_TRACKER_SYSFS_DIR "/%s/stale_ns", p.name);
	if (!ret)
		ret = st_read_u64(path, got_stale);
	latency_tracker_destroy(t);
	return ret;
}

/*
 * The core's timeout_ns and stale_ns parameters, whatever they are, fill in what a tracker
 * does not set, unless they would break timeout < stale against a value it sets.
 * kmod-selftest.sh runs this case again with the core loaded with timeout_ns=2000000000,
 * above a staleness of 1 s as the net tracker sets it.
 */
static int st_defaults(struct st_report *r)
{
	const u64 own_timeout = 600 * NSEC_PER_SEC;
	u64 def_timeout, def_stale, timeout, stale;
	int ret = 0;

	ST_EQ(st_read_u64(ST_CORE_PARAM("timeout_ns"), &def_timeout), 0);
	ST_EQ(st_read_u64(ST_CORE_PARAM("stale_ns"), &def_stale), 0);
	ST_EQ(st_defaults_of(0, 0, &timeout, &stale), 0);
	ST_EQ(timeout, def_timeout);
	ST_EQ(stale, def_stale);
	/* Its own staleness stays; a default timeout not below it is dropped. */
	ST_EQ(st_defaults_of(0, NSEC_PER_SEC, &timeout, &stale), 0);
	ST_EQ(stale, NSEC_PER_SEC);
	ST_EQ(timeout, def_timeout < NSEC_PER_SEC ? def_timeout : 0);
	/* Its own timeout stays; a default staleness not above it is dropped. */
	ST_EQ(st_defaults_of(own_timeout, 0, &timeout, &stale), 0);
	ST_EQ(timeout, own_timeout);
	ST_EQ(stale, def_stale > own_timeout ? def_stale : 0);
	/* Both its own: kept together, or refused as the sysfs files refuse them. */
	ST_EQ(st_defaults_of(NSEC_PER_SEC, 2 * NSEC_PER_SEC, &timeout, &stale), 0);
	ST_EQ(timeout, NSEC_PER_SEC);
	ST_EQ(stale, 2 * NSEC_PER_SEC);
	ST_EQ(st_defaults_of(NSEC_PER_SEC, NSEC_PER_SEC, &timeout, &stale), -EINVAL);
	ST_EQ(st_defaults_of(2 * NSEC_PER_SEC, NSEC_PER_SEC, &timeout, &stale), -EINVAL);
out:
	return ret;
}

static void st_update_fn(u64 *data, void *priv, void *arg)
{
	data[3] = 77;
	*(u8 *)priv = 'z';
}

static int st_update(struct st_report *r)
{
	struct latency_tracker_in in = { .priv = "abcdefghijklmno" };
	struct latency_tracker_key_info info;
	struct latency_tracker_params p;
	struct latency_tracker *t = NULL;
	struct st_capture *c = NULL;
	int ret = 0;

	st_params_init(&p, "st_update", LATENCY_TRACKER_DUP_REJECT, 64, NSEC_PER_USEC);
	p.priv_size = 16;
	p.priv_zero = 17;	/* a header larger than the area */
	t = latency_tracker_create(&p);
	ST_EQ(PTR_ERR_OR_ZERO(t), -EINVAL);
	t = NULL;
	p.priv_zero = 4;
	ST_NEW_CAPTURE(t, c, &p);
	in.ts = latency_tracker_now() - NSEC_PER_MSEC;
	ST_EQ(latency_tracker_event_in(t, KEY(12, 1), KSZ, &in), 0);
	ST_EQ(latency_tracker_update(t, KEY(12, 1), KSZ, st_update_fn, NULL), 0);
	ST_EQ(latency_tracker_update(t, KEY(12, 2), KSZ, st_update_fn, NULL), -ENOENT);
	ST_EQ(latency_tracker_lookup(t, KEY(12, 1), KSZ, &info), 0);
	ST_EQ(info.data[3], 77);
	ST_EQ(latency_tracker_event_out(t, KEY(12, 1), KSZ, NULL), 1);
	ST_EQ(c->priv0, 'z');
	ST_EQ(c->last.data[3], 77);
	/*
	 * Without a private area its header (priv_zero bytes) is zeroed, also in the entry
	 * the key above used (the per-CPU free list hands it back).
	 */
	in.priv = NULL;
	in.ts = latency_tracker_now() - NSEC_PER_MSEC;
	ST_EQ(latency_tracker_event_in(t, KEY(12, 3), KSZ, &in), 0);
	ST_EQ(latency_tracker_event_out(t, KEY(12, 3), KSZ, NULL), 1);
	ST_EQ(c->priv0, 0);
out:
	st_capture_destroy(t, c);
	return ret;
}

struct st_guard_arg {
	struct latency_tracker *other;
	int ret;
	int ret_update;
};

static void st_noop_fn(u64 *data, void *priv, void *arg)
{
}

static void st_guard_fn(u64 *data, void *priv, void *arg)
{
	struct st_guard_arg *g = arg;

	/* Inside the core (bucket lock held): a nested call must back off. */
	g->ret = latency_tracker_event_in(g->other, KEY(13, 1), KSZ, NULL);
	g->ret_update = latency_tracker_update(g->other, KEY(13, 1), KSZ, st_noop_fn, NULL);
}

static int st_reentry(struct st_report *r)
{
	struct latency_tracker *a = NULL, *b = NULL;
	struct latency_tracker_params p;
	struct latency_tracker_stats s;
	struct st_guard_arg g = { };
	struct st_capture *c = NULL;
	u64 drops = 0;
	int ret = 0;

	st_params_init(&p, "st_reentry_b", LATENCY_TRACKER_DUP_REJECT, 64, NSEC_PER_SEC);
	ST_NEW(b, &p);
	st_params_init(&p, "st_reentry_a", LATENCY_TRACKER_DUP_REJECT, 64, NSEC_PER_USEC);
	ST_NEW_CAPTURE(a, c, &p);

	/* The recursion guard: nested call from inside the core gets -EBUSY, counted. */
	g.other = b;
	ST_EQ(latency_tracker_event_in(a, KEY(13, 0), KSZ, NULL), 0);
	ST_EQ(latency_tracker_update(a, KEY(13, 0), KSZ, st_guard_fn, &g), 0);
	ST_EQ(g.ret, -EBUSY);
	ST_EQ(g.ret_update, -EBUSY);
	latency_tracker_get_stats(b, &s);
	ST_EQ(s.busy, 2);
	ST_EQ(s.events_in, 0);
	/* The event_in was lost, the update lost no event: drops counts the first only. */
	ST_EQ(st_read_u64("/sys/" LATENCY_TRACKER_SYSFS_DIR "/st_reentry_b/stats/drops",
			  &drops), 0);
	ST_EQ(drops, 1);

	/* The alert callback runs outside the core: it may use the API. */
	c->reenter = b;
	udelay(5);
	ST_EQ(latency_tracker_event_out(a, KEY(13, 0), KSZ, NULL), 1);
	ST_EQ(c->reenter_in, 0);
	ST_EQ(c->reenter_out, 0);
	latency_tracker_get_stats(b, &s);
	ST_EQ(s.events_in, 1);
	ST_EQ(s.events_out, 1);
out:
	st_capture_destroy(a, c);
	latency_tracker_destroy(b);
	return ret;
}

static int st_disable(struct st_report *r)
{
	struct latency_tracker_params p;
	struct latency_tracker_stats s;
	struct latency_tracker *t = NULL;
	u64 pending, free;
	int ret = 0;

	st_params_init(&p, "st_disable", LATENCY_TRACKER_DUP_REJECT, 64, NSEC_PER_SEC);
	ST_NEW(t, &p);
	latency_tracker_disable(t);
	ST_EQ(latency_tracker_event_in(t, KEY(14, 1), KSZ, NULL), -ENODEV);
	ST_EQ(latency_tracker_event_out(t, KEY(14, 1), KSZ, NULL), -ENODEV);
	ST_EQ(latency_tracker_lookup(t, KEY(14, 1), KSZ, NULL), -ENODEV);
	ST_EQ(latency_tracker_count_keys(t, &pending, &free), -ENODEV);
	ST_EQ(latency_tracker_enable(t), 0);
	ST_EQ(latency_tracker_enable(t), 0);
	ST_EQ(latency_tracker_event_in(t, KEY(14, 1), KSZ, NULL), 0);
	ST_EQ(latency_tracker_event_in(t, KEY(14, 2), KSZ, NULL), 0);
	latency_tracker_disable(t);
	latency_tracker_disable(t);
	latency_tracker_get_stats(t, &s);
	ST_EQ(s.discarded, 2);
	ST_EQ(latency_tracker_enable(t), 0);
	ST_KEYS(t, 0, 64);
	ST_EQ(latency_tracker_event_out(t, KEY(14, 1), KSZ, NULL), -ENOENT);
out:
	latency_tracker_destroy(t);
	return ret;
}

/* Destroying a tracker with keys pending (and a timeout armed) frees everything. */
static int st_destroy_pending(struct st_report *r)
{
	struct latency_tracker_params p;
	struct latency_tracker *t = NULL;
	int ret = 0, i;

	st_params_init(&p, "st_destroy_pending", LATENCY_TRACKER_DUP_REJECT, 128, NSEC_PER_MSEC);
	p.timeout_ns = NSEC_PER_MSEC;
	p.stack_mode = LATENCY_TRACKER_STACK_IN;
	ST_NEW(t, &p);
	for (i = 0; i < 100; i++)
		ST_EQ(latency_tracker_event_in(t, KEY(15, i), KSZ, NULL), 0);
	msleep(5);
out:
	latency_tracker_destroy(t);
	return ret;
}

/*
 * Stack mode "in": a pair through the table carries the stack saved at event_in; one
 * closed by event_pair never had an event_in, so its stack is the alerting context's and
 * must say so.
 */
static int st_stack_in_pair(struct st_report *r)
{
	struct latency_tracker_in in = { };
	struct latency_tracker_params p;
	struct latency_tracker *t = NULL;
	struct st_capture *c = NULL;
	int ret = 0;

	st_params_init(&p, "st_stack_in_pair", LATENCY_TRACKER_DUP_REJECT, 64, NSEC_PER_MSEC);
	p.stack_mode = LATENCY_TRACKER_STACK_IN;
	ST_NEW_CAPTURE(t, c, &p);

	in.ts = latency_tracker_now() - 5 * NSEC_PER_MSEC;
	ST_EQ(latency_tracker_event_in(t, KEY(16, 1), KSZ, &in), 0);
	ST_EQ(latency_tracker_event_out(t, KEY(16, 1), KSZ, NULL), 1);
	ST_EQ(st_captured(c, false), 1);
	ST_CHECK(c->last.flags & LATENCY_TRACKER_REC_F_STACK_IN);
	ST_CHECK(!(c->last.flags & LATENCY_TRACKER_REC_F_STACK_ALERT));
	ST_CHECK(c->last.nr_stack > 0);

	in.ts = latency_tracker_now() - 5 * NSEC_PER_MSEC;
	ST_EQ(latency_tracker_event_pair(t, KEY(16, 2), KSZ, &in, NULL), 1);
	ST_EQ(st_captured(c, false), 2);
	ST_CHECK(!(c->last.flags & LATENCY_TRACKER_REC_F_STACK_IN));
	ST_CHECK(c->last.flags & LATENCY_TRACKER_REC_F_STACK_ALERT);
	ST_CHECK(c->last.nr_stack > 0);
out:
	st_capture_destroy(t, c);
	return ret;
}

/*
 * Concurrency: on every online CPU, a pinned thread hammers its own keys, keys shared by
 * all CPUs and lock-free lookups, while a pinned hard-irq hrtimer opens and closes keys
 * of its own in interrupt context. Afterwards every counter must balance.
 */
#define ST_CONC_MS 500
#define ST_CONC_TIMER_NS (50 * NSEC_PER_USEC)

struct st_conc_cpu {
	struct task_struct *task;
	struct hrtimer timer;
	struct latency_tracker *t;
	unsigned int cpu;
	unsigned long iters;
	unsigned long ticks;
	unsigned long errors;
	unsigned long eexist;
	unsigned long enoent;
	bool hardirq_seen;
	int last_err;
};

static enum hrtimer_restart st_conc_tick(struct hrtimer *h)
{
	struct st_conc_cpu *cc = container_of(h, struct st_conc_cpu, timer);
	u64 key[2] = { 0x300 + cc->cpu, (cc->ticks / 2) % 16 };
	int ret;

	if (in_hardirq())
		cc->hardirq_seen = true;
	if (cc->ticks++ & 1)
		ret = latency_tracker_event_out(cc->t, key, sizeof(key), NULL);
	else
		ret = latency_tracker_event_in(cc->t, key, sizeof(key), NULL);
	if (ret) {
		cc->errors++;
		cc->last_err = ret;
	}
	hrtimer_forward_now(h, ns_to_ktime(ST_CONC_TIMER_NS));
	return HRTIMER_RESTART;
}

static int st_conc_thread(void *arg)
{
	struct st_conc_cpu *cc = arg;
	struct latency_tracker_key_info info;
	int ret;

	hrtimer_init(&cc->timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_PINNED_HARD);
	cc->timer.function = st_conc_tick;
	hrtimer_start(&cc->timer, ns_to_ktime(ST_CONC_TIMER_NS), HRTIMER_MODE_REL_PINNED_HARD);
	while (!kthread_should_stop()) {
		u64 own[2] = { 0x100 + cc->cpu, cc->iters % 64 };
		u64 shared[2] = { 0x200, cc->iters % 8 };

		ret = latency_tracker_event_in(cc->t, own, sizeof(own), NULL);
		if (!ret)
			ret = latency_tracker_event_out(cc->t, own, sizeof(own), NULL);
		if (ret) {
			cc->errors++;
			cc->last_err = ret;
		}
		ret = latency_tracker_event_in(cc->t, shared, sizeof(shared), NULL);
		if (ret == -EEXIST)
			cc->eexist++;
		else if (ret)
			cc->errors++;
		ret = latency_tracker_lookup(cc->t, shared, sizeof(shared), &info);
		if (ret && ret != -ENOENT && ret != -EBUSY)
			cc->errors++;
		ret = latency_tracker_event_out(cc->t, shared, sizeof(shared), NULL);
		if (ret == -ENOENT)
			cc->enoent++;
		else if (ret)
			cc->errors++;
		if (!(++cc->iters % 64))
			cond_resched();
	}
	hrtimer_cancel(&cc->timer);
	return 0;
}

static int st_concurrency(struct st_report *r)
{
	struct st_conc_cpu *cpus = NULL;
	struct latency_tracker_params p;
	struct latency_tracker_stats s;
	struct latency_tracker *t = NULL;
	unsigned int cpu, n = 0;
	int ret = 0;

	st_params_init(&p, "st_concurrency", LATENCY_TRACKER_DUP_REJECT, 1024, 3600 * NSEC_PER_SEC);
	ST_NEW(t, &p);
	cpus = kcalloc(nr_cpu_ids, sizeof(*cpus), GFP_KERNEL);
	ST_CHECK(cpus);
	for_each_online_cpu(cpu) {
		struct st_conc_cpu *cc = &cpus[cpu];

		cc->t = t;
		cc->cpu = cpu;
		cc->task = kthread_create_on_cpu(st_conc_thread, cc, cpu, "lt_conc/%u");
		if (IS_ERR(cc->task)) {
			ret = PTR_ERR(cc->task);
			cc->task = NULL;
			break;
		}
		wake_up_process(cc->task);
	}
	msleep(ST_CONC_MS);
	for_each_online_cpu(cpu) {
		if (cpus[cpu].task)
			kthread_stop(cpus[cpu].task);
	}
	ST_EQ(ret, 0);
	for_each_online_cpu(cpu) {
		struct st_conc_cpu *cc = &cpus[cpu];

		st_printf(r, "  cpu%u: %lu iterations, %lu hrtimer ticks, %lu shared collisions\n",
			  cpu, cc->iters, cc->ticks, cc->eexist + cc->enoent);
		ST_EQ(cc->errors, 0);
		ST_CHECK(cc->iters > 0);
		ST_CHECK(cc->ticks > 1);
		ST_CHECK(cc->hardirq_seen);
		n++;
	}
	latency_tracker_get_stats(t, &s);
	/* A timer stopped between its in and out leaves one key: close them. */
	for_each_online_cpu(cpu) {
		u64 key[2] = { 0x300 + cpu, ((cpus[cpu].ticks - 1) / 2) % 16 };

		if (cpus[cpu].ticks & 1)
			ST_EQ(latency_tracker_event_out(t, key, sizeof(key), NULL), 0);
	}
	latency_tracker_get_stats(t, &s);
	ST_EQ(s.events_in, s.events_out);
	ST_EQ(s.table_full, 0);
	ST_KEYS(t, 0, 1024);
	st_printf(r, "  %u CPUs, %llu pairs, %llu lookups gave up (busy)\n", n, s.events_out,
		  s.busy);
out:
	kfree(cpus);
	latency_tracker_destroy(t);
	return ret;
}

static const struct st_case {
	const char *name;
	int (*fn)(struct st_report *r);
} st_cases[] = {
	{ "basic", st_basic },
	{ "threshold", st_threshold },
	{ "dup_reject", st_dup_reject },
	{ "dup_replace", st_dup_replace },
	{ "dup_nest", st_dup_nest },
	{ "key_invalid", st_key_invalid },
	{ "table_full", st_table_full },
	{ "replace_full", st_replace_full },
	{ "pair_full", st_pair_full },
	{ "timeout_then_exit", st_timeout_then_exit },
	{ "stale", st_stale },
	{ "stale_alert", st_stale_alert },
	{ "defaults", st_defaults },
	{ "update", st_update },
	{ "reentry", st_reentry },
	{ "disable", st_disable },
	{ "destroy_pending", st_destroy_pending },
	{ "stack_in_pair", st_stack_in_pair },
	{ "concurrency", st_concurrency },
	{ "hist_buckets", st_hist_buckets },
	{ "hist_reset", st_hist_reset },
	{ "hist_per", st_hist_per },
	{ "hist_other", st_hist_other },
	{ "stats_delay_sum", st_stats_delay_sum },
	{ "stats_oldest_refresh", st_stats_oldest_refresh },
};

int st_run_cases(struct st_report *r, const char *only)
{
	bool found = false;
	size_t i;
	int ret;

	for (i = 0; i < ARRAY_SIZE(st_cases); i++) {
		if (only && strcmp(only, st_cases[i].name))
			continue;
		found = true;
		ret = st_cases[i].fn(r);
		if (ret) {
			st_printf(r, "FAIL %s (%d)\n", st_cases[i].name, ret);
			r->failed++;
		} else {
			st_printf(r, "PASS %s\n", st_cases[i].name);
			r->passed++;
		}
	}
	return found ? 0 : -ENOENT;
}
