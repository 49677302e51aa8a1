/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * reader_child.c: a snapshot read by latencyd-reader (reader/child/main.c), a process spawned for
 * it and confined before it reads, its one result taken back through a pipe and decoded
 * strictly. The history worker's thread waits for it.
 */
#ifndef LATENCYD_READER_CHILD_H
#define LATENCYD_READER_CHILD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct reader_result;

#ifndef LATENCYD_LIBEXECDIR /* CMakeLists.txt says where it is installed */
#define LATENCYD_LIBEXECDIR "/usr/libexec/latencyd"
#endif

/* How long a read may take before the reader is killed. */
#define READER_TIMEOUT_SEC 300

struct reader_request {
	const char *path;    /* the snapshot */
	bool analyse;	     /* its analysis too */
	uint64_t max_memory; /* analysis.max_memory: the reader's address space; 0: no bound */
};

/*
 * Runs latencyd-reader on REQ and decodes its result into RES (reader_result_free() it).
 * -ECANCELED at once (the reader killed) when STOP_FD becomes readable. Any other failure:
 * the reader missing, killed by a signal, exiting non-zero, too slow (READER_TIMEOUT_SEC,
 * or LATENCYD_READER_TIMEOUT seconds for tests), writing more than READER_RESULT_MAX
 * bytes, garbage or nothing: -errno and WHY, the reader reaped.
 *
 * The reader is latencyd-reader beside latencyd (a build tree), else in
 * LATENCYD_LIBEXECDIR; LATENCYD_READER in the environment names another (for tests).
 */
int reader_child_run(const struct reader_request *req, int stop_fd, struct reader_result *res,
		     char *why, size_t whylen);

#endif /* LATENCYD_READER_CHILD_H */
