/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The control socket: listening sockets (sock.c), who is on the other end and what they may
 * do (caller.c), their groups asked of the group database off the main loop (caller_worker.c,
 * caller_lookup.c) and kept a few seconds (caller_cache.c), who gets a client slot
 * (slots.c), connections turned away (refused.c), clients, framing and limits (control.c),
 * and the handshake, validation, authorization and call of one request (dispatch.c). The
 * commands themselves live above, in daemon/commands/: the table is handed to control_new(),
 * with the context its handlers take (the manager, opaque here).
 */
#ifndef LATENCYD_CONTROL_H
#define LATENCYD_CONTROL_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <systemd/sd-event.h>

#include "conf.h"
#include "proto.h"

struct json_object;
struct manager;

/* caller.c: who is on the other end of a control connection, and what they may do. */
enum access_class {
	ACCESS_READ,  /* reads state */
	ACCESS_ADMIN, /* changes state */
};

struct control_caller {
	unsigned id; /* connection number, for logs */
	pid_t pid;
	uid_t uid;
	gid_t gid;
	gid_t *groups; /* the user's, from the group database (none when they cannot matter) */
	int ngroups;
};

/* caller_cache.c: the users' groups, each kept a few seconds (see there). */
#define CALLER_CACHE_SIZE	16
#define CALLER_CACHE_USEC	(5 * 1000000ULL)
/*
 * Past CALLER_CACHE_USEC and up to this age, an entry still answers while its user's groups
 * are read again (stale while revalidated): a user connecting in a loop never has its
 * connections wait, each time the entry ages, for the group database. Never past it: an
 * answer that does not come does not keep an old one in use.
 */
#define CALLER_CACHE_STALE_USEC (2 * CALLER_CACHE_USEC)

struct caller_cache_entry {
	bool used;
	uid_t uid;
	gid_t gid;
	gid_t *groups;
	int ngroups;
	uint64_t at_usec; /* CLOCK_MONOTONIC, when it was read */
};

struct caller_cache {
	struct caller_cache_entry v[CALLER_CACHE_SIZE];
};

/* 1 and a copy of the groups (to free) when read less than CALLER_CACHE_USEC before NOW,
 * 2 when less than CALLER_CACHE_STALE_USEC (to read again); 0 when not kept; -ENOMEM. */
int caller_cache_get(struct caller_cache *cache, uid_t uid, gid_t gid, uint64_t now_usec,
		     gid_t **ret, int *ret_n);
/* Keeps a copy of GROUPS (N of them), read at NOW; the oldest goes when the table is full. */
void caller_cache_put(struct caller_cache *cache, uid_t uid, gid_t gid, const gid_t *groups, int n,
		      uint64_t now_usec);
void caller_cache_clear(struct caller_cache *cache);

/*
 * The caller on the other end of FD, with its user's groups from CACHE (NULL: none) when
 * fresh at NOW: 0 when P is whole (its groups kept, or unable to change what it may do under
 * CC, NULL: always asked, for a daemon running as SELF); 1 when they must be asked of the
 * group database first (caller_lookup.c); 2 when P is whole with groups to read again
 * (CALLER_CACHE_STALE_USEC), which P need not wait for; -errno.
 */
int caller_from_socket(int fd, unsigned id, struct caller_cache *cache, uint64_t now_usec,
		       const struct conf_control *cc, uid_t self, struct control_caller *p);
/* The supplementary groups of UID's user name in the group database (NSS: it may block). */
int caller_database_groups(uid_t uid, gid_t gid, gid_t **ret, int *ret_n);
/* P's groups a copy of GROUPS (N of them); -ENOMEM leaves those it had. */
int caller_set_groups(struct control_caller *p, const gid_t *groups, int n);
void caller_done(struct control_caller *p);
/* 0 when the caller may run at least the read commands; else -EPERM and err says why. */
int caller_admit(const struct control_caller *p, const struct conf_control *cc, uid_t self,
		 struct proto_error *err);
int caller_authorize(const struct control_caller *p, const char *command, enum access_class cls,
		     const struct conf_control *cc, uid_t self, struct proto_error *err);

/* caller_worker.c: caller_database_groups() on threads of their own (see there). */
struct caller_worker;

struct caller_answer {
	struct caller_answer *next;
	uid_t uid;
	gid_t gid;
	uint64_t id;	/* the asker's, given back */
	uint64_t epoch; /* the worker's when the lookup began */
	int error;	/* caller_database_groups()'s, or 0 */
	gid_t *groups;
	int ngroups;
};

int caller_worker_new(struct caller_worker **ret);
/* Readable while answers wait: caller_worker_answers() takes them. */
int caller_worker_fd(const struct caller_worker *w);
/* Asks for UID/GID's groups: the answer carries ID. */
int caller_worker_ask(struct caller_worker *w, uid_t uid, gid_t gid, uint64_t id);
/* The answers so far, oldest first (free each with caller_answer_free()). */
struct caller_answer *caller_worker_answers(struct caller_worker *w);
void caller_answer_free(struct caller_answer *a);
/* The epoch after a reload: lookups begun before it answer with an older one. */
uint64_t caller_worker_new_epoch(struct caller_worker *w);
/* Never waits for the thread, which may be inside NSS: it frees what it shares when done. */
void caller_worker_free(struct caller_worker *w);

/* caller_lookup.c: the main loop's side of the lookups, one per uid and gid unless it is
 * stale (see there). */
struct caller_inflight;

/*
 * The answer for UID/GID: CURRENT when the lookup began after the last reset (then kept in
 * the cache, when it succeeded), else the database may have changed since: ask again. ERROR
 * (-errno) or GROUPS (N of them, borrowed).
 */
typedef void (*caller_answered_t)(void *userdata, uid_t uid, gid_t gid, bool current, int error,
				  const gid_t *groups, int n);

struct caller_lookups {
	sd_event *event;
	struct caller_cache *cache;
	caller_answered_t answered;
	void *userdata;
	struct caller_worker *worker; /* started by the first lookup */
	sd_event_source *io;
	struct caller_inflight *inflight;
	uint64_t asked; /* lookups asked: the last one's id */
	uint64_t epoch;
	/* A lookup in flight this long no longer takes in new asks (the handshake timeout). */
	uint64_t stale_usec;
};

void caller_lookups_init(struct caller_lookups *l, sd_event *event, struct caller_cache *cache,
			 uint64_t stale_usec, caller_answered_t answered, void *userdata);
/* The worker started, if it is not yet (the first lookup starts it otherwise). -errno. */
int caller_lookups_start(struct caller_lookups *l);
/* Asks for UID/GID's groups, or joins the lookup asked already unless it is stale (see
 * caller_lookup.c); answered() says. -errno. */
int caller_lookups_ask(struct caller_lookups *l, uid_t uid, gid_t gid);
/* After a reload: the cache emptied; lookups begun before it answer not current. */
void caller_lookups_reset(struct caller_lookups *l);
void caller_lookups_done(struct caller_lookups *l);

/* sock.c: unix stream listening sockets. */
struct sock_id {
	dev_t dev;
	ino_t ino;
};

int sock_from_systemd(int *ret_fd);
int sock_bind(const char *path, mode_t mode, int *ret_fd, struct sock_id *ret_id);
int sock_set_mode(const char *path, mode_t mode);
void sock_unlink_if_ours(const char *path, const struct sock_id *id);

/* The command table: one row per command, each with its access class. */
typedef int (*control_handler_t)(struct manager *m, const struct control_caller *caller,
				 struct json_object *args, struct json_object **result,
				 struct proto_error *err);

struct control_command {
	const char *name;
	control_handler_t handler;
	enum access_class access;
	bool subscribes; /* the client gets events from then on (watch, record) */
};

struct control_commands {
	const struct control_command *v;
	size_t n;
};

/* slots.c: whether a new connection may take a client slot (see there for the rules). */
struct slots_use {
	unsigned clients;      /* connected */
	unsigned of_uid;       /* of them, the newcomer's uid's */
	unsigned unprivileged; /* of them, neither root's nor latencyd's uid's */
};

unsigned slots_per_user(unsigned clients_max);
unsigned slots_reserved(unsigned clients_max);
/* 0 when descriptor FD leaves the recorder its share; else -EBUSY and err says why. */
int slots_fd_check(int fd, struct proto_error *err);
/* 0 when a client of UID may take a slot; else -EBUSY and err says which limit. */
int slots_check(const struct slots_use *use, uid_t uid, uid_t self, unsigned clients_max,
		struct proto_error *err);

/* throttle.c: log lines any local user can cause, at most one per key (uid) an interval. */
#define THROTTLE_KEYS	8
#define THROTTLE_OTHERS UINT_MAX /* the key of those beyond the table's THROTTLE_KEYS */

/* Says that COUNT lines of KEY were not logged within INTERVAL_USEC; LAST is the last one. */
typedef void (*throttle_say_t)(unsigned key, uint64_t count, uint64_t interval_usec,
			       const char *last);

struct throttle_key {
	unsigned key;
	uint64_t unlogged;
	char last[PROTO_MESSAGE_MAX];
};

struct throttle {
	sd_event *event;
	const char *name; /* of its timer */
	uint64_t interval_usec;
	throttle_say_t say;
	sd_event_source *timer; /* armed while an interval runs */
	struct throttle_key v[THROTTLE_KEYS];
	size_t n;
	struct throttle_key others;
};

void throttle_init(struct throttle *t, sd_event *event, const char *name, uint64_t interval_usec,
		   throttle_say_t say);
/* Whether a line of KEY saying MESSAGE is logged now (else it is counted); T NULL: always. */
bool throttle_now(struct throttle *t, unsigned key, const char *message);
/* Says what is counted and not logged yet, and stops. */
void throttle_done(struct throttle *t);
/* The line of a say callback for refusals of uid KEY (or THROTTLE_OTHERS): WHAT, plural,
 * names them ("connection(s)"). */
void throttle_say_refused(const char *what, unsigned key, uint64_t count, uint64_t interval_usec,
			  const char *last);

/* refused.c: connections turned away at accept time, each with one error. */
struct refused;
struct refused_set {
	struct refused *head;
	unsigned n;
	sd_event *event;
	/* Logged per uid at most once an interval, with how many were not (throttle.c). */
	struct throttle refusals;
	/* Logged at most once an interval, whoever the client (the uid is not always known). */
	struct throttle busy;
};

void refused_init(struct refused_set *set, sd_event *event);

/*
 * A client that may run no command: answered with ERR, kept until it has read it (at most
 * LINGER_MAX_USEC) within the refused connections' own budget, closed at once beyond it.
 * Takes fd. Logged at most once an interval per uid, with how many were not.
 */
void refused_add(struct refused_set *set, int fd, const struct control_caller *caller,
		 const struct proto_error *err, uint64_t linger_max_usec);
void refused_free_all(struct refused_set *set);
/*
 * A client with no slot for it (slots.c): the busy error ERR, then, with LINGER, kept as a
 * refused connection above (its caller may still be sending its hello), else closed at
 * once (the descriptor itself is what is short). Takes fd. Logged at most once an
 * interval, with how many were not (a flood of clients must not flood the journal).
 */
void refused_busy(struct refused_set *set, int fd, unsigned id, const struct proto_error *err,
		  bool linger, uint64_t linger_max_usec);

/* control.c: the control socket and its clients: accept, credentials, framing, limits. */
struct control_limits {
	unsigned clients_max;
	size_t output_high; /* stop reading a client's requests above this */
	size_t output_max;  /* drop a client whose unread output exceeds this */
	uint64_t handshake_timeout_usec;
	uint64_t frame_timeout_usec; /* to finish a frame begun after the hello; 0 = none */
	/* a client with unread output that reads none of it this long is dropped; 0 = none */
	uint64_t output_timeout_usec;
};

/* What happened to control connections since latencyd started (status "control"). */
struct control_stats {
	uint64_t accepted;	   /* connections accepted */
	uint64_t refused;	   /* not authorized, at accept time or after a reload */
	uint64_t busy;		   /* turned away for want of a slot or of descriptors */
	uint64_t dropped_slow;	   /* unread output past output_max or output_timeout */
	uint64_t timed_out;	   /* no hello, or a frame left unfinished */
	uint64_t bad_frames;	   /* too large, not JSON, not UTF-8, cut by the end of input */
	uint64_t accept_failed;	   /* accept() failures (descriptors, memory) */
	uint64_t groups_timed_out; /* the group database did not answer within handshake_timeout */
	uint64_t events_too_large; /* watch events dropped, too large for a frame */
};

struct control;

/* CC (borrowed) until control_reconfigure() gives the next; handlers get CTX. */
int control_new(sd_event *event, const struct conf_control *cc,
		const struct control_commands *commands, struct manager *ctx, struct control **ret);
void control_free(struct control *c);
int control_listen(struct control *c, const char *path);
void control_reconfigure(struct control *c, const struct conf_control *cc);
void control_set_limits(struct control *c, const struct control_limits *l);
const char *control_path(const struct control *c);
unsigned control_clients(const struct control *c);
/* Connections waiting for their groups: not clients until admitted. */
unsigned control_waiting(const struct control *c);
unsigned control_clients_max(const struct control *c);
const struct control_stats *control_stats(const struct control *c);
/* Sends event NAME with DATA (borrowed) to every watching client. */
void control_broadcast(struct control *c, const char *name, struct json_object *data);

/* dispatch.c: handshake, command table, authorization, call. */
struct dispatch_state {
	bool hello_done;
	bool watching; /* events are sent to it (control_broadcast) */
};

struct dispatch_ctx {
	const struct control_commands *commands;
	struct manager *m;
	const struct conf_control *cc;
	struct throttle *refusals; /* of commands: their log lines; NULL: each logged */
};

int dispatch_message(const struct dispatch_ctx *ctx, const struct control_caller *caller,
		     struct dispatch_state *st, struct json_object *msg, struct json_object **ret);

#endif /* LATENCYD_CONTROL_H */
