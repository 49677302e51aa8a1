/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * clocks.c: hosts' trace clocks aligned from the packets they exchanged, with drift, over
 * several hosts: crosshost.c aligns a crossing on them, and on its own drift-free bounds
 * where they give no two-way answer.
 *
 * Convention: the offset of j relative to i at t (on i's clock) is clock_j - clock_i at the
 * instant i's clock reads t. A packet is received after it is sent, so each one i -> j
 * bounds that offset from above at its sending, each one j -> i from below at its receipt.
 */
#ifndef LATENCY_ANALYSIS_CLOCKS_H
#define LATENCY_ANALYSIS_CLOCKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum clocks_status {
	CLOCKS_NONE,	   /* no packet between the hosts, nor a path through others */
	CLOCKS_ONE_WAY,	   /* packets one way only: a bound, no estimate */
	CLOCKS_INFEASIBLE, /* no line lies between the two ways' samples */
	CLOCKS_OK,
};

struct clocks_sample {
	uint64_t sent;	   /* on the sender's clock, ns */
	uint64_t received; /* on the receiver's clock, ns */
};

/* A sample shifted to small numbers: u = t_i - ref, v = (t_j - t_i) - ref_offset. */
struct clocks_point {
	int64_t u, v;
};

/* The offset as a line in those coordinates: v = drift * u + at_ref. */
struct clocks_line {
	long double drift; /* clock_j's rate over clock_i's, minus 1 */
	long double at_ref;
};

/* Two hosts' relation, clock_j = a * clock_i + b, fitted from their packets both ways. */
struct clocks_pair {
	enum clocks_status status;
	bool drifts;	      /* false: the drift-free bounds (too few samples for a slope) */
	uint64_t ref;	      /* on i's clock: the first sample's */
	int64_t ref_offset;   /* the first sample's t_j - t_i */
	uint64_t first, last; /* the samples' span on i's clock */
	struct clocks_line mid, min_slope, max_slope;
	/* For the uncertainty between the samples: where the extreme lines cross, others
	 * that are feasible can still be far from the middle line. */
	struct clocks_point *below; /* upper hull of j -> i: the line passes above */
	size_t nbelow;
	struct clocks_point *above; /* lower hull of i -> j: the line passes below */
	size_t nabove;
	bool bound_is_upper; /* CLOCKS_ONE_WAY: i -> j packets only */
};

/*
 * Fits I_TO_J (sent on i, received on j) and J_TO_I. With DRIFT false, or fewer than two
 * samples a way, or samples that leave the slope unbounded, the drift-free bound method of
 * crosshost.c. Returns 0 or -ENOMEM; the status tells what was found.
 */
int clocks_pair_fit(const struct clocks_sample *i_to_j, size_t n_i_to_j,
		    const struct clocks_sample *j_to_i, size_t n_j_to_i, bool drift,
		    struct clocks_pair *pair);
void clocks_pair_free(struct clocks_pair *pair);
/*
 * clock_j - clock_i at T (on i's clock) on the middle line, and how far a line still
 * consistent with every sample can be from it at T. CLOCKS_ONE_WAY: OFFSET is the bound
 * (UNCERTAINTY -1). CLOCKS_INFEASIBLE of the drift-free method: OFFSET is the middle of the
 * crossed bounds, what crosshost.c would say, for comparison only (UNCERTAINTY -1).
 */
enum clocks_status clocks_pair_at(const struct clocks_pair *pair, uint64_t t, int64_t *offset,
				  int64_t *uncertainty);
/* The middle line as clock_j = a * clock_i + b (b is large: absolute clocks). */
void clocks_pair_line(const struct clocks_pair *pair, long double *a, long double *b);

/* Several hosts: up to CLOCKS_MAX_HOSTS, indexed 0..n-1. */
#define CLOCKS_MAX_HOSTS 64

struct clocks;

struct clocks_offset {
	enum clocks_status status;
	int64_t offset;	     /* clock_j - clock_i at t on i's clock */
	int64_t uncertainty; /* the legs' added */
	size_t hops;	     /* path[0] = i ... path[hops] = j */
	size_t path[CLOCKS_MAX_HOSTS];
};

/* A triangle whose direct i -> k offset is not the composed i -> j -> k one. */
struct clocks_triangle {
	size_t i, j, k;
	uint64_t at;	     /* on i's clock */
	int64_t discrepancy; /* direct minus composed, ns */
	int64_t tolerance;   /* the three uncertainties added */
};

struct clocks *clocks_new(size_t nhosts);
void clocks_free(struct clocks *clocks);
/* A packet sent by FROM at SENT (its clock), received by TO at RECEIVED. 0 or -errno. */
int clocks_add(struct clocks *clocks, size_t from, size_t to, uint64_t sent, uint64_t received);
/* Every pair fitted, every triangle checked. 0 or -ENOMEM. */
int clocks_solve(struct clocks *clocks);
/* The fitted pair of hosts I < J (after clocks_solve); NULL otherwise. */
const struct clocks_pair *clocks_direct(const struct clocks *clocks, size_t i, size_t j);
/*
 * Host J relative to host I at T (on I's clock): through the path with the smallest
 * uncertainty at T, direct or through other hosts.
 */
void clocks_offset(const struct clocks *clocks, size_t i, size_t j, uint64_t t,
		   struct clocks_offset *offset);
/* The inconsistent triangles found by clocks_solve. */
size_t clocks_inconsistent(const struct clocks *clocks, const struct clocks_triangle **triangles);

#endif /* LATENCY_ANALYSIS_CLOCKS_H */
