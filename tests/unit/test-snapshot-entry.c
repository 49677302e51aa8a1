/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * daemon/recorder/snapshot_entry.c: a record abandoned at a stop keeps, as late_directory,
 * the local directory of the session it was handed to, where lttng-sessiond may still
 * write it; not when it was never handed to a session, nor when it went to relayd (its
 * late output would land on the relayd host).
 */
#include "entry.h"
#include "flight.h"
#include "recorder_internal.h"
#include "tests.h"
#include "waiter_internal.h"

/* The entry of an abandoned snapshot record whose session wrote to OUT (NULL: none). */
static void abandoned_entry(struct flight_output *out, struct catalog_entry *e)
{
	struct waiter_result *res = waiter_result_new(WAITER_SNAPSHOT, 0);
	struct flight_output settings = {.local_dir = "/var/lib/latencyd/now"};

	ASSERT_TRUE(res);
	res->id = 7;
	snprintf(res->name, sizeof(res->name), "snap-7");
	res->error = FLIGHT_ERR_ABANDONED;
	res->output = out;
	memset(e, 0, sizeof(*e));
	ASSERT_EQ(snapshot_entry(res, out ? out : &settings, NULL, 0, e), 0);
	res->output = NULL; /* not a reference: the test's own */
	waiter_result_free(res);
}

static void test_late_directory(void)
{
	struct flight_output local = {.local_dir = "/var/lib/latencyd/then"};
	struct flight_output relayd = {.local_dir = "/var/lib/latencyd/then",
				       .relayd_url = "net://collector"};
	struct catalog_entry e;

	abandoned_entry(&local, &e);
	ASSERT_EQ(e.status, CATALOG_FAILED);
	ASSERT_TRUE(e.late_directory && strcmp(e.late_directory, "/var/lib/latencyd/then") == 0);
	catalog_entry_free(&e);

	abandoned_entry(&relayd, &e);
	ASSERT_EQ(e.status, CATALOG_FAILED);
	ASSERT_TRUE(!e.late_directory);
	catalog_entry_free(&e);

	abandoned_entry(NULL, &e);
	ASSERT_EQ(e.status, CATALOG_FAILED);
	ASSERT_TRUE(!e.late_directory);
	catalog_entry_free(&e);
}

int main(void)
{
	RUN(test_late_directory);
	return 0;
}
