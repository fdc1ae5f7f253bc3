/*
 * matrix.c - the row x run matrix of the top rows of an aggregate (matrix.h
 * has the definitions).
 *
 * Limits: the cells are nr_rows x nr_runs int64 (a few rows, thousands of
 * runs at most in practice); sums saturate at INT64_MAX.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opscope/analysis/columns.h"
#include "opscope/analysis/matrix.h"
#include "opscope/analysis/opcost.h"
#include "opscope/analysis/trace_cache.h"
#include "opscope/base/alloc.h"
#include "opscope/base/sat.h"

enum osc_measure osc_matrix_default_measure(const struct osc_agg *a)
{
	return a->has_device || osc_level_is_device(a->level) ? OSC_MEASURE_DEVICE
							     : OSC_MEASURE_SELF;
}

double osc_matrix_excess_pct(double v, double median)
{
	return median != 0 ? 100.0 * (v - median) / median : NAN;
}

static int cmp_i64(const void *pa, const void *pb)
{
	int64_t a = *(const int64_t *)pa, b = *(const int64_t *)pb;

	return (a > b) - (a < b);
}

/* The median of v[0..n) (reordered), 0 for none. */
static double median_of(int64_t *v, size_t n)
{
	if (!n)
		return 0;
	qsort(v, n, sizeof(*v), cmp_i64);
	return n % 2 ? (double)v[n / 2] : ((double)v[n / 2 - 1] + (double)v[n / 2]) / 2.0;
}

/* The index of the largest of v[0..n) (the first of equals), 0 for none. */
static size_t argmax(const int64_t *v, size_t n, size_t stride)
{
	size_t best = 0;

	for (size_t i = 1; i < n; i++)
		if (v[i * stride] > v[best * stride])
			best = i;
	return best;
}

void osc_matrix_finish(struct osc_matrix *m)
{
	size_t nr = m->nr_rows, nc = m->nr_runs;
	int64_t *tmp = osc_xmalloc((nc ? nc : 1) * sizeof(*tmp));

	free(m->row_total);
	free(m->row_median);
	free(m->row_slow);
	free(m->run_total);
	m->row_total = osc_xcalloc(nr ? nr : 1, sizeof(*m->row_total));
	m->row_median = osc_xcalloc(nr ? nr : 1, sizeof(*m->row_median));
	m->row_slow = osc_xcalloc(nr ? nr : 1, sizeof(*m->row_slow));
	m->run_total = osc_xcalloc(nc ? nc : 1, sizeof(*m->run_total));
	for (size_t i = 0; i < nr; i++) {
		const int64_t *row = &m->cell[i * nc];

		for (size_t j = 0; j < nc; j++) {
			m->row_total[i] = osc_sat_add(m->row_total[i], row[j]);
			m->run_total[j] = osc_sat_add(m->run_total[j], row[j]);
		}
		memcpy(tmp, row, nc * sizeof(*tmp));
		m->row_median[i] = median_of(tmp, nc);
		m->row_slow[i] = argmax(row, nc, 1);
	}
	memcpy(tmp, m->run_total, nc * sizeof(*tmp));
	m->median = median_of(tmp, nc);
	m->slow = argmax(m->run_total, nc, 1);
	free(tmp);
}

/* The row's key texts as its table shows them, joined by spaces. */
static char *row_label(const struct osc_trace *t, const struct osc_agg *a,
		       const struct osc_names *names, size_t r)
{
	size_t nr, len = 0;
	const struct osc_column *cols = osc_agg_columns(a, &nr);
	char *out = osc_xstrdup(""), buf[256];

	for (size_t c = 0; c < nr; c++) {
		enum osc_stat s = cols[c].stat;
		const char *text;
		char *next;

		if (s != OSC_STAT_NAME && s != OSC_STAT_SHAPE && s != OSC_STAT_OP &&
		    s != OSC_STAT_DIMS)
			continue;
		text = osc_agg_cell_names(t, a, names, r, c, buf, sizeof(buf));
		if (!text[0])
			continue;
		next = osc_xasprintf("%s%s%s", out, len ? " " : "", text);
		free(out);
		out = next;
		len = strlen(out);
	}
	return out;
}

/* The columns: the fixed ones, then run<N>_us per run. */
static void make_columns(struct osc_matrix *m)
{
	static const struct osc_column fixed[OSC_MATRIX_COL_RUNS] = {
		[OSC_MATRIX_COL_NAME] = { "name", 16, OSC_ALIGN_LEFT, false, OSC_STAT_NAME },
		[OSC_MATRIX_COL_MEDIAN] = { "median_us", 8, OSC_ALIGN_RIGHT, true, OSC_STAT_P50 },
		[OSC_MATRIX_COL_SLOW_RUN] = { "slow_run", 3, OSC_ALIGN_RIGHT, true,
					      OSC_STAT_COUNT },
		[OSC_MATRIX_COL_SLOW_PCT] = { "slow_pct", 6, OSC_ALIGN_RIGHT, true,
					      OSC_STAT_COUNT },
	};

	m->nr_cols = OSC_MATRIX_COL_RUNS + m->nr_runs;
	m->cols = osc_xcalloc(m->nr_cols, sizeof(*m->cols));
	m->titles = osc_xcalloc(m->nr_runs ? m->nr_runs : 1, sizeof(*m->titles));
	memcpy(m->cols, fixed, sizeof(fixed));
	for (size_t j = 0; j < m->nr_runs; j++) {
		m->titles[j] = osc_xasprintf("run%u_us", m->run[j]);
		m->cols[OSC_MATRIX_COL_RUNS + j] = (struct osc_column){
			m->titles[j], 6, OSC_ALIGN_RIGHT, true, OSC_STAT_TOTAL_PER_RUN };
	}
}

enum osc_status osc_matrix_build(const struct osc_trace *t, const struct osc_runs *runs,
				 const struct osc_runsel *sel, const struct osc_agg *a,
				 const struct osc_names *names, size_t top, enum osc_measure m,
				 struct osc_matrix *out, struct osc_error *err)
{
	bool device = osc_level_is_device(a->level);
	const struct osc_calltree *tree = device ? NULL : osc_trace_host_tree(t);
	const struct osc_op_cost *cost = device ? NULL : osc_trace_op_costs(t);
	size_t *col_of;

	memset(out, 0, sizeof(*out));
	if (a->level == OSC_LEVEL_RUN || a->level == OSC_LEVEL_CATEGORY ||
	    a->level == OSC_LEVEL_MODULE)
		return osc_error_set(err, OSC_USAGE, "--matrix", OSC_NO_OFFSET, NULL,
				     "no matrix at the %s level (op, shape, kernel, dims, "
				     "mapping or path)", osc_level_name(a->level));
	if (m != OSC_MEASURE_SELF && m != OSC_MEASURE_DEVICE)
		return osc_error_set(err, OSC_USAGE, "--matrix", OSC_NO_OFFSET, NULL,
				     "a matrix adds self or device time");
	if (device && m == OSC_MEASURE_SELF)
		return osc_error_set(err, OSC_USAGE, "--matrix", OSC_NO_OFFSET, NULL,
				     "a %s has no self time: its matrix is device time",
				     osc_level_name(a->level));
	out->level = a->level;
	out->measure = m;
	out->nr_rows = top && top < a->nr ? top : a->nr;
	col_of = osc_xmalloc((runs->nr ? runs->nr : 1) * sizeof(*col_of));
	out->run = osc_xmalloc((runs->nr ? runs->nr : 1) * sizeof(*out->run));
	for (size_t r = 0; r < runs->nr; r++) {
		col_of[r] = SIZE_MAX;
		if (!sel || (r < sel->nr_runs && sel->on[r])) {
			col_of[r] = out->nr_runs;
			out->run[out->nr_runs++] = (uint32_t)r;
		}
	}
	out->cell = osc_xcalloc(out->nr_rows * out->nr_runs + 1, sizeof(*out->cell));
	out->label = osc_xcalloc(out->nr_rows ? out->nr_rows : 1, sizeof(*out->label));
	for (size_t i = 0; i < out->nr_rows; i++) {
		const struct osc_agg_row *row = osc_agg_row_at(a, i);
		int64_t *cells = &out->cell[i * out->nr_runs];

		out->label[i] = row_label(t, a, names, i);
		for (size_t k = 0; k < row->nr; k++) {
			uint32_t ev = a->members[row->first + k], run = runs->run_of[ev];
			int64_t v;

			if (run == OSC_NONE || run >= runs->nr || col_of[run] == SIZE_MAX)
				continue;
			if (device) {
				v = t->events[ev].dur;
			} else {
				uint32_t n = tree->node_of[ev];

				v = n == OSC_NONE ? 0 : m == OSC_MEASURE_SELF ? cost[n].self
									      : cost[n].dev;
			}
			cells[col_of[run]] = osc_sat_add(cells[col_of[run]], v);
		}
	}
	free(col_of);
	osc_matrix_finish(out);
	make_columns(out);
	return OSC_OK;
}

void osc_matrix_release(struct osc_matrix *m)
{
	for (size_t i = 0; m->label && i < m->nr_rows; i++)
		free(m->label[i]);
	for (size_t j = 0; m->titles && j < m->nr_runs; j++)
		free(m->titles[j]);
	free(m->label);
	free(m->titles);
	free(m->cols);
	free(m->run);
	free(m->cell);
	free(m->row_total);
	free(m->row_median);
	free(m->row_slow);
	free(m->run_total);
	memset(m, 0, sizeof(*m));
}

const struct osc_column *osc_matrix_columns(const struct osc_matrix *m, size_t *nr)
{
	*nr = m->nr_cols;
	return m->cols;
}

size_t osc_matrix_slow_col(const struct osc_matrix *m, size_t row)
{
	if (!m->nr_runs)
		return SIZE_MAX;
	return OSC_MATRIX_COL_RUNS + (row < m->nr_rows ? m->row_slow[row] : m->slow);
}

/* A percentage cell: empty when undefined (CSV empty, JSON null). */
static void pct_cell(double pct, char *buf, size_t size)
{
	if (isfinite(pct))
		osc_format_pct(pct, buf, size);
	else
		buf[0] = '\0';
}

const char *osc_matrix_cell(const struct osc_matrix *m, size_t row, size_t col, char *buf,
			    size_t size)
{
	bool total = row == m->nr_rows, delta = row == m->nr_rows + 1;
	double median = row < m->nr_rows ? m->row_median[row] : m->median;
	size_t slow = row < m->nr_rows ? m->row_slow[row] : m->slow;
	size_t j;

	buf[0] = '\0';
	switch (col) {
	case OSC_MATRIX_COL_NAME:
		return total ? "total" : delta ? "vs_median_pct" : m->label[row];
	case OSC_MATRIX_COL_MEDIAN:
		if (!delta)
			osc_format_us(median, buf, size);
		break;
	case OSC_MATRIX_COL_SLOW_RUN:
		if (m->nr_runs)
			snprintf(buf, size, "%u", m->run[slow]);
		break;
	case OSC_MATRIX_COL_SLOW_PCT:
		if (!m->nr_runs)
			break;
		pct_cell(osc_matrix_excess_pct(row < m->nr_rows
			 ? (double)m->cell[row * m->nr_runs + slow] : (double)m->run_total[slow],
			 median), buf, size);
		break;
	default:
		j = col - OSC_MATRIX_COL_RUNS;
		if (delta)
			pct_cell(osc_matrix_excess_pct((double)m->run_total[j], m->median), buf,
				 size);
		else
			osc_format_us_int(total ? m->run_total[j] : m->cell[row * m->nr_runs + j],
					  buf, size);
		break;
	}
	return buf;
}
