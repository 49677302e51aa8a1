/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Dispatch: what the control socket does with one decoded message. The handshake comes
 * first; then each request is validated (envelope), looked up in the command table,
 * authorized by the row's access class, and handed to its cmd_*() handler. A new command
 * is a new row here and a new daemon/cmd_<name>.c.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "latencyd.h"

/* A command that subscribes its client to events: watch, and record (to see its snapshot). */
#define SUBSCRIBES true

static const struct command {
	const char *name;
	cmd_handler_t handler;
	enum access_class access;
	bool subscribes;
} commands[] = {
	{PROTO_CMD_STATUS, cmd_status, ACCESS_READ, false},
	{PROTO_CMD_VERSION, cmd_version, ACCESS_READ, false},
	{PROTO_CMD_TRACKERS, cmd_trackers, ACCESS_READ, false},
	{PROTO_CMD_SET_THRESHOLD, cmd_set_threshold, ACCESS_ADMIN, false},
	{PROTO_CMD_SET_TIMEOUT, cmd_set_timeout, ACCESS_ADMIN, false},
	{PROTO_CMD_ENABLE, cmd_enable, ACCESS_ADMIN, false},
	{PROTO_CMD_DISABLE, cmd_disable, ACCESS_ADMIN, false},
	{PROTO_CMD_FILTER, cmd_filter, ACCESS_ADMIN, false},
	{PROTO_CMD_LIST_SNAPSHOTS, cmd_list_snapshots, ACCESS_READ, false},
	{PROTO_CMD_SHOW_SNAPSHOT, cmd_show_snapshot, ACCESS_READ, false},
	{PROTO_CMD_DELETE_SNAPSHOT, cmd_delete_snapshot, ACCESS_ADMIN, false},
	{PROTO_CMD_WATCH, cmd_watch, ACCESS_READ, SUBSCRIBES},
	{PROTO_CMD_CONFIG, cmd_config, ACCESS_READ, false},
	{PROTO_CMD_RELOAD, cmd_reload, ACCESS_ADMIN, false},
	{PROTO_CMD_RECORD, cmd_record, ACCESS_ADMIN, SUBSCRIBES},
};

static const struct command *find_command(const char *name)
{
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (strcmp(commands[i].name, name) == 0)
			return &commands[i];
	return NULL;
}

static int request(struct manager *m, const struct control_peer *peer, struct dispatch_state *st,
		   const struct proto_request *req, struct json_object **ret)
{
	struct json_object *result = NULL;
	struct proto_error err = {0};
	const struct command *cmd;
	char uid_field[64], cmd_field[64];
	int r;

	cmd = find_command(req->command);
	if (!cmd) {
		proto_error_set(&err, PROTO_ERR_UNKNOWN_COMMAND, "unknown command '%s'",
				req->command);
		return proto_reply_error_new(req->id, &err, ret);
	}
	r = peer_authorize(peer, cmd->name, cmd->access, &m->conf->control, geteuid(), &err);
	if (r < 0) {
		snprintf(uid_field, sizeof(uid_field), "LATENCYD_PEER_UID=%u", (unsigned)peer->uid);
		snprintf(cmd_field, sizeof(cmd_field), "LATENCYD_COMMAND=%s", cmd->name);
		log_fields(LOG_NOTICE, (const char *const[]){uid_field, cmd_field, NULL},
			   "client %u (pid %d): refused: %s", peer->id, (int)peer->pid,
			   err.message);
		return proto_reply_error_new(req->id, &err, ret);
	}
	r = cmd->handler(m, peer, req->args, &result, &err);
	if (r < 0) {
		json_object_put(result);
		if (err.code == PROTO_ERR_NONE)
			proto_error_set(&err, PROTO_ERR_INTERNAL, "%s: %s", cmd->name,
					strerror(-r));
		log_debug("client %u: %s: %s", peer->id, cmd->name, err.message);
		return proto_reply_error_new(req->id, &err, ret);
	}
	if (cmd->subscribes)
		st->watching = true;
	return proto_reply_new(req->id, result, ret);
}

/* Returns 1 (and an error reply) when the handshake fails and the client must go. */
static int handshake(const struct control_peer *peer, bool *hello_done, struct json_object *msg,
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
		log_info("client %u: handshake failed: %s", peer->id, err.message);
		r = proto_reply_error_new(PROTO_ID_NONE, &err, ret);
		return r < 0 ? r : 1;
	}
	log_debug("client %u: hello from %s, protocol %lld.%lld", peer->id,
		  h.client ?: "an unnamed client", (long long)h.protocol, (long long)h.revision);
	*hello_done = true;
	return proto_hello_new(&ours, ret);
}

/*
 * Answers one message from a client: *ret gets the reply to send. Returns 0 to keep the
 * connection, 1 to close it once the reply is sent, or a negative errno (no reply).
 */
int dispatch_message(struct manager *m, const struct control_peer *peer, struct dispatch_state *st,
		     struct json_object *msg, struct json_object **ret)
{
	struct proto_error err = {0};
	struct proto_request req;

	*ret = NULL;
	if (!st->hello_done)
		return handshake(peer, &st->hello_done, msg, ret);

	switch (proto_message_kind(msg)) {
	case PROTO_MSG_REQUEST:
		if (proto_request_parse(msg, &req, &err) < 0)
			return proto_reply_error_new(req.id, &err, ret);
		return request(m, peer, st, &req, ret);
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
