/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * latencyd: the daemon's types and the index of its files. Each group below is one .c file
 * with one concern; main.c only parses options and calls the manager.
 */
#ifndef LATENCYD_H
#define LATENCYD_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <syslog.h>

#include <systemd/sd-event.h>

#include "proto.h"

struct json_object;
struct manager;

#define GID_INVALID ((gid_t)-1)

/* log.c: stderr, or the journal (structured) when running under systemd. */
void log_init(const char *ident, int level);
void log_set_level(int level);
int log_get_level(void);
int log_level_from_string(const char *s);
const char *log_level_to_string(int level);
void log_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_warnx(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int log_warn_errno(int err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void log_fields(int priority, const char *const *fields, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
_Noreturn void fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
_Noreturn void fatalx(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* conf.c: settings, their defaults and their checks, one table row each. */
#define CONF_PATH_DEFAULT "/etc/latencyd.conf"

struct conf {
	char *source; /* the file read, NULL when only defaults apply */
	struct conf_control {
		char *socket;
		char *admin_group; /* "" = none */
		char *read_group;  /* "" = none */
		gid_t admin_gid;   /* resolved at load; GID_INVALID when none */
		gid_t read_gid;
	} control;
	struct conf_log {
		int level; /* LOG_ERR .. LOG_DEBUG */
	} log;
};

/* Where a configuration comes from: a file and command-line overrides. */
struct conf_source {
	const char *path;
	bool must_exist; /* given with --config: a missing file is an error */
	const char *socket;
	bool debug;
};

/* Errors found while loading, one "FILE:LINE: setting: problem" line each. */
struct conf_diag {
	char **lines;
	size_t n;
};

int conf_new_defaults(struct conf **ret);
int conf_load(const struct conf_source *src, struct conf **ret, struct conf_diag *diag);
int conf_set(struct conf *c, const char *key, const char *value, struct conf_diag *diag);
void conf_free(struct conf *c);
void conf_diag_clear(struct conf_diag *diag);

/* kmodule.c: the latency_tracker module as seen in sysfs. */
enum kmodule_state {
	KMODULE_NOT_LOADED,
	KMODULE_LOADED,
	KMODULE_ABI_MISMATCH,
	KMODULE_ERROR,
};

struct kmodule_status {
	enum kmodule_state state;
	bool abi_known;
	unsigned abi_major, abi_minor;
	char detail[160];
};

int kmodule_parse_abi(const char *s, unsigned *major, unsigned *minor);
void kmodule_query(const char *sysfs_root, struct kmodule_status *st);
const char *kmodule_state_to_string(enum kmodule_state state);

/* peer.c: who is on the other end of a control connection, and what they may do. */
enum access_class {
	ACCESS_READ,  /* reads state */
	ACCESS_ADMIN, /* changes state */
};

struct control_peer {
	unsigned id; /* connection number, for logs */
	pid_t pid;
	uid_t uid;
	gid_t gid;
	gid_t *groups; /* supplementary groups of the user, from the group database */
	int ngroups;
};

int peer_from_socket(int fd, unsigned id, struct control_peer *p);
void peer_done(struct control_peer *p);
int peer_authorize(const struct control_peer *p, const char *command, enum access_class cls,
		   const struct conf_control *cc, uid_t self, struct proto_error *err);

/* sock.c: unix stream listening sockets. */
struct sock_id {
	dev_t dev;
	ino_t ino;
};

int sock_from_systemd(int *ret_fd);
int sock_bind(const char *path, gid_t gid, int *ret_fd, struct sock_id *ret_id);
int sock_set_group(const char *path, gid_t gid);
void sock_unlink_if_ours(const char *path, const struct sock_id *id);

/* control.c: the control socket and its clients: accept, credentials, framing, limits. */
struct control_limits {
	unsigned clients_max;
	size_t output_high; /* stop reading a client's requests above this */
	size_t output_max;  /* drop a client whose unread output exceeds this */
	uint64_t handshake_timeout_usec;
};

struct control;

int control_new(struct manager *m, struct control **ret);
void control_free(struct control *c);
int control_listen(struct control *c, const char *path);
void control_reconfigure(struct control *c);
void control_set_limits(struct control *c, const struct control_limits *l);
const char *control_path(const struct control *c);
unsigned control_clients(const struct control *c);

/* dispatch.c: handshake, command table, authorization, call. */
int dispatch_message(struct manager *m, const struct control_peer *peer, bool *hello_done,
		     struct json_object *msg, struct json_object **ret);

/* result.c: building command results with a sticky error. */
void result_add(struct json_object *o, const char *key, struct json_object *val, int *r);
void result_add_string(struct json_object *o, const char *key, const char *val, int *r);
void result_add_int(struct json_object *o, const char *key, int64_t val, int *r);
void result_add_bool(struct json_object *o, const char *key, bool val, int *r);

/* cmd_*.c: one command each: validate args with a field table, act, build the result. */
typedef int (*cmd_handler_t)(struct manager *m, const struct control_peer *peer,
			     struct json_object *args, struct json_object **result,
			     struct proto_error *err);

int cmd_status(struct manager *m, const struct control_peer *peer, struct json_object *args,
	       struct json_object **result, struct proto_error *err);
int cmd_version(struct manager *m, const struct control_peer *peer, struct json_object *args,
		struct json_object **result, struct proto_error *err);

/* manager.c: owns all state; new → start → run → free. */
struct manager {
	sd_event *event;
	sd_event_source *sigterm, *sigint, *sighup;
	struct conf *conf;
	struct {
		char *path;
		bool must_exist;
		char *socket;
		bool debug;
	} source; /* how conf was loaded, kept for reloads */
	struct control *control;
	struct kmodule_status module;
	const char *sysfs_root; /* "/sys"; tests point it at a fake tree */
	uint64_t start_usec;	/* CLOCK_MONOTONIC */
};

int manager_new(const struct conf_source *src, struct conf *conf, struct manager **ret);
int manager_start(struct manager *m);
int manager_run(struct manager *m);
int manager_reload(struct manager *m);
void manager_refresh_module(struct manager *m);
void manager_free(struct manager *m);

#endif /* LATENCYD_H */
