/* SPDX-License-Identifier: GPL-2.0-only */
/* One fleet incident, every host's snapshot of it (latencyctl analyze --incident). */
#ifndef LATENCY_ANALYSIS_INCIDENT_H
#define LATENCY_ANALYSIS_INCIDENT_H

#include <stdio.h>

struct json_object;
struct an_options;
struct an_result;
struct an_incident;

/* Finds and analyses every snapshot of INCIDENT under DIR: -ENOENT (why says so) if none. */
int an_incident_analyze(const char *dir, const char *incident, const struct an_options *opt,
			struct an_incident **ret, char **why);
/* The origin's result (the incident's), NULL when its snapshot is not there or not analysed. */
const struct an_result *an_incident_origin(const struct an_incident *inc);
void an_incident_print(const struct an_incident *inc, FILE *f);
struct json_object *an_incident_json(const struct an_incident *inc);
void an_incident_free(struct an_incident *inc);

#endif /* LATENCY_ANALYSIS_INCIDENT_H */
