/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The names a user types, checked before anything is sent: commands and trackers, with a
 * "did you mean" for a near miss (proto_nearest()). The trackers' names are the kernel
 * module's own (its uapi header).
 */
#include <stdio.h>
#include <string.h>

#include <latency_tracker.h>

#include "latencyctl.h"

static const char *const trackers[] = {
	LATENCY_TRACKER_NAME_SYSCALLS, LATENCY_TRACKER_NAME_WAKEUP, LATENCY_TRACKER_NAME_OFFCPU,
	LATENCY_TRACKER_NAME_BLOCK,    LATENCY_TRACKER_NAME_IRQ,    LATENCY_TRACKER_NAME_NET,
	LATENCY_TRACKER_NAME_APP,      LATENCY_TRACKER_NAME_FS,	    LATENCY_TRACKER_NAME_IOSCHED,
};
#define N_TRACKERS (sizeof(trackers) / sizeof(trackers[0]))

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
	const char *near = proto_nearest(name, trackers, N_TRACKERS);

	if (near && strcmp(near, name) == 0)
		return EXIT_OK;
	fprintf(stderr, "latencyctl: unknown tracker '%s'", name);
	if (near)
		fprintf(stderr, " (did you mean '%s'?)", near);
	fprintf(stderr, "; the trackers are");
	for (size_t i = 0; i < N_TRACKERS; i++)
		fprintf(stderr, "%s %s", i ? "," : "", trackers[i]);
	fprintf(stderr, "\n");
	return EXIT_USAGE;
}
