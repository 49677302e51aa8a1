// SPDX-License-Identifier: GPL-2.0-only
/*
 * bench-hackbench [GROUPS [PAIRS [LOOPS]]]: a hackbench-style scheduler and IPC load. Each
 * group has PAIRS sender and PAIRS receiver threads; every sender writes LOOPS messages of
 * 100 bytes to every receiver of its group over a UNIX stream socket pair, so the load is
 * wakeups, context switches and short system calls. Prints the elapsed time in ns
 * (CLOCK_MONOTONIC) of the whole exchange, from the start signal to the last receiver done.
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MSG 100

struct worker {
	pthread_t t;
	int *fds; /* a sender: one fd per receiver; a receiver: its own fd */
	int n;	  /* fds of a sender, or senders feeding a receiver */
	long loops;
};

static pthread_mutex_t start_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t start_cond = PTHREAD_COND_INITIALIZER;
static int started;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void wait_start(void)
{
	pthread_mutex_lock(&start_lock);
	while (!started)
		pthread_cond_wait(&start_cond, &start_lock);
	pthread_mutex_unlock(&start_lock);
}

static int io_all(int fd, char *buf, size_t len, int out)
{
	while (len) {
		ssize_t n = out ? write(fd, buf, len) : read(fd, buf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

static void *sender(void *arg)
{
	struct worker *w = arg;
	char msg[MSG] = {0};

	wait_start();
	for (long i = 0; i < w->loops; i++)
		for (int j = 0; j < w->n; j++)
			if (io_all(w->fds[j], msg, MSG, 1) < 0) {
				perror("bench-hackbench: write");
				exit(1);
			}
	return NULL;
}

static void *receiver(void *arg)
{
	struct worker *w = arg;
	char msg[MSG];

	wait_start();
	for (long i = 0; i < w->loops * w->n; i++)
		if (io_all(w->fds[0], msg, MSG, 0) < 0) {
			perror("bench-hackbench: read");
			exit(1);
		}
	return NULL;
}

static long arg(int argc, char **argv, int i, long def)
{
	char *end;
	long v;

	if (argc <= i)
		return def;
	v = strtol(argv[i], &end, 10);
	if (*end || v < 1) {
		fprintf(stderr, "bench-hackbench: argument %d: not a positive number: %s\n", i,
			argv[i]);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	long groups = arg(argc, argv, 1, 2), pairs = arg(argc, argv, 2, 5),
	     loops = arg(argc, argv, 3, 100);
	long n = groups * pairs;
	struct worker *snd = calloc((size_t)n, sizeof(*snd)),
		      *rcv = calloc((size_t)n, sizeof(*rcv));
	uint64_t t0;

	if (argc > 4 || !snd || !rcv) {
		fprintf(stderr, "usage: bench-hackbench [GROUPS [PAIRS [LOOPS]]]\n");
		return 2;
	}
	for (long g = 0; g < groups; g++) {
		for (long r = 0; r < pairs; r++) {
			struct worker *w = &rcv[g * pairs + r];

			w->fds = calloc(1, sizeof(int));
			w->n = (int)pairs;
			w->loops = loops;
		}
		for (long s = 0; s < pairs; s++) {
			struct worker *w = &snd[g * pairs + s];

			w->fds = calloc((size_t)pairs, sizeof(int));
			w->n = (int)pairs;
			w->loops = loops;
		}
		/* One stream socket per receiver, shared by the group's senders: writes of
		 * 100 bytes are atomic on a UNIX stream socket, so messages do not interleave. */
		for (long r = 0; r < pairs; r++) {
			int sv[2];

			if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0) {
				perror("bench-hackbench: socketpair");
				return 1;
			}
			rcv[g * pairs + r].fds[0] = sv[0];
			for (long s = 0; s < pairs; s++)
				snd[g * pairs + s].fds[r] = sv[1];
		}
	}
	for (long i = 0; i < n; i++)
		if (pthread_create(&rcv[i].t, NULL, receiver, &rcv[i]) ||
		    pthread_create(&snd[i].t, NULL, sender, &snd[i])) {
			fprintf(stderr, "bench-hackbench: cannot create threads\n");
			return 1;
		}
	t0 = now_ns();
	pthread_mutex_lock(&start_lock);
	started = 1;
	pthread_cond_broadcast(&start_cond);
	pthread_mutex_unlock(&start_lock);
	for (long i = 0; i < n; i++) {
		pthread_join(snd[i].t, NULL);
		pthread_join(rcv[i].t, NULL);
	}
	printf("%llu\n", (unsigned long long)(now_ns() - t0));
	return 0;
}
