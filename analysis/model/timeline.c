/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * One task's states over an interval, by replaying the log from its start: the CPUs'
 * contexts (current task, hard irq, softirq, timer expiry) say who woke the task; its own
 * sched_switch events say when it ran, was preempted or blocked, and its syscall events in
 * which system call.
 */
#include <stdlib.h>
#include <string.h>

#include "an.h"

#define NVEC  10
/*
 * Packets one softirq's receive is remembered for: a GRO list is handed to the sockets once
 * it holds gro_normal_batch (8) packets or at the end of its device's poll, so the packet a
 * wakeup from it is for is among the last 8 received.
 */
#define NRX   8
/* A task's recent sends whose replies it may be woken for. */
#define NSENT 16

/*
 * What runs on a CPU in a softirq or a timer expiry. On PREEMPT_RT that is a task's (the
 * softirq thread's, or the one that raised it), preemptible: it goes on once that task runs
 * again.
 */
struct soft {
	int32_t softirq;   /* softirq vector running, -1 */
	int timer;	   /* inside an (hr)timer expiry */
	int32_t timer_irq; /* the hard irq the outermost expiry runs in, -1 (a softirq's) */
	int32_t dev;	   /* block device completed in the current softirq */
	int32_t rx[NRX];   /* the packets received in the current softirq, a ring */
	unsigned nrx;	   /* how many (the ring holds the last NRX) */
};

struct cpu_ctx {
	int32_t cur; /* running task, -1 unknown */
	int32_t irq; /* hard irq being handled, -1 */
	/* the block device that irq completed: its own, for it may interrupt a softirq that
	 * completed another and then wakes the task of that one */
	int32_t irq_dev;
	struct soft s;
	struct soft parked;	 /* PREEMPT_RT: the soft context of a task switched out in it */
	int32_t parked_by;	 /* that task, -1 none */
	int32_t raised_by[NVEC]; /* the irq that raised each vector, -1 */
	uint64_t since;		 /* when cur was switched in */
	bool lost; /* events were lost here, the last time (by end) over [lost_t0, lost_t1] */
	uint64_t lost_t0, lost_t1;
};

/*
 * Who kept a runnable task off its CPU: the task that held that CPU longest over the wait,
 * not merely the last one before it ran (a kworker slipping in after a 60 ms hog). Every
 * CPU's holders are kept: sched_waking's target_cpu is the CPU the task last ran on, taken
 * before the wakeup chooses where it will run; the choice is the sched_migrate_task that
 * follows (none: it stayed), and without that event the CPU waited for is only known once
 * the task is switched in there.
 */
#define NHOLD 8

struct holders {
	int32_t tid[NHOLD];
	uint64_t ns[NHOLD];
	uint64_t last[NHOLD]; /* the end of its latest hold: who it was then */
	unsigned n;
};

bool an_blocked(uint8_t state)
{
	return state == ST_BLOCKED_S || state == ST_BLOCKED_D || state == ST_BLOCKED;
}

const char *an_state_name(uint8_t state)
{
	switch (state) {
	case ST_RUNNING:
		return "running";
	case ST_RUNNABLE:
		return "runnable";
	case ST_BLOCKED_S:
		return "blocked-interruptible";
	case ST_BLOCKED_D:
		return "blocked-uninterruptible";
	case ST_BLOCKED:
		return "blocked";
	case ST_EXITED:
		return "exited";
	default:
		return "unknown";
	}
}

/* The replay of one task: its current interval, and what it has done so far. */
struct track {
	const struct an_log *log;
	int32_t tid;	  /* the task */
	int32_t sys;	  /* its system call in progress, -1 */
	int32_t wait_cpu; /* runnable: the CPU it was woken for or preempted on */
	int32_t placing;  /* the CPU its wakeup runs on, until the wakeup chose its CPU; -1 */
	struct an_interval cur;
	const struct an_ident *ids; /* its identities: an interval is one identity's */
	uint32_t nids, next_id;	    /* the first that begins after what was emitted */
	struct holders *hold;	    /* per CPU, over the current runnable interval */
	const struct cpu_ctx *cpus;
	unsigned ncpu;
	uint64_t t0, t1;
	struct an_vec *out;
	int32_t sent[NSENT]; /* its last packets sent from its own context, a ring */
	unsigned nsent;
	int err;
};

/* When CPU's history in the snapshot starts (its first event); 0: not known. */
static uint64_t history_start(const struct track *k, int32_t cpu)
{
	const struct an_vec *first = &k->log->cpu_first;

	return cpu >= 0 && (size_t)cpu < first->n ? *AN_AT(first, uint64_t, cpu) : 0;
}

static void push(struct track *k, uint64_t a, uint64_t b)
{
	struct an_interval *iv = an_vec_push(k->out);

	if (!iv) {
		k->err = -1;
		return;
	}
	*iv = k->cur;
	iv->t0 = a;
	iv->t1 = b;
}

/*
 * The current interval up to ts, clipped to [t0, t1], into the timeline: cut where the task
 * became another (an exec, a rename, its tid reused), each part named as the task was then.
 * Not a blocked one: a blocked task execs nothing, and its wait is one, with one waker.
 */
static void emit(struct track *k, uint64_t ts)
{
	uint64_t a = k->cur.t0 > k->t0 ? k->cur.t0 : k->t0;
	uint64_t b = ts < k->t1 ? ts : k->t1;

	if (b <= a)
		return;
	/* Intervals are emitted in time order: the identities are walked once. */
	while (k->next_id < k->nids && k->ids[k->next_id].ts <= a)
		k->next_id++;
	for (; k->next_id < k->nids && k->ids[k->next_id].ts < b && !an_blocked(k->cur.state);
	     k->next_id++) {
		push(k, a, k->ids[k->next_id].ts);
		a = k->ids[k->next_id].ts;
	}
	push(k, a, b);
}

/*
 * A runnable wait before the history of the CPU it waited for (or ran on at last) begins
 * may have ended there unseen: the task ran, then was preempted or slept again. That part is
 * unknown, not runnable.
 */
static void unseen_wait(struct track *k, uint64_t ts)
{
	uint64_t late = history_start(k, k->wait_cpu), on = history_start(k, k->cur.cpu);
	struct an_interval wait = k->cur;

	late = on > late ? on : late;
	if (late <= k->cur.t0)
		return;
	late = late < ts ? late : ts;
	k->cur.state = ST_UNKNOWN;
	k->cur.cpu = k->cur.by = -1;
	emit(k, late);
	k->cur = wait;
	k->cur.t0 = late;
}

/* Ends the current interval at ts (clipped to [t0, t1]) and starts a new one. */
static void move(struct track *k, uint64_t ts, uint8_t state)
{
	if (k->cur.state == ST_RUNNABLE)
		unseen_wait(k, ts);
	emit(k, ts);
	k->cur.t0 = ts;
	k->cur.state = state;
	k->cur.wake = WK_NONE;
	k->cur.who = k->cur.via = -1;
	k->cur.by = -1;
	k->cur.by_ts = 0;
	k->cur.dev = 0;
	k->cur.pkt = -1;
	k->cur.rx_flows = 0;
	k->cur.inferred = false;
}

static void hold_reset(struct track *k)
{
	for (unsigned i = 0; i < k->ncpu; i++)
		k->hold[i].n = 0;
}

static void hold_credit(struct track *k, unsigned cpu, int32_t tid, uint64_t from, uint64_t to)
{
	struct holders *h = &k->hold[cpu < k->ncpu ? cpu : 0];
	unsigned i;

	/* Who held it over the part of the wait the timeline shows, which it is said of. */
	if (from < k->cur.t0)
		from = k->cur.t0;
	if (from < k->t0)
		from = k->t0;
	if (to > k->t1)
		to = k->t1;
	if (tid < 0 || to <= from)
		return;
	for (i = 0; i < h->n && h->tid[i] != tid; i++)
		;
	if (i == h->n) {
		if (h->n == NHOLD)
			return; /* the longest holders come early or stay long: either is kept */
		h->tid[h->n] = tid;
		h->ns[h->n++] = 0;
	}
	h->ns[i] += to - from;
	h->last[i] = to;
}

/*
 * The current runnable interval's holder: the task (not the idle task) that held the CPU
 * longest, or FALLBACK, holding it at AT, when none did.
 */
static void hold_longest(struct track *k, int32_t cpu, int32_t fallback, uint64_t at)
{
	const struct holders *h = &k->hold[cpu >= 0 && (unsigned)cpu < k->ncpu ? cpu : 0];
	uint64_t most = 0;

	k->cur.by = fallback;
	k->cur.by_ts = at;
	for (unsigned i = 0; i < h->n; i++) {
		if (h->tid[i] > 0 && h->ns[i] > most) {
			most = h->ns[i];
			k->cur.by = h->tid[i];
			k->cur.by_ts = h->last[i];
		}
	}
}

static uint8_t blocked_state(uint64_t prev_state)
{
	/* TASK_RUNNING 0 is a preemption; lttng adds TASK_REPORT_MAX for a preempted task */
	if ((prev_state & 0xff) == 0)
		return ST_RUNNABLE;
	if (prev_state & AN_PREV_STATE_DEAD)
		return ST_EXITED;
	if (prev_state & 1)
		return ST_BLOCKED_S;
	if (prev_state & 2)
		return ST_BLOCKED_D;
	return ST_BLOCKED;
}

static void soft_clear(struct soft *s)
{
	s->softirq = -1;
	s->timer = 0;
	s->timer_irq = -1;
	s->dev = 0;
	s->nrx = 0;
}

static struct cpu_ctx *cpus_new(unsigned ncpu)
{
	struct cpu_ctx *cpu = calloc(ncpu, sizeof(*cpu));

	for (unsigned i = 0; cpu && i < ncpu; i++) {
		cpu[i].cur = cpu[i].irq = cpu[i].parked_by = -1;
		cpu[i].irq_dev = 0;
		soft_clear(&cpu[i].s);
		for (int v = 0; v < NVEC; v++)
			cpu[i].raised_by[v] = -1;
	}
	return cpu;
}

/*
 * The CPU's interrupt context at a switch. A hard irq handler never switches: one still open
 * lost its exit (discarded events), and would otherwise take every later wakeup there for
 * its own. Neither does a softirq or a timer expiry, except on PREEMPT_RT, where they run in
 * a task (ksoftirqd, ktimers, the task that raised them) that may be preempted or block on a
 * sleeping lock: their context is that task's, set aside until it runs again.
 */
static void ctx_switch(const struct track *k, struct cpu_ctx *c, const struct an_ev *e)
{
	c->irq = -1;
	c->irq_dev = 0;
	if (k->log->preempt_rt) {
		if (c->s.softirq >= 0 || c->s.timer) {
			c->parked = c->s;
			c->parked_by = e->a;
		}
		soft_clear(&c->s);
		if (c->parked_by >= 0 && c->parked_by == e->b) {
			c->s = c->parked;
			c->parked_by = -1;
		}
		return;
	}
	soft_clear(&c->s);
}

/*
 * Events lost on C's CPU from T0 to T1, called at T1: the tracer lost them last in that
 * range (after the packet's recorded events), so what the context was before T1 cannot be
 * trusted, and what follows is recorded again.
 */
static void ctx_lost(struct cpu_ctx *c, uint64_t t0, uint64_t t1)
{
	c->irq = -1;
	c->irq_dev = 0;
	soft_clear(&c->s);
	c->parked_by = -1;
	for (int v = 0; v < NVEC; v++)
		c->raised_by[v] = -1;
	c->lost = true;
	c->lost_t0 = t0;
	c->lost_t1 = t1;
}

/* A sched_switch on C's CPU: the task switched out (blocked or preempted) or in. */
static void on_switch(struct track *k, struct cpu_ctx *c, const struct an_ev *e)
{
	if (k->cur.state == ST_RUNNABLE)
		hold_credit(k, e->cpu, e->a, c->since, e->ts);
	if (e->a == k->tid) {
		uint8_t st = blocked_state(e->d);
		uint64_t since = history_start(k, e->cpu);

		/* Switched out by its CPU's first switch: it ran there since that CPU's history
		 * began, whatever the trace said of it before (its wakeup or switch there
		 * unseen). */
		if (c->cur < 0 && since && k->cur.state != ST_RUNNING &&
		    k->cur.state != ST_EXITED) {
			k->cur.cpu = k->cur.state == ST_RUNNABLE ? e->cpu : k->cur.cpu;
			move(k, since > k->cur.t0 ? since : k->cur.t0, ST_RUNNING);
			k->cur.cpu = e->cpu;
			k->cur.syscall = k->sys;
		}
		/* An exited task's last switch: it stays exited. */
		if (st != ST_EXITED || k->cur.state != ST_EXITED)
			move(k, e->ts, st);
		k->cur.syscall = k->sys;
		k->cur.cpu = e->cpu;
		k->wait_cpu = e->cpu;
		hold_reset(k);
		if (st == ST_RUNNABLE) {
			k->cur.by = e->b;
			k->cur.by_ts = e->ts;
		}
	}
	if (e->b == k->tid) {
		/* A woken task waited behind whoever held its CPU the longest. */
		if (k->cur.state == ST_RUNNABLE)
			hold_longest(k, e->cpu, k->cur.by >= 0 ? k->cur.by : e->a,
				     k->cur.by >= 0 ? k->cur.by_ts : e->ts);
		if (k->cur.state == ST_RUNNABLE)
			k->cur.cpu = e->cpu;
		move(k, e->ts, ST_RUNNING);
		k->cur.cpu = e->cpu;
		k->cur.syscall = k->sys;
	}
	ctx_switch(k, c, e);
	c->cur = e->b;
	c->since = e->ts;
}

static bool same_flow(const struct an_packet *p, const struct an_packet *q)
{
	return p->family == q->family && p->proto == q->proto && p->sport == q->sport &&
	       p->dport == q->dport && !memcmp(p->saddr, q->saddr, sizeof(p->saddr)) &&
	       !memcmp(p->daddr, q->daddr, sizeof(p->daddr));
}

static const struct an_packet *packet(const struct track *k, int32_t i)
{
	return i >= 0 && (size_t)i < k->log->packets.n
		       ? AN_AT(&k->log->packets, struct an_packet, i)
		       : NULL;
}

/*
 * Whether P was sent to the task's socket: to the address and port one of its last packets
 * went out from. Its peer may be another (a server's next client).
 */
static bool to_task(const struct track *k, const struct an_packet *p)
{
	unsigned n = k->nsent < NSENT ? k->nsent : NSENT;

	for (unsigned i = 0; i < n; i++) {
		const struct an_packet *q = packet(k, k->sent[i]);

		if (q && q->family == p->family && q->proto == p->proto && q->sport == p->dport &&
		    !memcmp(q->saddr, p->daddr, sizeof(p->daddr)))
			return true;
	}
	return false;
}

/*
 * The packet a softirq woke the task for, among the last received in it. A device whose
 * packets reach their socket one by one (lo, veth) hands over each as it is traced: the
 * wakeup that follows is the last packet's. Another's GRO list is handed over whole after
 * all its packets were traced (another device's poll ends it): among them, the first sent
 * to the task's socket, when those are of one flow; else, when all are of one flow, its
 * first (the first delivered wakes the reader); else it is not known (*FLOWS: how many
 * flows).
 */
static int32_t woken_for(const struct track *k, const struct soft *s, uint16_t *flows)
{
	unsigned n = s->nrx < NRX ? s->nrx : NRX, from = n, nflows = 0, nmine = 0;
	int32_t first = -1, mine = -1;
	const struct an_packet *p;

	*flows = 0;
	if (!n)
		return -1;
	p = packet(k, s->rx[(s->nrx - 1) % NRX]);
	if (p && p->per_packet)
		return s->rx[(s->nrx - 1) % NRX];
	for (; from > 0; from--) {
		p = packet(k, s->rx[(s->nrx - n + from - 1) % NRX]);
		if (p && p->per_packet)
			break;
	}
	for (unsigned i = from; i < n; i++) {
		int32_t at = s->rx[(s->nrx - n + i) % NRX];
		bool seen = false, is_mine;

		if (!(p = packet(k, at)))
			continue;
		is_mine = to_task(k, p);
		/* A flow counts once, at its first packet. */
		for (unsigned j = from; j < i && !seen; j++) {
			const struct an_packet *q = packet(k, s->rx[(s->nrx - n + j) % NRX]);

			seen = q && same_flow(p, q);
		}
		if (!seen) {
			nflows++;
			nmine += is_mine;
		}
		if (first < 0)
			first = at;
		if (is_mine && mine < 0)
			mine = at;
	}
	if (nmine == 1)
		return mine;
	if (nflows == 1 && nmine == 0)
		return first;
	if (nflows > 1)
		*flows = (uint16_t)(nmine > 1 ? nmine : nflows);
	return -1;
}

/* The task woken from C's CPU: by whatever context runs there. */
static void on_waking(struct track *k, const struct cpu_ctx *c, const struct an_ev *e)
{
	uint8_t wake = WK_TASK;
	int32_t who = c->cur, via = -1;
	uint64_t began = k->cur.t0;

	if (e->a != k->tid || k->cur.state == ST_RUNNING || k->cur.state == ST_RUNNABLE)
		return;
	/* The innermost context wakes: a timer's expiry, unless a hard irq came in during it
	 * (timers expire in a softirq, interrupts on). */
	if (c->s.timer && c->irq == c->s.timer_irq) {
		wake = WK_TIMER;
		via = c->irq;
	} else if (c->irq >= 0) {
		wake = WK_IRQ;
		who = c->irq;
	} else if (c->s.softirq >= 0) {
		wake = WK_SOFTIRQ;
		who = c->s.softirq;
		via = c->s.softirq < NVEC ? c->raised_by[c->s.softirq] : -1;
	} else if (c->cur <= 0) {
		wake = WK_UNKNOWN;
	}
	k->cur.wake = wake;
	k->cur.who = who;
	k->cur.via = via;
	/* The I/O an interrupt completed is what it woke for; a task waking us later on that
	 * CPU did not complete it. */
	k->cur.dev = wake == WK_IRQ ? c->irq_dev : wake == WK_SOFTIRQ ? c->s.dev : 0;
	/* A socket's reader is woken as the packet is handed to it. */
	if (wake == WK_SOFTIRQ)
		k->cur.pkt = woken_for(k, &c->s, &k->cur.rx_flows);
	/* What woke it is read from a context that events lost over the wait may have left:
	 * the CPU's context was reset at the loss's end, within the wait. */
	k->cur.inferred = c->lost && c->lost_t1 >= began;
	/* The blocked interval ends here, with its waker. */
	move(k, e->ts, ST_RUNNABLE);
	k->cur.cpu = k->wait_cpu = e->b;
	k->cur.syscall = k->sys;
	hold_reset(k);
	/* A sched_wakeup_new's CPU is the one chosen; a sched_waking's is where the task last
	 * ran, until the wakeup (on this CPU, with interrupts off) moves it. */
	k->placing = e->type == EV_WAKING ? e->cpu : -1;
}

/*
 * The task moved to another CPU's queue. Right after its wakeup, on the waking CPU: the
 * wakeup chose where it waits. Later (load balancing, affinity): its wait so far was behind
 * the old CPU's holders, and goes on behind the new one's.
 */
static void on_migrate(struct track *k, const struct an_ev *e)
{
	bool placing = k->placing >= 0 && k->placing == (int32_t)e->cpu;

	k->placing = -1;
	if (k->cur.state != ST_RUNNABLE || e->b < 0 || e->b == k->cur.cpu)
		return;
	if (!placing && k->cur.cpu >= 0 && (unsigned)k->cur.cpu < k->ncpu) {
		const struct cpu_ctx *w = &k->cpus[k->cur.cpu];

		/* Whoever holds the old CPU held it until now. */
		hold_credit(k, (unsigned)k->cur.cpu, w->cur, w->since, e->ts);
		hold_longest(k, k->cur.cpu, k->cur.by, k->cur.by >= 0 ? k->cur.by_ts : e->ts);
		move(k, e->ts, ST_RUNNABLE);
	}
	k->cur.cpu = k->wait_cpu = e->b;
	k->cur.syscall = k->sys;
	hold_reset(k);
}

/* The context a CPU runs in (interrupt, softirq, timer expiry): who would wake a task there. */
static void on_context(struct track *k, struct cpu_ctx *c, const struct an_ev *e)
{
	switch (e->type) {
	case EV_IRQ_ENTRY:
		c->irq = e->a;
		c->irq_dev = 0;
		break;
	case EV_IRQ_EXIT:
		c->irq = -1;
		c->irq_dev = 0;
		break;
	case EV_SOFTIRQ_ENTRY:
		c->s.softirq = e->a;
		c->s.dev = 0;
		c->s.nrx = 0;
		break;
	case EV_SOFTIRQ_EXIT:
		c->s.softirq = -1;
		c->s.nrx = 0;
		if (e->a >= 0 && e->a < NVEC)
			c->raised_by[e->a] = -1;
		break;
	case EV_SOFTIRQ_RAISE:
		if (e->a >= 0 && e->a < NVEC && c->irq >= 0)
			c->raised_by[e->a] = c->irq;
		break;
	case EV_HRTIMER_ENTRY:
	case EV_TIMER_ENTRY:
		if (c->s.timer++ == 0)
			c->s.timer_irq = c->irq;
		break;
	case EV_HRTIMER_EXIT:
	case EV_TIMER_EXIT:
		if (c->s.timer > 0)
			c->s.timer--;
		break;
	case EV_BLOCK_COMPLETE:
		if (c->irq >= 0)
			c->irq_dev = e->a;
		else if (c->s.softirq >= 0)
			c->s.dev = e->a;
		break;
	case EV_NET_RECV:
		if (c->s.softirq >= 0 || c->irq >= 0)
			c->s.rx[c->s.nrx++ % NRX] = e->a;
		break;
	case EV_NET_XMIT:
		if (c->cur == k->tid && k->tid > 0 && c->irq < 0 && c->s.softirq < 0)
			k->sent[k->nsent++ % NSENT] = e->a;
		break;
	default:
		break;
	}
}

/* One event: the task's own (switch, wakeup, exit, system call) move its interval; the
 * others change the context of C's CPU. */
static void replay(struct track *k, struct cpu_ctx *c, const struct an_ev *e)
{
	/* The wakeup's choice of CPU is made before anything else happens on its CPU. */
	if (k->placing == (int32_t)e->cpu && !(e->type == EV_MIGRATE && e->a == k->tid))
		k->placing = -1;
	switch (e->type) {
	case EV_MIGRATE:
		if (e->a == k->tid)
			on_migrate(k, e);
		break;
	case EV_SWITCH:
		on_switch(k, c, e);
		break;
	case EV_WAKING:
	case EV_WAKEUP_NEW:
		on_waking(k, c, e);
		break;
	case EV_EXIT:
		if (e->a == k->tid)
			move(k, e->ts, ST_EXITED);
		break;
	case EV_SYS_ENTRY:
		if (c->cur == k->tid) {
			k->sys = e->a;
			k->cur.syscall = k->sys;
		}
		break;
	case EV_SYS_EXIT:
		if (c->cur == k->tid)
			k->sys = -1;
		break;
	default:
		on_context(k, c, e);
		break;
	}
}

/* By end, then beginning, CPU and count: one order whatever the order read (merge.c). */
static int by_end(const void *a, const void *b)
{
	const struct an_lost *x = a, *y = b;

	if (x->t1 != y->t1)
		return x->t1 > y->t1 ? 1 : -1;
	if (x->t0 != y->t0)
		return x->t0 > y->t0 ? 1 : -1;
	if (x->cpu != y->cpu)
		return x->cpu > y->cpu ? 1 : -1;
	return (x->n > y->n) - (x->n < y->n);
}

/*
 * The log's lost events by the time the CPU's context is known again (NULL: none, or out of
 * memory: then not taken into account).
 */
static struct an_lost *lost_sorted(const struct an_log *log)
{
	struct an_lost *l = log->lost.n ? malloc(log->lost.n * sizeof(*l)) : NULL;

	if (l) {
		memcpy(l, log->lost.v, log->lost.n * sizeof(*l));
		qsort(l, log->lost.n, sizeof(*l), by_end);
	}
	return l;
}

int an_timeline(const struct an_log *log, int32_t tid, uint64_t t0, uint64_t t1, struct an_vec *out)
{
	unsigned ncpu = log->ncpu ? log->ncpu : 1;
	struct cpu_ctx *cpu = cpus_new(ncpu);
	const struct an_task *task = an_task_find(log, tid);
	struct track k = {.log = log,
			  .tid = tid,
			  .sys = -1,
			  .wait_cpu = -1,
			  .placing = -1,
			  .t0 = t0,
			  .t1 = t1,
			  .out = out,
			  .ncpu = ncpu};
	const struct an_ev *ev = log->ev.v;
	struct an_lost *lost = lost_sorted(log);
	size_t nlost = lost ? log->lost.n : 0, j = 0;

	if (task && task->nident) {
		k.ids = AN_AT(&log->idents, struct an_ident, task->ident);
		k.nids = task->nident;
	}
	k.hold = calloc(ncpu, sizeof(*k.hold));
	k.cpus = cpu;
	if (!cpu || !k.hold) {
		free(cpu);
		free(k.hold);
		free(lost);
		return -1;
	}
	k.cur.t0 = log->first_ts;
	k.cur.state = ST_UNKNOWN;
	k.cur.cpu = k.cur.by = k.cur.who = k.cur.via = k.cur.syscall = k.cur.pkt = -1;
	for (size_t i = 0; i < log->ev.n && ev[i].ts <= t1 && !k.err; i++) {
		for (; j < nlost && lost[j].t1 <= ev[i].ts; j++)
			if (lost[j].cpu < ncpu)
				ctx_lost(&cpu[lost[j].cpu], lost[j].t0, lost[j].t1);
		replay(&k, &cpu[ev[i].cpu < ncpu ? ev[i].cpu : 0], &ev[i]);
	}
	/* Still waiting at the end: behind whoever holds the CPU it waits for. */
	if (k.cur.state == ST_RUNNABLE && k.cur.cpu >= 0 && (unsigned)k.cur.cpu < ncpu) {
		const struct cpu_ctx *w = &cpu[k.cur.cpu];

		hold_credit(&k, (unsigned)k.cur.cpu, w->cur, w->since, t1);
		hold_longest(&k, k.cur.cpu, k.cur.by >= 0 ? k.cur.by : w->cur,
			     k.cur.by >= 0 ? k.cur.by_ts : t1);
	}
	if (!k.err)
		move(&k, t1, ST_UNKNOWN);
	free(cpu);
	free(k.hold);
	free(lost);
	return k.err;
}
