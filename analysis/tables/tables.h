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
	/* A distribution's: its own title ("... : read"), NULL for the class's, and what it
	 * bins ("read", "all"), both in the result's names. */
	const char *title, *subject;
};
extern const struct an_table_class an_table_classes[];
extern const size_t an_table_class_count;
struct an_cell *an_row(struct an_table *t);
size_t an_rows(const struct an_table *t);

/* What an_tables() computes over the window [begin, end]. */
struct an_tables_want {
	uint64_t begin, end;
	unsigned limit;	     /* rows per table; distributions per kind */
	bool stats;	     /* the statistics tables (into tables) */
	unsigned resolution; /* the distributions' buckets (into freq), 0: none */
	bool io_usage;	     /* the I/O usage per process (into tables) */
};

/* statistics.c: the statistics over the window, and the distributions (freq.c). */
int an_tables(const struct an_log *log, const struct an_tables_want *want, struct an_vec *tables,
	      struct an_vec *freq, struct an_vec *names);

struct tally;
/* freq.c: frequency distributions of the tallied latencies, one table per subject. */
int an_freq_tables(const struct an_log *log, const struct tally *t,
		   const struct an_tables_want *want, struct an_vec *freq, struct an_vec *names);
/* iousage.c: the processes that read and wrote most, as lttng-iousagetop. */
int an_io_tables(struct tally *t, unsigned limit, struct an_vec *tables);
/* What the I/O usage cannot tell apart, and why: said with it in every output. */
extern const char an_io_usage_note[];
/* freq.c: the bucket of V among the RESOLUTION buckets over [min, max], and a bound. */
unsigned an_freq_bucket(uint64_t v, uint64_t min, uint64_t max, unsigned resolution);
uint64_t an_freq_bound(unsigned i, uint64_t min, uint64_t max, unsigned resolution);

#endif /* LATENCY_ANALYSIS_TABLES_H */
