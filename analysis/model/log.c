/* SPDX-License-Identifier: GPL-2.0-only */
/* Small containers (growable arrays, an integer hash map), strings and name lookups. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "an.h"

void *an_vec_push(struct an_vec *vec)
{
	if (vec->n == vec->cap) {
		size_t cap = vec->cap ? vec->cap * 2 : 64;
		void *v = realloc(vec->v, cap * vec->size);

		if (!v)
			return NULL;
		vec->v = v;
		vec->cap = cap;
	}
	return memset((char *)vec->v + vec->n++ * vec->size, 0, vec->size);
}

void an_vec_free(struct an_vec *vec)
{
	free(vec->v);
	vec->v = NULL;
	vec->n = vec->cap = 0;
}

static inline size_t hash64(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdULL;
	k ^= k >> 33;
	return (size_t)k;
}

static int map_grow(struct an_map *m)
{
	struct an_map g = {.cap = m->cap ? m->cap * 2 : 256};

	g.keys = calloc(g.cap, sizeof(*g.keys));
	g.vals = calloc(g.cap, sizeof(*g.vals));
	if (!g.keys || !g.vals) {
		free(g.keys);
		free(g.vals);
		return -ENOMEM;
	}
	for (size_t i = 0; i < m->cap; i++) {
		size_t j;

		if (!m->keys[i])
			continue;
		for (j = hash64(m->keys[i]) & (g.cap - 1); g.keys[j]; j = (j + 1) & (g.cap - 1))
			;
		g.keys[j] = m->keys[i];
		g.vals[j] = m->vals[i];
	}
	g.n = m->n;
	an_map_free(m);
	*m = g;
	return 0;
}

uint32_t *an_map_find(const struct an_map *m, uint64_t key)
{
	if (!m->cap)
		return NULL;
	for (size_t j = hash64(key) & (m->cap - 1); m->keys[j]; j = (j + 1) & (m->cap - 1))
		if (m->keys[j] == key)
			return &m->vals[j];
	return NULL;
}

uint32_t *an_map_slot(struct an_map *m, uint64_t key, bool *inserted)
{
	uint32_t *v = an_map_find(m, key);
	size_t j;

	*inserted = false;
	if (v)
		return v;
	if ((m->n + 1) * 2 > m->cap && map_grow(m) < 0)
		return NULL;
	for (j = hash64(key) & (m->cap - 1); m->keys[j]; j = (j + 1) & (m->cap - 1))
		;
	m->keys[j] = key;
	m->vals[j] = 0;
	m->n++;
	*inserted = true;
	return &m->vals[j];
}

void an_map_free(struct an_map *m)
{
	free(m->keys);
	free(m->vals);
	memset(m, 0, sizeof(*m));
}

char *an_strdup(const char *s)
{
	return strdup(s ? s : "");
}

char *an_asprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	return s;
}

void an_strs_free(struct an_vec *v)
{
	for (size_t i = 0; i < v->n; i++)
		free(*AN_AT(v, char *, i));
	an_vec_free(v);
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

static const struct an_task *task_find(const struct an_log *log, int32_t tid)
{
	uint32_t *slot = an_map_find(&log->by_tid, (uint64_t)(uint32_t)tid + 1);

	return slot ? AN_AT(&log->tasks, struct an_task, *slot - 1) : NULL;
}

const char *an_comm(const struct an_log *log, int32_t tid)
{
	const struct an_task *t = task_find(log, tid);

	if (tid == 0)
		return "swapper";
	return t && t->comm[0] ? t->comm : "?";
}

int32_t an_pid(const struct an_log *log, int32_t tid)
{
	const struct an_task *t = task_find(log, tid);

	return t ? t->pid : -1;
}

const char *an_irq_name(const struct an_log *log, int32_t irq)
{
	uint32_t *slot = an_map_find(&log->irqnames, (uint64_t)(uint32_t)irq + 1);

	return slot ? *AN_AT(&log->irqname_v, char *, *slot - 1) : "?";
}

const char *an_softirq_name(int32_t vec)
{
	static const char *const names[] = {"HI",	"TIMER",   "NET_TX", "NET_RX",	"BLOCK",
					    "IRQ_POLL", "TASKLET", "SCHED",  "HRTIMER", "RCU"};

	return vec >= 0 && vec < (int32_t)(sizeof(names) / sizeof(names[0])) ? names[vec] : "?";
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
	an_vec_free(&log->alerts);
	an_strs_free(&log->sysnames);
	an_map_free(&log->irqnames);
	an_strs_free(&log->irqname_v);
	an_strs_free(&log->problems);
	an_vec_free(&log->cpu_first);
	an_vec_free(&log->packets);
	an_vec_free(&log->disks);
}

void an_dur_text(char *buf, size_t size, uint64_t ns)
{
	if (ns < 1000)
		snprintf(buf, size, "%llu ns", (unsigned long long)ns);
	else if (ns < 1000000)
		snprintf(buf, size, "%.1f us", ns / 1e3);
	else if (ns < 1000000000)
		snprintf(buf, size, "%.3f ms", ns / 1e6);
	else
		snprintf(buf, size, "%.3f s", ns / 1e9);
}
