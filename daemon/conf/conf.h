/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * latencyd's settings: their table, values and checks (table.c, value.c, text.c, events.c),
 * the file and the saved-settings file (file.c, their problems in diag.c), and their
 * rendering (render.c). Nothing here touches the kernel, LTTng or the control socket: every
 * layer above reads struct conf.
 */
#ifndef LATENCYD_CONF_H
#define LATENCYD_CONF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <latency_tracker.h>

struct json_object;

#define GID_INVALID ((gid_t)-1)

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
	TRACKER_FS,
	TRACKER_IOSCHED,
	TRACKER_COUNT
};
extern const char *const tracker_names[TRACKER_COUNT];

/* session.domain */
enum conf_domain {
	CONF_DOMAIN_KERNEL,
	CONF_DOMAIN_USERSPACE,
};

struct conf_tracker {
	bool enabled;
	uint64_t threshold_ns;
	uint64_t timeout_ns; /* 0 = off */
	uint64_t max_keys;   /* 0 = the module's default */
	char *filter_comm;   /* "" = any task */
	char *filter_cgroup; /* "" = any; a cgroup v2 path or id (kernel/cgroup.c) */
	uint64_t alert_rate; /* its own alert limit, records/s into the ring; 0 = none */
	uint64_t alert_burst;
};

/* One ratelimit.trackers entry, "TRACKER=RATE/BURST", parsed once when it is read. */
struct conf_bucket {
	char tracker[LATENCY_TRACKER_NAME_LEN + 1];
	double rate; /* snapshots per second, 0..1000 */
	unsigned burst;
};

struct conf_buckets {
	struct conf_bucket *v;
	size_t n;
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
		int domain; /* enum conf_domain */
		uint64_t subbuf_size, num_subbuf;
		/* History wanted, ns (0: none): buffers sized from the measured event rate,
		 * subbuf_size only the size to start with. */
		uint64_t history_ns;
		char **events; /* NULL-terminated */
		bool syscalls;
	} session;
	struct conf_output {
		char *directory;
		char *relayd; /* "" = local only */
		bool fallback_local;
		uint64_t max_size;	    /* bytes per snapshot, 0 = no cap */
		uint64_t relayd_timeout_ns; /* relayd's answer to the probe before a record */
	} output;
	struct conf_ratelimit {
		double rate;		      /* snapshots per second, 0 = no limit */
		uint64_t burst;		      /* snapshots in a row after a quiet period */
		struct conf_buckets trackers; /* per-tracker buckets */
	} ratelimit;
	struct conf_retention {
		uint64_t max_count, max_bytes, max_age; /* 0 = no limit; max_age in seconds */
	} retention;
	struct conf_catalog {
		char *directory;
	} catalog;
	struct conf_analysis {
		bool autorun;	     /* analysis.auto: analyse each local snapshot */
		uint64_t max_memory; /* analysis.max_memory: latencyd-reader's bytes, 0: no bound */
	} analysis;
	struct conf_realtime {
		uint64_t priority; /* SCHED_FIFO priority of the waiter, 0 = SCHED_OTHER */
		bool lock_memory;
		bool waiter_per_cpu;	 /* a waiter thread pinned to each CPU of cpus, else one */
		char *cpus;		 /* where all of latencyd's threads run, "" = anywhere */
		uint64_t sessiond_boost; /* lttng-sessiond's client thread at nice -N, 0 = as is */
	} realtime;
	struct conf_fleet {
		bool enabled;
		char *broker;	     /* mqtt://HOST[:PORT] or mqtts://HOST[:PORT] */
		char *ca_file;	     /* TLS: "" = the system's CAs */
		char *cert_file;     /* TLS client certificate, "" = none */
		char *key_file;	     /* its key */
		char *username;	     /* "" = none */
		char *password_file; /* the password's file (first line), "" = none */
		char *user;	     /* the MQTT process runs as this account */
		char *topic_prefix;
		char *host;	   /* this host's name in the fleet, "" = the hostname */
		char *group;	   /* a host reacts only to its group's alerts */
		bool publish;	   /* publish local alerts that got a snapshot */
		bool record_peers; /* record a snapshot for peers' alerts */
		double peer_rate;  /* snapshots per second for one origin's alerts, > 0 */
		uint64_t peer_burst;
		double total_rate; /* for all origins' alerts together, > 0 */
		uint64_t total_burst;
		uint64_t max_age_ns;	    /* a request older than this is stale */
		uint64_t answer_within_ns;  /* a member silent by then: "no answer" */
		uint64_t presence_every_ns; /* this host's presence renewed this often */
	} fleet;
	struct conf_metrics {
		char *textfile;	      /* "" = off: the node_exporter textfile latencyd writes */
		uint64_t interval_ns; /* how often */
	} metrics;
	struct conf_collector {
		bool enabled;
		char *directory;      /* lttng-relayd's output directory */
		uint64_t max_age_ns;  /* incidents older are deleted, 0 = no limit */
		uint64_t max_bytes;   /* the tree's size kept under this, 0 = no limit */
		uint64_t interval_ns; /* a pass this often, besides start and reload */
	} collector;
	struct conf_tracker trackers[TRACKER_COUNT];
};

/* Where a configuration comes from: a file and command-line overrides. */
struct conf_source {
	const char *path;
	bool must_exist; /* given with --config: a missing file is an error */
	const char *socket;
	bool debug;
};

/* diag.c: errors found while loading, one "FILE:LINE: setting: problem" line each. */
struct conf_diag {
	char **lines;
	size_t n;
};
void conf_diag_clear(struct conf_diag *diag);

/* value.c */
int conf_new_defaults(struct conf **ret);
int conf_set(struct conf *c, const char *key, const char *value, struct conf_diag *diag);
/* conf_set() that also records where the value came from ("FILE:LINE"). */
int conf_set_from(struct conf *c, const char *key, const char *value, const char *origin,
		  struct conf_diag *diag);
/* If key's value came from file FILE, says it now comes from origin (a line moved). */
int conf_move_origin(struct conf *c, const char *key, const char *file, const char *origin);
void conf_free(struct conf *c);
void conf_strv_free(char **v);
/* Whether setting KEY ("group.setting") has the same value in A and B (an unknown key: yes). */
bool conf_same_value(const struct conf *a, const struct conf *b, const char *key);
/* Gives C setting KEY's value from FROM, and its origin: a value kept over a reload. */
int conf_keep_value(struct conf *c, const struct conf *from, const char *key);
/* "TRACKER=RATE/BURST" (rate 0..1000, burst 1..1000); -EINVAL when it is not. */
int conf_parse_bucket(const char *s, struct conf_bucket *b);

/* text.c */
/* An MQTT broker URL's parts (each may be NULL); -EINVAL when it is not one. */
int conf_broker_parse(const char *url, char *host, size_t size, unsigned *port, bool *tls);
/* "/SYS/fs/cgroup/..." or relative to it, without "..", or a cgroup id; "" is any. */
int conf_cgroup_spec_check(const char *spec);

/* file.c */
int conf_load(const struct conf_source *src, struct conf **ret, struct conf_diag *diag);
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
/* True when running the configuration needs root (kernel domain or module loading). */
bool conf_needs_root(const struct conf *c);

/* events.c */
/* The probes latencyd's lttng-sessiond drop-in loads (systemd/lttng-sessiond.service.d). */
#define CONF_KERNEL_PROBES "sched, irq, timer, block, net, statedump"
/* The kernel events those probes offer, and LATENCY_TRACKER_TRACE_EVENT; sorted. */
extern const char *const conf_kernel_events[];
extern const size_t conf_n_kernel_events;
/* As lttng enable-event matches: a '*' in PATTERN matches any run of characters. */
bool conf_event_match(const char *pattern, const char *event);
/*
 * One kernel-domain session.events entry: 0 when those probes offer it (or a pattern
 * matches one of theirs); -EINVAL when it is a mistake (a near miss of one, "did you mean",
 * or a system call); 1 when it may be another probe's (a warning). why says which.
 */
int conf_event_check(const char *name, char *why, size_t whylen);

/* render.c */
/* The libconfig literal of value for key: a quoted, escaped string, or bare. */
int conf_literal(const char *key, const char *value, char **ret);
/* {"group.setting": "FILE:LINE"} for the settings not at their default. */
struct json_object *conf_origins_json(const struct conf *c);
/* The settings as {"group": {"setting": value}}, spelled as in the file. */
struct json_object *conf_to_json(const struct conf *c);
/* A duration as the file spells it, exactly ("1.5ms", "1234567ns", "0" when zero_off). */
void conf_duration_text(char *buf, size_t size, uint64_t ns, bool zero_off);

#endif /* LATENCYD_CONF_H */
