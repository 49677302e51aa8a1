/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Configuration: a libconfig file checked against one table. Each row names a setting, its
 * type, where it lives in struct conf and its default; defaults go through the same parser
 * as file values (value.c). A new setting is a new row (and a new type when none fits).
 */
#include <string.h>

#include <latency_tracker.h>

#include "proto.h"
#include "conf_internal.h"

#define KIB	   (UINT64_C(1) << 10)
#define MIB	   (UINT64_C(1) << 20)
#define GIB	   (UINT64_C(1) << 30)
#define OFF(field) offsetof(struct conf, field)

#define MSEC (UINT64_C(1000000))
#define HOUR (UINT64_C(3600000000000))

#define LT_STR_(x) #x
#define LT_STR(x)  LT_STR_(x)

/*
 * The kernel's ranges (kmod/src/tunable.c): threshold 1us..1h, timeout off or 1ms..1h (as
 * latencyctl checks them, proto.h), a tracker's own alert limit off or 1..1000000 per
 * second, bursts of 1..65536.
 */
// clang-format off
#define TRACKER_KEYS(i, name, threshold)                                                           \
	{"trackers." name ".enabled", CONF_BOOL, OFF(trackers[i].enabled), 0, "false", 0, 0},      \
	{"trackers." name ".threshold", CONF_DURATION, OFF(trackers[i].threshold_ns), 0,           \
	 threshold, PROTO_THRESHOLD_MIN_NS, PROTO_THRESHOLD_MAX_NS},                               \
	{"trackers." name ".timeout", CONF_DURATION_OFF, OFF(trackers[i].timeout_ns), 0, "0",      \
	 PROTO_TIMEOUT_MIN_NS, PROTO_TIMEOUT_MAX_NS},                                              \
	{"trackers." name ".max_keys", CONF_UINT_OFF, OFF(trackers[i].max_keys), 0, "0", 16,       \
	 1 << 20},                                                                                 \
	{"trackers." name ".filter_comm", CONF_COMM, OFF(trackers[i].filter_comm), 0, "", 0, 0},   \
	{"trackers." name ".filter_cgroup", CONF_CGROUP, OFF(trackers[i].filter_cgroup), 0, "",    \
	 0, 0},                                                                                    \
	{"trackers." name ".alert_rate", CONF_UINT_OFF, OFF(trackers[i].alert_rate), 0, "0", 1,    \
	 1000000},                                                                                 \
	{"trackers." name ".alert_burst", CONF_UINT, OFF(trackers[i].alert_burst), 0,              \
	 LT_STR(LATENCY_TRACKER_TRACKER_ALERT_BURST), 1, 65536}
// clang-format on

#define CONF_EVENTS_DEFAULT                                                                        \
	"sched_switch,sched_waking,sched_wakeup_new,sched_process_fork,sched_process_exit,"        \
	"sched_process_exec,sched_migrate_task,"                                                   \
	"irq_handler_entry,irq_handler_exit,irq_softirq_entry,irq_softirq_exit,"                   \
	"irq_softirq_raise,timer_hrtimer_expire_entry,timer_hrtimer_expire_exit,"                  \
	"block_rq_issue,block_rq_complete," LATENCY_TRACKER_TRACE_EVENT

const struct conf_key conf_keys[] = {
	{"control.socket", CONF_SOCKET_PATH, offsetof(struct conf, control.socket), 0,
	 PROTO_SOCKET_PATH_DEFAULT, 0, 0},
	{"control.admin_group", CONF_GROUP, offsetof(struct conf, control.admin_group),
	 offsetof(struct conf, control.admin_gid), "", 0, 0},
	{"control.read_group", CONF_GROUP, offsetof(struct conf, control.read_group),
	 offsetof(struct conf, control.read_gid), "", 0, 0},
	{"control.save_file", CONF_PATH_OFF, OFF(control.save_file), 0, CONF_SAVE_FILE_DEFAULT, 0,
	 0},
	{"control.max_clients", CONF_UINT, OFF(control.max_clients), 0, "64", 1, 1024},
	{"log.level", CONF_LOG_LEVEL, offsetof(struct conf, log.level), 0, "info", 0, 0},

	{"module.load", CONF_BOOL, OFF(module.load), 0, "true", 0, 0},
	{"module.name", CONF_NAME, OFF(module.name), 0, LATENCY_TRACKER_MODULE_NAME, 0, 0},
	{"module.parameters", CONF_STRING, OFF(module.parameters), 0, "", 0, 0},
	{"module.probe", CONF_STRING, OFF(module.probe), 0, "lttng-probe-latency_tracker", 0, 0},
	{"module.notify_path", CONF_PATH, OFF(module.notify_path), 0, LATENCY_TRACKER_DEV_PATH, 0,
	 0},

	{"session.enabled", CONF_BOOL, OFF(session.enabled), 0, "true", 0, 0},
	{"session.name", CONF_NAME, OFF(session.name), 0, "latencyd", 0, 0},
	{"session.domain", CONF_DOMAIN, OFF(session.domain), 0, "kernel", 0, 0},
	{"session.subbuf_size", CONF_POW2, OFF(session.subbuf_size), 0, "262144", 4 * KIB,
	 256 * MIB},
	{"session.num_subbuf", CONF_POW2, OFF(session.num_subbuf), 0, "4", 2, 1024},
	{"session.history", CONF_DURATION_OFF, OFF(session.history_ns), 0, "0", 1000 * MSEC, HOUR},
	{"session.events", CONF_EVENTS, OFF(session.events), 0, CONF_EVENTS_DEFAULT, 0, 0},
	{"session.syscalls", CONF_BOOL, OFF(session.syscalls), 0, "false", 0, 0},

	{"output.directory", CONF_PATH, OFF(output.directory), 0, "/var/lib/latencyd/snapshots", 0,
	 0},
	{"output.relayd", CONF_URL, OFF(output.relayd), 0, "", 0, 0},
	{"output.fallback_local", CONF_BOOL, OFF(output.fallback_local), 0, "true", 0, 0},
	{"output.max_size", CONF_UINT, OFF(output.max_size), 0, "0", 0, UINT64_C(1) << 40},
	/* Short: a record that waits for it lets the history around its alert go. */
	{"output.relayd_timeout", CONF_DURATION, OFF(output.relayd_timeout_ns), 0, "2s", 10 * MSEC,
	 60000 * MSEC},

	{"ratelimit.rate", CONF_RATE, OFF(ratelimit.rate), 0, "0.2", 0, 1000},
	{"ratelimit.burst", CONF_UINT, OFF(ratelimit.burst), 0, "3", 1, 1000},
	{"ratelimit.trackers", CONF_OVERRIDES, OFF(ratelimit.trackers), 0, "", 0, 0},

	{"retention.max_count", CONF_UINT, OFF(retention.max_count), 0, "100", 0, 1000000},
	{"retention.max_bytes", CONF_UINT, OFF(retention.max_bytes), 0, "1073741824", 0,
	 UINT64_C(1) << 50},
	{"retention.max_age", CONF_UINT, OFF(retention.max_age), 0, "604800", 0,
	 UINT64_C(10) * 365 * 86400},

	{"catalog.directory", CONF_PATH, OFF(catalog.directory), 0, "/var/lib/latencyd", 0, 0},

	{"analysis.auto", CONF_BOOL, OFF(analysis.autorun), 0, "true", 0, 0},
	{"analysis.max_memory", CONF_UINT_OFF, OFF(analysis.max_memory), 0, "1073741824", 4 * MIB,
	 UINT64_C(1) << 50},

	/* Prometheus: the same text as latencyctl metrics, for node_exporter's textfile
	 * collector (Debian's reads /var/lib/prometheus/node-exporter). */
	{"metrics.textfile", CONF_PROM_FILE, OFF(metrics.textfile), 0, "", 0, 0},
	{"metrics.interval", CONF_DURATION, OFF(metrics.interval_ns), 0, "15s", 1000 * MSEC, HOUR},

	{"realtime.priority", CONF_UINT, OFF(realtime.priority), 0, "50", 0, 99},
	{"realtime.lock_memory", CONF_BOOL, OFF(realtime.lock_memory), 0, "true", 0, 0},
	{"realtime.cpus", CONF_CPU_LIST, OFF(realtime.cpus), 0, "", 0, 0},
	{"realtime.waiter_per_cpu", CONF_BOOL, OFF(realtime.waiter_per_cpu), 0, "true", 0, 0},
	{"realtime.sessiond_boost", CONF_UINT, OFF(realtime.sessiond_boost), 0, "10", 0, 20},

	/* min 1: the name may be "" (fleet.host: the machine's hostname). */
	{"fleet.enabled", CONF_BOOL, OFF(fleet.enabled), 0, "false", 0, 0},
	{"fleet.broker", CONF_BROKER, OFF(fleet.broker), 0, "mqtt://127.0.0.1:1883", 0, 0},
	{"fleet.ca_file", CONF_PATH_OFF, OFF(fleet.ca_file), 0, "", 0, 0},
	{"fleet.cert_file", CONF_PATH_OFF, OFF(fleet.cert_file), 0, "", 0, 0},
	{"fleet.key_file", CONF_PATH_OFF, OFF(fleet.key_file), 0, "", 0, 0},
	{"fleet.username", CONF_STRING, OFF(fleet.username), 0, "", 0, 0},
	{"fleet.password_file", CONF_PATH_OFF, OFF(fleet.password_file), 0, "", 0, 0},
	{"fleet.user", CONF_NAME, OFF(fleet.user), 0, "_latencyd", 0, 0},
	{"fleet.topic_prefix", CONF_FLEET_NAME, OFF(fleet.topic_prefix), 0, "latencyd", 0, 0},
	{"fleet.host", CONF_FLEET_NAME, OFF(fleet.host), 0, "", 1, 0},
	{"fleet.group", CONF_FLEET_NAME, OFF(fleet.group), 0, "default", 0, 0},
	{"fleet.publish", CONF_BOOL, OFF(fleet.publish), 0, "true", 0, 0},
	{"fleet.record_peers", CONF_BOOL, OFF(fleet.record_peers), 0, "true", 0, 0},
	/* Per origin, then all origins together: neither can be off (fleet.record_peers is). */
	{"fleet.peer_rate", CONF_RATE_LIMIT, OFF(fleet.peer_rate), 0, "0.2", 0, 1000},
	{"fleet.peer_burst", CONF_UINT, OFF(fleet.peer_burst), 0, "3", 1, 1000},
	{"fleet.total_rate", CONF_RATE_LIMIT, OFF(fleet.total_rate), 0, "1", 0, 1000},
	{"fleet.total_burst", CONF_UINT, OFF(fleet.total_burst), 0, "5", 1, 1000},
	/* A request older than this is stale: NTP keeps hosts' clocks within milliseconds. */
	{"fleet.max_age", CONF_DURATION, OFF(fleet.max_age_ns), 0, "5s", 100 * MSEC, HOUR},
	/* A member that said nothing of an incident by then is listed as "no answer". */
	{"fleet.answer_within", CONF_DURATION, OFF(fleet.answer_within_ns), 0, "30s", 1000 * MSEC,
	 HOUR},
	/* A member not heard of for 3 times this went away (proto/fleet.h); rounded up to whole
	 * seconds. */
	{"fleet.presence_every", CONF_DURATION, OFF(fleet.presence_every_ns), 0, "60s", 1000 * MSEC,
	 HOUR},

	/* On the lttng-relayd host: retention over relayd's tree, by whole incidents. */
	{"collector.enabled", CONF_BOOL, OFF(collector.enabled), 0, "false", 0, 0},
	{"collector.directory", CONF_PATH, OFF(collector.directory), 0, "/var/lib/lttng-relayd", 0,
	 0},
	{"collector.max_age", CONF_DURATION_OFF, OFF(collector.max_age_ns), 0, "0", 1000 * MSEC,
	 UINT64_C(10) * 365 * 24 * HOUR},
	{"collector.max_bytes", CONF_UINT, OFF(collector.max_bytes), 0, "0", 0, UINT64_C(1) << 50},
	{"collector.interval", CONF_DURATION, OFF(collector.interval_ns), 0, "60s", 1000 * MSEC,
	 24 * HOUR},

	/* Thresholds: rare enough to be worth a snapshot on a busy server. */
	TRACKER_KEYS(TRACKER_SYSCALLS, LATENCY_TRACKER_NAME_SYSCALLS, "100ms"),
	TRACKER_KEYS(TRACKER_WAKEUP, LATENCY_TRACKER_NAME_WAKEUP, "5ms"),
	TRACKER_KEYS(TRACKER_OFFCPU, LATENCY_TRACKER_NAME_OFFCPU, "100ms"),
	TRACKER_KEYS(TRACKER_BLOCK, LATENCY_TRACKER_NAME_BLOCK, "50ms"),
	TRACKER_KEYS(TRACKER_IRQ, LATENCY_TRACKER_NAME_IRQ, "1ms"),
	TRACKER_KEYS(TRACKER_NET, LATENCY_TRACKER_NAME_NET, "10ms"),
	TRACKER_KEYS(TRACKER_APP, LATENCY_TRACKER_NAME_APP, "100ms"),
	TRACKER_KEYS(TRACKER_FS, LATENCY_TRACKER_NAME_FS, "100ms"),
	TRACKER_KEYS(TRACKER_IOSCHED, LATENCY_TRACKER_NAME_IOSCHED, "50ms"),
};

const char *const tracker_names[TRACKER_COUNT] = {
	[TRACKER_SYSCALLS] = LATENCY_TRACKER_NAME_SYSCALLS,
	[TRACKER_WAKEUP] = LATENCY_TRACKER_NAME_WAKEUP,
	[TRACKER_OFFCPU] = LATENCY_TRACKER_NAME_OFFCPU,
	[TRACKER_BLOCK] = LATENCY_TRACKER_NAME_BLOCK,
	[TRACKER_IRQ] = LATENCY_TRACKER_NAME_IRQ,
	[TRACKER_NET] = LATENCY_TRACKER_NAME_NET,
	[TRACKER_APP] = LATENCY_TRACKER_NAME_APP,
	[TRACKER_FS] = LATENCY_TRACKER_NAME_FS,
	[TRACKER_IOSCHED] = LATENCY_TRACKER_NAME_IOSCHED,
};

const size_t conf_n_keys = sizeof(conf_keys) / sizeof(conf_keys[0]);

/* A char * field (freed by conf_free()). */
bool conf_key_is_string(enum conf_type t)
{
	return t == CONF_SOCKET_PATH || t == CONF_GROUP || t == CONF_STRING || t == CONF_NAME ||
	       t == CONF_PATH || t == CONF_PATH_OFF || t == CONF_URL || t == CONF_COMM ||
	       t == CONF_CGROUP || t == CONF_BROKER || t == CONF_FLEET_NAME || t == CONF_CPU_LIST ||
	       t == CONF_PROM_FILE;
}

/* 0 is also allowed, for "off" or "the module's default". */
bool conf_key_zero_off(const struct conf_key *k)
{
	return k->type == CONF_UINT_OFF || k->type == CONF_DURATION_OFF;
}

enum conf_kind conf_kind_of(enum conf_type t)
{
	switch (t) {
	case CONF_BOOL:
		return KIND_BOOL;
	case CONF_UINT:
	case CONF_UINT_OFF:
	case CONF_POW2:
		return KIND_INT;
	case CONF_RATE:
	case CONF_RATE_LIMIT:
		return KIND_NUMBER;
	case CONF_EVENTS:
	case CONF_OVERRIDES:
		return KIND_LIST;
	case CONF_DURATION:
	case CONF_DURATION_OFF:
		return KIND_DURATION;
	default:
		return KIND_STRING;
	}
}

const struct conf_key *conf_find_key(const char *name)
{
	for (size_t i = 0; i < conf_n_keys; i++)
		if (strcmp(conf_keys[i].name, name) == 0)
			return &conf_keys[i];
	return NULL;
}

/* A section is a proper prefix of some key, up to a dot. */
bool conf_is_section(const char *name)
{
	size_t len = strlen(name);

	for (size_t i = 0; i < conf_n_keys; i++)
		if (strncmp(conf_keys[i].name, name, len) == 0 && conf_keys[i].name[len] == '.')
			return true;
	return false;
}
