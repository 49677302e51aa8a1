// SPDX-License-Identifier: GPL-2.0-only
/*
 * The relayd probe against loopback sockets that behave like the relayds that hurt: a port
 * nobody listens on, a listener that never accepts (a stopped relayd: the kernel completes
 * the handshake, nothing answers), a full accept queue (a host that drops the SYN), one that
 * closes, one speaking another major version, and one answering as lttng-relayd does.
 */
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "relayd_probe.h"
#include "tests.h"

#define MS (UINT64_C(1000000))

static void test_url(void)
{
	char host[64];
	unsigned port;

	ASSERT_EQ(relayd_url_control("net://10.0.0.5", host, sizeof(host), &port), 0);
	ASSERT_STREQ(host, "10.0.0.5");
	ASSERT_EQ(port, 5342);
	ASSERT_EQ(relayd_url_control("net://127.0.0.1:7000:7001/a/b", host, sizeof(host), &port),
		  0);
	ASSERT_STREQ(host, "127.0.0.1");
	ASSERT_EQ(port, 7000);
	ASSERT_EQ(relayd_url_control("net6://[::1]:6000", host, sizeof(host), &port), 0);
	ASSERT_STREQ(host, "::1");
	ASSERT_EQ(port, 6000);
	ASSERT_EQ(relayd_url_control("tcp://collector/x", host, sizeof(host), &port), 0);
	ASSERT_STREQ(host, "collector");
	ASSERT_EQ(port, 5342);
	ASSERT_EQ(relayd_url_control("file:///tmp", host, sizeof(host), &port), -EINVAL);
	ASSERT_EQ(relayd_url_control("net://", host, sizeof(host), &port), -EINVAL);
	ASSERT_EQ(relayd_url_control("net://h:0", host, sizeof(host), &port), -EINVAL);
	ASSERT_EQ(relayd_url_control("net://h:70000", host, sizeof(host), &port), -EINVAL);
	ASSERT_EQ(relayd_url_control("net://h:12x", host, sizeof(host), &port), -EINVAL);
	ASSERT_EQ(relayd_url_control("net6://[::1", host, sizeof(host), &port), -EINVAL);
}

/* A listening socket on 127.0.0.1, its port in *port. */
static int listener(int backlog, unsigned *port)
{
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t len = sizeof(sa);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	ASSERT_TRUE(fd >= 0);
	ASSERT_EQ(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	ASSERT_EQ(listen(fd, backlog), 0);
	ASSERT_EQ(getsockname(fd, (struct sockaddr *)&sa, &len), 0);
	*port = ntohs(sa.sin_port);
	return fd;
}

static void resolve(unsigned port, struct relayd_addr *a)
{
	char url[64], why[256];

	snprintf(url, sizeof(url), "net://127.0.0.1:%u:%u", port, port + 1);
	ASSERT_EQ(relayd_addr_resolve(url, a, why, sizeof(why)), 0);
}

static uint64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

struct fake {
	int lfd;
	uint32_t major; /* 0: close without answering */
	int seen_cmd;
};

/* One connection served as lttng-relayd's control port serves the version command. */
static void *serve(void *arg)
{
	struct fake *f = arg;
	unsigned char msg[32];
	size_t got = 0;
	int fd = accept(f->lfd, NULL, NULL);

	ASSERT_TRUE(fd >= 0);
	while (got < sizeof(msg)) {
		ssize_t n = recv(fd, msg + got, sizeof(msg) - got, 0);

		ASSERT_TRUE(n > 0);
		got += (size_t)n;
	}
	{
		uint32_t cmd, major;
		uint64_t size;

		memcpy(&size, msg + 8, 8);
		memcpy(&cmd, msg + 16, 4);
		memcpy(&major, msg + 24, 4);
		ASSERT_EQ(be64toh(size), 8);
		ASSERT_EQ(be32toh(major), 2);
		f->seen_cmd = (int)be32toh(cmd);
	}
	if (f->major) {
		uint32_t reply[2] = {htobe32(f->major), htobe32(13)};

		ASSERT_EQ(send(fd, reply, sizeof(reply), MSG_NOSIGNAL), (ssize_t)sizeof(reply));
	}
	close(fd);
	return NULL;
}

static int probe_fake(uint32_t major, char *why, size_t whylen, int *cmd)
{
	struct fake f = {.major = major};
	struct relayd_addr a;
	pthread_t t;
	unsigned port;
	int r;

	f.lfd = listener(4, &port);
	resolve(port, &a);
	ASSERT_EQ(pthread_create(&t, NULL, serve, &f), 0);
	r = relayd_probe(&a, 2000 * MS, why, whylen);
	pthread_join(t, NULL);
	close(f.lfd);
	*cmd = f.seen_cmd;
	return r;
}

int main(void)
{
	struct relayd_addr a;
	char why[512];
	unsigned port;
	uint64_t t0, took;
	int lfd, filler, cmd;

	test_url();

	/* Nobody listens: refused at once. */
	lfd = listener(1, &port);
	close(lfd);
	resolve(port, &a);
	ASSERT_EQ(relayd_probe(&a, 1000 * MS, why, sizeof(why)), -ECONNREFUSED);
	ASSERT_TRUE(strstr(why, "refused") != NULL);

	/* Accepted by the kernel, never answered: the probe gives up at its limit. */
	lfd = listener(4, &port);
	resolve(port, &a);
	t0 = mono_ms();
	ASSERT_EQ(relayd_probe(&a, 300 * MS, why, sizeof(why)), -ETIMEDOUT);
	took = mono_ms() - t0;
	fprintf(stderr, "silent listener: %s (%llu ms)\n", why, (unsigned long long)took);
	ASSERT_TRUE(strstr(why, "did not answer within 300ms") != NULL);
	ASSERT_TRUE(took >= 290); /* not before its limit */

	/* The accept queue full: the SYN is dropped, as by a host that never answers. */
	close(lfd);
	lfd = listener(0, &port);
	resolve(port, &a);
	filler = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	ASSERT_EQ(connect(filler, (struct sockaddr *)&a.sa, a.len), 0);
	usleep(50000);
	t0 = mono_ms();
	ASSERT_EQ(relayd_probe(&a, 300 * MS, why, sizeof(why)), -ETIMEDOUT);
	took = mono_ms() - t0;
	fprintf(stderr, "full accept queue: %s (%llu ms)\n", why, (unsigned long long)took);
	ASSERT_TRUE(strstr(why, "within 300ms") != NULL);
	ASSERT_TRUE(took >= 290); /* not before its limit */
	close(filler);
	close(lfd);

	/* Closed without an answer, another major version, and a relayd's answer. */
	ASSERT_EQ(probe_fake(0, why, sizeof(why), &cmd), -ECONNRESET);
	ASSERT_EQ(cmd, 5);
	ASSERT_EQ(probe_fake(3, why, sizeof(why), &cmd), -EPROTO);
	ASSERT_TRUE(strstr(why, "protocol 3.13") != NULL);
	why[0] = 0;
	ASSERT_EQ(probe_fake(2, why, sizeof(why), &cmd), 0);
	ASSERT_EQ(cmd, 5);
	return 0;
}
