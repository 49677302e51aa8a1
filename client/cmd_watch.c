/* SPDX-License-Identifier: GPL-2.0-only */
/* watch: alerts and snapshots printed as latencyd sends them, until interrupted. */
#include <stdio.h>

#include <json-c/json.h>

#include "commands.h"

/*
 * Without the flight recorder no event can come while this latencyd runs: its alerts,
 * snapshots and fleet all need it, and turning it on (session.enabled) takes a restart,
 * which ends the connection. Said as latencyd says that of the snapshot commands (not-found,
 * exit status 1) rather than waited on for ever.
 */
static int watch_ready(struct json_object *result, void *arg)
{
	const struct ctl *ctl = arg;
	struct json_object *v;

	if (json_object_object_get_ex(result, PROTO_KEY_RECORDING, &v) &&
	    !json_object_get_boolean(v)) {
		ctl->out->error("watch", "not-found",
				"latencyd's flight recorder is off (session.enabled = false): no "
				"events will come");
		return EXIT_DAEMON;
	}
	return EXIT_OK;
}

static int watch_event(const char *name, struct json_object *data, void *arg)
{
	const struct ctl *ctl = arg;
	int r = ctl->out->event(name, data);

	/* Each event written as it comes: a watcher whose output fails stops there. */
	if (r == EXIT_OK)
		r = stdout_check();
	return r == EXIT_OK ? EXIT_CONTINUE : r;
}

int cmd_watch(struct ctl *ctl, const struct command *cmd, int argc, char **argv)
{
	const struct ctl_events ev = {
		.ready = watch_ready, .on_event = watch_event, .arg = (void *)ctl};
	struct json_object *result = NULL;
	int r;

	r = no_arguments(ctl, cmd, argc, argv);
	if (r != EXIT_OK)
		return r == HELP_SHOWN ? EXIT_OK : r;
	r = ctl_call_events(ctl, cmd->name, NULL, &result, &ev);
	json_object_put(result);
	return r;
}
