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
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>

#include "catalog.h"
#include "fleet.h"
#include "fsutil.h"
#include "proto.h"
#include "tests.h"

static char dir[] = "/tmp/test-catalog-bounds.XXXXXX";
static char *cat, *out; /* the catalog's directory, the output directory */

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

/*
 * Only a directory PREFIX-ID-... of the output directory (or of the entry's late
 * directory), however its path names it, goes with its entry: another, named as the entry
 * says, in another directory, stays, its entry dropped with a warning.
 */
static void test_deletes_only_in_output(void)
{
	char *victim = in(dir, "victimparent/home-5"), *parent = in(dir, "victimparent");
	char *elsewhere = in(dir, "elsewhere/snap-6-20261123-101010-0");
	char *elsewhere11 = in(dir, "elsewhere/snap-11-20261123-101010-0");
	char *late = in(dir, "late"), *late_snap = in(late, "snap-8-20261123-101010-0");
	char *link = in(dir, "out-link"), *via_link, *ok = in(out, "snap-9-20261123-101010-0");
	char *wrong_name = in(out, "snap-10x-20261123-101010-0"), *logged;
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
	ASSERT_EQ(catalog_delete(c, 6), 0);
	ASSERT_EQ(catalog_delete(c, 10), 0);
	logged = test_capture_end(&capture);
	ASSERT_EQ(stat(victim, &st), 0);
	ASSERT_EQ(stat(elsewhere, &st), 0);
	ASSERT_EQ(stat(wrong_name, &st), 0);
	ASSERT_TRUE(!catalog_find(c, 5) && !catalog_find(c, 6) && !catalog_find(c, 10));
	ASSERT_CONTAINS(logged, "snapshot 5: ");
	ASSERT_CONTAINS(logged, "home-5 is not a snapshot directory of latencyd's (snap-5-...): "
				"its entry goes, the files stay");
	ASSERT_CONTAINS(logged, "snapshot 6: ");
	ASSERT_CONTAINS(logged,
			"elsewhere/snap-6-20261123-101010-0 is not in the output directory");
	ASSERT_CONTAINS(logged, "snapshot 10: ");
	free(logged);
	/* Through retention likewise: those of the output directory and the late one go. */
	ASSERT_EQ(catalog_apply_retention(c, &(struct retention){.max_count = 1}, 1000), 2);
	ASSERT_EQ(catalog_delete(c, 9), 0);
	ASSERT_EQ(lstat(via_link, &st), -1);
	ASSERT_EQ(lstat(late_snap, &st), -1);
	ASSERT_EQ(lstat(ok, &st), -1);
	ASSERT_EQ(catalog_count(c), 0);
	/* An output directory given since (a reload) adds to those before. */
	add(c, 11, "snap-11", elsewhere11, NULL);
	ASSERT_EQ(rm_tree(ok), 0);
	add(c, 12, "snap-9", ok, NULL);
	ASSERT_EQ(catalog_delete(c, 12), 0); /* its name is of another id: stays */
	ASSERT_EQ(stat(ok, &st), 0);
	ASSERT_TRUE(asprintf(&logged, "%s/elsewhere", dir) > 0);
	ASSERT_EQ(catalog_set_output(c, logged, "other"), 0);
	ASSERT_EQ(catalog_delete(c, 11), 0);
	ASSERT_EQ(lstat(elsewhere11, &st), -1);
	ASSERT_EQ(stat(elsewhere, &st), 0);
	free(logged);
	catalog_free(c);
	ASSERT_EQ(unlink(link), 0);
	ASSERT_EQ(rm_tree(parent), 0);
	ASSERT_EQ(rm_tree(late), 0);
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
 * latencyd's to delete (the catalog keeps the directories it used, the 16 newest).
 */
static void test_outputs_kept_across_restart(void)
{
	char *before = in(dir, "before"), *snap = in(before, "snap-3-20261123-101010-0");
	char *oldest = in(dir, "oldest"), *gone = in(oldest, "snap-4-20261123-101010-0");
	struct catalog *c;
	struct stat st;
	char name[64];

	reset();
	ASSERT_EQ(rm_tree(before), 0);
	ASSERT_EQ(rm_tree(oldest), 0);
	ASSERT_EQ(mkdir(before, 0750), 0);
	ASSERT_EQ(mkdir(oldest, 0750), 0);
	ASSERT_EQ(catalog_open(cat, &c, &(bool){false}), 0);
	ASSERT_EQ(catalog_set_output(c, oldest, "snap"), 0);
	add(c, 4, "snap-4", gone, NULL);
	/* 16 directories after it: the oldest is no longer kept. */
	for (int i = 0; i < CATALOG_OUTPUTS_MAX - 1; i++) {
		snprintf(name, sizeof(name), "%s/other-%d", dir, i);
		ASSERT_EQ(catalog_set_output(c, name, "snap"), 0);
	}
	ASSERT_EQ(catalog_set_output(c, before, "snap"), 0);
	add(c, 3, "snap-3", snap, NULL);
	ASSERT_EQ(catalog_save(c), 0);
	catalog_free(c);

	c = open_logged(NULL, NULL); /* output.directory is OUT now */
	ASSERT_EQ(catalog_delete(c, 3), 0);
	ASSERT_EQ(lstat(snap, &st), -1);
	ASSERT_EQ(catalog_delete(c, 4), 0);
	ASSERT_EQ(stat(gone, &st), 0);
	catalog_free(c);
	ASSERT_EQ(rm_tree(before), 0);
	ASSERT_EQ(rm_tree(oldest), 0);
	free(before);
	free(snap);
	free(oldest);
	free(gone);
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
	RUN(test_ids_bounded);
	RUN(test_orphans_use_no_ids);
	RUN(test_deletes_only_in_output);
	RUN(test_outputs_kept_across_restart);
	RUN(test_no_output_deletes_nothing);
	RUN(test_file_too_big);
	RUN(test_entry_ceiling);
	RUN(test_incidents_loaded);
	RUN(test_incident_hosts_capped);
	ASSERT_EQ(rm_tree(dir), 0);
	free(cat);
	free(out);
	return 0;
}
