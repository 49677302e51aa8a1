/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * metrics: latencyd's counters in the Prometheus text format, as latencyd renders them.
 * A text larger than a frame comes in parts (next_line): asked for until the last one, each
 * after the first naming the rendering the first came from (1.16), so that they are one
 * text. Nothing is printed before the last part came: a read that fails part way prints
 * no half text.
 */
#include <stdio.h>

#include <json-c/json.h>

#include "commands.h"

/* Parts at most: a text that keeps growing as it is read must still end. */
#define PARTS_MAX 64

/* The part from line FROM of rendering ID (0: none yet, the first part) into *RESULT. */
static int ask_part(struct ctl *ctl, const struct command *cmd, int64_t from, int64_t id,
		    struct json_object **result)
{
	struct json_object *args = json_object_new_object();
	int r = 0;

	if (!args ||
	    json_object_object_add(args, PROTO_KEY_FROM_LINE, json_object_new_int64(from)) < 0)
		r = -1;
	if (r == 0 && id &&
	    json_object_object_add(args, PROTO_KEY_RENDERING, json_object_new_int64(id)) < 0)
		r = -1;
	if (r < 0) {
		json_object_put(args);
		fprintf(stderr, "latencyctl: out of memory\n");
		return EXIT_CONNECT;
	}
	return ctl_call(ctl, cmd->name, args, result); /* takes ARGS */
}

/* The member KEY of RESULT if it is a positive integer, else 0. */
static int64_t positive(struct json_object *result, const char *key)
{
	struct json_object *v;
	int64_t n;

	if (!json_object_object_get_ex(result, key, &v) || !json_object_is_type(v, json_type_int))
		return 0;
	n = json_object_get_int64(v);
	return n > 0 ? n : 0;
}

int cmd_metrics(struct ctl *ctl, const struct command *cmd, int argc, char **argv)
{
	struct json_object *parts[PARTS_MAX] = {0};
	int64_t from = 0, next, id = 0;
	size_t n = 0;
	int r = no_arguments(ctl, cmd, argc, argv);

	if (r != EXIT_OK)
		return r == HELP_SHOWN ? EXIT_OK : r;
	for (;;) {
		if (n == PARTS_MAX) {
			fprintf(stderr, "latencyctl: metrics: more than %d parts, stopped\n",
				PARTS_MAX);
			r = EXIT_CONNECT;
			break;
		}
		r = ask_part(ctl, cmd, from, id, &parts[n]);
		if (r != EXIT_OK)
			break;
		next = positive(parts[n], PROTO_KEY_NEXT_LINE);
		/* A latencyd before 1.16 gives none: its later parts are rendered afresh. */
		if (n == 0)
			id = positive(parts[n], PROTO_KEY_RENDERING);
		n++;
		if (next <= from)
			break;
		from = next;
	}
	for (size_t i = 0; i < n && r == EXIT_OK; i++)
		r = ctl->out->metrics(parts[i]);
	for (size_t i = 0; i < n; i++)
		json_object_put(parts[i]);
	return r;
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
	if (stdout_puts(json_object_get_string(text), false) != EXIT_OK)
		return EXIT_WRITE;
	return stdout_check();
}
