/*
 * cmd_report.c - `opscope report`: aggregate by op or kernel over the
 * selected runs and export the rows as a table, CSV or JSON.
 *
 * The output always says which runs were used: "# runs: ..." in the table,
 * "meta"."runs" in JSON, and one "opscope: using runs ..." line on stderr for
 * CSV (whose file holds only the header and the rows).
 */
#include <stdlib.h>
#include <string.h>

#include "opscope/analysis/matrix.h"
#include "opscope/analysis/module.h"
#include "opscope/analysis/trace_cache.h"
#include "opscope/analysis/unattributed.h"
#include "opscope/base/alloc.h"
#include "opscope/export/gather.h"
#include "opscope/export/outfile.h"
#include "opscope/model/runs.h"
#include "cli.h"

/* Rows a table shows when --top is not given (CSV and JSON show all). */
#define TABLE_DEFAULT_TOP 40

static void print_help(void)
{
	puts("usage: opscope report [OPTIONS] [TRACE]\n"
	     "       opscope report [OPTIONS] DIR|TRACE...   (a distributed job, below)\n"
	     "\n"
	     "Aggregate the events of TRACE over the selected runs, one row per op (or\n"
	     "kernel, shape, call path, ... see --by) name. Ops show their self time\n"
	     "(exclusive), inclusive total, device time of the kernels they launched\n"
	     "(device_us; device_total_us with the ops nested in them) and the\n"
	     "distribution of their durations, in microseconds; self_pct is a share of\n"
	     "the runs' host busy time, device_pct of their device time (both in the\n"
	     "header). C++ kernel names are shown demangled.\n"
	     "TRACE is a trace file (plain, gzip or zstd) or - for standard input; without\n"
	     "it the bundled sample trace is used.\n"
	     "A directory, several traces or summary files are a distributed job, one\n"
	     "trace per rank: --by rank prints a row per rank with its step, GPU breakdown\n"
	     "and straggler flags; another level shows each row's spread across the ranks\n"
	     "(min, median, max and their ranks); --split rank every rank's rows.\n"
	     "\n"
	     "options:");
	osc_cli_print_options(stdout, osc_cli_view_options, OSC_MODE_REPORT);
	puts("\n"
	     "SPEC: all | N | A:B | A: | :B | A:B:S | [i, j, ...] | range(B) | range(A,B[,S]);\n"
	     "indices count from 0 and may be negative (from the end).\n"
	     "COL, LIST: columns of the level, with or without their unit: name, count,\n"
	     "total, self, device, device_total, kernels, self_pct, device_pct, mean, p50,\n"
	     "..., and the distribution of each measure: self_p90, device_mean, ...\n"
	     "The table fits $COLUMNS (else the terminal width, else 120 columns).\n"
	     "Exit status: 0 on success, 2 on any error.");
}

int osc_cmd_report(int argc, char **argv)
{
	return osc_cli_view_main(argc, argv, OSC_MODE_REPORT, print_help, osc_report_run);
}

/* Everything a report holds, released in one place. */
struct report {
	struct osc_trace trace;
	struct osc_runs runs;
	struct osc_runsel sel;
	struct osc_agg agg;
	struct osc_names names;
	char *runs_text, *runs_json, *filter_text, *sort_text, *rows_text, *rows_json;
};

static bool is_roofline(enum osc_stat s)
{
	return s >= OSC_STAT_GFLOP && s <= OSC_STAT_PEAK_BW_PCT;
}

static bool roofline_asked(const struct osc_column *cols, size_t nr)
{
	for (size_t i = 0; i < nr; i++)
		if (is_roofline(cols[i].stat))
			return true;
	return false;
}

/* A roofline column is shown or sorted by. */
static bool shows_roofline(const struct osc_agg *a, const struct osc_cli_view *v)
{
	size_t nr;
	const struct osc_column *cols = osc_agg_columns(a, &nr);

	if (!a->roofline)
		return false;
	for (size_t i = 0; i < nr; i++)
		if (is_roofline(cols[i].stat))
			return true;
	return is_roofline(v->sort);
}

static enum osc_status write_report(struct report *r, const struct osc_cli_view *v,
				    struct osc_error *err)
{
	const char *keys[16] = { "trace", "format", "level", "runs", "filter", "sort", "rows" };
	const char *values[16], *json[16] = { [3] = r->runs_json, [6] = r->rows_json };
	struct osc_export_meta meta = { keys, values, 7, json };
	struct osc_agg_table_ctx ctx = { .trace = &r->trace, .agg = &r->agg, .names = &r->names };
	struct osc_table table;
	char busy[32], device[32], unmapped[64], outside[32], orphans[32], why[512], peak[512];
	enum osc_status st;

	values[0] = osc_cli_input_name(v->path);
	values[1] = osc_format_name(r->trace.format);
	values[2] = osc_level_name(v->level);
	values[3] = r->runs_text;
	values[4] = r->filter_text[0] ? r->filter_text : "none";
	values[5] = r->sort_text;
	values[6] = r->rows_text;
	/* the bases of the level's percentages (aggregate.h) */
	osc_format_us_int(r->agg.host_busy, busy, sizeof(busy));
	osc_format_us_int(r->agg.device_time, device, sizeof(device));
	if (!osc_level_is_device(v->level)) {
		keys[meta.nr] = "host_busy_us";
		values[meta.nr++] = busy;
	}
	if (r->agg.has_device) {
		keys[meta.nr] = "device_time_us";
		values[meta.nr++] = device;
	}
	if (r->agg.has_device && v->level == OSC_LEVEL_MODULE) { /* what no module launched */
		osc_format_us_int(r->agg.outside_modules, outside, sizeof(outside));
		keys[meta.nr] = "outside_modules_device_us";
		values[meta.nr++] = outside;
	}
	if (r->agg.has_device &&
	    (osc_level_sums_device(v->level) || v->level == OSC_LEVEL_MODULE)) { /* no op's */
		osc_format_us_int(osc_agg_unattributed(&r->agg), orphans, sizeof(orphans));
		osc_agg_unattributed_text(&r->agg, why, sizeof(why));
		keys[meta.nr] = "unattributed_device_us";
		values[meta.nr++] = orphans;
		keys[meta.nr] = "unattributed_why";
		values[meta.nr++] = why;
	}
	if (v->level == OSC_LEVEL_MAPPING) { /* what profile_explorer's mapping leaves out */
		osc_format_us_int(r->agg.device_time - r->agg.grand_total, unmapped, sizeof(unmapped));
		keys[meta.nr] = "unmapped_device_us";
		values[meta.nr++] = unmapped;
	}
	if (shows_roofline(&r->agg, v)) { /* what the roofline columns divide by */
		osc_peak_describe(&r->agg.peak, peak, sizeof(peak));
		keys[meta.nr] = "peak";
		values[meta.nr++] = peak;
		keys[meta.nr] = "roofline_time";
		values[meta.nr++] = r->agg.has_device ? "device_total_us"
			: "total_us (host: the trace has no device events)";
	}
	osc_agg_table(&ctx, &table);
	st = osc_cli_write_view(v, &table, &meta, err);
	/* After the write, so that a failure stays the one line on stderr. */
	if (st == OSC_OK && !osc_export_has_meta(v->format))
		fprintf(stderr, "opscope: using %s\n", r->runs_text);
	return st;
}

/*
 * --by mapping --format json on nvprof and nsys databases: ONNX Runtime's
 * gather_op_profile document (NVTX ops and their kernels per pass).
 */
static bool wants_gather(const struct report *r, const struct osc_cli_view *v)
{
	return v->level == OSC_LEVEL_MAPPING && v->format == OSC_EXPORT_JSON &&
	       (r->trace.format == OSC_FORMAT_NVPROF || r->trace.format == OSC_FORMAT_NSYS);
}

/* The first option given that gather_op_profile's document has no room for, or NULL. */
static const char *gather_refused(const struct osc_cli_view *v)
{
	const char *fixed = osc_cli_fixed_table_option(v);

	return v->top_set ? "--top" : v->nr_filters ? "--filter" : v->regex ? "--regex"
		: fixed ? fixed : v->trace_column ? "--trace-column" : NULL;
}

static enum osc_status gather_fn(FILE *out, const void *arg, struct osc_error *err)
{
	const struct report *r = arg;

	return osc_gather_json(out, &r->trace, &r->runs, &r->sel, err);
}

/* The column a report sorts by: --sort's, else the level's default. */
static const struct osc_column *sort_column(const struct osc_agg *a, enum osc_stat s)
{
	size_t nr;
	const struct osc_column *cols = osc_agg_columns(a, &nr);

	if (s == OSC_STAT_NR)
		s = osc_agg_default_sort(a);
	for (size_t i = 0; i < nr; i++)
		if (cols[i].stat == s)
			return &cols[i];
	cols = osc_level_catalog(a->level, &nr);
	for (size_t i = 0; i < nr; i++)
		if (cols[i].stat == s)
			return &cols[i];
	return cols;
}

/*
 * --percent-limit: the share column of the sorted measure (self_us and
 * self_pct: self_pct; device_us, device_pct, and total_us at the device
 * levels, where it is kernel time: device_pct), or OSC_STAT_NR when the
 * sorted column is no share of a base (counts, means, names...).
 */
static enum osc_stat share_of(enum osc_stat sort, enum osc_level level)
{
	if (sort == OSC_STAT_SELF || sort == OSC_STAT_SELF_PCT)
		return OSC_STAT_SELF_PCT;
	if (sort == OSC_STAT_DEVICE || sort == OSC_STAT_DEVICE_PCT ||
	    (sort == OSC_STAT_TOTAL && osc_level_is_device(level)))
		return OSC_STAT_DEVICE_PCT;
	return OSC_STAT_NR;
}

/*
 * Keep the rows whose share is at least limit percent, in their order (as
 * --filter would, before the sort computes the cumulative percentages).
 * A row is a plain struct carrying its own id and members, so moving it is
 * safe. Belongs with osc_agg_truncate in aggregate.h once that settles.
 */
static void keep_share(struct osc_agg *a, enum osc_stat share, double limit)
{
	size_t kept = 0;

	for (size_t i = 0; i < a->nr; i++)
		if (osc_agg_value(a, i, share) >= limit)
			a->rows[kept++] = a->rows[i];
	a->nr = kept;
}

static enum osc_status build_report(struct report *r, struct osc_cli_view *v,
				    struct osc_error *err)
{
	struct osc_query q = { .level = v->level, .runs = &r->sel, .filter = &v->filter,
			       .categories = &v->categories,
			       .category = v->sort == OSC_STAT_CATEGORY,
			       .module = v->sort == OSC_STAT_MODULE, .names = &r->names };
	size_t nr_cols = 0, total, top = v->top_set ? v->top
		: v->format == OSC_EXPORT_TABLE ? TABLE_DEFAULT_TOP : 0;
	struct osc_column *cols = NULL;
	const struct osc_column *sort;
	struct osc_peak peak;
	bool descending;
	enum osc_status st;

	if (v->columns) {
		st = osc_columns_parse(v->level, v->columns, &cols, &nr_cols, err);
		if (st != OSC_OK)
			return st;
		for (size_t i = 0; i < nr_cols; i++)
			q.dists |= osc_stats_dists(cols[i].stat);
		for (size_t i = 0; i < nr_cols; i++)
			q.category |= cols[i].stat == OSC_STAT_CATEGORY;
		for (size_t i = 0; i < nr_cols; i++)
			q.module |= cols[i].stat == OSC_STAT_MODULE;
	}
	if (v->sort != OSC_STAT_NR)
		q.dists |= osc_stats_dists(v->sort);
	st = osc_cli_open(v, v->path, v->runs, &r->trace, &r->runs, &r->sel, err);
	if (st == OSC_OK && wants_gather(r, v) && gather_refused(v))
		st = osc_error_set(err, OSC_USAGE, gather_refused(v), OSC_NO_OFFSET, NULL,
				   "not in gather_op_profile's document (the mapping level's JSON "
				   "on nvprof and nsys): --format csv writes the table");
	else if (st == OSC_OK && wants_gather(r, v))
		st = osc_write_file(v->output, v->export_flags, gather_fn, r, err);
	if (st != OSC_OK || wants_gather(r, v)) {
		free(cols);
		return st;
	}
	/*
	 * The roofline columns' work and peaks (roofline.h): the shape level shows
	 * them; the op level when they are asked for (its rows' instances vary).
	 */
	q.roofline = v->level == OSC_LEVEL_SHAPE ||
		     (v->level == OSC_LEVEL_OP && (is_roofline(v->sort) || roofline_asked(cols, nr_cols)));
	osc_peak_for_trace(r->trace.meta_json, v->peak_tflops, v->peak_tbs, &peak);
	q.peak = &peak;
	st = osc_cli_names(&r->names, &r->trace, v->names, v->demangler,
			   osc_level_is_device(v->level), err);
	if (st != OSC_OK) {
		free(cols);
		return st;
	}
	osc_aggregate(&r->trace, &r->runs, &q, &r->agg);
	/* convolution's and attention's work read their calls' args */
	if (q.roofline && (st = osc_cli_check_args(&r->trace, err)) != OSC_OK) {
		free(cols);
		return st;
	}
	if (cols)
		osc_agg_set_columns(&r->agg, cols, nr_cols);
	total = r->agg.nr;
	if (v->level == OSC_LEVEL_MODULE && !osc_trace_modules(&r->trace)->nr_inst)
		fprintf(stderr, "opscope: note: no nn.Module events in the trace (PyTorch's "
			"profiler writes them with with_stack=True or with_modules=True)\n");
	else if (!total && r->runs.outside)
		/* e.g. a CPU-only Kineto trace whose ops ran beside the ProfilerStep */
		fprintf(stderr, "opscope: note: no rows in the selected runs, but %llu events "
			"lie outside every run: --whole-trace takes them all\n",
			(unsigned long long)r->runs.outside);
	/* a matrix's rows: the top of its measure, unless --sort says otherwise */
	if (v->matrix && v->sort == OSC_STAT_NR && !osc_level_is_device(v->level))
		sort = sort_column(&r->agg, (v->measure != OSC_MEASURE_NR ? v->measure
					     : osc_matrix_default_measure(&r->agg)) == OSC_MEASURE_SELF
					    ? OSC_STAT_SELF : OSC_STAT_DEVICE);
	else
		sort = sort_column(&r->agg, v->sort);
	if (v->percent_limit >= 0) {
		enum osc_stat share = share_of(sort->stat, v->level);

		if (share == OSC_STAT_NR)
			return osc_error_set(err, OSC_USAGE, "--percent-limit", OSC_NO_OFFSET, NULL,
					     "the sort column %s is no share of a base: sort by "
					     "self or device (or total at a kernel level)",
					     sort->title);
		keep_share(&r->agg, share, v->percent_limit);
	}
	/* Numbers sort descending, text (names, shapes) ascending, unless --asc. */
	descending = !v->asc && sort->numeric;
	osc_agg_sort(&r->agg, &r->trace, sort->stat, descending);
	r->runs_text = osc_runsel_describe(&r->sel, &r->runs);
	r->runs_json = osc_cli_runs_json(&r->sel, &r->runs, r->runs_text);
	r->filter_text = osc_filter_describe(&v->filter);
	r->sort_text = osc_xasprintf("%s %s", sort->title,
				     descending ? "descending" : "ascending");
	if (v->histogram || v->matrix) {
		struct osc_report_base b = {
			.trace = &r->trace, .runs = &r->runs, .sel = &r->sel, .agg = &r->agg,
			.names = &r->names, .runs_text = r->runs_text, .runs_json = r->runs_json,
			.filter_text = r->filter_text, .sort_text = r->sort_text,
		};

		return v->histogram ? osc_report_histogram(&b, v, err) : osc_report_matrix(&b, v, err);
	}
	osc_agg_truncate(&r->agg, top);
	r->rows_text = osc_xasprintf("%zu of %zu", r->agg.nr, total);
	r->rows_json = osc_cli_rows_json(r->agg.nr, total, "");
	return write_report(r, v, err);
}

int osc_report_run(struct osc_cli_view *v)
{
	struct report r;
	struct osc_error err;
	enum osc_status st;

	osc_error_clear(&err);
	if (osc_cli_view_is_job(v))
		return osc_ranks_run(v);
	if (v->op_instance)
		return osc_optable_run(v);
	memset(&r, 0, sizeof(r));
	osc_error_clear(&err);
	osc_trace_init(&r.trace);
	osc_names_init(&r.names);
	st = build_report(&r, v, &err);
	free(r.runs_text);
	free(r.runs_json);
	free(r.filter_text);
	free(r.sort_text);
	free(r.rows_text);
	free(r.rows_json);
	osc_agg_release(&r.agg);
	osc_names_release(&r.names);
	osc_runsel_release(&r.sel);
	osc_runs_release(&r.runs);
	osc_trace_release(&r.trace);
	return st == OSC_OK ? OSC_EXIT_OK : osc_cli_fail(&err);
}
