// SPDX-License-Identifier: GPL-2.0-only
/*
 * The trackers' latency distributions as Prometheus histograms, from the module's log2
 * buckets (hist/delay_ns, hist/by_key): latencyd_latency_seconds per tracker, and per disk
 * or per system call when a tracker's hist/per splits it so (latencyctl hist --per, or
 * echo disk >hist/per). One family per level of aggregation, so that a dashboard never
 * sums a total with its own parts.
 *
 * Every series has the same fixed `le` set, 2^10 ns (1.024 us) to 2^36 ns (68.7 s) and
 * +Inf: histogram_quantile() sums buckets across hosts by `le`, which must then agree.
 * Delays below the first bound are counted in it (the buckets are cumulative). The module
 * keeps counts, not sums: there is no _sum series.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "manager.h"
#include "metrics_internal.h"

#define FIRST_BUCKET 9	/* its upper bound: 2^10 ns */
#define LAST_BUCKET  35 /* 2^36 ns */

/* NAME_bucket{LABELS,le} for the fixed bounds, then +Inf and NAME_count{LABELS}. */
static void series(FILE *f, const char *name, const char *labels, const uint64_t *counts)
{
	uint64_t below = 0, total = proto_hist_total(counts);

	for (unsigned i = 0; i < PROTO_HIST_BUCKETS; i++) {
		below += counts[i];
		if (i < FIRST_BUCKET || i > LAST_BUCKET)
			continue;
		fprintf(f, "%s_bucket{%s,le=\"%.12g\"} %" PRIu64 "\n", name, labels,
			(double)proto_hist_upper_ns(i) / 1e9, below);
	}
	fprintf(f, "%s_bucket{%s,le=\"+Inf\"} %" PRIu64 "\n", name, labels, total);
	fprintf(f, "%s_count{%s} %" PRIu64 "\n", name, labels, total);
}

static void family(FILE *f, const char *name, const char *help)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s histogram\n", name, help, name);
}

struct split {
	const char *per, *name, *label, *help;
};

static const struct split splits[] = {
	{"disk", "latencyd_latency_by_disk_seconds", "disk",
	 "A tracker's delays on each disk (hist/per disk: block, iosched), log2 buckets."},
	{"syscall", "latencyd_latency_by_syscall_seconds", "syscall",
	 "The syscalls tracker's delays per system call number (hist/per syscall), log2 "
	 "buckets."},
};

/* The keyed histograms BYK[0..N) (per "" when unread) of split S, one family. */
static void split_series(FILE *f, char **names, size_t n, const struct proto_hist *byk,
			 const struct split *s, const struct kdisks *disks)
{
	char labels[192];
	bool said = false;

	for (size_t t = 0; t < n; t++) {
		const struct proto_hist *h = &byk[t];

		if (strcmp(h->per, s->per) != 0)
			continue;
		for (size_t k = 0; k < h->nkeys; k++) {
			const char *key = h->keys[k].key, *disk = kdisks_name(disks, key);

			if (!said)
				family(f, s->name, s->help);
			said = true;
			/* Names and numbers are [0-9a-z:] here: nothing to escape. */
			snprintf(labels, sizeof(labels), "tracker=\"%s\",%s=\"%s\"", names[t],
				 s->label, s == &splits[0] && disk[0] ? disk : key);
			series(f, s->name, labels, h->keys[k].counts);
		}
	}
}

void metrics_histograms(FILE *f, const struct manager *m, char **names, size_t n)
{
	/* Each tracker's by_key read once, whatever its split: one pass over sysfs. */
	struct proto_hist *h = malloc(sizeof(*h)), *byk = calloc(n ? n : 1, sizeof(*byk));
	struct kdisks *disks = malloc(sizeof(*disks));
	char why[KHIST_WHY_LEN], labels[96];
	bool said = false;

	if (!h || !byk || !disks)
		goto out;
	for (size_t t = 0; t < n; t++) {
		/* A module older than ABI 1.4 has no hist/: no series, nothing to say. */
		if (khist_read(m->sysfs_root, names[t], false, h, why, sizeof(why)) < 0)
			continue;
		if (!said)
			family(f, "latencyd_latency_seconds",
			       "Every delay a tracker paired (entry to exit), alerts or not, in "
			       "the "
			       "module's log2 buckets since its last reset (hist/delay_ns).");
		said = true;
		snprintf(labels, sizeof(labels), "tracker=\"%s\"", names[t]);
		series(f, "latencyd_latency_seconds", labels, h->counts);
		if (khist_read(m->sysfs_root, names[t], true, &byk[t], why, sizeof(why)) < 0)
			byk[t].per[0] = 0;
	}
	kdisks_read(m->sysfs_root, disks);
	for (size_t s = 0; s < sizeof(splits) / sizeof(splits[0]); s++)
		split_series(f, names, n, byk, &splits[s], disks);
out:
	free(h);
	free(byk);
	free(disks);
}
