/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * latencyctl analyze ID|PATH: the snapshot analysis, run here (not in latencyd). An ID is
 * resolved to its path by asking latencyd (show-snapshot); a PATH needs no daemon. Output
 * as text, --json, or LAMI 1.0 (--lami, and --mi-version/--metadata/--test-compatibility/
 * --output-progress as Trace Compass calls an external analysis; latencyctl-lami wraps it).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>

#include "analysis.h"
#include "incident.h"
#include "commands.h"
#include "known.h"

enum {
	OPT_BEGIN = 256,
	OPT_END,
	OPT_LIMIT,
	OPT_MI,
	OPT_META,
	OPT_TEST,
	OPT_PROGRESS,
	OPT_LAMI,
	OPT_NO_TABLES,
	OPT_INCIDENT,
	OPT_LOCAL,
	OPT_FREQ,
	OPT_FREQ_RESOLUTION,
	OPT_IO_USAGE,
	OPT_THREADS,
	OPT_MAX_METADATA,
	OPT_MAX_CLASSES
};

static void print_json(struct json_object *o, bool pretty)
{
	/* A failure is said at exit (stdout_close()), with its reason kept here. */
	stdout_puts(json_object_to_json_string_ext(
			    o, (pretty ? JSON_C_TO_STRING_PRETTY : JSON_C_TO_STRING_PLAIN) |
				       JSON_C_TO_STRING_NOSLASHESCAPE),
		    true);
	json_object_put(o);
}

/*
 * The analysis' text, made safe for a terminal first (text_clean.c): the task names and
 * files in it come from the trace, where anyone's process may have named itself.
 */
static void print_text(void (*print)(const void *what, FILE *f), const void *what)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (f) {
		print(what, f);
		if (fclose(f) == 0 && buf) {
			text_clean(buf, true);
			fputs(buf, stdout);
			free(buf);
			return;
		}
		free(buf);
	}
	fprintf(stderr, "latencyctl: analyze: out of memory: nothing printed\n");
}

static void incident_print(const void *inc, FILE *f)
{
	an_incident_print(inc, f);
}

static void result_print(const void *res, FILE *f)
{
	an_result_print(res, f);
}

static int parse_u64(const char *s, uint64_t *v)
{
	char *end;

	errno = 0;
	*v = strtoull(s, &end, 10);
	return s[0] >= '0' && s[0] <= '9' && !*end && !errno ? 0 : -EINVAL;
}

static void progress(uint64_t events, void *arg)
{
	printf("* %llu events read\n", (unsigned long long)events);
	fflush(stdout);
}

/*
 * The path of snapshot ID, from latencyd, and its catalog entry in *ENTRY (what latencyd
 * knew when it recorded it: snapshot_known_read()); NULL after saying why.
 */
static char *snapshot_path(const struct ctl *ctl, uint64_t id, struct json_object **entry,
			   int *status)
{
	struct json_object *args = json_object_new_object(), *result = NULL, *v;
	struct ctl asked = *ctl;
	char *path = NULL;

	if (!args) {
		*status = EXIT_CONNECT;
		return NULL;
	}
	json_object_object_add(args, PROTO_KEY_ID, json_object_new_int64((int64_t)id));
	asked.label = CTL_CMD_ANALYZE;
	*status = ctl_call(&asked, PROTO_CMD_SHOW_SNAPSHOT, args, &result);
	if (*status != EXIT_OK)
		goto out;
	if (json_object_object_get_ex(result, PROTO_KEY_PATH, &v) &&
	    json_object_is_type(v, json_type_string) && json_object_get_string(v)[0]) {
		path = strdup(json_object_get_string(v));
	} else if (json_object_object_get_ex(result, PROTO_KEY_URL, &v)) {
		char *url = text_clean_dup(json_object_get_string(v), false);

		fprintf(stderr,
			"latencyctl: analyze: snapshot %llu went to lttng-relayd (%s): analyze its "
			"directory on the relayd's host: latencyctl analyze PATH\n",
			(unsigned long long)id, url ?: "?");
		free(url);
		*status = EXIT_DAEMON;
	} else {
		fprintf(stderr, "latencyctl: analyze: snapshot %llu has no local path\n",
			(unsigned long long)id);
		*status = EXIT_DAEMON;
	}
out:
	if (path)
		*entry = result;
	else
		json_object_put(result);
	return path;
}

/* LAMI of an incident: the origin's results, its critical paths going on into the peers. */
static int incident_lami(const struct an_incident *inc)
{
	const struct an_result *origin = an_incident_origin(inc);

	if (origin) {
		print_json(an_lami_results(origin), false);
		return EXIT_OK;
	}
	print_json(an_lami_error("the origin's snapshot of the incident is not there"), false);
	return EXIT_DAEMON;
}

/*
 * --incident ID DIR: on the collector, the origin's alert explained (its chain followed
 * into the peers that sent the packets it waited for) and each peer over the same window
 * (analysis/analyze/incident.c). Text, JSON, or LAMI (the origin's results).
 */
static int analyze_incident(const struct ctl *ctl, const struct command *cmd, const char *id,
			    const char *dir, const struct an_options *opt, bool lami)
{
	struct an_incident *inc = NULL;
	char *why = NULL;
	int r;

	if (!dir) {
		fprintf(stderr, "latencyctl: analyze: --incident ID wants a DIR (lttng-relayd's "
				"output directory)\nTry 'latencyctl analyze --help'.\n");
		return EXIT_USAGE;
	}
	r = an_incident_analyze(dir, id, opt, &inc, &why);
	if (r < 0) {
		fprintf(stderr, "latencyctl: analyze: %s\n", why ? why : strerror(-r));
		free(why);
		return EXIT_DAEMON;
	}
	if (lami)
		r = incident_lami(inc);
	else if (ctl->out == &output_json)
		print_json(an_incident_json(inc), true);
	else
		print_text(incident_print, inc);
	an_incident_free(inc);
	return lami ? r : EXIT_OK;
}

/* What analyze's options ask for. */
struct analyze_args {
	struct an_options opt;
	const char *incident; /* --incident ID */
	bool lami, test;
};

static void analyze_help(const struct command *cmd)
{
	printf("Usage: latencyctl [OPTIONS] %s %s\n\n%s.\n\n"
	       "  --begin NS, --end NS  only this window (ns since the epoch)\n"
	       "  --limit N|unlimited   rows per table (default %d; with LAMI, unlimited)\n"
	       "  --no-tables           only the alerts' causes\n"
	       "  --freq                frequency distributions of the system call, block I/O\n"
	       "                        and interrupt handler latencies over the window\n"
	       "  --freq-resolution N   their buckets, 1 to %d (default %d; implies --freq)\n"
	       "  --io-usage            the processes that read and wrote most (as\n"
	       "                        lttng-iousagetop): network, file, unknown, block\n"
	       "  --threads N           decode the streams in up to N threads, 1 to %d\n"
	       "                        (default: the online CPUs, at most %d); the result is\n"
	       "                        the same\n"
	       "  --max-metadata SIZE   leave out a trace whose metadata file is bigger\n"
	       "                        (bytes, or with K, M, G; default %lluM)\n"
	       "  --max-event-classes N leave out a trace whose metadata declares more event\n"
	       "                        classes (default %d)\n"
	       "  --lami                LAMI 1.0 results (as latencyctl-lami)\n"
	       "  --incident ID DIR     every host's snapshot of fleet incident ID under DIR\n"
	       "  --local-only          with --incident: each host's chains alone, not followed\n"
	       "                        into the hosts that sent the packets\n"
	       "  --mi-version, --metadata, --test-compatibility, --output-progress\n"
	       "                        LAMI 1.0, as Trace Compass calls them\n"
	       "\nID is asked to latencyd; PATH (a snapshot directory) needs no daemon.\n"
	       "Exit status: 0 analysed (maybe partially: see \"partial\"), "
	       "1 nothing could be analysed,\n2 a usage error (a bad option or value), "
	       "3 latencyd unreachable (ID).\n\nExample: "
	       "%s\n",
	       cmd->name, cmd->args, cmd->summary, AN_LIMIT_DEFAULT, AN_FREQ_RESOLUTION_MAX,
	       AN_FREQ_RESOLUTION_DEFAULT, AN_THREADS_MAX, AN_THREADS_DEFAULT_MAX,
	       (unsigned long long)(AN_METADATA_MAX_DEFAULT >> 20), AN_EVENT_CLASSES_MAX_DEFAULT,
	       cmd->example);
}

/* --begin, --end (C) and --limit (OPT_LIMIT): EXIT_OK, or EXIT_USAGE after saying why. */
static int window_option(int c, const char *arg, struct an_options *opt)
{
	uint64_t v;

	if (c == OPT_LIMIT && strcmp(arg, "unlimited") == 0) {
		opt->limit = UINT32_MAX;
	} else if (c == OPT_LIMIT) {
		if (parse_u64(arg, &v) < 0 || !v || v > UINT32_MAX) {
			fprintf(stderr, "latencyctl: analyze: invalid --limit '%s'\n", arg);
			return EXIT_USAGE;
		}
		opt->limit = (unsigned)v;
	} else {
		if (parse_u64(arg, &v) < 0) {
			fprintf(stderr,
				"latencyctl: analyze: invalid --%s '%s': ns since the epoch\n",
				c == OPT_BEGIN ? "begin" : "end", arg);
			return EXIT_USAGE;
		}
		*(c == OPT_BEGIN ? &opt->begin_ns : &opt->end_ns) = v;
	}
	return EXIT_OK;
}

/* --freq-resolution N: EXIT_OK, or EXIT_USAGE after saying why. */
static int freq_option(const char *arg, struct an_options *opt)
{
	uint64_t v;

	if (parse_u64(arg, &v) < 0 || v < AN_FREQ_RESOLUTION_MIN || v > AN_FREQ_RESOLUTION_MAX) {
		fprintf(stderr,
			"latencyctl: analyze: invalid --freq-resolution '%s': a number of buckets "
			"from %d to %d\n",
			arg, AN_FREQ_RESOLUTION_MIN, AN_FREQ_RESOLUTION_MAX);
		return EXIT_USAGE;
	}
	opt->freq_resolution = (unsigned)v;
	return EXIT_OK;
}

/* --threads N: EXIT_OK, or EXIT_USAGE after saying why. */
static int threads_option(const char *arg, struct an_options *opt)
{
	uint64_t v;

	if (parse_u64(arg, &v) < 0 || v < 1 || v > AN_THREADS_MAX) {
		fprintf(stderr,
			"latencyctl: analyze: invalid --threads '%s': a number of threads from 1 "
			"to %d\n",
			arg, AN_THREADS_MAX);
		return EXIT_USAGE;
	}
	opt->threads = (unsigned)v;
	return EXIT_OK;
}

/* --max-metadata SIZE (bytes, or K, M, G of 1024): EXIT_OK, or EXIT_USAGE after saying why. */
static int metadata_option(const char *arg, struct an_options *opt)
{
	static const char units[] = "KMG";
	size_t len = strlen(arg);
	const char *u = len && len < 32 ? strchr(units, arg[len - 1]) : NULL;
	unsigned shift = u && *u ? 10 * (unsigned)(u - units + 1) : 0;
	char digits[32];
	uint64_t v;

	snprintf(digits, sizeof(digits), "%.*s", (int)(shift ? len - 1 : len), arg);
	if (len >= sizeof(digits) || parse_u64(digits, &v) < 0 || !v || v > UINT64_MAX >> shift) {
		fprintf(stderr,
			"latencyctl: analyze: invalid --max-metadata '%s': a size in bytes, or "
			"with K, M or G\n",
			arg);
		return EXIT_USAGE;
	}
	opt->max_metadata = v << shift;
	return EXIT_OK;
}

/* --max-event-classes N: EXIT_OK, or EXIT_USAGE after saying why. */
static int classes_option(const char *arg, struct an_options *opt)
{
	uint64_t v;

	if (parse_u64(arg, &v) < 0 || !v) {
		fprintf(stderr,
			"latencyctl: analyze: invalid --max-event-classes '%s': a number of event "
			"classes, 1 or more\n",
			arg);
		return EXIT_USAGE;
	}
	opt->max_event_classes = v;
	return EXIT_OK;
}

/* One thread per online CPU, up to a few: each costs a parse of the metadata. */
static unsigned default_threads(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n < 1 ? 1 : n > AN_THREADS_DEFAULT_MAX ? AN_THREADS_DEFAULT_MAX : (unsigned)n;
}

/*
 * Analyze's options into A: EXIT_CONTINUE when the analysis is to run (argv[optind..] are
 * its arguments), else the exit status: after --help, --mi-version, --metadata (all done
 * here), or a usage error said.
 */
static int analyze_options(struct ctl *ctl, const struct command *cmd, int argc, char **argv,
			   struct analyze_args *a)
{
	static const struct option options[] = {
		{"begin", required_argument, NULL, OPT_BEGIN},
		{"end", required_argument, NULL, OPT_END},
		{"limit", required_argument, NULL, OPT_LIMIT},
		{"no-tables", no_argument, NULL, OPT_NO_TABLES},
		{"lami", no_argument, NULL, OPT_LAMI},
		{"mi-version", no_argument, NULL, OPT_MI},
		{"metadata", no_argument, NULL, OPT_META},
		{"test-compatibility", no_argument, NULL, OPT_TEST},
		{"output-progress", no_argument, NULL, OPT_PROGRESS},
		{"incident", required_argument, NULL, OPT_INCIDENT},
		{"local-only", no_argument, NULL, OPT_LOCAL},
		{"freq", no_argument, NULL, OPT_FREQ},
		{"freq-resolution", required_argument, NULL, OPT_FREQ_RESOLUTION},
		{"io-usage", no_argument, NULL, OPT_IO_USAGE},
		{"threads", required_argument, NULL, OPT_THREADS},
		{"max-metadata", required_argument, NULL, OPT_MAX_METADATA},
		{"max-event-classes", required_argument, NULL, OPT_MAX_CLASSES},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	int c;

	optind = 0;
	while ((c = ctl_getopt(ctl, argc, argv, options)) != -1) {
		switch (c) {
		case OPT_BEGIN:
		case OPT_END:
		case OPT_LIMIT:
			if (window_option(c, optarg, &a->opt) != EXIT_OK)
				return EXIT_USAGE;
			break;
		case OPT_NO_TABLES:
			a->opt.tables = false;
			break;
		case OPT_FREQ:
			if (!a->opt.freq_resolution)
				a->opt.freq_resolution = AN_FREQ_RESOLUTION_DEFAULT;
			break;
		case OPT_IO_USAGE:
			a->opt.io_usage = true;
			break;
		case OPT_FREQ_RESOLUTION:
			if (freq_option(optarg, &a->opt) != EXIT_OK)
				return EXIT_USAGE;
			break;
		case OPT_THREADS:
			if (threads_option(optarg, &a->opt) != EXIT_OK)
				return EXIT_USAGE;
			break;
		case OPT_MAX_METADATA:
			if (metadata_option(optarg, &a->opt) != EXIT_OK)
				return EXIT_USAGE;
			break;
		case OPT_MAX_CLASSES:
			if (classes_option(optarg, &a->opt) != EXIT_OK)
				return EXIT_USAGE;
			break;
		case OPT_INCIDENT:
			a->incident = optarg;
			break;
		case OPT_LOCAL:
			a->opt.local_only = true;
			break;
		case OPT_LAMI:
			a->lami = true;
			break;
		case OPT_MI:
			printf("%s\n", AN_LAMI_VERSION);
			return EXIT_OK;
		case OPT_META:
			print_json(an_lami_metadata(), false);
			return EXIT_OK;
		case OPT_TEST:
			a->test = a->lami = true;
			break;
		case OPT_PROGRESS:
			a->lami = true;
			a->opt.progress = progress;
			break;
		case 'h':
			analyze_help(cmd);
			return EXIT_OK;
		default:
			fprintf(stderr, "Try 'latencyctl %s --help'.\n", cmd->name);
			return EXIT_USAGE;
		}
	}
	/* LAMI's --limit is unlimited unless given: Trace Compass passes none. */
	if (a->lami && !a->opt.limit)
		a->opt.limit = UINT32_MAX;
	if (a->opt.begin_ns && a->opt.end_ns && a->opt.begin_ns >= a->opt.end_ns) {
		fprintf(stderr,
			"latencyctl: analyze: --begin %llu is not before --end %llu (both in ns "
			"since the epoch)\n",
			(unsigned long long)a->opt.begin_ns, (unsigned long long)a->opt.end_ns);
		return EXIT_USAGE;
	}
	return EXIT_CONTINUE;
}

/* One snapshot's directory analysed, and printed as A asks (text, JSON, LAMI, nothing). */
static int analyze_path(const struct ctl *ctl, const char *path, const struct analyze_args *a)
{
	struct an_result *res = NULL;
	char *why = NULL;
	int r;

	r = an_analyze(path, &a->opt, &res, &why);
	if (r < 0) {
		if (a->lami)
			print_json(an_lami_error(why ? why : strerror(-r)), false);
		fprintf(stderr, "latencyctl: analyze: %s\n", why ? why : strerror(-r));
		free(why);
		return EXIT_DAEMON;
	}
	if (a->lami && !an_lami_has_results(res)) {
		/* LAMI wants at least one table: a trace without kernel events is not ours. */
		print_json(an_lami_error("nothing to analyse: no alert and no kernel scheduling, "
					 "system call, interrupt or block I/O events"),
			   false);
		an_result_free(res);
		return EXIT_DAEMON;
	}
	if (a->test)
		; /* can be analysed: exit 0, nothing printed */
	else if (a->lami)
		print_json(an_lami_results(res), false);
	else if (ctl->out == &output_json)
		print_json(an_result_json(res), true);
	else
		print_text(result_print, res);
	if (an_result_partial(res) && !a->lami && ctl->out != &output_json)
		fprintf(stderr, "latencyctl: analyze: partial result: see the problems above\n");
	an_result_free(res);
	return EXIT_OK;
}

/*
 * libbabeltrace2 keeps every stream file of a trace open while it reads: a snapshot of a
 * machine of many CPUs, or an incident's hosts together, pass the 1024 descriptors a
 * process starts with. That soft limit is kept low for select()'s sake, which latencyctl
 * does not use: it goes up to the hard one. Failing that, a snapshot too big says so.
 */
static void files_limit_raise(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		if (setrlimit(RLIMIT_NOFILE, &rl) < 0) {
			/* The read names the file it could not open. */
		}
	}
}

int cmd_analyze(struct ctl *ctl, const struct command *cmd, int argc, char **argv)
{
	struct analyze_args a = {.opt = {.tables = true, .threads = default_threads()}};
	struct snapshot_known known = {0};
	struct json_object *entry = NULL;
	char *path = NULL;
	struct stat st;
	uint64_t v;
	int r;

	r = analyze_options(ctl, cmd, argc, argv, &a);
	if (r != EXIT_CONTINUE)
		return r;
	files_limit_raise();
	if (a.incident && argc - optind > 1) {
		fprintf(stderr,
			"latencyctl: analyze: unexpected argument '%s': --incident ID takes one "
			"DIR\nTry 'latencyctl analyze --help'.\n",
			argv[optind + 1]);
		return EXIT_USAGE;
	}
	if (a.incident)
		return analyze_incident(ctl, cmd, a.incident,
					argc - optind == 1 ? argv[optind] : NULL, &a.opt, a.lami);
	if (argc - optind != 1) {
		fprintf(stderr, "latencyctl: analyze wants %s\nTry 'latencyctl analyze --help'.\n",
			cmd->args);
		return EXIT_USAGE;
	}
	if (stat(argv[optind], &st) == 0 || parse_u64(argv[optind], &v) < 0) {
		path = strdup(argv[optind]);
	} else {
		path = snapshot_path(ctl, v, &entry, &r);
		if (!path)
			return r;
		/* An entry that cannot be read only loses the stacks and the disks' names. */
		if (snapshot_known_read(&known, entry) == 0)
			a.opt.known = &known.known;
		json_object_put(entry);
	}
	if (!path)
		return EXIT_CONNECT;
	r = analyze_path(ctl, path, &a);
	free(path);
	snapshot_known_free(&known);
	return r;
}
