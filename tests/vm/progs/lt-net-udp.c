/*
 * lt-net-udp [-6] [-c] PORT SPORT MS: a late UDP reader on loopback, for the net
 * tracker. Binds a socket to 127.0.0.1:PORT (-6: [::1]:PORT), has a child process send
 * one datagram to it from source port SPORT, waits MS milliseconds after it arrived,
 * then reads the datagram (-c: closes the socket without reading it, so the kernel
 * drops it). Prints "pid=PID" (the reader) and exits 0 on success.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static socklen_t addr_of(int v6, int port, struct sockaddr_storage *ss)
{
	memset(ss, 0, sizeof(*ss));
	if (v6) {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)ss;

		a->sin6_family = AF_INET6;
		a->sin6_port = htons((unsigned short)port);
		a->sin6_addr = in6addr_loopback;
		return sizeof(*a);
	} else {
		struct sockaddr_in *a = (struct sockaddr_in *)ss;

		a->sin_family = AF_INET;
		a->sin_port = htons((unsigned short)port);
		a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		return sizeof(*a);
	}
}

static int send_one(int v6, int port, int sport)
{
	struct sockaddr_storage src, dst;
	socklen_t len = addr_of(v6, sport, &src);
	int one = 1, fd = socket(v6 ? AF_INET6 : AF_INET, SOCK_DGRAM, 0);

	if (fd < 0)
		return 1;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&src, len) < 0) {
		perror("lt-net-udp: bind source");
		return 1;
	}
	len = addr_of(v6, port, &dst);
	if (sendto(fd, "latency", 7, 0, (struct sockaddr *)&dst, len) != 7) {
		perror("lt-net-udp: sendto");
		return 1;
	}
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	int opt, v6 = 0, drop = 0, port, sport, ms, fd, status;
	struct sockaddr_storage ss;
	struct timespec ts;
	char buf[64];
	socklen_t len;
	pid_t child;

	while ((opt = getopt(argc, argv, "6c")) != -1) {
		if (opt == '6')
			v6 = 1;
		else if (opt == 'c')
			drop = 1;
		else
			return 2;
	}
	if (argc - optind != 3) {
		fprintf(stderr, "usage: lt-net-udp [-6] [-c] PORT SPORT MS\n");
		return 2;
	}
	port = atoi(argv[optind]);
	sport = atoi(argv[optind + 1]);
	ms = atoi(argv[optind + 2]);
	fd = socket(v6 ? AF_INET6 : AF_INET, SOCK_DGRAM, 0);
	if (fd < 0) {
		perror("lt-net-udp: socket");
		return 77;
	}
	len = addr_of(v6, port, &ss);
	if (bind(fd, (struct sockaddr *)&ss, len) < 0) {
		perror("lt-net-udp: bind");
		return 77;
	}
	child = fork();
	if (child < 0)
		return 1;
	if (child == 0)
		_exit(send_one(v6, port, sport));
	if (waitpid(child, &status, 0) != child || !WIFEXITED(status) || WEXITSTATUS(status))
		return 1;
	/* The late read starts when the datagram has arrived (softirqs may defer it). */
	if (poll(&(struct pollfd){.fd = fd, .events = POLLIN}, 1, 5000) != 1) {
		fprintf(stderr, "lt-net-udp: no datagram\n");
		return 1;
	}
	ts.tv_sec = ms / 1000;
	ts.tv_nsec = (long)(ms % 1000) * 1000000L;
	nanosleep(&ts, NULL);
	if (!drop && recv(fd, buf, sizeof(buf), 0) != 7) {
		perror("lt-net-udp: recv");
		return 1;
	}
	close(fd);
	printf("pid=%d\n", (int)getpid());
	return 0;
}
