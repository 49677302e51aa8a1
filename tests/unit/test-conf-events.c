/* SPDX-License-Identifier: GPL-2.0-only */
/* daemon/conf/events.c: session.events checked against the probes' events where typed. */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <unistd.h>

#include "conf.h"
#include "tests.h"

static char dir[] = "/tmp/test-conf-events-XXXXXX";

static const char *write_file(const char *name, const char *text)
{
	return test_write_file(dir, name, text);
}

static void check(const char *name, int want, const char *want_why)
{
	char why[512] = "";
	int r = conf_event_check(name, why, sizeof(why));

	if (r != want || (want_why && !strstr(why, want_why))) {
		fprintf(stderr, "'%s': %d \"%s\", expected %d \"%s\"\n", name, r, why, want,
			want_why ? want_why : "");
		abort();
	}
}

static void test_table(void)
{
	struct conf *c;

	ASSERT_TRUE(conf_n_kernel_events > 80);
	for (size_t i = 1; i < conf_n_kernel_events; i++)
		ASSERT_TRUE(strcmp(conf_kernel_events[i - 1], conf_kernel_events[i]) < 0);
	/* What latencyd enables itself: the defaults and a fleet's packet events. */
	ASSERT_EQ(conf_new_defaults(&c), 0);
	for (char **e = c->session.events; *e; e++)
		check(*e, 0, NULL);
	conf_free(c);
	check("net_dev_queue", 0, NULL);
	check("net_if_receive_skb", 0, NULL);
	check("lttng_statedump_process_state", 0, NULL);
}

/* The probes named in messages are the ones the shipped drop-in loads. */
static void test_dropin(void)
{
	char path[PATH_MAX], line[512], want[256];
	bool seen = false;
	FILE *f;

	snprintf(path, sizeof(path), "%s/systemd/lttng-sessiond.service.d/latencyd.conf",
		 LATENCYD_TEST_TOPDIR);
	f = fopen(path, "r");
	ASSERT_TRUE(f);
	while (fgets(line, sizeof(line), f)) {
		const char *p = strstr(line, "--kmod-probes=");
		size_t j = 0;

		if (strncmp(line, "ExecStart=", 10) != 0 || !p)
			continue;
		/* "sched,irq,..." as CONF_KERNEL_PROBES writes it, "sched, irq, ...". */
		for (p += 14; *p && *p != ' ' && *p != '\n' && j + 3 < sizeof(want); p++) {
			want[j++] = *p;
			if (*p == ',')
				want[j++] = ' ';
		}
		want[j] = 0;
		ASSERT_STREQ(want, CONF_KERNEL_PROBES);
		seen = true;
	}
	fclose(f);
	ASSERT_TRUE(seen);
}

static void test_check(void)
{
	check("sched_switch", 0, NULL);
	check("timer_hrtimer_expire_entry", 0, NULL);
	check("latency_tracker_alert", 0, NULL);
	/* A near miss: an error, with the name meant. */
	check("sched_swich", -EINVAL,
	      "'sched_swich' is not an event; did you mean 'sched_switch'?");
	check("irq_sofirq_entry", -EINVAL, "did you mean 'irq_softirq_entry'?");
	check("sched_wakup_new", -EINVAL, "did you mean 'sched_wakeup_new'?");
	/* The kernel's name where LTTng's differs is two edits or more away: a warning. */
	check("softirq_entry", 1, "is not among the events of the probes");
	/* Far from all: maybe another probe's, said but allowed. */
	check("kmem_kmalloc", 1,
	      "'kmem_kmalloc' is not among the events of the probes latencyd's lttng-sessiond "
	      "drop-in loads (sched, irq, timer, block, net, statedump) nor latencyd's own: it "
	      "records nothing unless lttng-sessiond also loads its probe (--kmod-probes)");
	/* Wildcards, as lttng enable-event takes them. */
	check("sched_*", 0, NULL);
	check("irq_*_entry", 0, NULL);
	check("*", 0, NULL);
	check("lttng_statedump_*", 0, NULL);
	check("shced_*", 1, "'shced_*' matches none of the events of the probes");
	check("kmem_*", 1, "matches none");
	/* System calls are not tracepoints: session.syscalls records them. */
	check("syscall_entry_openat", -EINVAL, "session.syscalls = true");
	check("compat_syscall_exit_read", -EINVAL, "is a system call");
}

static void test_match(void)
{
	ASSERT_TRUE(conf_event_match("sched_switch", "sched_switch"));
	ASSERT_TRUE(!conf_event_match("sched_switch", "sched_switc"));
	ASSERT_TRUE(!conf_event_match("sched_switc", "sched_switch"));
	ASSERT_TRUE(conf_event_match("sched_*", "sched_switch"));
	ASSERT_TRUE(conf_event_match("sched_*", "sched_"));
	ASSERT_TRUE(conf_event_match("*switch", "sched_switch"));
	ASSERT_TRUE(conf_event_match("*_s*h", "sched_switch"));
	ASSERT_TRUE(conf_event_match("**", ""));
	ASSERT_TRUE(!conf_event_match("irq_*_exit", "irq_softirq_entry"));
	ASSERT_TRUE(conf_event_match("a*b*c", "aXbYbZc"));
	ASSERT_TRUE(!conf_event_match("a*b*c", "aXbYbZ"));
}

/* Loads text; returns the conf or NULL, the messages in diag (warnings when it loads). */
static struct conf *load(const char *name, const char *text, struct conf_diag *diag)
{
	struct conf_source src = {.path = write_file(name, text), .must_exist = true};
	struct conf *c = NULL;

	conf_diag_clear(diag);
	ASSERT_EQ(conf_load(&src, &c, diag) < 0, c == NULL);
	for (size_t i = 0; i < diag->n; i++)
		fprintf(stderr, "   | %s\n", diag->lines[i]);
	return c;
}

static void test_file(void)
{
	struct conf_diag diag = {0};
	char want[PATH_MAX + 256];
	struct conf *c;

	c = load("typo.conf",
		 "session: {\n"
		 "  events = [ \"sched_switch\", \"sched_swich\" ];\n"
		 "};\n",
		 &diag);
	ASSERT_TRUE(!c);
	ASSERT_EQ(diag.n, 1);
	snprintf(want, sizeof(want),
		 "%s/typo.conf:2: session.events: 'sched_swich' is not an event; did you mean "
		 "'sched_switch'?",
		 dir);
	ASSERT_STREQ(diag.lines[0], want);

	/* Another probe's event: the configuration is valid, with a warning. */
	c = load("other.conf", "session: { events = [ \"sched_*\", \"kmem_kmalloc\" ]; };\n",
		 &diag);
	ASSERT_TRUE(c);
	ASSERT_EQ(diag.n, 1);
	snprintf(want, sizeof(want),
		 "%s/other.conf:1: session.events: warning: 'kmem_kmalloc' is not among", dir);
	ASSERT_EQ(strncmp(diag.lines[0], want, strlen(want)), 0);
	conf_free(c);

	/* The user space domain's events are the applications': nothing checked, even when
	 * the domain comes after the events. */
	c = load("ust.conf",
		 "session: { events = [ \"sched_swich\", \"my_app:*\" ];\n"
		 "  domain = \"userspace\"; };\n"
		 "module: { load = false; };\n",
		 &diag);
	ASSERT_TRUE(c);
	ASSERT_EQ(diag.n, 0);
	conf_free(c);

	/* The defaults, unchecked when not written, are all known anyway (test_table). */
	c = load("none.conf", "session: { name = \"x\"; };\n", &diag);
	ASSERT_TRUE(c);
	ASSERT_EQ(diag.n, 0);
	conf_free(c);
	conf_diag_clear(&diag);
}

int main(void)
{
	char cmd[PATH_MAX];

	ASSERT_TRUE(mkdtemp(dir));
	RUN(test_table);
	RUN(test_dropin);
	RUN(test_check);
	RUN(test_match);
	RUN(test_file);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : 1;
}
