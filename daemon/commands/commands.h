/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The control commands, one per file (cmd_<name>.c), each: validate its arguments with a
 * field table, act through the manager and the layers below, build the result. table.c
 * lists them with their access class; control/dispatch.c authorizes and calls them.
 */
#ifndef LATENCYD_COMMANDS_H
#define LATENCYD_COMMANDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "control.h"
#include "log.h"
#include "manager.h"
#include "result.h"

struct json_object;

/* table.c */
extern const struct control_commands commands_table;
/* args.c: for commands that take no arguments: any member of args is an error. */
int args_none(struct json_object *args, struct proto_error *err);

#define COMMAND(name)                                                                              \
	int name(struct manager *m, const struct control_caller *caller, struct json_object *args, \
		 struct json_object **result, struct proto_error *err)

COMMAND(cmd_status);
COMMAND(cmd_version);
COMMAND(cmd_trackers);
COMMAND(cmd_set_threshold);
COMMAND(cmd_set_timeout);
COMMAND(cmd_enable);
COMMAND(cmd_disable);
COMMAND(cmd_filter);
COMMAND(cmd_list_snapshots);
COMMAND(cmd_show_snapshot);
COMMAND(cmd_delete_snapshot);
COMMAND(cmd_watch);
COMMAND(cmd_config);
COMMAND(cmd_reload);
COMMAND(cmd_record);
COMMAND(cmd_incidents);
COMMAND(cmd_metrics);
COMMAND(cmd_hist);

/* tracker_access.c: a tracker's sysfs files, with the kernel's refusals as replies. */
int tracker_check(const struct manager *m, const char *name, struct proto_error *err);
/* NAME is no tracker: not-found with the kernel's trackers, a near one hinted ("did you
 * mean"), and ALSO after the list; or the module not loaded. */
int tracker_not_found(const struct manager *m, const char *name, const char *also,
		      struct proto_error *err);
int tracker_read(const struct manager *m, const char *name, const char *file, uint64_t *ret);
int tracker_write(const struct manager *m, const char *name, const char *file, uint64_t value,
		  struct proto_error *err);
int tracker_write_text(const struct manager *m, const char *name, const char *file,
		       const char *text, struct proto_error *err);
/* The filters that are set: {"pid", "tid", "comm", "cgroup_id"}. */
struct json_object *tracker_filter_json(const struct manager *m, const char *name);
/* cmd_set_threshold.c: args {tracker, FILE} (or {tracker} with a fixed value) to sysfs. */
int tracker_set(struct manager *m, struct json_object *args, const char *file, uint64_t fixed,
		bool has_fixed, struct json_object **result, struct proto_error *err);

/* hist_read.c: one tracker's histograms for hist (cmd_hist.c). */
struct hist_want {
	const char *tracker;
	const char *per;		  /* NULL: delay_ns alone; else hist/per is set to it */
	bool per_kept;			  /* hist/per must be PER already: refused, not set */
	const char *disk_dev, *disk_name; /* with per disk: that disk's counts alone */
	const struct kdisks *disks;	  /* to name disk keys */
};
int hist_read(struct manager *m, const struct control_caller *caller, const struct hist_want *w,
	      struct proto_hist *h, struct proto_error *err);
/* What to add to strerror(-R) when a write to a tracker's hist/ file failed: why, when
 * latencyd is not root; else "". */
const char *hist_root_alone(int r);

/* saved.c: latencyctl --save, the saved-settings file (control.save_file), kept atomically. */
struct saved_change {
	char key[96];	   /* "trackers.NAME.SETTING" */
	const char *value; /* as the configuration file spells it, unquoted */
};
/* Before the change: can it be saved? (bad-argument, refused) */
int saved_check(struct manager *m, const struct saved_change *ch, size_t n,
		struct proto_error *err);
/* After the change: merges it into the file and the running configuration. */
int saved_store(struct manager *m, const struct saved_change *ch, size_t n,
		struct proto_error *err);

#endif /* LATENCYD_COMMANDS_H */
