/* SPDX-License-Identifier: GPL-2.0-only */
/* What each absent event class costs the analysis, said once per snapshot. */
#include <stdlib.h>

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
	const char *text;
} declared[] = {
	{EV_EXEC, "sched_process_exec: a thread that ran another program is named by the last "
		  "one over its whole run"},
	{EV_MIGRATE, "sched_migrate_task: a woken task is taken to wait on the CPU its wakeup "
		     "targeted"},
};

static void say(struct an_vec *missing, const char *text)
{
	char **slot = an_vec_push(missing);

	if (slot)
		*slot = an_strdup(text);
}

void an_undeclared(const struct an_log *log, struct an_vec *missing)
{
	if (!(log->declared & 1u << EV_SWITCH))
		return;
	for (size_t i = 0; i < sizeof(declared) / sizeof(declared[0]); i++)
		if (!(log->declared & 1u << declared[i].type))
			say(missing, declared[i].text);
}

void an_missing(const struct an_log *log, struct an_vec *missing)
{
	for (size_t i = 0; i < sizeof(needs) / sizeof(needs[0]); i++)
		if (!log->counts[needs[i].type])
			say(missing, needs[i].text);
	an_undeclared(log, missing);
}
