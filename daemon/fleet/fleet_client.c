/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The fleet as latencyd sees it (fleet_client.h): latencyd-fleet started and watched by a
 * reader thread that checks each of its records (fleet_wire.h) before anything here acts
 * on it, and started again, with backoff, when it dies. The main loop's publishes are a
 * request and its reply, bounded in time: a helper that does not answer is killed.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fleet_client.h"
#include "fleet_spawn.h"
#include "fleet_wire.h"
#include "log.h"
#include "thread.h"

#define NOTES_MAX	  256 /* notes the main loop has not taken; more are dropped */
/* Of them, the places news of peers' alerts never take: a flood of them leaves room for
 * members' results and presences, and for the refusals, merged one note per origin. */
#define NOTES_RESERVE	  64
#define REPLY_WAIT_MS	  500 /* a publish not answered by then: the helper is stuck */
#define STOP_WAIT_SEC	  3   /* for the helper to say offline and disconnect */
#define RESTART_MIN_SEC	  1
#define RESTART_MAX_SEC	  60
#define HEALTHY_AFTER_SEC 60 /* a helper that ran this long restarts without delay */

struct fleet {
	fleet_alert_fn alert;
	void *userdata;
	struct fleet_wire_settings set; /* for every helper started */
	char helper[PATH_MAX];
	int note_fd;
	pthread_t thread; /* the reader: starts, reads and restarts the helper */
	bool started;
	int rt_priority; /* the reader's SCHED_FIFO priority, 0: normal */

	pthread_mutex_t lock; /* below: the reader thread writes, the main loop reads */
	pthread_cond_t wake;  /* the reader's backoff, cut short by fleet_free() */
	struct fleet_note *head, **tail;
	size_t n_notes, n_news; /* n_news: of them, FLEET_PEER_ALERT */
	struct fleet_status st;
	/* The counters of the helpers that ended, and the running one's last: a helper started
	 * again counts from zero, and status and the metrics must never go back. */
	struct fleet_status gone, last;
	struct fleet_said said; /* problems noted: each is said once */
	uint64_t stale_here;	/* alerts that went stale between the helper and here */
	uint64_t failed_here;	/* publishes the helper never took (not connected, no answer) */
	pid_t pid;
	bool stopping;

	/* The request socket: the main loop's, swapped by the reader when a helper changes. */
	pthread_mutex_t request_lock;
	int request_fd;
	uint32_t seq;
};

static const char *note_kind(uint32_t kind)
{
	static const char *const kinds[] = {
		[FLEET_CONNECTED] = "a connection",
		[FLEET_DISCONNECTED] = "a disconnection",
		[FLEET_ERROR] = "an error",
		[FLEET_RESULT] = "a peer's result",
		[FLEET_PEER_ALERT] = "the news of a peer's admitted alert (recorded, not logged)",
		[FLEET_UNANSWERED] = "an unanswered alert",
		[FLEET_PRESENCE] = "a member's presence",
		[FLEET_REFUSALS] = "a peer's refused or stale alerts (their origin gets no answer)",
	};

	return kind < sizeof(kinds) / sizeof(kinds[0]) && kinds[kind] ? kinds[kind] : "a note";
}

/* A note the main loop will not see: counted and said, for what it says is then lost (a
 * member's answer to an incident, a member coming or going). */
static void note_dropped(struct fleet *f, const struct fleet_event *ev, bool full)
{
	uint64_t dropped;

	pthread_mutex_lock(&f->lock);
	dropped = ++f->st.notes_dropped;
	pthread_mutex_unlock(&f->lock);
	if ((dropped & (dropped - 1)) != 0) /* the 1st, 2nd, 4th... said: not a flood */
		return;
	if (full)
		log_warnx("fleet: %s dropped: the main loop has not taken the %d notes before it "
			  "(%" PRIu64 " so far)",
			  note_kind(ev->kind), NOTES_MAX, dropped);
	else
		log_warnx("fleet: %s dropped: out of memory (%" PRIu64 " so far)",
			  note_kind(ev->kind), dropped);
}

static void note(struct fleet *f, const struct fleet_event *ev)
{
	struct fleet_note *n = calloc(1, sizeof(*n));
	uint64_t one = 1;
	bool wake;

	if (!n) {
		note_dropped(f, ev, false);
		return;
	}
	n->ev = *ev;
	pthread_mutex_lock(&f->lock);
	if (f->n_notes >= NOTES_MAX ||
	    (ev->kind == FLEET_PEER_ALERT && f->n_news >= NOTES_MAX - NOTES_RESERVE)) {
		pthread_mutex_unlock(&f->lock);
		free(n);
		note_dropped(f, ev, true);
		return;
	}
	*f->tail = n;
	f->tail = &n->next;
	f->n_news += ev->kind == FLEET_PEER_ALERT;
	/* Once a batch: a list not taken yet has its wakeup (fleet_take() reads, then takes). */
	wake = f->n_notes++ == 0;
	pthread_mutex_unlock(&f->lock);
	if (wake && write(f->note_fd, &one, sizeof(one)) < 0) {
		/* The counter cannot overflow in practice; the main loop reads it. */
	}
}

/*
 * A peer's alert not recorded (EV: FLEET_UNANSWERED): joins the pending refusals of its
 * origin, status and budget, a note not taken yet, else a new one. A flood of refusals is
 * one note per origin until the main loop takes it, which answers the origin and counts
 * them all (answers.c): it never crowds out the other notes, nor is an origin's refusal
 * lost because others filled the list.
 */
static void refused(struct fleet *f, const struct fleet_event *ev)
{
	struct fleet_event r = {.kind = FLEET_REFUSALS};
	struct proto_fleet_result *res;

	pthread_mutex_lock(&f->lock);
	for (struct fleet_note *n = f->head; n; n = n->next) {
		res = &n->ev.result;
		if (n->ev.kind != FLEET_REFUSALS || strcmp(res->host, ev->alert.host) != 0 ||
		    strcmp(res->status, ev->detail) != 0 || strcmp(res->budget, ev->budget) != 0)
			continue;
		if (res->n < PROTO_FLEET_RESULT_INCIDENTS)
			snprintf(res->incidents[res->n++], sizeof(res->incidents[0]), "%s",
				 ev->alert.incident);
		res->count++;
		pthread_mutex_unlock(&f->lock);
		return;
	}
	pthread_mutex_unlock(&f->lock);
	res = &r.result; /* host: the origin, which the answer goes to */
	snprintf(res->host, sizeof(res->host), "%s", ev->alert.host);
	snprintf(res->status, sizeof(res->status), "%.15s", ev->detail);
	snprintf(res->budget, sizeof(res->budget), "%s", ev->budget);
	snprintf(res->incidents[0], sizeof(res->incidents[0]), "%s", ev->alert.incident);
	res->n = res->count = 1;
	note(f, &r);
}

/* A problem of the helper itself, said once per distinct reason. */
static void problem(struct fleet *f, const char *why)
{
	struct fleet_event ev = {.kind = FLEET_DISCONNECTED};
	bool new;

	pthread_mutex_lock(&f->lock);
	snprintf(f->st.detail, sizeof(f->st.detail), "%s", why);
	new = fleet_said_new(&f->said, why);
	pthread_mutex_unlock(&f->lock);
	if (new) {
		snprintf(ev.detail, sizeof(ev.detail), "%s", why);
		note(f, &ev);
	}
}

/* The counters a helper keeps, from zero in each one started: TO = A + B. */
static void helper_counters_sum(struct fleet_status *to, const struct fleet_status *a,
				const struct fleet_status *b)
{
	to->published = a->published + b->published;
	to->publish_failed = a->publish_failed + b->publish_failed;
	to->received = a->received + b->received;
	to->reconnects = a->reconnects + b->reconnects;
	to->malformed = a->malformed + b->malformed;
	to->foreign = a->foreign + b->foreign;
	to->mismatch = a->mismatch + b->mismatch;
	to->duplicate = a->duplicate + b->duplicate;
	to->stale = a->stale + b->stale;
}

/*
 * What the helper knows (the connection, what it read) over what latencyd counts itself.
 * True when the event is news: a helper says each of its problems once, but one started
 * again says its predecessor's again, and that is no news.
 */
static bool take_status(struct fleet *f, const struct fleet_status *h, uint32_t kind,
			const char *detail)
{
	struct fleet_status *st = &f->st;
	bool news = true;

	pthread_mutex_lock(&f->lock);
	st->connected = h->connected;
	st->subscribed = h->subscribed;
	snprintf(st->detail, sizeof(st->detail), "%s", h->detail);
	snprintf(st->user, sizeof(st->user), "%s", h->user);
	f->last = *h;
	/* Published: the broker acknowledged it (the helper counts PUBACKs), not merely
	 * handed on; failed: refused by the broker, or never handed on. */
	helper_counters_sum(st, &f->gone, h);
	st->publish_failed += f->failed_here;
	st->stale += f->stale_here;
	if (kind == FLEET_DISCONNECTED || kind == FLEET_ERROR) {
		news = fleet_said_new(&f->said, detail);
	} else if (kind == FLEET_CONNECTED) {
		fleet_said_clear(&f->said);
	}
	pthread_mutex_unlock(&f->lock);
	return news;
}

static void on_event(struct fleet *f, struct fleet_wire_event *e, size_t len)
{
	struct fleet_event *ev = &e->ev;
	char why[160];

	if (!fleet_wire_event_check(e, len, f->set.host, f->set.group, why, sizeof(why))) {
		uint64_t rejected;

		pthread_mutex_lock(&f->lock);
		rejected = ++f->st.rejected;
		pthread_mutex_unlock(&f->lock);
		if ((rejected & (rejected - 1)) == 0) /* the 1st, 2nd, 4th...: not a flood */
			log_warnx("fleet: latencyd-fleet sent %s: dropped (%" PRIu64 " so far)",
				  why, rejected);
		return;
	}
	if (!take_status(f, &e->st, ev->kind, ev->detail) || ev->kind == FLEET_WIRE_COUNTERS)
		return;
	/* Fresh when the helper read it; this process may have been stopped since. */
	if (ev->kind == FLEET_PEER_ALERT && fleet_wire_stale(&ev->alert, f->set.max_age_ns)) {
		pthread_mutex_lock(&f->lock);
		f->stale_here++;
		f->st.stale++;
		pthread_mutex_unlock(&f->lock);
		ev->kind = FLEET_UNANSWERED;
		snprintf(ev->detail, sizeof(ev->detail), "%s", PROTO_FLEET_STALE);
	}
	if (ev->kind == FLEET_PEER_ALERT) {
		const char *budget = PROTO_FLEET_BUDGET_QUEUE;

		if (f->alert(&ev->alert, ev->received_ns, &budget, f->userdata) < 0) {
			if (!budget)
				budget = PROTO_FLEET_BUDGET_QUEUE;
			pthread_mutex_lock(&f->lock);
			/* dropped.busy is the queue's; the budgets' are the metrics' refusals */
			f->st.busy += strcmp(budget, PROTO_FLEET_BUDGET_QUEUE) == 0;
			pthread_mutex_unlock(&f->lock);
			ev->kind = FLEET_UNANSWERED;
			snprintf(ev->detail, sizeof(ev->detail), "%s", PROTO_FLEET_REFUSED);
			snprintf(ev->budget, sizeof(ev->budget), "%s", budget);
		}
	}
	if (ev->kind == FLEET_UNANSWERED)
		refused(f, ev);
	else
		note(f, ev);
}

static void set_request_fd(struct fleet *f, int fd)
{
	pthread_mutex_lock(&f->request_lock);
	if (f->request_fd >= 0)
		close(f->request_fd);
	f->request_fd = fd;
	pthread_mutex_unlock(&f->request_lock);
}

/* One helper's life: started, given its settings, read until it goes. */
static void serve_one(struct fleet *f)
{
	static struct fleet_wire_event e; /* the reader thread's alone: 3 KiB off its stack */
	struct fleet_child c;
	char why[200];
	int status = 0, r;

	r = fleet_spawn(f->helper, &c);
	if (r < 0) {
		snprintf(why, sizeof(why), "cannot start %.120s: %.60s", f->helper, strerror(-r));
		problem(f, why);
		return;
	}
	pthread_mutex_lock(&f->lock);
	f->pid = c.pid;
	f->st.pid = c.pid;
	pthread_mutex_unlock(&f->lock);
	if (send(c.request_fd, &f->set, sizeof(f->set), MSG_NOSIGNAL) == sizeof(f->set)) {
		set_request_fd(f, c.request_fd);
		c.request_fd = -1;
		for (;;) {
			ssize_t n = recv(c.event_fd, &e, sizeof(e), 0);

			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0)
				break;
			on_event(f, &e, (size_t)n);
		}
	}
	set_request_fd(f, -1);
	fleet_child_close(&c);
	/* Before it is reaped: nothing may kill a pid that another process may get next. */
	pthread_mutex_lock(&f->lock);
	f->pid = 0;
	f->st.pid = 0;
	f->st.connected = f->st.subscribed = false;
	helper_counters_sum(&f->gone, &f->gone, &f->last);
	memset(&f->last, 0, sizeof(f->last));
	pthread_mutex_unlock(&f->lock);
	/* Its event socket closed: it is exiting, or hangs with it closed (killed then). */
	for (int i = 0; waitpid(c.pid, &status, WNOHANG) == 0; i++) {
		if (i == 20)
			kill(c.pid, SIGKILL);
		usleep(100 * 1000);
	}
	/* Status 1: it could not go on, and said why before it exited. */
	if (!f->stopping && !(WIFEXITED(status) && WEXITSTATUS(status) == 1)) {
		char line[200];

		fleet_exit_text(status, why, sizeof(why));
		snprintf(line, sizeof(line), "latencyd-fleet %.160s", why);
		problem(f, line);
	}
}

/* Waits SEC seconds, or less if fleet_free() says stop; true to go on. */
static bool backoff(struct fleet *f, unsigned sec)
{
	struct timespec until;
	bool go;

	pthread_mutex_lock(&f->lock);
	clock_gettime(CLOCK_MONOTONIC, &until);
	until.tv_sec += sec;
	while (!f->stopping && pthread_cond_timedwait(&f->wake, &f->lock, &until) == 0)
		;
	go = !f->stopping;
	pthread_mutex_unlock(&f->lock);
	return go;
}

static void *run(void *arg)
{
	struct fleet *f = arg;
	unsigned delay = RESTART_MIN_SEC;

	for (;;) {
		uint64_t began = now_ns();

		serve_one(f);
		if (now_ns() - began >= (uint64_t)HEALTHY_AFTER_SEC * 1000000000)
			delay = RESTART_MIN_SEC;
		if (!backoff(f, delay))
			return NULL;
		pthread_mutex_lock(&f->lock);
		f->st.restarts++;
		pthread_mutex_unlock(&f->lock);
		delay = delay * 2 > RESTART_MAX_SEC ? RESTART_MAX_SEC : delay * 2;
	}
}

int fleet_new(const struct conf *conf, fleet_alert_fn fn, void *userdata, struct fleet **ret)
{
	const struct conf_fleet *c = &conf->fleet;
	struct fleet *f = calloc(1, sizeof(*f));
	pthread_condattr_t attr;
	int r;

	if (!f)
		return -ENOMEM;
	*ret = f;
	f->alert = fn;
	f->userdata = userdata;
	/* A peer's alert crosses the reader on its way to the waiter: at normal priority, on a
	 * busy host, that hop waits for the CPU's running task (a millisecond or more, bench/
	 * fleet-scale.sh). Just below the waiter, so that fleet traffic never delays a local
	 * alert; the reader only moves fixed-size records the helper checked. */
	if (conf->realtime.priority > 0)
		f->rt_priority = conf->realtime.priority > 1 ? (int)conf->realtime.priority - 1 : 1;
	f->tail = &f->head;
	f->request_fd = -1;
	f->note_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (f->note_fd < 0)
		return -errno;
	/* Shared with the main loop by a reader that may run SCHED_FIFO. */
	r = pi_mutex_init(&f->lock);
	if (r == 0)
		r = pi_mutex_init(&f->request_lock);
	if (r < 0)
		return r;
	/* The backoff counts in CLOCK_MONOTONIC: a wall-clock step must not stretch it. */
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	r = pthread_cond_init(&f->wake, &attr);
	pthread_condattr_destroy(&attr);
	if (r)
		return -r;
	r = fleet_settings(&f->set, c);
	if (r < 0)
		return r;
	r = fleet_helper_path(f->helper, sizeof(f->helper));
	if (r < 0)
		return log_warn_errno(r, "fleet: cannot find %s beside latencyd or in %s",
				      FLEET_HELPER_NAME, LATENCYD_LIBEXECDIR);
	snprintf(f->st.broker, sizeof(f->st.broker), "%s", c->broker);
	snprintf(f->st.host, sizeof(f->st.host), "%s", f->set.host);
	snprintf(f->st.group, sizeof(f->st.group), "%s", f->set.group);
	snprintf(f->st.detail, sizeof(f->st.detail), "connecting");
	return 0;
}

int fleet_start(struct fleet *f)
{
	bool rt;
	int r = thread_start_rt(&f->thread, f->rt_priority, THREAD_STACK_WORKER, run, f,
				"latencyd-fleet", &rt);

	if (r < 0)
		return log_warn_errno(r, "fleet: cannot start the thread that runs %s",
				      FLEET_HELPER_NAME);
	if (f->rt_priority > 0 && !rt)
		log_warnx("fleet: cannot run the reader at SCHED_FIFO priority %d: it runs at "
			  "normal priority",
			  f->rt_priority);
	f->started = true;
	return 0;
}

const char *fleet_host(const struct fleet *f)
{
	return f->set.host;
}

const char *fleet_group(const struct fleet *f)
{
	return f->set.group;
}

const char *fleet_broker(const struct fleet *f)
{
	return f->set.broker;
}

uint64_t fleet_max_age_ns(const struct fleet *f)
{
	return f->set.max_age_ns;
}

int fleet_eventfd(const struct fleet *f)
{
	return f->note_fd;
}

struct fleet_note *fleet_take(struct fleet *f)
{
	struct fleet_note *list;
	uint64_t v;

	if (read(f->note_fd, &v, sizeof(v)) < 0) {
		/* EAGAIN: the list is checked anyway. */
	}
	pthread_mutex_lock(&f->lock);
	list = f->head;
	f->head = NULL;
	f->tail = &f->head;
	f->n_notes = f->n_news = 0;
	pthread_mutex_unlock(&f->lock);
	return list;
}

void fleet_note_free(struct fleet_note *n)
{
	while (n) {
		struct fleet_note *next = n->next;

		free(n);
		n = next;
	}
}

/* Q sent and its reply read, within REPLY_WAIT_MS; under request_lock. */
static int exchange(struct fleet *f, struct fleet_wire_request *q)
{
	struct fleet_wire_reply rep;
	uint64_t deadline = now_ns() + (uint64_t)REPLY_WAIT_MS * 1000000;

	q->seq = ++f->seq;
	if (send(f->request_fd, q, sizeof(*q), MSG_NOSIGNAL | MSG_DONTWAIT) != sizeof(*q))
		return -ENOTCONN;
	for (;;) {
		struct pollfd p = {.fd = f->request_fd, .events = POLLIN};
		uint64_t now = now_ns();
		ssize_t n;

		if (now >= deadline || poll(&p, 1, (int)((deadline - now) / 1000000) + 1) == 0)
			return -ETIMEDOUT;
		n = recv(f->request_fd, &rep, sizeof(rep), MSG_DONTWAIT);
		if (n == 0)
			return -ENOTCONN;
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			continue;
		if (n != sizeof(rep) || rep.type != FLEET_WIRE_REPLY)
			return -EPROTO;
		/* An earlier request's, answered after its wait ended. */
		if (rep.seq == q->seq)
			return rep.rc == 0 || rep.rc == -ENOTCONN || rep.rc == -ENOMEM ? rep.rc
										       : -EIO;
	}
}

static int request(struct fleet *f, struct fleet_wire_request *q)
{
	bool connected;
	int r = -ENOTCONN;

	pthread_mutex_lock(&f->lock);
	connected = f->st.connected;
	pthread_mutex_unlock(&f->lock);
	/* latencyd-fleet takes a request it cannot check as a broken parent and exits: refused
	 * here, it is this request's error, not an outage of the fleet. */
	if (!fleet_wire_request_check(q, sizeof(*q))) {
		connected = false;
		r = -EINVAL;
	}
	pthread_mutex_lock(&f->request_lock);
	if (connected && f->request_fd >= 0)
		r = exchange(f, q);
	pthread_mutex_unlock(&f->request_lock);
	if (r == -ETIMEDOUT || r == -EPROTO) {
		pid_t pid;

		/* Under the lock: serve_one() clears f->pid under it before it reaps the
		 * process, so a pid read here is not yet anyone else's. */
		pthread_mutex_lock(&f->lock);
		pid = f->pid;
		if (pid > 0)
			kill(pid, SIGKILL);
		pthread_mutex_unlock(&f->lock);
		log_warnx("fleet: latencyd-fleet (pid %d) %s: killed, to be started again",
			  (int)pid,
			  r == -ETIMEDOUT ? "did not answer within 500 ms" : "answered nonsense");
		r = -ENOTCONN;
	}
	/* A publish taken counts once the broker acknowledges it (take_status()). */
	if (r != 0) {
		pthread_mutex_lock(&f->lock);
		f->failed_here++;
		f->st.publish_failed++;
		pthread_mutex_unlock(&f->lock);
	}
	return r;
}

int fleet_publish_alert(struct fleet *f, struct proto_fleet_alert *a, uint64_t ttl_ns)
{
	static struct fleet_wire_request q; /* the main loop's alone */

	snprintf(a->host, sizeof(a->host), "%s", f->set.host);
	snprintf(a->group, sizeof(a->group), "%s", f->set.group);
	snprintf(a->boot_id, sizeof(a->boot_id), "%s", f->set.boot_id);
	a->sent_realtime_ns = realtime_ns();
	memset(&q, 0, sizeof(q));
	q.type = FLEET_WIRE_PUBLISH_ALERT;
	q.ttl_ns = ttl_ns;
	q.alert = *a;
	return request(f, &q);
}

int fleet_publish_result(struct fleet *f, struct proto_fleet_result *res)
{
	static struct fleet_wire_request q; /* the main loop's alone */

	snprintf(res->host, sizeof(res->host), "%s", f->set.host);
	snprintf(res->group, sizeof(res->group), "%s", f->set.group);
	memset(&q, 0, sizeof(q));
	q.type = FLEET_WIRE_PUBLISH_RESULT;
	q.result = *res;
	return request(f, &q);
}

void fleet_status(struct fleet *f, struct fleet_status *st)
{
	pthread_mutex_lock(&f->lock);
	*st = f->st;
	pthread_mutex_unlock(&f->lock);
}

void fleet_free(struct fleet *f)
{
	if (!f)
		return;
	if (f->started) {
		struct fleet_wire_request stop = {.type = FLEET_WIRE_STOP};
		struct timespec until;
		pid_t pid;

		pthread_mutex_lock(&f->lock);
		f->stopping = true;
		pthread_cond_signal(&f->wake);
		pthread_mutex_unlock(&f->lock);
		/* It says offline, disconnects and exits: the reader sees its end and stops. */
		pthread_mutex_lock(&f->request_lock);
		if (f->request_fd >= 0 &&
		    send(f->request_fd, &stop, sizeof(stop), MSG_NOSIGNAL | MSG_DONTWAIT) < 0) {
			/* gone already */
		}
		pthread_mutex_unlock(&f->request_lock);
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_sec += STOP_WAIT_SEC;
		if (pthread_timedjoin_np(f->thread, NULL, &until) != 0) {
			pthread_mutex_lock(&f->lock);
			pid = f->pid;
			if (pid > 0) /* under the lock, as in request() */
				kill(pid, SIGKILL);
			pthread_mutex_unlock(&f->lock);
			pthread_join(f->thread, NULL);
		}
	}
	set_request_fd(f, -1);
	fleet_note_free(f->head);
	if (f->note_fd >= 0)
		close(f->note_fd);
	pthread_cond_destroy(&f->wake);
	pthread_mutex_destroy(&f->lock);
	pthread_mutex_destroy(&f->request_lock);
	explicit_bzero(f->set.password, sizeof(f->set.password));
	free(f);
}
