/* SPDX-License-Identifier: GPL-2.0-only */
/* metrics: latencyd's counters in the Prometheus text format, as latencyd renders them. */
#include <stdio.h>

#include <json-c/json.h>

#include "commands.h"

int cmd_metrics(struct ctl *ctl, const struct command *cmd, int argc, char **argv)
{
	int r = no_arguments(ctl, cmd, argc, argv);

	if (r != EXIT_OK)
		return r == HELP_SHOWN ? EXIT_OK : r;
	return call_print(ctl, cmd, NULL, ctl->out->metrics);
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
