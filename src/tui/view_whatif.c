/*
 * view_whatif.c - what-if: the rows of a level with editable speedup
 * factors, their projected time, and the total before and after with the
 * share affected and the Amdahl ceiling in the title (whatif.h).
 *
 * '=' sets the factor of the selected row (a rule on the row's exact label;
 * 1 removes it), and ':speedups FILE' adds the rules of a CSV file as
 * `opscope whatif --speedup-csv` reads it; the rules stay while the view is
 * open, across levels (Tab), runs and filter changes. The cells are
 * osc_whatif_cell's, the same as `opscope whatif`, so an export equals its
 * CSV; kernel names are in the TUI's name style (m), as rules match them.
 *
 * On big traces the projection is computed on a worker (view_job.h) from
 * copies of the rules, the selection and the filter, the old rows shown
 * meanwhile, as the table does. Its rows are the table's under it when that
 * has the level's for the runs and filter in force (lend_rows, view.h): a
 * million rows are not aggregated again, and go back to the table after.
 * Without rules, the projection W or Tab shows next is computed before it is
 * asked for (early.h), and taken at once.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opscope/base/alloc.h"
#include "opscope/analysis/whatif.h"
#include "cli_line.h"
#include "prompt.h"
#include "view.h"
#include "view_job.h"

/*
 * A projection: an aggregate and the what-if over it (w points into agg).
 * back, once the rules change, is the projection shown before, with w's
 * labels: the next rules are projected into it in place (project_back), as
 * w stays shown meanwhile, and then it is shown (show_back).
 */
struct projection {
	struct osc_agg agg;
	struct osc_whatif w;
	struct osc_whatif back; /* trace NULL: none */
	bool lent;              /* agg is the view under's rows (view.h's lend_rows), */
	unsigned lent_gen;      /* ... lent for this tui->gen */
};

/* A projection computed on a worker (view_job.h) from copies of what it reads. */
struct whatif_job {
	struct osc_view_job job;
	const struct osc_trace *trace;
	const struct osc_runs *runs;
	struct osc_query q;         /* over job's copies of the selection and filter */
	struct osc_speedups rules;  /* a copy: '=' may change the view's meanwhile */
	struct osc_names names;     /* the TUI's, sharing its tables, in one style */
	struct projection *rows;    /* project its rows again into its back (the view's
				       projection), or NULL: aggregate anew */
	bool relabel;               /* with rows: new labels (the name style changed) */
	bool prepare;               /* with rows: the back made ready, not shown
				       (prepare_back) */
	enum osc_whatif_col by;     /* the result sorted by this column, */
	bool desc;                  /* ... descending */
	struct projection *out;     /* the result: rows NULL (set before: an early
				       projection, the rules projected into it, or
				       rows lent, projected) */
};

struct whatif_view {
	enum osc_level level;
	struct osc_speedups rules;
	struct projection *p;      /* the projection shown */
	struct whatif_job job;
	enum osc_name_style style; /* the name style of the labels asked for last */
	enum osc_name_style keying; /* ... and its keying (osc_names_keying) */
	bool same_rows;            /* the next build: only rules or labels changed, so
				      p's rows are projected again, not aggregated */
	bool relabel;              /* ... and the labels changed */
};

/* Add the rules of from to to (a rule of the same pattern and shape is replaced). */
static void add_rules(struct osc_speedups *to, const struct osc_speedups *from)
{
	struct osc_error err;

	for (size_t i = 0; i < from->nr; i++)
		osc_speedups_set(to, from->v[i].pattern, from->v[i].shape, from->v[i].factor, &err);
}

static struct projection *project(const struct osc_trace *t, const struct osc_runs *runs,
				  const struct osc_query *q, const struct osc_names *names,
				  const struct osc_speedups *rules)
{
	struct projection *p = osc_xcalloc(1, sizeof(*p));

	osc_aggregate(t, runs, q, &p->agg);
	osc_whatif_names(t, &p->agg, names, rules, &p->w);
	return p;
}

static void projection_free(struct projection *p)
{
	if (!p)
		return;
	osc_whatif_release(&p->w);
	osc_whatif_release(&p->back);
	osc_agg_release(&p->agg);
	free(p);
}

/*
 * p's rows projected through rules into p->back: in place (osc_whatif_again:
 * no fresh memory, the labels kept) unless there is no back yet or new
 * labels are asked for (relabel); then sorted as by and desc say.
 */
static void project_back(const struct osc_trace *t, struct projection *p,
			 const struct osc_names *names, const struct osc_speedups *rules,
			 bool relabel, enum osc_whatif_col by, bool desc)
{
	if (p->back.trace && !relabel) {
		osc_whatif_again(&p->back, rules);
	} else {
		osc_whatif_release(&p->back);
		osc_whatif_names(t, &p->agg, names, rules, &p->back);
	}
	osc_whatif_sort(&p->back, by, desc);
}

/*
 * p shows its back (project_back); the projection shown before becomes the
 * back, unless its labels are not the new ones (relabel).
 */
static void show_back(struct projection *p, bool relabel)
{
	struct osc_whatif before = p->w;

	p->w = p->back;
	p->back = before;
	if (relabel)
		osc_whatif_release(&p->back);
	else
		osc_whatif_take_lookup(&p->back, &p->w);
}

/*
 * made's rows through rules, sorted as by and desc say: in place when it is
 * projected already (computed early, without rules), else anew (rows lent).
 */
static void project_made(const struct osc_trace *t, struct projection *made,
			 const struct osc_names *names, const struct osc_speedups *rules,
			 enum osc_whatif_col by, bool desc)
{
	if (made->w.trace)
		osc_whatif_again(&made->w, rules);
	else
		osc_whatif_names(t, &made->agg, names, rules, &made->w);
	osc_whatif_sort(&made->w, by, desc);
}

/* A projection computed before it is asked for (early.h); its rows are its own. */
struct early_projection {
	struct projection *p;
};

/*
 * An early projection's aim (early.h): its level and, at the device levels,
 * the name style of its labels and keys. Never 0.
 */
static unsigned projection_aim(enum osc_level level, enum osc_name_style style)
{
	return 1 + (unsigned)level + (osc_level_is_device(level) ? ((unsigned)style + 1) << 8 : 0);
}

static enum osc_level aim_level(unsigned aim)
{
	return (enum osc_level)((aim & 0xff) - 1);
}

/* The level of the what-if rows asked at level l: op for module (no what-if rows by module). */
static enum osc_level shown_level(enum osc_level l)
{
	return l == OSC_LEVEL_MODULE ? OSC_LEVEL_OP : l;
}

/* The level after l (Tab): the levels before module, in turn. */
static enum osc_level next_level(enum osc_level l)
{
	return (enum osc_level)((l + 1) % OSC_LEVEL_MODULE);
}

static void whatif_open(struct osc_tui *t, struct osc_view *v, const void *arg)
{
	struct whatif_view *wv = osc_xcalloc(1, sizeof(*wv));

	(void)t;
	wv->level = shown_level(*(const enum osc_level *)arg);
	osc_speedups_init(&wv->rules);
	wv->p = osc_xcalloc(1, sizeof(*wv->p)); /* no rows until the first projection */
	v->priv = wv;
	v->sort_col = OSC_WHATIF_TOTAL;
	v->sort_desc = true;
}

/* Wait for a running job and free what it copied; its projection is left in out. */
static void job_finish(struct whatif_job *j)
{
	osc_view_job_join(&j->job);
	osc_speedups_release(&j->rules);
}

static void whatif_close(struct osc_view *v)
{
	struct whatif_view *wv = v->priv;

	if (wv->job.job.running) {
		atomic_store(wv->job.job.held, false); /* a script's held job: closing lets it go */
		job_finish(&wv->job);
		projection_free(wv->job.out); /* (a back projected is freed with p) */
	}
	projection_free(wv->p);
	osc_speedups_release(&wv->rules);
	free(wv);
}

/* The query of the what-if rows at level over the selection sel and the filter f. */
static struct osc_query whatif_query(const struct osc_tui *t, enum osc_level level,
				     const struct osc_runsel *sel, const struct osc_filter *f)
{
	return (struct osc_query){
		.level = level,
		.runs = sel,
		.filter = f, /* empty: none (aggregate.h) */
		.categories = t->args->categories, /* the category level's rows, as the table's */
		.in_place = true, /* the rows are shown in osc_whatif_sort's order */
		/* what-if reads the rows' members and counts and the bases, no statistics */
		.reads = OSC_READS_BASES,
		.names = &t->names,
	};
}

/* Whether a job is projecting p's rows (they must stay). */
static bool reading_rows(const struct whatif_view *wv)
{
	return wv->job.job.running && wv->job.rows == wv->p;
}

/* Whether a job computes rows that will replace those shown (not a back made ready). */
static bool updating(const struct whatif_view *wv)
{
	return wv->job.job.running && !wv->job.prepare;
}

/*
 * p makes way for next: its rows go back to the view under that lent them
 * when they are still of the runs and filter in force (the table shows
 * them again at once), else they are freed with it.
 */
static void replace_projection(struct osc_tui *t, struct osc_view *v, struct whatif_view *wv,
			       struct projection *next)
{
	struct osc_view *under = osc_view_under(t, v);

	if (wv->p->lent && wv->p->lent_gen == t->gen && under && !reading_rows(wv)) {
		osc_whatif_release(&wv->p->w);
		osc_whatif_release(&wv->p->back);
		under->ops->rows_back(t, under, &wv->p->agg);
	}
	projection_free(wv->p);
	wv->p = next;
}

/* A projection, not yet projected, of the rows the view under lends (view.h); NULL if none. */
static struct projection *lent_rows(struct osc_tui *t, struct osc_view *v,
				    const struct whatif_view *wv)
{
	struct osc_view *under = osc_view_under(t, v);
	struct projection *p;
	struct osc_agg rows;

	if (!under || !under->ops->lend_rows || !under->ops->lend_rows(t, under, wv->level, &rows))
		return NULL;
	p = osc_xcalloc(1, sizeof(*p));
	p->agg = rows;
	p->lent = true;
	p->lent_gen = t->gen;
	return p;
}

static void job_work(void *arg)
{
	struct whatif_job *j = arg;

	if (j->rows) {
		project_back(j->trace, j->rows, &j->names, &j->rules, j->relabel, j->by, j->desc);
		if (j->prepare)
			osc_whatif_prepare(&j->rows->back);
	} else if (j->out) {
		project_made(j->trace, j->out, &j->names, &j->rules, j->by, j->desc);
	} else {
		j->out = project(j->trace, j->runs, &j->q, &j->names, &j->rules);
		osc_whatif_sort(&j->out->w, j->by, j->desc);
	}
}

/*
 * Project on a worker, sorted as v is: rows again into their back (the
 * shown projection, which stays until the job is taken in whatif_poll), or
 * when rows is NULL into made (computed early: its rules; lent rows: all of
 * it), else a new aggregate. The rows shown stay until the result replaces
 * them.
 */
static bool job_start(struct osc_tui *t, struct osc_view *v, struct whatif_view *wv,
		      struct projection *rows, struct projection *made)
{
	struct whatif_job *j = &wv->job;

	j->trace = &t->trace;
	j->runs = &t->runs;
	j->q = whatif_query(t, wv->level, &j->job.sel, &j->job.filter);
	osc_speedups_init(&j->rules);
	add_rules(&j->rules, &wv->rules);
	j->names = t->names;
	j->q.names = &j->names;
	j->rows = rows;
	j->relabel = wv->relabel;
	j->by = (enum osc_whatif_col)v->sort_col;
	j->desc = v->sort_desc;
	j->out = made;
	if (osc_view_job_start(t, &j->job, job_work, j)) {
		wv->relabel = false; /* the job's now */
		return true;
	}
	osc_speedups_release(&j->rules);
	return false;
}

/*
 * p becomes the projection computed before it was asked (early.h), if any:
 * computed without rules, the view's rules are projected into it in place
 * (osc_whatif_again), on a worker when wanted (Tab with rules).
 */
static bool take_early(struct osc_tui *t, struct osc_view *v, struct whatif_view *wv)
{
	struct early_projection e;

	if (!osc_early_take(t, OSC_EARLY_WHATIF, projection_aim(wv->level, t->names.style), &e))
		return false;
	if (wv->rules.nr && osc_view_jobs_wanted(t) && job_start(t, v, wv, NULL, e.p)) {
		osc_view_job_wait_briefly(t, v, &wv->job.job);
		return true;
	}
	if (wv->rules.nr)
		project_made(&t->trace, e.p, &t->names, &wv->rules,
			     (enum osc_whatif_col)v->sort_col, v->sort_desc);
	replace_projection(t, v, wv, e.p);
	return true;
}

/*
 * Project the rules: over p's rows when only the rules or labels changed
 * (same_rows), or as computed early, or over the rows the view under lends,
 * else over a new aggregate.
 */
static void whatif_build(struct osc_tui *t, struct osc_view *v)
{
	struct whatif_view *wv = v->priv;
	struct osc_query q = whatif_query(t, wv->level, &t->sel, &t->filter);
	struct projection *rows = wv->same_rows ? wv->p : NULL, *lent;

	wv->style = t->names.style;
	wv->keying = osc_names_keying(&t->names);
	wv->same_rows = false;
	if (wv->job.job.running) {
		/* (a script's held job may not have started: not waited for) */
		if (!wv->job.prepare || !rows || atomic_load(wv->job.job.held)) {
			wv->job.job.again = true;
			return;
		}
		job_finish(&wv->job); /* the back it makes ready serves these rows */
		wv->job.prepare = false;
	}
	if (!rows && take_early(t, v, wv))
		return;
	lent = rows ? NULL : lent_rows(t, v, wv);
	if (osc_view_jobs_wanted(t) && job_start(t, v, wv, rows, lent)) {
		osc_view_job_wait_briefly(t, v, &wv->job.job);
		return;
	}
	if (lent) {
		project_made(&t->trace, lent, &t->names, &wv->rules,
			     (enum osc_whatif_col)v->sort_col, v->sort_desc);
		replace_projection(t, v, wv, lent);
		return;
	}
	if (rows) {
		project_back(&t->trace, rows, &t->names, &wv->rules, wv->relabel,
			     (enum osc_whatif_col)v->sort_col, v->sort_desc);
		show_back(rows, wv->relabel);
		wv->relabel = false;
		return;
	}
	replace_projection(t, v, wv, project(&t->trace, &t->runs, &q, &t->names, &wv->rules));
}

/*
 * Whether the rows shown serve another projection: built for the runs and
 * filter in force, and no projection to replace them is still computed.
 */
static bool rows_current(const struct osc_tui *t, const struct osc_view *v)
{
	const struct whatif_view *wv = v->priv;

	return v->built_gen == t->gen && wv->p->w.trace && !updating(wv);
}

/*
 * Project p's rows again (the rules or the labels changed, not the rows),
 * unless rows_current says they are due: then the whole build.
 */
static void reproject(struct osc_tui *t, struct osc_view *v)
{
	struct whatif_view *wv = v->priv;

	wv->same_rows = rows_current(t, v);
	v->built_gen = t->gen - 1;
	osc_view_refresh(t, v);
}

/*
 * Back to the view under: the rows it lent go back to it (replace_projection),
 * unless a job still projects them (they are freed on close then). A
 * projection of its own without rules is handed back (early.h) for the next W.
 */
static void whatif_leave(struct osc_tui *t, struct osc_view *v)
{
	struct whatif_view *wv = v->priv;
	struct early_projection back;

	if (reading_rows(wv))
		return;
	if (!wv->p->lent && !wv->rules.nr && rows_current(t, v)) {
		osc_whatif_release(&wv->p->back); /* kept for rules only */
		back.p = wv->p;
		wv->p = osc_xcalloc(1, sizeof(*wv->p));
		osc_early_give(t, OSC_EARLY_WHATIF, projection_aim(wv->level, wv->style), &back);
		return;
	}
	replace_projection(t, v, wv, osc_xcalloc(1, sizeof(*wv->p)));
}

static bool whatif_busy(struct osc_view *v)
{
	struct whatif_view *wv = v->priv;

	return wv->job.job.running;
}

static bool whatif_poll(struct osc_tui *t, struct osc_view *v)
{
	struct whatif_view *wv = v->priv;
	bool shown;

	if (!osc_view_job_finished(&wv->job.job))
		return false;
	job_finish(&wv->job);
	shown = !wv->job.prepare; /* a back made ready is not shown */
	if (wv->job.prepare) {
		wv->job.prepare = false;
	} else if (wv->job.rows) { /* the same rows, projected anew */
		show_back(wv->p, wv->job.relabel);
	} else {
		replace_projection(t, v, wv, wv->job.out);
		wv->job.out = NULL;
	}
	if (wv->job.job.again)
		job_start(t, v, wv, NULL, NULL);
	if (shown)
		osc_view_rows_replaced(t, v);
	return shown;
}

static void whatif_sort(struct osc_tui *t, struct osc_view *v)
{
	struct whatif_view *wv = v->priv;

	(void)t;
	if (!updating(wv)) /* the rows coming in are sorted then (whatif_poll) */
		osc_whatif_sort(&wv->p->w, (enum osc_whatif_col)v->sort_col, v->sort_desc);
}

static const char *whatif_cell(const void *ctx, size_t row, size_t col, char *buf, size_t size)
{
	return osc_whatif_cell(ctx, row, col, buf, size);
}

static void whatif_table(struct osc_tui *t, struct osc_view *v, struct osc_table *out)
{
	struct whatif_view *wv = v->priv;

	/* m: new labels; kernel rows merged on other names (demangle.h) are made or
	   borrowed again */
	if (wv->style != t->names.style && osc_level_is_device(wv->level)) {
		wv->same_rows = wv->keying == osc_names_keying(&t->names) && rows_current(t, v);
		wv->relabel = wv->same_rows;
		whatif_build(t, v);
		whatif_sort(t, v);
	}
	/* the columns of the rows shown, which may be another level's until the job's come */
	out->cols = osc_whatif_columns(wv->p->w.device, &out->nr_cols);
	out->nr_rows = wv->p->w.nr;
	out->cell = whatif_cell;
	out->ctx = &wv->p->w;
}

static enum osc_mark whatif_mark(struct osc_tui *t, struct osc_view *v, size_t row)
{
	struct whatif_view *wv = v->priv;

	(void)t;
	return osc_whatif_row_at(&wv->p->w, row)->factor != 1 ? OSC_MARK_ON : OSC_MARK_NONE;
}

static const uint32_t *whatif_stored_order(struct osc_view *v, size_t *nr)
{
	struct whatif_view *wv = v->priv;

	*nr = wv->p->w.nr_labels;
	return wv->p->w.order;
}

static double whatif_bar(struct osc_tui *t, struct osc_view *v, size_t row)
{
	struct whatif_view *wv = v->priv;

	(void)t;
	return osc_whatif_row_at(&wv->p->w, row)->pct / 100.0;
}

static void whatif_title(struct osc_tui *t, struct osc_view *v, char *buf, size_t size)
{
	struct whatif_view *wv = v->priv;

	(void)t;
	snprintf(buf, size, "what-if %s (%zu rules%s)", osc_level_name(wv->level), wv->rules.nr,
		 updating(wv) ? ", updating..." : "");
}

/* The projection, with its bases, after the runs and filter. */
static void whatif_bases(struct osc_tui *t, struct osc_view *v, char *buf, size_t size)
{
	struct whatif_view *wv = v->priv;

	(void)t;
	if (!wv->p->w.trace) /* the first projection is being computed */
		snprintf(buf, size, "projecting...");
	else
		osc_whatif_summary(&wv->p->w, buf, size);
}

static const char *whatif_export_name(struct osc_tui *t, struct osc_view *v)
{
	(void)t;
	(void)v;
	return "whatif";
}

/*
 * While a factor is typed, make p's back ready on a worker (project_back
 * with the rules in force, not shown): the factor is then projected into it
 * in place, as the ones after it are, not into a new projection.
 */
static void prepare_back(struct osc_tui *t, struct osc_view *v, struct whatif_view *wv)
{
	if (wv->p->back.trace || wv->relabel || !rows_current(t, v) ||
	    !osc_view_jobs_wanted(t) || atomic_load(&t->jobs_held))
		return;
	wv->job.prepare = true;
	if (!job_start(t, v, wv, wv->p, NULL))
		wv->job.prepare = false;
}

static unsigned factor_done(struct osc_tui *t, const char *answer)
{
	struct osc_view *v = osc_tui_top(t);
	struct whatif_view *wv = v->priv;
	struct osc_error err;
	char *end;
	double f;

	if (!answer || !*answer || v->ops != &osc_view_whatif)
		return OSC_R_REDRAW;
	f = strtod(answer, &end);
	if (*end || end == answer) {
		osc_tui_message(t, OSC_MSG_ERROR, "'%s' is not a number%s (factor kept)", answer,
				strchr(answer, ',') ? ": factors take a decimal point, as 2.5" : "");
		return OSC_R_REDRAW;
	}
	osc_error_clear(&err);
	if (osc_speedups_set(&wv->rules, t->prompt.pending, "", f, &err) != OSC_OK) {
		osc_tui_message(t, OSC_MSG_ERROR, "%s (factor kept)", err.message);
		return OSC_R_REDRAW;
	}
	reproject(t, v);
	return OSC_R_REDRAW;
}

static unsigned whatif_action(struct osc_tui *t, struct osc_view *v, enum osc_action a)
{
	struct whatif_view *wv = v->priv;
	char label[4200], now[32];
	const char *name;

	switch (a) {
	case OSC_ACT_NEXT_LEVEL: /* the module level has no what-if rows: cycle the others */
		wv->level = next_level(wv->level);
		v->built_gen = t->gen - 1;
		v->cur = v->top = v->hoff = 0;
		osc_view_refresh(t, v);
		return OSC_R_REDRAW;
	case OSC_ACT_SET_FACTOR:
		if (!v->tab.nr_rows)
			return OSC_R_REDRAW;
		name = wv->p->w.labels[osc_whatif_row_at(&wv->p->w, v->cur)->agg_row];
		snprintf(label, sizeof(label), "speedup of '%s' (1 removes): ", name);
		snprintf(now, sizeof(now), "%g", osc_whatif_row_at(&wv->p->w, v->cur)->factor);
		osc_prompt_open(t, label, now, false, factor_done, name);
		prepare_back(t, v, wv);
		return OSC_R_REDRAW;
	default:
		return OSC_R_UNHANDLED;
	}
}

/* A factor as the shortest text that reads back as the same double. */
static void factor_text(double f, char *buf, size_t size)
{
	snprintf(buf, size, "%.15g", f);
	if (strtod(buf, NULL) != f)
		snprintf(buf, size, "%.17g", f);
}

/*
 * The `opscope whatif` command printing the same CSV: its rules as -x
 * OP[@SHAPE]=FACTOR. None without rules (whatif needs one), or when a rule's
 * text holds '@' or '=' (a RULE cannot say it).
 */
static char *whatif_command(struct osc_tui *t, struct osc_view *v)
{
	struct whatif_view *wv = v->priv;
	size_t nr;
	const struct osc_column *cols = osc_whatif_columns(osc_level_is_device(wv->level), &nr);
	char *line, *rule, f[40];

	if (!wv->rules.nr || !t->args->path)
		return NULL;
	for (size_t i = 0; i < wv->rules.nr; i++)
		if (strpbrk(wv->rules.v[i].pattern, "@=") || strpbrk(wv->rules.v[i].shape, "@="))
			return NULL;
	line = osc_cli_line_start(t, "whatif", NULL, wv->level);
	for (size_t i = 0; i < wv->rules.nr; i++) {
		factor_text(wv->rules.v[i].factor, f, sizeof(f));
		rule = osc_xasprintf("%s%s%s=%s", wv->rules.v[i].pattern,
				     *wv->rules.v[i].shape ? "@" : "", wv->rules.v[i].shape, f);
		line = osc_cli_line_arg(osc_cli_line_arg(line, "-x"), rule);
		free(rule);
	}
	/* whatif sorts numbers descending and text ascending, --asc both ascending */
	return osc_cli_line_order(line, &cols[v->sort_col], v->sort_col == OSC_WHATIF_TOTAL,
				  cols[v->sort_col].numeric, v->sort_desc, v->topn, t->export_as,
				  "whatif");
}

unsigned osc_whatif_view_load(struct osc_tui *t, const char *path)
{
	struct osc_view *v = osc_tui_top(t);
	struct whatif_view *wv = v->priv;
	struct osc_speedups add;
	struct osc_error err;
	char msg[1024];

	if (v->ops != &osc_view_whatif) {
		osc_tui_message(t, OSC_MSG_ERROR, "speedups: open the what-if view (W) first");
		return OSC_R_REDRAW;
	}
	osc_speedups_init(&add);
	osc_error_clear(&err);
	if (osc_speedups_read_csv(&add, path, &err) != OSC_OK) {
		osc_error_format(&err, msg, sizeof(msg));
		osc_tui_message(t, OSC_MSG_ERROR, "%s (no rule added)", msg);
		osc_speedups_release(&add);
		return OSC_R_REDRAW;
	}
	add_rules(&wv->rules, &add);
	osc_tui_message(t, OSC_MSG_INFO, "%zu speedup rule%s from %s", add.nr,
			add.nr == 1 ? "" : "s", path);
	osc_speedups_release(&add);
	reproject(t, v);
	return OSC_R_REDRAW;
}

const struct osc_view_ops osc_view_whatif = {
	.name = "whatif",
	.open = whatif_open,
	.close = whatif_close,
	.build = whatif_build,
	.sort = whatif_sort,
	.table = whatif_table,
	.flex_col = 0,
	.mark = whatif_mark,
	.action = whatif_action,
	.title = whatif_title,
	.bases = whatif_bases,
	.bases_first = true,
	.export_name = whatif_export_name,
	.stored_order = whatif_stored_order,
	.bar = whatif_bar,
	.command = whatif_command,
	.busy = whatif_busy,
	.poll = whatif_poll,
	.leave = whatif_leave,
};

/* ---- the projection W or its Tab shows next, computed early (early.h) ---- */

/*
 * What is due next: at the next level (Tab) in a what-if view on top (its
 * rules are projected into it then), else at the level W opens at from the
 * view on top.
 */
static unsigned early_aim(const struct osc_tui *t)
{
	const struct osc_view *v = t->stack[t->depth - 1];
	const struct whatif_view *wv = v->priv;

	if (v->ops != &osc_view_whatif)
		return projection_aim(shown_level(osc_table_top_level(t)), t->names.style);
	return projection_aim(next_level(wv->level), t->names.style);
}

/* Worth computing: the trace has events, and no what-if view is open under the top. */
static bool early_wanted(const struct osc_tui *t)
{
	for (size_t i = 0; i + 1 < t->depth; i++)
		if (t->stack[i]->ops == &osc_view_whatif)
			return false;
	return t->trace.nr_events && early_aim(t);
}

/*
 * The projection without rules at aim's level and name style, sorted as W
 * opens it, ready for rules.
 */
static void early_compute(const struct osc_tui *t, unsigned aim, const struct osc_runsel *sel,
			  const struct osc_filter *filter, void *result)
{
	struct early_projection *e = result;
	struct osc_names names = t->names; /* sharing its tables, in aim's style */
	struct osc_query q = whatif_query(t, aim_level(aim), sel, filter);
	struct osc_speedups none;

	if (aim >> 8)
		names.style = (enum osc_name_style)((aim >> 8) - 1);
	q.names = &names;
	osc_speedups_init(&none);
	e->p = project(&t->trace, &t->runs, &q, &names, &none);
	osc_whatif_sort(&e->p->w, OSC_WHATIF_TOTAL, true); /* whatif_open's order */
	/* what rules need (at a host level, the lookup of its rows' events and room
	   for the host tree's factors: 4 bytes an event, 8 a node), made here rather
	   than when they are set: Tab with rules, or '=' */
	osc_whatif_prepare(&e->p->w);
}

static void early_release(void *result)
{
	struct early_projection *e = result;

	projection_free(e->p);
}

static size_t early_bytes(const struct osc_tui *t, const void *result)
{
	const struct early_projection *e = result;

	(void)t;
	return osc_agg_bytes(&e->p->agg) + osc_whatif_bytes(&e->p->w);
}

const struct osc_early_kind osc_early_whatif = {
	.size = sizeof(struct early_projection),
	.wanted = early_wanted,
	.aim = early_aim,
	.compute = early_compute,
	.release = early_release,
	.bytes = early_bytes,
};
