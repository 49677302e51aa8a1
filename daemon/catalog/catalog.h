/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The catalog layer. catalog.c: the snapshots latencyd has taken, with their causes, in one JSON document
 * (DIR/catalog.json) rewritten atomically: temp file, fsync, rename, fsync of the directory.
 * A crash leaves either the old or the new catalog, never a torn one.
 */
#ifndef LATENCYD_CATALOG_H
#define LATENCYD_CATALOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>

#include "entry.h"

#define CATALOG_FILE		"catalog.json"
#define CATALOG_VERSION		1
/* Suppressed alerts kept in the catalog: the most recent ones. */
#define CATALOG_SUPPRESSED_KEEP 64
/*
 * Snapshot ids are 1 to 2^53-1: exact as a number in every JSON reader (a double holds
 * them). Once the last is handed out no snapshot is recorded; an id is never wrapped, which
 * would name an older snapshot's directory.
 */
#define CATALOG_ID_MAX		((UINT64_C(1) << 53) - 1)
/*
 * The most entries the catalog keeps, whatever retention.max_count says (0 included): the
 * whole file is rewritten at each change. Retention deletes the oldest past it.
 */
#define CATALOG_MAX_ENTRIES	10000
/*
 * The most entries the catalog holds at all, those that cannot be deleted included (they
 * count against no limit): past it, retention forgets the oldest of those, their files
 * left where they are (catalog_forget()), so that the file stays bounded however many
 * snapshots become undeletable (an immutable tree, a mount inside, a read-only directory).
 */
#define CATALOG_ENTRIES_MAX	(2 * CATALOG_MAX_ENTRIES)
/*
 * catalog_adopt_orphans() takes a directory's id for a snapshot's when it is below this
 * (2^32: a snapshot a second takes 136 years to get there), or less than
 * CATALOG_MAX_ENTRIES past the next id: any other is no id latencyd hands out, and taking
 * it would use up every id below it (with the last id, all of them).
 */
#define CATALOG_ID_PLAUSIBLE	(UINT64_C(1) << 32)
/*
 * The largest catalog.json catalog_open() reads (256 MiB): a bigger one is put aside as a
 * corrupt one is. Far past what CATALOG_MAX_ENTRIES entries take (some KiB each).
 */
#define CATALOG_FILE_MAX	(256u << 20)

struct retention {
	unsigned max_count;   /* 0 = no limit but CATALOG_MAX_ENTRIES */
	uint64_t max_bytes;   /* 0 = no limit */
	uint64_t max_age_sec; /* 0 = no limit */
};

struct catalog;

/*
 * Opens DIR/catalog.json, or starts an empty catalog when there is none. A file that does
 * not parse, or a catalog.json that is not a regular file (a directory...), is put aside as
 * catalog.json.corrupt, or .corrupt.N beside an older one (kept for inspection), and the
 * catalog starts empty; *recovered tells the caller to say so. Entries left "recording" by a
 * crash are marked failed. An entry without a usable id, or of an id an entry before it has,
 * is logged with its place and left out (of one id, the first is kept), the file as it was
 * linked to catalog.json.corrupt; *recovered is set then too. Entries keep the file's
 * order, whatever their ids'.
 * A catalog.json larger than CATALOG_FILE_MAX is put aside likewise. A next_id past
 * CATALOG_ID_MAX (all ids used) is logged.
 */
int catalog_open(const char *dir, struct catalog **ret, bool *recovered);
/*
 * Where latencyd's snapshots are: directories PREFIX-ID-... of DIR (output.directory). Only
 * such a directory, in DIR or in one used before, is deleted with its entry. Those used
 * before are kept in the file, across restarts, for output.directory may change: the
 * CATALOG_OUTPUTS_MAX given last (one given again is the newest); a file that names none
 * (an older latencyd's) has them made, at the first call, from the directories of its
 * snapshots named PREFIX-ID-... . One the file names that was not given since the catalog
 * was opened counts only if root or latencyd's user owns it and neither group nor others
 * may write to it. An entry whose path is named otherwise is dropped, its files left, with
 * a warning; one named so but in none of those directories is kept undeletable
 * (catalog_delete()), its deletion note saying why. DIR is compared by its inode, not its
 * name. The first PREFIX stays. 0 or -ENOMEM.
 */
#define CATALOG_OUTPUTS_MAX 16
int catalog_set_output(struct catalog *c, const char *dir, const char *prefix);
void catalog_free(struct catalog *c);
int catalog_save(struct catalog *c);

/* A new entry (status "recording") with the next id, kept by the catalog (NULL: errno
 * ENOMEM, or ERANGE: the ids are used up, catalog_next_id() past CATALOG_ID_MAX). */
struct catalog_entry *catalog_new_entry(struct catalog *c, uint64_t *id);
/* The id the next new entry gets; catalog_add_entry() takes an id handed out before. */
uint64_t catalog_next_id(struct catalog *c);
/* What a local incident's number adds to its snapshot's id: this catalog's creation time
 * in ms (0 for a catalog older than the key). */
uint64_t catalog_incident_base(struct catalog *c);
struct catalog_entry *catalog_add_entry(struct catalog *c, uint64_t id);
/* Takes over what E holds (E is left empty) as a new entry, the newest; NULL (E is left as
 * it was): errno EEXIST, the catalog has an entry of its id already, ERANGE, its id is not
 * 1 to CATALOG_ID_MAX, or ENOMEM. */
struct catalog_entry *catalog_insert(struct catalog *c, struct catalog_entry *e);
/* What catalog_adopt_orphans() did, each thing logged as it happened. */
struct catalog_adoption {
	size_t adopted;	 /* directories made entries */
	size_t problems; /* entries that could not be looked at: not adopted, their ids
			  * never handed out (they may be snapshots) */
};
/*
 * Snapshot directories PREFIX-ID-* in DIR that the catalog does not know (latencyd was
 * killed between a record and the catalog's save) become entries, so that their ids are
 * never handed out again and retention manages them; DIR is read once. A name whose id is
 * past CATALOG_ID_MAX is none of latencyd's, passed over; one whose id latencyd never hands
 * out (CATALOG_ID_PLAUSIBLE, the lowest id first, each adoption moving the next id) or that
 * is not a directory is logged and passed over: none reserves its id. An entry's time is
 * its directory's modification time, or the adoption's when that is ahead of the clock (a
 * clock stepped back since, a touch -d), so that max_age still ends it. An entry that
 * cannot be looked at is logged with its path and counted, and the scan goes on; of two
 * directories with one id, the one left is said. Returns 0, or -errno when DIR cannot be
 * read (whole or part way) or memory lacks: *A says what was done either way, which the
 * caller saves.
 */
int catalog_adopt_orphans(struct catalog *c, const char *dir, const char *prefix,
			  struct catalog_adoption *a);
struct catalog_entry *catalog_find(struct catalog *c, uint64_t id);
/* The entries, oldest first: how many, and the I-th (NULL past the end). */
size_t catalog_count(const struct catalog *c);
struct catalog_entry *catalog_at(struct catalog *c, size_t i);
/*
 * Removes the entry and deletes its local snapshot directory if any, all of it or none as far
 * as can be known beforehand. One that cannot be deleted stays, undeletable, its
 * deletion_note saying where and why (logged once); one whose deletion failed past that
 * check stays as what is left of it: failed, deleted in part, its bytes what is left.
 * -errno then.
 */
int catalog_delete(struct catalog *c, uint64_t id);
/*
 * Removes the entry alone, its files left where they are: the operator's way out for an
 * entry kept undeletable. Its id is not handed out again (the ids only grow); its
 * directory, if in the output directory, is adopted again at the next start, as any
 * directory there that the catalog does not hold. -ENOENT.
 */
int catalog_forget(struct catalog *c, uint64_t id);

/* Counts N alerts that the rate limiter refused against TRACKER, and keeps ALERT (the first
 * of them) among the recent ones (NULL: counted only). */
void catalog_add_suppressed(struct catalog *c, const char *tracker,
			    const struct catalog_cause *alert, uint64_t n);
struct json_object *catalog_suppressed(struct catalog *c);

/*
 * Deletes the oldest complete or failed snapshots until the limits hold (max_count at
 * most CATALOG_MAX_ENTRIES, 0 included); entries still
 * recording are never deleted, nor those that cannot be (catalog_delete(): kept, said once),
 * which count against neither max_count nor max_bytes from the start of the pass: no newer
 * snapshot goes in their place. One undeletable is not tried again until
 * catalog_recheck_undeletable() finds it deletable: then it counts, and goes if past a
 * limit. Past CATALOG_ENTRIES_MAX entries, the oldest undeletable are forgotten, logged and
 * counted (catalog_deletions()). Returns how many were deleted, or -ENOMEM.
 */
int catalog_apply_retention(struct catalog *c, const struct retention *r, uint64_t now_sec);
/* How often catalog_recheck_undeletable() checks at most. */
#define CATALOG_RECHECK_USEC (10 * 1000000ULL)
/*
 * The undeletable entries (whole or in part) checked again, nothing deleted: one that could
 * be deleted now (its cause fixed), or whose directory is gone, is noted so and no longer
 * counted undeletable. Returns how many changed (the catalog is then to be saved). A check
 * stops at the first file it could not delete, but each is a walk of a tree on the caller's
 * thread: at most one pass per CATALOG_RECHECK_USEC of NOW_USEC (CLOCK_MONOTONIC), a call
 * sooner checks nothing and returns 0. The first call checks.
 */
size_t catalog_recheck_undeletable(struct catalog *c, uint64_t now_usec);

/* Local snapshots' deletions, by retention or a client (status "retention"). */
struct catalog_deletions {
	size_t undeletable;	  /* entries whose last deletion failed: still on disk, whole or
				   * in part (their deletion_note says why), counted until a
				   * recheck finds them deletable or gone, or a deletion succeeds */
	uint64_t deleted_in_part; /* since the catalog was opened: deletions that failed past
				   * their check, some of the snapshot gone */
	uint64_t forgotten;	  /* since the catalog was opened: undeletable entries dropped
				   * past CATALOG_ENTRIES_MAX, their files left */
};
void catalog_deletions(const struct catalog *c, struct catalog_deletions *d);

/* A top-level member of the document (created empty when missing or of another type). */
struct json_object *catalog_member(struct catalog *c, const char *key, bool array);
/* O[key] of TYPE (an object, an array, an int), made empty or 0 when missing or of another
 * type: a catalog from an older latencyd, edited or damaged. NULL: no memory. */
struct json_object *catalog_json_member(struct json_object *o, const char *key, json_type type);

/*
 * incidents.c: the fleet's incidents this host knows of: each with its origin, when it was
 * first seen, the members of the fleet then (as this host knew them), and what each host
 * did: recorded to the collector, recorded locally only, refused, failed, stale. A member
 * that said nothing is "pending", then "no answer" (catalog_incident_view()). The newest
 * CATALOG_INCIDENTS_KEEP are kept, half of them for this host's own whatever its peers send.
 */
#define CATALOG_INCIDENTS_KEEP	    256
/* Hosts an incident lists (its members; those that answered), as many as a host keeps
 * track of in its group; and the bytes of a host's detail kept (cut at a character). */
#define CATALOG_INCIDENT_HOSTS	    1024
#define CATALOG_INCIDENT_DETAIL_MAX 512
/* Notes that HOST did STATUS (proto/fleet.h PROTO_FLEET_*) for INCIDENT, with a DETAIL
 * (the path, the budget, the reason; NULL: none); 0 or -errno: -ENOSPC, a new host past
 * CATALOG_INCIDENT_HOSTS that answered. */
int catalog_incident_note(struct catalog *c, const char *incident, const char *host,
			  const char *status, const char *detail, uint64_t time);
/* The members of INCIDENT when it began, if not known yet: the first
 * CATALOG_INCIDENT_HOSTS by name. */
int catalog_incident_members(struct catalog *c, const char *incident, const char *const *hosts,
			     size_t n, uint64_t time);
/* How many members of INCIDENT said nothing yet; -ENOENT: no such incident. */
int catalog_incident_silent(struct catalog *c, const char *incident);
/* The origin could not publish INCIDENT: WHY. */
int catalog_incident_unpublished(struct catalog *c, const char *incident, const char *why,
				 uint64_t time);
/* A copy of incident O as clients see it: its members that said nothing listed as pending,
 * or as no_answer once ANSWER_WITHIN_SEC have passed since it began (NULL: no memory). */
struct json_object *catalog_incident_view(struct json_object *o, uint64_t now_sec,
					  uint64_t answer_within_sec);
/* The loaded incidents made what this code writes (catalog_open() calls it): the newest
 * CATALOG_INCIDENTS_KEEP, their host lists sorted, once each and capped, details cut. */
void catalog_incidents_check(struct catalog *c);
/* The incidents, oldest first (borrowed). */
struct json_object *catalog_incidents(struct catalog *c);
/* INCIDENT's entry (borrowed); NULL: not kept. */
struct json_object *catalog_incident_find(struct catalog *c, const char *incident);

#endif /* LATENCYD_CATALOG_H */
