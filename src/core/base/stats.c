/*
 * stats.c - summary statistics of durations.
 *
 * Percentiles follow numpy's default method ("linear"): the value at
 * fractional rank (n - 1) * q, v[lo] + (v[hi] - v[lo]) * frac, written as
 * tests/tools/recompute.py writes it so both give the same doubles (numpy's
 * own two-sided lerp can differ in the last bit). The ranks are found by
 * selection (three-way quickselect, falling back to a sort when pivots go
 * bad), which keeps a row of millions of events linear.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/stats.h"

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

static void swap(int64_t *v, size_t i, size_t j)
{
	int64_t tmp = v[i];

	v[i] = v[j];
	v[j] = tmp;
}

static int64_t median3(int64_t a, int64_t b, int64_t c)
{
	if (a > b) {
		int64_t tmp = a;

		a = b;
		b = tmp;
	}
	return c <= a ? a : c >= b ? b : c;
}

/*
 * Put the k-th smallest of v[lo..hi) at v[k], smaller-or-equal values before
 * it and greater-or-equal after it. Pivots are the median of three elements
 * at pseudo-random places: fixed places (first, middle, last) degrade to
 * quadratic on sorted durations, which real rows often are. Should the
 * rounds still run long, the rest is sorted.
 */
static void select_kth(int64_t *v, size_t lo, size_t hi, size_t k)
{
	uint64_t rng = 0x9e3779b97f4a7c15ull ^ (uint64_t)(hi - lo);
	int budget = 32;

	for (size_t n = hi - lo; n; n >>= 1)
		budget += 2;
	while (hi - lo > 16 && budget--) {
		size_t n = hi - lo, lt = lo, i = lo, gt = hi;
		int64_t pick[3], pivot;

		for (int j = 0; j < 3; j++) {
			rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17; /* xorshift64 */
			pick[j] = v[lo + (size_t)(rng % n)];
		}
		pivot = median3(pick[0], pick[1], pick[2]);
		/* Dutch flag: [lo,lt) < pivot, [lt,i) == pivot, [gt,hi) > pivot */
		while (i < gt) {
			if (v[i] < pivot)
				swap(v, lt++, i++);
			else if (v[i] > pivot)
				swap(v, i, --gt);
			else
				i++;
		}
		if (k < lt)
			hi = lt;
		else if (k >= gt)
			lo = gt;
		else
			return; /* v[k] == pivot, already in place */
	}
	if (hi - lo > 1)
		qsort(v + lo, hi - lo, sizeof(*v), cmp_i64);
}

/*
 * Percentile q of v[0..n), with v[0..*from) already known to be no greater
 * than the rest; advances *from so the next (larger) q selects less.
 */
/* The fractional rank of percentile q among n values: its whole part in *i. */
static double rank_of(size_t n, double q, size_t *i)
{
	double rank = (double)(n - 1) * q;

	*i = (size_t)floor(rank);
	if (*i >= n)
		*i = n - 1;
	return rank - floor(rank);
}

/* The value at fractional rank i + t, between the i-th and (i+1)-th smallest. */
static double lerp(int64_t at, int64_t next, double t)
{
	return t == 0 ? (double)at : (double)at + ((double)next - (double)at) * t;
}

static double percentile(int64_t *v, size_t n, double q, size_t *from)
{
	size_t i;
	double t = rank_of(n, q, &i);
	int64_t next;

	select_kth(v, *from, n, i);
	*from = i;
	if (t == 0 || i + 1 >= n)
		return (double)v[i];
	next = v[i + 1]; /* the (i+1)-th smallest is the least of what follows */
	for (size_t j = i + 2; j < n; j++)
		if (v[j] < next)
			next = v[j];
	return lerp(v[i], next, t);
}

double osc_stats_percentile_sorted(const int64_t *s, size_t n, double q)
{
	size_t i;
	double t = rank_of(n, q, &i);

	return i + 1 >= n ? (double)s[i] : lerp(s[i], s[i + 1], t);
}

static int double_order(const void *pa, const void *pb)
{
	double a = *(const double *)pa, b = *(const double *)pb;

	return a < b ? -1 : a > b;
}

double osc_stats_median(double *v, size_t n)
{
	if (!n)
		return 0;
	qsort(v, n, sizeof(*v), double_order);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

void osc_stats_sums(const int64_t *v, size_t n, struct osc_stats *out)
{
	__int128 sum = 0; /* n int64 values: exact for any n below 2^64 */

	memset(out, 0, sizeof(*out));
	if (!n)
		return;
	out->count = n;
	out->min = out->max = v[0];
	for (size_t i = 0; i < n; i++) {
		out->total = osc_sat_add(out->total, v[i]);
		sum += v[i];
		if (v[i] < out->min)
			out->min = v[i];
		if (v[i] > out->max)
			out->max = v[i];
	}
	out->mean = (double)sum / (double)n;
}

void osc_stats_compute(int64_t *v, size_t n, struct osc_stats *out)
{
	double sq = 0;
	size_t from = 0;

	osc_stats_sums(v, n, out);
	if (!n)
		return;
	for (size_t i = 0; i < n && n > 1; i++) {
		double d = (double)v[i] - out->mean;

		sq += d * d;
	}
	out->stddev = n > 1 ? sqrt(sq / (double)(n - 1)) : 0;
	out->p50 = percentile(v, n, 0.50, &from);
	out->p90 = percentile(v, n, 0.90, &from);
	out->p99 = percentile(v, n, 0.99, &from);
}
