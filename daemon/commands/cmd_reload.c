/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * "reload": what SIGHUP does, with the file's problems in the error when it is refused (the
 * running configuration stays).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <json-c/json.h>

#include "commands.h"

#define RELOAD_ERRORS_MAX 8 /* problems quoted in the error; all of them are logged */

int cmd_reload(struct manager *m, const struct control_caller *caller, struct json_object *args,
	       struct json_object **result, struct proto_error *err)
{
	struct conf_diag diag = {0};
	char text[PROTO_MESSAGE_MAX];
	struct json_object *o;
	const char *op;
	size_t len = 0;
	int r;

	r = args_none(args, err);
	if (r < 0)
		return r;
	log_info("client %u (uid %u) asked for a reload", caller->id, (unsigned)caller->uid);
	r = manager_reload(m, &diag);
	if (r < 0) {
		text[0] = 0;
		for (size_t i = 0; i < diag.n && i < RELOAD_ERRORS_MAX && len < sizeof(text); i++)
			len += (size_t)snprintf(text + len, sizeof(text) - len, "%s%s",
						i ? "; " : "", diag.lines[i]);
		conf_diag_clear(&diag);
		return proto_error_set(
			err, PROTO_ERR_REFUSED,
			"the configuration was not reloaded, the running one stays: %s",
			text[0] ? text : strerror(-r));
	}
	conf_diag_clear(&diag);
	o = json_object_new_object();
	if (!o)
		return -ENOMEM;
	r = 0;
	result_add_string(o, PROTO_KEY_SOURCE, m->conf->source ?: "", &r);
	result_add_bool(o, PROTO_KEY_RELOADED, true, &r);
	if (m->conf->saved_problem)
		result_add_string(o, PROTO_KEY_SAVED_PROBLEM, m->conf->saved_problem, &r);
	/* The session's part waits for lttng-sessiond, on a thread: not for this reply. */
	op = recorder_session_pending(m->recorder);
	if (op)
		result_add_string(o, PROTO_KEY_OPERATION, op, &r);
	return result_done(o, r, result);
}
