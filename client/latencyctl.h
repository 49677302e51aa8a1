/* SPDX-License-Identifier: GPL-2.0-only */
/* latencyctl: the control client's types and the index of its files. */
#ifndef LATENCYCTL_H
#define LATENCYCTL_H

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "proto.h"
#include "text_clean.h"

struct json_object;

/* Exit status of latencyctl, the same for every command. */
enum {
	EXIT_OK = 0,
	EXIT_DAEMON = 1,  /* latencyd answered with an error */
	EXIT_USAGE = 2,	  /* bad command line */
	EXIT_CONNECT = 3, /* cannot connect to, or talk with, latencyd */
	EXIT_WRITE = 4,	  /* the output could not be written (stdout.c) */
	EXIT_PENDING = 5, /* record: accepted, its snapshot not seen within --timeout */
};

/* --timeout: each exchange with latencyd, and record's whole wait, within it (conn.c). */
#define CTL_TIMEOUT_USEC_DEFAULT (10 * 1000000ULL)

/* How results are printed: one function per kind of result (bgpctl's struct output). */
struct output {
	const char *name;
	int (*status)(struct json_object *result);
	int (*version)(struct json_object *result);
	int (*trackers)(struct json_object *result);
	/* set-threshold, set-timeout, enable, disable: FILE is the sysfs file changed. */
	int (*tracker_set)(struct json_object *result, const char *file);
	int (*snapshots)(struct json_object *result);		     /* list-snapshots */
	int (*snapshot)(struct json_object *result);		     /* show-snapshot */
	int (*snapshot_deleted)(struct json_object *result);	     /* delete-snapshot */
	int (*event)(const char *name, struct json_object *data);    /* watch */
	int (*recorded)(const char *name, struct json_object *data); /* record's event */
	int (*config)(struct json_object *result);
	int (*reloaded)(struct json_object *result);
	int (*filter)(struct json_object *result);
	int (*incidents)(struct json_object *result); /* incidents (1.4) */
	int (*metrics)(struct json_object *result);   /* metrics (1.9) */
	int (*hist)(struct json_object *result);      /* hist (1.9), or one period of it */
	void (*error)(const char *command, const char *code, const char *message);
};

/* json_str.c: V's text if V is a JSON string, else DFLT (null and other types alike). */
const char *json_str(struct json_object *v, const char *dflt);

/*
 * tree_clean.c: text_clean() (text_clean.h) on every string and member name under O: what
 * the text output does to each result before printing it.
 */
void text_clean_tree(struct json_object *o, bool lines);
/*
 * After N = snprintf(BUF, SIZE, ...): a text cut short ends in "..." (not inside a UTF-8
 * character), so that no cut goes unseen. TEXT_LINE_MAX: a one-line text's buffer.
 */
void text_cut(char *buf, size_t size, int n);
#define TEXT_LINE_MAX 1024

/* output_text.c: aligned tables with units, for humans. */
extern const struct output output_text;
void saved_text(char *buf, size_t size, struct json_object *result);

/* units.c: durations and sizes in the text output. */
size_t format_duration(char *buf, size_t size, uint64_t usec);
/* The duration in member key of o with its unit, "-" when there is none, "off" for 0 if zero_off. */
void ns_text(char *buf, size_t size, struct json_object *o, const char *key, bool zero_off);
/* "12.0 MiB"; "-" for a negative count. */
void bytes_text(char *buf, size_t size, int64_t b);
/* A duration ("500ms", "2s") or a bare number of seconds ("2"), more than 0: 0, or -EINVAL
 * with *why (a static string) saying why. hist --interval, --timeout. */
int parse_seconds(const char *s, uint64_t *ns, const char **why);

/* output_snapshots.c: the text output of the snapshot commands. */
int text_snapshots(struct json_object *result);
int text_snapshot(struct json_object *result);
int text_snapshot_deleted(struct json_object *result);
int text_event(const char *name, struct json_object *data);
int text_recorded(const char *name, struct json_object *data);

/* output_hist.c: the text output of hist. */
int text_hist(struct json_object *result);
/* hist --interval: the result is a period's difference (true), not the kernel's counts. */
#define CTL_KEY_DELTA "delta"

/* output_fleet.c: the text output of the fleet. */
int text_incidents(struct json_object *result);
/* cmd_metrics.c: the metrics text as latencyd rendered it. */
int text_metrics(struct json_object *result);
/* One line for status: the broker connection and its counters. */
void fleet_text(char *buf, size_t size, struct json_object *fleet);
void collector_text(char *buf, size_t size, struct json_object *collector);

/* output_config.c: the text output of config and reload. */
int text_config(struct json_object *result);
int text_reloaded(struct json_object *result);
int text_filter(struct json_object *result);
void filter_text(char *buf, size_t size, struct json_object *filter);

/* columns.c: tables whose columns are as wide as their widest cell. */
#define COLUMNS_MAX 16
struct columns {
	size_t ncols, ncell;
	const char *head[COLUMNS_MAX];
	char **cells;
	bool failed;
};
void columns_init(struct columns *t, const char *const *head, size_t ncols);
void columns_cell(struct columns *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void columns_print(struct columns *t);
void columns_done(struct columns *t);

/* output_json.c: the result object, pretty-printed, for scripts (jq). */
extern const struct output output_json;

/*
 * stdout.c: EXIT_WRITE once writing to stdout failed (flushed first), else EXIT_OK; and,
 * at exit, R unless that failed: then says so and returns EXIT_WRITE (R if not EXIT_OK).
 */
int stdout_check(void);
/* S (and a newline if NEWLINE) on stdout, a failure's reason kept: EXIT_OK or EXIT_WRITE. */
int stdout_puts(const char *s, bool newline);
int stdout_close(int r);

/* One invocation's settings, from the global options. */
struct ctl {
	const char *socket;
	uint64_t timeout_usec;
	const struct output *out;
	/* The command latencyd's errors are said of, when it is not the one sent (analyze asks
	 * show-snapshot); NULL: the one sent. */
	const char *label;
};

/* conn.c: connect, hello, one request, its reply. Returns an exit status. */
int ctl_call(const struct ctl *ctl, const char *command, struct json_object *args,
	     struct json_object **ret_result);
/*
 * The same, then events (watch, record): ready() sees the reply's result, then on_event()
 * each event until it returns something else than EXIT_CONTINUE, which is returned.
 * timeout_usec bounds the wait for events (0: none), counted from the call's start as the
 * reply's ctl->timeout_usec is; when it passes, timed_out() says what that means and returns
 * the exit status (NULL: "latencyd did not answer in time", 3).
 */
#define EXIT_CONTINUE (-1)
struct ctl_events {
	int (*ready)(struct json_object *result, void *arg);
	int (*on_event)(const char *name, struct json_object *data, void *arg);
	int (*timed_out)(void *arg);
	void *arg;
	uint64_t timeout_usec;
};
int ctl_call_events(const struct ctl *ctl, const char *command, struct json_object *args,
		    struct json_object **ret_result, const struct ctl_events *ev);
int result_dispatch(struct json_object *obj, const struct proto_field *fields, void *out,
		    const char *what);
/* poll()'s timeout in ms, rounded up, from NOW to DEADLINE (usec, NOW before it; UINT64_MAX
 * is none: -1), at most INT_MAX. */
int conn_poll_timeout(uint64_t deadline, uint64_t now);

/*
 * table.c: the command table; the handlers are in commands.h. A handler parses its
 * arguments with ctl_getopt(), which applies the global options found among them to CTL.
 */
struct command {
	const char *name;
	const char *args; /* usage of the command's own arguments */
	const char *summary;
	int (*run)(struct ctl *ctl, const struct command *cmd, int argc, char **argv);
	const char *detail;  /* its arguments, units and ranges, one per line; "" */
	const char *example; /* one command line */
};

/* Commands latencyd knows nothing of; the others are named as on the wire (PROTO_CMD_*). */
#define CTL_CMD_HELP	"help"
#define CTL_CMD_ANALYZE "analyze" /* runs here, on a snapshot's files */

const struct command *command_find(const char *name);
/* The usage of every command, and the global options: latencyctl --help. */
void ctl_usage(FILE *f);
/* The commands' names into NAMES (at most MAX); how many. */
size_t commands_names(const char **names, size_t max);

/* names.c: says that WORD is no command, with a near one if any; EXIT_USAGE. */
int unknown_command(const char *word);
/* EXIT_OK for what may be a tracker's name (latencyd says whether the kernel has it);
 * else says why not and EXIT_USAGE. */
int check_tracker(const char *name);

/*
 * options.c: the global options, accepted anywhere on the command line: main.c parses those
 * before the command (ctl_global_options, -h/--help included), ctl_getopt() those after it.
 */
extern const struct option ctl_global_options[];
#define CTL_GLOBAL_SHORTOPTS "s:jt:V"
/*
 * Applies global option C ('s', 'j', 't', 'V') with ARG to CTL: EXIT_OK, EXIT_USAGE after
 * saying why, or EXIT_VERSION_SHOWN (-V printed the version: nothing else to do).
 */
#define EXIT_VERSION_SHOWN   (-2)
int ctl_global(struct ctl *ctl, int c, const char *arg);
/*
 * getopt_long() for a command (argv[0] is its name) whose options are LONGOPTS and -h: the
 * global options may come anywhere among them and its arguments; they are applied to CTL and
 * not returned (-V prints the version and exits 0). Arguments are permuted after the options,
 * "--" ends the options (what follows is an argument). Returns the command's option (-h,
 * --help: 'h'), -1 at the end (argv[optind..] are the arguments) or '?' after saying what is
 * wrong; the caller sets optind to 0 first, and reads CTL only once it returned -1.
 */
int ctl_getopt(struct ctl *ctl, int argc, char **argv, const struct option *longopts);
/*
 * The first argument in ARGV, before "--", that starts as a negative number does ("-1"), the
 * value of an option (of LONGOPTS, NULL, or global) left out; NULL when none. getopt would
 * call it an invalid option: a command whose argument is a number says what it is instead.
 */
const char *ctl_negative_word(int argc, char **argv, const struct option *longopts);

#endif /* LATENCYCTL_H */
