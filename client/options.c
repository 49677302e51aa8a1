/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The global options (--socket, --json, --timeout, --version, --help), and ctl_getopt(): a
 * command's own options with the global ones mixed in anywhere after the command.
 */
#include <getopt.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "latencyctl.h"

const struct option ctl_global_options[] = {
	{"socket", required_argument, NULL, 's'},  {"json", no_argument, NULL, 'j'},
	{"timeout", required_argument, NULL, 't'}, {"version", no_argument, NULL, 'V'},
	{"help", no_argument, NULL, 'h'},	   {NULL, 0, NULL, 0},
};

static int parse_timeout(const char *s, uint64_t *ret)
{
	char *end;
	double v;

	v = strtod(s, &end);
	if (end == s || *end || !isfinite(v) || v <= 0 || v > 86400)
		return -1;
	*ret = (uint64_t)(v * 1e6);
	return 0;
}

int ctl_global(struct ctl *ctl, int c, const char *arg)
{
	switch (c) {
	case 's':
		ctl->socket = arg;
		return EXIT_OK;
	case 'j':
		ctl->out = &output_json;
		return EXIT_OK;
	case 't':
		if (parse_timeout(arg, &ctl->timeout_usec) < 0) {
			fprintf(stderr, "latencyctl: --timeout wants seconds > 0, not '%s'\n", arg);
			return EXIT_USAGE;
		}
		return EXIT_OK;
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
