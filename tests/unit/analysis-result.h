/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the analysis' tests look for in a result, and the logs they write by hand
 * (results.h: they link its private side).
 */
#ifndef LATENCYD_TEST_ANALYSIS_RESULT_H
#define LATENCYD_TEST_ANALYSIS_RESULT_H

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "an.h"
#include "chain.h"
#include "results.h"
#include "tests.h"

/* Whether one of the result's problems says WHAT. */
static inline bool has_problem(const struct an_result *r, const char *what)
{
	for (size_t i = 0; i < r->log.problems.n; i++)
		if (strstr(*AN_AT(&r->log.problems, char *, i), what))
			return true;
	return false;
}

/* R's one explained alert's cause. */
static inline const struct an_cause *result_cause(const struct an_result *r)
{
	ASSERT_EQ(r->causes.n, 1);
	return AN_AT(&r->causes, struct an_cause, 0);
}

/* Whether one of C's notes says PART. */
static inline bool cause_has_note(const struct an_cause *c, const char *part)
{
	for (size_t i = 0; i < c->notes.n; i++)
		if (strstr(*AN_AT(&c->notes, char *, i), part))
			return true;
	return false;
}

/* An event appended to R's log as a decoder would: its times and counts kept. */
static inline void result_ev(struct an_result *r, uint64_t ts, uint16_t cpu, uint16_t type,
			     int32_t a, int32_t b, int64_t d)
{
	struct an_ev *e = an_vec_push(&r->log.ev);

	ASSERT_TRUE(e);
	*e = (struct an_ev){.ts = ts, .cpu = cpu, .type = type, .a = a, .b = b, .d = (uint64_t)d};
	if (!r->log.first_ts)
		r->log.first_ts = ts;
	r->log.last_ts = ts;
	r->log.counts[type]++;
	r->log.events++;
}

/* Task TID of R's log named NAME, its own process. */
static inline void result_comm(struct an_result *r, int32_t tid, const char *name)
{
	struct an_task *t = an_task_get(&r->log, tid);

	ASSERT_TRUE(t);
	snprintf(t->comm, sizeof(t->comm), "%s", name);
	t->pid = tid;
}

/* R's text, as latencyctl prints it (to free). */
static inline char *result_text(const struct an_result *r)
{
	char *text = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&text, &size);

	ASSERT_TRUE(f);
	an_result_print(r, f);
	ASSERT_EQ(fclose(f), 0);
	return text;
}

#endif /* LATENCYD_TEST_ANALYSIS_RESULT_H */
