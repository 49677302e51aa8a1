/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Who each thread was, over time. A tid keeps its thread for the thread's life, but the
 * thread changes its name (exec, prctl, /proc/PID/comm) and, once it exited, the tid may
 * name a thread of another process. What the events said of a tid (its comm in a switch or
 * a wakeup, a fork, an exec, an exit, an alert's comm and pid) is kept in the order read;
 * here it becomes the tid's identities, each from a time on, so that every link, row and
 * line names a thread as it was at the time it speaks of, not as it was last seen.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "an.h"

/* An identity being built: its task, and the task's identity before it (-1: none). */
struct built {
	struct an_ident id;
	uint32_t task;
	int32_t prev;
};

/* A task's state while its observations are replayed. */
struct now {
	int32_t last; /* its latest identity in built, -1: none yet */
	int32_t pid;
	uint32_t run;
	bool exited;		      /* its tid may name another thread from now on */
	uint64_t renamed_ts;	      /* the run's latest rename, 0: none */
	char before[AN_COMM_LEN + 1]; /* its name before that rename */
};

struct build {
	struct an_vec built; /* struct built */
	struct now *now;
	const struct an_log *log; /* its events, in time order */
};

static bool same_comm(const struct build *b, const struct now *n, const char *comm)
{
	return strncmp(AN_AT(&b->built, struct built, n->last)->id.comm, comm, AN_COMM_LEN) == 0;
}

static int push(struct build *b, struct now *n, uint32_t task, uint64_t ts, const char *comm)
{
	struct built *x = an_vec_push(&b->built);

	if (!x)
		return -ENOMEM;
	memset(x, 0, sizeof(*x));
	x->id.ts = ts;
	x->id.pid = n->pid;
	x->id.run = n->run;
	strncpy(x->id.comm, comm, AN_COMM_LEN);
	an_utf8_mend(x->id.comm);
	x->task = task;
	x->prev = n->last;
	n->last = (int32_t)b->built.n - 1;
	return 0;
}

/* Another program on the tid: a fork, an exec, or a reuse after an exit. */
static void new_run(struct now *n, int32_t pid)
{
	if (n->last >= 0)
		n->run++;
	n->pid = pid;
	n->exited = false;
	n->renamed_ts = 0;
}

/*
 * A new name within a run (a run has one identity): the run's name from its start. No event says when a thread
 * renamed itself (prctl, pthread_setname_np), only that a later one shows the new name, and
 * threads name themselves as they start: a worker is its pool's name, not its creator's,
 * for all of its life but the first instants.
 */
static void rename_run(struct build *b, struct now *n, const char *comm, uint64_t ts)
{
	struct built *x = AN_AT(&b->built, struct built, n->last);

	memcpy(n->before, x->id.comm, sizeof(n->before));
	n->renamed_ts = ts;
	strncpy(x->id.comm, comm, AN_COMM_LEN);
	x->id.comm[AN_COMM_LEN] = 0;
	an_utf8_mend(x->id.comm);
}

/*
 * Whether TID was switched away to sleep interruptibly in [FROM, TO]: an exec, once it
 * renamed the thread, never does (it waits uninterruptibly, for the program's pages, a
 * lock, memory), a thread that went on running its program after a rename mostly does.
 * A scan of the events between, only where an exec's name was seen before it.
 */
static bool slept_between(const struct an_log *log, int32_t tid, uint64_t from, uint64_t to)
{
	const struct an_ev *ev = log->ev.v;
	size_t lo = 0, hi = log->ev.n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ev[mid].ts < from)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i < log->ev.n && ev[i].ts <= to; i++)
		if (ev[i].type == EV_SWITCH && ev[i].a == tid && (ev[i].d & 1)) /* S */
			return true;
	return false;
}

/*
 * Whether the run's latest rename was exec O's: the kernel gives the thread its new name
 * early in the exec, and its exec event comes only once the new program is loaded
 * (its pages read, perhaps from a slow disk), so a switch or a wakeup between the two shows
 * the new name first. O's comm is the exec's file name, which the kernel cuts as it names. A
 * thread that renamed itself (prctl) and then slept interruptibly was out of any exec: an
 * exec of the same name later does not date the rename.
 */
static bool exec_seen_early(const struct build *b, const struct now *n, const struct an_obs *o)
{
	return n->last >= 0 && n->renamed_ts &&
	       strncmp(AN_AT(&b->built, struct built, n->last)->id.comm, o->comm,
		       AN_COMM_LEN - 1) == 0 &&
	       !slept_between(b->log, o->tid, n->renamed_ts, o->ts);
}

/* The pid learnt late: it was the pid of the whole run. */
static void backfill(struct build *b, struct now *n, int32_t pid)
{
	n->pid = pid;
	for (int32_t i = n->last; i >= 0; i = AN_AT(&b->built, struct built, i)->prev) {
		struct built *x = AN_AT(&b->built, struct built, i);

		if (x->id.run != n->run)
			break;
		x->id.pid = pid;
	}
}

static int observe(struct build *b, uint32_t task, const struct an_obs *o)
{
	struct now *n = &b->now[task];
	int32_t pid = o->pid > 0 ? o->pid : -1;
	bool named = o->comm[0] != 0;

	switch (o->kind) {
	case OBS_NAME:
		if (!named || (n->last >= 0 && same_comm(b, n, o->comm)))
			return 0; /* a dying thread's last switch has its name too */
		if (n->exited) {
			new_run(n, -1); /* the tid reused, its fork unseen */
			return push(b, n, task, o->ts, o->comm);
		}
		if (n->last < 0)
			return push(b, n, task, o->ts, o->comm);
		rename_run(b, n, o->comm, o->ts);
		return 0;
	case OBS_FORK:
		new_run(n, pid);
		return push(b, n, task, o->ts, o->comm);
	case OBS_EXEC:
		/* The thread that exec'd leads its process: its pid is its tid, before too (it
		 * led it, or took over the tid of the leader that did). */
		if (n->last >= 0 && n->pid < 0)
			backfill(b, n, o->tid);
		if (exec_seen_early(b, n, o)) {
			uint64_t since = n->renamed_ts;
			char before[AN_COMM_LEN + 1];

			memcpy(before, n->before, sizeof(before));
			rename_run(b, n, before, 0);
			new_run(n, o->tid);
			return push(b, n, task, since, o->comm);
		}
		new_run(n, o->tid);
		return push(b, n, task, o->ts, o->comm);
	case OBS_EXIT:
		n->exited = true;
		return 0;
	case OBS_ALERT:
		if (n->last < 0) {
			n->pid = pid;
			return push(b, n, task, o->ts, o->comm);
		}
		if ((n->exited && named && !same_comm(b, n, o->comm)) ||
		    (pid > 0 && n->pid > 0 && pid != n->pid)) {
			new_run(n,
				pid); /* another process's thread: its fork and the exit unseen */
			return push(b, n, task, o->ts, named ? o->comm : "");
		}
		if (pid > 0 && n->pid < 0)
			backfill(b, n, pid);
		if (named && !same_comm(b, n, o->comm))
			rename_run(b, n, o->comm, o->ts);
		return 0;
	default:
		return 0;
	}
}

/* The identities built into the log, each task's together in their order. */
static int place(struct an_log *log, const struct build *b)
{
	struct an_task *tasks = log->tasks.v;
	uint32_t *next = calloc(log->tasks.n ? log->tasks.n : 1, sizeof(*next));
	size_t at = 0;

	if (!next || an_vec_reserve(&log->idents, b->built.n) < 0) {
		free(next);
		return -ENOMEM;
	}
	for (size_t i = 0; i < b->built.n; i++)
		tasks[AN_AT(&b->built, struct built, i)->task].nident++;
	for (size_t t = 0; t < log->tasks.n; t++) {
		tasks[t].ident = (uint32_t)at;
		next[t] = (uint32_t)at;
		at += tasks[t].nident;
	}
	for (size_t i = 0; i < b->built.n; i++) {
		const struct built *x = AN_AT(&b->built, struct built, i);

		*AN_AT(&log->idents, struct an_ident, next[x->task]++) = x->id;
	}
	log->idents.n = b->built.n;
	for (size_t t = 0; t < log->tasks.n; t++) {
		const struct an_ident *last;

		if (!tasks[t].nident)
			continue;
		last = AN_AT(&log->idents, struct an_ident, tasks[t].ident + tasks[t].nident - 1);
		tasks[t].pid = last->pid;
		memcpy(tasks[t].comm, last->comm, sizeof(tasks[t].comm));
	}
	free(next);
	return 0;
}

int an_idents(struct an_log *log)
{
	struct build b = {.built = AN_VEC(struct built), .log = log};
	int r = 0;

	an_vec_free(&log->idents);
	for (size_t t = 0; t < log->tasks.n; t++)
		AN_AT(&log->tasks, struct an_task, t)->nident = 0;
	b.now = calloc(log->tasks.n ? log->tasks.n : 1, sizeof(*b.now));
	if (!b.now)
		return -ENOMEM;
	for (size_t t = 0; t < log->tasks.n; t++) {
		b.now[t].last = -1;
		b.now[t].pid = -1;
	}
	for (size_t i = 0; i < log->obs.n && !r; i++) {
		const struct an_obs *o = AN_AT(&log->obs, struct an_obs, i);
		uint32_t *slot = an_map_find(&log->by_tid, (uint64_t)(uint32_t)o->tid + 1);

		if (slot)
			r = observe(&b, *slot - 1, o);
	}
	if (!r)
		r = place(log, &b);
	an_vec_free(&b.built);
	free(b.now);
	an_vec_free(&log->obs);
	return r;
}

const struct an_ident *an_ident_at(const struct an_log *log, int32_t tid, uint64_t ts,
				   uint64_t *until)
{
	const struct an_task *t = an_task_find(log, tid);
	const struct an_ident *id;
	uint32_t lo = 0, hi;

	if (until)
		*until = UINT64_MAX;
	if (!t || !t->nident)
		return NULL;
	id = AN_AT(&log->idents, struct an_ident, t->ident);
	/* The last that began at or before ts; the first for a time before it. */
	hi = t->nident;
	while (hi - lo > 1) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (id[mid].ts <= ts)
			lo = mid;
		else
			hi = mid;
	}
	if (until && lo + 1 < t->nident)
		*until = id[lo + 1].ts;
	return &id[lo];
}

const char *an_comm_at(const struct an_log *log, int32_t tid, uint64_t ts)
{
	const struct an_ident *id = an_ident_at(log, tid, ts, NULL);
	const struct an_task *t;

	if (tid == 0)
		return "swapper";
	if (id)
		return id->comm[0] ? id->comm : "?";
	t = an_task_find(log, tid);
	return t && t->comm[0] ? t->comm : "?";
}

int32_t an_pid_at(const struct an_log *log, int32_t tid, uint64_t ts)
{
	const struct an_ident *id = an_ident_at(log, tid, ts, NULL);
	const struct an_task *t;

	if (id)
		return id->pid;
	t = an_task_find(log, tid);
	return t ? t->pid : -1;
}

uint64_t an_who_key(const struct an_log *log, int32_t tid, uint64_t ts)
{
	const struct an_ident *id = tid > 0 ? an_ident_at(log, tid, ts, NULL) : NULL;
	uint64_t index = id ? (uint64_t)(id - (const struct an_ident *)log->idents.v) + 1 : 0;

	return index << 32 | (uint32_t)tid;
}

void an_who(const struct an_log *log, uint64_t key, int32_t *tid, int32_t *pid, const char **comm)
{
	uint64_t index = key >> 32;
	const struct an_ident *id = index && index <= log->idents.n
					    ? AN_AT(&log->idents, struct an_ident, index - 1)
					    : NULL;

	*tid = (int32_t)(uint32_t)key;
	if (!id) {
		*pid = an_pid_at(log, *tid, 0);
		*comm = an_comm_at(log, *tid, 0);
		return;
	}
	*pid = id->pid;
	*comm = id->comm[0] ? id->comm : "?";
}
