/* SPDX-License-Identifier: GPL-2.0-only */
/* Strings the analysis allocates (notes, problems, names) and durations as people read them. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "an.h"

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
