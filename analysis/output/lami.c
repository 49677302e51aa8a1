/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * LAMI 1.0 (the LTTng analyses machine interface), so that Trace Compass can run the
 * analysis as an external analysis: a metadata object describing every table class, and
 * result tables whose cells are LAMI data objects (timestamp, duration, process, syscall,
 * irq, disk, ratio, cpu, size, unknown).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "an.h"
#include "analysis.h"
#include "chain.h"
#include "results.h"
#include "tables.h"

static void add(struct json_object *o, const char *key, struct json_object *v)
{
	json_object_object_add(o, key, v);
}

static struct json_object *version(int major, int minor)
{
	struct json_object *v = json_object_new_object();

	add(v, "major", json_object_new_int(major));
	add(v, "minor", json_object_new_int(minor));
	return v;
}

static struct json_object *table_class(const struct an_table_class *t)
{
	struct json_object *o = json_object_new_object(), *cols = json_object_new_array();

	add(o, "title", json_object_new_string(t->title));
	for (size_t i = 0; i < t->ncols; i++) {
		struct json_object *c = json_object_new_object();

		add(c, "title", json_object_new_string(t->cols[i].title));
		add(c, "class", json_object_new_string(t->cols[i].cls));
		if (t->cols[i].unit)
			add(c, "unit", json_object_new_string(t->cols[i].unit));
		json_object_array_add(cols, c);
	}
	add(o, "column-descriptions", cols);
	return o;
}

struct json_object *an_lami_metadata(void)
{
	struct json_object *o = json_object_new_object(), *classes = json_object_new_object(),
			   *tags = json_object_new_array(), *authors = json_object_new_array();
	int major = 0, minor = 0;

	sscanf(LATENCYD_VERSION, "%d.%d", &major, &minor);
	add(o, "mi-version", version(1, 0));
	add(o, "version", version(major, minor));
	add(o, "title", json_object_new_string("latencyd snapshot analysis"));
	json_object_array_add(authors, json_object_new_string("latencyd"));
	add(o, "authors", authors);
	add(o, "description",
	    json_object_new_string("Explains each latency_tracker alert of a latencyd snapshot "
				   "(the critical path through its wakeup chain) and gives CPU, "
				   "system call, interrupt and block I/O statistics, their "
				   "frequency distributions and the processes' I/O usage."));
	for (const char *const *t = (const char *const[]){"latency", "critical-path", "stats",
							  "linux-kernel", NULL};
	     *t; t++)
		json_object_array_add(tags, json_object_new_string(*t));
	add(o, "tags", tags);
	for (size_t i = 0; i < an_table_class_count; i++)
		add(classes, an_table_classes[i].name, table_class(&an_table_classes[i]));
	add(o, "table-classes", classes);
	return o;
}

struct json_object *an_lami_error(const char *message)
{
	struct json_object *o = json_object_new_object();

	add(o, "error-message", json_object_new_string(message));
	return o;
}

static struct json_object *obj(const char *cls)
{
	struct json_object *o = json_object_new_object();

	add(o, "class", json_object_new_string(cls));
	return o;
}

static struct json_object *cell(const struct an_cell *c, const struct an_col *col)
{
	struct json_object *o;

	switch (c->kind) {
	case C_INT:
		o = obj(strcmp(col->cls, "size") == 0 ? "size" : "number");
		add(o, "value", json_object_new_int64(c->v));
		return o;
	case C_DURATION:
	case C_TIMESTAMP:
		o = obj(c->kind == C_DURATION ? "duration" : "timestamp");
		add(o, "value", json_object_new_int64(c->v));
		return o;
	case C_RATIO:
		o = obj("ratio");
		add(o, "value", json_object_new_double(c->r));
		return o;
	case C_PROCESS:
		o = obj("process");
		if (c->s)
			add(o, "name", json_object_new_string(c->s));
		if (c->pid >= 0)
			add(o, "pid", json_object_new_int64(c->pid));
		add(o, "tid", json_object_new_int64(c->v));
		return o;
	case C_SYSCALL:
	case C_DISK:
		o = obj(c->kind == C_SYSCALL ? "syscall" : "disk");
		add(o, "name", json_object_new_string(c->s ? c->s : "?"));
		return o;
	case C_IRQ:
		o = obj("irq");
		add(o, "hard", json_object_new_boolean(c->hard));
		add(o, "nr", json_object_new_int64(c->v));
		if (c->s)
			add(o, "name", json_object_new_string(c->s));
		return o;
	case C_CPU:
		o = obj("cpu");
		add(o, "id", json_object_new_int64(c->v));
		return o;
	case C_STRING:
		return json_object_new_string(c->s ? c->s : "");
	case C_UNKNOWN:
		return obj("unknown");
	default:
		return NULL;
	}
}

static struct json_object *timestamp(uint64_t ns)
{
	struct json_object *o = obj("timestamp");

	add(o, "value", json_object_new_int64((int64_t)ns));
	return o;
}

/* LAMI 1.0: a time range's ends are timestamp objects. */
static struct json_object *range(uint64_t begin, uint64_t end)
{
	struct json_object *o = obj("time-range");

	add(o, "begin", timestamp(begin));
	add(o, "end", timestamp(end));
	return o;
}

static void result(struct json_object *results, const struct an_table *t, uint64_t begin,
		   uint64_t end, struct json_object *cls)
{
	struct json_object *o = json_object_new_object(), *data = json_object_new_array();
	const struct an_cell *cells = t->cells.v;

	add(o, "time-range", range(begin, end));
	add(o, "class", cls ? cls : json_object_new_string(t->cls->name));
	for (size_t r = 0; r < an_rows(t); r++) {
		struct json_object *row = json_object_new_array();

		for (size_t i = 0; i < t->cls->ncols; i++)
			json_object_array_add(
				row, cell(&cells[r * t->cls->ncols + i], &t->cls->cols[i]));
		json_object_array_add(data, row);
	}
	add(o, "data", data);
	json_object_array_add(results, o);
}

static const struct an_table_class *find(const char *name)
{
	for (size_t i = 0; i < an_table_class_count; i++)
		if (strcmp(an_table_classes[i].name, name) == 0)
			return &an_table_classes[i];
	return NULL;
}

/* "f0 < f1 < ..." (innermost first) in BUF. */
static const char *frames_text(const struct an_stack *s, char *buf, size_t size)
{
	size_t at = 0;

	buf[0] = 0;
	for (size_t i = 0; i < s->frames.n && at < size; i++) {
		int n = snprintf(buf + at, size - at, "%s%s", i ? " < " : "",
				 *AN_AT(&s->frames, char *, i));

		if (n < 0)
			break;
		at += (size_t)n;
	}
	return buf;
}

/* The alerts and their critical paths as tables, built for LAMI only. */
/*
 * What the session did not record that an alert's explanation would have used, said in
 * its summary: LAMI has no other place for it. "" when it recorded all.
 */
static char *undeclared_text(const struct an_result *r)
{
	struct an_vec missing = AN_VEC(char *);
	char *text = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&text, &size);

	an_undeclared(&r->log, &r->dirs, r->path, &missing);
	for (size_t i = 0; f && i < missing.n; i++)
		fprintf(f, "; not recorded: %s", *AN_AT(&missing, char *, i));
	if (f)
		fclose(f);
	an_strs_free(&missing);
	return text;
}

static void alert_tables(const struct an_result *r, struct json_object *results)
{
	struct an_table alerts = {.cls = find("alerts")};
	struct an_vec summaries = AN_VEC(char *);
	char *undeclared = undeclared_text(r);

	for (size_t i = 0; i < r->causes.n; i++) {
		const struct an_cause *c = AN_AT(&r->causes, struct an_cause, i);
		struct an_table path = {.cls = find("critical-path")};
		struct an_cell *x = an_row(&alerts);
		char summary[1024], title[160];
		char **s = an_vec_push(&summaries);
		double explained = an_cause_summary(&r->log, c, summary, sizeof(summary));
		struct json_object *cls;

		if (!x || !s || !(*s = an_asprintf("%s%s", summary, undeclared ? undeclared : "")))
			break;
		x[0] = (struct an_cell){.kind = C_TIMESTAMP, .v = (int64_t)c->alert.ts};
		x[1] = (struct an_cell){.kind = C_DURATION, .v = (int64_t)(c->t1 - c->t0)};
		x[2] = (struct an_cell){.kind = C_PROCESS,
					.v = c->alert.tid,
					.pid = c->alert.pid,
					.s = c->alert.comm};
		x[3] = (struct an_cell){.kind = C_STRING, .s = c->alert.tracker};
		x[4] = (struct an_cell){.kind = C_RATIO, .r = explained};
		x[5] = (struct an_cell){.kind = C_STRING, .s = *s};
		for (size_t j = 0; j < c->links.n; j++) {
			const struct an_link *l = AN_AT(&c->links, struct an_link, j);
			const struct an_log *lg = an_link_log(l, &r->log);
			const struct an_crossing *cx = an_crossing_of(c, j);
			struct an_cell *y = an_row(&path);
			char **detail = an_vec_push(&summaries);
			char w[200] = "", on[80] = "", st[2048];

			if (!y || !detail)
				break;
			if (cx && !cx->peer)
				snprintf(w, sizeof(w), "woken by one of %u datagrams alike from %s",
					 cx->candidates, cx->host);
			else if (cx && cx->sender > 0)
				snprintf(w, sizeof(w),
					 "woken by a packet sent by %s (tid %d on %s)",
					 an_comm_at(cx->peer, cx->sender, cx->sent), cx->sender,
					 cx->host);
			else if (cx)
				snprintf(w, sizeof(w), "woken by a packet from %s", cx->host);
			else if (an_blocked(l->iv.state))
				an_wake_text(lg, &l->iv, w, sizeof(w));
			else if (l->iv.state == ST_RUNNABLE && l->iv.by >= 0)
				an_runnable_text(lg, &l->iv, w, sizeof(w));
			else if (l->iv.state == ST_RUNNING)
				snprintf(w, sizeof(w), "on CPU %d", l->iv.cpu);
			if (l->host || c->host)
				snprintf(on, sizeof(on), "[%s] ", l->host ? l->host : c->host);
			*detail = an_asprintf(
				"%*s%s%s%s%s%s%s", (int)l->depth * 2, "", on,
				l->iv.syscall >= 0 ? an_sysname(lg, l->iv.syscall) : "",
				l->iv.syscall >= 0 && w[0] ? ": " : "", w,
				c->stack.link == j ? "; kernel stack: " : "",
				c->stack.link == j ? frames_text(&c->stack, st, sizeof(st)) : "");
			y[0] = (struct an_cell){.kind = C_TIMESTAMP, .v = (int64_t)l->iv.t0};
			y[1] = (struct an_cell){.kind = C_DURATION,
						.v = (int64_t)(l->iv.t1 - l->iv.t0)};
			y[2] = (struct an_cell){.kind = C_RATIO,
						.r = c->t1 > c->t0 ? (double)(l->iv.t1 - l->iv.t0) /
									     (double)(c->t1 - c->t0)
								   : 0};
			y[3] = (struct an_cell){.kind = C_PROCESS,
						.v = l->tid,
						.pid = an_pid_at(lg, l->tid, l->iv.t0),
						.s = an_comm_at(lg, l->tid, l->iv.t0)};
			y[4] = (struct an_cell){.kind = C_STRING, .s = an_state_name(l->iv.state)};
			y[5] = (struct an_cell){.kind = C_STRING, .s = *detail ? *detail : ""};
		}
		snprintf(title, sizeof(title), "Critical path of alert %llu: %s (tid %d)",
			 (unsigned long long)c->alert.seq, c->alert.comm, c->alert.tid);
		cls = json_object_new_object();
		add(cls, "inherit", json_object_new_string("critical-path"));
		add(cls, "title", json_object_new_string(title));
		if (an_rows(&path))
			result(results, &path, c->t0, c->t1, cls);
		else
			json_object_put(cls);
		an_vec_free(&path.cells);
	}
	if (an_rows(&alerts)) {
		struct json_object *cls = NULL;

		/* Alerts left out, said in the table's title: LAMI has no other place for it. */
		if (r->causes.n < r->log.alerts.n) {
			char title[200];

			snprintf(title, sizeof(title), "%s (%zu of %zu explained%s)",
				 alerts.cls->title, r->causes.n, r->log.alerts.n,
				 r->causes.n < r->alerts_window ? ": the largest" : "");
			cls = json_object_new_object();
			add(cls, "inherit", json_object_new_string("alerts"));
			add(cls, "title", json_object_new_string(title));
		}
		result(results, &alerts, r->begin, r->end, cls);
	}
	an_vec_free(&alerts.cells);
	an_strs_free(&summaries);
	free(undeclared);
}

bool an_lami_has_results(const struct an_result *r)
{
	for (size_t i = 0; i < r->tables.n; i++)
		if (an_rows(AN_AT(&r->tables, struct an_table, i)))
			return true;
	if (r->freq.n)
		return true;
	return r->causes.n > 0;
}

struct json_object *an_lami_results(const struct an_result *r)
{
	struct json_object *o = json_object_new_object(), *results = json_object_new_array();

	alert_tables(r, results);
	for (size_t i = 0; i < r->tables.n; i++) {
		const struct an_table *t = AN_AT(&r->tables, struct an_table, i);

		if (an_rows(t))
			result(results, t, r->begin, r->end, NULL);
	}
	/* A distribution per subject, as lttng-analyses' --freq: its class inherited, its own
	 * title saying what it bins. */
	for (size_t i = 0; i < r->freq.n; i++) {
		const struct an_table *t = AN_AT(&r->freq, struct an_table, i);
		struct json_object *cls = json_object_new_object();

		add(cls, "inherit", json_object_new_string(t->cls->name));
		add(cls, "title", json_object_new_string(t->title ? t->title : t->cls->title));
		result(results, t, r->begin, r->end, cls);
	}
	add(o, "results", results);
	return o;
}
