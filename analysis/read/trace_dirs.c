/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The CTF traces of a snapshot: source.ctf.fs does not recurse, and a snapshot holds one
 * trace per domain (kernel/, ust/uid/UID/64-bit/...), locally or under a relayd's
 * HOST/SESSION-DATE/ tree, so every directory holding "metadata" is a trace.
 */
#include <errno.h>
#include <ftw.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "an.h"
#include "read.h"

static __thread struct an_vec *found;
static __thread int walk_error;
static __thread char *unreadable; /* the first directory nftw could not read */
static __thread int unreadable_errno;

static int visit(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	const char *base = path + ftw->base;
	char **slot;

	if ((flag == FTW_DNR || flag == FTW_NS) && !unreadable) {
		unreadable_errno = errno ? errno : EACCES;
		unreadable = strdup(path);
	}
	if (flag == FTW_F && strcmp(base, "metadata") == 0) {
		slot = an_vec_push(found);
		if (!slot ||
		    !(*slot = strndup(path, (size_t)ftw->base ? (size_t)ftw->base - 1 : 0))) {
			walk_error = -ENOMEM;
			return 1;
		}
	}
	return 0;
}

static int cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int an_trace_dirs(const char *path, struct an_vec *dirs, char **why)
{
	struct stat st;

	if (stat(path, &st) < 0) {
		*why = an_asprintf("%s: %s", path, strerror(errno));
		return -errno;
	}
	if (!S_ISDIR(st.st_mode)) {
		*why = an_asprintf("%s: not a directory (a snapshot is a directory of CTF traces)",
				   path);
		return -ENOTDIR;
	}
	/* nftw has no user pointer: thread-local state instead. */
	found = dirs;
	walk_error = 0;
	unreadable = NULL;
	if (nftw(path, visit, 16, FTW_PHYS) < 0 && !walk_error)
		walk_error = -errno;
	found = NULL;
	if (walk_error) {
		*why = an_asprintf("%s: %s", path, strerror(-walk_error));
		free(unreadable);
		return walk_error;
	}
	/* What latencyd records only root may read (its output directory is 0750 root's). */
	if (!dirs->n && unreadable) {
		*why = an_asprintf("%s: %s: analyze reads the snapshot's files itself, which "
				   "latencyd keeps for root: run it as root, or give read access "
				   "to them",
				   unreadable, strerror(unreadable_errno));
		free(unreadable);
		return -unreadable_errno;
	}
	free(unreadable);
	if (!dirs->n) {
		*why = an_asprintf("%s: no CTF trace (no \"metadata\" file) under it", path);
		return -ENOENT;
	}
	qsort(dirs->v, dirs->n, sizeof(char *), cmp);
	return 0;
}
