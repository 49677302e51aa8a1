/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * tree_delete.c: a snapshot's directory tree deleted as one, for the catalog's retention and
 * the collector's. tree_check() first goes down the whole tree and says whether this process
 * may unlink every entry of it; only then does tree_remove() delete it. Neither follows a
 * symbolic link nor enters another mount. What the check cannot foresee (an entry made
 * immutable meanwhile, a file created meanwhile, an I/O error) stops the deletion at the
 * first failure, and the outcome says what went and where it stopped, so that the caller
 * can say what is left. Internal to the catalog layer.
 */
#ifndef LATENCYD_CATALOG_TREE_DELETE_H
#define LATENCYD_CATALOG_TREE_DELETE_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

/* relayd's trees are about 5 levels deep under a snapshot (ust/uid/0/64-bit/index). */
#define TREE_DEPTH_MAX 16

struct tree_outcome {
	size_t removed;	      /* entries unlinked, directories included */
	uint64_t freed;	      /* bytes of the files unlinked (st_blocks, as du counts) */
	char where[PATH_MAX]; /* what could not be checked or deleted: PARENT_NAME/NAME/... */
};

/*
 * Whether directory NAME under PARENT (named PARENT_NAME in O->where) and everything in it
 * can be deleted: 0 (also when NAME is gone), or the -errno its deletion would meet (EACCES,
 * EPERM: immutable, append-only, sticky; EROFS; EBUSY: a mount point; ENOTDIR: NAME is not
 * a directory; ELOOP: deeper than TREE_DEPTH_MAX), with O->where.
 */
int tree_check(int parent, const char *parent_name, const char *name, struct tree_outcome *o);
/*
 * Deletes directory NAME under PARENT and everything in it, stopping at the first failure:
 * 0 (also when NAME is gone) or -errno, with O->where. O counts what went either way.
 */
int tree_remove(int parent, const char *parent_name, const char *name, struct tree_outcome *o);
/* What the -errno R of a tree_check() or tree_remove() means, in words (ELOOP is no link). */
const char *tree_strerror(int r);

#endif /* LATENCYD_CATALOG_TREE_DELETE_H */
