/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * record [--reason TEXT]: a snapshot taken now, through the rate limit; latencyctl waits for
 * the event that says what became of this request (its snapshot, or its suppression).
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <json-c/json.h>

#include "commands.h"

struct record_wait {
	const struct ctl *ctl;
	int64_t request;
};

static int record_ready(struct json_object *result, void *arg)
{
	struct record_wait *w = arg;
	struct json_object *v;

	if (!json_object_object_get_ex(result, PROTO_KEY_REQUEST, &v)) {
		fprintf(stderr, "latencyctl: record: malformed reply from latencyd\n");
		return EXIT_CONNECT;
	}
	w->request = json_object_get_int64(v);
	return EXIT_OK;
}

/* Is alert the manual one of this request? */
static bool ours(struct json_object *alert, int64_t request)
{
	struct json_object *t, *q;

	return json_object_object_get_ex(alert, PROTO_KEY_TRACKER, &t) &&
	       json_object_is_type(t, json_type_string) &&
	       strcmp(json_object_get_string(t), "manual") == 0 &&
	       json_object_object_get_ex(alert, PROTO_KEY_REQUEST, &q) &&
	       json_object_get_int64(q) == request;
}

/* latencyd took the request: its snapshot will come, later than we wait for it. */
static int record_timed_out(void *arg)
{
	const struct record_wait *w = arg;

	fprintf(stderr,
		"latencyctl: record request %" PRId64 " accepted; its snapshot did not arrive "
		"within --timeout (see list-snapshots)\n",
		w->request);
	return EXIT_PENDING;
}

static int record_event(const char *name, struct json_object *data, void *arg)
{
	struct record_wait *w = arg;
	struct json_object *v;

	if (strcmp(name, PROTO_EVENT_SUPPRESSED) == 0 &&
	    json_object_object_get_ex(data, PROTO_KEY_ALERT, &v) && ours(v, w->request))
		return w->ctl->out->recorded(name, data);
	if (strcmp(name, PROTO_EVENT_SNAPSHOT) == 0 &&
	    json_object_object_get_ex(data, PROTO_KEY_CAUSES, &v) &&
	    json_object_is_type(v, json_type_array)) {
		for (size_t i = 0; i < json_object_array_length(v); i++)
			if (ours(json_object_array_get_idx(v, i), w->request))
				return w->ctl->out->recorded(name, data);
	}
	return EXIT_CONTINUE;
}

int cmd_record(struct ctl *ctl, const struct command *cmd, int argc, char **argv)
{
	static const struct option options[] = {
		{"reason", required_argument, NULL, 'r'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct record_wait w = {.ctl = ctl};
	struct ctl_events ev = {.ready = record_ready,
				.on_event = record_event,
				.timed_out = record_timed_out,
				.arg = &w};
	struct json_object *args, *result = NULL;
	const char *reason = NULL;
	int c, r;

	optind = 0;
	while ((c = ctl_getopt(ctl, argc, argv, options)) != -1) {
		if (c == 'r') {
			reason = optarg;
		} else if (c == 'h') {
			command_usage(cmd, stdout);
			return EXIT_OK;
		} else {
			fprintf(stderr, "Try 'latencyctl %s --help'.\n", cmd->name);
			return EXIT_USAGE;
		}
	}
	if (optind < argc)
		return usage_error(cmd, "unexpected argument '%s'", argv[optind]);
	if (reason && strlen(reason) > PROTO_RECORD_MESSAGE_MAX)
		return usage_error(cmd, "--reason is %zu bytes long: %d at most", strlen(reason),
				   PROTO_RECORD_MESSAGE_MAX);
	ev.timeout_usec = ctl->timeout_usec; /* --timeout may come after the command */
	args = json_object_new_object();
	if (args && reason)
		json_object_object_add(args, PROTO_KEY_MESSAGE, json_object_new_string(reason));
	if (!args) {
		fprintf(stderr, "latencyctl: out of memory\n");
		return EXIT_CONNECT;
	}
	r = ctl_call_events(ctl, cmd->name, args, &result, &ev);
	json_object_put(result);
	return r;
}
