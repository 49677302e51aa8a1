/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The command table: what each command is called on the wire, its handler, what it needs
 * (read: any allowed client; admin: admin_group or root) and whether it subscribes its
 * client to events. A new command is a new row here and a new cmd_<name>.c.
 */
#include <json-c/json.h>

#include "commands.h"

/* A command that subscribes its client to events: watch, and record (to see its snapshot). */
#define SUBSCRIBES true

static const struct control_command rows[] = {
	{PROTO_CMD_STATUS, cmd_status, ACCESS_READ, false},
	{PROTO_CMD_VERSION, cmd_version, ACCESS_READ, false},
	{PROTO_CMD_TRACKERS, cmd_trackers, ACCESS_READ, false},
	{PROTO_CMD_SET_THRESHOLD, cmd_set_threshold, ACCESS_ADMIN, false},
	{PROTO_CMD_SET_TIMEOUT, cmd_set_timeout, ACCESS_ADMIN, false},
	{PROTO_CMD_ENABLE, cmd_enable, ACCESS_ADMIN, false},
	{PROTO_CMD_DISABLE, cmd_disable, ACCESS_ADMIN, false},
	{PROTO_CMD_FILTER, cmd_filter, ACCESS_ADMIN, false},
	{PROTO_CMD_LIST_SNAPSHOTS, cmd_list_snapshots, ACCESS_READ, false},
	{PROTO_CMD_SHOW_SNAPSHOT, cmd_show_snapshot, ACCESS_READ, false},
	{PROTO_CMD_DELETE_SNAPSHOT, cmd_delete_snapshot, ACCESS_ADMIN, false},
	{PROTO_CMD_WATCH, cmd_watch, ACCESS_READ, SUBSCRIBES},
	{PROTO_CMD_CONFIG, cmd_config, ACCESS_READ, false},
	{PROTO_CMD_RELOAD, cmd_reload, ACCESS_ADMIN, false},
	{PROTO_CMD_RECORD, cmd_record, ACCESS_ADMIN, SUBSCRIBES},
	{PROTO_CMD_INCIDENTS, cmd_incidents, ACCESS_READ, false},
	{PROTO_CMD_METRICS, cmd_metrics, ACCESS_READ, false},
	/* Read access: --reset and a change of --per need admin, checked in cmd_hist.c. */
	{PROTO_CMD_HIST, cmd_hist, ACCESS_READ, false},
};

const struct control_commands commands_table = {rows, sizeof(rows) / sizeof(rows[0])};
