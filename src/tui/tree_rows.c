/* tree_rows.c - the rows of the call-tree view, laid out of a merged tree (tree_rows.h). */
#include <stdlib.h>
#include <string.h>

#include "opscope/base/alloc.h"
#include "opscope/base/bits.h"
#include "tree_rows.h"

/* The runtime time of each node's subtree, split by whether the call started device work. */
static void runtime_split(struct osc_tree_rows *r, const struct osc_mtree *m)
{
	for (size_t n = 0; n < m->nr; n++) {
		r->launch[n] = m->nodes[n].launch_work;
		r->other[n] = m->nodes[n].launch - m->nodes[n].launch_work;
	}
	for (size_t n = m->nr; n-- > 0;) { /* children after parents */
		uint32_t p = m->nodes[n].parent;

		if (p != OSC_NONE) {
			r->launch[p] += r->launch[n];
			r->other[p] += r->other[n];
		}
	}
}

/* Where each node's children start in kids (roots in the slot m->nr). */
static void count_kids(struct osc_tree_rows *r, const struct osc_mtree *m)
{
	for (size_t n = 0; n < m->nr; n++) {
		uint32_t p = m->nodes[n].parent;

		r->kid_first[(p == OSC_NONE ? m->nr : p) + 1]++;
	}
	for (size_t i = 1; i < m->nr + 2; i++)
		r->kid_first[i] += r->kid_first[i - 1];
}

void osc_tree_rows_make(struct osc_tree_rows *r, const struct osc_mtree *m,
			const struct osc_trace *t, const struct osc_filter *f, int col, bool desc)
{
	size_t n = m->nr ? m->nr : 1;

	memset(r, 0, sizeof(*r));
	/* a million nodes' tables: whole huge pages (alloc.h) */
	r->folded = osc_xcalloc(osc_bits_words(n), sizeof(*r->folded));
	r->keep = osc_xmalloc_big(n, 1);
	r->last = osc_xcalloc_big(n, 1);
	r->rows = osc_xmalloc_big(n, sizeof(*r->rows));
	r->row_of = osc_xmalloc_big(n, sizeof(*r->row_of));
	r->stack = osc_xmalloc_big(n, sizeof(*r->stack));
	r->launch = osc_xcalloc_big(n, sizeof(*r->launch));
	r->other = osc_xcalloc_big(n, sizeof(*r->other));
	r->kid_first = osc_xcalloc_big(m->nr + 2, sizeof(*r->kid_first));
	r->kids = osc_xmalloc_big(n, sizeof(*r->kids));
	r->pos = osc_xmalloc_big(n, sizeof(*r->pos));
	osc_mtree_keep(m, t, f, 0, -1, r->keep);
	runtime_split(r, m);
	count_kids(r, m);
	osc_tree_rows_order(r, m, col, desc);
	osc_tree_rows_flatten(r, m);
}

/* Node n's value in column col (a numeric one). */
static int64_t value(const struct osc_tree_rows *r, const struct osc_mtree *m, uint32_t n,
		     int col)
{
	const struct osc_mnode *mn = &m->nodes[n];

	switch (col) {
	case COL_SELF:
		return mn->self;
	case COL_DEVICE:
		return mn->dev_total;
	case COL_LAUNCH:
		return r->launch[n];
	case COL_RUNTIME:
		return r->other[n];
	case COL_COUNT:
		return (int64_t)mn->count;
	default:
		return mn->host;
	}
}

void osc_tree_rows_order(struct osc_tree_rows *r, const struct osc_mtree *m, int col, bool desc)
{
	int64_t *key = NULL;

	if (col != COL_NAME) {
		key = osc_xmalloc_big(m->nr ? m->nr : 1, sizeof(*key));
		for (uint32_t n = 0; n < m->nr; n++)
			key[n] = value(r, m, n, col);
	}
	osc_mtree_order(m, key, desc, r->kid_first, r->kids);
	free(key);
	r->col = col == COL_NAME ? -1 : col; /* names: the caller sorts each group */
	r->desc = desc;
	osc_tree_rows_place(r, m);
}

void osc_tree_rows_place(struct osc_tree_rows *r, const struct osc_mtree *m)
{
	for (size_t k = 0; k < m->nr; k++)
		r->pos[r->kids[k]] = (uint32_t)k;
}

void osc_tree_rows_flatten(struct osc_tree_rows *r, const struct osc_mtree *m)
{
	size_t sp = 0, roots = m->nr;

	r->nr_rows = 0;
	for (size_t i = 0; i < m->nr; i++) {
		r->row_of[i] = OSC_NONE;
		r->last[i] = 0;
	}
	for (size_t p = 0; p <= roots; p++) { /* the last kept child of each node */
		for (size_t k = r->kid_first[p + 1]; k-- > r->kid_first[p];) {
			if (r->keep[r->kids[k]]) {
				r->last[r->kids[k]] = 1;
				break;
			}
		}
	}
	/* Children pushed last first, so the first pops first. */
	for (size_t k = r->kid_first[roots + 1]; k-- > r->kid_first[roots];)
		r->stack[sp++] = r->kids[k];
	while (sp) {
		uint32_t n = r->stack[--sp];

		if (!r->keep[n])
			continue;
		r->row_of[n] = (uint32_t)r->nr_rows;
		r->rows[r->nr_rows++] = n;
		if (osc_bit(r->folded, n))
			continue;
		for (size_t k = r->kid_first[n + 1]; k-- > r->kid_first[n];)
			r->stack[sp++] = r->kids[k];
	}
}

size_t osc_tree_rows_bytes(size_t nr)
{
	return nr * (2 + 5 * sizeof(uint32_t) + 2 * sizeof(int64_t) + sizeof(size_t)) + nr / 8;
}

void osc_tree_rows_release(struct osc_tree_rows *r)
{
	free(r->folded);
	free(r->keep);
	free(r->last);
	free(r->rows);
	free(r->row_of);
	free(r->launch);
	free(r->other);
	free(r->kids);
	free(r->kid_first);
	free(r->pos);
	free(r->stack);
	memset(r, 0, sizeof(*r));
}
