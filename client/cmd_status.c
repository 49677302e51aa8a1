/* SPDX-License-Identifier: GPL-2.0-only */
/* status and version: latencyd's state, and the versions it and its module run. */
#include "commands.h"

int cmd_status(struct ctl *ctl, const struct command *cmd, int argc, char **argv)
{
	int r = no_arguments(ctl, cmd, argc, argv);

	if (r != EXIT_OK)
		return r == HELP_SHOWN ? EXIT_OK : r;
	/* ctl->out only now: a --json may come after the command. */
	return call_print(ctl, cmd, NULL, ctl->out->status);
}

int cmd_version(struct ctl *ctl, const struct command *cmd, int argc, char **argv)
{
	int r = no_arguments(ctl, cmd, argc, argv);

	if (r != EXIT_OK)
		return r == HELP_SHOWN ? EXIT_OK : r;
	return call_print(ctl, cmd, NULL, ctl->out->version);
}
