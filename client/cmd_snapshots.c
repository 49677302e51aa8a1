/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The snapshot commands: list-snapshots (and incidents, the fleet's list), show-snapshot and
 * delete-snapshot.
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <json-c/json.h>

#include "commands.h"

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

/* list-snapshots, and incidents (INCIDENTS: which takes --limit alone). */
static int list(struct ctl *ctl, const struct command *cmd, int argc, char **argv, bool incidents)
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

int cmd_list_snapshots(struct ctl *ctl, const struct command *cmd, int argc, char **argv)
{
	return list(ctl, cmd, argc, argv, false);
}

int cmd_incidents(struct ctl *ctl, const struct command *cmd, int argc, char **argv)
{
	return list(ctl, cmd, argc, argv, true);
}

/* show-snapshot ID (SHOW), delete-snapshot [--keep-files] ID */
static int snapshot_id(struct ctl *ctl, const struct command *cmd, int argc, char **argv, bool show)
{
	const char *negative = ctl_negative_word(argc, argv, NULL);
	struct json_object *args;
	bool keep_files = false;
	uint64_t id;
	int r;

	if (negative)
		return usage_error(cmd,
				   "invalid snapshot id '%s': a number, as list-snapshots shows",
				   negative);
	r = positional_flag(ctl, cmd, argc, argv, 1, show ? NULL : "keep-files", &keep_files);
	if (r != EXIT_OK)
		return r == HELP_SHOWN ? EXIT_OK : r;
	if (parse_count(argv[optind], &id) < 0)
		return usage_error(cmd,
				   "invalid snapshot id '%s': a number, as list-snapshots shows",
				   argv[optind]);
	args = json_object_new_object();
	if (args)
		json_object_object_add(args, PROTO_KEY_ID, json_object_new_int64((int64_t)id));
	if (args && keep_files)
		json_object_object_add(args, PROTO_KEY_KEEP_FILES, json_object_new_boolean(true));
	return ask_with(ctl, cmd, args, show ? ctl->out->snapshot : ctl->out->snapshot_deleted);
}

int cmd_show_snapshot(struct ctl *ctl, const struct command *cmd, int argc, char **argv)
{
	return snapshot_id(ctl, cmd, argc, argv, true);
}

int cmd_delete_snapshot(struct ctl *ctl, const struct command *cmd, int argc, char **argv)
{
	return snapshot_id(ctl, cmd, argc, argv, false);
}
