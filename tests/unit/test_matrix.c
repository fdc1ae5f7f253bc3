/*
 * test_matrix.c - the run x row matrix of matrix.h on a hand-built trace.
 *
 *   run 0 [0, 100)      run 1 [100, 200)     run 2 [200, 300)
 *     a [0, 30)           a [100, 150)         a [200, 230)
 *       b [5, 15)           b [160, 180)         b [240, 250)
 *
 * self time: a 20 | 50 | 30, b 10 | 20 | 10 (a's inclusive time would count
 * b twice). Rows by self time: a (100), b (40). Run totals 30 | 70 | 40,
 * median 40: run 1 is 75 % over it, run 0 25 % under.
 */
#include <criterion/criterion.h>
#include <math.h>

#include "opscope/analysis/aggregate.h"
#include "opscope/analysis/matrix.h"
#include "opscope/export/export.h"
#include "trace_fixture.h"

#define EPS 1e-9

static const struct fx_event steps[] = {
	FX("ProfilerStep#0", RUN, 0, 100),  FX("a", HOST_OP, 0, 30),   FX("b", HOST_OP, 5, 10),
	FX("ProfilerStep#1", RUN, 100, 100), FX("a", HOST_OP, 100, 50), FX("b", HOST_OP, 160, 20),
	FX("ProfilerStep#2", RUN, 200, 100), FX("a", HOST_OP, 200, 30), FX("b", HOST_OP, 240, 10),
};

struct fixture {
	struct osc_trace t;
	struct osc_runs runs;
	struct osc_agg agg;
};

static void setup(struct fixture *f, enum osc_level level)
{
	struct osc_query q = { .level = level };

	fx_build(&f->t, OSC_FORMAT_KINETO, steps, FX_LEN(steps));
	osc_runs_detect(&f->t, &f->runs);
	cr_assert_eq(f->runs.nr, 3);
	osc_aggregate(&f->t, &f->runs, &q, &f->agg);
}

static void teardown(struct fixture *f)
{
	osc_agg_release(&f->agg);
	osc_runs_release(&f->runs);
	osc_trace_release(&f->t);
}

Test(matrix, self_time_per_run)
{
	static const int64_t want[2][3] = { { 20, 50, 30 }, { 10, 20, 10 } };
	struct fixture f;
	struct osc_matrix m;
	struct osc_error err;

	setup(&f, OSC_LEVEL_OP);
	cr_expect_eq(osc_matrix_default_measure(&f.agg), OSC_MEASURE_SELF, "no device events");
	cr_assert_eq(osc_matrix_build(&f.t, &f.runs, NULL, &f.agg, NULL, 0, OSC_MEASURE_SELF, &m,
				      &err), OSC_OK);
	cr_assert_eq(m.nr_rows, 2);
	cr_assert_eq(m.nr_runs, 3);
	cr_expect_str_eq(m.label[0], "a");
	cr_expect_str_eq(m.label[1], "b");
	for (size_t i = 0; i < 2; i++) {
		for (size_t j = 0; j < 3; j++)
			cr_expect_eq(m.cell[i * 3 + j], want[i][j], "cell %zu,%zu", i, j);
		/* the cells add up to the row's self_us */
		cr_expect_eq(m.row_total[i], f.agg.rows[i].self);
	}
	cr_expect_float_eq(m.row_median[0], 30, EPS);
	cr_expect_float_eq(m.row_median[1], 10, EPS);
	cr_expect_eq(m.row_slow[0], 1);
	cr_expect_eq(m.row_slow[1], 1);
	cr_expect_eq(m.run_total[0], 30);
	cr_expect_eq(m.run_total[1], 70);
	cr_expect_eq(m.run_total[2], 40);
	cr_expect_float_eq(m.median, 40, EPS);
	cr_expect_eq(m.slow, 1);
	cr_expect_float_eq(osc_matrix_excess_pct((double)m.run_total[1], m.median), 75, EPS);
	cr_expect_float_eq(osc_matrix_excess_pct((double)m.run_total[0], m.median), -25, EPS);
	osc_matrix_release(&m);
	teardown(&f);
}

/* Only the selected runs are columns; the top cut keeps the first rows. */
Test(matrix, selected_runs_and_top)
{
	struct fixture f;
	struct osc_matrix m;
	struct osc_runsel sel;
	struct osc_error err;

	setup(&f, OSC_LEVEL_OP);
	cr_assert_eq(osc_runsel_parse("[0,2]", f.runs.nr, false, &sel, &err), OSC_OK);
	cr_assert_eq(osc_matrix_build(&f.t, &f.runs, &sel, &f.agg, NULL, 1, OSC_MEASURE_SELF, &m,
				      &err), OSC_OK);
	cr_assert_eq(m.nr_rows, 1);
	cr_assert_eq(m.nr_runs, 2);
	cr_expect_eq(m.run[0], 0);
	cr_expect_eq(m.run[1], 2);
	cr_expect_eq(m.cell[0], 20);
	cr_expect_eq(m.cell[1], 30);
	cr_expect_float_eq(m.median, 25, EPS); /* even: the mean of the middle two */
	cr_expect_eq(m.slow, 1);
	osc_matrix_release(&m);
	osc_runsel_release(&sel);
	teardown(&f);
}

/* The table: the rows, then total and vs_median_pct; run columns named by index. */
Test(matrix, table_cells)
{
	struct fixture f;
	struct osc_matrix m;
	struct osc_error err;
	char buf[64];
	size_t nr;
	const struct osc_column *cols;

	setup(&f, OSC_LEVEL_OP);
	cr_assert_eq(osc_matrix_build(&f.t, &f.runs, NULL, &f.agg, NULL, 0, OSC_MEASURE_SELF, &m,
				      &err), OSC_OK);
	cols = osc_matrix_columns(&m, &nr);
	cr_assert_eq(nr, OSC_MATRIX_COL_RUNS + 3);
	cr_expect_str_eq(cols[OSC_MATRIX_COL_RUNS + 1].title, "run1_us");
	cr_expect_str_eq(osc_matrix_cell(&m, 2, OSC_MATRIX_COL_NAME, buf, sizeof(buf)), "total");
	cr_expect_str_eq(osc_matrix_cell(&m, 3, OSC_MATRIX_COL_NAME, buf, sizeof(buf)),
			 "vs_median_pct");
	cr_expect_str_eq(osc_matrix_cell(&m, 0, OSC_MATRIX_COL_SLOW_RUN, buf, sizeof(buf)), "1");
	cr_expect_str_eq(osc_matrix_cell(&m, 0, OSC_MATRIX_COL_SLOW_PCT, buf, sizeof(buf)),
			 "66.67");
	cr_expect_str_eq(osc_matrix_cell(&m, 2, OSC_MATRIX_COL_RUNS + 1, buf, sizeof(buf)),
			 "0.070");
	cr_expect_str_eq(osc_matrix_cell(&m, 3, OSC_MATRIX_COL_RUNS + 1, buf, sizeof(buf)),
			 "75.00");
	cr_expect_str_eq(osc_matrix_cell(&m, 3, OSC_MATRIX_COL_MEDIAN, buf, sizeof(buf)), "");
	cr_expect_eq(osc_matrix_slow_col(&m, 0), OSC_MATRIX_COL_RUNS + 1);
	cr_expect_eq(osc_matrix_slow_col(&m, 2), OSC_MATRIX_COL_RUNS + 1);
	osc_matrix_release(&m);
	teardown(&f);
}

/* Levels without a matrix, and self time of kernels, are usage errors. */
Test(matrix, refused)
{
	struct fixture f;
	struct osc_matrix m;
	struct osc_error err;

	setup(&f, OSC_LEVEL_RUN);
	cr_expect_eq(osc_matrix_build(&f.t, &f.runs, NULL, &f.agg, NULL, 0, OSC_MEASURE_SELF, &m,
				      &err), OSC_USAGE);
	cr_expect_str_eq(err.subject, "--matrix");
	osc_matrix_release(&m);
	osc_agg_release(&f.agg);
	f.agg.level = OSC_LEVEL_KERNEL;
	cr_expect_eq(osc_matrix_build(&f.t, &f.runs, NULL, &f.agg, NULL, 0, OSC_MEASURE_SELF, &m,
				      &err), OSC_USAGE);
	cr_expect_eq(osc_matrix_build(&f.t, &f.runs, NULL, &f.agg, NULL, 0, OSC_MEASURE_HOST, &m,
				      &err), OSC_USAGE);
	osc_matrix_release(&m);
	teardown(&f);
}

/* The statistics from cells filled by hand: a zero median leaves the excess undefined. */
Test(matrix, finish_by_hand)
{
	int64_t cells[] = { 0, 0, 5, 0 };
	struct osc_matrix m = { .nr_rows = 1, .nr_runs = 4, .cell = cells };

	osc_matrix_finish(&m);
	cr_expect_float_eq(m.row_median[0], 0, EPS);
	cr_expect_eq(m.row_slow[0], 2);
	cr_expect(isnan(osc_matrix_excess_pct(5, m.row_median[0])));
	cr_expect_eq(m.slow, 2);
	m.cell = NULL;
	osc_matrix_release(&m);
}
