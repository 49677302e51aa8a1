// SPDX-License-Identifier: GPL-2.0-only
/*
 * The functions that named kernel addresses before, so that a snapshot whose stacks run
 * through known functions costs no pass over kallsyms. Under an alert storm each snapshot
 * carries stacks through the same few code paths, and a pass (the kernel formatting some
 * 100k symbols, latencyd parsing them) was most of the main loop's CPU per snapshot (a
 * profile on 6.12 PREEMPT_RT, where calls are preempted and their stacks taken). A
 * function is kept with its extent (to the next symbol of any kind, as ksyms.c measures
 * it), so an address anywhere in it is named: a preempted call's top frame is at a
 * different offset each time.
 *
 * The kernel image's symbols do not move while it runs; modules' do, when one is unloaded
 * and another loaded in its place, so the cache is dropped whenever the module list (its
 * names, sizes and addresses) changes. Symbols that come and go without a module (BPF
 * programs, ftrace and kprobe trampolines: kallsyms names them "[bpf]", "[__builtin__...]")
 * and addresses not found are never kept. A bounded table, emptied when full: a storm
 * goes through few functions, and the worst case is the pass this replaces.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel.h"

#define KSYMS_CACHE_MAX	       512
/*
 * A function's extent runs to the next symbol; past a module's last one that can be a gap
 * where a BPF program is later put, with no change to the module list. No function is
 * that large: such an extent is not kept.
 */
#define KSYMS_CACHE_EXTENT_MAX (64 * 1024)

struct cached_function {
	uint64_t start, size;
	char name[KSYMS_NAME_MAX];
	char module[KSYMS_MODULE_MAX];
};

struct ksyms_cache {
	char *kallsyms, *modules;
	uint64_t modules_stamp;
	bool watched; /* modules_stamp was read */
	size_t n;
	struct cached_function functions[KSYMS_CACHE_MAX]; /* sorted by start */
};

struct ksyms_cache *ksyms_cache_new(const char *kallsyms, const char *modules)
{
	struct ksyms_cache *kc = calloc(1, sizeof(*kc));

	if (!kc)
		return NULL;
	kc->kallsyms = strdup(kallsyms);
	kc->modules = strdup(modules);
	if (!kc->kallsyms || !kc->modules) {
		ksyms_cache_free(kc);
		return NULL;
	}
	return kc;
}

void ksyms_cache_free(struct ksyms_cache *kc)
{
	if (!kc)
		return;
	free(kc->kallsyms);
	free(kc->modules);
	free(kc);
}

/* FNV-1a over each module's name, size and address: not its use count, which moves. */
static int modules_stamp(const char *path, uint64_t *stamp)
{
	FILE *f = fopen(path, "re");
	char line[512];
	uint64_t h = 1469598103934665603ULL;

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		char name[128], addr[32], key[192];
		unsigned long size;
		int len;

		if (sscanf(line, "%127s %lu %*s %*s %*s %31s", name, &size, addr) != 3)
			continue;
		len = snprintf(key, sizeof(key), "%s %lu %s;", name, size, addr);
		for (int i = 0; i < len && i < (int)sizeof(key); i++) {
			h ^= (unsigned char)key[i];
			h *= 1099511628211ULL;
		}
	}
	fclose(f);
	*stamp = h;
	return 0;
}

/* The index of the last function starting at or below ADDR, or n. */
static size_t last_at_or_below(const struct ksyms_cache *kc, uint64_t addr)
{
	size_t lo = 0, hi = kc->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (kc->functions[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? lo - 1 : kc->n;
}

/* ADDR named into OUT from a function kept; false when none holds it. */
static bool find(const struct ksyms_cache *kc, uint64_t addr, struct ksym *out)
{
	size_t i = last_at_or_below(kc, addr);
	const struct cached_function *f = &kc->functions[i];

	if (i == kc->n || addr - f->start >= f->size)
		return false;
	memset(out, 0, sizeof(*out));
	out->address = addr;
	out->found = true;
	out->offset = addr - f->start;
	out->size = f->size;
	memcpy(out->name, f->name, sizeof(out->name));
	memcpy(out->module, f->module, sizeof(out->module));
	return true;
}

static bool keepable(const struct ksym *s)
{
	return s->found && s->size && s->size <= KSYMS_CACHE_EXTENT_MAX &&
	       strcmp(s->module, "bpf") && strncmp(s->module, "__builtin__", 11);
}

static void insert(struct ksyms_cache *kc, const struct ksym *s)
{
	uint64_t start = s->address - s->offset;
	size_t i = last_at_or_below(kc, start);

	if (i != kc->n && kc->functions[i].start == start)
		return;
	if (kc->n == KSYMS_CACHE_MAX) {
		kc->n = 0;
		i = 0;
	} else {
		i = i == kc->n ? 0 : i + 1;
	}
	memmove(&kc->functions[i + 1], &kc->functions[i], (kc->n - i) * sizeof(kc->functions[0]));
	kc->functions[i] = (struct cached_function){.start = start, .size = s->size};
	memcpy(kc->functions[i].name, s->name, sizeof(s->name));
	memcpy(kc->functions[i].module, s->module, sizeof(s->module));
	kc->n++;
}

int ksyms_cache_resolve(struct ksyms_cache *kc, const uint64_t *addr, size_t n, struct ksym *out)
{
	uint64_t stamp = 0, *miss = NULL;
	size_t *at = NULL, n_miss = 0;
	struct ksym *got = NULL;
	bool watched = modules_stamp(kc->modules, &stamp) == 0;
	int found = 0, r = -ENOMEM;

	/* Without a module list to watch (unreadable), nothing is kept. */
	if (!watched || !kc->watched || stamp != kc->modules_stamp)
		kc->n = 0;
	kc->watched = watched;
	kc->modules_stamp = stamp;
	miss = malloc((n ? n : 1) * sizeof(*miss));
	at = malloc((n ? n : 1) * sizeof(*at));
	if (!miss || !at)
		goto out;
	for (size_t i = 0; i < n; i++) {
		if (find(kc, addr[i], &out[i])) {
			found++;
		} else {
			at[n_miss] = i;
			miss[n_miss++] = addr[i];
		}
	}
	r = found;
	if (!n_miss)
		goto out;
	got = calloc(n_miss, sizeof(*got));
	if (!got) {
		r = -ENOMEM;
		goto out;
	}
	r = ksyms_resolve(kc->kallsyms, miss, n_miss, got);
	if (r < 0)
		goto out;
	r += found;
	for (size_t j = 0; j < n_miss; j++) {
		out[at[j]] = got[j];
		if (kc->watched && keepable(&got[j]))
			insert(kc, &got[j]);
	}
out:
	free(miss);
	free(at);
	free(got);
	return r;
}
