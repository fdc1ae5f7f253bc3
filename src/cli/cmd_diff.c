/*
 * cmd_diff.c - `opscope diff BASE OTHER`: compare two traces row by row and
 * export the comparison as a table, CSV or JSON (also what `opscope BASE
 * OTHER` prints when standard output is not a terminal).
 *
 * --runs selects the runs of both traces unless --other-runs gives the
 * other's; with one trace and --other-runs (or the same path twice), two
 * run selections of it are compared, the trace loaded once. --run-range and --whole-trace find the
 * runs of both, and kernel names are shown (and paired) as report shows
 * them. As in report, the output says which runs were used: "# base runs"
 * and "# other runs" lines in the table, meta in JSON, and a line on stderr
 * for CSV.
 */
#include <stdlib.h>
#include <string.h>

#include "opscope/base/alloc.h"
#include "opscope/analysis/diff.h"
#include "opscope/model/runs.h"
#include "cli.h"

#define TABLE_DEFAULT_TOP 40

static void print_help(void)
{
	puts("usage: opscope diff [OPTIONS] BASE OTHER\n"
	     "       opscope diff [OPTIONS] --runs SPEC --other-runs SPEC TRACE\n"
	     "\n"
	     "Compare two traces (a baseline and a changed run: optimisations on/off, a\n"
	     "library upgrade, another device), or two run selections of one trace (step 3\n"
	     "against step 4, warm against cold). Rows of both are paired and marked\n"
	     "'-' (only in BASE), '+' (only in OTHER) or '=' (in both), with each side's\n"
	     "count, total and mean in microseconds, the delta (other - base), delta_pct\n"
	     "(100 * delta / base total) and ratio (other total / base total). Run\n"
	     "options apply to both traces (--other-runs excepted); C++ kernel names are\n"
	     "shown demangled, and rows pair on the names as shown.\n"
	     "\n"
	     "options:");
	osc_cli_print_options(stdout, osc_cli_view_options, OSC_MODE_DIFF);
	puts("\n"
	     "HOW: name (the row's name at the level, any level), shape (op, input and\n"
	     "output shapes and provider, e.g. [CPU]Conv(f-1x3x112x112,f-16x3x3x3)->f-1x16x112x112)\n"
	     "or occurrence (shape plus [k]: the k-th such op in its run, as onnx-array-api\n"
	     "merges two ORT profiles).\n"
	     "COL: name, side, base_count, other_count, base_total, other_total, base_mean,\n"
	     "other_mean, delta (sorts by |delta|, the default), delta_pct, ratio.\n"
	     "Exit status: 0 on success (with --changed: no row changed), 1 with --changed\n"
	     "when rows changed (beyond --min-change), 2 on any error; so a CI job can gate:\n"
	     "  opscope diff --changed --min-change 5 base.json new.json || exit 1");
}

/*
 * `opscope diff` needs two traces, or one and --other-runs (its runs against
 * other runs of it); `opscope BASE OTHER` comes here with two.
 */
static int run_diff(struct osc_cli_view *v)
{
	struct osc_error err;

	if (!osc_cli_view_is_compare(v)) {
		osc_error_set(&err, OSC_USAGE, "diff", OSC_NO_OFFSET, NULL,
			      "needs two traces (opscope diff BASE OTHER), or one and "
			      "--other-runs");
		return osc_cli_fail(&err);
	}
	return osc_diff_run(v);
}

int osc_cmd_diff(int argc, char **argv)
{
	return osc_cli_view_main(argc, argv, OSC_MODE_DIFF, print_help, run_diff);
}

/* One loaded side. */
struct side {
	struct osc_trace trace;
	const struct osc_trace *t; /* &trace, or the base's when both are one trace */
	struct osc_runs runs;
	struct osc_runsel sel;
	struct osc_names names;
	char *runs_text, *runs_json;
};

struct diff_job {
	struct side side[2];
	struct osc_diff diff;
	char *filter_text, *sort_text, *rows_text, *rows_json, *count_text, *total_text;
	char *count_json, *total_json; /* the same as JSON objects, numbers as numbers */
	size_t nr_changed; /* rows kept by --changed, before --top */
};

/*
 * Load side s from path with its runs, or with loaded (the base), select
 * runs of the base's trace (one trace against itself).
 */
static enum osc_status load_side(struct side *s, const struct side *loaded, const char *path,
				 const char *runs, const struct osc_cli_view *v,
				 struct osc_error *err)
{
	enum osc_status st;

	if (loaded) {
		s->t = loaded->t;
		st = osc_cli_select_runs(v, s->t, runs, &s->runs, &s->sel, err);
	} else {
		s->t = &s->trace;
		st = osc_cli_open(v, path, runs, &s->trace, &s->runs, &s->sel, err);
	}
	if (st != OSC_OK && err->subject[0] == '-') /* name the trace the option failed on */
		snprintf(err->message + strlen(err->message),
			 sizeof(err->message) - strlen(err->message), " in '%s'", path);
	if (st == OSC_OK)
		st = osc_cli_names(&s->names, s->t, v->names, v->demangler,
				   osc_level_is_device(v->level), err);
	if (st == OSC_OK)
		s->runs_text = osc_runsel_describe(&s->sel, &s->runs);
	if (st == OSC_OK)
		s->runs_json = osc_cli_runs_json(&s->sel, &s->runs, s->runs_text);
	return st;
}

static void totals_text(struct diff_job *j)
{
	char b[64], o[64], d[64];

	osc_format_us_int(j->diff.grand_total[0], b, sizeof(b));
	osc_format_us_int(j->diff.grand_total[1], o, sizeof(o));
	osc_format_us_int(j->diff.grand_total[1] - j->diff.grand_total[0], d, sizeof(d));
	j->total_text = osc_xasprintf("base %s us, other %s us, delta %s us (%s)", b, o, d,
				      osc_diff_total_name(&j->diff));
	j->count_text = osc_xasprintf("%llu only in base (-), %llu only in other (+), %llu in both (=)",
				      (unsigned long long)j->diff.count[0],
				      (unsigned long long)j->diff.count[1],
				      (unsigned long long)j->diff.count[2]);
	j->total_json = osc_xasprintf("{\"base_us\": %s, \"other_us\": %s, \"delta_us\": %s, "
				      "\"measure\": \"%s\"}",
				      b, o, d, osc_diff_total_name(&j->diff));
	j->count_json = osc_xasprintf("{\"base_only\": %llu, \"other_only\": %llu, \"both\": %llu}",
				      (unsigned long long)j->diff.count[0],
				      (unsigned long long)j->diff.count[1],
				      (unsigned long long)j->diff.count[2]);
}

struct diff_table_ctx {
	const struct osc_diff *diff;
};

static const char *diff_cell(const void *ctx, size_t row, size_t col, char *buf, size_t size)
{
	const struct diff_table_ctx *c = ctx;

	return osc_diff_cell(c->diff, row, col, buf, size);
}

static enum osc_status write_diff(struct diff_job *j, const struct osc_cli_view *v,
				  struct osc_error *err)
{
	const char *keys[] = { "base",  "other", "format", "level",  "match", "base runs",
			       "other runs", "filter", "sort", "rows", "sides", "totals" };
	const char *values[12];
	const char *json[12] = { [5] = j->side[0].runs_json, [6] = j->side[1].runs_json,
				 [9] = j->rows_json, [10] = j->count_json, [11] = j->total_json };
	struct osc_export_meta meta = { keys, values, 12, json };
	struct diff_table_ctx ctx = { &j->diff };
	struct osc_table table = { 0 };
	enum osc_status st;
	char note[256];
	char *formats = osc_xasprintf("%s, %s", osc_format_name(j->side[0].t->format),
				      osc_format_name(j->side[1].t->format));

	values[0] = v->path;
	values[1] = v->other ? v->other : v->path;
	values[2] = formats;
	values[3] = osc_level_name(v->level);
	values[4] = osc_match_name(v->match);
	values[5] = j->side[0].runs_text;
	values[6] = j->side[1].runs_text;
	values[7] = j->filter_text[0] ? j->filter_text : "none";
	values[8] = j->sort_text;
	values[9] = j->rows_text;
	values[10] = j->count_text;
	values[11] = j->total_text;
	table.cols = osc_diff_columns(&table.nr_cols);
	table.nr_rows = j->diff.nr;
	table.cell = diff_cell;
	table.ctx = &ctx;
	st = osc_cli_write_table(v->output, v->format, &table, &meta, v->export_flags, err);
	if (st == OSC_OK && !osc_export_has_meta(v->format))
		fprintf(stderr, "opscope: base %s; other %s\n", j->side[0].runs_text,
			j->side[1].runs_text);
	if (st == OSC_OK && osc_diff_runs_note(&j->side[0].sel, &j->side[1].sel, note,
					       sizeof(note)))
		fprintf(stderr, "opscope: note: %s\n", note);
	free(formats);
	return st;
}

static enum osc_status build_diff(struct diff_job *j, struct osc_cli_view *v,
				  struct osc_error *err)
{
	struct osc_diff_side side[2];
	struct osc_diff_query q = { .level = v->level, .match = v->match, .filter = &v->filter,
				    .categories = &v->categories };
	enum osc_diff_col col = OSC_DIFF_DELTA;
	size_t top = v->top_set ? v->top : v->format == OSC_EXPORT_TABLE ? TABLE_DEFAULT_TOP : 0;
	size_t nr_cols, total;
	const struct osc_column *cols = osc_diff_columns(&nr_cols);
	bool descending, same;
	enum osc_status st;

	if (v->sort_arg)
		osc_diff_col_parse(v->sort_arg, &col); /* checked by the option parser */
	descending = !v->asc && col != OSC_DIFF_NAME;
	/* one trace (or the same one twice): its runs against other runs of it */
	same = !v->other || !strcmp(v->other, v->path);
	st = load_side(&j->side[0], NULL, v->path, v->runs, v, err);
	if (st == OSC_OK)
		st = load_side(&j->side[1], same ? &j->side[0] : NULL, same ? v->path : v->other,
			       v->other_runs ? v->other_runs : v->runs, v, err);
	if (st != OSC_OK)
		return st;
	for (int s = 0; s < 2; s++)
		side[s] = (struct osc_diff_side){ j->side[s].t, &j->side[s].runs, &j->side[s].sel,
						  &j->side[s].names };
	osc_diff(&side[0], &side[1], &q, &j->diff);
	st = osc_cli_check_args(j->side[0].t, err);
	if (st == OSC_OK && j->side[1].t != j->side[0].t)
		st = osc_cli_check_args(j->side[1].t, err);
	if (st != OSC_OK)
		return st;
	osc_diff_changed_only(&j->diff, v->changed, v->min_change);
	total = j->diff.nr;
	j->nr_changed = v->changed ? total : 0;
	osc_diff_sort(&j->diff, col, descending);
	if (top && top < j->diff.nr)
		j->diff.nr = top;
	totals_text(j);
	j->filter_text = osc_filter_describe(&v->filter);
	j->sort_text = osc_xasprintf("%s %s", cols[col].title,
				     descending ? "descending" : "ascending");
	j->rows_json = osc_cli_rows_json(j->diff.nr, total,
					 v->changed ? ", \"changed_only\": true" : "");
	j->rows_text = osc_xasprintf("%zu of %zu%s", j->diff.nr, total,
				     v->changed ? " changed" : "");
	return write_diff(j, v, err);
}

int osc_diff_run(struct osc_cli_view *v)
{
	struct diff_job j;
	struct osc_error err;
	enum osc_status st;

	memset(&j, 0, sizeof(j));
	osc_error_clear(&err);
	if (v->level == OSC_LEVEL_MODULE) {
		osc_error_set(&err, OSC_USAGE, "--by", OSC_NO_OFFSET, NULL,
			      "compare has no module level yet (use report --by module on each)");
		return osc_cli_fail(&err);
	}
	for (int s = 0; s < 2; s++) {
		osc_trace_init(&j.side[s].trace);
		osc_names_init(&j.side[s].names);
	}
	st = build_diff(&j, v, &err);
	free(j.filter_text);
	free(j.sort_text);
	free(j.rows_text);
	free(j.rows_json);
	free(j.count_json);
	free(j.total_json);
	free(j.count_text);
	free(j.total_text);
	osc_diff_release(&j.diff);
	for (int s = 0; s < 2; s++) {
		free(j.side[s].runs_text);
		free(j.side[s].runs_json);
		osc_names_release(&j.side[s].names);
		osc_runsel_release(&j.side[s].sel);
		osc_runs_release(&j.side[s].runs);
		osc_trace_release(&j.side[s].trace);
	}
	if (st != OSC_OK)
		return osc_cli_fail(&err);
	return j.nr_changed ? OSC_EXIT_CHANGED : OSC_EXIT_OK;
}
