/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * an_snapshot_read(): the trace directories found once (trace_dirs.c), one pass of
 * reader.c feeding the history's counter (history.c) and the analysis' decoder
 * (decode.c), then each part wanted made of what was read. an_analyze() is the analysis
 * alone.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "an.h"
#include "read.h"
#include "results.h"
#include "snapshot.h"

/* The history wants a clean pass: a trace left out or cut short would give a false window. */
static void history_part(struct an_snapshot *s, const struct an_log *log)
{
	if (!log->partial)
		return;
	s->history_error = -EIO;
	s->history_why = log->problems.n ? an_strdup(*AN_AT(&log->problems, char *, 0))
					 : an_strdup("the snapshot could not be read whole");
	history_free(&s->history);
}

/* The alerts explained and the tables, as an_analyze() always gave them. */
static void analysis_part(struct an_snapshot *s, struct an_result *r, const struct an_options *opt)
{
	int e;

	if (!r->log.events) {
		s->analysis_why = an_asprintf(
			"%s: no event could be read%s%s", r->path, r->log.problems.n ? ": " : "",
			r->log.problems.n ? *AN_AT(&r->log.problems, char *, 0) : "");
		e = -ENODATA;
	} else {
		e = an_compute(r, opt, &s->analysis_why);
	}
	if (e < 0) {
		s->analysis_error = e;
		an_result_free(r);
		return;
	}
	s->result = r;
}

/* Both parts fail alike when nothing could be read (or the pass was stopped). */
static void fail(struct an_snapshot *s, unsigned want, int e, const char *why)
{
	if (!why)
		why = strerror(-e);
	if (want & AN_WANT_HISTORY) {
		s->history_error = e;
		s->history_why = an_strdup(why);
	}
	if (want & AN_WANT_ANALYSIS) {
		s->analysis_error = e;
		s->analysis_why = an_strdup(why);
	}
	history_free(&s->history);
}

int an_snapshot_read(const char *path, unsigned want, const struct an_options *opt,
		     const volatile bool *stop, struct an_snapshot *s)
{
	static const struct an_options defaults = {.tables = true};
	struct an_count count = {.h = &s->history};
	struct an_pass pass = {.opt = opt ? opt : &defaults,
			       .decode = want & AN_WANT_ANALYSIS,
			       .count = want & AN_WANT_HISTORY ? &count : NULL,
			       .stop = stop};
	struct an_result *r = an_result_new(path);
	char *why = NULL;
	int e = r ? 0 : -ENOMEM;

	pass.threads = pass.opt->threads;
	memset(s, 0, sizeof(*s));
	s->history.busiest = -1;
	if (e == 0)
		e = an_trace_dirs(path, &r->dirs, &r->log, &why);
	if (e == 0)
		e = an_read(&r->dirs, &pass, &r->log, &why);
	an_count_done(&count);
	s->graphs = pass.graphs;
	s->sources = pass.sources;
	s->cuts = pass.cuts;
	s->messages = pass.messages;
	if (e < 0) {
		fail(s, want, e, why);
		free(why);
		an_result_free(r);
		return e;
	}
	if (want & AN_WANT_HISTORY)
		history_part(s, &r->log);
	if (want & AN_WANT_ANALYSIS)
		analysis_part(s, r, pass.opt);
	else
		an_result_free(r);
	return s->history_error ? s->history_error : s->analysis_error;
}

void an_snapshot_free(struct an_snapshot *s)
{
	history_free(&s->history);
	free(s->history_why);
	an_result_free(s->result);
	free(s->analysis_why);
	memset(s, 0, sizeof(*s));
}

int an_analyze(const char *path, const struct an_options *opt, struct an_result **ret, char **why)
{
	struct an_snapshot s;
	int e = an_snapshot_read(path, AN_WANT_ANALYSIS, opt, NULL, &s);

	*why = s.analysis_why;
	s.analysis_why = NULL;
	*ret = s.result;
	s.result = NULL;
	an_snapshot_free(&s);
	return e;
}
