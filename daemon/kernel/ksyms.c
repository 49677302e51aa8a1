// SPDX-License-Identifier: GPL-2.0-only
/*
 * Kernel addresses to "function+0xoff/0xsize [module]", from /proc/kallsyms, at alert time:
 * later the module may be gone or the machine rebooted (another KASLR slide), and the
 * catalog is read by users who may not read kallsyms themselves.
 *
 * One pass over the file for every address of a snapshot's causes, keeping for each the
 * closest symbol (of any type) at or below it and the closest symbol above it (the end of the
 * function), so nothing of the ~150k symbols stays in memory: latencyd's resident size
 * matters more than the few milliseconds of the pass, which runs in the main loop, never
 * on the realtime path. The file is not sorted across modules, hence no early exit.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel.h"

struct best {
	/* The closest symbol at or below the address, of any type (an address in data is in no
	 * function), and the closest one above it: the symbol's end. */
	uint64_t at, next;
	bool text;
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

int ksyms_resolve(const char *path, const uint64_t *addr, size_t n, struct ksym *out)
{
	struct best *b = calloc(n ? n : 1, sizeof(*b));
	char line[512];
	bool any_address = false;
	FILE *f;
	int found = 0;

	if (!b)
		return -ENOMEM;
	f = fopen(path, "re");
	if (!f) {
		int r = -errno;

		free(b);
		return r;
	}
	while (fgets(line, sizeof(line), f)) {
		uint64_t a;
		char type, *name, *module;

		if (!parse_line(line, &a, &type, &name, &module))
			continue;
		if (a)
			any_address = true;
		for (size_t i = 0; i < n; i++) {
			if (a > addr[i]) {
				if (!b[i].next || a < b[i].next)
					b[i].next = a;
			} else if (a && a >= b[i].at) {
				/* Several names at one address (aliases): the first text one wins. */
				if (a == b[i].at && b[i].name[0] && (b[i].text || !is_text(type)))
					continue;
				b[i].at = a;
				b[i].text = is_text(type);
				snprintf(b[i].name, sizeof(b[i].name), "%s", name);
				snprintf(b[i].module, sizeof(b[i].module), "%s",
					 module ? module : "");
			}
		}
	}
	fclose(f);
	if (!any_address) {
		free(b);
		return -EPERM; /* kallsyms shows zeros: kptr_restrict and no CAP_SYSLOG */
	}
	for (size_t i = 0; i < n; i++) {
		memset(&out[i], 0, sizeof(out[i]));
		out[i].address = addr[i];
		if (!b[i].text || !b[i].next)
			continue; /* below every symbol, in data, past the last one: not text we know */
		out[i].found = true;
		out[i].offset = addr[i] - b[i].at;
		out[i].size = b[i].next - b[i].at;
		memcpy(out[i].name, b[i].name, sizeof(out[i].name));
		memcpy(out[i].module, b[i].module, sizeof(out[i].module));
		found++;
	}
	free(b);
	return found;
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
