/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Clock alignment with drift: the convex hull method of Duda et al., as Trace Compass
 * synchronises traces ("fully incremental convex hull", here in one pass over all samples).
 *
 * Between two hosts i and j, clock_j = a * clock_i + b is assumed over the samples' span.
 * A packet i -> j sent at s (i's clock) and received at r (j's) was received after it was
 * sent: r >= a * s + b, so the point (s, r) lies on or above the line. A packet j -> i sent at
 * s' and received at r' puts (r', s') on or below it. The lines between the two sets form a
 * convex set; only the lower hull of the points above and the upper hull of those below
 * constrain it, and its lines of extreme slopes are found on those hulls alone.
 *
 * Several hosts: each pair that exchanged packets is fitted directly; another pair is
 * composed along the path of least uncertainty (Dijkstra; the uncertainties add). A triangle
 * of direct fits that disagree beyond their uncertainties is reported, never averaged away:
 * one of its hosts' timestamps is wrong, and which one is not for this module to guess.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "clocks.h"

/*
 * Absolute times are ~1.7e18 ns: a double holds them to 256 ns only, and a slope times such
 * a time loses more. Every sample is first made relative to the first one, both in time (u,
 * ~1e10 over a snapshot) and in offset (v, the offset's change: microseconds to
 * milliseconds), in exact integer arithmetic; floating point sees only these. Fitting the
 * offset rather than clock_j itself (a shear of the plane, which keeps lines lines and
 * above above) also leaves the drift, ~1e-4, as the slope instead of 1 + 1e-4.
 */
/*
 * Offsets between clocks are taken modulo 2^64, as the timestamps' differences are: forged
 * timestamps give wrong offsets, never an overflow.
 */
static int64_t wrap_add(int64_t a, int64_t b)
{
	return (int64_t)((uint64_t)a + (uint64_t)b);
}

/* Uncertainties added, saturated: INT64_MAX is none known. */
static int64_t sat_add(int64_t a, int64_t b)
{
	if (b > 0 && a > INT64_MAX - b)
		return INT64_MAX;
	if (b < 0 && a < INT64_MIN - b)
		return INT64_MIN;
	return a + b;
}

static struct clocks_point point_of(uint64_t t_i, uint64_t t_j, uint64_t ref, int64_t ref_offset)
{
	return (struct clocks_point){.u = (int64_t)(t_i - ref),
				     .v = (int64_t)(t_j - t_i - (uint64_t)ref_offset)};
}

static int by_u_then_v(const void *a, const void *b)
{
	const struct clocks_point *p = a, *q = b;

	if (p->u != q->u)
		return p->u < q->u ? -1 : 1;
	return (p->v > q->v) - (p->v < q->v);
}

static int by_u_then_v_down(const void *a, const void *b)
{
	const struct clocks_point *p = a, *q = b;

	if (p->u != q->u)
		return p->u < q->u ? -1 : 1;
	return (p->v < q->v) - (p->v > q->v);
}

/* > 0: o, a, b turn left (counter-clockwise). Long double: the products reach ~1e20. */
static long double cross(struct clocks_point o, struct clocks_point a, struct clocks_point b)
{
	return ((long double)a.u - o.u) * ((long double)b.v - o.v) -
	       ((long double)a.v - o.v) * ((long double)b.u - o.u);
}

/*
 * PTS (sorted by u, the wanted extreme v first at each u) reduced in place to its lower hull
 * (TURN 1) or upper hull (TURN -1); returns its size. One point per u: no vertical edges.
 */
static size_t hull(struct clocks_point *pts, size_t n, int turn)
{
	size_t h = 0;

	for (size_t k = 0; k < n; k++) {
		if (h && pts[h - 1].u == pts[k].u)
			continue;
		while (h >= 2 && turn * cross(pts[h - 2], pts[h - 1], pts[k]) <= 0)
			h--;
		pts[h++] = pts[k];
	}
	return h;
}

static long double edge_slope(const struct clocks_point *h, size_t k)
{
	return ((long double)h[k + 1].v - h[k].v) / ((long double)h[k + 1].u - h[k].u);
}

/*
 * The vertex of hull H that is extreme for lines of slope S: on an upper hull (slopes
 * decreasing) the first whose next edge is below S, on a lower hull (increasing) the first
 * whose next edge is above it.
 */
static size_t vertex_for(const struct clocks_point *h, size_t n, long double s, bool upper)
{
	size_t lo = 0, hi = n - 1;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		long double e = edge_slope(h, mid);

		if (upper ? e < s : e > s)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

static long double at_ref_through(struct clocks_point p, long double slope)
{
	return (long double)p.v - slope * (long double)p.u;
}

/* The lowest at_ref a line of slope S can have and stay above BELOW. */
static long double floor_at(const struct clocks_pair *p, long double s)
{
	return at_ref_through(p->below[vertex_for(p->below, p->nbelow, s, true)], s);
}

/* The highest at_ref a line of slope S can have and stay below ABOVE. */
static long double ceiling_at(const struct clocks_pair *p, long double s)
{
	return at_ref_through(p->above[vertex_for(p->above, p->nabove, s, false)], s);
}

/* > 0: no line of slope S fits. Convex in S. */
static long double gap_at(const struct clocks_pair *p, long double s)
{
	return floor_at(p, s) - ceiling_at(p, s);
}

static int by_value(const void *a, const void *b)
{
	long double x = *(const long double *)a, y = *(const long double *)b;

	return (x > y) - (x < y);
}

/* The slopes where gap_at changes its own slope: the hulls' edges, sorted. */
static long double *breakpoints(const struct clocks_pair *p, size_t *n)
{
	long double *s;

	*n = p->nbelow - 1 + p->nabove - 1;
	s = malloc((*n ? *n : 1) * sizeof(*s));
	if (!s)
		return NULL;
	for (size_t k = 0; k + 1 < p->nbelow; k++)
		s[k] = edge_slope(p->below, k);
	for (size_t k = 0; k + 1 < p->nabove; k++)
		s[p->nbelow - 1 + k] = edge_slope(p->above, k);
	qsort(s, *n, sizeof(*s), by_value);
	return s;
}

/*
 * Where gap_at crosses zero between slopes FITS (gap <= 0) and BEYOND (gap > 0): on that
 * stretch one vertex of each hull is active, and the line through both is the extreme one.
 */
static struct clocks_line line_between(const struct clocks_pair *p, long double fits,
				       long double beyond)
{
	long double inside = (fits + beyond) / 2;
	struct clocks_point b = p->below[vertex_for(p->below, p->nbelow, inside, true)];
	struct clocks_point a = p->above[vertex_for(p->above, p->nabove, inside, false)];
	struct clocks_line l;

	l.drift = ((long double)a.v - b.v) / ((long double)a.u - b.u);
	l.at_ref = (at_ref_through(a, l.drift) + at_ref_through(b, l.drift)) / 2;
	return l;
}

/*
 * The feasible slopes, when the samples bound them: gap_at -> +inf both ways needs, as the
 * slope grows, a point above to the right of one below, and as it falls, one to the left.
 */
static bool slope_bounded(const struct clocks_pair *p)
{
	return p->above[p->nabove - 1].u > p->below[0].u &&
	       p->below[p->nbelow - 1].u > p->above[0].u;
}

static void fit_hulls(struct clocks_pair *p, const long double *s, size_t n)
{
	size_t best = 0, r, l;

	p->drifts = true;

	for (size_t k = 1; k < n; k++)
		if (gap_at(p, s[k]) < gap_at(p, s[best]))
			best = k;
	if (gap_at(p, s[best]) > 0) {
		p->status = CLOCKS_INFEASIBLE;
		return;
	}
	for (r = best + 1; r < n && gap_at(p, s[r]) <= 0; r++)
		;
	p->max_slope = line_between(p, s[r - 1], r < n ? s[r] : s[n - 1] + 2);
	for (l = best; l > 0 && gap_at(p, s[l - 1]) <= 0; l--)
		;
	p->min_slope = line_between(p, s[l], l > 0 ? s[l - 1] : s[0] - 2);
	p->mid.drift = (p->min_slope.drift + p->max_slope.drift) / 2;
	p->mid.at_ref = (p->min_slope.at_ref + p->max_slope.at_ref) / 2;
	p->status = CLOCKS_OK;
}

/* crosshost.c's method: the tightest bounds on a constant offset, and their middle. */
static void fit_drift_free(struct clocks_pair *p)
{
	long double lo = -INFINITY, hi = INFINITY;

	for (size_t k = 0; k < p->nbelow; k++)
		lo = fmaxl(lo, (long double)p->below[k].v);
	for (size_t k = 0; k < p->nabove; k++)
		hi = fminl(hi, (long double)p->above[k].v);
	p->drifts = false;
	if (!p->nbelow || !p->nabove) {
		p->status = CLOCKS_ONE_WAY;
		p->bound_is_upper = p->nabove;
		p->mid = (struct clocks_line){.at_ref = p->nabove ? hi : lo};
		return;
	}
	p->mid = (struct clocks_line){.at_ref = lo + (hi - lo) / 2};
	p->min_slope = (struct clocks_line){.at_ref = lo};
	p->max_slope = (struct clocks_line){.at_ref = hi};
	p->status = lo <= hi ? CLOCKS_OK : CLOCKS_INFEASIBLE;
}

static void span_of(struct clocks_pair *p, const struct clocks_point *pts, size_t n)
{
	for (size_t k = 0; k < n; k++) {
		uint64_t t = p->ref + (uint64_t)pts[k].u;

		if (t < p->first)
			p->first = t;
		if (t > p->last)
			p->last = t;
	}
}

/* The samples as points, sorted, reduced to the hull that constrains the line. */
static struct clocks_point *hull_of(struct clocks_pair *p, const struct clocks_sample *smp,
				    size_t n, bool sent_on_i, size_t *nhull)
{
	struct clocks_point *pts = malloc((n ? n : 1) * sizeof(*pts));

	if (!pts)
		return NULL;
	for (size_t k = 0; k < n; k++)
		pts[k] = sent_on_i ? point_of(smp[k].sent, smp[k].received, p->ref, p->ref_offset)
				   : point_of(smp[k].received, smp[k].sent, p->ref, p->ref_offset);
	span_of(p, pts, n);
	qsort(pts, n, sizeof(*pts), sent_on_i ? by_u_then_v : by_u_then_v_down);
	*nhull = hull(pts, n, sent_on_i ? 1 : -1);
	return pts;
}

int clocks_pair_fit(const struct clocks_sample *i_to_j, size_t n_i_to_j,
		    const struct clocks_sample *j_to_i, size_t n_j_to_i, bool drift,
		    struct clocks_pair *pair)
{
	long double *slopes;
	size_t nslopes;

	memset(pair, 0, sizeof(*pair));
	if (!n_i_to_j && !n_j_to_i)
		return 0;
	if (n_i_to_j) {
		pair->ref = i_to_j[0].sent;
		pair->ref_offset = (int64_t)(i_to_j[0].received - i_to_j[0].sent);
	} else {
		pair->ref = j_to_i[0].received;
		pair->ref_offset = (int64_t)(j_to_i[0].sent - j_to_i[0].received);
	}
	pair->first = UINT64_MAX;
	pair->above = hull_of(pair, i_to_j, n_i_to_j, true, &pair->nabove);
	pair->below = hull_of(pair, j_to_i, n_j_to_i, false, &pair->nbelow);
	if (!pair->above || !pair->below) {
		clocks_pair_free(pair);
		return -ENOMEM;
	}
	/* Two samples a way at least: with fewer, any slope fits one side of the data. */
	if (!drift || n_i_to_j < 2 || n_j_to_i < 2 || !slope_bounded(pair)) {
		fit_drift_free(pair);
		return 0;
	}
	slopes = breakpoints(pair, &nslopes);
	if (!slopes) {
		clocks_pair_free(pair);
		return -ENOMEM;
	}
	fit_hulls(pair, slopes, nslopes);
	free(slopes);
	return 0;
}

void clocks_pair_free(struct clocks_pair *pair)
{
	free(pair->above);
	free(pair->below);
	pair->above = pair->below = NULL;
	pair->nabove = pair->nbelow = 0;
	pair->status = CLOCKS_NONE;
}

static long double clamp(long double x, long double lo, long double hi)
{
	return x < lo ? lo : x > hi ? hi : x;
}

/* The slope of hull H's edge over U; before or after the hull, BEFORE or AFTER. */
static long double slope_over(const struct clocks_point *h, size_t n, long double u,
			      long double before, long double after)
{
	size_t lo = 0, hi = n - 1;

	if (u < (long double)h[0].u)
		return before;
	if (u > (long double)h[n - 1].u)
		return after;
	if (n < 2)
		return before; /* U on the single vertex: every slope gives it the same value */
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if ((long double)h[mid].u <= u)
			lo = mid;
		else
			hi = mid;
	}
	return edge_slope(h, lo);
}

/*
 * The highest feasible line at U: among the feasible slopes, the one of the lower hull's
 * edge over U (its value at U is concave in the slope, greatest there), clamped.
 */
static long double highest_at(const struct clocks_pair *p, long double u)
{
	long double s = clamp(slope_over(p->above, p->nabove, u, -INFINITY, INFINITY),
			      p->min_slope.drift, p->max_slope.drift);

	return ceiling_at(p, s) + s * u;
}

static long double lowest_at(const struct clocks_pair *p, long double u)
{
	long double s = clamp(slope_over(p->below, p->nbelow, u, INFINITY, -INFINITY),
			      p->min_slope.drift, p->max_slope.drift);

	return floor_at(p, s) + s * u;
}

static long double value_at(struct clocks_line l, long double u)
{
	return l.at_ref + l.drift * u;
}

enum clocks_status clocks_pair_at(const struct clocks_pair *pair, uint64_t t, int64_t *offset,
				  int64_t *uncertainty)
{
	long double u = (long double)(int64_t)(t - pair->ref), mid, spread;

	*offset = 0;
	*uncertainty = -1;
	if (pair->status == CLOCKS_NONE)
		return CLOCKS_NONE;
	if (pair->status == CLOCKS_INFEASIBLE && pair->drifts)
		return CLOCKS_INFEASIBLE; /* no line: nothing to show */
	mid = value_at(pair->mid, u);
	*offset = wrap_add(pair->ref_offset, (int64_t)llroundl(mid));
	if (pair->status != CLOCKS_OK)
		return pair->status;
	if (pair->drifts)
		spread = fmaxl(highest_at(pair, u) - mid, mid - lowest_at(pair, u));
	else
		spread = (pair->max_slope.at_ref - pair->min_slope.at_ref) / 2;
	*uncertainty = (int64_t)ceill(fmaxl(spread, 0));
	return CLOCKS_OK;
}

void clocks_pair_line(const struct clocks_pair *pair, long double *a, long double *b)
{
	*a = 1 + pair->mid.drift;
	*b = (long double)pair->ref_offset + pair->mid.at_ref -
	     pair->mid.drift * (long double)pair->ref;
}

/* -------------------------------------------------------------------------------------- */

struct samples {
	struct clocks_sample *at;
	size_t n, cap;
};

struct clocks {
	size_t n;
	struct samples *sent;	   /* [from * n + to] */
	struct clocks_pair *pairs; /* [i * n + j], i < j */
	bool solved;
	struct clocks_triangle *bad;
	size_t nbad;
};

struct clocks *clocks_new(size_t nhosts)
{
	struct clocks *c;

	if (nhosts < 2 || nhosts > CLOCKS_MAX_HOSTS)
		return NULL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->n = nhosts;
	c->sent = calloc(nhosts * nhosts, sizeof(*c->sent));
	c->pairs = calloc(nhosts * nhosts, sizeof(*c->pairs));
	if (!c->sent || !c->pairs) {
		clocks_free(c);
		return NULL;
	}
	return c;
}

static void clear_pairs(struct clocks *c)
{
	for (size_t k = 0; k < c->n * c->n; k++)
		clocks_pair_free(&c->pairs[k]);
	free(c->bad);
	c->bad = NULL;
	c->nbad = 0;
	c->solved = false;
}

void clocks_free(struct clocks *clocks)
{
	if (!clocks)
		return;
	if (clocks->pairs)
		clear_pairs(clocks);
	for (size_t k = 0; clocks->sent && k < clocks->n * clocks->n; k++)
		free(clocks->sent[k].at);
	free(clocks->sent);
	free(clocks->pairs);
	free(clocks);
}

int clocks_add(struct clocks *clocks, size_t from, size_t to, uint64_t sent, uint64_t received)
{
	struct samples *s;

	if (from >= clocks->n || to >= clocks->n || from == to)
		return -EINVAL;
	s = &clocks->sent[from * clocks->n + to];
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 256;
		struct clocks_sample *at = realloc(s->at, cap * sizeof(*at));

		if (!at)
			return -ENOMEM;
		s->at = at;
		s->cap = cap;
	}
	s->at[s->n++] = (struct clocks_sample){.sent = sent, .received = received};
	return 0;
}

const struct clocks_pair *clocks_direct(const struct clocks *clocks, size_t i, size_t j)
{
	if (!clocks->solved || i >= j || j >= clocks->n)
		return NULL;
	return &clocks->pairs[i * clocks->n + j];
}

/*
 * The direct leg FROM -> TO at T on FROM's clock. Only pairs I < J are fitted: the other way
 * is the same line seen from j, T first carried to i's clock along the middle line (exactly:
 * the line is linear, so that is one division).
 */
static enum clocks_status leg(const struct clocks *c, size_t from, size_t to, uint64_t t,
			      int64_t *offset, int64_t *uncertainty)
{
	const struct clocks_pair *p;
	long double u;
	enum clocks_status st;

	if (from < to)
		return clocks_pair_at(&c->pairs[from * c->n + to], t, offset, uncertainty);
	p = &c->pairs[to * c->n + from];
	if (p->status != CLOCKS_OK) {
		/* A bound seen from j: the same bound, negated (an upper one becomes lower). */
		st = clocks_pair_at(p, t - (uint64_t)p->ref_offset, offset, uncertainty);
		*offset = -*offset;
		return st;
	}
	u = ((long double)(int64_t)(t - p->ref - (uint64_t)p->ref_offset) - p->mid.at_ref) /
	    (1 + p->mid.drift);
	st = clocks_pair_at(p, p->ref + (uint64_t)(int64_t)llroundl(u), offset, uncertainty);
	*offset = -*offset;
	return st;
}

struct reach {
	bool done;
	int64_t uncertainty; /* INT64_MAX: not reached */
	int64_t offset;	     /* from the source */
	size_t prev;
};

static size_t closest(const struct reach *r, size_t n)
{
	size_t best = n;

	for (size_t k = 0; k < n; k++)
		if (!r[k].done && r[k].uncertainty != INT64_MAX &&
		    (best == n || r[k].uncertainty < r[best].uncertainty))
			best = k;
	return best;
}

/* Dijkstra from I, each leg evaluated at the time the path reached its host. */
static void reach_from(const struct clocks *c, size_t i, uint64_t t, struct reach *r)
{
	size_t u;

	for (size_t k = 0; k < c->n; k++)
		r[k] = (struct reach){.uncertainty = INT64_MAX, .prev = c->n};
	r[i].uncertainty = 0;
	while ((u = closest(r, c->n)) != c->n) {
		uint64_t t_u = t + (uint64_t)r[u].offset;

		r[u].done = true;
		for (size_t v = 0; v < c->n; v++) {
			int64_t off, unc;

			if (r[v].done || v == u || leg(c, u, v, t_u, &off, &unc) != CLOCKS_OK)
				continue;
			if (sat_add(r[u].uncertainty, unc) < r[v].uncertainty) {
				r[v].uncertainty = sat_add(r[u].uncertainty, unc);
				r[v].offset = wrap_add(r[u].offset, off);
				r[v].prev = u;
			}
		}
	}
}

static void path_of(const struct reach *r, size_t i, size_t j, struct clocks_offset *o)
{
	size_t hops = 0;

	for (size_t k = j; k != i; k = r[k].prev)
		hops++;
	o->hops = hops;
	for (size_t k = j, at = hops;; k = r[k].prev, at--) {
		o->path[at] = k;
		if (k == i)
			break;
	}
}

void clocks_offset(const struct clocks *clocks, size_t i, size_t j, uint64_t t,
		   struct clocks_offset *offset)
{
	struct reach r[CLOCKS_MAX_HOSTS];

	memset(offset, 0, sizeof(*offset));
	offset->status = CLOCKS_NONE;
	offset->uncertainty = -1;
	if (!clocks->solved || i >= clocks->n || j >= clocks->n)
		return;
	reach_from(clocks, i, t, r);
	if (r[j].uncertainty == INT64_MAX) {
		/* Unreached: still say what the direct pair has, a bound or a contradiction. */
		offset->status = leg(clocks, i, j, t, &offset->offset, &offset->uncertainty);
		return;
	}
	offset->status = CLOCKS_OK;
	offset->offset = r[j].offset;
	offset->uncertainty = r[j].uncertainty;
	path_of(r, i, j, offset);
}

/*
 * Drift only where the packets show it: over a snapshot's seconds the drift-free bounds are
 * the tighter ones, from fewer packets; when they cross, the clocks drifted apart over the
 * window, and the hull fit takes over.
 */
static int fit_pair(struct clocks *c, size_t i, size_t j)
{
	const struct samples *ij = &c->sent[i * c->n + j], *ji = &c->sent[j * c->n + i];
	struct clocks_pair *p = &c->pairs[i * c->n + j];
	int err = clocks_pair_fit(ij->at, ij->n, ji->at, ji->n, false, p);

	if (err || p->status != CLOCKS_INFEASIBLE)
		return err;
	clocks_pair_free(p);
	return clocks_pair_fit(ij->at, ij->n, ji->at, ji->n, true, p);
}

static bool direct_ok(const struct clocks *c, size_t i, size_t j)
{
	return c->pairs[i * c->n + j].status == CLOCKS_OK;
}

/* I -> K directly against I -> J -> K, at the middle of the I-K samples. */
static int check_triangle(struct clocks *c, size_t i, size_t j, size_t k)
{
	const struct clocks_pair *ik = &c->pairs[i * c->n + k];
	uint64_t at = ik->first + (ik->last - ik->first) / 2;
	int64_t o_ik, u_ik, o_ij, u_ij, o_jk, u_jk, discrepancy, tolerance;
	struct clocks_triangle *bad;

	leg(c, i, k, at, &o_ik, &u_ik);
	leg(c, i, j, at, &o_ij, &u_ij);
	leg(c, j, k, at + (uint64_t)o_ij, &o_jk, &u_jk);
	discrepancy = (int64_t)((uint64_t)o_ik - (uint64_t)o_ij - (uint64_t)o_jk);
	tolerance = sat_add(sat_add(u_ik, u_ij), u_jk);
	if (discrepancy != INT64_MIN && llabs(discrepancy) <= tolerance)
		return 0;
	bad = realloc(c->bad, (c->nbad + 1) * sizeof(*bad));
	if (!bad)
		return -ENOMEM;
	c->bad = bad;
	c->bad[c->nbad++] = (struct clocks_triangle){.i = i,
						     .j = j,
						     .k = k,
						     .at = at,
						     .discrepancy = discrepancy,
						     .tolerance = tolerance};
	return 0;
}

static int check_triangles(struct clocks *c)
{
	for (size_t i = 0; i < c->n; i++)
		for (size_t j = i + 1; j < c->n; j++)
			for (size_t k = j + 1; k < c->n; k++) {
				int err;

				if (!direct_ok(c, i, j) || !direct_ok(c, j, k) ||
				    !direct_ok(c, i, k))
					continue;
				if ((err = check_triangle(c, i, j, k)))
					return err;
			}
	return 0;
}

int clocks_solve(struct clocks *clocks)
{
	clear_pairs(clocks);
	for (size_t i = 0; i < clocks->n; i++)
		for (size_t j = i + 1; j < clocks->n; j++) {
			int err = fit_pair(clocks, i, j);

			if (err) {
				clear_pairs(clocks);
				return err;
			}
		}
	clocks->solved = true;
	return check_triangles(clocks);
}

size_t clocks_inconsistent(const struct clocks *clocks, const struct clocks_triangle **triangles)
{
	*triangles = clocks->bad;
	return clocks->nbad;
}
