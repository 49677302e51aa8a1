/* SPDX-License-Identifier: GPL-2.0-only */
/* latencyd: options, then the manager. Everything else lives in the other files. */
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <latency_tracker.h>

#include "latencyd.h"

#define EXIT_USAGE 2

enum {
	OPT_CHECK_CONFIG = 0x100,
};

static const struct option options[] = {
	{"config", required_argument, NULL, 'c'},
	{"check-config", optional_argument, NULL, OPT_CHECK_CONFIG},
	{"socket", required_argument, NULL, 's'},
	{"debug", no_argument, NULL, 'd'},
	{"help", no_argument, NULL, 'h'},
	{"version", no_argument, NULL, 'V'},
	{NULL, 0, NULL, 0},
};

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: latencyd [OPTIONS]\n"
		"       latencyd --check-config [FILE]\n"
		"\n"
		"Runtime latency detection daemon. Runs in the foreground (systemd Type=notify).\n"
		"\n"
		"  -c, --config FILE      read FILE instead of %s (it must exist)\n"
		"      --check-config [FILE]\n"
		"                         validate the configuration, print \"configuration OK\"\n"
		"                         or the errors, exit 0 or 1; starts nothing\n"
		"  -s, --socket PATH      listen on PATH (overrides control.socket)\n"
		"  -d, --debug            log debug messages (overrides log.level)\n"
		"  -h, --help             show this help\n"
		"  -V, --version          show the version\n"
		"\n"
		"Signals: SIGTERM, SIGINT stop; SIGHUP reloads the configuration. During\n"
		"start-up they wait for it to end (see latencyd(8), SIGNALS).\n"
		"Exit status: 0 stopped cleanly, 1 failure (or a stop lttng-sessiond did not\n"
		"answer in time, or every realtime waiter thread stopped), 2 usage error.\n",
		CONF_PATH_DEFAULT);
}

static int check_config(const struct conf_source *src)
{
	struct conf_diag diag = {0};
	struct conf *conf = NULL;
	int r;

	r = conf_load(src, &conf, &diag);
	for (size_t i = 0; i < diag.n; i++)
		fprintf(stderr, "%s\n", diag.lines[i]);
	conf_diag_clear(&diag);
	if (r < 0) {
		fprintf(stderr, "configuration invalid\n");
		return EXIT_FAILURE;
	}
	if (!conf->source)
		fprintf(stderr,
			"%s does not exist: latencyd starts with the built-in defaults; a running "
			"latencyd that read it keeps its configuration on reload\n",
			src->path);
	printf("configuration OK\n");
	conf_free(conf);
	return EXIT_SUCCESS;
}

/* At error priority, whatever log.level says, with the reason said at warning priority
 * (and perhaps hidden) before: journalctl -p err shows why latencyd did not start. */
static void start_failed(int r)
{
	char why[512];

	log_last_warning(why, sizeof(why));
	log_fields(LOG_ERR, (const char *const[]){LOG_MID_START_FAILED, NULL},
		   "start-up failed: %s", why[0] ? why : strerror(-r));
}

static int run(const struct conf_source *src)
{
	struct conf_diag diag = {0};
	struct manager *m = NULL;
	struct conf *conf = NULL;
	sigset_t mask;
	int r;

	/*
	 * The event loop takes these through a signalfd once start-up is done; until then they
	 * wait, rather than end latencyd by their default action (a reload asked while the file
	 * is read) or break into start-up half done. latencyd-fleet resets its own mask.
	 */
	sigemptyset(&mask);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGHUP);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	r = conf_load(src, &conf, &diag);
	for (size_t i = 0; i < diag.n; i++) /* errors when they stop the start */
		if (r < 0)
			log_errx("%s", diag.lines[i]);
		else
			log_warnx("%s", diag.lines[i]);
	conf_diag_clear(&diag);
	if (r < 0) {
		log_fields(LOG_ERR, (const char *const[]){LOG_MID_START_FAILED, NULL},
			   "invalid configuration, not starting");
		return EXIT_FAILURE;
	}
	log_set_level(conf->log.level);

	r = manager_new(src, conf, &commands_table, &m);
	if (r >= 0)
		r = manager_start(m);
	if (r >= 0)
		r = manager_run(m);
	if (r < 0)
		start_failed(r);
	manager_free(m);
	if (recorder_left_running()) {
		/*
		 * The catalog is saved; a thread is still inside liblttng-ctl and may wake while
		 * exit() runs the libraries' destructors (liblttng-ctl frees what its next call
		 * reads): none of them runs.
		 */
		log_warnx("exiting with status %d: lttng-sessiond did not answer during the stop "
			  "(what was abandoned is said above)",
			  EXIT_FAILURE);
		fflush(NULL);
		_exit(EXIT_FAILURE);
	}
	if (r == 0)
		log_fields(LOG_INFO, (const char *const[]){LOG_MID_STOPPED, NULL}, "stopped");
	else if (r > 0)
		log_warnx("exiting with status %d: stopped on a failure (said above)", r);
	return r < 0 ? EXIT_FAILURE : r;
}

int main(int argc, char *argv[])
{
	struct conf_source src = {.path = CONF_PATH_DEFAULT};
	const char *check_file = NULL;
	bool check = false;
	int c;

	while ((c = getopt_long(argc, argv, "c:s:dhV", options, NULL)) != -1) {
		switch (c) {
		case 'c':
			src.path = optarg;
			src.must_exist = true;
			break;
		case OPT_CHECK_CONFIG:
			check = true;
			check_file = optarg;
			break;
		case 's':
			src.socket = optarg;
			break;
		case 'd':
			src.debug = true;
			break;
		case 'h':
			usage(stdout);
			return EXIT_SUCCESS;
		case 'V':
			printf("latencyd %s (protocol %d.%d, kernel module ABI %d.x)\n",
			       LATENCYD_VERSION, PROTO_VERSION, PROTO_REVISION,
			       LATENCY_TRACKER_ABI_MAJOR);
			return EXIT_SUCCESS;
		default:
			fprintf(stderr, "Try 'latencyd --help'.\n");
			return EXIT_USAGE;
		}
	}
	/* "--check-config FILE" as well as "--check-config=FILE". */
	if (check && !check_file && optind < argc)
		check_file = argv[optind++];
	if (optind < argc) {
		fprintf(stderr, "latencyd: unexpected argument '%s'\nTry 'latencyd --help'.\n",
			argv[optind]);
		return EXIT_USAGE;
	}
	if (check_file && src.must_exist) {
		fprintf(stderr,
			"latencyd: give the file to check once: --config or --check-config\n");
		return EXIT_USAGE;
	}
	if (check_file) {
		src.path = check_file;
		src.must_exist = true;
	}

	log_init("latencyd", src.debug ? LOG_DEBUG : LOG_INFO);
	if (check)
		return check_config(&src);
	return run(&src);
}
