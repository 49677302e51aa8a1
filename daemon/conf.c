/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Configuration: a libconfig file checked against one table. Each row names a setting, its
 * type, where it lives in struct conf and its default; defaults go through the same parser
 * as file values. A new setting is a new row (and a new type when none fits).
 *
 * Every problem is reported as "FILE:LINE: setting: problem", all of them, not just the
 * first; the caller decides whether to print, log or keep an older configuration.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <grp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <inttypes.h>
#include <limits.h>
#include <unistd.h>

#include <json-c/json.h>
#include <libconfig.h>

#include <latency_tracker.h>

#include "flight.h"
#include "latencyd.h"

enum conf_type {
	CONF_SOCKET_PATH,  /* char *: absolute, fits in sun_path */
	CONF_GROUP,	   /* char * name (may be ""), gid_t at aux_offset */
	CONF_LOG_LEVEL,	   /* int: LOG_ERR .. LOG_DEBUG */
	CONF_STRING,	   /* char *, anything (may be "") */
	CONF_NAME,	   /* char *: non-empty, no '/', no whitespace */
	CONF_PATH,	   /* char *: absolute path */
	CONF_PATH_OFF,	   /* char *: "" (off) or an absolute path */
	CONF_URL,	   /* char *: "" or an LTTng network URL (net://, net6://, tcp://) */
	CONF_BOOL,	   /* bool */
	CONF_UINT,	   /* uint64_t in [min, max] */
	CONF_POW2,	   /* uint64_t, a power of two in [min, max] */
	CONF_RATE,	   /* double in [min, max] (events per second) */
	CONF_DOMAIN,	   /* int: FLIGHT_DOMAIN_* */
	CONF_EVENTS,	   /* char **: NULL-terminated list of tracepoint names, not empty */
	CONF_OVERRIDES,	   /* char **: list of "TRACKER=RATE/BURST" */
	CONF_UINT_OFF,	   /* uint64_t, 0 or in [min, max] */
	CONF_DURATION,	   /* uint64_t ns, "10ms" (a unit is required) in [min, max] */
	CONF_DURATION_OFF, /* uint64_t ns, "0" or a duration in [min, max] */
	CONF_COMM,	   /* char *: "" or a task name (at most 15 bytes) */
	CONF_CGROUP,	   /* char *: "" or a cgroup v2 path or id, resolved when applied */
};

/* How a type is spelled in the file. */
enum conf_kind {
	KIND_STRING,
	KIND_BOOL,
	KIND_INT,
	KIND_NUMBER,   /* int or float */
	KIND_LIST,     /* list or array of strings */
	KIND_DURATION, /* a string with a unit, "10ms" */
};

struct conf_key {
	const char *name; /* section.setting */
	enum conf_type type;
	size_t offset;
	size_t aux_offset;
	const char *def; /* lists: comma-separated */
	uint64_t min, max;
};

/* A char * field (freed by conf_free()). */
static bool is_string(enum conf_type t)
{
	return t == CONF_SOCKET_PATH || t == CONF_GROUP || t == CONF_STRING || t == CONF_NAME ||
	       t == CONF_PATH || t == CONF_PATH_OFF || t == CONF_URL || t == CONF_COMM ||
	       t == CONF_CGROUP;
}

/* 0 is also allowed, for "off" or "the module's default". */
static bool zero_off(const struct conf_key *k)
{
	return k->type == CONF_UINT_OFF || k->type == CONF_DURATION_OFF;
}

#define KIB	   (UINT64_C(1) << 10)
#define MIB	   (UINT64_C(1) << 20)
#define GIB	   (UINT64_C(1) << 30)
#define OFF(field) offsetof(struct conf, field)

#define USEC (UINT64_C(1000))
#define MSEC (UINT64_C(1000000))
#define HOUR (UINT64_C(3600000000000))

/* The kernel's ranges (kmod/src/tunable.c): threshold 1us..1h, timeout off or 1ms..1h. */
// clang-format off
#define TRACKER_KEYS(i, name, threshold)                                                           \
	{"trackers." name ".enabled", CONF_BOOL, OFF(trackers[i].enabled), 0, "false", 0, 0},      \
	{"trackers." name ".threshold", CONF_DURATION, OFF(trackers[i].threshold_ns), 0,           \
	 threshold, USEC, HOUR},                                                                   \
	{"trackers." name ".timeout", CONF_DURATION_OFF, OFF(trackers[i].timeout_ns), 0, "0",      \
	 MSEC, HOUR},                                                                              \
	{"trackers." name ".max_keys", CONF_UINT_OFF, OFF(trackers[i].max_keys), 0, "0", 16,       \
	 1 << 20},                                                                                 \
	{"trackers." name ".filter_comm", CONF_COMM, OFF(trackers[i].filter_comm), 0, "", 0, 0},   \
	{"trackers." name ".filter_cgroup", CONF_CGROUP, OFF(trackers[i].filter_cgroup), 0, "",    \
	 0, 0}
// clang-format on

#define CONF_EVENTS_DEFAULT                                                                        \
	"sched_switch,sched_waking,sched_wakeup_new,sched_process_fork,sched_process_exit,"        \
	"irq_handler_entry,irq_handler_exit,irq_softirq_entry,irq_softirq_exit,"                   \
	"irq_softirq_raise,timer_hrtimer_expire_entry,timer_hrtimer_expire_exit,"                  \
	"block_rq_issue,block_rq_complete," LATENCY_TRACKER_TRACE_EVENT

static const struct conf_key keys[] = {
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
	{"session.events", CONF_EVENTS, OFF(session.events), 0, CONF_EVENTS_DEFAULT, 0, 0},
	{"session.syscalls", CONF_BOOL, OFF(session.syscalls), 0, "false", 0, 0},

	{"output.directory", CONF_PATH, OFF(output.directory), 0, "/var/lib/latencyd/snapshots", 0,
	 0},
	{"output.relayd", CONF_URL, OFF(output.relayd), 0, "", 0, 0},
	{"output.fallback_local", CONF_BOOL, OFF(output.fallback_local), 0, "true", 0, 0},
	{"output.max_size", CONF_UINT, OFF(output.max_size), 0, "0", 0, UINT64_C(1) << 40},

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

	{"realtime.priority", CONF_UINT, OFF(realtime.priority), 0, "50", 0, 99},
	{"realtime.lock_memory", CONF_BOOL, OFF(realtime.lock_memory), 0, "true", 0, 0},

	/* Thresholds: rare enough to be worth a snapshot on a busy server. */
	TRACKER_KEYS(TRACKER_SYSCALLS, LATENCY_TRACKER_NAME_SYSCALLS, "100ms"),
	TRACKER_KEYS(TRACKER_WAKEUP, LATENCY_TRACKER_NAME_WAKEUP, "5ms"),
	TRACKER_KEYS(TRACKER_OFFCPU, LATENCY_TRACKER_NAME_OFFCPU, "100ms"),
	TRACKER_KEYS(TRACKER_BLOCK, LATENCY_TRACKER_NAME_BLOCK, "50ms"),
	TRACKER_KEYS(TRACKER_IRQ, LATENCY_TRACKER_NAME_IRQ, "1ms"),
	TRACKER_KEYS(TRACKER_NET, LATENCY_TRACKER_NAME_NET, "10ms"),
	TRACKER_KEYS(TRACKER_APP, LATENCY_TRACKER_NAME_APP, "100ms"),
};

const char *const tracker_names[TRACKER_COUNT] = {
	[TRACKER_SYSCALLS] = LATENCY_TRACKER_NAME_SYSCALLS,
	[TRACKER_WAKEUP] = LATENCY_TRACKER_NAME_WAKEUP,
	[TRACKER_OFFCPU] = LATENCY_TRACKER_NAME_OFFCPU,
	[TRACKER_BLOCK] = LATENCY_TRACKER_NAME_BLOCK,
	[TRACKER_IRQ] = LATENCY_TRACKER_NAME_IRQ,
	[TRACKER_NET] = LATENCY_TRACKER_NAME_NET,
	[TRACKER_APP] = LATENCY_TRACKER_NAME_APP,
};

#define N_KEYS (sizeof(keys) / sizeof(keys[0]))

#define SAVED_FILE_MAX (1024 * 1024) /* a saved-settings file holds a few hundred bytes */

struct loader {
	struct conf *conf;
	struct conf_diag *diag;
	unsigned errors;
	bool saved;		      /* the saved-settings file: trackers.* only */
	struct conf_entries *collect; /* saved settings found, as text */
};

__attribute__((format(printf, 2, 0))) static void diag_vline(struct conf_diag *diag,
							     const char *fmt, va_list ap)
{
	char *line = NULL, **lines;

	if (!diag)
		return;
	if (vasprintf(&line, fmt, ap) < 0)
		return;
	lines = realloc(diag->lines, (diag->n + 1) * sizeof(*lines));
	if (!lines) {
		free(line);
		return;
	}
	lines[diag->n++] = line;
	diag->lines = lines;
}

__attribute__((format(printf, 2, 3))) static void diag_add(struct loader *l, const char *fmt, ...)
{
	va_list ap;

	l->errors++;
	va_start(ap, fmt);
	diag_vline(l->diag, fmt, ap);
	va_end(ap);
}

/* A problem that does not make the configuration invalid (the saved file is ignored). */
__attribute__((format(printf, 2, 3))) static void diag_warn(struct conf_diag *diag, const char *fmt,
							    ...)
{
	va_list ap;

	va_start(ap, fmt);
	diag_vline(diag, fmt, ap);
	va_end(ap);
}

void conf_diag_clear(struct conf_diag *diag)
{
	if (!diag)
		return;
	for (size_t i = 0; i < diag->n; i++)
		free(diag->lines[i]);
	free(diag->lines);
	diag->lines = NULL;
	diag->n = 0;
}

static int set_string(char **field, const char *value)
{
	char *s = strdup(value);

	if (!s)
		return -ENOMEM;
	free(*field);
	*field = s;
	return 0;
}

static int lookup_group(const char *name, gid_t *ret)
{
	size_t size = 1024;

	for (;;) {
		struct group grp, *result = NULL;
		char *buf = malloc(size);
		int r;

		if (!buf)
			return -ENOMEM;
		r = getgrnam_r(name, &grp, buf, size, &result);
		if (r == ERANGE && size < (1u << 20)) {
			free(buf);
			size *= 2;
			continue;
		}
		if (r == 0 && result)
			*ret = result->gr_gid;
		free(buf);
		if (r != 0)
			return -r;
		return result ? 0 : -ENOENT;
	}
}

static int set_uint(const struct conf_key *k, const char *value, uint64_t *field, char *why,
		    size_t whylen)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(value, &end, 10);
	if (!isdigit((unsigned char)value[0]) || *end || errno ||
	    ((v < k->min || v > k->max) && !(v == 0 && zero_off(k)))) {
		snprintf(why, whylen, "'%s' is not %san integer in [%" PRIu64 ", %" PRIu64 "]",
			 value, zero_off(k) ? "0 nor " : "", k->min, k->max);
		return -EINVAL;
	}
	if (k->type == CONF_POW2 && (v & (v - 1)) != 0) {
		snprintf(why, whylen, "%llu is not a power of two", v);
		return -EINVAL;
	}
	*field = v;
	return 0;
}

static int set_rate(const struct conf_key *k, const char *value, double *field, char *why,
		    size_t whylen)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(value, &end);
	if (!value[0] || *end || errno || !isfinite(v) || v < (double)k->min ||
	    v > (double)k->max) {
		snprintf(why, whylen, "'%s' is not a number in [%" PRIu64 ", %" PRIu64 "]", value,
			 k->min, k->max);
		return -EINVAL;
	}
	*field = v;
	return 0;
}

static int set_duration(const struct conf_key *k, const char *value, uint64_t *field, char *why,
			size_t whylen)
{
	char lo[32], hi[32];
	const char *problem;
	uint64_t ns;

	if (zero_off(k) && strcmp(value, "0") == 0) {
		*field = 0;
		return 0;
	}
	if (proto_duration_parse(value, &ns, &problem) < 0) {
		snprintf(why, whylen, "'%s': %s", value, problem);
		return -EINVAL;
	}
	if (ns < k->min || ns > k->max) {
		proto_duration_format(lo, sizeof(lo), k->min);
		proto_duration_format(hi, sizeof(hi), k->max);
		snprintf(why, whylen, "'%s' is not %sbetween %s and %s", value,
			 zero_off(k) ? "\"0\" (off) nor " : "", lo, hi);
		return -EINVAL;
	}
	*field = ns;
	return 0;
}

void conf_strv_free(char **v)
{
	for (char **p = v; p && *p; p++)
		free(*p);
	free(v);
}

/* "TRACKER=RATE/BURST" */
int conf_parse_override(const char *s, char *tracker, size_t len, double *rate, unsigned *burst)
{
	const char *eq = strchr(s, '='), *slash;
	char *end;
	unsigned long b;

	if (!eq || eq == s || (size_t)(eq - s) >= len)
		return -EINVAL;
	slash = strchr(eq, '/');
	if (!slash)
		return -EINVAL;
	errno = 0;
	*rate = strtod(eq + 1, &end);
	if (end != slash || errno || !isfinite(*rate) || *rate < 0 || *rate > 1000)
		return -EINVAL;
	b = strtoul(slash + 1, &end, 10);
	if (!isdigit((unsigned char)slash[1]) || *end || b < 1 || b > 1000)
		return -EINVAL;
	memcpy(tracker, s, (size_t)(eq - s));
	tracker[eq - s] = 0;
	*burst = (unsigned)b;
	return 0;
}

/* A comma-separated list (how lists travel from the file and from defaults). */
static int set_list(const struct conf_key *k, const char *value, char ***field, char *why,
		    size_t whylen)
{
	char **v = NULL, *copy = strdup(value), *save = NULL, *tok;
	size_t n = 0;
	int r = 0;

	if (!copy)
		return -ENOMEM;
	v = calloc(1, sizeof(*v));
	for (tok = strtok_r(copy, ",", &save); v && tok; tok = strtok_r(NULL, ",", &save)) {
		char **nv, tracker[LATENCY_TRACKER_NAME_LEN];
		double rate;
		unsigned burst;

		if (k->type == CONF_OVERRIDES &&
		    conf_parse_override(tok, tracker, sizeof(tracker), &rate, &burst) < 0) {
			snprintf(why, whylen,
				 "'%s' is not TRACKER=RATE/BURST (rate 0..1000, burst 1..1000)",
				 tok);
			r = -EINVAL;
			break;
		}
		if (k->type == CONF_EVENTS && (!tok[0] || strlen(tok) >= 256)) {
			snprintf(why, whylen, "'%s' is not an event name", tok);
			r = -EINVAL;
			break;
		}
		nv = realloc(v, (n + 2) * sizeof(*v));
		if (!nv || !(nv[n] = strdup(tok))) {
			v = nv ?: v;
			r = -ENOMEM;
			break;
		}
		v = nv;
		v[++n] = NULL;
	}
	free(copy);
	if (!v)
		return -ENOMEM;
	if (r == 0 && k->type == CONF_EVENTS && n == 0) {
		snprintf(why, whylen, "at least one event is needed");
		r = -EINVAL;
	}
	if (r < 0) {
		conf_strv_free(v);
		return r;
	}
	conf_strv_free(*field);
	*field = v;
	return 0;
}

static enum conf_kind kind_of(enum conf_type t)
{
	switch (t) {
	case CONF_BOOL:
		return KIND_BOOL;
	case CONF_UINT:
	case CONF_UINT_OFF:
	case CONF_POW2:
		return KIND_INT;
	case CONF_RATE:
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

/* Parses value into the row's field; on failure writes the problem into why. */
static int set_value(struct conf *c, const struct conf_key *k, const char *value, char *why,
		     size_t whylen)
{
	char *base = (char *)c;
	gid_t gid = GID_INVALID;
	int r;

	switch (k->type) {
	case CONF_SOCKET_PATH:
		if (value[0] != '/' ||
		    strlen(value) >= sizeof(((struct sockaddr_un *)0)->sun_path)) {
			snprintf(why, whylen, "must be an absolute path of at most %zu bytes",
				 sizeof(((struct sockaddr_un *)0)->sun_path) - 1);
			return -EINVAL;
		}
		return set_string((char **)(base + k->offset), value);
	case CONF_GROUP:
		if (value[0]) {
			r = lookup_group(value, &gid);
			if (r < 0) {
				snprintf(why, whylen, "group '%s': %s", value,
					 r == -ENOENT ? "no such group" : strerror(-r));
				return r;
			}
		}
		*(gid_t *)(base + k->aux_offset) = gid;
		return set_string((char **)(base + k->offset), value);
	case CONF_LOG_LEVEL:
		r = log_level_from_string(value);
		if (r < 0) {
			snprintf(why, whylen, "'%s' is not one of error, warning, info, debug",
				 value);
			return r;
		}
		*(int *)(base + k->offset) = r;
		return 0;
	case CONF_STRING:
		return set_string((char **)(base + k->offset), value);
	case CONF_NAME:
		if (!value[0] || strpbrk(value, "/ \t\n*?")) {
			snprintf(why, whylen,
				 "'%s' must be a non-empty name without '/', "
				 "spaces or wildcards",
				 value);
			return -EINVAL;
		}
		return set_string((char **)(base + k->offset), value);
	case CONF_PATH_OFF:
		if (!value[0])
			return set_string((char **)(base + k->offset), value);
		/* fall through */
	case CONF_PATH:
		if (value[0] != '/' || strlen(value) >= PATH_MAX) {
			snprintf(why, whylen, "must be an absolute path");
			return -EINVAL;
		}
		return set_string((char **)(base + k->offset), value);
	case CONF_URL:
		if (value[0] && strncmp(value, "net://", 6) != 0 &&
		    strncmp(value, "net6://", 7) != 0 && strncmp(value, "tcp://", 6) != 0) {
			snprintf(why, whylen,
				 "'%s' is not empty nor a net://, net6:// or tcp:// URL", value);
			return -EINVAL;
		}
		return set_string((char **)(base + k->offset), value);
	case CONF_BOOL:
		if (strcmp(value, "true") != 0 && strcmp(value, "false") != 0) {
			snprintf(why, whylen, "expected true or false");
			return -EINVAL;
		}
		*(bool *)(base + k->offset) = strcmp(value, "true") == 0;
		return 0;
	case CONF_UINT:
	case CONF_UINT_OFF:
	case CONF_POW2:
		return set_uint(k, value, (uint64_t *)(base + k->offset), why, whylen);
	case CONF_RATE:
		return set_rate(k, value, (double *)(base + k->offset), why, whylen);
	case CONF_DOMAIN:
		if (strcmp(value, "kernel") == 0)
			*(int *)(base + k->offset) = FLIGHT_DOMAIN_KERNEL;
		else if (strcmp(value, "userspace") == 0)
			*(int *)(base + k->offset) = FLIGHT_DOMAIN_USERSPACE;
		else {
			snprintf(why, whylen, "'%s' is not one of kernel, userspace", value);
			return -EINVAL;
		}
		return 0;
	case CONF_EVENTS:
	case CONF_OVERRIDES:
		return set_list(k, value, (char ***)(base + k->offset), why, whylen);
	case CONF_DURATION:
	case CONF_DURATION_OFF:
		return set_duration(k, value, (uint64_t *)(base + k->offset), why, whylen);
	case CONF_COMM:
		if (strlen(value) >= LATENCY_TRACKER_COMM_LEN || strchr(value, '\n')) {
			snprintf(why, whylen,
				 "'%s' is not a task name (at most %d bytes, one line)", value,
				 LATENCY_TRACKER_COMM_LEN - 1);
			return -EINVAL;
		}
		return set_string((char **)(base + k->offset), value);
	case CONF_CGROUP:
		if (cgroup_spec_check(value) < 0) {
			snprintf(why, whylen,
				 "'%s' is not a cgroup: a path under /sys/fs/cgroup (absolute or "
				 "relative to it, no '..') or a cgroup id",
				 value);
			return -EINVAL;
		}
		return set_string((char **)(base + k->offset), value);
	}
	snprintf(why, whylen, "internal error: unknown setting type");
	return -EINVAL;
}

static const struct conf_key *find_key(const char *name)
{
	for (size_t i = 0; i < N_KEYS; i++)
		if (strcmp(keys[i].name, name) == 0)
			return &keys[i];
	return NULL;
}

/* A section is a proper prefix of some key, up to a dot. */
static bool is_section(const char *name)
{
	size_t len = strlen(name);

	for (size_t i = 0; i < N_KEYS; i++)
		if (strncmp(keys[i].name, name, len) == 0 && keys[i].name[len] == '.')
			return true;
	return false;
}

void conf_free(struct conf *c)
{
	if (!c)
		return;
	/* The table knows which fields own memory: a new setting needs no line here. */
	for (size_t i = 0; i < N_KEYS; i++) {
		char *field = (char *)c + keys[i].offset;

		if (is_string(keys[i].type))
			free(*(char **)field);
		else if (keys[i].type == CONF_EVENTS || keys[i].type == CONF_OVERRIDES)
			conf_strv_free(*(char ***)field);
	}
	for (size_t i = 0; c->origins && i < N_KEYS; i++)
		free(c->origins[i]);
	free(c->origins);
	free(c->source);
	free(c->saved_source);
	free(c->saved_problem);
	free(c);
}

static int set_origin(struct conf *c, const struct conf_key *k, const char *origin)
{
	char **slot = &c->origins[k - keys];

	free(*slot);
	*slot = origin ? strdup(origin) : NULL;
	return !origin || *slot ? 0 : -ENOMEM;
}

int conf_new_defaults(struct conf **ret)
{
	struct conf *c;
	char why[256];
	int r;

	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->control.admin_gid = c->control.read_gid = GID_INVALID;
	c->origins = calloc(N_KEYS, sizeof(*c->origins));
	if (!c->origins) {
		free(c);
		return -ENOMEM;
	}
	for (size_t i = 0; i < N_KEYS; i++) {
		r = set_value(c, &keys[i], keys[i].def, why, sizeof(why));
		if (r < 0) {
			conf_free(c);
			return r;
		}
	}
	*ret = c;
	return 0;
}

/* The setting's value spelled as set_value() takes it, or NULL with the problem in why. */
static char *setting_text(config_setting_t *s, enum conf_kind kind, char *why, size_t whylen)
{
	static const char *const expected[] = {
		[KIND_STRING] = "expected a string",
		[KIND_BOOL] = "expected true or false",
		[KIND_INT] = "expected an integer",
		[KIND_NUMBER] = "expected a number",
		[KIND_LIST] = "expected a list of strings [\"a\", \"b\"]",
		[KIND_DURATION] = "expected a duration as a string with a unit, as in \"10ms\"",
	};
	int t = config_setting_type(s);
	char *text = NULL;

	switch (kind) {
	case KIND_STRING:
		if (t == CONFIG_TYPE_STRING)
			text = strdup(config_setting_get_string(s));
		break;
	case KIND_DURATION:
		/* A bare number reaches the parser, which asks for a unit (0 means off). */
		if (t == CONFIG_TYPE_STRING)
			text = strdup(config_setting_get_string(s));
		else if ((t == CONFIG_TYPE_INT || t == CONFIG_TYPE_INT64) &&
			 asprintf(&text, "%lld", config_setting_get_int64(s)) < 0)
			text = NULL;
		break;
	case KIND_BOOL:
		if (t == CONFIG_TYPE_BOOL)
			text = strdup(config_setting_get_bool(s) ? "true" : "false");
		break;
	case KIND_INT:
	case KIND_NUMBER:
		if (t == CONFIG_TYPE_INT || t == CONFIG_TYPE_INT64) {
			long long v = config_setting_get_int64(s);

			if (v < 0) {
				snprintf(why, whylen, "%lld is negative", v);
				return NULL;
			}
			if (asprintf(&text, "%lld", v) < 0)
				text = NULL;
		} else if (kind == KIND_NUMBER && t == CONFIG_TYPE_FLOAT) {
			if (asprintf(&text, "%.17g", config_setting_get_float(s)) < 0)
				text = NULL;
		}
		break;
	case KIND_LIST:
		if (t != CONFIG_TYPE_ARRAY && t != CONFIG_TYPE_LIST)
			break;
		text = strdup("");
		for (int i = 0; text && i < config_setting_length(s); i++) {
			config_setting_t *e = config_setting_get_elem(s, (unsigned)i);
			const char *v = config_setting_get_string(e);
			char *joined;

			if (!v || strchr(v, ',')) {
				snprintf(why, whylen, "element %d: %s", i + 1,
					 v ? "must not contain ','" : "expected a string");
				free(text);
				return NULL;
			}
			if (asprintf(&joined, "%s%s%s", text, i ? "," : "", v) < 0)
				joined = NULL;
			free(text);
			text = joined;
		}
		break;
	}
	if (!text)
		snprintf(why, whylen, "%s", expected[kind]);
	return text;
}

/* Where a setting was found: kept for "latencyctl config", and as a saved entry. */
static void found(struct loader *l, const struct conf_key *k, const char *text, const char *file,
		  unsigned line)
{
	struct conf_entry *v;
	char origin[PATH_MAX + 16];

	snprintf(origin, sizeof(origin), "%s:%u", file, line);
	if (set_origin(l->conf, k, origin) < 0)
		l->errors++;
	if (!l->collect)
		return;
	v = realloc(l->collect->v, (l->collect->n + 1) * sizeof(*v));
	if (!v) {
		l->errors++;
		return;
	}
	l->collect->v = v;
	v += l->collect->n;
	v->key = strdup(k->name);
	v->value = strdup(text);
	v->line = line;
	l->collect->n++;
	if (!v->key || !v->value)
		l->errors++;
}

static bool in_trackers(const char *name)
{
	return strcmp(name, "trackers") == 0 || strncmp(name, "trackers.", 9) == 0;
}

static void walk(struct loader *l, config_setting_t *group, const char *prefix, const char *file)
{
	for (int i = 0; i < config_setting_length(group); i++) {
		config_setting_t *s = config_setting_get_elem(group, (unsigned)i);
		const char *sfile = config_setting_source_file(s) ?: file;
		unsigned line = config_setting_source_line(s);
		const struct conf_key *k;
		char name[256], why[256];

		snprintf(name, sizeof(name), "%s%s%s", prefix, prefix[0] ? "." : "",
			 config_setting_name(s) ?: "?");
		if (l->saved && !in_trackers(name)) {
			diag_add(l, "%s:%u: %s: only trackers settings are saved here", sfile, line,
				 name);
			continue;
		}
		k = find_key(name);
		if (!k && is_section(name)) {
			if (config_setting_type(s) != CONFIG_TYPE_GROUP)
				diag_add(l, "%s:%u: %s: expected a group { ... }", sfile, line,
					 name);
			else
				walk(l, s, name, file);
			continue;
		}
		if (!k) {
			diag_add(l, "%s:%u: %s: unknown setting", sfile, line, name);
			continue;
		}
		char *text = setting_text(s, kind_of(k->type), why, sizeof(why));

		if (!text) {
			diag_add(l, "%s:%u: %s: %s", sfile, line, name, why);
			continue;
		}
		if (set_value(l->conf, k, text, why, sizeof(why)) < 0)
			diag_add(l, "%s:%u: %s: %s", sfile, line, name, why);
		else
			found(l, k, text, sfile, line);
		free(text);
	}
}

static void parse_config(struct loader *l, config_t *cfg, int ok, const char *name)
{
	if (ok != CONFIG_TRUE) {
		if (config_error_type(cfg) == CONFIG_ERR_FILE_IO)
			diag_add(l, "%s: cannot read file", name);
		else
			diag_add(l, "%s:%d: %s", config_error_file(cfg) ?: name,
				 config_error_line(cfg), config_error_text(cfg));
	} else {
		walk(l, config_root_setting(cfg), "", name);
	}
}

#define INCLUDE_DEPTH_MAX 10 /* libconfig's own limit */

/*
 * libconfig's scanner exit()s the whole process when an @include names a directory (its
 * "input in flex scanner failed"), and would block on a FIFO: a reload must never do
 * that to latencyd. Every @include line, and theirs in turn, must name a regular file; a
 * missing one is left to libconfig, which reports it.
 */
static char *slurp(const char *path, size_t max);

static void check_includes(struct loader *l, const char *path, unsigned depth)
{
	char *text, *line, *next, target[PATH_MAX];
	unsigned nr = 0;
	struct stat st;

	if (depth > INCLUDE_DEPTH_MAX)
		return;
	text = slurp(path, SAVED_FILE_MAX * 16);
	if (!text)
		return; /* libconfig says why */
	for (line = text; line && *line; line = next) {
		const char *p = line, *end;

		next = strchr(line, '\n');
		if (next)
			*next++ = 0;
		nr++;
		p += strspn(p, " \t");
		if (strncmp(p, "@include", 8) != 0)
			continue;
		p += 8 + strspn(p + 8, " \t");
		if (*p != '"' || !(end = strchr(p + 1, '"')))
			continue;
		snprintf(target, sizeof(target), "%.*s", (int)(end - p - 1), p + 1);
		if (stat(target, &st) < 0)
			continue;
		if (!S_ISREG(st.st_mode))
			diag_add(l, "%s:%u: @include \"%s\": not a regular file", path, nr, target);
		else
			check_includes(l, target, depth + 1);
	}
	free(text);
}

static void read_file(struct loader *l, const char *path)
{
	config_t cfg;
	unsigned errors = l->errors;

	check_includes(l, path, 0);
	if (l->errors > errors)
		return;
	config_init(&cfg);
	parse_config(l, &cfg, config_read_file(&cfg, path), path);
	config_destroy(&cfg);
}

/* Text from elsewhere than the file latencyd was told to read: no @include may escape it. */
static void read_string(struct loader *l, const char *text, const char *name)
{
	config_t cfg;

	if (strcasestr(text, "@include")) {
		diag_add(l, "%s: @include is not allowed here", name);
		return;
	}
	config_init(&cfg);
	parse_config(l, &cfg, config_read_string(&cfg, text), name);
	config_destroy(&cfg);
}

int conf_parse_string(struct conf *c, const char *text, const char *name, bool saved,
		      struct conf_diag *diag)
{
	struct loader l = {.conf = c, .diag = diag, .saved = saved};

	read_string(&l, text, name);
	return l.errors ? -EINVAL : 0;
}

/* Applies one setting from outside a file (command-line overrides). */
int conf_set(struct conf *c, const char *key, const char *value, struct conf_diag *diag)
{
	return conf_set_from(c, key, value, NULL, diag);
}

int conf_set_from(struct conf *c, const char *key, const char *value, const char *origin,
		  struct conf_diag *diag)
{
	struct loader l = {c, diag, 0, false, NULL};
	const struct conf_key *k = find_key(key);
	char why[256];
	int r;

	if (!k) {
		diag_add(&l, "%s: unknown setting", key);
		return -ENOENT;
	}
	r = set_value(c, k, value, why, sizeof(why));
	if (r < 0) {
		diag_add(&l, "%s: %s", key, why);
		return r;
	}
	return set_origin(c, k, origin);
}

int conf_move_origin(struct conf *c, const char *key, const char *file, const char *origin)
{
	const struct conf_key *k = find_key(key);
	const char *now = k ? c->origins[k - keys] : NULL;
	size_t len = strlen(file);

	if (!now || strncmp(now, file, len) != 0 || now[len] != ':')
		return 0;
	return set_origin(c, k, origin);
}

void conf_entries_clear(struct conf_entries *e)
{
	for (size_t i = 0; e && i < e->n; i++) {
		free(e->v[i].key);
		free(e->v[i].value);
	}
	if (e) {
		free(e->v);
		e->v = NULL;
		e->n = 0;
	}
}

/* The whole file in memory (it is small): NULL and errno set on failure. */
static char *slurp(const char *path, size_t max)
{
	FILE *f = fopen(path, "re");
	char *buf;
	size_t n;

	if (!f)
		return NULL;
	buf = malloc(max + 1);
	n = buf ? fread(buf, 1, max + 1, f) : 0;
	if (buf && (ferror(f) || n > max)) {
		free(buf);
		buf = NULL;
		errno = n > max ? EFBIG : EIO;
	} else if (buf) {
		buf[n] = 0;
	}
	fclose(f);
	return buf;
}

int conf_read_saved(const char *path, struct conf_entries *ret, struct conf_diag *diag)
{
	struct loader l = {.diag = diag, .saved = true, .collect = ret};
	char *text;
	int r;

	ret->v = NULL;
	ret->n = 0;
	text = slurp(path, SAVED_FILE_MAX);
	if (!text) {
		if (errno == ENOENT)
			return 0;
		diag_add(&l, "%s: %s", path, strerror(errno));
		return -EINVAL;
	}
	/* Checked on defaults: every setting on its own, as conf_load applies them. */
	r = conf_new_defaults(&l.conf);
	if (r < 0) {
		free(text);
		return r;
	}
	if (memchr(text, 0, strlen(text) + 1) != text + strlen(text))
		diag_add(&l, "%s: not a text file", path);
	else
		read_string(&l, text, path);
	free(text);
	conf_free(l.conf);
	if (l.errors) {
		conf_entries_clear(ret);
		return -EINVAL;
	}
	return 0;
}

/*
 * The saved-settings file over the configuration: all or nothing. A file with a problem
 * is reported (each problem, then what latencyd does about it) and ignored, so that a
 * damaged file never keeps latencyd from starting with its real configuration.
 */
static int apply_saved(struct loader *l)
{
	const char *path = l->conf->control.save_file;
	struct conf_diag problems = {0};
	struct conf_entries e = {0};
	char origin[PATH_MAX + 16];
	int r;

	if (!path[0])
		return 0;
	r = conf_read_saved(path, &e, &problems);
	if (r < 0) {
		for (size_t i = 0; i < problems.n; i++)
			diag_warn(l->diag, "%s", problems.lines[i]);
		diag_warn(l->diag,
			  "%s: ignored: none of its saved settings apply, latencyd runs with %s "
			  "alone (fix or remove the file, then reload)",
			  path, l->conf->source ?: "the built-in defaults");
		r = problems.n ? set_string(&l->conf->saved_problem, problems.lines[0])
			       : set_string(&l->conf->saved_problem, path);
		conf_diag_clear(&problems);
		return r;
	}
	if (access(path, F_OK) == 0 && (r = set_string(&l->conf->saved_source, path)) < 0)
		goto out;
	for (size_t i = 0; i < e.n; i++) {
		snprintf(origin, sizeof(origin), "%s:%u", path, e.v[i].line);
		r = conf_set_from(l->conf, e.v[i].key, e.v[i].value, origin, l->diag);
		if (r < 0)
			goto out;
	}
	r = 0;
out:
	conf_entries_clear(&e);
	return r;
}

int conf_load(const struct conf_source *src, struct conf **ret, struct conf_diag *diag)
{
	struct loader l = {NULL, diag, 0, false, NULL};
	struct stat st;
	int r;

	r = conf_new_defaults(&l.conf);
	if (r < 0)
		return r;

	if (src->path && stat(src->path, &st) < 0) {
		if (errno != ENOENT || src->must_exist)
			diag_add(&l, "%s: %s", src->path, strerror(errno));
	} else if (src->path) {
		if (!S_ISREG(st.st_mode))
			diag_add(&l, "%s: not a regular file", src->path);
		else
			read_file(&l, src->path);
		if (set_string(&l.conf->source, src->path) < 0)
			l.errors++;
	}
	/* Precedence: defaults, the file, the saved settings, the command line. */
	if (l.errors == 0 && apply_saved(&l) < 0)
		l.errors++;
	if (src->socket &&
	    conf_set_from(l.conf, "control.socket", src->socket, "--socket", diag) < 0)
		l.errors++;
	if (src->debug)
		l.conf->log.level = LOG_DEBUG;

	if (l.errors > 0) {
		conf_free(l.conf);
		return -EINVAL;
	}
	*ret = l.conf;
	return 0;
}

bool conf_needs_root(const struct conf *c)
{
	return c->session.enabled &&
	       (c->module.load || c->session.domain != FLIGHT_DOMAIN_USERSPACE);
}

/* Finds or makes the object for the groups of name ("a.b.c": a, then b), returns the leaf. */
static struct json_object *group_of(struct json_object *root, const char *name, const char **leaf)
{
	struct json_object *o = root, *g;
	const char *dot;
	char part[64];

	while ((dot = strchr(name, '.')) && o) {
		snprintf(part, sizeof(part), "%.*s", (int)(dot - name), name);
		if (!json_object_object_get_ex(o, part, &g)) {
			g = json_object_new_object();
			if (!g || json_object_object_add(o, part, g) < 0) {
				json_object_put(g);
				return NULL;
			}
		}
		o = g;
		name = dot + 1;
	}
	*leaf = name;
	return o;
}

static struct json_object *value_json(const struct conf *c, const struct conf_key *k)
{
	const char *base = (const char *)c + k->offset;
	struct json_object *a;
	char buf[64];

	switch (k->type) {
	case CONF_BOOL:
		return json_object_new_boolean(*(const bool *)base);
	case CONF_UINT:
	case CONF_UINT_OFF:
	case CONF_POW2:
		return json_object_new_int64((int64_t) * (const uint64_t *)base);
	case CONF_RATE:
		return json_object_new_double(*(const double *)base);
	case CONF_DURATION:
	case CONF_DURATION_OFF:
		/* Exact, as the file would need it: "1234567ns" rather than "1.235ms". */
		saved_duration_text(buf, sizeof(buf), *(const uint64_t *)base, true);
		return json_object_new_string(buf);
	case CONF_LOG_LEVEL:
		return json_object_new_string(log_level_to_string(*(const int *)base));
	case CONF_DOMAIN:
		return json_object_new_string(
			*(const int *)base == FLIGHT_DOMAIN_USERSPACE ? "userspace" : "kernel");
	case CONF_EVENTS:
	case CONF_OVERRIDES:
		a = json_object_new_array();
		for (char *const *v = *(char *const *const *)base; a && v && *v; v++)
			json_object_array_add(a, json_object_new_string(*v));
		return a;
	default:
		break;
	}
	return is_string(k->type) ? json_object_new_string(*(char *const *)base ?: "") : NULL;
}

/* The libconfig spelling of a value of this setting, for the saved-settings file. */
int conf_literal(const char *key, const char *value, char **ret)
{
	const struct conf_key *k = find_key(key);
	size_t len = 2;
	char *out, *p;

	if (!k)
		return -ENOENT;
	switch (kind_of(k->type)) {
	case KIND_BOOL:
	case KIND_INT:
	case KIND_NUMBER:
		/* libconfig wants the L suffix from 2^31 up. */
		if (asprintf(ret, "%s%s", value,
			     kind_of(k->type) == KIND_INT && strtoull(value, NULL, 10) > INT32_MAX
				     ? "L"
				     : "") < 0)
			return -ENOMEM;
		return 0;
	case KIND_LIST:
		return -EINVAL;
	case KIND_STRING:
	case KIND_DURATION:
		break;
	}
	for (const char *c = value; *c; c++)
		len += (unsigned char)*c < 0x20 ? 4 : *c == '"' || *c == '\\' ? 2 : 1;
	out = p = malloc(len + 1);
	if (!out)
		return -ENOMEM;
	*p++ = '"';
	for (const char *c = value; *c; c++) {
		if ((unsigned char)*c < 0x20)
			p += sprintf(p, "\\x%02x", (unsigned char)*c);
		else if (*c == '"' || *c == '\\')
			p += sprintf(p, "\\%c", *c);
		else
			*p++ = *c;
	}
	*p++ = '"';
	*p = 0;
	*ret = out;
	return 0;
}

struct json_object *conf_origins_json(const struct conf *c)
{
	struct json_object *o = json_object_new_object();

	for (size_t i = 0; o && i < N_KEYS; i++) {
		if (!c->origins[i])
			continue;
		if (json_object_object_add(o, keys[i].name, json_object_new_string(c->origins[i])) <
		    0) {
			json_object_put(o);
			return NULL;
		}
	}
	return o;
}

struct json_object *conf_to_json(const struct conf *c)
{
	struct json_object *root = json_object_new_object(), *g, *v;
	const char *leaf = NULL;

	for (size_t i = 0; root && i < N_KEYS; i++) {
		g = group_of(root, keys[i].name, &leaf);
		v = value_json(c, &keys[i]);
		if (!g || !v || json_object_object_add(g, leaf, v) < 0) {
			json_object_put(v);
			json_object_put(root);
			return NULL;
		}
	}
	return root;
}
