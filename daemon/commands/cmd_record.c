/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * "record": a manual snapshot that goes through the rate limiter like an alert (tracker
 * "manual"); the client watches for the event whose cause carries its request number (the
 * command subscribes it, table.c).
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include <json-c/json.h>

#include "commands.h"

#define REASON_MAX PROTO_RECORD_MESSAGE_MAX
_Static_assert(REASON_MAX <= CAUSE_MESSAGE_MAX, "a manual cause holds the whole reason");

struct record_args {
	const char *reason;
};

int cmd_record(struct manager *m, const struct control_caller *caller, struct json_object *args,
	       struct json_object **result, struct proto_error *err)
{
	static const struct proto_field fields[] = {
		{PROTO_KEY_MESSAGE, PROTO_FIELD_STRING, 0, offsetof(struct record_args, reason)},
		{NULL},
	};
	struct record_args a = {0};
	struct json_object *o;
	uint64_t seq;
	int r;

	r = proto_fields_dispatch(args, fields, 0, &a, err);
	if (r < 0)
		return r;
	if (a.reason && strlen(a.reason) > REASON_MAX)
		return proto_error_set(err, PROTO_ERR_BAD_ARGUMENT,
				       "the reason is longer than %d bytes", REASON_MAX);
	if (!m->recorder)
		return proto_error_set(err, PROTO_ERR_NOT_FOUND,
				       "no flight recorder: session.enabled = false");
	r = recorder_request(m->recorder, a.reason ?: "", caller->pid, &seq);
	if (r == -EBUSY)
		return proto_error_set(err, PROTO_ERR_BUSY,
				       "too many manual records waiting; try again");
	if (r < 0)
		return r;
	log_info("client %u (pid %d, uid %u): manual record %llu requested%s%s", caller->id,
		 (int)caller->pid, (unsigned)caller->uid, (unsigned long long)seq,
		 a.reason ? ": " : "", a.reason ?: "");
	o = json_object_new_object();
	if (!o)
		return -ENOMEM;
	r = 0;
	result_add_int(o, PROTO_KEY_REQUEST, (int64_t)seq, &r);
	return result_done(o, r, result);
}
