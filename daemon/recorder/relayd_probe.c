// SPDX-License-Identifier: GPL-2.0-only
/*
 * The probe speaks the first command of lttng-relayd's control protocol (lttng-tools'
 * src/common/sessiond-comm/relayd.h): a header, then the version the client speaks; relayd
 * answers with its own version and adapts to the lower minor. Nothing else is sent: the
 * probe creates nothing on relayd, which sees a client that closed after the handshake.
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "relayd_probe.h"

#define RELAYD_CMD_VERSION 5 /* enum lttcomm_relayd_command */
#define RELAYD_MAJOR	   2 /* only the major version has to match */
#define RELAYD_MINOR	   13

struct relayd_hdr {
	uint64_t circuit_id;
	uint64_t data_size;
	uint32_t cmd;
	uint32_t cmd_version;
} __attribute__((packed));

struct relayd_version {
	uint32_t major;
	uint32_t minor;
} __attribute__((packed));

int relayd_url_control(const char *url, char *host, size_t size, unsigned *port)
{
	const char *p, *end;
	unsigned long v = RELAYD_CONTROL_PORT_DEFAULT;
	size_t n;

	if (strncmp(url, "net://", 6) == 0 || strncmp(url, "tcp://", 6) == 0)
		p = url + 6;
	else if (strncmp(url, "net6://", 7) == 0 || strncmp(url, "tcp6://", 7) == 0)
		p = url + 7;
	else
		return -EINVAL;
	if (*p == '[') {
		end = strchr(++p, ']');
		if (!end)
			return -EINVAL;
		n = (size_t)(end - p);
		end++;
	} else {
		n = strcspn(p, ":/");
		end = p + n;
	}
	if (n == 0 || n >= size)
		return -EINVAL;
	memcpy(host, p, n);
	host[n] = 0;
	if (*end == ':') {
		char *e;

		errno = 0;
		v = strtoul(end + 1, &e, 10);
		if (errno || e == end + 1 || v == 0 || v > 65535 || (*e && *e != ':' && *e != '/'))
			return -EINVAL;
	} else if (*end && *end != '/') {
		return -EINVAL;
	}
	*port = (unsigned)v;
	return 0;
}

int relayd_addr_resolve(const char *url, struct relayd_addr *a, char *why, size_t whylen)
{
	struct addrinfo hints = {.ai_socktype = SOCK_STREAM}, *res = NULL;
	char host[256], port[8];
	unsigned p;
	int r;

	memset(a, 0, sizeof(*a));
	if (relayd_url_control(url, host, sizeof(host), &p) < 0) {
		snprintf(why, whylen, "'%s' is not an LTTng network URL", url);
		return -EINVAL;
	}
	hints.ai_family = strncmp(url, "net6://", 7) == 0 || strncmp(url, "tcp6://", 7) == 0
				  ? AF_INET6
				  : AF_UNSPEC;
	snprintf(port, sizeof(port), "%u", p);
	snprintf(a->where, sizeof(a->where), strchr(host, ':') ? "[%s]:%u" : "%s:%u", host, p);
	r = getaddrinfo(host, port, &hints, &res);
	if (r != 0 || !res || res->ai_addrlen > sizeof(a->sa)) {
		snprintf(why, whylen, "cannot resolve %s: %s", host,
			 r ? gai_strerror(r) : "no address");
		if (res)
			freeaddrinfo(res);
		return -EHOSTUNREACH;
	}
	/* sessiond connects to the first address too (lttng-tools' uri.c). */
	memcpy(&a->sa, res->ai_addr, res->ai_addrlen);
	a->len = res->ai_addrlen;
	freeaddrinfo(res);
	return 0;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Waits for EVENTS on fd until deadline: 1 ready, 0 timed out, < 0 -errno. */
static int wait_fd(int fd, short events, uint64_t deadline)
{
	struct pollfd p = {.fd = fd, .events = events};

	for (;;) {
		uint64_t now = mono_ns();
		int ms, r;

		if (now >= deadline)
			return 0;
		/* Rounded up: poll(0) would spin through the last millisecond. */
		ms = (int)((deadline - now + 999999) / 1000000);
		r = poll(&p, 1, ms);
		if (r > 0)
			return 1;
		if (r < 0 && errno != EINTR)
			return -errno;
	}
}

static void timeout_text(uint64_t ns, char *buf, size_t size)
{
	if (ns % 1000000000u == 0)
		snprintf(buf, size, "%" PRIu64 "s", ns / 1000000000u);
	else
		snprintf(buf, size, "%" PRIu64 "ms", ns / 1000000);
}

int relayd_probe(const struct relayd_addr *a, uint64_t timeout_ns, char *why, size_t whylen)
{
	struct {
		struct relayd_hdr h;
		struct relayd_version v;
	} __attribute__((packed)) msg = {
		.h = {.data_size = htobe64(sizeof(struct relayd_version)),
		      .cmd = htobe32(RELAYD_CMD_VERSION)},
		.v = {.major = htobe32(RELAYD_MAJOR), .minor = htobe32(RELAYD_MINOR)},
	};
	struct relayd_version reply;
	uint64_t deadline = mono_ns() + timeout_ns;
	char limit[32];
	size_t got = 0;
	ssize_t sent;
	socklen_t len = sizeof(int);
	int fd, r, err = 0;
	const char *step = "connect";

	timeout_text(timeout_ns, limit, sizeof(limit));
	fd = socket(a->sa.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		r = -errno;
		snprintf(why, whylen, "cannot make a socket for lttng-relayd at %s: %s", a->where,
			 strerror(-r));
		return r;
	}
	if (connect(fd, (const struct sockaddr *)&a->sa, a->len) < 0) {
		if (errno != EINPROGRESS) {
			r = -errno;
			goto failed;
		}
		/* A host that drops the SYN: the kernel would retry for minutes. */
		r = wait_fd(fd, POLLOUT, deadline);
		if (r <= 0)
			goto failed;
		if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) < 0 || err) {
			r = -(err ? err : errno);
			goto failed;
		}
	}
	step = "version";
	/* 32 bytes on a new connection: the send buffer is empty, this does not block. */
	sent = send(fd, &msg, sizeof(msg), MSG_NOSIGNAL);
	if (sent >= 0 && sent != (ssize_t)sizeof(msg)) {
		close(fd);
		snprintf(why, whylen, "lttng-relayd at %s: version exchange: short write",
			 a->where);
		return -EIO;
	}
	if (sent < 0) {
		r = -errno;
		goto failed;
	}
	while (got < sizeof(reply)) {
		ssize_t n;

		r = wait_fd(fd, POLLIN, deadline);
		if (r <= 0)
			goto failed;
		n = recv(fd, (char *)&reply + got, sizeof(reply) - got, 0);
		if (n == 0) {
			r = -ECONNRESET;
			goto failed;
		}
		if (n < 0 && errno != EAGAIN && errno != EINTR) {
			r = -errno;
			goto failed;
		}
		if (n > 0)
			got += (size_t)n;
	}
	close(fd);
	if (be32toh(reply.major) != RELAYD_MAJOR) {
		snprintf(why, whylen,
			 "lttng-relayd at %s speaks protocol %" PRIu32 ".%" PRIu32 ", not %d.x",
			 a->where, be32toh(reply.major), be32toh(reply.minor), RELAYD_MAJOR);
		return -EPROTO;
	}
	return 0;
failed:
	close(fd);
	if (r == 0) {
		snprintf(why, whylen, "lttng-relayd at %s did not %s within %s", a->where,
			 step[0] == 'c' ? "accept the connection" : "answer", limit);
		return -ETIMEDOUT;
	}
	snprintf(why, whylen, "lttng-relayd at %s: %s%s", a->where,
		 step[0] == 'c' ? "" : "version exchange: ", strerror(-r));
	return r;
}
