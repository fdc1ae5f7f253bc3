/*
 * view_ranks.c - the ranks of a distributed job (ranks.h's rank table):
 * each rank's step, GPU breakdown and straggler flags, the flagged ranks
 * highlighted. Enter opens a rank's own explorer and Space then b compares
 * two ranks: each a child opscope on the ranks' traces, in this terminal,
 * back here when it quits (a job's explorer holds summaries, not traces).
 * The trace keys (levels, K, T, V, ...) say so: they work in a rank's
 * explorer.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "opscope/analysis/job.h"
#include "opscope/analysis/ranks.h"
#include "opscope/base/alloc.h"
#include "cli_line.h"
#include "display.h"
#include "view.h"

struct ranks_view {
	const struct osc_job *job;
	struct osc_rank_runs runs;
	struct osc_rank_table table;
	size_t base;        /* the row marked as the compare's base, SIZE_MAX: none */
};

static const char *ranks_cell(const void *ctx, size_t row, size_t col, char *buf, size_t size)
{
	const struct ranks_view *rv = ctx;

	return osc_rank_table_cell(rv->job, &rv->table, row, col, buf, size);
}

static void ranks_open(struct osc_tui *t, struct osc_view *v, const void *arg)
{
	struct ranks_view *rv = osc_xcalloc(1, sizeof(*rv));
	struct osc_error err;
	char msg[1024];

	(void)arg;
	rv->job = t->args->job;
	rv->base = SIZE_MAX;
	if (osc_rank_runs_parse(rv->job, t->args->runs, &rv->runs, &err) != OSC_OK) {
		osc_error_format(&err, msg, sizeof(msg));
		osc_tui_note(t, OSC_MSG_ERROR, "%s (each rank's default runs used)", msg);
		osc_rank_runs_parse(rv->job, NULL, &rv->runs, &err);
	}
	osc_rank_table(rv->job, &rv->runs, t->args->straggler, &rv->table);
	if (rv->table.nr_flagged)
		osc_tui_note(t, OSC_MSG_INFO, "%zu of %zu ranks flagged (highlighted)",
			     rv->table.nr_flagged, rv->table.nr);
	v->priv = rv;
}

static void ranks_close(struct osc_view *v)
{
	struct ranks_view *rv = v->priv;

	osc_rank_table_release(&rv->table);
	osc_rank_runs_release(&rv->runs);
	free(rv);
}

static void ranks_table(struct osc_tui *t, struct osc_view *v, struct osc_table *out)
{
	struct ranks_view *rv = v->priv;

	(void)t;
	*out = (struct osc_table){ .nr_rows = rv->table.nr, .cell = ranks_cell, .ctx = rv };
	out->cols = osc_rank_table_columns(&out->nr_cols);
}

/* The base of a compare as selected; a flagged rank as the slowest instance is. */
static enum osc_mark ranks_mark(struct osc_tui *t, struct osc_view *v, size_t row)
{
	struct ranks_view *rv = v->priv;

	(void)t;
	if (row == rv->base)
		return OSC_MARK_ON;
	return rv->table.rows[row].flags ? OSC_MARK_MAX : OSC_MARK_NONE;
}

static void ranks_title(struct osc_tui *t, struct osc_view *v, char *buf, size_t size)
{
	struct ranks_view *rv = v->priv;

	(void)t;
	snprintf(buf, size, "ranks (%zu; flags beyond %.2fx the median; Enter: a rank's explorer, "
		 "Space then b: compare two)", rv->table.nr, rv->table.k);
}

static void ranks_bases(struct osc_tui *t, struct osc_view *v, char *buf, size_t size)
{
	struct ranks_view *rv = v->priv;

	(void)t;
	snprintf(buf, size, "%s | busy_pct of each rank's wall time", rv->runs.text);
}

/* The trace of row's rank, or NULL (with a message) when it is not on this machine. */
static const char *trace_of(struct osc_tui *t, const struct ranks_view *rv, size_t row)
{
	const struct osc_summary *s = &rv->job->ranks[rv->table.rows[row].index];
	struct stat sb;

	if (s->trace && *s->trace && !stat(s->trace, &sb) && S_ISREG(sb.st_mode))
		return s->trace;
	osc_tui_message(t, OSC_MSG_ERROR, "rank %lld: its trace %s is not here (a summary file "
			"keeps the path it had where it was written)", (long long)s->rank.rank,
			s->trace && *s->trace ? s->trace : "(unknown)");
	return NULL;
}

/*
 * Run `opscope [--runs SPEC] TRACE [OTHER]` in this terminal (a script only
 * says the command: its keys are this explorer's).
 */
static unsigned run_child(struct osc_tui *t, const char *trace, const char *other)
{
	char self[4096];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	char *argv[8];
	int argc = 0, status;

	self[n > 0 ? n : 0] = '\0';
	argv[argc++] = n > 0 ? self : (char *)"opscope";
	if (t->args->runs) {
		argv[argc++] = (char *)"--runs";
		argv[argc++] = (char *)t->args->runs;
	}
	argv[argc++] = (char *)"--";
	argv[argc++] = (char *)trace;
	if (other)
		argv[argc++] = (char *)other;
	argv[argc] = NULL;
	if (t->script) {
		osc_tui_message(t, OSC_MSG_INFO, "runs: opscope%s%s -- %s%s%s",
				t->args->runs ? " --runs " : "", t->args->runs ? t->args->runs : "",
				trace, other ? " " : "", other ? other : "");
		return OSC_R_REDRAW;
	}
	status = osc_display_run(argv);
	if (status < 0 || !WIFEXITED(status) || WEXITSTATUS(status) > 1)
		osc_tui_message(t, OSC_MSG_ERROR, "opscope on %s%s%s ended with %s %d", trace,
				other ? " and " : "", other ? other : "",
				status < 0 ? "error" : WIFEXITED(status) ? "status" : "signal",
				status < 0 ? -1 : WIFEXITED(status) ? WEXITSTATUS(status)
								     : WTERMSIG(status));
	return OSC_R_REDRAW;
}

/* The actions of a trace's views: a job's explorer has no trace of its own. */
static bool trace_action(enum osc_action a)
{
	switch (a) {
	case OSC_ACT_KERNELS: case OSC_ACT_NEXT_LEVEL: case OSC_ACT_PREV_LEVEL:
	case OSC_ACT_LEVEL_OP: case OSC_ACT_LEVEL_SHAPE: case OSC_ACT_LEVEL_KERNEL:
	case OSC_ACT_LEVEL_DIMS: case OSC_ACT_LEVEL_MAPPING: case OSC_ACT_LEVEL_RUN:
	case OSC_ACT_LEVEL_PATH: case OSC_ACT_LEVEL_CATEGORY: case OSC_ACT_LEVEL_MODULE:
	case OSC_ACT_NAME_STYLE: case OSC_ACT_VIEW_RUNS: case OSC_ACT_VIEW_GPU:
	case OSC_ACT_TIMELINE: case OSC_ACT_SELECT_RANGE: case OSC_ACT_SELECT_ALL:
	case OSC_ACT_TOGGLE_WARMUP: case OSC_ACT_FILTER: case OSC_ACT_TREE:
	case OSC_ACT_COMPARE_MATCH: case OSC_ACT_CHANGED_ONLY: case OSC_ACT_OTHER_RUNS:
	case OSC_ACT_COMPARE_LAYOUT: case OSC_ACT_WHATIF: case OSC_ACT_HISTOGRAM:
	case OSC_ACT_MATRIX: case OSC_ACT_SET_FACTOR: case OSC_ACT_WARNINGS:
	case OSC_ACT_SORT_NEXT: case OSC_ACT_SORT_PREV: case OSC_ACT_SORT_REVERSE:
		return true;
	default:
		return false;
	}
}

static unsigned ranks_action(struct osc_tui *t, struct osc_view *v, enum osc_action a)
{
	struct ranks_view *rv = v->priv;
	const char *trace, *base;

	if (!rv->table.nr)
		return OSC_R_UNHANDLED;
	switch (a) {
	case OSC_ACT_ENTER:
		trace = trace_of(t, rv, v->cur);
		return trace ? run_child(t, trace, NULL) : OSC_R_REDRAW;
	case OSC_ACT_TOGGLE_RUN:
		rv->base = rv->base == v->cur ? SIZE_MAX : v->cur;
		osc_tui_message(t, OSC_MSG_INFO, rv->base == SIZE_MAX ? "no base rank" :
				"rank %s is the base: b on another rank compares them",
				osc_rank_table_cell(rv->job, &rv->table, v->cur, 0,
						    (char[32]){ 0 }, 32));
		return OSC_R_REDRAW;
	case OSC_ACT_COMPARE_RANKS:
		if (rv->base == SIZE_MAX || rv->base == v->cur) {
			osc_tui_message(t, OSC_MSG_INFO, "mark the base rank with Space, then b on "
					"the rank to compare it with");
			return OSC_R_REDRAW;
		}
		base = trace_of(t, rv, rv->base);
		trace = base ? trace_of(t, rv, v->cur) : NULL;
		return trace ? run_child(t, base, trace) : OSC_R_REDRAW;
	default:
		if (!trace_action(a))
			return OSC_R_UNHANDLED;
		osc_tui_message(t, OSC_MSG_INFO, "a job's ranks: Enter opens the rank's explorer, "
				"where this key works");
		return OSC_R_REDRAW;
	}
}

static const char *ranks_export_name(struct osc_tui *t, struct osc_view *v)
{
	(void)t;
	(void)v;
	return "ranks";
}

/* `opscope report --by rank [--straggler K] [--runs SPEC] [--ranks LIST] INPUTS -F csv`: x's CSV. */
static char *ranks_command(struct osc_tui *t, struct osc_view *v)
{
	const struct osc_tui_args *a = t->args;
	char *line = osc_xstrdup("opscope report --by rank");

	(void)v;
	if (a->straggler > 0) {
		char k[32];

		snprintf(k, sizeof(k), "%g", a->straggler);
		line = osc_cli_line_arg(osc_cli_line_arg(line, "--straggler"), k);
	}
	if (a->runs)
		line = osc_cli_line_arg(osc_cli_line_arg(line, "--runs"), a->runs);
	if (a->ranks)
		line = osc_cli_line_arg(osc_cli_line_arg(line, "--ranks"), a->ranks);
	for (size_t i = 0; i < a->nr_job_inputs; i++)
		line = osc_cli_line_arg(line, a->job_inputs[i]);
	return osc_cli_line_arg(osc_cli_line_arg(line, "-F"), "csv");
}

const struct osc_view_ops osc_view_ranks = {
	.name = "ranks",
	.open = ranks_open,
	.close = ranks_close,
	.table = ranks_table,
	.flex_col = OSC_RANK_COL_TOP_KERNEL,
	.mark = ranks_mark,
	.action = ranks_action,
	.title = ranks_title,
	.bases = ranks_bases,
	.bases_only = true,
	.export_name = ranks_export_name,
	.command = ranks_command,
};
