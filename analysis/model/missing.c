/* SPDX-License-Identifier: GPL-2.0-only */
/* What each absent event class costs the analysis, said once per snapshot. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "an.h"

static const struct {
	int type;
	const char *text;
} needs[] = {
	{EV_SWITCH, "sched_switch: no timelines, no CPU usage"},
	{EV_WAKING, "sched_waking: wakers (the chain) cannot be found"},
	{EV_SYS_ENTRY, "syscall_entry_*/syscall_exit_*: no system call tables, the system call "
		       "of a blocked task is unknown"},
	{EV_IRQ_ENTRY, "irq_handler_entry/exit: no irq table, device wakeups are not attributed"},
	{EV_SOFTIRQ_ENTRY, "irq_softirq_entry/exit/raise: softirq wakeups are not attributed"},
	{EV_HRTIMER_ENTRY, "timer_hrtimer_expire_entry/exit: timer wakeups are not recognised"},
	{EV_BLOCK_COMPLETE, "block_rq_issue/complete: no block I/O tables"},
	{EV_ALERT, "latency_tracker_alert: no alert, so no cause to explain (tables only)"},
};

/*
 * Classes whose events may well not happen in a snapshot: said missing only when a kernel
 * trace's metadata (one declaring sched_switch) does not declare them, as a session of an
 * older latencyd or made by hand records them not. Counting their events would say it of
 * any snapshot where no task exec'd or moved.
 */
static const struct {
	int type;
	const char *name, *cost;
} declared[] = {
	{EV_EXEC, "sched_process_exec",
	 "a thread that ran another program is named by the last one over its whole run"},
	{EV_MIGRATE, "sched_migrate_task",
	 "a woken task is taken to wait on the CPU its wakeup targeted"},
};

/* The kernel traces a list names at most: a directory of a fleet's hosts has hundreds. */
#define NAMED_MAX 4

static void say(struct an_vec *missing, char *text)
{
	char **slot = text ? an_vec_push(missing) : NULL;

	if (slot)
		*slot = text;
	else
		free(text);
}

int an_declare(struct an_log *log, uint32_t trace, uint32_t types)
{
	struct an_declared *d;

	for (size_t i = 0; i < log->declared.n; i++) {
		d = AN_AT(&log->declared, struct an_declared, i);
		if (d->trace == trace) {
			d->types |= types;
			return 0;
		}
	}
	d = an_vec_push(&log->declared);
	if (!d)
		return -ENOMEM;
	*d = (struct an_declared){.trace = trace, .types = types};
	return 0;
}

/* Trace T's directory as the reader knows it: under ROOT, the part below it. */
static const char *trace_name(const struct an_vec *dirs, const char *root, uint32_t t)
{
	const char *dir;
	size_t n = strlen(root);

	if (t >= dirs->n)
		return "?";
	dir = *AN_AT(dirs, char *, t);
	while (n > 1 && root[n - 1] == '/')
		n--;
	if (strncmp(dir, root, n) != 0 || dir[n] != '/')
		return dir;
	while (dir[n] == '/')
		n++;
	return dir[n] ? dir + n : dir;
}

/*
 * Each class the kernel traces do not all declare: said as it always was when none of them
 * does (a snapshot of one host's kernel, most often), else with the traces that lack it.
 */
void an_undeclared(const struct an_log *log, const struct an_vec *dirs, const char *root,
		   struct an_vec *missing)
{
	const struct an_declared *d = log->declared.v;
	size_t kernels = 0;

	for (size_t i = 0; i < log->declared.n; i++)
		kernels += (d[i].types & 1u << EV_SWITCH) != 0;
	for (size_t c = 0; kernels && c < sizeof(declared) / sizeof(declared[0]); c++) {
		uint32_t bit = 1u << declared[c].type;
		size_t lack = 0, named = 0;
		char *list = NULL;
		size_t size = 0;
		FILE *f;

		for (size_t i = 0; i < log->declared.n; i++)
			lack += (d[i].types & 1u << EV_SWITCH) && !(d[i].types & bit);
		if (!lack)
			continue;
		if (lack == kernels) {
			say(missing, an_asprintf("%s: %s", declared[c].name, declared[c].cost));
			continue;
		}
		f = open_memstream(&list, &size);
		if (!f)
			continue;
		/* In the order of the directories: the streams decoded apart meet them in
		 * another. */
		for (uint32_t t = 0; t < dirs->n && named < NAMED_MAX; t++)
			for (size_t i = 0; i < log->declared.n; i++)
				if (d[i].trace == t && (d[i].types & 1u << EV_SWITCH) &&
				    !(d[i].types & bit))
					fprintf(f, "%s%s", named++ ? ", " : "",
						trace_name(dirs, root, t));
		if (lack > named)
			fprintf(f, "%s%zu kernel trace(s)", named ? " and " : "", lack - named);
		if (fclose(f) == 0)
			say(missing,
			    an_asprintf("%s in %s: %s", declared[c].name, list, declared[c].cost));
		free(list);
	}
}

void an_missing(const struct an_log *log, const struct an_vec *dirs, const char *root,
		struct an_vec *missing)
{
	for (size_t i = 0; i < sizeof(needs) / sizeof(needs[0]); i++)
		if (!log->counts[needs[i].type])
			say(missing, an_strdup(needs[i].text));
	an_undeclared(log, dirs, root, missing);
}
