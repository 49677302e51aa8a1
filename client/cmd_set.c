/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * set-threshold, set-timeout, enable, disable: one setting of one tracker, checked here
 * (the tracker's name, the duration's range) before latencyd is asked.
 */
#include <stdbool.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>

#include <json-c/json.h>

#include "commands.h"

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
static int check_range(const struct command *cmd, const char *typed, uint64_t ns, bool timeout)
{
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

/* set-threshold, and set-timeout (TIMEOUT): TRACKER DURATION [--save]. */
static int set_duration(struct ctl *ctl, const struct command *cmd, int argc, char **argv,
			bool timeout)
{
	const char *file = timeout ? PROTO_KEY_TIMEOUT_NS : PROTO_KEY_THRESHOLD_NS;
	const char *negative = ctl_negative_word(argc, argv, NULL);
	const char *why = NULL;
	bool save = false;
	uint64_t ns = 0;
	int r;

	/* getopt would take "-1s" for options -1 and -s: said as the duration it is. */
	if (negative) {
		fprintf(stderr, "latencyctl: %s: invalid duration '%s': %s\n", cmd->name, negative,
			timeout ? "a timeout is 0 (off) or positive" : "a threshold is positive");
		return EXIT_USAGE;
	}
	r = positional_flag(ctl, cmd, argc, argv, 2, "save", &save);
	if (r != EXIT_OK)
		return r == HELP_SHOWN ? EXIT_OK : r;
	if (proto_duration_parse(argv[optind + 1], &ns, &why) < 0 || ns > INT64_MAX) {
		fprintf(stderr, "latencyctl: %s: invalid duration '%s': %s\n", cmd->name,
			argv[optind + 1], ns > INT64_MAX ? "duration too large" : why);
		return EXIT_USAGE;
	}
	if (check_range(cmd, argv[optind + 1], ns, timeout) != EXIT_OK)
		return EXIT_USAGE;
	return tracker_call(ctl, cmd, argv[optind], file, (int64_t)ns, save);
}

int cmd_set_threshold(struct ctl *ctl, const struct command *cmd, int argc, char **argv)
{
	return set_duration(ctl, cmd, argc, argv, false);
}

int cmd_set_timeout(struct ctl *ctl, const struct command *cmd, int argc, char **argv)
{
	return set_duration(ctl, cmd, argc, argv, true);
}

/* enable, and disable: latencyd tells them apart by the command's name. */
int cmd_enable(struct ctl *ctl, const struct command *cmd, int argc, char **argv)
{
	bool save = false;
	int r = positional_flag(ctl, cmd, argc, argv, 1, "save", &save);

	if (r != EXIT_OK)
		return r == HELP_SHOWN ? EXIT_OK : r;
	return tracker_call(ctl, cmd, argv[optind], PROTO_KEY_ENABLED, -1, save);
}
