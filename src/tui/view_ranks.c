/*
 * view_ranks.c - the ranks of a distributed job (ranks.h's rank table):
 * each rank's step, GPU breakdown and straggler flags, the flagged ranks
 * highlighted. Space marks ranks; a level key shows that level's rows
 * across the marked ranks (every rank when none is), view_rank_rows.c.
 * Enter opens a rank's own explorer and b compares it with a marked rank:
 * each a child opscope on the ranks' traces, in this terminal, back here
 * when it quits (a job's explorer holds summaries, not traces). The other
 * trace keys (K, T, V, ...) say so: they work in a rank's explorer.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opscope/analysis/job.h"
#include "opscope/analysis/ranks.h"
#include "opscope/base/alloc.h"
#include "cli_line.h"
#include "rank_common.h"
#include "view.h"

struct ranks_view {
	const struct osc_job *job;
	struct osc_rank_runs runs;
	struct osc_rank_table table;
	bool *marked;       /* per row (rank): marked with Space */
	size_t nr_marked;
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
	rv->marked = osc_xcalloc(rv->job->nr ? rv->job->nr : 1, sizeof(*rv->marked));
	if (osc_rank_runs_parse(rv->job, t->args->runs, &rv->runs, &err) != OSC_OK) {
		osc_error_format(&err, msg, sizeof(msg));
		osc_tui_note(t, OSC_MSG_ERROR, "%s (each rank's default runs used)", msg);
		osc_rank_runs_parse(rv->job, NULL, &rv->runs, &err);
	}
	if (osc_rank_table(rv->job, &rv->runs, t->args->straggler, &rv->table, &err) != OSC_OK) {
		osc_error_format(&err, msg, sizeof(msg));
		osc_tui_note(t, OSC_MSG_ERROR, "%s", msg);
	}
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
	free(rv->marked);
	free(rv);
}

static void ranks_table(struct osc_tui *t, struct osc_view *v, struct osc_table *out)
{
	struct ranks_view *rv = v->priv;

	(void)t;
	*out = (struct osc_table){ .nr_rows = rv->table.nr, .cell = ranks_cell, .ctx = rv };
	out->cols = osc_rank_table_columns(&out->nr_cols);
}

/* A marked rank as a selected run; a flagged rank as the slowest instance is. */
static enum osc_mark ranks_mark(struct osc_tui *t, struct osc_view *v, size_t row)
{
	struct ranks_view *rv = v->priv;

	(void)t;
	if (rv->marked[row])
		return OSC_MARK_ON;
	return rv->table.rows[row].flags ? OSC_MARK_MAX : OSC_MARK_NONE;
}

static void ranks_title(struct osc_tui *t, struct osc_view *v, char *buf, size_t size)
{
	struct ranks_view *rv = v->priv;

	(void)t;
	if (rv->nr_marked)
		snprintf(buf, size, "ranks (%zu, %zu marked; flags beyond %.2fx the median; 1-9: "
			 "a level across the marked, Enter: a rank's explorer, b: compare)",
			 rv->table.nr, rv->nr_marked, rv->table.k);
	else
		snprintf(buf, size, "ranks (%zu; flags beyond %.2fx the median; Enter: a rank's "
			 "explorer, Space: mark, 1-9: a level across ranks)", rv->table.nr,
			 rv->table.k);
}

static void ranks_bases(struct osc_tui *t, struct osc_view *v, char *buf, size_t size)
{
	struct ranks_view *rv = v->priv;

	(void)t;
	snprintf(buf, size, "%s | busy_pct of each rank's wall time", rv->runs.text);
}

/* The rank of row as text. */
static const char *rank_text(const struct ranks_view *rv, size_t row, char *buf, size_t size)
{
	return osc_rank_table_cell(rv->job, &rv->table, row, 0, buf, size);
}

/* b: the lowest marked rank other than the cursor's against the cursor's. */
static unsigned compare_ranks(struct osc_tui *t, struct osc_view *v, struct ranks_view *rv)
{
	const char *base, *trace;
	size_t b = 0;

	while (b < rv->table.nr && (!rv->marked[b] || b == v->cur))
		b++;
	if (b == rv->table.nr) {
		osc_tui_message(t, OSC_MSG_INFO, "mark the base rank with Space, then b on the "
				"rank to compare it with");
		return OSC_R_REDRAW;
	}
	base = osc_rank_trace(t, &rv->job->ranks[rv->table.rows[b].index]);
	trace = base ? osc_rank_trace(t, &rv->job->ranks[rv->table.rows[v->cur].index]) : NULL;
	return trace ? osc_rank_explore(t, base, trace, NULL) : OSC_R_REDRAW;
}

/* A level key: the level's rows across the marked ranks (every rank when none is). */
static unsigned open_level(struct osc_tui *t, struct ranks_view *rv, enum osc_level l)
{
	bool *chosen = osc_xcalloc(rv->job->nr ? rv->job->nr : 1, sizeof(*chosen));

	for (size_t r = 0; r < rv->table.nr; r++)
		chosen[rv->table.rows[r].index] = !rv->nr_marked || rv->marked[r];
	osc_view_push(t, &osc_view_rank_rows,
		      &(struct osc_rank_rows_arg){ .level = l, .chosen = chosen });
	free(chosen);
	return OSC_R_REDRAW;
}

static unsigned ranks_action(struct osc_tui *t, struct osc_view *v, enum osc_action a)
{
	struct ranks_view *rv = v->priv;
	const char *trace;
	char rank[32];

	if (!rv->table.nr)
		return OSC_R_UNHANDLED;
	if (a >= OSC_ACT_LEVEL_OP && a <= OSC_ACT_LEVEL_MODULE && a != OSC_ACT_LEVEL_RUN)
		return open_level(t, rv, osc_view_level_of_action(a));
	switch (a) {
	case OSC_ACT_NEXT_LEVEL:
	case OSC_ACT_PREV_LEVEL:
		return open_level(t, rv, OSC_LEVEL_OP);
	case OSC_ACT_LEVEL_RUN:
		osc_tui_message(t, OSC_MSG_INFO, "a job's runs: this table sums each rank's runs; "
				"Enter opens a rank's explorer with its runs");
		return OSC_R_REDRAW;
	case OSC_ACT_ENTER:
		trace = osc_rank_trace(t, &rv->job->ranks[rv->table.rows[v->cur].index]);
		return trace ? osc_rank_explore(t, trace, NULL, NULL) : OSC_R_REDRAW;
	case OSC_ACT_TOGGLE_RUN:
		rv->marked[v->cur] = !rv->marked[v->cur];
		rv->nr_marked += rv->marked[v->cur] ? 1 : (size_t)-1;
		osc_tui_message(t, OSC_MSG_INFO, "rank %s %s; %zu marked: 1-9 shows a level across "
				"them, b compares a rank with the lowest marked",
				rank_text(rv, v->cur, rank, sizeof(rank)),
				rv->marked[v->cur] ? "marked" : "unmarked", rv->nr_marked);
		osc_view_select(v, v->cur + 1);
		return OSC_R_REDRAW;
	case OSC_ACT_COMPARE_RANKS:
		return compare_ranks(t, v, rv);
	default:
		return osc_rank_trace_action(a) ? osc_rank_trace_key(t) : OSC_R_UNHANDLED;
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
	char k[32];

	(void)v;
	if (!(t->args->straggler > 0))
		return osc_rank_command(t, osc_xstrdup("--by rank"), NULL);
	snprintf(k, sizeof(k), "%g", t->args->straggler);
	return osc_rank_command(t, osc_cli_line_arg(osc_xstrdup("--by rank --straggler"), k), NULL);
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
