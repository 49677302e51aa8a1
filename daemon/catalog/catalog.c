// SPDX-License-Identifier: GPL-2.0-only
/*
 * The snapshot catalog. One JSON document, small enough to rewrite whole on every change
 * (retention bounds it), which keeps crash consistency down to one rename.
 *
 * {"version": 1, "next_id": N, "incident_base": MS,
 *  "snapshots": [{"id", "time", "status", "causes": [...], "path" | "url", "bytes",
 *                 "record_ns", "detect_to_record_ns", "error"?, ...}, ...],
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
#include <unistd.h>

#include <json-c/json.h>

#include "catalog.h"
#include "fsutil.h"
#include "proto.h"
#include "thread.h"

struct catalog {
	char *dir;
	struct json_object *doc;
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
	for (size_t i = 0; i < json_object_array_length(v); i++) {
		struct json_object *e = json_object_array_get_idx(v, i), *id;

		if (!json_object_object_get_ex(e, PROTO_KEY_ID, &id) ||
		    !json_object_is_type(id, json_type_int))
			return false;
	}
	return json_object_object_get_ex(doc, PROTO_KEY_SUPPRESSED, &sup) &&
	       json_object_is_type(sup, json_type_object);
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
	int r;

	*recovered = false;
	if (mkdir(dir, 0750) < 0 && errno != EEXIST)
		return -errno;
	c = calloc(1, sizeof(*c));
	if (!c || !(c->dir = strdup(dir)) || !(path = path_in(c, CATALOG_FILE))) {
		r = -ENOMEM;
		goto fail;
	}
	if (access(path, F_OK) == 0) {
		doc = json_object_from_file(path);
		if (!doc || !doc_valid(doc)) {
			json_object_put(doc);
			doc = NULL;
			aside = path_in(c, CATALOG_FILE ".corrupt");
			if (!aside || rename(path, aside) < 0) {
				r = aside ? -errno : -ENOMEM;
				goto fail;
			}
			*recovered = true;
		}
	} else if (errno != ENOENT) {
		r = -errno;
		goto fail;
	}
	c->doc = doc ? doc : doc_new();
	/* On disk at once: a restart before the first snapshot keeps its incident_base. */
	if (!doc && (r = catalog_save(c)) < 0)
		goto fail;

	/* A snapshot still "recording" in a saved catalog was cut short by a crash. */
	json_object_object_get_ex(c->doc, PROTO_KEY_SNAPSHOTS, &entries);
	for (size_t i = 0; i < json_object_array_length(entries); i++) {
		struct json_object *e = json_object_array_get_idx(entries, i), *st;

		if (json_object_object_get_ex(e, PROTO_KEY_STATUS, &st) &&
		    strcmp(json_object_get_string(st), PROTO_SNAP_RECORDING) == 0) {
			json_object_object_add(e, PROTO_KEY_STATUS,
					       json_object_new_string(PROTO_SNAP_FAILED));
			json_object_object_add(
				e, PROTO_KEY_ERROR,
				json_object_new_string("latencyd stopped while recording"));
			*recovered = true;
		}
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
	json_object_put(c->doc);
	free(c->dir);
	free(c);
}

static int write_all(int fd, const char *buf, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, buf, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

/*
 * json-c keeps the text of an object it printed, in that object, until the object is
 * freed: printed from the catalog itself, a copy of the file (about 4 KiB a snapshot,
 * in a buffer grown by doubling) would stay resident for latencyd's lifetime. A
 * short-lived object that holds references to the catalog's members prints the same
 * text, and takes it along when it goes.
 */
static struct json_object *doc_print_view(struct json_object *doc)
{
	struct json_object *view = json_object_new_object();

	if (!view)
		return NULL;
	json_object_object_foreach(doc, key, val)
	{
		if (json_object_object_add(view, key, json_object_get(val)) < 0) {
			json_object_put(val);
			json_object_put(view);
			return NULL;
		}
	}
	return view;
}

int catalog_save(struct catalog *c)
{
	struct json_object *view = doc_print_view(c->doc);
	const char *text = NULL;
	char *tmp = NULL, *path = NULL;
	int fd = -1, dfd = -1, r;

	if (view)
		text = json_object_to_json_string_ext(view, JSON_C_TO_STRING_PRETTY |
								    JSON_C_TO_STRING_NOSLASHESCAPE);
	tmp = path_in(c, CATALOG_FILE ".tmp");
	path = path_in(c, CATALOG_FILE);
	if (!text || !tmp || !path) {
		r = -ENOMEM;
		goto out;
	}
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0640);
	if (fd < 0) {
		r = -errno;
		goto out;
	}
	r = write_all(fd, text, strlen(text));
	if (r == 0)
		r = write_all(fd, "\n", 1);
	if (r == 0 && fsync(fd) < 0)
		r = -errno;
	if (close(fd) < 0 && r == 0)
		r = -errno;
	fd = -1;
	if (r == 0 && rename(tmp, path) < 0)
		r = -errno;
	if (r < 0) {
		unlink(tmp);
		goto out;
	}
	/* The rename is durable only once the directory is. */
	dfd = open(c->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd >= 0) {
		if (fsync(dfd) < 0)
			r = -errno;
		close(dfd);
	}
out:
	json_object_put(view);
	free(tmp);
	free(path);
	return r;
}

struct json_object *catalog_member(struct catalog *c, const char *key, bool array)
{
	struct json_object *v = NULL;

	if (json_object_object_get_ex(c->doc, key, &v) &&
	    json_object_is_type(v, array ? json_type_array : json_type_object))
		return v;
	v = array ? json_object_new_array() : json_object_new_object();
	if (v && json_object_object_add(c->doc, key, v) < 0) {
		json_object_put(v);
		v = NULL;
	}
	return v;
}

struct json_object *catalog_entries(struct catalog *c)
{
	struct json_object *a;

	json_object_object_get_ex(c->doc, PROTO_KEY_SNAPSHOTS, &a);
	return a;
}

struct json_object *catalog_new_entry(struct catalog *c, uint64_t *id)
{
	struct json_object *next, *e;

	json_object_object_get_ex(c->doc, PROTO_KEY_NEXT_ID, &next);
	*id = (uint64_t)json_object_get_int64(next);
	json_object_set_int64(next, (int64_t)*id + 1);
	e = json_object_new_object();
	if (!e)
		return NULL;
	json_object_object_add(e, PROTO_KEY_ID, json_object_new_int64((int64_t)*id));
	json_object_object_add(e, PROTO_KEY_STATUS, json_object_new_string(PROTO_SNAP_RECORDING));
	json_object_array_add(catalog_entries(c), e);
	return e;
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

struct json_object *catalog_add_entry(struct catalog *c, uint64_t id)
{
	struct json_object *next, *e;

	json_object_object_get_ex(c->doc, PROTO_KEY_NEXT_ID, &next);
	if ((uint64_t)json_object_get_int64(next) <= id)
		json_object_set_int64(next, (int64_t)id + 1);
	e = json_object_new_object();
	if (!e)
		return NULL;
	json_object_object_add(e, PROTO_KEY_ID, json_object_new_int64((int64_t)id));
	json_object_object_add(e, PROTO_KEY_STATUS, json_object_new_string(PROTO_SNAP_RECORDING));
	json_object_array_add(catalog_entries(c), e);
	return e;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The id of a directory named PREFIX-ID-DATE-TIME-N, or 0. */
static uint64_t orphan_id(const char *name, const char *prefix)
{
	size_t n = strlen(prefix);
	char *end;
	uint64_t id;

	if (strncmp(name, prefix, n) != 0 || name[n] != '-' || name[n + 1] < '0' ||
	    name[n + 1] > '9')
		return 0;
	errno = 0;
	id = strtoull(name + n + 1, &end, 10);
	return errno || *end != '-' ? 0 : id;
}

static int adopt(struct catalog *c, const char *dir, const char *prefix, uint64_t id)
{
	struct json_object *e;
	char pattern[64], *path = NULL;
	struct dirent *de;
	struct stat st;
	DIR *d = opendir(dir);

	if (!d)
		return -errno;
	snprintf(pattern, sizeof(pattern), "%s-%" PRIu64 "-", prefix, id);
	while ((de = readdir(d)) && !path)
		if (strncmp(de->d_name, pattern, strlen(pattern)) == 0 &&
		    asprintf(&path, "%s/%s", dir, de->d_name) < 0)
			path = NULL;
	closedir(d);
	if (!path || stat(path, &st) < 0 || !(e = catalog_add_entry(c, id))) {
		free(path);
		return -ENOMEM;
	}
	json_object_object_add(e, PROTO_KEY_TIME, json_object_new_int64((int64_t)st.st_mtime));
	json_object_object_add(e, PROTO_KEY_NAME, json_object_new_string(strrchr(path, '/') + 1));
	json_object_object_add(e, PROTO_KEY_PATH, json_object_new_string(path));
	json_object_object_add(e, PROTO_KEY_BYTES, json_object_new_int64((int64_t)dir_size(path)));
	json_object_object_add(e, PROTO_KEY_CAUSES, json_object_new_array());
	json_object_object_add(e, PROTO_KEY_STATUS, json_object_new_string(PROTO_SNAP_COMPLETE));
	json_object_object_add(e, PROTO_KEY_ERROR,
			       json_object_new_string("found on disk after latencyd stopped before "
						      "cataloguing it: causes unknown"));
	free(path);
	return 0;
}

int catalog_adopt_orphans(struct catalog *c, const char *dir, const char *prefix)
{
	uint64_t *ids = NULL, *grown, id;
	size_t n = 0, cap = 0;
	struct dirent *de;
	int r = 0;
	DIR *d = opendir(dir);

	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while ((de = readdir(d))) {
		id = orphan_id(de->d_name, prefix);
		if (!id || catalog_find(c, id))
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 16;
			grown = realloc(ids, cap * sizeof(*ids));
			if (!grown) {
				r = -ENOMEM;
				break;
			}
			ids = grown;
		}
		ids[n++] = id;
	}
	closedir(d);
	if (n)
		qsort(ids, n, sizeof(*ids), cmp_u64);
	for (size_t i = 0; i < n && r == 0; i++)
		if (i == 0 || ids[i] != ids[i - 1])
			r = adopt(c, dir, prefix, ids[i]);
	free(ids);
	return r < 0 ? r : (int)n;
}

static long find_index(struct catalog *c, uint64_t id)
{
	struct json_object *a = catalog_entries(c), *v;

	for (size_t i = 0; i < json_object_array_length(a); i++)
		if (json_object_object_get_ex(json_object_array_get_idx(a, i), PROTO_KEY_ID, &v) &&
		    (uint64_t)json_object_get_int64(v) == id)
			return (long)i;
	return -1;
}

struct json_object *catalog_find(struct catalog *c, uint64_t id)
{
	long i = find_index(c, id);

	return i < 0 ? NULL : json_object_array_get_idx(catalog_entries(c), (size_t)i);
}

static const char *entry_string(struct json_object *e, const char *key)
{
	struct json_object *v;

	return json_object_object_get_ex(e, key, &v) ? json_object_get_string(v) : NULL;
}

static int delete_index(struct catalog *c, long i)
{
	struct json_object *e = json_object_array_get_idx(catalog_entries(c), (size_t)i);
	const char *path = entry_string(e, PROTO_KEY_PATH);
	int r = path ? rm_tree(path) : 0;

	if (r < 0)
		return r;
	return json_object_array_del_idx(catalog_entries(c), (size_t)i, 1) < 0 ? -EINVAL : 0;
}

int catalog_delete(struct catalog *c, uint64_t id)
{
	long i = find_index(c, id);

	return i < 0 ? -ENOENT : delete_index(c, i);
}

void catalog_add_suppressed(struct catalog *c, const char *tracker, struct json_object *alert)
{
	struct json_object *sup, *v, *by, *recent;

	json_object_object_get_ex(c->doc, PROTO_KEY_SUPPRESSED, &sup);
	json_object_object_get_ex(sup, PROTO_KEY_TOTAL, &v);
	json_object_set_int64(v, json_object_get_int64(v) + 1);
	json_object_object_get_ex(sup, PROTO_KEY_BY_TRACKER, &by);
	if (json_object_object_get_ex(by, tracker, &v))
		json_object_set_int64(v, json_object_get_int64(v) + 1);
	else
		json_object_object_add(by, tracker, json_object_new_int64(1));
	json_object_object_get_ex(sup, PROTO_KEY_RECENT, &recent);
	if (alert) {
		json_object_array_add(recent, alert);
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

static uint64_t entry_u64(struct json_object *e, const char *key)
{
	struct json_object *v;

	return json_object_object_get_ex(e, key, &v) ? (uint64_t)json_object_get_int64(v) : 0;
}

static bool deletable(struct json_object *e)
{
	const char *st = entry_string(e, PROTO_KEY_STATUS);

	return !st || strcmp(st, PROTO_SNAP_RECORDING) != 0;
}

int catalog_apply_retention(struct catalog *c, const struct retention *r, uint64_t now_sec)
{
	struct json_object *a = catalog_entries(c);
	uint64_t total = 0;
	unsigned count = 0;
	int deleted = 0, err;

	for (size_t i = 0; i < json_object_array_length(a); i++) {
		total += entry_u64(json_object_array_get_idx(a, i), PROTO_KEY_BYTES);
		count++;
	}
	/* Oldest first: the array is in creation order. */
	for (size_t i = 0; i < json_object_array_length(a);) {
		struct json_object *e = json_object_array_get_idx(a, i);
		uint64_t t = entry_u64(e, PROTO_KEY_TIME), bytes = entry_u64(e, PROTO_KEY_BYTES);
		bool too_many = r->max_count && count > r->max_count;
		bool too_big = r->max_bytes && total > r->max_bytes;
		bool too_old = r->max_age_sec && t && now_sec > t && now_sec - t > r->max_age_sec;

		if (!too_many && !too_big && !too_old)
			break;
		if (!deletable(e)) {
			i++;
			continue;
		}
		err = delete_index(c, (long)i);
		if (err < 0)
			return err;
		total -= bytes;
		count--;
		deleted++;
	}
	return deleted;
}
