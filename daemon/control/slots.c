/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Whether a new connection may take a client slot. Three limits, each with its own busy
 * error, so that no set of clients can lock out root nor starve the flight recorder:
 *
 *   descriptors: a connection never takes a file descriptor in the upper half of
 *     RLIMIT_NOFILE. Those are the recorder's: a snapshot record, the session's re-creation,
 *     the catalog and the reading back of a snapshot (one descriptor per stream) all open
 *     some, and failing for want of one loses an alert or the whole history (the session is
 *     re-created). Descriptors are handed out lowest first, so a connection's own number
 *     says how many are in use below it.
 *   per user: a user other than root and latencyd's own holds at most a quarter of
 *     max_clients (at least one): a member of read_group with idle connections or watchers
 *     that never read cannot take every slot.
 *   reserve: the last quarter of max_clients is kept for root and latencyd's own user, so
 *     that the administrator can always connect, whatever the other users hold.
 */
#include <errno.h>
#include <sys/resource.h>

#include "control.h"

static bool privileged(uid_t uid, uid_t self)
{
	return uid == 0 || uid == self;
}

unsigned slots_per_user(unsigned clients_max)
{
	return clients_max / 4 ? clients_max / 4 : 1;
}

unsigned slots_reserved(unsigned clients_max)
{
	return clients_max / 4;
}

int slots_fd_check(int fd, struct proto_error *err)
{
	struct rlimit rl;
	rlim_t ceiling;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur == RLIM_INFINITY)
		return 0;
	ceiling = rl.rlim_cur / 2;
	if ((rlim_t)fd < ceiling)
		return 0;
	return proto_error_set(err, PROTO_ERR_BUSY,
			       "latencyd is short of file descriptors: %llu of its %llu "
			       "(RLIMIT_NOFILE) are kept for recording",
			       (unsigned long long)(rl.rlim_cur - ceiling),
			       (unsigned long long)rl.rlim_cur);
}

int slots_check(const struct slots_use *use, uid_t uid, uid_t self, unsigned clients_max,
		struct proto_error *err)
{
	unsigned per_user = slots_per_user(clients_max), reserved = slots_reserved(clients_max);

	if (use->clients >= clients_max)
		return proto_error_set(err, PROTO_ERR_BUSY, "too many clients (%u)", clients_max);
	if (privileged(uid, self))
		return 0;
	if (use->of_uid >= per_user)
		return proto_error_set(err, PROTO_ERR_BUSY,
				       "too many clients of uid %u: %u, the most one user other "
				       "than root may have (a quarter of max_clients %u)",
				       (unsigned)uid, use->of_uid, clients_max);
	if (use->unprivileged >= clients_max - reserved)
		return proto_error_set(err, PROTO_ERR_BUSY,
				       "too many clients (%u): the last %u are kept for root",
				       clients_max, reserved);
	return 0;
}
