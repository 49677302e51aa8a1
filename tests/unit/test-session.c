/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The session in its slot (session.c) when it cannot be created again: a re-size by
 * session.history or a reload destroys the session first, so a failure leaves none, and
 * the check must come back to create it, with the sub-buffers of the session it had. The
 * session fails here before any call to lttng-sessiond (its relayd URL does not parse), so
 * whether one runs on this machine does not matter. Each operation is the sessiond
 * worker's: the caller returns at once, the result comes through the event loop.
 */
#include <errno.h>
#include <linux/filter.h>
#include <linux/futex.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <systemd/sd-event.h>

#include "fsutil.h"
#include "history.h"
#include "recorder_internal.h"
#include "tests.h"

static void set_string(char **field, const char *value)
{
	free(*field);
	*field = strdup(value);
	ASSERT_TRUE(*field);
}

static struct conf *conf_for(const char *dir)
{
	struct conf *c;

	ASSERT_EQ(conf_new_defaults(&c), 0);
	set_string(&c->session.name, "test-session");
	set_string(&c->output.directory, dir);
	set_string(&c->output.relayd, "not a url");
	c->session.domain = CONF_DOMAIN_USERSPACE;
	c->session.subbuf_size = 4096;
	c->session.num_subbuf = 4;
	c->session.history_ns = 10 * 1000000000ull;
	return c;
}

/* Whether the check runs: as if sessiond's exit were watched, it is off before each case. */
static bool check_on(struct session *se)
{
	int state = SD_EVENT_OFF;

	ASSERT_TRUE(sd_event_source_get_enabled(se->check, &state) >= 0);
	return state != SD_EVENT_OFF;
}

/* A session started on its configuration c, and changed, the one a reload brings. */
struct fixture {
	char dir[32];
	struct conf *c, *changed;
	struct session se;
	sd_event *event;
};

static void fixture_up(struct fixture *f)
{
	snprintf(f->dir, sizeof(f->dir), "/tmp/test-session.XXXXXX");
	ASSERT_TRUE(mkdtemp(f->dir));
	f->c = conf_for(f->dir);
	f->changed = conf_for(f->dir);
	f->changed->output.max_size = 1 << 20;
	ASSERT_EQ(sd_event_new(&f->event), 0);
	ASSERT_EQ(session_init(&f->se, f->event, f->c), 0);
	ASSERT_EQ(session_start(&f->se), 0);
}

static void fixture_down(struct fixture *f)
{
	session_done(&f->se);
	sd_event_unref(f->event);
	conf_free(f->changed);
	conf_free(f->c);
	ASSERT_EQ(rm_tree(f->dir), 0);
}

/* Runs the event loop until the worker's jobs are done and taken. */
static void finish_jobs(struct fixture *f)
{
	uint64_t ns;

	alarm(60); /* a job that never ends would be for ever */
	while (session_operation(&f->se, &ns) >= 0)
		ASSERT_TRUE(sd_event_run(f->event, 1000000) >= 0);
	alarm(0);
}

static void test_recreate_fails(void)
{
	struct history h = {.events_per_sec = 1e6, .bytes_per_event = 100};
	struct fixture f;
	struct session *se = &f.se;

	fixture_up(&f);
	ASSERT_TRUE(!session_present(se));

	/*
	 * A re-size that fails keeps the size the session had, for the check (at once, then
	 * every few seconds) to create it.
	 */
	se->sizing.subbuf_size = 8192;
	ASSERT_EQ(sd_event_source_set_enabled(se->check, SD_EVENT_OFF), 0);
	ASSERT_TRUE(session_fit_history(se, &h));
	/* Asked of the worker: the old session records until it is done. */
	ASSERT_TRUE(se->sizing.pending > 8192);
	ASSERT_EQ(session_subbuf_size(se), 8192);
	finish_jobs(&f);
	ASSERT_EQ(se->sizing.subbuf_size, 8192);
	ASSERT_EQ(se->sizing.pending, 0);
	ASSERT_EQ(se->sizing.resized, 0);
	ASSERT_EQ(session_subbuf_size(se), 8192);
	ASSERT_TRUE(check_on(se));
	ASSERT_TRUE(se->error < 0);
	ASSERT_TRUE(!session_present(se));

	/* A reload whose session cannot be created. */
	ASSERT_EQ(sd_event_source_set_enabled(se->check, SD_EVENT_OFF), 0);
	session_reconfigure(se, f.changed, f.c);
	finish_jobs(&f);
	ASSERT_TRUE(check_on(se));

	fixture_down(&f);
}

/*
 * A record holds the slot for as long as lttng-sessiond takes (without bound when it is
 * stopped): a reload's re-creation waits for it on the worker, never on the caller, and a
 * re-size measured meanwhile is not asked for (the next measurement asks again).
 */
static void test_slot_held(void)
{
	struct history h = {.events_per_sec = 1e6, .bytes_per_event = 100};
	struct fixture f;
	struct session *se = &f.se;
	uint64_t ns;

	fixture_up(&f);
	ASSERT_EQ(pthread_mutex_lock(&se->slot.lock), 0);
	alarm(60); /* waiting for the slot would be for ever: this test holds it */
	session_reconfigure(se, f.changed, f.c);
	ASSERT_EQ(session_operation(se, &ns), SESSION_OP_RECREATE);
	ASSERT_TRUE(!session_fit_history(se, &h));
	ASSERT_EQ(se->sizing.resized, 0);
	/* The main loop goes on meanwhile: the job stays under way. */
	ASSERT_TRUE(sd_event_run(f.event, 100000) >= 0);
	ASSERT_EQ(session_operation(se, &ns), SESSION_OP_RECREATE);
	/* A reload that changes nothing of the session asks nothing of the worker. */
	ASSERT_EQ(session_reconfigure(se, f.changed, f.changed), -1);
	alarm(0);
	ASSERT_EQ(pthread_mutex_unlock(&se->slot.lock), 0);
	finish_jobs(&f);
	ASSERT_EQ(se->reload, SESSION_RELOAD_NONE);

	/*
	 * Free again: a re-size is asked for; the size in use stays the old session's while
	 * the worker waits for the slot (a record under way).
	 */
	ASSERT_EQ(pthread_mutex_lock(&se->slot.lock), 0);
	alarm(60);
	ASSERT_TRUE(session_fit_history(se, &h));
	ASSERT_EQ(session_operation(se, &ns), SESSION_OP_RECREATE);
	ASSERT_EQ(session_subbuf_size(se), f.c->session.subbuf_size);
	/* The worker is inside the job (once it took it): a stop says it waits for it. */
	while (session_busy(se, &ns) < 0)
		usleep(1000);
	ASSERT_EQ(session_busy(se, &ns), SESSION_OP_RECREATE);
	ASSERT_EQ(pthread_mutex_unlock(&se->slot.lock), 0);
	/* Done, its result not taken yet: the worker waits for nothing any more. */
	ASSERT_TRUE(sessiond_worker_wait(se->worker, now_ns() + 60 * 1000000000ULL));
	alarm(0);
	ASSERT_EQ(session_operation(se, &ns), SESSION_OP_RECREATE);
	ASSERT_EQ(session_busy(se, &ns), -1);
	finish_jobs(&f);

	fixture_down(&f);
}

/* A reload's reply names only what that reload asked of the worker. */
static void test_reload_op(void)
{
	struct fixture f;
	struct session *se = &f.se;
	struct conf *live;
	uint64_t ns;

	fixture_up(&f);
	live = conf_for(f.dir);
	live->output.max_size = f.changed->output.max_size;
	live->output.relayd_timeout_ns = 5 * 1000000000ULL;
	ASSERT_EQ(pthread_mutex_lock(&se->slot.lock), 0);
	alarm(60);
	ASSERT_EQ(session_reconfigure(se, f.changed, f.c), SESSION_OP_RECREATE);
	ASSERT_EQ(session_reconfigure(se, f.changed, f.changed), -1);
	/* A live setting with a re-creation queued: that re-creation applies it. */
	ASSERT_EQ(session_reconfigure(se, f.changed, f.c), SESSION_OP_RECREATE);
	ASSERT_EQ(session_reconfigure(se, live, f.changed), SESSION_OP_RECREATE);
	alarm(0);
	ASSERT_EQ(pthread_mutex_unlock(&se->slot.lock), 0);
	finish_jobs(&f);
	ASSERT_EQ(session_operation(se, &ns), -1);
	ASSERT_EQ(session_reconfigure(se, f.changed, live), SESSION_OP_UPDATE);
	finish_jobs(&f);
	session_reconfigure(se, f.c, f.changed);
	finish_jobs(&f);
	conf_free(live);

	fixture_down(&f);
}

/* Holds the slot's lock for HOLD_MS, then lets it go (released says it did). */
struct holder {
	struct flight_slot *slot;
	unsigned hold_ms;
	pthread_t thread;
	int held[2];
	atomic_bool released;
};

static void *hold(void *arg)
{
	struct holder *h = arg;

	pthread_mutex_lock(&h->slot->lock);
	ASSERT_EQ(write(h->held[1], "x", 1), 1);
	usleep(h->hold_ms * 1000);
	atomic_store(&h->released, true);
	pthread_mutex_unlock(&h->slot->lock);
	return NULL;
}

/* Returns once the holder holds the lock. */
static void holder_start(struct holder *h, struct flight_slot *slot, unsigned hold_ms)
{
	char c;

	*h = (struct holder){.slot = slot, .hold_ms = hold_ms};
	ASSERT_EQ(pipe(h->held), 0);
	ASSERT_EQ(pthread_create(&h->thread, NULL, hold, h), 0);
	ASSERT_EQ(read(h->held[0], &c, 1), 1);
}

static void holder_join(struct holder *h)
{
	ASSERT_EQ(pthread_join(h->thread, NULL), 0);
	close(h->held[0]);
	close(h->held[1]);
}

/*
 * The waiter's way to the slot: a check long inside sessiond is not waited for (the record
 * fails, the waiter goes on reading alerts); anyone else, or a check that just began, is.
 */
static void test_slot_lock(void)
{
	struct flight_slot slot = {0};
	struct holder h;

	ASSERT_EQ(pi_mutex_init(&slot.lock), 0);
	alarm(60);

	/* The check has been inside sessiond for a minute: not waited for. */
	holder_start(&h, &slot, 2000);
	atomic_store(&slot.check_since, now_ns() - 60 * 1000000000ULL);
	ASSERT_EQ(flight_slot_lock(&slot), FLIGHT_ERR_SESSIOND_BUSY);
	ASSERT_TRUE(!atomic_load(&h.released));
	atomic_store(&slot.check_since, 0);
	holder_join(&h);

	/* Free: taken. */
	ASSERT_EQ(flight_slot_lock(&slot), 0);
	ASSERT_EQ(pthread_mutex_unlock(&slot.lock), 0);

	/* Held by another than the check, even longer than a check is waited for: taken. */
	holder_start(&h, &slot, 600);
	ASSERT_EQ(flight_slot_lock(&slot), 0);
	ASSERT_TRUE(atomic_load(&h.released));
	ASSERT_EQ(pthread_mutex_unlock(&slot.lock), 0);
	holder_join(&h);

	/* A check that just began and answers: waited for, taken. */
	holder_start(&h, &slot, 10);
	atomic_store(&slot.check_since, now_ns());
	ASSERT_EQ(flight_slot_lock(&slot), 0);
	ASSERT_TRUE(atomic_load(&h.released));
	ASSERT_EQ(pthread_mutex_unlock(&slot.lock), 0);
	atomic_store(&slot.check_since, 0);
	holder_join(&h);

	alarm(0);
	ASSERT_EQ(pthread_mutex_destroy(&slot.lock), 0);
}

/*
 * The calls on CLOCK_REALTIME of the code under test: linked into this executable, it takes
 * this definition, which counts them and waits as the C library's would.
 */
static atomic_uint realtime_waits;

int pthread_mutex_timedlock(pthread_mutex_t *restrict m, const struct timespec *restrict ts)
{
	atomic_fetch_add(&realtime_waits, 1);
	return pthread_mutex_clocklock(m, CLOCK_REALTIME, ts);
}

/* Whether this kernel has FUTEX_LOCK_PI2 (Linux 5.14), a PI mutex's wait on CLOCK_MONOTONIC. */
static bool kernel_pi_monotonic(void)
{
	uint32_t word = 0;

	return syscall(SYS_futex, &word, FUTEX_LOCK_PI2, 0, NULL, NULL, 0) == 0;
}

/*
 * A record waits for the slot until a CLOCK_MONOTONIC deadline, never on the wall clock,
 * which a step backwards (NTP, an administrator) would make a longer wait: the check that
 * just began and does not answer is waited for that long, then not at all.
 */
static void test_slot_lock_monotonic(void)
{
	struct flight_slot slot = {0};
	struct holder h;

	if (!kernel_pi_monotonic()) {
		fprintf(stderr, "skipped: the kernel has no FUTEX_LOCK_PI2\n");
		return;
	}
	ASSERT_EQ(pi_mutex_init(&slot.lock), 0);
	alarm(60);
	atomic_store(&realtime_waits, 0);
	holder_start(&h, &slot, 2000);
	atomic_store(&slot.check_since, now_ns());
	ASSERT_EQ(flight_slot_lock(&slot), FLIGHT_ERR_SESSIOND_BUSY);
	ASSERT_TRUE(!atomic_load(&h.released));
	ASSERT_EQ(atomic_load(&realtime_waits), 0);
	atomic_store(&slot.check_since, 0);
	holder_join(&h);
	alarm(0);
	ASSERT_EQ(pthread_mutex_destroy(&slot.lock), 0);
}

/* FUTEX_LOCK_PI2 made ENOSYS for the calling thread, as a kernel before 5.14 answers it. */
static bool kernel_without_pi_monotonic(void)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_futex, 0, 4),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[1])),
		BPF_STMT(BPF_ALU | BPF_AND | BPF_K, FUTEX_CMD_MASK),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, FUTEX_LOCK_PI2, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = {.len = sizeof(f) / sizeof(f[0]), .filter = f};

	return prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0 &&
	       prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) == 0;
}

static void *slot_lock_without_pi_monotonic(void *arg)
{
	struct flight_slot *slot = arg;
	struct holder h;

	if (!kernel_without_pi_monotonic()) {
		fprintf(stderr, "skipped: no seccomp filter (%s)\n", strerror(errno));
		return NULL;
	}
	atomic_store(&realtime_waits, 0);
	/* A check that just began and does not answer: waited for, then not. */
	holder_start(&h, slot, 2000);
	atomic_store(&slot->check_since, now_ns());
	ASSERT_EQ(flight_slot_lock(slot), FLIGHT_ERR_SESSIOND_BUSY);
	ASSERT_TRUE(!atomic_load(&h.released));
	ASSERT_TRUE(atomic_load(&realtime_waits) > 0);
	atomic_store(&slot->check_since, 0);
	holder_join(&h);
	/* One that answers: waited for, taken. */
	holder_start(&h, slot, 10);
	atomic_store(&slot->check_since, now_ns());
	ASSERT_EQ(flight_slot_lock(slot), 0);
	ASSERT_TRUE(atomic_load(&h.released));
	ASSERT_EQ(pthread_mutex_unlock(&slot->lock), 0);
	atomic_store(&slot->check_since, 0);
	holder_join(&h);
	return NULL;
}

/*
 * On a kernel without FUTEX_LOCK_PI2 the C library refuses the PI mutex's wait on
 * CLOCK_MONOTONIC (EINVAL): the wait is the wall clock's then, bounded all the same. The
 * kernel here is made one for a thread of its own (the filter is that thread's).
 */
static void test_slot_lock_old_kernel(void)
{
	struct flight_slot slot = {0};
	pthread_t t;

	ASSERT_EQ(pi_mutex_init(&slot.lock), 0);
	alarm(60);
	ASSERT_EQ(pthread_create(&t, NULL, slot_lock_without_pi_monotonic, &slot), 0);
	ASSERT_EQ(pthread_join(t, NULL), 0);
	alarm(0);
	ASSERT_EQ(pthread_mutex_destroy(&slot.lock), 0);
}

int main(void)
{
	RUN(test_recreate_fails);
	RUN(test_slot_held);
	RUN(test_reload_op);
	RUN(test_slot_lock);
	RUN(test_slot_lock_monotonic);
	/* Last: once refused, the wait stays on the wall clock for the process. */
	RUN(test_slot_lock_old_kernel);
	return 0;
}
