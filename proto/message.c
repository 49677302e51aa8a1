/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Messages: hello, request, reply, event. Builders return a new object; parsers validate
 * with field tables and return borrowed pointers into the message.
 *
 * Strictness: requests are strict, unknown members are errors (a typo must not be ignored).
 * The bodies of hello, reply and event ignore members they do not know, so that a newer
 * revision can add them without breaking older peers.
 */
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <json-c/json.h>

#include "proto.h"

/* Adds val (consumed, may be a NULL meaning JSON null unless nullable is false) to obj. */
static int add(struct json_object *obj, const char *key, struct json_object *val, bool nullable)
{
	if (!val && !nullable)
		return -ENOMEM;
	if (json_object_object_add(obj, key, val) < 0) {
		json_object_put(val);
		return -ENOMEM;
	}
	return 0;
}

static int add_id(struct json_object *obj, int64_t id)
{
	return add(obj, PROTO_KEY_ID, id < 0 ? NULL : json_object_new_int64(id), id < 0);
}

/*
 * An id is 0 to INT64_MAX. json-c reads a larger integer back as INT64_MAX from
 * json_object_get_int64(), so only its uint64 value tells the two apart.
 */
static bool id_usable(struct json_object *id)
{
	return json_object_is_type(id, json_type_int) && json_object_get_int64(id) >= 0 &&
	       (uint64_t)json_object_get_int64(id) == json_object_get_uint64(id);
}

static int new_object(struct json_object **ret)
{
	*ret = json_object_new_object();
	return *ret ? 0 : -ENOMEM;
}

static bool has(struct json_object *msg, const char *key)
{
	return json_object_object_get_ex(msg, key, NULL);
}

enum proto_msg_kind proto_message_kind(struct json_object *msg)
{
	if (!json_object_is_type(msg, json_type_object))
		return PROTO_MSG_INVALID;
	if (has(msg, PROTO_KEY_HELLO))
		return PROTO_MSG_HELLO;
	if (has(msg, PROTO_KEY_COMMAND))
		return PROTO_MSG_REQUEST;
	if (has(msg, PROTO_KEY_OK))
		return PROTO_MSG_REPLY;
	if (has(msg, PROTO_KEY_EVENT))
		return PROTO_MSG_EVENT;
	return PROTO_MSG_INVALID;
}

/* Field-table failures inside the envelope are the sender's fault: bad-request. */
static int envelope_error(int r, struct proto_error *err, const char *what)
{
	char msg[PROTO_MESSAGE_MAX];

	if (r >= 0 || !err)
		return r;
	snprintf(msg, sizeof(msg), "%s", err->message);
	return proto_error_set(err, PROTO_ERR_BAD_REQUEST, "%s: %s", what, msg);
}

int proto_hello_new(const struct proto_hello *h, struct json_object **ret)
{
	struct json_object *msg = NULL, *body = NULL;
	int r;

	if ((r = new_object(&msg)) < 0 || (r = new_object(&body)) < 0)
		goto fail;
	r = add(body, PROTO_KEY_PROTOCOL, json_object_new_int64(h->protocol), false);
	if (r >= 0)
		r = add(body, PROTO_KEY_REVISION, json_object_new_int64(h->revision), false);
	if (r >= 0 && h->client)
		r = add(body, PROTO_KEY_CLIENT, json_object_new_string(h->client), false);
	if (r >= 0 && h->server)
		r = add(body, PROTO_KEY_SERVER, json_object_new_string(h->server), false);
	if (r >= 0 && h->version)
		r = add(body, PROTO_KEY_VERSION, json_object_new_string(h->version), false);
	if (r < 0)
		goto fail;
	r = add(msg, PROTO_KEY_HELLO, body, false);
	body = NULL;
	if (r < 0)
		goto fail;
	*ret = msg;
	return 0;
fail:
	json_object_put(body);
	json_object_put(msg);
	return r;
}

int proto_hello_parse(struct json_object *msg, struct proto_hello *h, struct proto_error *err)
{
	static const struct proto_field envelope[] = {
		{PROTO_KEY_HELLO, PROTO_FIELD_OBJECT, PROTO_FIELD_REQUIRED, 0},
		{NULL},
	};
	static const struct proto_field body_fields[] = {
		{PROTO_KEY_PROTOCOL, PROTO_FIELD_INT, PROTO_FIELD_REQUIRED,
		 offsetof(struct proto_hello, protocol)},
		{PROTO_KEY_REVISION, PROTO_FIELD_INT, 0, offsetof(struct proto_hello, revision)},
		{PROTO_KEY_CLIENT, PROTO_FIELD_STRING, 0, offsetof(struct proto_hello, client)},
		{PROTO_KEY_SERVER, PROTO_FIELD_STRING, 0, offsetof(struct proto_hello, server)},
		{PROTO_KEY_VERSION, PROTO_FIELD_STRING, 0, offsetof(struct proto_hello, version)},
		{NULL},
	};
	struct json_object *body = NULL;
	int r;

	memset(h, 0, sizeof(*h));
	r = proto_fields_dispatch(msg, envelope, 0, &body, err);
	if (r < 0)
		return envelope_error(r, err, "hello");
	r = proto_fields_dispatch(body, body_fields, PROTO_DISPATCH_ALLOW_UNKNOWN, h, err);
	return envelope_error(r, err, "hello");
}

/* The one compatibility rule: the same PROTO_VERSION; revisions may differ. */
int proto_hello_check(const struct proto_hello *h, struct proto_error *err)
{
	if (h->protocol != PROTO_VERSION)
		return proto_error_set(
			err, PROTO_ERR_UNSUPPORTED_VERSION,
			"protocol version %lld is not supported (this side speaks %d)",
			(long long)h->protocol, PROTO_VERSION);
	return 0;
}

int proto_request_new(int64_t id, const char *command, struct json_object *args,
		      struct json_object **ret)
{
	struct json_object *msg;
	int r;

	if (id < 0 || !command) {
		json_object_put(args);
		return -EINVAL;
	}
	r = new_object(&msg);
	if (r < 0) {
		json_object_put(args);
		return r;
	}
	r = add_id(msg, id);
	if (r >= 0)
		r = add(msg, PROTO_KEY_COMMAND, json_object_new_string(command), false);
	if (r >= 0 && args)
		r = add(msg, PROTO_KEY_ARGS, args, false);
	else
		json_object_put(args);
	if (r < 0) {
		json_object_put(msg);
		return r;
	}
	*ret = msg;
	return 0;
}

int proto_request_parse(struct json_object *msg, struct proto_request *req, struct proto_error *err)
{
	/* The id judged by id_usable(), whatever the other members say: see below. */
	struct parsed {
		struct json_object *id;
		const char *command;
		struct json_object *args;
	} p = {0};
	static const struct proto_field fields[] = {
		{PROTO_KEY_ID, PROTO_FIELD_ANY, PROTO_FIELD_REQUIRED, offsetof(struct parsed, id)},
		{PROTO_KEY_COMMAND, PROTO_FIELD_STRING, PROTO_FIELD_REQUIRED,
		 offsetof(struct parsed, command)},
		{PROTO_KEY_ARGS, PROTO_FIELD_OBJECT, 0, offsetof(struct parsed, args)},
		{NULL},
	};
	struct json_object *id = NULL;
	int r;

	memset(req, 0, sizeof(*req));
	r = proto_fields_dispatch(msg, fields, 0, &p, err);
	req->command = p.command;
	req->args = p.args;
	json_object_object_get_ex(msg, PROTO_KEY_ID, &id);
	/* Keep a usable id so that the error reply can still be matched. */
	req->id = id_usable(id) ? json_object_get_int64(id) : PROTO_ID_NONE;
	if (r < 0)
		return envelope_error(r, err, "request");
	if (req->id == PROTO_ID_NONE)
		return proto_error_set(
			err, PROTO_ERR_BAD_REQUEST,
			"request: field 'id' must be a non-negative integer, at most "
			"%" PRId64,
			INT64_MAX);
	return 0;
}

int proto_reply_new(int64_t id, struct json_object *result, struct json_object **ret)
{
	struct json_object *msg;
	int r;

	r = new_object(&msg);
	if (r < 0) {
		json_object_put(result);
		return r;
	}
	r = add_id(msg, id);
	if (r >= 0)
		r = add(msg, PROTO_KEY_OK, json_object_new_boolean(1), false);
	if (r >= 0)
		r = add(msg, PROTO_KEY_RESULT, result ? result : json_object_new_object(), false);
	else
		json_object_put(result);
	if (r < 0) {
		json_object_put(msg);
		return r;
	}
	*ret = msg;
	return 0;
}

int proto_reply_error_new(int64_t id, const struct proto_error *e, struct json_object **ret)
{
	struct json_object *msg = NULL, *body = NULL;
	const char *code = proto_errcode_to_string(e->code);
	int r;

	if (!code)
		code = proto_errcode_to_string(PROTO_ERR_INTERNAL);
	if ((r = new_object(&msg)) < 0 || (r = new_object(&body)) < 0)
		goto fail;
	r = add(body, PROTO_KEY_CODE, json_object_new_string(code), false);
	if (r >= 0)
		r = add(body, PROTO_KEY_MESSAGE, json_object_new_string(e->message), false);
	if (r >= 0)
		r = add_id(msg, id);
	if (r >= 0)
		r = add(msg, PROTO_KEY_OK, json_object_new_boolean(0), false);
	if (r < 0)
		goto fail;
	r = add(msg, PROTO_KEY_ERROR, body, false);
	body = NULL;
	if (r < 0)
		goto fail;
	*ret = msg;
	return 0;
fail:
	json_object_put(body);
	json_object_put(msg);
	return r;
}

int proto_reply_parse(struct json_object *msg, struct proto_reply *rep, struct proto_error *err)
{
	struct parsed {
		struct json_object *id, *result, *error;
		bool ok;
	} p = {0};
	static const struct proto_field fields[] = {
		{PROTO_KEY_ID, PROTO_FIELD_ANY, PROTO_FIELD_REQUIRED, offsetof(struct parsed, id)},
		{PROTO_KEY_OK, PROTO_FIELD_BOOL, PROTO_FIELD_REQUIRED, offsetof(struct parsed, ok)},
		{PROTO_KEY_RESULT, PROTO_FIELD_OBJECT, 0, offsetof(struct parsed, result)},
		{PROTO_KEY_ERROR, PROTO_FIELD_OBJECT, 0, offsetof(struct parsed, error)},
		{NULL},
	};
	static const struct proto_field error_fields[] = {
		{PROTO_KEY_CODE, PROTO_FIELD_STRING, PROTO_FIELD_REQUIRED,
		 offsetof(struct proto_reply, code_name)},
		{PROTO_KEY_MESSAGE, PROTO_FIELD_STRING, 0, offsetof(struct proto_reply, message)},
		{NULL},
	};
	int r;

	memset(rep, 0, sizeof(*rep));
	r = proto_fields_dispatch(msg, fields, PROTO_DISPATCH_ALLOW_UNKNOWN, &p, err);
	if (r < 0)
		return envelope_error(r, err, "reply");
	if (!p.id)
		rep->id = PROTO_ID_NONE;
	else if (id_usable(p.id))
		rep->id = json_object_get_int64(p.id);
	else
		return proto_error_set(err, PROTO_ERR_BAD_REQUEST,
				       "reply: field 'id' must be a non-negative integer or null");
	rep->ok = p.ok;
	if (p.ok) {
		if (!p.result)
			return proto_error_set(err, PROTO_ERR_BAD_REQUEST,
					       "reply: missing required field 'result'");
		rep->result = p.result;
		return 0;
	}
	if (!p.error)
		return proto_error_set(err, PROTO_ERR_BAD_REQUEST,
				       "reply: missing required field 'error'");
	r = proto_fields_dispatch(p.error, error_fields, PROTO_DISPATCH_ALLOW_UNKNOWN, rep, err);
	if (r < 0)
		return envelope_error(r, err, "reply error");
	rep->code = proto_errcode_from_string(rep->code_name);
	if (!rep->message)
		rep->message = "";
	return 0;
}

int proto_event_new(const char *name, struct json_object *data, struct json_object **ret)
{
	struct json_object *msg;
	int r;

	r = new_object(&msg);
	if (r < 0) {
		json_object_put(data);
		return r;
	}
	r = add(msg, PROTO_KEY_EVENT, json_object_new_string(name), false);
	if (r >= 0)
		r = add(msg, PROTO_KEY_DATA, data ? data : json_object_new_object(), false);
	else
		json_object_put(data);
	if (r < 0) {
		json_object_put(msg);
		return r;
	}
	*ret = msg;
	return 0;
}

int proto_event_parse(struct json_object *msg, struct proto_event *ev, struct proto_error *err)
{
	static const struct proto_field fields[] = {
		{PROTO_KEY_EVENT, PROTO_FIELD_STRING, PROTO_FIELD_REQUIRED,
		 offsetof(struct proto_event, name)},
		{PROTO_KEY_DATA, PROTO_FIELD_OBJECT, PROTO_FIELD_REQUIRED,
		 offsetof(struct proto_event, data)},
		{NULL},
	};
	int r;

	memset(ev, 0, sizeof(*ev));
	r = proto_fields_dispatch(msg, fields, PROTO_DISPATCH_ALLOW_UNKNOWN, ev, err);
	return envelope_error(r, err, "event");
}
