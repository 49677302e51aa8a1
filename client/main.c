/* SPDX-License-Identifier: GPL-2.0-only */
/* latencyctl: global options, then the command from the table. */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "latencyctl.h"

static const struct option options[] = {
	{"socket", required_argument, NULL, 's'},  {"json", no_argument, NULL, 'j'},
	{"timeout", required_argument, NULL, 't'}, {"help", no_argument, NULL, 'h'},
	{"version", no_argument, NULL, 'V'},	   {NULL, 0, NULL, 0},
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

int main(int argc, char *argv[])
{
	struct ctl ctl = {
		.socket = PROTO_SOCKET_PATH_DEFAULT,
		.timeout_usec = CTL_TIMEOUT_USEC_DEFAULT,
		.out = &output_text,
	};
	const struct command *cmd;
	int c;

	/* "+": options end at the command; what follows belongs to it. */
	while ((c = getopt_long(argc, argv, "+s:jt:hV", options, NULL)) != -1) {
		switch (c) {
		case 's':
			ctl.socket = optarg;
			break;
		case 'j':
			ctl.out = &output_json;
			break;
		case 't':
			if (parse_timeout(optarg, &ctl.timeout_usec) < 0) {
				fprintf(stderr,
					"latencyctl: --timeout wants seconds > 0, not '%s'\n",
					optarg);
				return EXIT_USAGE;
			}
			break;
		case 'h':
			ctl_usage(stdout);
			return EXIT_OK;
		case 'V':
			printf("latencyctl %s (protocol %d.%d)\n", LATENCYD_VERSION, PROTO_VERSION,
			       PROTO_REVISION);
			return EXIT_OK;
		default:
			fprintf(stderr, "Try 'latencyctl --help'.\n");
			return EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		ctl_usage(stderr);
		return EXIT_USAGE;
	}
	cmd = command_find(argv[optind]);
	if (!cmd) {
		fprintf(stderr, "latencyctl: unknown command '%s'\nTry 'latencyctl help'.\n",
			argv[optind]);
		return EXIT_USAGE;
	}
	return cmd->run(&ctl, cmd, argc - optind, argv + optind);
}
