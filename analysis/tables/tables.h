/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The result tables: their classes and cells (classes.c), as LAMI's metadata phase and data
 * classes describe them, and the statistics over the window that fill them (statistics.c).
 */
#ifndef LATENCY_ANALYSIS_TABLES_H
#define LATENCY_ANALYSIS_TABLES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "an.h"

/* classes.c: result tables, cells typed as LAMI's data classes. */
enum an_cell_kind {
	C_EMPTY,
	C_INT,
	C_DURATION,
	C_TIMESTAMP,
	C_PROCESS,
	C_SYSCALL,
	C_IRQ,
	C_DISK,
	C_RATIO,
	C_STRING,
	C_CPU,
	C_UNKNOWN,
};
struct an_cell {
	uint8_t kind;
	bool hard;     /* irq */
	int64_t v;     /* int, duration, timestamp, tid, irq nr, cpu */
	int32_t pid;   /* process, -1 unknown */
	double r;      /* ratio */
	const char *s; /* name (owned by the log or static) */
};
struct an_col {
	const char *title, *cls, *unit;
};
struct an_table_class {
	const char *name, *title;
	size_t ncols;
	struct an_col cols[8];
};
struct an_table {
	const struct an_table_class *cls;
	struct an_vec cells; /* struct an_cell, row after row */
};
extern const struct an_table_class an_table_classes[];
extern const size_t an_table_class_count;
struct an_cell *an_row(struct an_table *t);
size_t an_rows(const struct an_table *t);

/* statistics.c: the statistics over the window. */
int an_tables(const struct an_log *log, unsigned limit, struct an_vec *tables, struct an_vec *names,
	      uint64_t begin, uint64_t end);

#endif /* LATENCY_ANALYSIS_TABLES_H */
