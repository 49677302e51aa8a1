/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * "metrics": latencyd's counters, the module's and the fleet's in the Prometheus text
 * format, as metrics.textfile holds them (manager/metrics.c renders both). With many
 * keyed histograms the text outgrows one frame (PROTO_FRAME_MAX): a reply carries whole
 * lines from `from_line` on, as many as fit, and `next_line` when there are more, for the
 * client to ask again. The parts that follow the first come from the first's rendering
 * (manager_metrics_paged()): a key that appears meanwhile cannot shift the line numbers,
 * and a large text is rendered once, not once per part.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "commands.h"

struct metrics_args {
	uint64_t from_line;
};

/* The bytes of LINE (its newline included) once escaped in a JSON string. */
static size_t escaped_len(const char *line, size_t len)
{
	size_t n = len + 1; /* "\n" is two bytes */

	for (size_t i = 0; i < len; i++)
		n += line[i] == '"' || line[i] == '\\';
	return n;
}

/* From line FROM on, the lines that fit: *START and *END in TEXT, *NEXT the line after
 * (0 when none is left). */
static void page(const char *text, uint64_t from, const char **start, const char **end,
		 uint64_t *next)
{
	const char *p = text;
	size_t used = 0;
	uint64_t line = 0;

	*next = 0;
	for (; *p && line < from; line++)
		p = strchrnul(p, '\n') + (strchr(p, '\n') ? 1 : 0);
	*start = p;
	while (*p) {
		const char *nl = strchrnul(p, '\n');
		size_t n = escaped_len(p, (size_t)(nl - p));

		if (used + n > PROTO_PAYLOAD_BUDGET && used) { /* the text, once escaped in JSON */
			*next = line;
			break;
		}
		used += n;
		line++;
		p = *nl ? nl + 1 : nl;
	}
	*end = p;
}

int cmd_metrics(struct manager *m, const struct control_caller *caller, struct json_object *args,
		struct json_object **result, struct proto_error *err)
{
	static const struct proto_field fields[] = {
		{PROTO_KEY_FROM_LINE, PROTO_FIELD_UINT, 0,
		 offsetof(struct metrics_args, from_line)},
		{NULL},
	};
	struct metrics_args a = {0};
	struct json_object *o;
	const char *start, *end, *text;
	uint64_t next;
	int r;

	r = proto_fields_dispatch(args, fields, 0, &a, err);
	if (r < 0)
		return r;
	r = manager_metrics_paged(m, caller->id, a.from_line == 0, &text);
	if (r < 0)
		return proto_error_set(err, PROTO_ERR_INTERNAL, "cannot render the metrics: %s",
				       strerror(-r));
	page(text, a.from_line, &start, &end, &next);
	o = json_object_new_object();
	if (!o)
		return -ENOMEM;
	r = 0;
	result_add(o, PROTO_KEY_TEXT, json_object_new_string_len(start, (int)(end - start)), &r);
	if (next)
		result_add_int(o, PROTO_KEY_NEXT_LINE, (int64_t)next, &r);
	return result_done(o, r, result);
}
