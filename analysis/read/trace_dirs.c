/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The CTF traces of a snapshot: source.ctf.fs does not recurse, and a snapshot holds one
 * trace per domain (kernel/, ust/uid/UID/64-bit/...), locally or under a relayd's
 * HOST/SESSION-DATE/ tree, so every directory holding a regular file "metadata" is a trace.
 */
#include <errno.h>
#include <ftw.h>
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
