/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * "metrics": latencyd's counters, the module's and the fleet's in the Prometheus text
 * format, as metrics.textfile holds them (manager/metrics.c renders both). With many
 * keyed histograms the text outgrows one frame (PROTO_FRAME_MAX): a reply carries whole
 * lines from `from_line` on, as many as fit, and `next_line` when there are more, for the
 * client to ask again. The first part of a text that takes several gives the id of its
 * rendering (`rendering`, 1.16), kept a while (manager_metrics_keep()), and the later parts
 * name it: they come from that text, whichever connection asks, so a key that appears
 * meanwhile cannot shift their line numbers, and the text is rendered once per read. A part
 * asked without it (a client older than 1.16) is rendered afresh.
 */
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "commands.h"

struct metrics_args {
	uint64_t from_line;
	uint64_t rendering; /* 0: render the text now */
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
		{PROTO_KEY_RENDERING, PROTO_FIELD_UINT, 0,
		 offsetof(struct metrics_args, rendering)},
		{NULL},
	};
	struct metrics_args a = {0};
	struct json_object *o;
	const char *start, *end, *text;
	char *fresh = NULL;
	uint64_t next, id;
	int r;

	r = proto_fields_dispatch(args, fields, 0, &a, err);
	if (r < 0)
		return r;
	id = a.rendering;
	if (id) {
		if (manager_metrics_kept(m, caller->uid, id, &text) < 0)
			return proto_error_set(
				err, PROTO_ERR_NOT_FOUND,
				"metrics rendering %" PRIu64 " is gone (kept %d s "
				"after the part last asked, %d of a user's at most): "
				"read the metrics again from their first line",
				id, METRICS_KEEP_SEC, METRICS_RENDERINGS_PER_USER);
	} else {
		r = manager_metrics_text(m, &fresh);
		if (r < 0)
			return proto_error_set(err, PROTO_ERR_INTERNAL,
					       "cannot render the metrics: %s", strerror(-r));
		text = fresh;
	}
	page(text, a.from_line, &start, &end, &next);
	o = json_object_new_object();
	if (!o) {
		free(fresh);
		return -ENOMEM;
	}
	r = 0;
	result_add(o, PROTO_KEY_TEXT, json_object_new_string_len(start, (int)(end - start)), &r);
	if (next)
		result_add_int(o, PROTO_KEY_NEXT_LINE, (int64_t)next, &r);
	/* A first part with more to come: its text kept for the parts that follow. */
	if (r == 0 && fresh && next && a.from_line == 0) {
		r = manager_metrics_keep(m, caller->uid, fresh, &id);
		fresh = NULL;
	}
	if (r == 0 && id)
		result_add_int(o, PROTO_KEY_RENDERING, (int64_t)id, &r);
	/* Its last part, sent: the reader needs it no more (a part past the end is no last). */
	if (r == 0 && a.rendering && !next && end > start)
		manager_metrics_forget(m, caller->uid, id);
	free(fresh);
	return result_done(o, r, result);
}
