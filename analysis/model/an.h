/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The analysis' own types, private to analysis/ (the public headers in include/ know none of
 * them). Reading turns the trace into a compact log (struct an_ev, 32 bytes per event of
 * interest, in time order) plus name tables; everything else (timelines, chains, tables)
 * replays that log in memory, which costs far less than decoding. This is the model the
 * other folders share: the log, its containers and names, and what replaying it gives.
 */
#ifndef LATENCY_ANALYSIS_AN_H
#define LATENCY_ANALYSIS_AN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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
	EV_BLOCK_ISSUE,	   /* a dev, b tid (-1 unknown), c nr_sector, d sector */
	EV_BLOCK_COMPLETE, /* a dev, b rwbs (-1 unknown), c nr_sector, d sector */
	EV_SYS_ENTRY,	   /* a syscall index */
	EV_SYS_EXIT,	   /* a syscall index, d ret */
	EV_ALERT,	   /* a alert index */
	EV_NET_XMIT,	   /* a packet index (net_dev_queue) */
	EV_NET_RECV,	   /* a packet index (netif_receive_skb) */
	EV_EXEC,	   /* a tid, b old_tid (another thread of the process exec'd) */
	EV_MIGRATE,	   /* a tid, b dest_cpu, c orig_cpu */
	EV__COUNT,
};

/*
 * A sched_switch's prev_state for a thread switched away for good: lttng-modules reports
 * the kernel's task_state_index() as a bit, EXIT_DEAD (X) or EXIT_ZOMBIE (Z) for one that
 * exited (and TASK_REPORT_MAX, 0x100, for a preemption).
 */
#define AN_PREV_STATE_DEAD 0x30

struct an_ev {
	uint64_t ts; /* ns from the epoch */
	uint64_t d;
	int32_t a, b, c;
	uint16_t type, cpu;
};

/* containers.c: a growable array of fixed-size elements. */
struct an_vec {
	void *v;
	size_t n, cap, size;
};
void *an_vec_push(struct an_vec *vec);
int an_vec_reserve(struct an_vec *vec, size_t n); /* room for n elements in all; -ENOMEM */
void an_vec_free(struct an_vec *vec);
#define AN_VEC(type)                                                                               \
	{                                                                                          \
		.size = sizeof(type)                                                               \
	}
#define AN_AT(vec, type, i) (&((type *)(vec)->v)[i])

/* containers.c: an open-addressing map from a nonzero 64-bit key to a 32-bit value. */
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
/* CPUs a trace may name (the kernel's NR_CPUS at most); a higher id is damage. */
#define AN_CPUS_MAX 8192

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
	/* received on a device whose packets reach their socket one by one as each is traced
	 * (lo, veth: a backlog, no GRO list) */
	bool per_packet;
	int32_t ev;  /* its event's index in the log */
	int32_t tid; /* sent: the task that sent it, -1 from an interrupt or unknown */
	/* the run of interrupt handlers it was sent or received in (one number per run, on
	 * any CPU), 0 in a task's context */
	uint32_t handler;
};

struct an_task {
	int32_t tid, pid; /* pid -1: unknown; with identities, the last one's */
	char comm[AN_COMM_LEN + 1];
	uint32_t ident, nident; /* its identities in the log's idents; none: comm and pid */
};

/*
 * Who a thread was from a time on (idents.c): a tid keeps its thread, but the thread
 * changes its name (exec, prctl) and, once it exited, the tid may name another process's.
 */
struct an_ident {
	uint64_t ts;  /* from then on (the first: also before) */
	int32_t pid;  /* -1: unknown */
	uint32_t run; /* the tid's programs: a fork, an exec or a reuse starts another */
	char comm[AN_COMM_LEN + 1]; /* "": not known */
};

/* What an event said of who a thread was, in the order read: idents.c makes identities. */
enum an_obs_kind {
	OBS_NAME,  /* its comm in a switch, a wakeup, a migration */
	OBS_FORK,  /* created: comm and pid */
	OBS_EXEC,  /* its program replaced: comm from the file name, pid is tid */
	OBS_EXIT,  /* exited: the tid may be reused */
	OBS_ALERT, /* latency_tracker_alert: comm and pid */
};
struct an_obs {
	uint64_t ts;
	int32_t tid, pid; /* pid -1: not said */
	uint8_t kind;
	char comm[AN_COMM_LEN + 1]; /* "": not said */
};

/* The module's reason TIMEOUT and flag DISCARDED (kmod/include/uapi/latency_tracker.h). */
#define AN_REASON_TIMEOUT    2
#define AN_ALERT_F_DISCARDED (1U << 5)

struct an_alert {
	uint64_t ts, start, end, delay, threshold, seq;
	uint64_t data[4];
	int32_t pid, tid;
	uint32_t type, reason, flags, start_cpu, end_cpu;
	char tracker[32];
	char comm[AN_COMM_LEN + 1];
};

/* A key the module gave up on as stale: its end never came, its delay is a lower bound. */
static inline bool an_alert_discarded(const struct an_alert *a)
{
	return a->reason == AN_REASON_TIMEOUT && (a->flags & AN_ALERT_F_DISCARDED);
}

struct an_known;

/* A block device's name, from the statedump or latencyd's catalog entry. */
struct an_disk {
	uint32_t dev; /* the kernel's dev_t: major << 20 | minor */
	char name[32];
};

/* lttng-modules' block_rq_* rwbs flags */
#define AN_RWBS_WRITE 0x1
#define AN_RWBS_READ  0x4

/* An event class of interest left out: it lacks a field its events need (decode.c). */
struct an_bad_class {
	char *what; /* the class and the field */
	uint64_t events;
};

/*
 * The classes of interest a trace's metadata declares (decode.c), of those whose absence
 * only the metadata can tell (missing.c): a kernel trace declares sched_switch.
 */
struct an_declared {
	uint32_t trace; /* its index in the trace directories read; UINT32_MAX: unknown */
	uint32_t types; /* 1 << type */
};

/*
 * Events the tracer discarded on a CPU, somewhere in [t0, t1]: what the CPU was doing
 * across that range is not known (an interrupt's exit may be among them). babeltrace2 gives
 * a discarded-events range as [the previous packet's end, this packet's end], the tracer
 * having dropped them at the end of it (its buffer full); a discarded-packets one (a gap in
 * the packets' numbers: overwritten in a flight recorder's ring) as [the previous packet's
 * end, this packet's beginning]. Either way the CPU's context is known again from t1 on.
 */
struct an_lost {
	uint64_t t0, t1;
	uint64_t n;   /* events lost; 0: whole packets, their events not counted */
	uint32_t cpu; /* UINT32_MAX: its stream's CPU unknown */
};

/* What reading the trace gave. */
struct an_log {
	struct an_vec ev;	 /* struct an_ev, time order */
	struct an_vec tasks;	 /* struct an_task */
	struct an_map by_tid;	 /* tid + 1 -> index in tasks + 1 */
	struct an_vec obs;	 /* struct an_obs, until an_idents() made them identities */
	struct an_vec idents;	 /* struct an_ident, each task's in a run, by time */
	struct an_vec alerts;	 /* struct an_alert */
	struct an_vec sysnames;	 /* char *: syscall names by index */
	struct an_map irqnames;	 /* irq + 1 -> index in irqname_v + 1 */
	struct an_vec irqname_v; /* char * */
	struct an_vec packets;	 /* struct an_packet */
	struct an_vec disks;	 /* struct an_disk: block devices' names */
	bool senders_known;	 /* an_net_senders() filled the packets' tid, handler */
	uint64_t counts[EV__COUNT];
	struct an_vec declared;	    /* struct an_declared, one per trace declaring any */
	uint64_t events;	    /* every event read, of interest or not */
	uint64_t discarded;	    /* events the tracer says it lost */
	uint64_t discarded_packets; /* packets missing (a gap in a stream's numbers) */
	struct an_vec lost;	    /* struct an_lost: where, by t0 once read */
	bool preempt_rt;	    /* a PREEMPT_RT kernel: softirqs and soft timers run in tasks */
	uint64_t damaged;	    /* events left out: no time, or a CPU no kernel has */
	uint64_t first_ts, last_ts;
	struct an_vec cpu_first; /* uint64_t: each CPU's first event (its history's start) */
	unsigned ncpu;
	struct an_vec bad_classes; /* struct an_bad_class, said as problems by an_compute() */
	struct an_vec problems;	   /* char *: what went wrong, naming the file */
	bool partial;
};

/* log.c: the log's tasks and names, and what went wrong reading it. */
void an_log_init(struct an_log *log); /* empty, its tables' element sizes set */
void an_log_free(struct an_log *log);
struct an_task *an_task_get(struct an_log *log, int32_t tid);
const struct an_task *an_task_find(const struct an_log *log, int32_t tid);
const char *an_irq_name(const struct an_log *log, int32_t irq);
const char *an_softirq_name(int32_t vec);
const char *an_sysname(const struct an_log *log, int32_t idx);
/* The index of syscall name, added the first time it is seen; -1 when out of memory. */
int32_t an_sysname_index(struct an_log *log, const char *name);
/* irq's name unless it has one (the first seen wins); whether it was added. */
bool an_irq_name_set(struct an_log *log, int32_t irq, const char *name);
void an_problem(struct an_log *log, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* idents.c: the log's observations made each task's identities (then freed); -ENOMEM. */
int an_idents(struct an_log *log);
/* Who TID was at TS, and until when (UINT64_MAX: the end); NULL: a task with none. */
const struct an_ident *an_ident_at(const struct an_log *log, int32_t tid, uint64_t ts,
				   uint64_t *until);
/* TID's name and pid at TS: "swapper" for tid 0, "?" unknown; -1 unknown. */
const char *an_comm_at(const struct an_log *log, int32_t tid, uint64_t ts);
int32_t an_pid_at(const struct an_log *log, int32_t tid, uint64_t ts);
/* A key naming TID as it was at TS (its identity), for tables that keep a row per thread
 * identity; the tid alone (a key below 2^32) for a task without identities. */
uint64_t an_who_key(const struct an_log *log, int32_t tid, uint64_t ts);
/* What a key names. */
void an_who(const struct an_log *log, uint64_t key, int32_t *tid, int32_t *pid, const char **comm);
/* disks.c: block devices by name. */
void an_disk_add(struct an_log *log, uint32_t dev, const char *name);
/* Names latencyd knew when it recorded the snapshot; NULL: none. */
void an_disks_from_known(struct an_log *log, const struct an_known *known);
/* "vda", NULL when unknown. */
const char *an_disk_name(const struct an_log *log, uint32_t dev);
/* "vda (254:0)", or "254:0" when the name is unknown. */
void an_disk_text(const struct an_log *log, uint32_t dev, char *buf, size_t size);

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
	uint64_t by_ts;	 /* when it held it: its name then */
	int32_t who, via;
	int32_t dev; /* a block device whose request completed in the waking context, 0 */
	int32_t pkt; /* softirq wakeup: the packet received for the task, -1 */
	/* softirq wakeup: packets of that many flows received in the softirq before it, none
	 * the reply to one the task sent: which one woke it is not known (pkt -1) */
	uint16_t rx_flows;
	bool inferred; /* events were lost on the waking CPU over the wait: its waker is a
			  guess from what was recorded */
	uint8_t state, wake;
};
int an_timeline(const struct an_log *log, int32_t tid, uint64_t t0, uint64_t t1,
		struct an_vec *out);
bool an_blocked(uint8_t state);
const char *an_state_name(uint8_t state);

/* packets.c: "10.99.0.2:5432 > 10.99.0.1:41234 TCP seq 1:101" */
void an_packet_text(const struct an_packet *p, char *buf, size_t size);
/* "10.99.0.2:5432" of the sender (dst false) or receiver */
void an_endpoint_text(const struct an_packet *p, bool dst, char *buf, size_t size);
/* Each sent packet's task, and each packet's handler run, from the CPUs' contexts. */
void an_net_senders(struct an_log *log);
/* FNV-1a of N bytes at P, on from H; a packet's flow (addresses, ports, protocol) hashed. */
uint64_t an_fnv(uint64_t h, const void *p, size_t n);
uint64_t an_flow_hash(const struct an_packet *p);

/* A trace's declared classes (1 << type) added to the log's; -ENOMEM. */
int an_declare(struct an_log *log, uint32_t trace, uint32_t types);
/*
 * missing.c: what the absence of each event class means. DIRS (char *) are the trace
 * directories read, under ROOT: a class some kernel traces do not declare names them.
 */
void an_missing(const struct an_log *log, const struct an_vec *dirs, const char *root,
		struct an_vec *missing);
/* Of those, the classes a kernel trace's metadata does not declare (char *, pushed). */
void an_undeclared(const struct an_log *log, const struct an_vec *dirs, const char *root,
		   struct an_vec *missing);

/* strings.c */
char *an_strdup(const char *s);
char *an_asprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void an_strs_free(struct an_vec *v);
/* A name from the trace made UTF-8, in place: a task sets its comm to any bytes, and the
 * kernel cuts it at 15 bytes, inside a character as well; JSON and LAMI must be UTF-8. Each
 * byte that starts no well-formed character becomes '?'. */
void an_utf8_mend(char *s);
/* "12.3 ms" */
void an_dur_text(char *buf, size_t size, uint64_t ns);

#endif /* LATENCY_ANALYSIS_AN_H */
