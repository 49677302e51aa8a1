/* SPDX-License-Identifier: GPL-2.0-only */
/* What the analysis' tests look for in a result (results.h: they link its private side). */
#ifndef LATENCYD_TEST_ANALYSIS_RESULT_H
#define LATENCYD_TEST_ANALYSIS_RESULT_H

#include <stdbool.h>
#include <string.h>

#include "an.h"
#include "results.h"

/* Whether one of the result's problems says WHAT. */
static inline bool has_problem(const struct an_result *r, const char *what)
{
	for (size_t i = 0; i < r->log.problems.n; i++)
		if (strstr(*AN_AT(&r->log.problems, char *, i), what))
			return true;
	return false;
}

#endif /* LATENCYD_TEST_ANALYSIS_RESULT_H */
