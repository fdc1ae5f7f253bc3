/*
 * cmd_whatif.c - `opscope whatif --speedup RULE... [TRACE]`: the projected
 * latency if the chosen ops were FACTOR times faster, per row and in total,
 * with the share of time affected and the Amdahl ceiling.
 *
 * The summary is in the meta ("# projected: ..." in the table, "meta" in
 * JSON) and, for CSV, on one stderr line after the rows are written.
 */
#include <stdlib.h>
#include <string.h>

#include "opscope/base/alloc.h"
#include "opscope/model/runs.h"
#include "opscope/analysis/whatif.h"
#include "cli.h"

#define TABLE_DEFAULT_TOP 40

static void print_help(void)
{
	puts("usage: opscope whatif [OPTIONS] --speedup RULE [TRACE]\n"
	     "\n"
	     "Project the time of TRACE's selected runs if some ops were made faster.\n"
	     "On exclusive time, so nothing counts twice: a rule on an op divides its\n"
	     "self time and that of every op nested in it by FACTOR (the innermost\n"
	     "rule wins, factors never compound); at the kernel levels each matching\n"
	     "kernel takes dur / FACTOR. Prints per row the self time (kernels: total),\n"
	     "the factor, the projected and saved time, and in the header the host busy\n"
	     "time (kernels: device time) before and after, the share affected, the\n"
	     "Amdahl ceiling, and the device and wall time projected the same way.\n"
	     "\n"
	     "options:");
	osc_cli_print_options(stdout, osc_cli_view_options, OSC_MODE_WHATIF);
	puts("\n"
	     "RULE: OP=FACTOR or OP@SHAPE=FACTOR, e.g. 'InnerProduct=2.5', 'Conv*=2',\n"
	     "'InnerProduct@256x256=4'. OP is exact or a wildcard, matched against the\n"
	     "row name (kernel names as shown: demangled unless --no-demangle), the op\n"
	     "type and the event name; SHAPE is the input shapes\n"
	     "(as shown by --by shape, or compact: f-1x64x56x56) or one input's dims\n"
	     "(a weight shape). The first matching rule wins.\n"
	     "COL: name, count, self (total), factor, projected, saved, self_pct\n"
	     "(device_pct).\n"
	     "Exit status: 0 on success, 2 on any error.");
}

struct whatif_job {
	struct osc_trace trace;
	struct osc_runs runs;
	struct osc_runsel sel;
	struct osc_agg agg;
	struct osc_names names;
	struct osc_speedups rules;
	struct osc_whatif w;
	char *runs_text, *runs_json, *filter_text, *rules_text, *rows_text, *rows_json;
	char summary[512];
};

static const char *whatif_cell(const void *ctx, size_t row, size_t col, char *buf, size_t size)
{
	return osc_whatif_cell(ctx, row, col, buf, size);
}

static enum osc_status write_whatif(struct whatif_job *j, const struct osc_cli_view *v,
				    struct osc_error *err)
{
	const char *keys[] = { "trace", "format", "level", "runs", "filter", "speedups", "rows",
			       "projected" };
	char *projected = osc_whatif_summary_json(&j->w);
	const char *values[8], *json[8] = { [3] = j->runs_json, [6] = j->rows_json,
					    [7] = projected };
	struct osc_export_meta meta = { keys, values, 8, json };
	struct osc_table table = { 0 };
	enum osc_status st;

	values[0] = osc_cli_input_name(v->path);
	values[1] = osc_format_name(j->trace.format);
	values[2] = osc_level_name(v->level);
	values[3] = j->runs_text;
	values[4] = j->filter_text[0] ? j->filter_text : "none";
	values[5] = j->rules_text;
	values[6] = j->rows_text;
	values[7] = j->summary;
	table.cols = osc_whatif_columns(j->w.device, &table.nr_cols);
	table.nr_rows = j->w.nr;
	table.cell = whatif_cell;
	table.ctx = &j->w;
	st = osc_cli_write_view(v, &table, &meta, err);
	if (st == OSC_OK && !osc_export_has_meta(v->format))
		fprintf(stderr, "opscope: using %s; %s\n", j->runs_text, j->summary);
	free(projected);
	return st;
}

static char *describe_rules(const struct osc_speedups *s)
{
	char *text = osc_xstrdup("");

	for (size_t i = 0; i < s->nr; i++) {
		char *next = osc_xasprintf("%s%s%s%s%s=%g", text, i ? " " : "", s->v[i].pattern,
					   *s->v[i].shape ? "@" : "", s->v[i].shape,
					   s->v[i].factor);

		free(text);
		text = next;
	}
	return text;
}

static enum osc_status build_whatif(struct whatif_job *j, struct osc_cli_view *v,
				    struct osc_error *err)
{
	/* what-if reads the rows' members and counts and the bases, no statistics */
	struct osc_query q = { .level = v->level, .runs = &j->sel, .filter = &v->filter,
			       .categories = &v->categories, .reads = OSC_READS_BASES,
			       .names = &j->names };
	enum osc_whatif_col col = OSC_WHATIF_TOTAL;
	size_t top = v->top_set ? v->top : v->format == OSC_EXPORT_TABLE ? TABLE_DEFAULT_TOP : 0;
	size_t total;
	enum osc_status st = OSC_OK;

	if (v->sort_arg && !osc_whatif_col_parse(v->sort_arg, &col))
		return osc_error_set(err, OSC_USAGE, "--sort", OSC_NO_OFFSET, NULL,
				     "unknown column '%s' (valid: name, count, self (total at the "
				     "device levels), factor, projected, saved, self_pct (device_pct))",
				     v->sort_arg);
	for (size_t i = 0; st == OSC_OK && i < v->nr_speedups; i++)
		st = osc_speedups_parse(&j->rules, v->speedups[i], err);
	if (st == OSC_OK && v->speedup_csv)
		st = osc_speedups_read_csv(&j->rules, v->speedup_csv, err);
	if (st == OSC_OK && !j->rules.nr)
		st = osc_error_set(err, OSC_USAGE, "whatif", OSC_NO_OFFSET, NULL,
				   "give at least one --speedup OP=FACTOR (or --speedup-csv)");
	if (st == OSC_OK)
		st = osc_cli_open(v, v->path, v->runs, &j->trace, &j->runs, &j->sel, err);
	if (st == OSC_OK)
		st = osc_cli_names(&j->names, &j->trace, v->names, v->demangler,
				   osc_level_is_device(v->level), err);
	if (st != OSC_OK)
		return st;
	osc_aggregate(&j->trace, &j->runs, &q, &j->agg);
	osc_whatif_names(&j->trace, &j->agg, &j->names, &j->rules, &j->w);
	osc_whatif_summary(&j->w, j->summary, sizeof(j->summary));
	total = j->w.nr;
	osc_whatif_sort(&j->w, col, !v->asc && col != OSC_WHATIF_NAME);
	if (top && top < j->w.nr)
		j->w.nr = top;
	j->runs_text = osc_runsel_describe(&j->sel, &j->runs);
	j->runs_json = osc_cli_runs_json(&j->sel, &j->runs, j->runs_text);
	j->filter_text = osc_filter_describe(&v->filter);
	j->rules_text = describe_rules(&j->rules);
	j->rows_text = osc_xasprintf("%zu of %zu", j->w.nr, total);
	j->rows_json = osc_cli_rows_json(j->w.nr, total, "");
	return write_whatif(j, v, err);
}

static int run_whatif(struct osc_cli_view *v)
{
	struct whatif_job j;
	struct osc_error err;
	enum osc_status st;

	osc_error_clear(&err);
	if (v->level == OSC_LEVEL_MODULE) {
		osc_error_set(&err, OSC_USAGE, "--by", OSC_NO_OFFSET, NULL,
			      "whatif has no module level yet");
		return osc_cli_fail(&err);
	}
	memset(&j, 0, sizeof(j));
	osc_trace_init(&j.trace);
	osc_names_init(&j.names);
	osc_speedups_init(&j.rules);
	st = build_whatif(&j, v, &err);
	osc_whatif_release(&j.w);
	osc_speedups_release(&j.rules);
	osc_agg_release(&j.agg);
	osc_names_release(&j.names);
	osc_runsel_release(&j.sel);
	osc_runs_release(&j.runs);
	osc_trace_release(&j.trace);
	free(j.runs_text);
	free(j.runs_json);
	free(j.filter_text);
	free(j.rules_text);
	free(j.rows_text);
	free(j.rows_json);
	return st == OSC_OK ? OSC_EXIT_OK : osc_cli_fail(&err);
}

int osc_cmd_whatif(int argc, char **argv)
{
	return osc_cli_view_main(argc, argv, OSC_MODE_WHATIF, print_help, run_whatif);
}
