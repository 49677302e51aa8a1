// SPDX-License-Identifier: GPL-2.0-only
/*
 * The snapshot catalog. One JSON document, small enough to rewrite whole on every change
 * (retention bounds it), which keeps crash consistency down to one rename.
 *
 * {"version": 1, "next_id": N, "incident_base": MS, "deletion_members": true,
 *  "snapshots": [{"id", "time", "status", "causes": [...], "path" | "url", "bytes",
 *                 "record_ns", "detect_to_record_ns", "error"?, "deletion"?,
 *                 "deletion_note"?, ...}, ...],
 *  "suppressed": {"total": N, "by_tracker": {"syscalls": N}, "recent": [...]},
 *  "incidents": [...] (incidents.c)}
 */
#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <ftw.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "catalog.h"
#include "fsutil.h"
#include "log.h"
#include "proto.h"
#include "thread.h"
#include "tree_delete.h"

/* An output directory latencyd used. */
struct output {
	char *dir;
	bool given; /* by catalog_set_output() since the catalog was opened, else the file's */
};

struct catalog {
	char *dir;
	/* The document but its snapshots, which are structs: "snapshots" stays as an empty
	 * array, where the save puts them back. */
	struct json_object *doc;
	struct catalog_entry **entries; /* oldest first */
	size_t n, cap;
	uint64_t deleted_in_part; /* since open: deletions that failed past their check */
	uint64_t forgotten;	  /* since open: undeletable entries past CATALOG_ENTRIES_MAX */
	bool rechecked;		  /* rechecked_usec is the last recheck's time */
	uint64_t rechecked_usec;
	/* Where snapshots are deleted from: catalog_set_output(), the least recently given
	 * first. */
	char *prefix;
	struct output *outputs;
	size_t n_outputs;
	bool outputs_unknown; /* the file has no list: made from its entries' paths */
	bool said_big;	      /* the file past CATALOG_FILE_MAX was warned of */
	bool said_unsynced;   /* a save whose directory could not be synced was warned of */
};

static struct json_object *doc_new(void)
{
	struct json_object *doc = json_object_new_object();
	struct json_object *sup = json_object_new_object();

	json_object_object_add(doc, PROTO_KEY_VERSION, json_object_new_int(CATALOG_VERSION));
	json_object_object_add(doc, PROTO_KEY_NEXT_ID, json_object_new_int64(1));
	/* Snapshot ids start again at 1 in a new catalog; incident ids must not, for peers and
	 * the collector keep the old ones. Its creation time in ms is past any old number. */
	json_object_object_add(doc, PROTO_KEY_INCIDENT_BASE,
			       json_object_new_int64((int64_t)(realtime_ns() / 1000000)));
	json_object_object_add(doc, PROTO_KEY_SNAPSHOTS, json_object_new_array());
	json_object_object_add(doc, PROTO_KEY_DELETION_MEMBERS, json_object_new_boolean(1));
	json_object_object_add(sup, PROTO_KEY_TOTAL, json_object_new_int64(0));
	json_object_object_add(sup, PROTO_KEY_BY_TRACKER, json_object_new_object());
	json_object_object_add(sup, PROTO_KEY_RECENT, json_object_new_array());
	json_object_object_add(doc, PROTO_KEY_SUPPRESSED, sup);
	return doc;
}

static bool doc_valid(struct json_object *doc)
{
	struct json_object *v, *sup;

	if (!json_object_is_type(doc, json_type_object))
		return false;
	if (!json_object_object_get_ex(doc, PROTO_KEY_VERSION, &v) ||
	    json_object_get_int(v) != CATALOG_VERSION)
		return false;
	if (!json_object_object_get_ex(doc, PROTO_KEY_NEXT_ID, &v) ||
	    !json_object_is_type(v, json_type_int))
		return false;
	if (!json_object_object_get_ex(doc, PROTO_KEY_SNAPSHOTS, &v) ||
	    !json_object_is_type(v, json_type_array))
		return false;
	return json_object_object_get_ex(doc, PROTO_KEY_SUPPRESSED, &sup) &&
	       json_object_is_type(sup, json_type_object);
}

struct problem_at {
	const char *file;
	uint64_t id;
};

static void entry_problem(void *arg, const char *field, const char *what)
{
	const struct problem_at *at = arg;

	log_warnx("%s: snapshot %" PRIu64 ": %s: %s", at->file, at->id, field, what);
}

static void id_used(struct catalog *c, uint64_t id);

static int append(struct catalog *c, struct catalog_entry *e)
{
	if (c->n == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 16;
		struct catalog_entry **grown = realloc(c->entries, cap * sizeof(*grown));

		if (!grown)
			return -ENOMEM;
		c->entries = grown;
		c->cap = cap;
	}
	c->entries[c->n++] = e;
	return 0;
}

/* A snapshot's id: 1 to CATALOG_ID_MAX. A value past INT64_MAX reads as INT64_MAX. */
static bool id_valid(struct json_object *v)
{
	return json_object_is_type(v, json_type_int) && json_object_get_int64(v) >= 1 &&
	       json_object_get_int64(v) <= (int64_t)CATALOG_ID_MAX;
}

/* A next_id: an id, or the one past the last, when every id has been handed out. */
static bool next_valid(struct json_object *v)
{
	return json_object_is_type(v, json_type_int) && json_object_get_int64(v) >= 1 &&
	       json_object_get_int64(v) <= (int64_t)CATALOG_ID_MAX + 1;
}

/*
 * FILE linked beside itself for inspection, as FILE.corrupt, or FILE.corrupt.N when an older
 * copy is there: never in its place, which may be the only copy of an older catalog. The
 * name, or NULL (errno set).
 */
static char *keep_aside(const char *file)
{
	char *aside = NULL;

	for (unsigned n = 0; n < 100; n++) {
		free(aside);
		if ((n ? asprintf(&aside, "%s.corrupt.%u", file, n)
		       : asprintf(&aside, "%s.corrupt", file)) < 0)
			return NULL;
		if (link(file, aside) == 0)
			return aside;
		if (errno != EEXIST)
			break;
	}
	free(aside);
	return NULL;
}

/*
 * FILE, which cannot be linked (a directory; a file system without links), moved beside
 * itself under the first of the names keep_aside() tries that is free: never in place of an
 * older copy, nor into an empty directory of that name. The name, or NULL (errno set).
 */
static char *move_aside(const char *file)
{
	char *aside = NULL;
	struct stat st;

	for (unsigned n = 0; n < 100; n++) {
		free(aside);
		if ((n ? asprintf(&aside, "%s.corrupt.%u", file, n)
		       : asprintf(&aside, "%s.corrupt", file)) < 0)
			return NULL;
		if (lstat(aside, &st) == 0)
			continue;
		if (errno == ENOENT && rename(file, aside) == 0)
			return aside;
		free(aside);
		return NULL;
	}
	free(aside);
	errno = EEXIST;
	return NULL;
}

/* What a catalog file that is not a regular file is, for the log. */
static const char *file_type(mode_t mode)
{
	switch (mode & S_IFMT) {
	case S_IFDIR:
		return "a directory";
	case S_IFIFO:
		return "a FIFO";
	case S_IFSOCK:
		return "a socket";
	case S_IFCHR:
		return "a character device";
	case S_IFBLK:
		return "a block device";
	default:
		return "not a regular file";
	}
}

/*
 * An entry without a usable id is left out: nothing could name it, and its id would be
 * handed out again. The file as it was is kept beside the catalog, which the next save
 * replaces, so that what was left out can still be read.
 */
static bool entry_usable(struct json_object *o, size_t i, const char *file, char **kept)
{
	struct json_object *id = NULL;
	const char *why;

	if (json_object_object_get_ex(o, PROTO_KEY_ID, &id) && id_valid(id))
		return true;
	if (!json_object_is_type(o, json_type_object))
		why = "not an object";
	else
		why = id ? "id must be an integer from 1 to 2^53-1" : "no id";
	if (!*kept)
		*kept = keep_aside(file);
	log_warnx("%s: snapshots[%zu]: %s; left out (the file as it was: %s)", file, i, why,
		  *kept ? *kept : "not kept");
	return false;
}

/* Whether S, from its start, is digits and then END, to its end. */
static bool digits_then(const char *s, const char *end)
{
	const char *p = s;

	while (*p >= '0' && *p <= '9')
		p++;
	return p > s && strcmp(p, end) == 0;
}

/*
 * How a note written by a latencyd before 1.15 into E's error at P (its whole text to the
 * end) reads as a deletion state, and its note (*NOTE, to free); false: P is no such note.
 * The only place that reads that wording: the catalog now keeps it in its own members.
 */
static bool old_note(const char *p, enum catalog_deletion *state, char **note)
{
	static const char whole[] = "cannot be deleted: ", whole_end[] = "; kept whole";
	static const char part[] = "deleted in part: cannot delete ";
	static const char left[] = "left by a deletion that failed part way: ";
	static const char gone[] = "its directory is gone (removed outside latencyd): 0 bytes";
	size_t n = strlen(p);
	const char *end;

	*note = NULL;
	if (!strncmp(p, whole, strlen(whole)) && n > strlen(whole) + strlen(whole_end) &&
	    !strcmp(p + n - strlen(whole_end), whole_end)) {
		*state = CATALOG_DELETION_UNDELETABLE;
		*note = strndup(p + strlen(whole), n - strlen(whole) - strlen(whole_end));
		return true;
	}
	/* "deleted in part: cannot delete WHERE: ERR; N bytes deleted, M left" */
	end = strrchr(p, ',');
	if (!strncmp(p, part, strlen(part)) && end && end > p + strlen(part) && end[1] == ' ' &&
	    digits_then(end + 2, " left")) {
		*state = CATALOG_DELETION_PARTIAL;
		*note = strndup(p + strlen(part), (size_t)(end - p) - strlen(part));
		return true;
	}
	if (!strncmp(p, left, strlen(left)) &&
	    digits_then(p + strlen(left), " bytes, deletable now")) {
		*state = CATALOG_DELETION_PARTIAL_DELETABLE;
		return true;
	}
	if (!strcmp(p, gone)) {
		*state = CATALOG_DELETION_GONE;
		return true;
	}
	return false;
}

/* Whether NOTE names a file of E's own directory: "PATH: ..." or "PATH/...". */
static bool own_note(const struct catalog_entry *e, const char *note)
{
	size_t n = e->path ? strlen(e->path) : 0;

	return n && note && strncmp(note, e->path, n) == 0 && (note[n] == '/' || note[n] == ':');
}

/*
 * An entry of a catalog written before 1.15, whose deletion state is a note at the end of
 * its error ("ERROR; NOTE" or "NOTE"), given its state and note, its error left to what its
 * record said. The first place that starts a whole note is the one: a record's error that
 * holds a note's first words, but not a whole one to its end, stays the record's. In a
 * file written since (OLD false), an older latencyd run in between (a downgrade) may have
 * noted a failed deletion the old way again: converted only when the note names a file of
 * the entry's own directory, as no record's error does.
 */
static int convert_old_note(struct catalog_entry *e, bool old)
{
	enum catalog_deletion state;
	char *note, *error;

	if (e->deletion != CATALOG_DELETION_NONE || !e->error)
		return 0;
	for (const char *p = e->error; *p; p++) {
		if (p != e->error && (p - e->error < 2 || p[-2] != ';' || p[-1] != ' '))
			continue;
		if (!old_note(p, &state, &note))
			continue;
		if (!old && !own_note(e, note)) {
			free(note);
			continue;
		}
		error = p == e->error ? NULL : strndup(e->error, (size_t)(p - e->error) - 2);
		if ((p != e->error && !error) ||
		    (!note && state != CATALOG_DELETION_PARTIAL_DELETABLE &&
		     state != CATALOG_DELETION_GONE)) {
			free(error);
			free(note);
			return -ENOMEM;
		}
		free(e->error);
		e->error = error;
		e->deletion = state;
		e->deletion_note = note;
		return 0;
	}
	return 0;
}

/* An entry's id and its place in the file, to find ids given twice. */
struct id_at {
	uint64_t id;
	size_t i;
};

static int cmp_id_at(const void *a, const void *b)
{
	const struct id_at *x = a, *y = b;

	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

/*
 * For each entry of A, the place of the first one of its id when it is not that one, else
 * SIZE_MAX (an array, to free; NULL: no memory): the ids sorted once, whatever their order
 * in the file. A lookup per entry would be quadratic in a file of ids going down.
 */
static size_t *ids_again(struct json_object *a)
{
	size_t n = json_object_array_length(a), k = 0;
	size_t *first = malloc((n ? n : 1) * sizeof(*first));
	struct id_at *v = malloc((n ? n : 1) * sizeof(*v));
	struct json_object *id;

	if (!first || !v) {
		free(first);
		free(v);
		return NULL;
	}
	for (size_t i = 0; i < n; i++) {
		first[i] = SIZE_MAX;
		if (json_object_object_get_ex(json_object_array_get_idx(a, i), PROTO_KEY_ID, &id) &&
		    id_valid(id))
			v[k++] = (struct id_at){(uint64_t)json_object_get_int64(id), i};
	}
	qsort(v, k, sizeof(*v), cmp_id_at);
	for (size_t j = 1; j < k; j++)
		if (v[j].id == v[j - 1].id)
			first[v[j].i] =
				first[v[j - 1].i] == SIZE_MAX ? v[j - 1].i : first[v[j - 1].i];
	free(v);
	return first;
}

/*
 * An entry of an id given before in the file (an edit, two catalogs merged) is left out:
 * the first stays, which a client's lookup named and retention managed. Two entries of one
 * id would share its snapshot directory: deleting one would delete the other's. The file
 * as it was is kept beside the catalog, as entry_usable() does.
 */
static void entry_again(struct json_object *o, size_t i, size_t first, const char *file,
			char **kept)
{
	struct json_object *id, *v;
	const char *path = NULL;

	json_object_object_get_ex(o, PROTO_KEY_ID, &id);
	if (json_object_object_get_ex(o, PROTO_KEY_PATH, &v) &&
	    json_object_is_type(v, json_type_string))
		path = json_object_get_string(v);
	if (!*kept)
		*kept = keep_aside(file);
	log_warnx("%s: snapshots[%zu]: snapshot %" PRId64 " again, first at snapshots[%zu]: "
		  "left out, the first kept%s%s%s (the file as it was: %s)",
		  file, i, json_object_get_int64(id), first, path ? "; its directory " : "",
		  path ? path : "", path ? ", if not the first's, stays on disk, unmanaged" : "",
		  *kept ? *kept : "not kept");
}

/*
 * The saved entries, as structs, in the file's order. A member this latencyd cannot read is
 * named in the log with its entry's id and left out; the entry is kept. A snapshot still
 * "recording" was cut short by a crash. OLD: the file is of a latencyd before 1.15
 * (convert_old_note()).
 */
static int load_entries(struct catalog *c, struct json_object *a, const char *file, bool old,
			bool *recovered)
{
	size_t *again = ids_again(a);
	char *kept = NULL;
	int r = 0;

	if (!again)
		return -ENOMEM;
	for (size_t i = 0; r == 0 && i < json_object_array_length(a); i++) {
		struct json_object *o = json_object_array_get_idx(a, i), *id;
		struct problem_at at = {.file = file};
		struct catalog_entry *e;

		if (!entry_usable(o, i, file, &kept)) {
			*recovered = true;
			continue;
		}
		if (again[i] != SIZE_MAX) {
			entry_again(o, i, again[i], file, &kept);
			*recovered = true;
			continue;
		}
		json_object_object_get_ex(o, PROTO_KEY_ID, &id);
		at.id = (uint64_t)json_object_get_int64(id);
		e = calloc(1, sizeof(*e));
		r = e ? catalog_entry_from_json(o, e, entry_problem, &at) : -ENOMEM;
		if (r == 0)
			r = convert_old_note(e, old);
		if (r == 0 && e->status == CATALOG_RECORDING) {
			e->status = CATALOG_FAILED;
			free(e->error);
			e->error = strdup("latencyd stopped while recording");
			*recovered = true;
		}
		if (r < 0 || (r = append(c, e)) < 0) {
			catalog_entry_free(e);
			free(e);
			break;
		}
		/* A next_id behind the ids kept (an edit, an old copy) would hand them out again. */
		id_used(c, e->id);
	}
	free(again);
	free(kept);
	return r;
}

/* A next_id no id can follow (edited, damaged) starts again past the ids kept. */
static void check_next_id(struct catalog *c, const char *file, bool *recovered)
{
	struct json_object *next;

	json_object_object_get_ex(c->doc, PROTO_KEY_NEXT_ID, &next);
	if (next_valid(next))
		return;
	log_warnx("%s: next_id %" PRId64 " must be from 1 to 2^53: made the id after the "
		  "snapshots kept",
		  file, json_object_get_int64(next));
	json_object_set_int64(next, 1);
	*recovered = true;
}

/* Said at each start while it holds: nothing is recorded until the operator acts. */
static void check_ids_left(struct catalog *c, const char *file)
{
	if (catalog_next_id(c) > CATALOG_ID_MAX)
		log_warnx("%s: every snapshot id (1 to 2^53-1) has been handed out: no snapshot "
			  "can be recorded; move the file away (its snapshots are adopted back, "
			  "causes unknown) or lower its next_id below the ids of the snapshots "
			  "kept",
			  file);
}

/*
 * The output directories latencyd has used, kept in the file: a snapshot recorded before
 * output.directory changed, and a restart, stays latencyd's to delete. The least recently
 * given go past CATALOG_OUTPUTS_MAX.
 */
#define KEY_OUTPUTS "output_directories"

/* DIR, absolute, made the newest output directory; GIVEN: by catalog_set_output(). 1 when
 * the list changed, 0 when not, -ENOMEM. */
static int output_add(struct catalog *c, const char *dir, bool given)
{
	struct output o = {.given = given}, *grown;

	if (dir[0] != '/')
		return 0;
	for (size_t i = 0; i < c->n_outputs; i++) {
		if (strcmp(c->outputs[i].dir, dir) != 0)
			continue;
		o.dir = c->outputs[i].dir;
		o.given |= c->outputs[i].given;
		/* Used again: the last to go. */
		memmove(&c->outputs[i], &c->outputs[i + 1],
			(c->n_outputs - i - 1) * sizeof(*c->outputs));
		c->outputs[c->n_outputs - 1] = o;
		return i + 1 < c->n_outputs;
	}
	if (!(o.dir = strdup(dir)))
		return -ENOMEM;
	if (c->n_outputs == CATALOG_OUTPUTS_MAX) {
		free(c->outputs[0].dir);
		memmove(c->outputs, c->outputs + 1, --c->n_outputs * sizeof(*c->outputs));
	}
	grown = realloc(c->outputs, (c->n_outputs + 1) * sizeof(*grown));
	if (!grown) {
		free(o.dir);
		return -ENOMEM;
	}
	c->outputs = grown;
	c->outputs[c->n_outputs++] = o;
	return 1;
}

/*
 * At open: those the file names (strings, absolute), at most the newest CATALOG_OUTPUTS_MAX.
 * A file without the list (of a latencyd before it was kept) has it made from its entries'
 * paths once the prefix is known (outputs_seed()).
 */
static int outputs_load(struct catalog *c)
{
	struct json_object *a, *v;
	size_t n;

	if (!json_object_object_get_ex(c->doc, KEY_OUTPUTS, &a)) {
		c->outputs_unknown = true;
		return 0;
	}
	if (!json_object_is_type(a, json_type_array))
		return 0;
	n = json_object_array_length(a);
	for (size_t i = n > CATALOG_OUTPUTS_MAX ? n - CATALOG_OUTPUTS_MAX : 0; i < n; i++) {
		v = json_object_array_get_idx(a, i);
		if (json_object_is_type(v, json_type_string) &&
		    output_add(c, json_object_get_string(v), false) < 0)
			return -ENOMEM;
	}
	return 0;
}

static char *path_in(const struct catalog *c, const char *name)
{
	char *p;

	return asprintf(&p, "%s/%s", c->dir, name) < 0 ? NULL : p;
}

int catalog_open(const char *dir, struct catalog **ret, bool *recovered)
{
	struct catalog *c;
	struct json_object *doc = NULL, *entries;
	char *path = NULL, *aside = NULL;
	struct stat st;
	bool regular, big, old;
	int r;

	*recovered = false;
	if (mkdir(dir, 0750) < 0 && errno != EEXIST)
		return -errno;
	c = calloc(1, sizeof(*c));
	if (!c || !(c->dir = strdup(dir)) || !(path = path_in(c, CATALOG_FILE))) {
		r = -ENOMEM;
		goto fail;
	}
	if (stat(path, &st) == 0) {
		/* Only a regular file is read: a FIFO would block the start until a writer came. */
		regular = S_ISREG(st.st_mode);
		/* Read whole into a tree several times its size: not past what latencyd writes. */
		big = regular && st.st_size > CATALOG_FILE_MAX;
		doc = regular && !big ? json_object_from_file(path) : NULL;
		if (!doc || !doc_valid(doc)) {
			json_object_put(doc);
			doc = NULL;
			aside = regular ? keep_aside(path) : NULL;
			if (aside ? unlink(path) < 0 : !(aside = move_aside(path))) {
				r = -errno;
				goto fail;
			}
			if (big)
				log_warnx(
					"%s is %jd bytes, past the %u MiB a catalog may take: "
					"kept as %s, a new catalog started (the snapshots on disk "
					"are adopted back, causes unknown)",
					path, (intmax_t)st.st_size, CATALOG_FILE_MAX >> 20, aside);
			else if (regular)
				log_warnx("%s does not parse: kept as %s, a new catalog started",
					  path, aside);
			else
				log_warnx("%s is %s, not a catalog: moved to %s, a new catalog "
					  "started",
					  path, file_type(st.st_mode), aside);
			*recovered = true;
		}
	} else if (errno != ENOENT) {
		r = -errno;
		goto fail;
	}
	c->doc = doc ? doc : doc_new();
	/*
	 * On disk at once: a restart before the first snapshot keeps its incident_base. A full
	 * disk must not keep latencyd from detecting and recording to a relayd: the catalog is
	 * saved again at its next change. Other errors are the configuration's (a read-only or
	 * missing directory).
	 */
	if (!doc && (r = catalog_save(c)) < 0) {
		if (r != -ENOSPC && r != -EDQUOT)
			goto fail;
		log_warnx("cannot save the new catalog in %s: %s; it is saved again at its next "
			  "change",
			  dir, strerror(-r));
	}
	if (doc) {
		check_next_id(c, path, recovered);
		json_object_object_get_ex(c->doc, PROTO_KEY_SNAPSHOTS, &entries);
		json_object_get(entries);
		json_object_object_add(c->doc, PROTO_KEY_SNAPSHOTS, json_object_new_array());
		/* Converted once: the next save says so, and a record's error that happens to
		 * end as an old note is never read as one. */
		old = !json_object_object_get_ex(c->doc, PROTO_KEY_DELETION_MEMBERS, NULL);
		r = load_entries(c, entries, path, old, recovered);
		json_object_put(entries);
		if (r < 0 || (old && json_object_object_add(c->doc, PROTO_KEY_DELETION_MEMBERS,
							    json_object_new_boolean(1)) < 0)) {
			r = r < 0 ? r : -ENOMEM;
			goto fail;
		}
		catalog_incidents_check(c);
		check_ids_left(c, path);
		r = outputs_load(c);
		if (r < 0)
			goto fail;
	}
	free(path);
	free(aside);
	*ret = c;
	return 0;
fail:
	free(path);
	free(aside);
	catalog_free(c);
	return r;
}

void catalog_free(struct catalog *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->n; i++) {
		catalog_entry_free(c->entries[i]);
		free(c->entries[i]);
	}
	free(c->entries);
	json_object_put(c->doc);
	free(c->dir);
	free(c->prefix);
	for (size_t i = 0; i < c->n_outputs; i++)
		free(c->outputs[i].dir);
	free(c->outputs);
	free(c);
}

/*
 * An entry's text where the document's printer reaches it: its JSON built, printed and freed
 * one entry at a time, never the whole catalog's tree at once. Printed alone the entry is at
 * level 0; at LEVEL each line but the first is indented two spaces a level further (JSON
 * strings hold no raw newline), which is what json-c's printer would have written.
 */
static int entry_print(struct json_object *placeholder, struct printbuf *pb, int level, int flags)
{
	const struct catalog_entry *e = json_object_get_userdata(placeholder);
	struct json_object *o = catalog_entry_to_json(e, CATALOG_FORM_FILE, 0);
	const char *text, *nl;
	size_t len;
	int r = -1;

	text = o ? json_object_to_json_string_length(o, flags, &len) : NULL;
	while (text && (nl = memchr(text, '\n', len))) {
		size_t line = (size_t)(nl - text) + 1;

		if (printbuf_memappend(pb, text, (int)line) < 0 ||
		    ((flags & JSON_C_TO_STRING_PRETTY) && level > 0 &&
		     printbuf_memset(pb, -1, ' ', 2 * level) < 0)) {
			text = NULL;
		} else {
			text += line;
			len -= line;
		}
	}
	if (text)
		r = printbuf_memappend(pb, text, (int)len) < 0 ? -1 : 0;
	json_object_put(o);
	return r;
}

/* The snapshots, each a stand-in that entry_print() spells when the document is printed. */
static struct json_object *entries_json(const struct catalog *c)
{
	struct json_object *a = json_object_new_array_ext((int)c->n), *o;

	for (size_t i = 0; a && i < c->n; i++) {
		o = json_object_new_object();
		if (o)
			json_object_set_serializer(o, entry_print, c->entries[i], NULL);
		if (!o || json_object_array_add(a, o) < 0) {
			json_object_put(o);
			json_object_put(a);
			return NULL;
		}
	}
	return a;
}

/*
 * json-c keeps the text of an object it printed, in that object, until the object is
 * freed: printed from the catalog itself, a copy of the file (about 4 KiB a snapshot,
 * in a buffer grown by doubling) would stay resident for latencyd's lifetime. A
 * short-lived object that holds references to the catalog's members prints the same
 * text, and takes it along when it goes.
 */
static struct json_object *doc_print_view(const struct catalog *c)
{
	struct json_object *view = json_object_new_object(), *v;

	if (!view)
		return NULL;
	json_object_object_foreach(c->doc, key, val)
	{
		v = strcmp(key, PROTO_KEY_SNAPSHOTS) == 0 ? entries_json(c) : json_object_get(val);
		if (!v || json_object_object_add(view, key, v) < 0) {
			json_object_put(v);
			json_object_put(view);
			return NULL;
		}
	}
	return view;
}

/*
 * The file as TEXT of LEN bytes, through TMP. A directory that is not empty in TMP's place is
 * no temp of latencyd's, nor to delete: moved beside it (as catalog_open() does a catalog
 * that is a directory), said, and the save goes on.
 */
static int replace(const char *path, const char *tmp, const char *text, size_t len)
{
	int r = file_replace(path, tmp, text, len, true, 0640, FILE_DURABLE);
	char *aside;

	if (r != -ENOTEMPTY)
		return r;
	aside = move_aside(tmp);
	if (!aside) {
		r = -errno;
		log_warnx("%s is a directory that is not empty, in the way of the catalog's "
			  "save, and cannot be moved: %s",
			  tmp, strerror(-r));
		return r;
	}
	log_warnx("%s is a directory that is not empty, in the way of the catalog's save: "
		  "moved to %s",
		  tmp, aside);
	free(aside);
	return file_replace(path, tmp, text, len, true, 0640, FILE_DURABLE);
}

int catalog_save(struct catalog *c)
{
	struct json_object *view = doc_print_view(c);
	const char *text = NULL;
	char *tmp = path_in(c, CATALOG_FILE ".tmp"), *path = path_in(c, CATALOG_FILE);
	size_t len = 0;
	int r = -ENOMEM;

	if (view)
		text = json_object_to_json_string_ext(view, JSON_C_TO_STRING_PRETTY |
								    JSON_C_TO_STRING_NOSLASHESCAPE);
	if (text)
		len = strlen(text);
	/* Entries of thousands of causes each may add up to it below CATALOG_MAX_ENTRIES. */
	if (len > CATALOG_FILE_MAX && !c->said_big)
		log_warnx("%s: %zu bytes, past the %u MiB latencyd reads at start: the next "
			  "start puts it aside; lower retention.max_count",
			  path ? path : c->dir, len, CATALOG_FILE_MAX >> 20);
	c->said_big = len > CATALOG_FILE_MAX;
	if (text && tmp && path)
		r = replace(path, tmp, text, len);
	/* In place: a save, for the caller, and the next one syncs the directory again. */
	if (r > 0 && !c->said_unsynced)
		log_warnx("%s saved, but its directory cannot be synced: %s: a crash may bring "
			  "back the catalog before it (said once while it lasts)",
			  path, strerror(r));
	if (r >= 0)
		c->said_unsynced = r > 0;
	r = r > 0 ? 0 : r;
	json_object_put(view);
	free(tmp);
	free(path);
	return r;
}

struct json_object *catalog_json_member(struct json_object *o, const char *key, json_type type)
{
	struct json_object *v;

	if (json_object_object_get_ex(o, key, &v) && json_object_is_type(v, type))
		return v;
	v = type == json_type_int     ? json_object_new_int64(0)
	    : type == json_type_array ? json_object_new_array()
				      : json_object_new_object();
	if (v && json_object_object_add(o, key, v) < 0) {
		json_object_put(v);
		v = NULL;
	}
	return v;
}

struct json_object *catalog_member(struct catalog *c, const char *key, bool array)
{
	return catalog_json_member(c->doc, key, array ? json_type_array : json_type_object);
}

size_t catalog_count(const struct catalog *c)
{
	return c->n;
}

struct catalog_entry *catalog_at(struct catalog *c, size_t i)
{
	return i < c->n ? c->entries[i] : NULL;
}

uint64_t catalog_incident_base(struct catalog *c)
{
	struct json_object *v;

	/* A catalog from before it was kept numbers its incidents as its snapshots. */
	if (!json_object_object_get_ex(c->doc, PROTO_KEY_INCIDENT_BASE, &v) ||
	    !json_object_is_type(v, json_type_int) || json_object_get_int64(v) < 0)
		return 0;
	return (uint64_t)json_object_get_int64(v);
}

uint64_t catalog_next_id(struct catalog *c)
{
	struct json_object *next;

	json_object_object_get_ex(c->doc, PROTO_KEY_NEXT_ID, &next);
	return (uint64_t)json_object_get_int64(next);
}

static void id_used(struct catalog *c, uint64_t id)
{
	struct json_object *next;

	json_object_object_get_ex(c->doc, PROTO_KEY_NEXT_ID, &next);
	/* Past the last id the ids are used up, not wrapped. */
	if ((uint64_t)json_object_get_int64(next) <= id && id <= CATALOG_ID_MAX)
		json_object_set_int64(next, (int64_t)id + 1);
}

static long find_index(struct catalog *c, uint64_t id);

struct catalog_entry *catalog_insert(struct catalog *c, struct catalog_entry *e)
{
	struct catalog_entry *kept;

	if (e->id < 1 || e->id > CATALOG_ID_MAX) {
		errno = ERANGE;
		return NULL;
	}
	/* Two entries of one id would share its directory: deleting one deletes the other's. */
	if (find_index(c, e->id) >= 0) {
		errno = EEXIST;
		return NULL;
	}
	kept = malloc(sizeof(*kept));
	if (!kept || append(c, kept) < 0) {
		free(kept);
		errno = ENOMEM;
		return NULL;
	}
	*kept = *e;
	memset(e, 0, sizeof(*e));
	id_used(c, kept->id);
	return kept;
}

struct catalog_entry *catalog_add_entry(struct catalog *c, uint64_t id)
{
	struct catalog_entry e = {.id = id, .status = CATALOG_RECORDING};

	return catalog_insert(c, &e);
}

struct catalog_entry *catalog_new_entry(struct catalog *c, uint64_t *id)
{
	*id = catalog_next_id(c);
	return catalog_add_entry(c, *id);
}

/* A directory of the output directory that may be a snapshot the catalog does not know. */
struct orphan {
	uint64_t id;
	char *name;
};

/* By id, then name: of two directories with one id, the same one is adopted every time. */
static int cmp_orphan(const void *a, const void *b)
{
	const struct orphan *x = a, *y = b;

	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* The id of a directory named PREFIX-ID-DATE-TIME-N, or 0. */
static uint64_t orphan_id(const char *name, const char *prefix)
{
	size_t n = strlen(prefix);
	char *end;
	uint64_t id;

	/* latencyd writes no leading zero: PREFIX-0012-... is not one of its snapshots. */
	if (strncmp(name, prefix, n) != 0 || name[n] != '-' || name[n + 1] < '1' ||
	    name[n + 1] > '9')
		return 0;
	errno = 0;
	id = strtoull(name + n + 1, &end, 10);
	/* Past the last id: none of latencyd's, nor to use up the ids. */
	return errno || *end != '-' || id > CATALOG_ID_MAX ? 0 : id;
}

/*
 * O, an entry of DIR (open as DFD), as a new entry of the catalog: 1 when adopted, 0 when
 * it is not a directory (LTTng makes none but directories there: its id stays free, for a
 * name alone must not use up ids, and a snapshot of it is found by its directory,
 * path_newest()) or went since the listing, -errno when it cannot be looked at (logged) or
 * on a lack of memory.
 */
static int adopt(struct catalog *c, int dfd, const char *dir, const struct orphan *o)
{
	struct catalog_entry e = {.id = o->id, .status = CATALOG_COMPLETE};
	struct stat st;
	int r = 0, sized;
	time_t now;

	if (fstatat(dfd, o->name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		if (errno == ENOENT)
			return 0;
		r = -errno;
		log_warnx("%s/%s: %s: cannot tell whether it is a snapshot missing from the "
			  "catalog",
			  dir, o->name, strerror(-r));
		return r;
	}
	/*
	 * Said at every start while it is there, and not remembered: it is not latencyd's to
	 * remove, starts are rare, and each start's log is read on its own.
	 */
	if (!S_ISDIR(st.st_mode)) {
		log_warnx("%s/%s is not a directory: not adopted as a snapshot", dir, o->name);
		return 0;
	}
	if (asprintf(&e.path, "%s/%s", dir, o->name) < 0)
		return -ENOMEM;
	/* Ahead of the clock, its date says nothing of its age, and max_age would never come. */
	now = time(NULL);
	e.time = (uint64_t)(st.st_mtime > now ? now : st.st_mtime);
	e.name = catalog_strdup(o->name, &r);
	sized = dir_size_read(e.path, &e.bytes);
	if (sized < 0)
		log_warnx("%s: %s: its size is what could be read of it: %" PRIu64 " bytes", e.path,
			  strerror(-sized), e.bytes);
	e.error = catalog_strdup("found on disk after latencyd stopped before cataloguing it: "
				 "causes unknown",
				 &r);
	if (r < 0 || !catalog_insert(c, &e)) {
		catalog_entry_free(&e);
		return -ENOMEM;
	}
	return 1;
}

/*
 * The orphans of D: one read of the directory, however many there are. On a read error,
 * those listed before it are kept and -errno returned; on a lack of memory, none.
 */
static int list_orphans(struct catalog *c, DIR *d, const char *prefix, struct orphan **ret,
			size_t *n)
{
	struct orphan *v = NULL, *grown;
	size_t cap = 0;
	struct dirent *de;
	uint64_t id;

	*n = 0;
	while ((errno = 0, de = readdir(d))) {
		id = orphan_id(de->d_name, prefix);
		if (!id || catalog_find(c, id))
			continue;
		if (*n == cap) {
			cap = cap ? 2 * cap : 16;
			grown = realloc(v, cap * sizeof(*v));
			if (!grown)
				goto fail;
			v = grown;
		}
		v[*n].id = id;
		v[*n].name = strdup(de->d_name);
		if (!v[*n].name)
			goto fail;
		(*n)++;
	}
	*ret = v;
	return -errno;
fail:
	while (*n > 0)
		free(v[--*n].name);
	free(v);
	return -ENOMEM;
}

/* Whether ID may be one latencyd handed out (CATALOG_ID_PLAUSIBLE). */
static bool plausible(struct catalog *c, uint64_t id)
{
	uint64_t next = catalog_next_id(c);

	return id < CATALOG_ID_PLAUSIBLE || id < next || id - next < CATALOG_MAX_ENTRIES;
}

int catalog_adopt_orphans(struct catalog *c, const char *dir, const char *prefix,
			  struct catalog_adoption *a)
{
	struct orphan *v = NULL;
	const struct orphan *done = NULL; /* the last adopted: of its id, the one managed */
	size_t n = 0;
	int r, err;
	DIR *d = opendir(dir);

	*a = (struct catalog_adoption){0};
	if (!d)
		return errno == ENOENT ? 0 : -errno;
	r = list_orphans(c, d, prefix, &v, &n);
	if (r < 0 && r != -ENOMEM)
		log_warnx("%s: %s: the scan for snapshots missing from the catalog stopped part "
			  "way",
			  dir, strerror(-r));
	if (n)
		qsort(v, n, sizeof(*v), cmp_orphan);
	for (size_t i = 0; i < n; i++) {
		/* Said at every start while it is there, as a name that is no directory. */
		if (!plausible(c, v[i].id)) {
			log_warnx("%s/%s: id %" PRIu64
				  " is none latencyd hands out (below 2^32, or "
				  "less than %u past the next id, %" PRIu64 "): not adopted, for "
				  "taking it would use up every id below it; to move or delete by "
				  "hand",
				  dir, v[i].name, v[i].id, CATALOG_MAX_ENTRIES, catalog_next_id(c));
			continue;
		}
		if (done && v[i].id == done->id) {
			log_warnx("%s/%s: a second directory of snapshot %" PRIu64
				  " (adopted as %s): not managed by latencyd, to move or delete "
				  "by hand",
				  dir, v[i].name, done->id, done->name);
			continue;
		}
		err = adopt(c, dirfd(d), dir, &v[i]);
		if (err == -ENOMEM) {
			r = err;
			break;
		}
		if (err > 0) {
			done = &v[i];
			a->adopted++;
		} else if (err < 0) {
			/* It may be a snapshot: its id must not name another one. A later start
			 * that can look at it adopts it. */
			id_used(c, v[i].id);
			a->problems++;
		}
	}
	closedir(d);
	for (size_t i = 0; i < n; i++)
		free(v[i].name);
	free(v);
	return r;
}

static long find_index(struct catalog *c, uint64_t id)
{
	for (size_t i = 0; i < c->n; i++)
		if (c->entries[i]->id == id)
			return (long)i;
	return -1;
}

struct catalog_entry *catalog_find(struct catalog *c, uint64_t id)
{
	long i = find_index(c, id);

	return i < 0 ? NULL : c->entries[i];
}

static bool own_snapshot_dir(const struct catalog *c, const struct catalog_entry *e);
static int split_path(const struct catalog_entry *e, char **parent, const char **name);

/*
 * The output directories of a file that names none (a latencyd's before they were kept):
 * the directories of its snapshots that are named as latencyd names them, those of the
 * newest last. Without them, a snapshot of an output directory used before the last
 * change could not be deleted (the one in force is all that is known), nor adopted (only
 * it is scanned): kept for good. 1 when some were found, 0 when none, -ENOMEM.
 */
static int outputs_seed(struct catalog *c)
{
	const char *name;
	char *parent;
	size_t n = 0;
	int r;

	c->outputs_unknown = false;
	for (size_t i = 0; i < c->n; i++) {
		if (!c->entries[i]->path || !own_snapshot_dir(c, c->entries[i]))
			continue;
		if (split_path(c->entries[i], &parent, &name) < 0)
			return -ENOMEM;
		r = output_add(c, parent, false);
		free(parent);
		if (r < 0)
			return r;
		n++;
	}
	if (n)
		log_info("%s/%s names no output directories (an older latencyd's): taken from the "
			 "paths of its %zu snapshot(s) there",
			 c->dir, CATALOG_FILE, n);
	return n > 0;
}

int catalog_set_output(struct catalog *c, const char *dir, const char *prefix)
{
	struct json_object *a;
	int r, seeded = 0;

	if (!c->prefix) {
		if (!(c->prefix = strdup(prefix)))
			return -ENOMEM;
		if (c->outputs_unknown && (seeded = outputs_seed(c)) < 0)
			return seeded;
	}
	r = output_add(c, dir, true);
	if (r < 0)
		return r;
	if (!r && !seeded)
		return 0;
	/* The file's list as the memory's: rewritten whole, it is short. */
	a = json_object_new_array();
	if (!a)
		return -ENOMEM;
	for (size_t i = 0; i < c->n_outputs; i++)
		json_object_array_add(a, json_object_new_string(c->outputs[i].dir));
	if (json_object_object_add(c->doc, KEY_OUTPUTS, a) < 0) {
		json_object_put(a);
		return -ENOMEM;
	}
	return 0;
}

/*
 * Whether E's path is named as the directory of snapshot E that latencyd records:
 * absolute, without "." or ".." components, its last one PREFIX-ID- and LTTng's date, and
 * E's name (PREFIX-ID...) then '-' or its end, and a directory, not a link. Its place is
 * checked by own_parent(). Only then is it removed with its entry: a catalog edited by
 * hand, restored from elsewhere or damaged must not make retention remove /etc, or
 * /home/alice-5 for an entry named alice-5.
 */
static bool own_snapshot_dir(const struct catalog *c, const struct catalog_entry *e)
{
	const char *path = e->path, *base = strrchr(path, '/');
	char own[96];
	struct stat st;
	size_t n;

	if (!c->prefix || !e->name || !e->name[0] || path[0] != '/' || strstr(path, "/../") ||
	    strstr(path, "/./"))
		return false;
	base++;
	n = strlen(e->name);
	if ((size_t)snprintf(own, sizeof(own), "%s-%" PRIu64 "-", c->prefix, e->id) >= sizeof(own))
		return false;
	/* PREFIX-ID- never is "." or "..". */
	return strncmp(base, own, strlen(own)) == 0 && strncmp(base, e->name, n) == 0 &&
	       (base[n] == '-' || base[n] == 0) && strncmp(e->name, own, strlen(own) - 1) == 0 &&
	       lstat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Whether DIR, a path, is the directory FD is open on, whatever the names that lead there. */
static bool same_dir(const char *dir, const struct stat *fd_st)
{
	struct stat st;

	return dir && stat(dir, &st) == 0 && st.st_dev == fd_st->st_dev &&
	       st.st_ino == fd_st->st_ino;
}

/*
 * Whether a directory the file alone names as an output directory is one to delete
 * snapshots from: only root, or latencyd's user, may change what is in it. Where others
 * may, what has a snapshot's name there may be theirs, not what latencyd recorded; a
 * directory the configuration gives (output.directory) is the operator's word instead.
 */
static bool trusted(const struct stat *st)
{
	return (st->st_uid == 0 || st->st_uid == geteuid()) && !(st->st_mode & (S_IWGRP | S_IWOTH));
}

/*
 * Whether FD, open on PARENT, the directory that holds a snapshot's, is an output directory
 * of latencyd's (catalog_set_output(), or the file's list): nowhere else do its snapshots
 * go. False with *WHY (to free; NULL: no memory) saying why not, for the entry's deletion
 * note. An entry's late_directory is none of them: a record abandoned at a stop has no path
 * until its output is found there, and then loses it (manager/start.c): an entry with both
 * is an edit.
 */
static bool own_parent(const struct catalog *c, int fd, const char *parent, char **why)
{
	const char *stored = NULL;
	struct stat st;
	int r;

	*why = NULL;
	if (fstat(fd, &st) < 0) {
		r = asprintf(why, "%s: %s", parent, strerror(errno));
		goto refused;
	}
	for (size_t i = 0; i < c->n_outputs; i++) {
		if (!same_dir(c->outputs[i].dir, &st))
			continue;
		if (c->outputs[i].given || trusted(&st))
			return true;
		stored = c->outputs[i].dir;
	}
	if (!stored)
		r = asprintf(why,
			     "%s: not an output directory of latencyd's (it knows the %d it "
			     "used last)",
			     parent, CATALOG_OUTPUTS_MAX);
	else if (st.st_uid != 0 && st.st_uid != geteuid())
		r = asprintf(why,
			     "%s: an output directory of the catalog's, but owned by uid %u: "
			     "not latencyd's to delete from",
			     parent, (unsigned)st.st_uid);
	else
		r = asprintf(why,
			     "%s: an output directory of the catalog's, but writable by group "
			     "or others: not latencyd's to delete from",
			     parent);
refused:
	if (r < 0)
		*why = NULL;
	return false;
}

/* Whether E's files, whole or in part, are still on disk past a deletion that failed. */
static bool undeletable(const struct catalog_entry *e)
{
	return e->deletion == CATALOG_DELETION_UNDELETABLE ||
	       e->deletion == CATALOG_DELETION_PARTIAL;
}

void catalog_deletions(const struct catalog *c, struct catalog_deletions *d)
{
	d->undeletable = 0;
	d->deleted_in_part = c->deleted_in_part;
	d->forgotten = c->forgotten;
	for (size_t i = 0; i < c->n; i++)
		d->undeletable += undeletable(c->entries[i]);
}

/* E's deletion state, as the operator reads it in the log. */
static void log_deletion(const struct catalog_entry *e)
{
	char *text;

	if (!undeletable(e) && e->deletion != CATALOG_DELETION_GONE) {
		log_info("snapshot %" PRIu64 ": deletable again, no longer counted as undeletable",
			 e->id);
		return;
	}
	text = catalog_deletion_text(e);
	log_warnx("snapshot %" PRIu64 ": %s", e->id, text ? text : strerror(ENOMEM));
	free(text);
}

/*
 * E's deletion state made STATE, with NOTE (taken; NULL: none, or no memory for it, which
 * leaves the state true all the same). Logged when it changed only: retention, which tries
 * again at every save, says each problem once.
 */
static void set_deletion(struct catalog_entry *e, enum catalog_deletion state, char *note)
{
	bool same =
		e->deletion == state && (note && e->deletion_note ? !strcmp(note, e->deletion_note)
								  : note == e->deletion_note);

	if (e->deletion_note != note) {
		free(e->deletion_note);
		e->deletion_note = note;
	}
	e->deletion = state;
	if (!same)
		log_deletion(e);
}

/*
 * The directory that holds E's (an absolute path: own_snapshot_dir()) as *PARENT (to free)
 * and its last component as *NAME; 0, or -ENOMEM.
 */
static int split_path(const struct catalog_entry *e, char **parent, const char **name)
{
	*name = strrchr(e->path, '/') + 1;
	*parent = strndup(e->path, *name - 1 > e->path ? (size_t)(*name - 1 - e->path) : 1);
	return *parent ? 0 : -ENOMEM;
}

/*
 * Deletes E's snapshot directory, all or none as far as can be known (tree_delete.h): 0 when
 * it is gone, or is not latencyd's to delete. Otherwise E's deletion state says what is left
 * and its note where and why; when a deletion fails past the check, E stays true to what is
 * left: failed, its bytes what is left.
 */
static int delete_files(struct catalog *c, struct catalog_entry *e)
{
	bool partial = e->deletion == CATALOG_DELETION_PARTIAL ||
		       e->deletion == CATALOG_DELETION_PARTIAL_DELETABLE;
	char *parent = NULL, *text = NULL, *why;
	const char *name;
	struct tree_outcome *o;
	int fd, r;

	if (!e->path || !own_snapshot_dir(c, e)) {
		if (e->path && access(e->path, F_OK) == 0 && c->prefix)
			log_warnx("snapshot %" PRIu64 ": %s is not a snapshot directory of "
				  "latencyd's (%s-%" PRIu64 "-...): its entry goes, the files stay",
				  e->id, e->path, c->prefix, e->id);
		else if (e->path && access(e->path, F_OK) == 0)
			log_warnx("snapshot %" PRIu64 ": no output directory known to delete %s "
				  "from: its entry goes, the files stay",
				  e->id, e->path);
		return 0;
	}
	/* Zeroed: a parent that cannot be opened leaves it unwritten. */
	o = calloc(1, sizeof(*o));
	if (!o || split_path(e, &parent, &name) < 0) {
		free(o);
		return -ENOMEM;
	}
	fd = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	/*
	 * Checked on the directory opened: the one whose entry is deleted. Refused, the entry
	 * stays, undeletable, as one whose tree cannot be deleted: dropped, its files would
	 * stay for good, neither deleted nor adopted again. A recheck finds it deletable once
	 * its directory is an output directory again.
	 */
	if (fd >= 0 && !own_parent(c, fd, parent, &why)) {
		close(fd);
		free(parent);
		free(o);
		set_deletion(e, partial ? CATALOG_DELETION_PARTIAL : CATALOG_DELETION_UNDELETABLE,
			     why);
		return -EPERM;
	}
	r = fd < 0 ? -errno : tree_check(fd, parent, name, o);
	if (r == 0)
		r = tree_remove(fd, parent, name, o);
	if (fd >= 0)
		close(fd);
	if (r < 0 && o->removed) {
		uint64_t before = e->bytes;

		c->deleted_in_part++;
		e->status = CATALOG_FAILED;
		/* Not measured whole (the descriptors that stopped the deletion, say): what it
		 * was less what went, rather than what could be counted. */
		if (dir_size_read(e->path, &e->bytes) < 0 && before > o->freed)
			e->bytes = before - o->freed;
		if (asprintf(&text, "%s: %s; %" PRIu64 " bytes deleted", o->where, tree_strerror(r),
			     o->freed) < 0)
			text = NULL;
		set_deletion(e, CATALOG_DELETION_PARTIAL, text);
	} else if (r < 0) {
		/* Nothing went this time: what is left of a partial deletion is still that. */
		if (asprintf(&text, "%s: %s", o->where[0] ? o->where : parent, tree_strerror(r)) <
		    0)
			text = NULL;
		set_deletion(e, partial ? CATALOG_DELETION_PARTIAL : CATALOG_DELETION_UNDELETABLE,
			     text);
	}
	free(parent);
	free(o);
	return r;
}

/*
 * E, undeletable, could be deleted now: what is left of a partial deletion says so and keeps
 * the note of where it stopped; a whole one is no longer noted.
 */
static void deletable_again(struct catalog_entry *e)
{
	if (e->deletion == CATALOG_DELETION_PARTIAL)
		set_deletion(e, CATALOG_DELETION_PARTIAL_DELETABLE, e->deletion_note);
	else
		set_deletion(e, CATALOG_DELETION_NONE, NULL);
}

/*
 * Whether E, undeletable, could be deleted now: its tree checked as its deletion would
 * (tree_check(), nothing deleted); if so, or if its directory is gone, its state says so. A
 * check that fails stops at the first entry it cannot delete, which keeps rechecking a
 * snapshot that is still undeletable cheap.
 */
static bool recheck(const struct catalog *c, struct catalog_entry *e)
{
	struct tree_outcome *o;
	const char *name;
	char *parent, *why;
	struct stat st;
	int fd, r;

	if (e->path && lstat(e->path, &st) < 0 && errno == ENOENT) {
		e->bytes = 0;
		set_deletion(e, CATALOG_DELETION_GONE, NULL);
		return true;
	}
	/* Not latencyd's to delete any more: its deletion would drop the entry alone. */
	if (!e->path || !own_snapshot_dir(c, e)) {
		deletable_again(e);
		return true;
	}
	o = malloc(sizeof(*o));
	if (!o || split_path(e, &parent, &name) < 0) {
		free(o);
		return false;
	}
	fd = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0 && !own_parent(c, fd, parent, &why)) {
		bool same = why && e->deletion_note && !strcmp(why, e->deletion_note);

		close(fd);
		free(parent);
		free(o);
		/* Still refused: the same note says nothing new; another says why now. */
		set_deletion(e, e->deletion, why);
		return !same;
	}
	r = fd < 0 ? -errno : tree_check(fd, parent, name, o);
	if (fd >= 0)
		close(fd);
	free(parent);
	free(o);
	if (r < 0)
		return false;
	deletable_again(e);
	return true;
}

size_t catalog_recheck_undeletable(struct catalog *c, uint64_t now_usec)
{
	size_t n = 0;

	/* A clock behind the last check (a caller's other clock) is not waited for. */
	if (c->rechecked && now_usec >= c->rechecked_usec &&
	    now_usec - c->rechecked_usec < CATALOG_RECHECK_USEC)
		return 0;
	c->rechecked = true;
	c->rechecked_usec = now_usec;
	for (size_t i = 0; i < c->n; i++)
		if (undeletable(c->entries[i]) && recheck(c, c->entries[i]))
			n++;
	return n;
}

static void drop_index(struct catalog *c, size_t i)
{
	struct catalog_entry *e = c->entries[i];

	catalog_entry_free(e);
	free(e);
	memmove(&c->entries[i], &c->entries[i + 1], (c->n - i - 1) * sizeof(*c->entries));
	c->n--;
}

static int delete_index(struct catalog *c, size_t i)
{
	int r = delete_files(c, c->entries[i]);

	if (r < 0)
		return r;
	drop_index(c, i);
	return 0;
}

int catalog_delete(struct catalog *c, uint64_t id)
{
	long i = find_index(c, id);

	return i < 0 ? -ENOENT : delete_index(c, (size_t)i);
}

int catalog_forget(struct catalog *c, uint64_t id)
{
	long i = find_index(c, id);

	if (i < 0)
		return -ENOENT;
	drop_index(c, (size_t)i);
	return 0;
}

/* V + N, stopping at INT64_MAX: a count edited to a huge value must not wrap. */
static void count_add(struct json_object *v, uint64_t n)
{
	int64_t old = json_object_get_int64(v);

	if (old < 0)
		old = 0;
	json_object_set_int64(v, n >= (uint64_t)(INT64_MAX - old) ? INT64_MAX : old + (int64_t)n);
}

void catalog_add_suppressed(struct catalog *c, const char *tracker,
			    const struct catalog_cause *alert, uint64_t n)
{
	struct json_object *sup, *v, *by, *recent, *o;

	sup = catalog_member(c, PROTO_KEY_SUPPRESSED, false);
	v = sup ? catalog_json_member(sup, PROTO_KEY_TOTAL, json_type_int) : NULL;
	by = sup ? catalog_json_member(sup, PROTO_KEY_BY_TRACKER, json_type_object) : NULL;
	recent = sup ? catalog_json_member(sup, PROTO_KEY_RECENT, json_type_array) : NULL;
	if (!v || !by || !recent)
		return;
	count_add(v, n);
	if (json_object_object_get_ex(by, tracker, &v))
		count_add(v, n);
	else
		json_object_object_add(
			by, tracker, json_object_new_int64(n < INT64_MAX ? (int64_t)n : INT64_MAX));
	o = alert ? catalog_cause_to_json(alert) : NULL;
	if (o) {
		json_object_array_add(recent, o);
		if (json_object_array_length(recent) > CATALOG_SUPPRESSED_KEEP)
			json_object_array_del_idx(recent, 0, 1);
	}
}

struct json_object *catalog_suppressed(struct catalog *c)
{
	struct json_object *sup;

	json_object_object_get_ex(c->doc, PROTO_KEY_SUPPRESSED, &sup);
	return sup;
}

/*
 * What retention holds against max_count and max_bytes: the entries but those whose last
 * deletion failed (undeletable()). Out of latencyd's hands, they would have newer
 * snapshots deleted in their place, down to the one just recorded. The bytes stop at
 * UINT64_MAX: sizes from an edited or damaged file may add up past it, and a sum that
 * wrapped would look small.
 */
static void held(const struct catalog *c, unsigned *count, uint64_t *bytes)
{
	*count = 0;
	*bytes = 0;
	for (size_t i = 0; i < c->n; i++) {
		const struct catalog_entry *e = c->entries[i];

		if (undeletable(e))
			continue;
		(*count)++;
		*bytes = e->bytes > UINT64_MAX - *bytes ? UINT64_MAX : *bytes + e->bytes;
	}
}

/*
 * Local snapshots whose directory was removed behind latencyd's back hold 0 bytes: counted
 * at their old size they would make retention delete others for room that is free already.
 * Their entries stay (what they said of the latency still holds), noted once.
 */
static void forget_gone(struct catalog *c)
{
	struct stat st;

	for (size_t i = 0; i < c->n; i++) {
		struct catalog_entry *e = c->entries[i];

		if (!e->path || !e->bytes || e->status == CATALOG_RECORDING ||
		    lstat(e->path, &st) == 0 || errno != ENOENT)
			continue;
		e->bytes = 0;
		set_deletion(e, CATALOG_DELETION_GONE, NULL);
	}
}

/*
 * Past CATALOG_ENTRIES_MAX, the oldest undeletable entries forgotten: one warning a pass,
 * naming the first, as each of them was said when it became undeletable.
 */
static void forget_past_max(struct catalog *c)
{
	size_t forgotten = 0, excess = c->n > CATALOG_ENTRIES_MAX ? c->n - CATALOG_ENTRIES_MAX : 0,
	       kept = 0;
	uint64_t first = 0;
	char *path = NULL;

	/* One pass, however many go: a catalog loaded far past the bound is no quadratic. */
	for (size_t i = 0; excess && i < c->n; i++) {
		struct catalog_entry *e = c->entries[i];

		if (forgotten == excess || !undeletable(e)) {
			c->entries[kept++] = e;
			continue;
		}
		if (!forgotten++) {
			first = e->id;
			path = e->path ? strdup(e->path) : NULL;
		}
		catalog_entry_free(e);
		free(e);
	}
	if (!forgotten)
		return;
	c->n = kept;
	c->forgotten += forgotten;
	log_warnx("retention: %zu snapshot(s) that cannot be deleted forgotten, past the %u "
		  "entries the catalog holds (the oldest first: snapshot %" PRIu64 ", %s): their "
		  "files stay where they are, those in the output directory adopted back at the "
		  "next start",
		  forgotten, CATALOG_ENTRIES_MAX, first, path ? path : "no local directory");
	free(path);
}

int catalog_apply_retention(struct catalog *c, const struct retention *r, uint64_t now_sec)
{
	unsigned max_count = r->max_count && r->max_count < CATALOG_MAX_ENTRIES
				     ? r->max_count
				     : CATALOG_MAX_ENTRIES;
	uint64_t total;
	unsigned count;
	int deleted = 0, err;

	if (r->max_bytes)
		forget_gone(c);
	held(c, &count, &total);

	/* Oldest first: the array is in creation order. */
	for (size_t i = 0; i < c->n;) {
		const struct catalog_entry *e = c->entries[i];
		uint64_t t = e->time, bytes = e->bytes;
		bool too_many = count > max_count;
		bool too_big = r->max_bytes && total > r->max_bytes;
		bool too_old = r->max_age_sec && t && now_sec > t && now_sec - t > r->max_age_sec;

		/* Past count and size, age alone: an entry without a time, or with one ahead of
		 * the clock, hides no older one behind it. */
		if (!too_many && !too_big && !too_old) {
			if (!r->max_age_sec)
				break;
			i++;
			continue;
		}
		/* One undeletable waits for a check that finds it deletable again
		 * (catalog_recheck_undeletable()): tried at every pass, it would be walked at
		 * every save. */
		if (e->status == CATALOG_RECORDING || undeletable(e)) {
			i++;
			continue;
		}
		err = delete_index(c, i);
		if (err == -ENOMEM)
			return err;
		if (err < 0) {
			/* Kept, said and counted (delete_files(), catalog_deletions()), and no
			 * longer held against the others. */
			held(c, &count, &total);
			i++;
			continue;
		}
		deleted++;
		/* A saturated sum says nothing of what is left: counted again. */
		if (total == UINT64_MAX) {
			held(c, &count, &total);
		} else {
			total -= bytes;
			count--;
		}
	}
	forget_past_max(c);
	return deleted;
}
