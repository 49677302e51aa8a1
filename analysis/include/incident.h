/* SPDX-License-Identifier: GPL-2.0-only */
/* incident.c: one fleet incident, every host's snapshot of it (latencyctl analyze --incident). */
#ifndef LATENCY_ANALYSIS_INCIDENT_H
#define LATENCY_ANALYSIS_INCIDENT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "an.h"

struct an_incident_part {
	char *path, *label; /* label: the path under the directory searched */
	char *host;	    /* that recorded it (from its name) */
	bool origin;
	bool covers;	     /* a peer's snapshot holds the whole window */
	uint64_t begin, end; /* a peer's window, on its clock */
	struct an_result *res;
	char *why; /* not analysed: why */
};

struct an_incident {
	char *id, *origin, *dir;
	bool origin_found, origin_ambiguous;
	uint64_t begin, end; /* the window, ns since the epoch; end 0: none */
	char *window_source;
	struct an_vec parts; /* struct an_incident_part, by path */
};

/* Finds and analyses every snapshot of INCIDENT under DIR: -ENOENT (why says so) if none. */
int an_incident_analyze(const char *dir, const char *incident, const struct an_options *opt,
			struct an_incident **ret, char **why);
void an_incident_print(const struct an_incident *inc, FILE *f);
struct json_object *an_incident_json(const struct an_incident *inc);
void an_incident_free(struct an_incident *inc);

#endif /* LATENCY_ANALYSIS_INCIDENT_H */
