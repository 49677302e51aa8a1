// SPDX-License-Identifier: GPL-2.0-only
/*
 * Kernel addresses to "function+0xoff/0xsize [module]", from /proc/kallsyms, at alert time:
 * later the module may be gone or the machine rebooted (another KASLR slide), and the
 * catalog is read by users who may not read kallsyms themselves.
 *
 * One pass over the file for all the addresses of a snapshot's causes, keeping only what
 * names them (the buckets below), so nothing of the ~150k symbols stays in memory:
 * latencyd's resident size matters more than the few milliseconds of the pass, which runs
 * in the main loop, never on the realtime path, and only for addresses in no function
 * named before (ksyms_cache.c). The file is not sorted across modules, hence no early
 * exit.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel.h"

/*
 * The addresses asked for, sorted and unique, cut the address space into buckets: bucket p
 * holds the symbols in (A[p-1], A[p]] (bucket m: above every address). A symbol line costs
 * a binary search and updates its bucket only: the largest symbol of each bucket (with its
 * name) and the smallest. An address's symbol is the largest at or below it: the largest
 * of the last non-empty bucket up to its own; its end is the smallest symbol above it: the
 * smallest of the first non-empty bucket after. Several names at one address (aliases):
 * the first text one wins. A symbol of any type counts: an address in data is in no
 * function.
 */
struct bucket {
	uint64_t max, min; /* 0: empty */
	bool text;	   /* max is a text symbol */
	char name[KSYMS_NAME_MAX];
	char module[KSYMS_MODULE_MAX];
};

static bool is_text(char type)
{
	return type == 't' || type == 'T' || type == 'w' || type == 'W';
}

/* "ADDR TYPE NAME [MODULE]": false for lines that are not symbols. */
static bool parse_line(char *line, uint64_t *addr, char *type, char **name, char **module)
{
	char *end, *p;

	errno = 0;
	*addr = strtoull(line, &end, 16);
	if (errno || end == line || end[0] != ' ' || !end[1] || end[2] != ' ' || !end[3])
		return false;
	*type = end[1];
	*name = end + 3;
	*module = NULL;
	p = strpbrk(*name, "\t\n");
	if (p && *p == '\t') {
		*p = 0;
		*module = p + 1;
		if (**module == '[')
			(*module)++;
		(*module)[strcspn(*module, "]\n")] = 0;
	} else if (p) {
		*p = 0;
	}
	return **name != 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The first index of A[0..m) at or above ADDR (m when none). */
static size_t lower_bound(const uint64_t *A, size_t m, uint64_t addr)
{
	size_t lo = 0, hi = m;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (A[mid] < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static void bucket_add(struct bucket *b, uint64_t a, char type, const char *name,
		       const char *module)
{
	if (!b->min || a < b->min)
		b->min = a;
	if (b->max > a || (b->max == a && (b->text || !is_text(type))))
		return;
	b->max = a;
	b->text = is_text(type);
	snprintf(b->name, sizeof(b->name), "%s", name);
	snprintf(b->module, sizeof(b->module), "%s", module ? module : "");
}

/* OUT for address A[j], from the buckets. */
static bool bucket_resolve(const struct bucket *bk, size_t m, size_t j, uint64_t addr,
			   struct ksym *out)
{
	const struct bucket *at = NULL;
	uint64_t next = 0;

	for (size_t p = j + 1; p-- > 0;)
		if (bk[p].max) {
			at = &bk[p];
			break;
		}
	for (size_t p = j + 1; p <= m && !next; p++)
		next = bk[p].min;
	if (!at || !at->text || !next)
		return false; /* below every symbol, in data, past the last one */
	out->found = true;
	out->offset = addr - at->max;
	out->size = next - at->max;
	memcpy(out->name, at->name, sizeof(out->name));
	memcpy(out->module, at->module, sizeof(out->module));
	return true;
}

int ksyms_resolve(const char *path, const uint64_t *addr, size_t n, struct ksym *out)
{
	uint64_t *A = malloc((n ? n : 1) * sizeof(*A));
	struct bucket *bk = NULL;
	char line[512];
	bool any_address = false;
	size_t m = 0;
	FILE *f = NULL;
	int found = 0, r = 0;

	if (A) {
		memcpy(A, addr, n * sizeof(*A));
		qsort(A, n, sizeof(*A), cmp_u64);
		for (size_t i = 0; i < n; i++)
			if (!m || A[m - 1] != A[i])
				A[m++] = A[i];
		bk = calloc(m + 1, sizeof(*bk));
	}
	if (!A || !bk) {
		r = -ENOMEM;
		goto out;
	}
	f = fopen(path, "re");
	if (!f) {
		r = -errno;
		goto out;
	}
	while (fgets(line, sizeof(line), f)) {
		uint64_t a;
		char type, *name, *module;

		if (!parse_line(line, &a, &type, &name, &module) || !a)
			continue;
		any_address = true;
		bucket_add(&bk[lower_bound(A, m, a)], a, type, name, module);
	}
	if (!any_address) {
		r = -EPERM; /* kallsyms shows zeros: kptr_restrict and no CAP_SYSLOG */
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		memset(&out[i], 0, sizeof(out[i]));
		out[i].address = addr[i];
		found += bucket_resolve(bk, m, lower_bound(A, m, addr[i]), addr[i], &out[i]);
	}
	r = found;
out:
	if (f)
		fclose(f);
	free(A);
	free(bk);
	return r;
}

void ksym_text(const struct ksym *s, bool show_address, char *buf, size_t size)
{
	int n = 0;

	if (s->found)
		n = snprintf(buf, size, "%s+0x%" PRIx64 "/0x%" PRIx64 "%s%s%s", s->name, s->offset,
			     s->size, s->module[0] ? " [" : "", s->module, s->module[0] ? "]" : "");
	else
		n = snprintf(buf, size, "?");
	if (show_address && n >= 0 && (size_t)n < size)
		snprintf(buf + n, size - (size_t)n, " (0x%" PRIx64 ")", s->address);
}

int ksyms_kptr_restrict(const char *path)
{
	FILE *f = fopen(path, "re");
	int v = -1;

	if (!f)
		return -errno;
	if (fscanf(f, "%d", &v) != 1 || v < 0)
		v = -EINVAL;
	fclose(f);
	return v;
}
