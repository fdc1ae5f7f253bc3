/* test_calltree.c - nesting by time, self times, lookups and the merged tree. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "opscope/base/alloc.h"
#include "opscope/base/threads.h"
#include "opscope/analysis/trace_cache.h"
#include "opscope/analysis/tree_index.h"
#include "opscope/model/runs.h"
#include "tree_fixture.h"

struct want {
	const char *node, *parent;
	uint32_t depth;
	int64_t self;
};

static void expect_tree(const struct tx_analysis *a, const struct want *w, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		uint32_t node = tx_node(a, w[i].node);

		cr_expect_str_eq(tx_parent(a, node), w[i].parent, "%s: parent %s, want %s",
				 w[i].node, tx_parent(a, node), w[i].parent);
		cr_expect_eq(a->c.nodes[node].depth, w[i].depth, "%s: depth %u, want %u",
			     w[i].node, a->c.nodes[node].depth, w[i].depth);
		cr_expect_eq(a->c.nodes[node].self, w[i].self, "%s: self %lld, want %lld",
			     w[i].node, (long long)a->c.nodes[node].self, (long long)w[i].self);
	}
}

/*
 *   A [0,100)                 self 100 - 30 - 40 = 30
 *   ├─ B [10,40)              self 30 - 5 = 25
 *   │  └─ C [15,20)           self 5
 *   └─ D [50,90)              self 40
 *   E [120,130)               self 10
 * (listed out of order: the model's sort must not matter)
 */
Test(calltree, basic_nesting)
{
	static const struct tx_event ev[] = {
		TX("C", HOST_OP, 0, 15, 5, 0, 0, NULL),  TX("E", HOST_OP, 0, 120, 10, 0, 0, NULL),
		TX("A", HOST_OP, 0, 0, 100, 0, 0, NULL), TX("D", HOST_OP, 0, 50, 40, 0, 0, NULL),
		TX("B", HOST_OP, 0, 10, 30, 0, 0, NULL),
	};
	static const struct want w[] = {
		{ "A", "-", 0, 30 }, { "B", "A", 1, 25 }, { "C", "B", 2, 5 },
		{ "D", "A", 1, 40 }, { "E", "-", 0, 10 },
	};
	struct tx_analysis a;

	tx_analyse(&a, OSC_FORMAT_KINETO, ev, FX_LEN(ev));
	cr_assert_eq(a.c.nr, 5);
	expect_tree(&a, w, FX_LEN(w));
	cr_expect_eq(a.c.nr_roots, 2);
	cr_expect_eq(a.c.nr_overlaps, 0);
	cr_expect_eq(a.c.max_depth, 2);
	tx_release(&a);
}

/*
 * speedscope's invalid-x-nesting.json: beta starts inside alpha and ends
 * after it. Not nested, counted:
 *   alpha [0,10)
 *   beta  [5,15)
 *   └─ gamma [6,8)     (inside beta, and inside alpha too: the later one wins)
 *   delta [11,12) is inside beta only
 * Self times: the overlap [5,10) belongs to beta, the later one, so alpha
 * keeps [0,5) and beta [5,15) less its children: 5 + 7 + 2 + 1 = 15, the
 * union of the thread's windows, not 10 + 7 + 2 + 1.
 */
Test(calltree, partial_overlap_is_counted_not_nested)
{
	static const struct tx_event ev[] = {
		TX("alpha", HOST_OP, 0, 0, 10, 0, 0, NULL),
		TX("beta", HOST_OP, 0, 5, 10, 0, 0, NULL),
		TX("gamma", HOST_OP, 0, 6, 2, 0, 0, NULL),
		TX("delta", HOST_OP, 0, 11, 1, 0, 0, NULL),
	};
	static const struct want w[] = {
		{ "alpha", "-", 0, 5 }, { "beta", "-", 0, 7 },
		{ "gamma", "beta", 1, 2 }, { "delta", "beta", 1, 1 },
	};
	struct tx_analysis a;

	tx_analyse(&a, OSC_FORMAT_CHROME, ev, FX_LEN(ev));
	expect_tree(&a, w, FX_LEN(w));
	cr_expect_eq(a.c.nr_overlaps, 1);
	tx_release(&a);
}

/*
 * Legacy PyTorch rounds ts and dur apart, so a child may end 1 µs after its
 * parent (ns):
 *   P [0,9000)
 *   └─ c [3000,10000)      1000 after P's end: nested, ends with P
 *      └─ g [5000,10000)   inside c (the slack does not add up)
 *   n [9000,10000)         starts at P's end: after P, so not inside c or g
 *   Q [20000,30000)
 *   r [25000,31001)        1001 after Q's end: a partial overlap
 * Any other format: c overlaps P (a root), n nests in g, 2 overlaps.
 */
Test(calltree, legacy_pytorch_end_slack)
{
	static const struct tx_event ev[] = {
		TX("P", HOST_OP, 0, 0, 9000, 0, 0, NULL),
		TX("c", HOST_OP, 0, 3000, 7000, 0, 0, NULL),
		TX("g", HOST_OP, 0, 5000, 5000, 0, 0, NULL),
		TX("n", HOST_OP, 0, 9000, 1000, 0, 0, NULL),
		TX("Q", HOST_OP, 0, 20000, 10000, 0, 0, NULL),
		TX("r", HOST_OP, 0, 25000, 6001, 0, 0, NULL),
	};
	static const char *const legacy[][2] = {
		{ "P", "-" }, { "c", "P" }, { "g", "c" }, { "n", "-" }, { "Q", "-" }, { "r", "-" },
	};
	static const char *const other[][2] = {
		{ "P", "-" }, { "c", "-" }, { "g", "c" }, { "n", "g" }, { "Q", "-" }, { "r", "-" },
	};
	struct tx_analysis a;

	tx_analyse(&a, OSC_FORMAT_PYTORCH_LEGACY, ev, FX_LEN(ev));
	for (size_t i = 0; i < FX_LEN(legacy); i++)
		cr_expect_str_eq(tx_parent(&a, tx_node(&a, legacy[i][0])), legacy[i][1],
				 "legacy %s: parent %s", legacy[i][0],
				 tx_parent(&a, tx_node(&a, legacy[i][0])));
	cr_expect_eq(a.c.nr_overlaps, 1);
	tx_release(&a);
	tx_analyse(&a, OSC_FORMAT_KINETO, ev, FX_LEN(ev));
	for (size_t i = 0; i < FX_LEN(other); i++)
		cr_expect_str_eq(tx_parent(&a, tx_node(&a, other[i][0])), other[i][1],
				 "kineto %s: parent %s", other[i][0],
				 tx_parent(&a, tx_node(&a, other[i][0])));
	cr_expect_eq(a.c.nr_overlaps, 2);
	tx_release(&a);
}

/*
 * speedscope's simple.json (epsilon has no dur: 0) and ties:
 *   alpha [0,14)
 *   └─ beta [1,13)
 *      ├─ gamma [2,7)
 *      └─ epsilon [7,7)     zero length at gamma's end: not inside gamma
 *   P [20,30)
 *   └─ Q [20,30)            same window: the first in the file is the parent
 *      └─ Z [20,20)         zero length at the start: inside (and innermost)
 *   Y [30,30)               zero length at P's end: a root
 */
Test(calltree, zero_length_and_ties)
{
	static const struct tx_event ev[] = {
		TX("alpha", HOST_OP, 0, 0, 14, 0, 0, NULL), TX("beta", HOST_OP, 0, 1, 12, 0, 0, NULL),
		TX("gamma", HOST_OP, 0, 2, 5, 0, 0, NULL),  TX("epsilon", HOST_OP, 0, 7, 0, 0, 0, NULL),
		TX("P", HOST_OP, 0, 20, 10, 0, 0, NULL),    TX("Z", HOST_OP, 0, 20, 0, 0, 0, NULL),
		TX("Q", HOST_OP, 0, 20, 10, 0, 0, NULL),    TX("Y", HOST_OP, 0, 30, 0, 0, 0, NULL),
	};
	static const struct want w[] = {
		{ "alpha", "-", 0, 2 },	 { "beta", "alpha", 1, 7 }, { "gamma", "beta", 2, 5 },
		{ "epsilon", "beta", 2, 0 }, { "P", "-", 0, 0 },	    { "Q", "P", 1, 10 },
		{ "Z", "Q", 2, 0 },	 { "Y", "-", 0, 0 },
	};
	struct tx_analysis a;

	tx_analyse(&a, OSC_FORMAT_CHROME, ev, FX_LEN(ev));
	expect_tree(&a, w, FX_LEN(w));
	cr_expect_eq(a.c.nr_overlaps, 0);
	tx_release(&a);
}

/*
 * Threads nest apart, and only the host selection is in the tree:
 *   thread 0: A [0,50) └─ B [10,20)
 *   thread 1: C [5,40)           (inside A's window, other thread: a root)
 *   the runtime call R [12,14) on thread 0 is no node
 */
Test(calltree, threads_are_separate)
{
	static const struct tx_event ev[] = {
		TX("A", HOST_OP, 0, 0, 50, 0, 0, NULL), TX("B", HOST_OP, 0, 10, 10, 0, 0, NULL),
		TX("C", HOST_OP, 1, 5, 35, 0, 0, NULL), TX("R", RUNTIME, 0, 12, 2, 0, 0, NULL),
	};
	static const struct want w[] = {
		{ "A", "-", 0, 40 }, { "B", "A", 1, 10 }, { "C", "-", 0, 35 },
	};
	struct tx_analysis a;

	tx_analyse(&a, OSC_FORMAT_KINETO, ev, FX_LEN(ev));
	expect_tree(&a, w, FX_LEN(w));
	cr_expect_eq(a.c.nr, 3);
	cr_expect_eq(a.c.node_of[fx_find(&a.t, "R")], OSC_NONE);
	/* innermost open node at a time, per thread */
	cr_expect_eq(osc_calltree_find(&a.c, &a.t, a.t.events[fx_find(&a.t, "A")].thread, 12),
		     tx_node(&a, "B"));
	cr_expect_eq(osc_calltree_find(&a.c, &a.t, a.t.events[fx_find(&a.t, "A")].thread, 25),
		     tx_node(&a, "A"));
	cr_expect_eq(osc_calltree_find(&a.c, &a.t, a.t.events[fx_find(&a.t, "A")].thread, 50),
		     OSC_NONE);
	cr_expect_eq(osc_calltree_find(&a.c, &a.t, a.t.events[fx_find(&a.t, "C")].thread, 4),
		     OSC_NONE);
	tx_release(&a);
}

/*
 * Identical paths merge across instances:
 *   step [0,100)                 step [200,300)
 *   ├─ conv [10,40)              ├─ conv [210,260)
 *   │  └─ gemm [15,35)           │  └─ gemm [220,250)
 *   └─ relu [50,60)              └─ pool [270,280)
 * merged:
 *   step       x2 host 200
 *   ├─ conv    x2 host 80, self 30
 *   │  └─ gemm x2 host 50
 *   ├─ relu    x1
 *   └─ pool    x1
 */
static const struct tx_event two_steps[] = {
	TX("step", HOST_OP, 0, 0, 100, 0, 0, NULL),   TX("conv", HOST_OP, 0, 10, 30, 0, 0, NULL),
	TX("gemm", HOST_OP, 0, 15, 20, 0, 0, NULL),   TX("relu", HOST_OP, 0, 50, 10, 0, 0, NULL),
	TX("step", HOST_OP, 0, 200, 100, 0, 0, NULL), TX("conv", HOST_OP, 0, 210, 50, 0, 0, NULL),
	TX("gemm", HOST_OP, 0, 220, 30, 0, 0, NULL),  TX("pool", HOST_OP, 0, 270, 10, 0, 0, NULL),
};

Test(calltree, merged_paths)
{
	struct tx_analysis a;
	uint32_t step, conv, gemm;

	tx_analyse(&a, OSC_FORMAT_KINETO, two_steps, FX_LEN(two_steps));
	cr_assert_eq(a.m.nr, 5);
	step = tx_mnode(&a, "step");
	conv = tx_mnode(&a, "step$$conv");
	gemm = tx_mnode(&a, "step$$conv$$gemm");
	cr_assert_neq(gemm, OSC_NONE);
	cr_expect_eq(a.m.nodes[step].count, 2);
	cr_expect_eq(a.m.nodes[step].host, 200);
	cr_expect_eq(a.m.nodes[step].self, 200 - 80 - 10 - 10);
	cr_expect_eq(a.m.nodes[conv].host, 80);
	cr_expect_eq(a.m.nodes[conv].self, 30);
	cr_expect_eq(a.m.nodes[conv].host_min, 30);
	cr_expect_eq(a.m.nodes[conv].host_max, 50);
	cr_expect_eq(a.m.nodes[gemm].count, 2);
	cr_expect_eq(a.m.nodes[gemm].depth, 2);
	cr_expect_neq(tx_mnode(&a, "step$$relu"), OSC_NONE);
	cr_expect_neq(tx_mnode(&a, "step$$pool"), OSC_NONE);
	cr_expect_eq(a.m.unattributed, OSC_NONE);
	cr_expect_eq(a.m.host_total, 200);
	cr_expect_eq(osc_mtree_longest_child(&a.m, step), conv);
	tx_release(&a);
}

/* Preorder, a filter keeping the paths through "gemm", depth bounds and guides. */
Test(calltree, keep_preorder_and_guides)
{
	struct tx_analysis a;
	uint8_t keep[5], last[5];
	uint32_t order[5];
	size_t nr;
	struct osc_filter f;
	char path[256], guide[64];
	const char *want_all[] = { "step", "step$$conv", "step$$conv$$gemm", "step$$relu",
				   "step$$pool" };

	tx_analyse(&a, OSC_FORMAT_KINETO, two_steps, FX_LEN(two_steps));
	nr = osc_mtree_preorder(&a.m, NULL, order);
	cr_assert_eq(nr, 5);
	for (size_t i = 0; i < nr; i++)
		cr_expect_str_eq(osc_mtree_path(&a.m, &a.t, order[i], path, sizeof(path)),
				 want_all[i]);
	/* a short buffer keeps the path's first bytes; the length is the whole path's */
	for (size_t size = 1; size <= 18; size++) {
		char cut[18];
		uint32_t gemm = tx_mnode(&a, "step$$conv$$gemm");

		size_t kept = size - 1 < 16 ? size - 1 : 16;

		cr_expect_eq(osc_mtree_path_text(&a.m, &a.t, gemm, cut, size), 16);
		cr_expect(strlen(cut) == kept && !strncmp(cut, "step$$conv$$gemm", kept),
			  "size %zu: %s", size, cut);
	}
	/* guides: the tree drawn from depth 0 */
	osc_mtree_last(&a.m, NULL, last);
	osc_mtree_guide(&a.m, last, tx_mnode(&a, "step$$conv$$gemm"), 0, false, guide,
			sizeof(guide));
	cr_expect_str_eq(guide, "|  `- ");
	osc_mtree_guide(&a.m, last, tx_mnode(&a, "step$$relu"), 0, false, guide, sizeof(guide));
	cr_expect_str_eq(guide, "|- ");
	osc_mtree_guide(&a.m, last, tx_mnode(&a, "step$$pool"), 0, true, guide, sizeof(guide));
	cr_expect_str_eq(guide, "\xe2\x94\x94\xe2\x94\x80 ");

	osc_filter_init(&f);
	osc_filter_add_pattern(&f, "gemm");
	osc_mtree_keep(&a.m, &a.t, &f, 0, -1, keep);
	nr = osc_mtree_preorder(&a.m, keep, order);
	cr_expect_eq(nr, 3, "step, conv, gemm: the path through gemm");
	osc_mtree_keep(&a.m, &a.t, NULL, 1, 1, keep);
	nr = osc_mtree_preorder(&a.m, keep, order);
	cr_expect_eq(nr, 3, "conv, relu, pool at depth 1");
	cr_expect_eq(order[0], tx_mnode(&a, "step$$conv"));
	osc_filter_release(&f);
	tx_release(&a);
}

/*
 * osc_mtree_next: a subtree's walk ends at its root even when the root has a
 * next sibling (conv's walk is conv, gemm; not relu), and down false skips
 * the children (step, then nothing: step has no sibling).
 */
Test(calltree, next_in_preorder_stays_in_the_subtree)
{
	struct tx_analysis a;
	uint32_t conv, gemm;

	tx_analyse(&a, OSC_FORMAT_KINETO, two_steps, FX_LEN(two_steps));
	conv = tx_mnode(&a, "step$$conv");
	gemm = tx_mnode(&a, "step$$conv$$gemm");
	cr_assert_neq(a.m.nodes[conv].next_sibling, OSC_NONE, "conv has a sibling");
	cr_expect_eq(osc_mtree_next(&a.m, conv, true, conv), gemm);
	cr_expect_eq(osc_mtree_next(&a.m, gemm, true, conv), OSC_NONE);
	cr_expect_eq(osc_mtree_next(&a.m, conv, false, conv), OSC_NONE);
	cr_expect_eq(osc_mtree_next(&a.m, gemm, true, OSC_NONE), tx_mnode(&a, "step$$relu"));
	cr_expect_eq(osc_mtree_next(&a.m, tx_mnode(&a, "step"), false, OSC_NONE), OSC_NONE);
	tx_release(&a);
}

/* Category selection by name, and names absent from the trace. */
Test(calltree, catsel_by_name)
{
	static const struct tx_event ev[] = {
		TX("py", PYTHON, 0, 0, 100, 0, 0, NULL),
		TX("op", HOST_OP, 0, 10, 10, 0, 0, NULL),
	};
	struct tx_analysis a;
	struct osc_catsel sel;
	struct osc_calltree c;
	struct osc_error err;

	tx_analyse(&a, OSC_FORMAT_KINETO, ev, FX_LEN(ev));
	cr_expect_eq(a.c.nr, 1, "default: ops only");
	cr_assert_eq(osc_catsel_parse(&sel, &a.t, "python,op,nosuchcat", 0, "--monitor-cat", &err),
		     OSC_OK);
	osc_calltree_build(&a.t, &sel, &c);
	cr_expect_eq(c.nr, 2);
	cr_expect_eq(c.nodes[c.node_of[fx_find(&a.t, "op")]].parent,
		     c.node_of[fx_find(&a.t, "py")]);
	osc_calltree_release(&c);
	osc_catsel_release(&sel);
	cr_expect_eq(osc_catsel_parse(&sel, &a.t, "op,,x", 0, "--monitor-cat", &err), OSC_USAGE);
	cr_expect_str_eq(err.subject, "--monitor-cat");
	tx_release(&a);
}

/* Invariants on a real trace: children inside their parents, self times, depths. */
Test(calltree, real_trace_invariants)
{
	struct osc_trace t;
	struct osc_catsel host;
	struct osc_calltree c;
	struct osc_error err;
	uint64_t roots = 0;

	fx_load(&t, "samples/kineto-sampled-rank0.json.gz");
	osc_catsel_parse(&host, &t, NULL, OSC_CATSEL_HOST_DEFAULT, "host", &err);
	osc_calltree_build(&t, &host, &c);
	cr_assert_gt(c.nr, 1000);
	for (size_t n = 0; n < c.nr; n++) {
		const struct osc_tree_node *node = &c.nodes[n];
		const struct osc_event *e = &t.events[node->event];

		cr_assert_eq(c.node_of[node->event], n);
		cr_assert_geq(node->self, 0);
		cr_assert_leq(node->self, e->dur);
		if (node->parent == OSC_NONE) {
			roots++;
			cr_assert_eq(node->depth, 0);
			continue;
		}
		const struct osc_event *p = &t.events[c.nodes[node->parent].event];

		cr_assert_lt(node->parent, n);
		cr_assert_eq(p->thread, e->thread);
		cr_assert_leq(p->ts, e->ts);
		cr_assert_leq(e->ts + e->dur, p->ts + p->dur);
		cr_assert_eq(node->depth, c.nodes[node->parent].depth + 1);
	}
	cr_expect_eq(roots, c.nr_roots);
	osc_calltree_release(&c);
	osc_catsel_release(&host);
	osc_trace_release(&t);
}

/*
 * The merged subtree of one op, wherever it is called from:
 *   step > conv > gemm, step > relu; step > conv > gemm, step > pool
 * rooted at "conv": conv x2 (host 80) > gemm x2; nothing else.
 */
Test(calltree, subtree_of_one_op)
{
	struct tx_analysis a;
	struct osc_mtree m;

	tx_analyse(&a, OSC_FORMAT_KINETO, two_steps, FX_LEN(two_steps));
	osc_mtree_build(&a.t, &a.c, &a.corr, NULL, NULL, fx_str(&a.t, "conv"), &m);
	cr_assert_eq(m.nr, 2);
	cr_expect_eq(m.nodes[0].parent, OSC_NONE);
	cr_expect_str_eq(osc_trace_str(&a.t, m.nodes[0].name), "conv");
	cr_expect_eq(m.nodes[0].count, 2);
	cr_expect_eq(m.nodes[0].host, 80);
	cr_expect_eq(m.nodes[1].parent, 0);
	cr_expect_eq(m.unattributed, OSC_NONE);
	cr_expect_eq(osc_mtree_of(&m, tx_node(&a, "relu")), OSC_NONE);
	osc_mtree_release(&m);
	tx_release(&a);
}

/* The event of the k-th (from 0) event named name in trace order. */
static uint32_t nth_named(const struct osc_trace *t, const char *name, int k)
{
	for (uint32_t e = 0; e < t->nr_events; e++)
		if (!strcmp(osc_trace_str(t, t->events[e].name), name) && k-- == 0)
			return e;
	cr_assert_fail("no event %s", name);
	return OSC_NONE;
}

/*
 * The merged subtrees of calls of different names (T on an ORT op row,
 * whose calls are named for their nodes): the first gemm, the relu, the
 * second conv and its gemm, which is inside that conv and so no root.
 *   gemm (20), relu (10), conv (50) > gemm (30); nothing else.
 */
Test(calltree, subtrees_of_calls_of_any_names)
{
	struct tx_analysis a;
	struct osc_tree_index x;
	struct osc_mtree m;
	uint64_t roots[1] = { 0 };
	uint32_t calls[4];
	uint32_t conv, gemm;

	tx_analyse(&a, OSC_FORMAT_KINETO, two_steps, FX_LEN(two_steps));
	calls[0] = nth_named(&a.t, "gemm", 0);
	calls[1] = nth_named(&a.t, "relu", 0);
	calls[2] = nth_named(&a.t, "conv", 1);
	calls[3] = nth_named(&a.t, "gemm", 1);
	osc_calltree_mark_calls(&a.c, calls, 4, roots);
	osc_tree_index_build(&a.c, &a.corr, &x);
	osc_mtree_build_subtree(&a.t, &a.c, &a.corr, &x, NULL, NULL, roots, &m);
	cr_assert_eq(m.nr, 4);
	cr_expect_str_eq(osc_trace_str(&a.t, m.nodes[m.first_root].name), "gemm");
	cr_expect_eq(m.nodes[m.first_root].host, 20);
	conv = osc_mtree_of(&m, a.c.node_of[calls[2]]);
	gemm = osc_mtree_of(&m, a.c.node_of[calls[3]]);
	cr_assert_neq(conv, OSC_NONE);
	cr_expect_eq(m.nodes[conv].parent, OSC_NONE);
	cr_expect_eq(m.nodes[conv].count, 1);
	cr_expect_eq(m.nodes[conv].host, 50);
	cr_expect_eq(m.nodes[gemm].parent, conv);
	cr_expect_eq(m.nodes[gemm].host, 30);
	cr_expect_eq(m.host_total, 20 + 10 + 50);
	cr_expect_eq(osc_mtree_of(&m, a.c.node_of[nth_named(&a.t, "conv", 0)]), OSC_NONE);
	cr_expect_eq(osc_mtree_of(&m, tx_node(&a, "step")), OSC_NONE);
	osc_mtree_release(&m);
	osc_tree_index_release(&x);
	tx_release(&a);
}

/* Merged trees a and b are the same, field by field (c: their instance tree). */
static void expect_same_mtree(const struct osc_mtree *a, const struct osc_mtree *b,
			      const struct osc_calltree *c, const char *root)
{
	cr_assert_eq(a->nr, b->nr, "%s", root);
	for (size_t n = 0; n < a->nr; n++) {
		const struct osc_mnode *x = &a->nodes[n], *y = &b->nodes[n];

		cr_assert(x->name == y->name && x->parent == y->parent &&
			  x->first_child == y->first_child && x->next_sibling == y->next_sibling &&
			  x->depth == y->depth && x->count == y->count && x->host == y->host &&
			  x->self == y->self && x->host_min == y->host_min &&
			  x->host_max == y->host_max && x->dev == y->dev &&
			  x->dev_total == y->dev_total && x->launch == y->launch &&
			  x->launch_total == y->launch_total && x->launch_work == y->launch_work &&
			  x->kernels == y->kernels && x->kernels_total == y->kernels_total &&
			  x->launches == y->launches && x->launches_total == y->launches_total &&
			  x->delay_sum == y->delay_sum && x->queue_sum == y->queue_sum &&
			  x->nr_delay == y->nr_delay && x->first_inst == y->first_inst,
			  "%s: node %zu", root, n);
		cr_assert(a->dev_first[n + 1] == b->dev_first[n + 1] &&
			  a->launch_first[n + 1] == b->launch_first[n + 1], "%s: node %zu", root,
			  n);
	}
	for (uint32_t n = 0; n < c->nr; n++)
		cr_assert_eq(osc_mtree_of(a, n), osc_mtree_of(b, n), "%s: instance %u", root, n);
	cr_assert_eq(memcmp(a->dev, b->dev, a->dev_first[a->nr] * sizeof(*a->dev)), 0, "%s", root);
	cr_assert_eq(memcmp(a->launch, b->launch, a->launch_first[a->nr] * sizeof(*a->launch)), 0,
		     "%s", root);
	cr_assert(a->first_root == b->first_root && a->unattributed == b->unattributed &&
		  a->host_total == b->host_total, "%s", root);
}

/* Set in roots the nodes of c named name; how many. */
static size_t mark_named(const struct osc_calltree *c, osc_str name, uint64_t *roots)
{
	size_t k = 0;

	memset(roots, 0, osc_bits_words(c->nr) * sizeof(*roots));
	for (uint32_t n = 0; n < c->nr; n++)
		if (c->nodes[n].name == name) {
			osc_bit_put(roots, n, true);
			k++;
		}
	return k;
}

/*
 * The subtree of every op name of a real trace (a training step, ops nested
 * in ops and in themselves, device work on several streams), through the
 * tree's index from the nodes of that name, is the tree the whole scan
 * gives: over every run and over one of them.
 */
Test(calltree, subtree_through_the_index_is_the_scans)
{
	struct osc_trace t;
	struct osc_runs runs;
	struct osc_runsel sel;
	struct osc_error err;
	const struct osc_calltree *c;
	const struct osc_correlation *corr;
	const struct osc_tree_index *x;
	uint64_t *roots;
	size_t names = 0;

	fx_load(&t, "samples/kineto-sampled-rank0.json.gz");
	osc_runs_detect(&t, &runs);
	cr_assert_eq(osc_runsel_parse("1", runs.nr, runs.warmup, &sel, &err), OSC_OK);
	c = osc_trace_host_tree(&t);
	corr = osc_trace_correlation(&t);
	x = osc_trace_tree_index(&t);
	roots = osc_xmalloc(osc_bits_words(c->nr) * sizeof(*roots));
	for (osc_str name = 0; name < t.strs.count; name++) {
		if (!mark_named(c, name, roots))
			continue; /* no node of that name */
		for (int s = 0; s < 2; s++) {
			struct osc_mtree scan, indexed;

			osc_mtree_build(&t, c, corr, &runs, s ? &sel : NULL, name, &scan);
			osc_mtree_build_subtree(&t, c, corr, x, &runs, s ? &sel : NULL, roots,
						&indexed);
			expect_same_mtree(&scan, &indexed, c, osc_trace_str(&t, name));
			osc_mtree_release(&scan);
			osc_mtree_release(&indexed);
		}
		names++;
	}
	cr_expect_gt(names, 100, "the sample's op names");
	free(roots);
	osc_runsel_release(&sel);
	osc_runs_release(&runs);
	osc_trace_release(&t);
}

/* ---- shares of a big trace: the same tree on any number of cores ---- */

static uint64_t next_random(uint64_t *s)
{
	*s ^= *s << 13, *s ^= *s >> 7, *s ^= *s << 17;
	return *s;
}

/*
 * n random events on 3 threads of unequal weight (60, 35, 5 %): ops and
 * runtime calls starting 0-5 units apart, mostly short and some long, so they
 * nest, overlap partially, tie and have zero length; enough for a build on
 * several cores (a share is 65,536 events).
 */
static struct tx_event *random_events(size_t n)
{
	static const char *const names[] = { "a", "b", "c", "d" };
	struct tx_event *ev = calloc(n, sizeof(*ev));
	int64_t at[3] = { 0, 0, 0 };
	uint64_t s = 0x9e3779b97f4a7c15ull;

	for (size_t i = 0; i < n; i++) {
		uint64_t r = next_random(&s);
		int th = r % 100 < 60 ? 0 : r % 100 < 95 ? 1 : 2;

		/* in units of 300 ns: legacy PyTorch's 1 µs slack takes some ends, not all */
		at[th] += 300 * (int64_t)(next_random(&s) % 6);
		ev[i] = (struct tx_event)TX(names[r >> 40 & 3], HOST_OP, th, at[th],
					    300 * (int64_t)(next_random(&s) % (r >> 20 & 7 ? 40 : 400)),
					    0, 0, NULL);
		if ((r >> 30 & 7) == 0)
			ev[i].kind = OSC_KIND_RUNTIME;
	}
	return ev;
}

static void expect_same_tree(const struct osc_trace *t, const struct osc_calltree *a,
			     const struct osc_calltree *b)
{
	cr_assert_eq(a->nr, b->nr);
	cr_assert_eq(a->nr_threads, b->nr_threads);
	cr_expect_eq(a->nr_overlaps, b->nr_overlaps);
	cr_expect_eq(a->nr_roots, b->nr_roots);
	cr_expect_eq(a->max_depth, b->max_depth);
	for (size_t n = 0; n < a->nr; n++) {
		const struct osc_tree_node *x = &a->nodes[n], *y = &b->nodes[n];

		cr_assert(x->event == y->event && x->parent == y->parent &&
				  x->first_child == y->first_child &&
				  x->next_sibling == y->next_sibling && x->depth == y->depth &&
				  x->name == y->name && x->dur == y->dur && x->self == y->self,
			  "node %zu differs", n);
		cr_assert_eq(a->by_thread[n], b->by_thread[n]);
	}
	for (size_t i = 0; i < t->nr_events; i++)
		cr_assert_eq(a->node_of[i], b->node_of[i], "event %zu", i);
	for (size_t th = 0; th <= a->nr_threads; th++)
		cr_assert_eq(a->thread_first[th], b->thread_first[th]);
}

/* A tree built on one core, then on all, for each format's nesting rules. */
Test(calltree, shares_build_the_same_tree)
{
	static const enum osc_format formats[] = { OSC_FORMAT_KINETO, OSC_FORMAT_PYTORCH_LEGACY };
	size_t n = 200000;
	struct tx_event *ev = random_events(n);

	if (osc_threads() < 2)
		cr_skip_test("one CPU: the tree is built on one core only");
	for (size_t f = 0; f < sizeof(formats) / sizeof(formats[0]); f++) {
		struct osc_trace t;
		struct osc_catsel host = { .kinds = OSC_KIND_BIT(HOST_OP) };
		struct osc_calltree one, all;

		tx_build(&t, formats[f], ev, n);
		osc_threads_cap(1);
		osc_calltree_build(&t, &host, &one);
		osc_threads_cap(0);
		osc_calltree_build(&t, &host, &all);
		cr_assert_gt(one.nr_overlaps, 0, "partial overlaps are exercised");
		cr_assert_gt(one.max_depth, 3, "nesting is exercised");
		expect_same_tree(&t, &one, &all);
		osc_calltree_release(&one);
		osc_calltree_release(&all);
		osc_trace_release(&t);
	}
	free(ev);
}

/* A Kineto trace of n random events (random_events), and the tree of its ops. */
static void random_tree(size_t n, const struct osc_catsel *ops, struct osc_trace *t,
			struct osc_calltree *c)
{
	struct tx_event *ev = random_events(n);

	tx_build(t, OSC_FORMAT_KINETO, ev, n);
	free(ev);
	osc_calltree_build(t, ops, c);
}

/* A rebuild in a tree's own memory, for more nodes and then fewer, is a fresh build. */
Test(calltree, rebuild_is_a_fresh_build)
{
	struct osc_trace t;
	struct osc_catsel ops = { .kinds = OSC_KIND_BIT(HOST_OP) };
	struct osc_catsel wide = { .kinds = OSC_KIND_BIT(HOST_OP) | OSC_KIND_BIT(RUNTIME) };
	const struct osc_catsel *then[] = { &wide, &ops };
	struct osc_calltree tree, fresh;

	random_tree(150000, &ops, &t, &tree);
	for (size_t i = 0; i < 2; i++) {
		osc_calltree_rebuild(&t, then[i], &tree);
		osc_calltree_build(&t, then[i], &fresh);
		cr_assert_gt(fresh.nr, 0);
		expect_same_tree(&t, &tree, &fresh);
		osc_calltree_release(&fresh);
	}
	osc_calltree_release(&tree);
	osc_trace_release(&t);
}

/* A walk answers as osc_calltree_find: in model order, and going back in time. */
Test(calltree, walk_finds_as_find)
{
	size_t n = 20000;
	struct osc_trace t;
	struct osc_catsel ops = { .kinds = OSC_KIND_BIT(HOST_OP) };
	struct osc_calltree c;
	struct osc_calltree_walk w;
	uint64_t s = 42, found = 0;

	random_tree(n, &ops, &t, &c);
	osc_calltree_walk_init(&w, &c);
	for (size_t i = 0; i < t.nr_events; i++) {
		const struct osc_event *e = &t.events[i];
		uint32_t want = osc_calltree_find(&c, &t, e->thread, e->ts);

		cr_assert_eq(osc_calltree_walk_find(&w, &c, &t, e->thread, e->ts), want, "event %zu", i);
		found += want != OSC_NONE;
	}
	cr_assert_gt(found, n / 2);
	for (size_t i = 0; i < 20000; i++) { /* any order, threads beyond the last too */
		uint32_t th = (uint32_t)(next_random(&s) % 4);
		int64_t ts = (int64_t)(next_random(&s) % 20000000) - 1000;

		cr_assert_eq(osc_calltree_walk_find(&w, &c, &t, th, ts),
			     osc_calltree_find(&c, &t, th, ts), "thread %u at %lld", th, (long long)ts);
	}
	osc_calltree_walk_release(&w);
	osc_calltree_release(&c);
	osc_trace_release(&t);
}

/*
 * osc_mtree_order against a plain recomputation: each node's children (and
 * the roots), in node order, then insertion-sorted by key (a stable sort:
 * ties by node), the unattributed root last. A random tree of 3000 nodes
 * with many equal keys and the extremes of int64_t, both directions, and
 * with no key (each group in node order).
 */
Test(calltree, order_of_siblings_is_by_key_then_node)
{
	enum { N = 3000 };
	struct osc_mnode *nodes = osc_xcalloc(N, sizeof(*nodes));
	struct osc_mtree m = { .nodes = nodes, .nr = N, .unattributed = 7 };
	int64_t key[N];
	size_t kid_first[N + 2] = { 0 }, at[N + 1];
	uint32_t kids[N], want[N];
	unsigned seed = 12345;

	for (uint32_t n = 0; n < N; n++) {
		seed = seed * 1103515245u + 12345u;
		nodes[n].parent = n < 40 || n == 7 || seed % 7 == 0 ? OSC_NONE : (seed >> 8) % n;
		key[n] = n % 97 == 0 ? INT64_MIN : n % 89 == 0 ? INT64_MAX : (int64_t)(seed >> 20) % 9 - 4;
		kid_first[(nodes[n].parent == OSC_NONE ? N : nodes[n].parent) + 1]++;
	}
	for (size_t g = 1; g < N + 2; g++)
		kid_first[g] += kid_first[g - 1];
	for (int desc = -1; desc < 2; desc++) { /* -1: no key, by node alone */
		memcpy(at, kid_first, sizeof(at));
		for (uint32_t n = 0; n < N; n++)
			want[at[nodes[n].parent == OSC_NONE ? N : nodes[n].parent]++] = n;
		for (size_t g = 0; desc >= 0 && g <= N; g++) {
			for (size_t i = kid_first[g] + 1; i < kid_first[g + 1]; i++) {
				uint32_t x = want[i];
				size_t j = i;

				while (j > kid_first[g] && (desc ? key[want[j - 1]] < key[x]
								 : key[want[j - 1]] > key[x])) {
					want[j] = want[j - 1];
					j--;
				}
				want[j] = x;
			}
		}
		for (size_t i = kid_first[N]; i + 1 < kid_first[N + 1]; i++)
			if (want[i] == 7) {
				want[i] = want[i + 1];
				want[i + 1] = 7;
			}
		osc_mtree_order(&m, desc < 0 ? NULL : key, desc > 0, kid_first, kids);
		for (size_t i = 0; i < N; i++)
			cr_expect_eq(kids[i], want[i], "desc %d, at %zu: node %u, want %u", desc, i,
				     kids[i], want[i]);
		cr_expect_eq(kids[kid_first[N + 1] - 1], 7, "the unattributed root is last");
	}
	free(nodes);
}
