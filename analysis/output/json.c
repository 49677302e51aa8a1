/* SPDX-License-Identifier: GPL-2.0-only */
/* The result as JSON: what scripts and tests read (latencyctl --json analyze). */
#include <stdio.h>

#include <json-c/json.h>

#include "an.h"
#include "analysis.h"
#include "chain.h"
#include "crosshost.h"
#include "results.h"
#include "tables.h"

static void add(struct json_object *o, const char *key, struct json_object *v)
{
	json_object_object_add(o, key, v);
}

static struct json_object *i64(int64_t v)
{
	return json_object_new_int64(v);
}

static struct json_object *strs(const struct an_vec *v)
{
	struct json_object *a = json_object_new_array();

	for (size_t i = 0; i < v->n; i++)
		json_object_array_add(a, json_object_new_string(*AN_AT(v, char *, i)));
	return a;
}

/* TID as it was at TS: its name, and its pid when known. */
static struct json_object *task(const struct an_log *log, int32_t tid, uint64_t ts)
{
	struct json_object *o = json_object_new_object();

	add(o, "tid", i64(tid));
	add(o, "comm", json_object_new_string(an_comm_at(log, tid, ts)));
	if (an_pid_at(log, tid, ts) > 0)
		add(o, "pid", i64(an_pid_at(log, tid, ts)));
	return o;
}

static const char *wake_kind(uint8_t w)
{
	static const char *const kinds[] = {"none", "task", "irq", "softirq", "timer", "unknown"};

	return w < sizeof(kinds) / sizeof(kinds[0]) ? kinds[w] : "unknown";
}

static struct json_object *woken_by(const struct an_log *log, const struct an_interval *iv)
{
	struct json_object *o = json_object_new_object();
	char text[200];

	add(o, "kind", json_object_new_string(wake_kind(iv->wake)));
	switch (iv->wake) {
	case WK_TASK:
		add(o, "tid", i64(iv->who));
		add(o, "comm", json_object_new_string(an_comm_at(log, iv->who, iv->t1)));
		if (an_pid_at(log, iv->who, iv->t1) > 0)
			add(o, "pid", i64(an_pid_at(log, iv->who, iv->t1)));
		break;
	case WK_IRQ:
		add(o, "irq", i64(iv->who));
		add(o, "name", json_object_new_string(an_irq_name(log, iv->who)));
		break;
	case WK_SOFTIRQ:
		add(o, "vec", i64(iv->who));
		add(o, "name", json_object_new_string(an_softirq_name(iv->who)));
		if (iv->via >= 0) {
			add(o, "raised_by_irq", i64(iv->via));
			add(o, "raised_by_irq_name",
			    json_object_new_string(an_irq_name(log, iv->via)));
		}
		break;
	default:
		break;
	}
	if (iv->dev) {
		snprintf(text, sizeof(text), "%u:%u", (unsigned)((uint32_t)iv->dev >> 20),
			 (unsigned)(iv->dev & 0xfffff));
		add(o, "block_device", json_object_new_string(text));
		if (an_disk_name(log, (uint32_t)iv->dev))
			add(o, "block_device_name",
			    json_object_new_string(an_disk_name(log, (uint32_t)iv->dev)));
	}
	/* Received in the softirq before it, packets of that many flows, none told apart. */
	if (iv->rx_flows)
		add(o, "packet_flows_ambiguous", i64(iv->rx_flows));
	/* Events were lost on the waking CPU over the wait. */
	if (iv->inferred)
		add(o, "inferred", json_object_new_boolean(1));
	an_wake_text(log, iv, text, sizeof(text));
	add(o, "text", json_object_new_string(text));
	return o;
}

static struct json_object *interval(const struct an_log *log, const struct an_interval *iv,
				    uint64_t total)
{
	struct json_object *o = json_object_new_object();

	add(o, "state", json_object_new_string(an_state_name(iv->state)));
	add(o, "begin_ns", i64((int64_t)iv->t0));
	add(o, "end_ns", i64((int64_t)iv->t1));
	add(o, "duration_ns", i64((int64_t)(iv->t1 - iv->t0)));
	add(o, "share",
	    json_object_new_double(total ? (double)(iv->t1 - iv->t0) / (double)total : 0));
	if (iv->cpu >= 0)
		add(o, "cpu", i64(iv->cpu));
	if (iv->syscall >= 0)
		add(o, "syscall", json_object_new_string(an_sysname(log, iv->syscall)));
	if (iv->state == ST_RUNNABLE && iv->by == 0)
		add(o, "cpu_idle", json_object_new_boolean(1)); /* waiting for it to wake up */
	else if (iv->state == ST_RUNNABLE && iv->by > 0)
		add(o, "cpu_held_by", task(log, iv->by, iv->by_ts));
	if (an_blocked(iv->state))
		add(o, "woken_by", woken_by(log, iv));
	return o;
}

/* The packet that woke a link, and for a crossing where it came from. */
static struct json_object *packet(const struct an_log *log, const struct an_interval *iv,
				  const struct an_crossing *x)
{
	const struct an_packet *p = AN_AT(&log->packets, struct an_packet, iv->pkt);
	struct json_object *o = json_object_new_object();
	char text[160];

	an_endpoint_text(p, false, text, sizeof(text));
	add(o, "from", json_object_new_string(text));
	an_endpoint_text(p, true, text, sizeof(text));
	add(o, "to", json_object_new_string(text));
	add(o, "protocol", json_object_new_string(p->proto == 6 ? "tcp" : "udp"));
	if (p->proto == 6)
		add(o, "seq", i64(p->seq));
	add(o, "length", i64(p->len));
	add(o, "received_ns", i64((int64_t)AN_AT(&log->ev, struct an_ev, p->ev)->ts));
	if (!x)
		return o;
	add(o, "host", json_object_new_string(x->host));
	add(o, "match", json_object_new_string(x->peer ? "unique" : "ambiguous"));
	if (!x->peer) {
		add(o, "candidates", i64(x->candidates));
		return o;
	}
	add(o, "sent_ns", i64((int64_t)x->sent)); /* on the sender's clock */
	if (x->sender > 0)
		add(o, "sender", task(x->peer, x->sender, x->sent));
	add(o, "remote_ns", i64((int64_t)x->remote));
	add(o, "flight_ns", i64((int64_t)x->flight));
	add(o, "clock_offset_ns", i64(x->offset));
	if (x->uncertainty >= 0)
		add(o, "clock_uncertainty_ns", i64(x->uncertainty));
	else
		add(o, "clock_uncertainty_ns", NULL); /* bounded on one side only */
	return o;
}

/* Each host's own share of the time spent on other hosts, largest first. */
static struct json_object *host_split(const struct an_cause *c)
{
	struct an_host_time split[AN_HOST_SPLIT_MAX];
	struct json_object *a = json_object_new_array();
	size_t n = an_cross_host_split(c, split, AN_HOST_SPLIT_MAX);

	for (size_t k = 0; k < n; k++) {
		struct json_object *h = json_object_new_object();

		add(h, "host", json_object_new_string(split[k].host));
		add(h, "ns", i64((int64_t)split[k].ns));
		json_object_array_add(a, h);
	}
	return a;
}

static struct json_object *cause(const struct an_log *log, const struct an_cause *c)
{
	const struct an_alert *a = &c->alert;
	struct json_object *o = json_object_new_object(), *tl = json_object_new_array(),
			   *ch = json_object_new_array();
	uint64_t total = c->t1 - c->t0;
	char summary[1024];
	double explained = an_cause_summary(log, c, summary, sizeof(summary));

	add(o, "tracker", json_object_new_string(a->tracker));
	add(o, "reason",
	    json_object_new_string(an_alert_discarded(a)	    ? "discarded"
				   : a->reason == AN_REASON_TIMEOUT ? "timeout"
								    : "threshold"));
	add(o, "seq", i64((int64_t)a->seq));
	add(o, "pid", i64(a->pid));
	add(o, "tid", i64(a->tid));
	add(o, "comm", json_object_new_string(a->comm));
	add(o, "alert_ns", i64((int64_t)a->ts));
	add(o, "begin_ns", i64((int64_t)c->t0));
	add(o, "end_ns", i64((int64_t)c->t1));
	add(o, "delay_ns", i64((int64_t)a->delay));
	add(o, "threshold_ns", i64((int64_t)a->threshold));
	for (size_t i = 0; i < c->timeline.n; i++) {
		const struct an_interval *iv = AN_AT(&c->timeline, struct an_interval, i);
		struct json_object *x = interval(log, iv, total);

		/* The alert's task as it was then: an exec cuts its timeline in two. */
		add(x, "comm", json_object_new_string(an_comm_at(log, a->tid, iv->t0)));
		json_object_array_add(tl, x);
	}
	add(o, "timeline", tl);
	for (size_t i = 0; i < c->links.n; i++) {
		const struct an_link *l = AN_AT(&c->links, struct an_link, i);
		const struct an_log *lg = an_link_log(l, log);
		struct json_object *x = interval(lg, &l->iv, total);

		add(x, "depth", i64(l->depth));
		add(x, "tid", i64(l->tid));
		add(x, "comm", json_object_new_string(an_comm_at(lg, l->tid, l->iv.t0)));
		if (an_pid_at(lg, l->tid, l->iv.t0) > 0)
			add(x, "pid", i64(an_pid_at(lg, l->tid, l->iv.t0)));
		if (l->host || c->host)
			add(x, "host", json_object_new_string(l->host ? l->host : c->host));
		if (an_blocked(l->iv.state) && l->iv.pkt >= 0 && (size_t)l->iv.pkt < lg->packets.n)
			add(x, "packet", packet(lg, &l->iv, an_crossing_of(c, i)));
		json_object_array_add(ch, x);
	}
	add(o, "chain", ch);
	if (c->stack.frames.n) {
		struct json_object *st = json_object_new_object();

		add(st, "kind", json_object_new_string(c->stack.kind));
		add(st, "frames", strs(&c->stack.frames));
		/* The chain's index of the link it explains; absent: the alert as a whole. */
		if (c->stack.link != SIZE_MAX)
			add(st, "link", i64((int64_t)c->stack.link));
		add(o, "stack", st);
	}
	if (c->host) {
		add(o, "host", json_object_new_string(c->host));
		add(o, "cross_host_ns", i64((int64_t)an_cross_host_ns(c)));
		add(o, "cross_host_share",
		    json_object_new_double(total ? (double)an_cross_host_ns(c) / (double)total
						 : 0));
		add(o, "cross_host_by_host", host_split(c));
	}
	add(o, "summary", json_object_new_string(summary));
	add(o, "explained", json_object_new_double(explained));
	add(o, "story", json_object_new_string(c->story ? c->story : ""));
	add(o, "notes", strs(&c->notes));
	return o;
}

static struct json_object *cell(const struct an_cell *c)
{
	struct json_object *o;

	switch (c->kind) {
	case C_INT:
	case C_DURATION:
	case C_TIMESTAMP:
	case C_CPU:
		return i64(c->v);
	case C_RATIO:
		return json_object_new_double(c->r);
	case C_PROCESS:
		o = json_object_new_object();
		add(o, "tid", i64(c->v));
		if (c->pid >= 0)
			add(o, "pid", i64(c->pid));
		add(o, "name", json_object_new_string(c->s ? c->s : ""));
		return o;
	case C_IRQ:
		o = json_object_new_object();
		add(o, "hard", json_object_new_boolean(c->hard));
		add(o, "nr", i64(c->v));
		add(o, "name", json_object_new_string(c->s ? c->s : ""));
		return o;
	case C_SYSCALL:
	case C_DISK:
	case C_STRING:
		return json_object_new_string(c->s ? c->s : "");
	default:
		return NULL;
	}
}

static struct json_object *table(const struct an_table *t)
{
	struct json_object *o = json_object_new_object(), *cols = json_object_new_array(),
			   *rows = json_object_new_array();
	const struct an_cell *cells = t->cells.v;

	add(o, "title", json_object_new_string(t->cls->title));
	for (size_t i = 0; i < t->cls->ncols; i++) {
		struct json_object *c = json_object_new_object();

		add(c, "title", json_object_new_string(t->cls->cols[i].title));
		add(c, "class", json_object_new_string(t->cls->cols[i].cls));
		json_object_array_add(cols, c);
	}
	for (size_t r = 0; r < an_rows(t); r++) {
		struct json_object *row = json_object_new_array();

		for (size_t i = 0; i < t->cls->ncols; i++)
			json_object_array_add(row, cell(&cells[r * t->cls->ncols + i]));
		json_object_array_add(rows, row);
	}
	add(o, "columns", cols);
	add(o, "rows", rows);
	return o;
}

/* A distribution, its buckets as objects: what jq reads best. */
static struct json_object *distribution(const struct an_table *t)
{
	struct json_object *o = json_object_new_object(), *buckets = json_object_new_array();
	const struct an_cell *cells = t->cells.v;
	size_t rows = an_rows(t);
	int64_t count = 0;

	for (size_t r = 0; r < rows; r++) {
		struct json_object *b = json_object_new_object();

		add(b, "lower_ns", i64(cells[r * 3].v));
		add(b, "upper_ns", i64(cells[r * 3 + 1].v));
		add(b, "count", i64(cells[r * 3 + 2].v));
		count += cells[r * 3 + 2].v;
		json_object_array_add(buckets, b);
	}
	add(o, "class", json_object_new_string(t->cls->name));
	add(o, "subject", json_object_new_string(t->subject ? t->subject : ""));
	add(o, "title", json_object_new_string(t->title ? t->title : t->cls->title));
	add(o, "count", i64(count));
	add(o, "min_ns", i64(rows ? cells[0].v : 0));
	add(o, "max_ns", i64(rows ? cells[(rows - 1) * 3 + 1].v : 0));
	add(o, "buckets", buckets);
	return o;
}

struct json_object *an_result_json(const struct an_result *r)
{
	struct json_object *o = json_object_new_object(), *alerts = json_object_new_array(),
			   *tables = json_object_new_object();

	add(o, "path", json_object_new_string(r->path));
	add(o, "traces", strs(&r->dirs));
	add(o, "partial", json_object_new_boolean(r->log.partial));
	add(o, "problems", strs(&r->log.problems));
	add(o, "missing_events", strs(&r->missing));
	add(o, "events", i64((int64_t)r->log.events));
	add(o, "discarded_events", i64((int64_t)r->log.discarded));
	add(o, "discarded_packets", i64((int64_t)r->log.discarded_packets));
	add(o, "cpus", i64(r->log.ncpu));
	add(o, "begin_ns", i64((int64_t)r->begin));
	add(o, "end_ns", i64((int64_t)r->end));
	add(o, "alerts_in_trace", i64((int64_t)r->log.alerts.n));
	add(o, "alerts_in_window", i64((int64_t)r->alerts_window));
	add(o, "alerts_outside_window", i64((int64_t)r->alerts_outside));
	add(o, "alerts_garbled", i64((int64_t)r->alerts_garbled));
	for (size_t i = 0; i < r->causes.n; i++)
		json_object_array_add(alerts,
				      cause(&r->log, AN_AT(&r->causes, struct an_cause, i)));
	add(o, "alerts", alerts);
	for (size_t i = 0; i < r->tables.n; i++) {
		const struct an_table *t = AN_AT(&r->tables, struct an_table, i);

		add(tables, t->cls->name, table(t));
	}
	add(o, "tables", tables);
	if (r->io_usage)
		add(o, "io_usage_note", json_object_new_string(an_io_usage_note));
	if (r->resolution) {
		struct json_object *freq = json_object_new_array();

		for (size_t i = 0; i < r->freq.n; i++)
			json_object_array_add(freq,
					      distribution(AN_AT(&r->freq, struct an_table, i)));
		add(o, "freq_resolution", i64(r->resolution));
		add(o, "distributions", freq);
	}
	return o;
}
