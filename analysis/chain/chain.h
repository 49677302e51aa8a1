/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * An alert's cause: the affected task's timeline, the critical path through its wakeups
 * (chain.c), followed into other hosts (crosshost.h), told as a story (story.c) beside the
 * kernel stack latencyd named (stack.c), and summed up in a line (summary.c). Calls go one
 * way: chain.c and crosshost.c write the story, which places the stack.
 */
#ifndef LATENCY_ANALYSIS_CHAIN_H
#define LATENCY_ANALYSIS_CHAIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "an.h"

struct an_known;
struct an_sends;

/* A link of the critical path: an interval of a task on it. */
struct an_link {
	unsigned depth;
	struct an_interval iv;
	int32_t tid;
	/* Another host's task (crosshost.c): its log and name; NULL: the cause's own. */
	const struct an_log *log;
	const char *host;
	/* Woken by a packet sent on its own host, found there unique: the task that sent it
	 * (its links follow), -1 sent from an interrupt; 0: none such. */
	int32_t sender;
};

/* A wait that went on in another host: the packet that woke the task, matched there. */
struct an_crossing {
	size_t link;		   /* the woken link (its iv.pkt, in the link's log) */
	const struct an_log *peer; /* the sending host's log; NULL: ambiguous, not followed */
	uint32_t candidates;	   /* sends the packet matches: 1, or more for a packet that
				      cannot be told apart from others (ambiguous) */
	uint32_t hosts;		   /* the hosts those were sent on */
	const char *host;	   /* the sender's host */
	int32_t sender;		   /* tid, -1: sent from an interrupt (a retransmission, an ACK) */
	uint64_t sent;		   /* on the sender's clock */
	int64_t offset;		   /* sender clock - receiver clock, ns: the middle of [lo, hi] */
	int64_t uncertainty;	   /* half the width of [lo, hi] */
	uint64_t remote;	   /* of the wait, how long the sender's side took (ns) */
	uint64_t flight;	   /* from its sending to the task's wakeup (ns) */
};
/* A kernel stack latencyd named at alert time (an_known_stack, copied). */
struct an_stack {
	char kind[8];	      /* "task", "waker", "alert", "in"; "": none */
	struct an_vec frames; /* char *, innermost first */
	size_t link;	      /* the link of the chain it explains; SIZE_MAX: the alert */
};
struct an_cause {
	struct an_alert alert;
	uint64_t t0, t1;	/* the alert's interval in trace time */
	struct an_vec timeline; /* struct an_interval of the alert's task */
	struct an_vec links;	/* struct an_link, the critical path, depth first */
	char *story;
	struct an_vec notes;	 /* char *: what cannot be concluded */
	struct an_vec crossings; /* struct an_crossing */
	const char *host;	 /* the host of the alert, in an incident; NULL: alone */
	struct an_stack stack;
};
/* The log a link's task is in. */
static inline const struct an_log *an_link_log(const struct an_link *l, const struct an_log *log)
{
	return l->log ? l->log : log;
}

/*
 * chain.c: the cause of alert A found, its story written. SENDS: LOG's sent packets (zeroed
 * before the first alert), built when first needed and kept for LOG's other alerts: their
 * index is sorted once per log, not once per alert; the caller frees it (an_sends_free()).
 */
int an_explain(const struct an_log *log, struct an_sends *sends, const struct an_alert *a,
	       struct an_cause *c);
#define AN_CHAIN_DEPTH	 6
/* Links of one alert's chain, and tasks followed: each followed costs a replay of the log,
 * a host's crossed to as much. Bounded per alert, hosts included. */
#define AN_CHAIN_LINKS	 128
#define AN_CHAIN_FOLLOWS 24
/*
 * TID's intervals over [t0, t1] as links at DEPTH, each one woken by a task followed, and
 * each one woken by a packet that task sent on this host (SENDS: LOG's sent packets, built
 * when first needed).
 */
int an_walk(const struct an_log *log, struct an_sends *sends, int32_t tid, uint64_t t0, uint64_t t1,
	    unsigned depth, struct an_vec *links, unsigned *follows);

/* cause.c */
void an_cause_free(struct an_cause *c);
/* S (allocated, NULL ignored) added to what cannot be concluded. */
void an_cause_note(struct an_cause *c, char *s);
const struct an_crossing *an_crossing_of(const struct an_cause *c, size_t link);
/* Crossings the chain went through (an ambiguous datagram is not followed). */
size_t an_crossings_followed(const struct an_cause *c);

/* story.c: the story written (again, after crosshost.c added links or stack.c a stack). */
void an_cause_story(const struct an_log *log, struct an_cause *c);
void an_wake_text(const struct an_log *log, const struct an_interval *iv, char *buf, size_t size);
/* Runnable: "CPU 1 held by NAME (tid N)", or "CPU 1 idle, waking up" when the idle task
 * (tid 0) had it: the task was waiting for that CPU to come out of idle, not for a task. */
void an_runnable_text(const struct an_log *log, const struct an_interval *iv, char *buf,
		      size_t size);

/* summary.c: a one-line summary of the critical path; returns the share of the latency
 * explained. */
double an_cause_summary(const struct an_log *log, const struct an_cause *c, char *buf, size_t size);

/*
 * stack.c: the named stack latencyd knew of C's alert (KNOWN: NULL, none); true when there
 * was one, and the story is to be written again to show it.
 */
bool an_stack_attach(struct an_cause *c, const struct an_known *known);
/* stack.link set again from the links, which crosshost.c changes. */
void an_stack_place(struct an_cause *c);
/* "where it waited" for "task", ... */
const char *an_stack_heading(const char *kind);

#endif /* LATENCY_ANALYSIS_CHAIN_H */
