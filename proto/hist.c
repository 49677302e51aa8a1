/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The trackers' log2 histograms as latencyd and latencyctl both read them (proto.h): which
 * bucket a bound names, and percentiles from the buckets. Percentiles are computed in one
 * place so that the daemon's reply and the client's --interval deltas say the same thing.
 */
#include <errno.h>

#include "proto.h"

uint64_t proto_hist_lower_ns(unsigned i)
{
	return i == 0 ? 0 : (uint64_t)1 << i;
}

uint64_t proto_hist_upper_ns(unsigned i)
{
	/* Bucket 63 ends at 2^64: the largest value stands for it. */
	return i + 1 >= PROTO_HIST_BUCKETS ? UINT64_MAX : (uint64_t)1 << (i + 1);
}

int proto_hist_bucket(uint64_t lower_ns)
{
	if (lower_ns == 0)
		return 0;
	if (lower_ns == 1 || (lower_ns & (lower_ns - 1)))
		return -EINVAL;
	return __builtin_ctzll(lower_ns);
}

uint64_t proto_hist_total(const uint64_t *counts)
{
	uint64_t total = 0;

	for (unsigned i = 0; i < PROTO_HIST_BUCKETS; i++)
		total = counts[i] > UINT64_MAX - total ? UINT64_MAX : total + counts[i];
	return total;
}

int proto_hist_percentile(const uint64_t *counts, unsigned permille, uint64_t *upper_ns)
{
	uint64_t total = proto_hist_total(counts), rank, seen = 0;

	if (total == 0 || permille == 0 || permille > 1000)
		return total == 0 ? -ENODATA : -EINVAL;
	/* The nearest-rank method: the ceil(p * n)th smallest delay, at least the first;
	 * 128 bits so that huge counts do not wrap. */
	rank = (uint64_t)(((unsigned __int128)total * permille + 999) / 1000);
	if (rank == 0)
		rank = 1;
	for (unsigned i = 0; i < PROTO_HIST_BUCKETS; i++) {
		seen = counts[i] > UINT64_MAX - seen ? UINT64_MAX : seen + counts[i];
		if (counts[i] && seen >= rank) {
			*upper_ns = proto_hist_upper_ns(i);
			return (int)i;
		}
	}
	return -ENODATA; /* not reached: the last non-empty bucket reaches the total */
}
