/* SPDX-License-Identifier: GPL-2.0-only */
/* Column tables: cells collected first, then printed with each column as wide as needed. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "latencyctl.h"

void columns_init(struct columns *t, const char *const *head, size_t ncols)
{
	memset(t, 0, sizeof(*t));
	t->ncols = ncols < COLUMNS_MAX ? ncols : COLUMNS_MAX;
	for (size_t c = 0; c < t->ncols; c++)
		t->head[c] = head[c];
}

/* Adds the next cell, left to right, a new row after the last column. */
__attribute__((format(printf, 2, 3))) void columns_cell(struct columns *t, const char *fmt, ...)
{
	char *s = NULL, **rows;
	va_list ap;

	if (t->failed)
		return;
	if (t->ncell % t->ncols == 0) {
		rows = realloc(t->cells, (t->ncell + t->ncols) * sizeof(*rows));
		if (!rows) {
			t->failed = true;
			return;
		}
		t->cells = rows;
	}
	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	if (!s) {
		t->failed = true;
		return;
	}
	t->cells[t->ncell++] = s;
}

void columns_print(struct columns *t)
{
	size_t width[COLUMNS_MAX] = {0}, rows = t->ncell / t->ncols;

	for (size_t c = 0; c < t->ncols; c++)
		width[c] = strlen(t->head[c]);
	for (size_t i = 0; i < rows * t->ncols; i++) {
		/* Display width: UTF-8 continuation bytes (µ) take no column. */
		size_t w = 0;

		for (const char *p = t->cells[i]; *p; p++)
			w += ((unsigned char)*p & 0xc0) != 0x80;
		if (w > width[i % t->ncols])
			width[i % t->ncols] = w;
	}
	for (size_t r = 0; r <= rows; r++) {
		for (size_t c = 0; c < t->ncols; c++) {
			const char *s = r == 0 ? t->head[c] : t->cells[(r - 1) * t->ncols + c];
			size_t w = 0;

			for (const char *p = s; *p; p++)
				w += ((unsigned char)*p & 0xc0) != 0x80;
			fputs(s, stdout);
			if (c + 1 < t->ncols)
				printf("%*s", (int)(width[c] - w + 2), "");
		}
		putchar('\n');
	}
}

void columns_done(struct columns *t)
{
	for (size_t i = 0; i < t->ncell; i++)
		free(t->cells[i]);
	free(t->cells);
	t->cells = NULL;
	t->ncell = 0;
}
