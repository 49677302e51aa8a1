/* SPDX-License-Identifier: GPL-2.0-only */
/* daemon/control/caller.c, caller_cache.c, caller_worker.c and caller_lookup.c: credentials
 * from a real socket, the users' groups kept a few seconds, asked for only when they matter
 * and then on a thread of their own, and the authorization rule. */
#include <errno.h>
#include <grp.h>
#include <poll.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "control.h"
#include "tests.h"

static struct conf_control groups(gid_t admin, gid_t reader)
{
	return (struct conf_control){
		.socket = "/x",
		.admin_group = admin == GID_INVALID ? "" : "wheel",
		.read_group = reader == GID_INVALID ? "" : "readers",
		.admin_gid = admin,
		.read_gid = reader,
	};
}

static void test_from_socket(void)
{
	struct control_caller p;
	int sv[2];
	bool has_egid = false;

	ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	/* No settings to go by and nothing kept: the database must be asked. */
	ASSERT_EQ(caller_from_socket(sv[0], 42, NULL, 0, NULL, 0, &p), 1);
	ASSERT_EQ(p.id, 42);
	ASSERT_EQ(p.pid, getpid());
	ASSERT_EQ(p.uid, geteuid());
	ASSERT_EQ(p.gid, getegid());
	ASSERT_EQ(p.ngroups, 0);
	ASSERT_EQ(caller_database_groups(p.uid, p.gid, &p.groups, &p.ngroups), 0);
	/* getgrouplist() always lists the primary group it was given. */
	for (int i = 0; i < p.ngroups; i++)
		has_egid |= p.groups[i] == getegid();
	ASSERT_TRUE(has_egid || p.ngroups == 0);
	caller_done(&p);
	caller_done(&p);
	caller_done(NULL);
	close(sv[0]);
	close(sv[1]);

	ASSERT_EQ(caller_from_socket(-1, 1, NULL, 0, NULL, 0, &p), -EBADF);
}

/* The callers both tests ask about: root, latencyd's own uid (4242), a stranger, a member of
 * group 100 (primary) and a member of group 300 (supplementary). */
static gid_t supplementary[] = {200, 300};
static const struct control_caller root = {.uid = 0, .gid = 0};
static const struct control_caller self = {.uid = 4242, .gid = 4242};
static const struct control_caller user = {.uid = 1000, .gid = 1000};
static const struct control_caller admin = {.uid = 1001, .gid = 100};
static const struct control_caller reader = {
	.uid = 1002, .gid = 1002, .groups = supplementary, .ngroups = 2};

static void test_authorize(void)
{
	struct conf_control none = groups(GID_INVALID, GID_INVALID);
	struct conf_control both = groups(100, 300);
	struct proto_error err = {0};

	/* Root and latencyd's own uid may do everything, groups or not. */
	ASSERT_EQ(caller_authorize(&root, "x", ACCESS_ADMIN, &none, 4242, &err), 0);
	ASSERT_EQ(caller_authorize(&self, "x", ACCESS_ADMIN, &none, 4242, &err), 0);

	/* Nobody else without groups configured; the message says why. */
	ASSERT_EQ(caller_authorize(&user, "status", ACCESS_READ, &none, 4242, &err), -EPERM);
	ASSERT_EQ(err.code, PROTO_ERR_NOT_AUTHORIZED);
	ASSERT_STREQ(err.message, "'status' needs read access: uid 1000 is neither root nor in "
				  "read_group (none configured) or admin_group (none configured)");
	ASSERT_EQ(caller_authorize(&user, "load", ACCESS_ADMIN, &both, 4242, &err), -EPERM);
	ASSERT_STREQ(err.message,
		     "'load' needs admin access: uid 1000 is neither root nor in admin_group "
		     "('wheel')");

	/* Admin group by primary gid: admin and read. */
	ASSERT_EQ(caller_authorize(&admin, "x", ACCESS_ADMIN, &both, 4242, &err), 0);
	ASSERT_EQ(caller_authorize(&admin, "x", ACCESS_READ, &both, 4242, &err), 0);

	/* Read group by supplementary group: read only. */
	ASSERT_EQ(caller_authorize(&reader, "x", ACCESS_READ, &both, 4242, &err), 0);
	ASSERT_EQ(caller_authorize(&reader, "x", ACCESS_ADMIN, &both, 4242, &err), -EPERM);
	ASSERT_EQ(caller_authorize(&reader, "x", ACCESS_READ, &none, 4242, &err), -EPERM);

	/* An unset group never matches, even a gid of -1. */
	struct control_caller odd = {.uid = 5, .gid = GID_INVALID};
	ASSERT_EQ(caller_authorize(&odd, "x", ACCESS_READ, &none, 4242, &err), -EPERM);
}

/* Who may connect at all: whoever may run at least the read commands. */
static void test_admit(void)
{
	struct conf_control none = groups(GID_INVALID, GID_INVALID);
	struct conf_control both = groups(100, 300);
	struct conf_control admin_only = groups(100, GID_INVALID);
	struct conf_control read_only = groups(GID_INVALID, 300);
	struct proto_error err = {0};

	ASSERT_EQ(caller_admit(&root, &none, 4242, &err), 0);
	ASSERT_EQ(caller_admit(&self, &none, 4242, &err), 0);
	ASSERT_EQ(caller_admit(&admin, &both, 4242, &err), 0);
	ASSERT_EQ(caller_admit(&reader, &both, 4242, &err), 0);
	/* Issue #17: each group's members connect whether the other group is set or not. */
	ASSERT_EQ(caller_admit(&admin, &admin_only, 4242, &err), 0);
	ASSERT_EQ(caller_admit(&reader, &read_only, 4242, &err), 0);
	ASSERT_EQ(caller_admit(&reader, &admin_only, 4242, &err), -EPERM);
	ASSERT_EQ(caller_admit(&admin, &read_only, 4242, &err), -EPERM);

	/* Anyone else is refused with the reason and both groups. */
	ASSERT_EQ(caller_admit(&user, &both, 4242, &err), -EPERM);
	ASSERT_EQ(err.code, PROTO_ERR_NOT_AUTHORIZED);
	ASSERT_STREQ(err.message, "uid 1000 may not use latencyd's control socket: it is neither "
				  "root nor in read_group ('readers') or admin_group ('wheel')");
	ASSERT_EQ(caller_admit(&user, &none, 4242, &err), -EPERM);
	ASSERT_STREQ(err.message, "uid 1000 may not use latencyd's control socket: it is neither "
				  "root nor in read_group (none configured) or admin_group (none "
				  "configured)");
}

static bool has_group(const struct control_caller *p, gid_t g)
{
	for (int i = 0; i < p->ngroups; i++)
		if (p->groups[i] == g)
			return true;
	return false;
}

/* The groups kept per uid and gid for CALLER_CACHE_USEC, in a bounded table. */
static void test_cache(void)
{
	static const gid_t kept[] = {5, 6};
	struct caller_cache cache = {0};
	gid_t *g = NULL;
	int n = -1;

	caller_cache_put(&cache, 1000, 1000, kept, 2, 100);
	ASSERT_EQ(caller_cache_get(&cache, 1000, 1000, 100 + CALLER_CACHE_USEC - 1, &g, &n), 1);
	ASSERT_EQ(n, 2);
	ASSERT_TRUE(g[0] == 5 && g[1] == 6);
	free(g);
	/* Another primary group is another entry; aged, still given, to read again; too old
	 * is none. */
	ASSERT_EQ(caller_cache_get(&cache, 1000, 1001, 101, &g, &n), 0);
	ASSERT_EQ(caller_cache_get(&cache, 1000, 1000, 100 + CALLER_CACHE_USEC, &g, &n), 2);
	ASSERT_TRUE(n == 2 && g[0] == 5 && g[1] == 6);
	free(g);
	ASSERT_EQ(caller_cache_get(&cache, 1000, 1000, 100 + CALLER_CACHE_STALE_USEC - 1, &g, &n),
		  2);
	free(g);
	ASSERT_EQ(caller_cache_get(&cache, 1000, 1000, 100 + CALLER_CACHE_STALE_USEC, &g, &n), 0);
	ASSERT_EQ(caller_cache_get(&cache, 1000, 1000, 101, &g, &n), 0);

	/* A user without groups is kept too: its lookup is as slow. */
	caller_cache_put(&cache, 1002, 1002, NULL, 0, 100);
	ASSERT_EQ(caller_cache_get(&cache, 1002, 1002, 101, &g, &n), 1);
	ASSERT_TRUE(g == NULL && n == 0);

	/* Full: the oldest makes room. */
	for (uid_t u = 0; u < CALLER_CACHE_SIZE; u++)
		caller_cache_put(&cache, 2000 + u, 1, kept, 1, 200 + u);
	ASSERT_EQ(caller_cache_get(&cache, 1002, 1002, 300, &g, &n), 0);
	for (uid_t u = 0; u < CALLER_CACHE_SIZE; u++) {
		ASSERT_EQ(caller_cache_get(&cache, 2000 + u, 1, 300, &g, &n), 1);
		free(g);
	}
	caller_cache_put(&cache, 3000, 1, kept, 1, 400);
	ASSERT_EQ(caller_cache_get(&cache, 2000, 1, 400, &g, &n), 0);
	ASSERT_EQ(caller_cache_get(&cache, 3000, 1, 400, &g, &n), 1);
	free(g);
	caller_cache_clear(&cache);
	ASSERT_EQ(caller_cache_get(&cache, 3000, 1, 400, &g, &n), 0);
}

/*
 * A connection from a child process running as UID/GID with no supplementary group (run as
 * root only): the accepted end in *FD, the child in *CHILD, which exits once *FD closes.
 */
static void connect_as(uid_t uid, gid_t gid, int *fd, pid_t *child)
{
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	socklen_t len;
	int l = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	/* Abstract: nothing on disk, and any user may connect. */
	len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 +
			  (size_t)snprintf(a.sun_path + 1, sizeof(a.sun_path) - 1, "test-caller-%d",
					   (int)getpid()));
	ASSERT_TRUE(l >= 0);
	ASSERT_EQ(bind(l, (struct sockaddr *)&a, len), 0);
	ASSERT_EQ(listen(l, 1), 0);
	*child = fork();
	ASSERT_TRUE(*child >= 0);
	if (*child == 0) {
		int c = socket(AF_UNIX, SOCK_STREAM, 0);
		char byte;

		if (setgroups(0, NULL) < 0 || setgid(gid) < 0 || setuid(uid) < 0 ||
		    connect(c, (struct sockaddr *)&a, len) < 0)
			_exit(1);
		(void)!read(c, &byte, 1);
		_exit(0);
	}
	*fd = accept(l, NULL, NULL);
	ASSERT_TRUE(*fd >= 0);
	close(l);
}

static void done_as(int fd, pid_t child)
{
	int status;

	close(fd);
	ASSERT_EQ(waitpid(child, &status, 0), child);
	ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/*
 * The group database is asked only when it can change the outcome: a group planted in the
 * cache stands for its answer.
 */
static void test_database_skipped(void)
{
	const gid_t planted = 424242;
	struct conf_control both = groups(4000, 4001), none = groups(GID_INVALID, GID_INVALID);
	struct conf_control held = groups(getegid(), 4001);
	struct conf_control reading = groups(GID_INVALID, 65534), ruling = groups(65534, 4001);
	struct caller_cache cache = {0};
	struct control_caller p;
	int sv[2], fd;
	pid_t child;

	ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	caller_cache_put(&cache, geteuid(), getegid(), &planted, 1, 1000);
	/* Asked: no settings to go by. */
	ASSERT_EQ(caller_from_socket(sv[0], 1, &cache, 1001, NULL, 0, &p), 0);
	ASSERT_TRUE(has_group(&p, planted));
	caller_done(&p);
	/* Not asked: latencyd's own user, whatever the groups. */
	ASSERT_EQ(caller_from_socket(sv[0], 2, &cache, 1001, &both, geteuid(), &p), 0);
	ASSERT_TRUE(!has_group(&p, planted));
	caller_done(&p);
	/* Not asked: a process holding admin_group already (its primary group here). */
	ASSERT_EQ(caller_from_socket(sv[0], 3, &cache, 1001, &held, geteuid() + 1, &p), 0);
	ASSERT_TRUE(!has_group(&p, planted));
	caller_done(&p);
	/* Asked, unless root: another user, groups configured; never with none configured. */
	ASSERT_EQ(caller_from_socket(sv[0], 4, &cache, 1001, &both, geteuid() + 1, &p), 0);
	ASSERT_TRUE(has_group(&p, planted) == (geteuid() != 0));
	caller_done(&p);
	ASSERT_EQ(caller_from_socket(sv[0], 5, &cache, 1001, &none, geteuid() + 1, &p), 0);
	ASSERT_TRUE(!has_group(&p, planted));
	caller_done(&p);
	caller_cache_clear(&cache);
	close(sv[0]);
	close(sv[1]);
	if (geteuid() != 0)
		return; /* another user's connection needs root; as one, the above asked */

	/* Another user, nobody, with groups configured: asked, unless what it holds settles it. */
	caller_cache_put(&cache, 65534, 65534, &planted, 1, 1000);
	connect_as(65534, 65534, &fd, &child);
	ASSERT_EQ(caller_from_socket(fd, 6, &cache, 1001, &both, 0, &p), 0);
	ASSERT_EQ(p.uid, 65534);
	ASSERT_TRUE(has_group(&p, planted));
	caller_done(&p);
	/* admin_group is its primary group: not asked. */
	ASSERT_EQ(caller_from_socket(fd, 8, &cache, 1001, &ruling, 0, &p), 0);
	ASSERT_TRUE(!has_group(&p, planted));
	caller_done(&p);
	/* read_group is its primary group, and there is no admin_group: not asked. */
	ASSERT_EQ(caller_from_socket(fd, 7, &cache, 1001, &reading, 0, &p), 0);
	ASSERT_TRUE(!has_group(&p, planted));
	caller_done(&p);
	done_as(fd, child);
	caller_cache_clear(&cache);
}

/* With a cache, a connection's groups come from it while fresh, from the database after. */
static void test_from_socket_cached(void)
{
	const gid_t planted = 424242;
	struct caller_cache cache = {0};
	struct control_caller p;
	int sv[2];

	ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	ASSERT_EQ(caller_from_socket(sv[0], 1, NULL, 0, NULL, 0, &p), 1);
	ASSERT_TRUE(!has_group(&p, planted));
	caller_done(&p);

	/* What the database gave is kept: a group planted in the cache shows it is used. */
	caller_cache_put(&cache, geteuid(), getegid(), &planted, 1, 1000);
	ASSERT_EQ(caller_from_socket(sv[0], 2, &cache, 1001, NULL, 0, &p), 0);
	ASSERT_TRUE(has_group(&p, planted));
	caller_done(&p);
	/* Aged: given, and to be read again (2); too old, or the cache emptied (a reload): the
	 * database must be asked first. */
	ASSERT_EQ(caller_from_socket(sv[0], 3, &cache, 1000 + CALLER_CACHE_USEC, NULL, 0, &p), 2);
	ASSERT_TRUE(has_group(&p, planted));
	caller_done(&p);
	ASSERT_EQ(caller_from_socket(sv[0], 3, &cache, 1000 + CALLER_CACHE_STALE_USEC, NULL, 0, &p),
		  1);
	ASSERT_TRUE(!has_group(&p, planted));
	caller_done(&p);
	caller_cache_put(&cache, geteuid(), getegid(), &planted, 1, 2000);
	caller_cache_clear(&cache);
	ASSERT_EQ(caller_from_socket(sv[0], 4, &cache, 2001, NULL, 0, &p), 1);
	ASSERT_TRUE(!has_group(&p, planted));
	caller_done(&p);
	caller_cache_clear(&cache);
	close(sv[0]);
	close(sv[1]);
}

/* The answers of W (all of them, at least one): waits for its eventfd. */
static struct caller_answer *worker_wait(struct caller_worker *w)
{
	struct pollfd p = {.fd = caller_worker_fd(w), .events = POLLIN};

	ASSERT_EQ(poll(&p, 1, 30000), 1);
	return caller_worker_answers(w);
}

static bool answer_has_egid(const struct caller_answer *a)
{
	for (int i = 0; i < a->ngroups; i++)
		if (a->groups[i] == getegid())
			return true;
	return a->ngroups == 0; /* a uid without a passwd entry */
}

/* The worker: answers in order, each with the epoch its lookup began in. */
static void test_worker(void)
{
	struct caller_worker *w;
	struct caller_answer *a;

	ASSERT_EQ(caller_worker_new(&w), 0);
	ASSERT_TRUE(caller_worker_answers(w) == NULL);
	ASSERT_EQ(caller_worker_ask(w, geteuid(), getegid(), 0), 0);
	a = worker_wait(w);
	ASSERT_TRUE(a != NULL);
	ASSERT_EQ(a->uid, geteuid());
	ASSERT_EQ(a->gid, getegid());
	ASSERT_EQ(a->error, 0);
	ASSERT_EQ(a->epoch, 0);
	ASSERT_TRUE(answer_has_egid(a));
	ASSERT_TRUE(a->next == NULL);
	caller_answer_free(a);

	ASSERT_EQ(caller_worker_new_epoch(w), 1);
	ASSERT_EQ(caller_worker_ask(w, geteuid(), getegid(), 0), 0);
	ASSERT_EQ(caller_worker_ask(w, 4242424, 4242424, 0), 0);
	a = NULL;
	while (!a || !a->next) {
		struct caller_answer *more = worker_wait(w), **tail = &a;

		while (*tail)
			tail = &(*tail)->next;
		*tail = more;
	}
	ASSERT_EQ(a->epoch, 1);
	ASSERT_EQ(a->uid, geteuid());
	/* A uid without a passwd entry: no supplementary group, no error. */
	ASSERT_EQ(a->next->uid, 4242424);
	ASSERT_EQ(a->next->error, 0);
	ASSERT_EQ(a->next->ngroups, 0);
	caller_answer_free(a->next);
	caller_answer_free(a);

	/* Freed with a lookup asked: the thread frees what is left, whenever it is done. */
	ASSERT_EQ(caller_worker_ask(w, geteuid(), getegid(), 0), 0);
	caller_worker_free(w);
	caller_worker_free(NULL);
}

struct answered {
	int calls;
	bool current;
	int error;
};

static void on_answered(void *userdata, uid_t uid, gid_t gid, bool current, int error,
			const gid_t *groups, int n)
{
	struct answered *got = userdata;

	got->calls++;
	got->current = current;
	got->error = error;
	ASSERT_EQ(uid, geteuid());
	ASSERT_EQ(gid, getegid());
}

/* The main loop's side: one lookup per uid and gid, its answer kept, and said. */
static void test_lookups(void)
{
	struct caller_cache cache = {0};
	struct caller_lookups l;
	struct answered got = {0};
	sd_event *event;
	gid_t *g = NULL;
	uint64_t now;
	int n;

	ASSERT_EQ(sd_event_new(&event), 0);
	caller_lookups_init(&l, event, &cache, 3600 * 1000000ULL, on_answered, &got);
	ASSERT_EQ(caller_lookups_ask(&l, geteuid(), getegid()), 0);
	ASSERT_EQ(caller_lookups_ask(&l, geteuid(), getegid()), 0);
	while (got.calls == 0)
		ASSERT_TRUE(sd_event_run(event, 30 * 1000000ULL) > 0);
	ASSERT_EQ(got.calls, 1);
	ASSERT_TRUE(got.current);
	ASSERT_EQ(got.error, 0);
	ASSERT_EQ(sd_event_now(event, CLOCK_MONOTONIC, &now), 0);
	ASSERT_EQ(caller_cache_get(&cache, geteuid(), getegid(), now, &g, &n), 1);
	free(g);
	/* Nothing more comes: the second ask joined the first. */
	ASSERT_EQ(sd_event_run(event, 200 * 1000), 0);
	ASSERT_EQ(got.calls, 1);

	/* A reset empties the cache; a lookup asked after it is current. */
	caller_lookups_reset(&l);
	ASSERT_EQ(caller_cache_get(&cache, geteuid(), getegid(), now, &g, &n), 0);
	ASSERT_EQ(caller_lookups_ask(&l, geteuid(), getegid()), 0);
	while (got.calls == 1)
		ASSERT_TRUE(sd_event_run(event, 30 * 1000000ULL) > 0);
	ASSERT_TRUE(got.current);
	caller_lookups_done(&l);
	caller_cache_clear(&cache);
	sd_event_unref(event);
}

/*
 * A lookup in flight past stale_usec, or asked before a reload, takes in no new ask: the next
 * asks again (NSS may never come back from the first), two of one user at most in flight,
 * beyond which asks join. Nothing is answered while the loop does not run: what is asked
 * shows in l.asked.
 */
static void test_lookups_stale(void)
{
	struct caller_cache cache = {0};
	struct caller_lookups l;
	struct answered got = {0};
	sd_event *event;

	ASSERT_EQ(sd_event_new(&event), 0);
	/* Fresh: joined, until a reset; after it, the new one is joined. */
	caller_lookups_init(&l, event, &cache, 3600 * 1000000ULL, on_answered, &got);
	ASSERT_EQ(caller_lookups_ask(&l, geteuid(), getegid()), 0);
	ASSERT_EQ(caller_lookups_ask(&l, geteuid(), getegid()), 0);
	ASSERT_EQ(l.asked, 1);
	caller_lookups_reset(&l);
	ASSERT_EQ(caller_lookups_ask(&l, geteuid(), getegid()), 0);
	ASSERT_EQ(l.asked, 2);
	ASSERT_EQ(caller_lookups_ask(&l, geteuid(), getegid()), 0);
	ASSERT_EQ(l.asked, 2);
	/* Each answered (the first current too if no thread had begun it by the reset). */
	while (got.calls < 2)
		ASSERT_TRUE(sd_event_run(event, 30 * 1000000ULL) > 0);
	ASSERT_EQ(got.calls, 2);
	caller_lookups_done(&l);
	caller_cache_clear(&cache);

	/* Stale at once: asked again, twice at most while both are in flight. */
	got = (struct answered){0};
	caller_lookups_init(&l, event, &cache, 0, on_answered, &got);
	for (int i = 0; i < 5; i++)
		ASSERT_EQ(caller_lookups_ask(&l, geteuid(), getegid()), 0);
	ASSERT_EQ(l.asked, 2);
	while (got.calls < 2)
		ASSERT_TRUE(sd_event_run(event, 30 * 1000000ULL) > 0);
	/* Answered, each by its own lookup: none left in flight, so the next is asked. */
	ASSERT_EQ(got.calls, 2);
	ASSERT_EQ(caller_lookups_ask(&l, geteuid(), getegid()), 0);
	ASSERT_EQ(l.asked, 3);
	while (got.calls < 3)
		ASSERT_TRUE(sd_event_run(event, 30 * 1000000ULL) > 0);
	caller_lookups_done(&l);
	caller_cache_clear(&cache);
	sd_event_unref(event);
}

int main(void)
{
	RUN(test_from_socket);
	RUN(test_authorize);
	RUN(test_admit);
	RUN(test_cache);
	RUN(test_from_socket_cached);
	RUN(test_database_skipped);
	RUN(test_worker);
	RUN(test_lookups);
	RUN(test_lookups_stale);
	return 0;
}
