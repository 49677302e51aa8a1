/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The text output of hist: runqlat-style bars (bucket range, count, distribution) in the
 * unit that fits the data, the percentiles said to be bucket upper bounds, and the
 * interval the counts cover. io's levels share their rows, one column group per level, so
 * that the eye moves across from the system call to the device on the same bucket.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "latencyctl.h"

#define BAR_WIDTH    40 /* one histogram, as runqlat */
#define IO_BAR_WIDTH 10 /* each of io's levels */
#define HISTS_MAX    4

struct rows {
	int first, last; /* buckets shown; first > last when all are empty */
	uint64_t unit;	 /* ns per unit */
	const char *unit_name;
	int lo_width, hi_width;
};

static void rows_add(struct rows *w, const uint64_t *counts)
{
	for (int i = 0; i < PROTO_HIST_BUCKETS; i++)
		if (counts[i]) {
			if (i < w->first)
				w->first = i;
			if (i > w->last)
				w->last = i;
		}
}

/* The value of NS in the rows' unit, exactly: as many decimals as the unit has digits
 * ("1.024" us, "1.048576" ms), the trailing zeros dropped ("16"). */
static void bound_text(char *buf, size_t size, uint64_t ns, uint64_t unit)
{
	char frac[24];
	size_t n;

	/* unit + the remainder, its leading 1 dropped: the remainder zero-padded to the unit. */
	snprintf(frac, sizeof(frac), "%" PRIu64, unit + ns % unit);
	snprintf(buf, size, "%" PRIu64 ".%s", ns / unit, frac + 1);
	n = strlen(buf);
	while (n && buf[n - 1] == '0')
		buf[--n] = 0;
	if (n && buf[n - 1] == '.')
		buf[--n] = 0;
}

/* The largest unit the first bucket shown reaches, so that no bound reads 0.001. */
static void rows_fit(struct rows *w)
{
	static const struct {
		uint64_t ns;
		const char *name;
	} units[] = {{1000000000, "secs"}, {1000000, "msecs"}, {1000, "usecs"}, {1, "nsecs"}};
	uint64_t first = w->first <= w->last ? proto_hist_lower_ns((unsigned)w->first) : 0;
	char b[32];

	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (first >= units[i].ns || units[i].ns == 1) {
			w->unit = units[i].ns;
			w->unit_name = units[i].name;
			break;
		}
	w->lo_width = w->hi_width = 1;
	for (int i = w->first; i <= w->last; i++) {
		bound_text(b, sizeof(b), proto_hist_lower_ns((unsigned)i), w->unit);
		if ((int)strlen(b) > w->lo_width)
			w->lo_width = (int)strlen(b);
		bound_text(b, sizeof(b), proto_hist_upper_ns((unsigned)i), w->unit);
		if ((int)strlen(b) > w->hi_width)
			w->hi_width = (int)strlen(b);
	}
}

static void range_text(char *buf, size_t size, const struct rows *w, int i)
{
	char lo[32], hi[32];

	bound_text(lo, sizeof(lo), proto_hist_lower_ns((unsigned)i), w->unit);
	bound_text(hi, sizeof(hi), proto_hist_upper_ns((unsigned)i), w->unit);
	snprintf(buf, size, "%*s -> %-*s", w->lo_width, lo, w->hi_width, hi);
}

static void bar(char *buf, uint64_t count, uint64_t max, int width)
{
	int stars = max ? (int)((unsigned __int128)count * (unsigned)width / max) : 0;

	memset(buf, '*', (size_t)stars);
	memset(buf + stars, ' ', (size_t)(width - stars));
	buf[width] = 0;
}

static uint64_t max_count(const uint64_t *counts)
{
	uint64_t m = 0;

	for (int i = 0; i < PROTO_HIST_BUCKETS; i++)
		if (counts[i] > m)
			m = counts[i];
	return m;
}

/* COUNTS from their first non-empty bucket to their last, in the unit and widths of W (the
 * tracker's, the same for its keys: their columns line up). */
static void print_table(const struct rows *w, const uint64_t *counts)
{
	struct rows own = {.first = PROTO_HIST_BUCKETS, .last = -1};
	char range[80], stars[BAR_WIDTH + 1];
	uint64_t max = max_count(counts);

	rows_add(&own, counts);
	if (own.first > own.last)
		return;
	printf("%*s%*s : count    distribution\n", w->lo_width, w->unit_name, w->hi_width + 4, "");
	for (int i = own.first; i <= own.last; i++) {
		range_text(range, sizeof(range), w, i);
		bar(stars, counts[i], max, BAR_WIDTH);
		printf("%s : %-8" PRIu64 " |%s|\n", range, counts[i], stars);
	}
}

/* A bound as a duration, exactly ("2.097152ms", not a rounded "2.097ms": a rounded bound
 * would claim less than the bucket holds). */
static void bound_duration(char *buf, size_t size, uint64_t ns)
{
	static const struct {
		uint64_t ns;
		const char *unit;
	} units[] = {{1000000000, "s"}, {1000000, "ms"}, {1000, "µs"}, {1, "ns"}};
	char v[32];
	size_t i = 0;

	while (units[i].ns > 1 && ns < units[i].ns)
		i++;
	bound_text(v, sizeof(v), ns, units[i].ns);
	snprintf(buf, size, "%s%s", v, units[i].unit);
}

/* "p50 ≤ 16.384µs, p90 ≤ 2.097152ms, p99 ≤ 2.097152ms, max ≤ 4.194304ms"; "" when empty. */
static void percentiles_text(char *buf, size_t size, const uint64_t *counts)
{
	static const struct {
		const char *name;
		unsigned permille;
	} ps[] = {{"p50", 500}, {"p90", 900}, {"p99", 990}, {"max", 1000}};
	size_t len = 0;
	uint64_t upper;
	char d[32];

	buf[0] = 0;
	for (size_t i = 0; i < sizeof(ps) / sizeof(ps[0]) && len < size; i++) {
		if (proto_hist_percentile(counts, ps[i].permille, &upper) < 0)
			return;
		bound_duration(d, sizeof(d), upper);
		len += (size_t)snprintf(buf + len, size - len, "%s%s ≤ %s", i ? ", " : "",
					ps[i].name, d);
	}
}

/* "over 12.3 s since the last reset", or since the previous read for a period. */
static void interval_text(char *buf, size_t size, const struct proto_hist *h, bool delta)
{
	snprintf(buf, size, "over %.1f s %s", (double)(h->now_ns - h->since_ns) / 1e9,
		 delta ? "since the previous read" : "since the last reset");
}

static void key_title(char *buf, size_t size, const struct proto_hist *h, size_t k)
{
	const struct proto_hist_key *key = &h->keys[k];

	if (strcmp(key->key, PROTO_HIST_KEY_OTHER) == 0)
		snprintf(buf, size, "other %ss (past the first 64)", h->per);
	else if (key->name[0])
		snprintf(buf, size, "%s %s (%s)", h->per, key->name, key->key);
	else
		snprintf(buf, size, "%s %s", h->per, key->key);
}

static void print_one(const struct proto_hist *h, bool delta)
{
	struct rows w = {.first = PROTO_HIST_BUCKETS, .last = -1};
	char when[96], ps[160], title[96];
	uint64_t total = proto_hist_total(h->counts);

	rows_add(&w, h->counts);
	for (size_t k = 0; k < h->nkeys; k++)
		rows_add(&w, h->keys[k].counts);
	rows_fit(&w);
	interval_text(when, sizeof(when), h, delta);
	printf("Tracker %s%s%s: %" PRIu64 " delays %s\n", h->tracker, h->disk[0] ? ", disk " : "",
	       h->disk, total, when);
	print_table(&w, h->counts);
	percentiles_text(ps, sizeof(ps), h->counts);
	if (ps[0])
		printf("%s (bucket upper bounds)\n", ps);
	if (h->per[0] && !h->disk[0])
		printf("\nPer %s over %.1f s %s:\n", h->per,
		       (double)(h->now_ns - h->keys_since_ns) / 1e9,
		       delta ? "since the previous read"
			     : "since the split was set or the last reset");
	for (size_t k = 0; !h->disk[0] && k < h->nkeys; k++) {
		key_title(title, sizeof(title), h, k);
		printf("\n%s: %" PRIu64 " delays\n", title, proto_hist_total(h->keys[k].counts));
		print_table(&w, h->keys[k].counts);
		percentiles_text(ps, sizeof(ps), h->keys[k].counts);
		if (ps[0])
			printf("%s (bucket upper bounds)\n", ps);
	}
	if (h->per[0] && !h->disk[0] && h->nkeys == 0)
		printf("No delays yet.\n");
}

/* io: the levels' rows aligned, one column group each. */
static void print_levels(const struct proto_hist *h, int n, bool delta)
{
	struct rows w = {.first = PROTO_HIST_BUCKETS, .last = -1};
	char range[80], stars[IO_BAR_WIDTH + 1], ps[160], when[96];
	uint64_t max[HISTS_MAX];
	const char *disk = "";

	for (int k = 0; k < n; k++) {
		rows_add(&w, h[k].counts);
		max[k] = max_count(h[k].counts);
	}
	for (int k = 0; k < n; k++)
		if (h[k].disk[0])
			disk = h[k].disk;
	printf("I/O delays by level%s%s\n", disk[0] ? "; block and iosched on disk " : "", disk);
	if (w.first <= w.last) {
		rows_fit(&w);
		printf("%*s%*s :", w.lo_width, w.unit_name, w.hi_width + 4, "");
		for (int k = 0; k < n; k++)
			printf(" %-*s", 9 + IO_BAR_WIDTH + 2, h[k].tracker);
		printf("\n");
	}
	for (int i = w.first; i <= w.last; i++) {
		range_text(range, sizeof(range), &w, i);
		printf("%s :", range);
		for (int k = 0; k < n; k++) {
			bar(stars, h[k].counts[i], max[k], IO_BAR_WIDTH);
			printf(" %-8" PRIu64 " |%s|", h[k].counts[i], stars);
		}
		printf("\n");
	}
	for (int k = 0; k < n; k++) {
		percentiles_text(ps, sizeof(ps), h[k].counts);
		interval_text(when, sizeof(when), &h[k], delta);
		printf("%s%s%s: %" PRIu64 " delays %s%s%s\n", h[k].tracker,
		       h[k].disk[0] ? " on " : "", h[k].disk, proto_hist_total(h[k].counts), when,
		       ps[0] ? "; " : "", ps);
	}
	printf("(percentiles are bucket upper bounds)\n");
}

static void print_skipped(struct json_object *result)
{
	struct json_object *list = NULL, *t = NULL;
	size_t n;

	if (!json_object_object_get_ex(result, PROTO_KEY_SKIPPED, &list) ||
	    !json_object_is_type(list, json_type_array) || !(n = json_object_array_length(list)))
		return;
	printf("Not loaded, skipped:");
	for (size_t i = 0; i < n; i++)
		if (json_object_object_get_ex(json_object_array_get_idx(list, i), PROTO_KEY_TRACKER,
					      &t))
			printf("%s %s", i ? "," : "", json_str(t, "?"));
	printf(".\n");
}

int text_hist(struct json_object *result)
{
	struct proto_hist *h = calloc(HISTS_MAX, sizeof(*h));
	struct json_object *list = NULL, *v = NULL;
	struct proto_error err;
	bool delta = json_object_object_get_ex(result, CTL_KEY_DELTA, &v), io;
	int n = 0;

	if (!h) {
		fprintf(stderr, "latencyctl: out of memory\n");
		return EXIT_CONNECT;
	}
	if (!json_object_object_get_ex(result, PROTO_KEY_HISTS, &list) ||
	    !json_object_is_type(list, json_type_array)) {
		fprintf(stderr, "latencyctl: hist: unexpected reply: \"hists\" must be an array\n");
		free(h);
		return EXIT_CONNECT;
	}
	if (delta)
		printf("\n");
	for (size_t i = 0; i < json_object_array_length(list) && n < HISTS_MAX; i++, n++)
		if (proto_hist_from_json(json_object_array_get_idx(list, i), &h[n], &err) < 0) {
			fprintf(stderr, "latencyctl: hist: unexpected reply: %s\n", err.message);
			free(h);
			return EXIT_CONNECT;
		}
	io = n > 1 || (json_object_object_get_ex(result, PROTO_KEY_SKIPPED, &v) &&
		       json_object_is_type(v, json_type_array) && json_object_array_length(v) > 0);
	if (io)
		print_levels(h, n, delta);
	else if (n == 1)
		print_one(&h[0], delta);
	print_skipped(result);
	if (json_object_object_get_ex(result, PROTO_KEY_WAS_RESET, &v) &&
	    json_object_get_boolean(v))
		printf("Histograms reset after this read.\n");
	free(h);
	return EXIT_OK;
}
