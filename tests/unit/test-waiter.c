/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The realtime waiter (waiter.c, admission.c) on a FIFO standing in for the notification
 * file, with no session in its slot: every record fails at once, its result all the same.
 * A snapshot is named after the fleet host and incident base of the last configuration; a
 * peer's alert queued while an earlier record was under way is taken when that record
 * ends, never before it was received, unless it went stale meanwhile (answered so, not
 * recorded, its tokens given back, as are those of one the full queue refused); a record
 * whose 32-bit size is out of bounds is
 * refused whole, whatever its low 16 bits say, and the main loop is woken to say so, as it
 * is when a thread leaves its loop on a failed read (the threads do not log). A bounded
 * stop (waiter_stop_by()) and a thread coming back from sessiond late hand each record
 * over once: the stop takes over the record under way at its deadline, waits for one that
 * was just over, and no thread records once it gave up.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cause.h"
#include "entry.h"
#include "recorder_internal.h"
#include "tests.h"
/* The stop's cases play a waiter thread's part: its turn (the run lock) and its record. */
#include "waiter_internal.h"

#define WAIT_MS 10000

struct rig {
	char dir[PATH_MAX], fifo[PATH_MAX + 16];
	struct conf *conf;
	struct flight_slot slot;
	struct waiter *w;
	int writer; /* the module's side of the FIFO */
	struct waiter_result *pending;
};

/*
 * A waiter on a new FIFO, its rate limits off; HOST: its fleet name. PER_CPU: a thread per
 * CPU, else one.
 */
static void rig_start_threads(struct rig *r, const char *host, bool per_cpu)
{
	bool rt;

	*r = (struct rig){.writer = -1};
	snprintf(r->dir, sizeof(r->dir), "/tmp/test-waiter.XXXXXX");
	ASSERT_TRUE(mkdtemp(r->dir));
	snprintf(r->fifo, sizeof(r->fifo), "%s/notify", r->dir);
	ASSERT_EQ(mkfifo(r->fifo, 0600), 0);
	ASSERT_EQ(conf_new_defaults(&r->conf), 0);
	r->conf->ratelimit.rate = 0;
	r->conf->fleet.peer_rate = 0;
	r->conf->fleet.total_rate = 0;
	r->conf->fleet.publish = true;
	ASSERT_EQ(pi_mutex_init(&r->slot.lock), 0);
	ASSERT_EQ(waiter_new(r->fifo, &r->slot, "test", 1, &r->w), 0);
	ASSERT_EQ(waiter_configure(r->w, r->conf, host, 100), 0);
	ASSERT_EQ(waiter_start(r->w, 0, per_cpu, &rt), 0);
	r->writer = open(r->fifo, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
	ASSERT_TRUE(r->writer >= 0);
}

static void rig_start(struct rig *r, const char *host)
{
	rig_start_threads(r, host, false);
}

static void rig_stop(struct rig *r)
{
	/* Before the waiter: a result of its pool goes back there. */
	waiter_result_free(r->pending);
	waiter_free(r->w);
	close(r->writer);
	pthread_mutex_destroy(&r->slot.lock);
	conf_free(r->conf);
	ASSERT_EQ(unlink(r->fifo), 0);
	ASSERT_EQ(rmdir(r->dir), 0);
}

/* A waiter with a thread per CPU; false (nothing started) with one CPU, nothing to check. */
static bool rig_start_per_cpu(struct rig *r)
{
	rig_start_threads(r, NULL, true);
	if (waiter_threads(r->w) >= 2)
		return true;
	fprintf(stderr, "one CPU: one waiter thread, nothing to check\n");
	rig_stop(r);
	return false;
}

/* The waiter's next result, in the order it pushed them (freed by the caller). */
static struct waiter_result *next_result(struct rig *r)
{
	struct pollfd p = {.fd = waiter_eventfd(r->w), .events = POLLIN};
	struct waiter_result *res, **tail;

	for (int ms = 0; !r->pending && ms < WAIT_MS; ms += 10) {
		poll(&p, 1, 10);
		r->pending = waiter_take_results(r->w);
	}
	ASSERT_TRUE(r->pending);
	res = r->pending;
	r->pending = res->next;
	res->next = NULL;
	/* What came meanwhile goes behind what was already taken. */
	for (tail = &r->pending; *tail; tail = &(*tail)->next)
		;
	*tail = waiter_take_results(r->w);
	return res;
}

static void write_alert_ending(struct rig *r, uint32_t size, const char *tracker, uint64_t end_ns)
{
	struct latency_tracker_record rec = {
		.size = size,
		.version = LATENCY_TRACKER_RECORD_VERSION,
		.kind = LATENCY_TRACKER_REC_ALERT,
		.pid = 1,
		.tid = 1,
	};

	snprintf((char *)rec.tracker, sizeof(rec.tracker), "%s", tracker);
	rec.end_ns = end_ns;
	rec.start_ns = rec.end_ns - 1000;
	rec.delay_ns = 1000;
	ASSERT_EQ(write(r->writer, &rec, sizeof(rec)), sizeof(rec));
}

static void write_alert(struct rig *r, uint32_t size, const char *tracker)
{
	write_alert_ending(r, size, tracker, now_ns());
}

static void test_fleet_names(void)
{
	struct rig r;
	struct waiter_result *res;

	rig_start(&r, "host-a");
	/* Announced to the fleet before its record, under the incident it opens. */
	write_alert(&r, LATENCY_TRACKER_RECORD_SIZE, "wakeup");
	res = next_result(&r);
	ASSERT_EQ(res->kind, WAITER_ADMITTED);
	ASSERT_EQ(res->id, 1);
	ASSERT_STREQ(res->incident, "host-a-101");
	waiter_result_free(res);
	res = next_result(&r);
	ASSERT_EQ(res->kind, WAITER_SNAPSHOT);
	ASSERT_EQ(res->error, FLIGHT_ERR_NO_SESSION);
	ASSERT_STREQ(res->name, "test-1-host-a-101@host-a");
	ASSERT_EQ(res->n, 1);
	ASSERT_EQ(res->causes[0].kind, CAUSE_ALERT);
	waiter_result_free(res);

	/* A reload: the new host and base name the next one, outside a fleet not at all. */
	ASSERT_EQ(waiter_configure(r.w, r.conf, "host-b", 200), 0);
	write_alert(&r, LATENCY_TRACKER_RECORD_SIZE, "wakeup");
	res = next_result(&r);
	ASSERT_EQ(res->kind, WAITER_ADMITTED);
	ASSERT_STREQ(res->incident, "host-b-202");
	waiter_result_free(res);
	res = next_result(&r);
	ASSERT_STREQ(res->name, "test-2-host-b-202@host-b");
	waiter_result_free(res);
	ASSERT_EQ(waiter_configure(r.w, r.conf, NULL, 0), 0);
	write_alert(&r, LATENCY_TRACKER_RECORD_SIZE, "wakeup");
	res = next_result(&r);
	ASSERT_EQ(res->kind, WAITER_SNAPSHOT);
	ASSERT_STREQ(res->name, "test-3");
	ASSERT_STREQ(res->incident, "");
	waiter_result_free(res);
	rig_stop(&r);
}

/*
 * A peer's alert that arrives while a manual record waits for the slot (held here, as a
 * slow sessiond would hold it) is taken when that record is over: its time and wakeup are
 * from then, not from the wakeup that took the manual request.
 */
static void test_peer_during_record(void)
{
	struct proto_fleet_alert a = {.host = "host-b", .incident = "host-b-7", .tid = 42};
	const char *refused_by;
	struct catalog_cause cc;
	struct waiter_result *res;
	struct rig r;
	uint64_t received;

	a.end_realtime_ns = realtime_ns();
	rig_start(&r, "host-a");
	pthread_mutex_lock(&r.slot.lock);
	ASSERT_EQ(waiter_request(r.w, 1, getpid(), "first"), 0);
	for (int ms = 0; !waiter_busy_ns(r.w) && ms < WAIT_MS; ms++)
		usleep(1000);
	ASSERT_TRUE(waiter_busy_ns(r.w) > 0);
	received = now_ns();
	ASSERT_EQ(waiter_peer(r.w, &a, received, &refused_by), 0);
	ASSERT_TRUE(refused_by == NULL);
	pthread_mutex_unlock(&r.slot.lock);

	res = next_result(&r);
	ASSERT_EQ(res->kind, WAITER_ADMITTED);
	ASSERT_EQ(res->causes[0].kind, CAUSE_MANUAL);
	waiter_result_free(res);
	res = next_result(&r);
	ASSERT_EQ(res->kind, WAITER_SNAPSHOT);
	ASSERT_EQ(res->causes[0].kind, CAUSE_MANUAL);
	ASSERT_TRUE(res->causes[0].manual.time_ns < received);
	waiter_result_free(res);

	/* A peer's cause is not announced again: its origin did. */
	res = next_result(&r);
	ASSERT_EQ(res->kind, WAITER_SNAPSHOT);
	ASSERT_STREQ(res->name, "test-2-host-b-7@host-a");
	ASSERT_EQ(res->causes[0].kind, CAUSE_PEER);
	ASSERT_EQ(res->causes[0].peer.received_ns, received);
	ASSERT_TRUE(res->causes[0].peer.time_ns >= received);
	ASSERT_TRUE(res->wakeup_ns >= received);
	ASSERT_TRUE(res->rec.start_ns >= res->wakeup_ns);
	ASSERT_EQ(cause_to_catalog(&res->causes[0], &cc), 0);
	ASSERT_TRUE(cc.received_to_record_ns < (uint64_t)WAIT_MS * 1000000);
	ASSERT_EQ(cc.start_ns, res->causes[0].peer.time_ns);
	catalog_cause_free(&cc);
	waiter_result_free(res);
	rig_stop(&r);
}

/*
 * While the thread records, a noisy origin's alerts are refused as they come, by its
 * bucket, or past its MAX_PEERS_PER_ORIGIN places in the queue; a quiet origin's still
 * finds a place. Only the admitted ones reach the thread: no suppressed result for them.
 * Those the queue refused keep their origin's tokens: once the queue drained, as many
 * alerts of that origin as its bucket had left are admitted, and the next one is refused
 * by its bucket.
 */
static void test_peer_budget_before_queue(void)
{
	struct proto_fleet_alert a = {.host = "host-c"};
	const char *refused_by;
	struct waiter_result *res;
	struct rig r;
	int peers = 0;

	a.end_realtime_ns = realtime_ns();

	rig_start(&r, "host-a");
	r.conf->fleet.peer_rate = 0.001;
	r.conf->fleet.peer_burst = MAX_PEERS_PER_ORIGIN + 2;
	ASSERT_EQ(waiter_configure(r.w, r.conf, "host-a", 100), 0);
	pthread_mutex_lock(&r.slot.lock);
	ASSERT_EQ(waiter_request(r.w, 1, getpid(), "first"), 0);
	for (int ms = 0; !waiter_busy_ns(r.w) && ms < WAIT_MS; ms++)
		usleep(1000);
	ASSERT_TRUE(waiter_busy_ns(r.w) > 0);
	for (int i = 1; i <= MAX_PEERS_PER_ORIGIN + 4; i++) {
		snprintf(a.incident, sizeof(a.incident), "host-c-%d", i);
		if (i <= MAX_PEERS_PER_ORIGIN) {
			ASSERT_EQ(waiter_peer(r.w, &a, now_ns(), &refused_by), 0);
		} else {
			ASSERT_EQ(waiter_peer(r.w, &a, now_ns(), &refused_by), -EBUSY);
			/* the queue's refusal: the tokens stay with the origin */
			ASSERT_STREQ(refused_by, PROTO_FLEET_BUDGET_QUEUE);
		}
	}
	a = (struct proto_fleet_alert){.host = "host-b", .incident = "host-b-1"};
	a.end_realtime_ns = realtime_ns();
	ASSERT_EQ(waiter_peer(r.w, &a, now_ns(), &refused_by), 0);
	ASSERT_TRUE(refused_by == NULL);
	pthread_mutex_unlock(&r.slot.lock);

	while (peers < MAX_PEERS_PER_ORIGIN + 1) {
		res = next_result(&r);
		ASSERT_TRUE(res->kind != WAITER_SUPPRESSED);
		if (res->kind == WAITER_SNAPSHOT && res->causes[0].kind == CAUSE_PEER)
			peers++;
		waiter_result_free(res);
	}
	/* The queue is empty: host-c's two tokens left are there (1 in 1000 s refills). */
	a = (struct proto_fleet_alert){.host = "host-c"};
	a.end_realtime_ns = realtime_ns();
	for (int i = 1; i <= 3; i++) {
		snprintf(a.incident, sizeof(a.incident), "host-c-%d", 100 + i);
		ASSERT_EQ(waiter_peer(r.w, &a, now_ns(), &refused_by), i <= 2 ? 0 : -EBUSY);
		if (i <= 2)
			ASSERT_TRUE(refused_by == NULL);
		else
			ASSERT_STREQ(refused_by, PROTO_FLEET_BUDGET_ORIGIN);
	}
	rig_stop(&r);
}

/*
 * A peer's alert fresh when queued, but queued behind a record long enough for it to go
 * stale (fleet.max_age, at its least here), is not recorded when the thread takes it: it
 * is handed over stale, for its origin's answer, and its origin's token is given back.
 */
static void test_peer_stale_when_taken(void)
{
	struct proto_fleet_alert a = {.host = "host-b", .incident = "host-b-9"};
	const char *refused_by;
	struct waiter_result *res;
	struct rig r;

	rig_start(&r, "host-a");
	r.conf->fleet.max_age_ns = 100 * 1000000ull;
	r.conf->fleet.peer_rate = 0.001;
	r.conf->fleet.peer_burst = 1;
	ASSERT_EQ(waiter_configure(r.w, r.conf, "host-a", 100), 0);
	pthread_mutex_lock(&r.slot.lock);
	ASSERT_EQ(waiter_request(r.w, 1, getpid(), "long"), 0);
	for (int ms = 0; !waiter_busy_ns(r.w) && ms < WAIT_MS; ms++)
		usleep(1000);
	ASSERT_TRUE(waiter_busy_ns(r.w) > 0);
	a.end_realtime_ns = realtime_ns();
	ASSERT_EQ(waiter_peer(r.w, &a, now_ns(), &refused_by), 0);
	/* Its one token taken: another of its origin is refused by the bucket meanwhile. */
	snprintf(a.incident, sizeof(a.incident), "host-b-10");
	ASSERT_EQ(waiter_peer(r.w, &a, now_ns(), &refused_by), -EBUSY);
	ASSERT_STREQ(refused_by, PROTO_FLEET_BUDGET_ORIGIN);
	/* The record goes on past the alert's max_age. */
	while (realtime_ns() - a.end_realtime_ns <= 3 * r.conf->fleet.max_age_ns)
		usleep(10000);
	pthread_mutex_unlock(&r.slot.lock);

	res = next_result(&r);
	ASSERT_EQ(res->kind, WAITER_ADMITTED);
	waiter_result_free(res);
	res = next_result(&r);
	ASSERT_EQ(res->kind, WAITER_SNAPSHOT);
	ASSERT_EQ(res->causes[0].kind, CAUSE_MANUAL);
	waiter_result_free(res);
	res = next_result(&r);
	ASSERT_EQ(res->kind, WAITER_STALE);
	ASSERT_EQ(res->n, 1);
	ASSERT_EQ(res->causes[0].kind, CAUSE_PEER);
	ASSERT_STREQ(res->causes[0].peer.alert.incident, "host-b-9");
	waiter_result_free(res);
	/* Its token is back: another alert of the same origin is admitted. */
	snprintf(a.incident, sizeof(a.incident), "host-b-11");
	a.end_realtime_ns = realtime_ns();
	ASSERT_EQ(waiter_peer(r.w, &a, now_ns(), &refused_by), 0);
	ASSERT_TRUE(refused_by == NULL);
	res = next_result(&r); /* recorded, or stale on a machine slower than max_age */
	ASSERT_EQ(res->causes[0].kind, CAUSE_PEER);
	ASSERT_STREQ(res->causes[0].peer.alert.incident, "host-b-11");
	waiter_result_free(res);
	rig_stop(&r);
}

/*
 * The record's size is 32 bits: one whose low 16 bits look right is still not ours, and
 * the buffer it came in is dropped; the next record is read as usual.
 */
static void test_record_size(void)
{
	struct waiter_stats st = {0};
	struct waiter_result *res;
	struct rig r;

	rig_start(&r, NULL);
	write_alert(&r, 0x10000 + LATENCY_TRACKER_RECORD_SIZE, "wakeup");
	for (int ms = 0; !st.garbage && !st.alerts && ms < WAIT_MS; ms++) {
		usleep(1000);
		waiter_get_stats(r.w, &st, NULL);
	}
	ASSERT_EQ(st.garbage, 1);
	ASSERT_EQ(st.alerts, 0);
	write_alert(&r, LATENCY_TRACKER_RECORD_SIZE, "wakeup");
	res = next_result(&r);
	ASSERT_EQ(res->kind, WAITER_SNAPSHOT);
	ASSERT_STREQ(res->name, "test-1");
	waiter_result_free(res);
	waiter_get_stats(r.w, &st, NULL);
	ASSERT_EQ(st.alerts, 1);
	rig_stop(&r);
}

/* Whether the waiter's eventfd wakes the main loop within WAIT_MS; its count is read. */
static bool main_loop_woken(struct waiter *w)
{
	struct pollfd p = {.fd = waiter_eventfd(w), .events = POLLIN};
	uint64_t v;

	if (poll(&p, 1, WAIT_MS) != 1)
		return false;
	ASSERT_EQ(read(p.fd, &v, sizeof(v)), sizeof(v));
	return true;
}

/*
 * An unreadable record, which makes no result, still wakes the main loop, which says so
 * (the thread does not log): the count it reads has it.
 */
static void test_garbage_told(void)
{
	struct waiter_stats st;
	struct rig r;

	rig_start(&r, NULL);
	write_alert(&r, LATENCY_TRACKER_RECORD_SIZE - 1, "wakeup");
	ASSERT_TRUE(main_loop_woken(r.w));
	ASSERT_TRUE(!waiter_take_results(r.w));
	waiter_get_stats(r.w, &st, NULL);
	ASSERT_EQ(st.garbage, 1);
	ASSERT_EQ(st.alerts, 0);
	ASSERT_EQ(st.ended, 0);
	rig_stop(&r);
}

/*
 * A thread whose read of the notification file fails leaves its loop: the main loop is
 * woken, and the count says a thread ended, on which call and why. Here the file is one the
 * thread cannot read (opened for writing only): poll says it is readable, read fails.
 */
static void test_thread_end_told(void)
{
	char dir[] = "/tmp/test-waiter.XXXXXX", fifo[PATH_MAX];
	struct flight_slot slot = {0};
	struct waiter_stats st;
	struct waiter *w;
	int unreadable;
	bool rt;

	ASSERT_TRUE(mkdtemp(dir));
	snprintf(fifo, sizeof(fifo), "%s/notify", dir);
	ASSERT_EQ(mkfifo(fifo, 0600), 0);
	ASSERT_EQ(pi_mutex_init(&slot.lock), 0);
	ASSERT_EQ(waiter_new(fifo, &slot, "test", 1, &w), 0);
	unreadable = open("/dev/null", O_WRONLY | O_CLOEXEC);
	ASSERT_TRUE(unreadable >= 0);
	ASSERT_TRUE(dup3(unreadable, w->fd, O_CLOEXEC) == w->fd);
	close(unreadable);
	ASSERT_EQ(waiter_start(w, 0, false, &rt), 0);
	ASSERT_EQ(waiter_threads(w), 1);
	ASSERT_TRUE(main_loop_woken(w));
	waiter_get_stats(w, &st, NULL);
	ASSERT_EQ(st.ended, 1);
	ASSERT_EQ(st.end_error, -EBADF);
	ASSERT_STREQ(st.end_call, "read");
	waiter_free(w);
	pthread_mutex_destroy(&slot.lock);
	ASSERT_EQ(unlink(fifo), 0);
	ASSERT_EQ(rmdir(dir), 0);
}

/* Waits until the waiter is inside a record: between its start and the slot's lock. */
static void wait_busy(struct rig *r)
{
	for (int ms = 0; !waiter_busy_ns(r->w) && ms < WAIT_MS; ms++)
		usleep(1000);
	ASSERT_TRUE(waiter_busy_ns(r->w) > 0);
}

/* The waiter's results so far: none a snapshot (the stop had them, or none was made). */
static void no_snapshot_handed_over(struct rig *r)
{
	struct waiter_result *list = waiter_take_results(r->w);

	for (struct waiter_result *res = list; res; res = res->next) {
		if (res->kind == WAITER_SNAPSHOT)
			fprintf(stderr, "handed over: snapshot %llu (%s), error %d\n",
				(unsigned long long)res->id, res->name, res->error);
		ASSERT_TRUE(res->kind != WAITER_SNAPSHOT);
	}
	waiter_result_free(list);
}

/*
 * The stop gives up on a record sessiond (here: the slot, held) does not answer by its
 * deadline: its failed copy is the stop's. Sessiond answers after all: the thread hands
 * over nothing of that record (the catalog would have it twice, both sharing its
 * directory), and records nothing more, though an alert waits for it in its buffer.
 */
static void test_stop_takes_record_over(void)
{
	struct waiter_result *left;
	struct rig r;

	rig_start(&r, NULL);
	pthread_mutex_lock(&r.slot.lock);
	write_alert(&r, LATENCY_TRACKER_RECORD_SIZE, "wakeup");
	wait_busy(&r);
	/* Ends after that record began: the thread's next record, were it to make one. */
	write_alert_ending(&r, LATENCY_TRACKER_RECORD_SIZE, "offcpu", now_ns() + 60000000000ULL);
	ASSERT_EQ(waiter_stop_by(r.w, now_ns() + 100000000, &left), -ETIMEDOUT);
	ASSERT_TRUE(left);
	ASSERT_EQ(left->kind, WAITER_SNAPSHOT);
	ASSERT_EQ(left->id, 1);
	ASSERT_STREQ(left->name, "test-1");
	ASSERT_EQ(left->error, FLIGHT_ERR_ABANDONED);
	ASSERT_EQ(left->n, 1);
	ASSERT_EQ(left->causes[0].kind, CAUSE_ALERT);
	waiter_result_free(left);

	pthread_mutex_unlock(&r.slot.lock); /* sessiond answers, past the deadline */
	ASSERT_EQ(waiter_stop_by(r.w, now_ns() + (uint64_t)WAIT_MS * 1000000, &left), 0);
	ASSERT_TRUE(!left);
	no_snapshot_handed_over(&r);
	rig_stop(&r);
}

/* Whether the waiter's thread is in futex(2): blocked on a lock (the run lock, held). */
static bool waiter_thread_in_futex(void)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *de;
	bool in = false;

	ASSERT_TRUE(d);
	while (!in && (de = readdir(d))) {
		char path[300], text[64] = "";
		FILE *f;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/comm", de->d_name);
		f = fopen(path, "r");
		if (!f || !fgets(text, sizeof(text), f) || strcmp(text, "latencyd-waiter\n") != 0) {
			if (f)
				fclose(f);
			continue;
		}
		fclose(f);
		snprintf(path, sizeof(path), "/proc/self/task/%s/syscall", de->d_name);
		f = fopen(path, "r");
		ASSERT_TRUE(f);
		in = fgets(text, sizeof(text), f) && atol(text) == SYS_futex;
		fclose(f);
	}
	closedir(d);
	return in;
}

struct stopper {
	struct waiter *w;
	uint64_t deadline;
	int r;
	struct waiter_result *left;
	_Atomic bool handed_over; /* set by the test once it handed its result over */
	bool handed_over_before;  /* ... before waiter_stop_by() returned */
	_Atomic bool done;
};

static void *stopper_run(void *arg)
{
	struct stopper *s = arg;

	s->r = waiter_stop_by(s->w, s->deadline, &s->left);
	s->handed_over_before = atomic_load(&s->handed_over);
	atomic_store(&s->done, true);
	return NULL;
}

/*
 * The other order: at the deadline the thread is past its record (sessiond answered just
 * before), its result not handed over yet. The test is that thread (it holds the turn and
 * records by hand); the waiter's own thread, woken by an alert, waits for the turn. The stop
 * finds no record under way: it waits for the result to be handed over before it returns
 * (the caller takes the results then), and the thread waiting for its turn records
 * nothing once it has it.
 */
static void test_stop_waits_for_handover(void)
{
	struct stopper s = {0};
	struct waiter_result *res, *list;
	pthread_t stopper;
	struct rig r;

	rig_start(&r, NULL);
	pthread_mutex_lock(&r.w->run);
	write_alert(&r, LATENCY_TRACKER_RECORD_SIZE, "wakeup");
	for (int ms = 0; !waiter_thread_in_futex() && ms < WAIT_MS; ms++)
		usleep(1000);
	ASSERT_TRUE(waiter_thread_in_futex());

	res = waiter_result_new(WAITER_SNAPSHOT, 1);
	ASSERT_TRUE(res);
	res->id = 1000;
	res->causes[res->n++].kind = CAUSE_MANUAL;
	waiter_record_begins(r.w, res, now_ns());
	waiter_record_over(r.w); /* sessiond answered */

	s.w = r.w;
	s.deadline = now_ns() + 100000000;
	ASSERT_EQ(pthread_create(&stopper, NULL, stopper_run, &s), 0);
	/* The stop gave up at its deadline (its mark is there), or returned. */
	for (int ms = 0; !atomic_load(&r.w->current) && !atomic_load(&s.done) && ms < WAIT_MS; ms++)
		usleep(1000);
	waiter_push(r.w, res);
	atomic_store(&s.handed_over, true);
	pthread_mutex_unlock(&r.w->run);
	ASSERT_EQ(pthread_join(stopper, NULL), 0);

	ASSERT_EQ(s.r, 0);
	ASSERT_TRUE(!s.left);
	ASSERT_TRUE(s.handed_over_before);
	list = waiter_take_results(r.w);
	for (struct waiter_result *x = list; x; x = x->next)
		if (x->kind == WAITER_SNAPSHOT)
			fprintf(stderr, "handed over: snapshot %llu, error %d\n",
				(unsigned long long)x->id, x->error);
	ASSERT_TRUE(list && list->id == 1000 && !list->next);
	waiter_result_free(list);
	/* Given up: a record about to begin does not. */
	res = waiter_result_new(WAITER_SNAPSHOT, 1);
	ASSERT_TRUE(!waiter_record_begins(r.w, res, now_ns()));
	waiter_result_free(res);
	rig_stop(&r);
}

/* The global bucket at 1 token in 1000 s: empty when EMPTY (each alert refused), else full. */
static void rig_limit(struct rig *r, bool empty)
{
	r->conf->ratelimit.rate = 0.001;
	r->conf->ratelimit.burst = 1;
	ASSERT_EQ(waiter_configure(r->w, r->conf, NULL, 0), 0);
	if (!empty)
		return;
	pthread_mutex_lock(&r->w->lock);
	r->w->limits.global.tokens = 0;
	pthread_mutex_unlock(&r->w->lock);
}

/*
 * The test holds the turn (the run lock) while it writes, so that the thread reads what was
 * written in one turn; it takes the turn back once that turn is over: the lock is
 * priority-inheriting, handed to the thread waiting for it when let go.
 */
static void hold_turn(struct rig *r)
{
	pthread_mutex_lock(&r->w->run);
}

static void one_turn(struct rig *r)
{
	for (int ms = 0; !waiter_thread_in_futex() && ms < WAIT_MS; ms++)
		usleep(1000);
	ASSERT_TRUE(waiter_thread_in_futex());
	pthread_mutex_unlock(&r->w->run);
	pthread_mutex_lock(&r->w->run);
}

/*
 * The module hands out at most 16 records a read, a FIFO as many as fit the read: either
 * way a turn reads until the file is empty, whatever it got per read. 200 alerts refused
 * (a storm) in one turn: none left in the FIFO once it is over.
 */
static void test_turn_reads_all(void)
{
	struct waiter_stats st;
	struct rig r;
	int left = -1;

	rig_start(&r, NULL);
	rig_limit(&r, true);
	hold_turn(&r);
	for (int i = 0; i < 200; i++)
		write_alert(&r, LATENCY_TRACKER_RECORD_SIZE, "wakeup");
	one_turn(&r);
	ASSERT_EQ(ioctl(r.writer, FIONREAD, &left), 0);
	waiter_get_stats(r.w, &st, NULL);
	pthread_mutex_unlock(&r.w->run);
	if (left)
		fprintf(stderr, "left in the FIFO after one turn: %d bytes\n", left);
	ASSERT_EQ(left, 0);
	ASSERT_EQ(st.alerts, 200);
	ASSERT_EQ(st.suppressed, 200);
	rig_stop(&r);
}

/*
 * A record not tried (no session in the slot, or the slot held by a check inside
 * lttng-sessiond): the first of an outage takes no token (a sessiond restarting under an
 * alert costs no budget), and the alerts queued behind it get records of their own. The
 * next ones take their tokens and the queued alerts join them, as records do: an outage
 * under a storm is a failed record per token, not one per alert. A peer's alike, with its
 * origin's bucket.
 */
static double tokens_of(struct rig *r)
{
	struct waiter_stats st;
	double tokens;

	waiter_get_stats(r->w, &st, &tokens);
	return tokens;
}

static void untried_alerts(struct rig *r, int error)
{
	struct waiter_result *res;

	write_alert(r, LATENCY_TRACKER_RECORD_SIZE, "wakeup");
	res = next_result(r);
	ASSERT_EQ(res->kind, WAITER_SNAPSHOT);
	ASSERT_EQ(res->error, error);
	waiter_result_free(res);
	ASSERT_TRUE(tokens_of(r) > 0.99); /* given back */
	write_alert(r, LATENCY_TRACKER_RECORD_SIZE, "wakeup");
	res = next_result(r);
	ASSERT_EQ(res->kind, WAITER_SNAPSHOT);
	ASSERT_EQ(res->error, error);
	waiter_result_free(res);
	ASSERT_TRUE(tokens_of(r) < 0.01); /* taken */
	write_alert(r, LATENCY_TRACKER_RECORD_SIZE, "wakeup");
	res = next_result(r);
	ASSERT_EQ(res->kind, WAITER_SUPPRESSED);
	waiter_result_free(res);
}

static void test_untried_takes_nothing(void)
{
	struct proto_fleet_alert a = {.host = "host-b", .incident = "host-b-1"};
	const char *refused_by = NULL;
	struct waiter_result *res;
	struct rig r;

	rig_start(&r, NULL);
	rig_limit(&r, false);
	untried_alerts(&r, FLIGHT_ERR_NO_SESSION);
	/* A session came and went (sessiond restarted twice): another outage, its first free. */
	pthread_mutex_lock(&r.w->lock);
	r.w->limits.global.tokens = 1;
	pthread_mutex_unlock(&r.w->lock);
	atomic_fetch_add(&r.slot.sessions, 1);
	untried_alerts(&r, FLIGHT_ERR_NO_SESSION);
	rig_stop(&r);

	/* A hundred read in one turn: the first alone, the 99 others in the second. */
	rig_start(&r, NULL);
	rig_limit(&r, false);
	hold_turn(&r);
	for (int i = 0; i < 100; i++)
		write_alert(&r, LATENCY_TRACKER_RECORD_SIZE, i ? "offcpu" : "wakeup");
	one_turn(&r);
	pthread_mutex_unlock(&r.w->run);
	for (int i = 0; i < 2; i++) {
		res = next_result(&r);
		ASSERT_EQ(res->kind, WAITER_SNAPSHOT);
		ASSERT_EQ(res->error, FLIGHT_ERR_NO_SESSION);
		ASSERT_EQ(res->n, i ? 99 : 1);
		ASSERT_STREQ((char *)res->causes[0].alert.tracker, i ? "offcpu" : "wakeup");
		waiter_result_free(res);
	}
	write_alert(&r, LATENCY_TRACKER_RECORD_SIZE, "wakeup");
	res = next_result(&r);
	ASSERT_EQ(res->kind, WAITER_SUPPRESSED);
	waiter_result_free(res);
	rig_stop(&r);

	/* The slot held by a check inside sessiond for long: not tried either. */
	rig_start(&r, NULL);
	rig_limit(&r, false);
	pthread_mutex_lock(&r.slot.lock);
	atomic_store(&r.slot.check_since, now_ns() - 60000000000ULL);
	untried_alerts(&r, FLIGHT_ERR_SESSIOND_BUSY);
	atomic_store(&r.slot.check_since, 0);
	pthread_mutex_unlock(&r.slot.lock);
	rig_stop(&r);

	/* A peer's: its origin's bucket holds one. */
	rig_start(&r, NULL);
	r.conf->fleet.peer_rate = 0.001;
	r.conf->fleet.peer_burst = 1;
	ASSERT_EQ(waiter_configure(r.w, r.conf, "host-a", 0), 0);
	a.end_realtime_ns = realtime_ns();
	for (int i = 0; i < 2; i++) {
		ASSERT_EQ(waiter_peer(r.w, &a, now_ns(), &refused_by), 0);
		res = next_result(&r);
		ASSERT_EQ(res->kind, WAITER_SNAPSHOT);
		ASSERT_EQ(res->causes[0].kind, CAUSE_PEER);
		ASSERT_EQ(res->error, FLIGHT_ERR_NO_SESSION);
		waiter_result_free(res);
	}
	ASSERT_TRUE(waiter_peer(r.w, &a, now_ns(), &refused_by) < 0);
	ASSERT_TRUE(refused_by != NULL);
	rig_stop(&r);
}

/*
 * The thread's results come from the waiter's pool, and go back there when freed (the next
 * one is the same memory); with the pool empty (the main loop late), from malloc(),
 * counted, complete all the same.
 */
static void test_results_pooled(void)
{
	struct waiter_result *res, *held[WAITER_POOL_LARGE + 2];
	struct waiter_stats st;
	void *first;
	struct rig r;

	rig_start(&r, NULL);
	write_alert(&r, LATENCY_TRACKER_RECORD_SIZE, "wakeup");
	res = next_result(&r);
	ASSERT_EQ(res->kind, WAITER_SNAPSHOT);
	ASSERT_TRUE(res->pool == r.w);
	first = res;
	waiter_result_free(res);
	write_alert(&r, LATENCY_TRACKER_RECORD_SIZE, "wakeup");
	res = next_result(&r);
	ASSERT_TRUE((void *)res == first);
	ASSERT_STREQ(res->name, "test-2");
	ASSERT_EQ(res->n, 1);
	waiter_result_free(res);

	for (size_t i = 0; i < WAITER_POOL_LARGE + 2; i++) {
		char name[32];

		write_alert(&r, LATENCY_TRACKER_RECORD_SIZE, "wakeup");
		held[i] = next_result(&r);
		snprintf(name, sizeof(name), "test-%zu", i + 3);
		ASSERT_EQ(held[i]->kind, WAITER_SNAPSHOT);
		ASSERT_STREQ(held[i]->name, name);
		ASSERT_EQ(held[i]->n, 1);
		ASSERT_TRUE((held[i]->pool == NULL) == (i >= WAITER_POOL_LARGE));
	}
	waiter_get_stats(r.w, &st, NULL);
	ASSERT_EQ(st.pool_empty, 2);
	for (size_t i = 0; i < WAITER_POOL_LARGE + 2; i++)
		waiter_result_free(held[i]);
	rig_stop(&r);
}

#ifdef SYS_poll
/* Whether the thread TID is in a storm's nap: poll() with its STORM_NAP_MS (10) timeout. */
static bool napping(const char *tid)
{
	char path[300];
	unsigned long fds, nfds, timeout;
	long nr;
	bool in = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%s/syscall", tid);
	f = fopen(path, "r");
	if (!f)
		return false;
	in = fscanf(f, "%ld %lx %lx %lx", &nr, &fds, &nfds, &timeout) == 4 && nr == SYS_poll &&
	     nfds == 4 && timeout == 10;
	fclose(f);
	return in;
}

/* How many of the waiter's threads nap right now; the first one's tid in *FIRST (0: none). */
static int threads_napping_tid(pid_t *first)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *de;
	int n = 0;

	ASSERT_TRUE(d);
	while ((de = readdir(d))) {
		char path[300], text[64] = "";
		FILE *f;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/comm", de->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fgets(text, sizeof(text), f) && strcmp(text, "latencyd-waiter\n") == 0 &&
		    napping(de->d_name) && n++ == 0 && first)
			*first = (pid_t)atoi(de->d_name);
		fclose(f);
	}
	closedir(d);
	return n;
}

static int threads_napping(void)
{
	return threads_napping_tid(NULL);
}

struct storm {
	struct rig *r;
	_Atomic bool stop;
};

/* An alert a millisecond, every one refused: a storm that goes on. */
static void *storm_run(void *arg)
{
	struct storm *st = arg;
	struct latency_tracker_record rec = {
		.size = LATENCY_TRACKER_RECORD_SIZE,
		.version = LATENCY_TRACKER_RECORD_VERSION,
		.kind = LATENCY_TRACKER_REC_ALERT,
		.tracker = "wakeup",
	};

	while (!atomic_load(&st->stop)) {
		rec.end_ns = now_ns();
		if (write(st->r->writer, &rec, sizeof(rec)) < 0) {
			/* full: the thread is behind, which is what a storm is */
		}
		usleep(1000);
	}
	return NULL;
}
#endif

/*
 * In a storm one thread, its keeper, naps between reads; the others wait for its end, even
 * those that ran a turn meanwhile: never two napping at once.
 */
static void test_storm_one_keeper(void)
{
#ifdef SYS_poll
	struct storm st = {0};
	int most = 0, seen = 0;
	pthread_t writer;
	struct rig r;

	if (!rig_start_per_cpu(&r))
		return;
	rig_limit(&r, true);
	st.r = &r;
	ASSERT_EQ(pthread_create(&writer, NULL, storm_run, &st), 0);
	for (int i = 0; i < 500; i++) {
		int n = threads_napping();

		most = n > most ? n : most;
		seen += n > 0;
		usleep(1000);
	}
	atomic_store(&st.stop, true);
	ASSERT_EQ(pthread_join(writer, NULL), 0);
	if (most > 1)
		fprintf(stderr, "%d waiter threads napping at once\n", most);
	ASSERT_EQ(most, 1);
	ASSERT_TRUE(seen > 0);
	rig_stop(&r);
#else
	fprintf(stderr, "no poll(2) on this architecture: its timeout cannot be seen\n");
#endif
}

struct hog {
	int cpu;
	uint64_t until_ns;
	_Atomic int started; /* 1 running at SCHED_FIFO 90, -1 refused */
};

/* A realtime task holding CPU hog->cpu until until_ns, as a storm's culprit may. */
static void *hog_run(void *arg)
{
	struct hog *h = arg;
	struct sched_param sp = {.sched_priority = 90};
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(h->cpu, &set);
	if (pthread_setaffinity_np(pthread_self(), sizeof(set), &set) ||
	    pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp)) {
		atomic_store(&h->started, -1);
		return NULL;
	}
	atomic_store(&h->started, 1);
	while (now_ns() < h->until_ns) {
	}
	return NULL;
}

/* Every thread but the waiter's: on CPU, away from the one a realtime task holds. */
static void pin_to(pthread_t t, int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	ASSERT_EQ(pthread_setaffinity_np(t, sizeof(set), &set), 0);
}

/*
 * A storm's keeper held off its CPU by a realtime task of a higher priority: another thread
 * takes its place and reads the file meanwhile (it naps in its turn), said in the stats.
 */
static void test_storm_keeper_held_off(void)
{
#ifdef SYS_poll
	struct storm st = {0};
	struct hog h = {0};
	struct waiter_stats ws;
	pid_t keeper = 0, other = 0;
	pthread_t writer, hog;
	cpu_set_t set, all;
	struct rig r;
	int away;

	ASSERT_EQ(sched_getaffinity(0, sizeof(all), &all), 0);
	if (!rig_start_per_cpu(&r))
		return;
	rig_limit(&r, true);
	st.r = &r;
	ASSERT_EQ(pthread_create(&writer, NULL, storm_run, &st), 0);
	for (int i = 0; i < 5000 && !keeper; i++) {
		threads_napping_tid(&keeper);
		usleep(1000);
	}
	ASSERT_TRUE(keeper > 0);
	ASSERT_EQ(sched_getaffinity(keeper, sizeof(set), &set), 0);
	ASSERT_EQ(CPU_COUNT(&set), 1);
	for (h.cpu = 0; !CPU_ISSET(h.cpu, &set); h.cpu++) {
	}
	away = h.cpu == 0 ? 1 : 0;
	pin_to(pthread_self(), away);
	pin_to(writer, away);
	h.until_ns = now_ns() + UINT64_C(800) * 1000 * 1000;
	ASSERT_EQ(pthread_create(&hog, NULL, hog_run, &h), 0);
	while (!atomic_load(&h.started))
		usleep(1000);
	if (atomic_load(&h.started) < 0) {
		fprintf(stderr, "no SCHED_FIFO here: nothing to hold the keeper off\n");
	} else {
		while (now_ns() < h.until_ns && (!other || other == keeper)) {
			other = 0;
			threads_napping_tid(&other);
			usleep(1000);
		}
	}
	ASSERT_EQ(pthread_join(hog, NULL), 0);
	atomic_store(&st.stop, true);
	ASSERT_EQ(pthread_join(writer, NULL), 0);
	waiter_get_stats(r.w, &ws, NULL);
	rig_stop(&r);
	ASSERT_EQ(sched_setaffinity(0, sizeof(all), &all), 0);
	if (atomic_load(&h.started) < 0)
		return;
	if (!other || other == keeper)
		fprintf(stderr, "keeper %d held off, no other thread napped\n", (int)keeper);
	ASSERT_TRUE(other > 0 && other != keeper);
	ASSERT_TRUE(ws.takeovers >= 1);
#else
	fprintf(stderr, "no poll(2) on this architecture: its timeout cannot be seen\n");
#endif
}

/*
 * A manual record while a realtime task holds the first waiter thread's CPU: another
 * thread takes it, before that task lets the CPU go.
 */
static void test_request_first_cpu_held(void)
{
	struct hog h = {0};
	struct waiter_result *res;
	pthread_t hog;
	cpu_set_t set;
	uint64_t served;
	struct rig r;

	ASSERT_EQ(sched_getaffinity(0, sizeof(set), &set), 0);
	if (!rig_start_per_cpu(&r))
		return;
	for (h.cpu = 0; !CPU_ISSET(h.cpu, &set); h.cpu++) {
	}
	pin_to(pthread_self(), h.cpu == 0 ? 1 : 0);
	h.until_ns = now_ns() + UINT64_C(800) * 1000 * 1000;
	ASSERT_EQ(pthread_create(&hog, NULL, hog_run, &h), 0);
	while (!atomic_load(&h.started))
		usleep(1000);
	if (atomic_load(&h.started) > 0)
		ASSERT_EQ(waiter_request(r.w, 1, getpid(), "held"), 0);
	ASSERT_EQ(pthread_join(hog, NULL), 0);
	ASSERT_EQ(sched_setaffinity(0, sizeof(set), &set), 0);
	if (atomic_load(&h.started) < 0) {
		fprintf(stderr, "no SCHED_FIFO here: nothing to hold the CPU\n");
		rig_stop(&r);
		return;
	}
	res = next_result(&r);
	served = res->kind == WAITER_SNAPSHOT ? res->causes[0].manual.time_ns : 0;
	ASSERT_EQ(res->kind, WAITER_SNAPSHOT);
	ASSERT_EQ(res->causes[0].kind, CAUSE_MANUAL);
	waiter_result_free(res);
	rig_stop(&r);
	if (served >= h.until_ns)
		fprintf(stderr, "the request was taken %" PRIu64 " ms after the CPU was let go\n",
			(served - h.until_ns) / 1000000);
	ASSERT_TRUE(served < h.until_ns);
}

/* A thread's name is its comm, 15 characters at most: a longer one is refused, not lost. */
static void *idle_run(void *arg)
{
	return arg;
}

static void test_thread_name_checked(void)
{
	pthread_t t;

	ASSERT_EQ(thread_start(&t, SCHED_OTHER, 0, THREAD_STACK_WORKER, idle_run, NULL,
			       "latencyd-sessiond"),
		  -ENAMETOOLONG);
	ASSERT_EQ(thread_start(&t, SCHED_OTHER, 0, THREAD_STACK_WORKER, idle_run, NULL,
			       "latencyd-lttng"),
		  0);
	ASSERT_EQ(pthread_join(t, NULL), 0);
}

int main(void)
{
	RUN(test_fleet_names);
	RUN(test_peer_during_record);
	RUN(test_peer_budget_before_queue);
	RUN(test_peer_stale_when_taken);
	RUN(test_record_size);
	RUN(test_garbage_told);
	RUN(test_thread_end_told);
	RUN(test_stop_takes_record_over);
	RUN(test_stop_waits_for_handover);
	RUN(test_turn_reads_all);
	RUN(test_untried_takes_nothing);
	RUN(test_results_pooled);
	RUN(test_storm_one_keeper);
	RUN(test_storm_keeper_held_off);
	RUN(test_request_first_cpu_held);
	RUN(test_thread_name_checked);
	return 0;
}
