/*
 * test_module.c - the nn.Module hierarchy (module.h) and the module level of
 * aggregate.h on a hand-made trace whose every figure is worked out below.
 *
 *   thread 0 (host)                                  thread 1 (device)
 *   ProfilerStep#1 [0,1000)
 *   Net_0 [10,900)
 *   ├─ Linear_0 [100,400)
 *   │  └─ linear (op) [120,380)
 *   │     └─ cudaLaunchKernel [200,220) c1           gemm [300,500)     200
 *   ├─ Block_0 [450,850)
 *   │  ├─ ReLU_0 [500,600)
 *   │  │  └─ relu (op) [510,590), launch c2           k_relu [600,650)    50
 *   │  └─ add (op) [700,800), launch c3               k_add [800,830)     30
 *   └─ to (op) [860,890), cudaMemcpyAsync c4          memcpy [900,920)    20
 *   zero_ (op) [920,960), outside every module, c5    k_out [960,1000)    40
 *   ProfilerStep#2 [1000,1200)
 *   Net_0 [1010,1100)
 *   └─ Linear_0 [1020,1060)
 *      └─ lin2 (op) [1030,1050), launch c6            gemm2 [1060,1090)   30
 *   thread 2 (host): ReLU_0 [200,260), a root there (path "ReLU_0"), no op
 *
 * Paths and figures over both runs (ns):
 *   path                  count total self device device_total kernels
 *   Net_0                   2    980  240    20      330          1
 *   Net_0/Linear_0          2    340  340   230      230          2
 *   Net_0/Block_0           1    400  300    30       80          1
 *   Net_0/Block_0/ReLU_0    1    100  100    50       50          1
 *   ReLU_0                  1     60   60     0        0          0
 * Net_0's self: 890 - 300 - 400 + 90 - 40. Device outside every module: 40
 * (k_out), so device 330 + 40 = device_time 370. Host busy over ops and
 * module windows: thread 0 [10,900) + [920,960) + [1010,1100) = 1020,
 * thread 2 60: 1080 = the selves 1040 + zero_'s 40.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "opscope/analysis/aggregate.h"
#include "opscope/analysis/module.h"
#include "opscope/analysis/trace_cache.h"
#include "opscope/model/runs.h"
#include "tree_fixture.h"

static const struct tx_event ev[] = {
	TX("ProfilerStep#1", RUN, 0, 0, 1000, 0, 0, NULL),
	TX("nn.Module: Net_0", PYTHON, 0, 10, 890, 0, 0, NULL),
	TX("nn.Module: Linear_0", PYTHON, 0, 100, 300, 0, 0, NULL),
	TX("linear", HOST_OP, 0, 120, 260, 0, 0, NULL),
	TX("cudaLaunchKernel", RUNTIME, 0, 200, 20, 1, 0, NULL),
	TX("gemm", KERNEL, 1, 300, 200, 1, 0, NULL),
	TX("nn.Module: Block_0", PYTHON, 0, 450, 400, 0, 0, NULL),
	TX("nn.Module: ReLU_0", PYTHON, 0, 500, 100, 0, 0, NULL),
	TX("relu", HOST_OP, 0, 510, 80, 0, 0, NULL),
	TX("cudaLaunchKernel", RUNTIME, 0, 520, 10, 2, 0, NULL),
	TX("k_relu", KERNEL, 1, 600, 50, 2, 0, NULL),
	TX("add", HOST_OP, 0, 700, 100, 0, 0, NULL),
	TX("cudaLaunchKernel", RUNTIME, 0, 710, 10, 3, 0, NULL),
	TX("k_add", KERNEL, 1, 800, 30, 3, 0, NULL),
	TX("to", HOST_OP, 0, 860, 30, 0, 0, NULL),
	TX("cudaMemcpyAsync", RUNTIME, 0, 865, 5, 4, 0, NULL),
	TX("memcpy", MEMCPY, 1, 900, 20, 4, 0, NULL),
	TX("zero_", HOST_OP, 0, 920, 40, 0, 0, NULL),
	TX("cudaLaunchKernel", RUNTIME, 0, 930, 10, 5, 0, NULL),
	TX("k_out", KERNEL, 1, 960, 40, 5, 0, NULL),
	TX("ProfilerStep#2", RUN, 0, 1000, 200, 0, 0, NULL),
	TX("nn.Module: Net_0", PYTHON, 0, 1010, 90, 0, 0, NULL),
	TX("nn.Module: Linear_0", PYTHON, 0, 1020, 40, 0, 0, NULL),
	TX("lin2", HOST_OP, 0, 1030, 20, 0, 0, NULL),
	TX("cudaLaunchKernel", RUNTIME, 0, 1035, 5, 6, 0, NULL),
	TX("gemm2", KERNEL, 1, 1060, 30, 6, 0, NULL),
	TX("nn.Module: ReLU_0", PYTHON, 2, 200, 60, 0, 0, NULL),
};

static const struct {
	const char *path;
	uint64_t count;
	int64_t total, self, dev, dev_total;
	uint64_t kernels;
} want[] = {
	{ "Net_0", 2, 980, 240, 20, 330, 1 },
	{ "Net_0/Linear_0", 2, 340, 340, 230, 230, 2 },
	{ "Net_0/Block_0", 1, 400, 300, 30, 80, 1 },
	{ "Net_0/Block_0/ReLU_0", 1, 100, 100, 50, 50, 1 },
	{ "ReLU_0", 1, 60, 60, 0, 0, 0 },
};

static void build(struct osc_trace *t)
{
	tx_build(t, OSC_FORMAT_KINETO, ev, FX_LEN(ev));
}

/* The row of path, or NULL. */
static const struct osc_agg_row *row_of(const struct osc_agg *a, const char *path)
{
	for (size_t r = 0; r < a->nr; r++)
		if (a->rows[r].module != OSC_NONE &&
		    !strcmp(osc_module_path(a->modules, a->rows[r].module), path))
			return &a->rows[r];
	return NULL;
}

Test(module, hierarchy)
{
	struct osc_trace t;
	struct osc_modules m;
	static const char *const paths[] = { "Net_0", "Net_0/Linear_0", "ReLU_0", "Net_0/Block_0",
					     "Net_0/Block_0/ReLU_0" };

	build(&t);
	osc_modules_build(&t, &m);
	cr_assert_eq(m.nr_inst, 7);
	cr_assert_eq(m.nr, 5);
	/* nodes in order of first appearance (model order: ReLU_0 of thread 2 at 200) */
	for (size_t n = 0; n < m.nr; n++)
		cr_expect_str_eq(osc_module_path(&m, (uint32_t)n), paths[n]);
	cr_expect_str_eq(osc_module_name(&m, 4), "ReLU_0");
	cr_expect_eq(m.nodes[4].depth, 2);
	cr_expect_eq(m.nodes[4].parent, 3);
	cr_expect_eq(m.nodes[2].parent, OSC_NONE);
	cr_expect_eq(m.first_root, 0);
	cr_expect_eq(m.nodes[0].next_sibling, 2, "the roots are siblings");
	cr_expect_eq(m.nodes[0].first_child, 1);
	cr_expect_eq(m.nodes[1].next_sibling, 3);
	/* the module of events: innermost holding the start; none outside */
	cr_expect_eq(osc_module_node_of(&m, fx_find(&t, "add")), 3);
	cr_expect_eq(osc_module_node_of(&m, fx_find(&t, "relu")), 4);
	cr_expect_eq(osc_module_node_of(&m, fx_find(&t, "to")), 0);
	cr_expect_eq(osc_module_node_of(&m, fx_find(&t, "zero_")), OSC_NONE);
	cr_expect_eq(osc_module_node_of(&m, fx_find(&t, "gemm")), OSC_NONE,
		     "a device event has no module of its own thread");
	cr_expect_eq(m.nr_overlaps, 0);
	/* preorder: Net_0, Linear_0, Block_0, Block_0/ReLU_0, then the root ReLU_0 */
	cr_expect_eq(m.rank[0], 0);
	cr_expect_eq(m.rank[1], 1);
	cr_expect_eq(m.rank[3], 2);
	cr_expect_eq(m.rank[4], 3);
	cr_expect_eq(m.rank[2], 4);
	osc_modules_release(&m);
	osc_trace_release(&t);
}

Test(module, level_over_all_runs)
{
	struct osc_trace t;
	struct osc_runs runs;
	struct osc_runsel sel;
	struct osc_error err;
	struct osc_query q = { .level = OSC_LEVEL_MODULE, .runs = &sel };
	struct osc_agg a;
	int64_t dev = 0, self = 0;

	build(&t);
	osc_runs_detect(&t, &runs);
	cr_assert_eq(runs.nr, 2);
	cr_assert_eq(osc_runsel_parse("all", runs.nr, runs.warmup, &sel, &err), OSC_OK);
	osc_aggregate(&t, &runs, &q, &a);
	cr_assert_eq(a.nr, FX_LEN(want));
	for (size_t i = 0; i < FX_LEN(want); i++) {
		const struct osc_agg_row *r = row_of(&a, want[i].path);

		cr_assert(r, "%s", want[i].path);
		cr_expect_eq(r->count, want[i].count, "%s count", want[i].path);
		cr_expect_eq(r->total, want[i].total, "%s total", want[i].path);
		cr_expect_eq(r->self, want[i].self, "%s self", want[i].path);
		cr_expect_eq(r->dev, want[i].dev, "%s device", want[i].path);
		cr_expect_eq(r->dev_total, want[i].dev_total, "%s device_total", want[i].path);
		cr_expect_eq(r->kernels, want[i].kernels, "%s kernels", want[i].path);
		dev += r->dev;
		self += r->self;
	}
	cr_expect_eq(a.device_time, 370);
	cr_expect_eq(dev + 40, a.device_time, "device + outside every module = device time");
	cr_expect_eq(a.host_busy, 1080);
	cr_expect_eq(self + 40, a.host_busy, "selves + ops outside every module = host busy");
	/* sorted by device time: Linear_0 first; the name cell is the path */
	cr_expect_str_eq(osc_module_path(a.modules, a.rows[0].module), "Net_0/Linear_0");
	cr_expect_str_eq(osc_trace_str(&t, a.rows[0].key), "nn.Module: Linear_0");
	/* by name: the hierarchy's preorder */
	osc_agg_sort(&a, &t, OSC_STAT_NAME, false);
	for (size_t i = 0; i < a.nr; i++)
		cr_expect_eq(a.modules->rank[a.rows[i].module], i, "row %zu in preorder", i);
	osc_agg_release(&a);
	osc_runsel_release(&sel);
	osc_runs_release(&runs);
	osc_trace_release(&t);
}

/* Run 1 only: the second Net_0 and Linear_0 and gemm2; the filter by module name. */
Test(module, runs_and_filter)
{
	struct osc_trace t;
	struct osc_runs runs;
	struct osc_runsel sel;
	struct osc_error err;
	struct osc_filter f;
	struct osc_query q = { .level = OSC_LEVEL_MODULE, .runs = &sel };
	struct osc_agg a;
	const struct osc_agg_row *r;

	build(&t);
	osc_runs_detect(&t, &runs);
	cr_assert_eq(osc_runsel_parse("1", runs.nr, runs.warmup, &sel, &err), OSC_OK);
	osc_aggregate(&t, &runs, &q, &a);
	cr_assert_eq(a.nr, 2);
	r = row_of(&a, "Net_0");
	cr_assert(r);
	cr_expect_eq(r->count, 1);
	cr_expect_eq(r->total, 90);
	cr_expect_eq(r->self, 50);
	cr_expect_eq(r->dev, 0);
	cr_expect_eq(r->dev_total, 30);
	cr_expect_eq(a.device_time, 30);
	cr_expect_eq(a.host_busy, 90);
	osc_agg_release(&a);

	osc_filter_init(&f);
	osc_filter_add_pattern(&f, "*Linear*");
	q.filter = &f;
	osc_runsel_release(&sel);
	cr_assert_eq(osc_runsel_parse("all", runs.nr, runs.warmup, &sel, &err), OSC_OK);
	osc_aggregate(&t, &runs, &q, &a);
	cr_assert_eq(a.nr, 1);
	cr_expect_eq(a.rows[0].count, 2);
	cr_expect_eq(a.rows[0].dev, 230);
	cr_expect_eq(a.device_time, 370, "the bases are never filtered");
	osc_agg_release(&a);
	osc_filter_release(&f);
	osc_runsel_release(&sel);
	osc_runs_release(&runs);
	osc_trace_release(&t);
}

/* The path of the module column of the row named name at level l ("" none). */
static const char *module_cell(const struct osc_trace *t, enum osc_level l, const char *name,
			       char *buf, size_t size)
{
	struct osc_query q = { .level = l, .module = true };
	struct osc_agg a;

	osc_aggregate(t, NULL, &q, &a);
	snprintf(buf, size, "no row");
	for (size_t j = 0; j < a.nr; j++)
		if (!strcmp(osc_trace_str(t, a.rows[j].key), name))
			snprintf(buf, size, "%s", a.rows[j].module == OSC_NONE ? "" :
				 osc_module_path(a.modules, a.rows[j].module));
	osc_agg_release(&a);
	return buf;
}

/* The module column of the kernel and op levels: the launching op's module. */
Test(module, module_column)
{
	struct osc_trace t;
	char buf[128];

	build(&t);
	cr_expect_str_eq(module_cell(&t, OSC_LEVEL_KERNEL, "gemm", buf, sizeof(buf)),
			 "Net_0/Linear_0");
	cr_expect_str_eq(module_cell(&t, OSC_LEVEL_KERNEL, "k_relu", buf, sizeof(buf)),
			 "Net_0/Block_0/ReLU_0");
	cr_expect_str_eq(module_cell(&t, OSC_LEVEL_KERNEL, "k_add", buf, sizeof(buf)),
			 "Net_0/Block_0");
	cr_expect_str_eq(module_cell(&t, OSC_LEVEL_KERNEL, "k_out", buf, sizeof(buf)), "");
	cr_expect_str_eq(module_cell(&t, OSC_LEVEL_OP, "add", buf, sizeof(buf)), "Net_0/Block_0");
	cr_expect_str_eq(module_cell(&t, OSC_LEVEL_OP, "to", buf, sizeof(buf)), "Net_0");
	cr_expect_str_eq(module_cell(&t, OSC_LEVEL_OP, "zero_", buf, sizeof(buf)), "");
	osc_trace_release(&t);
}

/* What a tree shows: paths through a match, depth bounds, guides. */
Test(module, keep_last_guide)
{
	struct osc_trace t;
	struct osc_modules m;
	struct osc_filter f;
	uint8_t keep[5], last[5];
	char buf[64];

	build(&t);
	osc_modules_build(&t, &m);
	osc_filter_init(&f);
	osc_filter_add_pattern(&f, "*Block*");
	osc_modules_keep(&m, &f, NULL, 0, -1, keep);
	/* Net_0 (ancestor), Net_0/Block_0, Net_0/Block_0/ReLU_0 (descendant) */
	cr_expect(keep[0] && !keep[1] && !keep[2] && keep[3] && keep[4]);
	osc_modules_last(&m, keep, last);
	cr_expect(last[3], "Linear_0 is hidden: Block_0 is Net_0's last shown child");
	osc_modules_guide(&m, last, 4, 0, false, buf, sizeof(buf));
	cr_expect_str_eq(buf, "   `- ");
	osc_modules_keep(&m, NULL, NULL, 1, 1, keep);
	cr_expect(!keep[0] && keep[1] && !keep[2] && keep[3] && !keep[4]);
	osc_modules_last(&m, NULL, last);
	osc_modules_guide(&m, last, 1, 0, true, buf, sizeof(buf));
	cr_expect_str_eq(buf, "\xe2\x94\x9c\xe2\x94\x80 ");
	osc_filter_release(&f);
	osc_modules_release(&m);
	osc_trace_release(&t);
}

/* A trace without module events: an empty level, no error. */
Test(module, none)
{
	static const struct tx_event plain[] = {
		TX("nn.Modulo: X", PYTHON, 0, 0, 10, 0, 0, NULL),
		TX("op", HOST_OP, 0, 0, 5, 0, 0, NULL),
	};
	struct osc_trace t;
	struct osc_query q = { .level = OSC_LEVEL_MODULE };
	struct osc_agg a;

	tx_build(&t, OSC_FORMAT_KINETO, plain, FX_LEN(plain));
	osc_aggregate(&t, NULL, &q, &a);
	cr_expect_eq(a.nr, 0);
	cr_expect_eq(osc_trace_modules(&t)->nr_inst, 0);
	osc_agg_release(&a);
	osc_trace_release(&t);
}
