/* SPDX-License-Identifier: GPL-2.0-only */
/* "status": the daemon (version, pid, uptime) and the kernel module's state. */
#include <errno.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "latencyd.h"

static struct json_object *module_object(const struct kmodule_status *st, int *r)
{
	struct json_object *o = json_object_new_object();

	if (!o) {
		*r = -ENOMEM;
		return NULL;
	}
	result_add_string(o, PROTO_KEY_STATE, kmodule_state_to_string(st->state), r);
	result_add_bool(o, PROTO_KEY_LOADED, st->state != KMODULE_NOT_LOADED, r);
	if (st->abi_known) {
		result_add_int(o, PROTO_KEY_ABI_MAJOR, st->abi_major, r);
		result_add_int(o, PROTO_KEY_ABI_MINOR, st->abi_minor, r);
	}
	if (st->detail[0])
		result_add_string(o, PROTO_KEY_DETAIL, st->detail, r);
	return o;
}

int cmd_status(struct manager *m, const struct control_peer *peer, struct json_object *args,
	       struct json_object **result, struct proto_error *err)
{
	struct json_object *o;
	uint64_t now;
	int r;

	r = args_none(args, err);
	if (r < 0)
		return r;

	manager_refresh_module(m);
	r = sd_event_now(m->event, CLOCK_MONOTONIC, &now);
	if (r < 0)
		return r;

	o = json_object_new_object();
	if (!o)
		return -ENOMEM;
	result_add_string(o, PROTO_KEY_VERSION, LATENCYD_VERSION, &r);
	result_add_int(o, PROTO_KEY_PID, getpid(), &r);
	result_add_int(o, PROTO_KEY_UPTIME_USEC, (int64_t)(now - m->start_usec), &r);
	result_add(o, PROTO_KEY_MODULE, module_object(&m->module, &r), &r);
	if (m->recorder && r >= 0)
		r = recorder_status(m->recorder, o);
	return result_done(o, r, result);
}
