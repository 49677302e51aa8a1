/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fleet/fleet_client.c with a fake latencyd-fleet: this program, found beside itself under
 * that name (a symbolic link), plays the helper when started so, and sends the records the
 * scenario (FAKE_FLEET) asks for.
 * - flood: more records than the main loop's list holds, none taken: what does not fit is
 *   counted, never lost without a word; the connection's changes and each member's latest
 *   presence are never among what is dropped;
 * - presences: presences alone, no other note pending: the main loop takes them all;
 * - nobufs: an alert the helper had no place for is told to be published again later
 *   (-EAGAIN), never at once (a loop between the two processes while its table is full);
 * - letgo: alerts let go past their max_age are counted once each when their outcome comes:
 *   published (the helper's count), failed when the helper could not take one or died
 *   first;
 * - silent: with a helper of 64 places, as latencyd-fleet's, and no PUBACK ever, let-go
 *   alerts never leave a new one without a place, on either side: the helper is told to
 *   forget the one whose place latencyd gives up;
 * - hang: a helper that sends nothing, not even its heartbeat, is killed and started again;
 * - deaf: one whose request loop sends no heartbeat while other records keep coming (its
 *   network thread's) is killed and started again all the same;
 * - stuck: a helper that closed its sockets or hangs silent, and that latencyd cannot kill
 *   (kill() refused, EPERM, as without CAP_KILL: linked with -Wl,--wrap=kill): status says
 *   the fleet is stuck, and a stop ends all the same, the helper left behind;
 * - restart: a helper that counted dropped messages dies, and the next one counts from zero:
 *   the counters latencyd shows never go back.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fleet-setup.h"
#include "fleet_client.h"
#include "fleet_spawn.h"
#include "fleet_wire.h"
#include "tests.h"

#define FLOOD	      300 /* more than fleet_client.c's NOTES_MAX (256) */
#define FLOOD_RECORDS (2 * FLOOD + 5)

static struct fleet_wire_event e;

static void send_full(uint32_t kind, uint64_t received, uint64_t malformed, bool connected,
		      const char *host)
{
	memset(&e, 0, sizeof(e));
	e.type = FLEET_WIRE_EVENT;
	e.ev.kind = kind;
	e.st.connected = connected;
	snprintf(e.ev.presence.host, sizeof(e.ev.presence.host), "%s", host);
	snprintf(e.ev.presence.group, sizeof(e.ev.presence.group), "lab");
	snprintf(e.ev.presence.state, sizeof(e.ev.presence.state), "%s", PROTO_FLEET_ONLINE);
	snprintf(e.st.user, sizeof(e.st.user), "nobody");
	e.st.received = received;
	e.st.malformed = malformed;
	if (send(FLEET_WIRE_EVENT_FD, &e, sizeof(e), MSG_NOSIGNAL) != sizeof(e))
		exit(3);
}

static void send_event(uint32_t kind, uint64_t received, uint64_t malformed)
{
	send_full(kind, received, malformed, false, "h2");
}

/* SEQ's outcome RC, with counters: RECEIVED records, PUBLISHED acknowledged. */
static void send_ack(uint32_t seq, int32_t rc, uint64_t received, uint64_t published)
{
	memset(&e, 0, sizeof(e));
	e.type = FLEET_WIRE_EVENT;
	e.ev.kind = FLEET_WIRE_ACK;
	e.st.connected = true;
	snprintf(e.st.user, sizeof(e.st.user), "nobody");
	e.st.received = received;
	e.st.published = published;
	e.seq = seq;
	e.rc = rc;
	if (send(FLEET_WIRE_EVENT_FD, &e, sizeof(e), MSG_NOSIGNAL) != sizeof(e))
		exit(3);
}

/* The next alert's request, or place to forget if FORGET; exits once latencyd says STOP or
 * goes. */
static struct fleet_wire_request *next_request(bool forget)
{
	static struct fleet_wire_request q;
	ssize_t n;

	while ((n = recv(FLEET_WIRE_REQUEST_FD, &q, sizeof(q), 0)) > 0 || (n < 0 && errno == EINTR))
		if (n > 0 &&
		    (q.type == FLEET_WIRE_PUBLISH_ALERT || (forget && q.type == FLEET_WIRE_FORGET)))
			return &q;
		else if (n > 0 && q.type == FLEET_WIRE_STOP)
			exit(0);
	exit(0);
}

/* The next alert's request. */
static uint32_t next_alert(void)
{
	return next_request(false)->seq;
}

/*
 * As latencyd-fleet keeps the alerts it handed on until their PUBACK, which never comes:
 * ALERTS_PLACES at most (helper/mqtt_internal.h: ALERT_MIDS), a place freed only when
 * latencyd says to forget it; past that, -ENOBUFS (mqtt.c: publish_request()). The counters
 * say how many requests it handled, 1 + that.
 */
#define ALERT_PLACES 64
static void no_puback(void)
{
	uint32_t places[ALERT_PLACES] = {0};
	uint64_t handled = 1;

	send_full(FLEET_CONNECTED, handled, 0, true, "h2");
	for (;;) {
		struct fleet_wire_request *q = next_request(true);
		int i = 0;

		while (i < ALERT_PLACES && places[i] != (q->type == FLEET_WIRE_FORGET ? q->seq : 0))
			i++;
		handled++;
		if (q->type == FLEET_WIRE_FORGET) {
			if (i < ALERT_PLACES)
				places[i] = 0;
			send_full(FLEET_WIRE_COUNTERS, handled, 0, true, "h2");
		} else if (i < ALERT_PLACES) {
			places[i] = q->seq;
			send_full(FLEET_WIRE_COUNTERS, handled, 0, true, "h2");
		} else {
			send_ack(q->seq, -ENOBUFS, handled, 0);
		}
	}
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

/* Until this test is gone, whatever latencyd says: a helper left behind does not outlive
 * it. */
static void linger(void)
{
	pid_t parent = getppid();

	while (getppid() == parent)
		sleep(1);
	exit(0);
}

static int fake_helper(void)
{
	static struct fleet_wire_settings s;
	const char *scenario = getenv("FAKE_FLEET"), *marker = getenv("FAKE_FLEET_MARKER");

	if (recv(FLEET_WIRE_REQUEST_FD, &s, sizeof(s), 0) != sizeof(s) ||
	    !fleet_wire_settings_check(&s, sizeof(s)) || !scenario)
		return 2;
	if (strcmp(scenario, "flood") == 0) {
		uint64_t i = 0;
		char host[16];

		send_full(FLEET_CONNECTED, ++i, 0, true, "h2");
		for (int k = 0; k < FLOOD; k++) /* the list full of errors */
			send_full(FLEET_ERROR, ++i, 0, true, "h2");
		/* Lost and back once the list is full; FLOOD members, h2 twice (latest wins). */
		send_full(FLEET_DISCONNECTED, ++i, 0, false, "h2");
		for (int k = 0; k < FLOOD; k++) {
			snprintf(host, sizeof(host), "m%d", k);
			send_full(FLEET_PRESENCE, ++i, 0, false, k ? host : "h2");
		}
		send_full(FLEET_CONNECTED, ++i, 0, true, "h2");
		memset(e.ev.presence.state, 0, sizeof(e.ev.presence.state));
		snprintf(e.ev.presence.state, sizeof(e.ev.presence.state), "%s",
			 PROTO_FLEET_OFFLINE);
		e.ev.kind = FLEET_PRESENCE;
		e.st.received = ++i;
		if (send(FLEET_WIRE_EVENT_FD, &e, sizeof(e), MSG_NOSIGNAL) != sizeof(e))
			exit(3);
		/* Not a note: seen in status once every record before it was handled. */
		send_full(FLEET_WIRE_COUNTERS, FLOOD_RECORDS, 0, true, "h2");
	} else if (strcmp(scenario, "presences") == 0) {
		send_full(FLEET_PRESENCE, 1, 0, false, "m1");
		send_full(FLEET_PRESENCE, 2, 0, false, "m2");
		send_full(FLEET_PRESENCE, 3, 0, false, "m1"); /* merged with the first */
		send_full(FLEET_WIRE_COUNTERS, 4, 0, false, "h2");
	} else if (strcmp(scenario, "nobufs") == 0) {
		send_full(FLEET_CONNECTED, 1, 0, true, "h2");
		for (;;)
			send_ack(next_alert(), -ENOBUFS, 2, 0);
	} else if (strcmp(scenario, "letgo") == 0 && access(marker, F_OK) < 0) {
		FILE *f = fopen(marker, "w"); /* the first helper: answers late, then dies */
		uint32_t seq[3];

		if (f)
			fclose(f);
		send_full(FLEET_CONNECTED, 1, 0, true, "h2");
		for (int i = 0; i < 3; i++)
			seq[i] = next_alert();
		next_alert(); /* latencyd let the three go before this one */
		send_ack(seq[0], 0, 1, 1);
		send_ack(seq[1], -ENOBUFS, 2, 1);
		return 0;
	} else if (strcmp(scenario, "letgo") == 0) {
		send_event(FLEET_WIRE_COUNTERS, 1, 0);
	} else if (strcmp(scenario, "silent") == 0) {
		no_puback();
	} else if (strcmp(scenario, "stuck") == 0) {
		send_full(FLEET_CONNECTED, 1, 0, true, "h2");
		next_alert(); /* then its sockets closed, as an exit begins, and no exit */
		close(FLEET_WIRE_REQUEST_FD);
		close(FLEET_WIRE_EVENT_FD);
		linger();
	} else if (strcmp(scenario, "stuck-silent") == 0) {
		send_full(FLEET_CONNECTED, 1, 0, true, "h2");
		linger(); /* deaf to STOP, silent, its sockets open */
	} else if (strcmp(scenario, "deaf") == 0 && access(marker, F_OK) < 0) {
		const struct timespec gap = {.tv_nsec = 200 * 1000 * 1000};
		FILE *f = fopen(marker, "w"); /* the first helper: counters, no heartbeat */

		if (f)
			fclose(f);
		for (;;) {
			send_event(FLEET_WIRE_COUNTERS, 1, 0);
			nanosleep(&gap, NULL);
		}
	} else if (strcmp(scenario, "deaf") == 0) {
		send_event(FLEET_WIRE_COUNTERS, 2, 0);
	} else if (strcmp(scenario, "hang") == 0 && access(marker, F_OK) < 0) {
		FILE *f = fopen(marker, "w"); /* the first helper: hangs, silent */

		if (f)
			fclose(f);
		send_event(FLEET_WIRE_COUNTERS, 1, 0);
		for (;;)
			pause();
	} else if (strcmp(scenario, "hang") == 0) {
		send_event(FLEET_WIRE_COUNTERS, 3, 0);
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

/* Polls F's status until RECEIVED, within TICKS of 10 ms. */
static bool received_within(struct fleet *f, uint64_t want, struct fleet_status *st, int ticks)
{
	const struct timespec tick = {.tv_nsec = 10 * 1000 * 1000};

	for (int i = 0; i < ticks; i++) {
		fleet_status(f, st);
		if (st->received == want && st->pid > 0)
			return true;
		nanosleep(&tick, NULL);
	}
	return false;
}

static bool received(struct fleet *f, uint64_t want, struct fleet_status *st)
{
	return received_within(f, want, st, 1000);
}

static void test_flood(void)
{
	struct fleet *f = start("flood");
	struct fleet_status st;
	struct fleet_link link;
	struct fleet_note *list;
	size_t n = 0, presences = 0, h2 = 0;

	ASSERT_TRUE(received(f, FLOOD_RECORDS, &st));
	list = fleet_take(f, &link);
	for (struct fleet_note *it = list; it; it = it->next) {
		n++;
		if (it->ev.kind != FLEET_PRESENCE)
			continue;
		presences++;
		if (strcmp(it->ev.presence.host, "h2") == 0) {
			h2++;
			ASSERT_STREQ(it->ev.presence.state, PROTO_FLEET_OFFLINE);
		}
	}
	fleet_note_free(list);
	/* 256 notes (a connection, then errors), then every member's latest presence. */
	ASSERT_EQ(n, 256 + FLOOD);
	ASSERT_EQ(presences, FLOOD);
	ASSERT_EQ(h2, 1);
	/* The errors and connection notes past the 256th dropped, counted. */
	ASSERT_EQ(st.notes_dropped, FLOOD + 3 - 256);
	/* ...but not the connection's changes. */
	ASSERT_TRUE(link.connected);
	ASSERT_EQ(link.connects, 2);
	ASSERT_EQ(link.losses, 1);
	fleet_free(f);
}

/* Presences with no other note before them: each member's latest, none lost. */
static void test_presences_alone(void)
{
	struct fleet *f = start("presences");
	struct fleet_status st;
	struct fleet_link link;
	struct fleet_note *list;
	size_t n = 0;

	ASSERT_TRUE(received(f, 4, &st));
	list = fleet_take(f, &link);
	for (struct fleet_note *it = list; it; it = it->next) {
		ASSERT_EQ(it->ev.kind, FLEET_PRESENCE);
		n++;
	}
	fleet_note_free(list);
	ASSERT_EQ(n, 2);
	ASSERT_EQ(st.notes_dropped, 0);
	fleet_free(f);
}

/* An alert published; again while the helper has not read the requests before it. */
static uint32_t publish(struct fleet *f, const char *incident)
{
	const struct timespec tick = {.tv_nsec = 10 * 1000 * 1000};
	struct proto_fleet_alert a = {0};
	uint32_t seq = 0;
	int r;

	snprintf(a.incident, sizeof(a.incident), "%s", incident);
	snprintf(a.tracker, sizeof(a.tracker), "syscalls");
	a.end_realtime_ns = 1;
	for (int i = 0; (r = fleet_publish_alert(f, &a, 1000000000ULL, &seq)) == -EAGAIN && i < 500;
	     i++)
		nanosleep(&tick, NULL);
	ASSERT_EQ(r, 0);
	ASSERT_TRUE(seq != 0);
	return seq;
}

/* The helper's "no place" for an alert: -EAGAIN, to publish again later, nothing failed. */
static void test_nobufs(void)
{
	const struct timespec tick = {.tv_nsec = 10 * 1000 * 1000};
	struct fleet *f = start("nobufs");
	struct fleet_status st;
	uint32_t seq;
	int r = 0;

	ASSERT_TRUE(received(f, 1, &st));
	seq = publish(f, "h1-1");
	for (int i = 0; i < 500 && (r = fleet_acked(f, seq)) == 0; i++)
		nanosleep(&tick, NULL);
	ASSERT_EQ(r, -EAGAIN);
	fleet_status(f, &st);
	ASSERT_EQ(st.publish_failed, 0);
	fleet_free(f);
}

/* A free name from TEMPLATE for FAKE_FLEET_MARKER: the first helper makes the file, which
 * tells the one started again apart. */
static void set_marker(char *template)
{
	int fd = mkstemp(template);

	ASSERT_TRUE(fd >= 0);
	close(fd);
	unlink(template);
	setenv("FAKE_FLEET_MARKER", template, 1);
}

/*
 * Three alerts let go: the first acknowledged late (published, the helper's count), the
 * second not taken (failed here), the third lost with its helper (failed here); the fourth,
 * still awaited, is published again by its caller: not counted.
 */
static void test_let_go(void)
{
	char marker[] = "/tmp/test-fleet-client-XXXXXX";
	struct fleet_status st;
	struct fleet *f;
	uint32_t seq;

	set_marker(marker);
	f = start("letgo");
	ASSERT_TRUE(received(f, 1, &st));
	for (int i = 0; i < 3; i++)
		fleet_publish_let_go(f, publish(f, "h1-1"));
	seq = publish(f, "h1-2");
	/* 2 from the first helper, 1 from the next: counted once the first is gone. */
	ASSERT_TRUE(received(f, 3, &st));
	ASSERT_TRUE(st.restarts >= 1);
	ASSERT_EQ(st.published, 1);
	ASSERT_EQ(st.publish_failed, 2);
	ASSERT_EQ(fleet_acked(f, seq), -ENOTCONN);
	fleet_free(f);
	unlink(marker);
}

/*
 * A broker that never acknowledges: the alerts let go give their places up to new ones,
 * here and in the helper, which is told to forget each (a FORGET, then the publish). Twice
 * as many as the places, and one more: the last still has its place in the helper, awaited.
 */
static void test_let_go_full(void)
{
	struct fleet *f = start("silent");
	struct fleet_status st;
	uint32_t seq = 0;

	ASSERT_TRUE(received(f, 1, &st));
	for (int i = 0; i < 2 * ALERT_PLACES; i++) /* fleet_client.c's INFLIGHT_MAX */
		fleet_publish_let_go(f, publish(f, "h1-1"));
	seq = publish(f, "h1-2");
	/* 1, then the publishes and the ALERT_PLACES + 1 forgets, all handled. */
	ASSERT_TRUE(received(f, 1 + 2 * ALERT_PLACES + 1 + ALERT_PLACES + 1, &st));
	ASSERT_EQ(fleet_acked(f, seq), 0);
	ASSERT_EQ(st.publish_failed, ALERT_PLACES + 1);
	fleet_free(f);
}

/* A helper in MODE killed without its heartbeat (FLEET_WIRE_SILENCE_NS, 10 s) and started
 * again, with no publish to find it out: RECORDS counters come in all, the second helper's
 * over the first's. */
static void killed_unheard(const char *mode, unsigned records)
{
	char marker[] = "/tmp/test-fleet-client-XXXXXX";
	struct fleet_status st;
	struct fleet *f;

	set_marker(marker);
	f = start(mode);
	ASSERT_TRUE(received_within(f, records, &st, 3000));
	ASSERT_TRUE(st.restarts >= 1);
	fleet_free(f);
	unlink(marker);
}

/* Silent, not even a heartbeat: 1 + 3 records. */
static void test_hang(void)
{
	killed_unheard("hang", 4);
}

static atomic_bool refuse_kill;

int __real_kill(pid_t pid, int sig);
int __wrap_kill(pid_t pid, int sig);

/* fleet_client.c's kill(): a SIGKILL refused while refuse_kill is set, as to a latencyd
 * without CAP_KILL killing its helper, which runs as another user. */
int __wrap_kill(pid_t pid, int sig)
{
	if (atomic_load(&refuse_kill) && sig == SIGKILL) {
		errno = EPERM;
		return -1;
	}
	return __real_kill(pid, sig);
}

static void *free_fleet(void *f)
{
	fleet_free(f);
	return NULL;
}

/* fleet_free(F) must return: bounded far past its own bounds (3 s, then 2 s), it fails
 * here rather than hang. */
static void free_bounded(struct fleet *f)
{
	struct timespec until;
	pthread_t t;

	ASSERT_EQ(pthread_create(&t, NULL, free_fleet, f), 0);
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += 60;
	ASSERT_EQ(pthread_timedjoin_np(t, NULL, &until), 0);
}

/* The helper left behind, PID, killed for good, kills allowed again. */
static void reap_left(pid_t pid)
{
	atomic_store(&refuse_kill, false);
	ASSERT_EQ(kill(pid, SIGKILL), 0);
	ASSERT_EQ(waitpid(pid, NULL, 0), pid);
}

/*
 * A helper that closed its sockets and never exits, which latencyd cannot kill: status says
 * the fleet is stuck, naming it; a stop ends all the same, leaving it behind.
 */
static void test_stuck(void)
{
	const struct timespec tick = {.tv_nsec = 10 * 1000 * 1000};
	struct fleet *f = start("stuck");
	struct fleet_status st;
	char want[64];
	pid_t pid;
	int i;

	ASSERT_TRUE(received(f, 1, &st));
	pid = st.pid;
	atomic_store(&refuse_kill, true);
	publish(f, "h1-1");
	snprintf(want, sizeof(want), "latencyd-fleet (pid %d) did not exit and cannot be killed",
		 (int)pid);
	for (i = 0; i < 3000 && (fleet_status(f, &st), !strstr(st.detail, want)); i++)
		nanosleep(&tick, NULL);
	ASSERT_TRUE(strstr(st.detail, want) != NULL);
	ASSERT_TRUE(strstr(st.detail, "the fleet is stuck") != NULL);
	ASSERT_TRUE(!st.connected);
	free_bounded(f);
	reap_left(pid);
}

/* One deaf to STOP and silent, its sockets open: the stop wakes the reader, and ends. */
static void test_stuck_silent(void)
{
	struct fleet *f = start("stuck-silent");
	struct fleet_status st;

	ASSERT_TRUE(received(f, 1, &st));
	atomic_store(&refuse_kill, true);
	free_bounded(f);
	reap_left(st.pid);
}

/* Records every 200 ms, none a heartbeat: 1 + 2 records. */
static void test_deaf(void)
{
	killed_unheard("deaf", 3);
}

static void test_restart(void)
{
	char marker[] = "/tmp/test-fleet-client-XXXXXX";
	struct fleet_status st;
	struct fleet *f;

	set_marker(marker);
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
	test_presences_alone();
	test_nobufs();
	test_let_go();
	test_let_go_full();
	test_restart();
	test_hang();
	test_deaf();
	test_stuck();
	test_stuck_silent();
	printf("fleet-client: ok\n");
	return 0;
}
