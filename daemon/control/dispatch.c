/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Dispatch: what the control socket does with one decoded message. The handshake comes
 * first; then each request is validated (envelope), looked up in the command table,
 * authorized by the row's access class, and handed to its handler. A new command is a new
 * row in daemon/commands/table.c and a new daemon/commands/cmd_<name>.c. A refused command
 * is logged at most once an interval per uid (throttle.c): a member of read_group may send
 * admin commands at will, one connection carrying thousands.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "control.h"
#include "log.h"

static const struct control_command *find_command(const struct control_commands *t,
						  const char *name)
{
	for (size_t i = 0; i < t->n; i++)
		if (strcmp(t->v[i].name, name) == 0)
			return &t->v[i];
	return NULL;
}

static int request(const struct dispatch_ctx *ctx, const struct control_caller *caller,
		   struct dispatch_state *st, const struct proto_request *req,
		   struct json_object **ret)
{
	struct json_object *result = NULL;
	struct proto_error err = {0};
	const struct control_command *cmd;
	char uid_field[64], cmd_field[64];
	int r;

	cmd = find_command(ctx->commands, req->command);
	if (!cmd) {
		proto_error_set(&err, PROTO_ERR_UNKNOWN_COMMAND, "unknown command '%s'",
				req->command);
		return proto_reply_error_new(req->id, &err, ret);
	}
	r = caller_authorize(caller, cmd->name, cmd->access, ctx->cc, geteuid(), &err);
	if (r < 0 && throttle_now(ctx->refusals, caller->uid, err.message)) {
		snprintf(uid_field, sizeof(uid_field), "LATENCYD_PEER_UID=%u",
			 (unsigned)caller->uid);
		snprintf(cmd_field, sizeof(cmd_field), "LATENCYD_COMMAND=%s", cmd->name);
		log_fields(LOG_NOTICE, (const char *const[]){uid_field, cmd_field, NULL},
			   "client %u (pid %d): refused: %s", caller->id, (int)caller->pid,
			   err.message);
	}
	if (r < 0)
		return proto_reply_error_new(req->id, &err, ret);
	r = cmd->handler(ctx->m, caller, req->args, &result, &err);
	if (r < 0) {
		json_object_put(result);
		if (err.code == PROTO_ERR_NONE)
			proto_error_set(&err, PROTO_ERR_INTERNAL, "%s: %s", cmd->name,
					strerror(-r));
		log_debug("client %u: %s: %s", caller->id, cmd->name, err.message);
		return proto_reply_error_new(req->id, &err, ret);
	}
	if (cmd->subscribes)
		st->watching = true;
	return proto_reply_new(req->id, result, ret);
}

/* Returns 1 (and an error reply) when the handshake fails and the client must go. */
static int handshake(const struct control_caller *caller, bool *hello_done, struct json_object *msg,
		     struct json_object **ret)
{
	static const struct proto_hello ours = {
		.protocol = PROTO_VERSION,
		.revision = PROTO_REVISION,
		.server = "latencyd",
		.version = LATENCYD_VERSION,
	};
	struct proto_error err = {0};
	struct proto_hello h;
	int r;

	if (proto_message_kind(msg) != PROTO_MSG_HELLO)
		proto_error_set(&err, PROTO_ERR_BAD_REQUEST,
				"handshake required: the first message must be a hello");
	else if (proto_hello_parse(msg, &h, &err) >= 0)
		proto_hello_check(&h, &err);
	if (err.code != PROTO_ERR_NONE) {
		log_info("client %u: handshake failed: %s", caller->id, err.message);
		r = proto_reply_error_new(PROTO_ID_NONE, &err, ret);
		return r < 0 ? r : 1;
	}
	log_debug("client %u: hello from %s, protocol %lld.%lld", caller->id,
		  h.client ?: "an unnamed client", (long long)h.protocol, (long long)h.revision);
	*hello_done = true;
	return proto_hello_new(&ours, ret);
}

/*
 * Answers one message from a client: *ret gets the reply to send. Returns 0 to keep the
 * connection, 1 to close it once the reply is sent, or a negative errno (no reply).
 */
int dispatch_message(const struct dispatch_ctx *ctx, const struct control_caller *caller,
		     struct dispatch_state *st, struct json_object *msg, struct json_object **ret)
{
	struct proto_error err = {0};
	struct proto_request req;

	*ret = NULL;
	if (!st->hello_done)
		return handshake(caller, &st->hello_done, msg, ret);

	switch (proto_message_kind(msg)) {
	case PROTO_MSG_REQUEST:
		if (proto_request_parse(msg, &req, &err) < 0)
			return proto_reply_error_new(req.id, &err, ret);
		return request(ctx, caller, st, &req, ret);
	case PROTO_MSG_HELLO:
		proto_error_set(&err, PROTO_ERR_BAD_REQUEST, "hello was already received");
		break;
	default:
		proto_error_set(&err, PROTO_ERR_BAD_REQUEST,
				"not a request: expected \"id\", \"command\" and \"args\"");
		break;
	}
	return proto_reply_error_new(PROTO_ID_NONE, &err, ret);
}
