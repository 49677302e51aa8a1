/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * analysis_job.c: the automatic analysis of each snapshot (analysis.auto). One worker
 * thread at normal priority (SCHED_OTHER, never inheriting the realtime waiter's policy)
 * analyses snapshots one at a time, off the realtime path; its summaries come back to the
 * sd-event loop through a pipe, where done() stores them in the catalog entry.
 */
#ifndef LATENCYD_ANALYSIS_JOB_H
#define LATENCYD_ANALYSIS_JOB_H

#include <stdint.h>

#include <systemd/sd-event.h>

struct json_object;
struct analysis_jobs;

/* On the event loop: summary (taken over) for snapshot id. */
typedef void (*analysis_done_fn)(uint64_t id, struct json_object *summary, void *userdata);

/* Jobs waiting beyond this are refused (the snapshot keeps no analysis, said so). */
#define ANALYSIS_QUEUE_MAX 16

int analysis_jobs_new(sd_event *event, analysis_done_fn done, void *userdata,
		      struct analysis_jobs **ret);
/* Queues snapshot id at path; -EBUSY when the queue is full. Never blocks. */
int analysis_jobs_submit(struct analysis_jobs *j, uint64_t id, const char *path);
/* Stops the worker after the job it is running; queued jobs are dropped. */
void analysis_jobs_free(struct analysis_jobs *j);

/*
 * The catalog's "analysis" object for a snapshot: status ("done", "partial", "failed"),
 * events, problems, missing_events, causes [{seq, tid, comm, summary, explained}], error.
 */
struct json_object *analysis_summary(const char *path);

#endif /* LATENCYD_ANALYSIS_JOB_H */
