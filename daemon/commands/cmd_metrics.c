/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * "metrics": latencyd's counters, the module's and the fleet's in the Prometheus text
 * format, as metrics.textfile holds them (manager/metrics.c renders both).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "commands.h"

int cmd_metrics(struct manager *m, const struct control_caller *caller, struct json_object *args,
		struct json_object **result, struct proto_error *err)
{
	struct json_object *o;
	char *text = NULL;
	int r;

	r = args_none(args, err);
	if (r < 0)
		return r;
	r = manager_metrics_text(m, &text);
	if (r < 0)
		return proto_error_set(err, PROTO_ERR_INTERNAL, "cannot render the metrics: %s",
				       strerror(-r));
	o = json_object_new_object();
	if (!o) {
		free(text);
		return -ENOMEM;
	}
	r = 0;
	result_add_string(o, PROTO_KEY_TEXT, text, &r);
	free(text);
	return result_done(o, r, result);
}
