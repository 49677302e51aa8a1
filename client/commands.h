/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * latencyctl's commands, one per file or per group that shares code (cmd_<name>.c), each:
 * parse its arguments with ctl_getopt(), ask latencyd (or, for analyze, work here), print
 * through ctl->out. table.c lists them; handlers.c is what they share.
 */
#ifndef LATENCYCTL_COMMANDS_H
#define LATENCYCTL_COMMANDS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "latencyctl.h"

struct json_object;

#define COMMAND(name) int name(struct ctl *ctl, const struct command *cmd, int argc, char **argv)

COMMAND(cmd_status);  /* cmd_status.c */
COMMAND(cmd_version); /* cmd_status.c */
COMMAND(cmd_trackers);
COMMAND(cmd_set_threshold); /* cmd_set.c */
COMMAND(cmd_set_timeout);   /* cmd_set.c */
COMMAND(cmd_enable);	    /* cmd_set.c: enable and disable, the command's name says which */
COMMAND(cmd_filter);
COMMAND(cmd_list_snapshots);  /* cmd_snapshots.c */
COMMAND(cmd_incidents);	      /* cmd_snapshots.c */
COMMAND(cmd_show_snapshot);   /* cmd_snapshots.c */
COMMAND(cmd_delete_snapshot); /* cmd_snapshots.c */
COMMAND(cmd_analyze);
COMMAND(cmd_record);
COMMAND(cmd_watch);
COMMAND(cmd_config); /* cmd_config.c */
COMMAND(cmd_reload); /* cmd_config.c */
COMMAND(cmd_metrics);
COMMAND(cmd_hist);
COMMAND(cmd_help);

/* table.c: "Usage: latencyctl [OPTIONS] NAME ARGS", the summary, the detail, the example. */
void command_usage(const struct command *cmd, FILE *f);

/* handlers.c: what the handlers share. */
/* What the argument checks return when --help was shown: the command exits 0. */
#define HELP_SHOWN (-1)
/* "latencyctl: NAME: <fmt>" and "Try 'latencyctl NAME --help'." on stderr; EXIT_USAGE. */
int usage_error(const struct command *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/*
 * For commands with N positional arguments and no options but --help (and --FLAG, setting
 * *SET, where FLAG is given), the global options anywhere among them: checks them and
 * returns EXIT_OK (argv[optind..] are the arguments), HELP_SHOWN or EXIT_USAGE.
 */
int positional_flag(struct ctl *ctl, const struct command *cmd, int argc, char **argv, int n,
		    const char *flag, bool *set);
int positional(struct ctl *ctl, const struct command *cmd, int argc, char **argv, int n);
/* For commands without arguments of their own: --help and nothing else. */
int no_arguments(struct ctl *ctl, const struct command *cmd, int argc, char **argv);
/* A decimal number that fits in an int64; nothing else. */
int parse_count(const char *s, uint64_t *ret);
/* Asks latencyd (args taken, NULL for none) and prints the result. */
int call_print(const struct ctl *ctl, const struct command *cmd, struct json_object *args,
	       int (*print)(struct json_object *result));
/* The same, args built by the caller: NULL when that ran out of memory. */
int ask_with(const struct ctl *ctl, const struct command *cmd, struct json_object *args,
	     int (*print)(struct json_object *result));

#endif /* LATENCYCTL_COMMANDS_H */
