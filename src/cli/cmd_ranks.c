/*
 * cmd_ranks.c - `opscope report` on a distributed job (job.h): the inputs
 * loaded into rank summaries with a progress line each, then the rank table
 * (--by rank), every rank's rows (--split rank) or a level's rows across
 * the ranks (ranks.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "opscope/analysis/collective_skew.h"
#include "opscope/analysis/job.h"
#include "opscope/analysis/job_info.h"
#include "opscope/analysis/ranks.h"
#include "opscope/base/alloc.h"
#include "opscope/load/summary_file.h"
#include "cli.h"

/* Whether path is a directory or a summary file: a job even alone. */
static bool job_input(const char *path)
{
	struct stat sb;

	if (!strcmp(path, "-") || stat(path, &sb))
		return false;
	return S_ISDIR(sb.st_mode) || osc_summary_is_file(path);
}

bool osc_cli_view_is_job(const struct osc_cli_view *v)
{
	if (v->other)
		return false;
	return v->nr_inputs > 1 || (v->nr_inputs == 1 && job_input(v->inputs[0]));
}

/* A line on stderr as each input is done: which rank, what it held, how long it took. */
static void say_loaded(const struct osc_job_progress *p, void *userdata)
{
	const struct osc_summary *s = p->rank;
	char rank[64];

	(void)userdata;
	if (s->rank.source == OSC_RANK_NONE)
		snprintf(rank, sizeof(rank), "rank by input order");
	else
		snprintf(rank, sizeof(rank), "rank %lld (%s)", (long long)s->rank.rank,
			 osc_rank_source_name(s->rank.source));
	if (p->trace)
		osc_cli_print_warnings(p->trace, p->path);
	fprintf(stderr, "opscope: [%zu/%zu] %s: %s: %llu events, %zu runs, %.2f s\n", p->done,
		p->nr, osc_cli_input_name(p->path), rank, (unsigned long long)s->events,
		s->nr_runs, p->seconds);
}

/* Options of a single trace's table that a job's tables do not have. */
static enum osc_status check_job_options(const struct osc_cli_view *v, struct osc_error *err)
{
	const char *fixed = osc_cli_fixed_table_option(v);
	const char *bad = v->histogram ? "--histogram" : v->matrix ? "--matrix" : fixed ? fixed :
			  v->op_instance ? "--by" : v->trace_column ? "--trace-column" :
			  v->regex ? "--regex" : NULL;

	if (bad)
		return osc_error_set(err, OSC_USAGE, bad, OSC_NO_OFFSET, NULL,
				     "not with a job's ranks (a job's tables have their own order "
				     "and columns)");
	if (!v->by_rank && v->level == OSC_LEVEL_RUN)
		return osc_error_set(err, OSC_USAGE, "--by", OSC_NO_OFFSET, NULL,
				     "run: a job's rank table (--by rank) has each rank's runs "
				     "summed; a rank's own runs are in its trace's report");
	if (v->by_rank && v->split_rank)
		return osc_error_set(err, OSC_USAGE, "--split", OSC_NO_OFFSET, NULL,
				     "not with --by rank (the rank table has a row per rank)");
	if (v->straggler > 0 && !v->by_rank)
		return osc_error_set(err, OSC_USAGE, "--straggler", OSC_NO_OFFSET, NULL,
				     "needs --by rank");
	if (v->by_rank && v->nr_filters)
		return osc_error_set(err, OSC_USAGE, "--filter", OSC_NO_OFFSET, NULL,
				     "not with --by rank (its rows are ranks, not names: --ranks "
				     "keeps some)");
	return OSC_OK;
}

/* The tables a job prints, and which one this is. */
struct ranks_out {
	const struct osc_job *job;
	struct osc_rank_table table;
	struct osc_rank_dist dist;
	struct osc_rank_split split;
	const struct osc_filter *filter; /* rows kept by name (dist and split) */
	size_t *keep;                    /* the rows shown, after the filter and --top */
	size_t nr_keep, nr_all;
	enum { RANK_TABLE, RANK_DIST, RANK_SPLIT } what;
};

static const char *cell(const void *ctx, size_t row, size_t col, char *buf, size_t size)
{
	const struct ranks_out *o = ctx;
	size_t r = o->keep[row];

	switch (o->what) {
	case RANK_TABLE:
		return osc_rank_table_cell(o->job, &o->table, r, col, buf, size);
	case RANK_DIST:
		return osc_rank_dist_cell(o->job, &o->dist, r, col, buf, size);
	default:
		return osc_rank_split_cell(o->job, &o->split, r, col, buf, size);
	}
}

/* The rows kept: those whose name passes the filter, the first `top` (0: all). */
static void keep_rows(struct ranks_out *o, size_t top)
{
	size_t n = o->what == RANK_TABLE ? o->table.nr : o->what == RANK_DIST ? o->dist.nr
									     : o->split.nr;

	o->nr_all = n;
	o->keep = osc_xmalloc((n ? n : 1) * sizeof(*o->keep));
	for (size_t i = 0; i < n; i++) {
		const char *name = o->what == RANK_DIST ? o->dist.rows[i].key :
				   o->what == RANK_SPLIT ? o->split.rows[i].key : NULL;

		if (name && !osc_filter_match(o->filter, name, strlen(name)))
			continue;
		if (top && o->nr_keep == top && o->what != RANK_SPLIT)
			break;
		o->keep[o->nr_keep++] = i;
	}
	if (o->what == RANK_SPLIT && top) { /* --top: per rank */
		size_t out = 0, run = 0;

		for (size_t k = 0; k < o->nr_keep; k++) {
			size_t i = o->keep[k];

			run = k && o->split.rows[i].index == o->split.rows[o->keep[k - 1]].index
				      ? run + 1 : 0;
			if (run < top)
				o->keep[out++] = i;
		}
		o->nr_keep = out;
	}
}

static enum osc_status write_ranks(struct ranks_out *o, const struct osc_cli_view *v,
				   const struct osc_rank_runs *runs, struct osc_error *err)
{
	char ranks[32], rows[64], what[160];
	const char *keys[] = { "ranks", "runs", "table", "rows" };
	const char *values[] = { ranks, runs->text, what, rows };
	struct osc_export_meta meta = { keys, values, 4, NULL };
	struct osc_table t = { .cell = cell, .ctx = o, .nr_rows = o->nr_keep };

	snprintf(ranks, sizeof(ranks), "%zu", o->job->nr);
	snprintf(rows, sizeof(rows), "%zu of %zu", o->nr_keep, o->nr_all);
	if (o->what == RANK_TABLE) {
		snprintf(what, sizeof(what), "one row per rank; flags beyond %.2fx the median",
			 o->table.k);
		t.cols = osc_rank_table_columns(&t.nr_cols);
	} else if (o->what == RANK_DIST) {
		snprintf(what, sizeof(what), "%s rows across ranks: %s", osc_level_name(v->level),
			 o->dist.measure == OSC_MEASURE_SELF ? "self time" :
			 o->dist.measure == OSC_MEASURE_DEVICE ? "device time launched" :
								  "device time");
		t.cols = osc_rank_dist_columns(&t.nr_cols);
	} else {
		snprintf(what, sizeof(what), "%s rows of every rank", osc_level_name(v->level));
		t.cols = osc_rank_split_columns(&t.nr_cols);
	}
	return osc_cli_write_view(v, &t, &meta, err);
}

/*
 * A summary file written before summaries recorded their kernels' names
 * keeps the demangled names it holds in another style, and its kernel rows
 * pair with the other ranks' only where the names agree. Say so on stderr
 * when kernel rows are read (a device level not in skip_levels).
 */
static void note_summary_names(const struct osc_cli_view *v, unsigned skip_levels,
			       const struct osc_job *job)
{
	size_t files = 0;
	bool kernel_rows = false;

	for (int l = 0; l < OSC_LEVEL_COUNT; l++)
		kernel_rows |= osc_level_is_device((enum osc_level)l) && !(skip_levels >> l & 1);
	for (size_t i = 0; i < job->nr; i++)
		files += job->ranks[i].names_kept > 0;
	if (!files || !kernel_rows)
		return;
	fprintf(stderr, "opscope: note: %zu of %zu inputs are summary files written without "
		"their kernels' recorded names: their kernel rows stay demangled, and %s pairs "
		"them with the other ranks' only where the names agree\n", files, job->nr,
		v->names == OSC_NAMES_SHORT ? "--short-names" :
		v->names == OSC_NAMES_MANGLED ? "--no-demangle" : "--demangler");
}

enum osc_status osc_cli_load_job(const struct osc_cli_view *v, const char *keep_runs,
				 unsigned skip_levels, struct osc_job *job,
				 struct osc_error *err)
{
	struct osc_job_opts jo = {
		.max_input = v->max_input, .ops = v->ops, .categories = &v->categories,
		.names = v->names, .demangler = v->demangler,
		.keep_runs = keep_runs, .skip_levels = skip_levels,
		.runs = { .range = v->run_range, .whole = v->whole_trace },
		.progress = say_loaded,
	};
	char **paths = NULL;
	size_t nr = 0;
	enum osc_status st = osc_job_expand(v->inputs, v->nr_inputs, &paths, &nr, err);

	if (st == OSC_OK)
		st = osc_job_load((const char *const *)paths, nr, &jo, job, err);
	if (st == OSC_OK)
		note_summary_names(v, skip_levels, job);
	if (st == OSC_OK && v->ranks)
		st = osc_job_keep_ranks(job, v->ranks, err);
	for (size_t i = 0; i < nr; i++)
		free(paths[i]);
	free(paths);
	return st;
}

/* Load the job of v's inputs, then print the table v asks for. */
static enum osc_status ranks_report(struct osc_cli_view *v, struct osc_job *job,
				    struct osc_rank_runs *runs, struct ranks_out *o,
				    struct osc_error *err)
{
	enum osc_status st = check_job_options(v, err);

	/* the rank table reads the kernel level (its top kernel); the others their level */
	if (st == OSC_OK)
		st = osc_cli_load_job(v, NULL,
				      OSC_CLI_ALL_LEVELS_BUT(v->by_rank ? OSC_LEVEL_KERNEL : v->level),
				      job, err);
	if (st == OSC_OK)
		st = osc_rank_runs_parse(job, v->runs, runs, err);
	if (st != OSC_OK)
		return st;
	o->job = job;
	o->filter = &v->filter;
	if (v->by_rank) {
		o->what = RANK_TABLE;
		st = osc_rank_table(job, runs, v->straggler, &o->table, err);
		if (st != OSC_OK)
			return st;
	} else if (v->split_rank) {
		o->what = RANK_SPLIT;
		osc_rank_split(job, runs, v->level, &o->split);
	} else {
		o->what = RANK_DIST;
		osc_rank_dist(job, runs, v->level, &o->dist);
	}
	keep_rows(o, v->top);
	if (o->what == RANK_TABLE && o->table.nr_flagged)
		fprintf(stderr, "opscope: %zu of %zu ranks flagged (see the flags column)\n",
			o->table.nr_flagged, o->table.nr);
	return write_ranks(o, v, runs, err);
}

int osc_ranks_run(struct osc_cli_view *v)
{
	struct osc_job job = { 0 };
	struct osc_rank_runs runs = { 0 };
	struct ranks_out o;
	struct osc_error err;
	enum osc_status st;

	memset(&o, 0, sizeof(o));
	osc_error_clear(&err);
	st = ranks_report(v, &job, &runs, &o, &err);
	free(o.keep);
	osc_rank_table_release(&o.table);
	osc_rank_dist_release(&o.dist);
	osc_rank_split_release(&o.split);
	osc_rank_runs_release(&runs);
	osc_job_release(&job);
	return st == OSC_OK ? OSC_EXIT_OK : osc_cli_fail(&err);
}

/* The skew tables (collective_skew.h) as an osc_table. */
struct skew_out {
	const struct osc_summary **ranks;
	struct osc_skew skew;
	bool per_call;
};

static const char *skew_cell(const void *ctx, size_t row, size_t col, char *buf, size_t size)
{
	const struct skew_out *o = ctx;

	return o->per_call ? osc_skew_cell(o->ranks, &o->skew, row, col, buf, size)
			   : osc_skew_sum_cell(&o->skew, row, col, buf, size);
}

static enum osc_status collectives(struct osc_cli_view *v, struct osc_job *job,
				   struct osc_rank_runs *runs, struct skew_out *o,
				   struct osc_error *err)
{
	const uint8_t **on;
	char ranks[32];
	const char *keys[] = { "ranks", "runs", "table" };
	const char *values[] = { ranks, NULL, NULL };
	struct osc_export_meta meta = { keys, values, 3, NULL };
	struct osc_table t = { .cell = skew_cell, .ctx = o };
	enum osc_status st = osc_cli_load_job(v, NULL, OSC_CLI_ALL_LEVELS, job, err);

	if (st == OSC_OK)
		st = osc_rank_runs_parse(job, v->runs, runs, err);
	if (st != OSC_OK)
		return st;
	o->ranks = osc_xcalloc(job->nr ? job->nr : 1, sizeof(*o->ranks));
	on = osc_xcalloc(job->nr ? job->nr : 1, sizeof(*on));
	for (size_t i = 0; i < job->nr; i++) {
		o->ranks[i] = &job->ranks[i];
		on[i] = runs->sel[i].on;
	}
	osc_collective_skew(o->ranks, job->nr, on, &o->skew);
	free(on);
	if (!o->skew.nr)
		fprintf(stderr, "opscope: note: the selected runs hold no collective call\n");
	snprintf(ranks, sizeof(ranks), "%zu", job->nr);
	values[1] = runs->text;
	values[2] = o->per_call ? "one row per call, matched across the ranks by group and order"
				: "calls summed per group, collective, algorithm and protocol";
	t.cols = o->per_call ? osc_skew_columns(&t.nr_cols) : osc_skew_sum_columns(&t.nr_cols);
	t.nr_rows = o->per_call ? o->skew.nr : o->skew.nr_sums;
	if (v->top && v->top < t.nr_rows)
		t.nr_rows = v->top;
	return osc_cli_write_view(v, &t, &meta, err);
}

int osc_ranks_collectives_run(struct osc_cli_view *v)
{
	struct osc_job job = { 0 };
	struct osc_rank_runs runs = { 0 };
	struct skew_out o = { .per_call = v->per_call };
	struct osc_error err;
	enum osc_status st;

	osc_error_clear(&err);
	st = collectives(v, &job, &runs, &o, &err);
	osc_skew_release(&o.skew);
	free(o.ranks);
	osc_rank_runs_release(&runs);
	osc_job_release(&job);
	return st == OSC_OK ? OSC_EXIT_OK : osc_cli_fail(&err);
}

static const char *info_cell(const void *ctx, size_t row, size_t col, char *buf, size_t size)
{
	return osc_job_info_cell(ctx, row, col, buf, size);
}

int osc_ranks_info_run(struct osc_cli_view *v)
{
	struct osc_job job = { 0 };
	struct osc_error err;
	char ranks[512];
	const char *keys[] = { "ranks" };
	const char *values[] = { ranks };
	struct osc_export_meta meta = { keys, values, 1, NULL };
	struct osc_table t = { .cell = info_cell, .ctx = &job };
	enum osc_status st;

	osc_error_clear(&err);
	st = osc_cli_load_job(v, NULL, OSC_CLI_ALL_LEVELS, &job, &err);
	if (st == OSC_OK) {
		osc_job_world_text(&job, ranks, sizeof(ranks));
		t.cols = osc_job_info_columns(&t.nr_cols);
		t.nr_rows = job.nr;
		st = osc_cli_write_view(v, &t, &meta, &err);
	}
	osc_job_release(&job);
	return st == OSC_OK ? OSC_EXIT_OK : osc_cli_fail(&err);
}
