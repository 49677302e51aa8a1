/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * collector.c: retention over the fleet collector's lttng-relayd output directory, by whole
 * incidents. relayd writes DIR/HOST/SESSION-YYYYMMDD-HHMMSS/NAME-YYYYMMDD-HHMMSS-N/, and
 * latencyd names its snapshots PREFIX-ID, or PREFIX-ID-INCIDENT@HOST in a fleet (recorder's
 * waiter.c), so that every host's snapshot of one incident is found by its name. The scan
 * and the choice are pure (a directory in, a list out); the manager logs and schedules.
 */
#ifndef LATENCYD_CATALOG_COLLECTOR_H
#define LATENCYD_CATALOG_COLLECTOR_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A snapshot whose files changed this recently may still be written by relayd. */
#define COLLECTOR_FRESH_NS (60ULL * 1000000000ULL)

struct collector_snapshot {
	char *host_dir, *session_dir, *name; /* DIR/HOST_DIR/SESSION_DIR/NAME */
	char *key;	 /* its incident, or HOST_DIR/SESSION_DIR/NAME outside a fleet */
	char *host;	 /* the host that recorded it: after '@', else HOST_DIR */
	uint64_t bytes;	 /* of its files on disk (st_blocks, as du counts) */
	int64_t time_ns; /* the newest modification in it (CLOCK_REALTIME) */
	bool fresh;	 /* modified within COLLECTOR_FRESH_NS of now, either way */
	bool held;	 /* a file under it is open in an lttng-relayd process */
	bool unreadable; /* not measured: kept, as what cannot be read cannot be deleted */
};

enum collector_verdict {
	COLLECTOR_KEEP,
	COLLECTOR_MAX_AGE,   /* older than collector.max_age */
	COLLECTOR_MAX_BYTES, /* the tree was over collector.max_bytes */
};

struct collector_incident {
	const char *id; /* its snapshots' key */
	bool fleet;	/* false: one snapshot of no fleet */
	struct collector_snapshot *snaps;
	size_t n;
	uint64_t bytes;
	int64_t time_ns; /* its newest snapshot's */
	/* a snapshot being written (fresh or held) or unreadable, or of a fleet while a
	 * directory could not be listed (collector_scan.unlisted): kept */
	bool busy;
	enum collector_verdict verdict;
};

struct collector_scan {
	char *dir; /* DIR, resolved (relayd's open files are named so) */
	struct collector_snapshot *snaps;
	size_t nsnaps;
	struct collector_incident *incidents; /* oldest first */
	size_t n;
	uint64_t total;	      /* bytes of every snapshot */
	size_t foreign;	      /* entries that are not snapshots: never touched */
	int error;	      /* the first directory that could not be read: -errno */
	char *error_path;     /* ... and which */
	bool unlisted;	      /* a host or session directory not listed whole */
	size_t relayd_unseen; /* lttng-relayd processes whose open files could not be read */
	size_t ahead;	      /* snapshots dated COLLECTOR_FRESH_NS or more ahead of now */
	char *ahead_path;     /* ... the first: HOST_DIR/SESSION_DIR/NAME */
};

struct collector_limits {
	uint64_t max_age_ns; /* 0 = no limit */
	uint64_t max_bytes;  /* 0 = no limit */
};

/*
 * Scans DIR for snapshots named PREFIX-..., measures them and groups them by incident, oldest
 * first. PROC is /proc (a test may give another), where lttng-relayd's open files are found.
 * Unreadable parts are in s->error; -errno only when DIR itself cannot be read or no memory.
 * While a host or session directory cannot be listed whole, no incident of the fleet is
 * known whole: every one is busy, kept until a pass sees the whole tree again.
 */
int collector_scan(const char *dir, const char *prefix, const char *proc, int64_t now_ns,
		   struct collector_scan *s);
void collector_scan_free(struct collector_scan *s);
/*
 * Sets each incident's verdict: older than max_age, then oldest first while the total is over
 * max_bytes; a busy incident is kept and its bytes still count. One dated ahead of NOW_NS is
 * never past max_age, and goes last past max_bytes. Returns how many are to go.
 */
size_t collector_choose(struct collector_scan *s, const struct collector_limits *l, int64_t now_ns);
/* What collector_delete() did to an incident. */
struct collector_deletion {
	size_t blocker;	      /* the snapshot (its index in inc->snaps) that could not go */
	char where[PATH_MAX]; /* what in it stopped the deletion: HOST_DIR/SESSION_DIR/NAME/... */
	size_t deleted;	      /* snapshots deleted whole */
	bool partial;	      /* the blocker was deleted in part */
	uint64_t freed;	      /* bytes of the files deleted */
};

/*
 * Deletes every snapshot of INC, never following a symbolic link nor entering another mount:
 * 0, or -errno and D says where. Every entry of every snapshot is checked first: when one
 * cannot be deleted, none is (D->deleted is 0, D->partial false). A failure the check could
 * not foresee (made immutable meanwhile, an I/O error) stops the deletion there: the
 * snapshots before the blocker are gone, the blocker in part when D->partial, the others
 * are left whole.
 */
int collector_delete(const struct collector_scan *s, const struct collector_incident *inc,
		     struct collector_deletion *d);
/* collector_delete()'s -errno R in words (tree_strerror()). */
const char *collector_strerror(int r);
/* "h1, h2, h3": the hosts that recorded INC, each once, sorted. */
void collector_hosts(const struct collector_incident *inc, char *buf, size_t size);

#endif /* LATENCYD_CATALOG_COLLECTOR_H */
