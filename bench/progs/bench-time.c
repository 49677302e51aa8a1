// SPDX-License-Identifier: GPL-2.0-only
/*
 * bench-time COMMAND [ARGS...]: runs COMMAND (its output goes to /dev/null) and prints its
 * wall time in ns (CLOCK_MONOTONIC), from fork to its exit; exits with COMMAND's status.
 * bench-time -n: prints CLOCK_MONOTONIC in ns, the clock of the kernel's alert timestamps
 * and of LTTng's kernel tracer.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int main(int argc, char **argv)
{
	uint64_t t0;
	pid_t pid;
	int status;

	if (argc == 2 && strcmp(argv[1], "-n") == 0) {
		printf("%llu\n", (unsigned long long)now_ns());
		return 0;
	}
	if (argc < 2 || argv[1][0] == '-') {
		fprintf(stderr, "usage: bench-time COMMAND [ARGS...] | bench-time -n\n");
		return 2;
	}
	t0 = now_ns();
	pid = fork();
	if (pid < 0) {
		perror("bench-time: fork");
		return 1;
	}
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		if (null >= 0)
			dup2(null, 1);
		execvp(argv[1], argv + 1);
		perror("bench-time: exec");
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0) {
		perror("bench-time: waitpid");
		return 1;
	}
	printf("%llu\n", (unsigned long long)(now_ns() - t0));
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
