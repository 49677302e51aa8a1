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
#define CONF_PATH_DEFAULT      "/etc/latencyd.conf"
/* Where latencyctl --save keeps settings (control.save_file); they override the file. */
#define CONF_SAVE_FILE_DEFAULT "/var/lib/latencyd/saved.conf"

/* The trackers latencyd configures, each in module latency_tracker_NAME. */
enum tracker_id {
	TRACKER_SYSCALLS,
	TRACKER_WAKEUP,
	TRACKER_OFFCPU,
	TRACKER_BLOCK,
	TRACKER_IRQ,
	TRACKER_NET,
	TRACKER_APP,
	TRACKER_COUNT
};
extern const char *const tracker_names[TRACKER_COUNT];

struct conf_tracker {
	bool enabled;
	uint64_t threshold_ns;
	uint64_t timeout_ns; /* 0 = off */
	uint64_t max_keys;   /* 0 = the module's default */
	char *filter_comm;   /* "" = any task */
	char *filter_cgroup; /* "" = any; a cgroup v2 path or id (cgroup.c) */
};

struct conf {
	char *source;	     /* the file read, NULL when only defaults apply */
	char *saved_source;  /* the saved-settings file applied, NULL when none */
	char *saved_problem; /* why the saved-settings file was ignored, NULL when it was not */
	char **origins;	     /* per setting: "FILE:LINE" that set it, NULL for the default */
	struct conf_control {
		char *socket;
		char *save_file;      /* latencyctl --save writes here; "" = saving is off */
		uint64_t max_clients; /* concurrent control clients */
		char *admin_group;    /* "" = none */
		char *read_group;     /* "" = none */
		gid_t admin_gid;      /* resolved at load; GID_INVALID when none */
		gid_t read_gid;
	} control;
	struct conf_log {
		int level; /* LOG_ERR .. LOG_DEBUG */
	} log;
	struct conf_module {
		bool load;	   /* load (and at exit unload) the modules with libkmod */
		char *name;	   /* the tracker module */
		char *parameters;  /* its module parameters, "" = none */
		char *probe;	   /* the LTTng probe module, "" = none */
		char *notify_path; /* the notification file (a FIFO stands in for host tests) */
	} module;
	struct conf_session {
		bool enabled; /* false: the control socket only, no recorder */
		char *name;
		int domain; /* enum flight_domain */
		uint64_t subbuf_size, num_subbuf;
		char **events; /* NULL-terminated */
		bool syscalls;
	} session;
	struct conf_output {
		char *directory;
		char *relayd; /* "" = local only */
		bool fallback_local;
		uint64_t max_size; /* bytes per snapshot, 0 = no cap */
	} output;
	struct conf_ratelimit {
		double rate;	 /* snapshots per second, 0 = no limit */
		uint64_t burst;	 /* snapshots in a row after a quiet period */
		char **trackers; /* "TRACKER=RATE/BURST", NULL-terminated */
	} ratelimit;
	struct conf_retention {
		uint64_t max_count, max_bytes, max_age; /* 0 = no limit; max_age in seconds */
	} retention;
	struct conf_catalog {
		char *directory;
	} catalog;
	struct conf_analysis {
		bool autorun; /* analysis.auto: analyse each local snapshot */
	} analysis;
	struct conf_realtime {
		uint64_t priority; /* SCHED_FIFO priority of the waiter, 0 = SCHED_OTHER */
		bool lock_memory;
	} realtime;
	struct conf_tracker trackers[TRACKER_COUNT];
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
/* conf_set() that also records where the value came from ("FILE:LINE"). */
int conf_set_from(struct conf *c, const char *key, const char *value, const char *origin,
		  struct conf_diag *diag);
/* If key's value came from file FILE, says it now comes from origin (a line moved). */
int conf_move_origin(struct conf *c, const char *key, const char *file, const char *origin);
/*
 * Parses TEXT (a whole file's content, NAME for messages) into c over what c holds. With
 * saved, only trackers.* settings are allowed (the saved-settings file). Returns -EINVAL
 * when diag got errors. No @include is followed and no other file is read.
 */
int conf_parse_string(struct conf *c, const char *text, const char *name, bool saved,
		      struct conf_diag *diag);
/* One trackers.* setting of the saved-settings file, as text (the form conf_set takes). */
struct conf_entry {
	char *key;
	char *value;
	unsigned line;
};
struct conf_entries {
	struct conf_entry *v;
	size_t n;
};
/* Reads and checks the saved-settings file: 0 (a missing file is empty) or -EINVAL. */
int conf_read_saved(const char *path, struct conf_entries *ret, struct conf_diag *diag);
void conf_entries_clear(struct conf_entries *e);
/* The libconfig literal of value for key: a quoted, escaped string, or bare. */
int conf_literal(const char *key, const char *value, char **ret);
/* {"group.setting": "FILE:LINE"} for the settings not at their default. */
struct json_object *conf_origins_json(const struct conf *c);
void conf_free(struct conf *c);
void conf_diag_clear(struct conf_diag *diag);
void conf_strv_free(char **v);
int conf_parse_override(const char *s, char *tracker, size_t len, double *rate, unsigned *burst);
/* True when running the configuration needs root (kernel domain or module loading). */
bool conf_needs_root(const struct conf *c);
/* The settings as {"group": {"setting": value}}, spelled as in the file. */
struct json_object *conf_to_json(const struct conf *c);

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
	uint64_t frame_timeout_usec; /* to finish a frame begun after the hello; 0 = none */
};

struct control;

int control_new(struct manager *m, struct control **ret);
void control_free(struct control *c);
int control_listen(struct control *c, const char *path);
void control_reconfigure(struct control *c);
void control_set_limits(struct control *c, const struct control_limits *l);
const char *control_path(const struct control *c);
unsigned control_clients(const struct control *c);
/* Sends event NAME with DATA (borrowed) to every watching client. */
void control_broadcast(struct control *c, const char *name, struct json_object *data);

/* dispatch.c: handshake, command table, authorization, call. */
/* What dispatch knows of a client between messages. */
struct dispatch_state {
	bool hello_done;
	bool watching; /* events are sent to it (control_broadcast) */
};

int dispatch_message(struct manager *m, const struct control_peer *peer, struct dispatch_state *st,
		     struct json_object *msg, struct json_object **ret);

/* result.c: building command results with a sticky error. */
void result_add(struct json_object *o, const char *key, struct json_object *val, int *r);
void result_add_string(struct json_object *o, const char *key, const char *val, int *r);
void result_add_int(struct json_object *o, const char *key, int64_t val, int *r);
void result_add_bool(struct json_object *o, const char *key, bool val, int *r);
int result_done(struct json_object *o, int r, struct json_object **result);
int args_none(struct json_object *args, struct proto_error *err);

/* cmd_*.c: one command each: validate args with a field table, act, build the result. */
typedef int (*cmd_handler_t)(struct manager *m, const struct control_peer *peer,
			     struct json_object *args, struct json_object **result,
			     struct proto_error *err);

int cmd_status(struct manager *m, const struct control_peer *peer, struct json_object *args,
	       struct json_object **result, struct proto_error *err);
int cmd_version(struct manager *m, const struct control_peer *peer, struct json_object *args,
		struct json_object **result, struct proto_error *err);
int cmd_trackers(struct manager *m, const struct control_peer *peer, struct json_object *args,
		 struct json_object **result, struct proto_error *err);
int cmd_set_threshold(struct manager *m, const struct control_peer *peer, struct json_object *args,
		      struct json_object **result, struct proto_error *err);
int cmd_set_timeout(struct manager *m, const struct control_peer *peer, struct json_object *args,
		    struct json_object **result, struct proto_error *err);
int cmd_enable(struct manager *m, const struct control_peer *peer, struct json_object *args,
	       struct json_object **result, struct proto_error *err);
int cmd_disable(struct manager *m, const struct control_peer *peer, struct json_object *args,
		struct json_object **result, struct proto_error *err);
int cmd_watch(struct manager *m, const struct control_peer *peer, struct json_object *args,
	      struct json_object **result, struct proto_error *err);
int cmd_record(struct manager *m, const struct control_peer *peer, struct json_object *args,
	       struct json_object **result, struct proto_error *err);
/* cmd_snapshots.c: an entry as clients see it, its causes capped at max_causes. */
#define SNAPSHOT_VIEW_CAUSES 100
struct json_object *snapshot_view(struct json_object *entry, size_t max_causes, int *r);
int cmd_filter(struct manager *m, const struct control_peer *peer, struct json_object *args,
	       struct json_object **result, struct proto_error *err);
int cmd_config(struct manager *m, const struct control_peer *peer, struct json_object *args,
	       struct json_object **result, struct proto_error *err);
int cmd_reload(struct manager *m, const struct control_peer *peer, struct json_object *args,
	       struct json_object **result, struct proto_error *err);
int cmd_list_snapshots(struct manager *m, const struct control_peer *peer, struct json_object *args,
		       struct json_object **result, struct proto_error *err);
int cmd_show_snapshot(struct manager *m, const struct control_peer *peer, struct json_object *args,
		      struct json_object **result, struct proto_error *err);
int cmd_delete_snapshot(struct manager *m, const struct control_peer *peer,
			struct json_object *args, struct json_object **result,
			struct proto_error *err);

/* cmd_trackers.c: a tracker's sysfs files (SYSFS/kernel/latency_tracker/NAME/FILE). */
int tracker_check(const struct manager *m, const char *name, struct proto_error *err);
int tracker_read(const struct manager *m, const char *name, const char *file, uint64_t *ret);
int tracker_write(const struct manager *m, const char *name, const char *file, uint64_t value,
		  struct proto_error *err);
int tracker_write_text(const struct manager *m, const char *name, const char *file,
		       const char *text, struct proto_error *err);
struct json_object *tracker_filter_json(const struct manager *m, const char *name);
/* tracker_conf.c: the trackers.* settings applied to the trackers the kernel has. */
void trackers_apply(struct manager *m, const struct conf *old);
/* cgroup.c: "" , a cgroup v2 path (relative to /sys/fs/cgroup or absolute) or an id. */
int cgroup_spec_check(const char *spec);
int cgroup_resolve(const char *spec, uint64_t *id, char *why, size_t whylen);
/* saved.c: latencyctl --save, the saved-settings file (control.save_file), kept atomically. */
struct saved_change {
	char key[96];	   /* "trackers.NAME.SETTING" */
	const char *value; /* as the configuration file spells it, unquoted */
};
/* Before the change: can it be saved? (bad-argument, refused) */
int saved_check(struct manager *m, const struct saved_change *ch, size_t n,
		struct proto_error *err);
/* After the change: merges it into the file and the running configuration. */
int saved_store(struct manager *m, const struct saved_change *ch, size_t n,
		struct proto_error *err);
/* A duration as the file spells it, exactly ("1.5ms", "1234567ns", "0" when zero_off). */
void saved_duration_text(char *buf, size_t size, uint64_t ns, bool zero_off);
/* cmd_set_threshold.c: args {tracker, FILE} (or {tracker} with a fixed value) to sysfs. */
int tracker_set(struct manager *m, struct json_object *args, const char *file, uint64_t fixed,
		bool has_fixed, struct json_object **result, struct proto_error *err);

/* waiter.c: the realtime thread: poll the notification file, rate-limit, record. */
#include <pthread.h>

#include <latency_tracker.h>

#include "flight.h"
#include "ratelimit.h"

/* The flight-recorder session, shared by the waiter (records) and the main loop (checks). */
struct flight_slot {
	pthread_mutex_t lock;  /* PTHREAD_PRIO_INHERIT; every liblttng-ctl call holds it */
	struct flight *flight; /* NULL while there is no session */
};

enum waiter_result_kind {
	WAITER_SNAPSHOT,   /* recs[0..n): the causes; error < 0 if the record failed */
	WAITER_SUPPRESSED, /* recs[0]: the first of n alerts of one tracker the rate limiter
			      refused */
	WAITER_LOST,	   /* recs[0]: a LOST record (the reader fell behind) */
};

struct waiter_result {
	struct waiter_result *next;
	enum waiter_result_kind kind;
	uint64_t id;   /* snapshot id, also in the output name */
	char name[96]; /* output name: the snapshot lands in DIR/NAME-DATE-N */
	int error;     /* LTTng error of the record, 0 if it worked */
	struct flight_record rec;
	uint64_t wakeup_ns; /* CLOCK_MONOTONIC when poll() returned */
	size_t n;
	struct latency_tracker_record recs[];
};

struct waiter_stats {
	uint64_t alerts;	    /* alert records read */
	uint64_t snapshots;	    /* records that worked */
	uint64_t failed;	    /* records that failed */
	uint64_t causes;	    /* alerts that are causes of a snapshot (worked or failed) */
	uint64_t suppressed;	    /* alerts the rate limiter refused */
	uint64_t kernel_suppressed; /* alerts the module dropped (record .suppressed) */
	uint64_t lost;		    /* records this reader missed */
	uint64_t garbage;	    /* unreadable records */
};

struct waiter;

uint64_t now_ns(void);
int pi_mutex_init(pthread_mutex_t *m);
int waiter_new(const char *notify_path, struct flight_slot *slot, const char *prefix,
	       uint64_t first_id, struct waiter **ret);
int waiter_configure(struct waiter *w, double rate, unsigned burst, char *const *overrides);
int waiter_start(struct waiter *w, unsigned rt_priority, bool *got_rt);
int waiter_eventfd(const struct waiter *w);
/* The tracker name of manual records (latencyctl record); data[0] is the request's seq. */
#define WAITER_MANUAL_TRACKER "manual"
/* Queues a manual record for the thread. -EBUSY when too many are waiting. */
int waiter_request(struct waiter *w, uint64_t seq, pid_t pid);
struct waiter_result *waiter_take_results(struct waiter *w);
void waiter_result_free(struct waiter_result *r);
/* tokens: the global bucket's tokens now, -1 when unlimited. */
void waiter_get_stats(struct waiter *w, struct waiter_stats *st, double *tokens);
/* A per-tracker bucket (ratelimit.trackers) as it is now; tokens -1 when unlimited. */
struct waiter_bucket_state {
	char tracker[LATENCY_TRACKER_NAME_LEN + 1];
	double rate, burst, tokens;
};
/* Copies up to MAX per-tracker buckets to OUT; returns how many there are. */
size_t waiter_get_buckets(struct waiter *w, struct waiter_bucket_state *out, size_t max);
void waiter_free(struct waiter *w);

/* thread.c: a thread at POLICY/PRIORITY with a STACK-byte stack, named NAME; -errno. */
#define THREAD_STACK_WAITER (512 * 1024)  /* poll, read, liblttng-ctl's record */
#define THREAD_STACK_WORKER (1024 * 1024) /* libbabeltrace2 reading a snapshot */
int thread_start(pthread_t *t, int policy, int priority, size_t stack, void *(*fn)(void *),
		 void *arg, const char *name);
/*
 * Called first by a thread that reads snapshots (history, analysis): its cost is per
 * snapshot, bounded by the rate limit, but under an alert storm it must yield to the
 * machine's own work, and to latencyd's main loop and waiter.
 */
#define THREAD_NICE_BACKGROUND 10
void thread_background(void);

/*
 * history_worker.c: the snapshot reader. One normal-priority thread reads each snapshot
 * once (analysis/snapshot.h): its history window always, its analysis too when asked
 * (analysis.auto), both results handed to the main loop in the same job.
 */
#include "history.h"

struct history_job {
	struct history_job *next;
	uint64_t id; /* the snapshot's catalog id; 0: a calibration snapshot */
	char *path;  /* the snapshot to read; NULL: record a calibration snapshot first */
	uint64_t capacity, subbuf_size; /* the buffers when it was recorded */
	bool analyse;			/* the analysis wanted too */
	/* The history: h (summarized) if error is 0, else err says why. */
	int error;
	char err[256];
	struct history h;
	/* analyse: the catalog's "analysis" object (analysis_job.h), taken by whoever uses it. */
	struct json_object *analysis;
	uint64_t time; /* unix seconds when read */
};

struct history_worker;

/* SCRATCH: the calibration snapshots' directory (deleted after each). */
int history_worker_new(struct flight_slot *slot, const char *scratch, struct history_worker **ret);
int history_worker_eventfd(const struct history_worker *w);
/*
 * Queues snapshot ID at PATH for its history and, if ANALYSE is not NULL and *ANALYSE, its
 * analysis in the same pass. With ANALYSIS_QUEUE_MAX analyses waiting the analysis is
 * refused, the history still queued: *ANALYSE says whether the analysis was taken.
 */
int history_worker_submit(struct history_worker *w, uint64_t id, const char *path,
			  uint64_t capacity, uint64_t subbuf_size, bool *analyse);
struct history_job *history_worker_take(struct history_worker *w);
void history_job_free(struct history_job *j);
/* Stops the pass under way (its snapshot is not measured); queued jobs are dropped. */
void history_worker_free(struct history_worker *w);

/* modload.c: loading and unloading kernel modules with libkmod (the privileged step). */
struct modload;

int modload_new(struct modload **ret);
/* Loads NAME with PARAMS unless it is already there; *loaded says whether we loaded it. */
int modload_load(struct modload *ml, const char *name, const char *params, bool *loaded);
int modload_unload(struct modload *ml, const char *name);
bool modload_is_loaded(struct modload *ml, const char *name);
/* The state file of the modules an instance loaded: {"pid", "modules": [load order]}. */
int modload_state_write(const char *path, pid_t pid, char *const *names, size_t n);
/* -ENOENT when there is none, -EBADMSG when it does not parse. */
int modload_state_read(const char *path, pid_t *pid, char ***names, size_t *n);
void modload_free(struct modload *ml);

/* recorder.c: the flight recorder as the main loop sees it: session, results, catalog. */
struct recorder;

int recorder_new(struct manager *m, struct recorder **ret);
int recorder_start(struct recorder *rc);
/* SIGHUP: apply what can change live; re-create the session if its settings changed. */
void recorder_reconfigure(struct recorder *rc, const struct conf *old);
int recorder_status(struct recorder *rc, struct json_object *o);
struct catalog *recorder_catalog(struct recorder *rc);
/* A manual snapshot through the rate limiter; *seq identifies it in events. */
int recorder_request(struct recorder *rc, const char *reason, pid_t pid, uint64_t *seq);
void recorder_free(struct recorder *rc);

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
	struct recorder *recorder;
	const char *sysfs_root; /* "/sys"; tests point it at a fake tree */
	uint64_t start_usec;	/* CLOCK_MONOTONIC */
};

int manager_new(const struct conf_source *src, struct conf *conf, struct manager **ret);
int manager_start(struct manager *m);
int manager_run(struct manager *m);
int manager_reload(struct manager *m, struct conf_diag *diag);
void manager_refresh_module(struct manager *m);
void manager_free(struct manager *m);

#endif /* LATENCYD_H */
