/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The analysis' own types. Reading turns the trace into a compact log (struct an_ev, 32
 * bytes per event of interest, in time order) plus name tables; everything else (timelines,
 * chains, tables) replays that log in memory, which costs far less than decoding.
 */
#ifndef LATENCY_ANALYSIS_AN_H
#define LATENCY_ANALYSIS_AN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analysis.h"

enum an_ev_type {
	EV_SWITCH,	  /* a prev_tid, b next_tid, c next_prio, d prev_state */
	EV_WAKING,	  /* a tid, b target_cpu, c prio */
	EV_WAKEUP_NEW,	  /* a tid, b target_cpu */
	EV_FORK,	  /* a parent_tid, b child_tid, c child_pid */
	EV_EXIT,	  /* a tid */
	EV_IRQ_ENTRY,	  /* a irq */
	EV_IRQ_EXIT,	  /* a irq */
	EV_SOFTIRQ_ENTRY, /* a vec */
	EV_SOFTIRQ_EXIT,  /* a vec */
	EV_SOFTIRQ_RAISE, /* a vec */
	EV_HRTIMER_ENTRY,
	EV_HRTIMER_EXIT,
	EV_TIMER_ENTRY,
	EV_TIMER_EXIT,
	EV_BLOCK_ISSUE,	   /* a dev, c nr_sector, d sector */
	EV_BLOCK_COMPLETE, /* a dev, c nr_sector, d sector */
	EV_SYS_ENTRY,	   /* a syscall index */
	EV_SYS_EXIT,	   /* a syscall index, d ret */
	EV_ALERT,	   /* a alert index */
	EV_NET_XMIT,	   /* a packet index (net_dev_queue) */
	EV_NET_RECV,	   /* a packet index (netif_receive_skb) */
	EV__COUNT,
};

struct an_ev {
	uint64_t ts; /* ns from the epoch */
	uint64_t d;
	int32_t a, b, c;
	uint16_t type, cpu;
};

/* Growable array of fixed-size elements. */
struct an_vec {
	void *v;
	size_t n, cap, size;
};
void *an_vec_push(struct an_vec *vec);
void an_vec_free(struct an_vec *vec);
#define AN_VEC(type)                                                                               \
	{                                                                                          \
		.size = sizeof(type)                                                               \
	}
#define AN_AT(vec, type, i) (&((type *)(vec)->v)[i])

/* Open-addressing map from a nonzero 64-bit key to a 32-bit value. */
struct an_map {
	uint64_t *keys;
	uint32_t *vals;
	size_t n, cap;
};
/* Returns the value slot of key, inserting it with *inserted = true and value 0. */
uint32_t *an_map_slot(struct an_map *m, uint64_t key, bool *inserted);
uint32_t *an_map_find(const struct an_map *m, uint64_t key);
void an_map_free(struct an_map *m);

#define AN_COMM_LEN 16

/* An IPv4/IPv6 TCP or UDP packet as a net_dev_queue or netif_receive_skb event shows it. */
struct an_packet {
	uint8_t saddr[16], daddr[16]; /* IPv4: the first 4 bytes */
	uint16_t sport, dport;
	uint32_t seq, ack; /* TCP */
	uint32_t len;	   /* TCP: sequence space used (payload, +1 for SYN, +1 for FIN) */
	uint16_t ipid;	   /* IPv4 identification: tells UDP datagrams apart */
	uint8_t family;	   /* 4 or 6 */
	uint8_t proto;	   /* 6 TCP, 17 UDP */
	uint8_t flags;	   /* TCP flags */
	int32_t ev;	   /* its event's index in the log */
	int32_t tid;	   /* sent: the task that sent it, -1 from an interrupt or unknown */
};

struct an_task {
	int32_t tid, pid; /* pid -1: unknown */
	char comm[AN_COMM_LEN + 1];
};

struct an_alert {
	uint64_t ts, start, end, delay, threshold, seq;
	uint64_t data[4];
	int32_t pid, tid;
	uint32_t type, reason, start_cpu, end_cpu;
	char tracker[32];
	char comm[AN_COMM_LEN + 1];
};

struct json_object;

/* A block device's name, from the statedump or latencyd's catalog entry. */
struct an_disk {
	uint32_t dev; /* the kernel's dev_t: major << 20 | minor */
	char name[32];
};

/* What reading the trace gave. */
struct an_log {
	struct an_vec ev;	 /* struct an_ev, time order */
	struct an_vec tasks;	 /* struct an_task */
	struct an_map by_tid;	 /* tid + 1 -> index in tasks + 1 */
	struct an_vec alerts;	 /* struct an_alert */
	struct an_vec sysnames;	 /* char *: syscall names by index */
	struct an_map irqnames;	 /* irq + 1 -> index in irqname_v + 1 */
	struct an_vec irqname_v; /* char * */
	struct an_vec packets;	 /* struct an_packet */
	struct an_vec disks;	 /* struct an_disk: block devices' names */
	bool senders_known;	 /* an_net_senders() filled the packets' tid */
	uint64_t counts[EV__COUNT];
	uint64_t events;    /* every event read, of interest or not */
	uint64_t discarded; /* events the tracer says it lost */
	uint64_t first_ts, last_ts;
	struct an_vec cpu_first; /* uint64_t: each CPU's first event (its history's start) */
	unsigned ncpu;
	struct an_vec problems; /* char *: what went wrong, naming the file */
	bool partial;
};

void an_log_free(struct an_log *log);
struct an_task *an_task_get(struct an_log *log, int32_t tid);
const char *an_comm(const struct an_log *log, int32_t tid);
int32_t an_pid(const struct an_log *log, int32_t tid);
const char *an_irq_name(const struct an_log *log, int32_t irq);
/* disks.c: block devices by name. */
void an_disk_add(struct an_log *log, uint32_t dev, const char *name);
/* Names from a catalog entry's "disks" ({"MAJ:MIN": "name"}); NULL: none. */
void an_disks_from_entry(struct an_log *log, struct json_object *entry);
/* "vda", NULL when unknown. */
const char *an_disk_name(const struct an_log *log, uint32_t dev);
/* "vda (254:0)", or "254:0" when the name is unknown. */
void an_disk_text(const struct an_log *log, uint32_t dev, char *buf, size_t size);
const char *an_softirq_name(int32_t vec);
const char *an_sysname(const struct an_log *log, int32_t idx);
void an_problem(struct an_log *log, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* trace_dirs.c: every directory under path holding "metadata", sorted. */
int an_trace_dirs(const char *path, struct an_vec *dirs, char **why);

/* salvage.c: damaged traces. */
int an_check_metadata(const char *dir, char **why);
/*
 * A directory of links to dir's metadata and the stream files error does not name, with
 * the complete packets of those it names when their index says where they end (what was
 * done to each is pushed to dropped, char *); -ENOENT when no file is named or none is left.
 */
int an_salvage(const char *dir, const char *error, char **tmpdir, struct an_vec *dropped);
void an_rm_salvage(const char *tmpdir);

/*
 * reader.c: one pass over the trace(s) under dirs. Each message goes to the history's
 * counter (count), then to the analysis' decoder (decode); log gets the problems, the
 * events read and the events discarded in any case.
 */
struct an_count;
struct an_pass {
	const struct an_options *opt; /* its progress callback; NULL: none */
	bool decode;		      /* the events into the compact log (the analysis) */
	struct an_count *count;	      /* each stream counted (the history); NULL: not wanted */
	const volatile bool *stop;    /* polled between batches: true ends the pass, -ECANCELED */
	/* What the pass cost: graphs built (a damaged trace adds one), sources, messages. */
	unsigned graphs, sources;
	uint64_t messages;
};
int an_read(struct an_vec *dirs, struct an_pass *pass, struct an_log *log, char **why);

/* timeline.c: one task's states over [t0, t1]. */
enum an_state {
	ST_UNKNOWN,
	ST_RUNNING,
	ST_RUNNABLE,
	ST_BLOCKED_S, /* interruptible */
	ST_BLOCKED_D, /* uninterruptible */
	ST_BLOCKED,   /* other sleep states */
	ST_EXITED,
};
enum an_wake {
	WK_NONE,    /* not woken in the interval */
	WK_TASK,    /* who: the waker's tid */
	WK_IRQ,	    /* who: irq number */
	WK_SOFTIRQ, /* who: vector; via: the irq that raised it, -1 unknown */
	WK_TIMER,   /* an hrtimer or timer expiring; via: the irq it ran in, -1 */
	WK_UNKNOWN, /* woken from the idle task with no interrupt context recorded */
};
struct an_interval {
	uint64_t t0, t1;
	int32_t cpu;	 /* running: where; runnable: where it waits (-1 unknown) */
	int32_t syscall; /* blocked or running: the syscall in progress, -1 */
	int32_t by;	 /* runnable: who held the CPU, -1 unknown */
	int32_t who, via;
	int32_t dev; /* a block device whose request completed in the waking context, 0 */
	int32_t pkt; /* softirq wakeup: the packet received just before, -1 */
	uint8_t state, wake;
};
int an_history(const struct an_log *log, int32_t tid, uint64_t t0, uint64_t t1, struct an_vec *out);
bool an_blocked(uint8_t state);
const char *an_state_name(uint8_t state);

/* chain.c: the explanation of one alert. */
struct an_link {
	unsigned depth;
	struct an_interval iv;
	int32_t tid;
	/* Another host's task (crosshost.c): its log and name; NULL: the cause's own. */
	const struct an_log *log;
	const char *host;
};

/* A wait that went on in another host: the packet that woke the task, matched there. */
struct an_crossing {
	size_t link;		   /* the woken link (its iv.pkt, in the link's log) */
	const struct an_log *peer; /* the sending host's log; NULL: not found */
	const char *host;	   /* the sender's host */
	int32_t sender;		   /* tid, -1: sent from an interrupt (a retransmission, an ACK) */
	uint64_t sent;		   /* on the sender's clock */
	int64_t offset;		   /* sender clock - receiver clock, ns: the middle of [lo, hi] */
	int64_t uncertainty;	   /* half the width of [lo, hi] */
	uint64_t remote;	   /* of the wait, how long the sender's side took (ns) */
	uint64_t flight;	   /* from its sending to the task's wakeup (ns) */
};
/* A kernel stack latencyd named at alert time (the catalog's cause "stack"). */
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
int an_explain(const struct an_log *log, const struct an_alert *a, struct an_cause *c);
#define AN_CHAIN_DEPTH 6
/* TID's intervals over [t0, t1] as links at DEPTH, each woken-by-a-task one followed. */
int an_walk(const struct an_log *log, int32_t tid, uint64_t t0, uint64_t t1, unsigned depth,
	    struct an_vec *links, unsigned *follows);
void an_cause_free(struct an_cause *c);
/* S (allocated, NULL ignored) added to what cannot be concluded. */
void an_cause_note(struct an_cause *c, char *s);
/* The story written again (after crosshost.c added links). */
void an_cause_story(const struct an_log *log, struct an_cause *c);
/* stack.c: the catalog's named stack of C's alert (ENTRY: the snapshot's catalog entry, NULL:
 * none), placed beside the link it explains; the story is written again. */
void an_stack_attach(const struct an_log *log, struct an_cause *c, struct json_object *entry);
/* stack.link set again from the links, which crosshost.c changes. */
void an_stack_place(struct an_cause *c);
/* "where it waited" for "task", ... */
const char *an_stack_heading(const char *kind);
/* The log a link's task is in. */
static inline const struct an_log *an_link_log(const struct an_link *l, const struct an_log *log)
{
	return l->log ? l->log : log;
}
const struct an_crossing *an_crossing_of(const struct an_cause *c, size_t link);
/* "10.99.0.2:5432 > 10.99.0.1:41234 TCP seq 1:101" */
void an_packet_text(const struct an_packet *p, char *buf, size_t size);
/* "10.99.0.2:5432" of the sender (dst false) or receiver */
void an_endpoint_text(const struct an_packet *p, bool dst, char *buf, size_t size);
/* packets.c: each sent packet's task, from the CPUs' contexts at its sending. */
void an_net_senders(struct an_log *log);
/* A one-line summary of the critical path; returns the share of the latency explained. */
double an_cause_summary(const struct an_log *log, const struct an_cause *c, char *buf, size_t size);
void an_wake_text(const struct an_log *log, const struct an_interval *iv, char *buf, size_t size);
/* Runnable: "CPU 1 held by NAME (tid N)", or "CPU 1 idle, waking up" when the idle task
 * (tid 0) had it: the task was waiting for that CPU to come out of idle, not for a task. */
void an_runnable_text(const struct an_log *log, const struct an_interval *iv, char *buf,
		      size_t size);

/* classes.c: result tables, cells typed as LAMI's data classes. */
enum an_cell_kind {
	C_EMPTY,
	C_INT,
	C_DURATION,
	C_TIMESTAMP,
	C_PROCESS,
	C_SYSCALL,
	C_IRQ,
	C_DISK,
	C_RATIO,
	C_STRING,
	C_CPU,
	C_UNKNOWN,
};
struct an_cell {
	uint8_t kind;
	bool hard;     /* irq */
	int64_t v;     /* int, duration, timestamp, tid, irq nr, cpu */
	int32_t pid;   /* process, -1 unknown */
	double r;      /* ratio */
	const char *s; /* name (owned by the log or static) */
};
struct an_col {
	const char *title, *cls, *unit;
};
struct an_table_class {
	const char *name, *title;
	size_t ncols;
	struct an_col cols[8];
};
struct an_table {
	const struct an_table_class *cls;
	struct an_vec cells; /* struct an_cell, row after row */
};
extern const struct an_table_class an_table_classes[];
extern const size_t an_table_class_count;
struct an_cell *an_row(struct an_table *t);
size_t an_rows(const struct an_table *t);

/* statistics.c: the statistics over the window. */
int an_tables(const struct an_log *log, unsigned limit, struct an_vec *tables, struct an_vec *names,
	      uint64_t begin, uint64_t end);

struct an_result {
	char *path;
	struct an_log log;
	struct an_vec dirs;    /* char * */
	struct an_vec causes;  /* struct an_cause */
	struct an_vec tables;  /* struct an_table */
	struct an_vec missing; /* char *: event classes absent and what that costs */
	struct an_vec names;   /* char *: strings the tables point to */
	uint64_t begin, end;
};

/* result.c: an empty result (its log ready to fill), and the analysis of a filled log. */
struct an_result *an_result_new(const char *path);
int an_compute(struct an_result *r, const struct an_options *opt, char **why);
/* The same log computed again over another window (opt), without reading the trace again. */
int an_recompute(struct an_result *r, const struct an_options *opt, char **why);

/* missing.c: what the absence of each event class means. */
void an_missing(const struct an_log *log, struct an_vec *missing);

char *an_strdup(const char *s);
char *an_asprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void an_strs_free(struct an_vec *v);
/* "12.3 ms" */
void an_dur_text(char *buf, size_t size, uint64_t ns);

#endif /* LATENCY_ANALYSIS_AN_H */
