/*
 * view_diff.c - the compare view: the trace on screen (the base) against a
 * second trace (the other), as diff.h pairs them.
 *
 * Merged layout: one row per key with both sides' columns and the deltas
 * (osc_diff_columns, the same cells as `opscope diff`, so an export equals
 * its CSV). Split layout: two lines per key, the base's then the other's
 * count, total, mean and share, one under the other. The runs and filter of
 * the TUI apply to the base; the other keeps its own run selection (its
 * default, or --other-runs) and the same filter; both find their runs with
 * the same --run-range or --whole-trace. Kernel names are shown, and paired,
 * in the TUI's name style (m). Enter lists the instances of both sides; Tab
 * cycles the level, M the match mode, o hides unchanged rows, | switches the
 * layout.
 */
#include <stdlib.h>
#include <string.h>

#include "opscope/base/alloc.h"
#include "opscope/export/chart.h"
#include "opscope/load/load.h"
#include "opscope/analysis/trace_cache.h"
#include "cli_line.h"
#include "ahead.h"
#include "kept.h"
#include "view.h"
#include "view_job.h"

/* A comparison computed on a worker (view_job.h) from copies of what it reads. */
struct diff_job {
	struct osc_view_job job;          /* with copies of the base's selection and filter */
	struct osc_diff_side base, other;
	struct osc_runsel other_sel;      /* a copy: O may change the view's meanwhile */
	struct osc_names names[2];        /* each side's, sharing its tables, in one style */
	struct osc_diff_query q;
	struct osc_diff out;              /* the result, sorted by ... */
	enum osc_diff_col sort_by;        /* ... the view's column when it started */
	bool sort_desc;
	unsigned gen, key;                /* the tui->gen and rows_key it is for */
};

struct diff_view {
	char *path;                   /* the other trace, as given; NULL: the base's own */
	struct osc_trace own;         /* the other trace when it is another file */
	const struct osc_trace *other; /* &own, or the base (other runs of it) */
	struct osc_runs runs;
	struct osc_runsel sel;
	struct osc_names names;       /* the other's kernel names */
	enum osc_name_style style;    /* the name style the rows were paired in */
	bool loaded;
	struct osc_diff diff;
	bool diff_made;               /* diff was built (not yet: empty) ... */
	unsigned diff_gen, diff_key;  /* ... for this tui->gen and rows_key */
	struct osc_kept kept;         /* comparisons left (kept.h), keyed by rows_key */
	enum osc_level level;
	enum osc_match match;
	bool changed, split;
	double min_change;            /* 'o' hides rows whose total moved by less (percent:
					 timing noise), OSC_TUI_CHANGED_PCT unless --min-change */
	bool refused;                 /* the sides select different numbers of runs */
	struct osc_runs_side side;    /* the other's runs, for the runs view (O) */
	struct diff_job job;
	struct diff_job ahead;        /* another level's comparison, before it is asked for */
	struct osc_ahead ah;          /* the comparisons computed ahead that did not fit */
};

/* The split layout's columns (its own sort keys map to the diff's). */
enum { S_NAME, S_SIDE, S_COUNT, S_TOTAL, S_MEAN, S_SELF, S_DEVICE, S_NR };
static const struct osc_column split_cols[S_NR] = {
	{ "name", 16, OSC_ALIGN_LEFT, false, OSC_STAT_NAME },
	{ "side", 4, OSC_ALIGN_LEFT, false, OSC_STAT_NAME },
	{ "count", 5, OSC_ALIGN_RIGHT, true, OSC_STAT_COUNT },
	{ "total_us", 9, OSC_ALIGN_RIGHT, true, OSC_STAT_TOTAL },
	{ "mean_us", 9, OSC_ALIGN_RIGHT, true, OSC_STAT_MEAN },
	{ "self_us", 9, OSC_ALIGN_RIGHT, true, OSC_STAT_SELF },
	{ "device_us", 9, OSC_ALIGN_RIGHT, true, OSC_STAT_DEVICE },
};

/* Free what a kept comparison holds (kept.h). */
static void release_diff(void *d)
{
	osc_diff_release(d);
}

/* What rows at level l in match mode m are of besides the runs and filter (and name style). */
static unsigned key_at(const struct osc_tui *t, enum osc_level l, enum osc_match m)
{
	return ((unsigned)l * OSC_MATCH_COUNT + (unsigned)m) * OSC_NAME_STYLE_COUNT +
	       (unsigned)t->names.style;
}

/* What the rows shown are of besides the runs and filter (key_at). */
static unsigned rows_key(const struct osc_tui *t, const struct diff_view *dv)
{
	return key_at(t, dv->level, dv->match);
}

static void diff_open(struct osc_tui *t, struct osc_view *v, const void *arg)
{
	const struct osc_diff_view_arg *a = arg;
	struct diff_view *dv = osc_xcalloc(1, sizeof(*dv));
	struct osc_error err;
	char msg[1024];

	v->priv = dv;
	dv->kept.release = release_diff;
	dv->kept.budget = t->kept_budget;
	dv->kept.states = &t->states;
	dv->kept.free_apart = osc_view_background(t);
	dv->path = a->path ? osc_xstrdup(a->path) : NULL;
	/* no compare rows by module */
	dv->level = a->level == OSC_LEVEL_MODULE ? OSC_LEVEL_OP : a->level;
	dv->match = a->match;
	dv->changed = a->changed;
	dv->min_change = a->min_change;
	v->sort_col = OSC_DIFF_DELTA;
	v->sort_desc = true;
	osc_trace_init(&dv->own);
	osc_names_init(&dv->names);
	osc_error_clear(&err);
	dv->other = a->path ? &dv->own : &t->trace;
	if (a->path &&
	    (osc_load(a->path, NULL, &dv->own, &err) != OSC_OK ||
	     (t->args->ops && osc_trace_select_ops(&dv->own, t->args->ops, &err) != OSC_OK))) {
		osc_error_format(&err, msg, sizeof(msg));
		osc_tui_message(t, OSC_MSG_ERROR, "compare: %s", msg);
		return;
	}
	osc_tui_detect_runs(t, dv->other, &dv->runs, "compare: ");
	if (a->path)
		osc_warnings_note(t, dv->other, &dv->runs, "compare: the other trace: ");
	if (osc_names_build(&dv->names, dv->other, t->args->demangler, &err) != OSC_OK) {
		osc_error_format(&err, msg, sizeof(msg));
		osc_tui_message(t, OSC_MSG_ERROR, "compare: %s", msg);
	}
	if (osc_runsel_parse(a->runs, dv->runs.nr, dv->runs.warmup, &dv->sel, &err) != OSC_OK) {
		osc_error_format(&err, msg, sizeof(msg));
		osc_tui_message(t, OSC_MSG_ERROR, "compare: %s (default runs used)", msg);
		osc_runsel_parse(NULL, dv->runs.nr, dv->runs.warmup, &dv->sel, &err);
	}
	dv->loaded = true;
}

/* Wait for a running job and free what it copied; its comparison is left in out. */
static void job_finish(struct diff_job *j)
{
	osc_view_job_join(&j->job);
	osc_runsel_release(&j->other_sel);
}

/* Wait for j if it runs (a script's held job: closing lets it go) and free its result. */
static void job_drop(struct diff_job *j)
{
	if (!j->job.running)
		return;
	atomic_store(j->job.held, false);
	job_finish(j);
	osc_diff_release(&j->out);
}

static void diff_close(struct osc_view *v)
{
	struct diff_view *dv = v->priv;

	job_drop(&dv->job);
	job_drop(&dv->ahead);
	osc_diff_release(&dv->diff);
	osc_kept_release(&dv->kept);
	osc_runsel_release(&dv->sel);
	osc_runs_release(&dv->runs);
	osc_names_release(&dv->names);
	osc_trace_release(&dv->own);
	free(dv->path);
	free(dv);
}

/* The query of the compare rows at level l in match mode m over the base's filter f. */
static struct osc_diff_query diff_query(const struct osc_tui *t, enum osc_level l,
					enum osc_match m, const struct osc_filter *f)
{
	return (struct osc_diff_query){
		.level = l,
		.match = m,
		.filter = f, /* empty: none (diff.h) */
		.categories = t->args->categories,
	};
}

static void job_work(void *arg)
{
	struct diff_job *j = arg;

	osc_diff(&j->base, &j->other, &j->q, &j->out);
	osc_diff_sort(&j->out, j->sort_by, j->sort_desc); /* shown so unless sorted again */
}

static enum osc_diff_col split_to_diff(size_t col, bool base)
{
	switch (col) {
	case S_NAME:
		return OSC_DIFF_NAME;
	case S_SIDE:
		return OSC_DIFF_SIDE;
	case S_COUNT:
		return base ? OSC_DIFF_BASE_COUNT : OSC_DIFF_OTHER_COUNT;
	case S_MEAN:
		return base ? OSC_DIFF_BASE_MEAN : OSC_DIFF_OTHER_MEAN;
	case S_SELF:
		return base ? OSC_DIFF_BASE_SELF : OSC_DIFF_OTHER_SELF;
	case S_DEVICE:
		return base ? OSC_DIFF_BASE_DEVICE : OSC_DIFF_OTHER_DEVICE;
	default:
		return base ? OSC_DIFF_BASE_TOTAL : OSC_DIFF_OTHER_TOTAL;
	}
}

/* The column v's rows sort by: the split layout's columns map to the diff's. */
static enum osc_diff_col sort_column(const struct osc_view *v)
{
	const struct diff_view *dv = v->priv;

	return dv->split ? split_to_diff(v->sort_col, false) : (enum osc_diff_col)v->sort_col;
}

/*
 * Start j on the comparison at level l in match mode m, on at most threads
 * threads (0: as -j allows), sorted as v's rows are now.
 */
static bool job_start_at(struct osc_tui *t, struct osc_view *v, struct diff_job *j,
			 enum osc_level l, enum osc_match m, unsigned threads)
{
	struct diff_view *dv = v->priv;

	j->sort_by = sort_column(v);
	j->sort_desc = v->sort_desc;
	j->names[0] = t->names;
	j->names[1] = dv->names;
	osc_runsel_copy(&j->other_sel, &dv->sel);
	j->base = (struct osc_diff_side){ &t->trace, &t->runs, &j->job.sel, &j->names[0] };
	j->other = (struct osc_diff_side){ dv->other, &dv->runs, &j->other_sel, &j->names[1] };
	j->q = diff_query(t, l, m, &j->job.filter);
	j->q.threads = threads;
	j->gen = t->gen;
	j->key = key_at(t, l, m);
	memset(&j->out, 0, sizeof(j->out));
	if (osc_view_job_start(t, &j->job, job_work, j))
		return true;
	osc_runsel_release(&j->other_sel);
	return false;
}

/* Start the job of the rows shown. */
static bool job_start(struct osc_tui *t, struct osc_view *v)
{
	struct diff_view *dv = v->priv;

	return job_start_at(t, v, &dv->job, dv->level, dv->match, 0);
}

/*
 * Our rows are now d, built for tui->gen gen and rows_key key; the rows shown
 * before are kept (kept.h) for the state they were built for.
 */
static void take_diff(struct diff_view *dv, struct osc_diff *d, unsigned gen, unsigned key)
{
	osc_kept_retire(&dv->kept, dv->diff_made, dv->diff_key, dv->diff_gen, &dv->diff,
			sizeof(dv->diff), osc_diff_bytes(&dv->diff));
	dv->diff = *d;
	memset(d, 0, sizeof(*d));
	dv->diff_made = true;
	dv->diff_gen = gen;
	dv->diff_key = key;
	osc_diff_changed_only(&dv->diff, dv->changed, dv->min_change);
}

static void diff_build(struct osc_tui *t, struct osc_view *v)
{
	struct diff_view *dv = v->priv;
	const struct osc_diff_side base = { &t->trace, &t->runs, &t->sel, &t->names };
	const struct osc_diff_side other = { dv->other, &dv->runs, &dv->sel, &dv->names };
	struct osc_diff_query q = diff_query(t, dv->level, dv->match, &t->filter);
	struct osc_diff made;
	char note[256];

	dv->style = dv->names.style = t->names.style;
	if (!dv->loaded)
		return;
	/*
	 * Totals of 3 runs against 10 differ by the runs, not the code: no row
	 * is shown until both sides select as many (R, O).
	 */
	dv->refused = t->sel.nr_on != dv->sel.nr_on;
	if (dv->refused) {
		osc_diff_runs_note(&t->sel, &dv->sel, note, sizeof(note));
		osc_tui_message(t, OSC_MSG_ERROR,
				"not compared: the base selects %zu run%s and the other %zu; R picks "
				"the base's runs, O the other's", t->sel.nr_on,
				t->sel.nr_on == 1 ? "" : "s", dv->sel.nr_on);
	}
	if (dv->job.job.running) {
		dv->job.job.again = true;
		return;
	}
	/* the comparison of a state met before (w twice) */
	if (osc_kept_take(&dv->kept, rows_key(t, dv), t->gen, &made, sizeof(made))) {
		take_diff(dv, &made, t->gen, rows_key(t, dv));
		return;
	}
	if (osc_view_jobs_wanted(t) && job_start(t, v)) {
		osc_view_job_wait_briefly(t, v, &dv->job.job);
		return;
	}
	osc_diff(&base, &other, &q, &made);
	take_diff(dv, &made, t->gen, rows_key(t, dv));
}

static bool diff_busy(struct osc_view *v)
{
	struct diff_view *dv = v->priv;

	return dv->job.job.running;
}

/* Whether the rows shown are in, of the level, match mode and state asked. */
static bool rows_in(const struct osc_tui *t, const struct diff_view *dv)
{
	return dv->loaded && dv->diff_made && !dv->job.job.running && dv->diff_gen == t->gen &&
	       dv->diff_key == rows_key(t, dv);
}

/*
 * The next comparison to compute ahead, in the name style shown: those of
 * Tab and M (a key away), then the other levels in the match mode shown,
 * then the other match modes at the level shown; neither shown, kept nor too
 * big. false when none is left.
 */
static bool next_ahead(struct osc_tui *t, struct diff_view *dv, enum osc_level *l,
		       enum osc_match *m)
{
	for (int i = -2; i < OSC_LEVEL_MODULE + OSC_MATCH_COUNT; i++) {
		*l = dv->level;
		*m = dv->match;
		if (i == -2) /* Tab's (no compare rows by module) */
			*l = (enum osc_level)((dv->level + 1) % OSC_LEVEL_MODULE);
		else if (i == -1) /* M's */
			*m = (enum osc_match)((dv->match + 1) % OSC_MATCH_COUNT);
		else if (i < OSC_LEVEL_MODULE)
			*l = (enum osc_level)i;
		else
			*m = (enum osc_match)(i - OSC_LEVEL_MODULE);
		if (key_at(t, *l, *m) != rows_key(t, dv) &&
		    osc_ahead_wanted(&dv->ah, &dv->kept, key_at(t, *l, *m), t->gen))
			return true;
	}
	return false;
}

/*
 * Offer the comparison computed ahead once done (ahead.h); then, once the
 * rows shown are in, start on the next one (next_ahead).
 */
static void ahead_poll(struct osc_tui *t, struct osc_view *v)
{
	struct diff_view *dv = v->priv;
	enum osc_level l;
	enum osc_match m;

	if (osc_view_job_finished(&dv->ahead.job)) {
		job_finish(&dv->ahead);
		osc_ahead_done(&dv->ah, &dv->kept, dv->ahead.key, dv->ahead.gen, t->gen,
			       rows_key(t, dv), &dv->ahead.out, sizeof(dv->ahead.out),
			       osc_diff_bytes(&dv->ahead.out));
	}
	if (!osc_tui_ahead_now(t) || dv->ahead.job.running || dv->refused || !rows_in(t, dv))
		return;
	/* one thread: the other cores stay for what is asked meanwhile */
	if (next_ahead(t, dv, &l, &m))
		job_start_at(t, v, &dv->ahead, l, m, 1);
}

static bool diff_ahead(struct osc_view *v)
{
	struct diff_view *dv = v->priv;

	return dv->ahead.job.running;
}

static bool diff_poll(struct osc_tui *t, struct osc_view *v)
{
	struct diff_view *dv = v->priv;

	ahead_poll(t, v);
	if (!osc_view_job_finished(&dv->job.job))
		return false;
	job_finish(&dv->job);
	take_diff(dv, &dv->job.out, dv->job.gen, dv->job.key);
	if (dv->job.job.again)
		job_start(t, v);
	osc_view_rows_replaced(t, v);
	return true;
}

static void diff_sort(struct osc_tui *t, struct osc_view *v)
{
	struct diff_view *dv = v->priv;

	(void)t;
	if (dv->job.job.running) /* the rows coming in are sorted then (diff_poll) */
		return;
	/* Split rows sort by the other side's value (the one that changed). */
	osc_diff_sort(&dv->diff, sort_column(v), v->sort_desc);
}

static const char *split_cell(const struct osc_diff *d, size_t line, size_t col, char *buf,
			      size_t size)
{
	const struct osc_diff_row *r = osc_diff_row_at(d, line / 2);
	int s = (int)(line % 2);
	const struct osc_diff_stat *st = &r->side[s];

	buf[0] = '\0';
	switch (col) {
	case S_NAME:
		if (s)
			return buf; /* the key once per pair */
		return osc_diff_cell(d, line / 2, OSC_DIFF_NAME, buf, size);
	case S_SIDE:
		snprintf(buf, size, "%c%s", r->status, s ? " new" : " old");
		break;
	case S_COUNT:
		snprintf(buf, size, "%llu", (unsigned long long)st->count);
		break;
	case S_TOTAL:
		osc_format_us_int(st->total, buf, size);
		break;
	case S_MEAN:
		osc_format_us(st->mean, buf, size);
		break;
	case S_SELF:
		osc_format_us_int(st->self, buf, size);
		break;
	case S_DEVICE:
		osc_format_us_int(st->dev, buf, size);
		break;
	}
	return buf;
}

static const char *diff_cell(const void *ctx, size_t row, size_t col, char *buf, size_t size)
{
	const struct osc_view *v = ctx;
	const struct diff_view *dv = v->priv;

	if (dv->split)
		return split_cell(&dv->diff, row, col, buf, size);
	return osc_diff_cell(&dv->diff, row, col, buf, size);
}

/* The export writes the key on both lines of a pair (the screen, on the first only). */
static const char *export_cell(const void *ctx, size_t row, size_t col, char *buf, size_t size)
{
	const struct osc_view *v = ctx;
	const struct diff_view *dv = v->priv;

	if (dv->split && col == S_NAME)
		return osc_diff_cell(&dv->diff, row / 2, OSC_DIFF_NAME, buf, size);
	return diff_cell(ctx, row, col, buf, size);
}

static void diff_table(struct osc_tui *t, struct osc_view *v, struct osc_table *out);

static void diff_export_table(struct osc_tui *t, struct osc_view *v, struct osc_table *out)
{
	diff_table(t, v, out);
	out->cell = export_cell;
}

static void diff_table(struct osc_tui *t, struct osc_view *v, struct osc_table *out)
{
	struct diff_view *dv = v->priv;

	/* m changed the kernel names: kernel rows pair again on the new ones */
	if (dv->style != t->names.style && osc_level_is_device(dv->level)) {
		diff_build(t, v);
		diff_sort(t, v);
	}
	if (dv->split) {
		out->cols = split_cols;
		out->nr_cols = S_NR;
		out->nr_rows = dv->diff.nr * 2;
	} else {
		out->cols = osc_diff_columns(&out->nr_cols);
		out->nr_rows = dv->diff.nr;
	}
	if (dv->refused)
		out->nr_rows = 0;
	out->cell = diff_cell;
	out->ctx = v;
}

static const struct osc_diff_row *current(struct osc_view *v, size_t row)
{
	struct diff_view *dv = v->priv;
	size_t r = dv->split ? row / 2 : row;

	return r < dv->diff.nr ? osc_diff_row_at(&dv->diff, r) : NULL;
}

static enum osc_mark diff_mark(struct osc_tui *t, struct osc_view *v, size_t row)
{
	const struct osc_diff_row *r = current(v, row);

	(void)t;
	if (!r)
		return OSC_MARK_NONE;
	return r->status == '+' ? OSC_MARK_MAX : r->status == '-' ? OSC_MARK_MIN : OSC_MARK_NONE;
}

/* Merged, a row a line: the diff's order (the split layout's two lines a row are not). */
static const uint32_t *diff_stored_order(struct osc_view *v, size_t *nr)
{
	struct diff_view *dv = v->priv;

	*nr = dv->diff.nr_all;
	return dv->split ? NULL : dv->diff.order;
}

/* The bar: the row's larger side against the largest of the rows shown. */
static double diff_bar(struct osc_tui *t, struct osc_view *v, size_t row)
{
	struct diff_view *dv = v->priv;
	const struct osc_diff_row *r = current(v, row);
	int64_t top;

	(void)t;
	if (!r)
		return 0;
	top = dv->diff.top > 1 ? dv->diff.top : 1;
	if (dv->split)
		return (double)r->side[row % 2].total / (double)top;
	return (double)osc_diff_row_larger(r) / (double)top;
}

/* Both sides' grand totals, of a measure that never counts time twice (diff.h). */
static void diff_bases(struct osc_tui *t, struct osc_view *v, char *buf, size_t size)
{
	struct diff_view *dv = v->priv;
	char base[32], other[32], delta[32];

	(void)t;
	buf[0] = '\0';
	if (dv->refused || !dv->diff_made)
		return;
	osc_format_us_int(dv->diff.grand_total[0], base, sizeof(base));
	osc_format_us_int(dv->diff.grand_total[1], other, sizeof(other));
	osc_format_us_int(dv->diff.grand_total[1] - dv->diff.grand_total[0], delta, sizeof(delta));
	snprintf(buf, size, "%s %s us -> %s us (delta %s us)", osc_diff_total_name(&dv->diff),
		 base, other, delta);
}

/* What the base is compared with: the other trace's name, or its own other runs. */
static void other_label(const struct diff_view *dv, char *buf, size_t size)
{
	char *runs;

	if (dv->path) {
		snprintf(buf, size, "%s", osc_trace_basename(dv->other));
		return;
	}
	runs = osc_runsel_describe(&dv->sel, &dv->runs);
	snprintf(buf, size, "its %s", runs);
	free(runs);
}

static void diff_title(struct osc_tui *t, struct osc_view *v, char *buf, size_t size)
{
	struct diff_view *dv = v->priv;
	const uint64_t *n = dv->diff.shown; /* the counts add up to the rows shown */
	char other[256];

	other_label(dv, other, sizeof(other));
	if (dv->refused) {
		snprintf(buf, size, "compare %s with %s: NOT COMPARED, %zu runs against %zu",
			 osc_level_name(dv->level), other, t->sel.nr_on, dv->sel.nr_on);
		return;
	}
	if (dv->changed)
		snprintf(buf, size,
			 "compare %s by %s with %s (%zu of %zu rows changed >= %g%%: %llu -, %llu +, "
			 "%llu =%s%s)",
			 osc_level_name(dv->level), osc_match_name(dv->match), other, dv->diff.nr,
			 dv->diff.nr_all, dv->min_change,
			 (unsigned long long)n[0], (unsigned long long)n[1], (unsigned long long)n[2],
			 dv->split ? ", split" : "", dv->job.job.running ? ", updating..." : "");
	else
		snprintf(buf, size, "compare %s by %s with %s (%zu rows: %llu -, %llu +, %llu =%s%s)",
			 osc_level_name(dv->level), osc_match_name(dv->match), other, dv->diff.nr,
			 (unsigned long long)n[0],
			 (unsigned long long)n[1], (unsigned long long)n[2],
			 dv->split ? ", split" : "", dv->job.job.running ? ", updating..." : "");
}

static void diff_empty(struct osc_tui *t, struct osc_view *v, char *buf, size_t size)
{
	struct diff_view *dv = v->priv;

	if (!dv->refused)
		return; /* the table's own hint */
	snprintf(buf, size, "(not compared: totals of %zu run%s against %zu; R: base's runs, O: "
		 "other's)", t->sel.nr_on, t->sel.nr_on == 1 ? "" : "s", dv->sel.nr_on);
}

/* Deltas sort by their size, either sign; split rows by the new (other) side's value. */
static void diff_sort_label(struct osc_tui *t, struct osc_view *v, char *buf, size_t size)
{
	struct diff_view *dv = v->priv;
	char title[96];

	(void)t;
	snprintf(title, sizeof(title), "%s", buf);
	if (dv->split && v->sort_col >= S_COUNT)
		snprintf(buf, size, "new %s", title);
	else if (!dv->split && (v->sort_col == OSC_DIFF_DELTA || v->sort_col == OSC_DIFF_DELTA_SELF ||
				v->sort_col == OSC_DIFF_DELTA_DEVICE))
		snprintf(buf, size, "|%s|", title);
}

static const char *diff_export_name(struct osc_tui *t, struct osc_view *v)
{
	struct diff_view *dv = v->priv;

	(void)t;
	return dv->split ? "compare-split" : "compare";
}

/* "run 3: 1.234 us" lines of one side's instances (the first 500). */
static void add_instances(struct osc_lines *out, const struct osc_trace *tr,
			  const struct osc_runs *runs, const uint32_t *ev, size_t n,
			  const char *side)
{
	char field[64], value[256], dur[32], start[32];
	int64_t origin = osc_trace_origin(tr);

	snprintf(value, sizeof(value), "%zu instances in %s", n, osc_trace_basename(tr));
	osc_lines_add(out, OSC_MARK_TITLE, side, value);
	for (size_t i = 0; i < n && i < 500; i++) {
		uint32_t run = runs->run_of[ev[i]];

		osc_format_us((double)tr->events[ev[i]].dur, dur, sizeof(dur));
		osc_format_us_int(tr->events[ev[i]].ts - origin, start, sizeof(start));
		snprintf(field, sizeof(field), "#%zu", i);
		if (run == OSC_NONE)
			snprintf(value, sizeof(value), "%s us at %s us, in no run", dur, start);
		else
			snprintf(value, sizeof(value), "%s us at %s us, run %u", dur, start, run);
		osc_lines_add(out, OSC_MARK_NONE, field, value);
	}
}

void osc_lines_add_spark(struct osc_lines *out, struct osc_tui *t, const struct osc_trace *tr,
			 const struct osc_runs *runs, const struct osc_runsel *sel,
			 const uint32_t *ev, size_t n, const char *field)
{
	double *per = osc_xmalloc((runs->nr ? runs->nr : 1) * sizeof(*per));
	char spark[8192];
	size_t k = 0;

	osc_chart_run_totals(tr, runs, ev, n, per);
	for (size_t r = 0; r < runs->nr; r++)
		if (!sel || (r < sel->nr_runs && sel->on[r]))
			per[k++] = per[r];
	osc_chart_spark(per, k, t->utf8, spark, sizeof(spark));
	osc_lines_add(out, OSC_MARK_NONE, field, spark);
	free(per);
}

/* The time per selected run of one side's events (ns), k values into per (a new array). */
static double *per_run(const struct osc_trace *tr, const struct osc_runs *runs,
		       const struct osc_runsel *sel, const uint32_t *ev, size_t n, size_t *k)
{
	double *per = osc_xmalloc((runs->nr ? runs->nr : 1) * sizeof(*per));

	*k = 0;
	osc_chart_run_totals(tr, runs, ev, n, per);
	for (size_t r = 0; r < runs->nr; r++)
		if (r < sel->nr_runs && sel->on[r])
			per[(*k)++] = per[r];
	return per;
}

/*
 * Both sides' sparklines on one scale (the lowest and highest run of either
 * side), so that a taller glyph is a slower run on whichever side, and the
 * scale itself.
 */
static void add_sparks(struct osc_lines *out, struct osc_tui *t, struct diff_view *dv,
		       const struct osc_diff_row *r)
{
	size_t nb, no, glyph = t->utf8 ? 3 : 1;
	double *b = per_run(&t->trace, &t->runs, &t->sel, dv->diff.members[0] + r->side[0].first,
			    r->side[0].nr, &nb);
	double *o = per_run(dv->other, &dv->runs, &dv->sel, dv->diff.members[1] + r->side[1].first,
			    r->side[1].nr, &no);
	double *all = osc_xmalloc((nb + no + 1) * sizeof(*all)), lo = 0, hi = 0;
	char spark[8192], part[8192], a[32], z[32], scale[128];

	memcpy(all, b, nb * sizeof(*all));
	memcpy(all + nb, o, no * sizeof(*all));
	for (size_t i = 0; i < nb + no; i++) {
		lo = i == 0 || all[i] < lo ? all[i] : lo;
		hi = i == 0 || all[i] > hi ? all[i] : hi;
	}
	osc_chart_spark(all, nb + no, t->utf8, spark, sizeof(spark));
	snprintf(part, sizeof(part), "%.*s", (int)(nb * glyph), spark);
	osc_lines_add(out, OSC_MARK_NONE, "base", part);
	osc_lines_add(out, OSC_MARK_NONE, "other", strlen(spark) >= nb * glyph ? spark + nb * glyph
									  : "");
	osc_format_us(lo, a, sizeof(a));
	osc_format_us(hi, z, sizeof(z));
	snprintf(scale, sizeof(scale), "%s %s us .. %s %s us per run, both sides",
		 t->utf8 ? "\xe2\x96\x81" : "' '", a, t->utf8 ? "\xe2\x96\x88" : "'#'", z);
	osc_lines_add(out, OSC_MARK_NONE, "scale", scale);
	free(b);
	free(o);
	free(all);
}

static void diff_detail(struct osc_tui *t, struct osc_view *v, size_t row, struct osc_lines *out)
{
	struct diff_view *dv = v->priv;
	const struct osc_diff_row *r = current(v, row);
	size_t idx = dv->split ? row / 2 : row, nr;
	const struct osc_column *cols = osc_diff_columns(&nr);
	char buf[4096];

	if (!r)
		return;
	osc_lines_add(out, OSC_MARK_TITLE, "comparison", "");
	for (size_t c = 0; c < nr; c++)
		osc_lines_add(out, OSC_MARK_NONE, cols[c].title,
			      osc_diff_cell(&dv->diff, idx, c, buf, sizeof(buf)));
	osc_lines_add(out, OSC_MARK_TITLE, "per run", "time of the row in each selected run");
	add_sparks(out, t, dv, r);
}

/* Show the comparison kept for the level and match mode now asked, if any (kept.h). */
static bool show_kept(struct osc_tui *t, struct osc_view *v)
{
	struct diff_view *dv = v->priv;
	unsigned key = rows_key(t, dv);
	struct osc_diff kept;

	if (dv->job.job.running || !dv->loaded ||
	    !osc_kept_take(&dv->kept, key, t->gen, &kept, sizeof(kept)))
		return false;
	take_diff(dv, &kept, t->gen, key);
	dv->style = dv->names.style = t->names.style; /* the style it was built in (key) */
	v->built_gen = t->gen;
	osc_view_rows_replaced(t, v);
	return true;
}

static unsigned diff_action(struct osc_tui *t, struct osc_view *v, enum osc_action a)
{
	struct diff_view *dv = v->priv;
	const struct osc_diff_row *r;
	struct osc_lines lines = { 0 };

	switch (a) {
	/* the module level has no compare rows: cycle the others */
	case OSC_ACT_NEXT_LEVEL:
		dv->level = (dv->level + 1) % OSC_LEVEL_MODULE;
		break;
	case OSC_ACT_PREV_LEVEL:
		dv->level = (dv->level + OSC_LEVEL_MODULE - 1) % OSC_LEVEL_MODULE;
		break;
	case OSC_ACT_LEVEL_OP:
	case OSC_ACT_LEVEL_SHAPE:
	case OSC_ACT_LEVEL_KERNEL:
	case OSC_ACT_LEVEL_DIMS:
	case OSC_ACT_LEVEL_MAPPING:
	case OSC_ACT_LEVEL_RUN:
	case OSC_ACT_LEVEL_PATH:
	case OSC_ACT_LEVEL_CATEGORY:
		dv->level = osc_view_level_of_action(a);
		break;
	case OSC_ACT_OTHER_RUNS:
		if (!dv->loaded)
			return OSC_R_REDRAW;
		dv->side = (struct osc_runs_side){ dv->other, &dv->runs, &dv->sel,
						   osc_trace_basename(dv->other) };
		osc_view_push(t, &osc_view_runs, &dv->side);
		return OSC_R_REDRAW;
	case OSC_ACT_COMPARE_MATCH:
		dv->match = (dv->match + 1) % OSC_MATCH_COUNT;
		break;
	case OSC_ACT_CHANGED_ONLY: /* the same rows, some hidden: no new comparison */
		dv->changed = !dv->changed;
		osc_diff_changed_only(&dv->diff, dv->changed, dv->min_change);
		v->cur = v->top = v->hoff = 0;
		osc_view_resort(t, v);
		return OSC_R_REDRAW;
	case OSC_ACT_COMPARE_LAYOUT: /* the same rows, drawn otherwise */
		dv->split = !dv->split;
		v->sort_col = dv->split ? S_TOTAL : OSC_DIFF_DELTA;
		v->sort_desc = true;
		v->cur = v->top = v->hoff = 0;
		osc_view_resort(t, v);
		return OSC_R_REDRAW;
	case OSC_ACT_ENTER:
		r = current(v, v->cur);
		if (!r)
			return OSC_R_REDRAW;
		add_instances(&lines, &t->trace, &t->runs, dv->diff.members[0] + r->side[0].first,
			      r->side[0].nr, "base");
		add_instances(&lines, dv->other, &dv->runs, dv->diff.members[1] + r->side[1].first,
			      r->side[1].nr, "other");
		osc_view_push(t, &osc_view_detail, &lines);
		return OSC_R_REDRAW;
	default:
		return OSC_R_UNHANDLED;
	}
	v->cur = v->top = v->hoff = 0;
	if (!rows_in(t, dv) && !show_kept(t, v)) { /* the level shown asked again: as it is */
		v->built_gen = t->gen - 1;
		osc_view_refresh(t, v);
	}
	return OSC_R_REDRAW;
}

unsigned osc_diff_view_runs(struct osc_tui *t, const char *spec)
{
	struct osc_view *v = osc_tui_top(t);
	struct diff_view *dv = v->priv;

	if (v->ops != &osc_view_diff || !dv->loaded) {
		osc_tui_message(t, OSC_MSG_ERROR, "other-runs: open a compare view first");
		return OSC_R_REDRAW;
	}
	dv->side = (struct osc_runs_side){ dv->other, &dv->runs, &dv->sel,
					   osc_trace_basename(dv->other) };
	return osc_runs_select_side(t, &dv->side, spec);
}

/* The `opscope diff` command printing the same CSV as the (unsplit) view. */
static char *diff_command(struct osc_tui *t, struct osc_view *v)
{
	struct diff_view *dv = v->priv;
	size_t nr;
	const struct osc_column *cols = osc_diff_columns(&nr);
	char *line;
	char pct[32];

	if (dv->split || !dv->loaded || !t->args->path || dv->refused)
		return NULL; /* the split layout is the view's own */
	line = osc_cli_line_start(t, "diff", dv->path, dv->level);
	if (dv->match != OSC_MATCH_NAME) {
		line = osc_cli_line_arg(line, "--match");
		line = osc_cli_line_arg(line, osc_match_name(dv->match));
	}
	/* diff's other runs default to --runs; one trace needs them */
	if (!dv->path || strcmp(dv->sel.spec, t->sel.spec)) {
		line = osc_cli_line_arg(line, "--other-runs");
		line = osc_cli_line_arg(line, dv->sel.spec);
	}
	if (dv->changed) {
		snprintf(pct, sizeof(pct), "%g", dv->min_change);
		line = osc_cli_line_arg(line, "--changed");
		line = osc_cli_line_arg(line, "--min-change");
		line = osc_cli_line_arg(line, pct);
	}
	/* diff sorts every column but the name descending unless --asc */
	return osc_cli_line_order(line, &cols[v->sort_col], v->sort_col == OSC_DIFF_DELTA,
				  v->sort_col != OSC_DIFF_NAME, v->sort_desc, v->topn, t->export_as,
				  "diff");
}

const struct osc_view_ops osc_view_diff = {
	.name = "compare",
	.open = diff_open,
	.close = diff_close,
	.build = diff_build,
	.sort = diff_sort,
	.table = diff_table,
	.export_table = diff_export_table,
	.flex_col = 0,
	.empty = diff_empty,
	.sort_label = diff_sort_label,
	.mark = diff_mark,
	.action = diff_action,
	.title = diff_title,
	.bases = diff_bases,
	.detail = diff_detail,
	.export_name = diff_export_name,
	.stored_order = diff_stored_order,
	.bar = diff_bar,
	.command = diff_command,
	.busy = diff_busy,
	.ahead = diff_ahead,
	.poll = diff_poll,
	.builds_on_worker = true,
};
