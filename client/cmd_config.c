/* SPDX-License-Identifier: GPL-2.0-only */
/* config and reload: the configuration latencyd runs with, and reading its file again. */
#include "commands.h"

int cmd_config(struct ctl *ctl, const struct command *cmd, int argc, char **argv)
{
	int r = no_arguments(ctl, cmd, argc, argv);

	if (r != EXIT_OK)
		return r == HELP_SHOWN ? EXIT_OK : r;
	return call_print(ctl, cmd, NULL, ctl->out->config);
}

int cmd_reload(struct ctl *ctl, const struct command *cmd, int argc, char **argv)
{
	int r = no_arguments(ctl, cmd, argc, argv);

	if (r != EXIT_OK)
		return r == HELP_SHOWN ? EXIT_OK : r;
	return call_print(ctl, cmd, NULL, ctl->out->reloaded);
}
