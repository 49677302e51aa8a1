/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The names a user types, checked before anything is sent: a command, with a "did you mean"
 * for a near miss (proto_nearest()); a tracker's name, for its form alone. Which trackers
 * there are is the kernel's to say: a newer module may have more than latencyctl knows of,
 * so latencyd answers an unknown one with the kernel's list and the near miss.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <latency_tracker.h>

#include "latencyctl.h"

int unknown_command(const char *word)
{
	const char *names[64];
	const char *near;
	size_t n = commands_names(names, sizeof(names) / sizeof(names[0]));

	near = proto_nearest(word, names, n);
	fprintf(stderr, "latencyctl: unknown command '%s'%s%s%s\nTry 'latencyctl help'.\n", word,
		near ? " (did you mean '" : "", near ? near : "", near ? "'?)" : "");
	return EXIT_USAGE;
}

int check_tracker(const char *name)
{
	size_t n = strlen(name);
	bool ok = n > 0 && n < LATENCY_TRACKER_NAME_LEN && strcmp(name, ".") && strcmp(name, "..");

	for (const char *p = name; ok && *p; p++)
		ok = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		     (*p >= '0' && *p <= '9') || *p == '_' || *p == '-' || *p == '.';
	if (ok)
		return EXIT_OK;
	fprintf(stderr,
		"latencyctl: invalid tracker name '%s': up to %d letters, digits, '_', '-' and "
		"'.', as the kernel names its trackers (see latencyctl trackers)\n",
		name, LATENCY_TRACKER_NAME_LEN - 1);
	return EXIT_USAGE;
}
