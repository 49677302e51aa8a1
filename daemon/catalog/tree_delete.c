// SPDX-License-Identifier: GPL-2.0-only
/*
 * A directory tree deleted as one (tree_delete.h). The check asks of every entry what
 * unlink(2) and rmdir(2) would: its directory writable and searchable (faccessat() with
 * AT_EACCESS: the caller's filesystem ids and capabilities, a read-only mount, an immutable
 * directory) and not append-only; the entry neither immutable nor append-only (statx()'s
 * attributes, read without opening it: a FIFO or a device stays unopened); in a sticky
 * directory, the entry or the directory the caller's, or the caller holding CAP_FOWNER; no
 * mount point, a directory's or a bind-mounted file's, whose removal would fail only after
 * the rest (for a directory, all under it, another file system) went. The check and the
 * deletion are one walk, which asks of each entry what each needs, and opens a directory
 * only if it is still the one it has just looked at: the deletion empties none put in its
 * place since (a mount, perhaps).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/fsuid.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <linux/capability.h>

#include "tree_delete.h"

#ifndef STATX_ATTR_MOUNT_ROOT
#define STATX_ATTR_MOUNT_ROOT 0x00002000 /* Linux 5.8; older headers lack it */
#endif

struct walk {
	struct tree_outcome *o;
	char path[PATH_MAX]; /* the entry at hand, as o->where names it */
	size_t len;
	uid_t fsuid;
	bool fowner;
	bool remove; /* the removal, else the check */
};

/* CAP_FOWNER in this thread's effective set: a setfsuid() away from root drops it. */
static bool has_fowner(void)
{
	struct __user_cap_header_struct h = {.version = _LINUX_CAPABILITY_VERSION_3};
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3];

	if (syscall(SYS_capget, &h, d) < 0)
		return false;
	return d[CAP_TO_INDEX(CAP_FOWNER)].effective & CAP_TO_MASK(CAP_FOWNER);
}

static void walk_init(struct walk *w, struct tree_outcome *o, const char *parent_name, bool remove)
{
	memset(o, 0, sizeof(*o));
	w->o = o;
	w->remove = remove;
	/* setfsuid() of an invalid id changes nothing and returns the current one. */
	w->fsuid = (uid_t)setfsuid((uid_t)-1);
	w->fowner = has_fowner();
	snprintf(w->path, sizeof(w->path), "%s", parent_name);
	w->len = strlen(w->path);
}

/* NAME appended to the path at hand; *SAVED what leave() goes back to. */
static int enter(struct walk *w, const char *name, size_t *saved)
{
	int n = snprintf(w->path + w->len, sizeof(w->path) - w->len, "%s%s", w->len ? "/" : "",
			 name);

	*saved = w->len;
	if (n < 0 || (size_t)n >= sizeof(w->path) - w->len) {
		w->path[w->len] = 0;
		return -ENAMETOOLONG;
	}
	w->len += (size_t)n;
	return 0;
}

static void leave(struct walk *w, size_t saved)
{
	w->len = saved;
	w->path[saved] = 0;
}

/* ERR at the path at hand: the first, the deepest, is the one named. */
static int stop(struct walk *w, int err)
{
	if (!w->o->where[0])
		snprintf(w->o->where, sizeof(w->o->where), "%s", w->path);
	return err;
}

static bool is_dot(const char *name)
{
	return !strcmp(name, ".") || !strcmp(name, "..");
}

/* Directory NAME under DFD, never through a symbolic link: its fd or -errno. */
static int open_sub(int dfd, const char *name)
{
	int fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (fd >= 0)
		return fd;
	return errno == ELOOP ? -ENOTDIR : -errno;
}

/* NAME under DFD itself (a link is not followed); "" is DFD. */
static int stat_at(int dfd, const char *name, struct statx *st)
{
	int flags = AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT | (name[0] ? 0 : AT_EMPTY_PATH);

	return statx(dfd, name, flags,
		     STATX_TYPE | STATX_MODE | STATX_UID | STATX_INO | STATX_BLOCKS | STATX_MNT_ID,
		     st) < 0
		       ? -errno
		       : 0;
}

static bool has_attr(const struct statx *st, uint64_t attr)
{
	return st->stx_attributes & st->stx_attributes_mask & attr;
}

/*
 * Whether E is another mount than its directory DIR, or a mount's root (a bind mount, of a
 * directory or of a file: unlink() of either fails, EBUSY, only once the rest went). By the
 * mount id, not the device: an overlayfs whose layers are on different file systems gives
 * its files their layer's device and its directories its own, one mount all the same.
 * Without mount ids (Linux before 5.8), a directory on another device is another mount.
 */
static bool mount_point(const struct statx *dir, const struct statx *e)
{
	if (has_attr(e, STATX_ATTR_MOUNT_ROOT))
		return true;
	if (dir->stx_mask & e->stx_mask & STATX_MNT_ID)
		return e->stx_mnt_id != dir->stx_mnt_id;
	return S_ISDIR(e->stx_mode) &&
	       (e->stx_dev_major != dir->stx_dev_major || e->stx_dev_minor != dir->stx_dev_minor);
}

/* Whether FD is the file ST described: not one put in its place since. */
static bool same_file(int fd, const struct statx *st)
{
	struct stat now;

	return fstat(fd, &now) == 0 && now.st_ino == st->stx_ino &&
	       major(now.st_dev) == st->stx_dev_major && minor(now.st_dev) == st->stx_dev_minor;
}

/* Whether the directory DFD (SELF) lets its entries go. */
static int may_empty(int dfd, const struct statx *self)
{
	if (faccessat(dfd, ".", W_OK | X_OK, AT_EACCESS) < 0)
		return -errno;
	return has_attr(self, STATX_ATTR_APPEND) ? -EPERM : 0;
}

/* Whether entry E of directory DIR can be unlinked, once DIR lets its entries go. */
static int may_unlink(const struct walk *w, const struct statx *dir, const struct statx *e)
{
	if (has_attr(e, STATX_ATTR_IMMUTABLE | STATX_ATTR_APPEND))
		return -EPERM;
	if ((dir->stx_mode & S_ISVTX) && e->stx_uid != w->fsuid && dir->stx_uid != w->fsuid &&
	    !w->fowner)
		return -EPERM;
	return mount_point(dir, e) ? -EBUSY : 0;
}

static int walk_dir(struct walk *w, int fd, const struct statx *self, int depth);

/*
 * Into directory NAME under DFD, DEPTH levels at most below it: never through a symbolic
 * link, and only if it is still the one ST describes.
 */
static int descend(struct walk *w, int dfd, const char *name, const struct statx *st, int depth)
{
	int fd = depth < 0 ? -ELOOP : open_sub(dfd, name);

	if (fd >= 0 && !same_file(fd, st)) {
		close(fd);
		fd = -EBUSY; /* replaced since its statx(): a mount, perhaps */
	}
	return fd < 0 ? fd : walk_dir(w, fd, st, depth);
}

/* NAME (ST) under DFD gone, counted in the outcome. */
static int unlink_entry(struct walk *w, int dfd, const char *name, const struct statx *st)
{
	if (unlinkat(dfd, name, S_ISDIR(st->stx_mode) ? AT_REMOVEDIR : 0) < 0)
		return -errno;
	if (S_ISREG(st->stx_mode))
		w->o->freed += st->stx_blocks * 512;
	w->o->removed++;
	return 0;
}

/*
 * Entry NAME (ST) of directory DFD (DIR) and all under it, DEPTH levels at most: checked,
 * or removed. The removal relies on its check for the rest, but never goes into another
 * file system: only its mount point would fail, once all in it went.
 */
static int visit(struct walk *w, int dfd, const char *name, const struct statx *dir,
		 const struct statx *st, int depth)
{
	int r;

	if (w->remove)
		r = mount_point(dir, st) ? -EBUSY : 0;
	else
		r = may_unlink(w, dir, st);
	if (r == 0 && S_ISDIR(st->stx_mode))
		r = descend(w, dfd, name, st, depth);
	if (r == 0 && w->remove)
		r = unlink_entry(w, dfd, name, st);
	return r;
}

/*
 * Directory FD (taken), SELF, and all in it, DEPTH levels at most below it, up to the
 * first failure, which the outcome names. An entry gone meanwhile is no failure.
 */
static int walk_dir(struct walk *w, int fd, const struct statx *self, int depth)
{
	int r = w->remove ? 0 : may_empty(fd, self);
	DIR *d = r < 0 ? NULL : fdopendir(fd);
	struct dirent *de;

	if (!d) {
		r = r < 0 ? r : -errno;
		close(fd);
		return stop(w, r);
	}
	while (r == 0 && (errno = 0, de = readdir(d))) {
		struct statx st;
		size_t saved;

		if (is_dot(de->d_name))
			continue;
		r = enter(w, de->d_name, &saved);
		if (r == 0)
			r = stat_at(dirfd(d), de->d_name, &st);
		if (r == 0)
			r = visit(w, dirfd(d), de->d_name, self, &st, depth - 1);
		if (r == -ENOENT)
			r = 0;
		else if (r < 0)
			r = stop(w, r);
		leave(w, saved);
	}
	if (r == 0 && errno)
		r = stop(w, -errno);
	closedir(d);
	return r;
}

/* Directory NAME under PARENT (W's path) and all in it, as walk_dir() does its entries. */
static int walk_top(struct walk *w, int parent, const char *name)
{
	struct statx ps, st;
	size_t saved;
	int r = stat_at(parent, "", &ps);

	if (r == 0 && !w->remove)
		r = may_empty(parent, &ps);
	if (r < 0)
		return stop(w, r);
	if (enter(w, name, &saved) < 0)
		return stop(w, -ENAMETOOLONG);
	r = stat_at(parent, name, &st);
	if (r == 0 && !S_ISDIR(st.stx_mode))
		r = -ENOTDIR;
	if (r == 0)
		r = visit(w, parent, name, &ps, &st, TREE_DEPTH_MAX);
	return r == -ENOENT ? 0 : r < 0 ? stop(w, r) : 0;
}

#define STR_(x) #x
#define STR(x)	STR_(x)

const char *tree_strerror(int r)
{
	return r == -ELOOP ? "more than " STR(TREE_DEPTH_MAX) " levels deep" : strerror(-r);
}

int tree_check(int parent, const char *parent_name, const char *name, struct tree_outcome *o)
{
	struct walk w;

	walk_init(&w, o, parent_name, false);
	return walk_top(&w, parent, name);
}

int tree_remove(int parent, const char *parent_name, const char *name, struct tree_outcome *o)
{
	struct walk w;

	walk_init(&w, o, parent_name, true);
	return walk_top(&w, parent, name);
}
