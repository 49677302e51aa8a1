/* SPDX-License-Identifier: GPL-2.0-only */
/* daemon/conf/: defaults, valid files, and every error with its FILE:LINE and setting. */
#include <errno.h>
#include <grp.h>
#include <limits.h>
#include <stdlib.h>
#include <unistd.h>

#include <json-c/json.h>

#include "conf.h"
#include "log.h"
#include "proto.h"
#include "tests.h"
#include "thread.h"

static char dir[] = "/tmp/test-conf-XXXXXX";

static const char *write_file(const char *name, const char *text)
{
	return test_write_file(dir, name, text);
}

/* Loads path; returns the conf or NULL, with the diagnostics in diag. */
static struct conf *load(const char *path, bool must_exist, struct conf_diag *diag)
{
	struct conf_source src = {.path = path, .must_exist = must_exist};
	struct conf *c = NULL;
	int r;

	conf_diag_clear(diag);
	r = conf_load(&src, &c, diag);
	for (size_t i = 0; i < diag->n; i++)
		fprintf(stderr, "   | %s\n", diag->lines[i]);
	ASSERT_EQ(r < 0, c == NULL);
	ASSERT_EQ(r<0, diag->n> 0);
	return c;
}

static void test_defaults(void)
{
	struct conf_diag diag = {0};
	struct conf *c;
	char missing[PATH_MAX];

	ASSERT_EQ(conf_new_defaults(&c), 0);
	ASSERT_STREQ(c->control.socket, PROTO_SOCKET_PATH_DEFAULT);
	ASSERT_STREQ(c->control.admin_group, "");
	ASSERT_STREQ(c->control.read_group, "");
	ASSERT_EQ(c->control.admin_gid, GID_INVALID);
	ASSERT_EQ(c->control.read_gid, GID_INVALID);
	ASSERT_EQ(c->log.level, LOG_INFO);
	ASSERT_TRUE(c->source == NULL);
	conf_free(c);
	conf_free(NULL);

	/* The default file may be missing: defaults apply. A file asked for must exist. */
	snprintf(missing, sizeof(missing), "%s/missing.conf", dir);
	c = load(missing, false, &diag);
	ASSERT_TRUE(c);
	ASSERT_TRUE(c->source == NULL);
	ASSERT_STREQ(c->control.socket, PROTO_SOCKET_PATH_DEFAULT);
	conf_free(c);
	ASSERT_TRUE(load(missing, true, &diag) == NULL);
	ASSERT_EQ(diag.n, 1);
	ASSERT_CONTAINS(diag.lines[0], "missing.conf: No such file or directory");

	/* A directory is not a configuration file. */
	ASSERT_TRUE(load(dir, false, &diag) == NULL);
	ASSERT_CONTAINS(diag.lines[0], "not a regular file");
	conf_diag_clear(&diag);
}

static void test_valid(void)
{
	struct group *g = getgrgid(0);
	struct conf_diag diag = {0};
	char text[512];
	struct conf *c;
	const char *path;

	ASSERT_TRUE(g);
	snprintf(text, sizeof(text),
		 "# comment\n"
		 "control: {\n"
		 "\tsocket = \"/tmp/x/ctl.sock\";\n"
		 "\tadmin_group = \"%s\";\n"
		 "\tread_group = \"\";\n"
		 "};\n"
		 "log: { level = \"debug\"; };\n",
		 g->gr_name);
	path = write_file("valid.conf", text);
	c = load(path, true, &diag);
	ASSERT_TRUE(c);
	ASSERT_STREQ(c->source, path);
	ASSERT_STREQ(c->control.socket, "/tmp/x/ctl.sock");
	ASSERT_STREQ(c->control.admin_group, g->gr_name);
	ASSERT_EQ(c->control.admin_gid, 0);
	ASSERT_EQ(c->control.read_gid, GID_INVALID);
	ASSERT_EQ(c->log.level, LOG_DEBUG);
	conf_free(c);

	/* Sections and settings may be left out. */
	c = load(write_file("partial.conf", "log: { level = \"warning\"; };\n"), true, &diag);
	ASSERT_TRUE(c);
	ASSERT_EQ(c->log.level, LOG_WARNING);
	ASSERT_STREQ(c->control.socket, PROTO_SOCKET_PATH_DEFAULT);
	conf_free(c);

	c = load(write_file("empty.conf", ""), true, &diag);
	ASSERT_TRUE(c);
	conf_free(c);
}

static void expect_errors(const char *name, const char *text, const char *const *expected)
{
	struct conf_diag diag = {0};
	char want[PATH_MAX + 256];
	const char *path = write_file(name, text);
	size_t n = 0;

	ASSERT_TRUE(load(path, true, &diag) == NULL);
	for (; expected[n]; n++) {
		ASSERT_TRUE(n < diag.n);
		snprintf(want, sizeof(want), "%s:%s", path, expected[n]);
		ASSERT_STREQ(diag.lines[n], want);
	}
	ASSERT_EQ(diag.n, n);
	conf_diag_clear(&diag);
}

static void test_errors(void)
{
	expect_errors("unknown.conf",
		      "control: {\n"
		      "  socket = \"/run/a.sock\";\n"
		      "  sockt = \"/run/b.sock\";\n"
		      "};\n"
		      "colour = \"blue\";\n",
		      (const char *const[]){"3: control.sockt: unknown setting",
					    "5: colour: unknown setting", NULL});
	expect_errors("type.conf",
		      "control: {\n"
		      "  socket = 5;\n"
		      "};\n"
		      "log = \"debug\";\n",
		      (const char *const[]){"2: control.socket: expected a string",
					    "4: log: expected a group { ... }", NULL});
	expect_errors(
		"values.conf",
		"control: {\n"
		"  socket = \"relative.sock\";\n"
		"  admin_group = \"no-such-group-latencyd\";\n"
		"};\n"
		"log: { level = \"loud\"; };\n",
		(const char *const[]){
			"2: control.socket: must be an absolute path of at most 107 bytes",
			"3: control.admin_group: group 'no-such-group-latencyd': no such group",
			"5: log.level: 'loud' is not one of error, warning, info, debug", NULL});
	expect_errors("syntax.conf", "control: {\n  socket = = \"/a\";\n};\n",
		      (const char *const[]){"2: syntax error", NULL});

	char longpath[200] = "control: { socket = \"/";
	memset(longpath + strlen(longpath), 'a', 120);
	strcpy(longpath + strlen("control: { socket = \"/") + 120, "\"; };\n");
	expect_errors(
		"long.conf", longpath,
		(const char *const[]){
			"1: control.socket: must be an absolute path of at most 107 bytes", NULL});
}

/* The flight recorder's settings: defaults, typed values, ranges, lists. */
static void test_trackers(void)
{
	struct conf_diag diag = {0};
	const char *path;
	struct conf *c;

	ASSERT_EQ(conf_new_defaults(&c), 0);
	for (size_t i = 0; i < TRACKER_COUNT; i++) {
		ASSERT_TRUE(!c->trackers[i].enabled);
		ASSERT_EQ(c->trackers[i].timeout_ns, 0);
		ASSERT_STREQ(c->trackers[i].filter_comm, "");
	}
	ASSERT_EQ(c->trackers[TRACKER_SYSCALLS].threshold_ns, 100000000);
	ASSERT_EQ(c->trackers[TRACKER_WAKEUP].threshold_ns, 5000000);
	ASSERT_STREQ(tracker_names[TRACKER_OFFCPU], "offcpu");
	ASSERT_STREQ(tracker_names[TRACKER_FS], "fs");
	ASSERT_EQ(c->trackers[TRACKER_FS].threshold_ns, 100000000);
	ASSERT_STREQ(tracker_names[TRACKER_IOSCHED], "iosched");
	ASSERT_EQ(c->trackers[TRACKER_IOSCHED].threshold_ns, 50000000);
	conf_free(c);

	path = write_file(
		"trackers.conf",
		"trackers: {\n"
		"  syscalls: { enabled = true; threshold = \"1.5ms\"; timeout = \"2s\"; };\n"
		"  block: { max_keys = 64; filter_comm = \"postgres\";\n"
		"           filter_cgroup = \"system.slice/pg.service\"; timeout = 0; };\n"
		"  app: { alert_rate = 50; alert_burst = 5; };\n"
		"};\n");
	c = load(path, true, &diag);
	ASSERT_TRUE(c);
	ASSERT_EQ(c->trackers[TRACKER_APP].alert_rate, 50);
	ASSERT_EQ(c->trackers[TRACKER_APP].alert_burst, 5);
	/* Default: no limit of its own; the kernel's default burst. */
	ASSERT_EQ(c->trackers[TRACKER_SYSCALLS].alert_rate, 0);
	ASSERT_EQ(c->trackers[TRACKER_SYSCALLS].alert_burst, LATENCY_TRACKER_TRACKER_ALERT_BURST);
	ASSERT_TRUE(c->trackers[TRACKER_SYSCALLS].enabled);
	ASSERT_EQ(c->trackers[TRACKER_SYSCALLS].threshold_ns, 1500000);
	ASSERT_EQ(c->trackers[TRACKER_SYSCALLS].timeout_ns, 2000000000);
	ASSERT_EQ(c->trackers[TRACKER_BLOCK].max_keys, 64);
	ASSERT_STREQ(c->trackers[TRACKER_BLOCK].filter_comm, "postgres");
	ASSERT_STREQ(c->trackers[TRACKER_BLOCK].filter_cgroup, "system.slice/pg.service");
	ASSERT_EQ(c->trackers[TRACKER_BLOCK].threshold_ns, 50000000);
	conf_free(c);
	conf_diag_clear(&diag);

	expect_errors(
		"trackers-bad.conf",
		"trackers: {\n"
		"  syscalls: { threshold = 10; };\n"
		"  wakeup: { threshold = \"0.5ns\"; timeout = \"500us\"; };\n"
		"  offcpu: { max_keys = 8; filter_comm = \"a-name-too-long-for-comm\"; };\n"
		"  irq: { filter_cgroup = \"../../etc\"; threshold = \"2h\"; };\n"
		"  disk: { enabled = true; };\n"
		"  net: { enabled = \"yes\"; threshold = \"7200000ms\"; };\n"
		"  app: { alert_rate = 1000001; alert_burst = 0; };\n"
		"  block: { alert_rate = \"10/s\"; alert_burst = 65537; };\n"
		"};\n",
		(const char *const[]){
			"2: trackers.syscalls.threshold: '10': a unit is required: ns, us, ms, s, "
			"min "
			"(or m), h or d (as in 10ms or 500us)",
			"3: trackers.wakeup.threshold: '0.5ns': finer than a nanosecond",
			"3: trackers.wakeup.timeout: '500us' is not \"0\" (off) nor between "
			"1000us and 3600000000us",
			"4: trackers.offcpu.max_keys: '8' is not 0 nor an integer in [16, 1048576]",
			"4: trackers.offcpu.filter_comm: 'a-name-too-long-for-comm' is not a task "
			"name (at most 15 bytes, "
			"one line)",
			"5: trackers.irq.filter_cgroup: '../../etc' is not a cgroup: a path under "
			"/sys/fs/cgroup (absolute or relative to it, no '..') or a cgroup id",
			"5: trackers.irq.threshold: '2h' is not between 1µs and 1h",
			"6: trackers.disk: unknown setting",
			"7: trackers.net.enabled: expected true or false",
			"7: trackers.net.threshold: '7200000ms' is not between 0.001ms and "
			"3600000ms",
			"8: trackers.app.alert_rate: '1000001' is not 0 nor an integer in [1, "
			"1000000]",
			"8: trackers.app.alert_burst: '0' is not an integer in [1, 65536]",
			"9: trackers.block.alert_rate: expected an integer",
			"9: trackers.block.alert_burst: '65537' is not an integer in [1, 65536]",
			NULL});
}

static void test_recorder(void)
{
	struct conf_diag diag = {0};
	struct conf *c, *d;
	char sample[PATH_MAX];

	ASSERT_EQ(conf_new_defaults(&c), 0);
	ASSERT_TRUE(c->module.load && c->session.enabled && c->output.fallback_local);
	ASSERT_STREQ(c->session.name, "latencyd");
	ASSERT_EQ(c->session.domain, CONF_DOMAIN_KERNEL);
	ASSERT_STREQ(c->session.events[0], "sched_switch");
	ASSERT_STREQ(c->session.events[5], "sched_process_exec");
	ASSERT_STREQ(c->session.events[6], "sched_migrate_task");
	ASSERT_STREQ(c->session.events[9], "irq_softirq_entry");
	ASSERT_STREQ(c->session.events[12], "timer_hrtimer_expire_entry");
	ASSERT_STREQ(c->session.events[16], "latency_tracker_alert");
	ASSERT_TRUE(c->session.events[17] == NULL);
	ASSERT_STREQ(c->output.directory, "/var/lib/latencyd/snapshots");
	ASSERT_EQ(c->realtime.priority, 50);
	ASSERT_TRUE(conf_needs_root(c));
	conf_free(c);

	c = load(write_file("rec.conf", "module: { load = false; };\n"
					"session: { domain = \"userspace\"; num_subbuf = 8;\n"
					"  events = [\"a:*\", \"b\"]; };\n"
					"ratelimit: { rate = 0.5; burst = 4;\n"
					"  trackers = [\"wakeup=0.1/2\"]; };\n"
					"retention: { max_bytes = 5000000000L; };\n"),
		 true, &diag);
	ASSERT_TRUE(c);
	ASSERT_TRUE(!conf_needs_root(c));
	ASSERT_EQ(c->session.num_subbuf, 8);
	ASSERT_STREQ(c->session.events[1], "b");
	ASSERT_TRUE(c->session.events[2] == NULL);
	ASSERT_TRUE(c->ratelimit.rate == 0.5);
	ASSERT_EQ(c->ratelimit.burst, 4);
	ASSERT_EQ(c->ratelimit.trackers.n, 1);
	ASSERT_STREQ(c->ratelimit.trackers.v[0].tracker, "wakeup");
	ASSERT_TRUE(c->ratelimit.trackers.v[0].rate == 0.1);
	ASSERT_EQ(c->ratelimit.trackers.v[0].burst, 2);
	ASSERT_EQ(c->retention.max_bytes, 5000000000ULL);
	conf_free(c);

	expect_errors("rec-bad.conf",
		      "session: {\n"
		      "  subbuf_size = 5000;\n"
		      "  num_subbuf = 1;\n"
		      "  domain = \"both\";\n"
		      "  events = [];\n"
		      "  syscalls = \"yes\";\n"
		      "};\n"
		      "ratelimit: { rate = -1; trackers = [\"x\"]; };\n"
		      "realtime: { priority = 100; };\n"
		      "output: { relayd = \"http://x\"; directory = \"rel\"; };\n",
		      (const char *const[]){
			      "2: session.subbuf_size: 5000 is not a power of two",
			      "3: session.num_subbuf: '1' is not an integer in [2, 1024]",
			      "4: session.domain: 'both' is not one of kernel, userspace",
			      "5: session.events: at least one event is needed",
			      "6: session.syscalls: expected true or false",
			      "8: ratelimit.rate: -1 is negative",
			      "8: ratelimit.trackers: 'x' is not TRACKER=RATE/BURST (rate 0..1000, "
			      "burst 1..1000)",
			      "9: realtime.priority: '100' is not an integer in [0, 99]",
			      "10: output.relayd: 'http://x' is not empty nor a net://, net6:// or "
			      "tcp:// URL",
			      "10: output.directory: must be an absolute path", NULL});
	/* An empty name is a mistake, not an element to drop: said with its place. */
	expect_errors("events-empty.conf",
		      "session: {\n"
		      "  events = [\"sched_switch\", \"\"];\n"
		      "};\n"
		      "ratelimit: { trackers = [\"\", \"wakeup=1/2\"]; };\n",
		      (const char *const[]){"2: session.events: element 2: must not be empty",
					    "4: ratelimit.trackers: element 1: must not be empty",
					    NULL});

	/* The shipped sample holds the defaults. */
	snprintf(sample, sizeof(sample), "%s/../../etc/latencyd.conf", LATENCYD_TEST_SRCDIR);
	c = load(sample, true, &diag);
	ASSERT_TRUE(c);
	ASSERT_EQ(conf_new_defaults(&d), 0);
	ASSERT_STREQ(c->control.socket, d->control.socket);
	ASSERT_EQ(c->log.level, d->log.level);
	ASSERT_EQ(c->module.load, d->module.load);
	ASSERT_STREQ(c->module.name, d->module.name);
	ASSERT_STREQ(c->module.probe, d->module.probe);
	ASSERT_STREQ(c->module.notify_path, d->module.notify_path);
	ASSERT_STREQ(c->session.name, d->session.name);
	ASSERT_EQ(c->session.domain, d->session.domain);
	ASSERT_EQ(c->session.subbuf_size, d->session.subbuf_size);
	ASSERT_EQ(c->session.num_subbuf, d->session.num_subbuf);
	for (size_t i = 0; d->session.events[i] || c->session.events[i]; i++)
		ASSERT_STREQ(c->session.events[i] ?: "", d->session.events[i] ?: "");
	ASSERT_STREQ(c->output.directory, d->output.directory);
	ASSERT_STREQ(c->output.relayd, d->output.relayd);
	ASSERT_TRUE(c->ratelimit.rate == d->ratelimit.rate);
	ASSERT_EQ(c->ratelimit.burst, d->ratelimit.burst);
	ASSERT_TRUE(c->ratelimit.trackers.n == 0 && d->ratelimit.trackers.n == 0);
	ASSERT_EQ(c->retention.max_count, d->retention.max_count);
	ASSERT_EQ(c->retention.max_bytes, d->retention.max_bytes);
	ASSERT_EQ(c->retention.max_age, d->retention.max_age);
	ASSERT_STREQ(c->catalog.directory, d->catalog.directory);
	ASSERT_EQ(c->realtime.priority, d->realtime.priority);
	ASSERT_EQ(c->realtime.lock_memory, d->realtime.lock_memory);
	conf_free(d);
	conf_free(c);
}

static void test_overrides(void)
{
	struct conf_source src = {.path = write_file("o.conf", "log: { level = \"error\"; };\n"),
				  .must_exist = true,
				  .socket = "/tmp/override.sock",
				  .debug = true};
	struct conf_diag diag = {0};
	struct conf *c = NULL;

	ASSERT_EQ(conf_load(&src, &c, &diag), 0);
	ASSERT_STREQ(c->control.socket, "/tmp/override.sock");
	ASSERT_EQ(c->log.level, LOG_DEBUG);

	ASSERT_EQ(conf_set(c, "control.socket", "nope", &diag), -EINVAL);
	ASSERT_EQ(diag.n, 1);
	ASSERT_STREQ(diag.lines[0],
		     "control.socket: must be an absolute path of at most 107 bytes");
	ASSERT_STREQ(c->control.socket, "/tmp/override.sock");
	ASSERT_EQ(conf_set(c, "control.nothing", "x", &diag), -ENOENT);
	conf_free(c);
	conf_diag_clear(&diag);

	src.socket = "bad";
	ASSERT_EQ(conf_load(&src, &c, &diag), -EINVAL);
	ASSERT_EQ(diag.n, 1);
	conf_diag_clear(&diag);
}

/* fleet.*: the broker's URL and the names, each refused with what is wrong. */
static void test_fleet(void)
{
	struct conf_diag diag = {0};
	struct conf *c = NULL;
	char host[64];
	unsigned port;
	bool tls;

	ASSERT_EQ(conf_new_defaults(&c), 0);
	ASSERT_TRUE(!c->fleet.enabled && c->fleet.host[0] == 0);
	ASSERT_STREQ(c->fleet.group, "default");
	ASSERT_EQ(conf_set(c, "fleet.broker", "mqtts://[::1]:8884", &diag), 0);
	ASSERT_EQ(conf_broker_parse(c->fleet.broker, host, sizeof(host), &port, &tls), 0);
	ASSERT_STREQ(host, "::1");
	ASSERT_TRUE(port == 8884 && tls);
	ASSERT_EQ(conf_broker_parse("mqtt://broker.lan", host, sizeof(host), &port, &tls), 0);
	ASSERT_TRUE(port == 1883 && !tls);
	ASSERT_EQ(conf_set(c, "fleet.broker", "http://x", &diag), -EINVAL);
	ASSERT_EQ(conf_set(c, "fleet.broker", "mqtt://x:0", &diag), -EINVAL);
	ASSERT_EQ(conf_set(c, "fleet.broker", "mqtt://x:65536", &diag), -EINVAL);
	ASSERT_EQ(conf_set(c, "fleet.broker", "mqtt://", &diag), -EINVAL);
	ASSERT_EQ(conf_set(c, "fleet.broker", "mqtt://a/b", &diag), -EINVAL);
	ASSERT_EQ(conf_set(c, "fleet.host", "web/1", &diag), -EINVAL);
	ASSERT_EQ(conf_set(c, "fleet.group", "", &diag), -EINVAL);
	ASSERT_EQ(conf_set(c, "fleet.topic_prefix", "a/b", &diag), -EINVAL);
	ASSERT_EQ(conf_set(c, "fleet.peer_rate", "-1", &diag), -EINVAL);
	/* 0 is "no limit" for ratelimit.rate: for a fleet rate it is refused, saying why. */
	ASSERT_EQ(conf_set(c, "fleet.total_rate", "0", &diag), -EINVAL);
	ASSERT_EQ(diag.n, 10);
	ASSERT_CONTAINS(diag.lines[9], "fleet.total_rate: 0 is neither off nor unlimited here");
	ASSERT_CONTAINS(diag.lines[9], "fleet.record_peers = false");
	ASSERT_EQ(conf_set(c, "fleet.total_rate", "0.5", &diag), 0);
	ASSERT_STREQ(diag.lines[0],
		     "fleet.broker: 'http://x' is not mqtt://HOST[:PORT] nor mqtts://HOST[:PORT]");
	ASSERT_TRUE(strstr(diag.lines[5], "fleet.host: 'web/1' is not a name") != NULL);
	ASSERT_EQ(conf_set(c, "fleet.host", "", &diag), 0);
	ASSERT_EQ(conf_set(c, "fleet.host", "web-1.lab", &diag), 0);
	ASSERT_STREQ(c->fleet.user, "_latencyd");
	ASSERT_EQ(conf_set(c, "fleet.user", "", &diag), -EINVAL);
	conf_free(c);
	conf_diag_clear(&diag);
}

/* libconfig keeps a plain integer in 32 bits: source.c gives it the L that keeps 64. */
static void test_int64(void)
{
	struct conf_diag diag = {0};
	struct conf *c;

	c = load(write_file("int64.conf",
			    "retention: { max_bytes = 10737418240; max_count = 7; };\n"),
		 true, &diag);
	ASSERT_TRUE(c);
	ASSERT_EQ(c->retention.max_bytes, UINT64_C(10737418240));
	conf_free(c);
	c = load(write_file("int64.conf", "retention: { max_bytes = 99999999999999999999; };\n"),
		 true, &diag);
	ASSERT_TRUE(!c);
	ASSERT_CONTAINS(diag.lines[0],
			"retention.max_bytes: the number is past 9223372036854775807");
	c = load(write_file("int64.conf", "retention: { max_bytes = -2147483648; };\n"), true,
		 &diag);
	ASSERT_TRUE(!c); /* a negative number stays one */
	ASSERT_CONTAINS(diag.lines[0], "-2147483648 is negative");

	/* A line of any length before it, and another setting ending in the same name. */
	{
		char text[8192];

		memset(text, '#', 5000);
		snprintf(text + 5000, sizeof(text) - 5000,
			 "\nretention: { max_bytes = 10737418240; };\n");
		c = load(write_file("int64.conf", text), true, &diag);
		ASSERT_TRUE(c);
		ASSERT_EQ(c->retention.max_bytes, UINT64_C(10737418240));
		conf_free(c);
	}
	c = load(write_file("int64.conf",
			    "fleet: { peer_burst = 3; }; ratelimit: { burst = 4294967299; };\n"),
		 true, &diag);
	ASSERT_TRUE(!c);
	ASSERT_CONTAINS(diag.lines[0], "ratelimit.burst: '4294967299' is not an integer");

	/* A bare number as a duration: the unit asked for, never a 32-bit remainder ("0": off). */
	c = load(write_file("int64.conf", "trackers: { syscalls: { timeout = 4294967296; }; };\n"
					  "session: { history = 8589934593; };\n"),
		 true, &diag);
	ASSERT_TRUE(!c);
	ASSERT_EQ(diag.n, 2);
	ASSERT_CONTAINS(diag.lines[0],
			"trackers.syscalls.timeout: '4294967296': a unit is required");
	ASSERT_CONTAINS(diag.lines[1], "session.history: '8589934593': a unit is required");
	c = load(write_file("int64.conf", "session: { history = -99999999999999999999; };\n"), true,
		 &diag);
	ASSERT_TRUE(!c);
	ASSERT_CONTAINS(diag.lines[0], "session.history: the number is below");
	conf_diag_clear(&diag);
}

/* realtime.cpus: where latencyd runs, a CPU list or "" for anywhere. */
static void test_cpus(void)
{
	static const char *const bad[] = {"x", "1-", "-1", "3-1", "0,,1", "0,", "1 2", "99999"};
	struct conf_diag diag = {0};
	struct conf *c = NULL;
	cpu_set_t set;

	ASSERT_EQ(conf_new_defaults(&c), 0);
	ASSERT_STREQ(c->realtime.cpus, "");
	ASSERT_EQ(conf_set(c, "realtime.cpus", "0-1,4", &diag), 0);
	ASSERT_EQ(thread_cpus_parse(c->realtime.cpus, &set), 0);
	ASSERT_TRUE(CPU_COUNT(&set) == 3 && CPU_ISSET(0, &set) && CPU_ISSET(1, &set) &&
		    CPU_ISSET(4, &set));
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ASSERT_EQ(conf_set(c, "realtime.cpus", bad[i], &diag), -EINVAL);
	ASSERT_CONTAINS(diag.lines[0], "realtime.cpus: 'x' is not a list of CPUs");
	ASSERT_STREQ(c->realtime.cpus, "0-1,4"); /* kept */
	/* A rate-limit bucket for a tracker there is not: refused, with a near name. */
	ASSERT_EQ(conf_set(c, "ratelimit.trackers", "sycalls=1/2", &diag), -EINVAL);
	ASSERT_CONTAINS(diag.lines[diag.n - 1], "no tracker 'sycalls' (did you mean 'syscalls'?)");
	ASSERT_EQ(conf_set(c, "ratelimit.trackers", "x=1/2", &diag), -EINVAL);
	ASSERT_TRUE(strstr(diag.lines[diag.n - 1], "did you mean") == NULL);
	/* strtod would skip a blank and take a sign: "-0" would be no limit. */
	ASSERT_EQ(conf_set(c, "ratelimit.trackers", "offcpu= 5/1", &diag), -EINVAL);
	ASSERT_EQ(conf_set(c, "ratelimit.trackers", "offcpu=+5/1", &diag), -EINVAL);
	ASSERT_EQ(conf_set(c, "ratelimit.rate", "-0", &diag), -EINVAL);
	ASSERT_EQ(conf_set(c, "ratelimit.rate", " 5", &diag), -EINVAL);
	ASSERT_EQ(conf_set(c, "ratelimit.trackers", "offcpu=1/2,wakeup=1/1", &diag), 0);
	/* One bucket per tracker: a second one for it would never be used. */
	ASSERT_EQ(conf_set(c, "ratelimit.trackers", "wakeup=1/2,offcpu=1/2,wakeup=0.1/1", &diag),
		  -EINVAL);
	ASSERT_STREQ(diag.lines[diag.n - 1],
		     "ratelimit.trackers: 'wakeup=0.1/1': tracker 'wakeup' has a bucket already");
	ASSERT_EQ(c->ratelimit.trackers.n, 2); /* kept */
	conf_free(c);
	conf_diag_clear(&diag);
}

/* The saved-settings file: read after the file, overriding it, all or nothing. */
static void test_saved(void)
{
	struct conf_source src = {0};
	struct conf_diag diag = {0};
	struct conf_entries e = {0};
	char main_path[PATH_MAX], saved[PATH_MAX], text[PATH_MAX + 256], origin[PATH_MAX + 16];
	struct conf *c = NULL;

	snprintf(saved, sizeof(saved), "%s/saved.conf", dir);
	snprintf(text, sizeof(text),
		 "control: { save_file = \"%s\"; };\n"
		 "trackers: { wakeup: { threshold = \"5ms\"; timeout = \"1s\"; }; };\n",
		 saved);
	snprintf(main_path, sizeof(main_path), "%s", write_file("main.conf", text));
	src.path = main_path;

	/* No saved file yet: the file alone, nothing saved. */
	ASSERT_EQ(conf_read_saved(saved, &e, &diag), 0);
	ASSERT_EQ(e.n, 0);
	ASSERT_EQ(conf_load(&src, &c, &diag), 0);
	ASSERT_EQ(diag.n, 0);
	ASSERT_TRUE(c->saved_source == NULL && c->saved_problem == NULL);
	ASSERT_EQ(c->trackers[TRACKER_WAKEUP].threshold_ns, 5000000);
	conf_free(c);

	write_file("saved.conf",
		   "# saved\ntrackers: {\n\twakeup: {\n\t\tthreshold = \"1234567ns\";\n"
		   "\t\tfilter_comm = \"a \\\"b\\\\\";\n\t};\n};\n");
	ASSERT_EQ(conf_read_saved(saved, &e, &diag), 0);
	ASSERT_EQ(e.n, 2);
	ASSERT_STREQ(e.v[0].key, "trackers.wakeup.threshold");
	ASSERT_STREQ(e.v[0].value, "1234567ns");
	ASSERT_EQ(e.v[0].line, 4);
	ASSERT_STREQ(e.v[1].value, "a \"b\\");
	conf_entries_clear(&e);
	ASSERT_EQ(conf_load(&src, &c, &diag), 0);
	ASSERT_EQ(diag.n, 0);
	ASSERT_STREQ(c->saved_source, saved);
	ASSERT_EQ(c->trackers[TRACKER_WAKEUP].threshold_ns, 1234567); /* the saved one wins */
	ASSERT_EQ(c->trackers[TRACKER_WAKEUP].timeout_ns, 1000000000);
	ASSERT_STREQ(c->trackers[TRACKER_WAKEUP].filter_comm, "a \"b\\");
	{
		struct json_object *o = conf_origins_json(c), *v;

		snprintf(origin, sizeof(origin), "%s:4", saved);
		ASSERT_TRUE(json_object_object_get_ex(o, "trackers.wakeup.threshold", &v));
		ASSERT_STREQ(json_object_get_string(v), origin);
		snprintf(origin, sizeof(origin), "%s:2", main_path);
		ASSERT_TRUE(json_object_object_get_ex(o, "trackers.wakeup.timeout", &v));
		ASSERT_STREQ(json_object_get_string(v), origin);
		ASSERT_TRUE(!json_object_object_get_ex(o, "trackers.offcpu.threshold", NULL));
		json_object_put(o);
	}
	conf_free(c);

	/* Damaged: every problem with its line, then one warning; the file alone applies. */
	write_file("saved.conf", "trackers: { wakeup: { threshold = \"1\"; }; };\n"
				 "control: { socket = \"/x\"; };\n");
	ASSERT_EQ(conf_read_saved(saved, &e, &diag), -EINVAL);
	ASSERT_EQ(e.n, 0);
	conf_diag_clear(&diag);
	ASSERT_EQ(conf_load(&src, &c, &diag), 0);
	ASSERT_EQ(diag.n, 3);
	snprintf(text, sizeof(text), "%s:1: trackers.wakeup.threshold: '1'", saved);
	ASSERT_CONTAINS(diag.lines[0], text);
	snprintf(text, sizeof(text), "%s:2: control: only trackers settings are saved here", saved);
	ASSERT_CONTAINS(diag.lines[1], text);
	ASSERT_CONTAINS(diag.lines[2], "ignored: none of its saved settings apply");
	ASSERT_CONTAINS(diag.lines[2], main_path);
	ASSERT_TRUE(c->saved_source == NULL && c->saved_problem != NULL);
	ASSERT_EQ(c->trackers[TRACKER_WAKEUP].threshold_ns, 5000000);
	conf_free(c);
	conf_diag_clear(&diag);

	/* A NUL byte: the text past it would be lost, so the whole file is ignored. */
	snprintf(text, sizeof(text), "trackers: { wakeup: { threshold = \"2ms\"; }; };\n%c\n", 0);
	{
		FILE *f = fopen(saved, "w");

		ASSERT_TRUE(f);
		fwrite(text, 1, strlen(text) + 2, f); /* its NUL byte, then a newline */
		fclose(f);
	}
	ASSERT_EQ(conf_read_saved(saved, &e, &diag), -EINVAL);
	ASSERT_EQ(e.n, 0);
	snprintf(text, sizeof(text), "%s:2: a NUL byte: not a text file", saved);
	ASSERT_STREQ(diag.lines[0], text);
	conf_diag_clear(&diag);

	/* Past 2^31 a number is what the saved file writes too, not its 32 bits (16 here). */
	write_file("saved.conf",
		   "trackers: {\n  irq: { alert_rate = 5; max_keys = 4294967312; };\n};\n");
	ASSERT_EQ(conf_read_saved(saved, &e, &diag), -EINVAL);
	snprintf(text, sizeof(text), "%s:2: trackers.irq.max_keys: '4294967312' is not 0 nor",
		 saved);
	ASSERT_CONTAINS(diag.lines[0], text);
	conf_diag_clear(&diag);

	/* Saving off: the file is not even read. */
	snprintf(text, sizeof(text), "control: { save_file = \"\"; };\n");
	src.path = write_file("main.conf", text);
	ASSERT_EQ(conf_load(&src, &c, &diag), 0);
	ASSERT_EQ(diag.n, 0);
	ASSERT_TRUE(c->saved_problem == NULL);
	conf_free(c);
}

/* libconfig exit()s on an @include of a directory: latencyd refuses the file instead. */
static void test_include(void)
{
	struct conf_diag diag = {0};
	char text[PATH_MAX + 64], inner[PATH_MAX], want[PATH_MAX + 64];
	struct conf *c;

	snprintf(text, sizeof(text), "# a directory\n@include \"%s\"\n", dir);
	snprintf(inner, sizeof(inner), "%s", write_file("inner.conf", text));
	snprintf(text, sizeof(text), "log: { level = \"info\"; };\n  @include \"%s\"\n", inner);
	c = load(write_file("outer.conf", text), true, &diag);
	ASSERT_TRUE(c == NULL);
	snprintf(want, sizeof(want), "%s:2: @include \"%s\": not a regular file", inner, dir);
	ASSERT_STREQ(diag.lines[0], want);
	conf_diag_clear(&diag);

	/* A regular file is included as before. */
	write_file("inner.conf", "session: { enabled = false; };\n");
	c = load(write_file("outer.conf", text), true, &diag);
	ASSERT_TRUE(c && !c->session.enabled);
	conf_free(c);
	conf_diag_clear(&diag);
}

/*
 * The @include check must see every line libconfig reads: past a NUL byte in a comment, or
 * in a file too large to check, an @include of a directory would still exit() latencyd.
 */
static void test_include_unseen(void)
{
	struct conf_diag diag = {0};
	char path[PATH_MAX], want[PATH_MAX + 64];
	struct conf *c;
	FILE *f;

	snprintf(path, sizeof(path), "%s/nul.conf", dir);
	f = fopen(path, "w");
	ASSERT_TRUE(f);
	fprintf(f, "log: { level = \"info\"; };\n# a%cb\n@include \"%s\"\n", 0, dir);
	fclose(f);
	c = load(path, true, &diag);
	ASSERT_TRUE(c == NULL);
	snprintf(want, sizeof(want), "%s:2: a NUL byte: not a text file", path);
	ASSERT_STREQ(diag.lines[0], want);
	conf_diag_clear(&diag);

	snprintf(path, sizeof(path), "%s/huge.conf", dir);
	f = fopen(path, "w");
	ASSERT_TRUE(f);
	fputc('#', f);
	for (int i = 0; i < 17 * 1024; i++)
		fprintf(f, "%01023d", 0);
	fprintf(f, "\n@include \"%s\"\n", dir);
	fclose(f);
	c = load(path, true, &diag);
	ASSERT_TRUE(c == NULL);
	snprintf(want, sizeof(want), "%s: larger than 16 MiB", path);
	ASSERT_STREQ(diag.lines[0], want);
	unlink(path);
	conf_diag_clear(&diag);
}

/* What --save writes is read back the same, whatever the characters. */
static void test_literal(void)
{
	static const char *const comms[] = {"", "nginx", "a\"b", "back\\slash", "tab\there", "é"};
	struct conf_diag diag = {0};
	char text[256], *lit;
	struct conf *c;

	for (size_t i = 0; i < sizeof(comms) / sizeof(comms[0]); i++) {
		ASSERT_EQ(conf_literal("trackers.irq.filter_comm", comms[i], &lit), 0);
		snprintf(text, sizeof(text), "trackers: { irq: { filter_comm = %s; }; };", lit);
		free(lit);
		ASSERT_EQ(conf_new_defaults(&c), 0);
		ASSERT_EQ(conf_parse_string(c, text, "literal", true, &diag), 0);
		ASSERT_STREQ(c->trackers[TRACKER_IRQ].filter_comm, comms[i]);
		conf_free(c);
	}
	ASSERT_EQ(conf_literal("trackers.irq.enabled", "true", &lit), 0);
	ASSERT_STREQ(lit, "true");
	free(lit);
	ASSERT_EQ(conf_literal("trackers.irq.max_keys", "4096", &lit), 0);
	ASSERT_STREQ(lit, "4096");
	free(lit);
	ASSERT_EQ(conf_literal("trackers.irq.threshold", "1.5ms", &lit), 0);
	ASSERT_STREQ(lit, "\"1.5ms\"");
	free(lit);
	ASSERT_EQ(conf_literal("session.events", "a", &lit), -EINVAL);
	ASSERT_EQ(conf_literal("no.such", "a", &lit), -ENOENT);

	/* Text parsed from elsewhere never reaches another file. */
	ASSERT_EQ(conf_new_defaults(&c), 0);
	ASSERT_EQ(conf_parse_string(c, "@include \"/etc/passwd\"\n", "inc", false, &diag), -EINVAL);
	ASSERT_STREQ(diag.lines[0], "inc:1: @include is not allowed here");
	conf_free(c);
	conf_diag_clear(&diag);
}

int main(void)
{
	char cmd[PATH_MAX];

	ASSERT_TRUE(mkdtemp(dir));
	RUN(test_defaults);
	RUN(test_valid);
	RUN(test_errors);
	RUN(test_overrides);
	RUN(test_fleet);
	RUN(test_cpus);
	RUN(test_int64);
	RUN(test_trackers);
	RUN(test_recorder);
	RUN(test_saved);
	RUN(test_literal);
	RUN(test_include);
	RUN(test_include_unseen);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : 1;
}
