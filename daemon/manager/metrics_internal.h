/* SPDX-License-Identifier: GPL-2.0-only */
/* Between metrics.c, which writes the families, and metrics_hist.c, the histograms. */
#ifndef LATENCYD_METRICS_INTERNAL_H
#define LATENCYD_METRICS_INTERNAL_H

#include <stddef.h>
#include <stdio.h>

struct manager;

/* The histograms of the N trackers NAMES (their hist/ files), to F. */
void metrics_histograms(FILE *f, const struct manager *m, char **names, size_t n);

#endif /* LATENCYD_METRICS_INTERNAL_H */
