// SPDX-License-Identifier: GPL-2.0-only
/* The fleet's members as this host tracks them: a full table makes room from who is gone;
 * who renews a presence but falls silent goes, once this host's own presence proves the
 * broker delivers. */
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
#include "thread.h"

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

/* This host's own presence, back from the broker. */
static void self_echo(struct manager *m, const char *state)
{
	presence_every(m, fleet_host(m->fleet), state, 1, 60);
}

/* T, SEC seconds earlier; a time set stays set (0 is "none"). */
static uint64_t earlier(uint64_t t, uint64_t sec)
{
	uint64_t d = sec * 1000000000;

	return !t ? 0 : t > d ? t - d : 1;
}

/* SEC seconds pass: every time the state holds moves that far back. The clock is not the
 * test's to move, and steps of whole seconds leave the real time between them a margin. */
static void elapse(struct fleet_state *fs, uint64_t sec)
{
	fs->confirm_by_ns = earlier(fs->confirm_by_ns, sec);
	fs->self_heard_ns = earlier(fs->self_heard_ns, sec);
	for (size_t i = 0; i < fs->n_members; i++) {
		fs->members[i].heard_ns = earlier(fs->members[i].heard_ns, sec);
		fs->members[i].proof_ns = earlier(fs->members[i].proof_ns, sec);
	}
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

/* The N of "fleet: member HOST went away (no presence for N s)" in LOGGED: -1, not said. */
static long silent_for(const char *logged, const char *host)
{
	char said[128];
	const char *p;

	snprintf(said, sizeof(said), "fleet: member %s went away (no presence for ", host);
	p = strstr(logged, said);
	return p ? strtol(p + strlen(said), NULL, 10) : -1;
}

/* The log (stderr) from here to log_end(), read back once done: checked after, where a
 * failure shows. */
static FILE *log_start(int *saved)
{
	FILE *captured = tmpfile();

	*saved = dup(2);
	ASSERT_TRUE(captured && *saved >= 0 && dup2(fileno(captured), 2) == 2);
	return captured;
}

static void log_end(FILE *captured, int saved, char *logged, size_t size)
{
	size_t n;

	ASSERT_TRUE(dup2(saved, 2) == 2);
	close(saved);
	rewind(captured);
	n = fread(logged, 1, size - 1, captured);
	logged[n] = 0;
	fclose(captured);
	fputs(logged, stderr);
}

/*
 * A member that says it renews its presence every every_s seconds and was not heard of for
 * 3 times that went away, said once in the log, but only once this host's own presence came
 * back from the broker past that bound (the broker delivers, the member is the silent one),
 * and a second later (what the broker held may follow it); a renewal keeps it, unlogged;
 * one that says no every_s (an older latencyd) is never timed out; and while this host is
 * not connected nobody is, for nothing can be heard then. Our own presence never makes this
 * host a member of its own, whatever it says.
 */
static void test_lapse(struct fleet *f)
{
	struct conf conf = {.fleet.group = (char *)"lab"};
	struct fleet_state fs = {0};
	struct manager m = {.conf = &conf, .fleet_state = &fs, .fleet = f};
	static char logged[16384];
	const char *hosts[8];
	size_t online[8], listed, self_listed = 0;
	bool renews_gone, others_on, self_tracked, quick;
	uint64_t t0;
	uint32_t every;
	int saved;
	FILE *captured = log_start(&saved);

	members_reconnected(&m);
	presence_every(&m, "renews", PROTO_FLEET_ONLINE, 1, 2);
	presence_every(&m, "kept", PROTO_FLEET_ONLINE, 1, 2);
	presence(&m, "older", PROTO_FLEET_ONLINE, 1);
	self_echo(&m, PROTO_FLEET_ONLINE);
	online[0] = manager_fleet_members_online(&m);
	/* 12 s: the confirmation is over, every bound (6 s) past; but our own presence last
	 * came back before them: nobody is timed out. */
	elapse(&fs, 12);
	online[1] = manager_fleet_members_online(&m);
	/* kept renews; our own back: renews goes, a second later (judged only if this took
	 * less: a pause under a slow sanitizer says nothing of it). */
	presence_every(&m, "kept", PROTO_FLEET_ONLINE, 1, 2);
	t0 = now_ns();
	self_echo(&m, PROTO_FLEET_ONLINE);
	online[2] = manager_fleet_members_online(&m);
	quick = now_ns() - t0 < 900000000;
	elapse(&fs, 3);
	self_echo(&m, PROTO_FLEET_ONLINE); /* ours again: it never puts renews' going off */
	online[3] = manager_fleet_members_online(&m);
	renews_gone = !member(&fs, "renews")->online;
	others_on = member(&fs, "kept")->online && member(&fs, "older")->online;
	/* Not connected: nobody is timed out meanwhile, whatever comes; back, each is timed
	 * from then. */
	members_disconnected(&m);
	elapse(&fs, 20);
	self_echo(&m, PROTO_FLEET_ONLINE);
	elapse(&fs, 2);
	online[4] = manager_fleet_members_online(&m);
	members_reconnected(&m);
	presence_every(&m, "kept", PROTO_FLEET_ONLINE, 1, 2);
	presence(&m, "older", PROTO_FLEET_ONLINE, 1);
	self_echo(&m, PROTO_FLEET_ONLINE);
	elapse(&fs, 12);
	online[5] = manager_fleet_members_online(&m);
	/* Ours back, an offline one at that (a forger's, or a namesake's): it says only that
	 * the broker delivers. */
	self_echo(&m, PROTO_FLEET_OFFLINE);
	elapse(&fs, 2);
	online[6] = manager_fleet_members_online(&m);
	/* Back with a presence: online again, its every_s renewed each time. */
	presence_every(&m, "renews", PROTO_FLEET_ONLINE, 1, 3600);
	elapse(&fs, 30);
	self_echo(&m, PROTO_FLEET_ONLINE);
	elapse(&fs, 2);
	online[7] = manager_fleet_members_online(&m);
	every = member(&fs, "renews")->every_s;
	self_tracked = member(&fs, fleet_host(f)) != NULL;
	listed = members_now(&m, hosts, 8);
	for (size_t i = 0; i < listed; i++)
		self_listed += strcmp(hosts[i], fleet_host(f)) == 0;
	free(fs.members);
	log_end(captured, saved, logged, sizeof(logged));

	ASSERT_EQ(online[0], 3);
	ASSERT_EQ(online[1], 3);
	ASSERT_TRUE(online[2] == 3 || !quick);
	ASSERT_EQ(online[3], 2);
	ASSERT_TRUE(renews_gone && others_on);
	ASSERT_EQ(online[4], 2);
	ASSERT_EQ(online[5], 2);
	ASSERT_EQ(online[6], 1);
	ASSERT_EQ(online[7], 2);
	ASSERT_EQ(every, 3600);
	ASSERT_TRUE(!self_tracked);
	ASSERT_EQ(listed, 3);
	ASSERT_EQ(self_listed, 1);
	/* At least the time that passed in the state; the test's own time (seconds under a
	 * slow sanitizer at most) on top. */
	ASSERT_EQ(count(logged, "fleet: member renews went away (no presence for"), 1);
	ASSERT_TRUE(silent_for(logged, "renews") >= 15 && silent_for(logged, "renews") <= 75);
	ASSERT_EQ(count(logged, "fleet: member kept went away (no presence for"), 1);
	ASSERT_TRUE(silent_for(logged, "kept") >= 14 && silent_for(logged, "kept") <= 74);
	ASSERT_EQ(count(logged, "member renews online"), 2);
	ASSERT_EQ(count(logged, "member kept online"), 1); /* its renewals said nothing */
	ASSERT_EQ(count(logged, "member older went away"), 0);
	ASSERT_EQ(count(logged, "went away"), 2);
}

/*
 * After a reconnection the confirmation decides who is still there, and says so: a member
 * of a short period that the new subscription did not confirm is not timed out before it,
 * for want of renewals it could not have sent to this host yet.
 */
static void test_confirm_bound(struct fleet *f)
{
	struct conf conf = {.fleet.group = (char *)"lab"};
	struct fleet_state fs = {0};
	struct manager m = {.conf = &conf, .fleet_state = &fs, .fleet = f};
	static char logged[16384];
	size_t online[2];
	int saved;
	FILE *captured = log_start(&saved);

	members_reconnected(&m);
	presence_every(&m, "fast", PROTO_FLEET_ONLINE, 1, 1);
	presence_every(&m, "quiet", PROTO_FLEET_ONLINE, 1, 1);
	members_disconnected(&m);
	members_reconnected(&m);
	presence_every(&m, "fast", PROTO_FLEET_ONLINE, 1, 1); /* confirmed; quiet is not */
	self_echo(&m, PROTO_FLEET_ONLINE);
	/* 7 s in: both past 3 periods, our own presence back past that; the confirmation
	 * (10 s) is not over. */
	elapse(&fs, 4);
	self_echo(&m, PROTO_FLEET_ONLINE);
	elapse(&fs, 3);
	online[0] = manager_fleet_members_online(&m);
	elapse(&fs, 4);
	presence_every(&m, "fast", PROTO_FLEET_ONLINE, 1, 1);
	online[1] = manager_fleet_members_online(&m);
	free(fs.members);
	log_end(captured, saved, logged, sizeof(logged));

	ASSERT_EQ(online[0], 2);
	ASSERT_EQ(online[1], 1);
	ASSERT_EQ(count(logged, "fleet: member quiet went away (no presence since this host "
				"reconnected)"),
		  1);
	ASSERT_EQ(count(logged, "went away"), 1);
}

int main(void)
{
	/* Reloaded since the fleet started: the group is the running fleet's until a restart. */
	struct conf conf = {.fleet.group = (char *)"reloaded"};
	struct fleet_state fs = {0};
	struct manager m = {.conf = &conf, .fleet_state = &fs, .fleet = running_fleet()};
	char host[32], warning[256];

	for (int i = 0; i < MEMBERS_MAX; i++) {
		snprintf(host, sizeof(host), "m%d", i); /* h1 is this host */
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
	presence(&m, "m7", PROTO_FLEET_OFFLINE, 1007);
	presence(&m, "m3", PROTO_FLEET_OFFLINE, 1003);
	presence(&m, "new1", PROTO_FLEET_ONLINE, 7000);
	ASSERT_TRUE(tracked(&fs, "new1") && !tracked(&fs, "m7") && tracked(&fs, "m3"));
	presence(&m, "new2", PROTO_FLEET_ONLINE, 7001);
	ASSERT_TRUE(tracked(&fs, "new2") && !tracked(&fs, "m3"));
	ASSERT_EQ(fs.n_members, MEMBERS_MAX);
	ASSERT_EQ(manager_fleet_members_online(&m), MEMBERS_MAX);
	/* Gone and back: the same slot, online again. */
	presence(&m, "m9", PROTO_FLEET_OFFLINE, 8000);
	presence(&m, "m9", PROTO_FLEET_ONLINE, 8001);
	ASSERT_TRUE(tracked(&fs, "m9"));
	ASSERT_EQ(manager_fleet_members_online(&m), MEMBERS_MAX);
	free(fs.members);
	test_lapse(m.fleet);
	test_confirm_bound(m.fleet);
	fleet_free(m.fleet);
	printf("members: ok\n");
	return 0;
}
