/* SPDX-License-Identifier: GPL-2.0-only */
/* help [COMMAND]: latencyctl's usage, or a command's (as COMMAND --help). */
#include <getopt.h>
#include <stdio.h>

#include "commands.h"

int cmd_help(struct ctl *ctl, const struct command *cmd, int argc, char **argv)
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
