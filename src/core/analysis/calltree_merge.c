/*
 * calltree_merge.c - the merged tree: identical call paths of the instance
 * tree become one node, with device and launch time from the correlation.
 *
 * Instances are visited in model order (parents first), so a merged node is
 * created after its parent and a reverse walk over merged nodes sums
 * subtrees. A merged node is found by (parent, name) in an open-addressing
 * table. Device and runtime-call links are grouped per merged node with a
 * counting sort. O(N) expected. One op's subtree through the tree's index
 * (osc_mtree_build_subtree) visits the same nodes and links in the same
 * order, found from its instances instead of by reading everything: O(its
 * nodes and links), and its arrays are as small (m_of and the merge's own
 * per-node array hold the marked nodes only, by their rank among them).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opscope/base/alloc.h"
#include "opscope/base/bits.h"
#include "opscope/analysis/calltree.h"
#include "opscope/analysis/correlate.h"
#include "opscope/analysis/tree_index.h"
#include "opscope/base/sat.h"
#include "base/group_by.h"
#include "base/hash.h"
#include "base/radix.h"

#define SYNTH (OSC_NONE - 1) /* placeholder for the synthetic root before it exists */

struct merger {
	const struct osc_trace *t;
	struct osc_mtree *m;
	size_t alloc;
	uint32_t *last_child; /* per merged node */
	uint32_t last_root;
	uint32_t *slots;      /* merged ids, OSC_NONE = empty */
	size_t nslots;
};

static uint64_t key_of(uint32_t parent, osc_str name)
{
	return (uint64_t)(parent + 1u) << 32 | name;
}

static size_t slot_of(const struct merger *g, uint64_t key)
{
	return (size_t)osc_mix64(key) & (g->nslots - 1);
}

static uint64_t node_key(const struct osc_mtree *m, uint32_t n)
{
	return key_of(m->nodes[n].parent, m->nodes[n].name);
}

static void rehash(struct merger *g)
{
	free(g->slots);
	g->nslots = g->nslots ? g->nslots * 2 : 1024;
	g->slots = osc_xmalloc(g->nslots * sizeof(*g->slots));
	for (size_t i = 0; i < g->nslots; i++)
		g->slots[i] = OSC_NONE;
	for (size_t n = 0; n < g->m->nr; n++) {
		size_t s = slot_of(g, node_key(g->m, (uint32_t)n));

		while (g->slots[s] != OSC_NONE)
			s = (s + 1) & (g->nslots - 1);
		g->slots[s] = (uint32_t)n;
	}
}

/* Append a merged node under parent (OSC_NONE: a root). */
static uint32_t add_node(struct merger *g, uint32_t parent, osc_str name)
{
	struct osc_mtree *m = g->m;
	uint32_t n = (uint32_t)m->nr;
	size_t alloc_last = g->alloc;
	uint32_t *last;

	OSC_GROW(m->nodes, m->nr + 1, g->alloc);
	if (g->alloc != alloc_last)
		g->last_child = osc_xreallocarray(g->last_child, g->alloc, sizeof(*g->last_child));
	m->nr++;
	m->nodes[n] = (struct osc_mnode){
		.name = name,
		.parent = parent,
		.first_child = OSC_NONE,
		.next_sibling = OSC_NONE,
		.depth = parent == OSC_NONE ? 0 : m->nodes[parent].depth + 1,
		.host_min = INT64_MAX,
		.first_inst = OSC_NONE,
	};
	g->last_child[n] = OSC_NONE;
	last = parent == OSC_NONE ? &g->last_root : &g->last_child[parent];
	if (*last == OSC_NONE) {
		if (parent == OSC_NONE)
			m->first_root = n;
		else
			m->nodes[parent].first_child = n;
	} else {
		m->nodes[*last].next_sibling = n;
	}
	*last = n;
	return n;
}

static uint32_t get_node(struct merger *g, uint32_t parent, osc_str name)
{
	uint64_t key = key_of(parent, name);
	size_t s;
	uint32_t n;

	if (2 * (g->m->nr + 1) > g->nslots)
		rehash(g);
	for (s = slot_of(g, key); g->slots[s] != OSC_NONE; s = (s + 1) & (g->nslots - 1))
		if (node_key(g->m, g->slots[s]) == key)
			return g->slots[s];
	n = add_node(g, parent, name);
	g->slots[s] = n;
	return n;
}

/*
 * Merge instance node n, whose parent stands for the merged node pm: into
 * ctx_of[at] the merged node it stands for, its own or (outside the
 * selection) pm, and its own into m_of[at] (at: n, or its rank in a subtree).
 */
static void merge_one(struct merger *g, const struct osc_calltree *c, const struct osc_runs *runs,
		      const struct osc_runsel *sel, uint32_t n, uint32_t at, uint32_t pm,
		      uint32_t *ctx_of)
{
	const struct osc_tree_node *in = &c->nodes[n];
	struct osc_mtree *m = g->m;
	struct osc_mnode *mn;
	uint32_t id;

	if (sel && !osc_runsel_has_event(sel, runs, in->event)) {
		m->m_of[at] = OSC_NONE;
		ctx_of[at] = pm;
		return;
	}
	id = get_node(g, pm, in->name);
	m->m_of[at] = ctx_of[at] = id;
	mn = &m->nodes[id];
	if (mn->first_inst == OSC_NONE)
		mn->first_inst = n;
	mn->count++;
	mn->host = osc_sat_add(mn->host, in->dur);
	mn->self = osc_sat_add(mn->self, in->self);
	mn->host_min = in->dur < mn->host_min ? in->dur : mn->host_min;
	mn->host_max = in->dur > mn->host_max ? in->dur : mn->host_max;
}

/*
 * Merge the instances; ctx_of[n] receives the merged node n stands for: its
 * own, or its nearest selected ancestor's (OSC_NONE if none).
 */
static void merge_instances(struct merger *g, const struct osc_calltree *c,
			    const struct osc_runs *runs, const struct osc_runsel *sel, osc_str root,
			    uint32_t *ctx_of)
{
	uint8_t *scope = osc_xmalloc(c->nr ? c->nr : 1); /* under (or at) a root instance */

	for (size_t n = 0; n < c->nr; n++) {
		const struct osc_tree_node *in = &c->nodes[n];

		scope[n] = root == OSC_STR_NONE || in->name == root ||
			   (in->parent != OSC_NONE && scope[in->parent]);
		if (!scope[n])
			g->m->m_of[n] = ctx_of[n] = OSC_NONE;
		else
			merge_one(g, c, runs, sel, (uint32_t)n, (uint32_t)n,
				  in->parent == OSC_NONE ? OSC_NONE : ctx_of[in->parent], ctx_of);
	}
	free(scope);
}

/* Merged node of a link to instance node `node` whose own event is ev, or OSC_NONE. */
static uint32_t link_target(const uint32_t *ctx_of, uint32_t node, const struct osc_runs *runs,
			    const struct osc_runsel *sel, osc_str root, uint32_t ev, bool *synth)
{
	if (node != OSC_NONE)
		return ctx_of[node];
	if (root != OSC_STR_NONE || (sel && !osc_runsel_has_event(sel, runs, ev)))
		return OSC_NONE;
	*synth = true;
	return SYNTH;
}

/*
 * Count the links into their merged nodes and group them there: device
 * link dev[i] (i itself when dev is NULL) into merged node dt[i] (none:
 * OSC_NONE), ascending; the launch links likewise.
 */
static void take_links(struct merger *g, const struct osc_correlation *corr, const uint32_t *dev,
		       const uint32_t *dt, size_t nd, const uint32_t *launch, const uint32_t *lt,
		       size_t nl)
{
	struct osc_mtree *m = g->m;

	for (size_t i = 0; i < nd; i++) {
		const struct osc_dev_link *d = &corr->devs[dev ? dev[i] : i];
		struct osc_mnode *mn;

		if (i + 32 < nd) {
			size_t ahead = dev ? dev[i + 32] : i + 32;

			__builtin_prefetch(&g->t->events[corr->devs[ahead].event]);
		}
		if (dt[i] == OSC_NONE)
			continue;
		mn = &m->nodes[dt[i]];
		mn->kernels++;
		mn->dev = osc_sat_add(mn->dev, g->t->events[d->event].dur);
		if (d->launch != OSC_NONE) {
			mn->nr_delay++;
			mn->delay_sum = osc_sat_add(mn->delay_sum, d->delay);
			mn->queue_sum = osc_sat_add(mn->queue_sum, d->queue);
		}
	}
	for (size_t i = 0; i < nl; i++) {
		const struct osc_launch_link *l = &corr->launches[launch ? launch[i] : i];
		struct osc_mnode *mn;
		int64_t dur;

		if (i + 32 < nl) {
			size_t ahead = launch ? launch[i + 32] : i + 32;

			__builtin_prefetch(&g->t->events[corr->launches[ahead].event]);
		}
		if (lt[i] == OSC_NONE)
			continue;
		mn = &m->nodes[lt[i]];
		dur = g->t->events[l->event].dur;
		mn->launches++;
		mn->launch = osc_sat_add(mn->launch, dur);
		if (l->nr_device)
			mn->launch_work = osc_sat_add(mn->launch_work, dur);
	}
	osc_group_by_key(dt, nd, m->nr, &m->dev, &m->dev_first);
	osc_group_by_key(lt, nl, m->nr, &m->launch, &m->launch_first);
	for (size_t j = 0; dev && j < m->dev_first[m->nr]; j++) /* positions in dev: links */
		m->dev[j] = dev[m->dev[j]];
	for (size_t j = 0; launch && j < m->launch_first[m->nr]; j++)
		m->launch[j] = launch[m->launch[j]];
}

static void add_links(struct merger *g, const struct osc_correlation *corr,
		      const uint32_t *ctx_of, const struct osc_runs *runs,
		      const struct osc_runsel *sel, osc_str root)
{
	struct osc_mtree *m = g->m;
	size_t nd = corr->nr_devs, nl = corr->nr_launches;
	uint32_t *dt = osc_xmalloc((nd ? nd : 1) * sizeof(*dt));
	uint32_t *lt = osc_xmalloc((nl ? nl : 1) * sizeof(*lt));
	bool synth = false;

	for (size_t i = 0; i < nd; i++)
		dt[i] = link_target(ctx_of, corr->devs[i].node, runs, sel, root,
				    corr->devs[i].event, &synth);
	for (size_t i = 0; i < nl; i++)
		lt[i] = link_target(ctx_of, corr->launches[i].node, runs, sel, root,
				    corr->launches[i].event, &synth);
	if (synth) {
		m->unattributed = add_node(g, OSC_NONE, OSC_STR_EMPTY);
		for (size_t i = 0; i < nd; i++)
			dt[i] = dt[i] == SYNTH ? m->unattributed : dt[i];
		for (size_t i = 0; i < nl; i++)
			lt[i] = lt[i] == SYNTH ? m->unattributed : lt[i];
	}
	take_links(g, corr, NULL, dt, nd, NULL, lt, nl);
	free(dt);
	free(lt);
}

static void sum_subtrees(struct osc_mtree *m)
{
	for (size_t n = 0; n < m->nr; n++) {
		struct osc_mnode *mn = &m->nodes[n];

		mn->dev_total = mn->dev;
		mn->launch_total = mn->launch;
		mn->kernels_total = mn->kernels;
		mn->launches_total = mn->launches;
		if (mn->host_min == INT64_MAX)
			mn->host_min = 0;
	}
	for (size_t n = m->nr; n-- > 0;) {
		const struct osc_mnode *mn = &m->nodes[n];
		struct osc_mnode *p;

		if (mn->parent == OSC_NONE) {
			if (n != m->unattributed)
				m->host_total = osc_sat_add(m->host_total, mn->host);
			continue;
		}
		p = &m->nodes[mn->parent];
		p->dev_total = osc_sat_add(p->dev_total, mn->dev_total);
		p->launch_total = osc_sat_add(p->launch_total, mn->launch_total);
		p->kernels_total += mn->kernels_total;
		p->launches_total += mn->launches_total;
	}
}

void osc_mtree_build(const struct osc_trace *t, const struct osc_calltree *c,
		     const struct osc_correlation *corr, const struct osc_runs *runs,
		     const struct osc_runsel *sel, osc_str root, struct osc_mtree *out)
{
	struct merger g = { .t = t, .m = out, .last_root = OSC_NONE };
	uint32_t *ctx_of = osc_xmalloc((c->nr ? c->nr : 1) * sizeof(*ctx_of));

	memset(out, 0, sizeof(*out));
	out->first_root = OSC_NONE;
	out->unattributed = OSC_NONE;
	out->m_of = osc_xmalloc((c->nr ? c->nr : 1) * sizeof(*out->m_of));
	if (!runs)
		sel = NULL;
	merge_instances(&g, c, runs, sel, root, ctx_of);
	add_links(&g, corr, ctx_of, runs, sel, root);
	sum_subtrees(out);
	free(ctx_of);
	free(g.slots);
	free(g.last_child);
}

/*
 * Mark in `in` the nodes of the subtrees of the outermost nodes set in
 * roots: each one not already marked (its ancestors come first in model
 * order) and everything under it, in preorder.
 */
static void mark_subtrees(const struct osc_calltree *c, const uint64_t *roots, uint64_t *in)
{
	OSC_BITS_FOR_EACH(top, roots, c->nr) {
		size_t n = top;

		if (osc_bit(in, top))
			continue;
		for (;;) { /* preorder without a stack: down, else across, else up and across */
			osc_bit_put(in, n, true);
			if (c->nodes[n].first_child != OSC_NONE) {
				n = c->nodes[n].first_child;
				continue;
			}
			while (n != top && c->nodes[n].next_sibling == OSC_NONE)
				n = c->nodes[n].parent;
			if (n == top)
				break;
			n = c->nodes[n].next_sibling;
		}
	}
}

/*
 * The links (dev_first/devs of x, or launch_first/launches) of the marked
 * nodes in `in` (ctx_of: by their rank), ascending, into *link, and the
 * merged node each goes to into *target (ctx_of of its node); returns how
 * many.
 */
static size_t marked_links(const uint64_t *in, size_t nr_nodes, const uint32_t *first,
			   const uint32_t *links, const uint32_t *ctx_of, uint32_t **link,
			   uint32_t **target)
{
	size_t k = 0, r = 0;
	uint64_t *key;

	OSC_BITS_FOR_EACH(n, in, nr_nodes)
		k += first[n + 1] - first[n];
	key = osc_xmalloc((k ? k : 1) * sizeof(*key));
	*target = osc_xmalloc((k ? k : 1) * sizeof(**target));
	k = 0;
	OSC_BITS_FOR_EACH(n, in, nr_nodes) {
		for (uint32_t j = first[n]; j < first[n + 1]; j++) {
			key[k] = links[j];
			(*target)[k++] = ctx_of[r];
		}
		r++;
	}
	osc_radix_sort_pairs(key, *target, k);
	*link = osc_xmalloc((k ? k : 1) * sizeof(**link));
	for (size_t i = 0; i < k; i++)
		(*link)[i] = (uint32_t)key[i];
	free(key);
	return k;
}

void osc_mtree_build_subtree(const struct osc_trace *t, const struct osc_calltree *c,
			     const struct osc_correlation *corr, const struct osc_tree_index *x,
			     const struct osc_runs *runs, const struct osc_runsel *sel,
			     const uint64_t *roots, struct osc_mtree *out)
{
	struct merger g = { .t = t, .m = out, .last_root = OSC_NONE };
	size_t words = osc_bits_words(c->nr), nr, r = 0;
	uint64_t *in = osc_xcalloc(words, sizeof(*in));
	uint32_t *before = osc_xmalloc(words * sizeof(*before));
	uint32_t *ctx_of, *dev, *dt, *launch, *lt;
	size_t nd, nl;

	memset(out, 0, sizeof(*out));
	out->first_root = OSC_NONE;
	out->unattributed = OSC_NONE;
	if (!runs)
		sel = NULL;
	mark_subtrees(c, roots, in);
	nr = osc_bits_count_before(in, words, before);
	out->marked = in;
	out->marked_before = before;
	out->m_of = osc_xmalloc((nr ? nr : 1) * sizeof(*out->m_of));
	ctx_of = osc_xmalloc((nr ? nr : 1) * sizeof(*ctx_of)); /* by rank, as m_of */
	/* the marked nodes in model order, n of rank r */
	OSC_BITS_FOR_EACH(n, in, c->nr) {
		uint32_t p = c->nodes[n].parent, pm = OSC_NONE;

		if (p != OSC_NONE && osc_bit(in, p))
			pm = ctx_of[osc_bits_rank(in, before, p)];
		merge_one(&g, c, runs, sel, (uint32_t)n, (uint32_t)r++, pm, ctx_of);
	}
	nd = marked_links(in, c->nr, x->dev_first, x->devs, ctx_of, &dev, &dt);
	nl = marked_links(in, c->nr, x->launch_first, x->launches, ctx_of, &launch, &lt);
	take_links(&g, corr, dev, dt, nd, launch, lt, nl);
	sum_subtrees(out);
	free(dev);
	free(dt);
	free(launch);
	free(lt);
	free(ctx_of);
	free(g.slots);
	free(g.last_child);
}

void osc_calltree_mark_calls(const struct osc_calltree *c, const uint32_t *calls, size_t n,
			     uint64_t *roots)
{
	for (size_t i = 0; i < n; i++)
		if (c->node_of[calls[i]] != OSC_NONE)
			osc_bit_put(roots, c->node_of[calls[i]], true);
}

size_t osc_calltree_mark_matching(const struct osc_trace *t, const struct osc_calltree *c,
				  const struct osc_runs *runs, const struct osc_runsel *sel,
				  const struct osc_filter *f, uint64_t *roots)
{
	struct osc_filter_cache fc;
	size_t k = 0;

	osc_filter_cache_init(&fc, f, t);
	for (uint32_t n = 0; n < c->nr; n++) {
		uint32_t ev = c->nodes[n].event;

		if ((!runs || !sel || osc_runsel_has_event(sel, runs, ev)) &&
		    osc_filter_cache_event(&fc, ev)) {
			osc_bit_put(roots, n, true);
			k++;
		}
	}
	osc_filter_cache_release(&fc);
	return k;
}

void osc_mtree_release(struct osc_mtree *m)
{
	free(m->nodes);
	free(m->m_of);
	free(m->marked);
	free(m->marked_before);
	free(m->dev);
	free(m->dev_first);
	free(m->launch);
	free(m->launch_first);
	memset(m, 0, sizeof(*m));
}

const char *osc_mnode_name(const struct osc_mtree *m, const struct osc_trace *t, uint32_t n)
{
	if (n == m->unattributed)
		return "<unattributed>";
	return osc_trace_str(t, m->nodes[n].name);
}

/* Copy what fits of s[0..n) to buf[at..] so that buf keeps room for a NUL. */
static void put_cut(char *buf, size_t size, size_t at, const char *s, size_t n)
{
	if (at + 1 < size)
		memcpy(buf + at, s, n < size - 1 - at ? n : size - 1 - at);
}

size_t osc_mtree_path_text(const struct osc_mtree *m, const struct osc_trace *t, uint32_t n,
			   char *buf, size_t size)
{
	uint32_t chain[256];
	size_t depth = 0, len = 0;

	for (uint32_t k = n; k != OSC_NONE && depth < 256; k = m->nodes[k].parent)
		chain[depth++] = k;
	while (depth-- > 0) {
		uint32_t k = chain[depth];
		const char *name = osc_mnode_name(m, t, k);
		/* a trace string's length is known; the synthetic root's is not one */
		size_t nl = k == m->unattributed ? strlen(name)
						 : osc_strtab_len(&t->strs, m->nodes[k].name);

		if (len) {
			put_cut(buf, size, len, "$$", 2);
			len += 2;
		}
		put_cut(buf, size, len, name, nl);
		len += nl;
	}
	if (size)
		buf[len < size ? len : size - 1] = '\0';
	return len;
}

char *osc_mtree_path(const struct osc_mtree *m, const struct osc_trace *t, uint32_t n,
		     char *buf, size_t size)
{
	osc_mtree_path_text(m, t, n, buf, size);
	return buf;
}

void osc_mtree_keep(const struct osc_mtree *m, const struct osc_trace *t,
		    const struct osc_filter *f, int min_depth, int max_depth, uint8_t *keep)
{
	bool all = !f || osc_filter_is_empty(f);
	enum { MATCH = 1, ABOVE = 2, BELOW = 4 }; /* itself, an ancestor, a descendant */

	for (size_t n = 0; n < m->nr; n++) {
		const char *name = osc_mnode_name(m, t, (uint32_t)n);
		uint32_t p = m->nodes[n].parent;

		keep[n] = all || osc_filter_match(f, name, strlen(name)) ? MATCH : 0;
		if (p != OSC_NONE && (keep[p] & (MATCH | ABOVE)))
			keep[n] |= ABOVE;
	}
	for (size_t n = m->nr; n-- > 0;) {
		uint32_t p = m->nodes[n].parent;

		if (p != OSC_NONE && (keep[n] & (MATCH | BELOW)))
			keep[p] |= BELOW;
	}
	for (size_t n = 0; n < m->nr; n++) {
		long d = (long)m->nodes[n].depth;

		keep[n] = keep[n] && d >= min_depth && (max_depth < 0 || d <= max_depth);
	}
}

size_t osc_mtree_preorder(const struct osc_mtree *m, const uint8_t *keep, uint32_t *order)
{
	size_t nr = 0;

	for (uint32_t n = m->first_root; n != OSC_NONE; n = osc_mtree_next(m, n, true, OSC_NONE))
		if (!keep || keep[n])
			order[nr++] = n;
	return nr;
}

uint32_t osc_mtree_next(const struct osc_mtree *m, uint32_t n, bool down, uint32_t root)
{
	if (down && m->nodes[n].first_child != OSC_NONE)
		return m->nodes[n].first_child;
	while (n != root && m->nodes[n].next_sibling == OSC_NONE)
		n = m->nodes[n].parent;
	return n == root || n == OSC_NONE ? OSC_NONE : m->nodes[n].next_sibling;
}

void osc_mtree_order(const struct osc_mtree *m, const int64_t *key, bool desc,
		     const size_t *kid_first, uint32_t *kids)
{
	uint64_t *k = osc_xmalloc_big(m->nr ? m->nr : 1, sizeof(*k));
	uint32_t *idx = osc_xmalloc_big(m->nr ? m->nr : 1, sizeof(*idx));
	size_t *at = osc_xmalloc_big(m->nr + 1, sizeof(*at)), roots;

	for (size_t n = 0; n < m->nr; n++) { /* by key, ties by node (the sort is stable) */
		k[n] = !key ? 0 : desc ? ~osc_radix_key(key[n]) : osc_radix_key(key[n]);
		idx[n] = (uint32_t)n;
	}
	if (key)
		osc_radix_sort_pairs(k, idx, m->nr);
	memcpy(at, kid_first, (m->nr + 1) * sizeof(*at));
	for (size_t i = 0; i < m->nr; i++) { /* then by parent, stably: a counting sort */
		uint32_t p = m->nodes[idx[i]].parent;

		kids[at[p == OSC_NONE ? m->nr : p]++] = idx[i];
	}
	roots = kid_first[m->nr];
	for (size_t i = roots; m->unattributed != OSC_NONE && i + 1 < at[m->nr]; i++)
		if (kids[i] == m->unattributed) { /* last of the roots */
			kids[i] = kids[i + 1];
			kids[i + 1] = m->unattributed;
		}
	free(k);
	free(idx);
	free(at);
}

void osc_mtree_last(const struct osc_mtree *m, const uint8_t *keep, uint8_t *last)
{
	uint32_t *seen = osc_xmalloc((m->nr + 1) * sizeof(*seen)); /* per parent + roots */

	for (size_t n = 0; n <= m->nr; n++)
		seen[n] = OSC_NONE;
	/* reverse order: the first kept node met per parent is its last child */
	for (size_t n = m->nr; n-- > 0;) {
		uint32_t p = m->nodes[n].parent == OSC_NONE ? (uint32_t)m->nr : m->nodes[n].parent;

		last[n] = 0;
		if (keep && !keep[n])
			continue;
		if (seen[p] == OSC_NONE) {
			seen[p] = (uint32_t)n;
			last[n] = 1;
		}
	}
	free(seen);
}

size_t osc_mtree_guide(const struct osc_mtree *m, const uint8_t *last, uint32_t n,
		       uint32_t from, bool utf8, char *buf, size_t size)
{
	static const char *const glyph[2][3] = {
		{ "|  ", "|- ", "`- " },
		{ "\xe2\x94\x82  ", "\xe2\x94\x9c\xe2\x94\x80 ", "\xe2\x94\x94\xe2\x94\x80 " },
	};
	uint32_t depth = m->nodes[n].depth, levels = depth > from ? depth - from : 0;
	uint8_t small[256], *open = levels <= sizeof(small) ? small : osc_xmalloc(levels);
	size_t len = 0;
	uint32_t a = n;

	buf[0] = '\0';
	/*
	 * cell k (0 = outermost) belongs to the ancestor at depth from + k + 1:
	 * one walk up gives them all, innermost first (linear in the depth, not
	 * quadratic per row: a 10,000-deep chain was cubic in all).
	 */
	for (uint32_t k = levels; k-- > 0; a = m->nodes[a].parent)
		open[k] = !last[a];
	for (uint32_t k = 0; k < levels; k++) {
		const char *g = k + 1 == levels ? glyph[utf8][open[k] ? 1 : 2]
						: open[k] ? glyph[utf8][0] : "   ";
		size_t gl = strlen(g);

		if (len + gl >= size)
			break;
		memcpy(buf + len, g, gl + 1);
		len += gl;
	}
	if (open != small)
		free(open);
	return len;
}

uint32_t osc_mtree_longest_child(const struct osc_mtree *m, uint32_t n)
{
	uint32_t best = OSC_NONE;

	for (uint32_t k = m->nodes[n].first_child; k != OSC_NONE; k = m->nodes[k].next_sibling)
		if (best == OSC_NONE || m->nodes[k].host > m->nodes[best].host)
			best = k;
	return best;
}
