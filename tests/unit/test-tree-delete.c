// SPDX-License-Identifier: GPL-2.0-only
/*
 * A snapshot tree deleted as one (catalog/tree_delete.c), where it fails: every failure
 * leaves this process's descriptors as they were (counted in /proc/self/fd), and a tree
 * deeper than the walk may go, or than the descriptors it may open, is refused whole by the
 * check, or, past it, stops with what went counted true to the disk; the catalog's entry
 * says so and counts it until the cause is gone.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fsuid.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <linux/fs.h>

#include "catalog.h"
#include "fault-files.h"
#include "fsutil.h"
#include "tests.h"
#include "tree_delete.h"

static char tmp[] = "/tmp/test-tree-delete.XXXXXX";

/* The descriptors this process holds. */
static int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *de;
	int n = 0;

	ASSERT_TRUE(d);
	while ((de = readdir(d)))
		n += de->d_name[0] != '.';
	closedir(d);
	return n - 1; /* opendir()'s own */
}

/* Whether descriptor FD is open. */
static bool fd_open(int fd)
{
	return fcntl(fd, F_GETFD) >= 0;
}

/*
 * RLIMIT_NOFILE's soft limit lowered so that exactly FREE descriptors can still be opened
 * (*OLD: the limit to restore).
 */
static void leave_free_fds(int free_fds, struct rlimit *old)
{
	struct rlimit l;
	int n = 0, fd;

	ASSERT_EQ(getrlimit(RLIMIT_NOFILE, old), 0);
	for (fd = 0; n < free_fds || fd_open(fd); fd++)
		n += !fd_open(fd);
	l = (struct rlimit){.rlim_cur = (rlim_t)fd, .rlim_max = old->rlim_max};
	ASSERT_EQ(setrlimit(RLIMIT_NOFILE, &l), 0);
}

/* PATH made, and PATH/a/a/... LEVELS deep; a 4 KiB file f in PATH and each level if FILES. */
static void chain(const char *path, int levels, bool files)
{
	static const char block[4096];
	char p[PATH_MAX];
	size_t len = (size_t)snprintf(p, sizeof(p), "%s", path);

	for (int i = 0; i <= levels; i++) {
		if (i > 0)
			len += (size_t)snprintf(p + len, sizeof(p) - len, "/a");
		ASSERT_EQ(mkdir(p, 0755), 0);
		if (files) {
			const char *f = test_write_file(p, "f", "");
			int fd = open(f, O_WRONLY | O_CLOEXEC);

			ASSERT_TRUE(fd >= 0);
			ASSERT_EQ(write(fd, block, sizeof(block)), (long)sizeof(block));
			close(fd);
		}
	}
}

/* PATH followed by LEVELS times "/a" (to free). */
static char *level(const char *path, int levels)
{
	char *p;

	ASSERT_TRUE(asprintf(&p, "%s", path) > 0);
	for (int i = 0; i < levels; i++) {
		char *q;

		ASSERT_TRUE(asprintf(&q, "%s/a", p) > 0);
		free(p);
		p = q;
	}
	return p;
}

/* The entries under PATH, directories included, PATH excluded. */
static size_t entries(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *de;
	size_t n = 0;

	if (!d)
		return 0;
	while ((de = readdir(d))) {
		struct stat st;
		char *p;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		ASSERT_TRUE(asprintf(&p, "%s/%s", path, de->d_name) > 0);
		ASSERT_EQ(lstat(p, &st), 0);
		n += 1 + (S_ISDIR(st.st_mode) ? entries(p) : 0);
		free(p);
	}
	closedir(d);
	return n;
}

static int give_away(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return lchown(path, 65534, 65534);
}

static int open_tmp(void)
{
	int fd = open(tmp, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	ASSERT_TRUE(fd >= 0);
	return fd;
}

/* tree_check() of tmp/NAME as relayd's user, tmp its own meanwhile. */
static int check_as_relayd(int parent, const char *name, struct tree_outcome *o)
{
	int r;

	ASSERT_EQ(chmod(tmp, 0755), 0);
	ASSERT_EQ(chown(tmp, 65534, 65534), 0);
	setfsuid(65534);
	r = tree_check(parent, tmp, name, o);
	setfsuid(0);
	ASSERT_EQ(chown(tmp, 0, 0), 0);
	ASSERT_EQ(chmod(tmp, 0700), 0);
	return r;
}

/*
 * Every way the check and the removal fail leaves the descriptors as they were: a top that
 * is not a directory, an immutable file deep down, a directory the caller cannot write, a
 * removal that meets what no check looked for, a tree deeper than TREE_DEPTH_MAX.
 */
static void test_no_descriptor_left(void)
{
	char *deep, *ro, *file, *where;
	struct tree_outcome o;
	int parent = open_tmp(), before = count_fds();

	ASSERT_TRUE(asprintf(&deep, "%s/deep", tmp) > 0);
	ASSERT_TRUE(asprintf(&ro, "%s/ro", tmp) > 0);
	test_write_file(tmp, "plain", "");
	ASSERT_EQ(tree_check(parent, tmp, "plain", &o), -ENOTDIR);
	ASSERT_EQ(tree_remove(parent, tmp, "plain", &o), -ENOTDIR);
	ASSERT_EQ(count_fds(), before);

	chain(deep, 8, true);
	where = level(deep, 6);
	ASSERT_TRUE(asprintf(&file, "%s/f", where) > 0);
	test_immutable(file, true);
	ASSERT_EQ(tree_check(parent, tmp, "deep", &o), -EPERM);
	ASSERT_STREQ(o.where, file);
	ASSERT_EQ(o.removed, 0);
	ASSERT_EQ(count_fds(), before);
	/* The removal alone meets it too, after the rest of the way down went. */
	ASSERT_EQ(tree_remove(parent, tmp, "deep", &o), -EPERM);
	ASSERT_STREQ(o.where, file);
	ASSERT_TRUE(o.removed > 0);
	ASSERT_EQ(count_fds(), before);
	test_immutable(file, false);
	ASSERT_EQ(tree_remove(parent, tmp, "deep", &o), 0);
	ASSERT_EQ(count_fds(), before);
	free(where);

	/* A directory relayd's user cannot write, as that user. */
	chain(ro, 4, true);
	where = level(ro, 3);
	ASSERT_EQ(nftw(ro, give_away, 16, FTW_PHYS), 0);
	ASSERT_EQ(chmod(where, 0555), 0);
	ASSERT_EQ(check_as_relayd(parent, "ro", &o), -EACCES);
	ASSERT_STREQ(o.where, where);
	ASSERT_EQ(count_fds(), before);
	ASSERT_EQ(tree_remove(parent, tmp, "ro", &o), 0);
	free(where);

	/* Deeper than the walk goes: refused at the first level past it. */
	chain(deep, TREE_DEPTH_MAX + 4, true);
	where = level(deep, TREE_DEPTH_MAX + 1);
	ASSERT_EQ(tree_check(parent, tmp, "deep", &o), -ELOOP);
	ASSERT_STREQ(o.where, where);
	ASSERT_EQ(count_fds(), before);
	ASSERT_EQ(tree_remove(parent, tmp, "deep", &o), -ELOOP);
	ASSERT_STREQ(o.where, where);
	ASSERT_EQ(count_fds(), before);
	ASSERT_EQ(rm_tree(deep), 0);
	free(where);

	close(parent);
	free(file);
	free(deep);
	free(ro);
}

/*
 * The sticky rule: in a sticky directory, an entry goes only if it or the directory is the
 * caller's, or the caller holds CAP_FOWNER (root does, relayd's user does not). An
 * append-only directory, in the tree or the one it is in, lets none of its entries go, even
 * root.
 */
static void test_sticky_and_append_only(void)
{
	char *top, *shared, *theirs;
	struct tree_outcome o;
	int parent = open_tmp(), before = count_fds(), fd;

	ASSERT_TRUE(asprintf(&top, "%s/sticky", tmp) > 0);
	ASSERT_TRUE(asprintf(&shared, "%s/shared", top) > 0);
	ASSERT_TRUE(asprintf(&theirs, "%s/theirs", shared) > 0);
	ASSERT_EQ(mkdir(top, 0755), 0);
	ASSERT_EQ(mkdir(shared, 01777), 0);
	ASSERT_EQ(chmod(shared, 01777), 0); /* past the umask */
	test_write_file(shared, "theirs", "another user's");
	test_write_file(shared, "mine", "relayd's");
	ASSERT_EQ(nftw(top, give_away, 16, FTW_PHYS), 0);
	ASSERT_EQ(lchown(shared, 1234, 1234), 0);
	ASSERT_EQ(lchown(theirs, 1234, 1234), 0);
	ASSERT_EQ(check_as_relayd(parent, "sticky", &o), -EPERM);
	ASSERT_STREQ(o.where, theirs);
	ASSERT_EQ(tree_check(parent, tmp, "sticky", &o), 0);
	/* The entry relayd's, or the sticky directory: it may go. */
	ASSERT_EQ(lchown(theirs, 65534, 65534), 0);
	ASSERT_EQ(check_as_relayd(parent, "sticky", &o), 0);
	ASSERT_EQ(lchown(theirs, 1234, 1234), 0);
	ASSERT_EQ(lchown(shared, 65534, 65534), 0);
	ASSERT_EQ(check_as_relayd(parent, "sticky", &o), 0);

	test_fs_flag(shared, FS_APPEND_FL, true);
	ASSERT_EQ(tree_check(parent, tmp, "sticky", &o), -EPERM);
	ASSERT_STREQ(o.where, shared);
	ASSERT_EQ(access(theirs, F_OK), 0);
	test_fs_flag(shared, FS_APPEND_FL, false);
	/* The directory the tree is in, likewise. */
	test_fs_flag(top, FS_APPEND_FL, true);
	fd = open(top, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ASSERT_TRUE(fd >= 0);
	ASSERT_EQ(tree_check(fd, top, "shared", &o), -EPERM);
	ASSERT_STREQ(o.where, top);
	close(fd);
	test_fs_flag(top, FS_APPEND_FL, false);
	ASSERT_EQ(tree_check(parent, tmp, "sticky", &o), 0);
	ASSERT_EQ(tree_remove(parent, tmp, "sticky", &o), 0);
	ASSERT_EQ(o.removed, 4);
	ASSERT_EQ(access(top, F_OK), -1);
	ASSERT_EQ(count_fds(), before);
	close(parent);
	free(theirs);
	free(shared);
	free(top);
}

/*
 * A chain deeper than the descriptors left to open: the check refuses it whole, naming the
 * level it could not open; past a check that passed (descriptors taken meanwhile), the
 * removal stops at that level, and what it says went is what went.
 */
static void test_descriptor_limit(void)
{
	char *top, *stopped, *blocked;
	struct tree_outcome o;
	struct rlimit old;
	int parent = open_tmp(), before = count_fds();
	uint64_t bytes;
	size_t n;

	ASSERT_TRUE(asprintf(&top, "%s/chain", tmp) > 0);
	chain(top, 10, true);
	bytes = dir_size(top);
	n = entries(top);
	/* The top and four levels open, the fifth cannot be. */
	stopped = level(top, 4);
	blocked = level(top, 5);
	leave_free_fds(5, &old);
	ASSERT_EQ(tree_check(parent, tmp, "chain", &o), -EMFILE);
	ASSERT_EQ(setrlimit(RLIMIT_NOFILE, &old), 0);
	ASSERT_STREQ(o.where, blocked);
	ASSERT_TRUE(o.removed == 0 && o.freed == 0);
	ASSERT_EQ(entries(top), n);
	ASSERT_EQ(count_fds(), before);

	ASSERT_EQ(tree_check(parent, tmp, "chain", &o), 0);
	leave_free_fds(5, &old);
	ASSERT_EQ(tree_remove(parent, tmp, "chain", &o), -EMFILE);
	ASSERT_EQ(setrlimit(RLIMIT_NOFILE, &old), 0);
	ASSERT_STREQ(o.where, blocked);
	ASSERT_EQ(count_fds(), before);
	ASSERT_EQ(access(stopped, F_OK), 0);
	ASSERT_EQ(o.removed, n - entries(top));
	ASSERT_EQ(o.freed, bytes - dir_size(top));
	/* The limit back: what is left goes. */
	n = entries(top);
	bytes = dir_size(top);
	ASSERT_EQ(tree_remove(parent, tmp, "chain", &o), 0);
	ASSERT_EQ(o.removed, n + 1);
	ASSERT_EQ(o.freed, bytes);
	ASSERT_EQ(access(top, F_OK), -1);
	ASSERT_EQ(count_fds(), before);
	close(parent);
	free(stopped);
	free(blocked);
	free(top);
}

/* A catalog in tmp/catalog with one snapshot holding a chain LEVELS deep; its id in *ID. */
static struct catalog *catalog_with_chain(int levels, uint64_t *id)
{
	struct catalog_entry *e;
	struct catalog *c;
	char *dir;
	bool recovered;

	ASSERT_TRUE(asprintf(&dir, "%s/catalog", tmp) > 0);
	ASSERT_EQ(mkdir_p(dir, 0755), 0);
	ASSERT_EQ(catalog_open(dir, &c, &recovered), 0);
	ASSERT_EQ(catalog_set_output(c, dir, "snap"), 0);
	e = catalog_new_entry(c, id);
	ASSERT_TRUE(e);
	e->time = 1000;
	e->status = CATALOG_COMPLETE;
	ASSERT_TRUE(asprintf(&e->name, "snap-%llu", (unsigned long long)*id) > 0);
	ASSERT_TRUE(asprintf(&e->path, "%s/%s-20261123-101010-0", dir, e->name) > 0);
	chain(e->path, levels, true);
	e->bytes = dir_size(e->path);
	free(dir);
	return c;
}

/*
 * The catalog's deletion of ID, which fails with ERR: the entry kept whole (BYTES, N
 * entries), counted undeletable, the log saying "cannot be deleted: WHERE: WHY; kept whole",
 * no descriptor left open.
 */
static void expect_kept(struct catalog *c, uint64_t id, int err, const char *why, const char *where,
			uint64_t bytes, size_t n)
{
	struct catalog_deletions d;
	struct test_capture capture;
	struct catalog_entry *e;
	struct rlimit old;
	int before = count_fds();
	char *logged, *said;
	int r;

	ASSERT_TRUE(asprintf(&said, "cannot be deleted: %s: %s; kept whole", where, why) > 0);
	test_capture_start(&capture, STDERR_FILENO);
	if (err == EMFILE)
		leave_free_fds(4, &old);
	r = catalog_delete(c, id);
	if (err == EMFILE)
		ASSERT_EQ(setrlimit(RLIMIT_NOFILE, &old), 0);
	logged = test_capture_end(&capture);
	ASSERT_EQ(r, -err);
	ASSERT_CONTAINS(logged, said);
	ASSERT_EQ(count_fds(), before);
	e = catalog_find(c, id);
	ASSERT_TRUE(e);
	ASSERT_EQ(e->status, CATALOG_COMPLETE);
	ASSERT_EQ(e->bytes, bytes);
	ASSERT_EQ(dir_size(e->path), bytes);
	ASSERT_EQ(entries(e->path), n);
	catalog_deletions(c, &d);
	ASSERT_EQ(d.undeletable, 1);
	ASSERT_EQ(d.deleted_in_part, 0);
	free(logged);
	free(said);
}

/* Once its cause is gone, the snapshot of ID goes, and is no longer counted. */
static void expect_deleted(struct catalog *c, uint64_t id)
{
	char *path = strdup(catalog_find(c, id)->path);
	struct catalog_deletions d;
	int before = count_fds();

	ASSERT_EQ(catalog_delete(c, id), 0);
	ASSERT_TRUE(!catalog_find(c, id));
	ASSERT_EQ(access(path, F_OK), -1);
	catalog_deletions(c, &d);
	ASSERT_EQ(d.undeletable, 0);
	ASSERT_EQ(count_fds(), before);
	ASSERT_EQ(catalog_save(c), 0);
	catalog_free(c);
	free(path);
}

/*
 * The catalog deletes a snapshot holding a chain deeper than the descriptors left: refused
 * whole at the level it could not open, counted undeletable; descriptors back, it goes.
 */
static void test_catalog_descriptor_limit(void)
{
	uint64_t id;
	struct catalog *c = catalog_with_chain(12, &id);
	const char *path = catalog_find(c, id)->path;
	/* The snapshot's parent, the snapshot and two levels open, the third cannot be. */
	char *where = level(path, 3);

	expect_kept(c, id, EMFILE, strerror(EMFILE), where, dir_size(path), entries(path));
	expect_deleted(c, id);
	free(where);
}

/*
 * A snapshot deeper than TREE_DEPTH_MAX: refused whole, the level past it named, counted
 * undeletable, said as such (not as ELOOP's "Too many levels of symbolic links": no link is
 * involved); once the chain is cut above that level, it goes.
 */
static void test_catalog_too_deep(void)
{
	uint64_t id;
	struct catalog *c = catalog_with_chain(TREE_DEPTH_MAX + 8, &id);
	const char *path = catalog_find(c, id)->path;
	char *where = level(path, TREE_DEPTH_MAX + 1);

	expect_kept(c, id, ELOOP, "more than 16 levels deep", where, dir_size(path), entries(path));
	ASSERT_EQ(rm_tree(where), 0);
	expect_deleted(c, id);
	free(where);
}

/*
 * A tree's size that could not be measured whole says so, with what could be: out of
 * descriptors, or with a directory its user may not read (the catalog then keeps a partial
 * deletion's size as what it was less what went, and warns of an adopted one's).
 */
static void test_dir_size_read(void)
{
	struct rlimit old;
	uint64_t full, bytes;
	char *top, *closed;

	ASSERT_TRUE(asprintf(&top, "%s/sized", tmp) > 0);
	chain(top, 10, true);
	full = dir_size(top);
	ASSERT_EQ(dir_size_read(top, &bytes), 0);
	ASSERT_EQ(bytes, full);
	leave_free_fds(3, &old);
	ASSERT_EQ(dir_size_read(top, &bytes), -EMFILE);
	ASSERT_EQ(setrlimit(RLIMIT_NOFILE, &old), 0);
	ASSERT_TRUE(bytes < full);
	closed = level(top, 5);
	ASSERT_EQ(chmod(closed, 0), 0);
	ASSERT_EQ(chmod(tmp, 0755), 0);
	setfsuid(65534);
	ASSERT_EQ(dir_size_read(top, &bytes), -EACCES);
	setfsuid(0);
	ASSERT_EQ(chmod(tmp, 0700), 0);
	ASSERT_TRUE(bytes > 0 && bytes < full);
	ASSERT_EQ(dir_size_read("/nonexistent/tree", &bytes), 0);
	ASSERT_EQ(bytes, 0);
	ASSERT_EQ(rm_tree(top), 0);
	free(closed);
	free(top);
}

int main(void)
{
	if (geteuid() != 0) {
		printf("SKIP: needs root (chattr +i, a tree given to another user)\n");
		return EXIT_TEST_SKIP;
	}
	ASSERT_TRUE(mkdtemp(tmp));
	RUN(test_no_descriptor_left);
	RUN(test_sticky_and_append_only);
	RUN(test_descriptor_limit);
	RUN(test_catalog_descriptor_limit);
	RUN(test_catalog_too_deep);
	RUN(test_dir_size_read);
	ASSERT_EQ(rm_tree(tmp), 0);
	return 0;
}
