/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * metrics: latencyd's counters in the Prometheus text format, as latencyd renders them.
 * A text larger than a frame comes in parts (next_line): asked for until the last one.
 */
#include <stdio.h>

#include <json-c/json.h>

#include "commands.h"

/* Parts at most: a text that keeps growing as it is read must still end. */
#define PARTS_MAX 64

int cmd_metrics(struct ctl *ctl, const struct command *cmd, int argc, char **argv)
{
	struct json_object *args, *result, *next;
	int64_t from = 0;
	int r = no_arguments(ctl, cmd, argc, argv);

	if (r != EXIT_OK)
		return r == HELP_SHOWN ? EXIT_OK : r;
	for (int part = 0; part < PARTS_MAX; part++) {
		args = json_object_new_object();
		if (!args || json_object_object_add(args, PROTO_KEY_FROM_LINE,
						    json_object_new_int64(from)) < 0) {
			json_object_put(args);
			fprintf(stderr, "latencyctl: out of memory\n");
			return EXIT_CONNECT;
		}
		result = NULL;
		r = ctl_call(ctl, cmd->name, args, &result); /* takes ARGS */
		if (r == EXIT_OK)
			r = ctl->out->metrics(result);
		next = NULL;
		if (r == EXIT_OK && json_object_object_get_ex(result, PROTO_KEY_NEXT_LINE, &next) &&
		    json_object_get_int64(next) > from)
			from = json_object_get_int64(next);
		else
			next = NULL;
		json_object_put(result);
		if (r != EXIT_OK || !next)
			return r;
	}
	fprintf(stderr, "latencyctl: metrics: more than %d parts, stopped\n", PARTS_MAX);
	return EXIT_CONNECT;
}

/* The text as latencyd wrote it: what promtool and node_exporter read. */
int text_metrics(struct json_object *result)
{
	struct json_object *text = NULL;

	if (!json_object_object_get_ex(result, PROTO_KEY_TEXT, &text) ||
	    !json_object_is_type(text, json_type_string)) {
		fprintf(stderr, "latencyctl: metrics: latencyd's reply has no text\n");
		return EXIT_CONNECT;
	}
	fputs(json_object_get_string(text), stdout);
	return ferror(stdout) ? EXIT_CONNECT : EXIT_OK;
}
