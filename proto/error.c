/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Error codes: their stable wire names and the errno each one maps to. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "proto.h"

static const struct {
	const char *name;
	int err; /* positive errno */
} errcodes[_PROTO_ERR_MAX] = {
	[PROTO_ERR_NONE] = {NULL, 0},
	[PROTO_ERR_BAD_REQUEST] = {"bad-request", EBADMSG},
	[PROTO_ERR_UNKNOWN_COMMAND] = {"unknown-command", EOPNOTSUPP},
	[PROTO_ERR_BAD_ARGUMENT] = {"bad-argument", EINVAL},
	[PROTO_ERR_NOT_AUTHORIZED] = {"not-authorized", EPERM},
	[PROTO_ERR_TOO_LARGE] = {"too-large", EMSGSIZE},
	[PROTO_ERR_INTERNAL] = {"internal", EIO},
	[PROTO_ERR_UNSUPPORTED_VERSION] = {"unsupported-version", EPROTONOSUPPORT},
	[PROTO_ERR_BUSY] = {"busy", EBUSY},
	[PROTO_ERR_NOT_FOUND] = {"not-found", ENOENT},
	[PROTO_ERR_REFUSED] = {"refused", ECANCELED},
	[PROTO_ERR_UNRECOGNIZED] = {NULL, EPROTO},
};

const char *proto_errcode_to_string(enum proto_errcode code)
{
	if ((unsigned)code >= _PROTO_ERR_MAX)
		return NULL;
	return errcodes[code].name;
}

enum proto_errcode proto_errcode_from_string(const char *name)
{
	if (!name)
		return PROTO_ERR_UNRECOGNIZED;
	for (unsigned i = 0; i < _PROTO_ERR_MAX; i++)
		if (errcodes[i].name && strcmp(errcodes[i].name, name) == 0)
			return (enum proto_errcode)i;
	return PROTO_ERR_UNRECOGNIZED;
}

int proto_errcode_to_errno(enum proto_errcode code)
{
	if ((unsigned)code >= _PROTO_ERR_MAX)
		return -EPROTO;
	return -errcodes[code].err;
}

int proto_error_set(struct proto_error *err, enum proto_errcode code, const char *fmt, ...)
{
	va_list ap;

	if (err) {
		err->code = code;
		va_start(ap, fmt);
		vsnprintf(err->message, sizeof(err->message), fmt, ap);
		va_end(ap);
	}
	return proto_errcode_to_errno(code);
}
