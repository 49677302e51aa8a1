/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The snapshot reader thread (history_worker.c) and the real latencyd-reader it spawns
 * per snapshot (reader_child.c, reader/): jobs run in order off the caller's thread and
 * come back through the eventfd, each with its history and, when asked, its analysis from
 * the same pass; a snapshot that cannot be read gives a history error and a "failed"
 * summary saying why; a calibration record is read as a sample and deleted; the analyses
 * waiting are bounded (the history still measured); freeing with jobs queued leaks
 * nothing. A reader that crashes, writes garbage, too much or nothing, exits non-zero,
 * hangs or is missing fails its snapshot's history and analysis with the reason; freeing
 * the worker kills a reader under way at once.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>

#include "analysis_job.h"
#include "catalog.h"
#include "fsutil.h"
#include "ctf.h"
#include "recorder_internal.h"
#include "tests.h"

/*
 * A reader in front of the real one (LATENCYD_READER): a shell script that, given a
 * snapshot named "hold", waits on the FIFO at HOLD_FIFO before it runs the real reader,
 * so that the thread stays busy while the test queues.
 */
static char hold_fifo[96], script_dir[] = "/tmp/test-analysis-job-bin.XXXXXX";

/* A script named NAME in script_dir running BODY; its path in PATH. */
static void script(const char *name, const char *body, char *path, size_t size)
{
	FILE *f;

	snprintf(path, size, "%s/%s", script_dir, name);
	ASSERT_TRUE((f = fopen(path, "w")) != NULL);
	fprintf(f, "#!/bin/sh\n%s\n", body);
	ASSERT_EQ(fclose(f), 0);
	ASSERT_EQ(chmod(path, 0755), 0);
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
	char body[512], path[160];
	struct stat st;
	bool analyse;
	int fd;

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
	ASSERT_EQ(history_worker_submit(w, 7, "/nonexistent/snapshot", 16384, 4096, false, &analyse,
					0),
		  0);
	ASSERT_TRUE(analyse);
	ASSERT_EQ(history_worker_submit(w, 8, empty, 16384, 4096, false, &analyse, 0), 0);
	ASSERT_EQ(history_worker_submit(w, 9, dir, 16384, 4096, false, &analyse, 0), 0);
	ASSERT_EQ(history_worker_submit(w, 10, dir, 16384, 4096, false, NULL, 0), 0);
	ASSERT_EQ(history_worker_submit(w, 0, scratch, 16384, 4096, true, NULL, 0), 0);
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
	snprintf(hold_fifo, sizeof(hold_fifo), "%s/go", script_dir);
	ASSERT_EQ(mkfifo(hold_fifo, 0600), 0);
	snprintf(body, sizeof(body),
		 "for a; do last=$a; done\n"
		 "case $last in */hold) read go < %s;; esac\n"
		 "exec %s \"$@\"",
		 hold_fifo, READER_PATH);
	script("hold", body, path, sizeof(path));
	ASSERT_EQ(setenv("LATENCYD_READER", path, 1), 0);
	ASSERT_EQ(history_worker_submit(w, 99, hold, 16384, 4096, false, NULL, 0), 0);
	for (int i = 0; i <= ANALYSIS_QUEUE_MAX; i++) {
		analyse = true;
		ASSERT_EQ(history_worker_submit(w, 100 + (uint64_t)i, dir, 16384, 4096, false,
						&analyse, 0),
			  0);
		ASSERT_EQ(analyse, i < ANALYSIS_QUEUE_MAX);
	}
	fd = open(hold_fifo, O_WRONLY);
	ASSERT_TRUE(fd >= 0);
	ASSERT_EQ(write(fd, "\n", 1), 1);
	close(fd);
	history_worker_free(w);
	ASSERT_EQ(unsetenv("LATENCYD_READER"), 0);
	ASSERT_EQ(rm_tree(other), 0);
	ASSERT_EQ(rm_tree(dir), 0);
}

/* Runs a job on SNAPSHOT through the reader READER (a path, or a script's BODY): its job. */
static struct history_job *one(const char *snapshot, const char *reader, bool analyse)
{
	struct history_worker *w;
	struct history_job *j;

	ASSERT_EQ(setenv("LATENCYD_READER", reader, 1), 0);
	ASSERT_EQ(history_worker_new(&w), 0);
	ASSERT_EQ(history_worker_submit(w, 5, snapshot, 16384, 4096, false, &analyse, 0), 0);
	j = take(w, 1);
	history_worker_free(w);
	ASSERT_EQ(unsetenv("LATENCYD_READER"), 0);
	return j;
}

/* A failed reader: the history fails with WHY, the analysis too, and it is counted. */
static void failed(struct history_job *j, const char *why)
{
	ASSERT_TRUE(j->error < 0);
	ASSERT_TRUE(j->reader_failed);
	ASSERT_CONTAINS(j->err, why);
	ASSERT_STREQ(j->analysis->status, "failed");
	ASSERT_CONTAINS(j->analysis->error, why);
	history_job_free(j);
}

static void test_faults(void)
{
	static const struct {
		const char *name, *body, *why;
	} faults[] = {
		{"segv", "kill -SEGV $$", "killed by signal 11"},
		{"garbage", "echo 'not json' >&3", "result is not one JSON object"},
		{"nothing", "exit 0", "wrote no result"},
		{"status", "echo '{}' >&3; exit 4", "exited with status 4"},
		{"extra",
		 "echo '{\"error\":\"x\",\"analysis\":{\"status\":\"failed\","
		 "\"error\":\"y\",\"analysis_ms\":1},\"more\":1}' >&3",
		 "refused: more: unknown"},
		{"both", "echo '{\"error\":\"x\",\"history\":{}}' >&3", "refused"},
		{"stream",
		 "echo '{\"history\":{\"window_ns\":0,\"wrapped\":false,\"events\":0,"
		 "\"bytes\":0,\"events_per_sec\":0,\"bytes_per_event\":0,\"streams\":"
		 "[{\"channel\":\"c\",\"cpu\":-2,\"events\":0,\"bytes\":0,\"first_ns\":0,"
		 "\"last_ns\":0,\"span_ns\":0}],\"streams_total\":1,\"time\":0,"
		 "\"buffer_bytes_per_cpu\":0,\"expected_window_ns\":0},\"analysis\":"
		 "{\"analysis_ms\":0,\"status\":\"failed\",\"error\":\"e\"}}' >&3",
		 "cpu -2 out of range"},
		{"large", "head -c 5000000 /dev/zero >&3", "result too large"},
		/* Small in bytes, a GiB once parsed: refused before. */
		{"values",
		 "{ printf '['; yes '{},' | head -n 200000 | tr -d '\\n'; printf '{}]'; } >&3",
		 "more than 131072 values"},
		{"string",
		 "{ printf '{\"error\":\"'; head -c 20000 /dev/zero | tr '\\0' x; "
		 "printf '\"}'; } >&3",
		 "a string of more than 16384 bytes"},
		{"problems",
		 "echo '{\"error\":\"x\",\"analysis\":{\"status\":\"partial\",\"analysis_ms\":1,"
		 "\"events\":1,\"problems\":[\"a\",\"b\",\"c\",\"d\"],\"missing_events\":[],"
		 "\"causes\":[]}}' >&3",
		 "more streams, causes, problems or missing events than a reader sends"},
		{"hang", "exec sleep 1000", "took more than 1 s: killed"},
	};
	char dir[] = "/tmp/test-analysis-job.XXXXXX", path[160];
	struct history_worker *w;
	bool analyse = true;

	ASSERT_TRUE(mkdtemp(dir));
	ctf_snapshot(dir);
	ASSERT_EQ(setenv("LATENCYD_READER_TIMEOUT", "1", 1), 0);
	for (size_t i = 0; i < sizeof(faults) / sizeof(faults[0]); i++) {
		script(faults[i].name, faults[i].body, path, sizeof(path));
		failed(one(dir, path, true), faults[i].why);
	}
	ASSERT_EQ(unsetenv("LATENCYD_READER_TIMEOUT"), 0);
	/* Missing: no fallback to a read in latencyd. */
	snprintf(path, sizeof(path), "%s/missing", script_dir);
	failed(one(dir, path, true), "cannot run");

	/* The real reader's result, decoded back, is the snapshot's. */
	{
		struct history_job *j = one(dir, READER_PATH, true);

		ASSERT_EQ(j->error, 0);
		ASSERT_EQ(j->h.n, CTF_STREAMS);
		ASSERT_STREQ(j->analysis->status, "done");
		history_job_free(j);
	}

	/* A reader that hangs (no timeout in sight) is killed when the worker is freed:
	 * this returns instead of waiting 5 minutes, and leaves no process behind. */
	script("hang", "exec sleep 1000", path, sizeof(path));
	ASSERT_EQ(setenv("LATENCYD_READER", path, 1), 0);
	ASSERT_EQ(history_worker_new(&w), 0);
	ASSERT_EQ(history_worker_submit(w, 5, dir, 16384, 4096, false, &analyse, 0), 0);
	usleep(200 * 1000);
	history_worker_free(w);
	ASSERT_EQ(unsetenv("LATENCYD_READER"), 0);
	ASSERT_EQ(rm_tree(dir), 0);
}

int main(void)
{
	ASSERT_TRUE(mkdtemp(script_dir));
	/* The real reader for the jobs that use no script: the one built with this test. */
	ASSERT_EQ(setenv("LATENCYD_READER", READER_PATH, 1), 0);
	RUN(test_jobs);
	ASSERT_EQ(unsetenv("LATENCYD_READER"), 0);
	RUN(test_faults);
	ASSERT_EQ(rm_tree(script_dir), 0);
	return 0;
}
