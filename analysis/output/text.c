/* SPDX-License-Identifier: GPL-2.0-only */
/* The result as aligned text, for people: problems first, then each alert's story, then tables. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "an.h"
#include "analysis.h"
#include "chain.h"
#include "crosshost.h"
#include "results.h"
#include "tables.h"

static void ts_text(char *buf, size_t size, uint64_t ns)
{
	time_t s = (time_t)(ns / 1000000000ULL);
	struct tm tm;

	if (!gmtime_r(&s, &tm)) {
		snprintf(buf, size, "%llu", (unsigned long long)ns);
		return;
	}
	snprintf(buf, size, "%02d:%02d:%02d.%09llu", tm.tm_hour, tm.tm_min, tm.tm_sec,
		 (unsigned long long)(ns % 1000000000ULL));
}

static void cell_text(char *buf, size_t size, const struct an_cell *c, const struct an_col *col)
{
	switch (c->kind) {
	case C_INT:
		if (col->cls && strcmp(col->cls, "size") == 0)
			snprintf(buf, size, "%lld B", (long long)c->v);
		else
			snprintf(buf, size, "%lld", (long long)c->v);
		break;
	case C_DURATION:
		an_dur_text(buf, size, (uint64_t)c->v);
		break;
	case C_TIMESTAMP:
		ts_text(buf, size, (uint64_t)c->v);
		break;
	case C_PROCESS:
		snprintf(buf, size, "%s (%lld)", c->s ? c->s : "?", (long long)c->v);
		break;
	case C_IRQ:
		snprintf(buf, size, "%s %lld %s", c->hard ? "irq" : "softirq", (long long)c->v,
			 c->s ? c->s : "");
		break;
	case C_RATIO:
		snprintf(buf, size, "%.2f %%", c->r * 100);
		break;
	case C_CPU:
		snprintf(buf, size, "%lld", (long long)c->v);
		break;
	case C_SYSCALL:
	case C_DISK:
	case C_STRING:
		snprintf(buf, size, "%s", c->s ? c->s : "");
		break;
	case C_UNKNOWN:
		snprintf(buf, size, "-");
		break;
	default:
		buf[0] = 0;
	}
}

#define CELL_MAX 96

static void table(const struct an_table *t, FILE *f)
{
	size_t rows = an_rows(t), n = t->cls->ncols;
	const struct an_cell *cells = t->cells.v;
	int width[8] = {0};
	char buf[CELL_MAX];

	if (!rows)
		return;
	for (size_t i = 0; i < n; i++)
		width[i] = (int)strlen(t->cls->cols[i].title);
	for (size_t r = 0; r < rows; r++)
		for (size_t i = 0; i < n; i++) {
			cell_text(buf, sizeof(buf), &cells[r * n + i], &t->cls->cols[i]);
			if ((int)strlen(buf) > width[i])
				width[i] = (int)strlen(buf);
		}
	fprintf(f, "\n%s\n", t->title ? t->title : t->cls->title);
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%s%-*s", i ? "  " : "", i + 1 < n ? width[i] : 0,
			t->cls->cols[i].title);
	fputc('\n', f);
	for (size_t r = 0; r < rows; r++) {
		for (size_t i = 0; i < n; i++) {
			const struct an_cell *c = &cells[r * n + i];
			bool right =
				c->kind == C_INT || c->kind == C_DURATION || c->kind == C_RATIO;

			cell_text(buf, sizeof(buf), c, &t->cls->cols[i]);
			fprintf(f, "%s%*s", i ? "  " : "",
				i + 1 < n || right ? (right ? width[i] : -width[i]) : 0, buf);
		}
		fputc('\n', f);
	}
}

/* Alerts of the snapshot not explained, and why. */
static void alerts_left(const struct an_result *r, FILE *f)
{
	fprintf(f, "\n%zu of %zu latency alerts explained", r->causes.n, r->log.alerts.n);
	if (r->causes.n < r->alerts_window)
		fprintf(f, "; of the %zu in the window, the largest", r->alerts_window);
	if (r->alerts_outside)
		fprintf(f, "; %zu outside the window", r->alerts_outside);
	if (r->alerts_garbled)
		fprintf(f, "; %zu with a garbled interval (see the problems)", r->alerts_garbled);
	fputs(".\n", f);
}

void an_result_print(const struct an_result *r, FILE *f)
{
	char d[32];

	an_dur_text(d, sizeof(d), r->end - r->begin);
	fprintf(f, "Snapshot %s: %llu events over %s, %zu trace(s)%s\n", r->path,
		(unsigned long long)r->log.events, d, r->dirs.n,
		r->log.partial ? " (PARTIAL)" : "");
	for (size_t i = 0; i < r->log.problems.n; i++)
		fprintf(f, "  problem: %s\n", *AN_AT(&r->log.problems, char *, i));
	for (size_t i = 0; i < r->missing.n; i++)
		fprintf(f, "  not recorded: %s\n", *AN_AT(&r->missing, char *, i));
	if (!r->log.alerts.n)
		fprintf(f, "\nNo latency alert in this snapshot.\n");
	else if (r->causes.n < r->log.alerts.n)
		alerts_left(r, f);
	for (size_t i = 0; i < r->causes.n; i++) {
		const struct an_cause *c = AN_AT(&r->causes, struct an_cause, i);
		char summary[1024];
		double explained = an_cause_summary(&r->log, c, summary, sizeof(summary));

		fprintf(f, "\nAlert %llu: %s", (unsigned long long)c->alert.seq,
			c->story ? c->story : "\n");
		fprintf(f, "  In short: %s; %.0f%% of the interval explained.\n", summary,
			explained * 100);
		if (an_crossings_followed(c)) {
			uint64_t remote = an_cross_host_ns(c);

			struct an_host_time split[AN_HOST_SPLIT_MAX];
			size_t n = an_cross_host_split(c, split, AN_HOST_SPLIT_MAX);

			an_dur_text(d, sizeof(d), remote);
			fprintf(f, "  Across hosts: %s (%.0f%%) of it went on other hosts", d,
				c->t1 > c->t0 ? 100.0 * (double)remote / (double)(c->t1 - c->t0)
					      : 0.0);
			for (size_t k = 0; k < n; k++) {
				an_dur_text(d, sizeof(d), split[k].ns);
				fprintf(f, "%s%s %s%s", k ? ", " : ": ", split[k].host, d,
					strcmp(split[k].host, c->host) ? "" : " (this host again)");
			}
			fputs(".\n", f);
		}
		for (size_t j = 0; j < c->notes.n; j++)
			fprintf(f, "  cannot conclude: %s\n", *AN_AT(&c->notes, char *, j));
	}
	for (size_t i = 0; i < r->tables.n; i++)
		table(AN_AT(&r->tables, struct an_table, i), f);
	if (r->io_usage)
		fprintf(f, "\nI/O usage: %s\n", an_io_usage_note);
	if (r->resolution && !r->freq.n)
		fprintf(f, "\nNo frequency distribution: no system call, block request or "
			   "interrupt handler both began and ended in the window.\n");
	for (size_t i = 0; i < r->freq.n; i++)
		table(AN_AT(&r->freq, struct an_table, i), f);
}
