/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The snapshot reader thread (history_worker.c) and the analysis summary it makes
 * (analysis_job.c): jobs run in order off the caller's thread and come back through the
 * eventfd, each with its history and, when asked, its analysis from the same pass; a
 * snapshot that cannot be read gives a history error and a "failed" summary saying why; a
 * calibration record is read as a sample and deleted; the analyses waiting are bounded
 * (the history still measured); freeing with jobs queued leaks nothing.
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>

#include "analysis_job.h"
#include "catalog.h"
#include "fsutil.h"
#include "ctf.h"
#include "recorder_internal.h"
#include "snapshot.h"
#include "tests.h"

/*
 * The reader thread held: its pass over a directory named "hold" waits until the test lets
 * it go (the test is linked with --wrap=an_snapshot_read). Nothing in a snapshot can make
 * the pass wait: a "metadata" FIFO is left out unopened.
 */
static int hold_pipe[2];

int __real_an_snapshot_read(const char *path, unsigned want, const struct an_options *opt,
			    const volatile bool *stop, struct an_snapshot *s);
int __wrap_an_snapshot_read(const char *path, unsigned want, const struct an_options *opt,
			    const volatile bool *stop, struct an_snapshot *s);

int __wrap_an_snapshot_read(const char *path, unsigned want, const struct an_options *opt,
			    const volatile bool *stop, struct an_snapshot *s)
{
	const char *base = strrchr(path, '/');
	char go;

	if (base && strcmp(base, "/hold") == 0)
		ASSERT_EQ(read(hold_pipe[0], &go, 1), 1);
	return __real_an_snapshot_read(path, want, opt, stop, s);
}

static struct history_job *take(struct history_worker *w, size_t n)
{
	struct history_job *list = NULL, **tail = &list;
	struct pollfd p = {.fd = history_worker_eventfd(w), .events = POLLIN};
	size_t got = 0;

	for (int i = 0; i < 600 && got < n; i++) {
		poll(&p, 1, 100);
		*tail = history_worker_take(w);
		for (; *tail; tail = &(*tail)->next)
			got++;
	}
	ASSERT_EQ(got, n);
	return list;
}

static void test_jobs(void)
{
	char dir[] = "/tmp/test-analysis-job.XXXXXX", other[] = "/tmp/test-analysis-job.XXXXXX";
	char empty[64], scratch[64], hold[64];
	struct history_worker *w;
	struct history_job *list, *j;
	struct stat st;
	bool analyse;

	/* OTHER: the calibration and the held trace, out of the snapshot DIR the jobs read. */
	ASSERT_TRUE(mkdtemp(dir));
	ASSERT_TRUE(mkdtemp(other));
	ctf_snapshot(dir);
	snprintf(empty, sizeof(empty), "%s/empty", dir);
	ASSERT_EQ(mkdir(empty, 0755), 0);
	snprintf(scratch, sizeof(scratch), "%s/calibration", other);
	ASSERT_EQ(mkdir(scratch, 0755), 0);
	ctf_snapshot(scratch);
	ASSERT_EQ(history_worker_new(&w), 0);

	analyse = true;
	ASSERT_EQ(
		history_worker_submit(w, 7, "/nonexistent/snapshot", 16384, 4096, false, &analyse),
		0);
	ASSERT_TRUE(analyse);
	ASSERT_EQ(history_worker_submit(w, 8, empty, 16384, 4096, false, &analyse), 0);
	ASSERT_EQ(history_worker_submit(w, 9, dir, 16384, 4096, false, &analyse), 0);
	ASSERT_EQ(history_worker_submit(w, 10, dir, 16384, 4096, false, NULL), 0);
	ASSERT_EQ(history_worker_submit(w, 0, scratch, 16384, 4096, true, NULL), 0);
	list = take(w, 5);

	j = list;
	ASSERT_EQ(j->id, 7);
	ASSERT_CONTAINS(j->err, "/nonexistent/snapshot");
	ASSERT_STREQ(j->analysis->status, "failed");
	ASSERT_CONTAINS(j->analysis->error, "/nonexistent/snapshot");
	j = j->next;
	ASSERT_EQ(j->id, 8);
	ASSERT_TRUE(j->error < 0);
	ASSERT_CONTAINS(j->err, "no CTF trace");
	ASSERT_CONTAINS(j->analysis->error, "no CTF trace");
	/* Both from one pass: the history summarized, the analysis done. */
	j = j->next;
	ASSERT_EQ(j->id, 9);
	ASSERT_EQ(j->error, 0);
	ASSERT_EQ(j->h.n, CTF_STREAMS);
	ASSERT_EQ(j->h.events, CTF_EVENTS);
	ASSERT_TRUE(j->h.busiest >= 0);
	ASSERT_TRUE(j->time > 0);
	ASSERT_STREQ(j->analysis->status, "done");
	ASSERT_EQ(j->analysis->events, 6);
	ASSERT_EQ(j->analysis->n_problems, 0);
	/* The history alone. */
	j = j->next;
	ASSERT_EQ(j->id, 10);
	ASSERT_EQ(j->error, 0);
	ASSERT_EQ(j->h.events, CTF_EVENTS);
	ASSERT_TRUE(!j->analysis);
	/* The waiter's calibration record: measured as a sample, then deleted. */
	j = j->next;
	ASSERT_EQ(j->id, 0);
	ASSERT_EQ(j->error, 0);
	ASSERT_TRUE(j->sampled);
	ASSERT_EQ(j->h.events, CTF_EVENTS);
	ASSERT_TRUE(!j->analysis);
	ASSERT_EQ(stat(scratch, &st), -1);
	ASSERT_EQ(errno, ENOENT);
	history_job_free(list);

	/*
	 * Bounded analyses: with the thread held (reading "hold", an empty directory),
	 * ANALYSIS_QUEUE_MAX analyses are taken, the next one refused but its history still
	 * queued; whatever is still queued is dropped at free.
	 */
	snprintf(hold, sizeof(hold), "%s/hold", other);
	ASSERT_EQ(mkdir(hold, 0755), 0);
	ASSERT_EQ(pipe(hold_pipe), 0);
	ASSERT_EQ(history_worker_submit(w, 99, hold, 16384, 4096, false, NULL), 0);
	for (int i = 0; i <= ANALYSIS_QUEUE_MAX; i++) {
		analyse = true;
		ASSERT_EQ(history_worker_submit(w, 100 + (uint64_t)i, dir, 16384, 4096, false,
						&analyse),
			  0);
		ASSERT_EQ(analyse, i < ANALYSIS_QUEUE_MAX);
	}
	ASSERT_EQ(write(hold_pipe[1], "", 1), 1);
	history_worker_free(w);
	close(hold_pipe[0]);
	close(hold_pipe[1]);
	ASSERT_EQ(rm_tree(other), 0);
	ASSERT_EQ(rm_tree(dir), 0);
}

int main(void)
{
	RUN(test_jobs);
	return 0;
}
