/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The fleet's incidents in the catalog: [{"incident", "origin", "time", "members": [HOST],
 * "recorded": [HOST], "local": [HOST], "refused": [HOST], "failed": [HOST], "stale": [HOST],
 * "details": {HOST: TEXT}, "unpublished": WHY}], oldest first. This host's own records and
 * refusals are noted as they happen, its peers' from their result messages; a host is
 * listed once per incident, under its latest status.
 */
#include <errno.h>
#include <string.h>

#include <json-c/json.h>

#include "catalog.h"
#include "fleet.h"
#include "proto.h"
#include "result.h"
#include "text_clean.h"

static const char *const statuses[] = {PROTO_FLEET_RECORDED, PROTO_FLEET_LOCAL, PROTO_FLEET_REFUSED,
				       PROTO_FLEET_FAILED, PROTO_FLEET_STALE};
#define N_STATUSES (sizeof(statuses) / sizeof(statuses[0]))

struct json_object *catalog_incidents(struct catalog *c)
{
	return catalog_member(c, PROTO_KEY_INCIDENTS, true);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(json_object_get_string(*(struct json_object *const *)a),
		      json_object_get_string(*(struct json_object *const *)b));
}

/*
 * The members of ARR that KEEP(member, ARG) says to keep, in their order, in one pass: each
 * moved once to its place, the others dropped together at the end. Dropped one at a time,
 * each would move all after it: a long list (a damaged or hand-made file) would take
 * minutes.
 */
static void array_keep(struct json_object *arr, bool (*keep)(struct json_object *, void *),
		       void *arg)
{
	size_t n = json_object_array_length(arr), k = 0;

	for (size_t i = 0; i < n; i++) {
		struct json_object *v = json_object_array_get_idx(arr, i);

		if (!keep(v, arg))
			continue;
		/* put_idx() lets go of what held slot K: one dropped, or moved before. */
		if (k != i && json_object_array_put_idx(arr, k, json_object_get(v)) < 0)
			json_object_put(v);
		k++;
	}
	if (k < n)
		json_object_array_del_idx(arr, k, n - k);
}

static bool is_string(struct json_object *v, void *arg)
{
	return json_object_is_type(v, json_type_string);
}

/* A name unlike the last one kept (*ARG), in a sorted list. */
static bool not_again(struct json_object *v, void *arg)
{
	const char **last = arg, *name = json_object_get_string(v);

	if (*last && strcmp(*last, name) == 0)
		return false;
	*last = name;
	return true;
}

/*
 * ARR as this file writes a host list: strings only, sorted by name (has() halves it), each
 * once, CATALOG_INCIDENT_HOSTS at most (the first by name).
 */
static void hosts_check(struct json_object *arr)
{
	const char *last = NULL;
	size_t n;

	array_keep(arr, is_string, NULL);
	json_object_array_sort(arr, by_name);
	array_keep(arr, not_again, &last);
	n = json_object_array_length(arr);
	if (n > CATALOG_INCIDENT_HOSTS)
		json_object_array_del_idx(arr, CATALOG_INCIDENT_HOSTS, n - CATALOG_INCIDENT_HOSTS);
}

/* How many bytes of TEXT a detail keeps: CATALOG_INCIDENT_DETAIL_MAX, cut at a character. */
static size_t detail_len(const char *text)
{
	return text_cut_len(text, CATALOG_INCIDENT_DETAIL_MAX);
}

/* A detail of TEXT, cut to detail_len(); NULL: no memory. */
static struct json_object *detail_new(const char *text)
{
	return json_object_new_string_len(text, (int)detail_len(text));
}

/* DETAILS as this file writes them: texts, each cut to detail_len(). */
static void details_check(struct json_object *o, struct json_object *details)
{
	struct json_object *cut;

	if (!json_object_is_type(details, json_type_object)) {
		json_object_object_del(o, PROTO_KEY_DETAILS);
		return;
	}
	json_object_object_foreach(details, host, text)
	{
		if (!json_object_is_type(text, json_type_string)) {
			json_object_object_del(details, host);
		} else if (json_object_get_string_len(text) > CATALOG_INCIDENT_DETAIL_MAX) {
			cut = detail_new(json_object_get_string(text));
			if (cut)
				json_object_object_add(details, host, cut);
			else
				json_object_object_del(details, host);
		}
	}
}

static bool has(struct json_object *hosts, const char *host);

/*
 * Whether O is this host's own incident: its origin is among its members (a peer's lists
 * this host alone, manager/peers.c), or one not known yet is taken for a peer's. SORTED:
 * its members are as hosts_check() leaves them, else a file's, of any type and order.
 */
static bool is_local(struct json_object *o, bool sorted)
{
	struct json_object *origin, *members, *v;
	const char *name;

	if (!json_object_object_get_ex(o, PROTO_KEY_ORIGIN, &origin) ||
	    !json_object_is_type(origin, json_type_string) ||
	    !json_object_object_get_ex(o, PROTO_KEY_MEMBERS, &members) ||
	    !json_object_is_type(members, json_type_array))
		return false;
	name = json_object_get_string(origin);
	if (sorted)
		return has(members, name);
	for (size_t i = 0, n = json_object_array_length(members); i < n; i++) {
		v = json_object_array_get_idx(members, i);
		if (json_object_is_type(v, json_type_string) &&
		    strcmp(json_object_get_string(v), name) == 0)
			return true;
	}
	return false;
}

/* What trim() drops: the oldest this many of each side, the newest incident aside. */
struct trim {
	size_t drop[2]; /* [0] the peers', [1] this host's */
	size_t left;	/* incidents not looked at yet: the last one is kept */
	bool sorted;
};

static bool trim_keep(struct json_object *o, void *arg)
{
	struct trim *t = arg;
	bool local;

	if (t->left-- == 1)
		return true;
	local = is_local(o, t->sorted);
	if (!t->drop[local])
		return true;
	t->drop[local]--;
	return false;
}

/*
 * LIST cut to CATALOG_INCIDENTS_KEEP, the newest (last) kept: the oldest of the peers' go
 * while they hold half the list or more, then the oldest of this host's. Each side has half
 * the list for itself: a peer flooding alerts never pushes out this host's own incidents,
 * whose members' results would then be dropped as unknown. What goes is counted first and
 * the list compacted once: a file's thousands of incidents are read in one pass each.
 */
static void trim(struct json_object *list, bool sorted)
{
	size_t n = json_object_array_length(list), peers = 0, locals, keep_peers, keep_locals;
	struct trim t = {.left = n, .sorted = sorted};

	if (n <= CATALOG_INCIDENTS_KEEP)
		return;
	for (size_t i = 0; i + 1 < n; i++)
		peers += !is_local(json_object_array_get_idx(list, i), sorted);
	locals = n - 1 - peers;
	/* As many as one at a time would drop, from the side each drop would take. */
	keep_peers = peers;
	keep_locals = locals;
	while (keep_peers + keep_locals + 1 > CATALOG_INCIDENTS_KEEP) {
		if (keep_peers >= CATALOG_INCIDENTS_KEEP / 2)
			keep_peers--;
		else
			keep_locals--;
	}
	t.drop[0] = peers - keep_peers;
	t.drop[1] = locals - keep_locals;
	array_keep(list, trim_keep, &t);
}

/* An object with an incident id: what a note can be made to. */
static bool is_incident(struct json_object *o, void *arg)
{
	struct json_object *v;

	return json_object_is_type(o, json_type_object) &&
	       json_object_object_get_ex(o, PROTO_KEY_INCIDENT, &v) &&
	       json_object_is_type(v, json_type_string);
}

/*
 * What this file reads of an incident is then as it writes it: an object with its id, host
 * lists of names, details of texts, the newest CATALOG_INCIDENTS_KEEP of them. A
 * hand-edited or damaged catalog loses what is not; a member of the wrong type is dropped,
 * to be made anew by the next note. Each step is one pass over the list: the file may hold
 * far more incidents than are kept, of which only those kept have their lists checked.
 */
void catalog_incidents_check(struct catalog *c)
{
	static const char *const lists[] = {PROTO_FLEET_RECORDED, PROTO_FLEET_LOCAL,
					    PROTO_FLEET_REFUSED,  PROTO_FLEET_FAILED,
					    PROTO_FLEET_STALE,	  PROTO_KEY_MEMBERS};
	struct json_object *list = catalog_incidents(c), *o, *v;

	if (!list)
		return;
	array_keep(list, is_incident, NULL);
	trim(list, false);
	for (size_t i = 0; i < json_object_array_length(list); i++) {
		o = json_object_array_get_idx(list, i);
		for (size_t k = 0; k < sizeof(lists) / sizeof(lists[0]); k++)
			if (json_object_object_get_ex(o, lists[k], &v)) {
				if (json_object_is_type(v, json_type_array))
					hosts_check(v);
				else
					json_object_object_del(o, lists[k]);
			}
		if (json_object_object_get_ex(o, PROTO_KEY_DETAILS, &v))
			details_check(o, v);
	}
}

static struct json_object *find(struct json_object *list, const char *incident)
{
	if (!incident)
		return NULL;
	for (size_t i = json_object_array_length(list); i-- > 0;) {
		struct json_object *o = json_object_array_get_idx(list, i), *v;

		if (json_object_object_get_ex(o, PROTO_KEY_INCIDENT, &v) &&
		    strcmp(json_object_get_string(v), incident) == 0)
			return o;
	}
	return NULL;
}

struct json_object *catalog_incident_find(struct catalog *c, const char *incident)
{
	struct json_object *list = catalog_incidents(c);

	return list ? find(list, incident) : NULL;
}

static struct json_object *add(struct json_object *list, const char *incident, uint64_t time)
{
	char origin[PROTO_FLEET_NAME_MAX + 1];
	struct json_object *o = json_object_new_object();
	int r = 0;

	if (proto_fleet_incident_parse(incident, origin, sizeof(origin), NULL) < 0) {
		json_object_put(o);
		return NULL;
	}
	result_add_string(o, PROTO_KEY_INCIDENT, incident, &r);
	result_add_string(o, PROTO_KEY_ORIGIN, origin, &r);
	result_add_int(o, PROTO_KEY_TIME, (int64_t)time, &r);
	for (size_t i = 0; i < N_STATUSES; i++)
		result_add(o, statuses[i], json_object_new_array(), &r);
	result_add(o, PROTO_KEY_MEMBERS, json_object_new_array(), &r);
	result_add(o, PROTO_KEY_DETAILS, json_object_new_object(), &r);
	if (r < 0 || json_object_array_add(list, o) < 0) {
		json_object_put(o);
		return NULL;
	}
	trim(list, true);
	return o;
}

/* Takes HOST out of every status list of the incident. */
static void forget_host(struct json_object *o, const char *host)
{
	struct json_object *details;

	if (json_object_object_get_ex(o, PROTO_KEY_DETAILS, &details))
		json_object_object_del(details, host);
	for (size_t i = 0; i < N_STATUSES; i++) {
		struct json_object *hosts;

		if (!json_object_object_get_ex(o, statuses[i], &hosts))
			continue;
		for (size_t k = json_object_array_length(hosts); k-- > 0;)
			if (strcmp(json_object_get_string(json_object_array_get_idx(hosts, k)),
				   host) == 0)
				json_object_array_del_idx(hosts, k, 1);
	}
}

/* Incident O of the list, created when new; NULL: not an incident id, or no memory. */
static struct json_object *get(struct catalog *c, const char *incident, uint64_t time)
{
	struct json_object *list = catalog_incidents(c), *o;

	if (!list)
		return NULL;
	o = find(list, incident);
	return o ? o : add(list, incident, time);
}

/* Whether HOST is in HOSTS, a list kept sorted by name. */
static bool has(struct json_object *hosts, const char *host)
{
	size_t lo = 0, hi = json_object_array_length(hosts);

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(json_object_get_string(json_object_array_get_idx(hosts, mid)), host);

		if (c == 0)
			return true;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

/* Whether HOST answered for incident O: it is in one of the status lists. */
static bool answered(struct json_object *o, const char *host)
{
	for (size_t k = 0; k < N_STATUSES; k++) {
		struct json_object *hosts;

		if (json_object_object_get_ex(o, statuses[k], &hosts) && has(hosts, host))
			return true;
	}
	return false;
}

/* How many hosts answered for incident O: each is in one status list at most. */
static size_t answers(struct json_object *o)
{
	size_t n = 0;

	for (size_t k = 0; k < N_STATUSES; k++) {
		struct json_object *hosts;

		if (json_object_object_get_ex(o, statuses[k], &hosts) &&
		    json_object_is_type(hosts, json_type_array))
			n += json_object_array_length(hosts);
	}
	return n;
}

int catalog_incident_note(struct catalog *c, const char *incident, const char *host,
			  const char *status, const char *detail, uint64_t time)
{
	struct json_object *o = get(c, incident, time), *hosts, *details;

	if (!o)
		return -EINVAL;
	/* A host that answered before takes no more room; another past the cap is left out. */
	if (!answered(o, host) && answers(o) >= CATALOG_INCIDENT_HOSTS)
		return -ENOSPC;
	forget_host(o, host);
	if (!(hosts = catalog_json_member(o, status, json_type_array)) ||
	    !(details = catalog_json_member(o, PROTO_KEY_DETAILS, json_type_object)))
		return -ENOMEM;
	if (json_object_array_add(hosts, json_object_new_string(host)) < 0)
		return -ENOMEM;
	json_object_array_sort(hosts, by_name); /* a reader scans it, has() halves it */
	if (detail && detail[0])
		json_object_object_add(details, host, detail_new(detail));
	return 0;
}

int catalog_incident_members(struct catalog *c, const char *incident, const char *const *hosts,
			     size_t n, uint64_t time)
{
	struct json_object *o = get(c, incident, time), *members;

	if (!o || !(members = catalog_json_member(o, PROTO_KEY_MEMBERS, json_type_array)))
		return o ? -ENOMEM : -EINVAL;
	if (json_object_array_length(members))
		return 0; /* as it began: later comers are no members of it */
	for (size_t i = 0; i < n; i++)
		if (json_object_array_add(members, json_object_new_string(hosts[i])) < 0)
			return -ENOMEM;
	hosts_check(members);
	return 0;
}

/* How many hosts two lists sorted by name have in common, in one walk of both. */
static size_t common(struct json_object *a, struct json_object *b)
{
	size_t i = 0, k = 0, n = 0, na = json_object_array_length(a),
	       nb = json_object_array_length(b);

	while (i < na && k < nb) {
		int c = strcmp(json_object_get_string(json_object_array_get_idx(a, i)),
			       json_object_get_string(json_object_array_get_idx(b, k)));

		n += c == 0;
		i += c <= 0;
		k += c >= 0;
	}
	return n;
}

/*
 * The origin asks after each answer, a hundred answers an incident and more: counted in
 * one walk of each list (a host is in one status list at most), not a lookup a member.
 */
int catalog_incident_silent(struct catalog *c, const char *incident)
{
	struct json_object *list = catalog_incidents(c), *o, *members, *hosts;
	size_t heard = 0;

	if (!list || !(o = find(list, incident)))
		return -ENOENT;
	if (!json_object_object_get_ex(o, PROTO_KEY_MEMBERS, &members))
		return 0;
	for (size_t k = 0; k < N_STATUSES; k++)
		if (json_object_object_get_ex(o, statuses[k], &hosts))
			heard += common(members, hosts);
	return (int)(json_object_array_length(members) - heard);
}

int catalog_incident_unpublished(struct catalog *c, const char *incident, const char *why,
				 uint64_t time)
{
	struct json_object *o = get(c, incident, time);

	if (!o)
		return -EINVAL;
	json_object_object_add(o, PROTO_KEY_UNPUBLISHED, json_object_new_string(why));
	return 0;
}

struct json_object *catalog_incident_view(struct json_object *o, uint64_t now_sec,
					  uint64_t answer_within_sec)
{
	struct json_object *copy = NULL, *members, *silent, *t;
	bool late;

	if (json_object_deep_copy(o, &copy, NULL) < 0)
		return NULL;
	late = json_object_object_get_ex(copy, PROTO_KEY_TIME, &t) &&
	       (uint64_t)json_object_get_int64(t) + answer_within_sec <= now_sec;
	members = catalog_json_member(copy, PROTO_KEY_MEMBERS, json_type_array);
	silent = json_object_new_array();
	for (size_t i = 0; members && silent && i < json_object_array_length(members); i++) {
		const char *host = json_object_get_string(json_object_array_get_idx(members, i));

		if (!answered(copy, host))
			json_object_array_add(silent, json_object_new_string(host));
	}
	if (!members || !silent ||
	    json_object_object_add(copy, late ? PROTO_KEY_NO_ANSWER : PROTO_KEY_PENDING, silent) <
		    0) {
		json_object_put(silent);
		json_object_put(copy);
		return NULL;
	}
	if (json_object_object_add(copy, late ? PROTO_KEY_PENDING : PROTO_KEY_NO_ANSWER,
				   json_object_new_array()) < 0) {
		json_object_put(copy);
		return NULL;
	}
	return copy;
}
