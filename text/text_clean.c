/* SPDX-License-Identifier: GPL-2.0-only */
#include <stdlib.h>
#include <string.h>

#include "text_clean.h"

/* The length of the printable UTF-8 character at S, 0 when it is none (a control, a C1,
 * a byte of no valid sequence). */
static size_t printable_len(const unsigned char *s)
{
	size_t n;
	unsigned char lo = 0x80, hi = 0xbf;

	if (s[0] < 0x80)
		return s[0] >= 0x20 && s[0] != 0x7f;
	if (s[0] == 0xc2 && s[1] >= 0x80 && s[1] <= 0x9f)
		return 0; /* C1 */
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4;
	else
		return 0;
	/* No overlong form, no surrogate, nothing above U+10FFFF (RFC 3629's table). */
	if (s[0] == 0xe0)
		lo = 0xa0;
	else if (s[0] == 0xed)
		hi = 0x9f;
	else if (s[0] == 0xf0)
		lo = 0x90;
	else if (s[0] == 0xf4)
		hi = 0x8f;
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < n; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return n;
}

bool text_is_clean(const char *s, bool lines)
{
	for (const unsigned char *p = (const unsigned char *)s; *p;) {
		size_t n = printable_len(p);

		if (!n && !(lines && *p == '\n'))
			return false;
		p += n ? n : 1;
	}
	return true;
}

void text_clean(char *s, bool lines)
{
	unsigned char *in = (unsigned char *)s, *out = in;

	while (*in) {
		size_t n = printable_len(in);

		if (n) {
			memmove(out, in, n);
			out += n;
			in += n;
			continue;
		}
		/* A C1 control is one character: one '?' for its two bytes. */
		n = in[0] == 0xc2 && in[1] >= 0x80 && in[1] <= 0x9f ? 2 : 1;
		*out++ = lines && *in == '\n' ? '\n' : '?';
		in += n;
	}
	*out = 0;
}

size_t text_cut_len(const char *s, size_t max)
{
	size_t n = strlen(s);

	if (n <= max)
		return n;
	/* Back over continuation bytes to the start of the character cut. */
	for (n = max; n > 0 && ((unsigned char)s[n] & 0xc0) == 0x80; n--)
		;
	return n;
}

char *text_clean_dup(const char *s, bool lines)
{
	char *d = strdup(s ? s : "");

	if (d)
		text_clean(d, lines);
	return d;
}
