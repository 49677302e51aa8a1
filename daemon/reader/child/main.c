// SPDX-License-Identifier: GPL-2.0-only
/*
 * latencyd-reader: reads one local snapshot for latencyd, its history and, when asked, its
 * analysis, in a process of its own (reader_result.h says how it is run and what it answers).
 * latencyd spawns one per snapshot: a parser crash, a hang or a memory blow-up on a
 * snapshot's bytes ends this process, never the daemon. It confines itself (confine.c)
 * before it opens anything.
 *
 * --check-privileges: confined, it prints what /proc says of it and exits (a test's way to
 * see that the real binary drops what it must).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <inttypes.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "confine.h"
#include "entry.h"
#include "reader_result.h"
#include "snapshot.h"
#include "summary.h"
#include "thread.h"

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: " READER_NAME " [--analyse] [--max-memory BYTES] SNAPSHOT\n"
		"       " READER_NAME " --check-privileges [--max-memory BYTES]\n"
		"Run by latencyd: reads SNAPSHOT's history (and analysis) and writes the\n"
		"result as JSON to descriptor %d.\n",
		READER_RESULT_FD);
}

static void print_rlimit(const char *name, int resource)
{
	struct rlimit l;

	if (getrlimit(resource, &l) < 0)
		printf("%s:\t?\n", name);
	else if (l.rlim_cur == RLIM_INFINITY)
		printf("%s:\tunlimited\n", name);
	else
		printf("%s:\t%llu\n", name, (unsigned long long)l.rlim_cur);
}

static int check_privileges(void)
{
	static const char *const keys[] = {
		"Uid:",	   "CapInh:",	  "CapPrm:",  "CapEff:", "CapBnd:",
		"CapAmb:", "NoNewPrivs:", "Seccomp:", NULL};
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	struct rlimit core;
	int fd, p[2];
	pid_t child;

	if (!f)
		return perror("/proc/self/status"), 1;
	while (fgets(line, sizeof(line), f))
		for (size_t i = 0; keys[i]; i++)
			if (strncmp(line, keys[i], strlen(keys[i])) == 0)
				fputs(line, stdout);
	fclose(f);
	/* What the filter refuses, tried: each would succeed for root without it. */
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	printf("Socket:\t%s\n", fd < 0 ? strerror(errno) : "made");
	fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
	printf("Write:\t%s\n", fd < 0 ? strerror(errno) : "opened");
	printf("Signal:\t%s\n", kill(getppid(), 0) < 0 ? strerror(errno) : "sent");
	/* Its parent's own core limit, read and set again as it is. */
	printf("Prlimit:\t%s\n", prlimit(getppid(), RLIMIT_CORE, NULL, &core) < 0 ? strerror(errno)
				 : prlimit(getppid(), RLIMIT_CORE, &core, NULL) < 0
					 ? strerror(errno)
					 : "set");
	printf("Owner:\t%s\n", pipe(p) < 0			      ? strerror(errno)
			       : fcntl(p[0], F_SETOWN, getppid()) < 0 ? strerror(errno)
								      : "set");
	child = fork();
	if (child == 0)
		_exit(0);
	printf("Fork:\t%s\n", child < 0 ? strerror(errno) : "made");
	if (child > 0)
		waitpid(child, NULL, 0);
	errno = 0;
	printf("Nice:\t%d\n", getpriority(PRIO_PROCESS, 0));
	printf("Policy:\t%d\n", sched_getscheduler(0));
	print_rlimit("RLIMIT_RTPRIO", RLIMIT_RTPRIO);
	print_rlimit("RLIMIT_NICE", RLIMIT_NICE);
	print_rlimit("RLIMIT_MEMLOCK", RLIMIT_MEMLOCK);
	print_rlimit("RLIMIT_AS", RLIMIT_AS);
	printf("Sanitized:\t%d\n", confine_sanitized());
	return fflush(stdout) == 0 ? 0 : 1;
}

/* The most address space this process had (VmPeak), 0 if unknown. */
static uint64_t peak_bytes(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	unsigned long long kib = 0;
	char line[128];

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmPeak: %llu kB", &kib) == 1)
			break;
	fclose(f);
	return (uint64_t)kib * 1024;
}

/*
 * Whether a failure came from the bound: under RLIMIT_AS every refused mapping looks like
 * something else (a plugin that cannot be loaded, a stream that cannot be read). A process
 * that went within an eighth of the bound (8 MiB at least) is taken as having hit it.
 */
static bool bound_reached(int error, uint64_t max_memory)
{
	uint64_t margin = max_memory / 8 > (8u << 20) ? max_memory / 8 : (8u << 20);

	if (!max_memory || confine_sanitized())
		return false;
	return error == -ENOMEM || peak_bytes() + margin >= max_memory;
}

/* WHY (or ERROR's text), said as out of memory when the bound refused it; NULL: no memory. */
static char *reason(int error, const char *why, uint64_t max_memory)
{
	char *s = NULL;

	if (!why)
		why = strerror(-error);
	if (bound_reached(error, max_memory) &&
	    asprintf(&s, "out of memory within analysis.max_memory (%" PRIu64 " bytes): %s",
		     max_memory, why) >= 0)
		return s;
	return strdup(why);
}

/* One pass over the snapshot at PATH; the result written to READER_RESULT_FD. */
static int read_snapshot(const char *path, bool analyse, uint64_t max_memory)
{
	static const volatile bool never = false;
	const struct an_options opt = {.tables = false};
	struct reader_result res = {0};
	struct json_object *o = NULL;
	struct an_snapshot s;
	uint64_t t0 = now_ns();
	const char *text;
	size_t len, done = 0;
	int r = 1;

	an_snapshot_read(path, AN_WANT_HISTORY | (analyse ? AN_WANT_ANALYSIS : 0), &opt, &never,
			 &s);
	if (s.history_error)
		res.error = reason(s.history_error, s.history_why, max_memory);
	else
		res.history = reader_history_out(&s.history);
	if (analyse && !s.result && s.analysis_error) {
		char *why = reason(s.analysis_error, s.analysis_why, max_memory);

		free(s.analysis_why);
		s.analysis_why = why;
	}
	if (analyse)
		res.analysis = analysis_summary(&s, (int64_t)((now_ns() - t0) / 1000000));
	an_snapshot_free(&s);
	if ((!res.error && !res.history) || (analyse && !res.analysis) ||
	    !(o = reader_result_to_json(&res))) {
		fprintf(stderr, READER_NAME ": %s: no memory for the result\n", path);
		goto out;
	}
	text = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN);
	len = strlen(text);
	while (done < len) {
		ssize_t n = write(READER_RESULT_FD, text + done, len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			fprintf(stderr, READER_NAME ": cannot write the result: %s\n",
				strerror(errno));
			goto out;
		}
		done += (size_t)n;
	}
	r = 0;
out:
	json_object_put(o);
	reader_result_free(&res);
	return r;
}

int main(int argc, char **argv)
{
	static const struct option options[] = {
		{"analyse", no_argument, NULL, 'a'},
		{"max-memory", required_argument, NULL, 'm'},
		{"check-privileges", no_argument, NULL, 'c'},
		{"help", no_argument, NULL, 'h'},
		{0},
	};
	bool analyse = false, check = false;
	uint64_t max_memory = 0;
	char why[256], *end;
	int c;

	/* latencyd spawns it with no other descriptor; run by hand, it takes none along. */
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 34))
	closefrom(READER_RESULT_FD + 1);
#endif
	while ((c = getopt_long(argc, argv, "", options, NULL)) != -1) {
		switch (c) {
		case 'a':
			analyse = true;
			break;
		case 'm':
			errno = 0;
			max_memory = strtoull(optarg, &end, 10);
			if (errno || end == optarg || *end || optarg[0] == '-') {
				fprintf(stderr, READER_NAME ": --max-memory %s: not a byte count\n",
					optarg);
				return 2;
			}
			break;
		case 'c':
			check = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (check ? optind != argc : optind + 1 != argc) {
		usage(stderr);
		return 2;
	}
	if (confine(max_memory, why, sizeof(why)) < 0) {
		fprintf(stderr, READER_NAME ": %s\n", why);
		return 3;
	}
	return check ? check_privileges() : read_snapshot(argv[optind], analyse, max_memory);
}
