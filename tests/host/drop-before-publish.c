// SPDX-License-Identifier: GPL-2.0-only
/*
 * drop-before-publish.so, preloaded into latencyd-fleet (LD_PRELOAD): its connection lost
 * between its check that the connection is up and its publish, every time. At the first
 * publish of an alert (a topic with "/alert/"), before libmosquitto's
 * mosquitto_publish_v5() runs, it shuts the client's socket down and waits until
 * libmosquitto's network thread has seen the end and closed it (mosquitto_socket() says -1,
 * which it does before it calls on_disconnect()); then the publish goes on. Every other
 * publish, and every process that makes none (latencyd, the application), is left alone.
 * libmosquitto is looked up, not linked: a process without it never calls this.
 */
#include <dlfcn.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include <mosquitto.h>

#define WAIT_MS 5000

typedef int publish_fn(struct mosquitto *mosq, int *mid, const char *topic, int payloadlen,
		       const void *payload, int qos, bool retain,
		       const mosquitto_property *properties);
typedef int socket_fn(struct mosquitto *mosq);

static void drop(struct mosquitto *mosq)
{
	const struct timespec tick = {.tv_nsec = 1000 * 1000};
	socket_fn *sock = (socket_fn *)dlsym(RTLD_DEFAULT, "mosquitto_socket");
	int fd = sock ? sock(mosq) : -1;

	if (fd < 0 || shutdown(fd, SHUT_RDWR) < 0) {
		fprintf(stderr, "drop-before-publish: no connection to drop\n");
		return;
	}
	for (int waited = 0; sock(mosq) >= 0; waited++) {
		if (waited == WAIT_MS) {
			fprintf(stderr, "drop-before-publish: the socket is still open\n");
			return;
		}
		nanosleep(&tick, NULL);
	}
	fprintf(stderr, "drop-before-publish: connection dropped before the publish\n");
}

int mosquitto_publish_v5(struct mosquitto *mosq, int *mid, const char *topic, int payloadlen,
			 const void *payload, int qos, bool retain,
			 const mosquitto_property *properties)
{
	static bool dropped;
	publish_fn *real = (publish_fn *)dlsym(RTLD_NEXT, "mosquitto_publish_v5");

	if (!real)
		return MOSQ_ERR_UNKNOWN;
	if (!dropped && topic && strstr(topic, "/alert/")) {
		dropped = true;
		drop(mosq);
	}
	return real(mosq, mid, topic, payloadlen, payload, qos, retain, properties);
}
