// SPDX-License-Identifier: GPL-2.0-only
/* The fleet's members as this host tracks them: a full table makes room from who is gone. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "conf.h"
#include "fleet-setup.h"
#include "fleet_spawn.h"
#include "fleet_state.h"
#include "log.h"
#include "manager.h"
#include "tests.h"

static void presence(struct manager *m, const char *host, const char *state, uint64_t since)
{
	struct proto_fleet_presence p = {.since_realtime_ns = since};

	snprintf(p.host, sizeof(p.host), "%s", host);
	snprintf(p.group, sizeof(p.group), "lab");
	snprintf(p.state, sizeof(p.state), "%s", state);
	members_update(m, &p);
}

static bool tracked(const struct fleet_state *fs, const char *host)
{
	for (size_t i = 0; i < fs->n_members; i++)
		if (strcmp(fs->members[i].host, host) == 0)
			return true;
	return false;
}

/*
 * The fleet this host runs, set up (never started) from group "lab": fleet_new() wants a
 * latencyd-fleet beside this program, which test-fleet-client may be replacing meanwhile.
 */
static struct fleet *running_fleet(void)
{
	const struct conf conf = test_fleet_conf();
	const struct timespec tick = {.tv_nsec = 10 * 1000 * 1000};
	char self[PATH_MAX], link[PATH_MAX + 32];
	struct fleet *f = NULL;
	int r = -ENOENT;

	test_fleet_helper_beside(self, link);
	ASSERT_TRUE(symlink(self, link) == 0 || errno == EEXIST);
	for (int i = 0; i < 100 && r == -ENOENT; i++) {
		fleet_free(f);
		f = NULL;
		r = fleet_new(&conf, NULL, NULL, &f);
		if (r == -ENOENT)
			nanosleep(&tick, NULL);
	}
	ASSERT_EQ(r, 0);
	return f;
}

int main(void)
{
	/* Reloaded since the fleet started: the group is the running fleet's until a restart. */
	struct conf conf = {.fleet.group = (char *)"reloaded"};
	struct fleet_state fs = {0};
	struct manager m = {.conf = &conf, .fleet_state = &fs, .fleet = running_fleet()};
	char host[32], warning[256];

	for (int i = 0; i < MEMBERS_MAX; i++) {
		snprintf(host, sizeof(host), "h%d", i);
		presence(&m, host, PROTO_FLEET_ONLINE, 1000 + (uint64_t)i);
	}
	ASSERT_EQ(manager_fleet_members_online(&m), MEMBERS_MAX);
	/* All there: a newcomer is not tracked, and nobody is dropped for it. */
	presence(&m, "late", PROTO_FLEET_ONLINE, 5000);
	ASSERT_EQ(fs.n_members, MEMBERS_MAX);
	ASSERT_TRUE(!tracked(&fs, "late"));
	log_last_warning(warning, sizeof(warning));
	ASSERT_CONTAINS(warning, "members online in group lab: late not tracked");
	/* Two leave; the one gone longest makes room first, whenever each started: a
	 * presence's since, its last will's too, is when that member started. */
	presence(&m, "h7", PROTO_FLEET_OFFLINE, 1007);
	presence(&m, "h3", PROTO_FLEET_OFFLINE, 1003);
	presence(&m, "new1", PROTO_FLEET_ONLINE, 7000);
	ASSERT_TRUE(tracked(&fs, "new1") && !tracked(&fs, "h7") && tracked(&fs, "h3"));
	presence(&m, "new2", PROTO_FLEET_ONLINE, 7001);
	ASSERT_TRUE(tracked(&fs, "new2") && !tracked(&fs, "h3"));
	ASSERT_EQ(fs.n_members, MEMBERS_MAX);
	ASSERT_EQ(manager_fleet_members_online(&m), MEMBERS_MAX);
	/* Gone and back: the same slot, online again. */
	presence(&m, "h9", PROTO_FLEET_OFFLINE, 8000);
	presence(&m, "h9", PROTO_FLEET_ONLINE, 8001);
	ASSERT_TRUE(tracked(&fs, "h9"));
	ASSERT_EQ(manager_fleet_members_online(&m), MEMBERS_MAX);
	free(fs.members);
	fleet_free(m.fleet);
	printf("members: ok\n");
	return 0;
}
