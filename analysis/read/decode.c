/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * One event into the compact log. An event class is resolved once, the first time it is
 * seen (its kind, the indices of the payload fields used): the hot path is a hash lookup
 * of the class pointer and a few indexed field reads, never a string compare.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "decode.h"

enum { MAXF = 4 };

struct fref {
	int16_t idx; /* -1: absent, or not of the type read (get() reads integers alone) */
	bool sgn;
};

struct handler {
	uint16_t type; /* EV__COUNT: not of interest */
	int32_t sys;
	struct fref f[MAXF];
	int16_t s[2]; /* string fields: comms, irq name */
	bool disk;    /* a disk's name (the module's or LTTng's statedump), no timeline event */
	uint32_t bad; /* lacks a field its events need: index in the log's bad_classes + 1 */
};

/* The payload's field NAME if it is an integer (STRING false) or a string (STRING true). */
static struct fref field_of(const bt_field_class *payload, const char *name, bool string)
{
	struct fref r = {.idx = -1};
	uint64_t n;

	if (!payload)
		return r;
	n = bt_field_class_structure_get_member_count(payload);
	for (uint64_t i = 0; i < n; i++) {
		const bt_field_class_structure_member *m =
			bt_field_class_structure_borrow_member_by_index_const(payload, i);
		const bt_field_class *fc;
		bt_field_class_type t;

		if (strcmp(bt_field_class_structure_member_get_name(m), name) != 0)
			continue;
		fc = bt_field_class_structure_member_borrow_field_class_const(m);
		t = bt_field_class_get_type(fc);
		/* A field of another type (a hand-made or damaged metadata) is absent: reading
		 * it as the other would read babeltrace2's memory as a value. */
		if (!string && bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_INTEGER)) {
			r.idx = (int16_t)i;
			r.sgn = bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_SIGNED_INTEGER);
		} else if (string && t == BT_FIELD_CLASS_TYPE_STRING) {
			r.idx = (int16_t)i;
		}
		break;
	}
	return r;
}

static struct fref field(const bt_field_class *payload, const char *name)
{
	return field_of(payload, name, false);
}

static int16_t sfield(const bt_field_class *payload, const char *name)
{
	return field_of(payload, name, true).idx;
}

static const char *strip(const char *name, const char *const *prefixes)
{
	for (; *prefixes; prefixes++)
		if (strncmp(name, *prefixes, strlen(*prefixes)) == 0)
			return name + strlen(*prefixes);
	return NULL;
}

/*
 * The integer fields a to d into h->f[0..3]; the first of those NEED has (bit i: field i)
 * that the payload lacks, NULL if none.
 */
static const char *fields(struct handler *h, const bt_field_class *p, unsigned need, const char *a,
			  const char *b, const char *c, const char *d)
{
	const char *names[MAXF] = {a, b, c, d}, *lacks = NULL;

	for (int i = 0; i < MAXF; i++) {
		h->f[i] = names[i] ? field(p, names[i]) : (struct fref){.idx = -1};
		if (!lacks && (need & 1u << i) && h->f[i].idx < 0)
			lacks = names[i];
	}
	return lacks;
}

/*
 * A class of interest without a field its events need (a "sched_switch" declared with
 * other fields): its events would say what they do not (a tid of -1, a state of all
 * ones), so they are left out, counted, and the result says which class and field.
 */
static void bad_class(struct an_log *log, const bt_event_class *ec, struct handler *h,
		      const char *lacks, bool string)
{
	struct an_bad_class *b = an_vec_push(&log->bad_classes);

	h->type = EV__COUNT;
	h->disk = false;
	if (!b)
		return;
	b->what = an_asprintf("event class \"%s\" (id %llu) has no %s field \"%s\"",
			      bt_event_class_get_name(ec),
			      (unsigned long long)bt_event_class_get_id(ec),
			      string ? "string" : "integer", lacks);
	if (!b->what) {
		log->bad_classes.n--;
		return;
	}
	h->bad = (uint32_t)log->bad_classes.n;
}

static void resolve(struct an_log *log, const bt_event_class *ec, struct handler *h)
{
	static const char *const entry[] = {"syscall_entry_", "compat_syscall_entry_", NULL};
	static const char *const exit_[] = {"syscall_exit_", "compat_syscall_exit_", NULL};
	const char *name = bt_event_class_get_name(ec);
	const bt_field_class *p = bt_event_class_borrow_payload_field_class_const(ec);
	const char *sys, *lacks = NULL;

	h->type = EV__COUNT;
	h->s[0] = h->s[1] = -1;
	fields(h, p, 0, NULL, NULL, NULL, NULL);
	if (!name)
		return;
	if (strcmp(name, "sched_switch") == 0) {
		h->type = EV_SWITCH;
		lacks = fields(h, p, 0xb, "prev_tid", "next_tid", "next_prio", "prev_state");
		h->s[0] = sfield(p, "prev_comm");
		h->s[1] = sfield(p, "next_comm");
	} else if (strcmp(name, "sched_waking") == 0 || strcmp(name, "sched_wakeup_new") == 0) {
		h->type = strcmp(name, "sched_waking") == 0 ? EV_WAKING : EV_WAKEUP_NEW;
		lacks = fields(h, p, 0x3, "tid", "target_cpu", "prio", NULL);
		h->s[0] = sfield(p, "comm");
	} else if (strcmp(name, "sched_process_fork") == 0) {
		h->type = EV_FORK;
		lacks = fields(h, p, 0x2, "parent_tid", "child_tid", "child_pid", NULL);
		h->s[1] = sfield(p, "child_comm");
	} else if (strcmp(name, "sched_process_exit") == 0) {
		h->type = EV_EXIT;
		lacks = fields(h, p, 0x1, "tid", NULL, NULL, NULL);
		h->s[0] = sfield(p, "comm");
	} else if (strcmp(name, "sched_process_exec") == 0) {
		h->type = EV_EXEC;
		lacks = fields(h, p, 0x1, "tid", "old_tid", NULL, NULL);
		h->s[0] = sfield(p, "filename");
	} else if (strcmp(name, "sched_migrate_task") == 0) {
		/* Where a runnable task waits: a wakeup's choice of CPU, or a move to another. */
		h->type = EV_MIGRATE;
		lacks = fields(h, p, 0x3, "tid", "dest_cpu", "orig_cpu", NULL);
		h->s[0] = sfield(p, "comm");
	} else if (strcmp(name, "irq_handler_entry") == 0) {
		h->type = EV_IRQ_ENTRY;
		lacks = fields(h, p, 0x1, "irq", NULL, NULL, NULL);
		h->s[0] = sfield(p, "name");
	} else if (strcmp(name, "irq_handler_exit") == 0) {
		h->type = EV_IRQ_EXIT;
		lacks = fields(h, p, 0x1, "irq", NULL, NULL, NULL);
	} else if (strcmp(name, "irq_softirq_entry") == 0 || strcmp(name, "softirq_entry") == 0 ||
		   strcmp(name, "irq_softirq_exit") == 0 || strcmp(name, "softirq_exit") == 0 ||
		   strcmp(name, "irq_softirq_raise") == 0 || strcmp(name, "softirq_raise") == 0) {
		const char *what = strrchr(name, '_') + 1;

		h->type = what[0] == 'e' && what[1] == 'n' ? EV_SOFTIRQ_ENTRY
			  : what[0] == 'e'		   ? EV_SOFTIRQ_EXIT
							   : EV_SOFTIRQ_RAISE;
		lacks = fields(h, p, 0x1, "vec", NULL, NULL, NULL);
	} else if (strcmp(name, "timer_hrtimer_expire_entry") == 0 ||
		   strcmp(name, "hrtimer_expire_entry") == 0) {
		h->type = EV_HRTIMER_ENTRY;
	} else if (strcmp(name, "timer_hrtimer_expire_exit") == 0 ||
		   strcmp(name, "hrtimer_expire_exit") == 0) {
		h->type = EV_HRTIMER_EXIT;
	} else if (strcmp(name, "timer_expire_entry") == 0) {
		h->type = EV_TIMER_ENTRY;
	} else if (strcmp(name, "timer_expire_exit") == 0) {
		h->type = EV_TIMER_EXIT;
	} else if (strcmp(name, "block_rq_issue") == 0 || strcmp(name, "block_rq_complete") == 0) {
		h->type = name[9] == 'i' ? EV_BLOCK_ISSUE : EV_BLOCK_COMPLETE;
		/* who issued it; what it was (lttng-modules' rwbs flags) once it completed */
		lacks = fields(h, p, 0xd, "dev", h->type == EV_BLOCK_ISSUE ? "tid" : "rwbs",
			       "nr_sector", "sector");
	} else if ((sys = strip(name, entry))) {
		h->type = EV_SYS_ENTRY;
		h->sys = an_sysname_index(log, sys);
	} else if ((sys = strip(name, exit_))) {
		h->type = EV_SYS_EXIT;
		h->sys = an_sysname_index(log, sys);
		fields(h, p, 0, NULL, NULL, NULL, "ret");
	} else if (strcmp(name, "latency_tracker_alert") == 0) {
		h->type = EV_ALERT;
	} else if (strcmp(name, "lttng_statedump_block_device") == 0 ||
		   strcmp(name, "latency_tracker_device_name") == 0) {
		h->disk = true;
		lacks = fields(h, p, 0x1, "dev", NULL, NULL, NULL);
		h->s[0] = sfield(p, "diskname");
		if (!lacks && h->s[0] < 0) {
			bad_class(log, ec, h, "diskname", true);
			return;
		}
	} else if (strcmp(name, "net_dev_queue") == 0) {
		h->type = EV_NET_XMIT;
	} else if (strcmp(name, "net_if_receive_skb") == 0 ||
		   strcmp(name, "netif_receive_skb") == 0) {
		h->type = EV_NET_RECV;
	}
	if (lacks)
		bad_class(log, ec, h, lacks, false);
}

static inline int64_t get(const bt_field *payload, struct fref r)
{
	const bt_field *f;

	if (r.idx < 0)
		return -1;
	f = bt_field_structure_borrow_member_field_by_index_const(payload, (uint64_t)r.idx);
	return r.sgn ? bt_field_integer_signed_get_value(f)
		     : (int64_t)bt_field_integer_unsigned_get_value(f);
}

static inline const char *str(const bt_field *payload, int16_t idx)
{
	const bt_field *f;

	if (idx < 0)
		return NULL;
	f = bt_field_structure_borrow_member_field_by_index_const(payload, (uint64_t)idx);
	return bt_field_get_class_type(f) == BT_FIELD_CLASS_TYPE_STRING
		       ? bt_field_string_get_value(f)
		       : NULL;
}

/* Where the merge replays a side effect from (trail.c); nothing without a trail. */
static inline void mark(struct an_decoder *d, enum an_mark_kind kind, size_t i)
{
	if (d->trail)
		an_trail_mark(d->trail, kind, i, d->ts);
}

/* tid's task; the first time the log sees it is marked. */
static struct an_task *task(struct an_decoder *d, int32_t tid)
{
	size_t n = d->log->tasks.n;
	struct an_task *t = an_task_get(d->log, tid);

	if (t && d->log->tasks.n > n)
		mark(d, AN_MARK_TASK, n);
	return t;
}

/* What the event says of who tid is, kept (its task made known first); -1: out of memory. */
static int observe(struct an_decoder *d, uint8_t kind, int32_t tid, int32_t pid, const char *comm)
{
	struct an_obs *o;

	if (tid <= 0)
		return 0; /* the idle task, or no task */
	if (!task(d, tid) || !(o = an_vec_push(&d->log->obs)))
		return -1;
	memset(o, 0, sizeof(*o));
	o->ts = d->ts;
	o->kind = kind;
	o->tid = tid;
	o->pid = pid;
	if (comm)
		strncpy(o->comm, comm, AN_COMM_LEN);
	return 0;
}

/* The state of what the current stream said of tid last; NULL: out of memory. */
static struct an_seen *seen(struct an_decoder *d, int32_t tid)
{
	struct an_recent_task *r =
		&d->recent_tasks[((uint32_t)tid ^ d->last_ds * 0x9e3779b9u) % AN_RECENT_TASKS];
	bool inserted;
	uint32_t *slot;
	struct an_seen *s;

	if (r->tid == tid && r->ds == d->last_ds)
		return AN_AT(&d->seen, struct an_seen, r->seen);
	slot = an_map_slot(&d->seen_map, ((uint64_t)d->last_ds + 1) << 32 | (uint32_t)tid,
			   &inserted);
	if (!slot)
		return NULL;
	if (inserted) {
		d->seen.size = sizeof(struct an_seen);
		s = an_vec_push(&d->seen);
		if (!s)
			return NULL;
		memset(s, 0, sizeof(*s));
		*slot = (uint32_t)d->seen.n;
	}
	*r = (struct an_recent_task){.tid = tid, .ds = d->last_ds, .seen = *slot - 1};
	return AN_AT(&d->seen, struct an_seen, *slot - 1);
}

/* tid's name as an event gives it: an observation unless this packet said it already. */
static int name(struct an_decoder *d, int32_t tid, const char *comm)
{
	uint32_t packets = AN_AT(&d->dstreams, struct an_dstream, d->last_ds)->packets;
	struct an_seen *s;

	if (!comm || tid <= 0)
		return 0;
	if (!(s = seen(d, tid)))
		return -1;
	if (s->packet == packets && strncmp(s->comm, comm, AN_COMM_LEN) == 0)
		return 0;
	s->packet = packets;
	strncpy(s->comm, comm, AN_COMM_LEN);
	s->comm[AN_COMM_LEN] = 0;
	return observe(d, OBS_NAME, tid, -1, comm);
}

/* An observation with a name that is not a NAME: the next NAME in the packet compares to it. */
static int observe_named(struct an_decoder *d, uint8_t kind, int32_t tid, int32_t pid,
			 const char *comm)
{
	struct an_seen *s;

	if (tid <= 0)
		return 0;
	if (comm && comm[0]) {
		if (!(s = seen(d, tid)))
			return -1;
		s->packet = AN_AT(&d->dstreams, struct an_dstream, d->last_ds)->packets;
		strncpy(s->comm, comm, AN_COMM_LEN);
		s->comm[AN_COMM_LEN] = 0;
	}
	return observe(d, kind, tid, pid, comm);
}

static void set_irq_name(struct an_decoder *d, int32_t irq, const char *name)
{
	if (an_irq_name_set(d->log, irq, name))
		mark(d, AN_MARK_IRQ, d->log->irqname_v.n - 1);
}

static const bt_field *member(const bt_field *payload, const char *name)
{
	return bt_field_structure_borrow_member_field_by_name_const(payload, name);
}

static uint64_t uint_member(const bt_field *payload, const char *name)
{
	const bt_field *f = member(payload, name);

	if (!f || !bt_field_class_type_is(bt_field_get_class_type(f), BT_FIELD_CLASS_TYPE_INTEGER))
		return 0;
	if (bt_field_class_type_is(bt_field_get_class_type(f), BT_FIELD_CLASS_TYPE_SIGNED_INTEGER))
		return (uint64_t)bt_field_integer_signed_get_value(f);
	return bt_field_integer_unsigned_get_value(f);
}

/* Alert times are on the tracer's clock (raw ns): the same origin as the event's. */
static uint64_t to_origin(const bt_clock_class *cc, uint64_t raw)
{
	int64_t ns;
	uint64_t freq = cc ? bt_clock_class_get_frequency(cc) : 0;

	/* 0: not said (no such field), not the clock's origin. */
	if (!cc || !freq || !raw)
		return raw;
	if (freq != 1000000000ULL)
		raw = (uint64_t)((double)raw * (double)freq / 1e9);
	/* A time past what ns from the origin can hold: babeltrace2 leaves an error on the
	 * thread, and refuses every later call until it is cleared. */
	if (bt_clock_class_cycles_to_ns_from_origin(cc, raw, &ns) !=
	    BT_CLOCK_CLASS_CYCLES_TO_NS_FROM_ORIGIN_STATUS_OK) {
		bt_current_thread_clear_error();
		return 0;
	}
	return (uint64_t)ns;
}

static int alert(struct an_decoder *d, const bt_field *p, const bt_clock_class *cc, struct an_ev *e)
{
	struct an_log *log = d->log;
	struct an_alert *a = an_vec_push(&log->alerts);
	const bt_field *f;

	if (!a)
		return -1;
	a->ts = e->ts;
	a->start = to_origin(cc, uint_member(p, "start_ns"));
	a->end = to_origin(cc, uint_member(p, "end_ns"));
	a->delay = uint_member(p, "delay_ns");
	a->threshold = uint_member(p, "threshold_ns");
	a->seq = uint_member(p, "seq");
	a->pid = (int32_t)uint_member(p, "pid");
	a->tid = (int32_t)uint_member(p, "tid");
	a->type = (uint32_t)uint_member(p, "tracker_type");
	a->reason = (uint32_t)uint_member(p, "reason");
	a->flags = (uint32_t)uint_member(p, "flags");
	a->start_cpu = (uint32_t)uint_member(p, "start_cpu");
	a->end_cpu = (uint32_t)uint_member(p, "end_cpu");
	f = member(p, "tracker");
	if (f && bt_field_get_class_type(f) == BT_FIELD_CLASS_TYPE_STRING)
		snprintf(a->tracker, sizeof(a->tracker), "%s", bt_field_string_get_value(f));
	f = member(p, "comm");
	if (f && bt_field_get_class_type(f) == BT_FIELD_CLASS_TYPE_STRING)
		snprintf(a->comm, sizeof(a->comm), "%s", bt_field_string_get_value(f));
	an_utf8_mend(a->tracker);
	an_utf8_mend(a->comm);
	f = member(p, "data");
	if (f && bt_field_class_type_is(bt_field_get_class_type(f), BT_FIELD_CLASS_TYPE_ARRAY))
		for (uint64_t i = 0; i < 4 && i < bt_field_array_get_length(f); i++) {
			const bt_field *x =
				bt_field_array_borrow_element_field_by_index_const(f, i);

			if (bt_field_class_type_is(bt_field_get_class_type(x),
						   BT_FIELD_CLASS_TYPE_UNSIGNED_INTEGER))
				a->data[i] = bt_field_integer_unsigned_get_value(x);
		}
	if (!a->start && a->delay && a->delay < e->ts)
		a->start = e->ts - a->delay;
	if (!a->end)
		a->end = e->ts;
	e->a = (int32_t)log->alerts.n - 1;
	return observe_named(d, OBS_ALERT, a->tid, a->pid, a->comm);
}

static const bt_field *selected(const bt_field *f)
{
	if (!f || !bt_field_class_type_is(bt_field_get_class_type(f), BT_FIELD_CLASS_TYPE_VARIANT))
		return NULL;
	f = bt_field_variant_borrow_selected_option_field_const(f);
	return f && bt_field_get_class_type(f) == BT_FIELD_CLASS_TYPE_STRUCTURE ? f : NULL;
}

/* An address: IPv4's 4 bytes, IPv6's 8 big-endian 16-bit words. */
static bool address(const bt_field *hdr, const char *name, uint8_t out[16])
{
	const bt_field *f = member(hdr, name);
	uint64_t n, width;

	if (!f || !bt_field_class_type_is(bt_field_get_class_type(f), BT_FIELD_CLASS_TYPE_ARRAY))
		return false;
	n = bt_field_array_get_length(f);
	width = n == 4 ? 1 : n == 8 ? 2 : n == 16 ? 1 : 0;
	if (!width)
		return false;
	for (uint64_t i = 0; i < n; i++) {
		const bt_field *x = bt_field_array_borrow_element_field_by_index_const(f, i);
		uint64_t v;

		if (!bt_field_class_type_is(bt_field_get_class_type(x),
					    BT_FIELD_CLASS_TYPE_UNSIGNED_INTEGER))
			return false;
		v = bt_field_integer_unsigned_get_value(x);
		if (width == 2) {
			out[2 * i] = (uint8_t)(v >> 8);
			out[2 * i + 1] = (uint8_t)v;
		} else {
			out[i] = (uint8_t)v;
		}
	}
	return true;
}

/*
 * lttng-modules' net_dev_template: network_header, a variant holding the IPv4 or IPv6
 * header as a structure, whose transport_header variant holds the TCP or UDP header.
 * Fields are looked up by name: these events are few next to the scheduler's.
 */
/*
 * Whether a device's received packets reach their socket one by one, each as soon as it is
 * traced: lo's and veth's (without GRO or XDP, as set up by default) go through the CPU's
 * backlog, which hands each over on its own. Any other is taken for one that batches (a
 * GRO list): a wrong guess the other way would name the wrong packet, where a batch only
 * says that it is not known.
 */
static bool per_packet_device(const bt_field *p)
{
	const bt_field *f = member(p, "name");
	const char *name;

	if (!f || bt_field_get_class_type(f) != BT_FIELD_CLASS_TYPE_STRING)
		return false;
	name = bt_field_string_get_value(f);
	return name && (strcmp(name, "lo") == 0 || strncmp(name, "veth", 4) == 0);
}

static void packet(struct an_log *log, const bt_field *p, struct an_ev *e)
{
	const bt_field *ip = selected(member(p, "network_header")), *th;
	struct an_packet pk = {.ev = (int32_t)log->ev.n - 1, .tid = -1};
	struct an_packet *slot;
	uint64_t iplen, hlen;

	e->a = -1;
	if (!ip)
		return;
	if (member(ip, "tot_len")) {
		pk.family = 4;
		pk.proto = (uint8_t)uint_member(ip, "protocol");
		pk.ipid = (uint16_t)uint_member(ip, "id");
		iplen = uint_member(ip, "tot_len");
		hlen = uint_member(ip, "ihl") * 4;
	} else {
		pk.family = 6;
		pk.proto = (uint8_t)uint_member(ip, "nexthdr");
		iplen = uint_member(ip, "payload_len");
		hlen = 0;
	}
	if (!address(ip, "saddr", pk.saddr) || !address(ip, "daddr", pk.daddr))
		return;
	pk.per_packet = e->type == EV_NET_RECV && per_packet_device(p);
	th = selected(member(ip, "transport_header"));
	if (!th || (pk.proto != 6 && pk.proto != 17))
		return;
	pk.sport = (uint16_t)uint_member(th, "source_port");
	pk.dport = (uint16_t)uint_member(th, "dest_port");
	if (pk.proto == 6) {
		uint64_t off = uint_member(th, "data_offset") * 4;

		pk.seq = (uint32_t)uint_member(th, "seq");
		pk.ack = (uint32_t)uint_member(th, "ack_seq");
		pk.flags = (uint8_t)uint_member(th, "flags");
		pk.len = iplen > hlen + off ? (uint32_t)(iplen - hlen - off) : 0;
		pk.len += (pk.flags & 0x02 ? 1 : 0) + (pk.flags & 0x01 ? 1 : 0); /* SYN, FIN */
	} else {
		pk.len = (uint32_t)uint_member(th, "len");
	}
	slot = an_vec_push(&log->packets);
	if (!slot)
		return;
	*slot = pk;
	e->a = (int32_t)log->packets.n - 1;
}

/* The CPU in a packet's context (0 without one) into SLOT, UINT32_MAX past AN_CPUS_MAX; the
 * log's CPU count grown to it. */
static void packet_cpu(struct an_decoder *d, uint32_t *slot, const bt_packet *pk)
{
	const bt_field *ctx = pk ? bt_packet_borrow_context_field_const(pk) : NULL;
	const bt_field *f = ctx ? member(ctx, "cpu_id") : NULL;
	uint64_t cpu = 0;

	if (f && bt_field_class_type_is(bt_field_get_class_type(f), BT_FIELD_CLASS_TYPE_INTEGER))
		cpu = bt_field_integer_unsigned_get_value(f);
	/* Tables and timelines hold a row per CPU up to the highest seen: a CPU no kernel has
	 * would make them gigabytes. */
	*slot = cpu < AN_CPUS_MAX ? (uint32_t)cpu : UINT32_MAX;
	if (*slot != UINT32_MAX && *slot + 1 > d->log->ncpu)
		d->log->ncpu = *slot + 1;
}

/*
 * A stream whose packets say no CPU: its events are put on CPU 0, beside that CPU's own,
 * which mixes their contexts (who ran, in which interrupt). Said once per stream.
 */
static void no_cpu_id(struct an_decoder *d, const bt_stream *s, const bt_packet *pk)
{
	const bt_field *ctx = pk ? bt_packet_borrow_context_field_const(pk) : NULL;
	const bt_field *f = ctx ? member(ctx, "cpu_id") : NULL;
	const char *name = bt_stream_get_name(s);

	if (!pk ||
	    (f && bt_field_class_type_is(bt_field_get_class_type(f), BT_FIELD_CLASS_TYPE_INTEGER)))
		return;
	an_problem(d->log,
		   "%s: its packets have no integer cpu_id in their context: its events are "
		   "taken as CPU 0's",
		   name ? name : "a stream");
}

void an_input_of(const char *dir, uint32_t trace, struct an_input *in)
{
	struct stat st;

	*in = (struct an_input){.trace = trace};
	if (dir && stat(dir, &st) == 0) {
		in->dev = (uint64_t)st.st_dev;
		in->ino = (uint64_t)st.st_ino;
	}
}

/*
 * The trace stream s is of: the decoder's, or, reading several, the one whose directory
 * holds its file (source.ctf.fs names a stream by its file's path); UINT32_MAX: unknown.
 * Once per stream class.
 */
static uint32_t trace_of(const struct an_decoder *d, const bt_stream *s)
{
	const char *name = d->inputs ? bt_stream_get_name(s) : NULL;
	const char *slash = name ? strrchr(name, '/') : NULL;
	char *dir = slash ? strndup(name, (size_t)(slash - name)) : NULL;
	struct an_input in;

	if (!d->inputs)
		return d->trace;
	an_input_of(dir, UINT32_MAX, &in);
	free(dir);
	for (size_t i = 0; in.ino && i < d->ninputs; i++)
		if (d->inputs[i].ino == in.ino && d->inputs[i].dev == in.dev)
			return d->inputs[i].trace;
	return UINT32_MAX;
}

/*
 * Whether the traced kernel is PREEMPT_RT, where softirqs run in preemptible tasks: lttng
 * records its uname version ("#1 SMP PREEMPT_RT ...", "#1 SMP PREEMPT RT ..." on older RT
 * kernels) in the trace's environment.
 */
static bool preempt_rt(const bt_trace *t)
{
	const bt_value *v =
		bt_trace_borrow_environment_entry_value_by_name_const(t, "kernel_version");

	const char *s = v && bt_value_is_string(v) ? bt_value_string_get(v) : NULL;

	return s && (strstr(s, "PREEMPT_RT") || strstr(s, "PREEMPT RT"));
}

/*
 * The event classes the stream's class declares, once per class: the metadata says what
 * the session recorded, where counting events cannot tell a class not recorded from one
 * whose events did not happen (missing.c). Said per trace: one host's session that
 * recorded a class says nothing of another's.
 */
static int declared(struct an_decoder *d, const bt_stream *s)
{
	static const struct {
		const char *name;
		int type;
	} told[] = {
		{"sched_switch", EV_SWITCH},
		{"sched_process_exec", EV_EXEC},
		{"sched_migrate_task", EV_MIGRATE},
	};
	const bt_stream_class *sc = bt_stream_borrow_class_const(s);
	uint32_t *slot = an_map_slot(&d->sclasses, (uint64_t)(uintptr_t)sc, &(bool){false});
	uint64_t n = bt_stream_class_get_event_class_count(sc);
	uint32_t types = 0;

	if (!slot)
		return -ENOMEM;
	if (*slot)
		return 0;
	*slot = 1;
	if (preempt_rt(bt_stream_borrow_trace_const(s)))
		d->log->preempt_rt = true;
	for (uint64_t i = 0; i < n; i++) {
		const char *name = bt_event_class_get_name(
			bt_stream_class_borrow_event_class_by_index_const(sc, i));

		for (size_t k = 0; name && k < sizeof(told) / sizeof(told[0]); k++)
			if (strcmp(name, told[k].name) == 0)
				types |= 1u << told[k].type;
	}
	return types ? an_declare(d->log, trace_of(d, s), types) : 0;
}

/* The stream's index in the decoder's, added (its CPU from PK) when new; -ENOMEM. */
static int dstream(struct an_decoder *d, const bt_stream *s, const bt_packet *pk)
{
	bool inserted;
	uint32_t *slot = an_map_slot(&d->streams, (uint64_t)(uintptr_t)s, &inserted);
	struct an_dstream *ds;

	if (!slot)
		return -ENOMEM;
	if (!inserted)
		return (int)(*slot - 1);
	if (declared(d, s) < 0)
		return -ENOMEM;
	d->dstreams.size = sizeof(struct an_dstream);
	ds = an_vec_push(&d->dstreams);
	if (!ds)
		return -ENOMEM;
	ds->packets = 0;
	packet_cpu(d, &ds->cpu, pk);
	no_cpu_id(d, s, pk);
	*slot = (uint32_t)d->dstreams.n;
	return (int)(*slot - 1);
}

/*
 * A packet's CPU, for the events that follow in its stream. Taken from each packet, not
 * once a stream: a stream read in pieces (parallel.c) starts each piece at a packet, and a
 * damaged packet's CPU is that packet's alone.
 */
void an_decode_packet(struct an_decoder *d, const bt_message *msg)
{
	const bt_packet *pk = bt_message_packet_beginning_borrow_packet_const(msg);
	int i = dstream(d, bt_packet_borrow_stream_const(pk), pk);
	struct an_dstream *ds;

	if (i < 0)
		return; /* the first event looks it up again */
	ds = AN_AT(&d->dstreams, struct an_dstream, i);
	packet_cpu(d, &ds->cpu, pk);
	ds->packets++;
	d->last_stream = NULL;
}

static bool snapshot_ns(const bt_clock_snapshot *cs, uint64_t *ns)
{
	int64_t v;

	if (!cs || bt_clock_snapshot_get_ns_from_origin(cs, &v) !=
			   BT_CLOCK_SNAPSHOT_GET_NS_FROM_ORIGIN_STATUS_OK) {
		bt_current_thread_clear_error();
		return false;
	}
	*ns = v > 0 ? (uint64_t)v : 0;
	return true;
}

const bt_stream *an_msg_stream(const bt_message *m)
{
	switch (bt_message_get_type(m)) {
	case BT_MESSAGE_TYPE_STREAM_BEGINNING:
		return bt_message_stream_beginning_borrow_stream_const(m);
	case BT_MESSAGE_TYPE_STREAM_END:
		return bt_message_stream_end_borrow_stream_const(m);
	case BT_MESSAGE_TYPE_PACKET_BEGINNING:
		return bt_packet_borrow_stream_const(
			bt_message_packet_beginning_borrow_packet_const(m));
	case BT_MESSAGE_TYPE_PACKET_END:
		return bt_packet_borrow_stream_const(bt_message_packet_end_borrow_packet_const(m));
	case BT_MESSAGE_TYPE_EVENT:
		return bt_event_borrow_stream_const(bt_message_event_borrow_event_const(m));
	case BT_MESSAGE_TYPE_DISCARDED_EVENTS:
		return bt_message_discarded_events_borrow_stream_const(m);
	case BT_MESSAGE_TYPE_DISCARDED_PACKETS:
		return bt_message_discarded_packets_borrow_stream_const(m);
	default:
		return NULL;
	}
}

void an_decode_discarded(struct an_decoder *d, const bt_message *msg)
{
	bool packets = bt_message_get_type(msg) == BT_MESSAGE_TYPE_DISCARDED_PACKETS;
	const bt_stream *s = an_msg_stream(msg);
	const bt_stream_class *sc = s ? bt_stream_borrow_class_const(s) : NULL;
	const uint32_t *slot = s ? an_map_find(&d->streams, (uint64_t)(uintptr_t)s) : NULL;
	struct an_lost l = {0}, *to;
	bool timed;

	if (!s)
		return;
	if (packets) {
		uint64_t n;

		if (bt_message_discarded_packets_get_count(msg, &n) ==
		    BT_PROPERTY_AVAILABILITY_AVAILABLE)
			d->log->discarded_packets += n;
		timed = bt_stream_class_discarded_packets_have_default_clock_snapshots(sc) &&
			snapshot_ns(
				bt_message_discarded_packets_borrow_beginning_default_clock_snapshot_const(
					msg),
				&l.t0) &&
			snapshot_ns(
				bt_message_discarded_packets_borrow_end_default_clock_snapshot_const(
					msg),
				&l.t1);
	} else {
		if (bt_message_discarded_events_get_count(msg, &l.n) !=
		    BT_PROPERTY_AVAILABILITY_AVAILABLE)
			l.n = 0;
		d->log->discarded += l.n;
		timed = bt_stream_class_discarded_events_have_default_clock_snapshots(sc) &&
			snapshot_ns(
				bt_message_discarded_events_borrow_beginning_default_clock_snapshot_const(
					msg),
				&l.t0) &&
			snapshot_ns(
				bt_message_discarded_events_borrow_end_default_clock_snapshot_const(
					msg),
				&l.t1);
	}
	/*
	 * A stream not seen yet: its first packet's running count, lost before the trace's
	 * beginning (a snapshot's oldest packet), nothing of what it holds.
	 */
	if (!slot || !timed)
		return;
	l.cpu = AN_AT(&d->dstreams, struct an_dstream, *slot - 1)->cpu;
	if (l.cpu == UINT32_MAX)
		return;
	to = an_vec_push(&d->log->lost);
	if (to)
		*to = l;
}

static int cpu_of(struct an_decoder *d, const bt_event *ev)
{
	const bt_stream *s = bt_event_borrow_stream_const(ev);
	uint32_t cpu;
	int i;

	/* A stream's events come in runs (all of them, read per stream): no lookup then. */
	if (s != d->last_stream) {
		i = dstream(d, s, bt_event_borrow_packet_const(ev));
		if (i < 0)
			return i;
		d->last_stream = s;
		d->last_ds = (uint32_t)i;
	}
	cpu = AN_AT(&d->dstreams, struct an_dstream, d->last_ds)->cpu;
	return cpu == UINT32_MAX ? -EDOM : (int)cpu;
}

/*
 * An exec: the thread's name is the file's base name, cut as the kernel cuts it. A thread
 * other than its process's leader that execs takes over the leader's tid: its own is gone.
 */
static int exec(struct an_decoder *d, const struct an_ev *e, const char *filename)
{
	const char *base = filename ? strrchr(filename, '/') : NULL;

	base = base ? base + 1 : filename;
	if (e->b > 0 && e->b != e->a && observe(d, OBS_EXIT, e->b, -1, NULL) < 0)
		return -1;
	return observe_named(d, OBS_EXEC, e->a, e->a, base);
}

int an_decode(struct an_decoder *d, const bt_message *msg)
{
	const bt_event *ev = bt_message_event_borrow_event_const(msg);
	const bt_event_class *ec = bt_event_borrow_class_const(ev);
	struct an_log *log = d->log;
	const bt_clock_snapshot *cs;
	const bt_field *p;
	struct handler *h;
	struct an_recent_class *recent;
	struct an_ev *e;
	bool inserted;
	uint32_t *slot;
	int64_t ts = 0;
	int cpu;

	log->events++;
	d->handlers.size = sizeof(struct handler);
	recent = &d->recent[((uintptr_t)ec >> 6) % AN_RECENT_CLASSES];
	if (recent->ec != ec) {
		slot = an_map_slot(&d->classes, (uint64_t)(uintptr_t)ec, &inserted);
		if (!slot)
			return -1;
		if (inserted) {
			h = an_vec_push(&d->handlers);
			if (!h)
				return -1;
			resolve(log, ec, h);
			*slot = (uint32_t)d->handlers.n;
		}
		recent->ec = ec;
		recent->handler = *slot;
	}
	h = AN_AT(&d->handlers, struct handler, recent->handler - 1);
	/* An event without a time (a stream class without a clock) or past what ns from the
	 * origin hold has no place in the log: left out, and counted. */
	cs = bt_message_event_borrow_default_clock_snapshot_const(msg);
	if (!cs || bt_clock_snapshot_get_ns_from_origin(cs, &ts) !=
			   BT_CLOCK_SNAPSHOT_GET_NS_FROM_ORIGIN_STATUS_OK) {
		bt_current_thread_clear_error();
		log->damaged++;
		return 0;
	}
	d->ts = (uint64_t)ts;
	if (!log->first_ts)
		log->first_ts = (uint64_t)ts;
	log->last_ts = (uint64_t)ts;
	if (h->disk) {
		p = bt_event_borrow_payload_field_const(ev);
		if (p && str(p, h->s[0])) {
			size_t n = log->disks.n;

			an_disk_add(log, (uint32_t)get(p, h->f[0]), str(p, h->s[0]));
			if (log->disks.n > n)
				mark(d, AN_MARK_DISK, n);
		}
		return 0;
	}
	if (h->bad) {
		AN_AT(&log->bad_classes, struct an_bad_class, h->bad - 1)->events++;
		return 0;
	}
	if (h->type == EV__COUNT)
		return 0;
	cpu = cpu_of(d, ev);
	if (cpu == -EDOM) {
		log->damaged++;
		return 0;
	}
	if (cpu < 0)
		return -1;
	e = an_vec_push(&log->ev);
	if (!e)
		return -1;
	e->ts = (uint64_t)ts;
	e->type = h->type;
	e->cpu = (uint16_t)cpu;
	while (log->cpu_first.n <= e->cpu)
		if (!an_vec_push(&log->cpu_first))
			return -1;
	if (!*AN_AT(&log->cpu_first, uint64_t, e->cpu))
		*AN_AT(&log->cpu_first, uint64_t, e->cpu) = e->ts;
	log->counts[h->type]++;
	p = bt_event_borrow_payload_field_const(ev);
	switch (h->type) {
	case EV_SYS_ENTRY:
		e->a = h->sys;
		return 0;
	case EV_SYS_EXIT:
		e->a = h->sys;
		e->d = (uint64_t)get(p, h->f[3]);
		return 0;
	case EV_ALERT:
		return alert(d, p, bt_clock_snapshot_borrow_clock_class_const(cs), e);
	case EV_NET_XMIT:
	case EV_NET_RECV:
		if (p)
			packet(log, p, e);
		return 0;
	default:
		break;
	}
	if (!p)
		return 0;
	e->a = (int32_t)get(p, h->f[0]);
	e->b = (int32_t)get(p, h->f[1]);
	e->c = (int32_t)get(p, h->f[2]);
	e->d = (uint64_t)get(p, h->f[3]);
	switch (h->type) {
	case EV_SWITCH:
		/* A dying thread's last switch names no one: its exit named it, and its tid may
		 * be another thread's already, forked on another CPU since. */
		if (!(e->d & AN_PREV_STATE_DEAD) && name(d, e->a, str(p, h->s[0])) < 0)
			return -1;
		return name(d, e->b, str(p, h->s[1]));
	case EV_WAKING:
	case EV_WAKEUP_NEW:
	case EV_MIGRATE:
		return name(d, e->a, str(p, h->s[0]));
	case EV_FORK:
		return observe_named(d, OBS_FORK, e->b, e->c, str(p, h->s[1]));
	case EV_EXIT:
		return name(d, e->a, str(p, h->s[0])) < 0 ||
				       observe(d, OBS_EXIT, e->a, -1, NULL) < 0
			       ? -1
			       : 0;
	case EV_EXEC:
		return exec(d, e, str(p, h->s[0]));
	case EV_IRQ_ENTRY:
		set_irq_name(d, e->a, str(p, h->s[0]));
		break;
	default:
		break;
	}
	return 0;
}

void an_decoder_free(struct an_decoder *d)
{
	an_map_free(&d->classes);
	an_map_free(&d->streams);
	an_map_free(&d->sclasses);
	an_vec_free(&d->dstreams);
	an_map_free(&d->seen_map);
	an_vec_free(&d->seen);
	an_vec_free(&d->handlers);
}
