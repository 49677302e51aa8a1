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

/* The length of the well-formed UTF-8 character at s; 0: not one. */
static size_t utf8_char(const unsigned char *s)
{
	size_t len = s[0] < 0xc2 ? 0 : s[0] < 0xe0 ? 2 : s[0] < 0xf0 ? 3 : s[0] < 0xf5 ? 4 : 0;

	for (size_t i = 1; i < len; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0; /* the string's end included */
	/* Overlong forms, UTF-16 surrogates, past U+10FFFF. */
	if ((s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xed && s[1] >= 0xa0) ||
	    (s[0] == 0xf0 && s[1] < 0x90) || (s[0] == 0xf4 && s[1] >= 0x90))
		return 0;
	return len;
}

void an_utf8_mend(char *text)
{
	unsigned char *s = (unsigned char *)text;

	for (size_t i = 0; s[i];) {
		size_t n = s[i] < 0x80 ? 1 : utf8_char(s + i);

		if (!n) {
			s[i] = '?';
			n = 1;
		}
		i += n;
	}
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
