// SPDX-License-Identifier: GPL-2.0-only
/*
 * slow-groups.so, preloaded into latencyd (LD_PRELOAD): a group database that does not
 * answer, as sssd or LDAP may not, for one user. getgrouplist() for the user whose uid is
 * SLOW_GROUPS_UID reads the real database first (the answer is what the database said when
 * the lookup began), then appends a line to the file SLOW_GROUPS_MARK (one line per lookup
 * that waits), and waits until the file SLOW_GROUPS_RELEASE exists, however long that
 * takes; then it answers, a line appended to SLOW_GROUPS_DONE first when it is set. The
 * users whose uids the file SLOW_GROUPS_ALSO holds (one a line), while it holds them, wait
 * so too. With SLOW_GROUPS_WHILE set, only the lookups that begin while that file exists
 * wait: a database that recovers, a lookup begun before still waiting. Every other user,
 * and every process without these variables, is answered at once.
 */
#include <dlfcn.h>
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

typedef int getgrouplist_fn(const char *user, gid_t group, gid_t *groups, int *ngroups);

/* Whether SLOW_GROUPS_ALSO names UID. */
static int also(unsigned long uid)
{
	const char *path = getenv("SLOW_GROUPS_ALSO");
	unsigned long v;
	int found = 0;
	FILE *f;

	if (!path || !(f = fopen(path, "r")))
		return 0;
	while (!found && fscanf(f, "%lu", &v) == 1)
		found = v == uid;
	fclose(f);
	return found;
}

static int slow_for(const char *user)
{
	const char *want = getenv("SLOW_GROUPS_UID");
	struct passwd pw, *found = NULL;
	char buf[4096];

	if (!want || !getenv("SLOW_GROUPS_MARK") || !getenv("SLOW_GROUPS_RELEASE"))
		return 0;
	if (getenv("SLOW_GROUPS_WHILE") && access(getenv("SLOW_GROUPS_WHILE"), F_OK) < 0)
		return 0;
	if (getpwnam_r(user, &pw, buf, sizeof(buf), &found) != 0 || !found)
		return 0;
	return (unsigned long)found->pw_uid == strtoul(want, NULL, 10) ||
	       also((unsigned long)found->pw_uid);
}

static void wait_for_release(const char *user)
{
	const struct timespec tick = {.tv_nsec = 10 * 1000 * 1000};
	FILE *mark = fopen(getenv("SLOW_GROUPS_MARK"), "a");

	if (mark) {
		fprintf(mark, "%s\n", user);
		fclose(mark);
	}
	while (access(getenv("SLOW_GROUPS_RELEASE"), F_OK) < 0)
		nanosleep(&tick, NULL);
	if (getenv("SLOW_GROUPS_DONE") && (mark = fopen(getenv("SLOW_GROUPS_DONE"), "a"))) {
		fprintf(mark, "%s\n", user);
		fclose(mark);
	}
}

int getgrouplist(const char *user, gid_t group, gid_t *groups, int *ngroups)
{
	getgrouplist_fn *real = (getgrouplist_fn *)dlsym(RTLD_NEXT, "getgrouplist");
	int r;

	if (!real) {
		errno = ENOSYS;
		return -1;
	}
	r = real(user, group, groups, ngroups);
	if (slow_for(user))
		wait_for_release(user);
	return r;
}
