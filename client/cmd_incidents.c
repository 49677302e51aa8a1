/* SPDX-License-Identifier: GPL-2.0-only */
/* latencyctl incidents [--limit N]: the fleet's incidents this host knows of. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include <json-c/json.h>

#include "latencyctl.h"

int cmd_incidents(struct ctl *ctl, const struct command *cmd, int argc, char **argv)
{
	static const struct option options[] = {
		{"limit", required_argument, NULL, 'n'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct json_object *args = json_object_new_object();
	unsigned long long v;
	char *end;
	int c;

	optind = 0;
	while ((c = ctl_getopt(ctl, argc, argv, options)) != -1) {
		switch (c) {
		case 'n':
			errno = 0;
			v = strtoull(optarg, &end, 10);
			if (errno || *end || !optarg[0] || optarg[0] == '-' || v == 0) {
				json_object_put(args);
				fprintf(stderr,
					"latencyctl: %s: invalid --limit '%s': a positive number\n",
					cmd->name, optarg);
				return EXIT_USAGE;
			}
			json_object_object_add(args, PROTO_KEY_LIMIT,
					       json_object_new_int64((int64_t)v));
			break;
		case 'h':
			json_object_put(args);
			printf("Usage: latencyctl [OPTIONS] %s %s\n\n%s.\n", cmd->name, cmd->args,
			       cmd->summary);
			return EXIT_OK;
		default:
			json_object_put(args);
			fprintf(stderr, "Try 'latencyctl %s --help'.\n", cmd->name);
			return EXIT_USAGE;
		}
	}
	if (optind < argc) {
		json_object_put(args);
		fprintf(stderr, "latencyctl: %s: unexpected argument '%s'\n", cmd->name,
			argv[optind]);
		return EXIT_USAGE;
	}
	return call_print(ctl, cmd, args, ctl->out->incidents);
}
