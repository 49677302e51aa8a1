/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The log's tasks (by tid; who each was over time: idents.c), the names it holds
 * (interrupts, system calls) or knows (softirq vectors), what went wrong reading it, and
 * the log freed.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "an.h"

void an_log_init(struct an_log *log)
{
	memset(log, 0, sizeof(*log));
	log->ev.size = sizeof(struct an_ev);
	log->tasks.size = sizeof(struct an_task);
	log->obs.size = sizeof(struct an_obs);
	log->idents.size = sizeof(struct an_ident);
	log->alerts.size = sizeof(struct an_alert);
	log->cpu_first.size = sizeof(uint64_t);
	log->packets.size = sizeof(struct an_packet);
	log->disks.size = sizeof(struct an_disk);
	log->bad_classes.size = sizeof(struct an_bad_class);
	log->declared.size = sizeof(struct an_declared);
	log->lost.size = sizeof(struct an_lost);
	log->sysnames.size = log->irqname_v.size = log->problems.size = sizeof(char *);
}

void an_problem(struct an_log *log, const char *fmt, ...)
{
	va_list ap;
	char *s, **slot;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	log->partial = true;
	slot = s ? an_vec_push(&log->problems) : NULL;
	if (slot)
		*slot = s;
	else
		free(s);
}

struct an_task *an_task_get(struct an_log *log, int32_t tid)
{
	bool inserted;
	uint32_t *slot = an_map_slot(&log->by_tid, (uint64_t)(uint32_t)tid + 1, &inserted);
	struct an_task *t;

	if (!slot)
		return NULL;
	if (!inserted)
		return AN_AT(&log->tasks, struct an_task, *slot - 1);
	t = an_vec_push(&log->tasks);
	if (!t)
		return NULL;
	t->tid = tid;
	t->pid = -1;
	*slot = (uint32_t)log->tasks.n;
	return t;
}

const struct an_task *an_task_find(const struct an_log *log, int32_t tid)
{
	uint32_t *slot = an_map_find(&log->by_tid, (uint64_t)(uint32_t)tid + 1);

	return slot ? AN_AT(&log->tasks, struct an_task, *slot - 1) : NULL;
}

const char *an_irq_name(const struct an_log *log, int32_t irq)
{
	uint32_t *slot = an_map_find(&log->irqnames, (uint64_t)(uint32_t)irq + 1);

	/* A slot whose name could not be stored (out of memory) holds 0. */
	return slot && *slot ? *AN_AT(&log->irqname_v, char *, *slot - 1) : "?";
}

const char *an_softirq_name(int32_t vec)
{
	static const char *const names[] = {"HI",	"TIMER",   "NET_TX", "NET_RX",	"BLOCK",
					    "IRQ_POLL", "TASKLET", "SCHED",  "HRTIMER", "RCU"};

	return vec >= 0 && vec < (int32_t)(sizeof(names) / sizeof(names[0])) ? names[vec] : "?";
}

int32_t an_sysname_index(struct an_log *log, const char *name)
{
	/* Names are kept as JSON and LAMI will show them: compared as such. */
	char *mended = strdup(name), **slot;

	if (!mended)
		return -1;
	an_utf8_mend(mended);
	for (size_t i = 0; i < log->sysnames.n; i++) {
		if (strcmp(*AN_AT(&log->sysnames, char *, i), mended) == 0) {
			free(mended);
			return (int32_t)i;
		}
	}
	slot = an_vec_push(&log->sysnames);
	if (!slot) {
		free(mended);
		return -1;
	}
	*slot = mended;
	return (int32_t)log->sysnames.n - 1;
}

bool an_irq_name_set(struct an_log *log, int32_t irq, const char *name)
{
	bool inserted;
	uint32_t *slot;
	char **s;

	if (!name)
		return false;
	slot = an_map_slot(&log->irqnames, (uint64_t)(uint32_t)irq + 1, &inserted);
	/* A slot left 0 (its name not stored, out of memory) takes the next name seen. */
	if (!slot || (!inserted && *slot))
		return false;
	s = an_vec_push(&log->irqname_v);
	if (!s)
		return false;
	if (!(*s = strdup(name))) {
		log->irqname_v.n--;
		return false;
	}
	an_utf8_mend(*s);
	*slot = (uint32_t)log->irqname_v.n;
	return true;
}

const char *an_sysname(const struct an_log *log, int32_t idx)
{
	return idx >= 0 && (size_t)idx < log->sysnames.n ? *AN_AT(&log->sysnames, char *, idx)
							 : "?";
}

void an_log_free(struct an_log *log)
{
	an_vec_free(&log->ev);
	an_vec_free(&log->tasks);
	an_map_free(&log->by_tid);
	an_vec_free(&log->obs);
	an_vec_free(&log->idents);
	an_vec_free(&log->alerts);
	an_strs_free(&log->sysnames);
	an_map_free(&log->irqnames);
	an_strs_free(&log->irqname_v);
	an_strs_free(&log->problems);
	an_vec_free(&log->cpu_first);
	an_vec_free(&log->packets);
	an_vec_free(&log->disks);
	for (size_t i = 0; i < log->bad_classes.n; i++)
		free(AN_AT(&log->bad_classes, struct an_bad_class, i)->what);
	an_vec_free(&log->bad_classes);
	an_vec_free(&log->declared);
	an_vec_free(&log->lost);
}
