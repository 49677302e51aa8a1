/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The command table: name, usage, summary, handler, the help of its arguments, an example.
 * A handler (commands.h) parses its own arguments (every command takes --help), asks
 * latencyd, and prints through the output vtable. A new command is a new row here and a
 * cmd_<name>.c; its name is the wire's PROTO_CMD_* unless latencyd has no such command.
 */
#include <stdio.h>
#include <string.h>

#include "commands.h"

/* Its first line is the bash completion's list when latencyd does not answer. */
#define TRACKER_ARG                                                                                \
	"  TRACKER   syscalls, wakeup, offcpu, block, irq, net, app, fs or iosched\n"              \
	"            (or another the kernel has: latencyctl trackers lists them)\n"
#define SAVE_ARG "  --save    also keep it in the saved-settings file: it outlives a restart\n"
/* Its examples are the command's: each is a value the command takes (test-doc-durations). */
#define DURATION_ARG(examples, range)                                                              \
	"  DURATION  a number and its unit: ns, us, ms, s, min, h (" examples ")\n"                \
	"            " range "\n"

#define HIST_ARGS                                                                                  \
	TRACKER_ARG                                                                                \
	"  io        the levels of an I/O side by side: syscalls, fs, iosched, block\n"            \
	"  --per     split the histogram per cpu, disk (block, iosched) or syscall\n"              \
	"            (syscalls); a change resets the split and needs admin access\n"               \
	"  --disk    block and iosched on that disk alone (as /sys/block names it), from\n"        \
	"            their split per disk: never changes it (--per disk does)\n"                   \
	"  --reset   zero the histograms after reading them (admin access)\n"                      \
	"  --interval  print every DURATION what changed since the previous read, COUNT\n"         \
	"            times (default: until interrupted)\n"
#define HIST_DURATION                                                                              \
	DURATION_ARG("1s, 500ms, 2s", "more than 0; a bare number is seconds (2 = 2s)")
#define HIST_NOTE                                                                                  \
	"Percentiles are bucket upper bounds: p99 <= 16.777216ms means that 99% of\n"              \
	"the delays were below 16.777216ms, not that one took 16.777216ms.\n"

static const struct command commands[] = {
	{PROTO_CMD_STATUS, "", "show latencyd's state and the kernel module's", cmd_status, "",
	 "latencyctl status"},
	{PROTO_CMD_VERSION, "", "show the versions of latencyd, its protocol and module ABI",
	 cmd_version, "", "latencyctl version"},
	{PROTO_CMD_TRACKERS, "", "list the kernel's latency trackers, their settings and counters",
	 cmd_trackers, "", "latencyctl --json trackers"},
	{PROTO_CMD_SET_THRESHOLD, "TRACKER DURATION [--save]",
	 "set a tracker's alert threshold (as in 10ms, 500us); --save keeps it", cmd_set_threshold,
	 TRACKER_ARG DURATION_ARG("10ms, 1.5ms, 500us", "from 1us to 1h") SAVE_ARG,
	 "latencyctl set-threshold syscalls 50ms --save"},
	{PROTO_CMD_SET_TIMEOUT, "TRACKER DURATION [--save]",
	 "set a tracker's timeout (0 = off); --save keeps it", cmd_set_timeout,
	 TRACKER_ARG DURATION_ARG("2s, 1.5s, 500ms", "0 (off), or from 1ms to 1h") SAVE_ARG,
	 "latencyctl set-timeout block 2s"},
	{PROTO_CMD_ENABLE, "TRACKER [--save]", "enable a tracker; --save keeps it enabled",
	 cmd_enable, TRACKER_ARG SAVE_ARG, "latencyctl enable wakeup --save"},
	{PROTO_CMD_DISABLE, "TRACKER [--save]", "disable a tracker; --save keeps it disabled",
	 cmd_enable, TRACKER_ARG SAVE_ARG, "latencyctl disable wakeup"},
	{PROTO_CMD_FILTER,
	 "TRACKER [--pid PID] [--tid TID] [--comm NAME] [--cgroup PATH|ID] [--clear] [--save]",
	 "set which tasks a tracker follows; --save keeps comm and cgroup", cmd_filter,
	 TRACKER_ARG "  --comm    a task name (15 bytes at most)\n"
		     "  --cgroup  a cgroup v2 path under /sys/fs/cgroup, or its id\n"
		     "  --clear   follow every task again\n" SAVE_ARG,
	 "latencyctl filter syscalls --cgroup /system.slice/postgresql.service"},
	{PROTO_CMD_LIST_SNAPSHOTS, "[--since WHEN] [--tracker NAME] [--incident ID] [--limit N]",
	 "list the snapshots, newest first (WHEN: 2h, 1d ago, or a date)", cmd_list_snapshots,
	 "  --since   a duration ago (2h, 30min, 1d ago) or a local date (2026-11-25 14:00)\n"
	 "  --limit   the newest N only\n",
	 "latencyctl list-snapshots --since 2h --tracker syscalls"},
	{PROTO_CMD_SHOW_SNAPSHOT, "ID",
	 "show a snapshot: where it is, how it was taken, its causes", cmd_show_snapshot,
	 "  ID        a snapshot's id, from list-snapshots\n", "latencyctl show-snapshot 42"},
	{PROTO_CMD_DELETE_SNAPSHOT, "[--keep-files] ID", "delete a snapshot and its files",
	 cmd_delete_snapshot,
	 "  ID            a snapshot's id, from list-snapshots\n"
	 "  --keep-files  delete the catalog entry alone, the files left where they are\n",
	 "latencyctl delete-snapshot 42"},
	{CTL_CMD_ANALYZE,
	 "[--begin NS] [--end NS] [--limit N] [--no-tables] [--freq] [--freq-resolution N] "
	 "[--io-usage] [--threads N] [--max-metadata SIZE] [--max-event-classes N] "
	 "[--lami [--output-progress]] [--test-compatibility] ID|PATH | --incident ID DIR "
	 "[--local-only] | --mi-version | --metadata",
	 "explain a snapshot's alerts and give its statistics (run here, not in latencyd)",
	 cmd_analyze, "", /* its own --help: cmd_analyze.c */
	 "latencyctl analyze 42"},
	{PROTO_CMD_INCIDENTS, "[--limit N]",
	 "list the fleet's incidents: origin, hosts that recorded or were refused", cmd_incidents,
	 "  --limit   the newest N only (a reply holds as many as fit)\n",
	 "latencyctl incidents --limit 10"},
	{PROTO_CMD_RECORD, "[--reason TEXT]",
	 "take a snapshot now, through the rate limit, and wait for it", cmd_record,
	 "  --reason  why, kept with the snapshot (256 bytes at most)\n",
	 "latencyctl record --reason \"checkout p99 spike\""},
	{PROTO_CMD_WATCH, "", "print alerts and snapshots as they happen, until interrupted",
	 cmd_watch, "", "latencyctl --json watch"},
	{PROTO_CMD_METRICS, "",
	 "print latencyd's counters as Prometheus metrics (what metrics.textfile holds)",
	 cmd_metrics, "", "latencyctl metrics | promtool check metrics"},
	{PROTO_CMD_CONFIG, "", "show the configuration latencyd runs with", cmd_config, "",
	 "latencyctl config"},
	{PROTO_CMD_RELOAD, "", "reload latencyd's configuration file (as SIGHUP does)", cmd_reload,
	 "", "latencyctl reload"},
	{PROTO_CMD_HIST,
	 "TRACKER|io [--per cpu|disk|syscall] [--disk NAME] [--interval DURATION [COUNT]] "
	 "[--reset]",
	 "show a tracker's histogram of delays and its percentiles, or io's four levels", cmd_hist,
	 HIST_ARGS HIST_DURATION HIST_NOTE, "latencyctl hist io --disk vda --interval 1s 10"},
	{CTL_CMD_HELP, "[COMMAND]", "show this help, or a command's", cmd_help, "",
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

#define USAGE_COLUMN 32

void ctl_usage(FILE *f)
{
	int width = 0;
	char head[512];

	fprintf(f,
		"Usage: latencyctl [OPTIONS] COMMAND [ARGS]\n"
		"       latencyctl COMMAND --help\n"
		"\n"
		"Asks latencyd over its control socket.\n"
		"\n"
		"Options, before or after the command, among its own options and arguments\n"
		"(after the command, -h is its help; -- ends the options):\n"
		"  -s, --socket PATH        control socket (default %s)\n"
		"  -j, --json               print results as JSON\n"
		"  -t, --timeout DURATION   wait that long for latencyd's answer, and record for\n"
		"                           its snapshot too (default %llus; 1ms to 1d; 2 = 2s)\n"
		"  -h, --help               show this help\n"
		"  -V, --version            show latencyctl's version\n"
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
		   "3 cannot connect to or talk with latencyd, 4 the output could not be written,\n"
		   "5 record accepted but its snapshot not seen within --timeout.\n");
}

void command_usage(const struct command *cmd, FILE *f)
{
	fprintf(f, "Usage: latencyctl [OPTIONS] %s%s%s\n\n%s.\n", cmd->name,
		cmd->args[0] ? " " : "", cmd->args, cmd->summary);
	if (cmd->detail[0])
		fprintf(f, "\n%s", cmd->detail);
	fprintf(f, "\nExample: %s\n", cmd->example);
}
