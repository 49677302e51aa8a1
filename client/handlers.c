/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the command handlers share: their arguments checked (--help, --save, a count), the
 * usage error said the same way by all, latencyd asked and its result printed.
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <json-c/json.h>

#include "commands.h"

int usage_error(const struct command *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "latencyctl: %s: ", cmd->name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry 'latencyctl %s --help'.\n", cmd->name);
	return EXIT_USAGE;
}

int positional_flag(struct ctl *ctl, const struct command *cmd, int argc, char **argv, int n,
		    const char *flag, bool *set)
{
	const struct option options[] = {
		{"help", no_argument, NULL, 'h'},
		{flag, no_argument, NULL, 'F'},
		{NULL, 0, NULL, 0},
	};
	int c;

	optind = 0;
	while ((c = ctl_getopt(ctl, argc, argv, options)) != -1) {
		if (c == 'h') {
			command_usage(cmd, stdout);
			return HELP_SHOWN;
		}
		if (c == 'F') {
			*set = true;
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

int positional(struct ctl *ctl, const struct command *cmd, int argc, char **argv, int n)
{
	return positional_flag(ctl, cmd, argc, argv, n, NULL, NULL);
}

int no_arguments(struct ctl *ctl, const struct command *cmd, int argc, char **argv)
{
	return positional(ctl, cmd, argc, argv, 0);
}

int parse_count(const char *s, uint64_t *ret)
{
	char *end;

	errno = 0;
	*ret = strtoull(s, &end, 10);
	return s[0] >= '0' && s[0] <= '9' && !*end && !errno && *ret <= INT64_MAX ? 0 : -EINVAL;
}

int call_print(const struct ctl *ctl, const struct command *cmd, struct json_object *args,
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

int ask_with(const struct ctl *ctl, const struct command *cmd, struct json_object *args,
	     int (*print)(struct json_object *result))
{
	if (!args) {
		fprintf(stderr, "latencyctl: out of memory\n");
		return EXIT_CONNECT;
	}
	return call_print(ctl, cmd, args, print);
}
