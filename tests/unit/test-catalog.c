// SPDX-License-Identifier: GPL-2.0-only
/* The snapshot catalog: persistence, crash recovery, retention. */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>
#include <malloc.h>
#include <pthread.h>
#include <string.h>

#include "catalog.h"
#include "fleet.h"
#include "fsutil.h"
#include "log.h"
#include "proto.h"
#include "fault-files.h"
#include "tests.h"

static char dir[] = "/tmp/test-catalog.XXXXXX";
/* What LTTng puts after a snapshot's name: the directory is NAME-DATE-TIME-N. */
#define DATE "-20261123-101010-0"

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	ASSERT_TRUE(f);
	fputs(text, f);
	fclose(f);
}

static char *read_file_text(const char *path)
{
	FILE *f = fopen(path, "r");
	char *text = NULL;
	size_t len = 0;

	ASSERT_TRUE(f);
	ASSERT_EQ(getdelim(&text, &len, '\0', f) > 0, true);
	fclose(f);
	return text;
}

static char *snapshot_dir(uint64_t id, size_t bytes)
{
	char *p, *file;
	int fd;

	ASSERT_TRUE(asprintf(&p, "%s/snap-%llu" DATE, dir, (unsigned long long)id) > 0);
	ASSERT_EQ(rm_tree(p), 0); /* left by an earlier case whose catalog was reset */
	ASSERT_EQ(mkdir(p, 0755), 0);
	ASSERT_TRUE(asprintf(&file, "%s/data", p) > 0);
	fd = open(file, O_WRONLY | O_CREAT, 0644);
	ASSERT_TRUE(fd >= 0);
	for (size_t i = 0; i < bytes / 4096; i++) {
		static char block[4096] = {1};

		ASSERT_EQ(write(fd, block, sizeof(block)), (long)sizeof(block));
	}
	close(fd);
	free(file);
	return p;
}

static uint64_t add_snapshot(struct catalog *c, uint64_t time, size_t bytes,
			     enum catalog_status status)
{
	uint64_t id;
	struct catalog_entry *e = catalog_new_entry(c, &id);

	ASSERT_TRUE(e);
	e->time = time;
	ASSERT_TRUE(asprintf(&e->name, "snap-%llu", (unsigned long long)id) > 0);
	e->path = snapshot_dir(id, bytes);
	e->bytes = dir_size(e->path);
	e->status = status;
	return id;
}

static void delete_all(struct catalog *c)
{
	while (catalog_count(c) > 0)
		ASSERT_EQ(catalog_delete(c, catalog_at(c, 0)->id), 0);
}

static struct catalog *reopen(struct catalog *c, bool *recovered)
{
	struct catalog *n;
	bool rec;

	if (c) {
		ASSERT_EQ(catalog_save(c), 0);
		catalog_free(c);
	}
	ASSERT_EQ(catalog_open(dir, &n, recovered ? recovered : &rec), 0);
	ASSERT_EQ(catalog_set_output(n, dir, "snap"), 0);
	return n;
}

static void close_saved(struct catalog *c)
{
	ASSERT_EQ(catalog_save(c), 0);
	catalog_free(c);
}

static void test_persist_and_ids(void)
{
	struct catalog *c = reopen(NULL, NULL);
	uint64_t a = add_snapshot(c, 100, 4096, CATALOG_COMPLETE);
	uint64_t b = add_snapshot(c, 200, 4096, CATALOG_COMPLETE);

	ASSERT_EQ(b, a + 1);
	c = reopen(c, NULL);
	ASSERT_TRUE(catalog_find(c, a) && catalog_find(c, b));
	/* Ids are never reused, even after a delete. */
	ASSERT_EQ(catalog_delete(c, b), 0);
	ASSERT_TRUE(!catalog_find(c, b));
	ASSERT_TRUE(add_snapshot(c, 300, 4096, CATALOG_COMPLETE) == b + 1);
	ASSERT_EQ(catalog_delete(c, 9999), -ENOENT);
	close_saved(c);
}

/* The members of an incident that said nothing, as counted and as the view lists them. */
static void test_incident_silent_members(void)
{
	struct catalog *c = reopen(NULL, NULL);
	const char *hosts[] = {"h3", "h1", "h2", "h1"}; /* h1 twice: a member once */
	const char *const inc = "h1-77";
	struct json_object *list, *view, *pending;

	ASSERT_EQ(catalog_incident_silent(c, inc), -ENOENT);
	ASSERT_EQ(catalog_incident_members(c, inc, hosts, 4, 1000), 0);
	ASSERT_EQ(catalog_incident_silent(c, inc), 3);
	ASSERT_EQ(catalog_incident_note(c, inc, "h2", PROTO_FLEET_RECORDED, NULL, 1000), 0);
	/* Not a member (came later): its answer is kept, and counts for no one. */
	ASSERT_EQ(catalog_incident_note(c, inc, "h0", PROTO_FLEET_REFUSED, "origin", 1000), 0);
	ASSERT_EQ(catalog_incident_silent(c, inc), 2);
	/* A second answer moves a host, never counts it twice. */
	ASSERT_EQ(catalog_incident_note(c, inc, "h2", PROTO_FLEET_FAILED, "gone", 1000), 0);
	ASSERT_EQ(catalog_incident_silent(c, inc), 2);
	ASSERT_EQ(catalog_incident_note(c, inc, "h3", PROTO_FLEET_LOCAL, "/var/x", 1000), 0);
	ASSERT_EQ(catalog_incident_silent(c, inc), 1);
	list = catalog_incidents(c);
	view = catalog_incident_view(
		json_object_array_get_idx(list, json_object_array_length(list) - 1), 1001, 60);
	ASSERT_TRUE(view && json_object_object_get_ex(view, PROTO_KEY_PENDING, &pending));
	ASSERT_EQ(json_object_array_length(pending), 1);
	ASSERT_STREQ(json_object_get_string(json_object_array_get_idx(pending, 0)), "h1");
	json_object_put(view);
	ASSERT_EQ(catalog_incident_note(c, inc, "h1", PROTO_FLEET_RECORDED, NULL, 1000), 0);
	ASSERT_EQ(catalog_incident_silent(c, inc), 0);
	close_saved(c);
}

/*
 * Past CATALOG_INCIDENTS_KEEP, a peer flooding incidents pushes out the oldest peers'
 * incidents, never this host's own (its origin among its members), which keep half the
 * list: their members' results must still find them.
 */
static void test_incidents_peers_evict_peers(void)
{
	struct catalog *c = reopen(NULL, NULL);
	const char *local[] = {"h1", "h2"}, *peer[] = {"h1"};
	char inc[32];

	ASSERT_EQ(catalog_incident_members(c, "h1-1", local, 2, 1000), 0);
	ASSERT_EQ(catalog_incident_members(c, "h8-1", peer, 1, 1000), 0);
	for (int i = 1; i <= 3 * CATALOG_INCIDENTS_KEEP; i++) {
		snprintf(inc, sizeof(inc), "h9-%d", i);
		ASSERT_EQ(catalog_incident_members(c, inc, peer, 1, 1000), 0);
	}
	ASSERT_EQ(json_object_array_length(catalog_incidents(c)), CATALOG_INCIDENTS_KEEP);
	ASSERT_TRUE(catalog_incident_find(c, "h1-1") != NULL);
	ASSERT_TRUE(catalog_incident_find(c, "h8-1") == NULL);
	ASSERT_TRUE(catalog_incident_find(c, "h9-1") == NULL);
	snprintf(inc, sizeof(inc), "h9-%d", 3 * CATALOG_INCIDENTS_KEEP);
	ASSERT_TRUE(catalog_incident_find(c, inc) != NULL);
	ASSERT_EQ(catalog_incident_note(c, "h1-1", "h2", PROTO_FLEET_RECORDED, NULL, 1000), 0);
	ASSERT_EQ(catalog_incident_silent(c, "h1-1"), 1); /* h1 itself, not h2 */
	/* This host's own, past half the list, push out its own oldest, not the peers'. */
	for (int i = 2; i <= CATALOG_INCIDENTS_KEEP; i++) {
		snprintf(inc, sizeof(inc), "h1-%d", i);
		ASSERT_EQ(catalog_incident_members(c, inc, local, 2, 1000), 0);
	}
	ASSERT_EQ(json_object_array_length(catalog_incidents(c)), CATALOG_INCIDENTS_KEEP);
	ASSERT_TRUE(catalog_incident_find(c, "h1-1") == NULL);
	snprintf(inc, sizeof(inc), "h9-%d", 3 * CATALOG_INCIDENTS_KEEP);
	ASSERT_TRUE(catalog_incident_find(c, inc) != NULL);
	snprintf(inc, sizeof(inc), "h1-%d", CATALOG_INCIDENTS_KEEP);
	ASSERT_TRUE(catalog_incident_find(c, inc) != NULL);
	close_saved(c);
}

/* A catalog lost and made again numbers its snapshots from 1, its incidents past the old. */
static void test_incident_base_survives_a_lost_catalog(void)
{
	struct catalog *c = reopen(NULL, NULL);
	uint64_t base = catalog_incident_base(c), again;
	char *path;
	struct timespec ms = {.tv_nsec = 2000000};

	ASSERT_TRUE(base > UINT64_C(1700000000000)); /* ms since 1970, after 2023 */
	c = reopen(c, NULL);			     /* kept, not made again */
	ASSERT_EQ(catalog_incident_base(c), base);
	close_saved(c);
	ASSERT_TRUE(asprintf(&path, "%s/catalog.json", dir) > 0);
	ASSERT_EQ(unlink(path), 0);
	nanosleep(&ms, NULL);
	c = reopen(NULL, NULL);
	ASSERT_EQ(access(path, F_OK), 0); /* on disk at once */
	again = catalog_incident_base(c);
	ASSERT_TRUE(again > base);
	ASSERT_EQ(catalog_next_id(c), 1);
	close_saved(c);
	/* A catalog from before the key: its incidents keep their numbers (base 0). */
	write_file(path, "{\"version\": 1, \"next_id\": 5, \"snapshots\": [], "
			 "\"suppressed\": {\"total\": 0, \"by_tracker\": {}, \"recent\": []}}");
	c = reopen(NULL, NULL);
	ASSERT_EQ(catalog_incident_base(c), 0);
	ASSERT_EQ(catalog_next_id(c), 5);
	close_saved(c);
	free(path);
}

static void test_recording_becomes_failed_after_crash(void)
{
	struct catalog *c = reopen(NULL, NULL);
	uint64_t id = add_snapshot(c, 400, 4096, CATALOG_RECORDING);
	bool recovered;

	c = reopen(c, &recovered);
	ASSERT_TRUE(recovered);
	ASSERT_EQ(catalog_find(c, id)->status, CATALOG_FAILED);
	ASSERT_STREQ(catalog_find(c, id)->error, "latencyd stopped while recording");
	close_saved(c);
}

static void test_corrupt_file_is_kept_aside(void)
{
	char *path, *aside;
	struct catalog *c;
	bool recovered;

	ASSERT_TRUE(asprintf(&path, "%s/%s", dir, CATALOG_FILE) > 0);
	ASSERT_TRUE(asprintf(&aside, "%s/%s.corrupt", dir, CATALOG_FILE) > 0);
	write_file(path, "{\"version\": 1, \"snapshots\": [ {\"id\": 1}, ");
	c = reopen(NULL, &recovered);
	ASSERT_TRUE(recovered);
	ASSERT_EQ(catalog_count(c), 0);
	ASSERT_EQ(access(aside, F_OK), 0);
	/* A truncated temp file from a crash mid-write never replaces the catalog. */
	ASSERT_EQ(catalog_save(c), 0);
	catalog_free(c);
	free(path);
	free(aside);
}

static void test_retention(void)
{
	struct catalog *c;
	struct retention r = {0};
	uint64_t ids[6];
	char *p;

	/* Start clean. */
	c = reopen(NULL, NULL);
	delete_all(c);
	ids[0] = add_snapshot(c, 1000, 8192, CATALOG_RECORDING); /* oldest, but being written */
	for (int i = 1; i < 6; i++)
		ids[i] = add_snapshot(c, 1000 + (uint64_t)i * 100, 8192, CATALOG_COMPLETE);

	r.max_count = 4;
	ASSERT_EQ(catalog_apply_retention(c, &r, 2000), 2);
	ASSERT_TRUE(catalog_find(c, ids[0]));
	ASSERT_TRUE(!catalog_find(c, ids[1]) && !catalog_find(c, ids[2]));
	ASSERT_TRUE(asprintf(&p, "%s/snap-%llu" DATE, dir, (unsigned long long)ids[1]) > 0);
	ASSERT_EQ(access(p, F_OK), -1);
	free(p);

	r.max_count = 0;
	r.max_age_sec = 1000 + 5 * 100 - 1450; /* only ids[5] (t=1500) is younger than 50 s */
	ASSERT_EQ(catalog_apply_retention(c, &r, 1500), 2);
	ASSERT_TRUE(catalog_find(c, ids[5]) && catalog_find(c, ids[0]));

	r.max_age_sec = 0;
	r.max_bytes = 1;
	ASSERT_EQ(catalog_apply_retention(c, &r, 1500), 1);
	ASSERT_TRUE(!catalog_find(c, ids[5]));
	/* The snapshot being written survives every limit. */
	ASSERT_TRUE(catalog_find(c, ids[0]));
	close_saved(c);
}

static void test_suppressed_bounded(void)
{
	struct catalog *c = reopen(NULL, NULL);
	struct json_object *sup, *v, *w;

	for (int i = 0; i < CATALOG_SUPPRESSED_KEEP + 10; i++) {
		struct catalog_cause a = {.tracker = i % 2 ? "syscalls" : "wakeup",
					  .reason = PROTO_REASON_THRESHOLD,
					  .seq = (uint64_t)i};

		catalog_add_suppressed(c, a.tracker, &a, 1);
	}
	/* A storm's batch: counted at once, nothing kept. */
	catalog_add_suppressed(c, "wakeup", NULL, 100000);
	c = reopen(c, NULL);
	sup = catalog_suppressed(c);
	ASSERT_TRUE(json_object_object_get_ex(sup, "total", &v));
	ASSERT_EQ(json_object_get_int64(v), CATALOG_SUPPRESSED_KEEP + 10 + 100000);
	ASSERT_TRUE(json_object_object_get_ex(sup, "recent", &v));
	ASSERT_EQ(json_object_array_length(v), CATALOG_SUPPRESSED_KEEP);
	/* The newest kept, each a cause as the catalog spells it. */
	ASSERT_TRUE(json_object_object_get_ex(
		json_object_array_get_idx(v, CATALOG_SUPPRESSED_KEEP - 1), "seq", &v));
	ASSERT_EQ(json_object_get_int64(v), CATALOG_SUPPRESSED_KEEP + 9);
	ASSERT_TRUE(json_object_object_get_ex(sup, "by_tracker", &v));
	ASSERT_TRUE(json_object_object_get_ex(v, "wakeup", &w));
	ASSERT_EQ(json_object_get_int64(w), (CATALOG_SUPPRESSED_KEEP + 11) / 2 + 100000);
	ASSERT_TRUE(json_object_object_get_ex(v, "syscalls", &v));
	ASSERT_EQ(json_object_get_int64(v), (CATALOG_SUPPRESSED_KEEP + 10) / 2);
	catalog_free(c);
}

/* How many orphans of OUT were adopted, the scan itself without fault. */
static size_t adopt_orphans(struct catalog *c, const char *out)
{
	struct catalog_adoption a;

	ASSERT_EQ(catalog_adopt_orphans(c, out, "snap", &a), 0);
	ASSERT_EQ(a.problems, 0);
	return a.adopted;
}

static void test_orphans_adopted(void)
{
	struct catalog *c = reopen(NULL, NULL);
	char *out, *p;
	uint64_t next;
	struct catalog_entry *e;

	ASSERT_TRUE(asprintf(&out, "%s/out", dir) > 0);
	ASSERT_EQ(mkdir(out, 0755), 0);
	next = catalog_next_id(c);
	/* A snapshot recorded with the next id, the catalog not saved: a kill -9. */
	ASSERT_TRUE(asprintf(&p, "%s/snap-%llu-20261123-101010-0", out,
			     (unsigned long long)next + 1) > 0);
	ASSERT_EQ(mkdir(p, 0755), 0);
	free(p);
	ASSERT_TRUE(asprintf(&p, "%s/other-%llu-x", out, (unsigned long long)next + 5) > 0);
	ASSERT_EQ(mkdir(p, 0755), 0);
	free(p);
	/* Not latencyd's spelling of an id: left alone, and the others still adopted. */
	ASSERT_TRUE(asprintf(&p, "%s/snap-000%llu-20261123-101010-0", out,
			     (unsigned long long)next + 3) > 0);
	ASSERT_EQ(mkdir(p, 0755), 0);
	free(p);
	/* No id after it would fit the file's int64: not an id latencyd hands out. */
	ASSERT_TRUE(asprintf(&p, "%s/snap-9223372036854775807-20261123-101010-0", out) > 0);
	ASSERT_EQ(mkdir(p, 0755), 0);
	free(p);
	ASSERT_EQ(adopt_orphans(c, out), 1);
	ASSERT_EQ(catalog_next_id(c), next + 2);
	e = catalog_find(c, next + 1);
	ASSERT_TRUE(e);
	ASSERT_EQ(e->status, CATALOG_COMPLETE);
	ASSERT_CONTAINS(e->path, "/snap-");
	ASSERT_CONTAINS(e->error, "causes unknown");
	/* Known now: not adopted twice. */
	ASSERT_EQ(adopt_orphans(c, out), 0);
	ASSERT_EQ(adopt_orphans(c, "/nonexistent/dir"), 0);
	close_saved(c);
	free(out);
}

/*
 * A catalog.json that is a directory is said to be one, not "does not parse", and moved
 * aside without replacing an older copy kept aside (a file, or another directory).
 */
static void test_catalog_is_a_directory(void)
{
	char *path, *aside, *aside1, *logged;
	struct test_capture capture;
	struct catalog *c;
	bool recovered;
	struct stat st;

	ASSERT_TRUE(asprintf(&path, "%s/%s", dir, CATALOG_FILE) > 0);
	ASSERT_TRUE(asprintf(&aside, "%s/%s.corrupt", dir, CATALOG_FILE) > 0);
	ASSERT_TRUE(asprintf(&aside1, "%s/%s.corrupt.1", dir, CATALOG_FILE) > 0);
	ASSERT_EQ(rm_tree(aside), 0);
	ASSERT_EQ(rm_tree(aside1), 0);
	ASSERT_EQ(rm_tree(path), 0);
	write_file(aside, "an older damaged catalog");
	ASSERT_EQ(mkdir(path, 0750), 0);
	test_capture_start(&capture, STDERR_FILENO);
	c = reopen(NULL, &recovered);
	logged = test_capture_end(&capture);
	ASSERT_TRUE(recovered);
	ASSERT_EQ(catalog_count(c), 0);
	ASSERT_CONTAINS(logged, "catalog.json is a directory, not a catalog: moved to ");
	ASSERT_CONTAINS(logged, "catalog.json.corrupt.1");
	ASSERT_TRUE(!strstr(logged, "does not parse"));
	ASSERT_EQ(stat(aside1, &st), 0);
	ASSERT_TRUE(S_ISDIR(st.st_mode));
	free(logged);
	ASSERT_STREQ((logged = read_file_text(aside)), "an older damaged catalog");
	ASSERT_EQ(stat(path, &st), 0);
	ASSERT_TRUE(S_ISREG(st.st_mode));
	close_saved(c);
	ASSERT_EQ(rm_tree(aside1), 0);
	ASSERT_EQ(unlink(aside), 0);
	free(logged);
	free(path);
	free(aside);
	free(aside1);
}

/*
 * Whether C adopts ADOPTED orphans of OUT with PROBLEMS, its next id then NEXT (0: any),
 * when run as nobody (in a child: DAC applies to users other than root only).
 */
static bool adopted_as_nobody(struct catalog *c, const char *out, size_t adopted, size_t problems,
			      uint64_t next)
{
	struct catalog_adoption a;
	int status;
	pid_t pid = fork();

	ASSERT_TRUE(pid >= 0);
	if (pid == 0)
		_exit(setgid(65534) == 0 && setuid(65534) == 0 &&
				      catalog_adopt_orphans(c, out, "snap", &a) == 0 &&
				      a.adopted == adopted && a.problems == problems &&
				      (!next || catalog_next_id(c) == next)
			      ? 0
			      : 1);
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/*
 * An orphan that cannot be looked at is said with its real error, not as a lack of memory;
 * an entry that is no directory (a dangling link) is no snapshot of latencyd's: left alone,
 * and the others adopted.
 */
static void test_orphan_errors(void)
{
	struct catalog *c = reopen(NULL, NULL);
	char out[] = "/tmp/test-catalog-orphans.XXXXXX", *p;
	struct test_capture capture;
	uint64_t next = catalog_next_id(c);
	char *logged;
	bool ok;

	ASSERT_TRUE(mkdtemp(out));
	ASSERT_TRUE(asprintf(&p, "%s/snap-%llu-20261123-101010-0", out, (unsigned long long)next) >
		    0);
	ASSERT_EQ(symlink("/nonexistent/snapshot", p), 0);
	free(p);
	ASSERT_TRUE(asprintf(&p, "%s/snap-%llu-20261123-101011-0", out,
			     (unsigned long long)next + 1) > 0);
	ASSERT_EQ(mkdir(p, 0755), 0);
	free(p);
	ASSERT_EQ(adopt_orphans(c, out), 1);
	ASSERT_TRUE(!catalog_find(c, next) && catalog_find(c, next + 1));
	ASSERT_EQ(catalog_next_id(c), next + 2);
	/* A directory that may be listed but not searched: stat(2) says EACCES. DAC applies
	 * to users other than root only, so the scan runs as nobody. */
	if (geteuid() == 0) {
		ASSERT_TRUE(asprintf(&p, "%s/snap-%llu-20261123-101012-0", out,
				     (unsigned long long)next + 2) > 0);
		ASSERT_EQ(mkdir(p, 0755), 0);
		free(p);
		ASSERT_EQ(chmod(out, 0644), 0);
		test_capture_start(&capture, STDERR_FILENO);
		ok = adopted_as_nobody(c, out, 0, 2, next + 3);
		logged = test_capture_end(&capture);
		ASSERT_EQ(chmod(out, 0755), 0);
		ASSERT_TRUE(ok);
		ASSERT_CONTAINS(logged, "-0: Permission denied: cannot tell whether it is a "
					"snapshot missing from the catalog");
		free(logged);
	}
	ASSERT_EQ(rm_tree(out), 0);
	close_saved(c);
}

/*
 * An entry named as a snapshot that is no directory (a FIFO) is not adopted, nor is its id
 * reserved: a name alone must not use up ids. The snapshot named as it is, beside it, is
 * found by its directory all the same. An adopted one whose tree cannot be read whole says
 * that its size is what could be read.
 */
static void test_orphan_not_directory_and_unreadable(void)
{
	struct catalog *c = reopen(NULL, NULL);
	char out[] = "/tmp/test-catalog-fifo.XXXXXX", *p, *sub, *logged;
	struct test_capture capture;
	uint64_t next = catalog_next_id(c);
	bool ok;

	ASSERT_TRUE(mkdtemp(out));
	ASSERT_TRUE(asprintf(&p, "%s/snap-%llu-20261123-101010-0", out,
			     (unsigned long long)next + 3) > 0);
	ASSERT_EQ(mkfifo(p, 0644), 0);
	free(p);
	test_capture_start(&capture, STDERR_FILENO);
	ASSERT_EQ(adopt_orphans(c, out), 0);
	logged = test_capture_end(&capture);
	ASSERT_CONTAINS(logged, "-0 is not a directory: not adopted as a snapshot");
	ASSERT_EQ(catalog_next_id(c), next);
	free(logged);
	/* Its name sorts after the FIFO's: not the one path_newest() finds. */
	ASSERT_TRUE(asprintf(&p, "%s/snap-%llu-20261123-101009-0", out,
			     (unsigned long long)next + 3) > 0);
	ASSERT_EQ(mkdir(p, 0755), 0);
	ASSERT_TRUE(asprintf(&sub, "snap-%llu", (unsigned long long)next + 3) > 0);
	logged = path_newest(out, sub);
	ASSERT_STREQ(logged, p);
	ASSERT_EQ(rmdir(p), 0);
	free(logged);
	free(sub);
	free(p);
	/* Not root, or DAC would not apply: nobody, in a child. */
	if (geteuid() == 0) {
		ASSERT_TRUE(asprintf(&p, "%s/snap-%llu-20261123-101011-0", out,
				     (unsigned long long)next + 4) > 0);
		ASSERT_TRUE(asprintf(&sub, "%s/kernel", p) > 0);
		ASSERT_EQ(mkdir_p(sub, 0755), 0);
		ASSERT_EQ(chmod(sub, 0), 0);
		ASSERT_EQ(chmod(out, 0755), 0);
		test_capture_start(&capture, STDERR_FILENO);
		ok = adopted_as_nobody(c, out, 1, 0, 0);
		logged = test_capture_end(&capture);
		ASSERT_TRUE(ok);
		ASSERT_CONTAINS(logged, "-0: Permission denied: its size is what could be read of "
					"it: ");
		free(logged);
		free(sub);
		free(p);
	}
	ASSERT_EQ(rm_tree(out), 0);
	close_saved(c);
}

/*
 * Thousands of orphans (latencyd killed again and again before a save, or a catalog lost)
 * adopted in one scan, in id order, every id known after.
 */
static void test_many_orphans(void)
{
	enum { N = 3000 };
	struct catalog *c = reopen(NULL, NULL);
	char out[] = "/tmp/test-catalog-many.XXXXXX", *p;
	uint64_t next = catalog_next_id(c);
	size_t before = catalog_count(c);
	struct timespec t0, t1;

	ASSERT_TRUE(mkdtemp(out));
	/* Made newest first: the directory's order is not the ids'. */
	for (int i = N - 1; i >= 0; i--) {
		ASSERT_TRUE(asprintf(&p, "%s/snap-%llu-20261123-101010-0", out,
				     (unsigned long long)next + (unsigned)i) > 0);
		ASSERT_EQ(mkdir(p, 0755), 0);
		free(p);
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ASSERT_EQ(adopt_orphans(c, out), N);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	/* For the record, not asserted: the time depends on the machine. */
	fprintf(stderr, "%d orphans adopted in %.3f s\n", N,
		(double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
	ASSERT_EQ(catalog_count(c), before + N);
	for (size_t i = 1; i < N; i++)
		ASSERT_TRUE(catalog_at(c, before + i)->id == catalog_at(c, before + i - 1)->id + 1);
	ASSERT_EQ(catalog_next_id(c), next + N);
	ASSERT_EQ(adopt_orphans(c, out), 0);
	/* Latencyd's to delete once its output directory is OUT. */
	ASSERT_EQ(catalog_set_output(c, out, "snap"), 0);
	while (catalog_count(c) > before)
		ASSERT_EQ(catalog_delete(c, catalog_at(c, before)->id), 0);
	ASSERT_EQ(rm_tree(out), 0);
	close_saved(c);
}

/*
 * A snapshot directory that is a dead FUSE mount (its server gone: stat(2) fails ENOTCONN),
 * made in the mount namespace of the child running this. CONN is closed at once.
 */
static void dead_fuse(const char *path)
{
	char opts[96];
	int fd;

	ASSERT_EQ(mkdir(path, 0755), 0);
	fd = open("/dev/fuse", O_RDWR | O_CLOEXEC);
	if (fd < 0)
		_exit(EXIT_TEST_SKIP);
	snprintf(opts, sizeof(opts), "fd=%d,rootmode=40000,user_id=0,group_id=0", fd);
	if (mount("latencyd-test", path, "fuse", MS_NOSUID | MS_NODEV, opts) < 0)
		_exit(EXIT_TEST_SKIP);
	close(fd);
}

/* In the child of test_orphan_faults(), in its own mount namespace: exit 0, or 77 to skip. */
static void orphan_faults(struct catalog *c, const char *out, uint64_t next)
{
	struct catalog_adoption a;
	char *p;

	if (unshare(CLONE_NEWNS) < 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		_exit(EXIT_TEST_SKIP);
	for (unsigned i = 0; i < 5; i++) {
		ASSERT_TRUE(asprintf(&p, "%s/snap-%llu-20261123-101010-0", out,
				     (unsigned long long)next + i) > 0);
		if (i == 0 || i == 4)
			dead_fuse(p);
		else if (i == 2)
			ASSERT_EQ(mkfifo(p, 0644), 0);
		else
			ASSERT_EQ(mkdir(p, 0755), 0);
		free(p);
	}
	/* A second directory of one id. */
	ASSERT_TRUE(asprintf(&p, "%s/snap-%llu-20261123-101011-0", out,
			     (unsigned long long)next + 3) > 0);
	ASSERT_EQ(mkdir(p, 0755), 0);
	free(p);
	ASSERT_EQ(catalog_adopt_orphans(c, out, "snap", &a), 0);
	ASSERT_EQ(a.adopted, 2);
	ASSERT_EQ(a.problems, 2);
	ASSERT_TRUE(!catalog_find(c, next) && catalog_find(c, next + 1) &&
		    !catalog_find(c, next + 2) && catalog_find(c, next + 3));
	ASSERT_CONTAINS(catalog_find(c, next + 3)->name, "-101010-0");
	/* The ids of those that could not be looked at are never handed out: they may be
	 * snapshots, to adopt at a start that can look at them. */
	ASSERT_EQ(catalog_next_id(c), next + 5);
	_exit(0);
}

/*
 * Orphans that cannot be looked at (a dead FUSE mount: ENOTCONN), before and after those
 * that can: each said with its path and its error, and the others adopted all the same; a
 * FIFO is no snapshot; of two directories with one id, the one left is said once.
 */
static void test_orphan_faults(void)
{
	struct catalog *c = reopen(NULL, NULL);
	char out[] = "/tmp/test-catalog-faults.XXXXXX", *logged;
	struct test_capture capture;
	uint64_t next;
	int status;
	pid_t pid;

	delete_all(c);
	next = catalog_next_id(c);
	ASSERT_TRUE(mkdtemp(out));
	test_capture_start(&capture, STDERR_FILENO);
	pid = fork();
	ASSERT_TRUE(pid >= 0);
	if (pid == 0)
		orphan_faults(c, out, next);
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	logged = test_capture_end(&capture);
	fputs(logged, stderr);
	ASSERT_TRUE(WIFEXITED(status));
	if (WEXITSTATUS(status) == EXIT_TEST_SKIP) {
		fprintf(stderr, "SKIP: test_orphan_faults needs a mount namespace and FUSE\n");
	} else {
		ASSERT_EQ(WEXITSTATUS(status), 0);
		ASSERT_CONTAINS(logged, "-0: Transport endpoint is not connected: cannot tell "
					"whether it is a snapshot missing from the catalog");
		ASSERT_CONTAINS(logged, "-0 is not a directory: not adopted as a snapshot");
		ASSERT_CONTAINS(logged, "-101011-0: a second directory of snapshot");
	}
	free(logged);
	ASSERT_EQ(rm_tree(out), 0);
	close_saved(c);
}

/* Opens the catalog of TEXT; what it logged in *LOGGED (to free). */
static struct catalog *open_text(const char *text, bool *recovered, char **logged)
{
	struct test_capture capture;
	struct catalog *c;
	char *path;

	ASSERT_TRUE(asprintf(&path, "%s/%s", dir, CATALOG_FILE) > 0);
	write_file(path, text);
	test_capture_start(&capture, STDERR_FILENO);
	c = reopen(NULL, recovered);
	*logged = test_capture_end(&capture);
	free(path);
	return c;
}

/* An entry another latencyd wrote: its unreadable members are logged with its id, the
 * entry is kept, and what this latencyd does not know is written back as it was. */
static void test_unreadable_fields_reported(void)
{
	char *path, *logged, *text = NULL;
	struct catalog *c;
	size_t size = 0;
	FILE *f;

	ASSERT_TRUE(asprintf(&path, "%s/%s", dir, CATALOG_FILE) > 0);
	c = open_text("{\"version\": 1, \"next_id\": 8, \"snapshots\": [{\"id\": 7, "
		      "\"status\": \"complete\", \"time\": \"yesterday\", \"zone\": \"b\", "
		      "\"causes\": [{\"tracker\": \"block\", \"pid\": 1.5}]}], "
		      "\"suppressed\": {\"total\": 0, \"by_tracker\": {}, \"recent\": []}}",
		      NULL, &logged);
	ASSERT_CONTAINS(logged, "catalog.json: snapshot 7: time: must be a non-negative integer");
	ASSERT_CONTAINS(logged, "catalog.json: snapshot 7: causes[0].pid: must be an integer");
	ASSERT_CONTAINS(logged, "catalog.json: snapshot 7: zone: unknown to this latencyd; kept");
	ASSERT_TRUE(catalog_find(c, 7));
	ASSERT_EQ(catalog_find(c, 7)->status, CATALOG_COMPLETE);
	ASSERT_STREQ(catalog_find(c, 7)->causes[0].tracker, "block");
	close_saved(c);
	f = fopen(path, "r");
	ASSERT_TRUE(f && getdelim(&text, &size, 0, f) > 0);
	fclose(f);
	ASSERT_CONTAINS(text, "\"zone\":\"b\"");
	ASSERT_TRUE(!strstr(text, "yesterday"));
	ASSERT_EQ(unlink(path), 0);
	free(logged);
	free(text);
	free(path);
}

#if defined(__SANITIZE_ADDRESS__)
#define HEAP_COUNTED 0 /* ASan's allocator does not fill mallinfo2() */
#else
#define HEAP_COUNTED 1
#endif

static size_t heap_in_use(void)
{
	struct mallinfo2 m = mallinfo2();

	return m.uordblks + m.hblkhd;
}

/* The text printed for the file is not kept: it would be a second copy of the catalog. */
static void test_save_keeps_no_text(void)
{
	struct catalog *c = reopen(NULL, NULL);
	char note[1024], *file;
	size_t before, after;
	size_t n0 = catalog_count(c);
	struct stat st;
	uint64_t id;

	memset(note, 'x', sizeof(note) - 1);
	note[sizeof(note) - 1] = 0;
	for (int i = 0; i < 256; i++) {
		struct catalog_entry *e = catalog_new_entry(c, &id);

		e->status = CATALOG_COMPLETE;
		e->error = strdup(note);
	}
	before = heap_in_use();
	ASSERT_EQ(catalog_save(c), 0);
	after = heap_in_use();
	ASSERT_TRUE(asprintf(&file, "%s/%s", dir, CATALOG_FILE) > 0);
	ASSERT_EQ(stat(file, &st), 0);
	ASSERT_TRUE(st.st_size > 256 * 1024);
	if (HEAP_COUNTED)
		ASSERT_TRUE(after < before + (size_t)st.st_size / 8);
	else
		printf("test_save_keeps_no_text: heap not counted under ASan\n");
	/* The same text as the catalog printed whole: every entry, in order. */
	catalog_free(c);
	ASSERT_EQ(catalog_open(dir, &c, &(bool){false}), 0);
	ASSERT_EQ(catalog_count(c), n0 + 256);
	ASSERT_EQ(catalog_next_id(c), id + 1);
	for (size_t i = n0; i < n0 + 256; i++)
		ASSERT_STREQ(catalog_at(c, i)->error, note);
	delete_all(c);
	close_saved(c);
	free(file);
}

/*
 * A catalog edited by hand, restored from elsewhere or damaged: retention never removes a
 * directory that is not one of latencyd's snapshots (the entry goes, the files stay), ids
 * are not handed out twice, and odd incidents and suppressed counts crash nothing.
 */
static void test_edited_catalog(void)
{
	char *path, *victim, *link, *text;
	struct retention keep_one = {.max_count = 1};
	struct catalog *c;
	struct stat st;
	uint64_t id;

	ASSERT_TRUE(asprintf(&path, "%s/%s", dir, CATALOG_FILE) > 0);
	ASSERT_TRUE(asprintf(&victim, "%s/victim", dir) > 0);
	ASSERT_TRUE(asprintf(&link, "%s/snap-2-20261127-000000-0", dir) > 0);
	ASSERT_EQ(mkdir(victim, 0755), 0);
	ASSERT_EQ(symlink(victim, link), 0);
	ASSERT_TRUE(asprintf(&text,
			     "{\"version\":1,\"next_id\":1,\"suppressed\":{},\"snapshots\":["
			     "{\"id\":1,\"status\":\"complete\",\"time\":10,\"name\":\"snap-1\","
			     "\"path\":\"%s\"},"
			     "{\"id\":2,\"status\":\"complete\",\"time\":20,\"name\":\"snap-2\","
			     "\"path\":\"%s\"},"
			     "{\"id\":3,\"status\":\"complete\",\"time\":30}],"
			     "\"incidents\":[\"h-1\",{\"incident\":null},{\"incident\":\"h-2\","
			     "\"members\":[null,\"h\"],\"recorded\":[7],\"details\":[]}]}",
			     victim, link) > 0);
	write_file(path, text);
	c = reopen(NULL, NULL);
	ASSERT_EQ(catalog_count(c), 3);
	/* next_id 1 in the file, ids up to 3 kept. */
	ASSERT_TRUE(catalog_new_entry(c, &id) && id == 4);
	ASSERT_EQ(catalog_delete(c, id), 0);
	ASSERT_EQ(catalog_apply_retention(c, &keep_one, 100), 2);
	ASSERT_EQ(stat(victim, &st), 0);
	ASSERT_EQ(lstat(link, &st), 0);
	ASSERT_EQ(json_object_array_length(catalog_incidents(c)), 1);
	ASSERT_EQ(catalog_incident_note(c, "h-2", "h9", PROTO_FLEET_RECORDED, "p", 100), 0);
	ASSERT_EQ(catalog_incident_members(c, "h-3", (const char *const[]){"h"}, 1, 100), 0);
	catalog_add_suppressed(c, "syscalls", NULL, 3);
	ASSERT_EQ(json_object_get_int64(json_object_object_get(catalog_suppressed(c), "total")), 3);
	delete_all(c);
	close_saved(c);
	ASSERT_EQ(unlink(link), 0);
	ASSERT_EQ(rmdir(victim), 0);
	free(text);
	free(link);
	free(victim);
	free(path);
}

/* Age alone: an entry without a time, or ahead of the clock, hides no older one. */
static void test_age_past_an_undated_entry(void)
{
	struct retention week = {.max_age_sec = 7 * 86400};
	struct catalog *c = reopen(NULL, NULL);
	uint64_t undated, old, fresh;

	delete_all(c);
	undated = add_snapshot(c, 0, 4096, CATALOG_FAILED);
	old = add_snapshot(c, 1000, 4096, CATALOG_COMPLETE);
	fresh = add_snapshot(c, 30 * 86400, 4096, CATALOG_COMPLETE);
	ASSERT_EQ(catalog_apply_retention(c, &week, 31 * 86400), 1);
	ASSERT_TRUE(catalog_find(c, undated) && !catalog_find(c, old) && catalog_find(c, fresh));
	delete_all(c);
	close_saved(c);
}

/*
 * The file is what json-c prints of the whole document, byte for byte, although the save
 * prints each snapshot on its own: nested causes, stacks and analysis at their depth.
 */
static void test_save_prints_as_one_document(void)
{
	struct catalog *c = reopen(NULL, NULL);
	const char *frames[] = {"schedule+0x2f/0xa0", "io_schedule+0x12/0x40", "\"quoted\"\n"};
	struct json_object *doc;
	char *file, *text;
	uint64_t id;

	for (int i = 0; i < 3; i++) {
		struct catalog_entry *e = catalog_new_entry(c, &id);
		struct catalog_stack *st = calloc(1, sizeof(*st));

		ASSERT_TRUE(e && st);
		e->status = CATALOG_COMPLETE;
		e->name = strdup("latencyd-1-20261127-050000-0");
		e->causes = calloc(2, sizeof(*e->causes));
		ASSERT_TRUE(e->causes);
		e->n_causes = 2;
		e->causes[0].tracker = strdup("syscalls");
		e->causes[0].reason = strdup(PROTO_REASON_THRESHOLD);
		e->causes[0].comm = strdup("pg {x}");
		e->causes[1].tracker = strdup("wakeup");
		e->causes[1].reason = strdup(PROTO_REASON_THRESHOLD);
		st->kind = strdup("blocked");
		st->frames = calloc(3, sizeof(*st->frames));
		ASSERT_TRUE(st->frames);
		for (size_t f = 0; f < 3; f++)
			st->frames[f] = strdup(frames[f]);
		st->n_frames = 3;
		e->causes[0].stack = st;
	}
	ASSERT_EQ(catalog_save(c), 0);
	ASSERT_TRUE(asprintf(&file, "%s/%s", dir, CATALOG_FILE) > 0);
	text = read_file_text(file);
	ASSERT_TRUE(strlen(text) > 1 && text[strlen(text) - 1] == '\n');
	text[strlen(text) - 1] = '\0'; /* the file ends its last line */
	doc = json_object_from_file(file);
	ASSERT_TRUE(doc);
	ASSERT_STREQ(text, json_object_to_json_string_ext(
				   doc, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
	ASSERT_TRUE(strstr(text, "\n    {\n      \"id\":"));
	json_object_put(doc);
	free(text);
	free(file);
	delete_all(c);
	close_saved(c);
}

/*
 * Entries nothing could name (not an object, no id, an id out of range) are each reported
 * with the file and their place and left out, the others kept; the file as it was is kept
 * aside. Of an id met twice the first entry is kept, the other reported and left out; a
 * next_id no id can follow starts past the ids kept.
 */
static void test_hostile_entries(void)
{
	static const char text[] =
		"{\"version\": 1, \"next_id\": -5, \"snapshots\": [7, {\"id\": \"x\"}, "
		"{\"id\": -3, \"status\": \"complete\"}, "
		"{\"id\": 9223372036854775807, \"status\": \"complete\"}, "
		"{\"id\": 2, \"status\": \"complete\"}, {\"id\": 5, \"status\": \"failed\"}, "
		"{\"id\": 2, \"status\": \"failed\"}, {\"status\": \"complete\"}], "
		"\"suppressed\": {\"total\": 0, \"by_tracker\": {}, \"recent\": []}}";
	char *logged, *aside, *older, *kept;
	struct catalog *c;
	bool recovered;
	uint64_t id;

	/* A copy kept from an earlier damage is never replaced: this one is .corrupt.1. */
	ASSERT_TRUE(asprintf(&older, "%s/%s.corrupt", dir, CATALOG_FILE) > 0);
	write_file(older, "older");
	c = open_text(text, &recovered, &logged);
	ASSERT_TRUE(recovered);
	ASSERT_EQ(catalog_count(c), 2);
	ASSERT_EQ(catalog_at(c, 0)->id, 2);
	ASSERT_EQ(catalog_at(c, 0)->status, CATALOG_COMPLETE);
	ASSERT_EQ(catalog_at(c, 1)->id, 5);
	ASSERT_CONTAINS(logged, "catalog.json: snapshots[0]: not an object; left out");
	ASSERT_CONTAINS(logged, "catalog.json: snapshots[1]: id must be an integer");
	ASSERT_CONTAINS(logged, "catalog.json: snapshots[2]: id must be an integer");
	ASSERT_CONTAINS(logged, "catalog.json: snapshots[3]: id must be an integer");
	ASSERT_CONTAINS(logged, "catalog.json: snapshots[6]: snapshot 2 again, first at "
				"snapshots[4]: left out, the first kept (the file as it was: ");
	ASSERT_CONTAINS(logged, "catalog.json: snapshots[7]: no id; left out");
	ASSERT_CONTAINS(logged, "catalog.json: next_id -5 must be");
	ASSERT_CONTAINS(logged, "(the file as it was: ");
	ASSERT_CONTAINS(logged, "catalog.json.corrupt.1)");
	ASSERT_TRUE(asprintf(&aside, "%s/%s.corrupt.1", dir, CATALOG_FILE) > 0);
	kept = read_file_text(aside);
	ASSERT_STREQ(kept, text);
	free(kept);
	kept = read_file_text(older);
	ASSERT_STREQ(kept, "older");
	free(kept);
	kept = read_file_text(aside);
	/* Past the ids kept, and never past what the file's int64 holds. */
	ASSERT_EQ(catalog_next_id(c), 6);
	ASSERT_TRUE(catalog_new_entry(c, &id) && id == 6);
	catalog_find(c, id)->status = CATALOG_COMPLETE;
	close_saved(c);
	free(kept);
	kept = read_file_text(aside);
	ASSERT_STREQ(kept, text); /* the save replaced the catalog, not its copy */
	c = reopen(NULL, &recovered);
	ASSERT_TRUE(!recovered);
	ASSERT_EQ(catalog_count(c), 3);
	delete_all(c);
	close_saved(c);
	ASSERT_EQ(unlink(aside), 0);
	ASSERT_EQ(unlink(older), 0);
	free(older);
	free(kept);
	free(aside);
	free(logged);
}

/*
 * Sizes and counts edited to values near 2^63: the catalog's byte total stops at its
 * largest value instead of wrapping to a small one (which kept retention from deleting),
 * and the suppressed counts stop at the file's largest integer.
 */
static void test_huge_sizes_and_counts(void)
{
	struct retention r = {.max_bytes = 1000};
	struct json_object *sup, *v;
	struct catalog *c;
	char *logged;
	bool recovered;

	c = open_text("{\"version\": 1, \"next_id\": 5, \"snapshots\": ["
		      "{\"id\": 1, \"status\": \"complete\", \"bytes\": 500}, "
		      "{\"id\": 2, \"status\": \"complete\", \"bytes\": 18446744073709551615}, "
		      "{\"id\": 3, \"status\": \"complete\", \"bytes\": 9223372036854775807}, "
		      "{\"id\": 4, \"status\": \"complete\", \"bytes\": 2}], "
		      "\"suppressed\": {\"total\": 9223372036854775807, "
		      "\"by_tracker\": {\"syscalls\": 9223372036854775806}, \"recent\": []}}",
		      &recovered, &logged);
	ASSERT_EQ(catalog_count(c), 4);
	ASSERT_EQ(catalog_apply_retention(c, &r, 100), 3);
	ASSERT_EQ(catalog_count(c), 1);
	ASSERT_EQ(catalog_at(c, 0)->id, 4);

	catalog_add_suppressed(c, "syscalls", NULL, 3);
	sup = catalog_suppressed(c);
	ASSERT_TRUE(json_object_object_get_ex(sup, "total", &v));
	ASSERT_TRUE(json_object_get_int64(v) == INT64_MAX);
	ASSERT_TRUE(json_object_object_get_ex(sup, "by_tracker", &v));
	ASSERT_TRUE(json_object_get_int64(json_object_object_get(v, "syscalls")) == INT64_MAX);
	delete_all(c);
	close_saved(c);
	free(logged);
}

/* In the child of test_full_disk(), in its own mount namespace: exit 0, or 77 to skip. */
static void full_disk(const char *mnt)
{
	char *cat, *fill, warning[512], block[4096] = {0};
	struct catalog *c = NULL;
	bool rec;
	int fd;

	if (unshare(CLONE_NEWNS) < 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		_exit(EXIT_TEST_SKIP);
	ASSERT_EQ(mount("tmpfs", mnt, "tmpfs", 0, "size=64k,mode=0755"), 0);
	ASSERT_TRUE(asprintf(&cat, "%s/catalog", mnt) > 0);
	ASSERT_TRUE(asprintf(&fill, "%s/fill", mnt) > 0);
	ASSERT_EQ(mkdir(cat, 0750), 0);
	fd = open(fill, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	ASSERT_TRUE(fd >= 0);
	while (write(fd, block, sizeof(block)) > 0)
		;
	ASSERT_EQ(errno, ENOSPC);
	close(fd);
	/* No catalog yet and no room for one: latencyd still starts, and says so. */
	ASSERT_EQ(catalog_open(cat, &c, &rec), 0);
	ASSERT_EQ(catalog_count(c), 0);
	log_last_warning(warning, sizeof(warning));
	ASSERT_CONTAINS(warning, "No space left on device");
	ASSERT_CONTAINS(warning, cat);
	ASSERT_EQ(catalog_save(c), -ENOSPC);
	catalog_free(c);
	/* Room again: the save works. */
	ASSERT_EQ(unlink(fill), 0);
	ASSERT_EQ(catalog_open(cat, &c, &rec), 0);
	catalog_free(c);
	/* Read-only is the configuration's mistake: still fatal. */
	free(fill);
	ASSERT_TRUE(asprintf(&fill, "%s/%s", cat, CATALOG_FILE) > 0);
	ASSERT_EQ(unlink(fill), 0);
	ASSERT_EQ(mount(NULL, mnt, NULL, MS_REMOUNT | MS_RDONLY, "size=64k"), 0);
	ASSERT_EQ(catalog_open(cat, &c, &rec), -EROFS);
	ASSERT_EQ(umount(mnt), 0);
	free(cat);
	free(fill);
	_exit(0);
}

/* A full disk (a 64 KiB tmpfs, filled): false when it could not be made (not root). */
static bool test_full_disk(void)
{
	char *mnt;
	pid_t pid;
	int status;

	ASSERT_TRUE(asprintf(&mnt, "%s/full", dir) > 0);
	ASSERT_EQ(mkdir(mnt, 0755), 0);
	if (geteuid() != 0) {
		rmdir(mnt);
		free(mnt);
		return false;
	}
	pid = fork();
	ASSERT_TRUE(pid >= 0);
	if (pid == 0)
		full_disk(mnt);
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(rmdir(mnt), 0);
	free(mnt);
	if (WEXITSTATUS(status) == EXIT_TEST_SKIP)
		return false;
	ASSERT_EQ(WEXITSTATUS(status), 0);
	return true;
}

/* Whether the entry of ID has STATUS and the deletion STATE with a note holding TEXT, its
 * bytes what is on disk. */
static void expect_note(struct catalog *c, uint64_t id, enum catalog_status status,
			enum catalog_deletion state, const char *text)
{
	struct catalog_entry *e = catalog_find(c, id);

	ASSERT_TRUE(e && e->deletion_note);
	ASSERT_EQ(e->status, status);
	ASSERT_EQ(e->deletion, state);
	ASSERT_CONTAINS(e->deletion_note, text);
	ASSERT_EQ(e->bytes, dir_size(e->path));
}

/* A time for catalog_recheck_undeletable(): N rechecks' periods on. */
#define RECHECK_AT(n) ((uint64_t)(n)*CATALOG_RECHECK_USEC)

/*
 * An immutable file deep in the oldest snapshot (chattr +i): it cannot be deleted, so none
 * of it is; its entry says why (logged once, not at every save), and retention goes on to
 * the next oldest instead of stopping there for good.
 */
static void test_undeletable_snapshot(void)
{
	const struct retention r = {.max_count = 2};
	struct catalog_deletions d;
	struct test_capture capture;
	char *file, *logged, *p;
	struct catalog *c;
	uint64_t ids[3], newest;

	c = reopen(NULL, NULL);
	delete_all(c);
	for (int i = 0; i < 3; i++)
		ids[i] = add_snapshot(c, 1000 + (uint64_t)i * 100, 8192, CATALOG_COMPLETE);
	p = strdup(catalog_find(c, ids[0])->path);
	ASSERT_TRUE(asprintf(&file, "%s/kernel/index", p) > 0);
	ASSERT_EQ(mkdir_p(file, 0755), 0);
	free(file);
	ASSERT_TRUE(asprintf(&file, "%s/kernel/index/chan_0.idx", p) > 0);
	write_file(file, "index");
	test_immutable(file, true);
	catalog_find(c, ids[0])->bytes = dir_size(p);
	catalog_find(c, ids[0])->error = strdup("a note of the record");

	/* Kept, and not held against the others: none goes in its place. */
	test_capture_start(&capture, STDERR_FILENO);
	ASSERT_EQ(catalog_apply_retention(c, &r, 2000), 0);
	ASSERT_EQ(catalog_apply_retention(c, &r, 2000), 0);
	logged = test_capture_end(&capture);
	ASSERT_TRUE(catalog_find(c, ids[0]) && catalog_find(c, ids[1]) && catalog_find(c, ids[2]));
	/* Past max_count without it, the oldest of the others goes. */
	newest = add_snapshot(c, 1300, 8192, CATALOG_COMPLETE);
	ASSERT_EQ(catalog_apply_retention(c, &r, 2000), 1);
	ASSERT_TRUE(catalog_find(c, ids[0]) && !catalog_find(c, ids[1]) &&
		    catalog_find(c, ids[2]) && catalog_find(c, newest));
	expect_note(c, ids[0], CATALOG_COMPLETE, CATALOG_DELETION_UNDELETABLE,
		    "/kernel/index/chan_0.idx: Operation not permitted");
	/* What the entry said of its record stays as it was. */
	ASSERT_STREQ(catalog_find(c, ids[0])->error, "a note of the record");
	ASSERT_EQ(access(file, F_OK), 0);
	ASSERT_CONTAINS(logged, "cannot be deleted: ");
	ASSERT_TRUE(!strstr(strstr(logged, "cannot be deleted") + 1, "cannot be deleted"));
	/* Counted while it is there, not once per pass; none of it went. */
	catalog_deletions(c, &d);
	ASSERT_EQ(d.undeletable, 1);
	ASSERT_EQ(d.deleted_in_part, 0);
	/* Still there after a restart: its entry says so. */
	c = reopen(c, NULL);
	catalog_deletions(c, &d);
	ASSERT_EQ(d.undeletable, 1);
	expect_note(c, ids[0], CATALOG_COMPLETE, CATALOG_DELETION_UNDELETABLE,
		    "/kernel/index/chan_0.idx: Operation not permitted");
	ASSERT_STREQ(catalog_find(c, ids[0])->error, "a note of the record");
	/* Deletable again: it goes at the next pass. */
	test_immutable(file, false);
	ASSERT_EQ(catalog_delete(c, ids[0]), 0);
	ASSERT_EQ(access(p, F_OK), -1);
	catalog_deletions(c, &d);
	ASSERT_EQ(d.undeletable, 0);
	free(file);
	free(logged);
	free(p);
	close_saved(c);
}

/*
 * The check passes, then the deletion fails anyway (the snapshot's directory made immutable
 * between the two: a real fault of a real file system). The entry stays, true to what is
 * left: failed, its bytes what is on disk, its error what went and where it stopped.
 */
static void test_fault_after_check(void)
{
	struct catalog *c = reopen(NULL, NULL);
	uint64_t id = add_snapshot(c, 1000, 8192, CATALOG_COMPLETE);
	struct catalog_entry *e = catalog_find(c, id);
	struct test_fault f;
	char *watched, *file;

	ASSERT_TRUE(asprintf(&watched, "%s/kernel", e->path) > 0);
	ASSERT_EQ(mkdir(watched, 0755), 0);
	ASSERT_TRUE(asprintf(&file, "%s/chan_0", watched) > 0);
	write_file(file, "events");
	e->bytes = dir_size(e->path);
	test_fault_arm(&f, watched, e->path);
	ASSERT_EQ(catalog_delete(c, id), -EPERM);
	test_fault_done(&f);
	ASSERT_EQ(access(file, F_OK), -1);
	ASSERT_TRUE(catalog_find(c, id) == e);
	expect_note(c, id, CATALOG_FAILED, CATALOG_DELETION_PARTIAL,
		    "/kernel: Operation not permitted; ");
	ASSERT_CONTAINS(e->deletion_note, " bytes deleted");
	ASSERT_TRUE(!e->error);
	/* As saved, as read back. */
	c = reopen(c, NULL);
	e = catalog_find(c, id);
	ASSERT_TRUE(e && e->status == CATALOG_FAILED && e->bytes == dir_size(e->path));
	expect_note(c, id, CATALOG_FAILED, CATALOG_DELETION_PARTIAL,
		    "/kernel: Operation not permitted; ");
	test_immutable(e->path, false);
	ASSERT_EQ(catalog_delete(c, id), 0);
	ASSERT_TRUE(!catalog_find(c, id));
	free(watched);
	free(file);
	close_saved(c);
}

/*
 * Retention meets the same fault: the snapshot stays as what is left, counted as a deletion
 * that failed part way and as a snapshot left; under max_count 1, the newest (the one just
 * recorded) is not deleted in its place.
 */
static void test_retention_fault_after_check(void)
{
	const struct retention r = {.max_count = 1};
	struct catalog *c = reopen(NULL, NULL);
	struct catalog_deletions d;
	struct catalog_entry *e;
	struct test_fault f;
	char *watched, *file;
	uint64_t ids[2];

	delete_all(c);
	for (int i = 0; i < 2; i++)
		ids[i] = add_snapshot(c, 1000 + (uint64_t)i * 100, 8192, CATALOG_COMPLETE);
	e = catalog_find(c, ids[0]);
	ASSERT_TRUE(asprintf(&watched, "%s/kernel", e->path) > 0);
	ASSERT_EQ(mkdir(watched, 0755), 0);
	ASSERT_TRUE(asprintf(&file, "%s/chan_0", watched) > 0);
	write_file(file, "events");
	e->bytes = dir_size(e->path);
	test_fault_arm(&f, watched, e->path);
	ASSERT_EQ(catalog_apply_retention(c, &r, 2000), 0);
	test_fault_done(&f);
	ASSERT_TRUE(catalog_find(c, ids[0]) == e && catalog_find(c, ids[1]));
	expect_note(c, ids[0], CATALOG_FAILED, CATALOG_DELETION_PARTIAL,
		    "/kernel: Operation not permitted");
	catalog_deletions(c, &d);
	ASSERT_EQ(d.deleted_in_part, 1);
	ASSERT_EQ(d.undeletable, 1);
	/* Deletable again: what is left is said so, no longer undeletable, and it counts
	 * against max_count again: the next pass deletes it, not the newest. */
	test_immutable(e->path, false);
	ASSERT_EQ(catalog_recheck_undeletable(c, RECHECK_AT(1)), 1);
	expect_note(c, ids[0], CATALOG_FAILED, CATALOG_DELETION_PARTIAL_DELETABLE,
		    "/kernel: Operation not permitted");
	catalog_deletions(c, &d);
	ASSERT_EQ(d.deleted_in_part, 1);
	ASSERT_EQ(d.undeletable, 0);
	ASSERT_EQ(catalog_apply_retention(c, &r, 2000), 1);
	ASSERT_TRUE(!catalog_find(c, ids[0]) && catalog_find(c, ids[1]));
	free(watched);
	free(file);
	close_saved(c);
}

/* The snapshot of ID given an immutable file (its path in *FILE, to free); its deletion by a
 * client fails, which notes it undeletable. */
static void make_undeletable(struct catalog *c, uint64_t id, char **file)
{
	struct catalog_entry *e = catalog_find(c, id);

	ASSERT_TRUE(asprintf(file, "%s/chan_0", e->path) > 0);
	write_file(*file, "events");
	test_immutable(*file, true);
	e->bytes = dir_size(e->path);
	ASSERT_EQ(catalog_delete(c, id), -EPERM);
	expect_note(c, id, CATALOG_COMPLETE, CATALOG_DELETION_UNDELETABLE,
		    "/chan_0: Operation not permitted");
}

/*
 * A snapshot known undeletable is held against neither max_count nor max_bytes from the
 * start of a pass: with [A, B undeletable, C] and max_count 2, A is not deleted before the
 * walk reaches B.
 */
static void test_retention_known_undeletable(void)
{
	struct catalog *c = reopen(NULL, NULL);
	struct retention r = {.max_count = 2};
	uint64_t ids[3];
	char *file;

	delete_all(c);
	for (int i = 0; i < 3; i++)
		ids[i] = add_snapshot(c, 1000 + (uint64_t)i * 100, 8192, CATALOG_COMPLETE);
	make_undeletable(c, ids[1], &file);
	ASSERT_EQ(catalog_apply_retention(c, &r, 2000), 0);
	ASSERT_TRUE(catalog_find(c, ids[0]) && catalog_find(c, ids[1]) && catalog_find(c, ids[2]));
	/* Nor against max_bytes: A and C hold 2 * 8 KiB. */
	r = (struct retention){.max_bytes = catalog_find(c, ids[0])->bytes * 2};
	ASSERT_EQ(catalog_apply_retention(c, &r, 2000), 0);
	ASSERT_EQ(catalog_count(c), 3);
	/* Past the limit without it, the oldest of the others goes. */
	r = (struct retention){.max_count = 1};
	ASSERT_EQ(catalog_apply_retention(c, &r, 2000), 1);
	ASSERT_TRUE(!catalog_find(c, ids[0]) && catalog_find(c, ids[1]) && catalog_find(c, ids[2]));
	test_immutable(file, false);
	free(file);
	delete_all(c);
	close_saved(c);
}

/*
 * An undeletable snapshot forgotten (delete-snapshot --keep-files): its entry goes, saved so,
 * its files stay; the undeletable count drops, its id is not handed out again, and an
 * unknown id is -ENOENT.
 */
static void test_forget_undeletable(void)
{
	struct catalog *c = reopen(NULL, NULL);
	struct catalog_deletions d;
	uint64_t ids[2], next;
	char *file, *path;

	delete_all(c);
	for (int i = 0; i < 2; i++)
		ids[i] = add_snapshot(c, 1000 + (uint64_t)i * 100, 8192, CATALOG_COMPLETE);
	make_undeletable(c, ids[0], &file);
	path = strdup(catalog_find(c, ids[0])->path);
	ASSERT_TRUE(path != NULL);
	catalog_deletions(c, &d);
	ASSERT_EQ(d.undeletable, 1);
	ASSERT_EQ(catalog_forget(c, ids[0]), 0);
	ASSERT_EQ(catalog_forget(c, ids[0]), -ENOENT);
	ASSERT_TRUE(!catalog_find(c, ids[0]) && catalog_find(c, ids[1]));
	catalog_deletions(c, &d);
	ASSERT_EQ(d.undeletable, 0);
	ASSERT_EQ(access(file, F_OK), 0);
	c = reopen(c, NULL);
	ASSERT_TRUE(!catalog_find(c, ids[0]) && catalog_find(c, ids[1]));
	next = add_snapshot(c, 1300, 8192, CATALOG_COMPLETE);
	ASSERT_TRUE(next > ids[1]);
	test_immutable(file, false);
	ASSERT_EQ(rm_tree(path), 0);
	free(path);
	free(file);
	delete_all(c);
	close_saved(c);
}

/*
 * The undeletable count is true to the disk: once the cause is gone (chattr -i), a recheck
 * says so, without deleting the snapshot, and keeps what the entry said of its record.
 * Retention alone does not walk it again.
 */
static void test_undeletable_cleared(void)
{
	const struct retention r = {.max_count = 10};
	struct catalog *c = reopen(NULL, NULL);
	struct test_capture capture;
	struct catalog_deletions d;
	struct catalog_entry *e;
	char *file, *logged;
	uint64_t id;

	delete_all(c);
	id = add_snapshot(c, 1000, 8192, CATALOG_COMPLETE);
	e = catalog_find(c, id);
	e->error = strdup("a note of the record");
	make_undeletable(c, id, &file);
	ASSERT_EQ(catalog_apply_retention(c, &r, 2000), 0);
	catalog_deletions(c, &d);
	ASSERT_EQ(d.undeletable, 1);
	test_immutable(file, false);
	ASSERT_EQ(catalog_apply_retention(c, &r, 2000), 0);
	catalog_deletions(c, &d);
	ASSERT_EQ(d.undeletable, 1);
	ASSERT_EQ(catalog_recheck_undeletable(c, RECHECK_AT(1)), 1);
	catalog_deletions(c, &d);
	ASSERT_EQ(d.undeletable, 0);
	ASSERT_TRUE(catalog_find(c, id) == e && access(file, F_OK) == 0);
	ASSERT_STREQ(e->error, "a note of the record");
	ASSERT_TRUE(e->deletion == CATALOG_DELETION_NONE && !e->deletion_note);
	/* Checked again when asked (status, metrics): still undeletable, said once. */
	test_immutable(file, true);
	ASSERT_EQ(catalog_delete(c, id), -EPERM);
	test_capture_start(&capture, STDERR_FILENO);
	ASSERT_EQ(catalog_recheck_undeletable(c, RECHECK_AT(2)), 0);
	logged = test_capture_end(&capture);
	ASSERT_STREQ(logged, "");
	free(logged);
	catalog_deletions(c, &d);
	ASSERT_EQ(d.undeletable, 1);
	/* Removed by hand: no longer on disk, so no longer counted. */
	test_immutable(file, false);
	ASSERT_EQ(rm_tree(e->path), 0);
	ASSERT_EQ(catalog_recheck_undeletable(c, RECHECK_AT(3)), 1);
	catalog_deletions(c, &d);
	ASSERT_EQ(d.undeletable, 0);
	ASSERT_STREQ(e->error, "a note of the record");
	ASSERT_TRUE(e->deletion == CATALOG_DELETION_GONE && !e->deletion_note);
	ASSERT_EQ(e->bytes, 0);
	free(file);
	delete_all(c);
	close_saved(c);
}

/*
 * A snapshot directory removed behind latencyd's back frees its room: its entry (kept, with
 * what it said of the latency) holds 0 bytes, and retention deletes no other snapshot for
 * the room it took.
 */
static void test_gone_directory(void)
{
	struct catalog *c = reopen(NULL, NULL);
	struct retention r = {0};
	uint64_t ids[3];

	delete_all(c);
	for (int i = 0; i < 3; i++)
		ids[i] = add_snapshot(c, 1000 + (uint64_t)i * 100, 8192, CATALOG_COMPLETE);
	r.max_bytes = catalog_find(c, ids[0])->bytes * 2;
	ASSERT_EQ(rm_tree(catalog_find(c, ids[2])->path), 0);
	ASSERT_EQ(catalog_apply_retention(c, &r, 2000), 0);
	ASSERT_EQ(catalog_count(c), 3);
	ASSERT_EQ(catalog_find(c, ids[2])->bytes, 0);
	ASSERT_EQ(catalog_find(c, ids[2])->deletion, CATALOG_DELETION_GONE);
	ASSERT_TRUE(!catalog_find(c, ids[2])->error);
	ASSERT_EQ(access(catalog_find(c, ids[0])->path, F_OK), 0);
	delete_all(c);
	close_saved(c);
}

/*
 * A second entry of an id the catalog has is refused, the first kept as it was: the two
 * would share one directory, and retention deleting one would delete the other's.
 */
static void test_duplicate_id_refused(void)
{
	struct catalog *c = reopen(NULL, NULL);
	struct catalog_entry dup = {.status = CATALOG_FAILED};
	uint64_t id;

	delete_all(c);
	id = add_snapshot(c, 1000, 4096, CATALOG_COMPLETE);
	dup.id = id;
	ASSERT_TRUE(asprintf(&dup.name, "snap-%llu", (unsigned long long)id) > 0);
	ASSERT_TRUE(asprintf(&dup.path, "%s", catalog_find(c, id)->path) > 0);
	errno = 0;
	ASSERT_TRUE(!catalog_insert(c, &dup));
	ASSERT_EQ(errno, EEXIST);
	ASSERT_TRUE(dup.name && dup.path); /* left to the caller, as it was */
	ASSERT_EQ(catalog_count(c), 1);
	ASSERT_EQ(catalog_find(c, id)->status, CATALOG_COMPLETE);
	catalog_entry_free(&dup);
	delete_all(c);
	close_saved(c);
}

/* Member KEY of O as a string, NULL: absent. */
static const char *member_string(struct json_object *o, const char *key)
{
	struct json_object *v;

	return json_object_object_get_ex(o, key, &v) ? json_object_get_string(v) : NULL;
}

/* Whether E's deletion state in words is TEXT. */
static void expect_text(const struct catalog_entry *e, const char *text)
{
	char *said = catalog_deletion_text(e);

	ASSERT_STREQ(said, text);
	free(said);
}

/*
 * An entry's deletion state is its own members, in catalog.json and in every form a client
 * reads: "deletion" (absent for none) and "deletion_note", beside "error" as the record
 * said it. A state this latencyd does not know is logged and read as none.
 */
static void test_deletion_state_codec(void)
{
	static const char said[] = "lttng: record failed; cannot be deleted: in its words";
	static const char *const names[] = {
		[CATALOG_DELETION_UNDELETABLE] = PROTO_DELETION_UNDELETABLE,
		[CATALOG_DELETION_PARTIAL] = PROTO_DELETION_PARTIAL,
		[CATALOG_DELETION_PARTIAL_DELETABLE] = PROTO_DELETION_PARTIAL_DELETABLE,
		[CATALOG_DELETION_GONE] = PROTO_DELETION_GONE,
	};
	struct catalog_entry e = {.id = 3, .status = CATALOG_FAILED}, back;
	struct json_object *o;
	struct catalog *c;
	char *logged;

	e.error = strdup(said);
	e.deletion_note = strdup("/s/snap-3/kernel: Operation not permitted; 4096 bytes deleted");
	for (int state = CATALOG_DELETION_UNDELETABLE; state <= CATALOG_DELETION_GONE; state++) {
		e.deletion = (enum catalog_deletion)state;
		for (int form = CATALOG_FORM_FILE; form <= CATALOG_FORM_SUMMARY; form++) {
			o = catalog_entry_to_json(&e, (enum catalog_form)form, 10);
			ASSERT_TRUE(o);
			ASSERT_STREQ(member_string(o, PROTO_KEY_DELETION), names[state]);
			ASSERT_STREQ(member_string(o, PROTO_KEY_DELETION_NOTE), e.deletion_note);
			ASSERT_STREQ(member_string(o, PROTO_KEY_ERROR), said);
			memset(&back, 0, sizeof(back));
			ASSERT_EQ(catalog_entry_from_json(o, &back, NULL, NULL), 0);
			ASSERT_EQ(back.deletion, e.deletion);
			ASSERT_STREQ(back.deletion_note, e.deletion_note);
			ASSERT_STREQ(back.error, said);
			catalog_entry_free(&back);
			json_object_put(o);
		}
	}
	/* In words, as the log and a refused delete-snapshot say it. */
	e.bytes = 8192;
	e.deletion = CATALOG_DELETION_PARTIAL;
	expect_text(&e, "deleted in part: cannot delete /s/snap-3/kernel: Operation not "
			"permitted; 4096 bytes deleted, 8192 left");
	e.deletion = CATALOG_DELETION_PARTIAL_DELETABLE;
	expect_text(&e, "left by a deletion that failed part way: 8192 bytes, deletable now");
	e.deletion = CATALOG_DELETION_GONE;
	expect_text(&e, "its directory is gone (removed outside latencyd): 0 bytes");
	free(e.deletion_note);
	e.deletion_note = strdup("/s/snap-3/chan_0: Operation not permitted");
	e.deletion = CATALOG_DELETION_UNDELETABLE;
	expect_text(&e, "cannot be deleted: /s/snap-3/chan_0: Operation not permitted; kept whole");
	e.deletion = CATALOG_DELETION_NONE;
	free(e.deletion_note);
	e.deletion_note = NULL;
	ASSERT_TRUE(!catalog_deletion_text(&e));
	o = catalog_entry_to_json(&e, CATALOG_FORM_FILE, 0);
	ASSERT_TRUE(o && !member_string(o, PROTO_KEY_DELETION) &&
		    !member_string(o, PROTO_KEY_DELETION_NOTE));
	json_object_put(o);
	catalog_entry_free(&e);

	c = open_text("{\"version\": 1, \"next_id\": 6, \"deletion_members\": true, "
		      "\"suppressed\": {}, \"snapshots\": [{\"id\": 5, \"status\": \"complete\", "
		      "\"deletion\": \"melted\", \"deletion_note\": \"hot\"}]}",
		      NULL, &logged);
	ASSERT_CONTAINS(logged, "snapshot 5: deletion: has a value latencyd does not know");
	ASSERT_EQ(catalog_find(c, 5)->deletion, CATALOG_DELETION_NONE);
	free(logged);
	delete_all(c);
	close_saved(c);
}

/* Whether the entry of ID has the deletion STATE, NOTE and ERROR (NULL: none). */
static void expect_state(struct catalog *c, uint64_t id, enum catalog_deletion state,
			 const char *note, const char *error)
{
	struct catalog_entry *e = catalog_find(c, id);

	ASSERT_TRUE(e);
	ASSERT_EQ(e->deletion, state);
	if (note)
		ASSERT_STREQ(e->deletion_note, note);
	else
		ASSERT_TRUE(!e->deletion_note);
	if (error)
		ASSERT_STREQ(e->error, error);
	else
		ASSERT_TRUE(!e->error);
}

/*
 * A catalog.json of a latencyd before 1.15 kept the deletion state as a note at the end of
 * an entry's error: it loads with that state, the note in its own member and the error left
 * to what the record said, and is saved in the new members, converted once.
 */
static void test_old_notes_converted(void)
{
	static const char old[] =
		"{\"version\": 1, \"next_id\": 8, \"suppressed\": {}, \"snapshots\": ["
		"{\"id\": 1, \"status\": \"complete\", \"error\": \"cannot be deleted: "
		"/s/snap-1/chan_0: Operation not permitted; kept whole\"},"
		"{\"id\": 2, \"status\": \"failed\", \"bytes\": 8192, \"error\": \"lttng: record "
		"failed; deleted in part: cannot delete /s/snap-2/kernel: Operation not "
		"permitted; 4096 bytes deleted, 8192 left\"},"
		"{\"id\": 3, \"status\": \"failed\", \"error\": \"left by a deletion that failed "
		"part way: 8192 bytes, deletable now\"},"
		"{\"id\": 4, \"status\": \"complete\", \"error\": \"found on disk; its directory "
		"is gone (removed outside latencyd): 0 bytes\"},"
		"{\"id\": 5, \"status\": \"failed\", \"error\": \"lttng: x; cannot be deleted: y; "
		"deleted in part: cannot delete /s/snap-5/k: Permission denied; 1 bytes deleted, "
		"2 left\"},"
		"{\"id\": 6, \"status\": \"failed\", \"error\": \"lttng: out; cannot be deleted: "
		"said by the record\"},"
		"{\"id\": 7, \"status\": \"complete\"}]}";
	struct catalog_deletions d;
	struct catalog *c;
	char *path, *logged, *text;

	ASSERT_TRUE(asprintf(&path, "%s/%s", dir, CATALOG_FILE) > 0);
	for (int pass = 0; pass < 2; pass++) {
		/* As converted, then as saved and read back. */
		c = pass ? reopen(NULL, NULL) : open_text(old, NULL, &logged);
		if (!pass) {
			ASSERT_STREQ(logged, "");
			free(logged);
		}
		expect_state(c, 1, CATALOG_DELETION_UNDELETABLE,
			     "/s/snap-1/chan_0: Operation not permitted", NULL);
		expect_state(c, 2, CATALOG_DELETION_PARTIAL,
			     "/s/snap-2/kernel: Operation not permitted; 4096 bytes deleted",
			     "lttng: record failed");
		expect_state(c, 3, CATALOG_DELETION_PARTIAL_DELETABLE, NULL, NULL);
		expect_state(c, 4, CATALOG_DELETION_GONE, NULL, "found on disk");
		expect_state(c, 5, CATALOG_DELETION_PARTIAL,
			     "/s/snap-5/k: Permission denied; 1 bytes deleted",
			     "lttng: x; cannot be deleted: y");
		expect_state(c, 6, CATALOG_DELETION_NONE, NULL,
			     "lttng: out; cannot be deleted: said by the record");
		expect_state(c, 7, CATALOG_DELETION_NONE, NULL, NULL);
		catalog_deletions(c, &d);
		ASSERT_EQ(d.undeletable, 3);
		close_saved(c);
		text = read_file_text(path);
		ASSERT_CONTAINS(text, "\"deletion_members\":true");
		ASSERT_CONTAINS(text, "\"deletion\":\"partial-deletable\"");
		ASSERT_TRUE(!strstr(text, "kept whole") && !strstr(text, "deletable now") &&
			    !strstr(text, "directory is gone") && !strstr(text, "left\""));
		free(text);
	}
	/* Written by this latencyd: an error is the record's, whatever its words. */
	c = open_text("{\"version\": 1, \"next_id\": 2, \"deletion_members\": true, "
		      "\"suppressed\": {}, \"snapshots\": [{\"id\": 1, \"status\": \"failed\", "
		      "\"error\": \"cannot be deleted: a: b; kept whole\"}]}",
		      NULL, &logged);
	expect_state(c, 1, CATALOG_DELETION_NONE, NULL, "cannot be deleted: a: b; kept whole");
	free(logged);
	delete_all(c);
	close_saved(c);
	/*
	 * But an older latencyd run in between (a downgrade) noted failed deletions the old
	 * way again, keeping the marker: a note that names a file of the entry's own directory
	 * is one, as no record's error is.
	 */
	c = open_text("{\"version\": 1, \"next_id\": 4, \"deletion_members\": true, "
		      "\"suppressed\": {}, \"snapshots\": [{\"id\": 1, \"status\": "
		      "\"complete\", \"path\": \"/s/snap-1\", \"error\": \"cannot be deleted: "
		      "/s/snap-1/chan_0: Operation not permitted; kept whole\"}, {\"id\": 2, "
		      "\"status\": \"failed\", \"path\": \"/s/snap-2\", \"error\": \"lttng: x; "
		      "deleted in part: cannot delete /s/snap-2/k: Permission denied; 1 bytes "
		      "deleted, 2 left\"}, {\"id\": 3, \"status\": \"failed\", \"path\": "
		      "\"/s/snap-3\", \"error\": \"cannot be deleted: /s/snap-30: b; kept "
		      "whole\"}]}",
		      NULL, &logged);
	expect_state(c, 1, CATALOG_DELETION_UNDELETABLE,
		     "/s/snap-1/chan_0: Operation not permitted", NULL);
	expect_state(c, 2, CATALOG_DELETION_PARTIAL,
		     "/s/snap-2/k: Permission denied; 1 bytes deleted", "lttng: x");
	expect_state(c, 3, CATALOG_DELETION_NONE, NULL,
		     "cannot be deleted: /s/snap-30: b; kept whole");
	free(logged);
	delete_all(c);
	close_saved(c);
	free(path);
}

/*
 * A record's error that holds a deletion's words is the record's: the snapshot is not
 * counted undeletable nor held out of retention, and a recheck leaves its error whole.
 */
static void test_record_error_is_not_a_deletion(void)
{
	static const char said[] = "lttng: snapshot record: /out; cannot be deleted: read-only";
	const struct retention r = {.max_count = 1};
	struct catalog *c = reopen(NULL, NULL);
	struct catalog_deletions d;
	struct catalog_entry *e;
	uint64_t ids[2];

	delete_all(c);
	for (int i = 0; i < 2; i++)
		ids[i] = add_snapshot(c, 1000 + (uint64_t)i * 100, 4096, CATALOG_COMPLETE);
	e = catalog_find(c, ids[0]);
	e->status = CATALOG_FAILED;
	e->error = strdup(said);
	catalog_deletions(c, &d);
	ASSERT_EQ(d.undeletable, 0);
	ASSERT_EQ(catalog_recheck_undeletable(c, RECHECK_AT(1)), 0);
	ASSERT_STREQ(e->error, said);
	c = reopen(c, NULL);
	catalog_deletions(c, &d);
	ASSERT_EQ(d.undeletable, 0);
	ASSERT_STREQ(catalog_find(c, ids[0])->error, said);
	ASSERT_EQ(catalog_apply_retention(c, &r, 2000), 1);
	ASSERT_TRUE(!catalog_find(c, ids[0]) && catalog_find(c, ids[1]));
	delete_all(c);
	close_saved(c);
}

/*
 * The undeletable snapshots' trees are walked at most once per CATALOG_RECHECK_USEC: a
 * read sooner (a scrape every second) checks nothing, and the first one a period after the
 * last check finds the cause gone.
 */
static void test_recheck_rate_limited(void)
{
	const uint64_t t0 = RECHECK_AT(5);
	struct catalog *c = reopen(NULL, NULL);
	struct catalog_deletions d;
	char *file;
	uint64_t id;

	delete_all(c);
	id = add_snapshot(c, 1000, 8192, CATALOG_COMPLETE);
	make_undeletable(c, id, &file);
	ASSERT_EQ(catalog_recheck_undeletable(c, t0), 0); /* checked: still undeletable */
	test_immutable(file, false);
	for (uint64_t s = 0; s < CATALOG_RECHECK_USEC / 1000000; s++)
		ASSERT_EQ(catalog_recheck_undeletable(c, t0 + s * 1000000), 0);
	ASSERT_EQ(catalog_recheck_undeletable(c, t0 + CATALOG_RECHECK_USEC - 1), 0);
	catalog_deletions(c, &d);
	ASSERT_EQ(d.undeletable, 1);
	ASSERT_EQ(catalog_recheck_undeletable(c, t0 + CATALOG_RECHECK_USEC), 1);
	catalog_deletions(c, &d);
	ASSERT_EQ(d.undeletable, 0);
	expect_state(c, id, CATALOG_DELETION_NONE, NULL, NULL);
	free(file);
	delete_all(c);
	close_saved(c);
}

int main(void)
{
	bool full_disk_tested;

	ASSERT_TRUE(mkdtemp(dir));
	RUN(test_persist_and_ids);
	RUN(test_incident_base_survives_a_lost_catalog);
	RUN(test_incident_silent_members);
	RUN(test_incidents_peers_evict_peers);
	RUN(test_recording_becomes_failed_after_crash);
	RUN(test_corrupt_file_is_kept_aside);
	RUN(test_unreadable_fields_reported);
	RUN(test_retention);
	RUN(test_suppressed_bounded);
	RUN(test_orphans_adopted);
	RUN(test_orphan_errors);
	RUN(test_orphan_not_directory_and_unreadable);
	RUN(test_many_orphans);
	RUN(test_catalog_is_a_directory);
	RUN(test_save_keeps_no_text);
	RUN(test_save_prints_as_one_document);
	RUN(test_edited_catalog);
	RUN(test_age_past_an_undated_entry);
	RUN(test_hostile_entries);
	RUN(test_huge_sizes_and_counts);
	RUN(test_gone_directory);
	RUN(test_duplicate_id_refused);
	RUN(test_deletion_state_codec);
	RUN(test_old_notes_converted);
	RUN(test_record_error_is_not_a_deletion);
	if (geteuid() == 0) {
		RUN(test_undeletable_snapshot);
		RUN(test_fault_after_check);
		RUN(test_retention_fault_after_check);
		RUN(test_retention_known_undeletable);
		RUN(test_forget_undeletable);
		RUN(test_undeletable_cleared);
		RUN(test_recheck_rate_limited);
		RUN(test_orphan_faults);
	}
	fprintf(stderr, "== test_full_disk\n");
	full_disk_tested = test_full_disk();
	ASSERT_EQ(rm_tree(dir), 0);
	if (!full_disk_tested) {
		printf("SKIP: test_full_disk needs root and a mount namespace\n");
		return EXIT_TEST_SKIP;
	}
	return 0;
}
