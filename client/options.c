/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The global options (--socket, --json, --timeout, --version, --help), and ctl_getopt(): a
 * command's own options with the global ones mixed in anywhere after the command.
 */
#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "latencyctl.h"

const struct option ctl_global_options[] = {
	{"socket", required_argument, NULL, 's'},  {"json", no_argument, NULL, 'j'},
	{"timeout", required_argument, NULL, 't'}, {"version", no_argument, NULL, 'V'},
	{"help", no_argument, NULL, 'h'},	   {NULL, 0, NULL, 0},
};

/* Below a millisecond, no answer could come; a day is beyond any wait. */
#define TIMEOUT_MIN_NS 1000000ULL
#define TIMEOUT_MAX_NS (86400ULL * 1000000000ULL)

static int parse_timeout(const char *s, uint64_t *ret_usec)
{
	const char *why = NULL;
	uint64_t ns;

	if (parse_seconds(s, &ns, &why) < 0) {
		fprintf(stderr, "latencyctl: invalid --timeout '%s': %s\n", s, why);
		return EXIT_USAGE;
	}
	if (ns < TIMEOUT_MIN_NS || ns > TIMEOUT_MAX_NS) {
		fprintf(stderr, "latencyctl: --timeout '%s' is %s\n", s,
			ns < TIMEOUT_MIN_NS ? "below 1ms" : "above 1d");
		return EXIT_USAGE;
	}
	*ret_usec = ns / 1000;
	return EXIT_OK;
}

int ctl_global(struct ctl *ctl, int c, const char *arg)
{
	switch (c) {
	case 's':
		if (!arg[0]) {
			fprintf(stderr, "latencyctl: --socket wants a path, not an empty word\n");
			return EXIT_USAGE;
		}
		ctl->socket = arg;
		return EXIT_OK;
	case 'j':
		ctl->out = &output_json;
		return EXIT_OK;
	case 't':
		return parse_timeout(arg, &ctl->timeout_usec);
	case 'V':
		printf("latencyctl %s (protocol %d.%d)\n", LATENCYD_VERSION, PROTO_VERSION,
		       PROTO_REVISION);
		return EXIT_VERSION_SHOWN;
	}
	return EXIT_USAGE;
}

int ctl_getopt(struct ctl *ctl, int argc, char **argv, const struct option *longopts)
{
	/* The command's options first: getopt_long's index tells them from the global ones. */
	struct option all[32];
	const size_t max = sizeof(all) / sizeof(all[0]) - 1;
	char prog[128], *name = argv[0];
	size_t n = 0, own;
	int c, index;

	while (longopts[n].name && n < max) {
		all[n] = longopts[n];
		n++;
	}
	own = n;
	for (size_t i = 0; ctl_global_options[i].name && n < max; i++)
		if (ctl_global_options[i].val != 'h')
			all[n++] = ctl_global_options[i];
	all[n] = (struct option){NULL, 0, NULL, 0};

	/* getopt's messages name the command: "latencyctl: status: unrecognized option ...". */
	snprintf(prog, sizeof(prog), "latencyctl: %s", name);
	for (;;) {
		index = -1;
		argv[0] = prog;
		/* No "+": options and arguments mix in any order, up to "--". */
		c = getopt_long(argc, argv, "h" CTL_GLOBAL_SHORTOPTS, all, &index);
		argv[0] = name;
		if (c == -1 || c == '?')
			return c;
		/* The command's own options, and -h: after a command, its help. */
		if (index >= 0 ? (size_t)index < own : c == 'h')
			return c;
		switch (ctl_global(ctl, c, optarg)) {
		case EXIT_OK:
			break;
		case EXIT_VERSION_SHOWN:
			exit(stdout_close(EXIT_OK)); /* main() is not returned to */
		default:
			return '?';
		}
	}
}

/* Does the option word W (with its dashes, no "=VALUE") take the next word as its value? */
static bool takes_value(const char *w, const struct option *longopts)
{
	const struct option *sets[] = {longopts, ctl_global_options};
	const struct option *found = NULL;
	size_t n = strlen(w + 2);

	if (w[1] != '-') {
		/* A cluster (-js): its last letter's value is the next word when nothing follows. */
		for (const char *p = w + 1; *p; p++) {
			const char *o = strchr(CTL_GLOBAL_SHORTOPTS, *p);

			if (o && o[1] == ':')
				return !p[1];
		}
		return false;
	}
	for (size_t s = 0; s < 2; s++)
		for (const struct option *o = sets[s]; o && o->name; o++) {
			if (strncmp(o->name, w + 2, n) != 0)
				continue;
			if (o->name[n] == 0)
				return o->has_arg == required_argument;
			if (found && found->has_arg != o->has_arg)
				return false; /* ambiguous: getopt says so */
			found = o;
		}
	return found && found->has_arg == required_argument;
}

const char *ctl_negative_word(int argc, char **argv, const struct option *longopts)
{
	for (int i = 1; i < argc; i++) {
		const char *w = argv[i];

		if (strcmp(w, "--") == 0)
			break;
		if (w[0] != '-' || !w[1])
			continue;
		if (w[1] >= '0' && w[1] <= '9')
			return w;
		if (!strchr(w, '=') && takes_value(w, longopts))
			i++;
	}
	return NULL;
}
