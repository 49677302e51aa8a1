/* SPDX-License-Identifier: GPL-2.0-only */
/* The client's renderers' output, captured, for the tests of client/output_*.c. */
#ifndef LATENCYD_TESTS_PRINTED_H
#define LATENCYD_TESTS_PRINTED_H

#include <stdio.h>
#include <stdlib.h>

#include <json-c/json.h>

#include "tests.h"

/* What PRINT writes to FD (stdout or stderr) for REPLY (JSON text), in BUF; PRINT's return. */
static inline int printed_to(int fd, int (*print)(struct json_object *), const char *reply,
			     char *buf, size_t size)
{
	struct json_object *result = json_tokener_parse(reply);
	struct test_capture capture;
	char *text;
	int r;

	ASSERT_TRUE(result);
	test_capture_start(&capture, fd);
	r = print(result);
	text = test_capture_end(&capture);
	snprintf(buf, size, "%s", text);
	free(text);
	json_object_put(result);
	return r;
}

#endif
