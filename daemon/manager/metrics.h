/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Prometheus metrics: metrics.c renders latencyd's counters, the module's and the fleet's
 * as the text exposition format; metrics_file.c writes them to metrics.textfile for
 * node_exporter's textfile collector every metrics.interval.
 */
#ifndef LATENCYD_METRICS_H
#define LATENCYD_METRICS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct manager;

/* The metrics as text in *TEXT (malloc'd), or -errno. */
int manager_metrics_text(struct manager *m, char **text);
/*
 * A text read in parts (metrics.c) by user OWNER, kept METRICS_KEEP_SEC after its last part
 * asked, METRICS_RENDERINGS_MAX at most, METRICS_RENDERINGS_PER_USER of one user's: kept
 * under a new random id in *ID, taking TEXT (freed on failure), so that the later parts
 * come from it; 0 or -ENOMEM. manager_metrics_kept() lends the text of OWNER's rendering ID
 * until the next of these calls, or -ENOENT when it is no longer kept (or another user's);
 * manager_metrics_forget() drops it once its last part is sent.
 */
#define METRICS_KEEP_SEC	    10
#define METRICS_RENDERINGS_MAX	    16
#define METRICS_RENDERINGS_PER_USER 8
int manager_metrics_keep(struct manager *m, uid_t owner, char *text, uint64_t *id);
int manager_metrics_kept(struct manager *m, uid_t owner, uint64_t id, const char **text);
void manager_metrics_forget(struct manager *m, uid_t owner, uint64_t id);
void manager_metrics_paged_free(struct manager *m);
/* Starts, moves or stops the textfile's timer as the configuration says (start and
 * reload); the first write is at once. */
int manager_metrics_file_apply(struct manager *m);
void manager_metrics_file_stop(struct manager *m);

#endif /* LATENCYD_METRICS_H */
