/*
 * view_modules.c - the nn.Module hierarchy (module.h) as a tree that folds
 * in place, with the module level's measures (aggregate.h): T on a row of
 * the module table opens it at that module.
 *
 * The numbers are the module level's over the TUI's runs; the filter keeps
 * the paths through a module whose event name matches (its ancestors and
 * descendants), as in `opscope tree --modules`. Siblings stay in order of
 * first appearance (no sort: the order is the model's). Folding is a bitset
 * over the hierarchy's nodes and a flattened array of the visible ones, as
 * in the call tree; the same keys move and fold (Enter, c/e, C/E, u, [ ]).
 */
#include <stdlib.h>
#include <string.h>

#include "opscope/analysis/aggregate.h"
#include "opscope/analysis/columns.h"
#include "opscope/analysis/module.h"
#include "opscope/analysis/trace_cache.h"
#include "opscope/base/alloc.h"
#include "opscope/base/bits.h"
#include "keymap.h"
#include "view.h"

/* The module level's columns shown after the tree's name column. */
#define MEASURES "count,total_us,self_us,self_pct,device_us,device_pct,device_total_us,kernels"
#define MEASURES_CPU "count,total_us,self_us,self_pct"
#define MAX_COLS 16

struct modules_view {
	struct osc_tui *tui;
	uint32_t focus;           /* node to select after the build, or OSC_NONE */
	const struct osc_modules *m;
	struct osc_agg agg;       /* the module level over the TUI's runs, unfiltered */
	size_t *row_of;           /* per node: its row in agg, SIZE_MAX for none */
	uint64_t *folded;         /* bitset over nodes */
	uint8_t *keep, *last;
	uint32_t *rows;           /* visible nodes in preorder */
	size_t nr_rows;
	uint32_t *vis_of;         /* per node: its visible row, OSC_NONE when hidden */
	struct osc_column cols[MAX_COLS]; /* the name, then the measures */
	struct osc_column xcols[MAX_COLS]; /* the same for x, the name titled as in tree CSV */
	size_t nr_cols;
	struct cell_ctx {
		const struct modules_view *mv;
		bool export;      /* the name is the plain path (x) */
	} drawn, exported;
};

static bool is_folded(const struct modules_view *mv, uint32_t n)
{
	return osc_bit(mv->folded, n);
}

static void set_folded(struct modules_view *mv, uint32_t n, bool on)
{
	osc_bit_put(mv->folded, n, on);
}

/* The visible rows: kept nodes in preorder whose ancestors are unfolded. */
static void flatten(struct modules_view *mv)
{
	const struct osc_modules *m = mv->m;

	mv->nr_rows = 0;
	for (size_t i = 0; i < m->nr; i++)
		mv->vis_of[i] = OSC_NONE;
	for (uint32_t n = m->first_root; n != OSC_NONE;
	     n = osc_modules_next(m, n, !is_folded(mv, n))) {
		if (mv->keep[n]) {
			mv->vis_of[n] = (uint32_t)mv->nr_rows;
			mv->rows[mv->nr_rows++] = n;
		}
	}
}

static void modules_open(struct osc_tui *t, struct osc_view *v, const void *arg)
{
	struct modules_view *mv = osc_xcalloc(1, sizeof(*mv));

	mv->tui = t;
	mv->focus = arg ? *(const uint32_t *)arg : OSC_NONE;
	v->priv = mv;
}

static void release_rows(struct modules_view *mv)
{
	osc_agg_release(&mv->agg);
	free(mv->row_of);
	free(mv->folded);
	free(mv->keep);
	free(mv->last);
	free(mv->rows);
	free(mv->vis_of);
	mv->row_of = NULL;
	mv->folded = NULL;
	mv->keep = mv->last = NULL;
	mv->rows = mv->vis_of = NULL;
	mv->nr_rows = 0;
}

static void modules_close(struct osc_view *v)
{
	struct modules_view *mv = v->priv;

	release_rows(mv);
	free(mv);
}

/* Unfold the ancestors of node n, flatten and select it; false when it is not shown. */
static bool reveal(struct osc_view *v, struct modules_view *mv, uint32_t n)
{
	if (n == OSC_NONE || n >= mv->m->nr || !mv->keep[n])
		return false;
	for (uint32_t a = mv->m->nodes[n].parent; a != OSC_NONE; a = mv->m->nodes[a].parent)
		set_folded(mv, a, false);
	flatten(mv);
	v->cur = mv->vis_of[n];
	return true;
}

static void modules_build(struct osc_tui *t, struct osc_view *v)
{
	struct modules_view *mv = v->priv;
	struct osc_query q = { .level = OSC_LEVEL_MODULE, .runs = &t->sel };
	uint32_t selected = mv->nr_rows && v->cur < mv->nr_rows ? mv->rows[v->cur] : mv->focus;
	struct osc_column *cols = NULL;
	struct osc_error err;
	size_t n, nr = 0;

	release_rows(mv);
	mv->m = osc_trace_modules(&t->trace);
	osc_aggregate(&t->trace, &t->runs, &q, &mv->agg);
	if (osc_columns_parse(OSC_LEVEL_MODULE, mv->agg.has_device ? MEASURES : MEASURES_CPU, &cols,
			      &nr, &err) == OSC_OK)
		osc_agg_set_columns(&mv->agg, cols, nr);
	mv->cols[0] = (struct osc_column){ "module", 16, OSC_ALIGN_LEFT, false, OSC_STAT_NAME };
	for (mv->nr_cols = 1; mv->nr_cols - 1 < mv->agg.nr_cols && mv->nr_cols < MAX_COLS;
	     mv->nr_cols++)
		mv->cols[mv->nr_cols] = mv->agg.cols[mv->nr_cols - 1];
	memcpy(mv->xcols, mv->cols, sizeof(mv->xcols));
	mv->xcols[0].title = "name";
	n = mv->m->nr ? mv->m->nr : 1;
	mv->row_of = osc_xmalloc(n * sizeof(*mv->row_of));
	mv->folded = osc_xcalloc((n + 63) / 64, sizeof(*mv->folded));
	mv->keep = osc_xcalloc(n, 1);
	mv->last = osc_xcalloc(n, 1);
	mv->rows = osc_xmalloc(n * sizeof(*mv->rows));
	mv->vis_of = osc_xmalloc(n * sizeof(*mv->vis_of));
	for (size_t i = 0; i < mv->m->nr; i++)
		mv->row_of[i] = SIZE_MAX;
	for (size_t r = 0; r < mv->agg.nr; r++) {
		mv->row_of[mv->agg.rows[r].module] = r;
		mv->keep[mv->agg.rows[r].module] = 1;
	}
	osc_modules_keep(mv->m, &t->filter, mv->keep, 0, -1, mv->keep);
	osc_modules_last(mv->m, mv->keep, mv->last);
	v->cur = v->top = 0;
	flatten(mv);
	if (selected != OSC_NONE)
		reveal(v, mv, selected);
	mv->focus = OSC_NONE;
}

static const char *modules_cell(const void *ctx, size_t row, size_t col, char *buf, size_t size)
{
	const struct modules_view *mv = ((const struct cell_ctx *)ctx)->mv;
	uint32_t n = mv->rows[row];
	const char *mark;
	size_t len;

	if (col > 0)
		return osc_agg_cell(&mv->tui->trace, &mv->agg, mv->row_of[n], col - 1, buf, size);
	if (((const struct cell_ctx *)ctx)->export)
		return osc_module_path(mv->m, n);
	len = osc_modules_guide(mv->m, mv->last, n, 0, mv->tui->utf8, buf, size);
	if (mv->m->nodes[n].first_child == OSC_NONE)
		mark = mv->tui->utf8 ? "\xe2\x94\x80 " : "  ";
	else if (is_folded(mv, n))
		mark = mv->tui->utf8 ? "\xe2\x96\xb6 " : "+ ";
	else
		mark = mv->tui->utf8 ? "\xe2\x96\xbc " : "- ";
	snprintf(buf + len, size - len, "%s%s", mark, osc_module_name(mv->m, n));
	return buf;
}

static void modules_table(struct osc_tui *t, struct osc_view *v, struct osc_table *out)
{
	struct modules_view *mv = v->priv;

	(void)t;
	mv->drawn = (struct cell_ctx){ mv, false };
	*out = (struct osc_table){ .cols = mv->cols, .nr_cols = mv->nr_cols,
				   .nr_rows = mv->nr_rows, .cell = modules_cell, .ctx = &mv->drawn };
}

/* x: the rows shown, named by their '/'-joined path (as tree --modules --format csv). */
static void modules_export_table(struct osc_tui *t, struct osc_view *v, struct osc_table *out)
{
	struct modules_view *mv = v->priv;

	modules_table(t, v, out);
	mv->exported = (struct cell_ctx){ mv, true };
	out->ctx = &mv->exported;
	out->cols = mv->xcols;
}

static void modules_title(struct osc_tui *t, struct osc_view *v, char *buf, size_t size)
{
	struct modules_view *mv = v->priv;

	(void)t;
	snprintf(buf, size, "module tree (%zu paths, %zu shown)", mv->m ? mv->m->nr : 0,
		 mv->nr_rows);
}

static void modules_bases(struct osc_tui *t, struct osc_view *v, char *buf, size_t size)
{
	struct modules_view *mv = v->priv;
	char busy[32], device[32];

	(void)t;
	osc_format_us_int(mv->agg.host_busy, busy, sizeof(busy));
	osc_format_us_int(mv->agg.device_time, device, sizeof(device));
	if (mv->agg.has_device)
		snprintf(buf, size, "host busy %s us, device time %s us", busy, device);
	else
		snprintf(buf, size, "host busy %s us", busy);
}

static void modules_empty(struct osc_tui *t, struct osc_view *v, char *buf, size_t size)
{
	struct modules_view *mv = v->priv;

	(void)t;
	snprintf(buf, size, "%s", mv->m && mv->m->nr_inst
		 ? "(no module in the selected runs, or the filter hides them)"
		 : "(no nn.Module events: profile with with_stack=True or with_modules=True)");
}

static void modules_detail(struct osc_tui *t, struct osc_view *v, size_t row,
			   struct osc_lines *out)
{
	struct modules_view *mv = v->priv;
	uint32_t n = mv->rows[row];
	char buf[4096];

	(void)t;
	osc_lines_add(out, OSC_MARK_TITLE, "module", "");
	osc_lines_add(out, OSC_MARK_NONE, "path", osc_module_path(mv->m, n));
	for (size_t c = 0; c < mv->agg.nr_cols; c++)
		osc_lines_add(out, OSC_MARK_NONE, mv->agg.cols[c].title,
			      osc_agg_cell(&mv->tui->trace, &mv->agg, mv->row_of[n], c, buf,
					   sizeof(buf)));
}

/* Rows shown below the selected node: its visible descendants (kept on screen). */
static size_t modules_below(struct osc_tui *t, struct osc_view *v)
{
	struct modules_view *mv = v->priv;
	size_t k = v->cur + 1;
	uint32_t depth;

	(void)t;
	if (v->cur >= mv->nr_rows)
		return 0;
	depth = mv->m->nodes[mv->rows[v->cur]].depth;
	while (k < mv->nr_rows && mv->m->nodes[mv->rows[k]].depth > depth && k - v->cur < 1000)
		k++;
	return k - v->cur - 1;
}

/* The next (dir 1) or previous (dir -1) kept sibling of n, or OSC_NONE. */
static uint32_t sibling(const struct modules_view *mv, uint32_t n, int dir)
{
	const struct osc_modules *m = mv->m;
	uint32_t p = m->nodes[n].parent, s = p == OSC_NONE ? m->first_root : m->nodes[p].first_child;
	uint32_t before = OSC_NONE;

	if (dir > 0) {
		for (s = m->nodes[n].next_sibling; s != OSC_NONE && !mv->keep[s];)
			s = m->nodes[s].next_sibling;
		return s;
	}
	for (; s != OSC_NONE && s != n; s = m->nodes[s].next_sibling)
		if (mv->keep[s])
			before = s;
	return before;
}

static void fold_subtree(struct modules_view *mv, uint32_t n, bool on)
{
	const struct osc_modules *m = mv->m;

	set_folded(mv, n, on);
	for (uint32_t k = m->nodes[n].first_child; k != OSC_NONE; k = m->nodes[k].next_sibling)
		fold_subtree(mv, k, on);
}

static unsigned modules_action(struct osc_tui *t, struct osc_view *v, enum osc_action a)
{
	struct modules_view *mv = v->priv;
	uint32_t n, target = OSC_NONE;

	if (!mv->nr_rows)
		return a == OSC_ACT_TREE ? OSC_R_REDRAW : OSC_R_UNHANDLED;
	n = mv->rows[v->cur];
	switch (a) {
	case OSC_ACT_ENTER:
		set_folded(mv, n, !is_folded(mv, n));
		break;
	case OSC_ACT_FOLD_CHILDREN:
	case OSC_ACT_UNFOLD_CHILDREN:
		set_folded(mv, n, false);
		for (uint32_t k = mv->m->nodes[n].first_child; k != OSC_NONE;
		     k = mv->m->nodes[k].next_sibling)
			set_folded(mv, k, a == OSC_ACT_FOLD_CHILDREN);
		break;
	case OSC_ACT_FOLD_ALL:
	case OSC_ACT_UNFOLD_ALL:
		fold_subtree(mv, n, a == OSC_ACT_FOLD_ALL);
		break;
	case OSC_ACT_PARENT:
		target = mv->m->nodes[n].parent;
		break;
	case OSC_ACT_NEXT_SIBLING:
		target = sibling(mv, n, 1);
		break;
	case OSC_ACT_PREV_SIBLING:
		target = sibling(mv, n, -1);
		break;
	case OSC_ACT_TREE:
		osc_tui_message(t, OSC_MSG_INFO, "this is the module tree");
		return OSC_R_REDRAW;
	default:
		return OSC_R_UNHANDLED;
	}
	if (a == OSC_ACT_PARENT || a == OSC_ACT_NEXT_SIBLING || a == OSC_ACT_PREV_SIBLING) {
		if (!reveal(v, mv, target))
			osc_tui_message(t, OSC_MSG_INFO, "no %s here", osc_action_name(a));
	} else {
		flatten(mv);
		v->cur = mv->vis_of[n];
	}
	osc_view_refresh(t, v);
	return OSC_R_REDRAW;
}

static const char *modules_export_name(struct osc_tui *t, struct osc_view *v)
{
	(void)t;
	(void)v;
	return "modules";
}

const struct osc_view_ops osc_view_modules = {
	.name = "modules",
	.open = modules_open,
	.close = modules_close,
	.build = modules_build,
	.table = modules_table,
	.export_table = modules_export_table,
	.flex_col = 0,
	.empty = modules_empty,
	.action = modules_action,
	.title = modules_title,
	.bases = modules_bases,
	.detail = modules_detail,
	.export_name = modules_export_name,
	.below = modules_below,
};
