/* SPDX-License-Identifier: GPL-2.0-only */
/* The automatic snapshot analysis: a normal-priority worker thread and its queue. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "analysis.h"
#include "analysis_job.h"
#include "recorder_internal.h"

struct job {
	struct job *next;
	uint64_t id;
	char *path;
	struct json_object *summary;
};

struct analysis_jobs {
	pthread_t thread;
	bool started, stop;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct job *todo, *done; /* both in submission order */
	unsigned queued;
	int pipe[2];
	sd_event_source *source;
	analysis_done_fn on_done;
	void *userdata;
};

static void add_strings(struct json_object *to, const char *key, struct json_object *from,
			size_t max)
{
	struct json_object *a = json_object_new_array(), *v;

	if (json_object_object_get_ex(from, key, &v))
		for (size_t i = 0; i < json_object_array_length(v) && i < max; i++)
			json_object_array_add(a, json_object_get(json_object_array_get_idx(v, i)));
	json_object_object_add(to, key, a);
}

static void copy(struct json_object *to, struct json_object *from, const char *key)
{
	struct json_object *v;

	if (json_object_object_get_ex(from, key, &v))
		json_object_object_add(to, key, json_object_get(v));
}

struct json_object *analysis_summary(const char *path)
{
	struct json_object *s = json_object_new_object(), *full, *alerts, *causes;
	struct an_options opt = {.tables = false};
	struct an_result *r = NULL;
	struct timespec t0, t1;
	char *why = NULL;
	int e;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	e = an_analyze(path, &opt, &r, &why);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	json_object_object_add(s, "analysis_ms",
			       json_object_new_int64((t1.tv_sec - t0.tv_sec) * 1000 +
						     (t1.tv_nsec - t0.tv_nsec) / 1000000));
	if (e < 0) {
		json_object_object_add(s, "status", json_object_new_string("failed"));
		json_object_object_add(s, "error",
				       json_object_new_string(why ? why : strerror(-e)));
		free(why);
		return s;
	}
	full = an_result_json(r);
	json_object_object_add(s, "status",
			       json_object_new_string(an_result_partial(r) ? "partial" : "done"));
	copy(s, full, "events");
	add_strings(s, "problems", full, 3);
	add_strings(s, "missing_events", full, 16);
	causes = json_object_new_array();
	if (json_object_object_get_ex(full, "alerts", &alerts))
		for (size_t i = 0; i < json_object_array_length(alerts); i++) {
			struct json_object *a = json_object_array_get_idx(alerts, i);
			struct json_object *c = json_object_new_object();

			copy(c, a, "seq");
			copy(c, a, "tracker");
			copy(c, a, "tid");
			copy(c, a, "comm");
			copy(c, a, "summary");
			copy(c, a, "explained");
			json_object_array_add(causes, c);
		}
	json_object_object_add(s, "causes", causes);
	json_object_put(full);
	an_result_free(r);
	return s;
}

static void *worker(void *arg)
{
	struct analysis_jobs *j = arg;
	struct job *job, **tail;

	thread_background();
	pthread_mutex_lock(&j->lock);
	for (;;) {
		while (!j->todo && !j->stop)
			pthread_cond_wait(&j->cond, &j->lock);
		if (j->stop)
			break;
		job = j->todo;
		j->todo = job->next;
		pthread_mutex_unlock(&j->lock);
		job->summary = analysis_summary(job->path);
		pthread_mutex_lock(&j->lock);
		/* in completion order, which is submission order */
		job->next = NULL;
		for (tail = &j->done; *tail; tail = &(*tail)->next)
			;
		*tail = job;
		j->queued--;
		/* one byte per finished job; the loop drains them all at once */
		if (write(j->pipe[1], "", 1) < 0 && errno != EAGAIN) {
			/* the loop still finds the job at its next wakeup */
		}
	}
	pthread_mutex_unlock(&j->lock);
	return NULL;
}

static void job_free(struct job *job)
{
	json_object_put(job->summary);
	free(job->path);
	free(job);
}

static int on_pipe(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
	struct analysis_jobs *j = userdata;
	struct job *done, *next;
	char buf[64];

	while (read(fd, buf, sizeof(buf)) > 0)
		;
	pthread_mutex_lock(&j->lock);
	done = j->done;
	j->done = NULL;
	pthread_mutex_unlock(&j->lock);
	for (; done; done = next) {
		next = done->next;
		j->on_done(done->id, done->summary, j->userdata);
		done->summary = NULL;
		job_free(done);
	}
	return 0;
}

int analysis_jobs_new(sd_event *event, analysis_done_fn done, void *userdata,
		      struct analysis_jobs **ret)
{
	struct analysis_jobs *j = calloc(1, sizeof(*j));
	int r;

	if (!j)
		return -ENOMEM;
	j->on_done = done;
	j->userdata = userdata;
	j->pipe[0] = j->pipe[1] = -1;
	pthread_mutex_init(&j->lock, NULL);
	pthread_cond_init(&j->cond, NULL);
	if (pipe2(j->pipe, O_CLOEXEC | O_NONBLOCK) < 0) {
		r = -errno;
		goto fail;
	}
	r = sd_event_add_io(event, &j->source, j->pipe[0], EPOLLIN, on_pipe, j);
	if (r < 0)
		goto fail;
	/* Explicitly SCHED_OTHER: whatever the creating thread runs at. */
	r = thread_start(&j->thread, SCHED_OTHER, 0, THREAD_STACK_WORKER, worker, j,
			 "latencyd-analys");
	if (r < 0)
		goto fail;
	j->started = true;
	*ret = j;
	return 0;
fail:
	analysis_jobs_free(j);
	return r;
}

int analysis_jobs_submit(struct analysis_jobs *j, uint64_t id, const char *path)
{
	struct job *job, **tail;
	int r = 0;

	pthread_mutex_lock(&j->lock);
	if (j->queued >= ANALYSIS_QUEUE_MAX) {
		r = -EBUSY;
		goto out;
	}
	job = calloc(1, sizeof(*job));
	if (!job || !(job->path = strdup(path))) {
		free(job);
		r = -ENOMEM;
		goto out;
	}
	job->id = id;
	for (tail = &j->todo; *tail; tail = &(*tail)->next)
		;
	*tail = job;
	j->queued++;
	pthread_cond_signal(&j->cond);
out:
	pthread_mutex_unlock(&j->lock);
	return r;
}

void analysis_jobs_free(struct analysis_jobs *j)
{
	struct job *job, *next;

	if (!j)
		return;
	if (j->started) {
		pthread_mutex_lock(&j->lock);
		j->stop = true;
		pthread_cond_signal(&j->cond);
		pthread_mutex_unlock(&j->lock);
		pthread_join(j->thread, NULL);
	}
	for (job = j->todo; job; job = next) {
		next = job->next;
		job_free(job);
	}
	for (job = j->done; job; job = next) {
		next = job->next;
		job_free(job);
	}
	sd_event_source_disable_unref(j->source);
	if (j->pipe[0] >= 0)
		close(j->pipe[0]);
	if (j->pipe[1] >= 0)
		close(j->pipe[1]);
	pthread_mutex_destroy(&j->lock);
	pthread_cond_destroy(&j->cond);
	free(j);
}
