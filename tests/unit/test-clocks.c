/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Clock alignment with drift over several hosts (clocks.c), on packets generated from a
 * known truth: each host's clock is T0 + skew + T * (1 + ppm / 1e6) at true time T, each
 * packet takes 50 to 500 us (a fixed-seed xorshift, so every run sees the same samples).
 * Checks that the truth lies within the returned uncertainty, that drift is what makes the
 * difference over 10 s, the composition through a middle host, a triangle whose samples
 * disagree reported and not averaged, and the degenerate inputs.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>

#include "clocks.h"
#include "tests.h"

#define US     1000LL
#define MS     1000000LL
#define S      1000000000LL
#define T0     (1700000000ULL * 1000000000ULL)
#define WINDOW (10 * S)

struct host_clock {
	int64_t skew; /* ns */
	int64_t ppm;
};

static uint64_t rng_state;

static uint64_t xorshift(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static int64_t latency(void)
{
	return 50 * US + (int64_t)(xorshift() % (450 * US + 1));
}

static uint64_t clock_at(const struct host_clock *h, int64_t true_ns)
{
	return T0 + (uint64_t)(h->skew + true_ns + true_ns * h->ppm / 1000000);
}

/* clock_b - clock_a at true time T: what an offset of b relative to a should say. */
static int64_t truth(const struct host_clock *a, const struct host_clock *b, int64_t true_ns)
{
	return (int64_t)(clock_at(b, true_ns) - clock_at(a, true_ns));
}

struct exchange {
	struct clocks_sample *a_to_b, *b_to_a;
	size_t n;
};

/*
 * Packets both ways every STEP (give or take a tenth) over the window; ERROR is added to
 * every timestamp taken on b, as a host whose trace clock was misread would.
 */
static struct exchange exchange(const struct host_clock *a, const struct host_clock *b,
				int64_t step, int64_t error)
{
	struct exchange x = {.n = (size_t)(WINDOW / step)};

	x.a_to_b = malloc(x.n * sizeof(*x.a_to_b));
	x.b_to_a = malloc(x.n * sizeof(*x.b_to_a));
	ASSERT_TRUE(x.a_to_b && x.b_to_a);
	for (size_t k = 0; k < x.n; k++) {
		int64_t t = (int64_t)k * step + (int64_t)(xorshift() % (uint64_t)(step / 10));
		int64_t back = t + step / 2;

		x.a_to_b[k] = (struct clocks_sample){
			.sent = clock_at(a, t), .received = clock_at(b, t + latency()) + error};
		x.b_to_a[k] = (struct clocks_sample){.sent = clock_at(b, back) + error,
						     .received = clock_at(a, back + latency())};
	}
	return x;
}

static void exchange_free(struct exchange *x)
{
	free(x->a_to_b);
	free(x->b_to_a);
}

static void add_exchange(struct clocks *c, size_t a, size_t b, const struct exchange *x)
{
	for (size_t k = 0; k < x->n; k++) {
		ASSERT_EQ(clocks_add(c, a, b, x->a_to_b[k].sent, x->a_to_b[k].received), 0);
		ASSERT_EQ(clocks_add(c, b, a, x->b_to_a[k].sent, x->b_to_a[k].received), 0);
	}
}

static int64_t abs64(int64_t x)
{
	return x < 0 ? -x : x;
}

/* The truth within the uncertainty, printed either way. */
static void assert_within(const char *what, int64_t estimate, int64_t uncertainty, int64_t real)
{
	fprintf(stderr,
		"  %s: estimate %" PRId64 " ns, true %" PRId64 " ns, error %" PRId64
		" ns, uncertainty %" PRId64 " ns\n",
		what, estimate, real, estimate - real, uncertainty);
	ASSERT_TRUE(uncertainty >= 0);
	ASSERT_TRUE(abs64(estimate - real) <= uncertainty);
}

static const struct host_clock vm1 = {.skew = 0, .ppm = 100};
static const struct host_clock vm2 = {.skew = 5 * S, .ppm = -50};
static const struct host_clock vm3 = {.skew = -3 * S, .ppm = 0};

/* Two hosts 5 s apart, one drifting 100 ppm: 1 ms over the window. */
static void test_two_hosts_drift(void)
{
	const struct host_clock a = {.skew = 0, .ppm = 0}, b = {.skew = 5 * S, .ppm = 100};
	struct exchange x;
	struct clocks_pair drift, fixed;
	int64_t ends[2] = {0, WINDOW}, worst_drift = 0, worst_fixed = 0;
	long double slope, intercept;

	rng_state = 0x9e3779b97f4a7c15ULL;
	x = exchange(&a, &b, 10 * MS, 0);
	ASSERT_EQ(clocks_pair_fit(x.a_to_b, x.n, x.b_to_a, x.n, true, &drift), 0);
	ASSERT_EQ(drift.status, CLOCKS_OK);
	ASSERT_TRUE(drift.drifts);
	clocks_pair_line(&drift, &slope, &intercept);
	fprintf(stderr, "  slope %.9Lf (true 1.0001)\n", slope);
	ASSERT_TRUE(slope > 1.0001L - 2e-6L && slope < 1.0001L + 2e-6L);
	ASSERT_EQ(clocks_pair_fit(x.a_to_b, x.n, x.b_to_a, x.n, false, &fixed), 0);
	/* No constant offset fits 1 ms of drift under 50 us latencies: the bounds cross. */
	ASSERT_EQ(fixed.status, CLOCKS_INFEASIBLE);
	for (size_t e = 0; e < 2; e++) {
		uint64_t t = clock_at(&a, ends[e]);
		int64_t off, unc, fixed_off, fixed_unc;

		ASSERT_EQ(clocks_pair_at(&drift, t, &off, &unc), CLOCKS_OK);
		assert_within(e ? "end" : "start", off, unc, truth(&a, &b, ends[e]));
		ASSERT_TRUE(unc < 100 * US);
		ASSERT_EQ(clocks_pair_at(&fixed, t, &fixed_off, &fixed_unc), CLOCKS_INFEASIBLE);
		fprintf(stderr, "  drift-free there: %" PRId64 " ns, error %" PRId64 " ns\n",
			fixed_off, fixed_off - truth(&a, &b, ends[e]));
		if (abs64(off - truth(&a, &b, ends[e])) > worst_drift)
			worst_drift = abs64(off - truth(&a, &b, ends[e]));
		if (abs64(fixed_off - truth(&a, &b, ends[e])) > worst_fixed)
			worst_fixed = abs64(fixed_off - truth(&a, &b, ends[e]));
	}
	/* Away from the samples the slopes' spread widens the band. */
	{
		int64_t off_end, unc_end, off_far, unc_far;

		clocks_pair_at(&drift, clock_at(&a, WINDOW), &off_end, &unc_end);
		ASSERT_EQ(clocks_pair_at(&drift, clock_at(&a, 10 * WINDOW), &off_far, &unc_far),
			  CLOCKS_OK);
		fprintf(stderr, "  90 s after the window: uncertainty %" PRId64 " ns\n", unc_far);
		ASSERT_TRUE(unc_far > 2 * unc_end);
		assert_within("90 s after", off_far, unc_far, truth(&a, &b, 10 * WINDOW));
	}
	/* The middle of the crossed bounds is half the drift off at each end. */
	ASSERT_TRUE(worst_fixed > 400 * US);
	ASSERT_TRUE(worst_drift * 4 < worst_fixed);
	clocks_pair_free(&drift);
	clocks_pair_free(&fixed);
	exchange_free(&x);
}

/* vm1 and vm3 exchanged nothing: vm1 -> vm3 goes through vm2, the legs' uncertainties added. */
static void test_through_a_middle_host(void)
{
	struct clocks *c = clocks_new(3);
	struct exchange x12, x23;
	int64_t moments[3] = {0, WINDOW / 2, WINDOW};

	ASSERT_TRUE(c);
	rng_state = 0x2545f4914f6cdd1dULL;
	x12 = exchange(&vm1, &vm2, 10 * MS, 0);
	x23 = exchange(&vm2, &vm3, 10 * MS, 0);
	add_exchange(c, 0, 1, &x12);
	add_exchange(c, 1, 2, &x23);
	ASSERT_EQ(clocks_solve(c), 0);
	ASSERT_EQ(clocks_direct(c, 0, 2)->status, CLOCKS_NONE);
	for (size_t m = 0; m < 3; m++) {
		uint64_t t = clock_at(&vm1, moments[m]);
		struct clocks_offset o13, o12, o23, o31;

		clocks_offset(c, 0, 2, t, &o13);
		ASSERT_EQ(o13.status, CLOCKS_OK);
		ASSERT_EQ(o13.hops, 2);
		ASSERT_EQ(o13.path[0], 0);
		ASSERT_EQ(o13.path[1], 1);
		ASSERT_EQ(o13.path[2], 2);
		clocks_offset(c, 0, 1, t, &o12);
		clocks_offset(c, 1, 2, t + (uint64_t)o12.offset, &o23);
		ASSERT_EQ(o12.hops, 1);
		ASSERT_EQ(o23.hops, 1);
		ASSERT_EQ(o13.uncertainty, o12.uncertainty + o23.uncertainty);
		ASSERT_EQ(o13.offset, o12.offset + o23.offset);
		assert_within("vm1 -> vm3 through vm2", o13.offset, o13.uncertainty,
			      truth(&vm1, &vm3, moments[m]));
		/* The other way round, from vm3's clock, through vm2 too. */
		clocks_offset(c, 2, 0, clock_at(&vm3, moments[m]), &o31);
		ASSERT_EQ(o31.status, CLOCKS_OK);
		ASSERT_EQ(o31.path[1], 1);
		assert_within("vm3 -> vm1 through vm2", o31.offset, o31.uncertainty,
			      truth(&vm3, &vm1, moments[m]));
	}
	clocks_free(c);
	exchange_free(&x12);
	exchange_free(&x23);
}

/* Three hosts all talking, vm1-vm3 ERROR off: a triangle reported when ERROR is not 0. */
static struct clocks *triangle(int64_t error)
{
	struct clocks *c = clocks_new(3);
	struct exchange x12, x23, x13;

	ASSERT_TRUE(c);
	rng_state = 0xda942042e4dd58b5ULL;
	x12 = exchange(&vm1, &vm2, 10 * MS, 0);
	x23 = exchange(&vm2, &vm3, 10 * MS, 0);
	x13 = exchange(&vm1, &vm3, 10 * MS, error);
	add_exchange(c, 0, 1, &x12);
	add_exchange(c, 1, 2, &x23);
	add_exchange(c, 0, 2, &x13);
	exchange_free(&x12);
	exchange_free(&x23);
	exchange_free(&x13);
	ASSERT_EQ(clocks_solve(c), 0);
	return c;
}

static void test_consistent_triangle(void)
{
	struct clocks *c = triangle(0);
	const struct clocks_triangle *bad;

	ASSERT_EQ(clocks_inconsistent(c, &bad), 0);
	clocks_free(c);
}

static void test_inconsistent_triangle(void)
{
	struct clocks *c = triangle(2 * MS);
	const struct clocks_triangle *bad;
	uint64_t t = clock_at(&vm1, WINDOW / 2);
	struct clocks_offset o13;
	int64_t direct, direct_unc;

	ASSERT_EQ(clocks_inconsistent(c, &bad), 1);
	fprintf(stderr,
		"  triangle %zu %zu %zu: discrepancy %" PRId64 " ns, tolerance %" PRId64 " ns\n",
		bad[0].i, bad[0].j, bad[0].k, bad[0].discrepancy, bad[0].tolerance);
	ASSERT_TRUE(bad[0].i == 0 && bad[0].j == 1 && bad[0].k == 2);
	ASSERT_TRUE(abs64(bad[0].discrepancy - 2 * MS) < 200 * US);
	ASSERT_TRUE(bad[0].tolerance < 300 * US);
	/* Not averaged: vm1 -> vm3 is still its own direct fit, 2 ms off the truth. */
	clocks_offset(c, 0, 2, t, &o13);
	ASSERT_EQ(o13.status, CLOCKS_OK);
	ASSERT_EQ(o13.hops, 1);
	ASSERT_EQ(clocks_pair_at(clocks_direct(c, 0, 2), t, &direct, &direct_unc), CLOCKS_OK);
	ASSERT_EQ(o13.offset, direct);
	ASSERT_EQ(o13.uncertainty, direct_unc);
	fprintf(stderr, "  vm1 -> vm3 direct %" PRId64 " ns, true %" PRId64 " ns\n", o13.offset,
		truth(&vm1, &vm3, WINDOW / 2));
	ASSERT_TRUE(abs64(o13.offset - truth(&vm1, &vm3, WINDOW / 2) - 2 * MS) < 200 * US);
	clocks_free(c);
}

static void test_degenerate(void)
{
	/* a -> b: b is 1000 ns ahead at most; b -> a: b is 100 ns ahead at least. */
	const struct clocks_sample ab[] = {{1000, 2000}, {5000, 7000}, {9000, 9900}};
	const struct clocks_sample ba[] = {{2100, 2000}, {6200, 6000}, {9900, 9000}};
	/* Overlapping: a -> b says b is at most 100 ns behind... b -> a that it is 1 us ahead. */
	const struct clocks_sample ab_bad[] = {{1000, 900}, {5000, 4900}, {9000, 8900}};
	const struct clocks_sample ba_bad[] = {{3000, 2000}, {7000, 6000}, {11000, 10000}};
	struct clocks_pair p;
	int64_t off, unc;
	struct clocks *c;
	struct clocks_offset o;

	ASSERT_EQ(clocks_pair_fit(NULL, 0, NULL, 0, true, &p), 0);
	ASSERT_EQ(p.status, CLOCKS_NONE);
	ASSERT_EQ(clocks_pair_at(&p, 5000, &off, &unc), CLOCKS_NONE);
	clocks_pair_free(&p);

	ASSERT_EQ(clocks_pair_fit(ab, 3, NULL, 0, true, &p), 0);
	ASSERT_EQ(p.status, CLOCKS_ONE_WAY);
	ASSERT_TRUE(p.bound_is_upper);
	ASSERT_EQ(clocks_pair_at(&p, 5000, &off, &unc), CLOCKS_ONE_WAY);
	ASSERT_EQ(off, 900);
	ASSERT_EQ(unc, -1);
	clocks_pair_free(&p);
	ASSERT_EQ(clocks_pair_fit(NULL, 0, ba, 3, true, &p), 0);
	ASSERT_EQ(p.status, CLOCKS_ONE_WAY);
	ASSERT_TRUE(!p.bound_is_upper);
	ASSERT_EQ(clocks_pair_at(&p, 5000, &off, &unc), CLOCKS_ONE_WAY);
	ASSERT_EQ(off, 900);
	clocks_pair_free(&p);

	/* One sample a way: the drift-free bounds, 100 and 1000, their middle. */
	ASSERT_EQ(clocks_pair_fit(ab, 1, ba, 1, true, &p), 0);
	ASSERT_EQ(p.status, CLOCKS_OK);
	ASSERT_TRUE(!p.drifts);
	ASSERT_EQ(clocks_pair_at(&p, 5000, &off, &unc), CLOCKS_OK);
	ASSERT_EQ(off, 550);
	ASSERT_EQ(unc, 450);
	clocks_pair_free(&p);
	/* Three a way: a line with drift, the truth's bounds respected at every sample. */
	ASSERT_EQ(clocks_pair_fit(ab, 3, ba, 3, true, &p), 0);
	ASSERT_EQ(p.status, CLOCKS_OK);
	ASSERT_TRUE(p.drifts);
	ASSERT_EQ(clocks_pair_at(&p, 5000, &off, &unc), CLOCKS_OK);
	ASSERT_TRUE(off - unc >= 200 && off + unc <= 2000);
	clocks_pair_free(&p);

	ASSERT_EQ(clocks_pair_fit(ab_bad, 3, ba_bad, 3, true, &p), 0);
	ASSERT_EQ(p.status, CLOCKS_INFEASIBLE);
	ASSERT_EQ(clocks_pair_at(&p, 5000, &off, &unc), CLOCKS_INFEASIBLE);
	clocks_pair_free(&p);
	ASSERT_EQ(clocks_pair_fit(ab_bad, 1, ba_bad, 1, true, &p), 0);
	ASSERT_EQ(p.status, CLOCKS_INFEASIBLE);
	ASSERT_TRUE(!p.drifts);
	clocks_pair_free(&p);

	/* Among hosts: one way only, and a host nobody talked to. */
	ASSERT_TRUE(!clocks_new(1));
	c = clocks_new(3);
	ASSERT_TRUE(c);
	ASSERT_EQ(clocks_add(c, 0, 0, 1, 2), -EINVAL);
	ASSERT_EQ(clocks_add(c, 0, 3, 1, 2), -EINVAL);
	for (size_t k = 0; k < 3; k++)
		ASSERT_EQ(clocks_add(c, 0, 1, ab[k].sent, ab[k].received), 0);
	ASSERT_EQ(clocks_solve(c), 0);
	clocks_offset(c, 0, 1, 5000, &o);
	ASSERT_EQ(o.status, CLOCKS_ONE_WAY);
	ASSERT_EQ(o.offset, 900);
	clocks_offset(c, 1, 0, 5900, &o);
	ASSERT_EQ(o.status, CLOCKS_ONE_WAY);
	ASSERT_EQ(o.offset, -900);
	clocks_offset(c, 0, 2, 5000, &o);
	ASSERT_EQ(o.status, CLOCKS_NONE);
	clocks_offset(c, 1, 1, 5000, &o);
	ASSERT_EQ(o.status, CLOCKS_OK);
	ASSERT_EQ(o.offset, 0);
	ASSERT_EQ(o.hops, 0);
	clocks_free(c);
}

/* 200k samples, 100 us apart: the hulls keep it cheap; the answer still holds the truth. */
static void test_large(void)
{
	struct clocks *c = clocks_new(2);
	struct exchange x;
	int64_t ends[2] = {0, WINDOW};

	ASSERT_TRUE(c);
	rng_state = 0x853c49e6748fea9bULL;
	x = exchange(&vm1, &vm2, 100 * US, 0);
	ASSERT_EQ(x.n, 100000);
	add_exchange(c, 0, 1, &x);
	exchange_free(&x);
	ASSERT_EQ(clocks_solve(c), 0);
	ASSERT_EQ(clocks_direct(c, 0, 1)->status, CLOCKS_OK);
	fprintf(stderr, "  hulls: %zu and %zu vertices\n", clocks_direct(c, 0, 1)->nabove,
		clocks_direct(c, 0, 1)->nbelow);
	for (size_t e = 0; e < 2; e++) {
		struct clocks_offset o;

		clocks_offset(c, 0, 1, clock_at(&vm1, ends[e]), &o);
		ASSERT_EQ(o.status, CLOCKS_OK);
		assert_within(e ? "end" : "start", o.offset, o.uncertainty,
			      truth(&vm1, &vm2, ends[e]));
		ASSERT_TRUE(o.uncertainty < 100 * US);
	}
	clocks_free(c);
}

int main(void)
{
	RUN(test_two_hosts_drift);
	RUN(test_through_a_middle_host);
	RUN(test_consistent_triangle);
	RUN(test_inconsistent_triangle);
	RUN(test_degenerate);
	RUN(test_large);
	return 0;
}
