/* SPDX-License-Identifier: GPL-2.0-only */
/* trackers: the kernel's latency trackers, their settings and counters. */
#include "commands.h"

int cmd_trackers(struct ctl *ctl, const struct command *cmd, int argc, char **argv)
{
	int r = no_arguments(ctl, cmd, argc, argv);

	if (r != EXIT_OK)
		return r == HELP_SHOWN ? EXIT_OK : r;
	return call_print(ctl, cmd, NULL, ctl->out->trackers);
}
