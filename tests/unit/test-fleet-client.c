/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fleet/fleet_client.c with a fake latencyd-fleet: this program, found beside itself under
 * that name (a symbolic link), plays the helper when started so, and sends the records the
 * scenario (FAKE_FLEET) asks for.
 * - flood: more records than the main loop's list holds, none taken: what does not fit is
 *   counted, never lost without a word;
 * - restart: a helper that counted dropped messages dies, and the next one counts from zero:
 *   the counters latencyd shows never go back.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "fleet-setup.h"
#include "fleet_client.h"
#include "fleet_spawn.h"
#include "fleet_wire.h"
#include "tests.h"

#define FLOOD 300 /* more than fleet_client.c's NOTES_MAX (256) */

static struct fleet_wire_event e;

static void send_event(uint32_t kind, uint64_t received, uint64_t malformed)
{
	memset(&e, 0, sizeof(e));
	e.type = FLEET_WIRE_EVENT;
	e.ev.kind = kind;
	snprintf(e.ev.presence.host, sizeof(e.ev.presence.host), "h2");
	snprintf(e.ev.presence.group, sizeof(e.ev.presence.group), "lab");
	snprintf(e.ev.presence.state, sizeof(e.ev.presence.state), "%s", PROTO_FLEET_ONLINE);
	snprintf(e.st.user, sizeof(e.st.user), "nobody");
	e.st.received = received;
	e.st.malformed = malformed;
	if (send(FLEET_WIRE_EVENT_FD, &e, sizeof(e), MSG_NOSIGNAL) != sizeof(e))
		exit(3);
}

/* Until latencyd says STOP or goes. */
static void wait_stop(void)
{
	struct fleet_wire_request q;
	ssize_t n;

	while ((n = recv(FLEET_WIRE_REQUEST_FD, &q, sizeof(q), 0)) > 0 || (n < 0 && errno == EINTR))
		if (n > 0 && q.type == FLEET_WIRE_STOP)
			return;
}

static int fake_helper(void)
{
	static struct fleet_wire_settings s;
	const char *scenario = getenv("FAKE_FLEET"), *marker = getenv("FAKE_FLEET_MARKER");

	if (recv(FLEET_WIRE_REQUEST_FD, &s, sizeof(s), 0) != sizeof(s) ||
	    !fleet_wire_settings_check(&s, sizeof(s)) || !scenario)
		return 2;
	if (strcmp(scenario, "flood") == 0) {
		for (uint64_t i = 1; i <= FLOOD; i++)
			send_event(FLEET_PRESENCE, i, 0);
		/* Not a note: seen in status once every presence before it was handled. */
		send_event(FLEET_WIRE_COUNTERS, FLOOD + 1, 0);
	} else if (access(marker, F_OK) < 0) { /* restart, the first helper: dies */
		FILE *f = fopen(marker, "w");

		if (f)
			fclose(f);
		send_event(FLEET_WIRE_COUNTERS, 7, 5);
		return 0;
	} else { /* the one started again */
		send_event(FLEET_WIRE_COUNTERS, 2, 1);
	}
	wait_stop();
	return 0;
}

/*
 * This program as latencyd-fleet beside it, where fleet_helper_path() looks first. Renamed
 * over whatever is there: test-members, run beside this one, makes that link when it is
 * missing, and never replaces it.
 */
static void install_fake(void)
{
	char self[PATH_MAX], link[PATH_MAX + 32], tmp[PATH_MAX + 64];

	test_fleet_helper_beside(self, link);
	snprintf(tmp, sizeof(tmp), "%s.%d", link, (int)getpid());
	unlink(tmp);
	ASSERT_EQ(symlink(self, tmp), 0);
	ASSERT_EQ(rename(tmp, link), 0);
}

static struct fleet *start(const char *scenario)
{
	struct conf conf = test_fleet_conf();
	struct fleet *f = NULL;

	conf.fleet.enabled = true;
	conf.fleet.record_peers = true;
	setenv("FAKE_FLEET", scenario, 1);
	ASSERT_EQ(fleet_new(&conf, NULL, NULL, &f), 0);
	ASSERT_EQ(fleet_start(f), 0);
	return f;
}

/* Polls F's status until RECEIVED, within 10 s. */
static bool received(struct fleet *f, uint64_t want, struct fleet_status *st)
{
	const struct timespec tick = {.tv_nsec = 10 * 1000 * 1000};

	for (int i = 0; i < 1000; i++) {
		fleet_status(f, st);
		if (st->received == want && st->pid > 0)
			return true;
		nanosleep(&tick, NULL);
	}
	return false;
}

static void test_flood(void)
{
	struct fleet *f = start("flood");
	struct fleet_status st;
	struct fleet_note *list;
	size_t n = 0;

	ASSERT_TRUE(received(f, FLOOD + 1, &st));
	list = fleet_take(f);
	for (struct fleet_note *it = list; it; it = it->next)
		n++;
	fleet_note_free(list);
	ASSERT_EQ(n, 256);
	ASSERT_EQ(st.notes_dropped, FLOOD - 256);
	fleet_free(f);
}

static void test_restart(void)
{
	char marker[] = "/tmp/test-fleet-client-XXXXXX";
	struct fleet_status st;
	struct fleet *f;
	int fd = mkstemp(marker);

	ASSERT_TRUE(fd >= 0);
	close(fd);
	unlink(marker); /* the first helper makes it */
	setenv("FAKE_FLEET_MARKER", marker, 1);
	f = start("restart");
	/* 7 + 2 received, 5 + 1 malformed: the second helper's alone would be 2 and 1. */
	ASSERT_TRUE(received(f, 9, &st));
	ASSERT_EQ(st.malformed, 6);
	ASSERT_TRUE(st.restarts >= 1);
	fleet_free(f);
	unlink(marker);
}

int main(int argc, char *argv[])
{
	const char *base = strrchr(argv[0], '/');

	(void)argc;
	if (strcmp(base ? base + 1 : argv[0], FLEET_HELPER_NAME) == 0)
		return fake_helper();
	install_fake();
	test_flood();
	test_restart();
	printf("fleet-client: ok\n");
	return 0;
}
