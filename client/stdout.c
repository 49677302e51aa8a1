/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Standard output's write errors (a full disk, /dev/full, a file system gone): stdio only
 * sets a flag, and a buffered text fails only when flushed, at exit, unseen. A command that
 * prints as things come (watch, hist --interval) checks after each; main() checks once the
 * command ran, so that no command exits 0 with its output lost.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "latencyctl.h"

static int write_errno; /* the first failed flush's, 0 when none said why */

int stdout_puts(const char *s, bool newline)
{
	/* The reason is kept now: the error flag set, a later fflush() has nothing to say. */
	if ((fputs(s, stdout) == EOF || (newline && putchar('\n') == EOF)) && !write_errno)
		write_errno = errno;
	return ferror(stdout) ? EXIT_WRITE : EXIT_OK;
}

int stdout_check(void)
{
	if (fflush(stdout) != 0 && !write_errno)
		write_errno = errno;
	return ferror(stdout) ? EXIT_WRITE : EXIT_OK;
}

int stdout_close(int r)
{
	bool failed = stdout_check() != EXIT_OK;

	/* A close that fails says so too (NFS); a closed descriptor nothing was written to
	 * (latencyctl >&-) is no error. */
	if (fclose(stdout) != 0 && errno != EBADF && !failed) {
		failed = true;
		write_errno = errno;
	}
	if (!failed)
		return r;
	fprintf(stderr, "latencyctl: write error%s%s\n", write_errno ? ": " : "",
		write_errno ? strerror(write_errno) : "");
	return r == EXIT_OK ? EXIT_WRITE : r;
}
