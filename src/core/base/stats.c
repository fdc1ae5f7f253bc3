/*
 * stats.c - summary statistics of durations.
 *
 * Percentiles follow numpy's default method ("linear"): the value at
 * fractional rank (n - 1) * q, v[lo] + (v[hi] - v[lo]) * frac, written as
 * tests/tools/recompute.py writes it so both give the same doubles (numpy's
 * own two-sided lerp can differ in the last bit). The ranks are found by
 * selection (three-way quickselect, falling back to a sort when pivots go
 * bad), which keeps a row of millions of events linear; a long row's three
 * in one pass over brackets a sample gives (see sampled_percentiles).
 */
#include <math.h>
#include <stdbool.h>
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

/*
 * Percentile q of v[0..n), with v[0..*from) already known to be no greater
 * than the rest; advances *from so the next (larger) q selects less.
 */
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

/*
 * Long rows find their three percentiles in one pass: a sorted sample of
 * the values gives, around each percentile's rank, a bracket of values that
 * holds it with near certainty; one pass counts the values below each
 * bracket and at its two ends and copies those strictly between, and the
 * rank is found among those few. Should a rank fall outside its bracket (or
 * a bracket overflow), the selection over the whole row answers instead: the
 * values are exact either way.
 */
#define SAMPLED_MIN ((size_t)1 << 16) /* rows at least this long */
#define SAMPLE 4096                    /* values in the sample */
#define MARGIN 96                      /* sample places on each side of a rank */
#define CHECK_EVERY 1024               /* values between two looks at the brackets' room */
#define NR_Q 3

static const double quantiles[NR_Q] = { 0.50, 0.90, 0.99 };

/*
 * A bracket's counts: the values below lo, equal to lo and equal to hi
 * (durations repeat: those are counted, not kept), and the values strictly
 * between, kept.
 */
struct bracket {
	int64_t lo, hi;
	uint64_t gap; /* how many values lie strictly between: hi - lo - 1, 0 when lo == hi */
	size_t below, at_lo, at_hi;
	int64_t *in;  /* the values strictly between, nr of them */
	size_t nr;
};

/* The k-th smallest value, when bracket b holds it. */
static bool bracket_kth(struct bracket *b, size_t k, int64_t *out)
{
	if (k < b->below)
		return false;
	k -= b->below;
	if (k < b->at_lo) {
		*out = b->lo;
		return true;
	}
	k -= b->at_lo;
	if (k < b->nr) {
		select_kth(b->in, 0, b->nr, k);
		*out = b->in[k];
		return true;
	}
	k -= b->nr;
	*out = b->hi;
	return k < b->at_hi;
}

static inline void count_in(struct bracket *b, int64_t x)
{
	b->below += x < b->lo;
	b->at_lo += x == b->lo;
	b->at_hi += x == b->hi;
	b->in[b->nr] = x; /* kept when strictly between (no branch: in has room) */
	b->nr += (uint64_t)x - (uint64_t)b->lo - 1 < b->gap;
}

/*
 * One pass over v, filling the three brackets (copies of them, which the
 * compiler keeps in registers); false when one would outgrow cap.
 */
static bool fill_brackets(const int64_t *v, size_t n, struct bracket *b, size_t cap)
{
	struct bracket b0 = b[0], b1 = b[1], b2 = b[2];

	_Static_assert(NR_Q == 3, "one bracket per quantile");
	for (size_t i = 0; i < n; i++) {
		count_in(&b0, v[i]);
		count_in(&b1, v[i]);
		count_in(&b2, v[i]);
		if (i % CHECK_EVERY == 0 && (b0.nr > cap - CHECK_EVERY || b1.nr > cap - CHECK_EVERY ||
					     b2.nr > cap - CHECK_EVERY))
			return false;
	}
	b[0] = b0;
	b[1] = b1;
	b[2] = b2;
	for (int q = 0; q < NR_Q; q++)
		if (b[q].hi == b[q].lo) /* counted twice: as lo, and as hi */
			b[q].at_hi = 0;
	return true;
}

static bool sampled_percentiles(const int64_t *v, size_t n, double *out)
{
	int64_t sample[SAMPLE], *space;
	struct bracket b[NR_Q];
	uint64_t rng = 0x9e3779b97f4a7c15ull ^ (uint64_t)n;
	size_t cap = n / 16 + 2 * CHECK_EVERY; /* a bracket holds about n / 20 */
	bool ok;

	for (size_t j = 0; j < SAMPLE; j++) {
		rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17; /* xorshift64 */
		sample[j] = v[rng % n];
	}
	qsort(sample, SAMPLE, sizeof(*sample), cmp_i64);
	space = malloc(NR_Q * cap * sizeof(*space));
	if (!space)
		return false;
	for (int q = 0; q < NR_Q; q++) {
		size_t at = (size_t)(quantiles[q] * SAMPLE);

		b[q] = (struct bracket){ .lo = at < MARGIN ? INT64_MIN : sample[at - MARGIN],
					 .hi = at + MARGIN >= SAMPLE ? INT64_MAX : sample[at + MARGIN],
					 .in = space + q * cap };
		b[q].gap = b[q].hi > b[q].lo ? (uint64_t)b[q].hi - (uint64_t)b[q].lo - 1 : 0;
	}
	ok = fill_brackets(v, n, b, cap);
	for (int q = 0; q < NR_Q && ok; q++) {
		size_t i;
		double t = rank_of(n, quantiles[q], &i);
		int64_t at = 0, next = 0;

		ok = bracket_kth(&b[q], i, &at) &&
		     (t == 0 || i + 1 >= n || bracket_kth(&b[q], i + 1, &next));
		out[q] = t == 0 || i + 1 >= n ? (double)at : lerp(at, next, t);
	}
	free(space);
	return ok;
}

void osc_stats_compute(int64_t *v, size_t n, struct osc_stats *out)
{
	double sq = 0, p[NR_Q];
	size_t from = 0;

	osc_stats_sums(v, n, out);
	if (n <= 1) { /* one value is every percentile (a level of distinct names: most rows) */
		out->p50 = out->p90 = out->p99 = out->mean;
		return;
	}
	for (size_t i = 0; i < n; i++) {
		double d = (double)v[i] - out->mean;

		sq += d * d;
	}
	out->stddev = sqrt(sq / (double)(n - 1));
	if (n >= SAMPLED_MIN && sampled_percentiles(v, n, p)) {
		out->p50 = p[0];
		out->p90 = p[1];
		out->p99 = p[2];
		return;
	}
	out->p50 = percentile(v, n, 0.50, &from);
	out->p90 = percentile(v, n, 0.90, &from);
	out->p99 = percentile(v, n, 0.99, &from);
}
