/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * daemon/base/log.c: a message carries what others chose (a task name, a path, a peer's
 * word). On stderr, which may be a terminal, no control may pass: C0 (a newline would forge
 * a line), DEL, C1 (U+009B is a CSI on a UTF-8 terminal) and bytes of no valid UTF-8 become
 * '?', as latencyctl shows latencyd's text; printable UTF-8 stays. The last warning, which
 * status shows, is the cleaned text too.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "tests.h"

#define UTF8 "caf\xc3\xa9-\xe6\x97\xa5\xe6\x9c\xac"

static void test_cleaned(void)
{
	struct test_capture capture;
	char last[256];
	char *text;

	test_capture_start(&capture, STDERR_FILENO);
	log_warnx("task '%s' " UTF8, "\x1b]0;X\x07\xc2\x9b"
				     "2J\x7f\xff\ni");
	text = test_capture_end(&capture);
	ASSERT_STREQ(text, "test: warning: task '?]0;X??2J???i' " UTF8 "\n");
	free(text);
	log_last_warning(last, sizeof(last));
	ASSERT_STREQ(last, "task '?]0;X??2J???i' " UTF8);
}

int main(void)
{
	unsetenv("INVOCATION_ID");
	unsetenv("JOURNAL_STREAM");
	log_init("test", LOG_INFO);
	RUN(test_cleaned);
	return 0;
}
