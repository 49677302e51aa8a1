// SPDX-License-Identifier: GPL-2.0-only
/*
 * An instrumented application for host tests: emits an LTTng-UST tracef event every
 * millisecond until killed, so a userspace flight-recorder session has history to record.
 */
#include <lttng/tracef.h>
#include <time.h>

int main(void)
{
	struct timespec ms = {0, 1000000};

	for (unsigned long i = 0;; i++) {
		tracef("ust-app tick %lu", i);
		nanosleep(&ms, NULL);
	}
}
