/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The CTF traces of a snapshot: source.ctf.fs does not recurse, and a snapshot holds one
 * trace per domain (kernel/, ust/uid/UID/64-bit/...), locally or under a relayd's
 * HOST/SESSION-DATE/ tree, so every directory holding a regular file "metadata" is a trace.
 *
 * Consecutive snapshots of one session overlap: a directory holding several (latencyd's
 * output directory) has the same trace twice or more, each event of their common time in
 * each. Those are told by their trace's UUID, host and place in the snapshot (kernel/,
 * ust/uid/UID/64-bit/: one session's per-user traces share its UUID), and only the newest
 * (its metadata last written) is read, the others named in a problem: never an event
 * counted twice.
 */
#include <errno.h>
#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "an.h"
#include "read.h"
#include "regular.h"

/*
 * nftw has no user pointer: thread-local state instead. Of what is left out, the first
 * path and a count: a directory or file that could not be read, a "metadata" that is not
 * a regular file (a FIFO's open would wait for a writer for ever).
 */
static __thread struct an_vec *found;
static __thread int walk_error;
static __thread struct left_out {
	char *first;
	int err;	  /* unreadable: why */
	const char *kind; /* not regular: what it is */
	unsigned long n;
} unreadable, irregular;

static void leave_out(struct left_out *l, const char *path, int err, const char *kind)
{
	if (!l->first) {
		l->first = strdup(path);
		l->err = err;
		l->kind = kind;
	}
	l->n++;
}

static int visit(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	const char *base = path + ftw->base;
	char **slot;

	if (flag == FTW_DNR || flag == FTW_NS)
		leave_out(&unreadable, path, errno ? errno : EACCES, NULL);
	if ((flag != FTW_F && flag != FTW_SL) || strcmp(base, "metadata") != 0)
		return 0;
	if (flag == FTW_SL || !S_ISREG(st->st_mode)) {
		leave_out(&irregular, path, 0,
			  an_file_kind(flag == FTW_SL ? S_IFLNK : st->st_mode));
		return 0;
	}
	slot = an_vec_push(found);
	if (!slot || !(*slot = strndup(path, (size_t)ftw->base ? (size_t)ftw->base - 1 : 0))) {
		walk_error = -ENOMEM;
		return 1;
	}
	return 0;
}

static int cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* What was left out when traces were found: a problem of the result, which is partial. */
static void say_left_out(struct an_log *log)
{
	char more[96] = "";

	if (unreadable.first) {
		if (unreadable.n > 1)
			snprintf(more, sizeof(more), ", and %lu other path(s) it may not read",
				 unreadable.n - 1);
		an_problem(log, "%s: %s: left out%s", unreadable.first, strerror(unreadable.err),
			   more);
	}
	if (irregular.first) {
		more[0] = 0;
		if (irregular.n > 1)
			snprintf(more, sizeof(more), ", and %lu other such \"metadata\"",
				 irregular.n - 1);
		an_problem(log, "%s: %s, not a regular file: its trace is left out%s",
			   irregular.first, irregular.kind, more);
	}
}

#define METADATA_PACKET_MAGIC 0x75d11d57u
#define UUID_TEXT_LEN	      36

#define HOST_MAX 64
/* "UUID on HOST": what tells one session's trace from another's. */
#define KEY_LEN	 (UUID_TEXT_LEN + 4 + HOST_MAX + 1)

/*
 * The trace's UUID and host as "UUID on HOST" into OUT (KEY_LEN bytes): the UUID from the
 * header of the first metadata packet (LTTng writes it packetized), else from the text's
 * `uuid = "..."`; the host from its environment's hostname, when the first 4 KiB say it.
 * False when it says no UUID.
 */
static bool trace_key(const char *dir, char *out)
{
	char *path = an_asprintf("%s/metadata", dir), text[4096], uuid[UUID_TEXT_LEN + 1];
	FILE *f = path ? an_fopen_regular(path, NULL) : NULL;
	size_t n = f ? fread(text, 1, sizeof(text) - 1, f) : 0, len = 0;
	const char *at, *host = "", *end;
	uint32_t magic = 0;

	if (f)
		fclose(f);
	free(path);
	text[n] = 0;
	if (n >= sizeof(magic))
		memcpy(&magic, text, sizeof(magic));
	if (n >= 20 &&
	    (magic == METADATA_PACKET_MAGIC || __builtin_bswap32(magic) == METADATA_PACKET_MAGIC)) {
		const unsigned char *u = (const unsigned char *)text + 4;

		snprintf(uuid, sizeof(uuid),
			 "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
			 u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11],
			 u[12], u[13], u[14], u[15]);
	} else {
		at = memmem(text, n, "uuid = \"", 8);
		if (!at || (size_t)(at - text) + 9 + UUID_TEXT_LEN > n ||
		    at[8 + UUID_TEXT_LEN] != '"')
			return false;
		memcpy(uuid, at + 8, UUID_TEXT_LEN);
		uuid[UUID_TEXT_LEN] = 0;
	}
	/* Packet headers may sit in the text: looked for in the bytes, not as a string. */
	at = memmem(text, n, "hostname = \"", 12);
	if (at && (end = memchr(at + 12, '"', n - (size_t)(at + 12 - text)))) {
		host = at + 12;
		len = (size_t)(end - host) < HOST_MAX ? (size_t)(end - host) : HOST_MAX;
	}
	snprintf(out, KEY_LEN, "%s on %.*s", uuid, (int)len, host);
	return true;
}

/* The trace's place in its snapshot: from its last "kernel" or "ust" component on. */
static const char *place(const char *dir)
{
	const char *p = dir, *at = strrchr(dir, '/');

	at = at ? at + 1 : dir;
	for (; (p = strchr(p, '/')); p++)
		if (strcmp(p + 1, "kernel") == 0 || strncmp(p + 1, "ust/", 4) == 0 ||
		    strcmp(p + 1, "ust") == 0)
			at = p + 1;
	return at;
}

static int64_t written(const char *dir)
{
	char *path = an_asprintf("%s/metadata", dir);
	struct stat st;
	int64_t t = path && stat(path, &st) == 0
			    ? (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec
			    : 0;

	free(path);
	return t;
}

/* Of the traces alike (same UUID and place), the newest stays; the others are said and go. */
static void one_per_trace(struct an_vec *dirs, struct an_log *log)
{
	size_t n = dirs->n ? dirs->n : 1, kept = 0;
	char(*uuid)[KEY_LEN] = calloc(n, sizeof(*uuid));
	bool *has = calloc(n, sizeof(*has)), *gone = calloc(n, sizeof(*gone));
	int64_t *when = calloc(n, sizeof(*when));
	char **d = dirs->v;

	if (!uuid || !has || !gone || !when)
		goto out; /* all read: counted twice rather than left out */
	for (size_t i = 0; i < dirs->n; i++) {
		has[i] = trace_key(d[i], uuid[i]);
		when[i] = has[i] ? written(d[i]) : 0;
	}
#define ALIKE(i, j)                                                                                \
	(has[j] && !gone[j] && strcmp(uuid[i], uuid[j]) == 0 &&                                    \
	 strcmp(place(d[i]), place(d[j])) == 0)
	for (size_t i = 0; i < dirs->n; i++) {
		size_t newest = i;

		if (!has[i] || gone[i])
			continue;
		for (size_t j = i + 1; j < dirs->n; j++)
			if (ALIKE(i, j) && when[j] >= when[newest])
				newest = j;
		for (size_t j = i; j < dirs->n; j++) {
			if (j == newest || !ALIKE(i, j))
				continue;
			an_problem(log,
				   "%s: the same trace as %s (trace UUID %s), an older snapshot of "
				   "the "
				   "same session: left out, for their events overlap and none may "
				   "count "
				   "twice (analyze each snapshot alone for its own window)",
				   d[j], d[newest], uuid[i]);
			gone[j] = true;
		}
	}
#undef ALIKE
	for (size_t i = 0; i < dirs->n; i++) {
		if (gone[i])
			free(d[i]);
		else
			d[kept++] = d[i];
	}
	dirs->n = kept;
out:
	free(uuid);
	free(has);
	free(gone);
	free(when);
}

int an_trace_dirs(const char *path, struct an_vec *dirs, struct an_log *log, char **why)
{
	struct stat st;
	int r = 0;

	if (stat(path, &st) < 0) {
		*why = an_asprintf("%s: %s", path, strerror(errno));
		return -errno;
	}
	if (!S_ISDIR(st.st_mode)) {
		*why = an_asprintf("%s: not a directory (a snapshot is a directory of CTF traces)",
				   path);
		return -ENOTDIR;
	}
	found = dirs;
	walk_error = 0;
	unreadable = irregular = (struct left_out){0};
	if (nftw(path, visit, 16, FTW_PHYS) < 0 && !walk_error)
		walk_error = -errno;
	found = NULL;
	if (walk_error) {
		*why = an_asprintf("%s: %s", path, strerror(-walk_error));
		r = walk_error;
	} else if (dirs->n) {
		qsort(dirs->v, dirs->n, sizeof(char *), cmp);
		say_left_out(log);
		one_per_trace(dirs, log);
	} else if (unreadable.first) {
		/* What latencyd records only root may read (its output directory is 0750 root's). */
		*why = an_asprintf("%s: %s: analyze reads the snapshot's files itself, which "
				   "latencyd keeps for root: run it as root, or give read access "
				   "to them",
				   unreadable.first, strerror(unreadable.err));
		r = -unreadable.err;
	} else if (irregular.first) {
		*why = an_asprintf("%s: %s, not a regular file: no CTF trace under %s",
				   irregular.first, irregular.kind, path);
		r = -ENOENT;
	} else {
		*why = an_asprintf("%s: no CTF trace (no \"metadata\" file) under it", path);
		r = -ENOENT;
	}
	free(unreadable.first);
	free(irregular.first);
	unreadable.first = irregular.first = NULL;
	return r;
}
