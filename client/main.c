/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * latencyctl: the global options before the command, then the command from the table, which
 * parses its own options and the global ones that come after it (ctl_getopt()).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "latencyctl.h"

static int run(int argc, char *argv[])
{
	static char name[] = "latencyctl";
	const char *shortopts = "+h" CTL_GLOBAL_SHORTOPTS;
	struct ctl ctl = {
		.socket = PROTO_SOCKET_PATH_DEFAULT,
		.timeout_usec = CTL_TIMEOUT_USEC_DEFAULT,
		.out = &output_text,
	};
	const struct command *cmd;
	int c, r;

	/* getopt's messages: "latencyctl: unrecognized option '--bogus'", whatever the path. */
	argv[0] = name;
	/* "+": options end at the command; the command parses the rest, global ones included. */
	while ((c = getopt_long(argc, argv, shortopts, ctl_global_options, NULL)) != -1) {
		switch (c) {
		case 'h':
			ctl_usage(stdout);
			return EXIT_OK;
		case '?':
			fprintf(stderr, "Try 'latencyctl --help'.\n");
			return EXIT_USAGE;
		default:
			r = ctl_global(&ctl, c, optarg);
			if (r != EXIT_OK)
				return r == EXIT_VERSION_SHOWN ? EXIT_OK : r;
		}
	}
	if (optind >= argc) {
		ctl_usage(stderr);
		return EXIT_USAGE;
	}
	cmd = command_find(argv[optind]);
	if (!cmd)
		return unknown_command(argv[optind]);
	return cmd->run(&ctl, cmd, argc - optind, argv + optind);
}

/* Whatever ran, its output checked as written (stdout.c): a lost output is no success. */
int main(int argc, char *argv[])
{
	return stdout_close(run(argc, argv));
}
