/*
 * lt-rpc: a request/reply pair over TCP (or UDP) between two hosts, for the cross-host
 * analysis.
 *   lt-rpc server PORT timer|disk|echo [DEV]  answers each 16-byte request after waiting
 *                                  50 ms on a timer, or on one O_DIRECT read of DEV, or at once
 *   lt-rpc client ADDR PORT COUNT  sends COUNT requests, each time blocked in read until
 *                                  the reply comes
 *   lt-rpc middle PORT ADDR BPORT  a middle tier over TCP: each request is asked in turn of
 *                                  the back end at ADDR:BPORT (an lt-rpc server), its reply
 *                                  passed back (named rpc-middle)
 *   lt-rpc udp-server PORT         the same over UDP, IPv4 or IPv6, on a timer
 *   lt-rpc udp-client ADDR PORT COUNT  the client over a connected UDP socket (read, write)
 *                                  to an IPv4 or an IPv6 ADDR
 * The server prints "server=TID" once listening, the client "client=TID" and "ns=N" (the
 * COUNT round trips' time, for bench/net-bench.sh) at the end. Their names are rpc-server
 * and rpc-client (for the trackers' filter_comm).
 */
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#define MSG 16

static int full(int fd, char *buf, int write_it)
{
	for (size_t n = 0; n < MSG;) {
		ssize_t r = write_it ? write(fd, buf + n, MSG - n) : read(fd, buf + n, MSG - n);

		if (r <= 0)
			return -1;
		n += (size_t)r;
	}
	return 0;
}

static int wait_disk(int fd, int k)
{
	void *buf;
	int r;

	if (posix_memalign(&buf, 4096, 4096))
		return -1;
	/* A different block each time: nothing cached below O_DIRECT either. */
	r = pread(fd, buf, 4096, (off_t)(k % 1000) * 8192) == 4096 ? 0 : -1;
	free(buf);
	return r;
}

/* A TCP connection to ADDR:PORT, without Nagle; -1 on failure (said). */
static int dial(const char *addr, int port)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((unsigned short)port)};
	int one = 1, fd = socket(AF_INET, SOCK_STREAM, 0);

	if (fd < 0 || inet_pton(AF_INET, addr, &a.sin_addr) != 1 ||
	    connect(fd, (struct sockaddr *)&a, sizeof(a)) < 0) {
		perror("lt-rpc: connect");
		if (fd >= 0)
			close(fd);
		return -1;
	}
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return fd;
}

/*
 * Listens on PORT, says "WHO=TID", and answers each request of each connection in turn:
 * ANSWER (the wait, or the back end asked) on the request in BUF, then the reply. Returns
 * only on a failure.
 */
static int serve(int port, const char *who, int (*answer)(char *buf, void *arg), void *arg)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((unsigned short)port)};
	int one = 1, ls = socket(AF_INET, SOCK_STREAM, 0);
	char buf[MSG];

	setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (ls < 0 || bind(ls, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(ls, 4) < 0) {
		perror("lt-rpc: listen");
		return 1;
	}
	printf("%s=%d\n", who, gettid());
	fflush(stdout);
	for (;;) {
		int c = accept(ls, NULL, NULL);

		if (c < 0)
			return 1;
		setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		while (full(c, buf, 0) == 0) {
			if (answer(buf, arg) < 0)
				return 1;
			if (full(c, buf, 1) < 0)
				break;
		}
		close(c);
	}
}

struct wait {
	const char *mode;
	int disk, k;
};

static int wait_then_reply(char *buf, void *arg)
{
	struct timespec ts = {0, 50 * 1000 * 1000};
	struct wait *w = arg;

	(void)buf;
	if (w->disk >= 0)
		return wait_disk(w->disk, w->k++);
	return strcmp(w->mode, "timer") == 0 ? nanosleep(&ts, NULL) : 0;
}

static int server(int port, const char *mode, const char *dev)
{
	struct wait w = {.mode = mode, .disk = -1};

	prctl(PR_SET_NAME, "rpc-server");
	if (strcmp(mode, "disk") == 0 && (!dev || (w.disk = open(dev, O_RDONLY | O_DIRECT)) < 0)) {
		perror(dev ? dev : "lt-rpc: disk mode needs DEV");
		return 1;
	}
	return serve(port, "server", wait_then_reply, &w);
}

/* The request asked of the back end (fd *ARG), its reply passed on. */
static int ask_back_end(char *buf, void *arg)
{
	int back = *(int *)arg;

	return full(back, buf, 1) < 0 || full(back, buf, 0) < 0 ? -1 : 0;
}

static int middle(int port, const char *addr, int bport)
{
	int back;

	prctl(PR_SET_NAME, "rpc-middle");
	if ((back = dial(addr, bport)) < 0)
		return 1;
	return serve(port, "middle", ask_back_end, &back);
}

static int client(const char *addr, int port, int count)
{
	char buf[MSG] = "request";
	struct timespec t0, t1;
	int fd;

	prctl(PR_SET_NAME, "rpc-client");
	if ((fd = dial(addr, port)) < 0)
		return 1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (int i = 0; i < count; i++)
		if (full(fd, buf, 1) < 0 || full(fd, buf, 0) < 0) {
			perror("lt-rpc: request");
			return 1;
		}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("client=%d\nns=%lld\n", gettid(),
	       (long long)(t1.tv_sec - t0.tv_sec) * 1000000000LL + (t1.tv_nsec - t0.tv_nsec));
	close(fd);
	return 0;
}

/* One socket for both families (IPv6, v4-mapped addresses too); replies with sendto(). */
static int udp_server(int port)
{
	struct sockaddr_in6 a = {.sin6_family = AF_INET6,
				 .sin6_port = htons((unsigned short)port),
				 .sin6_addr = IN6ADDR_ANY_INIT};
	struct timespec ts = {0, 50 * 1000 * 1000};
	int fd = socket(AF_INET6, SOCK_DGRAM, 0), zero = 0;
	struct sockaddr_storage peer;
	socklen_t len;
	char buf[MSG];

	prctl(PR_SET_NAME, "rpc-server");
	if (fd < 0 || setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero)) < 0 ||
	    bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0) {
		perror("lt-rpc: bind");
		return 1;
	}
	printf("server=%d\n", gettid());
	fflush(stdout);
	for (;;) {
		len = sizeof(peer);
		if (recvfrom(fd, buf, sizeof(buf), 0, (struct sockaddr *)&peer, &len) < 0 ||
		    nanosleep(&ts, NULL) < 0 ||
		    sendto(fd, buf, sizeof(buf), 0, (struct sockaddr *)&peer, len) < 0)
			return 1;
	}
}

/* ADDR's family decides: an IPv4 address or an IPv6 one. */
static int udp_client(const char *addr, int port, int count)
{
	struct sockaddr_in a4 = {.sin_family = AF_INET, .sin_port = htons((unsigned short)port)};
	struct sockaddr_in6 a6 = {.sin6_family = AF_INET6,
				  .sin6_port = htons((unsigned short)port)};
	struct timeval limit = {.tv_sec = 5};
	int v6 = strchr(addr, ':') != NULL;
	int fd = socket(v6 ? AF_INET6 : AF_INET, SOCK_DGRAM, 0);
	char buf[MSG] = "request";

	prctl(PR_SET_NAME, "rpc-client");
	/* A datagram lost would block read for ever: the test fails instead. */
	if (fd < 0 ||
	    inet_pton(v6 ? AF_INET6 : AF_INET, addr, v6 ? (void *)&a6.sin6_addr : &a4.sin_addr) !=
		    1 ||
	    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof(limit)) < 0 ||
	    connect(fd, v6 ? (struct sockaddr *)&a6 : (struct sockaddr *)&a4,
		    v6 ? sizeof(a6) : sizeof(a4)) < 0) {
		perror("lt-rpc: connect");
		return 1;
	}
	for (int i = 0; i < count; i++)
		if (write(fd, buf, MSG) != MSG || read(fd, buf, MSG) != MSG) {
			perror("lt-rpc: request");
			return 1;
		}
	printf("client=%d\n", gettid());
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 5 && strcmp(argv[1], "middle") == 0)
		return middle(atoi(argv[2]), argv[3], atoi(argv[4]));
	if (argc == 3 && strcmp(argv[1], "udp-server") == 0)
		return udp_server(atoi(argv[2]));
	if (argc == 5 && strcmp(argv[1], "udp-client") == 0)
		return udp_client(argv[2], atoi(argv[3]), atoi(argv[4]));
	if (argc >= 4 && strcmp(argv[1], "server") == 0)
		return server(atoi(argv[2]), argv[3], argc > 4 ? argv[4] : NULL);
	if (argc == 5 && strcmp(argv[1], "client") == 0)
		return client(argv[2], atoi(argv[3]), atoi(argv[4]));
	fprintf(stderr,
		"usage: lt-rpc server PORT timer|disk|echo [DEV] | client ADDR PORT COUNT |\n"
		"       middle PORT ADDR BPORT |\n"
		"       udp-server PORT | udp-client ADDR PORT COUNT\n");
	return 2;
}
