/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * metrics: latencyd's counters in the Prometheus text format, as latencyd renders them.
 * A text larger than a frame comes in parts (next_line): asked for until the last one, each
 * after the first naming the rendering the first came from (1.16), so that they are one
 * text. Nothing is printed before the last part came: a read that fails part way prints
 * no half text. latencyd keeps a few renderings per user a while: one pushed out by that
 * user's newer reads (scrapers running latencyctl metrics at once), or kept no longer, is
 * read again from its first line, a bounded number of times.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "commands.h"

/* Parts at most: a text that keeps growing as it is read must still end. */
#define PARTS_MAX    64
/* Reads started over at most when the rendering went part way: other reads outrun ours. */
#define RESTARTS_MAX 3

/*
 * The error of a later part, held rather than printed: not-found there says that the
 * rendering it names is gone (nothing else a part asks for can be missing), and the read
 * starts over. The output's error callback takes no argument: this process's one read holds
 * it here.
 */
static struct {
	char *command, *code, *message;
} held;

static void held_done(void)
{
	free(held.command);
	free(held.code);
	free(held.message);
	memset(&held, 0, sizeof(held));
}

static void hold_error(const char *command, const char *code, const char *message)
{
	held_done();
	held.command = strdup(command ?: "");
	held.code = strdup(code ?: "");
	held.message = strdup(message ?: "");
}

/* The error held, printed as the output prints latencyd's errors. */
static void print_held(const struct ctl *ctl)
{
	ctl->out->error(held.command ?: "?", held.code ?: "?", held.message ?: "?");
}

/*
 * The part from line FROM of rendering ID (0: none yet, the first part) into *RESULT. A
 * later part's error is held (*GONE: the rendering is gone), not printed.
 */
static int ask_part(struct ctl *ctl, const struct command *cmd, int64_t from, int64_t id,
		    struct json_object **result, bool *gone)
{
	struct json_object *args = json_object_new_object();
	struct output quiet = *ctl->out;
	struct ctl later = *ctl;
	int r = 0;

	if (!args ||
	    json_object_object_add(args, PROTO_KEY_FROM_LINE, json_object_new_int64(from)) < 0)
		r = -1;
	if (r == 0 && id &&
	    json_object_object_add(args, PROTO_KEY_RENDERING, json_object_new_int64(id)) < 0)
		r = -1;
	if (r < 0) {
		json_object_put(args);
		fprintf(stderr, "latencyctl: out of memory\n");
		return EXIT_CONNECT;
	}
	*gone = false;
	if (!id)
		return ctl_call(ctl, cmd->name, args, result); /* takes ARGS */
	quiet.error = hold_error;
	later.out = &quiet;
	r = ctl_call(&later, cmd->name, args, result);
	if (r == EXIT_DAEMON && proto_errcode_from_string(held.code) == PROTO_ERR_NOT_FOUND)
		*gone = true;
	else if (r == EXIT_DAEMON)
		print_held(ctl);
	return r;
}

/* The member KEY of RESULT if it is a positive integer, else 0. */
static int64_t positive(struct json_object *result, const char *key)
{
	struct json_object *v;
	int64_t n;

	if (!json_object_object_get_ex(result, key, &v) || !json_object_is_type(v, json_type_int))
		return 0;
	n = json_object_get_int64(v);
	return n > 0 ? n : 0;
}

/*
 * One read: its parts into PARTS, *N of them, all of one rendering. *GONE: latencyd no
 * longer keeps it (its error held); else an error was said.
 */
static int read_parts(struct ctl *ctl, const struct command *cmd, struct json_object **parts,
		      size_t *n, bool *gone)
{
	int64_t from = 0, next, id = 0;
	struct json_object *v;
	int r;

	*n = 0;
	*gone = false;
	for (;;) {
		if (*n == PARTS_MAX) {
			fprintf(stderr, "latencyctl: metrics: more than %d parts, stopped\n",
				PARTS_MAX);
			return EXIT_CONNECT;
		}
		r = ask_part(ctl, cmd, from, id, &parts[*n], gone);
		if (r != EXIT_OK)
			return r;
		/* A latencyd before 1.16 gives none: its later parts are rendered afresh. */
		if (*n == 0)
			id = positive(parts[*n], PROTO_KEY_RENDERING);
		(*n)++;
		if (!json_object_object_get_ex(parts[*n - 1], PROTO_KEY_NEXT_LINE, NULL))
			return EXIT_OK;
		/* One that does not move on is no end: the text read so far is not whole. */
		v = json_object_object_get(parts[*n - 1], PROTO_KEY_NEXT_LINE);
		next = positive(parts[*n - 1], PROTO_KEY_NEXT_LINE);
		if (next <= from) {
			fprintf(stderr,
				"latencyctl: unexpected reply from latencyd: metrics: next_line %s "
				"in the part from line %" PRId64 "\n",
				json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN), from);
			return EXIT_CONNECT;
		}
		from = next;
	}
}

static void parts_put(struct json_object **parts, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		json_object_put(parts[i]);
		parts[i] = NULL;
	}
}

int cmd_metrics(struct ctl *ctl, const struct command *cmd, int argc, char **argv)
{
	struct json_object *parts[PARTS_MAX] = {0};
	size_t n = 0;
	bool gone = false;
	int r = no_arguments(ctl, cmd, argc, argv);

	if (r != EXIT_OK)
		return r == HELP_SHOWN ? EXIT_OK : r;
	for (int restarts = 0;; restarts++) {
		r = read_parts(ctl, cmd, parts, &n, &gone);
		if (r == EXIT_OK || !gone)
			break;
		parts_put(parts, n);
		n = 0;
		if (restarts == RESTARTS_MAX) {
			print_held(ctl);
			fprintf(stderr,
				"latencyctl: metrics: read %d times from the first line, the "
				"rendering gone before its last part each time (other reads of "
				"this user at once?): giving up\n",
				RESTARTS_MAX + 1);
			break;
		}
	}
	held_done();
	for (size_t i = 0; i < n && r == EXIT_OK; i++)
		r = ctl->out->metrics(parts[i]);
	parts_put(parts, n);
	return r;
}

/* The text as latencyd wrote it: what promtool and node_exporter read. */
int text_metrics(struct json_object *result)
{
	struct json_object *text = NULL;

	if (!json_object_object_get_ex(result, PROTO_KEY_TEXT, &text) ||
	    !json_object_is_type(text, json_type_string)) {
		fprintf(stderr, "latencyctl: metrics: latencyd's reply has no text\n");
		return EXIT_CONNECT;
	}
	if (stdout_puts(json_object_get_string(text), false) != EXIT_OK)
		return EXIT_WRITE;
	return stdout_check();
}
