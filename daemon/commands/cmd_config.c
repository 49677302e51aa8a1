/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * "config": the configuration latencyd runs with (defaults, the file, the command line), as
 * the file spells it, and where it came from: the file, the saved-settings file (1.3: each
 * setting's FILE:LINE in "origins").
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <json-c/json.h>

#include "commands.h"

int cmd_config(struct manager *m, const struct control_caller *caller, struct json_object *args,
	       struct json_object **result, struct proto_error *err)
{
	struct json_object *o, *settings;
	int r;

	r = args_none(args, err);
	if (r < 0)
		return r;
	settings = conf_to_json(m->conf);
	o = json_object_new_object();
	if (!settings || !o) {
		json_object_put(settings);
		json_object_put(o);
		return -ENOMEM;
	}
	r = 0;
	result_add_string(o, PROTO_KEY_SOURCE, m->conf->source ?: "", &r);
	result_add(o, PROTO_KEY_SETTINGS, settings, &r);
	result_add(o, PROTO_KEY_ORIGINS, conf_origins_json(m->conf), &r);
	result_add_string(o, PROTO_KEY_SAVED_FILE, m->conf->saved_source ?: "", &r);
	if (m->conf->saved_problem)
		result_add_string(o, PROTO_KEY_SAVED_PROBLEM, m->conf->saved_problem, &r);
	return result_done(o, r, result);
}
