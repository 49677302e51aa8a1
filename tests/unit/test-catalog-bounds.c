// SPDX-License-Identifier: GPL-2.0-only
/*
 * The catalog against what is in its way or past its bounds: whatever holds the temp file's
 * name (a FIFO, another's file, a directory), snapshot ids up to 2^53-1 and no further,
 * names in the output directory that would use them up, entries whose path is not a
 * snapshot directory of the output directory, a catalog.json too big to read, more entries
 * than the ceiling, incidents as a hand-edited file leaves them.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stddef.h>
#include <sys/fsuid.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

#include <json-c/json.h>

#include "catalog.h"
#include "fault-files.h"
#include "fleet.h"
#include "fsutil.h"
#include "proto.h"
#include "tests.h"

static char dir[] = "/tmp/test-catalog-bounds.XXXXXX";
static char *cat, *out; /* the catalog's directory, the output directory */

/* fsync(2) of a directory failing EIO while set (linked with --wrap=fsync). */
static bool dir_fsync_fails;
int __real_fsync(int fd);
int __wrap_fsync(int fd);

int __wrap_fsync(int fd)
{
	struct stat st;

	if (dir_fsync_fails && fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
		errno = EIO;
		return -1;
	}
	return __real_fsync(fd);
}

static char *in(const char *d, const char *name)
{
	char *p;

	ASSERT_TRUE(asprintf(&p, "%s/%s", d, name) > 0);
	return p;
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	ASSERT_TRUE(f);
	fputs(text, f);
	ASSERT_EQ(fclose(f), 0);
}

/* A fresh catalog directory and output directory. */
static void reset(void)
{
	ASSERT_EQ(rm_tree(cat), 0);
	ASSERT_EQ(rm_tree(out), 0);
	ASSERT_EQ(mkdir(cat, 0750), 0);
	ASSERT_EQ(mkdir(out, 0750), 0);
}

/* The catalog in CAT opened, its output OUT; what it logged in *LOGGED when given. */
static struct catalog *open_logged(char **logged, bool *recovered)
{
	struct test_capture capture;
	struct catalog *c;
	bool rec;

	test_capture_start(&capture, STDERR_FILENO);
	ASSERT_EQ(catalog_open(cat, &c, recovered ? recovered : &rec), 0);
	if (logged)
		*logged = test_capture_end(&capture);
	else
		free(test_capture_end(&capture));
	ASSERT_EQ(catalog_set_output(c, out, "snap"), 0);
	return c;
}

static void close_saved(struct catalog *c)
{
	ASSERT_EQ(catalog_save(c), 0);
	catalog_free(c);
}

/*
 * A FIFO named catalog.json.tmp: the start neither blocks on it nor makes it the catalog.
 * A reader is held open on it, so that an open for writing would not block the test: it
 * would write the catalog into the pipe and rename the FIFO over catalog.json.
 */
static void test_tmp_fifo(void)
{
	char *tmp = in(cat, CATALOG_FILE ".tmp"), *file = in(cat, CATALOG_FILE);
	struct catalog *c;
	struct stat st;
	int reader;

	reset();
	ASSERT_EQ(mkfifo(tmp, 0600), 0);
	reader = open(tmp, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	ASSERT_TRUE(reader >= 0);
	c = open_logged(NULL, NULL);
	ASSERT_EQ(lstat(file, &st), 0);
	ASSERT_TRUE(S_ISREG(st.st_mode));
	ASSERT_EQ(lstat(tmp, &st), -1);
	close(reader);
	/* Again at a save, with the catalog there. */
	ASSERT_EQ(mkfifo(tmp, 0600), 0);
	reader = open(tmp, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	ASSERT_TRUE(reader >= 0);
	ASSERT_EQ(catalog_save(c), 0);
	ASSERT_EQ(lstat(file, &st), 0);
	ASSERT_TRUE(S_ISREG(st.st_mode));
	close(reader);
	catalog_free(c);
	free(tmp);
	free(file);
}

/* A temp left by another, of its owner and mode: the catalog is latencyd's, 0640. */
static void test_tmp_of_another(void)
{
	char *tmp = in(cat, CATALOG_FILE ".tmp"), *file = in(cat, CATALOG_FILE);
	struct stat st;

	reset();
	write_file(tmp, "someone's");
	ASSERT_EQ(chmod(tmp, 0666), 0);
	if (geteuid() == 0)
		ASSERT_EQ(chown(tmp, 65534, 65534), 0);
	catalog_free(open_logged(NULL, NULL));
	ASSERT_EQ(stat(file, &st), 0);
	ASSERT_EQ(st.st_mode & 07777, 0640);
	ASSERT_EQ(st.st_uid, geteuid());
	free(tmp);
	free(file);
}

/*
 * A directory named catalog.json.tmp: an empty one goes; one with files in it is moved
 * aside, whole, and said: latencyd starts, and saves.
 */
static void test_tmp_directory(void)
{
	char *tmp = in(cat, CATALOG_FILE ".tmp"), *file = in(cat, CATALOG_FILE);
	char *aside = in(cat, CATALOG_FILE ".tmp.corrupt"), *inside = in(tmp, "x");
	char *kept = in(aside, "x"), *logged;
	struct catalog *c;
	struct stat st;

	reset();
	ASSERT_EQ(mkdir(tmp, 0700), 0);
	c = open_logged(NULL, NULL);
	ASSERT_EQ(stat(file, &st), 0);
	ASSERT_TRUE(S_ISREG(st.st_mode));
	ASSERT_EQ(lstat(tmp, &st), -1);
	catalog_free(c);

	reset();
	ASSERT_EQ(mkdir(tmp, 0700), 0);
	write_file(inside, "kept");
	c = open_logged(&logged, NULL);
	ASSERT_CONTAINS(logged, "catalog.json.tmp is a directory that is not empty, in the way "
				"of the catalog's save: moved to ");
	ASSERT_CONTAINS(logged, "catalog.json.tmp.corrupt");
	ASSERT_EQ(stat(file, &st), 0);
	ASSERT_TRUE(S_ISREG(st.st_mode));
	ASSERT_EQ(stat(kept, &st), 0);
	ASSERT_EQ(lstat(tmp, &st), -1);
	close_saved(c);
	free(logged);
	/* file_replace() itself leaves one alone and says so. */
	ASSERT_EQ(mkdir(tmp, 0700), 0);
	write_file(inside, "kept");
	ASSERT_EQ(file_replace(file, tmp, "{}", 2, true, 0640, 0), -ENOTEMPTY);
	ASSERT_EQ(stat(inside, &st), 0);
	free(tmp);
	free(file);
	free(aside);
	free(inside);
	free(kept);
}

/*
 * A temp that may not be removed and is no directory: an immutable file, another's file in a
 * sticky directory. The save fails saying so (EPERM), not that something is no directory,
 * and leaves it as it is. Root only: chattr +i, a file of another owner.
 */
static void test_tmp_not_removable(void)
{
	char *tmp = in(cat, CATALOG_FILE ".tmp"), *file = in(cat, CATALOG_FILE);
	char sticky[] = "/tmp/test-catalog-sticky.XXXXXX"; /* searchable by all, as DIR is not */
	char *theirs = NULL, *dest = NULL;
	struct catalog *c;
	struct stat st;
	int r;

	if (geteuid() != 0) {
		printf("test_tmp_not_removable: skipped, needs root\n");
		goto out;
	}
	reset();
	c = open_logged(NULL, NULL);
	write_file(tmp, "immutable");
	test_immutable(tmp, true);
	r = catalog_save(c);
	test_immutable(tmp, false);
	ASSERT_EQ(r, -EPERM);
	ASSERT_EQ(lstat(tmp, &st), 0);
	ASSERT_TRUE(S_ISREG(st.st_mode));
	ASSERT_EQ(unlink(tmp), 0);
	close_saved(c);

	ASSERT_TRUE(mkdtemp(sticky));
	ASSERT_EQ(chmod(sticky, 01777), 0);
	theirs = in(sticky, "x.tmp");
	dest = in(sticky, "x");
	write_file(theirs, "root's");
	/* Neither the file's owner nor the directory's, CAP_FOWNER gone with the fsuid. */
	setfsuid(65534);
	r = file_replace(dest, theirs, "{}", 2, true, 0640, 0);
	setfsuid(0);
	ASSERT_EQ(r, -EPERM);
	ASSERT_EQ(lstat(theirs, &st), 0);
	ASSERT_TRUE(S_ISREG(st.st_mode));
	ASSERT_EQ(rm_tree(sticky), 0);
out:
	free(tmp);
	free(file);
	free(theirs);
	free(dest);
}

/*
 * unlink(2) of anything failing EPERM from here on, rmdir(2) as it is: what a file system
 * that refuses a file's removal itself says (FUSE, a network file system). 0, or -errno
 * when the filter cannot be set.
 */
static int unlink_says_eperm(void)
{
#ifdef __x86_64__
	struct sock_filter code[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_unlink, 3, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_unlinkat, 0, 3),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[2])),
		BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, AT_REMOVEDIR, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = {.len = sizeof(code) / sizeof(code[0]), .filter = code};

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) < 0)
		return -errno;
	return 0;
#else
	return -ENOSYS; /* the filter is x86-64's */
#endif
}

/*
 * EPERM from unlink() is what POSIX says of a directory, and what a file system may say of
 * a file it will not remove: only a directory is then removed as one (an empty one goes),
 * a file is said to be what stops the save (EPERM), not to be no directory. In a child:
 * the filter stays with the process.
 */
static void test_tmp_eperm_not_a_directory(void)
{
	char *tmp = in(cat, CATALOG_FILE ".tmp"), *file = in(cat, CATALOG_FILE);
	struct stat st;
	int status;
	pid_t pid;

	reset();
	pid = fork();
	ASSERT_TRUE(pid >= 0);
	if (pid == 0) {
		if (unlink_says_eperm() < 0)
			_exit(EXIT_TEST_SKIP);
		write_file(tmp, "a file");
		ASSERT_EQ(file_replace(file, tmp, "{}", 2, true, 0640, 0), -EPERM);
		ASSERT_EQ(lstat(tmp, &st), 0);
		ASSERT_TRUE(S_ISREG(st.st_mode));
		ASSERT_EQ(lstat(file, &st), -1);
		_exit(0);
	}
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	ASSERT_TRUE(WIFEXITED(status));
	if (WEXITSTATUS(status) == EXIT_TEST_SKIP) {
		printf("test_tmp_eperm_not_a_directory: skipped, no seccomp filter here\n");
		goto out;
	}
	ASSERT_EQ(WEXITSTATUS(status), 0);
	ASSERT_EQ(unlink(tmp), 0);
	pid = fork();
	ASSERT_TRUE(pid >= 0);
	if (pid == 0) {
		ASSERT_EQ(unlink_says_eperm(), 0);
		ASSERT_EQ(mkdir(tmp, 0700), 0);
		ASSERT_EQ(file_replace(file, tmp, "{}", 2, true, 0640, 0), 0);
		ASSERT_EQ(stat(file, &st), 0);
		ASSERT_TRUE(S_ISREG(st.st_mode));
		_exit(0);
	}
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
out:
	free(tmp);
	free(file);
}

/* The text of FILE (to free). */
static char *read_text(const char *file)
{
	struct json_object *o = json_object_from_file(file);
	char *text;

	ASSERT_TRUE(o);
	text = strdup(json_object_to_json_string(o));
	json_object_put(o);
	return text;
}

/*
 * A save whose rename is done but whose directory cannot be synced, its fsync failing (an
 * I/O error) or the directory not opened for it (no read permission): the new catalog is
 * in place, so the save is no failure, but a crash may bring back the one before: said,
 * once while it lasts, not taken for durable.
 */
static void test_save_not_synced(void)
{
	char top[] = "/tmp/test-catalog-sync.XXXXXX", *logged, *saved, *file;
	struct test_capture capture;
	struct catalog *c;
	int r, r2;

	reset();
	c = open_logged(NULL, NULL);
	file = in(cat, CATALOG_FILE);
	ASSERT_TRUE(catalog_add_entry(c, 1));
	ASSERT_TRUE(catalog_add_entry(c, 2));
	dir_fsync_fails = true;
	test_capture_start(&capture, STDERR_FILENO);
	r = catalog_save(c);
	r2 = catalog_save(c);
	dir_fsync_fails = false;
	logged = test_capture_end(&capture);
	ASSERT_EQ(r, 0);
	ASSERT_EQ(r2, 0);
	saved = read_text(file);
	ASSERT_CONTAINS(saved, "\"id\": 2");
	ASSERT_CONTAINS(logged, "catalog.json saved, but its directory cannot be synced: "
				"Input/output error: a crash may bring back the catalog before it "
				"(said once while it lasts)");
	ASSERT_TRUE(!strstr(strstr(logged, "said once") + 1, "said once"));
	free(logged);
	free(saved);
	/* Synced again, then not: said again. */
	ASSERT_EQ(catalog_save(c), 0);
	dir_fsync_fails = true;
	test_capture_start(&capture, STDERR_FILENO);
	r = catalog_save(c);
	dir_fsync_fails = false;
	logged = test_capture_end(&capture);
	ASSERT_EQ(r, 0);
	ASSERT_CONTAINS(logged, "cannot be synced: Input/output error");
	free(logged);
	catalog_free(c);
	free(file);

	if (geteuid() != 0) {
		printf("test_save_not_synced: the unreadable directory skipped, needs root\n");
		return;
	}
	/* A directory latencyd's user may write to and search, not read: no fsync of it. */
	ASSERT_TRUE(mkdtemp(top));
	ASSERT_EQ(chmod(top, 0711), 0);
	file = in(top, CATALOG_FILE);
	ASSERT_EQ(catalog_open(top, &c, &(bool){false}), 0);
	ASSERT_TRUE(catalog_add_entry(c, 1));
	ASSERT_EQ(chown(top, 65534, 65534), 0);
	ASSERT_EQ(chmod(top, 0300), 0);
	test_capture_start(&capture, STDERR_FILENO);
	setfsuid(65534);
	r = catalog_save(c);
	setfsuid(0);
	logged = test_capture_end(&capture);
	ASSERT_EQ(r, 0);
	saved = read_text(file);
	ASSERT_CONTAINS(saved, "\"id\": 1");
	ASSERT_CONTAINS(logged, "catalog.json saved, but its directory cannot be synced: "
				"Permission denied");
	catalog_free(c);
	free(logged);
	free(saved);
	free(file);
	ASSERT_EQ(rm_tree(top), 0);
}

/* A catalog.json of TEXT, opened. */
static struct catalog *open_text(const char *text, char **logged, bool *recovered)
{
	char *file = in(cat, CATALOG_FILE);

	reset();
	write_file(file, text);
	free(file);
	return open_logged(logged, recovered);
}

/*
 * Ids go up to 2^53-1 and stop there: the last one is handed out, then none, never a
 * wrapped one; the file keeps the next_id that says so, and each start says it.
 */
static void test_ids_bounded(void)
{
	char text[256], *logged;
	struct catalog_entry *e;
	struct catalog *c;
	bool recovered;
	uint64_t id;

	snprintf(text, sizeof(text),
		 "{\"version\":1,\"next_id\":%" PRIu64 ",\"suppressed\":{},\"snapshots\":[]}",
		 CATALOG_ID_MAX - 1);
	c = open_text(text, NULL, NULL);
	ASSERT_TRUE((e = catalog_new_entry(c, &id)));
	ASSERT_EQ(id, CATALOG_ID_MAX - 1);
	e->status = CATALOG_COMPLETE;
	ASSERT_TRUE((e = catalog_new_entry(c, &id)));
	ASSERT_EQ(id, CATALOG_ID_MAX);
	e->status = CATALOG_COMPLETE;
	errno = 0;
	e = catalog_new_entry(c, &id);
	ASSERT_TRUE(!e);
	ASSERT_EQ(errno, ERANGE);
	ASSERT_EQ(catalog_next_id(c), CATALOG_ID_MAX + 1);
	ASSERT_TRUE(!catalog_add_entry(c, CATALOG_ID_MAX + 1));
	ASSERT_EQ(errno, ERANGE);
	ASSERT_TRUE(!catalog_add_entry(c, 0));
	ASSERT_EQ(errno, ERANGE);
	ASSERT_EQ(catalog_count(c), 2);
	close_saved(c);

	c = open_logged(&logged, &recovered);
	ASSERT_TRUE(!recovered);
	ASSERT_EQ(catalog_count(c), 2);
	ASSERT_EQ(catalog_next_id(c), CATALOG_ID_MAX + 1);
	ASSERT_CONTAINS(logged, "every snapshot id (1 to 2^53-1) has been handed out: no "
				"snapshot can be recorded");
	ASSERT_TRUE(!catalog_new_entry(c, &id));
	catalog_free(c);
	free(logged);

	/* Past the bound in the file: an entry left out, a next_id made again. */
	snprintf(text, sizeof(text),
		 "{\"version\":1,\"next_id\":%" PRIu64 ",\"suppressed\":{},\"snapshots\":["
		 "{\"id\":3,\"status\":\"complete\"},{\"id\":%" PRIu64
		 ",\"status\":\"complete\"}]}",
		 CATALOG_ID_MAX + 2, CATALOG_ID_MAX + 1);
	c = open_text(text, &logged, &recovered);
	ASSERT_TRUE(recovered);
	ASSERT_EQ(catalog_count(c), 1);
	ASSERT_EQ(catalog_next_id(c), 4);
	ASSERT_CONTAINS(logged, "id must be an integer from 1 to 2^53-1");
	ASSERT_CONTAINS(logged, "must be from 1 to 2^53: made the id after");
	catalog_free(c);
	free(logged);
}

/* NAME made in the output directory: a directory when DIRECTORY, else an empty file. */
static void make(const char *name, bool directory)
{
	char *p = in(out, name);

	if (directory)
		ASSERT_EQ(mkdir(p, 0750), 0);
	else
		write_file(p, "");
	free(p);
}

/*
 * Names in the output directory that are no snapshot of latencyd's use up no id: one past
 * the last id (a directory or not), one that is not a directory (however small its id).
 */
static void test_orphans_use_no_ids(void)
{
	struct catalog_adoption a;
	struct catalog *c;
	char name[96];
	uint64_t id;

	reset();
	c = open_logged(NULL, NULL);
	make("snap-9223372036854775806-x", false);
	snprintf(name, sizeof(name), "snap-%" PRIu64 "-20261123-101010-0", CATALOG_ID_MAX);
	make(name, false);
	snprintf(name, sizeof(name), "snap-%" PRIu64 "-20261123-101010-0", CATALOG_ID_MAX + 1);
	make(name, true);
	make("snap-7-20261123-101010-0", true);
	ASSERT_EQ(catalog_adopt_orphans(c, out, "snap", &a), 0);
	ASSERT_EQ(a.adopted, 1);
	ASSERT_EQ(a.problems, 0);
	ASSERT_EQ(catalog_next_id(c), 8);
	ASSERT_TRUE(catalog_new_entry(c, &id) && id == 8);
	ASSERT_TRUE(catalog_new_entry(c, &id) && id == 9);
	catalog_free(c);
}

/* What catalog_adopt_orphans() logged, adopting from OUT into C. */
static char *adopt_logged(struct catalog *c, struct catalog_adoption *a)
{
	struct test_capture capture;

	test_capture_start(&capture, STDERR_FILENO);
	ASSERT_EQ(catalog_adopt_orphans(c, out, "snap", a), 0);
	return test_capture_end(&capture);
}

/*
 * A directory of the output directory whose id no latencyd handed out (the last id, or past
 * 2^32 and CATALOG_MAX_ENTRIES or more past the next id): whoever may write there must not
 * use up the ids with one name. Passed over with a warning, not reserved: ids are still
 * handed out after a restart. Real snapshots of a catalog lost are adopted back, however
 * high their ids (below 2^32), and past 2^32 those of a run of ids, each near the last.
 */
static void test_orphans_implausible_ids(void)
{
	const uint64_t high = UINT64_C(1) << 32, w = CATALOG_MAX_ENTRIES;
	struct catalog_adoption a;
	struct catalog *c;
	char name[96], *logged, text[256];
	uint64_t id;

	reset();
	c = open_logged(NULL, NULL);
	snprintf(name, sizeof(name), "snap-%" PRIu64 "-anything", CATALOG_ID_MAX);
	make(name, true);
	snprintf(name, sizeof(name), "snap-%" PRIu64 "-20261123-101010-0", high + 5);
	make(name, true);
	make("snap-7-20261123-101010-0", true);
	logged = adopt_logged(c, &a);
	ASSERT_EQ(a.adopted, 1);
	ASSERT_EQ(a.problems, 0);
	ASSERT_CONTAINS(logged, "/snap-9007199254740991-anything: id 9007199254740991 is none "
				"latencyd hands out");
	ASSERT_CONTAINS(logged, "/snap-4294967301-20261123-101010-0: id 4294967301 is none");
	ASSERT_EQ(catalog_next_id(c), 8);
	ASSERT_TRUE(catalog_new_entry(c, &id) && id == 8);
	catalog_at(c, catalog_count(c) - 1)->status = CATALOG_COMPLETE;
	close_saved(c);
	free(logged);
	c = open_logged(NULL, NULL);
	ASSERT_EQ(catalog_adopt_orphans(c, out, "snap", &a), 0);
	ASSERT_EQ(a.adopted, 0);
	ASSERT_TRUE(catalog_new_entry(c, &id) && id == 9);
	catalog_free(c);

	/* A catalog lost: its snapshots come back, and the ids go on past theirs. */
	reset();
	c = open_logged(NULL, NULL);
	make("snap-123456-20261123-101010-0", true);
	make("snap-123458-20261123-101010-0", true);
	ASSERT_EQ(catalog_adopt_orphans(c, out, "snap", &a), 0);
	ASSERT_EQ(a.adopted, 2);
	ASSERT_EQ(catalog_next_id(c), 123459);
	catalog_free(c);

	/* Past 2^32, each within CATALOG_MAX_ENTRIES of the id after the one before. */
	snprintf(text, sizeof(text),
		 "{\"version\":1,\"next_id\":%" PRIu64 ",\"suppressed\":{},\"snapshots\":[]}",
		 high + 100);
	c = open_text(text, NULL, NULL);
	snprintf(name, sizeof(name), "snap-%" PRIu64 "-20261123-101010-0", high + 100 + w - 1);
	make(name, true);
	snprintf(name, sizeof(name), "snap-%" PRIu64 "-20261123-101010-0", high + 100 + 2 * w - 1);
	make(name, true);
	snprintf(name, sizeof(name), "snap-%" PRIu64 "-20261123-101010-0", high + 100 + 3 * w);
	make(name, true);
	logged = adopt_logged(c, &a);
	ASSERT_EQ(a.adopted, 2);
	ASSERT_EQ(catalog_next_id(c), high + 100 + 2 * w);
	ASSERT_CONTAINS(logged, "is none latencyd hands out");
	catalog_free(c);
	free(logged);
}

/*
 * A directory dated years ahead of the clock (a clock stepped back since, a touch -d) is
 * adopted as of the adoption, not of its date: max_age ends it as any other.
 */
static void test_orphan_dated_ahead(void)
{
	const time_t years = 5 * 365 * 86400;
	struct timespec t[2] = {{.tv_sec = time(NULL) + years}, {.tv_sec = time(NULL) + years}};
	struct catalog_adoption a;
	struct catalog_entry *e;
	struct catalog *c;
	char *p = in(out, "snap-3-20261123-101010-0");
	time_t before;

	reset();
	c = open_logged(NULL, NULL);
	ASSERT_EQ(mkdir(p, 0750), 0);
	ASSERT_EQ(utimensat(AT_FDCWD, p, t, 0), 0);
	before = time(NULL);
	ASSERT_EQ(catalog_adopt_orphans(c, out, "snap", &a), 0);
	ASSERT_EQ(a.adopted, 1);
	e = catalog_find(c, 3);
	ASSERT_TRUE(e && e->time >= (uint64_t)before && e->time <= (uint64_t)time(NULL));
	ASSERT_EQ(catalog_apply_retention(c, &(struct retention){.max_age_sec = 86400},
					  e->time + 86401),
		  1);
	ASSERT_EQ(catalog_count(c), 0);
	ASSERT_TRUE(access(p, F_OK) < 0 && errno == ENOENT);
	catalog_free(c);
	free(p);
}

/* An entry of ID named NAME at PATH (a directory made there), its LATE directory. */
static char *add(struct catalog *c, uint64_t id, const char *name, const char *path,
		 const char *late)
{
	struct catalog_entry *e = catalog_add_entry(c, id);

	ASSERT_TRUE(e);
	e->status = CATALOG_COMPLETE;
	e->time = 100 + id;
	e->name = strdup(name);
	e->path = strdup(path);
	e->late_directory = late ? strdup(late) : NULL;
	ASSERT_EQ(mkdir_p(path, 0750), 0);
	return e->path;
}

/* How many times NEEDLE is in TEXT. */
static size_t times(const char *text, const char *needle)
{
	size_t n = 0;

	for (const char *p = text; (p = strstr(p, needle)); p++)
		n++;
	return n;
}

/* Whether the entry of ID is kept undeletable, its note holding TEXT, its files there. */
static void expect_refused(struct catalog *c, uint64_t id, const char *text)
{
	struct catalog_entry *e = catalog_find(c, id);
	struct stat st;

	ASSERT_TRUE(e);
	ASSERT_EQ(e->deletion, CATALOG_DELETION_UNDELETABLE);
	ASSERT_TRUE(e->deletion_note);
	ASSERT_CONTAINS(e->deletion_note, text);
	ASSERT_EQ(stat(e->path, &st), 0);
}

/*
 * Only a directory PREFIX-ID-... of an output directory, however its path names it, goes
 * with its entry. One named otherwise stays, its entry dropped with a warning; one so
 * named in another directory stays, and its entry too, undeletable, saying why: dropped,
 * its files would stay for good. An entry's late_directory is no output directory: an
 * entry with a path has none but by an edit.
 */
static void test_deletes_only_in_output(void)
{
	char *victim = in(dir, "victimparent/home-5"), *parent = in(dir, "victimparent");
	char *elsewhere = in(dir, "elsewhere/snap-6-20261123-101010-0");
	char *elsewhere11 = in(dir, "elsewhere/snap-11-20261123-101010-0");
	char *late = in(dir, "late"), *late_snap = in(late, "snap-8-20261123-101010-0");
	char *link = in(dir, "out-link"), *via_link, *ok = in(out, "snap-9-20261123-101010-0");
	char *wrong_name = in(out, "snap-10x-20261123-101010-0"), *logged, *other;
	struct catalog_deletions d;
	struct test_capture capture;
	struct catalog *c;
	struct stat st;

	reset();
	ASSERT_EQ(rm_tree(parent), 0);
	ASSERT_EQ(rm_tree(late), 0);
	ASSERT_EQ(unlink(link) == 0 || errno == ENOENT, true);
	ASSERT_EQ(symlink(out, link), 0);
	ASSERT_TRUE(asprintf(&via_link, "%s/snap-7-20261123-101010-0", link) > 0);
	c = open_logged(NULL, NULL);
	add(c, 5, "home-5", victim, NULL);
	add(c, 6, "snap-6", elsewhere, NULL);
	add(c, 7, "snap-7", via_link, NULL);
	add(c, 8, "snap-8", late_snap, late);
	add(c, 9, "snap-9", ok, NULL);
	add(c, 10, "snap-10", wrong_name, NULL);
	test_capture_start(&capture, STDERR_FILENO);
	ASSERT_EQ(catalog_delete(c, 5), 0);
	ASSERT_EQ(catalog_delete(c, 6), -EPERM);
	ASSERT_EQ(catalog_delete(c, 6), -EPERM); /* said once */
	ASSERT_EQ(catalog_delete(c, 10), 0);
	logged = test_capture_end(&capture);
	ASSERT_EQ(stat(victim, &st), 0);
	ASSERT_EQ(stat(wrong_name, &st), 0);
	ASSERT_TRUE(!catalog_find(c, 5) && !catalog_find(c, 10));
	expect_refused(c, 6, "/elsewhere: not an output directory of latencyd's");
	ASSERT_CONTAINS(logged, "snapshot 5: ");
	ASSERT_CONTAINS(logged, "home-5 is not a snapshot directory of latencyd's (snap-5-...): "
				"its entry goes, the files stay");
	ASSERT_CONTAINS(logged, "snapshot 6: cannot be deleted: ");
	ASSERT_EQ(times(logged, "snapshot 6: cannot be deleted: "), 1);
	ASSERT_CONTAINS(logged, "snapshot 10: ");
	free(logged);
	/*
	 * Through retention likewise: the output directory's go (7, 9), the late directory's
	 * stays (8), held against no limit: 9, the newest, is kept.
	 */
	ASSERT_EQ(catalog_apply_retention(c, &(struct retention){.max_count = 1}, 1000), 1);
	ASSERT_EQ(lstat(via_link, &st), -1);
	expect_refused(c, 8, "/late: not an output directory of latencyd's");
	ASSERT_EQ(stat(ok, &st), 0);
	ASSERT_EQ(catalog_delete(c, 9), 0);
	ASSERT_EQ(lstat(ok, &st), -1);
	ASSERT_EQ(catalog_count(c), 2);
	catalog_deletions(c, &d);
	ASSERT_EQ(d.undeletable, 2);
	/* Kept across a restart, still refused. */
	close_saved(c);
	c = open_logged(NULL, NULL);
	expect_refused(c, 6, "/elsewhere: not an output directory of latencyd's");
	ASSERT_EQ(catalog_delete(c, 8), -EPERM);
	/* An output directory given since (a reload) adds to those before. */
	add(c, 11, "snap-11", elsewhere11, NULL);
	ASSERT_EQ(rm_tree(ok), 0);
	add(c, 12, "snap-9", ok, NULL);
	ASSERT_EQ(catalog_delete(c, 12), 0); /* its name is of another id: stays */
	ASSERT_EQ(stat(ok, &st), 0);
	other = in(dir, "elsewhere");
	ASSERT_EQ(catalog_set_output(c, other, "other"), 0);
	ASSERT_EQ(catalog_recheck_undeletable(c, 1), 1); /* 6 is deletable: 8 is not */
	expect_refused(c, 8, "/late: not an output directory of latencyd's");
	ASSERT_EQ(catalog_delete(c, 11), 0);
	ASSERT_EQ(lstat(elsewhere11, &st), -1);
	ASSERT_EQ(catalog_delete(c, 6), 0);
	ASSERT_EQ(lstat(elsewhere, &st), -1);
	catalog_free(c);
	ASSERT_EQ(unlink(link), 0);
	ASSERT_EQ(rm_tree(parent), 0);
	ASSERT_EQ(rm_tree(late), 0);
	free(other);
	free(victim);
	free(parent);
	free(elsewhere);
	free(elsewhere11);
	free(late);
	free(late_snap);
	free(link);
	free(via_link);
	free(ok);
	free(wrong_name);
}

/*
 * output.directory changed, then a restart: the snapshots of the directory before stay
 * latencyd's to delete (the catalog keeps the directories it used, the 16 given last: one
 * given again is the newest, one not given for 16 changes is forgotten).
 */
static void test_outputs_kept_across_restart(void)
{
	char *before = in(dir, "before"), *snap = in(before, "snap-3-20261123-101010-0");
	char *oldest = in(dir, "oldest"), *again = in(oldest, "snap-4-20261123-101010-0");
	char *first = in(dir, "other-0"), *gone = in(first, "snap-5-20261123-101010-0");
	struct catalog *c;
	struct stat st;
	char name[64];

	reset();
	ASSERT_EQ(rm_tree(before), 0);
	ASSERT_EQ(rm_tree(oldest), 0);
	ASSERT_EQ(rm_tree(first), 0);
	ASSERT_EQ(mkdir(before, 0750), 0);
	ASSERT_EQ(mkdir(oldest, 0750), 0);
	ASSERT_EQ(catalog_open(cat, &c, &(bool){false}), 0);
	ASSERT_EQ(catalog_set_output(c, oldest, "snap"), 0);
	add(c, 4, "snap-4", again, NULL);
	/* 15 directories after it, then it again, then one more: the one after it goes. */
	for (int i = 0; i < CATALOG_OUTPUTS_MAX - 1; i++) {
		snprintf(name, sizeof(name), "%s/other-%d", dir, i);
		ASSERT_EQ(catalog_set_output(c, name, "snap"), 0);
	}
	add(c, 5, "snap-5", gone, NULL);
	ASSERT_EQ(catalog_set_output(c, oldest, "snap"), 0);
	ASSERT_EQ(catalog_set_output(c, before, "snap"), 0);
	add(c, 3, "snap-3", snap, NULL);
	ASSERT_EQ(catalog_save(c), 0);
	catalog_free(c);

	c = open_logged(NULL, NULL); /* output.directory is OUT now */
	ASSERT_EQ(catalog_delete(c, 3), 0);
	ASSERT_EQ(lstat(snap, &st), -1);
	ASSERT_EQ(catalog_delete(c, 4), 0);
	ASSERT_EQ(lstat(again, &st), -1);
	ASSERT_EQ(catalog_delete(c, 5), -EPERM);
	ASSERT_EQ(stat(gone, &st), 0);
	catalog_free(c);
	ASSERT_EQ(rm_tree(before), 0);
	ASSERT_EQ(rm_tree(oldest), 0);
	ASSERT_EQ(rm_tree(first), 0);
	free(before);
	free(snap);
	free(oldest);
	free(again);
	free(first);
	free(gone);
}

/* The output directories CAT/catalog.json names, one line. */
static char *outputs_in_file(void)
{
	char *file = in(cat, CATALOG_FILE), *text;
	struct json_object *doc = json_object_from_file(file), *a;

	ASSERT_TRUE(doc);
	ASSERT_TRUE(json_object_object_get_ex(doc, "output_directories", &a));
	text = strdup(json_object_to_json_string_ext(a, JSON_C_TO_STRING_PLAIN |
								JSON_C_TO_STRING_NOSLASHESCAPE));
	ASSERT_TRUE(text);
	json_object_put(doc);
	free(file);
	return text;
}

/*
 * An output directory the file alone names (not given since the start) is one to delete
 * from only if root or latencyd's user owns it and neither group nor others may write to
 * it: else its snapshots' entries stay, undeletable, saying why, until it is fixed. One
 * given by the configuration counts as it is.
 */
static void test_stored_outputs_trusted(void)
{
	char *shared = in(dir, "shared"), *snap = in(shared, "snap-3-20261123-101010-0");
	char *snap4 = in(shared, "snap-4-20261123-101010-0");
	struct catalog *c;
	struct stat st;

	reset();
	ASSERT_EQ(rm_tree(shared), 0);
	ASSERT_EQ(mkdir(shared, 0750), 0);
	ASSERT_EQ(chmod(shared, 0777), 0);
	ASSERT_EQ(catalog_open(cat, &c, &(bool){false}), 0);
	ASSERT_EQ(catalog_set_output(c, shared, "snap"), 0);
	add(c, 3, "snap-3", snap, NULL);
	add(c, 4, "snap-4", snap4, NULL);
	ASSERT_EQ(catalog_delete(c, 4), 0); /* given: the operator's word */
	ASSERT_EQ(lstat(snap4, &st), -1);
	close_saved(c);

	c = open_logged(NULL, NULL); /* output.directory is OUT now */
	ASSERT_EQ(catalog_delete(c, 3), -EPERM);
	expect_refused(c, 3,
		       "/shared: an output directory of the catalog's, but writable by "
		       "group or others: not latencyd's to delete from");
	ASSERT_EQ(chmod(shared, 0770), 0);
	ASSERT_EQ(catalog_recheck_undeletable(c, 1), 0); /* refused as before: nothing new */
	expect_refused(c, 3, "writable by group or others");
	if (geteuid() == 0) {
		ASSERT_EQ(chmod(shared, 0755), 0);
		ASSERT_EQ(chown(shared, 65534, 65534), 0);
		ASSERT_EQ(catalog_recheck_undeletable(c, 2 * CATALOG_RECHECK_USEC), 1);
		expect_refused(c, 3,
			       "/shared: an output directory of the catalog's, but owned by "
			       "uid 65534: not latencyd's to delete from");
		ASSERT_EQ(chown(shared, 0, 0), 0);
	}
	ASSERT_EQ(chmod(shared, 0755), 0);
	ASSERT_EQ(catalog_recheck_undeletable(c, 4 * CATALOG_RECHECK_USEC), 1);
	ASSERT_EQ(catalog_find(c, 3)->deletion, CATALOG_DELETION_NONE);
	ASSERT_EQ(catalog_delete(c, 3), 0);
	ASSERT_EQ(lstat(snap, &st), -1);
	catalog_free(c);
	ASSERT_EQ(rm_tree(shared), 0);
	free(shared);
	free(snap);
	free(snap4);
}

/*
 * A catalog of a latencyd that kept no output directories: they are taken from where its
 * snapshots are (those of the newest last), so that a snapshot of a directory used before
 * the last change is deleted with its entry. A path latencyd would not have named gives
 * none.
 */
static void test_outputs_seeded(void)
{
	char *a = in(dir, "seed-a"), *b = in(dir, "seed-b"), *odd = in(dir, "seed-odd");
	char *s1 = in(a, "snap-1-20261123-101010-0"), *s2 = in(b, "snap-2-20261123-101010-0");
	char *s3 = in(a, "snap-3-20261123-101010-0"), *s4 = in(odd, "x-4"), *text, *want;
	char *file = in(cat, CATALOG_FILE), *logged;
	struct test_capture capture;
	struct catalog *c;
	struct stat st;

	reset();
	ASSERT_EQ(rm_tree(a), 0);
	ASSERT_EQ(rm_tree(b), 0);
	ASSERT_EQ(rm_tree(odd), 0);
	ASSERT_EQ(mkdir_p(s1, 0750), 0);
	ASSERT_EQ(mkdir_p(s2, 0750), 0);
	ASSERT_EQ(mkdir_p(s3, 0750), 0);
	ASSERT_EQ(mkdir_p(s4, 0750), 0);
	ASSERT_TRUE(
		asprintf(&text,
			 "{\"version\":1,\"next_id\":5,\"suppressed\":{},\"snapshots\":["
			 "{\"id\":1,\"status\":\"complete\",\"name\":\"snap-1\",\"path\":\"%s\"},"
			 "{\"id\":2,\"status\":\"complete\",\"name\":\"snap-2\",\"path\":\"%s\"},"
			 "{\"id\":3,\"status\":\"complete\",\"name\":\"snap-3\",\"path\":\"%s\"},"
			 "{\"id\":4,\"status\":\"complete\",\"name\":\"x-4\",\"path\":\"%s\"}]}",
			 s1, s2, s3, s4) > 0);
	write_file(file, text);
	test_capture_start(&capture, STDERR_FILENO);
	c = open_logged(NULL, NULL);
	logged = test_capture_end(&capture);
	ASSERT_CONTAINS(logged, "names no output directories (an older latencyd's): taken from "
				"the paths of its 3 snapshot(s) there");
	ASSERT_EQ(catalog_save(c), 0);
	free(text);
	text = outputs_in_file();
	ASSERT_TRUE(asprintf(&want, "[\"%s\",\"%s\",\"%s\"]", b, a, out) > 0);
	ASSERT_STREQ(text, want);
	ASSERT_EQ(catalog_delete(c, 1), 0);
	ASSERT_EQ(lstat(s1, &st), -1);
	ASSERT_EQ(catalog_delete(c, 2), 0);
	ASSERT_EQ(lstat(s2, &st), -1);
	ASSERT_EQ(catalog_delete(c, 4), 0); /* named otherwise: the entry goes, its files stay */
	ASSERT_EQ(stat(s4, &st), 0);
	close_saved(c);
	/* Made once: the list is in the file from then on. */
	c = open_logged(NULL, NULL);
	ASSERT_EQ(catalog_delete(c, 3), 0);
	ASSERT_EQ(lstat(s3, &st), -1);
	close_saved(c);
	ASSERT_EQ(rm_tree(a), 0);
	ASSERT_EQ(rm_tree(b), 0);
	ASSERT_EQ(rm_tree(odd), 0);
	free(logged);
	free(text);
	free(want);
	free(file);
	free(a);
	free(b);
	free(odd);
	free(s1);
	free(s2);
	free(s3);
	free(s4);
}

/* A catalog without a known output directory deletes nothing, whatever the entries say. */
static void test_no_output_deletes_nothing(void)
{
	char *path = in(out, "snap-1-20261123-101010-0");
	struct catalog *c;
	struct stat st;
	bool recovered;

	reset();
	ASSERT_EQ(catalog_open(cat, &c, &recovered), 0);
	add(c, 1, "snap-1", path, NULL);
	ASSERT_EQ(catalog_delete(c, 1), 0);
	ASSERT_EQ(stat(path, &st), 0);
	catalog_free(c);
	free(path);
}

/* A catalog.json past CATALOG_FILE_MAX (sparse: no disk taken) is put aside, unread. */
static void test_file_too_big(void)
{
	char *file = in(cat, CATALOG_FILE), *aside = in(cat, CATALOG_FILE ".corrupt"), *logged;
	struct catalog *c;
	bool recovered;
	struct stat st;
	int fd;

	reset();
	fd = open(file, O_WRONLY | O_CREAT | O_CLOEXEC, 0640);
	ASSERT_TRUE(fd >= 0);
	ASSERT_EQ(ftruncate(fd, (off_t)CATALOG_FILE_MAX + 1), 0);
	close(fd);
	c = open_logged(&logged, &recovered);
	ASSERT_TRUE(recovered);
	ASSERT_CONTAINS(logged, "catalog.json is 268435457 bytes, past the 256 MiB a catalog may "
				"take: kept as ");
	ASSERT_EQ(stat(aside, &st), 0);
	ASSERT_EQ(st.st_size, (off_t)CATALOG_FILE_MAX + 1);
	ASSERT_EQ(stat(file, &st), 0);
	ASSERT_TRUE(st.st_size < 4096);
	ASSERT_EQ(catalog_count(c), 0);
	catalog_free(c);
	free(logged);
	free(file);
	free(aside);
}

/* Retention with max_count 0, or above the ceiling, keeps CATALOG_MAX_ENTRIES. */
static void test_entry_ceiling(void)
{
	struct catalog *c;

	reset();
	c = open_logged(NULL, NULL);
	for (uint64_t id = 1; id <= CATALOG_MAX_ENTRIES + 3; id++) {
		struct catalog_entry *e = catalog_add_entry(c, id);

		ASSERT_TRUE(e);
		e->status = CATALOG_COMPLETE;
		e->time = id;
	}
	ASSERT_EQ(catalog_apply_retention(c, &(struct retention){0}, 10), 3);
	ASSERT_EQ(catalog_count(c), CATALOG_MAX_ENTRIES);
	ASSERT_EQ(catalog_at(c, 0)->id, 4);
	ASSERT_TRUE(catalog_add_entry(c, CATALOG_MAX_ENTRIES + 4));
	catalog_at(c, catalog_count(c) - 1)->status = CATALOG_COMPLETE;
	ASSERT_EQ(catalog_apply_retention(c, &(struct retention){.max_count = 1000000}, 10), 1);
	ASSERT_EQ(catalog_count(c), CATALOG_MAX_ENTRIES);
	catalog_free(c);
}

/*
 * Entries that cannot be deleted count against no limit, but not without end: past twice
 * CATALOG_MAX_ENTRIES in all, the oldest of them are forgotten (their files stay), said
 * and counted, so that the file rewritten at each change, and read at each start, stays
 * bounded however many snapshots become undeletable.
 */
static void test_entry_hard_ceiling(void)
{
	const uint64_t over = 5, undeletable = 2 * CATALOG_MAX_ENTRIES + over;
	struct catalog_deletions d;
	struct test_capture capture;
	struct catalog *c;
	char *logged;

	reset();
	c = open_logged(NULL, NULL);
	for (uint64_t id = 1; id <= undeletable + 3; id++) {
		struct catalog_entry *e = catalog_add_entry(c, id);

		ASSERT_TRUE(e);
		e->status = id == undeletable + 3 ? CATALOG_RECORDING : CATALOG_COMPLETE;
		e->time = id;
		e->bytes = 1000;
		/* The newest three deletable, the last being recorded: one goes for max_count,
		 * and the oldest undeletable for the room of the two left. */
		if (id <= undeletable)
			e->deletion =
				id % 2 ? CATALOG_DELETION_UNDELETABLE : CATALOG_DELETION_PARTIAL;
	}
	test_capture_start(&capture, STDERR_FILENO);
	ASSERT_EQ(catalog_apply_retention(c, &(struct retention){.max_count = 2}, 10), 1);
	logged = test_capture_end(&capture);
	ASSERT_EQ(catalog_count(c), 2 * CATALOG_MAX_ENTRIES);
	ASSERT_EQ(catalog_at(c, 0)->id, over + 3);
	ASSERT_EQ(catalog_at(c, catalog_count(c) - 1)->id, undeletable + 3);
	ASSERT_EQ(catalog_at(c, catalog_count(c) - 2)->id, undeletable + 2);
	ASSERT_CONTAINS(logged, "retention: 7 snapshot(s) that cannot be deleted forgotten, "
				"past the 20000 entries the catalog holds (the oldest first: "
				"snapshot 1, no local directory)");
	catalog_deletions(c, &d);
	ASSERT_EQ(d.forgotten, 7);
	ASSERT_EQ(d.undeletable, 2 * CATALOG_MAX_ENTRIES - 2);
	free(logged);
	/* At the bound: nothing more goes. */
	test_capture_start(&capture, STDERR_FILENO);
	ASSERT_EQ(catalog_apply_retention(c, &(struct retention){.max_count = 2}, 10), 0);
	logged = test_capture_end(&capture);
	ASSERT_TRUE(!strstr(logged, "forgotten"));
	ASSERT_EQ(catalog_count(c), 2 * CATALOG_MAX_ENTRIES);
	catalog_free(c);
	free(logged);
}

/* The names of the strings of A, one line. */
static const char *names(struct json_object *a)
{
	return json_object_to_json_string_ext(a, JSON_C_TO_STRING_PLAIN);
}

/*
 * Incidents as a hand-edited file may hold them: more than are kept (the newest kept),
 * host lists out of order, twice, longer than the cap, details past theirs: made as this
 * code writes them, so that a lookup that halves a list finds what is there.
 */
static void test_incidents_loaded(void)
{
	struct json_object *doc = json_object_new_object(), *list = json_object_new_array();
	struct json_object *o, *members, *refused, *details, *got;
	char *file = in(cat, CATALOG_FILE), name[64], long_detail[2000];
	struct catalog *c;

	for (int i = 0; i < CATALOG_INCIDENTS_KEEP + 10; i++) {
		o = json_object_new_object();
		snprintf(name, sizeof(name), "h%d-%d", i, i + 1);
		json_object_object_add(o, PROTO_KEY_INCIDENT, json_object_new_string(name));
		json_object_array_add(list, o);
	}
	/* The newest: lists unsorted, a host twice, more hosts than the cap. */
	members = json_object_new_array();
	refused = json_object_new_array();
	for (int i = CATALOG_INCIDENT_HOSTS + 20; i-- > 0;) {
		snprintf(name, sizeof(name), "m%05d", i);
		json_object_array_add(members, json_object_new_string(name));
	}
	json_object_array_add(refused, json_object_new_string("m00009"));
	json_object_array_add(refused, json_object_new_string("m00003"));
	json_object_array_add(refused, json_object_new_string("m00009"));
	memset(long_detail, 'd', sizeof(long_detail) - 1);
	long_detail[sizeof(long_detail) - 1] = 0;
	/* A character of two bytes across the cut: cut before it. */
	memcpy(long_detail + CATALOG_INCIDENT_DETAIL_MAX - 1, "\xc3\xa9", 2);
	details = json_object_new_object();
	json_object_object_add(details, "m00003", json_object_new_string(long_detail));
	json_object_object_add(o, PROTO_KEY_MEMBERS, members);
	json_object_object_add(o, PROTO_FLEET_REFUSED, refused);
	json_object_object_add(o, PROTO_KEY_DETAILS, details);
	json_object_object_add(doc, PROTO_KEY_VERSION, json_object_new_int(CATALOG_VERSION));
	json_object_object_add(doc, PROTO_KEY_NEXT_ID, json_object_new_int(1));
	json_object_object_add(doc, PROTO_KEY_SUPPRESSED, json_object_new_object());
	json_object_object_add(doc, PROTO_KEY_SNAPSHOTS, json_object_new_array());
	json_object_object_add(doc, PROTO_KEY_INCIDENTS, list);
	reset();
	ASSERT_EQ(json_object_to_file(file, doc), 0);
	json_object_put(doc);

	c = open_logged(NULL, NULL);
	list = catalog_incidents(c);
	ASSERT_EQ(json_object_array_length(list), CATALOG_INCIDENTS_KEEP);
	snprintf(name, sizeof(name), "h%d-%d", CATALOG_INCIDENTS_KEEP + 9,
		 CATALOG_INCIDENTS_KEEP + 10);
	o = catalog_incident_find(c, name);
	ASSERT_TRUE(o);
	ASSERT_TRUE(!catalog_incident_find(c, "h0-1"));
	ASSERT_TRUE(json_object_object_get_ex(o, PROTO_FLEET_REFUSED, &got));
	ASSERT_STREQ(names(got), "[\"m00003\",\"m00009\"]");
	ASSERT_TRUE(json_object_object_get_ex(o, PROTO_KEY_MEMBERS, &got));
	ASSERT_EQ(json_object_array_length(got), CATALOG_INCIDENT_HOSTS);
	ASSERT_STREQ(json_object_get_string(json_object_array_get_idx(got, 0)), "m00000");
	ASSERT_EQ(catalog_incident_silent(c, name), CATALOG_INCIDENT_HOSTS - 2);
	ASSERT_TRUE(json_object_object_get_ex(o, PROTO_KEY_DETAILS, &got));
	ASSERT_EQ(strlen(json_object_get_string(json_object_object_get(got, "m00003"))),
		  CATALOG_INCIDENT_DETAIL_MAX - 1);
	/* A host noted again moves, once: found in its sorted list. */
	ASSERT_EQ(catalog_incident_note(c, name, "m00009", PROTO_FLEET_RECORDED, NULL, 1), 0);
	ASSERT_TRUE(json_object_object_get_ex(o, PROTO_FLEET_REFUSED, &got));
	ASSERT_STREQ(names(got), "[\"m00003\"]");
	catalog_free(c);
	free(file);
}

/* Hosts that answer past the cap are left out; one that answered before moves. */
static void test_incident_hosts_capped(void)
{
	const char *const inc = "h1-77";
	char host[32], detail[CATALOG_INCIDENT_DETAIL_MAX * 2];
	struct json_object *o, *got;
	struct catalog *c;

	reset();
	c = open_logged(NULL, NULL);
	for (int i = 0; i < CATALOG_INCIDENT_HOSTS; i++) {
		snprintf(host, sizeof(host), "p%05d", i);
		ASSERT_EQ(catalog_incident_note(c, inc, host, PROTO_FLEET_RECORDED, NULL, 1), 0);
	}
	ASSERT_EQ(catalog_incident_note(c, inc, "late", PROTO_FLEET_FAILED, "x", 1), -ENOSPC);
	memset(detail, 'x', sizeof(detail) - 1);
	detail[sizeof(detail) - 1] = 0;
	ASSERT_EQ(catalog_incident_note(c, inc, "p00001", PROTO_FLEET_FAILED, detail, 1), 0);
	o = catalog_incident_find(c, inc);
	ASSERT_TRUE(json_object_object_get_ex(o, PROTO_FLEET_FAILED, &got));
	ASSERT_STREQ(names(got), "[\"p00001\"]");
	ASSERT_TRUE(json_object_object_get_ex(o, PROTO_KEY_DETAILS, &got));
	ASSERT_EQ(strlen(json_object_get_string(json_object_object_get(got, "p00001"))),
		  CATALOG_INCIDENT_DETAIL_MAX);
	catalog_free(c);
}

int main(void)
{
	ASSERT_TRUE(mkdtemp(dir));
	cat = in(dir, "catalog");
	out = in(dir, "out");
	RUN(test_tmp_fifo);
	RUN(test_tmp_of_another);
	RUN(test_tmp_directory);
	RUN(test_tmp_not_removable);
	RUN(test_tmp_eperm_not_a_directory);
	RUN(test_save_not_synced);
	RUN(test_ids_bounded);
	RUN(test_orphans_use_no_ids);
	RUN(test_orphans_implausible_ids);
	RUN(test_orphan_dated_ahead);
	RUN(test_deletes_only_in_output);
	RUN(test_outputs_kept_across_restart);
	RUN(test_stored_outputs_trusted);
	RUN(test_outputs_seeded);
	RUN(test_no_output_deletes_nothing);
	RUN(test_file_too_big);
	RUN(test_entry_ceiling);
	RUN(test_entry_hard_ceiling);
	RUN(test_incidents_loaded);
	RUN(test_incident_hosts_capped);
	ASSERT_EQ(rm_tree(dir), 0);
	free(cat);
	free(out);
	return 0;
}
