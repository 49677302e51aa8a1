/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The fleet as latencyd sees it (fleet_client.h): latencyd-fleet started and watched by a
 * reader thread that checks each of its records (fleet_wire.h) before anything here acts
 * on it, and started again, with backoff, when it dies or goes silent (its heartbeat,
 * fleet_wire.h). The main loop's publishes are requests it never waits for: an alert's
 * outcome comes back as a record, kept by its seq until the main loop asks (fleet_acked()).
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fleet_client.h"
#include "fleet_skew.h"
#include "fleet_spawn.h"
#include "fleet_wire.h"
#include "log.h"
#include "thread.h"

#define NOTES_MAX	  256 /* notes the main loop has not taken; more are dropped */
/* Of them, the places news of peers' alerts never take: a flood of them leaves room for
 * members' results. */
#define NOTES_RESERVE	  64
/* Presences, one per member (latest wins), and refusals, one per origin, status and budget,
 * each in a list of its own that the other notes never fill: more members than the main
 * loop tracks (MEMBERS_MAX), more origins refused at once than it answers in a window. */
#define PRESENCES_MAX	  1024
#define REFUSALS_MAX	  256
#define INFLIGHT_MAX	  64 /* alerts awaiting their outcome: more than the outbox holds */
#define STOP_WAIT_SEC	  3  /* for the helper to say offline and disconnect */
/* A helper that closed its end, or was killed, and has not ended (reap()): killed after
 * KILL_AFTER_SEC, again every KILL_AGAIN_SEC while the kill is refused; once stopping, left
 * behind after LEAVE_AFTER_SEC. */
#define KILL_AFTER_SEC	  2
#define KILL_AGAIN_SEC	  5
#define LEAVE_AFTER_SEC	  2
#define REAP_TICK_MS	  100
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
	size_t n_notes, n_news;			 /* n_news: of them, FLEET_PEER_ALERT */
	struct fleet_note *presences, *refusals; /* merged (PRESENCES_MAX, REFUSALS_MAX) */
	size_t n_presences, n_refusals;
	struct fleet_link link;
	/* The alerts published (seq, not 0) whose outcome the main loop has not taken, and
	 * those it let go (orphan): their outcome is only counted, when it comes. */
	struct {
		uint32_t seq;
		int32_t rc;
		bool settled, orphan;
	} inflight[INFLIGHT_MAX];
	struct fleet_status st;
	/* The counters of the helpers that ended, and the running one's last: a helper started
	 * again counts from zero, and status and the metrics must never go back. */
	struct fleet_status gone, last;
	struct fleet_said said; /* problems noted: each is said once */
	uint64_t stale_here;	/* alerts that went stale between the helper and here */
	struct fleet_skew skew; /* the reader thread's alone */
	uint64_t failed_here;	/* publishes the helper never took (not connected, no answer) */
	pid_t pid;
	int event_fd; /* the running helper's, shut down by fleet_free() to wake the reader */
	bool stopping;

	/* The request socket: the main loop's, swapped by the reader when a helper changes. */
	pthread_mutex_t request_lock;
	int request_fd;
	uint32_t seq; /* the last alert's (under request_lock) */
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

/* The main loop's wakeup, for what is not in the list of notes (fleet_take()). */
static void wake_main(struct fleet *f)
{
	uint64_t one = 1;

	if (write(f->note_fd, &one, sizeof(one)) < 0) {
		/* The counter cannot overflow in practice; the main loop reads it. */
	}
}

static void note(struct fleet *f, const struct fleet_event *ev)
{
	struct fleet_note *n = calloc(1, sizeof(*n));
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
	if (wake)
		wake_main(f);
}

/*
 * N (EV: what it is) into the merged list *HEAD of at most MAX: merged into the first
 * element SAME() finds (then freed), else appended. A list of its own, which the other notes
 * never fill; dropped (counted and said) only when MAX are there already.
 */
static void merge(struct fleet *f, struct fleet_note **head, size_t *count, size_t max,
		  struct fleet_note *n, bool (*same)(struct fleet_note *had, struct fleet_note *n))
{
	struct fleet_note **p;
	bool full = false;

	pthread_mutex_lock(&f->lock);
	for (p = head; *p; p = &(*p)->next)
		if (same(*p, n))
			break;
	if (*p) {
		pthread_mutex_unlock(&f->lock);
		free(n);
		return; /* its wakeup is pending: fleet_take() has not taken the list */
	}
	full = *count >= max;
	if (!full) {
		*p = n;
		(*count)++;
	}
	pthread_mutex_unlock(&f->lock);
	if (full) {
		note_dropped(f, &n->ev, true);
		free(n);
		return;
	}
	wake_main(f);
}

/* A member's latest presence replaces the one the main loop has not taken yet. */
static bool same_member(struct fleet_note *had, struct fleet_note *n)
{
	if (strcmp(had->ev.presence.host, n->ev.presence.host) != 0)
		return false;
	had->ev = n->ev;
	return true;
}

/* One refusal (N) joins the pending ones of its origin, status and budget. */
static bool same_refusals(struct fleet_note *had, struct fleet_note *n)
{
	struct proto_fleet_result *res = &had->ev.result;
	const struct proto_fleet_result *one = &n->ev.result;

	if (strcmp(res->host, one->host) != 0 || strcmp(res->status, one->status) != 0 ||
	    strcmp(res->budget, one->budget) != 0)
		return false;
	if (res->n < PROTO_FLEET_RESULT_INCIDENTS)
		snprintf(res->incidents[res->n++], sizeof(res->incidents[0]), "%s",
			 one->incidents[0]);
	res->count++;
	return true;
}

static void presence(struct fleet *f, const struct fleet_event *ev)
{
	struct fleet_note *n = calloc(1, sizeof(*n));

	if (!n) {
		note_dropped(f, ev, false);
		return;
	}
	n->ev = *ev;
	merge(f, &f->presences, &f->n_presences, PRESENCES_MAX, n, same_member);
}

/*
 * A peer's alert not recorded (EV: FLEET_UNANSWERED): joins the pending refusals of its
 * origin, status and budget, else a new note of them. A flood of refusals is one note per
 * origin until the main loop takes it, which answers the origin and counts them all
 * (answers.c): they never crowd out the other notes, nor do the other notes theirs.
 */
static void refused(struct fleet *f, const struct fleet_event *ev)
{
	struct fleet_note *n = calloc(1, sizeof(*n));
	struct proto_fleet_result *res;

	if (!n) {
		note_dropped(f, ev, false);
		return;
	}
	n->ev.kind = FLEET_REFUSALS;
	res = &n->ev.result; /* host: the origin, which the answer goes to */
	snprintf(res->host, sizeof(res->host), "%s", ev->alert.host);
	snprintf(res->status, sizeof(res->status), "%.15s", ev->detail);
	snprintf(res->budget, sizeof(res->budget), "%s", ev->budget);
	snprintf(res->incidents[0], sizeof(res->incidents[0]), "%s", ev->alert.incident);
	res->n = res->count = 1;
	merge(f, &f->refusals, &f->n_refusals, REFUSALS_MAX, n, same_refusals);
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
	bool news = true, changed;

	pthread_mutex_lock(&f->lock);
	changed = st->connected != h->connected;
	f->link.connects += !st->connected && h->connected;
	f->link.losses += st->connected && !h->connected;
	f->link.connected = h->connected;
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
	if (changed)
		wake_main(f);
	return news;
}

/* A publish that failed here (never taken, given up, or let go and lost): counted as the
 * helper's are (under f->lock). */
static void failed_here(struct fleet *f)
{
	f->failed_here++;
	f->st.publish_failed++;
}

/*
 * Place I, an alert let go, freed with its outcome RC (under f->lock): counted failed unless
 * the helper counted it (published, or refused by the broker); -ENOTCONN for one lost with
 * its helper, or no longer awaited.
 */
static void orphan_done(struct fleet *f, size_t i, int32_t rc)
{
	f->inflight[i].seq = 0;
	if (rc != 0 && rc != -EIO)
		failed_here(f);
}

/*
 * The outcome of the alert published as SEQ: kept for fleet_acked(), if it is awaited; for
 * one let go, counted failed unless the helper counted it (published or refused).
 */
static void acked(struct fleet *f, uint32_t seq, int32_t rc)
{
	bool found = false;

	pthread_mutex_lock(&f->lock);
	for (size_t i = 0; i < INFLIGHT_MAX; i++) {
		if (f->inflight[i].seq != seq || f->inflight[i].settled)
			continue;
		if (f->inflight[i].orphan) {
			orphan_done(f, i, rc);
		} else {
			f->inflight[i].settled = true;
			f->inflight[i].rc = rc;
			found = true;
		}
		break;
	}
	pthread_mutex_unlock(&f->lock);
	if (found)
		wake_main(f);
}

/* A record from the helper, LEN bytes: true for its request loop's heartbeat. */
static bool on_event(struct fleet *f, struct fleet_wire_event *e, size_t len)
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
		return false;
	}
	if (!take_status(f, &e->st, ev->kind, ev->detail) || ev->kind == FLEET_WIRE_COUNTERS ||
	    ev->kind == FLEET_WIRE_HEARTBEAT)
		return ev->kind == FLEET_WIRE_HEARTBEAT;
	if (ev->kind == FLEET_WIRE_ACK) {
		acked(f, e->seq, e->rc);
		return false;
	}
	if (ev->kind == FLEET_PEER_ALERT || ev->kind == FLEET_UNANSWERED) {
		uint64_t now = now_ns(), recv = realtime_ns() - (now - ev->received_ns);
		char said[400];

		bool say = fleet_skew_check(&f->skew, &ev->alert, recv, f->set.max_age_ns, now,
					    said, sizeof(said));

		pthread_mutex_lock(&f->lock);
		f->st.clock_skewed = f->skew.count;
		pthread_mutex_unlock(&f->lock);
		if (say)
			log_warnx("%s", said);
	}
	/* Fresh when the helper read it; this process may have been stopped since. */
	if (ev->kind == FLEET_PEER_ALERT && fleet_wire_stale(&ev->alert, f->set.max_age_ns)) {
		fleet_count_stale(f);
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
	else if (ev->kind == FLEET_PRESENCE)
		presence(f, ev);
	else
		note(f, ev);
	return false;
}

static void set_request_fd(struct fleet *f, int fd)
{
	pthread_mutex_lock(&f->request_lock);
	if (f->request_fd >= 0)
		close(f->request_fd);
	f->request_fd = fd;
	pthread_mutex_unlock(&f->request_lock);
}

/*
 * SIGKILL to the helper, which runs as fleet.user: refused (EPERM) without CAP_KILL, which a
 * capability bounding set may have taken away; said, once per helper, for it is then left
 * hanging.
 */
static int kill_helper(pid_t pid)
{
	static _Atomic pid_t said;

	if (kill(pid, SIGKILL) == 0 || errno == ESRCH)
		return 0;
	if (atomic_exchange(&said, pid) != pid)
		log_warn_errno(
			-errno,
			"fleet: cannot kill latencyd-fleet (pid %d), which runs as fleet.user "
			"(CAP_KILL missing from latencyd's capability bounding set?): it is "
			"left as it is",
			(int)pid);
	return -1;
}

/*
 * A helper whose request loop sent no heartbeat for FLEET_WIRE_SILENCE_NS: hung (a
 * deadlock, stopped), whatever its connection and its network thread's records (ANY: some
 * still come). Killed, to be started again; its pid is still its own (serve_one() has not
 * reaped it).
 */
static void silent(struct fleet *f, pid_t pid, bool any)
{
	if (kill_helper(pid) < 0)
		return;
	if (any)
		log_warnx("fleet: latencyd-fleet (pid %d) sent no heartbeat for %" PRIu64
			  " s, only its network thread's records: its request loop is stuck; "
			  "killed, to be started again",
			  (int)pid, FLEET_WIRE_SILENCE_NS / 1000000000);
	else
		log_warnx("fleet: latencyd-fleet (pid %d) sent nothing for %" PRIu64
			  " s, not even its heartbeat: killed, to be started again",
			  (int)pid, FLEET_WIRE_SILENCE_NS / 1000000000);
}

static bool stopping(struct fleet *f)
{
	bool stop;

	pthread_mutex_lock(&f->lock);
	stop = f->stopping;
	pthread_mutex_unlock(&f->lock);
	return stop;
}

/*
 * Waits for helper PID to end, its sockets closed; true once reaped, with its *STATUS. One
 * that does not end is killed; a kill refused (EPERM: latencyd without CAP_KILL, which the
 * shipped unit leaves it) is tried again every KILL_AGAIN_SEC, status and the log saying
 * that the fleet is stuck meanwhile: no helper is started while this one lives. Once
 * stopping, it is left behind after LEAVE_AFTER_SEC, said, for a stop must
 * end: the kernel kills it as this thread, its parent, ends (helper/main.c sets
 * PR_SET_PDEATHSIG once it runs as fleet.user), else the service manager's stop does, with
 * what remains of latencyd's cgroup.
 */
static bool reap(struct fleet *f, pid_t pid, int *status)
{
	const unsigned per_sec = 1000 / REAP_TICK_MS;
	unsigned stop_tick = 0;
	bool said = false;

	for (unsigned tick = 1;; tick++) {
		pid_t r = waitpid(pid, status, WNOHANG);
		char why[200];

		if (r == pid)
			return true;
		if (r < 0 && errno != EINTR)
			return false; /* not ours to wait for (ECHILD): nothing to reap */
		if (!stop_tick && stopping(f))
			stop_tick = tick;
		if (stop_tick && tick - stop_tick >= LEAVE_AFTER_SEC * per_sec) {
			log_warnx(
				"fleet: latencyd-fleet (pid %d) did not exit and cannot be killed: "
				"left behind, to its parent-death signal or the service manager's "
				"stop",
				(int)pid);
			return false;
		}
		if (!stop_tick && tick >= KILL_AFTER_SEC * per_sec &&
		    (tick - KILL_AFTER_SEC * per_sec) % (KILL_AGAIN_SEC * per_sec) == 0 &&
		    kill_helper(pid) < 0 && !said) {
			snprintf(why, sizeof(why),
				 "latencyd-fleet (pid %d) did not exit and cannot be killed: the "
				 "fleet is stuck until it ends (killed again every %d s)",
				 (int)pid, KILL_AGAIN_SEC);
			problem(f, why);
			said = true;
		}
		usleep(REAP_TICK_MS * 1000);
	}
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
	f->event_fd = c.event_fd;
	pthread_mutex_unlock(&f->lock);
	if (send(c.request_fd, &f->set, sizeof(f->set), MSG_NOSIGNAL) == sizeof(f->set)) {
		/* The heartbeat awaited from the start: the helper's first comes within a second. */
		uint64_t beat = now_ns(), last = 0, now;

		set_request_fd(f, c.request_fd);
		c.request_fd = -1;
		for (;;) {
			struct pollfd p = {.fd = c.event_fd, .events = POLLIN};
			int ready, ms;
			ssize_t n;

			now = now_ns();
			if (now - beat >= FLEET_WIRE_SILENCE_NS) {
				/* Records in the last half of it: its network thread runs. */
				silent(f, c.pid, now - last < FLEET_WIRE_SILENCE_NS / 2);
				break;
			}
			ms = (int)((beat + FLEET_WIRE_SILENCE_NS - now + 999999) / 1000000);
			ready = poll(&p, 1, ms);
			if (ready < 0 && errno != EINTR)
				break;
			if (ready <= 0)
				continue; /* the heartbeat's time to look at, or EINTR */
			n = recv(c.event_fd, &e, sizeof(e), MSG_DONTWAIT);
			if (n < 0 && (errno == EINTR || errno == EAGAIN))
				continue;
			if (n <= 0)
				break;
			last = now_ns();
			if (on_event(f, &e, (size_t)n))
				beat = last;
		}
	}
	set_request_fd(f, -1);
	pthread_mutex_lock(&f->lock);
	f->event_fd = -1;
	pthread_mutex_unlock(&f->lock);
	fleet_child_close(&c);
	/* Before it is reaped: nothing may kill a pid that another process may get next. The
	 * alerts it had not settled are lost with it: the outbox publishes them again, and those
	 * let go are failed. */
	pthread_mutex_lock(&f->lock);
	f->pid = 0;
	f->st.pid = 0;
	f->link.losses += f->st.connected;
	f->link.connected = false;
	for (size_t i = 0; i < INFLIGHT_MAX; i++) {
		if (!f->inflight[i].seq || f->inflight[i].settled)
			continue;
		if (f->inflight[i].orphan) {
			orphan_done(f, i, -ENOTCONN);
		} else {
			f->inflight[i].settled = true;
			f->inflight[i].rc = -ENOTCONN;
		}
	}
	f->st.connected = f->st.subscribed = false;
	helper_counters_sum(&f->gone, &f->gone, &f->last);
	memset(&f->last, 0, sizeof(f->last));
	pthread_mutex_unlock(&f->lock);
	wake_main(f);
	/* Its event socket closed: it is exiting, or hangs with it closed (killed then). */
	if (!reap(f, c.pid, &status))
		return;
	/* Status 1: it could not go on, and said why before it exited. */
	if (!stopping(f) && !(WIFEXITED(status) && WEXITSTATUS(status) == 1)) {
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
	f->request_fd = f->event_fd = -1;
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

struct fleet_note *fleet_take(struct fleet *f, struct fleet_link *link)
{
	struct fleet_note *list, **end;
	uint64_t v;

	if (read(f->note_fd, &v, sizeof(v)) < 0) {
		/* EAGAIN: the list is checked anyway. */
	}
	pthread_mutex_lock(&f->lock);
	/* The notes, then the presences, then the refusals: one list. */
	*f->tail = f->presences;
	for (end = f->tail; *end; end = &(*end)->next)
		;
	*end = f->refusals;
	list = f->head;
	f->head = f->presences = f->refusals = NULL;
	f->tail = &f->head;
	f->n_notes = f->n_news = f->n_presences = f->n_refusals = 0;
	*link = f->link;
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

/*
 * Q to the helper without waiting (under request_lock): 0, -EAGAIN while it does not read
 * (its request loop's heartbeat stops then, and it is killed), -ENOTCONN once it is gone.
 */
static int send_request(struct fleet *f, const struct fleet_wire_request *q)
{
	if (send(f->request_fd, q, sizeof(*q), MSG_NOSIGNAL | MSG_DONTWAIT) == sizeof(*q))
		return 0;
	return errno == EAGAIN || errno == EWOULDBLOCK ? -EAGAIN : -ENOTCONN;
}

/* A free place for SEQ, else the oldest alert let go and not settled; INFLIGHT_MAX if none
 * (under f->lock). */
static size_t inflight_place(struct fleet *f, uint32_t seq)
{
	size_t oldest = INFLIGHT_MAX;

	for (size_t i = 0; i < INFLIGHT_MAX; i++) {
		if (!f->inflight[i].seq)
			return i;
		if (f->inflight[i].orphan && !f->inflight[i].settled &&
		    (oldest == INFLIGHT_MAX ||
		     seq - f->inflight[i].seq > seq - f->inflight[oldest].seq))
			oldest = i;
	}
	return oldest;
}

/*
 * A place for SEQ's outcome (under request_lock): -ENOBUFS if INFLIGHT_MAX await theirs. An
 * alert let go gives its place up, the oldest first, counted failed: a broker that drops
 * PUBACKs must not leave no place for the next alerts (libmosquitto sends one again only on
 * a new connection). The helper holds a place for it too (helper/mqtt.c: ALERT_MIDS, as
 * many), told first to forget it (FLEET_WIRE_FORGET), on the same socket as the publish
 * that follows: only latencyd knows which alerts it let go, and the helper's oldest may be
 * one still awaited. Should its PUBACK come still, the helper counts it published too. The
 * forget not sent (-EAGAIN, -ENOTCONN), nothing is given up.
 */
static int inflight_add(struct fleet *f, uint32_t seq)
{
	struct fleet_wire_request forget = {.type = FLEET_WIRE_FORGET};
	size_t i;
	int r;

	pthread_mutex_lock(&f->lock);
	i = inflight_place(f, seq);
	if (i < INFLIGHT_MAX)
		forget.seq = f->inflight[i].seq;
	pthread_mutex_unlock(&f->lock);
	if (i == INFLIGHT_MAX)
		return -ENOBUFS;
	if (forget.seq) {
		r = send_request(f, &forget);
		if (r < 0)
			return r;
	}
	/* Its outcome may have come meanwhile, counted then and its place freed by the reader,
	 * which never takes one. */
	pthread_mutex_lock(&f->lock);
	if (forget.seq && f->inflight[i].seq == forget.seq) {
		log_debug("fleet: the alert published as %" PRIu32
			  " no longer awaited: counted failed",
			  forget.seq);
		orphan_done(f, i, -ENOTCONN);
	}
	f->inflight[i].seq = seq;
	f->inflight[i].settled = f->inflight[i].orphan = false;
	pthread_mutex_unlock(&f->lock);
	return 0;
}

/* SEQ's outcome (under f->lock): -ENOENT unknown, 0 awaited, 1 settled with *RC; its place
 * freed once settled, or at once if ALWAYS. */
static int inflight_take(struct fleet *f, uint32_t seq, bool always, int32_t *rc)
{
	for (size_t i = 0; i < INFLIGHT_MAX && seq; i++)
		if (f->inflight[i].seq == seq) {
			bool settled = f->inflight[i].settled;

			*rc = f->inflight[i].rc;
			if (settled || always)
				f->inflight[i].seq = 0;
			return settled;
		}
	return -ENOENT;
}

/*
 * Q sent without waiting: the helper never answers on this socket, and an alert's outcome
 * (Q's seq, given here) comes back on the event socket (acked()), registered before it is
 * sent so that it cannot come first.
 */
static int request(struct fleet *f, struct fleet_wire_request *q)
{
	bool alert = q->type == FLEET_WIRE_PUBLISH_ALERT, connected;
	int r = -ENOTCONN;

	pthread_mutex_lock(&f->lock);
	connected = f->st.connected;
	pthread_mutex_unlock(&f->lock);
	pthread_mutex_lock(&f->request_lock);
	if (alert) {
		q->seq = ++f->seq;
		q->seq += q->seq == 0;
	}
	/* latencyd-fleet takes a request it cannot check as a broken parent and exits: refused
	 * here, it is this request's error, not an outage of the fleet. */
	if (!fleet_wire_request_check(q, sizeof(*q))) {
		r = -EINVAL;
	} else if (connected && f->request_fd >= 0) {
		r = alert ? inflight_add(f, q->seq) : 0;
		if (r == 0 && (r = send_request(f, q)) < 0) {
			if (alert) {
				int32_t rc;

				pthread_mutex_lock(&f->lock);
				inflight_take(f, q->seq, true, &rc);
				pthread_mutex_unlock(&f->lock);
			}
		}
	}
	pthread_mutex_unlock(&f->request_lock);
	return r;
}

int fleet_publish_alert(struct fleet *f, struct proto_fleet_alert *a, uint64_t ttl_ns,
			uint32_t *seq)
{
	static struct fleet_wire_request q; /* the main loop's alone */
	int r;

	snprintf(a->host, sizeof(a->host), "%s", f->set.host);
	snprintf(a->group, sizeof(a->group), "%s", f->set.group);
	snprintf(a->boot_id, sizeof(a->boot_id), "%s", f->set.boot_id);
	a->sent_realtime_ns = realtime_ns();
	memset(&q, 0, sizeof(q));
	q.type = FLEET_WIRE_PUBLISH_ALERT;
	q.ttl_ns = ttl_ns;
	q.alert = *a;
	r = request(f, &q);
	*seq = r == 0 ? q.seq : 0;
	return r;
}

int fleet_acked(struct fleet *f, uint32_t seq)
{
	int32_t rc = 0;
	int r;

	pthread_mutex_lock(&f->lock);
	r = inflight_take(f, seq, false, &rc);
	pthread_mutex_unlock(&f->lock);
	if (r <= 0)
		return r;
	if (rc == -ENOBUFS || rc == -ENOMEM || rc == -EAGAIN)
		return -EAGAIN;
	return rc == 0 ? 1 : rc == -EIO ? -EIO : -ENOTCONN;
}

void fleet_publish_lost(struct fleet *f)
{
	pthread_mutex_lock(&f->lock);
	failed_here(f);
	pthread_mutex_unlock(&f->lock);
}

void fleet_count_stale(struct fleet *f)
{
	pthread_mutex_lock(&f->lock);
	f->stale_here++;
	f->st.stale++;
	pthread_mutex_unlock(&f->lock);
}

void fleet_publish_let_go(struct fleet *f, uint32_t seq)
{
	pthread_mutex_lock(&f->lock);
	for (size_t i = 0; i < INFLIGHT_MAX && seq; i++) {
		if (f->inflight[i].seq != seq)
			continue;
		if (f->inflight[i].settled)
			orphan_done(f, i, f->inflight[i].rc);
		else
			f->inflight[i].orphan = true;
		break;
	}
	pthread_mutex_unlock(&f->lock);
}

int fleet_publish_result(struct fleet *f, struct proto_fleet_result *res)
{
	static struct fleet_wire_request q; /* the main loop's alone */
	int r;

	snprintf(res->host, sizeof(res->host), "%s", f->set.host);
	snprintf(res->group, sizeof(res->group), "%s", f->set.group);
	memset(&q, 0, sizeof(q));
	q.type = FLEET_WIRE_PUBLISH_RESULT;
	q.result = *res;
	r = request(f, &q);
	/* Never sent again: its one attempt failed. One taken counts once the broker
	 * acknowledges it (take_status()). */
	if (r != 0)
		fleet_publish_lost(f);
	return r;
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
		/* Not done: killed, and the reader woken from its wait for the helper's records,
		 * to end within reap()'s LEAVE_AFTER_SEC even if the kill is refused. */
		if (pthread_timedjoin_np(f->thread, NULL, &until) != 0) {
			pthread_mutex_lock(&f->lock);
			pid = f->pid;
			if (pid > 0) /* under the lock, as in request() */
				kill_helper(pid);
			if (f->event_fd >= 0)
				shutdown(f->event_fd, SHUT_RDWR);
			pthread_mutex_unlock(&f->lock);
			pthread_join(f->thread, NULL);
		}
	}
	set_request_fd(f, -1);
	fleet_note_free(f->head);
	fleet_note_free(f->presences);
	fleet_note_free(f->refusals);
	if (f->note_fd >= 0)
		close(f->note_fd);
	pthread_cond_destroy(&f->wake);
	pthread_mutex_destroy(&f->lock);
	pthread_mutex_destroy(&f->request_lock);
	explicit_bzero(f->set.password, sizeof(f->set.password));
	free(f);
}
