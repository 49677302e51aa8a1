/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* strict.c: what json-c's strict parser lets through and JSON does not, refused. */
#ifndef LATENCYD_PROTO_STRICT_H
#define LATENCYD_PROTO_STRICT_H

#include <stddef.h>

#include "proto.h"

/* Objects nested in one frame: json-c's parser allows no more. */
#define STRICT_DEPTH_MAX (PROTO_JSON_DEPTH_MAX + 1)

struct json_object;

/*
 * TEXT (LEN bytes, the whole value json-c parsed into OBJ): 0, or -EBADMSG with WHY saying
 * what and at which column (a duplicate member, NaN, a number out of a double's range, a
 * single quote, a raw control character in a string...), -ENOMEM.
 */
int proto_json_strict_check(const char *text, size_t len, struct json_object *obj, char *why,
			    size_t whylen);

#endif /* LATENCYD_PROTO_STRICT_H */
