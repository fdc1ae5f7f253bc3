/*
 * report_dist.c - `opscope report --histogram NAME` and `--matrix`: the
 * distribution of one row's instance durations (histogram.h) and the top
 * rows' time per run (matrix.h), over the report's aggregate, written with
 * the report's formats. The meta says what the numbers are: the instances
 * and their percentiles, the bin rule; the matrix's measure and median run.
 */
#include <stdlib.h>
#include <string.h>

#include "opscope/analysis/columns.h"
#include "opscope/analysis/matrix.h"
#include "opscope/base/alloc.h"
#include "opscope/base/suggest.h"
#include "opscope/export/chart.h"
#include "cli.h"

/* The text of row r's name column (the demangled kernel name, the whole path...). */
static const char *row_name(const struct osc_report_base *b, size_t r, char *buf, size_t size)
{
	size_t nr;
	const struct osc_column *cols = osc_agg_columns(b->agg, &nr);

	for (size_t c = 0; c < nr; c++)
		if (cols[c].stat == OSC_STAT_NAME)
			return osc_agg_cell_names(b->trace, b->agg, b->names, r, c, buf, size);
	return osc_trace_str(b->trace, b->agg->rows[r].key);
}

/* The name column of every row, for "did you mean". */
static enum osc_status no_such_row(const struct osc_report_base *b, const char *name,
				   struct osc_error *err)
{
	const char **names = osc_xcalloc(b->agg->nr + 1, sizeof(*names));
	char **own = osc_xcalloc(b->agg->nr + 1, sizeof(*own));
	const char *meant;
	char buf[512];

	for (size_t r = 0; r < b->agg->nr; r++)
		names[r] = own[r] = osc_xstrdup(row_name(b, r, buf, sizeof(buf)));
	meant = osc_suggest(name, names, b->agg->nr);
	osc_error_set(err, OSC_USAGE, "--histogram", OSC_NO_OFFSET, NULL,
		      "no %s row named '%s' in the selected runs%s%s%s", osc_level_name(b->agg->level),
		      name, meant ? " (did you mean " : "", meant ? meant : "", meant ? "?)" : "");
	for (size_t r = 0; r < b->agg->nr; r++)
		free(own[r]);
	free(own);
	free(names);
	return OSC_USAGE;
}

/* The text table's bar column: the bin's count against the fullest bin's. */
#define BAR_WIDTH 30

struct hist_ctx {
	const struct osc_hist *h;
	bool utf8;
};

static const char *hist_cell(const void *ctx, size_t row, size_t col, char *buf, size_t size)
{
	const struct hist_ctx *c = ctx;

	if (col < OSC_HIST_COL_NR)
		return osc_hist_cell(c->h, row, col, buf, size);
	return osc_chart_bar(c->h->max_count ? (double)c->h->bins[row].count /
				     (double)c->h->max_count : 0,
			     BAR_WIDTH, c->utf8, buf, size);
}

enum osc_status osc_report_histogram(const struct osc_report_base *b,
				     const struct osc_cli_view *v, struct osc_error *err)
{
	const struct osc_agg *a = b->agg;
	const char *keys[20] = { "trace", "format", "level", "runs", "filter", "histogram",
				 "rows", "instances", "scale", "width_us", "min_us", "p50_us",
				 "p90_us", "p99_us", "max_us", "mean_us", "bin_rule" };
	const char *values[20], *json[20] = { [3] = b->runs_json };
	struct osc_export_meta meta = { keys, values, 17, json };
	char nums[8][32], inst[32], rows[32], buf[512];
	size_t nrows = 0, n = 0;
	int64_t *dur;
	struct osc_hist h;
	struct hist_ctx ctx = { &h, osc_locale_is_utf8() };
	struct osc_column cols[OSC_HIST_COL_NR + 1];
	struct osc_table table = { 0 };
	enum osc_status st;

	if (a->level == OSC_LEVEL_RUN)
		return osc_error_set(err, OSC_USAGE, "--histogram", OSC_NO_OFFSET, NULL,
				     "a run row is no set of instances (--matrix shows the runs)");
	for (size_t r = 0; r < a->nr; r++) {
		if (!strcmp(row_name(b, r, buf, sizeof(buf)), v->histogram) ||
		    !strcmp(osc_trace_str(b->trace, a->rows[r].key), v->histogram)) {
			n += a->rows[r].nr;
			nrows++;
		}
	}
	if (!nrows)
		return no_such_row(b, v->histogram, err);
	dur = osc_xmalloc((n ? n : 1) * sizeof(*dur));
	n = 0;
	for (size_t r = 0; r < a->nr; r++) {
		if (strcmp(row_name(b, r, buf, sizeof(buf)), v->histogram) &&
		    strcmp(osc_trace_str(b->trace, a->rows[r].key), v->histogram))
			continue;
		for (size_t k = 0; k < a->rows[r].nr; k++)
			dur[n++] = b->trace->events[a->members[a->rows[r].first + k]].dur;
	}
	osc_hist_build(dur, n, v->bins ? v->bins : OSC_HIST_DEFAULT_BINS, v->scale, &h);
	free(dur);
	values[0] = osc_cli_input_name(v->path);
	values[1] = osc_format_name(b->trace->format);
	values[2] = osc_level_name(a->level);
	values[3] = b->runs_text;
	values[4] = b->filter_text[0] ? b->filter_text : "none";
	values[5] = v->histogram;
	snprintf(rows, sizeof(rows), "%zu", nrows);
	values[6] = json[6] = rows;
	snprintf(inst, sizeof(inst), "%llu", (unsigned long long)h.count);
	values[7] = json[7] = inst;
	values[8] = h.log ? "log" : "linear";
	osc_format_us_int(h.width, nums[0], sizeof(nums[0]));
	osc_format_us_int(h.min, nums[1], sizeof(nums[1]));
	osc_format_us(h.p50, nums[2], sizeof(nums[2]));
	osc_format_us(h.p90, nums[3], sizeof(nums[3]));
	osc_format_us(h.p99, nums[4], sizeof(nums[4]));
	osc_format_us_int(h.max, nums[5], sizeof(nums[5]));
	osc_format_us(h.mean, nums[6], sizeof(nums[6]));
	for (int i = 0; i < 7; i++)
		values[9 + i] = nums[i];
	if (h.log) { /* no width: the log bins widen */
		memmove(&keys[9], &keys[10], 7 * sizeof(keys[0]));
		memmove(&values[9], &values[10], 6 * sizeof(values[0]));
		meta.nr--;
	}
	values[meta.nr - 1] = h.log ? "edges on 1-2-5 x 10^k ns (then decades) from <= min to > max"
			   : "Freedman-Diaconis width rounded up to 1-2-5 x 10^k ns, edges at "
			     "its multiples";
	/* the text table draws the bars too; the files hold the numbers (as the TUI's x) */
	memcpy(cols, osc_hist_columns(&table.nr_cols), sizeof(cols[0]) * OSC_HIST_COL_NR);
	cols[OSC_HIST_COL_NR] = (struct osc_column){ "bar", BAR_WIDTH, OSC_ALIGN_LEFT, false,
						     OSC_STAT_NAME };
	if (v->format == OSC_EXPORT_TABLE)
		table.nr_cols++;
	table.cols = cols;
	table.nr_rows = h.nr;
	table.cell = hist_cell;
	table.ctx = &ctx;
	st = osc_cli_write_view(v, &table, &meta, err);
	if (st == OSC_OK && !osc_export_has_meta(v->format))
		fprintf(stderr, "opscope: using %s; %s instances of %s, %s scale\n", b->runs_text,
			inst, v->histogram, values[8]);
	osc_hist_release(&h);
	return st;
}

static const char *matrix_cell(const void *ctx, size_t row, size_t col, char *buf, size_t size)
{
	return osc_matrix_cell(ctx, row, col, buf, size);
}

enum osc_status osc_report_matrix(const struct osc_report_base *b, const struct osc_cli_view *v,
				  struct osc_error *err)
{
	const char *keys[12] = { "trace", "format", "level", "runs", "filter", "sort", "rows",
				 "measure", "median_run_us", "slowest_run" };
	const char *values[12], *json[12] = { [3] = b->runs_json };
	struct osc_export_meta meta = { keys, values, 10, json };
	enum osc_measure m = v->measure != OSC_MEASURE_NR ? v->measure
							  : osc_matrix_default_measure(b->agg);
	size_t top = v->top_set ? v->top : OSC_MATRIX_DEFAULT_TOP;
	struct osc_matrix mx;
	struct osc_table table = { 0 };
	char median[32], slow[64], *rows, *rows_json;
	enum osc_status st = osc_matrix_build(b->trace, b->runs, b->sel, b->agg, b->names, top, m,
					      &mx, err);

	if (st != OSC_OK)
		return st;
	rows = osc_xasprintf("%zu of %zu, then total and vs_median_pct", mx.nr_rows, b->agg->nr);
	rows_json = osc_cli_rows_json(mx.nr_rows, b->agg->nr, "");
	json[6] = rows_json;
	values[0] = osc_cli_input_name(v->path);
	values[1] = osc_format_name(b->trace->format);
	values[2] = osc_level_name(b->agg->level);
	values[3] = b->runs_text;
	values[4] = b->filter_text[0] ? b->filter_text : "none";
	values[5] = b->sort_text;
	values[6] = rows;
	values[7] = osc_level_is_device(b->agg->level)
		? "device_us (the events' own durations)"
		: m == OSC_MEASURE_SELF ? "self_us (exclusive host time)"
		: "device_us (device events the ops launched themselves)";
	osc_format_us(mx.median, median, sizeof(median));
	values[8] = median;
	if (mx.nr_runs) {
		snprintf(slow, sizeof(slow), "%u", mx.run[mx.slow]);
		json[9] = slow;
	} else
		snprintf(slow, sizeof(slow), "none");
	values[9] = slow;
	table.cols = osc_matrix_columns(&mx, &table.nr_cols);
	table.nr_rows = mx.nr_rows + 2;
	table.cell = matrix_cell;
	table.ctx = &mx;
	st = osc_cli_write_view(v, &table, &meta, err);
	if (st == OSC_OK && !osc_export_has_meta(v->format))
		fprintf(stderr, "opscope: using %s; %s per run\n", b->runs_text,
			m == OSC_MEASURE_SELF ? "self_us" : "device_us");
	free(rows);
	free(rows_json);
	osc_matrix_release(&mx);
	return st;
}
