/* SPDX-License-Identifier: GPL-2.0-only */
/* The result of an analysis: the alerts explained and the tables computed from the log read. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "an.h"
#include "analysis.h"
#include "chain.h"
#include "results.h"
#include "sends.h"
#include "tables.h"

bool an_result_partial(const struct an_result *r)
{
	return r->log.partial;
}

uint64_t an_result_events(const struct an_result *r)
{
	return r->log.events;
}

/* What an_compute() made of the log: the log itself stays. */
static void computed_free(struct an_result *r)
{
	for (size_t i = 0; i < r->causes.n; i++)
		an_cause_free(AN_AT(&r->causes, struct an_cause, i));
	an_vec_free(&r->causes);
	for (size_t i = 0; i < r->tables.n; i++)
		an_vec_free(&AN_AT(&r->tables, struct an_table, i)->cells);
	an_vec_free(&r->tables);
	for (size_t i = 0; i < r->freq.n; i++)
		an_vec_free(&AN_AT(&r->freq, struct an_table, i)->cells);
	an_vec_free(&r->freq);
	an_strs_free(&r->missing);
	an_strs_free(&r->names);
}

void an_result_free(struct an_result *r)
{
	if (!r)
		return;
	computed_free(r);
	an_strs_free(&r->dirs);
	an_log_free(&r->log);
	free(r->path);
	free(r);
}

struct an_result *an_result_new(const char *path)
{
	struct an_result *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	r->path = strdup(path);
	r->dirs.size = r->missing.size = r->names.size = sizeof(char *);
	r->causes.size = sizeof(struct an_cause);
	r->tables.size = r->freq.size = sizeof(struct an_table);
	an_log_init(&r->log);
	if (!r->path) {
		free(r);
		return NULL;
	}
	return r;
}

static bool garbled(const struct an_alert *a)
{
	return a->start > a->end;
}

/* Alerts by delay, the largest first; at the same delay, the earliest. */
static int by_delay(const void *x, const void *y)
{
	const struct an_alert *a = *(const struct an_alert *const *)x,
			      *b = *(const struct an_alert *const *)y;

	if (a->delay != b->delay)
		return a->delay < b->delay ? 1 : -1;
	if (a->ts != b->ts)
		return a->ts < b->ts ? -1 : 1;
	return a < b ? -1 : a > b;
}

/* Back in the log's order, which is time order. */
static int by_place(const void *x, const void *y)
{
	const struct an_alert *a = *(const struct an_alert *const *)x,
			      *b = *(const struct an_alert *const *)y;

	return (a > b) - (a < b);
}

/*
 * The MAX largest alerts meeting the window explained, in time order: those a reader asks
 * about first, wherever they are in the window.
 */
static int explain_alerts(struct an_result *r, const struct an_options *opt, unsigned max,
			  char **why)
{
	const struct an_alert **pick =
		malloc((r->log.alerts.n ? r->log.alerts.n : 1) * sizeof(*pick));
	struct an_sends sends = {0}; /* the log's, for all its alerts */
	size_t n = 0;

	r->alerts_window = r->alerts_outside = r->alerts_garbled = 0;
	if (!pick) {
		*why = an_asprintf("out of memory choosing the alerts to explain");
		return -ENOMEM;
	}
	for (size_t i = 0; i < r->log.alerts.n; i++) {
		const struct an_alert *a = AN_AT(&r->log.alerts, struct an_alert, i);

		if (garbled(a))
			r->alerts_garbled++;
		else if (a->end < r->begin || a->start > r->end)
			r->alerts_outside++;
		else
			pick[n++] = a;
	}
	r->alerts_window = n;
	if (n > max) {
		qsort(pick, n, sizeof(*pick), by_delay);
		n = max;
		qsort(pick, n, sizeof(*pick), by_place);
	}
	for (size_t i = 0; i < n; i++) {
		const struct an_alert *a = pick[i];
		struct an_cause *c = an_vec_push(&r->causes);

		if (!c || an_explain(&r->log, &sends, a, c) < 0) {
			*why = an_asprintf("out of memory explaining alert %llu",
					   (unsigned long long)a->seq);
			an_sends_free(&sends);
			free(pick);
			return -ENOMEM;
		}
		/* The story again, now with the stack beside the link it explains. */
		if (an_stack_attach(c, opt->known))
			an_cause_story(&r->log, c);
	}
	an_sends_free(&sends);
	free(pick);
	return 0;
}

/* The alerts explained, missing events and tables over opt's window. */
static int compute_window(struct an_result *r, const struct an_options *opt, char **why)
{
	struct an_tables_want want = {.limit = opt->limit ? opt->limit : AN_LIMIT_DEFAULT,
				      .stats = opt->tables,
				      .resolution = opt->freq_resolution < AN_FREQ_RESOLUTION_MAX
							    ? opt->freq_resolution
							    : AN_FREQ_RESOLUTION_MAX};
	unsigned max_alerts = opt->max_alerts ? opt->max_alerts : AN_ALERTS_DEFAULT;

	r->begin =
		opt->begin_ns && opt->begin_ns > r->log.first_ts ? opt->begin_ns : r->log.first_ts;
	r->end = opt->end_ns && opt->end_ns < r->log.last_ts ? opt->end_ns : r->log.last_ts;
	/* A window beside the trace's events (an_compute() says so) is empty, not inverted. */
	if (r->end < r->begin)
		r->end = r->begin;
	an_missing(&r->log, &r->dirs, r->path, &r->missing);
	if (explain_alerts(r, opt, max_alerts, why) < 0)
		return -ENOMEM;
	want.io_usage = r->io_usage = opt->io_usage;
	want.begin = r->begin;
	want.end = r->end;
	r->resolution = want.resolution;
	if ((want.stats || want.resolution || want.io_usage) &&
	    an_tables(&r->log, &want, &r->tables, &r->freq, &r->names) < 0) {
		*why = an_asprintf("out of memory computing the tables");
		return -ENOMEM;
	}
	return 0;
}

static int by_what(const void *a, const void *b)
{
	return strcmp(((const struct an_bad_class *)a)->what,
		      ((const struct an_bad_class *)b)->what);
}

/* The result's analysis of its log: what the log lost, then compute_window(). */
int an_compute(struct an_result *r, const struct an_options *opt, char **why)
{
	struct an_vec *bad = &r->log.bad_classes;

	an_disks_from_known(&r->log, opt->known);
	/* In the order of their names: the streams decoded apart meet them in another. */
	if (bad->n > 1)
		qsort(bad->v, bad->n, sizeof(struct an_bad_class), by_what);
	for (size_t i = 0; i < bad->n; i++)
		an_problem(&r->log, "%s: its events are left out (%llu)",
			   AN_AT(bad, struct an_bad_class, i)->what,
			   (unsigned long long)AN_AT(bad, struct an_bad_class, i)->events);
	if (r->log.discarded)
		an_problem(&r->log,
			   "the tracer discarded %llu events (buffers full): states may be wrong "
			   "around them",
			   (unsigned long long)r->log.discarded);
	if (r->log.discarded_packets)
		an_problem(&r->log,
			   "%llu packets missing from the streams (gaps in their numbers: the "
			   "tracer's ring overwrote or lost them): states may be wrong around them",
			   (unsigned long long)r->log.discarded_packets);
	if (r->log.damaged)
		an_problem(&r->log,
			   "%llu events left out: without a time, or on a CPU past %d (a damaged "
			   "trace)",
			   (unsigned long long)r->log.damaged, AN_CPUS_MAX - 1);
	for (size_t i = 0; i < r->log.alerts.n; i++) {
		const struct an_alert *a = AN_AT(&r->log.alerts, struct an_alert, i);

		if (garbled(a))
			an_problem(&r->log,
				   "alert %llu (%s, tid %d): its start (%llu) is after its end "
				   "(%llu ns since the epoch): not explained",
				   (unsigned long long)a->seq, a->tracker, a->tid,
				   (unsigned long long)a->start, (unsigned long long)a->end);
		else if (r->log.last_ts && (a->start > r->log.last_ts || a->end < r->log.first_ts))
			an_problem(
				&r->log,
				"alert %llu (%s, tid %d): its interval, %llu to %llu ns since the "
				"epoch, is outside the trace's events (%llu to %llu): not "
				"explained",
				(unsigned long long)a->seq, a->tracker, a->tid,
				(unsigned long long)a->start, (unsigned long long)a->end,
				(unsigned long long)r->log.first_ts,
				(unsigned long long)r->log.last_ts);
	}
	if (r->log.last_ts && ((opt->begin_ns && opt->begin_ns > r->log.last_ts) ||
			       (opt->end_ns && opt->end_ns < r->log.first_ts)))
		an_problem(&r->log,
			   "the window asked (--begin %llu, --end %llu) does not meet the trace's "
			   "events, from %llu to %llu ns since the epoch: nothing is analysed",
			   (unsigned long long)opt->begin_ns, (unsigned long long)opt->end_ns,
			   (unsigned long long)r->log.first_ts, (unsigned long long)r->log.last_ts);
	return compute_window(r, opt, why);
}

int an_recompute(struct an_result *r, const struct an_options *opt, char **why)
{
	computed_free(r);
	return compute_window(r, opt, why);
}
