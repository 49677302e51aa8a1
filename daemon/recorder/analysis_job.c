/* SPDX-License-Identifier: GPL-2.0-only */
/* The automatic snapshot analysis: the summaries latencyd makes itself (analysis_job.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis_job.h"
#include "entry.h"

struct catalog_analysis *analysis_failed(const char *why, uint64_t ms)
{
	struct catalog_analysis *s = calloc(1, sizeof(*s));
	int r = 0;

	if (!s)
		return NULL;
	s->analysis_ms = ms;
	s->status = catalog_strdup("failed", &r);
	s->error = catalog_strdup(why, &r);
	if (r < 0) {
		catalog_analysis_free(s);
		return NULL;
	}
	return s;
}

struct catalog_analysis *analysis_skipped(void)
{
	struct catalog_analysis *s = calloc(1, sizeof(*s));
	int r = 0;

	if (s && !(s->status = catalog_strdup("skipped", &r))) {
		free(s);
		return NULL;
	}
	return s;
}
