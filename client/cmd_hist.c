/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * hist TRACKER|io: a tracker's log2 histogram of delays, or the four levels of an I/O side
 * by side. With --interval, each period prints what changed since the previous read (the
 * counts subtracted bucket by bucket, proto_hist_delta()), in text or JSON alike: both are
 * written from the same decoded histograms (output_hist.c).
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <json-c/json.h>

#include "commands.h"

struct hist_opts {
	struct json_object *args;
	uint64_t interval_ns; /* 0: one read */
	uint64_t count;	      /* periods; 0: until interrupted */
};

static int options(struct ctl *ctl, const struct command *cmd, int argc, char **argv,
		   struct hist_opts *o)
{
	static const struct option longopts[] = {
		{"per", required_argument, NULL, 'p'},	    {"disk", required_argument, NULL, 'd'},
		{"interval", required_argument, NULL, 'i'}, {"reset", no_argument, NULL, 'R'},
		{"help", no_argument, NULL, 'h'},	    {NULL, 0, NULL, 0},
	};
	const char *why = NULL;
	int c;

	optind = 0;
	while ((c = ctl_getopt(ctl, argc, argv, longopts)) != -1) {
		switch (c) {
		case 'p':
			if (strcmp(optarg, "cpu") && strcmp(optarg, "disk") &&
			    strcmp(optarg, "syscall"))
				return usage_error(cmd, "invalid --per '%s': cpu, disk or syscall",
						   optarg);
			json_object_object_add(o->args, PROTO_KEY_PER,
					       json_object_new_string(optarg));
			break;
		case 'd':
			json_object_object_add(o->args, PROTO_KEY_DISK,
					       json_object_new_string(optarg));
			break;
		case 'i':
			if (parse_seconds(optarg, &o->interval_ns, &why) < 0)
				return usage_error(cmd, "invalid --interval '%s': %s", optarg, why);
			break;
		case 'R':
			json_object_object_add(o->args, PROTO_KEY_RESET,
					       json_object_new_boolean(1));
			break;
		case 'h':
			command_usage(cmd, stdout);
			return HELP_SHOWN;
		default:
			fprintf(stderr, "Try 'latencyctl %s --help'.\n", cmd->name);
			return EXIT_USAGE;
		}
	}
	if (optind == argc)
		return usage_error(cmd, "wants %s", cmd->args);
	if (argc - optind > 2)
		return usage_error(cmd, "unexpected argument '%s'", argv[optind + 2]);
	if (argc - optind == 2 && !o->interval_ns)
		return usage_error(cmd, "unexpected argument '%s' (a COUNT goes with --interval)",
				   argv[optind + 1]);
	if (argc - optind == 2 && (parse_count(argv[optind + 1], &o->count) < 0 || !o->count))
		return usage_error(cmd, "invalid COUNT '%s': a positive number of periods",
				   argv[optind + 1]);
	if (strcmp(argv[optind], PROTO_HIST_IO) && check_tracker(argv[optind]) != EXIT_OK)
		return EXIT_USAGE;
	json_object_object_add(o->args, PROTO_KEY_TRACKER, json_object_new_string(argv[optind]));
	return EXIT_OK;
}

/* The reply's histograms decoded into HISTS (at most MAX): how many, or -1 (said). */
static int decode(struct json_object *result, struct proto_hist *hists, size_t max)
{
	struct json_object *list = NULL;
	struct proto_error err;
	size_t n;

	if (!json_object_object_get_ex(result, PROTO_KEY_HISTS, &list) ||
	    !json_object_is_type(list, json_type_array))
		return fprintf(stderr, "latencyctl: hist: a reply without \"hists\"\n"), -1;
	n = json_object_array_length(list);
	for (size_t i = 0; i < n && i < max; i++)
		if (proto_hist_from_json(json_object_array_get_idx(list, i), &hists[i], &err) < 0) {
			text_clean(err.message, false);
			fprintf(stderr, "latencyctl: hist: unexpected reply: %s\n", err.message);
			return -1;
		}
	return (int)(n < max ? n : max);
}

/* RESULT with its histograms replaced by HISTS (written by the one encoder). */
static int replace_hists(struct json_object *result, const struct proto_hist *hists, size_t n)
{
	struct json_object *list = json_object_new_array(), *o;

	for (size_t i = 0; list && i < n; i++) {
		if (proto_hist_to_json(&hists[i], &o) < 0 || json_object_array_add(list, o) < 0) {
			json_object_put(list);
			return -ENOMEM;
		}
	}
	if (!list || json_object_object_add(result, PROTO_KEY_HISTS, list) < 0)
		return -ENOMEM;
	return json_object_object_add(result, CTL_KEY_DELTA, json_object_new_boolean(1));
}

static void sleep_ns(uint64_t ns)
{
	struct timespec ts = {(time_t)(ns / 1000000000), (long)(ns % 1000000000)};

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

#define HISTS_MAX 4 /* io's levels */

/* One period: SHOWN is RAW minus PREV (the previous read as the kernel said it), printed. */
static int period(const struct ctl *ctl, struct json_object *result, const struct proto_hist *raw,
		  int n, const struct proto_hist *prev, int nprev, struct proto_hist *shown)
{
	memcpy(shown, raw, (size_t)n * sizeof(*raw));
	for (int k = 0; k < n; k++)
		for (int j = 0; j < nprev; j++)
			if (strcmp(shown[k].tracker, prev[j].tracker) == 0)
				proto_hist_delta(&shown[k], &prev[j]);
	if (replace_hists(result, shown, (size_t)n) < 0)
		return EXIT_CONNECT;
	return ctl->out->hist(result);
}

/* The first read is the base the first period is measured from; each read, the next's. */
static int periods(const struct ctl *ctl, const struct command *cmd, const struct hist_opts *o)
{
	struct proto_hist *h = calloc(3 * HISTS_MAX, sizeof(*h));
	struct proto_hist *raw = h, *prev = h + HISTS_MAX, *shown = h + 2 * HISTS_MAX;
	struct json_object *result = NULL;
	int r = h ? EXIT_OK : EXIT_CONNECT, n = 0, nprev = 0;

	for (uint64_t i = 0; r == EXIT_OK && (o->count == 0 || i <= o->count); i++) {
		if (i)
			sleep_ns(o->interval_ns);
		r = ctl_call(ctl, cmd->name, json_object_get(o->args), &result);
		if (r == EXIT_OK && (n = decode(result, raw, HISTS_MAX)) < 0)
			r = EXIT_CONNECT;
		if (r == EXIT_OK && i)
			r = period(ctl, result, raw, n, prev, nprev, shown);
		if (r == EXIT_OK)
			r = stdout_check(); /* each period as it comes, until the output fails */
		json_object_put(result);
		result = NULL;
		memcpy(prev, raw, HISTS_MAX * sizeof(*raw));
		nprev = n;
	}
	free(h);
	return r;
}

int cmd_hist(struct ctl *ctl, const struct command *cmd, int argc, char **argv)
{
	struct hist_opts o = {.args = json_object_new_object()};
	int r;

	if (!o.args)
		return ask_with(ctl, cmd, NULL, NULL);
	r = options(ctl, cmd, argc, argv, &o);
	if (r != EXIT_OK) {
		json_object_put(o.args);
		return r == HELP_SHOWN ? EXIT_OK : r;
	}
	if (!o.interval_ns)
		return ask_with(ctl, cmd, o.args, ctl->out->hist);
	r = periods(ctl, cmd, &o);
	json_object_put(o.args);
	return r;
}
