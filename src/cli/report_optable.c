/*
 * report_optable.c - `opscope report --by op-instance`: one row per op
 * instance with Neural Engine's per-op CSV columns (optable.h), as a table,
 * CSV or JSON. The runs used are named as in report: meta lines, or one
 * stderr line for CSV.
 */
#include <stdlib.h>
#include <string.h>

#include "opscope/base/alloc.h"
#include "opscope/analysis/optable.h"
#include "opscope/model/runs.h"
#include "cli.h"

struct optable_job {
	struct osc_trace trace;
	struct osc_runs runs;
	struct osc_runsel sel;
	struct osc_optable table;
	char *runs_text, *runs_json, *filter_text, *rows_text, *rows_json;
};

static const char *optable_cell(const void *ctx, size_t row, size_t col, char *buf, size_t size)
{
	return osc_optable_cell(ctx, row, col, buf, size);
}

static enum osc_status run_job(struct optable_job *j, struct osc_cli_view *v,
			       struct osc_error *err)
{
	const char *keys[] = { "trace", "format", "level", "runs", "filter", "rows" };
	const char *values[6], *json[6] = { NULL };
	struct osc_export_meta meta = { keys, values, 6, json };
	struct osc_table table = { 0 };
	size_t total;
	enum osc_status st = osc_cli_open(v, v->path, v->runs, &j->trace, &j->runs, &j->sel, err);

	if (st != OSC_OK)
		return st;
	osc_optable_build(&j->trace, &j->runs, &j->sel, &v->filter, &j->table);
	st = osc_cli_check_args(&j->trace, err);
	if (st != OSC_OK)
		return st;
	total = j->table.nr;
	if (v->top_set && v->top && v->top < j->table.nr)
		j->table.nr = v->top;
	j->runs_text = osc_runsel_describe(&j->sel, &j->runs);
	j->runs_json = osc_cli_runs_json(&j->sel, &j->runs, j->runs_text);
	json[3] = j->runs_json;
	j->filter_text = osc_filter_describe(&v->filter);
	j->rows_text = osc_xasprintf("%zu of %zu, in execution order", j->table.nr, total);
	j->rows_json = osc_cli_rows_json(j->table.nr, total, ", \"order\": \"execution\"");
	json[5] = j->rows_json;
	values[0] = osc_cli_input_name(v->path);
	values[1] = osc_format_name(j->trace.format);
	values[2] = "op-instance";
	values[3] = j->runs_text;
	values[4] = j->filter_text[0] ? j->filter_text : "none";
	values[5] = j->rows_text;
	table.cols = osc_optable_columns(&table.nr_cols);
	table.nr_rows = j->table.nr;
	table.cell = optable_cell;
	table.ctx = &j->table;
	st = osc_cli_write_view(v, &table, &meta, err);
	j->table.nr = total; /* released whole below */
	if (st == OSC_OK && !osc_export_has_meta(v->format))
		fprintf(stderr, "opscope: using %s\n", j->runs_text);
	return st;
}

int osc_optable_run(struct osc_cli_view *v)
{
	struct optable_job j;
	struct osc_error err;
	enum osc_status st;

	memset(&j, 0, sizeof(j));
	osc_error_clear(&err);
	osc_trace_init(&j.trace);
	st = run_job(&j, v, &err);
	osc_optable_release(&j.table);
	osc_runsel_release(&j.sel);
	osc_runs_release(&j.runs);
	osc_trace_release(&j.trace);
	free(j.runs_text);
	free(j.runs_json);
	free(j.filter_text);
	free(j.rows_text);
	free(j.rows_json);
	return st == OSC_OK ? OSC_EXIT_OK : osc_cli_fail(&err);
}
