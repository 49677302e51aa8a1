/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Each argument through proto_duration_parse(), the one grammar of latencyctl, --since and
 * latencyd.conf: test-doc-durations.sh's check of the durations the documentation shows.
 * Says each one refused, and why; exit status 1 when one was.
 */
#include <stdint.h>
#include <stdio.h>

#include "proto.h"

int main(int argc, char **argv)
{
	int status = 0;

	for (int i = 1; i < argc; i++) {
		const char *why = NULL;
		uint64_t ns;

		if (proto_duration_parse(argv[i], &ns, &why) < 0) {
			fprintf(stderr, "refused: '%s': %s\n", argv[i], why);
			status = 1;
		}
	}
	return status;
}
