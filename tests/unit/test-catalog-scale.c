// SPDX-License-Identifier: GPL-2.0-only
/*
 * A catalog.json far past what latencyd keeps (a hand-made, merged or damaged file: up to
 * CATALOG_FILE_MAX) opens in one pass over each list: tens of thousands of incidents cut to
 * the newest CATALOG_INCIDENTS_KEEP, entries whose ids go down, ids given twice. The sizes
 * here would keep a quadratic load past the test's timeout; what is asserted is the result,
 * against what the cut one incident at a time (incidents.c) keeps.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "catalog.h"
#include "fsutil.h"
#include "proto.h"
#include "tests.h"

static char dir[] = "/tmp/test-catalog-scale.XXXXXX";

/* A catalog.json of DOC (taken), written in DIR and opened; what it logged in *LOGGED. */
static struct catalog *open_doc(struct json_object *doc, char **logged, bool *recovered)
{
	struct test_capture capture;
	struct catalog *c;
	char *file;

	ASSERT_TRUE(asprintf(&file, "%s/%s", dir, CATALOG_FILE) > 0);
	ASSERT_EQ(json_object_to_file_ext(file, doc, JSON_C_TO_STRING_PLAIN), 0);
	json_object_put(doc);
	free(file);
	test_capture_start(&capture, STDERR_FILENO);
	ASSERT_EQ(catalog_open(dir, &c, recovered), 0);
	*logged = test_capture_end(&capture);
	return c;
}

static struct json_object *doc_new(void)
{
	struct json_object *doc = json_object_new_object();

	json_object_object_add(doc, PROTO_KEY_VERSION, json_object_new_int(CATALOG_VERSION));
	json_object_object_add(doc, PROTO_KEY_NEXT_ID, json_object_new_int(1));
	json_object_object_add(doc, PROTO_KEY_SUPPRESSED, json_object_new_object());
	json_object_object_add(doc, PROTO_KEY_SNAPSHOTS, json_object_new_array());
	return doc;
}

/*
 * Incident I of a file: this host's (origin "self" among its members) when LOCAL, else a
 * peer's (its origin not among them).
 */
static struct json_object *incident(int i, bool local)
{
	struct json_object *o = json_object_new_object(), *members = json_object_new_array();
	char name[64];

	snprintf(name, sizeof(name), "%s-%d", local ? "self" : "peer", i + 1);
	json_object_object_add(o, PROTO_KEY_INCIDENT, json_object_new_string(name));
	json_object_object_add(o, PROTO_KEY_ORIGIN,
			       json_object_new_string(local ? "self" : "peer"));
	for (int k = 0; k < 8; k++) {
		snprintf(name, sizeof(name), "m%d", k);
		json_object_array_add(members, json_object_new_string(name));
	}
	json_object_array_add(members, json_object_new_string("self"));
	json_object_object_add(o, PROTO_KEY_MEMBERS, members);
	return o;
}

/*
 * N incidents, those for which LOCAL(i) this host's, opened: kept are the last one,
 * whatever it is, and of those before it the newest of each side, as many as a cut of one
 * at a time leaves of each.
 */
static void check_incidents(int n, bool (*local)(int))
{
	struct json_object *doc = doc_new(), *list = json_object_new_array(), *got;
	int peers = 0, locals = 0, keep_peers, keep_locals, *want, n_want = 0;
	struct catalog *c;
	char *logged, name[64];
	bool recovered;

	for (int i = 0; i < n; i++) {
		json_object_array_add(list, incident(i, local(i)));
		if (i < n - 1) {
			peers += !local(i);
			locals += local(i);
		}
	}
	json_object_object_add(doc, PROTO_KEY_INCIDENTS, list);
	/* How many of each side one at a time leaves: a peer's goes while they hold half the
	 * list or more, else one of this host's. */
	keep_peers = peers;
	keep_locals = locals;
	while (keep_peers + keep_locals + 1 > CATALOG_INCIDENTS_KEEP) {
		if (keep_peers >= CATALOG_INCIDENTS_KEEP / 2)
			keep_peers--;
		else
			keep_locals--;
	}
	/* The newest of each side before the last, found going back from it. */
	want = calloc(CATALOG_INCIDENTS_KEEP, sizeof(*want));
	ASSERT_TRUE(want);
	want[n_want++] = n - 1;
	for (int i = n - 2; i >= 0; i--) {
		int *left = local(i) ? &keep_locals : &keep_peers;

		if (*left > 0) {
			(*left)--;
			want[n_want++] = i;
		}
	}
	ASSERT_EQ(n_want, CATALOG_INCIDENTS_KEEP);

	c = open_doc(doc, &logged, &recovered);
	list = catalog_incidents(c);
	ASSERT_EQ(json_object_array_length(list), CATALOG_INCIDENTS_KEEP);
	for (int k = 0; k < n_want; k++) {
		int i = want[n_want - 1 - k]; /* oldest first, as the list */

		snprintf(name, sizeof(name), "%s-%d", local(i) ? "self" : "peer", i + 1);
		ASSERT_TRUE(json_object_object_get_ex(json_object_array_get_idx(list, (size_t)k),
						      PROTO_KEY_INCIDENT, &got));
		ASSERT_STREQ(json_object_get_string(got), name);
	}
	catalog_free(c);
	free(logged);
	free(want);
}

static bool every_third_a_peer(int i)
{
	return i % 3 != 0;
}

static bool ten_of_this_host(int i)
{
	return i < 10;
}

/*
 * Tens of thousands of incidents (the file of a host whose peers flood it, edited, or
 * merged): the newest kept, as one at a time would, this host's half kept from a flood
 * of its peers'.
 */
static void test_many_incidents(void)
{
	check_incidents(30000, every_third_a_peer);
	check_incidents(30000, ten_of_this_host);
}

/*
 * Ten thousand entries whose ids go down along the file (merged, edited by hand), some ids
 * given twice: each kept once, the first of its id, in the file's order, the others said.
 */
static void test_entries_descending(void)
{
	enum { N = 10000 };
	struct json_object *doc = doc_new(), *a = json_object_new_array(), *o;
	char *logged, path[64];
	struct catalog *c;
	bool recovered;

	for (int i = 0; i < N + 2; i++) {
		/* The last two: ids of entries before them, the first of which is complete. */
		int id = i < N ? N - i : i == N ? N / 2 : N;

		o = json_object_new_object();
		json_object_object_add(o, PROTO_KEY_ID, json_object_new_int(id));
		json_object_object_add(o, "status",
				       json_object_new_string(i < N ? "complete" : "failed"));
		if (i == N) {
			snprintf(path, sizeof(path), "/var/lib/latencyd/snap-%d-x", id);
			json_object_object_add(o, PROTO_KEY_PATH, json_object_new_string(path));
		}
		json_object_array_add(a, o);
	}
	json_object_object_add(doc, PROTO_KEY_SNAPSHOTS, a);
	c = open_doc(doc, &logged, &recovered);
	ASSERT_TRUE(recovered);
	ASSERT_EQ(catalog_count(c), N);
	for (size_t i = 0; i < N; i++) {
		ASSERT_EQ(catalog_at(c, i)->id, N - i);
		ASSERT_EQ(catalog_at(c, i)->status, CATALOG_COMPLETE);
	}
	ASSERT_EQ(catalog_next_id(c), N + 1);
	ASSERT_CONTAINS(logged, "snapshots[10000]: snapshot 5000 again, first at snapshots[5000]: "
				"left out, the first kept; its directory /var/lib/latencyd/"
				"snap-5000-x, if not the first's, stays on disk, unmanaged (the "
				"file as it was: ");
	ASSERT_CONTAINS(logged, "snapshots[10001]: snapshot 10000 again, first at snapshots[0]: "
				"left out, the first kept (the file as it was: ");
	catalog_free(c);
	free(logged);
}

int main(void)
{
	ASSERT_TRUE(mkdtemp(dir));
	RUN(test_many_incidents);
	RUN(test_entries_descending);
	ASSERT_EQ(rm_tree(dir), 0);
	return 0;
}
