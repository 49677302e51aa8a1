/*
 * lt-net-tcp PORT SPORT MS: a late TCP reader on loopback, for the net tracker. Listens
 * on 127.0.0.1:PORT; a child process connects from source port SPORT and sends one
 * segment of data; the reader waits MS milliseconds after the segment arrived, then
 * reads it. Prints "pid=PID" (the reader) and exits 0 on success.
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

static void addr_of(int port, struct sockaddr_in *a)
{
	memset(a, 0, sizeof(*a));
	a->sin_family = AF_INET;
	a->sin_port = htons((unsigned short)port);
	a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
}

/* Connects, sends, then waits for the reader to close. */
static int client(int port, int sport)
{
	struct sockaddr_in src, dst;
	int one = 1, fd = socket(AF_INET, SOCK_STREAM, 0);
	char c;

	if (fd < 0)
		return 1;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	addr_of(sport, &src);
	addr_of(port, &dst);
	if (bind(fd, (struct sockaddr *)&src, sizeof(src)) < 0 ||
	    connect(fd, (struct sockaddr *)&dst, sizeof(dst)) < 0) {
		perror("lt-net-tcp: client");
		return 1;
	}
	if (send(fd, "latency", 7, 0) != 7)
		return 1;
	while (recv(fd, &c, 1, 0) > 0)
		;
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	int one = 1, port, sport, ms, lfd, fd, status;
	struct sockaddr_in a;
	struct timespec ts;
	char buf[64];
	pid_t child;

	if (argc != 4) {
		fprintf(stderr, "usage: lt-net-tcp PORT SPORT MS\n");
		return 2;
	}
	port = atoi(argv[1]);
	sport = atoi(argv[2]);
	ms = atoi(argv[3]);
	lfd = socket(AF_INET, SOCK_STREAM, 0);
	if (lfd < 0)
		return 1;
	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	addr_of(port, &a);
	if (bind(lfd, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(lfd, 1) < 0) {
		perror("lt-net-tcp: listen");
		return 1;
	}
	child = fork();
	if (child < 0)
		return 1;
	if (child == 0)
		_exit(client(port, sport));
	fd = accept(lfd, NULL, NULL);
	if (fd < 0) {
		perror("lt-net-tcp: accept");
		return 1;
	}
	/* The late read starts when the segment has arrived, not at accept. */
	if (poll(&(struct pollfd){.fd = fd, .events = POLLIN}, 1, 5000) != 1) {
		fprintf(stderr, "lt-net-tcp: no data\n");
		return 1;
	}
	ts.tv_sec = ms / 1000;
	ts.tv_nsec = (long)(ms % 1000) * 1000000L;
	nanosleep(&ts, NULL);
	if (recv(fd, buf, sizeof(buf), 0) != 7) {
		perror("lt-net-tcp: recv");
		return 1;
	}
	close(fd);
	close(lfd);
	if (waitpid(child, &status, 0) != child || !WIFEXITED(status) || WEXITSTATUS(status))
		return 1;
	printf("pid=%d\n", (int)getpid());
	return 0;
}
