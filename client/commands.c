/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The command table: name, usage, summary, handler. A handler parses its own arguments
 * (every command takes --help), asks latencyd, and prints through the output vtable.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <time.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <json-c/json.h>

#include "latencyctl.h"

static int cmd_status(struct ctl *ctl, const struct command *cmd, int argc, char **argv);
static int cmd_version(struct ctl *ctl, const struct command *cmd, int argc, char **argv);
static int cmd_help(struct ctl *ctl, const struct command *cmd, int argc, char **argv);
static int cmd_trackers(struct ctl *ctl, const struct command *cmd, int argc, char **argv);
static int cmd_set_duration(struct ctl *ctl, const struct command *cmd, int argc, char **argv);
static int cmd_enable(struct ctl *ctl, const struct command *cmd, int argc, char **argv);
static int cmd_list_snapshots(struct ctl *ctl, const struct command *cmd, int argc, char **argv);
static int cmd_snapshot_id(struct ctl *ctl, const struct command *cmd, int argc, char **argv);
static int cmd_watch(struct ctl *ctl, const struct command *cmd, int argc, char **argv);
static int cmd_config(struct ctl *ctl, const struct command *cmd, int argc, char **argv);
static int cmd_filter(struct ctl *ctl, const struct command *cmd, int argc, char **argv);
static int cmd_reload(struct ctl *ctl, const struct command *cmd, int argc, char **argv);
static int cmd_record(struct ctl *ctl, const struct command *cmd, int argc, char **argv);
int cmd_analyze(struct ctl *ctl, const struct command *cmd, int argc, char **argv);

#define TRACKER_ARG "  TRACKER   syscalls, wakeup, offcpu, block, irq, net or app\n"
#define SAVE_ARG    "  --save    also keep it in the saved-settings file: it outlives a restart\n"
/* Its examples are the command's: each is a value the command takes (test-doc-durations). */
#define DURATION_ARG(examples, range)                                                              \
	"  DURATION  a number and its unit: ns, us, ms, s, min, h (" examples ")\n"                \
	"            " range "\n"

static const struct command commands[] = {
	{"status", "", "show latencyd's state and the kernel module's", cmd_status, "",
	 "latencyctl status"},
	{"version", "", "show the versions of latencyd, its protocol and module ABI", cmd_version,
	 "", "latencyctl version"},
	{"trackers", "", "list the kernel's latency trackers, their settings and counters",
	 cmd_trackers, "", "latencyctl --json trackers"},
	{"set-threshold", "TRACKER DURATION [--save]",
	 "set a tracker's alert threshold (as in 10ms, 500us); --save keeps it", cmd_set_duration,
	 TRACKER_ARG DURATION_ARG("10ms, 1.5ms, 500us", "from 1us to 1h") SAVE_ARG,
	 "latencyctl set-threshold syscalls 50ms --save"},
	{"set-timeout", "TRACKER DURATION [--save]",
	 "set a tracker's timeout (0 = off); --save keeps it", cmd_set_duration,
	 TRACKER_ARG DURATION_ARG("2s, 1.5s, 500ms", "0 (off), or from 1ms to 1h") SAVE_ARG,
	 "latencyctl set-timeout block 2s"},
	{"enable", "TRACKER [--save]", "enable a tracker; --save keeps it enabled", cmd_enable,
	 TRACKER_ARG SAVE_ARG, "latencyctl enable wakeup --save"},
	{"disable", "TRACKER [--save]", "disable a tracker; --save keeps it disabled", cmd_enable,
	 TRACKER_ARG SAVE_ARG, "latencyctl disable wakeup"},
	{"filter",
	 "TRACKER [--pid PID] [--tid TID] [--comm NAME] [--cgroup PATH|ID] [--clear] [--save]",
	 "set which tasks a tracker follows; --save keeps comm and cgroup", cmd_filter,
	 TRACKER_ARG "  --comm    a task name (15 bytes at most)\n"
		     "  --cgroup  a cgroup v2 path under /sys/fs/cgroup, or its id\n"
		     "  --clear   follow every task again\n" SAVE_ARG,
	 "latencyctl filter syscalls --cgroup /system.slice/postgresql.service"},
	{"list-snapshots", "[--since WHEN] [--tracker NAME] [--incident ID] [--limit N]",
	 "list the snapshots, newest first (WHEN: 2h, 1d ago, or a date)", cmd_list_snapshots,
	 "  --since   a duration ago (2h, 30min, 1d ago) or a local date (2026-11-25 14:00)\n"
	 "  --limit   the newest N only\n",
	 "latencyctl list-snapshots --since 2h --tracker syscalls"},
	{"show-snapshot", "ID", "show a snapshot: where it is, how it was taken, its causes",
	 cmd_snapshot_id, "  ID        a snapshot's id, from list-snapshots\n",
	 "latencyctl show-snapshot 42"},
	{"delete-snapshot", "ID", "delete a snapshot and its files", cmd_snapshot_id,
	 "  ID        a snapshot's id, from list-snapshots\n", "latencyctl delete-snapshot 42"},
	{"analyze",
	 "[--begin NS] [--end NS] [--limit N] [--no-tables] [--lami [--output-progress]] "
	 "[--test-compatibility] ID|PATH | --incident ID DIR [--local-only] | --mi-version | "
	 "--metadata",
	 "explain a snapshot's alerts and give its statistics (run here, not in latencyd)",
	 cmd_analyze, "", /* its own --help: cmd_analyze.c */
	 "latencyctl analyze 42"},
	{"incidents", "[--limit N]",
	 "list the fleet's incidents: origin, hosts that recorded or were refused",
	 cmd_list_snapshots, "  --limit   the newest N only (a reply holds as many as fit)\n",
	 "latencyctl incidents --limit 10"},
	{"record", "[--reason TEXT]",
	 "take a snapshot now, through the rate limit, and wait for it", cmd_record,
	 "  --reason  why, kept with the snapshot\n",
	 "latencyctl record --reason \"checkout p99 spike\""},
	{"watch", "", "print alerts and snapshots as they happen, until interrupted", cmd_watch, "",
	 "latencyctl --json watch"},
	{"config", "", "show the configuration latencyd runs with", cmd_config, "",
	 "latencyctl config"},
	{"reload", "", "reload latencyd's configuration file (as SIGHUP does)", cmd_reload, "",
	 "latencyctl reload"},
	{"help", "[COMMAND]", "show this help, or a command's", cmd_help, "",
	 "latencyctl help set-threshold"},
};

const struct command *command_find(const char *name)
{
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (strcmp(commands[i].name, name) == 0)
			return &commands[i];
	return NULL;
}

size_t commands_names(const char **names, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]) && n < max; i++)
		names[n++] = commands[i].name;
	return n;
}

/* The global options; main.c parses those before the command, ctl_getopt() those after it. */
const struct option ctl_global_options[] = {
	{"socket", required_argument, NULL, 's'},  {"json", no_argument, NULL, 'j'},
	{"timeout", required_argument, NULL, 't'}, {"version", no_argument, NULL, 'V'},
	{"help", no_argument, NULL, 'h'},	   {NULL, 0, NULL, 0},
};

static int parse_timeout(const char *s, uint64_t *ret)
{
	char *end;
	double v;

	v = strtod(s, &end);
	if (end == s || *end || !isfinite(v) || v <= 0 || v > 86400)
		return -1;
	*ret = (uint64_t)(v * 1e6);
	return 0;
}

int ctl_global(struct ctl *ctl, int c, const char *arg)
{
	switch (c) {
	case 's':
		ctl->socket = arg;
		return EXIT_OK;
	case 'j':
		ctl->out = &output_json;
		return EXIT_OK;
	case 't':
		if (parse_timeout(arg, &ctl->timeout_usec) < 0) {
			fprintf(stderr, "latencyctl: --timeout wants seconds > 0, not '%s'\n", arg);
			return EXIT_USAGE;
		}
		return EXIT_OK;
	case 'V':
		printf("latencyctl %s (protocol %d.%d)\n", LATENCYD_VERSION, PROTO_VERSION,
		       PROTO_REVISION);
		return EXIT_VERSION_SHOWN;
	}
	return EXIT_USAGE;
}

int ctl_getopt(struct ctl *ctl, int argc, char **argv, const struct option *longopts)
{
	/* The command's options first: getopt_long's index tells them from the global ones. */
	struct option all[32];
	const size_t max = sizeof(all) / sizeof(all[0]) - 1;
	char prog[128], *name = argv[0];
	size_t n = 0, own;
	int c, index;

	while (longopts[n].name && n < max) {
		all[n] = longopts[n];
		n++;
	}
	own = n;
	for (size_t i = 0; ctl_global_options[i].name && n < max; i++)
		if (ctl_global_options[i].val != 'h')
			all[n++] = ctl_global_options[i];
	all[n] = (struct option){NULL, 0, NULL, 0};

	/* getopt's messages name the command: "latencyctl: status: unrecognized option ...". */
	snprintf(prog, sizeof(prog), "latencyctl: %s", name);
	for (;;) {
		index = -1;
		argv[0] = prog;
		/* No "+": options and arguments mix in any order, up to "--". */
		c = getopt_long(argc, argv, "h" CTL_GLOBAL_SHORTOPTS, all, &index);
		argv[0] = name;
		if (c == -1 || c == '?')
			return c;
		/* The command's own options, and -h: after a command, its help. */
		if (index >= 0 ? (size_t)index < own : c == 'h')
			return c;
		switch (ctl_global(ctl, c, optarg)) {
		case EXIT_OK:
			break;
		case EXIT_VERSION_SHOWN:
			exit(EXIT_OK);
		default:
			return '?';
		}
	}
}

#define USAGE_COLUMN 32

void ctl_usage(FILE *f)
{
	int width = 0;
	char head[256];

	fprintf(f,
		"Usage: latencyctl [OPTIONS] COMMAND [ARGS]\n"
		"       latencyctl COMMAND --help\n"
		"\n"
		"Asks latencyd over its control socket.\n"
		"\n"
		"Options, before or after the command, among its own options and arguments\n"
		"(after the command, -h is its help; -- ends the options):\n"
		"  -s, --socket PATH      control socket (default %s)\n"
		"  -j, --json             print results as JSON\n"
		"  -t, --timeout SECONDS  give up after SECONDS (default %llu)\n"
		"  -h, --help             show this help\n"
		"  -V, --version          show latencyctl's version\n"
		"\n",
		PROTO_SOCKET_PATH_DEFAULT, CTL_TIMEOUT_USEC_DEFAULT / 1000000ULL);

	/* Long usages get their summary on the next line, so that short ones stay aligned. */
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		int n = snprintf(head, sizeof(head), "%s %s", commands[i].name, commands[i].args);

		if (n > width && n <= USAGE_COLUMN)
			width = n;
	}
	fprintf(f, "Commands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		int n = snprintf(head, sizeof(head), "%s %s", commands[i].name, commands[i].args);

		if (n > width)
			fprintf(f, "  %s\n  %-*s  %s\n", head, width, "", commands[i].summary);
		else
			fprintf(f, "  %-*s  %s\n", width, head, commands[i].summary);
	}
	fprintf(f, "\nExit status: 0 ok, 1 latencyd answered with an error, 2 usage error,\n"
		   "3 cannot connect to or talk with latencyd.\n");
}

static void command_usage(const struct command *cmd, FILE *f)
{
	fprintf(f, "Usage: latencyctl [OPTIONS] %s%s%s\n\n%s.\n", cmd->name,
		cmd->args[0] ? " " : "", cmd->args, cmd->summary);
	if (cmd->detail[0])
		fprintf(f, "\n%s", cmd->detail);
	fprintf(f, "\nExample: %s\n", cmd->example);
}

#define HELP_SHOWN (-1)

__attribute__((format(printf, 2, 3))) static int usage_error(const struct command *cmd,
							     const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "latencyctl: %s: ", cmd->name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry 'latencyctl %s --help'.\n", cmd->name);
	return EXIT_USAGE;
}

/*
 * For commands with N positional arguments and no options but --help (and --save where
 * save is given), the global options anywhere among them: checks them and returns EXIT_OK
 * (argv[optind..] are the arguments), HELP_SHOWN or EXIT_USAGE.
 */
static int positional_save(struct ctl *ctl, const struct command *cmd, int argc, char **argv, int n,
			   bool *save)
{
	/* From the second row: --save only for the commands that take it. */
	static const struct option options[] = {
		{"save", no_argument, NULL, 'S'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	int c;

	optind = 0;
	while ((c = ctl_getopt(ctl, argc, argv, save ? options : options + 1)) != -1) {
		if (c == 'h') {
			command_usage(cmd, stdout);
			return HELP_SHOWN;
		}
		if (c == 'S' && save) {
			*save = true;
			continue;
		}
		fprintf(stderr, "Try 'latencyctl %s --help'.\n", cmd->name);
		return EXIT_USAGE;
	}
	if (argc - optind > n)
		return usage_error(cmd, "unexpected argument '%s'", argv[optind + n]);
	if (argc - optind != n)
		return usage_error(cmd, "wants %s", cmd->args);
	return EXIT_OK;
}

static int positional(struct ctl *ctl, const struct command *cmd, int argc, char **argv, int n)
{
	return positional_save(ctl, cmd, argc, argv, n, NULL);
}

/* For commands without arguments of their own: --help and nothing else. */
static int no_arguments(struct ctl *ctl, const struct command *cmd, int argc, char **argv)
{
	return positional(ctl, cmd, argc, argv, 0);
}

/* Asks latencyd (args taken, NULL for none) and prints the result. */
static int call_print(const struct ctl *ctl, const struct command *cmd, struct json_object *args,
		      int (*print)(struct json_object *result))
{
	struct json_object *result = NULL;
	int r;

	r = ctl_call(ctl, cmd->name, args, &result);
	if (r == EXIT_OK)
		r = print(result);
	json_object_put(result);
	return r;
}

static int cmd_status(struct ctl *ctl, const struct command *cmd, int argc, char **argv)
{
	int r = no_arguments(ctl, cmd, argc, argv);

	if (r != EXIT_OK)
		return r == HELP_SHOWN ? EXIT_OK : r;
	/* ctl->out only now: a --json may come after the command. */
	return call_print(ctl, cmd, NULL, ctl->out->status);
}

static int cmd_version(struct ctl *ctl, const struct command *cmd, int argc, char **argv)
{
	int r = no_arguments(ctl, cmd, argc, argv);

	if (r != EXIT_OK)
		return r == HELP_SHOWN ? EXIT_OK : r;
	return call_print(ctl, cmd, NULL, ctl->out->version);
}

static int cmd_help(struct ctl *ctl, const struct command *cmd, int argc, char **argv)
{
	static const struct option options[] = {
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const struct command *which;
	int c;

	optind = 0;
	while ((c = ctl_getopt(ctl, argc, argv, options)) != -1) {
		if (c == 'h') {
			command_usage(cmd, stdout);
			return EXIT_OK;
		}
		fprintf(stderr, "Try 'latencyctl %s --help'.\n", cmd->name);
		return EXIT_USAGE;
	}
	if (argc - optind > 1)
		return usage_error(cmd, "unexpected argument '%s'", argv[optind + 1]);
	if (optind >= argc) {
		ctl_usage(stdout);
		return EXIT_OK;
	}
	which = command_find(argv[optind]);
	if (!which)
		return unknown_command(argv[optind]);
	command_usage(which, stdout);
	return EXIT_OK;
}

static int cmd_trackers(struct ctl *ctl, const struct command *cmd, int argc, char **argv)
{
	int r = no_arguments(ctl, cmd, argc, argv);

	if (r != EXIT_OK)
		return r == HELP_SHOWN ? EXIT_OK : r;
	return call_print(ctl, cmd, NULL, ctl->out->trackers);
}

/* Sends {tracker, FILE: value, save} (value < 0: no value) and prints the result. */
static int tracker_call(const struct ctl *ctl, const struct command *cmd, const char *tracker,
			const char *file, int64_t value, bool save)
{
	struct json_object *args, *result = NULL;
	int r = check_tracker(tracker);

	if (r != EXIT_OK)
		return r;
	args = json_object_new_object();
	if (!args ||
	    json_object_object_add(args, PROTO_KEY_TRACKER, json_object_new_string(tracker)) < 0 ||
	    (value >= 0 && json_object_object_add(args, file, json_object_new_int64(value)) < 0) ||
	    (save &&
	     json_object_object_add(args, PROTO_KEY_SAVE, json_object_new_boolean(1)) < 0)) {
		json_object_put(args);
		fprintf(stderr, "latencyctl: out of memory\n");
		return EXIT_CONNECT;
	}
	r = ctl_call(ctl, cmd->name, args, &result); /* takes args */
	if (r == EXIT_OK)
		r = ctl->out->tracker_set(result, file);
	json_object_put(result);
	return r;
}

/*
 * The kernel's range, said before anything is sent and in the unit typed ("'7200000ms' is
 * not between 0.001ms and 3600000ms"): latencyd would only have the nanoseconds to say it.
 */
static int check_range(const struct command *cmd, const char *typed, uint64_t ns)
{
	bool timeout = strcmp(cmd->name, "set-timeout") == 0;
	uint64_t min = timeout ? PROTO_TIMEOUT_MIN_NS : PROTO_THRESHOLD_MIN_NS;
	uint64_t max = timeout ? PROTO_TIMEOUT_MAX_NS : PROTO_THRESHOLD_MAX_NS;
	char lo[32], hi[32];

	if ((ns >= min && ns <= max) || (timeout && ns == 0))
		return EXIT_OK;
	proto_duration_format_unit(lo, sizeof(lo), min, typed);
	proto_duration_format_unit(hi, sizeof(hi), max, typed);
	fprintf(stderr, "latencyctl: %s: '%s' is not %sbetween %s and %s\n", cmd->name, typed,
		timeout ? "0 (off) nor " : "", lo, hi);
	return EXIT_USAGE;
}

static int cmd_set_duration(struct ctl *ctl, const struct command *cmd, int argc, char **argv)
{
	const char *file = strcmp(cmd->name, "set-threshold") == 0 ? PROTO_KEY_THRESHOLD_NS
								   : PROTO_KEY_TIMEOUT_NS;
	const char *why = NULL;
	bool save = false;
	uint64_t ns = 0;
	int r;

	r = positional_save(ctl, cmd, argc, argv, 2, &save);
	if (r != EXIT_OK)
		return r == HELP_SHOWN ? EXIT_OK : r;
	if (proto_duration_parse(argv[optind + 1], &ns, &why) < 0 || ns > INT64_MAX) {
		fprintf(stderr, "latencyctl: %s: invalid duration '%s': %s\n", cmd->name,
			argv[optind + 1], ns > INT64_MAX ? "duration too large" : why);
		return EXIT_USAGE;
	}
	if (check_range(cmd, argv[optind + 1], ns) != EXIT_OK)
		return EXIT_USAGE;
	return tracker_call(ctl, cmd, argv[optind], file, (int64_t)ns, save);
}

static int cmd_enable(struct ctl *ctl, const struct command *cmd, int argc, char **argv)
{
	bool save = false;
	int r = positional_save(ctl, cmd, argc, argv, 1, &save);

	if (r != EXIT_OK)
		return r == HELP_SHOWN ? EXIT_OK : r;
	return tracker_call(ctl, cmd, argv[optind], PROTO_KEY_ENABLED, -1, save);
}

/* A decimal number that fits in an int64; nothing else. */
static int parse_count(const char *s, uint64_t *ret)
{
	char *end;

	errno = 0;
	*ret = strtoull(s, &end, 10);
	return s[0] >= '0' && s[0] <= '9' && !*end && !errno && *ret <= INT64_MAX ? 0 : -EINVAL;
}

/*
 * A duration ago, in the one grammar (proto_duration_parse(): "2h", "30min", "1.5d"), with
 * or without " ago", or a local date "YYYY-MM-DD[ HH:MM[:SS]]": seconds since the epoch.
 */
static int parse_since(const char *s, uint64_t *ret)
{
	static const char *const formats[] = {"%Y-%m-%d %H:%M:%S", "%Y-%m-%dT%H:%M:%S",
					      "%Y-%m-%d %H:%M", "%Y-%m-%d"};
	char ago[64];
	size_t len = strlen(s);
	struct tm tm;
	uint64_t ns;
	char *end;
	time_t t;

	snprintf(ago, sizeof(ago), "%s", s);
	if (len > 4 && len < sizeof(ago) && strcmp(ago + len - 4, " ago") == 0)
		ago[len - 4] = 0;
	if (proto_duration_parse(ago, &ns, NULL) == 0) {
		t = time(NULL);
		if (ns / 1000000000 > (uint64_t)t)
			return -ERANGE;
		*ret = (uint64_t)t - ns / 1000000000;
		return 0;
	}
	for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++) {
		memset(&tm, 0, sizeof(tm));
		end = strptime(s, formats[i], &tm);
		if (end && !*end) {
			tm.tm_isdst = -1;
			t = mktime(&tm);
			if (t < 0)
				return -ERANGE;
			*ret = (uint64_t)t;
			return 0;
		}
	}
	return -EINVAL;
}

/* args: built by the caller, NULL when that ran out of memory. */
static int ask_with(const struct ctl *ctl, const struct command *cmd, struct json_object *args,
		    int (*print)(struct json_object *result))
{
	if (!args) {
		fprintf(stderr, "latencyctl: out of memory\n");
		return EXIT_CONNECT;
	}
	return call_print(ctl, cmd, args, print);
}

/* list-snapshots, and incidents (which takes --limit alone). */
static int cmd_list_snapshots(struct ctl *ctl, const struct command *cmd, int argc, char **argv)
{
	static const struct option options[] = {
		{"limit", required_argument, NULL, 'n'},
		{"help", no_argument, NULL, 'h'},
		{"since", required_argument, NULL, 'S'},
		{"tracker", required_argument, NULL, 'T'},
		{"incident", required_argument, NULL, 'I'},
		{NULL, 0, NULL, 0},
	};
	static const struct option incidents_options[] = {
		{"limit", required_argument, NULL, 'n'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	bool incidents = strcmp(cmd->name, "incidents") == 0;
	struct json_object *args = json_object_new_object();
	uint64_t v;
	int c;

	optind = 0;
	while ((c = ctl_getopt(ctl, argc, argv, incidents ? incidents_options : options)) != -1) {
		switch (c) {
		case 'S':
			if (parse_since(optarg, &v) < 0) {
				json_object_put(args);
				return usage_error(cmd,
						   "invalid --since '%s': use 2h, 30min, 1d (ago) "
						   "or YYYY-MM-DD[ HH:MM[:SS]]",
						   optarg);
			}
			json_object_object_add(args, PROTO_KEY_SINCE,
					       json_object_new_int64((int64_t)v));
			break;
		case 'T':
			json_object_object_add(args, PROTO_KEY_TRACKER,
					       json_object_new_string(optarg));
			break;
		case 'I':
			json_object_object_add(args, PROTO_KEY_INCIDENT,
					       json_object_new_string(optarg));
			break;
		case 'n':
			if (parse_count(optarg, &v) < 0 || v == 0) {
				json_object_put(args);
				return usage_error(cmd, "invalid --limit '%s': a positive number",
						   optarg);
			}
			json_object_object_add(args, PROTO_KEY_LIMIT,
					       json_object_new_int64((int64_t)v));
			break;
		case 'h':
			json_object_put(args);
			command_usage(cmd, stdout);
			return EXIT_OK;
		default:
			json_object_put(args);
			fprintf(stderr, "Try 'latencyctl %s --help'.\n", cmd->name);
			return EXIT_USAGE;
		}
	}
	if (optind < argc) {
		json_object_put(args);
		return usage_error(cmd, "unexpected argument '%s'", argv[optind]);
	}
	return ask_with(ctl, cmd, args, incidents ? ctl->out->incidents : ctl->out->snapshots);
}

/* show-snapshot ID, delete-snapshot ID */
static int cmd_snapshot_id(struct ctl *ctl, const struct command *cmd, int argc, char **argv)
{
	struct json_object *args;
	uint64_t id;
	int r;

	r = positional(ctl, cmd, argc, argv, 1);
	if (r != EXIT_OK)
		return r == HELP_SHOWN ? EXIT_OK : r;
	if (parse_count(argv[optind], &id) < 0)
		return usage_error(cmd,
				   "invalid snapshot id '%s': a number, as list-snapshots shows",
				   argv[optind]);
	args = json_object_new_object();
	if (args)
		json_object_object_add(args, PROTO_KEY_ID, json_object_new_int64((int64_t)id));
	return ask_with(ctl, cmd, args,
			strcmp(cmd->name, PROTO_CMD_SHOW_SNAPSHOT) == 0
				? ctl->out->snapshot
				: ctl->out->snapshot_deleted);
}

static int watch_ready(struct json_object *result, void *arg)
{
	const struct ctl *ctl = arg;
	struct json_object *v;

	if (ctl->out == &output_text &&
	    json_object_object_get_ex(result, PROTO_KEY_RECORDING, &v) &&
	    !json_object_get_boolean(v))
		fprintf(stderr, "latencyctl: watch: latencyd's flight recorder is off: no events "
				"will come\n");
	return EXIT_OK;
}

static int watch_event(const char *name, struct json_object *data, void *arg)
{
	const struct ctl *ctl = arg;
	int r = ctl->out->event(name, data);

	return r == EXIT_OK ? EXIT_CONTINUE : r;
}

static int cmd_watch(struct ctl *ctl, const struct command *cmd, int argc, char **argv)
{
	const struct ctl_events ev = {
		.ready = watch_ready, .on_event = watch_event, .arg = (void *)ctl};
	struct json_object *result = NULL;
	int r;

	r = no_arguments(ctl, cmd, argc, argv);
	if (r != EXIT_OK)
		return r == HELP_SHOWN ? EXIT_OK : r;
	r = ctl_call_events(ctl, cmd->name, NULL, &result, &ev);
	json_object_put(result);
	return r;
}

struct record_wait {
	const struct ctl *ctl;
	int64_t request;
};

static int record_ready(struct json_object *result, void *arg)
{
	struct record_wait *w = arg;
	struct json_object *v;

	if (!json_object_object_get_ex(result, PROTO_KEY_REQUEST, &v)) {
		fprintf(stderr, "latencyctl: record: malformed reply from latencyd\n");
		return EXIT_CONNECT;
	}
	w->request = json_object_get_int64(v);
	return EXIT_OK;
}

/* Is alert the manual one of this request? */
static bool ours(struct json_object *alert, int64_t request)
{
	struct json_object *t, *q;

	return json_object_object_get_ex(alert, PROTO_KEY_TRACKER, &t) &&
	       strcmp(json_object_get_string(t), "manual") == 0 &&
	       json_object_object_get_ex(alert, PROTO_KEY_REQUEST, &q) &&
	       json_object_get_int64(q) == request;
}

static int record_event(const char *name, struct json_object *data, void *arg)
{
	struct record_wait *w = arg;
	struct json_object *v;

	if (strcmp(name, PROTO_EVENT_SUPPRESSED) == 0 &&
	    json_object_object_get_ex(data, PROTO_KEY_ALERT, &v) && ours(v, w->request))
		return w->ctl->out->recorded(name, data);
	if (strcmp(name, PROTO_EVENT_SNAPSHOT) == 0 &&
	    json_object_object_get_ex(data, PROTO_KEY_CAUSES, &v)) {
		for (size_t i = 0; i < json_object_array_length(v); i++)
			if (ours(json_object_array_get_idx(v, i), w->request))
				return w->ctl->out->recorded(name, data);
	}
	return EXIT_CONTINUE;
}

static int cmd_record(struct ctl *ctl, const struct command *cmd, int argc, char **argv)
{
	static const struct option options[] = {
		{"reason", required_argument, NULL, 'r'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct record_wait w = {.ctl = ctl};
	struct ctl_events ev = {.ready = record_ready, .on_event = record_event, .arg = &w};
	struct json_object *args, *result = NULL;
	const char *reason = NULL;
	int c, r;

	optind = 0;
	while ((c = ctl_getopt(ctl, argc, argv, options)) != -1) {
		if (c == 'r') {
			reason = optarg;
		} else if (c == 'h') {
			command_usage(cmd, stdout);
			return EXIT_OK;
		} else {
			fprintf(stderr, "Try 'latencyctl %s --help'.\n", cmd->name);
			return EXIT_USAGE;
		}
	}
	if (optind < argc)
		return usage_error(cmd, "unexpected argument '%s'", argv[optind]);
	ev.timeout_usec = ctl->timeout_usec; /* --timeout may come after the command */
	args = json_object_new_object();
	if (args && reason)
		json_object_object_add(args, PROTO_KEY_MESSAGE, json_object_new_string(reason));
	if (!args) {
		fprintf(stderr, "latencyctl: out of memory\n");
		return EXIT_CONNECT;
	}
	r = ctl_call_events(ctl, cmd->name, args, &result, &ev);
	json_object_put(result);
	return r;
}

static int cmd_config(struct ctl *ctl, const struct command *cmd, int argc, char **argv)
{
	int r = no_arguments(ctl, cmd, argc, argv);

	if (r != EXIT_OK)
		return r == HELP_SHOWN ? EXIT_OK : r;
	return call_print(ctl, cmd, NULL, ctl->out->config);
}

static int cmd_reload(struct ctl *ctl, const struct command *cmd, int argc, char **argv)
{
	int r = no_arguments(ctl, cmd, argc, argv);

	if (r != EXIT_OK)
		return r == HELP_SHOWN ? EXIT_OK : r;
	return call_print(ctl, cmd, NULL, ctl->out->reloaded);
}

static int cmd_filter(struct ctl *ctl, const struct command *cmd, int argc, char **argv)
{
	static const struct option options[] = {
		{"pid", required_argument, NULL, 'p'},	{"tid", required_argument, NULL, 't'},
		{"comm", required_argument, NULL, 'c'}, {"cgroup", required_argument, NULL, 'g'},
		{"clear", no_argument, NULL, 'C'},	{"save", no_argument, NULL, 'S'},
		{"help", no_argument, NULL, 'h'},	{NULL, 0, NULL, 0},
	};
	struct json_object *args = json_object_new_object();
	uint64_t v;
	int c;

	if (!args)
		return ask_with(ctl, cmd, NULL, NULL);
	optind = 0;
	while ((c = ctl_getopt(ctl, argc, argv, options)) != -1) {
		switch (c) {
		case 'p':
		case 't':
			if (parse_count(optarg, &v) < 0) {
				json_object_put(args);
				return usage_error(cmd, "invalid --%s '%s': a number (0: any)",
						   c == 'p' ? "pid" : "tid", optarg);
			}
			json_object_object_add(args, c == 'p' ? PROTO_KEY_PID : PROTO_KEY_TID,
					       json_object_new_int64((int64_t)v));
			break;
		case 'c':
			json_object_object_add(args, PROTO_KEY_COMM,
					       json_object_new_string(optarg));
			break;
		case 'g':
			json_object_object_add(args, PROTO_KEY_CGROUP,
					       json_object_new_string(optarg));
			break;
		case 'C':
			json_object_object_add(args, PROTO_KEY_CLEAR, json_object_new_boolean(1));
			break;
		case 'S':
			json_object_object_add(args, PROTO_KEY_SAVE, json_object_new_boolean(1));
			break;
		case 'h':
			json_object_put(args);
			command_usage(cmd, stdout);
			return EXIT_OK;
		default:
			json_object_put(args);
			fprintf(stderr, "Try 'latencyctl %s --help'.\n", cmd->name);
			return EXIT_USAGE;
		}
	}
	if (argc - optind != 1 || check_tracker(argv[optind]) != EXIT_OK) {
		json_object_put(args);
		return argc - optind != 1 ? usage_error(cmd, "wants %s", cmd->args) : EXIT_USAGE;
	}
	json_object_object_add(args, PROTO_KEY_TRACKER, json_object_new_string(argv[optind]));
	return ask_with(ctl, cmd, args, ctl->out->filter);
}
