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

static void presence_every(struct manager *m, const char *host, const char *state, uint64_t since,
			   uint32_t every_s)
{
	struct proto_fleet_presence p = {.since_realtime_ns = since, .every_s = every_s};

	snprintf(p.host, sizeof(p.host), "%s", host);
	snprintf(p.group, sizeof(p.group), "lab");
	snprintf(p.state, sizeof(p.state), "%s", state);
	members_update(m, &p);
}

static void presence(struct manager *m, const char *host, const char *state, uint64_t since)
{
	presence_every(m, host, state, since, 0);
}

static struct fleet_member *member(struct fleet_state *fs, const char *host)
{
	for (size_t i = 0; i < fs->n_members; i++)
		if (strcmp(fs->members[i].host, host) == 0)
			return &fs->members[i];
	return NULL;
}

/* HOST last heard of SEC seconds earlier than it was: the clock is not the test's to move. */
static void heard_earlier(struct fleet_state *fs, const char *host, uint64_t sec)
{
	struct fleet_member *mb = member(fs, host);

	ASSERT_TRUE(mb != NULL);
	mb->heard_ns -= sec * 1000000000;
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

/* How often NEEDLE is in HAYSTACK. */
static int count(const char *haystack, const char *needle)
{
	int n = 0;

	for (const char *p = haystack; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

/*
 * A member that says it renews its presence every every_s seconds and was not heard of for
 * 3 times that went away, said once in the log; a renewal keeps it, unlogged; one that says
 * no every_s (an older latencyd) is never timed out; and while this host is not connected
 * nobody is, for nothing can be heard then.
 */
static void test_lapse(struct fleet *f)
{
	struct conf conf = {.fleet.group = (char *)"lab"};
	struct fleet_state fs = {0};
	struct manager m = {.conf = &conf, .fleet_state = &fs, .fleet = f};
	static char logged[16384];
	FILE *captured = tmpfile();
	int saved = dup(2);
	size_t online[6], n;
	bool renews_gone, others_on;
	uint32_t every;

	/* The log (stderr) is read back once done: checked after, where a failure shows. */
	ASSERT_TRUE(captured && saved >= 0 && dup2(fileno(captured), 2) == 2);
	members_reconnected(&m);
	presence_every(&m, "renews", PROTO_FLEET_ONLINE, 1, 2);
	presence_every(&m, "kept", PROTO_FLEET_ONLINE, 1, 2);
	presence(&m, "older", PROTO_FLEET_ONLINE, 1);
	online[0] = manager_fleet_members_online(&m);
	/* 5 s of 6: still there. A renewal then starts the 6 s again. */
	heard_earlier(&fs, "renews", 5);
	heard_earlier(&fs, "kept", 5);
	heard_earlier(&fs, "older", 5);
	online[1] = manager_fleet_members_online(&m);
	presence_every(&m, "kept", PROTO_FLEET_ONLINE, 1, 2);
	heard_earlier(&fs, "renews", 2);
	heard_earlier(&fs, "kept", 2);
	heard_earlier(&fs, "older", 100000);
	online[2] = manager_fleet_members_online(&m);
	renews_gone = !member(&fs, "renews")->online;
	others_on = member(&fs, "kept")->online && member(&fs, "older")->online;
	/* Not connected: nobody is timed out meanwhile; back, each is timed from then. */
	members_disconnected(&m);
	heard_earlier(&fs, "kept", 100);
	online[3] = manager_fleet_members_online(&m);
	members_reconnected(&m);
	presence_every(&m, "kept", PROTO_FLEET_ONLINE, 1, 2);
	heard_earlier(&fs, "kept", 7);
	online[4] = manager_fleet_members_online(&m);
	/* Back with a presence: online again, its every_s renewed each time. */
	presence_every(&m, "renews", PROTO_FLEET_ONLINE, 1, 3600);
	heard_earlier(&fs, "renews", 3 * 3600 - 1);
	online[5] = manager_fleet_members_online(&m);
	every = member(&fs, "renews")->every_s;
	free(fs.members);
	ASSERT_TRUE(dup2(saved, 2) == 2);
	close(saved);
	rewind(captured);
	n = fread(logged, 1, sizeof(logged) - 1, captured);
	logged[n] = 0;
	fclose(captured);
	fputs(logged, stderr);

	ASSERT_EQ(online[0], 3);
	ASSERT_EQ(online[1], 3);
	ASSERT_EQ(online[2], 2);
	ASSERT_TRUE(renews_gone && others_on);
	ASSERT_EQ(online[3], 2);
	ASSERT_EQ(online[4], 1);
	ASSERT_EQ(online[5], 2);
	ASSERT_EQ(every, 3600);
	ASSERT_EQ(count(logged, "fleet: member renews went away (no presence for 7 s)"), 1);
	ASSERT_EQ(count(logged, "fleet: member kept went away (no presence for 7 s)"), 1);
	ASSERT_EQ(count(logged, "member renews online"), 2);
	ASSERT_EQ(count(logged, "member kept online"), 1); /* its renewals said nothing */
	ASSERT_EQ(count(logged, "member older went away"), 0);
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
	test_lapse(m.fleet);
	fleet_free(m.fleet);
	printf("members: ok\n");
	return 0;
}
