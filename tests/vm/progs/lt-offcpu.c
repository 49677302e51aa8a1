/*
 * lt-offcpu SLEEP_MS: provokes one off-CPU block of about SLEEP_MS milliseconds. A reader
 * (comm "lt-off-reader") blocks reading a pipe; once it sleeps there, a writer (comm
 * "lt-off-writer") sleeps SLEEP_MS milliseconds and writes the pipe, which wakes the
 * reader from pipe_write(). Prints "reader=TID writer=TID"; exit 0 on success.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lt-progs.h"

/* Waits until task @pid sleeps (state S in /proc/PID/stat). */
int main(int argc, char **argv)
{
	int fd[2], status, ok = 1;
	pid_t reader, writer;
	long ms;
	char c = 'x';

	if (argc != 2)
		return 2;
	ms = atol(argv[1]);
	if (pipe(fd))
		return 1;

	reader = fork();
	if (reader == 0) {
		prctl(PR_SET_NAME, "lt-off-reader");
		close(fd[1]); /* a writer that fails must not leave it blocked */
		_exit(read(fd[0], &c, 1) == 1 ? 0 : 1);
	}
	if (reader < 0)
		return 1;

	writer = fork();
	if (writer == 0) {
		struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L};

		prctl(PR_SET_NAME, "lt-off-writer");
		if (wait_sleeping(reader))
			_exit(1);
		nanosleep(&ts, NULL);
		_exit(write(fd[1], &c, 1) == 1 ? 0 : 1);
	}
	if (writer < 0)
		return 1;
	close(fd[0]);
	close(fd[1]);

	if (waitpid(writer, &status, 0) != writer || !WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "lt-offcpu: the writer failed\n");
		ok = 0;
	}
	if (waitpid(reader, &status, 0) != reader || !WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "lt-offcpu: the reader failed\n");
		ok = 0;
	}
	printf("reader=%d writer=%d\n", reader, writer);
	return ok ? 0 : 1;
}
