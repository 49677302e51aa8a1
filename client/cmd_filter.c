/* SPDX-License-Identifier: GPL-2.0-only */
/* filter TRACKER: which tasks a tracker follows (pid, tid, comm, cgroup), or all again. */
#include <getopt.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <json-c/json.h>
#include <latency_tracker.h>

#include "commands.h"

/* The room latencyd keeps in a path for "/sys/fs/cgroup/" before a relative cgroup. */
#define CGROUP_PREFIX 16

int cmd_filter(struct ctl *ctl, const struct command *cmd, int argc, char **argv)
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
			if (strlen(optarg) >= LATENCY_TRACKER_COMM_LEN) {
				json_object_put(args);
				return usage_error(cmd,
						   "--comm is %zu bytes long: a task name is at "
						   "most %d bytes",
						   strlen(optarg), LATENCY_TRACKER_COMM_LEN - 1);
			}
			json_object_object_add(args, PROTO_KEY_COMM,
					       json_object_new_string(optarg));
			break;
		case 'g':
			if (strlen(optarg) + CGROUP_PREFIX >= PATH_MAX) {
				json_object_put(args);
				return usage_error(cmd, "--cgroup is %zu bytes long: %d at most",
						   strlen(optarg), PATH_MAX - CGROUP_PREFIX - 1);
			}
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
