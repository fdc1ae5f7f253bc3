/*
 * view_tree.c - the merged host call tree, folded and unfolded in place.
 *
 * The instance tree and the correlation are built once per trace (the trace
 * never changes); the merged tree is rebuilt when the runs or the filter
 * change. Folding is UI state over that unchanging tree: a bitset of folded
 * nodes and the flattened array of visible rows, rebuilt in O(visible rows)
 * on a fold change, so moving and paging through a million rows cost the
 * same as through ten. Siblings (roots too) are sorted by the view's sort
 * column (s, S, r): total host time by default, or self, device, launch,
 * other runtime time, count or name; the synthetic root of unattributed
 * device work stays last. Keys follow uftrace: Enter folds, c/e fold or
 * unfold the children, C/E the whole subtree, u goes to the parent, [ and ]
 * to the previous and next sibling (in the order shown), L to the longest
 * child (n, p and l are taken by find and scrolling); an unfolded node keeps
 * its first children on screen. The detail pane is the kernel pane: the
 * node's kernels (named in the TUI's style, m) with their durations,
 * grid/block and how each was attributed.
 *
 * launch_ms is the time of the runtime calls that started device work
 * (correlate.h's launch links with device events: cudaLaunchKernel,
 * cudaMemcpyAsync...); other_rt_ms the time of the rest (cudaMalloc,
 * synchronizations), both over the node's subtree as device_ms.
 *
 * Opened from a table row of host ops (op, shape, dims, category, module,
 * run), the view shows the merged subtrees of the row's calls, whatever
 * their names (an ORT op row groups nodes of one op type, each named for
 * its node), read again for new runs (unfiltered: a filter keeps the paths
 * through a match, as in the whole tree); from a path row,
 * a kernel, an instance or an event's detail, the whole tree with the path
 * to that op (a kernel's launching op) unfolded and selected.
 *
 * On a big trace (view_job.h) the merge runs on a worker, which lays the
 * rows out too (tree_rows.h): T answers at once, titled "merging...", and
 * the tree comes in when merged; a change of runs meanwhile merges again
 * after. The whole tree is merged and laid out before T is pressed (early.h).
 *
 * x exports the rows shown with the plain name, its depth and its
 * $$-joined path (as `opscope tree` writes paths), then the numbers; to a
 * name ending in .folded, the folded stacks of `opscope flame` instead.
 */
#include <stdlib.h>
#include <string.h>

#include "opscope/base/alloc.h"
#include "opscope/base/bits.h"
#include "opscope/analysis/calltree.h"
#include "opscope/analysis/columns.h"
#include "opscope/analysis/correlate.h"
#include "opscope/analysis/trace_cache.h"
#include "cli_line.h"
#include "keymap.h"
#include "tree_rows.h"
#include "view.h"
#include "view_job.h"

static const struct osc_column tree_cols[NR_COLS] = {
	[COL_NAME] = { "name", 16, OSC_ALIGN_LEFT, false, OSC_STAT_NAME },
	[COL_TOTAL] = { "total_ms", 8, OSC_ALIGN_RIGHT, true, OSC_STAT_NAME },
	[COL_SELF] = { "self_ms", 8, OSC_ALIGN_RIGHT, true, OSC_STAT_NAME },
	[COL_DEVICE] = { "device_ms", 8, OSC_ALIGN_RIGHT, true, OSC_STAT_NAME },
	[COL_LAUNCH] = { "launch_ms", 8, OSC_ALIGN_RIGHT, true, OSC_STAT_NAME },
	[COL_RUNTIME] = { "other_rt_ms", 8, OSC_ALIGN_RIGHT, true, OSC_STAT_NAME },
	[COL_COUNT] = { "count", 5, OSC_ALIGN_RIGHT, true, OSC_STAT_NAME },
};

/* The export: the plain name, where it is, then the numbers shown. */
enum { X_NAME, X_DEPTH, X_PATH, X_FIRST_NUMBER, NR_XCOLS = X_FIRST_NUMBER + NR_COLS - 1 };

static const struct osc_column export_cols[NR_XCOLS] = {
	[X_NAME] = { "name", 16, OSC_ALIGN_LEFT, false, OSC_STAT_NAME },
	[X_DEPTH] = { "depth", 5, OSC_ALIGN_RIGHT, true, OSC_STAT_NAME },
	[X_PATH] = { "path", 16, OSC_ALIGN_LEFT, false, OSC_STAT_NAME },
	[X_FIRST_NUMBER] = { "total_ms", 8, OSC_ALIGN_RIGHT, true, OSC_STAT_NAME },
	{ "self_ms", 8, OSC_ALIGN_RIGHT, true, OSC_STAT_NAME },
	{ "device_ms", 8, OSC_ALIGN_RIGHT, true, OSC_STAT_NAME },
	{ "launch_ms", 8, OSC_ALIGN_RIGHT, true, OSC_STAT_NAME },
	{ "other_rt_ms", 8, OSC_ALIGN_RIGHT, true, OSC_STAT_NAME },
	{ "count", 5, OSC_ALIGN_RIGHT, true, OSC_STAT_NAME },
};

/* The core column each view column shows (the name and the runtime split are drawn here). */
static const enum osc_tree_col core_col[NR_COLS] = {
	[COL_NAME] = OSC_TREE_COL_NAME,	    [COL_TOTAL] = OSC_TREE_COL_HOST,
	[COL_SELF] = OSC_TREE_COL_SELF,	    [COL_DEVICE] = OSC_TREE_COL_DEVICE,
	[COL_LAUNCH] = OSC_TREE_COL_LAUNCH, [COL_RUNTIME] = OSC_TREE_COL_RUNTIME,
	[COL_COUNT] = OSC_TREE_COL_COUNT,
};

struct tree_view {
	struct osc_tui *tui;
	bool of_row;                   /* the roots are the calls of a table row, like */
	struct osc_agg_row like;       /* with of_row: that row (its identity) */
	char *row_name;                /* with of_row: its name, as the title shows it */
	enum osc_level level;          /* with of_row: its level */
	uint64_t *roots;               /* with of_row: the calls' nodes (a bitmap over c's) */
	size_t nr_calls;               /* with of_row: the row's calls (roots) */
	struct osc_runsel calls_sel;   /* with of_row: the runs roots are (to be) read for */
	bool reread;                   /* the next merge reads the row's calls for its runs */
	uint64_t *made_roots;          /* a merge's reread, taken in with its tree */
	size_t made_calls;
	uint32_t focus_event;          /* event to select after the build, or OSC_NONE */
	const struct osc_calltree *c;         /* the trace's (trace_cache.h) */
	const struct osc_correlation *corr;
	const struct osc_tree_index *index;   /* with of_row: c's index (trace_cache.h) */
	struct osc_view_job job;       /* the merge on a worker, into made ... */
	struct osc_mtree made;
	struct osc_tree_rows made_rows; /* ... laid out by made_col */
	int made_col;
	bool made_desc;
	unsigned made_gen;             /* the tui->gen made is of */
	bool merged;                   /* m is a merge taken in (else none yet) */
	struct osc_mtree m;
	unsigned m_gen;                /* the tui->gen m is of */
	struct osc_tree_rows r;        /* m laid out: its rows, folds and order */
	struct osc_tree_table_ctx ctx;
	struct osc_tree_table_ctx path_ctx; /* the same with $$-joined paths, for the export */
	struct osc_tree_scratch scratch;
};

/* A merged tree laid out: the whole tree computed early (early.h), given back on close. */
struct laid_tree {
	struct osc_mtree m;
	struct osc_tree_rows r;
};

static bool is_folded(const struct tree_view *tv, uint32_t n)
{
	return osc_bit(tv->r.folded, n);
}

static void set_folded(struct tree_view *tv, uint32_t n, bool on)
{
	osc_bit_put(tv->r.folded, n, on);
}

/* The rows laid out are those shown. */
static void show_rows(struct tree_view *tv)
{
	tv->ctx.rows = tv->path_ctx.rows = tv->r.rows;
	tv->ctx.nr_rows = tv->path_ctx.nr_rows = tv->r.nr_rows;
}

/* Flatten the visible rows (tree_rows.h) and show them. */
static void flatten(struct tree_view *tv)
{
	osc_tree_rows_flatten(&tv->r, &tv->m);
	show_rows(tv);
}

/* A new bitmap over c's nodes with the nodes of the n events calls. */
static uint64_t *roots_of(const struct osc_calltree *c, const uint32_t *calls, size_t n)
{
	uint64_t *roots = osc_xcalloc(osc_bits_words(c->nr), sizeof(*roots));

	osc_calltree_mark_calls(c, calls, n, roots);
	return roots;
}

static void tree_open(struct osc_tui *t, struct osc_view *v, const void *arg)
{
	const struct osc_tree_arg *a = arg;
	struct tree_view *tv = osc_xcalloc(1, sizeof(*tv));

	tv->tui = t;
	tv->focus_event = a && !a->row ? a->event : OSC_NONE;
	if (a && a->row) {
		tv->of_row = true;
		tv->like = *a->row;
		tv->row_name = osc_xstrdup(a->name);
		tv->level = a->level;
		tv->c = osc_trace_host_tree(&t->trace);
		osc_runsel_copy(&tv->calls_sel, &t->sel);
		if (osc_filter_is_empty(&t->filter)) { /* the row's members are its calls */
			tv->nr_calls = a->row->nr;
			tv->roots = roots_of(tv->c, a->calls, tv->nr_calls);
		} else {
			tv->reread = true;
		}
	}
	v->priv = tv;
	v->sort_col = COL_TOTAL;
	v->sort_desc = true;
}

static void release_tree(struct tree_view *tv)
{
	osc_mtree_release(&tv->m);
	osc_tree_rows_release(&tv->r);
}

/* Unfold every node, as a new view shows the tree. */
static void unfold_all(struct tree_view *tv)
{
	size_t words = osc_bits_words(tv->m.nr ? tv->m.nr : 1);

	for (size_t i = 0; i < words; i++)
		if (tv->r.folded[i]) {
			memset(tv->r.folded, 0, words * sizeof(*tv->r.folded));
			osc_tree_rows_flatten(&tv->r, &tv->m);
			return;
		}
}

static void tree_close(struct osc_view *v)
{
	struct tree_view *tv = v->priv;

	if (tv->job.running) { /* a script's held job: closing lets it go */
		atomic_store(tv->job.held, false);
		osc_view_job_join(&tv->job);
		osc_mtree_release(&tv->made);
		osc_tree_rows_release(&tv->made_rows);
	} else if (!tv->of_row && tv->merged && tv->m_gen == tv->tui->gen) {
		/* the whole tree, unfolded: the next T takes it at once (early.h) */
		struct laid_tree back;

		unfold_all(tv);
		back = (struct laid_tree){ .m = tv->m, .r = tv->r };
		memset(&tv->m, 0, sizeof(tv->m));
		memset(&tv->r, 0, sizeof(tv->r));
		osc_early_give(tv->tui, OSC_EARLY_TREE, 0, &back);
	}
	release_tree(tv);
	osc_tree_scratch_release(&tv->scratch);
	free(tv->roots);
	free(tv->row_name);
	free(tv->made_roots);
	if (tv->of_row)
		osc_runsel_release(&tv->calls_sel);
	free(tv);
}

/* Merged node standing for event ev: its own node, or its launching op's. */
static uint32_t node_of_event(const struct tree_view *tv, uint32_t ev)
{
	uint32_t n = tv->c->node_of[ev];

	if (n == OSC_NONE && tv->corr->dev_of[ev] != OSC_NONE)
		n = tv->corr->devs[tv->corr->dev_of[ev]].node;
	if (n == OSC_NONE) {
		if (tv->corr->dev_of[ev] != OSC_NONE || tv->corr->launch_of[ev] != OSC_NONE)
			return tv->m.unattributed;
		return OSC_NONE;
	}
	/* an instance outside the selected runs: its nearest selected ancestor */
	while (n != OSC_NONE && osc_mtree_of(&tv->m, n) == OSC_NONE)
		n = tv->c->nodes[n].parent;
	return n == OSC_NONE ? OSC_NONE : osc_mtree_of(&tv->m, n);
}

/* Unfold the ancestors of merged node n, flatten, select it; false if not shown. */
static bool reveal(struct osc_view *v, struct tree_view *tv, uint32_t n)
{
	bool hidden = false;

	if (n == OSC_NONE || !tv->r.keep[n])
		return false;
	for (uint32_t a = tv->m.nodes[n].parent; a != OSC_NONE; a = tv->m.nodes[a].parent) {
		hidden |= is_folded(tv, a);
		set_folded(tv, a, false);
	}
	if (hidden) /* else the rows are those shown: a million are not laid out again */
		flatten(tv);
	v->cur = tv->r.row_of[n]; /* the table is reloaded after */
	return true;
}

/* qsort has no context argument in C11; trees sort on the UI thread only. */
static const struct tree_view *sorting;
static bool sort_desc;

/*
 * Siblings by name; ties (and the unattributed root, always last) by first
 * appearance, as osc_mtree_order orders them by a number.
 */
static int cmp_name(const void *pa, const void *pb)
{
	uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
	const struct tree_view *tv = sorting;
	int c;

	if ((a == tv->m.unattributed) != (b == tv->m.unattributed))
		return a == tv->m.unattributed ? 1 : -1;
	c = strcmp(osc_mnode_name(&tv->m, &tv->tui->trace, a),
		   osc_mnode_name(&tv->m, &tv->tui->trace, b));
	if (sort_desc)
		c = -c;
	return c ? c : (a > b) - (a < b);
}

static void tree_sort(struct osc_tui *t, struct osc_view *v)
{
	struct tree_view *tv = v->priv;
	uint32_t selected = tv->r.nr_rows && v->cur < tv->r.nr_rows ? tv->r.rows[v->cur] : OSC_NONE;

	(void)t;
	if (!tv->r.kids || (tv->r.col == (int)v->sort_col && tv->r.desc == v->sort_desc))
		return; /* in that order already */
	osc_tree_rows_order(&tv->r, &tv->m, v->sort_col, v->sort_desc);
	if (v->sort_col == COL_NAME) { /* grouped by parent: each group by name */
		sorting = tv;
		sort_desc = v->sort_desc;
		for (size_t p = 0; p <= tv->m.nr; p++)
			qsort(tv->r.kids + tv->r.kid_first[p],
			      tv->r.kid_first[p + 1] - tv->r.kid_first[p], sizeof(*tv->r.kids),
			      cmp_name);
		osc_tree_rows_place(&tv->r, &tv->m);
		tv->r.col = COL_NAME;
	}
	flatten(tv);
	if (selected != OSC_NONE && tv->r.row_of[selected] != OSC_NONE)
		v->cur = tv->r.row_of[selected]; /* the same node stays selected */
}

/*
 * Into made_roots and made_calls, the calls of the row like in the runs sel,
 * unfiltered: a filter hides paths of the tree (as in the whole tree), not
 * its roots.
 */
static void read_calls(const struct osc_tui *t, struct tree_view *tv,
		       const struct osc_runsel *sel)
{
	struct osc_query q = {
		.level = tv->level,
		.runs = sel,
		.categories = t->args->categories,
		.reads = OSC_READS_MEMBERS,
	};
	struct osc_agg a;
	size_t r = 0;

	osc_aggregate(&t->trace, &t->runs, &q, &a);
	while (r < a.nr && !osc_agg_row_same(&a, &a.rows[r], &tv->like, NULL))
		r++;
	tv->made_calls = r < a.nr ? a.rows[r].nr : 0; /* none in these runs */
	tv->made_roots = roots_of(tv->c, r < a.nr ? a.members + a.rows[r].first : NULL,
				  tv->made_calls);
	osc_agg_release(&a);
}

/* Merge t's whole tree for the run selection sel into out. */
static void merge_whole(const struct osc_tui *t, const struct osc_runsel *sel,
			struct osc_mtree *out)
{
	osc_mtree_build(&t->trace, osc_trace_host_tree(&t->trace),
			osc_trace_correlation(&t->trace), &t->runs, sel, OSC_STR_NONE, out);
}

/* Merge the tree the view shows for the run selection sel into out. */
static void merge(const struct osc_tui *t, struct tree_view *tv, const struct osc_runsel *sel,
		  struct osc_mtree *out)
{
	if (!tv->of_row) {
		merge_whole(t, sel, out);
		return;
	}
	if (tv->reread)
		read_calls(t, tv, sel);
	/* the row's calls: read only their subtrees */
	osc_mtree_build_subtree(&t->trace, tv->c, tv->corr, tv->index, &t->runs, sel,
				tv->reread ? tv->made_roots : tv->roots, out);
}

/* Merge on the worker, and lay the tree out there (a million nodes take a while). */
static void merge_work(void *arg)
{
	struct tree_view *tv = arg;

	merge(tv->tui, tv, &tv->job.sel, &tv->made);
	osc_tree_rows_make(&tv->made_rows, &tv->made, &tv->tui->trace, &tv->job.filter,
			   tv->made_col, tv->made_desc);
}


/*
 * Merged tree m, of tui->gen gen, becomes the view's, with its rows r laid
 * out for tui->gen's filter (both are left empty); r without rows (NULL, or
 * none made) is laid out here. The rows are ordered again when the view's
 * order is another.
 */
static void take_tree(struct osc_tui *t, struct osc_view *v, struct osc_mtree *m,
		      struct osc_tree_rows *r, unsigned gen)
{
	struct tree_view *tv = v->priv;

	release_tree(tv);
	tv->m = *m;
	tv->m_gen = gen;
	memset(m, 0, sizeof(*m));
	tv->merged = true;
	if (tv->reread) { /* the calls it was merged from */
		free(tv->roots);
		tv->roots = tv->made_roots;
		tv->nr_calls = tv->made_calls;
		tv->made_roots = NULL;
		tv->reread = false;
	}
	if (r && r->kids) {
		tv->r = *r;
		memset(r, 0, sizeof(*r));
	} else {
		osc_tree_rows_make(&tv->r, &tv->m, &t->trace, &t->filter, v->sort_col,
				   v->sort_desc);
	}
	tv->ctx = (struct osc_tree_table_ctx){
		.trace = &t->trace,
		.tree = &tv->m,
		.corr = tv->corr,
		.decimals = 3,
		.scratch = &tv->scratch,
		.names = &t->names,
	};
	tv->path_ctx = tv->ctx;
	tv->path_ctx.paths = true;
	v->cur = v->top = 0;
	show_rows(tv);
	tree_sort(t, v); /* unless in the view's order: then the rows stay */
	if (tv->focus_event != OSC_NONE) {
		if (!reveal(v, tv, node_of_event(tv, tv->focus_event)))
			osc_tui_message(t, OSC_MSG_INFO, "no op of the tree launched it");
		tv->focus_event = OSC_NONE;
	}
}

static void tree_build(struct osc_tui *t, struct osc_view *v)
{
	struct tree_view *tv = v->priv;
	struct laid_tree early;
	struct osc_mtree m;

	if (tv->job.running) {
		tv->job.again = true;
		return;
	}
	tv->c = osc_trace_host_tree(&t->trace);
	tv->corr = osc_trace_correlation(&t->trace);
	if (tv->of_row) {
		tv->index = osc_trace_tree_index(&t->trace);
		if (!osc_runsel_same(&tv->calls_sel, &t->sel)) { /* new runs: their calls */
			osc_runsel_release(&tv->calls_sel);
			osc_runsel_copy(&tv->calls_sel, &t->sel);
			tv->reread = true;
		}
	}
	if (!tv->of_row && osc_early_take(t, OSC_EARLY_TREE, 0, &early)) { /* merged before T */
		take_tree(t, v, &early.m, &early.r, t->gen);
		return;
	}
	tv->made_gen = t->gen;
	tv->made_col = v->sort_col;
	tv->made_desc = v->sort_desc;
	if (osc_view_jobs_wanted(t) && osc_view_job_start(t, &tv->job, merge_work, tv)) {
		osc_view_job_wait_briefly(t, v, &tv->job);
		return;
	}
	merge(t, tv, &t->sel, &m);
	take_tree(t, v, &m, NULL, t->gen);
}

static bool tree_busy(struct osc_view *v)
{
	struct tree_view *tv = v->priv;

	return tv->job.running;
}

/* The worker's tree comes in; after a change of runs meanwhile, the next merge starts. */
static bool tree_poll(struct osc_tui *t, struct osc_view *v)
{
	struct tree_view *tv = v->priv;

	if (!osc_view_job_finished(&tv->job))
		return false;
	osc_view_job_join(&tv->job);
	take_tree(t, v, &tv->made, &tv->made_rows, tv->made_gen);
	if (tv->job.again)
		tree_build(t, v);
	osc_view_rows_replaced(t, v);
	return true;
}

/* Time cells of the view's own columns (the runtime split), as the core formats ms. */
static const char *runtime_cell(const struct tree_view *tv, uint32_t n, size_t col, char *buf,
				size_t size)
{
	osc_format_ms(col == COL_LAUNCH ? tv->r.launch[n] : tv->r.other[n], 3, buf, size);
	return buf;
}

static const char *tree_cell(const void *ctx, size_t row, size_t col, char *buf, size_t size)
{
	const struct tree_view *tv = ctx;
	uint32_t n = tv->r.rows[row];
	const struct osc_mnode *mn = &tv->m.nodes[n];
	bool utf8 = tv->tui->utf8;
	size_t len;
	const char *mark;

	if (col == COL_LAUNCH || col == COL_RUNTIME)
		return runtime_cell(tv, n, col, buf, size);
	if (col != COL_NAME)
		return osc_tree_cell(&tv->ctx, row, core_col[col], buf, size);
	len = osc_mtree_guide(&tv->m, tv->r.last, n, 0, utf8, buf, size);
	if (mn->first_child == OSC_NONE)
		mark = utf8 ? "\xe2\x94\x80 " : "  ";
	else if (is_folded(tv, n))
		mark = utf8 ? "\xe2\x96\xb6 " : "+ ";
	else
		mark = utf8 ? "\xe2\x96\xbc " : "- ";
	/* not snprintf: a third of a find over a million nodes */
	osc_format_text(mark, buf + len, size - len);
	len += strlen(buf + len);
	osc_format_text(osc_mnode_name(&tv->m, &tv->tui->trace, n), buf + len, size - len);
	return buf;
}

/* The rows shown are the merged nodes r.rows names, stored in node order. */
static const uint32_t *tree_stored_order(struct osc_view *v, size_t *nr)
{
	struct tree_view *tv = v->priv;

	*nr = tv->m.nr;
	return tv->r.rows;
}

static void tree_table(struct osc_tui *t, struct osc_view *v, struct osc_table *out)
{
	struct tree_view *tv = v->priv;

	(void)t;
	*out = (struct osc_table){
		.cols = tree_cols,
		.nr_cols = NR_COLS,
		.nr_rows = tv->r.nr_rows,
		.cell = tree_cell,
		.ctx = tv,
	};
}

static const char *export_cell(const void *ctx, size_t row, size_t col, char *buf, size_t size)
{
	const struct tree_view *tv = ctx;
	uint32_t n = tv->r.rows[row];

	switch (col) {
	case X_NAME:
		return osc_mnode_name(&tv->m, &tv->tui->trace, n);
	case X_DEPTH:
		snprintf(buf, size, "%u", tv->m.nodes[n].depth);
		return buf;
	case X_PATH:
		return osc_tree_cell(&tv->path_ctx, row, OSC_TREE_COL_NAME, buf, size);
	default:
		return tree_cell(ctx, row, col - X_FIRST_NUMBER + COL_TOTAL, buf, size);
	}
}

static void tree_export_table(struct osc_tui *t, struct osc_view *v, struct osc_table *out)
{
	struct tree_view *tv = v->priv;

	(void)t;
	*out = (struct osc_table){
		.cols = export_cols,
		.nr_cols = NR_XCOLS,
		.nr_rows = tv->r.nr_rows,
		.cell = export_cell,
		.ctx = tv,
	};
}

/* Rows shown below the selected node: its unfolded descendants (to keep some on screen). */
static size_t tree_below(struct osc_tui *t, struct osc_view *v)
{
	struct tree_view *tv = v->priv;
	size_t k = v->cur + 1;
	uint32_t depth;

	(void)t;
	if (v->cur >= tv->r.nr_rows)
		return 0;
	depth = tv->m.nodes[tv->r.rows[v->cur]].depth;
	while (k < tv->r.nr_rows && tv->m.nodes[tv->r.rows[k]].depth > depth && k - v->cur < 1000)
		k++;
	return k - v->cur - 1;
}

/*
 * The `opscope tree` command writing the same tree (every node, unfolded,
 * with profile_parser_main's columns); the subtrees of an op row's calls
 * with --calls-of, those of other rows (a shape's, a category's) none.
 */
static char *tree_command(struct osc_tui *t, struct osc_view *v)
{
	struct tree_view *tv = v->priv;

	if (!tv->of_row)
		return osc_cli_line_tree(t, NULL);
	if (tv->level != OSC_LEVEL_OP)
		return NULL;
	return osc_cli_line_tree(t, osc_trace_str(&t->trace, tv->like.key));
}

static void tree_title(struct osc_tui *t, struct osc_view *v, char *buf, size_t size)
{
	struct tree_view *tv = v->priv;
	const char *updating = tree_busy(v) ? ", updating..." : "";
	const char *of = tv->of_row ? tv->row_name : NULL;

	(void)t;

	if (!tv->merged)
		snprintf(buf, size, "call tree%s%s (merging...)", of ? " of " : "", of ? of : "");
	else if (of) /* the row's name last: a shape's may not fit */
		snprintf(buf, size, "call tree (%zu paths, %zu shown%s) of %zu calls of %s",
			 tv->m.nr, tv->r.nr_rows, updating, tv->nr_calls, of);
	else
		snprintf(buf, size, "call tree (%zu paths, %zu shown, %llu kernels unattributed%s)",
			 tv->m.nr, tv->r.nr_rows,
			 tv->m.unattributed != OSC_NONE
				 ? (unsigned long long)tv->m.nodes[tv->m.unattributed].kernels_total
				 : 0ULL, updating);
}

/* ---- the kernel pane ---- */

static void line_ms(struct osc_lines *out, const char *field, int64_t ns)
{
	char buf[64];

	osc_format_ms(ns, 3, buf, sizeof(buf));
	strcat(buf, " ms");
	osc_lines_add(out, OSC_MARK_NONE, field, buf);
}

static const char *methods(const struct osc_dev_link *d, char *buf, size_t size)
{
	if (d->method == OSC_LINK_NONE)
		snprintf(buf, size, "unattributed");
	else if (d->host_method == OSC_LINK_NONE && d->launch != OSC_NONE)
		snprintf(buf, size, "%s (launch outside any op)", osc_link_name(d->method));
	else if (d->launch != OSC_NONE)
		snprintf(buf, size, "%s, then %s", osc_link_name(d->method),
			 osc_link_name(d->host_method));
	else
		snprintf(buf, size, "%s", osc_link_name(d->method));
	return buf;
}

#define PANE_KERNELS 200 /* kernels listed one by one; the rest are counted */

static void kernel_lines(struct osc_tui *t, struct tree_view *tv, uint32_t n,
			 struct osc_lines *out)
{
	size_t lo = tv->m.dev_first[n], hi = tv->m.dev_first[n + 1];
	char val[1024], how[128], dur[32], delay[32], field[48];

	snprintf(val, sizeof(val), "%zu launched by this op itself", hi - lo);
	osc_lines_add(out, OSC_MARK_TITLE, "kernels", val);
	for (size_t i = lo; i < hi && i < lo + PANE_KERNELS; i++) {
		const struct osc_dev_link *d = &tv->corr->devs[tv->m.dev[i]];
		const struct osc_event *e = &t->trace.events[d->event];
		const struct osc_kernel *k = e->kernel != OSC_NONE ? &t->trace.kernels[e->kernel]
								   : NULL;
		int len;

		/* the name in the wide column (it may be long), then its facts */
		snprintf(field, sizeof(field), "#%zu", i - lo + 1);
		osc_lines_add(out, OSC_MARK_NONE, field,
			      osc_names_get(&t->names, &t->trace, e->name));
		osc_format_ms(e->dur, 3, dur, sizeof(dur));
		osc_format_ms(d->delay, 3, delay, sizeof(delay));
		len = snprintf(val, sizeof(val), "delay %s ms, %s", delay,
			       methods(d, how, sizeof(how)));
		if (k && k->grid[0] >= 0 && len > 0 && (size_t)len < sizeof(val))
			snprintf(val + len, sizeof(val) - (size_t)len,
				 ", grid [%d,%d,%d] block [%d,%d,%d]", k->grid[0], k->grid[1],
				 k->grid[2], k->block[0], k->block[1], k->block[2]);
		snprintf(field, sizeof(field), "  %s ms", dur);
		osc_lines_add(out, OSC_MARK_NONE, field, val);
	}
	if (hi - lo > PANE_KERNELS) {
		snprintf(val, sizeof(val), "%zu more", hi - lo - PANE_KERNELS);
		osc_lines_add(out, OSC_MARK_NONE, "...", val);
	}
}

static void tree_detail(struct osc_tui *t, struct osc_view *v, size_t row, struct osc_lines *out)
{
	struct tree_view *tv = v->priv;
	uint32_t n = tv->r.rows[row];
	const struct osc_mnode *mn = &tv->m.nodes[n];
	struct osc_tree_table_ctx ctx = tv->ctx;
	uint32_t r = 0;
	char buf[64];

	ctx.rows = &n;
	ctx.nr_rows = 1;
	ctx.paths = true;
	osc_lines_add(out, OSC_MARK_TITLE, "path", osc_tree_cell(&ctx, r, OSC_TREE_COL_NAME, buf,
								     sizeof(buf)));
	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)mn->count);
	osc_lines_add(out, OSC_MARK_NONE, "count", buf);
	line_ms(out, "host total", mn->host);
	line_ms(out, "host self", mn->self);
	line_ms(out, "host mean", mn->count ? mn->host / (int64_t)mn->count : 0);
	line_ms(out, "device (own)", mn->dev);
	line_ms(out, "device (subtree)", mn->dev_total);
	line_ms(out, "launch (own)", mn->launch);
	line_ms(out, "launch (subtree)", mn->launch_total);
	line_ms(out, "mean launch delay",
		mn->nr_delay ? mn->delay_sum / (int64_t)mn->nr_delay : 0);
	line_ms(out, "mean queue", mn->nr_delay ? mn->queue_sum / (int64_t)mn->nr_delay : 0);
	kernel_lines(t, tv, n, out);
	osc_lines_add(out, OSC_MARK_TITLE, "runtime calls",
		      osc_tree_cell(&ctx, r, OSC_TREE_COL_RUNTIME, buf, sizeof(buf)));
}

/* ---- moves and folds ---- */

static void fold_subtree(struct tree_view *tv, uint32_t n, bool on)
{
	for (uint32_t k = n; k != OSC_NONE; k = osc_mtree_next(&tv->m, k, true, n))
		set_folded(tv, k, on);
}

/* The next (dir 1) or previous (dir -1) kept sibling of n in the order shown, or OSC_NONE. */
static uint32_t sibling(const struct tree_view *tv, uint32_t n, int dir)
{
	uint32_t p = tv->m.nodes[n].parent;
	size_t slot = p == OSC_NONE ? tv->m.nr : p;
	size_t k = tv->r.pos[n];

	if (dir > 0) {
		while (++k < tv->r.kid_first[slot + 1])
			if (tv->r.keep[tv->r.kids[k]])
				return tv->r.kids[k];
		return OSC_NONE;
	}
	while (k-- > tv->r.kid_first[slot])
		if (tv->r.keep[tv->r.kids[k]])
			return tv->r.kids[k];
	return OSC_NONE;
}

static unsigned tree_action(struct osc_tui *t, struct osc_view *v, enum osc_action a)
{
	struct tree_view *tv = v->priv;
	uint32_t n, target = OSC_NONE;

	if (!tv->r.nr_rows)
		return a == OSC_ACT_TREE ? OSC_R_REDRAW : OSC_R_UNHANDLED;
	n = tv->r.rows[v->cur];
	switch (a) {
	case OSC_ACT_ENTER:
		set_folded(tv, n, !is_folded(tv, n));
		break;
	case OSC_ACT_FOLD_CHILDREN:
	case OSC_ACT_UNFOLD_CHILDREN:
		set_folded(tv, n, false);
		for (uint32_t k = tv->m.nodes[n].first_child; k != OSC_NONE;
		     k = tv->m.nodes[k].next_sibling)
			set_folded(tv, k, a == OSC_ACT_FOLD_CHILDREN);
		break;
	case OSC_ACT_FOLD_ALL:
	case OSC_ACT_UNFOLD_ALL:
		fold_subtree(tv, n, a == OSC_ACT_FOLD_ALL);
		break;
	case OSC_ACT_PARENT:
		target = tv->m.nodes[n].parent;
		break;
	case OSC_ACT_NEXT_SIBLING:
		target = sibling(tv, n, 1);
		break;
	case OSC_ACT_PREV_SIBLING:
		target = sibling(tv, n, -1);
		break;
	case OSC_ACT_LONGEST_CHILD:
		target = osc_mtree_longest_child(&tv->m, n);
		break;
	case OSC_ACT_TREE:
		osc_tui_message(t, OSC_MSG_INFO, "this is the call tree");
		return OSC_R_REDRAW;
	default:
		return OSC_R_UNHANDLED;
	}
	if (a == OSC_ACT_PARENT || a == OSC_ACT_NEXT_SIBLING || a == OSC_ACT_PREV_SIBLING ||
	    a == OSC_ACT_LONGEST_CHILD) {
		if (!reveal(v, tv, target))
			osc_tui_message(t, OSC_MSG_INFO, "no %s here", osc_action_name(a));
	} else {
		flatten(tv);
		v->cur = tv->r.row_of[n];
	}
	osc_view_refresh(t, v);
	return OSC_R_REDRAW;
}

/* The folded stacks of the tree shown (its runs, root and filter), as opscope flame. */
static void tree_folded(struct osc_tui *t, struct osc_view *v, struct osc_flame *out)
{
	struct tree_view *tv = v->priv;
	struct osc_flame_opts o = { .value = OSC_FLAME_HOST, .filter = &t->filter };

	osc_flame_build(&t->trace, &tv->m, tv->corr, &o, out);
}

static const char *tree_export_name(struct osc_tui *t, struct osc_view *v)
{
	(void)t;
	(void)v;
	return "tree";
}

const struct osc_view_ops osc_view_tree = {
	.name = "tree",
	.open = tree_open,
	.close = tree_close,
	.build = tree_build,
	.sort = tree_sort,
	.table = tree_table,
	.export_table = tree_export_table,
	.flex_col = COL_NAME,
	.stored_order = tree_stored_order,
	.action = tree_action,
	.title = tree_title,
	.detail = tree_detail,
	.export_name = tree_export_name,
	.below = tree_below,
	.command = tree_command,
	.folded = tree_folded,
	.busy = tree_busy,
	.poll = tree_poll,
	.builds_on_worker = true,
};

unsigned osc_tree_open(struct osc_tui *t)
{
	struct osc_view *v = osc_tui_top(t);
	struct osc_tree_arg a = { .event = OSC_NONE };
	const struct osc_agg_row *row = NULL;
	const uint32_t *calls;
	char name[4096];

	if (osc_tui_warming(t, "the call tree", OSC_WARM_LINKS) || osc_tui_wait_rows(t, v, "T"))
		return OSC_R_REDRAW;
	if (v->ops == &osc_view_table && osc_table_view_level(v) != OSC_LEVEL_PATH)
		row = osc_table_view_row_shown(v, v->cur, &calls);
	if (row && row->nr && t->trace.events[calls[0]].kind == OSC_KIND_HOST_OP) {
		/* a row of host ops: the merged subtrees of its calls */
		a.row = row;
		a.level = osc_table_view_level(v);
		a.calls = calls;
		a.name = osc_table_view_row_name(t, v, row, name, sizeof(name));
	} else if (v->ops->row_event && v->tab.nr_rows) {
		/* a path row: that path in the whole tree; a kernel, its launching op */
		a.event = v->ops->row_event(t, v, v->cur);
	}
	osc_view_push(t, &osc_view_tree, &a);
	return OSC_R_REDRAW;
}

/* Whether a view of t's whole tree (not a row's calls) is on the stack. */
static bool whole_tree_open(const struct osc_tui *t)
{
	for (size_t i = 0; i < t->depth; i++)
		if (t->stack[i]->ops == &osc_view_tree &&
		    !((const struct tree_view *)t->stack[i]->priv)->of_row)
			return true;
	return false;
}

/* The whole tree is worth merging before T: the trace has host ops, no such view is open. */
static bool early_wanted(const struct osc_tui *t)
{
	return osc_trace_host_tree(&t->trace)->nr && !whole_tree_open(t);
}

/* The whole tree, laid out in the view's first order for the filter of the moment. */
static void early_compute(const struct osc_tui *t, unsigned aim,
			  const struct osc_runsel *sel, const struct osc_filter *filter,
			  void *result)
{
	struct laid_tree *lt = result;

	(void)aim;
	merge_whole(t, sel, &lt->m);
	osc_tree_rows_make(&lt->r, &lt->m, &t->trace, filter, COL_TOTAL, true);
}

static void early_release(void *result)
{
	struct laid_tree *lt = result;

	osc_mtree_release(&lt->m);
	osc_tree_rows_release(&lt->r);
}

/*
 * About the bytes of a whole tree laid out: its nodes and their links, a
 * node per instance, and its rows' tables.
 */
static size_t early_bytes(const struct osc_tui *t, const void *result)
{
	const struct osc_mtree *m = &((const struct laid_tree *)result)->m;
	size_t links = (m->dev_first ? m->dev_first[m->nr] : 0) +
		       (m->launch_first ? m->launch_first[m->nr] : 0);

	return m->nr * (sizeof(*m->nodes) + 2 * sizeof(*m->dev_first)) +
	       links * sizeof(*m->dev) + osc_trace_host_tree(&t->trace)->nr * sizeof(*m->m_of) +
	       osc_tree_rows_bytes(m->nr);
}

const struct osc_early_kind osc_early_tree = {
	.size = sizeof(struct laid_tree),
	.wanted = early_wanted,
	.compute = early_compute,
	.release = early_release,
	.bytes = early_bytes,
};
