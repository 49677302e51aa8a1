/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The snapshot reader (analysis/snapshot.h) on a snapshot written by hand (ctf.h): one
 * pass serves the history and the analysis (one graph, each trace one source, each
 * message read once: as many as a pass for either alone), both give what they give
 * alone, the stop flag cancels, a damaged stream leaves a partial analysis and no history,
 * and a path without a trace fails both with a reason.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>

#include "an.h"
#include "ctf.h"
#include "results.h"
#include "snapshot.h"
#include "tests.h"

static char root[] = "/tmp/test-snapshot-read.XXXXXX";

static void rm_rf(const char *path)
{
	char cmd[600];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", path);
	ASSERT_EQ(system(cmd), 0);
}

static uint64_t file_size(const char *rel)
{
	char path[600];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	ASSERT_EQ(stat(path, &st), 0);
	return (uint64_t)st.st_size;
}

/* The streams sorted by channel then CPU: kernel and ust flight_0 (CPU 0), 1, 2. */
static void check_history(const struct history *h)
{
	uint64_t events = 0;

	ASSERT_EQ(h->n, CTF_STREAMS);
	for (size_t i = 0; i < h->n; i++) {
		ASSERT_STREQ(h->streams[i].channel, "flight");
		events += h->streams[i].events;
	}
	ASSERT_EQ(events, CTF_EVENTS);
	ASSERT_EQ(h->streams[0].cpu, 0);
	ASSERT_EQ(h->streams[1].cpu, 0);
	ASSERT_EQ(h->streams[2].cpu, 1);
	ASSERT_EQ(h->streams[2].events, 2);
	ASSERT_EQ(h->streams[2].first_ns, CTF_ORIGIN_NS + 1500);
	ASSERT_EQ(h->streams[2].last_ns, CTF_ORIGIN_NS + 2500);
	ASSERT_EQ(h->streams[2].bytes, file_size("kernel/flight_1"));
	ASSERT_EQ(h->streams[3].cpu, 2); /* no event, still a stream */
	ASSERT_EQ(h->streams[3].events, 0);
	for (size_t i = 0; i < 2; i++) {
		const struct history_stream *s = &h->streams[i];

		if (strstr(s->path, "kernel")) {
			ASSERT_EQ(s->events, 3);
			ASSERT_EQ(s->first_ns, CTF_ORIGIN_NS + 1000);
			ASSERT_EQ(s->last_ns, CTF_ORIGIN_NS + 3000);
		} else {
			ASSERT_EQ(s->events, 1);
			ASSERT_EQ(s->bytes, file_size("ust/uid/0/64-bit/flight_0"));
		}
	}
}

static void check_analysis(const struct an_result *r)
{
	ASSERT_TRUE(r);
	ASSERT_TRUE(!an_result_partial(r));
	ASSERT_EQ(an_result_events(r), CTF_EVENTS);
	ASSERT_EQ(r->log.counts[EV_SWITCH], CTF_EVENTS); /* decoded, not only counted */
	ASSERT_EQ(r->dirs.n, CTF_TRACES);
}

static void test_one_pass(void)
{
	struct an_snapshot both, hist, an;

	ASSERT_EQ(an_snapshot_read(root, AN_WANT_HISTORY | AN_WANT_ANALYSIS, NULL, NULL, &both), 0);
	ASSERT_EQ(both.history_error, 0);
	ASSERT_EQ(both.analysis_error, 0);
	check_history(&both.history);
	check_analysis(both.result);
	/* One graph, each trace one source: the snapshot was read once. */
	ASSERT_EQ(both.graphs, 1);
	ASSERT_EQ(both.sources, CTF_TRACES);
	ASSERT_TRUE(both.messages > CTF_EVENTS);

	ASSERT_EQ(an_snapshot_read(root, AN_WANT_HISTORY, NULL, NULL, &hist), 0);
	check_history(&hist.history);
	ASSERT_TRUE(!hist.result);
	ASSERT_EQ(an_snapshot_read(root, AN_WANT_ANALYSIS, NULL, NULL, &an), 0);
	check_analysis(an.result);
	ASSERT_EQ(an.history.n, 0);
	/* Both for the messages of one: each message was read once, not once per part. */
	ASSERT_EQ(hist.messages, both.messages);
	ASSERT_EQ(an.messages, both.messages);
	ASSERT_EQ(hist.graphs + an.graphs, 2 * both.graphs);
	fprintf(stderr, "   %llu messages, %u graph, %u sources for history and analysis\n",
		(unsigned long long)both.messages, both.graphs, both.sources);
	an_snapshot_free(&both);
	an_snapshot_free(&hist);
	an_snapshot_free(&an);
}

/* an_analyze() is the analysis alone: the same result. */
static void test_analyze(void)
{
	struct an_result *r = NULL;
	char *why = (char *)"unset";

	ASSERT_EQ(an_analyze(root, NULL, &r, &why), 0);
	ASSERT_TRUE(!why);
	check_analysis(r);
	ASSERT_TRUE(r->tables.n > 0); /* the defaults compute the tables */
	an_result_free(r);
	ASSERT_EQ(an_analyze("/nonexistent/snapshot", NULL, &r, &why), -ENOENT);
	ASSERT_CONTAINS(why, "/nonexistent/snapshot");
	free(why);
}

static void test_stop(void)
{
	volatile bool stop = true;
	struct an_snapshot s;

	ASSERT_EQ(an_snapshot_read(root, AN_WANT_HISTORY | AN_WANT_ANALYSIS, NULL, &stop, &s),
		  -ECANCELED);
	ASSERT_EQ(s.history_error, -ECANCELED);
	ASSERT_EQ(s.analysis_error, -ECANCELED);
	ASSERT_STREQ(s.history_why, "stopped");
	ASSERT_STREQ(s.analysis_why, "stopped");
	ASSERT_EQ(s.messages, 0);
	ASSERT_EQ(s.history.n, 0);
	ASSERT_TRUE(!s.result);
	an_snapshot_free(&s);
}

/*
 * A stream file cut inside its packet: the trace is salvaged without it for the analysis
 * (partial, naming the file), in the same single pass; the history is not measured.
 */
static void test_damaged(void)
{
	char path[600];
	struct an_snapshot s;

	snprintf(path, sizeof(path), "%s/kernel/flight_1", root);
	ASSERT_EQ(truncate(path, (off_t)file_size("kernel/flight_1") - 5), 0);
	ASSERT_EQ(an_snapshot_read(root, AN_WANT_HISTORY | AN_WANT_ANALYSIS, NULL, NULL, &s), -EIO);
	fprintf(stderr, "   history: %s\n", s.history_why);
	ASSERT_EQ(s.history_error, -EIO);
	ASSERT_EQ(s.history.n, 0);
	ASSERT_CONTAINS(s.history_why, "kernel/flight_1");
	ASSERT_EQ(s.analysis_error, 0);
	ASSERT_TRUE(an_result_partial(s.result));
	ASSERT_EQ(an_result_events(s.result), CTF_EVENTS - 2); /* flight_1's two are lost */
	ASSERT_STREQ(s.history_why, *AN_AT(&s.result->log.problems, char *, 0));
	/* One graph refused the damaged trace, the second read what was left, once. */
	ASSERT_EQ(s.graphs, 2);
	ASSERT_EQ(s.sources, CTF_TRACES);
	an_snapshot_free(&s);
}

/*
 * A task's name is whatever bytes it set, cut by the kernel at 15 bytes, inside a character
 * as well ("é" seven times and the first byte of the eighth): the JSON stays UTF-8, the
 * characters whole before the cut kept.
 */
static void test_comm_not_utf8(void)
{
	static const char cut[] = "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3";
	static const char *const dirs[] = {"kernel", NULL};
	const uint32_t header[2] = {0xc1fc1fc1, 0}, cpu = 0, id = 0;
	const int32_t task[2] = {100, 20}, idle[2] = {0, 20};
	const int64_t state = 0;
	char dir[] = "/tmp/test-snapshot-read.XXXXXX", path[600], *why = NULL;
	struct an_result *r = NULL;
	struct json_tokener *tok;
	struct json_object *o;
	uint64_t bits[2] = {0, 0};
	const char *text;
	FILE *f;

	ASSERT_EQ(strlen(cut), 15);
	ASSERT_TRUE(mkdtemp(dir));
	ctf_mkdirs(dir, dirs);
	snprintf(path, sizeof(path), "%s/kernel", dir);
	ctf_trace_dir(path);
	snprintf(path, sizeof(path), "%s/kernel/flight_0", dir);
	f = fopen(path, "w+b");
	ASSERT_TRUE(f);
	ctf_put(f, header, sizeof(header));
	ctf_put(f, bits, sizeof(bits));
	ctf_put(f, &cpu, sizeof(cpu));
	for (uint64_t ts = 1000; ts <= 3000; ts += 1000) {
		bool in = ts != 2000; /* the task switched in, out, in */

		ctf_put(f, &id, sizeof(id));
		ctf_put(f, &ts, sizeof(ts));
		ctf_put(f, in ? "swapper/0" : cut, in ? 10 : sizeof(cut));
		ctf_put(f, in ? idle : task, sizeof(task));
		ctf_put(f, &state, sizeof(state));
		ctf_put(f, in ? cut : "swapper/0", in ? sizeof(cut) : 10);
		ctf_put(f, in ? task : idle, sizeof(task));
	}
	bits[0] = bits[1] = (uint64_t)ftell(f) * 8;
	ASSERT_EQ(fseek(f, sizeof(header), SEEK_SET), 0);
	ctf_put(f, bits, sizeof(bits));
	ASSERT_EQ(fclose(f), 0);

	ASSERT_EQ(an_analyze(dir, NULL, &r, &why), 0);
	ASSERT_STREQ(an_comm_at(&r->log, 100, 0),
		     "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9?");
	o = an_result_json(r);
	text = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN);
	ASSERT_TRUE(strstr(text, "\xc3\xa9\xc3\xa9?"));
	tok = json_tokener_new();
	ASSERT_TRUE(tok);
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8);
	json_object_put(json_tokener_parse_ex(tok, text, (int)strlen(text)));
	ASSERT_EQ(json_tokener_get_error(tok), json_tokener_success);
	json_tokener_free(tok);
	json_object_put(o);
	an_result_free(r);
	rm_rf(dir);
}

static void test_errors(void)
{
	char dir[] = "/tmp/test-snapshot-read.XXXXXX", path[128];
	struct an_snapshot s;
	FILE *f;

	ASSERT_TRUE(mkdtemp(dir));
	ASSERT_EQ(an_snapshot_read("/nonexistent/snapshot", AN_WANT_HISTORY | AN_WANT_ANALYSIS,
				   NULL, NULL, &s),
		  -ENOENT);
	ASSERT_CONTAINS(s.history_why, "/nonexistent/snapshot");
	ASSERT_CONTAINS(s.analysis_why, "/nonexistent/snapshot");
	an_snapshot_free(&s);
	ASSERT_EQ(an_snapshot_read(dir, AN_WANT_HISTORY, NULL, NULL, &s), -ENOENT);
	ASSERT_CONTAINS(s.history_why, "no CTF trace");
	ASSERT_TRUE(!s.analysis_why);
	an_snapshot_free(&s);

	/* A "metadata" that is not CTF: babeltrace2's reason, naming the directory. */
	snprintf(path, sizeof(path), "%s/kernel", dir);
	ASSERT_EQ(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/kernel/metadata", dir);
	f = fopen(path, "w");
	ASSERT_TRUE(f);
	fputs("this is not TSDL {", f);
	fclose(f);
	ASSERT_TRUE(an_snapshot_read(dir, AN_WANT_HISTORY, NULL, NULL, &s) < 0);
	fprintf(stderr, "   %s\n", s.history_why);
	ASSERT_CONTAINS(s.history_why, "/kernel");
	ASSERT_EQ(s.history.n, 0);
	an_snapshot_free(&s);
	rm_rf(dir);
}

int main(void)
{
	ASSERT_TRUE(mkdtemp(root));
	ctf_snapshot(root);
	RUN(test_one_pass);
	RUN(test_analyze);
	RUN(test_stop);
	RUN(test_errors);
	RUN(test_comm_not_utf8);
	RUN(test_damaged); /* last: it damages the snapshot */
	rm_rf(root);
	return 0;
}
