/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The problems found in a configuration, one "FILE:LINE: setting: problem" line each, for
 * the caller to print, log or answer with. Both the file's reader (file.c) and the values
 * (value.c) add to them.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "conf_internal.h"

void conf_diag_vline(struct conf_diag *diag, const char *fmt, va_list ap)
{
	char *line = NULL, **lines;

	if (!diag)
		return;
	if (vasprintf(&line, fmt, ap) < 0)
		return;
	lines = realloc(diag->lines, (diag->n + 1) * sizeof(*lines));
	if (!lines) {
		free(line);
		return;
	}
	lines[diag->n++] = line;
	diag->lines = lines;
}

/* A problem that does not make the configuration invalid (the saved file is ignored). */
void conf_diag_line(struct conf_diag *diag, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	conf_diag_vline(diag, fmt, ap);
	va_end(ap);
}

void conf_diag_clear(struct conf_diag *diag)
{
	if (!diag)
		return;
	for (size_t i = 0; i < diag->n; i++)
		free(diag->lines[i]);
	free(diag->lines);
	diag->lines = NULL;
	diag->n = 0;
}
