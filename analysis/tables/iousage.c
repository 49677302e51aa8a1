/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * I/O usage per process over the window, as lttng-iousagetop gives it: the bytes its read
 * and write system calls returned, by kind of file descriptor, and the bytes of the block
 * requests it issued. lttng-analyses knows each descriptor's kind by following open,
 * socket and close and the statedump's list of them; the log keeps neither (a
 * flight-recorder snapshot has long overwritten the statedump), so the kind is only what
 * the call itself implies: recv and send only work on sockets (network), the positional
 * pread and pwrite only on seekable files (file), and plain read, write, readv and writev
 * can be any of them (unknown: a file, a socket, a pipe or a terminal).
 */
#include <stdlib.h>
#include <string.h>

#include "an.h"
#include "tables.h"
#include "tally.h"

const char an_io_usage_note[] =
	"a file descriptor's kind is what its call implies (recv, send: network; pread, "
	"pwrite: file); read, write, readv and writev count as unknown: the snapshot cannot "
	"tell a file from a socket or a pipe there (descriptors are not followed, and the "
	"statedump that lists them is overwritten in a flight-recorder snapshot). Block: the "
	"bytes of the requests the process issued that completed in the window (writeback is "
	"issued by kernel threads, not by the process that wrote).";

static const struct {
	const char *name;
	signed char kind;
} io_calls[] = {
	{"read", IO_UNKNOWN},
	{"readv", IO_UNKNOWN},
	{"pread64", IO_FILE},
	{"preadv", IO_FILE},
	{"preadv2", IO_FILE},
	{"recvfrom", IO_NET},
	{"recvmsg", IO_NET},
	{"recv", IO_NET},
	{"write", IO_UNKNOWN | IO_WRITES},
	{"writev", IO_UNKNOWN | IO_WRITES},
	{"pwrite64", IO_FILE | IO_WRITES},
	{"pwritev", IO_FILE | IO_WRITES},
	{"pwritev2", IO_FILE | IO_WRITES},
	{"sendto", IO_NET | IO_WRITES},
	{"sendmsg", IO_NET | IO_WRITES},
	{"send", IO_NET | IO_WRITES},
	/* recvmmsg and sendmmsg return messages, not bytes: not counted */
};

int an_io_kinds(const struct an_log *log, signed char **kinds)
{
	size_t n = log->sysnames.n;

	*kinds = malloc(n ? n : 1);
	if (!*kinds)
		return -1;
	for (size_t i = 0; i < n; i++) {
		const char *name = *AN_AT(&log->sysnames, char *, i);

		(*kinds)[i] = -1;
		for (size_t j = 0; j < sizeof(io_calls) / sizeof(io_calls[0]); j++)
			if (strcmp(name, io_calls[j].name) == 0)
				(*kinds)[i] = io_calls[j].kind;
	}
	return 0;
}

/*
 * The process TID was a thread of at TS: its pid when the trace said it, one program run of
 * it (its leader's: an exec starts another, as does the pid's reuse); else the task alone,
 * as it was then (bit 63).
 */
static uint64_t process_key(const struct an_log *log, int32_t tid, uint64_t ts)
{
	int32_t pid = an_pid_at(log, tid, ts);
	const struct an_ident *leader = pid > 0 ? an_ident_at(log, pid, ts, NULL) : NULL;

	if (pid <= 0)
		return 1ULL << 63 | an_who_key(log, tid, ts);
	return (uint64_t)(leader ? leader->run + 1 : 0) << 32 | (uint32_t)pid;
}

/* The process of TID at TS (its first task seen is its row's name, as it was then). */
static struct io_use *io_of(struct tally *t, int32_t tid, uint64_t ts)
{
	uint64_t key = process_key(t->log, tid, ts);
	bool inserted;
	uint32_t *slot = an_map_slot(&t->io_map, key + 1, &inserted);
	struct io_use *u;

	if (!slot)
		return NULL;
	if (!inserted)
		return AN_AT(&t->io, struct io_use, *slot - 1);
	u = an_vec_push(&t->io);
	if (!u)
		return NULL;
	memset(u, 0, sizeof(*u));
	u->tid = tid;
	u->ts = ts;
	*slot = (uint32_t)t->io.n;
	return u;
}

int an_io_syscall(struct tally *t, int32_t tid, uint64_t ts, int32_t sys, int64_t ret)
{
	struct io_use *u;
	signed char kind;

	if (sys < 0 || (size_t)sys >= t->log->sysnames.n || t->sys_io[sys] < 0 || ret <= 0)
		return 0; /* not I/O, or an error */
	kind = t->sys_io[sys];
	if (!(u = io_of(t, tid, ts)))
		return -1;
	if (kind & IO_WRITES)
		u->written[kind & ~IO_WRITES] += (uint64_t)ret;
	else
		u->read[kind] += (uint64_t)ret;
	return 0;
}

int an_io_block(struct tally *t, int32_t tid, uint64_t ts, int32_t rwbs, uint64_t bytes)
{
	struct io_use *u;

	if (tid < 0 || rwbs < 0 || !(rwbs & (AN_RWBS_READ | AN_RWBS_WRITE)))
		return 0; /* whose or which way unknown, or a flush or a discard */
	if (!(u = io_of(t, tid, ts)))
		return -1;
	if (rwbs & AN_RWBS_WRITE)
		u->block_written += bytes;
	else
		u->block_read += bytes;
	return 0;
}

static uint64_t io_read(const struct io_use *u)
{
	return u->read[IO_FILE] + u->read[IO_NET] + u->read[IO_UNKNOWN];
}

static uint64_t io_written(const struct io_use *u)
{
	return u->written[IO_FILE] + u->written[IO_NET] + u->written[IO_UNKNOWN];
}

static int by_read(const void *a, const void *b)
{
	uint64_t x = io_read(a) + ((const struct io_use *)a)->block_read,
		 y = io_read(b) + ((const struct io_use *)b)->block_read;

	return x < y ? 1 : x > y ? -1 : 0;
}

static int by_written(const void *a, const void *b)
{
	uint64_t x = io_written(a) + ((const struct io_use *)a)->block_written,
		 y = io_written(b) + ((const struct io_use *)b)->block_written;

	return x < y ? 1 : x > y ? -1 : 0;
}

static void size(struct an_cell *c, uint64_t bytes)
{
	c->kind = C_INT; /* the column's class, "size", says bytes */
	c->v = (int64_t)bytes;
}

/* The LIMIT processes that read (WRITES: wrote) most, system calls and block requests. */
static int io_table(struct tally *t, unsigned limit, bool writes, struct an_vec *tables)
{
	struct an_table *tb = an_vec_push(tables);

	if (!tb)
		return -1;
	for (size_t i = 0; i < an_table_class_count; i++)
		if (strcmp(an_table_classes[i].name, writes ? "io-usage-write" : "io-usage-read") ==
		    0)
			tb->cls = &an_table_classes[i];
	if (t->io.n > 1)
		qsort(t->io.v, t->io.n, sizeof(struct io_use), writes ? by_written : by_read);
	for (size_t i = 0, n = 0; i < t->io.n && n < limit; i++) {
		const struct io_use *u = AN_AT(&t->io, struct io_use, i);
		const uint64_t *k = writes ? u->written : u->read;
		uint64_t block = writes ? u->block_written : u->block_read;
		struct an_cell *c;

		if (!(writes ? io_written(u) : io_read(u)) && !block)
			continue;
		if (!(c = an_row(tb)))
			return -1;
		c[0] = (struct an_cell){.kind = C_PROCESS,
					.v = u->tid,
					.pid = an_pid_at(t->log, u->tid, u->ts),
					.s = an_comm_at(t->log, u->tid, u->ts)};
		size(&c[1], k[IO_FILE] + k[IO_NET] + k[IO_UNKNOWN]);
		size(&c[2], k[IO_FILE]);
		size(&c[3], k[IO_NET]);
		size(&c[4], k[IO_UNKNOWN]);
		size(&c[5], block);
		n++;
	}
	return 0;
}

int an_io_tables(struct tally *t, unsigned limit, struct an_vec *tables)
{
	int r = io_table(t, limit, false, tables);

	return r == 0 ? io_table(t, limit, true, tables) : r;
}
