/*
 * view_whatif.c - what-if: the rows of a level with editable speedup
 * factors, their projected time, and the total before and after with the
 * share affected and the Amdahl ceiling in the title (whatif.h).
 *
 * '=' sets the factor of the selected row (a rule on the row's exact label;
 * 1 removes it), and ':speedups FILE' adds the rules of a CSV file as
 * `opscope whatif --speedup-csv` reads it; the rules stay while the view is
 * open, across levels (Tab), runs and filter changes. The cells are osc_whatif_cell's, the same as
 * `opscope whatif`, so an export equals its CSV; kernel names are in the
 * TUI's name style (m), as rules match them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opscope/base/alloc.h"
#include "opscope/analysis/whatif.h"
#include "cli_line.h"
#include "prompt.h"
#include "view.h"

struct whatif_view {
	enum osc_level level;
	struct osc_agg agg;
	struct osc_speedups rules;
	struct osc_whatif w;
	enum osc_name_style style; /* the name style of the labels */
};

static void whatif_open(struct osc_tui *t, struct osc_view *v, const void *arg)
{
	struct whatif_view *wv = osc_xcalloc(1, sizeof(*wv));

	(void)t;
	wv->level = *(const enum osc_level *)arg;
	if (wv->level == OSC_LEVEL_MODULE) /* no what-if rows by module */
		wv->level = OSC_LEVEL_OP;
	osc_speedups_init(&wv->rules);
	v->priv = wv;
	v->sort_col = OSC_WHATIF_TOTAL;
	v->sort_desc = true;
}

static void whatif_close(struct osc_view *v)
{
	struct whatif_view *wv = v->priv;

	osc_whatif_release(&wv->w);
	osc_agg_release(&wv->agg);
	osc_speedups_release(&wv->rules);
	free(wv);
}

static void whatif_build(struct osc_tui *t, struct osc_view *v)
{
	struct whatif_view *wv = v->priv;
	struct osc_query q = {
		.level = wv->level,
		.runs = &t->sel,
		.filter = osc_filter_is_empty(&t->filter) ? NULL : &t->filter,
		.in_place = true, /* the rows are shown in osc_whatif_sort's order */
	};

	osc_whatif_release(&wv->w);
	osc_agg_release(&wv->agg);
	osc_aggregate(&t->trace, &t->runs, &q, &wv->agg);
	osc_whatif_names(&t->trace, &wv->agg, &t->names, &wv->rules, &wv->w);
	wv->style = t->names.style;
}

static void whatif_sort(struct osc_tui *t, struct osc_view *v)
{
	struct whatif_view *wv = v->priv;

	(void)t;
	osc_whatif_sort(&wv->w, (enum osc_whatif_col)v->sort_col, v->sort_desc);
}

static const char *whatif_cell(const void *ctx, size_t row, size_t col, char *buf, size_t size)
{
	return osc_whatif_cell(ctx, row, col, buf, size);
}

static void whatif_table(struct osc_tui *t, struct osc_view *v, struct osc_table *out)
{
	struct whatif_view *wv = v->priv;

	if (wv->style != t->names.style && osc_level_is_device(wv->level)) { /* m: new labels */
		whatif_build(t, v);
		whatif_sort(t, v);
	}
	out->cols = osc_whatif_columns(osc_level_is_device(wv->level), &out->nr_cols);
	out->nr_rows = wv->w.nr;
	out->cell = whatif_cell;
	out->ctx = &wv->w;
}

static enum osc_mark whatif_mark(struct osc_tui *t, struct osc_view *v, size_t row)
{
	struct whatif_view *wv = v->priv;

	(void)t;
	return wv->w.rows[row].factor != 1 ? OSC_MARK_ON : OSC_MARK_NONE;
}

static double whatif_bar(struct osc_tui *t, struct osc_view *v, size_t row)
{
	struct whatif_view *wv = v->priv;

	(void)t;
	return wv->w.rows[row].pct / 100.0;
}

static void whatif_title(struct osc_tui *t, struct osc_view *v, char *buf, size_t size)
{
	struct whatif_view *wv = v->priv;

	(void)t;
	snprintf(buf, size, "what-if %s (%zu rules)", osc_level_name(wv->level), wv->rules.nr);
}

/* The projection, with its bases, after the runs and filter. */
static void whatif_bases(struct osc_tui *t, struct osc_view *v, char *buf, size_t size)
{
	struct whatif_view *wv = v->priv;

	(void)t;
	osc_whatif_summary(&wv->w, buf, size);
}

static const char *whatif_export_name(struct osc_tui *t, struct osc_view *v)
{
	(void)t;
	(void)v;
	return "whatif";
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
	v->built_gen = t->gen - 1;
	osc_view_refresh(t, v);
	return OSC_R_REDRAW;
}

static unsigned whatif_action(struct osc_tui *t, struct osc_view *v, enum osc_action a)
{
	struct whatif_view *wv = v->priv;
	char label[4200], now[32];
	const char *name;

	switch (a) {
	case OSC_ACT_NEXT_LEVEL: /* the module level has no what-if rows: cycle the others */
		wv->level = (wv->level + 1) % OSC_LEVEL_MODULE;
		v->built_gen = t->gen - 1;
		v->cur = v->top = v->hoff = 0;
		osc_view_refresh(t, v);
		return OSC_R_REDRAW;
	case OSC_ACT_SET_FACTOR:
		if (!v->tab.nr_rows)
			return OSC_R_REDRAW;
		name = wv->w.labels[wv->w.rows[v->cur].agg_row];
		snprintf(label, sizeof(label), "speedup of '%s' (1 removes): ", name);
		snprintf(now, sizeof(now), "%g", wv->w.rows[v->cur].factor);
		osc_prompt_open(t, label, now, false, factor_done, name);
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
				  cols[v->sort_col].numeric, v->sort_desc, v->topn, "whatif");
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
	for (size_t i = 0; i < add.nr; i++)
		osc_speedups_set(&wv->rules, add.v[i].pattern, add.v[i].shape, add.v[i].factor,
				 &err);
	osc_tui_message(t, OSC_MSG_INFO, "%zu speedup rule%s from %s", add.nr,
			add.nr == 1 ? "" : "s", path);
	osc_speedups_release(&add);
	v->built_gen = t->gen - 1;
	osc_view_refresh(t, v);
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
	.bar = whatif_bar,
	.command = whatif_command,
};
