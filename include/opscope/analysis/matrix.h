/*
 * matrix.h - a row x run matrix: the time of each of the top rows of an
 * aggregate in each selected run, to spot the slow step and the op behind
 * it (the TUI's matrix view, `opscope report --matrix`).
 *
 * Definitions (tests/tools/recompute_matrix.py recomputes them):
 * - rows: the first `top` rows of the aggregate in its order (its sort);
 *   columns: the selected runs in run order (every run without a selection);
 * - measure: at the host levels (op, shape, path) self = the ops' exclusive
 *   host time, or device = the device events each op launched itself
 *   (opcost.h), never the inclusive time, which counts nested ops twice; at
 *   the device levels (kernel, dims, mapping) device = the events' own
 *   durations. A host op's cost counts in its own run, a device event in
 *   its own run: exactly the aggregate's rule, so a row's cells add up to
 *   its self_us or device_us (total_us at the device levels);
 * - cell[i][j] = the measure summed over row i's members in run j;
 * - per row: median over the runs (the mean of the middle two for an even
 *   number), the slowest run (largest cell, the first of equals) and its
 *   excess over the median in percent (NAN when the median is 0);
 * - per run: total = the sum of its cells over the matrix's rows (the top
 *   rows only: self times never overlap, nor do distinct device events);
 *   the median of those totals; vs_median = total - median, in ns and in
 *   percent of the median; the slowest run = the largest total.
 * The levels run, category and module have no matrix: a run row is a run,
 * and category and module rows take their device time from other events.
 */
#ifndef OPSCOPE_MATRIX_H
#define OPSCOPE_MATRIX_H

#include <stddef.h>
#include <stdint.h>

#include "opscope/analysis/aggregate.h"
#include "opscope/analysis/demangle.h"
#include "opscope/base/status.h"

struct osc_column;

/* Rows of a matrix when no top-N is asked for (report --matrix, the TUI's P). */
#define OSC_MATRIX_DEFAULT_TOP 10

struct osc_matrix {
	enum osc_level level;
	enum osc_measure measure; /* OSC_MEASURE_SELF or OSC_MEASURE_DEVICE */
	size_t nr_rows, nr_runs;
	char **label;          /* per row: its key texts (name, shape, dims...) */
	uint32_t *run;         /* per column: the run index */
	int64_t *cell;         /* nr_rows x nr_runs, row-major, ns */
	int64_t *row_total;    /* per row: its cells summed, ns */
	double *row_median;    /* per row: the median of its cells, ns */
	size_t *row_slow;      /* per row: the column of its largest cell */
	int64_t *run_total;    /* per column: its cells summed, ns */
	double median;         /* the median of run_total, ns */
	size_t slow;           /* the column of the largest run_total */
	struct osc_column *cols; /* the table's columns (osc_matrix_columns) */
	char **titles;         /* their run titles */
	size_t nr_cols;
};

/*
 * The measure a matrix of a uses by default: device time when the trace has
 * device events (and always at the device levels), else self time.
 */
enum osc_measure osc_matrix_default_measure(const struct osc_agg *a);

/*
 * The matrix of the first `top` rows shown of a (osc_agg_row_at; 0: all) over the runs selected
 * by sel (NULL: every run) of runs, in measure m, into out (set up here;
 * osc_matrix_release frees it; nothing of a is kept). Labels show kernel
 * names through names (NULL: as they are). OSC_USAGE (subject "--matrix")
 * for a level without a matrix, or self time at a device level; out is then
 * empty.
 */
enum osc_status osc_matrix_build(const struct osc_trace *t, const struct osc_runs *runs,
				 const struct osc_runsel *sel, const struct osc_agg *a,
				 const struct osc_names *names, size_t top, enum osc_measure m,
				 struct osc_matrix *out, struct osc_error *err);

/*
 * The per-row and per-run statistics (medians, totals, slowest) from the
 * cells: osc_matrix_build calls it; a test that fills cells by hand too.
 */
void osc_matrix_finish(struct osc_matrix *m);

void osc_matrix_release(struct osc_matrix *m);

/* 100 * (v - median) / median, NAN when median is 0. */
double osc_matrix_excess_pct(double v, double median);

/*
 * The matrix as a table: a row per matrix row, then "total" (the runs'
 * totals) and "vs_median_pct" (each run's total against the median run,
 * percent); columns name, median_us, slow_run, slow_pct (the slowest run's
 * excess over the median), then run<N>_us per run (N its index, as --runs
 * counts). Rows of the table: nr_rows + 2.
 */
const struct osc_column *osc_matrix_columns(const struct osc_matrix *m, size_t *nr);
const char *osc_matrix_cell(const struct osc_matrix *m, size_t row, size_t col, char *buf,
			    size_t size);

/* Columns of osc_matrix_columns before the runs'. */
enum { OSC_MATRIX_COL_NAME, OSC_MATRIX_COL_MEDIAN, OSC_MATRIX_COL_SLOW_RUN,
       OSC_MATRIX_COL_SLOW_PCT, OSC_MATRIX_COL_RUNS };

/* The column highlighted in table row `row`: its slowest run's (SIZE_MAX: no run). */
size_t osc_matrix_slow_col(const struct osc_matrix *m, size_t row);

#endif
