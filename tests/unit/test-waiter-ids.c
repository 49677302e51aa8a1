/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The realtime waiter at the last snapshot id (CATALOG_ID_MAX), on a FIFO standing in for
 * the notification file, with no session in its slot: the last id is handed out, then every
 * alert gets a failed result that says the ids are used up, counted as failed, its id past
 * the last and never wrapped.
 */
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "recorder_internal.h"
#include "tests.h"

#define WAIT_MS 10000

/* The waiter's next snapshot result (freed by the caller); *PENDING holds what came after. */
static struct waiter_result *next_snapshot(struct waiter *w, struct waiter_result **pending)
{
	struct pollfd p = {.fd = waiter_eventfd(w), .events = POLLIN};
	struct waiter_result *res;

	for (;;) {
		for (int ms = 0; !*pending && ms < WAIT_MS; ms += 10) {
			poll(&p, 1, 10);
			*pending = waiter_take_results(w);
		}
		ASSERT_TRUE(*pending);
		res = *pending;
		*pending = res->next;
		res->next = NULL;
		if (res->kind == WAITER_SNAPSHOT)
			return res;
		waiter_result_free(res);
	}
}

static void write_alert(int fd)
{
	struct latency_tracker_record rec = {
		.size = LATENCY_TRACKER_RECORD_SIZE,
		.version = LATENCY_TRACKER_RECORD_VERSION,
		.kind = LATENCY_TRACKER_REC_ALERT,
		.pid = 1,
		.tid = 1,
	};

	snprintf((char *)rec.tracker, sizeof(rec.tracker), "wakeup");
	rec.end_ns = now_ns();
	rec.start_ns = rec.end_ns - 1000;
	rec.delay_ns = 1000;
	ASSERT_EQ(write(fd, &rec, sizeof(rec)), sizeof(rec));
}

int main(void)
{
	char dir[] = "/tmp/test-waiter-ids.XXXXXX", fifo[PATH_MAX];
	struct waiter_result *res, *pending = NULL;
	struct flight_slot slot = {0};
	struct waiter_stats st;
	struct conf *conf;
	struct waiter *w;
	bool rt;
	int fd;

	ASSERT_TRUE(mkdtemp(dir));
	snprintf(fifo, sizeof(fifo), "%s/notify", dir);
	ASSERT_EQ(mkfifo(fifo, 0600), 0);
	ASSERT_EQ(conf_new_defaults(&conf), 0);
	conf->ratelimit.rate = 0;
	ASSERT_EQ(pi_mutex_init(&slot.lock), 0);
	ASSERT_EQ(waiter_new(fifo, &slot, "snap", CATALOG_ID_MAX, &w), 0);
	ASSERT_EQ(waiter_configure(w, conf, NULL, 0), 0);
	ASSERT_EQ(waiter_start(w, 0, false, &rt), 0);
	fd = open(fifo, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
	ASSERT_TRUE(fd >= 0);

	/* The last id: recorded (failed here for want of a session). */
	write_alert(fd);
	res = next_snapshot(w, &pending);
	ASSERT_EQ(res->id, CATALOG_ID_MAX);
	ASSERT_EQ(res->error, FLIGHT_ERR_NO_SESSION);
	ASSERT_STREQ(res->name, "snap-9007199254740991");
	waiter_result_free(res);
	/* Then none: refused, said, counted; the id stays past the last, never wraps. */
	for (int i = 0; i < 2; i++) {
		write_alert(fd);
		res = next_snapshot(w, &pending);
		ASSERT_EQ(res->id, CATALOG_ID_MAX + 1);
		ASSERT_EQ(res->error, FLIGHT_ERR_NO_ID);
		ASSERT_EQ(res->n, 1);
		ASSERT_EQ(res->causes[0].kind, CAUSE_ALERT);
		ASSERT_CONTAINS(flight_strerror(res->error), "every snapshot id");
		waiter_result_free(res);
	}
	waiter_get_stats(w, &st, NULL);
	ASSERT_EQ(st.failed, 3);
	ASSERT_EQ(st.snapshots, 0);
	ASSERT_EQ(st.causes, 3);

	waiter_free(w);
	while ((res = pending)) {
		pending = res->next;
		waiter_result_free(res);
	}
	close(fd);
	pthread_mutex_destroy(&slot.lock);
	conf_free(conf);
	ASSERT_EQ(unlink(fifo), 0);
	ASSERT_EQ(rmdir(dir), 0);
	return 0;
}
