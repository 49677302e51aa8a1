/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * relayd_probe.c: does an lttng-relayd answer? A TCP connection to its control port and the
 * protocol's version exchange, within a time limit. A stopped relayd, or a host whose
 * kernel completes the handshake for a process that never reads, accepts the connection
 * and says nothing: only the version answer tells a live relayd.
 */
#ifndef LATENCYD_RELAYD_PROBE_H
#define LATENCYD_RELAYD_PROBE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

/* LTTng's default control port (lttng-relayd(8)). */
#define RELAYD_CONTROL_PORT_DEFAULT 5342

struct relayd_addr {
	struct sockaddr_storage sa;
	socklen_t len;
	char where[300]; /* HOST:PORT as the URL gives it, for messages */
};

/*
 * The control host and port of an LTTng network URL: net://HOST[:CTRL[:DATA]][/PATH],
 * net6://, tcp://HOST[:PORT]; an IPv6 address in brackets. -EINVAL if it is none of these.
 */
int relayd_url_control(const char *url, char *host, size_t size, unsigned *port);
/* Resolves the URL's control address (getaddrinfo: may wait on DNS, not for the waiter). */
int relayd_addr_resolve(const char *url, struct relayd_addr *a, char *why, size_t whylen);
/*
 * Connects and exchanges versions, all within timeout_ns. 0: relayd answered; < 0: -errno
 * (-ETIMEDOUT: no answer in time), and WHY says what happened in a sentence.
 */
int relayd_probe(const struct relayd_addr *a, uint64_t timeout_ns, char *why, size_t whylen);

#endif /* LATENCYD_RELAYD_PROBE_H */
