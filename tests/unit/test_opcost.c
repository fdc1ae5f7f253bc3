/*
 * test_opcost.c - self and device time per op instance, the bases of the
 * percentages and the run level's device busy time, on a hand-made trace
 * whose every figure is worked out below.
 *
 *   thread 0 (host)                         thread 1, 2 (device)
 *   ProfilerStep#1 [0,1000)
 *   linear [100,400)                        gemm [300,500)     corr 1 (200)
 *   └─ addmm [150,350)                      memcpy [550,650)   corr 2 (100)
 *      └─ cudaLaunchKernel [200,220) c1     stray [600,700)    no launch (100)
 *   to [500,600)
 *   └─ cudaMemcpyAsync [510,530) c2
 *   ProfilerStep#2 [1000,1100)
 *   relu [1000,1050)                        k2 [1080,1150)     corr 3 (70)
 *   └─ cudaLaunchKernel [1010,1020) c3
 *
 * self: linear 300 - 200 = 100, addmm 200, to 100, relu 50 (runtime calls
 * are not ops). device: addmm 200 (gemm), to 100 (memcpy), relu 70; linear
 * 0, its device_total 200. Run 0: host busy 400 = [100,400) + [500,600);
 * device time 400 (stray included, unattributed); device busy 350 =
 * [300,500) + [550,700); idle 650. Run 1: host busy 50, device time 70,
 * device busy 20 (k2 runs past the window's end at 1100).
 */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "opscope/analysis/aggregate.h"
#include "opscope/analysis/opcost.h"
#include "opscope/model/runs.h"
#include "tree_fixture.h"

static const struct tx_event gpu[] = {
	TX("ProfilerStep#1", RUN, 0, 0, 1000, 0, 0, NULL),
	TX("linear", HOST_OP, 0, 100, 300, 0, 0, NULL),
	TX("addmm", HOST_OP, 0, 150, 200, 0, 0, NULL),
	TX("cudaLaunchKernel", RUNTIME, 0, 200, 20, 1, 0, NULL),
	TX("to", HOST_OP, 0, 500, 100, 0, 0, NULL),
	TX("cudaMemcpyAsync", RUNTIME, 0, 510, 20, 2, 0, NULL),
	TX("gemm", KERNEL, 1, 300, 200, 1, 0, NULL),
	TX("memcpy", MEMCPY, 1, 550, 100, 2, 0, NULL),
	TX("stray", KERNEL, 2, 600, 100, 0, 0, NULL),
	TX("ProfilerStep#2", RUN, 0, 1000, 100, 0, 0, NULL),
	TX("relu", HOST_OP, 0, 1000, 50, 0, 0, NULL),
	TX("cudaLaunchKernel", RUNTIME, 0, 1010, 10, 3, 0, NULL),
	TX("k2", KERNEL, 1, 1080, 70, 3, 0, NULL),
};

/* The row named name, or NULL. */
static const struct osc_agg_row *row(const struct osc_trace *t, const struct osc_agg *a,
				     const char *name)
{
	for (size_t r = 0; r < a->nr; r++)
		if (!strcmp(osc_trace_str(t, a->rows[r].key), name))
			return &a->rows[r];
	return NULL;
}

Test(opcost, costs_per_instance)
{
	struct tx_analysis a;
	struct osc_op_cost cost[8];
	static const struct {
		const char *name;
		int64_t self, dev, dev_total;
		uint64_t kernels;
	} want[] = {
		{ "linear", 100, 0, 200, 0 }, { "addmm", 200, 200, 200, 1 },
		{ "to", 100, 100, 100, 1 },   { "relu", 50, 70, 70, 1 },
	};

	tx_analyse(&a, OSC_FORMAT_KINETO, gpu, FX_LEN(gpu));
	cr_assert_eq(a.c.nr, 4);
	osc_op_costs(&a.t, &a.c, &a.corr, cost);
	for (size_t i = 0; i < 4; i++) {
		uint32_t n = a.c.node_of[fx_find(&a.t, want[i].name)];

		cr_assert_neq(n, OSC_NONE);
		cr_expect_eq(cost[n].self, want[i].self, "%s self", want[i].name);
		cr_expect_eq(cost[n].dev, want[i].dev, "%s dev", want[i].name);
		cr_expect_eq(cost[n].dev_total, want[i].dev_total, "%s dev_total", want[i].name);
		cr_expect_eq(cost[n].kernels, want[i].kernels, "%s kernels", want[i].name);
	}
	osc_op_costs(&a.t, &a.c, NULL, cost);
	cr_expect_eq(cost[a.c.node_of[fx_find(&a.t, "addmm")]].dev, 0, "no correlation, no device");
	tx_release(&a);
}

Test(opcost, spans_union_and_window)
{
	struct tx_analysis a;
	struct osc_span *s;
	size_t n;

	tx_analyse(&a, OSC_FORMAT_KINETO, gpu, FX_LEN(gpu));
	n = osc_device_spans(&a.t, &s);
	cr_assert_eq(n, 3); /* [300,500) [550,700) [1080,1150) */
	cr_expect_eq(s[1].from, 550);
	cr_expect_eq(s[1].to, 700);
	cr_expect_eq(osc_spans_within(s, n, 0, 1000), 350);
	cr_expect_eq(osc_spans_within(s, n, 1000, 1100), 20);
	cr_expect_eq(osc_spans_within(s, n, 400, 600), 150);
	cr_expect_eq(osc_spans_within(s, n, 500, 550), 0);
	cr_expect_eq(osc_spans_within(s, n, INT64_MIN, INT64_MAX), 420);
	free(s);
	tx_release(&a);
}

/* The op level of run 0: the measures, their bases and the percentages. */
Test(opcost, op_level_measures_and_bases)
{
	struct tx_analysis a;
	struct osc_runs runs;
	struct osc_runsel sel;
	struct osc_error err;
	struct osc_query q = { .level = OSC_LEVEL_OP, .runs = &sel };
	struct osc_agg agg;
	const struct osc_agg_row *r;

	tx_analyse(&a, OSC_FORMAT_KINETO, gpu, FX_LEN(gpu));
	osc_runs_detect(&a.t, &runs);
	cr_assert_eq(osc_runsel_parse("0", runs.nr, runs.warmup, &sel, &err), OSC_OK);
	osc_aggregate(&a.t, &runs, &q, &agg);
	cr_expect_eq(agg.host_busy, 400);
	cr_expect_eq(agg.device_time, 400);
	cr_expect(agg.has_device);
	cr_assert_eq(agg.nr, 3);
	/* sorted by device time: addmm, to, linear */
	cr_expect_str_eq(osc_trace_str(&a.t, agg.rows[0].key), "addmm");
	cr_expect_str_eq(osc_trace_str(&a.t, agg.rows[2].key), "linear");
	r = row(&a.t, &agg, "linear");
	cr_expect_eq(r->total, 300);
	cr_expect_eq(r->self, 100);
	cr_expect_eq(r->dev, 0);
	cr_expect_eq(r->dev_total, 200);
	cr_expect_float_eq(osc_agg_value(&agg, 0, OSC_STAT_DEVICE_CUM_PCT), 50, 1e-9);
	cr_expect_float_eq(osc_agg_value(&agg, 2, OSC_STAT_DEVICE_CUM_PCT), 75, 1e-9, "the stray kernel is 25 %%");
	cr_expect_float_eq(osc_agg_value(&agg, 2, OSC_STAT_SELF_CUM_PCT), 100, 1e-9);
	osc_agg_release(&agg);
	osc_runsel_release(&sel);
	osc_runs_release(&runs);
	tx_release(&a);
}

/* The run level: wall, host busy, device busy within the window, idle. */
Test(opcost, run_level)
{
	struct tx_analysis a;
	struct osc_runs runs;
	struct osc_runsel sel;
	struct osc_error err;
	struct osc_query q = { .level = OSC_LEVEL_RUN, .runs = &sel };
	struct osc_agg agg;
	static const struct {
		int64_t wall, busy, dev_busy, dev;
		uint64_t ops, kernels;
	} want[] = { { 1000, 400, 350, 400, 3, 3 }, { 100, 50, 20, 70, 1, 1 } };

	tx_analyse(&a, OSC_FORMAT_KINETO, gpu, FX_LEN(gpu));
	osc_runs_detect(&a.t, &runs);
	cr_assert_eq(osc_runsel_parse("all", runs.nr, runs.warmup, &sel, &err), OSC_OK);
	osc_aggregate(&a.t, &runs, &q, &agg);
	cr_assert_eq(agg.nr, 2);
	for (size_t i = 0; i < 2; i++) {
		const struct osc_agg_row *r = &agg.rows[i];

		cr_expect_eq(r->span, want[r->run].wall);
		cr_expect_eq(r->self, want[r->run].busy);
		cr_expect_eq(r->dev_busy, want[r->run].dev_busy);
		cr_expect_eq(r->dev, want[r->run].dev);
		cr_expect_eq(r->count, want[r->run].ops);
		cr_expect_eq(r->kernels, want[r->run].kernels);
		cr_expect_float_eq(osc_agg_value(&agg, i, OSC_STAT_DEVICE_IDLE),
				   (double)(want[r->run].wall - want[r->run].dev_busy), 1e-9);
	}
	osc_agg_release(&agg);
	osc_runsel_release(&sel);
	osc_runs_release(&runs);
	tx_release(&a);
}

/* Distributions of the other measures, when asked for. */
Test(opcost, measure_distributions)
{
	struct tx_analysis a;
	struct osc_query q = { .level = OSC_LEVEL_OP,
			       .dists = 1u << OSC_MEASURE_SELF | 1u << OSC_MEASURE_DEVICE };
	struct osc_agg agg;
	size_t r;

	tx_analyse(&a, OSC_FORMAT_KINETO, gpu, FX_LEN(gpu));
	osc_aggregate(&a.t, NULL, &q, &agg);
	cr_assert_not_null(agg.dist[OSC_MEASURE_SELF]);
	cr_expect_null(agg.dist[OSC_MEASURE_DEVICE_TOTAL]);
	for (r = 0; r < agg.nr && strcmp(osc_trace_str(&a.t, agg.rows[r].key), "relu"); r++)
		;
	cr_assert_lt(r, agg.nr);
	cr_expect_float_eq(osc_agg_value(&agg, r, osc_stat_dist(OSC_MEASURE_SELF, OSC_DIST_MEAN)),
			   50, 1e-9);
	cr_expect_float_eq(osc_agg_value(&agg, r, osc_stat_dist(OSC_MEASURE_DEVICE, OSC_DIST_MAX)),
			   70, 1e-9);
	cr_expect(isnan(osc_agg_value(&agg, r,
				      osc_stat_dist(OSC_MEASURE_DEVICE_TOTAL, OSC_DIST_P50))));
	osc_agg_release(&agg);
	tx_release(&a);
}
