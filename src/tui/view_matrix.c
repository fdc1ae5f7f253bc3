/*
 * view_matrix.c - the per-run matrix of a level's top rows (P from a table
 * view): a line per row with its median over the runs, its slowest run and
 * that run's excess over the median, then its time in each selected run;
 * then the runs' totals and each run against the median run. The slowest
 * cell of each line is highlighted. Rows and order are the table's (its
 * sort and top-N, else the first OSC_MATRIX_DEFAULT_TOP; t here asks for
 * another number of rows); the measure is
 * self time when the table is sorted by self time, else matrix.h's default
 * (device time on a GPU trace, else self time). x writes the CSV of
 * `opscope report --matrix` with the same options.
 */
#include <stdlib.h>
#include <string.h>

#include "opscope/analysis/columns.h"
#include "opscope/analysis/matrix.h"
#include "opscope/analysis/roofline.h"
#include "opscope/analysis/trace_cache.h"
#include "opscope/base/alloc.h"
#include "cli_line.h"
#include "view.h"

struct matrix_view {
	struct osc_matrix_arg arg;
	struct osc_matrix m;
	size_t total_rows;  /* rows of the level before the cut */
	char error[600];    /* why there is no matrix, or "" */
	struct osc_peak peak; /* the roofline columns' peaks, as the table's */
	bool device;        /* the trace has device events (the default measure) */
};

static void matrix_open(struct osc_tui *t, struct osc_view *v, const void *arg)
{
	struct matrix_view *mv = osc_xcalloc(1, sizeof(*mv));

	mv->arg = *(const struct osc_matrix_arg *)arg;
	osc_peak_for_trace(t->trace.meta_json, t->args->peak_tflops, t->args->peak_tbs, &mv->peak);
	v->priv = mv;
}

static void matrix_close(struct osc_view *v)
{
	struct matrix_view *mv = v->priv;

	osc_matrix_release(&mv->m);
	free(mv);
}

/*
 * The measure: self time when the table is sorted by a self-time column (its
 * rows are the top of it), else matrix.h's default.
 */
static enum osc_measure matrix_measure(const struct matrix_view *mv, const struct osc_agg *a)
{
	enum osc_stat s = mv->arg.sort;
	enum osc_measure m;
	enum osc_dist_stat d;

	if (!osc_level_is_device(mv->arg.level) &&
	    (s == OSC_STAT_SELF || s == OSC_STAT_SELF_PCT || s == OSC_STAT_SELF_CUM_PCT ||
	     s == OSC_STAT_SELF_PER_RUN || (osc_stat_is_dist(s, &m, &d) && m == OSC_MEASURE_SELF)))
		return OSC_MEASURE_SELF;
	return osc_matrix_default_measure(a);
}

static size_t matrix_top(const struct matrix_view *mv)
{
	return mv->arg.top ? mv->arg.top : OSC_MATRIX_DEFAULT_TOP;
}

static void matrix_build(struct osc_tui *t, struct osc_view *v)
{
	struct matrix_view *mv = v->priv;
	enum osc_stat s = mv->arg.sort;
	struct osc_query q = {
		.level = mv->arg.level,
		.runs = &t->sel,
		.filter = osc_filter_is_empty(&t->filter) ? NULL : &t->filter,
		.categories = t->args->categories,
		/* what the table's sort column needs, so that the order is the table's */
		.dists = osc_stats_dists(s),
		.category = s == OSC_STAT_CATEGORY,
		.module = s == OSC_STAT_MODULE,
		.roofline = mv->arg.level == OSC_LEVEL_SHAPE || osc_stat_is_roofline(s),
		.peak = &mv->peak,
		.in_place = true,
		.names = &t->names,
	};
	struct osc_agg agg = { 0 };
	const struct osc_agg *rows = mv->arg.rows;
	struct osc_error err;

	osc_matrix_release(&mv->m);
	mv->device = osc_trace_has_device(&t->trace);
	mv->error[0] = '\0';
	mv->arg.rows = NULL; /* the table's rows: valid while the matrix opens only */
	if (!rows || !osc_agg_ordered_by(rows, s, mv->arg.desc)) {
		osc_aggregate(&t->trace, &t->runs, &q, &agg);
		osc_agg_order(&agg, &t->trace, s, mv->arg.desc);
		rows = &agg;
	}
	mv->total_rows = rows->nr;
	if (osc_matrix_build(&t->trace, &t->runs, &t->sel, rows, &t->names, matrix_top(mv),
			     matrix_measure(mv, rows), &mv->m, &err) != OSC_OK)
		snprintf(mv->error, sizeof(mv->error), "(%s)", err.message);
	osc_agg_release(&agg);
}

static const char *matrix_cell(const void *ctx, size_t row, size_t col, char *buf, size_t size)
{
	return osc_matrix_cell(ctx, row, col, buf, size);
}

static void matrix_table(struct osc_tui *t, struct osc_view *v, struct osc_table *out)
{
	struct matrix_view *mv = v->priv;
	static const struct osc_column none[1] = { { "name", 16, OSC_ALIGN_LEFT, false,
						     OSC_STAT_NAME } };

	/*
	 * t (top-N) asks for that many rows of the level: the matrix is built
	 * again with them, and its total lines stay (a cut of the table would
	 * drop them and leave totals of rows no longer shown).
	 */
	if (v->topn) {
		mv->arg.top = v->topn;
		v->topn = 0;
		matrix_build(t, v);
		v->rev++; /* the pane follows */
	}
	*out = (struct osc_table){
		.cols = mv->m.cols ? mv->m.cols : none,
		.nr_cols = mv->m.cols ? mv->m.nr_cols : 1,
		.nr_rows = mv->m.cols ? mv->m.nr_rows + 2 : 0,
		.cell = matrix_cell,
		.ctx = &mv->m,
	};
}

/* The totals' lines read as a footer. */
static enum osc_mark matrix_mark(struct osc_tui *t, struct osc_view *v, size_t row)
{
	struct matrix_view *mv = v->priv;

	(void)t;
	return row >= mv->m.nr_rows ? OSC_MARK_TITLE : OSC_MARK_NONE;
}

/* The slowest run of each line. */
static enum osc_mark matrix_cell_mark(struct osc_tui *t, struct osc_view *v, size_t row,
				      size_t col)
{
	struct matrix_view *mv = v->priv;

	(void)t;
	return col == osc_matrix_slow_col(&mv->m, row) ? OSC_MARK_MAX : OSC_MARK_NONE;
}

static const char *measure_name(const struct matrix_view *mv)
{
	return mv->m.measure == OSC_MEASURE_SELF ? "self_us" : "device_us";
}

static void matrix_title(struct osc_tui *t, struct osc_view *v, char *buf, size_t size)
{
	struct matrix_view *mv = v->priv;

	(void)t;
	snprintf(buf, size, "%s per run: top %zu of %zu %s rows", measure_name(mv),
		 mv->m.nr_rows, mv->total_rows, osc_level_name(mv->arg.level));
}

static void matrix_bases(struct osc_tui *t, struct osc_view *v, char *buf, size_t size)
{
	struct matrix_view *mv = v->priv;
	char median[32], pct[32];

	(void)t;
	if (!mv->m.nr_runs) {
		snprintf(buf, size, "no run");
		return;
	}
	osc_format_us(mv->m.median, median, sizeof(median));
	osc_matrix_cell(&mv->m, mv->m.nr_rows + 1, OSC_MATRIX_COL_SLOW_PCT, pct, sizeof(pct));
	snprintf(buf, size, "median %s us; run %u %s%s%%", median,
		 mv->m.run[mv->m.slow], pct[0] == '-' ? "" : "+", pct);
}

/* A line's time in each run against its median (the run totals' for the footer). */
static void matrix_detail(struct osc_tui *t, struct osc_view *v, size_t row,
			  struct osc_lines *out)
{
	struct matrix_view *mv = v->priv;
	const struct osc_matrix *m = &mv->m;
	char field[32], us[32], pct[32], value[96], name[4096];

	(void)t;
	osc_lines_add(out, OSC_MARK_TITLE, "row",
		      osc_matrix_cell(m, row, OSC_MATRIX_COL_NAME, name, sizeof(name)));
	osc_format_us(row < m->nr_rows ? m->row_median[row] : m->median, us, sizeof(us));
	osc_lines_add(out, OSC_MARK_NONE, "median_us", us);
	for (size_t j = 0; j < m->nr_runs; j++) {
		double cell = row < m->nr_rows ? (double)m->cell[row * m->nr_runs + j]
					       : (double)m->run_total[j];
		double pc = osc_matrix_excess_pct(cell, row < m->nr_rows ? m->row_median[row]
									 : m->median);

		snprintf(field, sizeof(field), "run %u", m->run[j]);
		osc_format_us(cell, us, sizeof(us));
		osc_format_pct(pc, pct, sizeof(pct));
		snprintf(value, sizeof(value), "%s us (%s%s%% vs median)", us,
			 pc >= 0 ? "+" : "", pct);
		osc_lines_add(out, j == (row < m->nr_rows ? m->row_slow[row] : m->slow)
				? OSC_MARK_MAX : OSC_MARK_NONE, field, value);
	}
}

static const char *matrix_export_name(struct osc_tui *t, struct osc_view *v)
{
	(void)t;
	(void)v;
	return "matrix";
}

static void matrix_empty(struct osc_tui *t, struct osc_view *v, char *buf, size_t size)
{
	struct matrix_view *mv = v->priv;

	(void)t;
	if (mv->error[0])
		snprintf(buf, size, "%s", mv->error);
}

/* `opscope report --matrix` with the table's level, order and top-N. */
static char *matrix_command(struct osc_tui *t, struct osc_view *v)
{
	struct matrix_view *mv = v->priv;
	size_t nr;
	const struct osc_column *cols = osc_level_catalog(mv->arg.level, &nr), *col = NULL;
	char *line;

	for (size_t i = 0; i < nr && !col; i++)
		if (cols[i].stat == mv->arg.sort)
			col = &cols[i];
	if (!col || mv->error[0])
		return NULL;
	line = osc_cli_line_start(t, "report", NULL, mv->arg.level);
	line = osc_cli_line_arg(line, "--matrix");
	if (mv->m.measure == OSC_MEASURE_SELF && mv->device) /* not the default */
		line = osc_cli_line_arg(osc_cli_line_arg(line, "--measure"), "self");
	return osc_cli_line_order(line, col,
				  mv->arg.sort == osc_level_default_sort(
					  mv->arg.level, osc_trace_has_device(&t->trace)),
				  col->numeric, mv->arg.desc, matrix_top(mv), t->export_as, "report");
}

/* m: a device level's rows merge on the names shown, and its labels change: built again. */
static void matrix_restyle(struct osc_tui *t, struct osc_view *v)
{
	struct matrix_view *mv = v->priv;

	if (osc_level_is_device(mv->arg.level))
		v->built_gen = t->gen - 1;
}

const struct osc_view_ops osc_view_matrix = {
	.name = "matrix",
	.open = matrix_open,
	.close = matrix_close,
	.build = matrix_build,
	.table = matrix_table,
	.flex_col = OSC_MATRIX_COL_NAME,
	.empty = matrix_empty,
	.mark = matrix_mark,
	.cell_mark = matrix_cell_mark,
	.title = matrix_title,
	.bases = matrix_bases,
	.bases_first = true,
	.detail = matrix_detail,
	.export_name = matrix_export_name,
	.command = matrix_command,
	.restyle = matrix_restyle,
};
