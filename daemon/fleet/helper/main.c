/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * latencyd-fleet: the fleet's MQTT client, started by latencyd with two sockets
 * (fleet_wire.h), never by hand. It takes its settings, leaves root (privdrop.c), then
 * serves latencyd's publish requests while its network thread hands peers' messages on.
 * It ends when latencyd says so or goes away.
 */
#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "fleet_wire.h"
#include "log.h"
#include "mqtt.h"
#include "privdrop.h"

#define SETTINGS_WAIT_MS 10000

static bool is_seqpacket(int fd)
{
	int type = 0;
	socklen_t len = sizeof(type);

	return getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len) == 0 && type == SOCK_SEQPACKET;
}

static int read_settings(struct fleet_wire_settings *s)
{
	struct pollfd p = {.fd = FLEET_WIRE_REQUEST_FD, .events = POLLIN};
	ssize_t n;

	if (poll(&p, 1, SETTINGS_WAIT_MS) != 1)
		return -ETIMEDOUT;
	n = recv(FLEET_WIRE_REQUEST_FD, s, sizeof(*s), 0);
	return fleet_wire_settings_check(s, n < 0 ? 0 : (size_t)n) ? 0 : -EINVAL;
}

/* Why this process cannot go on, for latencyd's status and log: it exits next. */
static void tell(const char *user, const char *why)
{
	struct fleet_wire_event e = {.type = FLEET_WIRE_EVENT, .ev.kind = FLEET_DISCONNECTED};

	snprintf(e.ev.detail, sizeof(e.ev.detail), "%s", why);
	snprintf(e.st.detail, sizeof(e.st.detail), "%s", why);
	snprintf(e.st.user, sizeof(e.st.user), "%s", user);
	if (send(FLEET_WIRE_EVENT_FD, &e, sizeof(e), MSG_NOSIGNAL) < 0) {
		/* latencyd is gone too */
	}
}

/*
 * latencyd's descriptors that were not close-on-exec: liblttng-ctl's sessiond sockets and
 * libbabeltrace2's snapshot files (fopen "rb") come here if a spawn races with them. The
 * process that parses the network must hold none of them, so all but its own two go,
 * while it still runs as the user that opened them. close_range(2) is Linux 5.9; older
 * kernels get a walk of /proc/self/fd.
 */
static int close_inherited(void)
{
	struct dirent *e;
	DIR *d;

	if (close_range(FLEET_WIRE_EVENT_FD + 1, ~0U, 0) == 0)
		return 0;
	if (errno != ENOSYS)
		return -errno;
	d = opendir("/proc/self/fd");
	if (!d)
		return -errno;
	while ((e = readdir(d))) {
		char *end;
		long fd = strtol(e->d_name, &end, 10);

		if (*end || end == e->d_name || fd <= FLEET_WIRE_EVENT_FD || fd == dirfd(d))
			continue;
		close((int)fd);
	}
	closedir(d);
	return 0;
}

/*
 * latencyd's requests until STOP or its end of the socket closes; this host's presence
 * renewed meanwhile, and this loop's heartbeat sent every FLEET_WIRE_HEARTBEAT_NS, with the
 * counters (mqtt_flush()). An alert's outcome goes on the event socket (FLEET_WIRE_ACK): at
 * once when it was not handed on, else with its PUBACK (mqtt.c); latencyd never waits for
 * it.
 */
static void serve(struct mqtt *m)
{
	struct fleet_wire_request q;

	for (;;) {
		struct pollfd p = {.fd = FLEET_WIRE_REQUEST_FD, .events = POLLIN};
		int renew = mqtt_renew(m), r;
		ssize_t n;

		mqtt_flush(m);
		if (poll(&p, 1, renew < 1000 ? renew : 1000) == 0)
			continue;
		n = recv(FLEET_WIRE_REQUEST_FD, &q, sizeof(q), 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0 || !fleet_wire_request_check(&q, (size_t)n) || q.type == FLEET_WIRE_STOP)
			return;
		if (q.type == FLEET_WIRE_FORGET) {
			mqtt_forget(m, q.seq);
			continue;
		}
		r = mqtt_publish(m, &q);
		if (r < 0)
			mqtt_not_taken(m, &q, r);
	}
}

int main(int argc, char *argv[])
{
	static struct fleet_wire_settings s;
	char user[33], why[256];
	struct mqtt *m = NULL;
	int r;

	(void)argv;
	signal(SIGPIPE, SIG_IGN);
	log_init("latencyd-fleet", LOG_INFO);
	if (argc != 1 || !is_seqpacket(FLEET_WIRE_REQUEST_FD) ||
	    !is_seqpacket(FLEET_WIRE_EVENT_FD)) {
		fprintf(stderr, "latencyd-fleet is started by latencyd (fleet.enabled), not by "
				"hand\n");
		return 2;
	}
	r = close_inherited();
	if (r < 0)
		return log_warn_errno(r, "cannot close the descriptors inherited from latencyd"), 1;
	r = read_settings(&s);
	if (r < 0)
		return log_warn_errno(r, "no settings from latencyd"), 1;
	r = privdrop(s.user, user, sizeof(user), why, sizeof(why));
	if (why[0])
		log_warnx("%s", why);
	if (r < 0)
		return tell("root", why), 1;
	/* After the drop: a change of credentials clears it. */
	prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
	r = mqtt_new(&s, FLEET_WIRE_EVENT_FD, user, &m, why, sizeof(why));
	explicit_bzero(s.password, sizeof(s.password)); /* libmosquitto has its copy */
	if (r >= 0)
		r = mqtt_start(m);
	if (r < 0) {
		/* latencyd says it, and starts this again later: a file made readable counts. */
		tell(user, why[0] ? why : strerror(-r));
		mqtt_free(m);
		return 1;
	}
	serve(m);
	mqtt_free(m);
	return 0;
}
