/* test_stats.c - durations' statistics: percentiles of long and short rows against a sort. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>

#include "../../src/core/base/stats.h"

static int by_value(const void *pa, const void *pb)
{
	int64_t a = *(const int64_t *)pa, b = *(const int64_t *)pb;

	return (a > b) - (a < b);
}

static uint64_t next_random(uint64_t *s)
{
	*s ^= *s << 13, *s ^= *s >> 7, *s ^= *s << 17;
	return *s;
}

/* Value i of n of distribution d (seeded by s). */
static int64_t value(int d, size_t i, size_t n, uint64_t *s)
{
	uint64_t r = next_random(s);

	switch (d) {
	case 0: /* uniform */
		return (int64_t)(r % 1000000);
	case 1: /* ten distinct values */
		return (int64_t)(r % 10);
	case 2: /* all equal */
		return 42;
	case 3: /* ascending, then descending */
		return (int64_t)i;
	case 4:
		return (int64_t)(n - i);
	case 5: /* a heavy tail: 1 % of huge values */
		return r % 100 ? (int64_t)(r % 5000) : (int64_t)(r >> 3);
	case 6: /* the int64 extremes, negatives and zero */
		return r % 3 == 0 ? INT64_MIN : r % 3 == 1 ? INT64_MAX : -(int64_t)(r % 1000);
	default: /* half the row one value: the median's bracket overflows */
		return r % 2 ? 777 : (int64_t)(r % 100000);
	}
}

/*
 * Fill v and sorted with row d of n values (sorted then put in order), compute
 * v's statistics into *s and expect the sorted row's percentiles, to the bit.
 */
static void expect_sorted_percentiles(int64_t *v, int64_t *sorted, size_t n, int d,
				      uint64_t *seed, struct osc_stats *s)
{
	for (size_t i = 0; i < n; i++)
		v[i] = sorted[i] = value(d, i, n, seed);
	qsort(sorted, n, sizeof(*sorted), by_value);
	osc_stats_compute(v, n, s);
	cr_expect_eq(s->p50, osc_stats_percentile_sorted(sorted, n, 0.50), "n %zu d %d", n, d);
	cr_expect_eq(s->p90, osc_stats_percentile_sorted(sorted, n, 0.90), "n %zu d %d", n, d);
	cr_expect_eq(s->p99, osc_stats_percentile_sorted(sorted, n, 0.99), "n %zu d %d", n, d);
}

/*
 * The percentiles of rows long enough to be found by their sample's
 * brackets are those of the sorted row, to the bit, whatever the values.
 */
Test(stats, long_rows_percentiles_match_a_sort)
{
	static const size_t sizes[] = { 65536, 100003, 400000 };
	uint64_t seed = 0x1234567;

	for (size_t z = 0; z < sizeof(sizes) / sizeof(sizes[0]); z++) {
		size_t n = sizes[z];
		int64_t *v = malloc(n * sizeof(*v)), *sorted = malloc(n * sizeof(*v));

		for (int d = 0; d < 8; d++) {
			struct osc_stats s;

			expect_sorted_percentiles(v, sorted, n, d, &seed, &s);
			cr_expect_eq(s.min, sorted[0]);
			cr_expect_eq(s.max, sorted[n - 1]);
		}
		free(v);
		free(sorted);
	}
}

/*
 * Short rows (the selection path, and a row of one value: every
 * percentile is it) give the sorted row's percentiles and sample standard
 * deviation; an empty row is all zero.
 */
Test(stats, short_rows_match_a_sort)
{
	uint64_t seed = 0x7654321;
	struct osc_stats s;

	osc_stats_compute(NULL, 0, &s);
	cr_expect(s.count == 0 && s.total == 0 && s.p50 == 0 && s.p99 == 0 && s.stddev == 0);
	for (size_t n = 1; n <= 40; n++) {
		for (int d = 0; d < 8; d++) {
			int64_t v[40], sorted[40];
			double mean = 0, sq = 0;

			expect_sorted_percentiles(v, sorted, n, d, &seed, &s);
			for (size_t i = 0; i < n; i++)
				mean += (double)sorted[i] / (double)n;
			for (size_t i = 0; i < n; i++)
				sq += ((double)sorted[i] - mean) * ((double)sorted[i] - mean);
			cr_expect_eq(s.count, n);
			if (n == 1)
				cr_expect(s.stddev == 0 && s.mean == (double)sorted[0], "d %d", d);
			else if (d != 6) /* the extremes' squares overflow a double's sum */
				cr_expect(fabs(s.stddev - sqrt(sq / (double)(n - 1))) <=
						  1e-9 * (1 + sqrt(sq / (double)(n - 1))),
					  "n %zu d %d", n, d);
		}
	}
}
