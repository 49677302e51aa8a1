// SPDX-License-Identifier: GPL-2.0-only
/*
 * The snapshot reader, off the realtime path: one thread at normal priority (nice 10)
 * has the snapshots it is given read, one at a time, each in one pass for its history
 * window and, when asked, its analysis, and hands both results to the main loop through an
 * eventfd. Decoding a kernel snapshot takes tens of milliseconds (more in a slow VM): too
 * long for the main loop, and never for the waiter.
 *
 * The pass itself runs in latencyd-reader, a confined process spawned per snapshot
 * (reader_child.c): a snapshot's userspace channels are whatever traced applications
 * wrote, and a parser that crashes, hangs or swells on them must not take latencyd along.
 * Its failure fails that snapshot's history and analysis, said, logged and counted; the
 * next snapshot gets a new reader. There is no in-process fallback: a snapshot that kills
 * the reader would kill latencyd.
 *
 * A calibration record (the waiter's, a sample of the buffers in a scratch directory) is
 * read for its history only and deleted: it gives a measurement before any alert did.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "analysis_job.h"
#include "catalog.h"
#include "fsutil.h"
#include "log.h"
#include "reader_child.h"
#include "recorder_internal.h"
#include "reader_result.h"

struct history_worker {
	pthread_t thread;
	bool started;
	int done_fd;
	int stop_fd; /* readable once stopping: the reader under way is killed at once */
	pthread_mutex_t lock;
	pthread_cond_t wake;
	struct history_job *todo, *done;
	unsigned analyses;	/* jobs queued or under way with their analysis */
	uint64_t reader_failed; /* readers that gave no result; the main loop's only */
	volatile bool stop;
};

static void append(struct history_job **list, struct history_job *j)
{
	while (*list)
		list = &(*list)->next;
	j->next = NULL;
	*list = j;
}

/* One pass over the snapshot at PATH by latencyd-reader: the history, and the analysis if
 * the job wants it. */
static void read_snapshot(struct history_worker *w, struct history_job *j, const char *path)
{
	const struct reader_request req = {
		.path = path, .analyse = j->analyse, .max_memory = j->max_memory};
	struct reader_result res;
	uint64_t t0 = now_ns();
	int r;

	r = reader_child_run(&req, w->stop_fd, &res, j->err, sizeof(j->err));
	if (r < 0) {
		j->error = r;
		j->reader_failed = r != -ECANCELED;
		if (j->analyse)
			j->analysis = analysis_failed(j->err, (now_ns() - t0) / 1000000);
		return;
	}
	if (res.error) {
		j->error = -EIO;
		snprintf(j->err, sizeof(j->err), "%s", res.error);
	} else {
		j->error = reader_history_in(res.history, &j->h);
		if (j->error)
			snprintf(j->err, sizeof(j->err), "%s", strerror(-j->error));
	}
	j->analysis = res.analysis; /* taken */
	res.analysis = NULL;
	reader_result_free(&res);
}

/* A calibration record: read, then deleted (it is nobody's snapshot). */
static void calibration(struct history_worker *w, struct history_job *j)
{
	int r;

	read_snapshot(w, j, j->path);
	r = rm_tree(j->path);
	if (r < 0 && !j->error)
		snprintf(j->err, sizeof(j->err), "cannot delete %s: %s", j->path, strerror(-r));
}

static void *run(void *arg)
{
	struct history_worker *w = arg;
	struct history_job *j;
	uint64_t one = 1;
	bool stop;

	thread_background();
	for (;;) {
		pthread_mutex_lock(&w->lock);
		while (!w->todo && !w->stop)
			pthread_cond_wait(&w->wake, &w->lock);
		/* Taken only when not stopping: a job left queued is freed with the queue. */
		stop = w->stop;
		j = w->todo;
		if (!stop)
			w->todo = j->next;
		pthread_mutex_unlock(&w->lock);
		if (stop)
			break;
		if (j->id)
			read_snapshot(w, j, j->path);
		else
			calibration(w, j);
		if (j->error == 0)
			history_summarize(&j->h, j->capacity, j->subbuf_size);
		j->time = (uint64_t)time(NULL);
		pthread_mutex_lock(&w->lock);
		append(&w->done, j);
		if (j->analyse)
			w->analyses--;
		pthread_mutex_unlock(&w->lock);
		if (write(w->done_fd, &one, sizeof(one)) < 0) {
			/* Cannot overflow in practice; the main loop reads it. */
		}
	}
	return NULL;
}

int history_worker_new(struct history_worker **ret)
{
	struct history_worker *w = calloc(1, sizeof(*w));
	int r;

	if (!w)
		return -ENOMEM;
	w->stop_fd = -1;
	w->done_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (w->done_fd < 0) {
		r = -errno;
		goto fail;
	}
	w->stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (w->stop_fd < 0) {
		r = -errno;
		goto fail;
	}
	pthread_mutex_init(&w->lock, NULL);
	pthread_cond_init(&w->wake, NULL);
	/* Normal priority whatever the creating thread runs at. */
	r = thread_start(&w->thread, SCHED_OTHER, 0, THREAD_STACK_WORKER, run, w,
			 "latencyd-reader");
	if (r < 0) {
		pthread_cond_destroy(&w->wake);
		pthread_mutex_destroy(&w->lock);
		goto fail;
	}
	w->started = true;
	*ret = w;
	return 0;
fail:
	if (w->done_fd >= 0)
		close(w->done_fd);
	if (w->stop_fd >= 0)
		close(w->stop_fd);
	free(w);
	return r;
}

int history_worker_eventfd(const struct history_worker *w)
{
	return w->done_fd;
}

int history_worker_submit(struct history_worker *w, uint64_t id, const char *path,
			  uint64_t capacity, uint64_t subbuf_size, bool sampled, bool *analyse,
			  uint64_t max_memory)
{
	struct history_job *j = calloc(1, sizeof(*j));

	if (!j)
		return -ENOMEM;
	j->id = id;
	j->max_memory = max_memory;
	j->capacity = capacity;
	j->subbuf_size = subbuf_size;
	j->sampled = sampled;
	if (!(j->path = strdup(path))) {
		free(j);
		return -ENOMEM;
	}
	pthread_mutex_lock(&w->lock);
	if (analyse && *analyse && w->analyses >= ANALYSIS_QUEUE_MAX)
		*analyse = false;
	j->analyse = analyse && *analyse;
	if (j->analyse)
		w->analyses++;
	append(&w->todo, j);
	pthread_cond_signal(&w->wake);
	pthread_mutex_unlock(&w->lock);
	return 0;
}

struct history_job *history_worker_take(struct history_worker *w)
{
	struct history_job *list;
	uint64_t v;

	if (read(w->done_fd, &v, sizeof(v)) < 0) {
		/* EAGAIN: nothing new, the list is checked anyway. */
	}
	pthread_mutex_lock(&w->lock);
	list = w->done;
	w->done = NULL;
	pthread_mutex_unlock(&w->lock);
	for (struct history_job *j = list; j; j = j->next)
		if (j->reader_failed)
			log_warnx(READER_NAME " failed on %s (%" PRIu64
					      " failures since start): %s",
				  j->path, ++w->reader_failed, j->err);
	return list;
}

void history_job_free(struct history_job *j)
{
	while (j) {
		struct history_job *next = j->next;

		history_free(&j->h);
		catalog_analysis_free(j->analysis);
		free(j->path);
		free(j);
		j = next;
	}
}

uint64_t history_worker_failed(const struct history_worker *w)
{
	return w->reader_failed;
}

void history_worker_free(struct history_worker *w)
{
	if (!w)
		return;
	if (w->started) {
		uint64_t one = 1;

		pthread_mutex_lock(&w->lock);
		w->stop = true;
		if (write(w->stop_fd, &one, sizeof(one)) < 0) {
			/* Cannot fail on an eventfd below its maximum. */
		}
		pthread_cond_signal(&w->wake);
		pthread_mutex_unlock(&w->lock);
		pthread_join(w->thread, NULL);
		pthread_cond_destroy(&w->wake);
		pthread_mutex_destroy(&w->lock);
	}
	history_job_free(w->todo);
	history_job_free(w->done);
	close(w->done_fd);
	close(w->stop_fd);
	free(w);
}
