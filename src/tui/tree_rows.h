/*
 * tree_rows.h - the rows the call-tree view lays out of a merged tree: the
 * nodes the filter keeps, the runtime split, each node's children in the
 * order of a column, and the rows shown under the folds. Plain data over
 * the tree, so a worker lays a million nodes out before the view takes
 * them (view_tree.c, and the whole tree computed early: early.h).
 */
#ifndef OPSCOPE_TUI_TREE_ROWS_H
#define OPSCOPE_TUI_TREE_ROWS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "opscope/analysis/calltree.h"
#include "opscope/model/filter.h"

/* The tree view's columns (what its rows are ordered by). */
enum { COL_NAME, COL_TOTAL, COL_SELF, COL_DEVICE, COL_LAUNCH, COL_RUNTIME, COL_COUNT, NR_COLS };

struct osc_tree_rows {
	uint64_t *folded;          /* bitset over merged nodes */
	uint8_t *keep, *last;      /* filter result, last-shown-sibling flags */
	uint32_t *rows;            /* visible merged nodes, in tree order */
	size_t nr_rows;
	uint32_t *row_of;          /* merged node -> visible row, OSC_NONE if hidden */
	int64_t *launch, *other;   /* per merged node, over its subtree: runtime calls
				      that started device work, and the others, ns */
	uint32_t *kids;            /* children of each node (roots: slot m.nr), ordered */
	size_t *kid_first;         /* per node (and the roots' slot): start in kids */
	uint32_t *pos;             /* per node: its index in kids */
	uint32_t *stack;           /* flatten's */
	int col;                   /* the column kids is ordered by (-1: grouped by parent
				      only, for the caller to sort names) ... */
	bool desc;                 /* ... descending */
};

/*
 * Lay m (of trace t) out into r: the nodes filter f keeps, nothing folded,
 * children ordered by column col (osc_tree_rows_order), the rows flattened.
 */
void osc_tree_rows_make(struct osc_tree_rows *r, const struct osc_mtree *m,
			const struct osc_trace *t, const struct osc_filter *f, int col, bool desc);

/*
 * Order the children by a numeric column col (COL_NAME: grouped by parent,
 * r->col -1, for the caller to sort names and set it), then r->pos.
 */
void osc_tree_rows_order(struct osc_tree_rows *r, const struct osc_mtree *m, int col, bool desc);

/* r->pos from r->kids, after the kids were reordered in place. */
void osc_tree_rows_place(struct osc_tree_rows *r, const struct osc_mtree *m);

/*
 * Flatten the visible rows: kept nodes whose ancestors are all unfolded, in
 * the order of siblings; last[] marks each parent's last kept child.
 */
void osc_tree_rows_flatten(struct osc_tree_rows *r, const struct osc_mtree *m);

/* About the bytes r holds for a tree of nr nodes. */
size_t osc_tree_rows_bytes(size_t nr);

/* Free r's tables (r is zeroed). */
void osc_tree_rows_release(struct osc_tree_rows *r);

#endif
