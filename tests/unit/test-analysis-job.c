/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The automatic analysis' worker: jobs run in order off the event loop and their summaries
 * come back on it, a snapshot that cannot be read gives a "failed" summary saying why, the
 * queue is bounded, and freeing with jobs queued leaks nothing.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "analysis_job.h"
#include "tests.h"

static uint64_t ids[4];
static struct json_object *summaries[4];
static int ndone;

static void done(uint64_t id, struct json_object *summary, void *userdata)
{
	ASSERT_TRUE(ndone < 4);
	ASSERT_TRUE(userdata == &ndone);
	ids[ndone] = id;
	summaries[ndone++] = summary;
}

static const char *str(struct json_object *o, const char *key)
{
	struct json_object *v;

	return json_object_object_get_ex(o, key, &v) ? json_object_get_string(v) : NULL;
}

static void test_jobs(void)
{
	char dir[] = "/tmp/test-analysis-job.XXXXXX";
	struct analysis_jobs *j;
	sd_event *e;

	ASSERT_TRUE(mkdtemp(dir));
	ASSERT_EQ(sd_event_new(&e), 0);
	ASSERT_EQ(analysis_jobs_new(e, done, &ndone, &j), 0);
	ASSERT_EQ(analysis_jobs_submit(j, 7, "/nonexistent/snapshot"), 0);
	ASSERT_EQ(analysis_jobs_submit(j, 8, dir), 0);
	for (int i = 0; i < 100 && ndone < 2; i++)
		ASSERT_TRUE(sd_event_run(e, 100000) >= 0);
	ASSERT_EQ(ndone, 2);
	ASSERT_EQ(ids[0], 7);
	ASSERT_EQ(ids[1], 8);
	ASSERT_STREQ(str(summaries[0], "status"), "failed");
	ASSERT_CONTAINS(str(summaries[0], "error"), "/nonexistent/snapshot");
	ASSERT_STREQ(str(summaries[1], "status"), "failed");
	ASSERT_CONTAINS(str(summaries[1], "error"), "no CTF trace");
	for (int i = 0; i < 2; i++)
		json_object_put(summaries[i]);

	/* Bounded queue; whatever is still queued is dropped at free. */
	for (int i = 0; i < ANALYSIS_QUEUE_MAX + 8; i++)
		if (analysis_jobs_submit(j, 100 + (uint64_t)i, dir) == -EBUSY)
			break;
	analysis_jobs_free(j);
	sd_event_unref(e);
	rmdir(dir);
}

int main(void)
{
	RUN(test_jobs);
	return 0;
}
