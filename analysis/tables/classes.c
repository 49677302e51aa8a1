/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The result tables' classes, as LAMI's metadata phase describes them: every table the
 * analysis can produce, with its columns' titles and data classes. Text and JSON output
 * use the same descriptions.
 */
#include "an.h"
#include "tables.h"

#define DUR(t)                                                                                     \
	{                                                                                          \
		t, "duration", NULL                                                                \
	}
#define STATS                                                                                      \
	DUR("Minimum duration"), DUR("Average duration"), DUR("Maximum duration"),                 \
		DUR("Standard deviation")

const struct an_table_class an_table_classes[] = {
	{"alerts",
	 "Latency alerts and their cause",
	 6,
	 {{"Alert time", "timestamp", NULL},
	  DUR("Latency"),
	  {"Process", "process", NULL},
	  {"Tracker", "string", NULL},
	  {"Explained", "ratio", NULL},
	  {"Cause", "string", NULL}}},
	{"critical-path",
	 "Critical path of an alert",
	 6,
	 {{"Begin", "timestamp", NULL},
	  DUR("Duration"),
	  {"Share", "ratio", NULL},
	  {"Process", "process", NULL},
	  {"State", "string", NULL},
	  {"Detail", "string", NULL}}},
	{"cpu-usage-per-process",
	 "Per-thread CPU usage",
	 3,
	 {{"Process", "process", NULL}, {"CPU usage", "ratio", NULL}, DUR("Running time")}},
	{"cpu-usage-per-cpu", "Per-CPU usage", 2, {{"CPU", "cpu", NULL}, {"Usage", "ratio", NULL}}},
	{"syscall-latency",
	 "System call latency statistics",
	 6,
	 {{"System call", "syscall", NULL}, {"Count", "number", "operations"}, STATS}},
	{"syscall-latency-per-process",
	 "Per-thread system call latency statistics",
	 6,
	 {{"Process", "process", NULL}, {"Count", "number", "operations"}, STATS}},
	{"irq-stats",
	 "Interrupt handler duration statistics",
	 6,
	 {{"IRQ", "irq", NULL}, {"Count", "number", "interrupts"}, STATS}},
	{"disk-latency",
	 "Block I/O latency statistics",
	 6,
	 {{"Disk", "disk", NULL}, {"Count", "number", "requests"}, STATS}},
	{"top-syscall-latencies",
	 "Top system call latencies",
	 5,
	 {{"Begin", "timestamp", NULL},
	  DUR("Duration"),
	  {"Process", "process", NULL},
	  {"System call", "syscall", NULL},
	  {"Return value", "number", NULL}}},
	{"top-block-latencies",
	 "Top block I/O latencies",
	 5,
	 {{"Issue", "timestamp", NULL},
	  DUR("Duration"),
	  {"Disk", "disk", NULL},
	  {"Sector", "number", NULL},
	  {"Size", "size", NULL}}},
	/* --io-usage: bytes by kind of file descriptor as far as the call tells it
	 * (iousage.c), and the block requests the process issued. */
	{"io-usage-read",
	 "Per-process I/O read",
	 6,
	 {{"Process", "process", NULL},
	  {"Read", "size", NULL},
	  {"File (pread)", "size", NULL},
	  {"Network (recv)", "size", NULL},
	  {"Unknown fd (read)", "size", NULL},
	  {"Block read", "size", NULL}}},
	{"io-usage-write",
	 "Per-process I/O write",
	 6,
	 {{"Process", "process", NULL},
	  {"Written", "size", NULL},
	  {"File (pwrite)", "size", NULL},
	  {"Network (send)", "size", NULL},
	  {"Unknown fd (write)", "size", NULL},
	  {"Block written", "size", NULL}}},
	/* --freq: one table per subject, each titled after it (LAMI: inheriting the class). */
	{"syscall-latency-freq",
	 "System call latency frequency distribution",
	 3,
	 {DUR("Latency (lower bound)"),
	  DUR("Latency (upper bound)"),
	  {"Count", "number", "operations"}}},
	{"disk-latency-freq",
	 "Block I/O latency frequency distribution",
	 3,
	 {DUR("Latency (lower bound)"),
	  DUR("Latency (upper bound)"),
	  {"Count", "number", "requests"}}},
	{"irq-duration-freq",
	 "Interrupt handler duration frequency distribution",
	 3,
	 {DUR("Duration (lower bound)"),
	  DUR("Duration (upper bound)"),
	  {"Count", "number", "interrupts"}}},
};
const size_t an_table_class_count = sizeof(an_table_classes) / sizeof(an_table_classes[0]);

struct an_cell *an_row(struct an_table *t)
{
	t->cells.size = sizeof(struct an_cell);
	for (size_t i = 0; i < t->cls->ncols; i++) {
		struct an_cell *c = an_vec_push(&t->cells);

		if (!c)
			return NULL;
		c->pid = -1;
	}
	/* the vector may have moved while growing: the row's first cell, found again */
	return AN_AT(&t->cells, struct an_cell, t->cells.n - t->cls->ncols);
}

size_t an_rows(const struct an_table *t)
{
	return t->cls->ncols ? t->cells.n / t->cls->ncols : 0;
}
