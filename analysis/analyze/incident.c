/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * One fleet incident on the collector: every host's snapshot of it under a directory (an
 * lttng-relayd output tree, or local ones), the origin's alert explained as for one
 * snapshot, and for each peer what its CPUs and tasks did over the same time: a window as
 * long as the origin's alert, ending at the peer's own record (see analyze_part()). A peer
 * whose snapshot does not hold all of it says so instead of being read as if it did.
 */
#include <errno.h>
#include <ftw.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "an.h"
#include "chain.h"
#include "crosshost.h"
#include "incident.h"
#include "results.h"

/* Without an alert in the origin's snapshot (a manual record): its last second. */
#define WINDOW_DEFAULT_NS 1000000000ULL

static __thread struct {
	const char *incident;
	struct an_vec *found;
} walk;

/*
 * "snap-ID-INCIDENT@HOST-DATE-TIME-N" (LTTng appends the last three): *host points at HOST
 * (up to the date), the host that recorded it.
 */
static bool is_snapshot_of(const char *name, const char *incident, const char **host)
{
	size_t len = strlen(incident);
	char *end;

	if (strncmp(name, "snap-", 5) != 0 || name[5] < '0' || name[5] > '9')
		return false;
	strtoull(name + 5, &end, 10);
	if (*end != '-' || strncmp(end + 1, incident, len) != 0 || end[1 + len] != '@')
		return false;
	*host = end + 2 + len;
	return true;
}

/* Whether HOST (as in the name, followed by "-DATE...") is NAME. */
static bool host_is(const char *host, const char *name)
{
	size_t len = strlen(name);

	return strncmp(host, name, len) == 0 && host[len] == '-' && host[len + 1] >= '0' &&
	       host[len + 1] <= '9';
}

static int visit(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	const char *host;

	if (flag == FTW_D && is_snapshot_of(path + ftw->base, walk.incident, &host)) {
		char **slot = an_vec_push(walk.found);

		if (!slot || !(*slot = an_strdup(path)))
			return -1;
	}
	return 0;
}

static int by_path(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void part_free(struct an_incident_part *p)
{
	free(p->host);
	free(p->path);
	free(p->label);
	free(p->why);
	an_result_free(p->res);
}

void an_incident_free(struct an_incident *inc)
{
	if (!inc)
		return;
	for (size_t i = 0; i < inc->parts.n; i++)
		part_free(AN_AT(&inc->parts, struct an_incident_part, i));
	an_vec_free(&inc->parts);
	free(inc->id);
	free(inc->origin);
	free(inc->dir);
	free(inc->window_source);
	free(inc);
}

/* The origin's snapshot is the one the origin host recorded (snap-SEQ-ORIGIN-SEQ@ORIGIN). */
/* The last component of PATH; PATH itself when it has no slash (a bare directory name). */
static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

static long find_origin(struct an_incident *inc)
{
	long found = -1;

	for (size_t i = 0; i < inc->parts.n; i++) {
		struct an_incident_part *p = AN_AT(&inc->parts, struct an_incident_part, i);
		const char *host;

		if (is_snapshot_of(base_name(p->path), inc->id, &host) &&
		    host_is(host, inc->origin)) {
			if (found >= 0)
				return -2; /* two of them: a host name used twice */
			found = (long)i;
		}
	}
	return found;
}

/* HOST of "snap-ID-INCIDENT@HOST-YYYYMMDD-HHMMSS-N" (a host name may hold dashes). */
static char *host_of(const char *name, const char *incident)
{
	const char *host = "", *end;

	is_snapshot_of(name, incident, &host);
	for (end = host; *end; end++)
		if (end[0] == '-' && strspn(end + 1, "0123456789") == 8 && end[9] == '-')
			break;
	return strndup(host, (size_t)(end - host));
}

static int add_parts(struct an_incident *inc, struct an_vec *paths)
{
	size_t skip = strlen(inc->dir);

	for (size_t i = 0; i < paths->n; i++) {
		struct an_incident_part *p = an_vec_push(&inc->parts);
		const char *path = *AN_AT(paths, char *, i);
		const char *rel = path + skip + (path[skip] == '/');

		if (!p)
			return -ENOMEM;
		memset(p, 0, sizeof(*p));
		p->path = an_strdup(path);
		p->label = an_strdup(rel);
		p->host = host_of(base_name(path), inc->id);
		if (!p->path || !p->label || !p->host)
			return -ENOMEM;
	}
	return 0;
}

/* The window: the origin's first alert in trace time, else the end of its snapshot. */
static void set_window(struct an_incident *inc, const struct an_incident_part *origin)
{
	const struct an_result *r = origin->res;

	if (r && r->causes.n) {
		const struct an_cause *c = AN_AT(&r->causes, struct an_cause, 0);

		inc->begin = c->t0;
		inc->end = c->t1;
		inc->window_source = an_asprintf("the origin's alert %" PRIu64 " (tracker %s)",
						 c->alert.seq, c->alert.tracker);
	} else if (r && r->log.last_ts) {
		inc->end = r->log.last_ts;
		inc->begin = inc->end > WINDOW_DEFAULT_NS ? inc->end - WINDOW_DEFAULT_NS : 0;
		inc->window_source = an_strdup("the last second of the origin's snapshot (it has "
					       "no latency_tracker_alert event)");
	}
}

/*
 * Hosts' wall clocks are not trusted to agree (two VMs set from a one-second RTC differ by
 * up to a second): a peer's window is aligned on its own record instead, which ends its
 * snapshot and follows the origin's alert end by the fleet's reaction time (about a
 * millisecond, bench/RESULTS.md part 6). The peer's snapshot is read once, without tables,
 * to find its end; its tables are then computed over the window from what was read.
 */
#define REACTION_NS 2000000ULL

static void analyze_part(struct an_incident_part *p, const struct an_options *base,
			 const struct an_incident *inc)
{
	struct an_options opt = *base;
	uint64_t dur = inc->end - inc->begin;
	int r;

	if (!p->origin && inc->end)
		opt.tables = false; /* they are for the window, once its end is known */
	r = an_analyze(p->path, &opt, &p->res, &p->why);
	if (r < 0 && !p->why)
		p->why = an_strdup(strerror(-r));
	if (r < 0 || p->origin || !inc->end)
		return;
	p->end = p->res->log.last_ts;
	p->begin = p->end > dur + REACTION_NS ? p->end - dur - REACTION_NS : 0;
	p->covers = p->res->log.first_ts <= p->begin;
	if (p->begin < p->res->log.first_ts)
		p->begin = p->res->log.first_ts;
	opt = *base;
	opt.begin_ns = p->begin;
	opt.end_ns = p->end;
	r = an_recompute(p->res, &opt, &p->why);
	if (r < 0) {
		an_result_free(p->res);
		p->res = NULL;
		if (!p->why)
			p->why = an_strdup(strerror(-r));
	}
}

/* The origin's chains followed into the peers that sent the packets waking its tasks. */
static int follow_packets(struct an_incident *inc, size_t origin)
{
	struct an_crosshost_host *hosts = calloc(inc->parts.n, sizeof(*hosts));
	struct an_result *o;
	size_t n = 0, at = 0;
	int r;

	if (!hosts)
		return -ENOMEM;
	for (size_t i = 0; i < inc->parts.n; i++) {
		struct an_incident_part *p = AN_AT(&inc->parts, struct an_incident_part, i);

		if (!p->res)
			continue;
		if (i == origin)
			at = n;
		hosts[n++] = (struct an_crosshost_host){.name = p->host, .log = &p->res->log};
	}
	o = AN_AT(&inc->parts, struct an_incident_part, origin)->res;
	r = o ? an_crosshost(hosts, n, at, &o->causes) : 0;
	free(hosts);
	return r;
}

int an_incident_analyze(const char *dir, const char *incident, const struct an_options *opt,
			struct an_incident **ret, char **why)
{
	struct an_vec paths = AN_VEC(char *);
	struct an_incident *inc = calloc(1, sizeof(*inc));
	const char *dash = strrchr(incident, '-');
	long origin;
	int r = 0;

	*why = NULL;
	if (!inc)
		return -ENOMEM;
	inc->parts = (struct an_vec)AN_VEC(struct an_incident_part);
	if (!dash || dash == incident || !dash[1] ||
	    strspn(dash + 1, "0123456789") != strlen(dash + 1)) {
		*why = an_asprintf("'%s' is not an incident id (ORIGIN-SEQ)", incident);
		an_incident_free(inc);
		return -EINVAL;
	}
	inc->id = an_strdup(incident);
	inc->origin = strndup(incident, (size_t)(dash - incident));
	inc->dir = an_strdup(dir);
	walk.incident = incident;
	walk.found = &paths;
	if (nftw(dir, visit, 32, FTW_PHYS) < 0) {
		*why = an_asprintf("%s: %s", dir, strerror(errno));
		r = -errno;
	} else if (paths.n == 0) {
		*why = an_asprintf("no snapshot of incident %s under %s (snap-ID-%s@HOST-*)",
				   incident, dir, incident);
		r = -ENOENT;
	}
	if (paths.n > 1)
		qsort(paths.v, paths.n, sizeof(char *), by_path);
	if (r == 0)
		r = add_parts(inc, &paths);
	an_strs_free(&paths);
	if (r < 0) {
		an_incident_free(inc);
		return r;
	}
	origin = find_origin(inc);
	if (origin >= 0) {
		struct an_incident_part *o = AN_AT(&inc->parts, struct an_incident_part, origin);

		o->origin = true;
		analyze_part(o, opt, inc);
		set_window(inc, o);
	}
	inc->origin_found = origin >= 0;
	inc->origin_ambiguous = origin == -2;
	for (size_t i = 0; i < inc->parts.n; i++) {
		struct an_incident_part *p = AN_AT(&inc->parts, struct an_incident_part, i);

		if (!p->origin)
			analyze_part(p, opt, inc);
	}
	if (origin >= 0 && !opt->local_only)
		r = follow_packets(inc, (size_t)origin);
	if (r < 0) {
		*why = an_asprintf("following the chains across hosts: %s", strerror(-r));
		an_incident_free(inc);
		return r;
	}
	*ret = inc;
	return 0;
}

const struct an_result *an_incident_origin(const struct an_incident *inc)
{
	for (size_t i = 0; i < inc->parts.n; i++) {
		const struct an_incident_part *p = AN_AT(&inc->parts, struct an_incident_part, i);

		if (p->origin && p->res)
			return p->res;
	}
	return NULL;
}
