/*
 * test_histogram.c - the bins of histogram.h, worked by hand.
 *
 * Each case lists the values, the expected edges (ns) and counts; the
 * comment above it works the rule out.
 */
#include <criterion/criterion.h>
#include <math.h>

#include "opscope/analysis/columns.h"
#include "opscope/analysis/histogram.h"

#define EPS 1e-9
#define LEN(a) (sizeof(a) / sizeof((a)[0]))

struct want_bin {
	int64_t lo, hi;
	uint64_t count;
};

static void expect_bins(const struct osc_hist *h, const struct want_bin *want, size_t n)
{
	uint64_t sum = 0;

	cr_assert_eq(h->nr, n, "bins: %zu, want %zu", h->nr, n);
	for (size_t i = 0; i < n; i++) {
		cr_expect_eq(h->bins[i].lo, want[i].lo, "bin %zu lo %lld, want %lld", i,
			     (long long)h->bins[i].lo, (long long)want[i].lo);
		cr_expect_eq(h->bins[i].hi, want[i].hi, "bin %zu hi %lld, want %lld", i,
			     (long long)h->bins[i].hi, (long long)want[i].hi);
		cr_expect_eq(h->bins[i].count, want[i].count, "bin %zu count %llu, want %llu", i,
			     (unsigned long long)h->bins[i].count,
			     (unsigned long long)want[i].count);
		sum += h->bins[i].count;
		if (i)
			cr_expect_eq(h->bins[i].lo, h->bins[i - 1].hi, "bins %zu and %zu touch", i - 1,
				     i);
	}
	cr_expect_eq(sum, h->count, "every value in one bin");
}

/*
 * 1, 2, 3, 4 us: max/min = 4, linear. p25 = 1750, p75 = 3250 (ranks 0.75 and
 * 2.25), IQR 1500; FD width 2 * 1500 / cbrt(4) = 1889.9 (more than
 * 3000 / 16): nice 2000. lo = floor(1000 / 2000) * 2000 = 0; max 4000 is in
 * bin floor(4000 / 2000) = 2: [0,2000) [2000,4000) [4000,6000].
 */
Test(histogram, fd_width_rounded_to_nice)
{
	static const int64_t v[] = { 3000, 1000, 4000, 2000 };
	static const struct want_bin want[] = { { 0, 2000, 1 }, { 2000, 4000, 2 },
						{ 4000, 6000, 1 } };
	struct osc_hist h;

	osc_hist_build(v, LEN(v), OSC_HIST_DEFAULT_BINS, OSC_HIST_AUTO, &h);
	cr_expect(!h.log);
	cr_expect_eq(h.width, 2000);
	expect_bins(&h, want, LEN(want));
	cr_expect_eq(h.count, 4);
	cr_expect_eq(h.min, 1000);
	cr_expect_eq(h.max, 4000);
	cr_expect_float_eq(h.mean, 2500, EPS);
	cr_expect_float_eq(h.p25, 1750, EPS);
	cr_expect_float_eq(h.p50, 2500, EPS); /* rank 1.5 */
	cr_expect_float_eq(h.p75, 3250, EPS);
	cr_expect_float_eq(h.p90, 3700, EPS); /* rank 2.7 */
	cr_expect_float_eq(h.p99, 3970, EPS); /* rank 2.97 */
	cr_expect_eq(h.max_count, 2);
	cr_expect_eq(h.mode, 1);
	osc_hist_release(&h);
}

/*
 * 0, 100 x 50, 100 ns: IQR 0, so (100 - 0) / ceil(sqrt(102)) = 9.09, at
 * least 100 / 10 = 10: nice 10, which needs bins 0 .. 10 (11 > 10): the
 * width steps to 20, bins 0 .. 5.
 */
Test(histogram, width_steps_up_to_fit_max_bins)
{
	int64_t v[102];
	static const struct want_bin want[] = { { 0, 20, 1 },  { 20, 40, 0 },  { 40, 60, 100 },
						{ 60, 80, 0 }, { 80, 100, 0 }, { 100, 120, 1 } };
	struct osc_hist h;

	v[0] = 0;
	v[1] = 100;
	for (size_t i = 2; i < LEN(v); i++)
		v[i] = 50;
	osc_hist_build(v, LEN(v), 10, OSC_HIST_AUTO, &h);
	cr_expect(!h.log, "min 0: never log by itself");
	cr_expect_eq(h.width, 20);
	expect_bins(&h, want, LEN(want));
	cr_expect_eq(h.mode, 2);
	osc_hist_release(&h);
}

/*
 * 10, 100, 1000, 10000 ns: max = 1000 * min, log. 1-2-5 edges from 10 (the
 * largest <= 10) to 20000 (the smallest > 10000): 10 bins.
 */
Test(histogram, log_scale_on_the_1_2_5_series)
{
	static const int64_t v[] = { 10, 100, 1000, 10000 };
	static const struct want_bin want[] = {
		{ 10, 20, 1 },     { 20, 50, 0 },     { 50, 100, 0 },     { 100, 200, 1 },
		{ 200, 500, 0 },   { 500, 1000, 0 },  { 1000, 2000, 1 },  { 2000, 5000, 0 },
		{ 5000, 10000, 0 }, { 10000, 20000, 1 },
	};
	struct osc_hist h;

	osc_hist_build(v, LEN(v), OSC_HIST_DEFAULT_BINS, OSC_HIST_AUTO, &h);
	cr_expect(h.log);
	cr_expect_eq(h.width, 0);
	expect_bins(&h, want, LEN(want));
	osc_hist_release(&h);
}

/* The same values in at most 4 bins: the 1-2-5 series needs 10, the decades 4. */
Test(histogram, log_scale_falls_back_to_decades)
{
	static const int64_t v[] = { 10, 100, 1000, 10000 };
	static const struct want_bin want[] = { { 10, 100, 1 }, { 100, 1000, 1 },
						{ 1000, 10000, 1 }, { 10000, 100000, 1 } };
	struct osc_hist h;

	osc_hist_build(v, LEN(v), 4, OSC_HIST_LOG, &h);
	expect_bins(&h, want, LEN(want));
	osc_hist_release(&h);
}

/*
 * In 2 bins: every 2nd decade (1, 100, 10^4, 10^6) still needs 3 bins, every
 * 3rd (1, 1000, 10^6) fits: [1, 1000) [1000, 10^6].
 */
Test(histogram, log_scale_every_other_decade)
{
	static const int64_t v[] = { 10, 100, 1000, 10000 };
	static const struct want_bin want[] = { { 1, 1000, 2 }, { 1000, 1000000, 2 } };
	struct osc_hist h;

	osc_hist_build(v, LEN(v), 2, OSC_HIST_LOG, &h);
	expect_bins(&h, want, LEN(want));
	osc_hist_release(&h);
}

/*
 * Log asked for with a zero duration: edges from 1 (min is under 1 ns) to
 * 100 (the smallest > 50): 1 2 5 10 20 50 100; the zero falls in the first
 * bin, whose lower edge becomes 0.
 */
Test(histogram, log_scale_with_a_zero)
{
	static const int64_t v[] = { 50, 0, 5 };
	static const struct want_bin want[] = { { 0, 2, 1 },   { 2, 5, 0 },   { 5, 10, 1 },
						{ 10, 20, 0 }, { 20, 50, 0 }, { 50, 100, 1 } };
	struct osc_hist h;

	osc_hist_build(v, LEN(v), OSC_HIST_DEFAULT_BINS, OSC_HIST_LOG, &h);
	cr_expect(h.log);
	expect_bins(&h, want, LEN(want));
	osc_hist_release(&h);
}

/* Linear asked for on values that auto would put on a log scale. */
Test(histogram, linear_when_asked)
{
	static const int64_t v[] = { 10, 100, 1000, 10000 };
	struct osc_hist h;

	osc_hist_build(v, LEN(v), OSC_HIST_DEFAULT_BINS, OSC_HIST_LINEAR, &h);
	cr_expect(!h.log);
	/* IQR 3250 - 77.5 = 3172.5 (ranks 0.75, 2.25); FD 3997.1 (> 9990 / 16): nice 5000 */
	cr_expect_eq(h.width, 5000);
	cr_assert_eq(h.nr, 3);
	cr_expect_eq(h.bins[0].count, 3);
	cr_expect_eq(h.bins[2].count, 1);
	osc_hist_release(&h);
}

/* Equal values: one closed bin [v, v]; one bin asked for: [min, max]; none: none. */
Test(histogram, degenerate_cases)
{
	static const int64_t same[] = { 5, 5, 5 }, two[] = { 3, 900 };
	static const struct want_bin want_same[] = { { 5, 5, 3 } }, want_one[] = { { 3, 900, 2 } };
	struct osc_hist h;

	osc_hist_build(same, LEN(same), OSC_HIST_DEFAULT_BINS, OSC_HIST_AUTO, &h);
	expect_bins(&h, want_same, 1);
	cr_expect_float_eq(h.p99, 5, EPS);
	osc_hist_release(&h);
	osc_hist_build(two, LEN(two), 1, OSC_HIST_AUTO, &h);
	expect_bins(&h, want_one, 1);
	osc_hist_release(&h);
	osc_hist_build(two, 0, OSC_HIST_DEFAULT_BINS, OSC_HIST_AUTO, &h);
	cr_expect_eq(h.nr, 0);
	cr_expect_eq(h.count, 0);
	osc_hist_release(&h);
}

/* Huge values: edges saturate, nothing overflows (UBSan), every value is counted. */
Test(histogram, huge_values)
{
	static const int64_t v[] = { 0, INT64_MAX / 3, INT64_MAX - 1, INT64_MAX };
	struct osc_hist h;
	uint64_t sum = 0;

	for (int s = 0; s < OSC_HIST_SCALE_NR; s++) {
		osc_hist_build(v, LEN(v), OSC_HIST_MAX_BINS, (enum osc_hist_scale)s, &h);
		cr_assert(h.nr >= 1);
		sum = 0;
		for (size_t i = 0; i < h.nr; i++)
			sum += h.bins[i].count;
		cr_expect_eq(sum, 4, "scale %d", s);
		cr_expect(h.bins[h.nr - 1].hi >= h.max);
		osc_hist_release(&h);
	}
}

/* The table: edges in us, percentages of the values, cumulative. */
Test(histogram, table_cells)
{
	static const int64_t v[] = { 3000, 1000, 4000, 2000 };
	struct osc_hist h;
	char buf[64];
	size_t nr;
	const struct osc_column *cols = osc_hist_columns(&nr);

	cr_assert_eq(nr, OSC_HIST_COL_NR);
	cr_expect_str_eq(cols[OSC_HIST_COL_LO].title, "lo_us");
	osc_hist_build(v, LEN(v), OSC_HIST_DEFAULT_BINS, OSC_HIST_AUTO, &h);
	cr_expect_str_eq(osc_hist_cell(&h, 1, OSC_HIST_COL_LO, buf, sizeof(buf)), "2.000");
	cr_expect_str_eq(osc_hist_cell(&h, 1, OSC_HIST_COL_HI, buf, sizeof(buf)), "4.000");
	cr_expect_str_eq(osc_hist_cell(&h, 1, OSC_HIST_COL_COUNT, buf, sizeof(buf)), "2");
	cr_expect_str_eq(osc_hist_cell(&h, 1, OSC_HIST_COL_PCT, buf, sizeof(buf)), "50.00");
	cr_expect_str_eq(osc_hist_cell(&h, 1, OSC_HIST_COL_CUM_PCT, buf, sizeof(buf)), "75.00");
	osc_hist_release(&h);
}

Test(histogram, scale_names)
{
	enum osc_hist_scale s;
	struct osc_error err;

	cr_expect_eq(osc_hist_scale_parse("log", &s, &err), OSC_OK);
	cr_expect_eq(s, OSC_HIST_LOG);
	cr_expect_str_eq(osc_hist_scale_name(OSC_HIST_LINEAR), "linear");
	cr_expect_eq(osc_hist_scale_parse("lin", &s, &err), OSC_USAGE);
}
