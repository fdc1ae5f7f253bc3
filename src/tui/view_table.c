/*
 * view_table.c - the aggregate table (every level of aggregate.h).
 *
 * Rows, columns and cell text come from aggregate.h and columns.h, the same
 * code as `opscope report`, so an export of this view equals the report's CSV.
 * Sorting reuses the aggregate (osc_agg_sort); top-N only shortens the table.
 *
 * On big traces a new aggregate (other runs, filter or level) is computed on
 * a worker thread (view_job.h) while the view keeps showing the old one;
 * table_poll swaps it in.
 * Once the view's rows are in and the trace's cache is built, the other
 * levels are computed ahead, one at a time on a worker, into the kept rows
 * (kept.h) while they fit its budget: a first visit of a level then shows
 * at once, as a flip back does.
 * Scripts always aggregate synchronously, so their screens are deterministic;
 * they compute levels ahead only when told (:ahead).
 * The what-if view above borrows a level's rows, shown or kept (lend_rows).
 *
 * K on an op, shape, run or path row opens a kernel table of the kernels
 * that the row's instances launched, themselves or through the ops they
 * call (correlate.h's links, up the instance tree); on a mapping row, of the
 * row's own kernels.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "opscope/base/alloc.h"
#include "opscope/analysis/calltree.h"
#include "opscope/analysis/columns.h"
#include "opscope/analysis/correlate.h"
#include "opscope/analysis/demangle.h"
#include "opscope/analysis/module.h"
#include "opscope/analysis/diff.h"
#include "opscope/analysis/trace_cache.h"
#include "cli_line.h"
#include "command.h"
#include "ahead.h"
#include "kept.h"
#include "view.h"
#include "view_job.h"

/* A level's aggregate on a worker (view_job.h). */
struct table_job {
	struct osc_view_job job;
	const struct osc_trace *trace;
	const struct osc_runs *runs;
	struct osc_query q; /* over job's copies of the selection and filter */
	struct osc_names names; /* the TUI's, sharing its tables, in the style asked (m) */
	struct osc_agg agg; /* the result */
	unsigned gen;       /* the tui->gen of those copies */
	int order_by;       /* enum osc_stat to order agg by on the worker, -1: none */
	bool order_desc;
};

/* A level left for another (1-9, Tab), to come back to with q: levels are a stack. */
struct level_state {
	enum osc_level level;
	enum osc_stat sort;
	bool desc;
	osc_str key; /* the selected row's name */
};

struct table_view {
	enum osc_level level;
	struct level_state back[OSC_LEVEL_COUNT]; /* distinct levels, the last left on top */
	size_t nr_back;
	struct osc_kept kept; /* the rows of levels left (kept.h), keyed by rows_key: a
				 flip back on a million rows takes no new aggregate */
	struct osc_agg agg;
	bool rows_made;       /* agg was built (not yet: empty) ... */
	unsigned rows_gen;    /* ... for the runs and filter of this tui->gen */
	struct osc_agg_table_ctx ctx;
	struct table_job job;
	struct table_job ahead;   /* another level's rows, computed before they are asked for */
	struct osc_ahead ah;      /* the levels whose rows computed ahead did not fit */
	unsigned lent_key;        /* the rows_key of rows lent (lend_rows) ... */
	unsigned lent_gen;        /* ... for this tui->gen, not yet back: not computed ahead */
	bool lent;
	struct osc_agg_row drill; /* the row Enter opened (its identity, for the instances) */
	osc_str drill_opened;     /* its key then: the key in any name style (table_restyle) */
	char *drill_path;         /* path level: that row's path (ids change on a rebuild) */
	uint8_t *only;            /* per event: kept in the rows, or NULL for all */
	const char *(*cell)(const void *ctx, size_t row, size_t col, char *buf, size_t size);
				  /* osc_agg_table's cells (table_cell shows them) */
	char *label;              /* what only holds */
	struct osc_peak peak;     /* the roofline columns' peaks (table_peak) */
	osc_str select;           /* a level's row to select when its rows come in, or NONE */
	bool peak_known;          /* peak was worked out */
	bool awaiting;            /* the rows asked for are those the job ahead computes
				     (a filter typed, w): shown once it is done */
};

/* The peaks of the shape level's roofline columns: the options', else the GPU's. */
static const struct osc_peak *table_peak(struct osc_tui *t, struct table_view *tv)
{
	if (!tv->peak_known)
		osc_peak_for_trace(t->trace.meta_json, t->args->peak_tflops, t->args->peak_tbs,
				   &tv->peak);
	tv->peak_known = true;
	return &tv->peak;
}

/* The columns level l shows on the TUI's trace. */
static const struct osc_column *level_columns(const struct osc_tui *t, enum osc_level l,
					      size_t *nr)
{
	return osc_level_default_columns(l, osc_trace_has_device(&t->trace), nr);
}

/* The column of level l showing statistic s, else its default sort column. */
static size_t column_of(const struct osc_tui *t, enum osc_level l, enum osc_stat s)
{
	size_t nr, dflt = 0;
	const struct osc_column *cols = level_columns(t, l, &nr);
	enum osc_stat d = osc_level_default_sort(l, osc_trace_has_device(&t->trace));

	for (size_t i = 0; i < nr; i++) {
		if (cols[i].stat == s)
			return i;
		if (cols[i].stat == d)
			dflt = i;
	}
	return dflt;
}

/* The statistic of the column v is sorted by (its level's first when out of range). */
static enum osc_stat sorted_by(struct osc_tui *t, struct osc_view *v)
{
	struct table_view *tv = v->priv;
	size_t nr;
	const struct osc_column *cols = level_columns(t, tv->level, &nr);

	return cols[v->sort_col < nr ? v->sort_col : 0].stat;
}

/* Where level l is on the stack of levels left, or -1 when it is not. */
static int back_of(const struct table_view *tv, enum osc_level l)
{
	for (size_t i = 0; i < tv->nr_back; i++)
		if (tv->back[i].level == l)
			return (int)i;
	return -1;
}

/* Free what a kept aggregate holds (kept.h). */
static void release_agg(void *agg)
{
	osc_agg_release(agg);
}

/*
 * What rows at level l keyed in name style s are kept and computed ahead
 * under: the level, and at the device levels the style, as one row stands
 * for every kernel shown under its name (demangle.h).
 */
static unsigned key_of(enum osc_level l, enum osc_name_style s)
{
	return osc_level_is_device(l) ? (unsigned)l + OSC_LEVEL_COUNT * (1 + (unsigned)s)
				      : (unsigned)l;
}

/* The key of level l's rows in the TUI's name style's keying (alike keyings share rows). */
static unsigned rows_key(const struct osc_tui *t, enum osc_level l)
{
	return key_of(l, osc_names_keying(&t->names));
}

/* The key of rows a. */
static unsigned agg_key(const struct osc_agg *a)
{
	return key_of(a->level, a->key_style);
}

/* The key of the rows job j computes. */
static unsigned job_key(const struct table_job *j)
{
	return key_of(j->q.level, osc_names_keying(&j->names));
}

static void table_open(struct osc_tui *t, struct osc_view *v, const void *arg)
{
	struct table_view *tv = osc_xcalloc(1, sizeof(*tv));
	const struct osc_table_arg *a = arg;

	tv->level = a->level;
	tv->only = a->only;
	tv->label = a->label;
	tv->ctx.trace = &t->trace;
	tv->ctx.agg = &tv->agg;
	tv->ctx.names = &t->names;
	tv->select = OSC_STR_NONE;
	tv->kept.release = release_agg;
	tv->kept.budget = t->kept_budget;
	tv->kept.states = &t->states;
	tv->kept.free_apart = osc_view_background(t);
	v->priv = tv;
	v->sort_col = column_of(t, tv->level, a->has_sort ? a->sort : OSC_STAT_NR);
	v->sort_desc = true;
}

/* The query of the table's rows at level l over the selection sel and the filter f. */
static struct osc_query table_query(struct osc_tui *t, struct table_view *tv, enum osc_level l,
				    const struct osc_runsel *sel, const struct osc_filter *f)
{
	return (struct osc_query){
		.level = l,
		.runs = sel,
		/* the kernels of a row: the row passed the filter, they need not */
		.filter = tv->only ? NULL : f, /* empty: none (aggregate.h) */
		.only = tv->only,
		.categories = t->args->categories,
		/* the level where shapes define the work (roofline.h) */
		.roofline = l == OSC_LEVEL_SHAPE,
		.peak = table_peak(t, tv),
		.in_place = true, /* read through osc_agg_row_at */
		.names = &t->names,
	};
}

static void job_work(void *arg)
{
	struct table_job *j = arg;

	osc_aggregate(j->trace, j->runs, &j->q, &j->agg);
	if (j->order_by >= 0)
		osc_agg_order(&j->agg, j->trace, (enum osc_stat)j->order_by, j->order_desc);
}

/* Wait for a running job and free its copies; returns its aggregate in *out. */
static void job_finish(struct table_job *j, struct osc_agg *out)
{
	osc_view_job_join(&j->job);
	*out = j->agg;
	memset(&j->agg, 0, sizeof(j->agg));
}

/*
 * Start j on level l's rows under run selection sel and filter f, the state
 * gen (a tui->gen), ordered by order_by (-1: as aggregated), on at most
 * threads threads (0: as many as -j allows).
 */
static bool job_start_at(struct osc_tui *t, struct table_view *tv, struct table_job *j,
			 enum osc_level l, const struct osc_runsel *sel,
			 const struct osc_filter *f, unsigned gen, int order_by, bool desc,
			 unsigned threads)
{
	j->trace = &t->trace;
	j->runs = &t->runs;
	j->q = table_query(t, tv, l, &j->job.sel, &j->job.filter);
	j->names = t->names; /* m may change the TUI's style meanwhile */
	j->q.names = &j->names;
	j->q.threads = threads;
	j->gen = gen;
	j->order_by = order_by;
	j->order_desc = desc;
	return osc_view_job_start_on(t, sel, f, &j->job, job_work, j);
}

/* Start the job of the view's own rows (table_sort orders them). */
static bool job_start(struct osc_tui *t, struct table_view *tv)
{
	return job_start_at(t, tv, &tv->job, tv->level, &t->sel, &t->filter, t->gen, -1, false,
			    0);
}

/* Wait for j if it runs (a script's held job: closing lets it go) and free its result. */
static void job_drop(struct table_job *j)
{
	struct osc_agg stale;

	if (!j->job.running)
		return;
	atomic_store(j->job.held, false);
	job_finish(j, &stale);
	osc_agg_release(&stale);
}

static void table_close(struct osc_view *v)
{
	struct table_view *tv = v->priv;

	job_drop(&tv->job);
	job_drop(&tv->ahead);
	osc_agg_release(&tv->agg);
	osc_kept_release(&tv->kept);
	free(tv->drill_path);
	free(tv->only);
	free(tv->label);
	free(tv);
}

/*
 * An empty table because the events of its kind lie outside every run (a
 * CPU-only Kineto trace whose ops ran beside the ProfilerStep): say how to
 * see them. An empty module level: say why.
 */
static void note_outside(struct osc_tui *t, const struct table_view *tv)
{
	size_t nr, outside = 0;
	const struct osc_brief *b;

	if (!tv->agg.nr && tv->level == OSC_LEVEL_MODULE &&
	    !osc_trace_modules(&t->trace)->nr_inst) {
		osc_tui_message(t, OSC_MSG_INFO, "no nn.Module events in this trace (profile "
				"with with_stack=True or with_modules=True)");
		return;
	}
	if (tv->agg.nr || tv->only || !t->runs.outside)
		return;
	b = osc_trace_briefs(&t->trace,
			     osc_level_is_device(tv->level) ? OSC_KIND_KERNEL : OSC_KIND_HOST_OP, &nr);
	for (size_t j = 0; j < nr; j++)
		outside += t->runs.run_of[b[j].event] == OSC_NONE;
	if (outside)
		osc_tui_message(t, OSC_MSG_INFO,
				"%zu %s outside every run: -W (--whole-trace) takes them", outside,
				osc_level_is_device(tv->level) ? "kernels lie" : "ops lie");
}

/*
 * The rows shown make way for others: kept (kept.h) when they are a level's
 * own, for the state they were built for, else freed.
 */
static void retire_rows(struct table_view *tv)
{
	osc_kept_retire(&tv->kept, tv->rows_made && !tv->only, agg_key(&tv->agg), tv->rows_gen,
			&tv->agg, sizeof(tv->agg), osc_agg_bytes(&tv->agg));
	tv->rows_made = false;
}

/*
 * Whether the rows shown are the level's own for the runs, filter and name
 * style in force.
 */
static bool rows_current(const struct osc_tui *t, const struct table_view *tv)
{
	return tv->rows_made && tv->rows_gen == t->gen && !tv->job.job.running &&
	       agg_key(&tv->agg) == rows_key(t, tv->level);
}

/* agg (zeroed) becomes the rows shown, built for the runs and filter of tui->gen gen. */
static void install_rows(struct table_view *tv, struct osc_agg *agg, unsigned gen)
{
	tv->agg = *agg;
	memset(agg, 0, sizeof(*agg));
	tv->rows_made = true;
	tv->rows_gen = gen;
	tv->awaiting = false; /* rows are in: none awaited (a level shown meanwhile) */
}

/* Our rows are now agg, built for the runs and filter of tui->gen gen. */
static void take_rows(struct osc_tui *t, struct table_view *tv, struct osc_agg *agg, unsigned gen)
{
	retire_rows(tv);
	install_rows(tv, agg, gen);
	note_outside(t, tv);
}

static void table_build(struct osc_tui *t, struct osc_view *v)
{
	struct table_view *tv = v->priv;
	struct osc_query q = table_query(t, tv, tv->level, &t->sel, &t->filter);
	struct osc_agg made;

	if (tv->job.job.running) {
		tv->job.job.again = true;
		return;
	}
	/* the rows of a state met before (w twice), or computed ahead for it */
	if (osc_kept_take(&tv->kept, rows_key(t, tv->level), t->gen, &made, sizeof(made))) {
		take_rows(t, tv, &made, t->gen);
		return;
	}
	/* or being computed ahead: not computed twice (a script computes at once) */
	tv->awaiting = osc_view_jobs_wanted(t) && tv->ahead.job.running &&
		       tv->ahead.gen == t->gen && job_key(&tv->ahead) == rows_key(t, tv->level);
	if (tv->awaiting)
		return;
	if (osc_view_jobs_wanted(t) && job_start(t, tv)) {
		osc_view_job_wait_briefly(t, v, &tv->job.job);
		return;
	}
	osc_aggregate(&t->trace, &t->runs, &q, &made);
	take_rows(t, tv, &made, t->gen);
}

/*
 * Where the first row keyed `key` is shown, SIZE_MAX if none: the rows are
 * read in place, then the order (a million rows read in display order would
 * be a million cache misses).
 */
static size_t shown_place(const struct osc_agg *a, osc_str key)
{
	uint8_t *hit = osc_xcalloc(a->nr ? a->nr : 1, 1);
	size_t i = 0;

	for (size_t r = 0; r < a->nr; r++)
		hit[r] = a->rows[r].key == key;
	while (i < a->nr && !hit[a->order ? a->order[i] : i])
		i++;
	free(hit);
	return i < a->nr ? i : SIZE_MAX;
}

/* Select the row shown_place finds for tv->select, once the level's rows are in. */
static void select_pending(struct osc_view *v)
{
	struct table_view *tv = v->priv;
	size_t row;

	if (tv->select != OSC_STR_NONE && (row = shown_place(&tv->agg, tv->select)) < v->tab.nr_rows)
		osc_view_select(v, row);
	tv->select = OSC_STR_NONE;
}

static bool table_busy(struct osc_view *v)
{
	struct table_view *tv = v->priv;

	return tv->job.job.running || tv->awaiting;
}

/*
 * The statistic level l's rows will be ordered by when shown (show_level):
 * its own when the level was left before, else the one shown now where l
 * has it, else l's default.
 */
static enum osc_stat order_of_level(struct osc_tui *t, struct osc_view *v, enum osc_level l,
				    bool *desc)
{
	struct table_view *tv = v->priv;
	int back = back_of(tv, l);
	enum osc_stat sort = back < 0 ? sorted_by(t, v) : tv->back[back].sort;
	size_t nr;
	const struct osc_column *cols = level_columns(t, l, &nr);

	*desc = back < 0 ? v->sort_desc : tv->back[back].desc;
	return cols[column_of(t, l, sort)].stat;
}

/*
 * The next level to compute ahead: not shown, not kept, not lent to the
 * view above (they come back), not too big; OSC_LEVEL_COUNT if none.
 */
static enum osc_level level_ahead(struct osc_tui *t, struct table_view *tv)
{
	for (int l = 0; l < OSC_LEVEL_COUNT; l++) {
		unsigned key = rows_key(t, (enum osc_level)l);

		if ((enum osc_level)l != tv->level &&
		    !(tv->lent && tv->lent_key == key && tv->lent_gen == t->gen) &&
		    osc_ahead_wanted(&tv->ah, &tv->kept, key, t->gen))
			return (enum osc_level)l;
	}
	return OSC_LEVEL_COUNT;
}

/*
 * Start on the level shown, in the view's order, under run selection sel
 * and filter f, the state gen, on threads threads (0: all), unless its rows
 * are kept or too big; whether it started.
 */
static bool shown_level_ahead(struct osc_tui *t, struct osc_view *v,
			      const struct osc_runsel *sel, const struct osc_filter *f,
			      unsigned gen, unsigned threads)
{
	struct table_view *tv = v->priv;

	return osc_ahead_wanted(&tv->ah, &tv->kept, rows_key(t, tv->level), gen) &&
	       job_start_at(t, tv, &tv->ahead, tv->level, sel, f, gen, (int)sorted_by(t, v),
			    v->sort_desc, threads);
}

/*
 * Start on the level shown under the runs w would select, once every other
 * level is kept or too big: w then shows its rows at once. Nothing when w
 * would select no run, or they are kept or too big.
 */
static void warmup_ahead(struct osc_tui *t, struct osc_view *v)
{
	struct osc_runsel flipped;

	if (t->runs.nr < 2)
		return;
	osc_runs_warmup_flipped(t, &flipped);
	/* no state for a selection w refuses: it would take a known state's place */
	if (flipped.nr_on)
		shown_level_ahead(t, v, &flipped, &t->filter, osc_tui_state(t, &flipped), 1);
	osc_runsel_release(&flipped);
}

/*
 * Start on the level shown under the filter being typed in the filter
 * prompt (osc_command_filter_typed), as a guessed state: Enter then shows
 * its rows at once. false when there is none to compute.
 */
static bool filter_ahead(struct osc_tui *t, struct osc_view *v)
{
	struct osc_filter typed;
	unsigned gen;
	bool started;

	if (osc_tui_top(t) != v || !osc_command_filter_typed(t, &typed))
		return false;
	gen = osc_tui_state_guess(t, &typed);
	/* on every core: it is what the person is about to ask for (not the filter in force) */
	started = gen != t->gen && shown_level_ahead(t, v, &t->sel, &typed, gen, 0);
	osc_filter_release(&typed);
	return started;
}

/*
 * Offer the rows computed ahead once done (ahead.h), or show them when they
 * are those awaited (true: the rows shown are new); then start on the next
 * level, once the view's own rows are in and the trace's cache is built
 * (the worker would otherwise wait for the same locks); then on the level
 * shown without (or with) the warm-up run. A filter being typed comes first.
 */
static bool ahead_poll(struct osc_tui *t, struct osc_view *v)
{
	struct table_view *tv = v->priv;
	struct osc_agg made;
	enum osc_level l;
	enum osc_stat by;
	bool desc, shown = false;

	if (osc_view_job_finished(&tv->ahead.job)) {
		job_finish(&tv->ahead, &made);
		shown = tv->awaiting && tv->ahead.gen == t->gen &&
			agg_key(&made) == rows_key(t, tv->level);
		tv->awaiting = false;
		if (shown)
			take_rows(t, tv, &made, t->gen);
		else
			osc_ahead_done(&tv->ah, &tv->kept, agg_key(&made), tv->ahead.gen, t->gen,
				       rows_key(t, tv->level), &made, sizeof(made),
				       osc_agg_bytes(&made));
	}
	if (osc_tui_top(t) == v) /* no view above: rows lent came back, or were freed */
		tv->lent = false;
	if (!osc_tui_ahead_now(t) || tv->ahead.job.running || tv->only || !rows_current(t, tv) ||
	    filter_ahead(t, v))
		return shown;
	if ((l = level_ahead(t, tv)) == OSC_LEVEL_COUNT) {
		warmup_ahead(t, v);
		return shown;
	}
	by = order_of_level(t, v, l, &desc);
	/* one thread: the other cores stay for what is asked meanwhile */
	job_start_at(t, tv, &tv->ahead, l, &t->sel, &t->filter, t->gen, (int)by, desc, 1);
	return shown;
}

static bool table_ahead(struct osc_view *v)
{
	struct table_view *tv = v->priv;

	return tv->ahead.job.running;
}

static bool table_poll(struct osc_tui *t, struct osc_view *v)
{
	struct table_view *tv = v->priv;
	struct osc_agg made;

	if (ahead_poll(t, v)) { /* the rows awaited came ahead */
		osc_view_rows_replaced(t, v);
		select_pending(v);
		return true;
	}
	if (!osc_view_job_finished(&tv->job.job))
		return false;
	job_finish(&tv->job, &made);
	take_rows(t, tv, &made, tv->job.gen);
	if (tv->job.job.again)
		job_start(t, tv);
	osc_view_rows_replaced(t, v);
	if (!tv->job.job.running)
		select_pending(v);
	return true;
}

static void table_sort(struct osc_tui *t, struct osc_view *v)
{
	struct table_view *tv = v->priv;

	if (tv->job.job.running) /* the rows coming in are sorted then (table_poll) */
		return;
	osc_agg_order(&tv->agg, &t->trace, sorted_by(t, v), v->sort_desc);
}

/*
 * On screen a whole count per run reads "865", not "865.000" (the export
 * keeps report's CSV text: export_table).
 */
static const char *table_cell(const void *ctx, size_t row, size_t col, char *buf, size_t size)
{
	const struct table_view *tv = ctx;
	const char *text = tv->cell(&tv->ctx, row, col, buf, size);
	size_t len = strlen(text);

	if (tv->agg.cols[col].stat == OSC_STAT_COUNT_PER_RUN &&
	    !strcmp(tv->agg.cols[col].title, "count_per_run") && len > 4 &&
	    !strcmp(text + len - 4, ".000")) {
		if (text != buf) /* the text may be buf itself: no overlapping copy */
			snprintf(buf, size, "%s", text);
		buf[len - 4] = '\0';
		return buf;
	}
	return text;
}

static void table_export_table(struct osc_tui *t, struct osc_view *v, struct osc_table *out)
{
	struct table_view *tv = v->priv;

	(void)t;
	osc_agg_table(&tv->ctx, out);
}

static void table_table(struct osc_tui *t, struct osc_view *v, struct osc_table *out)
{
	struct table_view *tv = v->priv;

	(void)t;
	osc_agg_table(&tv->ctx, out);
	tv->cell = out->cell;
	out->cell = table_cell;
	out->ctx = tv;
}

static void table_title(struct osc_tui *t, struct osc_view *v, char *buf, size_t size)
{
	struct table_view *tv = v->priv;

	(void)t;
	snprintf(buf, size, "%s table%s%s (%zu rows%s%s%s)", osc_level_name(tv->level),
		 tv->label ? ": " : "", tv->label ? tv->label : "", v->tab.nr_rows,
		 table_busy(v) ? ", updating..." : "", tv->nr_back ? "; q: back to " : "",
		 tv->nr_back ? osc_level_name(tv->back[tv->nr_back - 1].level) : "");
}

/* The bases of self_pct and device_pct (aggregate.h), over the selected runs. */
static void table_bases(struct osc_tui *t, struct osc_view *v, char *buf, size_t size)
{
	struct table_view *tv = v->priv;
	char busy[32], device[32];
	/* the shape level's roofline percentages: their peak, when one is known */
	bool peak = tv->agg.roofline && strcmp(tv->agg.peak.label, "none");
	int64_t no_op = osc_agg_unattributed(&tv->agg);

	(void)t;
	osc_format_us_int(tv->agg.host_busy, busy, sizeof(busy));
	osc_format_us_int(tv->agg.device_time, device, sizeof(device));
	if (tv->level == OSC_LEVEL_MAPPING) /* kernels without a known op, memcpy, memset */
		snprintf(buf, size, "device time %s us, %.2f%% not mapped", device,
			 tv->agg.device_time > 0 ? 100.0 * (double)(tv->agg.device_time -
								    tv->agg.grand_total) /
							   (double)tv->agg.device_time
						 : 0.0);
	else if (osc_level_is_device(tv->level))
		snprintf(buf, size, "device time %s us", device);
	else if (tv->agg.has_device && osc_level_sums_device(tv->level) && no_op > 0)
		/* the rest to 100 of the rows' device_pct */
		snprintf(buf, size, "host busy %s us, device time %s us, %.2f%% of it launched by "
			 "no op (!)%s%s", busy, device,
			 100.0 * (double)no_op / (double)tv->agg.device_time,
			 peak ? ", peak " : "", peak ? tv->agg.peak.label : "");
	else if (tv->agg.has_device && tv->level == OSC_LEVEL_MODULE &&
		 tv->agg.outside_modules > 0) { /* the rest to 100 of the rows' device_pct */
		double base = (double)tv->agg.device_time;
		char part[64] = "";

		if (no_op > 0)
			snprintf(part, sizeof(part), ", %.2f%% by no op (!)",
				 100.0 * (double)no_op / base);
		snprintf(buf, size, "host busy %s us, device time %s us, %.2f%% of it launched in "
			 "no module%s", busy, device, 100.0 * (double)tv->agg.outside_modules / base,
			 part);
	} else if (tv->agg.has_device)
		snprintf(buf, size, "host busy %s us, device time %s us%s%s", busy, device,
			 peak ? ", peak " : "", peak ? tv->agg.peak.label : "");
	else /* no device time: the roofline rates divide by host time */
		snprintf(buf, size, "host busy %s us%s%s%s", busy,
			 tv->agg.roofline ? ", roofline on host time" : "", peak ? ", peak " : "",
			 peak ? tv->agg.peak.label : "");
}

static const char *table_export_name(struct osc_tui *t, struct osc_view *v)
{
	struct table_view *tv = v->priv;

	(void)t;
	return osc_level_name(tv->level);
}

/*
 * The median instance by duration: quickselect (O(n), big rows stay fast)
 * over a copy of the durations, read from the events once, in model order.
 */
static uint32_t median_event(const struct osc_trace *tr, const uint32_t *ev, size_t n)
{
	struct instance {
		int64_t dur;
		uint32_t event;
	} *a = osc_xmalloc(n * sizeof(*a));
	long k = (long)(n - 1) / 2, lo = 0, hi = (long)n - 1;
	uint32_t res;

	for (size_t i = 0; i < n; i++)
		a[i] = (struct instance){ tr->events[ev[i]].dur, ev[i] };
	while (lo < hi) {
		int64_t pivot = a[lo + (hi - lo) / 2].dur;
		long i = lo, j = hi;

		while (i <= j) {
			while (a[i].dur < pivot)
				i++;
			while (a[j].dur > pivot)
				j--;
			if (i <= j) {
				struct instance tmp = a[i];

				a[i++] = a[j];
				a[j--] = tmp;
			}
		}
		if (k <= j)
			hi = j;
		else if (k >= i)
			lo = i;
		else
			break;
	}
	res = a[k].event;
	free(a);
	return res;
}

/* The aggregate's rows, shown in its order. */
static const uint32_t *table_stored_order(struct osc_view *v, size_t *nr)
{
	struct table_view *tv = v->priv;

	*nr = tv->agg.nr;
	return tv->agg.order;
}

/* The row's leading measure (its default sort: device, self or total time) against the largest. */
static double table_bar(struct osc_tui *t, struct osc_view *v, size_t row)
{
	struct table_view *tv = v->priv;
	enum osc_stat by = osc_agg_default_sort(&tv->agg);

	(void)t;
	return osc_agg_value(&tv->agg, row, by) / fmax(1, tv->agg.top);
}

static void table_detail(struct osc_tui *t, struct osc_view *v, size_t row, struct osc_lines *out)
{
	struct table_view *tv = v->priv;
	const struct osc_agg_row *r = osc_agg_row_at(&tv->agg, row);
	const uint32_t *ev = tv->agg.members + r->first;
	char buf[4096];

	osc_lines_add(out, OSC_MARK_TITLE, "statistics", "");
	for (size_t c = 0; c < v->tab.nr_cols; c++)
		osc_lines_add(out, OSC_MARK_NONE, v->tab.cols[c].title,
			      v->tab.cell(v->tab.ctx, row, c, buf, sizeof(buf)));
	if (t->bars) /* charts on (B): the row's time per selected run */
		osc_lines_add_spark(out, t, &t->trace, &t->runs, &t->sel, ev, r->nr, "per run");
	if (!r->nr)
		return;
	snprintf(buf, sizeof(buf), "median instance of %zu (Enter lists them all)", r->nr);
	osc_lines_add(out, OSC_MARK_TITLE, "sample", buf);
	osc_detail_event(t, median_event(&t->trace, ev, r->nr), out);
}

/* Row x is the row Enter opened: the key and every component of the level. */
static bool is_drill(const struct table_view *tv, const struct osc_agg_row *x)
{
	return osc_agg_row_same(&tv->agg, x, &tv->drill, tv->drill_path);
}

/* Show level l's kept rows, when they are for the current runs and filter. */
static bool show_kept(struct osc_tui *t, struct osc_view *v, enum osc_level l)
{
	struct table_view *tv = v->priv;
	struct osc_agg kept;

	if (tv->job.job.running ||
	    !osc_kept_take(&tv->kept, rows_key(t, l), t->gen, &kept, sizeof(kept)))
		return false;
	take_rows(t, tv, &kept, t->gen);
	v->built_gen = t->gen;
	osc_view_rows_replaced(t, v);
	return true;
}

/* Show level l sorted by statistic `sort` (or its default), the row named key selected. */
static void show_level(struct osc_tui *t, struct osc_view *v, enum osc_level l, enum osc_stat sort,
		       bool desc, osc_str key)
{
	struct table_view *tv = v->priv;

	tv->level = l;
	v->sort_col = column_of(t, l, sort);
	v->sort_desc = desc;
	v->cur = v->top = v->hoff = v->colskip = 0;
	if (!show_kept(t, v, l)) {
		v->built_gen = t->gen - 1;
		osc_view_refresh(t, v);
	}
	tv->select = key;
	if (!tv->job.job.running)
		select_pending(v);
}

/*
 * Show level l: the filter and runs are the TUI's and stay; the sort stays
 * on the same statistic where the level has it; the selection stays on the
 * row of the same name when there is one. The level left goes on the stack
 * that q walks back; going to a level on the stack goes back to it (with
 * its sort and selection) and drops what was above it.
 */
static unsigned switch_level(struct osc_tui *t, struct osc_view *v, enum osc_level l)
{
	struct table_view *tv = v->priv;
	enum osc_stat sort = sorted_by(t, v);
	osc_str name = v->tab.nr_rows ? osc_agg_row_at(&tv->agg, v->cur)->key : OSC_STR_NONE;
	int back = back_of(tv, l);

	if (l == tv->level)
		return OSC_R_REDRAW;
	if (tv->only) {
		osc_tui_message(t, OSC_MSG_INFO, "K's table keeps its level (q goes back)");
		return OSC_R_REDRAW;
	}
	if (back >= 0) {
		struct level_state s = tv->back[back];

		tv->nr_back = (size_t)back;
		show_level(t, v, s.level, s.sort, s.desc, s.key);
		return OSC_R_REDRAW;
	}
	if (tv->nr_back < OSC_LEVEL_COUNT)
		tv->back[tv->nr_back++] = (struct level_state){ tv->level, sort, v->sort_desc, name };
	show_level(t, v, l, sort, v->sort_desc, name);
	return OSC_R_REDRAW;
}

/* q or Esc after a level change: the level left last, as it was. */
static unsigned level_back(struct osc_tui *t, struct osc_view *v)
{
	struct table_view *tv = v->priv;
	struct level_state s;

	if (!tv->nr_back)
		return OSC_R_UNHANDLED;
	s = tv->back[--tv->nr_back];
	show_level(t, v, s.level, s.sort, s.desc, s.key);
	return OSC_R_REDRAW;
}

/* Per event: 1 for the kernels launched in module node `module` or under it; NULL if none. */
static uint8_t *module_kernels(struct osc_tui *t, uint32_t module)
{
	const struct osc_trace *tr = &t->trace;
	const struct osc_modules *m = osc_trace_modules(tr);
	const uint32_t *launcher = osc_trace_launchers(tr);
	uint8_t *only = osc_xcalloc(tr->nr_events ? tr->nr_events : 1, 1);
	size_t nr_kernels, found = 0;
	const struct osc_brief *kernels = osc_trace_briefs(tr, OSC_KIND_KERNEL, &nr_kernels);

	for (size_t j = 0; j < nr_kernels && module != OSC_NONE; j++) {
		uint32_t e = kernels[j].event, l = launcher[e];
		uint32_t node = l != OSC_NONE ? osc_module_node_of(m, l) : OSC_NONE;

		for (; node != OSC_NONE; node = m->nodes[node].parent) {
			if (node == module) {
				only[e] = 1;
				found++;
				break;
			}
		}
	}
	if (!found) {
		free(only);
		return NULL;
	}
	return only;
}

/* Per event: 1 for the kernels the members of row r launched (see top); NULL if none. */
static uint8_t *kernels_of(struct osc_tui *t, struct table_view *tv, const struct osc_agg_row *r)
{
	const struct osc_trace *tr = &t->trace;
	size_t n = tr->nr_events ? tr->nr_events : 1, found = 0;
	uint8_t *mark = osc_xcalloc(n, 1), *only;
	const uint32_t *launcher;
	const struct osc_calltree *tree;
	const struct osc_brief *kernels;
	size_t nr_kernels;

	for (size_t i = 0; i < r->nr; i++)
		mark[tv->agg.members[r->first + i]] = 1;
	if (osc_level_is_device(tv->level))
		return mark; /* mapping: the row's own kernels */
	if (tv->level == OSC_LEVEL_MODULE) { /* those of device_total: the module's subtree */
		free(mark);
		return module_kernels(t, r->module);
	}
	launcher = osc_trace_launchers(tr);
	tree = osc_trace_host_tree(tr);
	kernels = osc_trace_briefs(tr, OSC_KIND_KERNEL, &nr_kernels);
	only = osc_xcalloc(n, 1);
	for (size_t j = 0; j < nr_kernels; j++) {
		uint32_t e = kernels[j].event, l = launcher[e];
		uint32_t node = l != OSC_NONE ? tree->node_of[l] : OSC_NONE;

		for (; node != OSC_NONE; node = tree->nodes[node].parent) {
			if (mark[tree->nodes[node].event]) {
				only[e] = 1;
				found++;
				break;
			}
		}
	}
	free(mark);
	if (!found) {
		free(only);
		return NULL;
	}
	return only;
}

/* K: a kernel table of the kernels the selected row launched. */
static unsigned open_kernels(struct osc_tui *t, struct osc_view *v)
{
	struct table_view *tv = v->priv;
	const struct osc_agg_row *r;
	struct osc_table_arg a = { .level = OSC_LEVEL_KERNEL };
	char buf[4096];
	const char *name;

	if (!v->tab.nr_rows) {
		osc_tui_wait_rows(t, v, "K");
		return OSC_R_REDRAW;
	}
	if (tv->level == OSC_LEVEL_KERNEL || tv->level == OSC_LEVEL_DIMS) {
		osc_tui_message(t, OSC_MSG_INFO, "these rows are kernels: Enter lists the instances");
		return OSC_R_REDRAW;
	}
	if (!osc_level_is_device(tv->level) && osc_tui_warming(t, "K", OSC_WARM_LINKS))
		return OSC_R_REDRAW;
	r = osc_agg_row_at(&tv->agg, v->cur);
	name = osc_table_view_row_name(t, v, r, buf, sizeof(buf));
	a.only = kernels_of(t, tv, r);
	if (!a.only) {
		osc_tui_message(t, OSC_MSG_INFO, "%s launched no kernel", name);
		return OSC_R_REDRAW;
	}
	a.label = osc_xasprintf("kernels of %s", name);
	osc_view_push(t, &osc_view_table, &a);
	return OSC_R_REDRAW;
}

static unsigned table_action(struct osc_tui *t, struct osc_view *v, enum osc_action a)
{
	struct table_view *tv = v->priv;

	switch (a) {
	case OSC_ACT_NEXT_LEVEL:
		return switch_level(t, v, (tv->level + 1) % OSC_LEVEL_COUNT);
	case OSC_ACT_PREV_LEVEL:
		return switch_level(t, v, (tv->level + OSC_LEVEL_COUNT - 1) % OSC_LEVEL_COUNT);
	case OSC_ACT_LEVEL_OP:
	case OSC_ACT_LEVEL_SHAPE:
	case OSC_ACT_LEVEL_KERNEL:
	case OSC_ACT_LEVEL_DIMS:
	case OSC_ACT_LEVEL_MAPPING:
	case OSC_ACT_LEVEL_RUN:
	case OSC_ACT_LEVEL_PATH:
	case OSC_ACT_LEVEL_CATEGORY:
	case OSC_ACT_LEVEL_MODULE:
		return switch_level(t, v, osc_view_level_of_action(a));
	case OSC_ACT_KERNELS:
		return open_kernels(t, v);
	case OSC_ACT_TREE: /* the module level: the module tree, at the selected module */
		if (tv->level != OSC_LEVEL_MODULE)
			return OSC_R_UNHANDLED;
		{
			uint32_t node = v->tab.nr_rows ? osc_agg_row_at(&tv->agg, v->cur)->module
							: OSC_NONE;

			osc_view_push(t, &osc_view_modules, &node);
		}
		return OSC_R_REDRAW;
	case OSC_ACT_BACK:
	case OSC_ACT_ESCAPE:
		return level_back(t, v);
	case OSC_ACT_ENTER:
	case OSC_ACT_HISTOGRAM:
		if (!v->tab.nr_rows) {
			osc_tui_wait_rows(t, v, a == OSC_ACT_ENTER ? "Enter" : "D");
			return OSC_R_REDRAW;
		}
		if (a == OSC_ACT_HISTOGRAM && tv->level == OSC_LEVEL_RUN) {
			osc_tui_message(t, OSC_MSG_INFO, "D: a run is no set of instances "
					"(P shows the top rows per run)");
			return OSC_R_REDRAW;
		}
		tv->drill = *osc_agg_row_at(&tv->agg, v->cur);
		tv->drill_opened = tv->drill.key;
		free(tv->drill_path);
		tv->drill_path = tv->agg.keys & OSC_KEY_PATH
			? osc_xstrdup(osc_strtab_get(&tv->agg.paths, tv->drill.path))
			: NULL;
		osc_view_push(t, a == OSC_ACT_ENTER ? &osc_view_instances : &osc_view_histogram,
			      &(struct osc_instances_arg){ .parent = v,
							   .key = tv->drill.key,
							   .path = tv->drill_path });
		return OSC_R_REDRAW;
	case OSC_ACT_MATRIX:
		if (tv->only) {
			osc_tui_message(t, OSC_MSG_INFO, "P: the matrix is of a whole level "
					"(q, then P)");
			return OSC_R_REDRAW;
		}
		if (!osc_level_is_device(tv->level) &&
		    osc_tui_warming(t, "the matrix", OSC_WARM_LINKS))
			return OSC_R_REDRAW;
		osc_view_push(t, &osc_view_matrix,
			      &(struct osc_matrix_arg){ tv->level, v->tab.cols[v->sort_col].stat,
							v->sort_desc, v->topn,
							rows_current(t, tv) ? &tv->agg : NULL });
		return OSC_R_REDRAW;
	default:
		return OSC_R_UNHANDLED;
	}
}

/* The median instance stands for a row in the call tree. */
static uint32_t table_row_event(struct osc_tui *t, struct osc_view *v, size_t row)
{
	struct table_view *tv = v->priv;
	const struct osc_agg_row *r = osc_agg_row_at(&tv->agg, row);

	return r->nr ? median_event(&t->trace, tv->agg.members + r->first, r->nr) : OSC_NONE;
}

enum osc_level osc_table_view_level(struct osc_view *v)
{
	return ((struct table_view *)v->priv)->level;
}

enum osc_level osc_table_top_level(const struct osc_tui *t)
{
	const struct osc_view *v = t->stack[t->depth - 1];

	return v->ops == &osc_view_table ? ((struct table_view *)v->priv)->level : OSC_LEVEL_OP;
}

const char *osc_table_view_only(struct osc_view *v)
{
	struct table_view *tv = v->priv;

	return v->ops == &osc_view_table ? tv->label : NULL;
}

/* The members of the row keyed `key`, for the instances view (NULL if gone). */
const struct osc_agg_row *osc_table_view_row(struct osc_tui *t, struct osc_view *v, osc_str key,
					     const uint32_t **members)
{
	struct table_view *tv = v->priv;

	osc_view_refresh(t, v);
	for (size_t i = 0; i < tv->agg.nr; i++) {
		/* Levels with more than a name: the row Enter opened, by its identity. */
		if (tv->drill.key == key ? is_drill(tv, &tv->agg.rows[i])
					 : tv->agg.rows[i].key == key) {
			*members = tv->agg.members + tv->agg.rows[i].first;
			return &tv->agg.rows[i];
		}
	}
	return NULL;
}

const struct osc_agg_row *osc_table_view_row_shown(struct osc_view *v, size_t row,
						   const uint32_t **members)
{
	struct table_view *tv = v->priv;

	if (row >= tv->agg.nr || table_busy(v))
		return NULL;
	*members = tv->agg.members + osc_agg_row_at(&tv->agg, row)->first;
	return osc_agg_row_at(&tv->agg, row);
}

const char *osc_table_view_row_name(struct osc_tui *t, struct osc_view *v,
				    const struct osc_agg_row *r, char *buf, size_t size)
{
	struct table_view *tv = v->priv;

	if (tv->agg.keys & OSC_KEY_PATH)
		return osc_strtab_get(&tv->agg.paths, r->path);
	if (tv->agg.keys & OSC_KEY_MODULE && r->module != OSC_NONE)
		return osc_module_path(tv->agg.modules, r->module);
	return osc_agg_label_names(&t->trace, &tv->agg, &t->names, r, buf, size);
}

size_t osc_table_view_members(struct osc_view *v, size_t row, const uint32_t **members)
{
	const struct osc_agg_row *r = osc_table_view_row_shown(v, row, members);

	return r ? r->nr : 0;
}

/*
 * The rows of level l to the view above (view.h's lend_rows): those shown,
 * when they are current, else those kept. A kernel table of some ops'
 * kernels (only) lends none: they are not the level's rows.
 */
static bool table_lend_rows(struct osc_tui *t, struct osc_view *v, enum osc_level l,
			    struct osc_agg *out)
{
	struct table_view *tv = v->priv;

	if (tv->only)
		return false;
	if (l != tv->level || !rows_current(t, tv)) {
		if (!osc_kept_take(&tv->kept, rows_key(t, l), t->gen, out, sizeof(*out)))
			return false;
	} else {
		*out = tv->agg;
		memset(&tv->agg, 0, sizeof(tv->agg));
		tv->rows_made = false;
		v->built_gen = t->gen - 1; /* built again on top, unless they come back */
	}
	tv->lent = true;
	tv->lent_key = rows_key(t, l);
	tv->lent_gen = t->gen;
	return true;
}

/* Rows lent come back: shown again when they are the level's, else kept. */
static void table_rows_back(struct osc_tui *t, struct osc_view *v, struct osc_agg *rows)
{
	struct table_view *tv = v->priv;

	if (agg_key(rows) == tv->lent_key) /* not those lent before: what-if's Tab lends first */
		tv->lent = false;
	if (agg_key(rows) != rows_key(t, tv->level) || tv->rows_made || tv->job.job.running) {
		osc_kept_retire(&tv->kept, true, agg_key(rows), t->gen, rows, sizeof(*rows),
				osc_agg_bytes(rows));
		return;
	}
	install_rows(tv, rows, t->gen);
	v->built_gen = t->gen;
}

/*
 * m: the device levels' rows merge the kernels of each name shown, so they
 * are those kept for the new style, else built again (the rows shown stay
 * until then).
 */
static void table_restyle(struct osc_tui *t, struct osc_view *v)
{
	struct table_view *tv = v->priv;

	if (!osc_level_is_device(tv->level) || rows_current(t, tv))
		return; /* the new style keys rows as the old one did: only their labels change */
	/* the row Enter opened (views above find it by its key) */
	tv->drill.key = osc_names_key(&t->names, tv->drill_opened);
	if (tv->job.job.running)
		tv->job.job.again = true;
	else if (!show_kept(t, v, tv->level))
		v->built_gen = t->gen - 1;
}

/* The `opscope report` command printing the same CSV as the table. */
static char *table_command(struct osc_tui *t, struct osc_view *v)
{
	struct table_view *tv = v->priv;
	const struct osc_column *col = &v->tab.cols[v->sort_col];
	char *line;

	if (tv->only)
		return NULL; /* K's kernels of some ops: report has no such table */
	line = osc_cli_line_start(t, "report", NULL, tv->level);
	/* report sorts numbers descending and text ascending, --asc both ascending */
	return osc_cli_line_order(line, col, col->stat == OSC_STAT_TOTAL, col->numeric,
				  v->sort_desc, v->topn, t->export_as, "report");
}

const struct osc_view_ops osc_view_table = {
	.name = "table",
	.open = table_open,
	.close = table_close,
	.build = table_build,
	.sort = table_sort,
	.table = table_table,
	.export_table = table_export_table,
	.flex_col = 0,
	.action = table_action,
	.title = table_title,
	.bases = table_bases,
	.detail = table_detail,
	.export_name = table_export_name,
	.row_event = table_row_event,
	.stored_order = table_stored_order,
	.bar = table_bar,
	.command = table_command,
	.busy = table_busy,
	.ahead = table_ahead,
	.poll = table_poll,
	.lend_rows = table_lend_rows,
	.rows_back = table_rows_back,
	.restyle = table_restyle,
	.builds_on_worker = true,
};
