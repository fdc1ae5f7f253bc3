/*
 * view_rank_rows.c - a level's rows across the chosen ranks of a job
 * (ranks.h): each row's spread over the ranks (HTA's distribution), every
 * rank's rows (| flips between the two), or one row on each rank (Enter on
 * a spread row), its slowest and fastest rank highlighted. Enter on a rank's
 * row opens that rank's own explorer at the level. The level keys change the level.
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

struct rank_rows_view {
	const struct osc_job *job;
	struct osc_job sub;        /* the chosen ranks: copies of the job's summaries, not owned */
	bool *chosen;              /* per rank of the job */
	char *ranks;               /* the chosen ranks as a --ranks list, NULL: every rank */
	struct osc_rank_runs runs;
	enum osc_level level;
	bool split;
	char *key;                 /* one row on each rank, NULL: the whole level */
	struct osc_rank_dist dist;
	struct osc_rank_split rows;
	size_t *keep, nr_keep;     /* the split rows shown (all, or those of key) */
	size_t lo, hi;             /* with a key: the rows of its smallest and largest value */
};

/* Append "A" or "A-B" for the ranks [a, b] to a --ranks list. */
static char *add_range(char *list, long long a, long long b)
{
	char *next = a == b ? osc_xasprintf("%s%s%lld", list ? list : "", list ? "," : "", a)
			    : osc_xasprintf("%s%s%lld-%lld", list ? list : "", list ? "," : "", a, b);

	free(list);
	return next;
}

/* The chosen ranks as a --ranks list ("0-3,8"), NULL when every rank is chosen. */
static char *ranks_list(const struct osc_job *j, const bool *chosen, size_t nr_chosen)
{
	char *list = NULL;

	if (nr_chosen == j->nr)
		return NULL;
	for (size_t i = 0; i < j->nr;) {
		size_t end = i;

		if (!chosen[i]) {
			i++;
			continue;
		}
		while (end + 1 < j->nr && chosen[end + 1] &&
		       j->ranks[end + 1].rank.rank == j->ranks[end].rank.rank + 1)
			end++;
		list = add_range(list, (long long)j->ranks[i].rank.rank,
				 (long long)j->ranks[end].rank.rank);
		i = end + 1;
	}
	return list;
}

/* Compute what the view shows: the spread, or the split rows kept (with a key, its own). */
static void build(struct rank_rows_view *rv)
{
	osc_rank_dist_release(&rv->dist);
	osc_rank_split_release(&rv->rows);
	rv->nr_keep = 0;
	if (!rv->split && !rv->key) {
		osc_rank_dist(&rv->sub, &rv->runs, rv->level, &rv->dist);
		return;
	}
	osc_rank_split(&rv->sub, &rv->runs, rv->level, &rv->rows);
	free(rv->keep);
	rv->keep = osc_xmalloc((rv->rows.nr ? rv->rows.nr : 1) * sizeof(*rv->keep));
	for (size_t i = 0; i < rv->rows.nr; i++) {
		const struct osc_rank_split_row *r = &rv->rows.rows[i];

		if (rv->key && strcmp(r->key, rv->key))
			continue;
		if (rv->key && (!rv->nr_keep || r->value < rv->rows.rows[rv->keep[rv->lo]].value))
			rv->lo = rv->nr_keep;
		if (rv->key && (!rv->nr_keep || r->value > rv->rows.rows[rv->keep[rv->hi]].value))
			rv->hi = rv->nr_keep;
		rv->keep[rv->nr_keep++] = i;
	}
}

static void rank_rows_open(struct osc_tui *t, struct osc_view *v, const void *arg)
{
	const struct osc_rank_rows_arg *a = arg;
	struct rank_rows_view *rv = osc_xcalloc(1, sizeof(*rv));
	const struct osc_job *j = t->args->job;
	struct osc_error err;

	rv->job = j;
	rv->level = a->level;
	rv->split = a->split;
	rv->key = a->key ? osc_xstrdup(a->key) : NULL;
	rv->chosen = osc_xcalloc(j->nr ? j->nr : 1, sizeof(*rv->chosen));
	rv->sub.ranks = osc_xcalloc(j->nr ? j->nr : 1, sizeof(*rv->sub.ranks));
	for (size_t i = 0; i < j->nr; i++) {
		rv->chosen[i] = a->chosen[i];
		if (a->chosen[i])
			rv->sub.ranks[rv->sub.nr++] = j->ranks[i];
	}
	rv->ranks = ranks_list(j, rv->chosen, rv->sub.nr);
	/* the ranks view has said already when --runs does not fit every rank */
	if (osc_rank_runs_parse(&rv->sub, t->args->runs, &rv->runs, &err) != OSC_OK)
		osc_rank_runs_parse(&rv->sub, NULL, &rv->runs, &err);
	build(rv);
	v->priv = rv;
}

static void rank_rows_close(struct osc_view *v)
{
	struct rank_rows_view *rv = v->priv;

	osc_rank_dist_release(&rv->dist);
	osc_rank_split_release(&rv->rows);
	osc_rank_runs_release(&rv->runs);
	free(rv->keep);
	free(rv->key);
	free(rv->ranks);
	free(rv->chosen);
	free(rv->sub.ranks); /* the summaries are the job's */
	free(rv);
}

static bool shows_dist(const struct rank_rows_view *rv)
{
	return !rv->split && !rv->key;
}

static const char *rank_rows_cell(const void *ctx, size_t row, size_t col, char *buf,
				  size_t size)
{
	const struct rank_rows_view *rv = ctx;

	if (shows_dist(rv))
		return osc_rank_dist_cell(&rv->sub, &rv->dist, row, col, buf, size);
	return osc_rank_split_cell(&rv->sub, &rv->rows, rv->keep[row], col, buf, size);
}

static void rank_rows_table(struct osc_tui *t, struct osc_view *v, struct osc_table *out)
{
	struct rank_rows_view *rv = v->priv;

	(void)t;
	*out = (struct osc_table){ .cell = rank_rows_cell, .ctx = rv,
				   .nr_rows = shows_dist(rv) ? rv->dist.nr : rv->nr_keep };
	out->cols = shows_dist(rv) ? osc_rank_dist_columns(&out->nr_cols)
				   : osc_rank_split_columns(&out->nr_cols);
}

/* With a key: its slowest rank as the slowest instance, its fastest as the fastest. */
static enum osc_mark rank_rows_mark(struct osc_tui *t, struct osc_view *v, size_t row)
{
	struct rank_rows_view *rv = v->priv;

	(void)t;
	if (!rv->key || rv->nr_keep < 2 ||
	    rv->rows.rows[rv->keep[rv->lo]].value == rv->rows.rows[rv->keep[rv->hi]].value)
		return OSC_MARK_NONE;
	return row == rv->hi ? OSC_MARK_MAX : row == rv->lo ? OSC_MARK_MIN : OSC_MARK_NONE;
}

/* "ranks 0-3,8 (5 of 16)", "rank 2 (1 of 16)" or "every rank (16)". */
static const char *ranks_text(const struct rank_rows_view *rv, char *buf, size_t size)
{
	if (rv->ranks)
		snprintf(buf, size, "rank%s %s (%zu of %zu)", rv->sub.nr == 1 ? "" : "s",
			 rv->ranks, rv->sub.nr, rv->job->nr);
	else
		snprintf(buf, size, "every rank (%zu)", rv->sub.nr);
	return buf;
}

static void rank_rows_title(struct osc_tui *t, struct osc_view *v, char *buf, size_t size)
{
	struct rank_rows_view *rv = v->priv;
	char ranks[256];

	(void)t;
	ranks_text(rv, ranks, sizeof(ranks));
	if (rv->key)
		snprintf(buf, size, "%s %s on %s (Enter: the rank's explorer)",
			 osc_level_name(rv->level), rv->key, ranks);
	else if (rv->split)
		snprintf(buf, size, "%s rows of %s (|: their spread, Enter: the rank's "
			 "explorer)", osc_level_name(rv->level), ranks);
	else
		snprintf(buf, size, "%s rows across %s (Enter: the row on each rank, |: every "
			 "rank's rows)", osc_level_name(rv->level), ranks);
}

static void rank_rows_bases(struct osc_tui *t, struct osc_view *v, char *buf, size_t size)
{
	struct rank_rows_view *rv = v->priv;

	(void)t;
	if (shows_dist(rv))
		snprintf(buf, size, "%s | values: %s of each rank", rv->runs.text,
			 rv->dist.measure == OSC_MEASURE_SELF ? "self time" :
			 rv->dist.measure == OSC_MEASURE_DEVICE ? "device time launched" :
								 "the kernels' own time");
	else
		snprintf(buf, size, "%s | self_pct of each rank's host busy time, device_pct of "
			 "its device time", rv->runs.text);
}

static void rank_rows_empty(struct osc_tui *t, struct osc_view *v, char *buf, size_t size)
{
	struct rank_rows_view *rv = v->priv;

	(void)t;
	snprintf(buf, size, "no %s rows in the selected runs of these ranks",
		 osc_level_name(rv->level));
}

/* Show level l (its spread, or every rank's rows as now), from the first row. */
static unsigned show_level(struct osc_view *v, struct rank_rows_view *rv, enum osc_level l)
{
	rv->level = l;
	free(rv->key);
	rv->key = NULL;
	build(rv);
	osc_view_select(v, 0);
	return OSC_R_REDRAW;
}

/* The next (dir 1) or previous (dir -1) level a job has rows of: every one but run. */
static enum osc_level step_level(enum osc_level l, int dir)
{
	do
		l = (enum osc_level)(((int)l + dir + OSC_LEVEL_COUNT) % OSC_LEVEL_COUNT);
	while (l == OSC_LEVEL_RUN);
	return l;
}

/* Enter: a spread row on each rank, or a rank's row in that rank's explorer. */
static unsigned enter(struct osc_tui *t, struct osc_view *v, struct rank_rows_view *rv)
{
	const char *trace;

	if (shows_dist(rv)) {
		osc_view_push(t, &osc_view_rank_rows,
			      &(struct osc_rank_rows_arg){ .level = rv->level, .chosen = rv->chosen,
							   .key = rv->dist.rows[v->cur].key });
		return OSC_R_REDRAW;
	}
	trace = osc_rank_trace(t, &rv->sub.ranks[rv->rows.rows[rv->keep[v->cur]].index]);
	return trace ? osc_rank_explore(t, trace, NULL, osc_level_name(rv->level)) : OSC_R_REDRAW;
}

static unsigned rank_rows_action(struct osc_tui *t, struct osc_view *v, enum osc_action a)
{
	struct rank_rows_view *rv = v->priv;

	if (a >= OSC_ACT_LEVEL_OP && a <= OSC_ACT_LEVEL_MODULE && a != OSC_ACT_LEVEL_RUN)
		return show_level(v, rv, osc_view_level_of_action(a));
	switch (a) {
	case OSC_ACT_NEXT_LEVEL:
	case OSC_ACT_PREV_LEVEL:
		return show_level(v, rv, step_level(rv->level, a == OSC_ACT_NEXT_LEVEL ? 1 : -1));
	case OSC_ACT_LEVEL_RUN:
		osc_tui_message(t, OSC_MSG_INFO, "a job's runs: q back to the rank table, which "
				"sums each rank's runs");
		return OSC_R_REDRAW;
	case OSC_ACT_COMPARE_LAYOUT:
		if (rv->key)
			return OSC_R_UNHANDLED;
		rv->split = !rv->split;
		build(rv);
		osc_view_select(v, 0);
		return OSC_R_REDRAW;
	case OSC_ACT_ENTER:
		return v->tab.nr_rows ? enter(t, v, rv) : OSC_R_REDRAW;
	default:
		return osc_rank_trace_action(a) ? osc_rank_trace_key(t) : OSC_R_UNHANDLED;
	}
}

static const char *rank_rows_export_name(struct osc_tui *t, struct osc_view *v)
{
	struct rank_rows_view *rv = v->priv;

	(void)t;
	return rv->key ? "ranks-row" : rv->split ? "ranks-split" : "ranks-level";
}

/* `opscope report [--split rank] --by LEVEL ... -F csv`; none for one row on each rank. */
static char *rank_rows_command(struct osc_tui *t, struct osc_view *v)
{
	struct rank_rows_view *rv = v->priv;

	if (rv->key)
		return NULL;
	return osc_rank_command(t, osc_xasprintf("%s--by %s", rv->split ? "--split rank " : "",
						 osc_level_name(rv->level)),
				rv->ranks);
}

const struct osc_view_ops osc_view_rank_rows = {
	.name = "rank-rows",
	.open = rank_rows_open,
	.close = rank_rows_close,
	.table = rank_rows_table,
	.flex_col = 0,
	.empty = rank_rows_empty,
	.mark = rank_rows_mark,
	.action = rank_rows_action,
	.title = rank_rows_title,
	.bases = rank_rows_bases,
	.bases_only = true,
	.export_name = rank_rows_export_name,
	.command = rank_rows_command,
};
