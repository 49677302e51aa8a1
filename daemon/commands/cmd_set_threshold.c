/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * "set-threshold", "set-timeout": a tracker's threshold_ns or timeout_ns, written to sysfs;
 * runtime only unless "save" (1.3) asks to keep it in the saved-settings file (saved.c). The
 * result echoes the value, the previous one and "saved".
 */
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <json-c/json.h>

#include "commands.h"

struct set_args {
	const char *tracker;
	uint64_t value;
	bool save;
};

/* The trackers.NAME setting that stands for a sysfs file, and its value as the file says. */
static void saved_form(struct saved_change *ch, const char *tracker, const char *file,
		       uint64_t value, char *text, size_t size)
{
	bool enabled = strcmp(file, PROTO_KEY_ENABLED) == 0;
	bool timeout = strcmp(file, PROTO_KEY_TIMEOUT_NS) == 0;

	snprintf(ch->key, sizeof(ch->key), "trackers.%s.%s", tracker,
		 enabled   ? "enabled"
		 : timeout ? "timeout"
			   : "threshold");
	if (enabled)
		snprintf(text, size, "%s", value ? "true" : "false");
	else
		conf_duration_text(text, size, value, timeout);
	ch->value = text;
}

int tracker_set(struct manager *m, struct json_object *args, const char *file, uint64_t fixed,
		bool has_fixed, struct json_object **result, struct proto_error *err)
{
	const struct proto_field fields[] = {
		{PROTO_KEY_TRACKER, PROTO_FIELD_STRING, PROTO_FIELD_REQUIRED,
		 offsetof(struct set_args, tracker)},
		{has_fixed ? NULL : file, PROTO_FIELD_UINT, PROTO_FIELD_REQUIRED,
		 offsetof(struct set_args, value)},
		{NULL},
	};
	/* After the optional value field, so that a fixed-value table still ends at NULL. */
	const struct proto_field save_field[] = {
		{PROTO_KEY_SAVE, PROTO_FIELD_BOOL, 0, offsetof(struct set_args, save)},
		{NULL},
	};
	struct proto_field all[4];
	struct set_args a = {.value = fixed};
	struct saved_change ch;
	struct json_object *o;
	uint64_t previous = 0;
	bool have_previous;
	char text[64];
	size_t n = 0;
	int r;

	for (const struct proto_field *f = fields; f->name; f++)
		all[n++] = *f;
	all[n++] = save_field[0];
	all[n] = save_field[1];
	r = proto_fields_dispatch(args, all, 0, &a, err);
	if (r < 0)
		return r;
	r = tracker_check(m, a.tracker, err);
	if (r < 0)
		return r;
	saved_form(&ch, a.tracker, file, a.value, text, sizeof(text));
	if (a.save && (r = saved_check(m, &ch, 1, err)) < 0)
		return r;
	have_previous = tracker_read(m, a.tracker, file, &previous) == 0;
	r = tracker_write(m, a.tracker, file, a.value, err);
	if (r < 0)
		return r;
	if (a.save && (r = saved_store(m, &ch, 1, err)) < 0)
		return r;
	log_info("tracker %s: %s set to %" PRIu64 " (%s)", a.tracker, file, a.value,
		 a.save ? "saved" : "runtime only");

	o = json_object_new_object();
	if (!o)
		return -ENOMEM;
	result_add_string(o, PROTO_KEY_TRACKER, a.tracker, &r);
	if (has_fixed)
		result_add_bool(o, file, a.value != 0, &r);
	else
		result_add_int(o, file, (int64_t)a.value, &r);
	if (have_previous && has_fixed)
		result_add_bool(o, PROTO_KEY_PREVIOUS, previous != 0, &r);
	else if (have_previous)
		result_add_int(o, PROTO_KEY_PREVIOUS, (int64_t)previous, &r);
	result_add_bool(o, PROTO_KEY_SAVED, a.save, &r);
	if (a.save)
		result_add_string(o, PROTO_KEY_SAVED_FILE, m->conf->control.save_file, &r);
	return result_done(o, r, result);
}

int cmd_set_threshold(struct manager *m, const struct control_caller *caller,
		      struct json_object *args, struct json_object **result,
		      struct proto_error *err)
{
	return tracker_set(m, args, PROTO_KEY_THRESHOLD_NS, 0, false, result, err);
}
