/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Control callers: credentials taken once, at accept time, and the authorization rule
 * applied to every command:
 *
 *   admin commands: uid 0, latencyd's own uid, or a member of control.admin_group;
 *   read commands:  the above, or a member of control.read_group.
 *
 * A client that may run neither is refused at accept time (caller_admit), before anything it
 * sends is read: with groups configured the socket file is open to every local user (see
 * control.c), and this check is what keeps the others out.
 *
 * Membership counts the caller's primary gid and the supplementary groups of its user name
 * in the group database, not the groups its process holds: a user taken out of a group in
 * the database loses access at the next reload, whatever sessions it still has open. The
 * database (NSS: with sssd or LDAP a lookup can take seconds, or hang) is asked only when
 * its answer can change the outcome: never for root or latencyd's own user, nor when no
 * group is configured, nor when the primary gid is admin_group (or read_group, with no
 * admin_group); what it said is kept a few seconds (caller_cache.c); and it is asked off
 * the main loop (caller_worker.c, caller_lookup.c), for any local user may connect at will.
 */
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "control.h"
#include "log.h"

#define PW_BUF_MAX (1u << 20)

static int user_name(uid_t uid, char **ret)
{
	size_t size = 1024;

	for (;;) {
		struct passwd pw, *result = NULL;
		char *buf = malloc(size);
		int r;

		if (!buf)
			return -ENOMEM;
		r = getpwuid_r(uid, &pw, buf, size, &result);
		if (r == ERANGE && size < PW_BUF_MAX) {
			free(buf);
			size *= 2;
			continue;
		}
		if (r == 0 && result) {
			*ret = strdup(result->pw_name);
			free(buf);
			return *ret ? 0 : -ENOMEM;
		}
		free(buf);
		return r ? -r : -ENOENT;
	}
}

static int user_groups(const char *name, gid_t gid, gid_t **ret, int *ret_n)
{
	int n = 32;

	for (;;) {
		gid_t *groups = calloc((size_t)n, sizeof(gid_t));
		int want = n;

		if (!groups)
			return -ENOMEM;
		if (getgrouplist(name, gid, groups, &want) >= 0) {
			*ret = groups;
			*ret_n = want;
			return 0;
		}
		free(groups);
		if (want <= n || want > 65536)
			return -E2BIG;
		n = want;
	}
}

int caller_database_groups(uid_t uid, gid_t gid, gid_t **ret, int *ret_n)
{
	char *name = NULL;
	int r;

	*ret = NULL;
	*ret_n = 0;
	/* A uid without a passwd entry has no supplementary groups: only its gid counts. */
	r = user_name(uid, &name);
	if (r == -ENOENT)
		return 0;
	if (r < 0)
		return r;
	r = user_groups(name, gid, ret, ret_n);
	free(name);
	return r;
}

static bool member(const struct control_caller *p, gid_t gid)
{
	if (gid == GID_INVALID)
		return false;
	if (p->gid == gid)
		return true;
	for (int i = 0; i < p->ngroups; i++)
		if (p->groups[i] == gid)
			return true;
	return false;
}

/* Whether the group database could still change what P may do. */
static bool database_matters(const struct control_caller *p, const struct conf_control *cc,
			     uid_t self)
{
	if (!cc)
		return true;
	if (p->uid == 0 || p->uid == self || member(p, cc->admin_gid))
		return false;
	/* Without an admin_group, read_group is all there is to be a member of. */
	if (cc->admin_gid == GID_INVALID && member(p, cc->read_gid))
		return false;
	return cc->admin_gid != GID_INVALID || cc->read_gid != GID_INVALID;
}

int caller_from_socket(int fd, unsigned id, struct caller_cache *cache, uint64_t now_usec,
		       const struct conf_control *cc, uid_t self, struct control_caller *p)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);
	int r;

	memset(p, 0, sizeof(*p));
	p->id = id;
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0)
		return -errno;
	p->pid = cred.pid;
	p->uid = cred.uid;
	p->gid = cred.gid;
	if (!database_matters(p, cc, self))
		return 0;
	r = caller_cache_get(cache, cred.uid, cred.gid, now_usec, &p->groups, &p->ngroups);
	if (r < 0)
		return r;
	return r == 1 ? 0 : r == 2 ? 2 : 1;
}

int caller_set_groups(struct control_caller *p, const gid_t *groups, int n)
{
	gid_t *copy = NULL;

	if (n > 0) {
		copy = malloc((size_t)n * sizeof(*copy));
		if (!copy)
			return -ENOMEM;
		memcpy(copy, groups, (size_t)n * sizeof(*copy));
	}
	free(p->groups);
	p->groups = copy;
	p->ngroups = n > 0 ? n : 0;
	return 0;
}

void caller_done(struct control_caller *p)
{
	if (!p)
		return;
	free(p->groups);
	p->groups = NULL;
	p->ngroups = 0;
}

static const char *describe(const char *group, char *buf, size_t size)
{
	if (!group[0])
		return "none configured";
	snprintf(buf, size, "'%s'", group);
	return buf;
}

static bool allowed(const struct control_caller *p, enum access_class cls,
		    const struct conf_control *cc, uid_t self)
{
	if (p->uid == 0 || p->uid == self || member(p, cc->admin_gid))
		return true;
	return cls == ACCESS_READ && member(p, cc->read_gid);
}

int caller_admit(const struct control_caller *p, const struct conf_control *cc, uid_t self,
		 struct proto_error *err)
{
	char admin[128], reader[128];

	if (allowed(p, ACCESS_READ, cc, self))
		return 0;
	return proto_error_set(err, PROTO_ERR_NOT_AUTHORIZED,
			       "uid %u may not use latencyd's control socket: it is neither root "
			       "nor in read_group (%s) or admin_group (%s)",
			       (unsigned)p->uid, describe(cc->read_group, reader, sizeof(reader)),
			       describe(cc->admin_group, admin, sizeof(admin)));
}

int caller_authorize(const struct control_caller *p, const char *command, enum access_class cls,
		     const struct conf_control *cc, uid_t self, struct proto_error *err)
{
	char admin[128], reader[128];

	if (allowed(p, cls, cc, self))
		return 0;

	if (cls == ACCESS_ADMIN)
		return proto_error_set(err, PROTO_ERR_NOT_AUTHORIZED,
				       "'%s' needs admin access: uid %u is neither root nor in "
				       "admin_group (%s)",
				       command, (unsigned)p->uid,
				       describe(cc->admin_group, admin, sizeof(admin)));
	return proto_error_set(err, PROTO_ERR_NOT_AUTHORIZED,
			       "'%s' needs read access: uid %u is neither root nor in read_group "
			       "(%s) or admin_group (%s)",
			       command, (unsigned)p->uid,
			       describe(cc->read_group, reader, sizeof(reader)),
			       describe(cc->admin_group, admin, sizeof(admin)));
}
