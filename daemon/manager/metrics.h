/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Prometheus metrics: metrics.c renders latencyd's counters, the module's and the fleet's
 * as the text exposition format; metrics_file.c writes them to metrics.textfile for
 * node_exporter's textfile collector every metrics.interval.
 */
#ifndef LATENCYD_METRICS_H
#define LATENCYD_METRICS_H

#include <stdbool.h>

struct manager;

/* The metrics as text in *TEXT (malloc'd), or -errno. */
int manager_metrics_text(struct manager *m, char **text);
/* The text connection CALLER reads in parts: rendered for its first part, the same text
 * for the parts that follow (their line numbers stay those of one rendering). *TEXT is
 * borrowed until the next call. */
int manager_metrics_paged(struct manager *m, unsigned caller, bool first, const char **text);
void manager_metrics_paged_free(struct manager *m);
/* Starts, moves or stops the textfile's timer as the configuration says (start and
 * reload); the first write is at once. */
int manager_metrics_file_apply(struct manager *m);
void manager_metrics_file_stop(struct manager *m);

#endif /* LATENCYD_METRICS_H */
