/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * result.c: building JSON objects with a sticky error. Each adder takes *r: once it is
 * negative, later calls do nothing, so a builder adds all its fields and checks once.
 */
#ifndef LATENCYD_BASE_RESULT_H
#define LATENCYD_BASE_RESULT_H

#include <stdbool.h>
#include <stdint.h>

struct json_object;

/* Takes val (NULL: -ENOMEM). */
void result_add(struct json_object *o, const char *key, struct json_object *val, int *r);
void result_add_string(struct json_object *o, const char *key, const char *val, int *r);
void result_add_int(struct json_object *o, const char *key, int64_t val, int *r);
void result_add_bool(struct json_object *o, const char *key, bool val, int *r);
/* The end of a builder: *result gets o, or o goes and the error is returned. */
int result_done(struct json_object *o, int r, struct json_object **result);

#endif /* LATENCYD_BASE_RESULT_H */
