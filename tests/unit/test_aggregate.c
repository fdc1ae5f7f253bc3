/* test_aggregate.c - rows, statistics, sorting and truncation of aggregates. */
#define _GNU_SOURCE /* strcasestr */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "opscope/analysis/aggregate.h"
#include "opscope/analysis/columns.h"
#include "trace_fixture.h"

#define EPS 1e-9

static void aggregate(const struct osc_trace *t, enum osc_level level, struct osc_agg *a)
{
	struct osc_query q = {.level = level};

	osc_aggregate(t, NULL, &q, a);
}

/* The row keyed name; fails the test when there is none. */
static const struct osc_agg_row *row_named(const struct osc_trace *t, const struct osc_agg *a,
					   const char *name)
{
	for (size_t i = 0; i < a->nr; i++)
		if (!strcmp(osc_trace_str(t, a->rows[i].key), name))
			return &a->rows[i];
	cr_assert_fail("no row '%s'", name);
	return NULL;
}

static void expect_order(const struct osc_trace *t, const struct osc_agg *a, const char *want)
{
	char got[256] = "";

	for (size_t i = 0; i < a->nr; i++) {
		strcat(got, i ? " " : "");
		strcat(got, osc_trace_str(t, a->rows[i].key));
	}
	cr_expect_str_eq(got, want);
}

/* A row's leading percentage: self_pct at the host levels, device_pct at the device levels. */
static double row_pct(const struct osc_agg *a, const struct osc_agg_row *r)
{
	if (osc_level_is_device(a->level))
		return a->device_time ? 100.0 * (double)r->dev / (double)a->device_time : 0;
	return a->host_busy ? 100.0 * (double)r->self / (double)a->host_busy : 0;
}

/* Its cumulative form, at the row shown i-th. */
static double row_cum(const struct osc_agg *a, size_t i)
{
	return osc_agg_value(a, i, osc_level_is_device(a->level) ? OSC_STAT_DEVICE_CUM_PCT
								  : OSC_STAT_SELF_CUM_PCT);
}

/* durations 4, 1, 3, 2 (listed out of order): by hand, as numpy computes them */
Test(aggregate, stats_of_one_to_four)
{
	static const struct fx_event ev[] = {
		FX("op", HOST_OP, 30, 4), FX("op", HOST_OP, 0, 1),
		FX("op", HOST_OP, 20, 3), FX("op", HOST_OP, 10, 2),
	};
	struct osc_trace t;
	struct osc_agg a;
	const struct osc_agg_row *r;

	fx_build(&t, OSC_FORMAT_CHROME, ev, FX_LEN(ev));
	aggregate(&t, OSC_LEVEL_OP, &a);
	cr_assert_eq(a.nr, 1);
	r = &a.rows[0];
	cr_expect_eq(r->count, 4);
	cr_expect_eq(r->total, 10);
	cr_expect_eq(r->min, 1);
	cr_expect_eq(r->max, 4);
	cr_expect_float_eq(r->mean, 2.5, EPS);
	cr_expect_float_eq(r->p50, 2.5, EPS);  /* rank 1.5: 2 + 0.5 * (3 - 2) */
	cr_expect_float_eq(r->p90, 3.7, EPS);  /* rank 2.7: 3 + 0.7 * (4 - 3) */
	cr_expect_float_eq(r->p99, 3.97, EPS); /* rank 2.97 */
	cr_expect_float_eq(r->stddev, 1.2909944487358056, EPS); /* sqrt(5/3) */
	cr_expect_float_eq(row_pct(&a, r), 100, EPS);
	cr_expect_float_eq(row_cum(&a, 0), 100, EPS);
	cr_expect_eq(a.grand_total, 10);
	cr_expect_eq(a.level, OSC_LEVEL_OP);
	/* members are in ts order: durations 1, 2, 3, 4 */
	cr_assert_eq(r->nr, 4);
	for (size_t i = 0; i < 4; i++)
		cr_expect_eq(t.events[a.members[r->first + i]].dur, (int64_t)i + 1);
	osc_agg_release(&a);
	osc_trace_release(&t);
}

/*
 * 10, 20, 30, 40, 50, 1000: mean 1150 / 6; p50 rank 2.5 -> 35; p90 rank 4.5
 * -> 50 + 0.5 * 950 = 525; p99 rank 4.95 -> 50 + 0.95 * 950 = 952.5;
 * stddev sqrt(sum of squared deviations / 5) = 396.25328600109634.
 */
Test(aggregate, stats_with_an_outlier)
{
	static const struct fx_event ev[] = {
		FX("k", KERNEL, 0, 50),  FX("k", KERNEL, 1, 1000), FX("k", KERNEL, 2, 10),
		FX("k", KERNEL, 3, 40),  FX("k", KERNEL, 4, 20),   FX("k", KERNEL, 5, 30),
	};
	struct osc_trace t;
	struct osc_agg a;
	const struct osc_agg_row *r;

	fx_build(&t, OSC_FORMAT_KINETO, ev, FX_LEN(ev));
	aggregate(&t, OSC_LEVEL_KERNEL, &a);
	cr_assert_eq(a.nr, 1);
	r = &a.rows[0];
	cr_expect_float_eq(r->mean, 1150.0 / 6, EPS);
	cr_expect_float_eq(r->p50, 35, EPS);
	cr_expect_float_eq(r->p90, 525, EPS);
	cr_expect_float_eq(r->p99, 952.5, EPS);
	cr_expect_float_eq(r->stddev, 396.25328600109634, EPS);
	osc_agg_release(&a);
	osc_trace_release(&t);
}

Test(aggregate, single_event_has_zero_stddev)
{
	static const struct fx_event ev[] = {FX("op", HOST_OP, 0, 7)};
	struct osc_trace t;
	struct osc_agg a;
	const struct osc_agg_row *r;

	fx_build(&t, OSC_FORMAT_CHROME, ev, FX_LEN(ev));
	aggregate(&t, OSC_LEVEL_OP, &a);
	r = &a.rows[0];
	cr_expect_eq(r->stddev, 0);
	cr_expect_eq(r->p50, 7);
	cr_expect_eq(r->p90, 7);
	cr_expect_eq(r->p99, 7);
	cr_expect_eq(r->mean, 7);
	osc_agg_release(&a);
	osc_trace_release(&t);
}

/*
 *   event               kind     op     ts   dur   op level     kernel level
 *   model_run           RUN             0    1000  -            -
 *   Conv_fence_before   FENCE           5    1     -            -
 *   Conv_kernel_time    HOST_OP  Conv   10   30    Conv         -
 *   fused_kernel_time   HOST_OP  Conv   50   10    Conv         -
 *   Relu_kernel_time    HOST_OP  Relu   70   20    Relu         -
 *   launch              RUNTIME         80   3     -            -
 *   gemm                KERNEL          100  40    -            gemm
 *   gemm                KERNEL          200  60    -            gemm
 *   Memcpy HtoD         MEMCPY          300  100   -            -
 *   relu_k              KERNEL          400  5     -            relu_k
 *
 * op rows: Conv 2 / 40 (66.67 %), Relu 1 / 20; kernel rows: gemm 2 / 100, relu_k 1 / 5.
 */
static const struct fx_event mixed[] = {
	FX("model_run", RUN, 0, 1000),
	FX("Conv_fence_before", FENCE, 5, 1),
	FX_OP("Conv_kernel_time", HOST_OP, 10, 30, "Conv"),
	FX_OP("fused_kernel_time", HOST_OP, 50, 10, "Conv"),
	FX_OP("Relu_kernel_time", HOST_OP, 70, 20, "Relu"),
	FX("launch", RUNTIME, 80, 3),
	FX("gemm", KERNEL, 200, 60),
	FX("gemm", KERNEL, 100, 40),
	FX("Memcpy HtoD", MEMCPY, 300, 100),
	FX("relu_k", KERNEL, 400, 5),
};

Test(aggregate, op_level_groups_host_ops_by_op_key)
{
	struct osc_trace t;
	struct osc_agg a;
	const struct osc_agg_row *conv;

	fx_build(&t, OSC_FORMAT_ORT, mixed, FX_LEN(mixed));
	aggregate(&t, OSC_LEVEL_OP, &a);
	expect_order(&t, &a, "Conv Relu");
	conv = row_named(&t, &a, "Conv");
	cr_expect_eq(conv->count, 2);
	cr_expect_eq(conv->total, 40);
	cr_expect_float_eq(row_pct(&a, conv), 200.0 / 3, EPS);
	cr_expect_float_eq(row_cum(&a, 0), 200.0 / 3, EPS);
	cr_expect_float_eq(row_cum(&a, 1), 100, EPS);
	cr_expect_eq(a.grand_total, 60);
	cr_expect_eq(a.nr_members, 3);
	cr_assert_eq(conv->nr, 2);
	cr_expect_eq(a.members[conv->first], fx_find(&t, "Conv_kernel_time"));
	cr_expect_eq(a.members[conv->first + 1], fx_find(&t, "fused_kernel_time"));
	osc_agg_release(&a);
	osc_trace_release(&t);
}

Test(aggregate, kernel_level_counts_only_kernels)
{
	struct osc_trace t;
	struct osc_agg a;
	const struct osc_agg_row *gemm;

	fx_build(&t, OSC_FORMAT_ORT, mixed, FX_LEN(mixed));
	aggregate(&t, OSC_LEVEL_KERNEL, &a);
	expect_order(&t, &a, "gemm relu_k");
	gemm = row_named(&t, &a, "gemm");
	cr_expect_eq(gemm->count, 2);
	cr_expect_eq(gemm->total, 100);
	cr_expect_eq(gemm->min, 40);
	cr_expect_eq(gemm->max, 60);
	cr_expect_eq(a.grand_total, 105);
	/* of the device time: the memcpy's 100 ns count there too */
	cr_expect_float_eq(row_pct(&a, gemm), 10000.0 / 205, EPS);
	/* members by ts: the 40 ns one (ts 100) first */
	cr_expect_eq(t.events[a.members[gemm->first]].ts, 100);
	osc_agg_release(&a);
	osc_trace_release(&t);
}

/*
 * Two ORT runs; the default selection skips run 0 (warm-up):
 *
 *   model_run [0, 100)     Conv 10/5, Relu 20/7       (run 0, skipped)
 *   model_run [200, 300)   Conv 210/6, Conv 220/8, Relu 230/9, Gemm 240/50
 *   Conv 400/1000          outside every run
 *
 * default runs:               Gemm 50, Conv 14, Relu 9
 * default runs + "Conv*|Relu": Conv 14, Relu 9   (self_pct of all 73)
 * no run selection:           Conv 1019, Gemm 50, Relu 16
 */
Test(aggregate, run_selection_and_filter)
{
	static const struct fx_event ev[] = {
		FX("model_run", RUN, 0, 100),     FX("Conv", HOST_OP, 10, 5),
		FX("Relu", HOST_OP, 20, 7),       FX("model_run", RUN, 200, 100),
		FX("Conv", HOST_OP, 210, 6),      FX("Conv", HOST_OP, 220, 8),
		FX("Relu", HOST_OP, 230, 9),      FX("Gemm", HOST_OP, 240, 50),
		FX("Conv", HOST_OP, 400, 1000),
	};
	struct osc_trace t;
	struct osc_runs runs;
	struct osc_runsel sel;
	struct osc_filter f;
	struct osc_error err;
	struct osc_query q = {.level = OSC_LEVEL_OP};
	struct osc_agg a;

	fx_build(&t, OSC_FORMAT_ORT, ev, FX_LEN(ev));
	osc_runs_detect(&t, &runs);
	cr_assert_eq(osc_runsel_parse(NULL, runs.nr, runs.warmup, &sel, &err), OSC_OK);
	q.runs = &sel;
	osc_aggregate(&t, &runs, &q, &a);
	expect_order(&t, &a, "Gemm Conv Relu");
	cr_expect_eq(row_named(&t, &a, "Conv")->total, 14);
	cr_expect_eq(row_named(&t, &a, "Conv")->count, 2);
	cr_expect_eq(a.grand_total, 73);
	osc_agg_release(&a);

	osc_filter_init(&f);
	osc_filter_add_pattern(&f, "Conv*");
	osc_filter_add_pattern(&f, "Relu");
	q.filter = &f;
	osc_aggregate(&t, &runs, &q, &a);
	expect_order(&t, &a, "Conv Relu");
	cr_expect_eq(a.grand_total, 23);
	cr_expect_float_eq(row_pct(&a, &a.rows[0]), 1400.0 / 73, EPS);
	osc_agg_release(&a);

	q.filter = NULL;
	q.runs = NULL;
	osc_aggregate(&t, &runs, &q, &a);
	expect_order(&t, &a, "Conv Gemm Relu");
	cr_expect_eq(row_named(&t, &a, "Conv")->total, 1019);
	osc_agg_release(&a);

	osc_filter_release(&f);
	osc_runsel_release(&sel);
	osc_runs_release(&runs);
	osc_trace_release(&t);
}

Test(aggregate, nothing_selected_gives_no_rows)
{
	struct osc_trace t;
	struct osc_filter f;
	struct osc_query q = {.level = OSC_LEVEL_OP, .filter = &f};
	struct osc_agg a;

	fx_build(&t, OSC_FORMAT_ORT, mixed, FX_LEN(mixed));
	osc_filter_init(&f);
	osc_filter_add_pattern(&f, "no such op");
	osc_aggregate(&t, NULL, &q, &a);
	cr_expect_eq(a.nr, 0);
	cr_expect_eq(a.nr_members, 0);
	cr_expect_eq(a.grand_total, 0);
	osc_agg_release(&a);
	osc_filter_release(&f);
	osc_trace_release(&t);
}

/*
 *   key   durations    count  total  mean   max
 *   b     10           1      10     10     10
 *   a     4, 6         2      10     5      6
 *   c     1, 1, 8      3      10     3.33   8
 *   d     30           1      30     30     30
 */
/* (apart in time, so self = total and the default sort by self keeps these ties) */
static const struct fx_event ties[] = {
	FX("b", HOST_OP, 0, 10),   FX("a", HOST_OP, 100, 4), FX("a", HOST_OP, 200, 6),
	FX("c", HOST_OP, 300, 1),  FX("c", HOST_OP, 400, 1), FX("c", HOST_OP, 500, 8),
	FX("d", HOST_OP, 600, 30),
};

Test(aggregate, default_order_is_self_then_name)
{
	struct osc_trace t;
	struct osc_agg a;

	fx_build(&t, OSC_FORMAT_CHROME, ties, FX_LEN(ties));
	aggregate(&t, OSC_LEVEL_OP, &a);
	expect_order(&t, &a, "d a b c");
	cr_expect_float_eq(row_cum(&a, 0), 50, EPS);
	cr_expect_float_eq(row_cum(&a, 1), 200.0 / 3, EPS);
	cr_expect_float_eq(row_cum(&a, 3), 100, EPS);
	osc_agg_release(&a);
	osc_trace_release(&t);
}

Test(aggregate, sort_by_statistics)
{
	struct osc_trace t;
	struct osc_agg a;

	fx_build(&t, OSC_FORMAT_CHROME, ties, FX_LEN(ties));
	aggregate(&t, OSC_LEVEL_OP, &a);

	osc_agg_sort(&a, &t, OSC_STAT_COUNT, true);
	expect_order(&t, &a, "c a b d"); /* 3, 2, then 1 and 1 by name */
	/* cum_pct follows the new order: 10/60, 20/60, 30/60, 60/60 */
	cr_expect_float_eq(row_cum(&a, 0), 100.0 / 6, EPS);
	cr_expect_float_eq(row_cum(&a, 2), 50, EPS);
	cr_expect_float_eq(row_cum(&a, 3), 100, EPS);
	cr_expect_float_eq(row_pct(&a, &a.rows[0]), 100.0 / 6, EPS);

	osc_agg_sort(&a, &t, OSC_STAT_COUNT, false);
	expect_order(&t, &a, "b d a c"); /* ties still by name, ascending */

	osc_agg_sort(&a, &t, OSC_STAT_NAME, false);
	expect_order(&t, &a, "a b c d");
	osc_agg_sort(&a, &t, OSC_STAT_NAME, true);
	expect_order(&t, &a, "d c b a");

	osc_agg_sort(&a, &t, OSC_STAT_MEAN, true);
	expect_order(&t, &a, "d b a c");
	osc_agg_sort(&a, &t, OSC_STAT_MAX, false);
	expect_order(&t, &a, "a c b d");
	osc_agg_sort(&a, &t, OSC_STAT_MIN, false);
	expect_order(&t, &a, "c a b d");
	osc_agg_sort(&a, &t, OSC_STAT_STDDEV, true);
	expect_order(&t, &a, "c a b d"); /* 4.04, 1.41, then 0 and 0 by name */
	osc_agg_sort(&a, &t, OSC_STAT_P50, false);
	expect_order(&t, &a, "c a b d"); /* 1, 5, 10, 30 */
	osc_agg_sort(&a, &t, OSC_STAT_SELF_CUM_PCT, true);
	expect_order(&t, &a, "d a b c");
	osc_agg_sort(&a, &t, OSC_STAT_SELF_PCT, false);
	expect_order(&t, &a, "a b c d");

	osc_agg_release(&a);
	osc_trace_release(&t);
}

Test(aggregate, names_compare_bytewise)
{
	static const struct fx_event ev[] = {
		FX("b", HOST_OP, 0, 1), FX("B", HOST_OP, 1, 1),
		FX("\xc3\xa9", HOST_OP, 2, 1), FX("ab", HOST_OP, 3, 1), FX("a", HOST_OP, 4, 1),
	};
	struct osc_trace t;
	struct osc_agg a;

	fx_build(&t, OSC_FORMAT_CHROME, ev, FX_LEN(ev));
	aggregate(&t, OSC_LEVEL_OP, &a);
	expect_order(&t, &a, "B a ab b \xc3\xa9");
	osc_agg_release(&a);
	osc_trace_release(&t);
}

Test(aggregate, truncate_keeps_pct)
{
	struct osc_trace t;
	struct osc_agg a;

	fx_build(&t, OSC_FORMAT_CHROME, ties, FX_LEN(ties));
	aggregate(&t, OSC_LEVEL_OP, &a);
	osc_agg_truncate(&a, 0);
	cr_expect_eq(a.nr, 4, "0 keeps every row");
	osc_agg_truncate(&a, 10);
	cr_expect_eq(a.nr, 4);
	osc_agg_truncate(&a, 2);
	expect_order(&t, &a, "d a");
	cr_expect_float_eq(row_pct(&a, &a.rows[0]), 50, EPS);
	cr_expect_float_eq(row_cum(&a, 1), 200.0 / 3, EPS);
	cr_expect_eq(a.grand_total, 60);
	osc_agg_release(&a);
	osc_trace_release(&t);
}

Test(aggregate, levels)
{
	enum osc_level l;
	struct osc_error err;

	cr_expect_str_eq(osc_level_name(OSC_LEVEL_OP), "op");
	cr_expect_str_eq(osc_level_name(OSC_LEVEL_KERNEL), "kernel");
	cr_expect_eq(osc_level_parse("kernel", &l, &err), OSC_OK);
	cr_expect_eq(l, OSC_LEVEL_KERNEL);
	cr_expect_eq(osc_level_parse("op", &l, &err), OSC_OK);
	cr_expect_eq(l, OSC_LEVEL_OP);
	cr_assert_eq(osc_level_parse("foo", &l, &err), OSC_USAGE);
	cr_expect_str_eq(err.subject, "--by");
	cr_expect_str_eq(err.message, "unknown level 'foo' (valid: op, shape, kernel, dims, mapping, run, path, category, module)");
	cr_expect_eq(osc_level_parse("Op", &l, &err), OSC_USAGE);
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/* The definitions of aggregate.h, the slow obvious way: sort, then read ranks. */
static double ref_percentile(const int64_t *sorted, size_t n, double q)
{
	double rank = (double)(n - 1) * q;
	size_t lo = (size_t)floor(rank), hi = lo + 1 < n ? lo + 1 : n - 1;

	return (double)sorted[lo] + (double)(sorted[hi] - sorted[lo]) * (rank - (double)lo);
}

/* Set up t empty with one thread; returns the thread. */
static uint32_t one_thread_trace(struct osc_trace *t)
{
	osc_trace_init(t);
	return osc_trace_thread(t, fx_str(t, "1"), fx_str(t, "1"));
}

/* A kernel event at ts on thread th, to be given a name and a duration. */
static struct osc_event kernel_at(uint32_t th, int64_t ts)
{
	return (struct osc_event){ .ts = ts, .corr_id = OSC_ID_NONE, .ext = OSC_ID_NONE,
				   .thread = th,
				   .kernel = OSC_NONE, .kind = OSC_KIND_KERNEL };
}

/*
 * Thousands of events over a few keys with heavy duplication (the case where
 * selection-based percentiles go wrong), checked against sorting.
 */
Test(aggregate, matches_a_sorting_reference)
{
	enum { N = 30000, KEYS = 7 };
	static int64_t durs[KEYS][N];
	size_t nr[KEYS] = {0};
	struct osc_trace t;
	struct osc_agg a;
	uint32_t th;
	uint64_t x = 88172645463325252ull;

	th = one_thread_trace(&t);
	for (int i = 0; i < N; i++) {
		struct osc_event e = kernel_at(th, i);
		char name[8];
		int k;

		x ^= x << 13, x ^= x >> 7, x ^= x << 17; /* xorshift64 */
		k = (int)(x % KEYS);
		/* key 0: all equal; key 1: two values; others: small ranges plus rare outliers */
		e.dur = k == 0 ? 5 : k == 1 ? (int64_t)(x >> 20) % 2 :
				     (int64_t)((x >> 20) % (uint64_t)(k * 10)) +
					     ((x >> 40) % 100 == 0 ? 1000000 : 0);
		snprintf(name, sizeof(name), "k%d", k);
		e.name = fx_str(&t, name);
		osc_trace_add_event(&t, &e, NULL, NULL, 0);
		durs[k][nr[k]++] = e.dur;
	}
	osc_trace_sort(&t);
	aggregate(&t, OSC_LEVEL_KERNEL, &a);
	cr_assert_eq(a.nr, KEYS);
	for (int k = 0; k < KEYS; k++) {
		char name[16];
		const struct osc_agg_row *r;
		int64_t total = 0;
		double mean, sq = 0;

		snprintf(name, sizeof(name), "k%d", k);
		r = row_named(&t, &a, name);
		qsort(durs[k], nr[k], sizeof(int64_t), cmp_i64);
		for (size_t i = 0; i < nr[k]; i++)
			total += durs[k][i];
		mean = (double)total / (double)nr[k];
		for (size_t i = 0; i < nr[k]; i++)
			sq += ((double)durs[k][i] - mean) * ((double)durs[k][i] - mean);
		cr_expect_eq(r->count, nr[k]);
		cr_expect_eq(r->total, total);
		cr_expect_eq(r->min, durs[k][0]);
		cr_expect_eq(r->max, durs[k][nr[k] - 1]);
		cr_expect_eq(r->p50, ref_percentile(durs[k], nr[k], 0.50), "%s p50", name);
		cr_expect_eq(r->p90, ref_percentile(durs[k], nr[k], 0.90), "%s p90", name);
		cr_expect_eq(r->p99, ref_percentile(durs[k], nr[k], 0.99), "%s p99", name);
		cr_expect_float_eq(r->stddev, sqrt(sq / (double)(nr[k] - 1)),
				   1e-9 * (1 + r->stddev), "%s stddev", name);
		for (size_t i = 1; i < r->nr; i++)
			cr_expect_lt(a.members[r->first + i - 1], a.members[r->first + i]);
	}
	osc_agg_release(&a);
	osc_trace_release(&t);
}

/* Names by memcmp, a prefix first: the order aggregate.h promises. */
static int ref_names(const struct osc_trace *t, osc_str a, osc_str b)
{
	size_t la = osc_strtab_len(&t->strs, a), lb = osc_strtab_len(&t->strs, b);
	int c = memcmp(osc_trace_str(t, a), osc_trace_str(t, b), la < lb ? la : lb);

	return c ? c : (la > lb) - (la < lb);
}

/*
 * Assert that a is in order by s (reversed when descending), ties by name
 * ascending, and that its cumulative percentages add up its rows' in that
 * order.
 */
static void check_order(const struct osc_trace *t, const struct osc_agg *a, enum osc_stat s,
			bool desc)
{
	double cum = 0;

	for (size_t i = 0; i < a->nr; i++) {
		const struct osc_agg_row *r = osc_agg_row_at(a, i);

		cum = fmin(100, cum + row_pct(a, r));
		cr_assert_float_eq(row_cum(a, i), cum, 1e-9, "cum at %zu", i);
		if (i) {
			const struct osc_agg_row *q = osc_agg_row_at(a, i - 1);
			double u = osc_agg_value(a, i - 1, s), v = osc_agg_value(a, i, s);
			int c = s == OSC_STAT_NAME ? ref_names(t, q->key, r->key)
						  : (u > v) - (u < v);

			c = desc ? -c : c;
			cr_assert(c < 0 || (c == 0 && ref_names(t, q->key, r->key) < 0),
				  "stat %d %s: rows %zu and %zu out of order", (int)s,
				  desc ? "desc" : "asc", i - 1, i);
		}
	}
}

/*
 * Order a by each of the nr statistics by[], each way (descending first when
 * desc_first), and check_order every order.
 */
static void order_each_way(const struct osc_trace *t, struct osc_agg *a, const enum osc_stat *by,
			   size_t nr, bool desc_first)
{
	for (size_t b = 0; b < 2 * nr; b++) {
		bool desc = (b % 2 == 1) != desc_first;

		osc_agg_order(a, t, by[b / 2], desc);
		check_order(t, a, by[b / 2], desc);
	}
}

/*
 * A trace of n kernels on one thread, named from `names` names (k is
 * xorshift-random): names share 8 and more bytes, hold NUL bytes and bytes
 * past 127, and one is "unknown"; durations -2 .. 3 (many ties, means
 * below 0) unless wide, then 0 .. 2^40.
 */
static void random_kernels(struct osc_trace *t, int n, int names, bool wide)
{
	uint32_t th = one_thread_trace(t);
	uint64_t x = 88172645463325252ull;

	for (int i = 0; i < n; i++) {
		struct osc_event e = kernel_at(th, i);
		char name[64];
		int len, k;

		x ^= x << 13, x ^= x >> 7, x ^= x << 17; /* xorshift64 */
		k = (int)(x % (uint64_t)names);
		len = k == 0 ? snprintf(name, sizeof(name), "unknown")
			     : snprintf(name, sizeof(name), "%s%d", k % 3 ? "void at::native::k" :
					"\xc3\xa9l", k / 7);
		if (k % 5 == 0)
			name[len++] = '\0', name[len++] = (char)('a' + k % 4); /* a NUL inside */
		e.dur = wide ? (int64_t)(x >> 24) : (int64_t)((x >> 20) % 6) - 2;
		e.name = osc_trace_intern(t, name, (size_t)len);
		osc_trace_add_event(t, &e, NULL, NULL, 0);
	}
	osc_trace_sort(t);
}

/*
 * osc_agg_order on 5000 kernel rows (random_kernels), against a comparison
 * written from aggregate.h (check_order). An order by what it is already by
 * is kept (the same statistic and direction only), osc_agg_sort moves the
 * rows into it, and the rows moved order again.
 */
Test(aggregate, order_matches_a_comparison_reference)
{
	static const enum osc_stat by[] = { OSC_STAT_NAME, OSC_STAT_COUNT, OSC_STAT_TOTAL,
					    OSC_STAT_MEAN, OSC_STAT_MIN, OSC_STAT_P99,
					    OSC_STAT_DEVICE_PCT };
	struct osc_trace t;
	struct osc_agg a;

	random_kernels(&t, 20000, 5000, false);
	aggregate(&t, OSC_LEVEL_KERNEL, &a);
	cr_assert_gt(a.nr, 1000);
	order_each_way(&t, &a, by, sizeof(by) / sizeof(by[0]), false);
	osc_agg_order(&a, &t, OSC_STAT_NAME, true); /* another statistic, the same direction */
	for (size_t i = 1; i < a.nr; i++)
		cr_assert_gt(ref_names(&t, osc_agg_row_at(&a, i - 1)->key,
				       osc_agg_row_at(&a, i)->key), 0, "by name desc at %zu", i);
	osc_agg_order(&a, &t, OSC_STAT_DEVICE_PCT, true);
	{
		osc_str *shown = malloc(a.nr * sizeof(*shown));
		const uint32_t *order = a.order;

		osc_agg_order(&a, &t, OSC_STAT_DEVICE_PCT, true); /* the order it has: kept */
		cr_assert_eq(a.order, order, "an order by what it is by was made again");
		for (size_t i = 0; i < a.nr; i++)
			shown[i] = osc_agg_row_at(&a, i)->key;
		osc_agg_sort(&a, &t, OSC_STAT_DEVICE_PCT, true);
		cr_assert_null(a.order);
		for (size_t i = 0; i < a.nr; i++)
			cr_assert_eq(a.rows[i].key, shown[i], "row %zu moved elsewhere", i);
		free(shown);
	}
	order_each_way(&t, &a, by, sizeof(by) / sizeof(by[0]), true); /* the rows moved */
	osc_agg_release(&a);
	osc_trace_release(&t);
}

/*
 * An order by a statistic of the same integer as the order the rows are in
 * (device_pct after device: kept, osc_agg_order's shortcut) is the order
 * made anew, its cumulative percentages too; by the other direction, or by
 * another integer, it is made again. On random_kernels' many ties.
 */
Test(aggregate, order_by_the_same_integer_is_the_order_made_anew)
{
	static const enum osc_stat pairs[][2] = {
		{ OSC_STAT_DEVICE, OSC_STAT_DEVICE_PCT },
		{ OSC_STAT_DEVICE_PCT, OSC_STAT_DEVICE_CUM_PCT },
		{ OSC_STAT_SELF, OSC_STAT_SELF_CUM_PCT },
		{ OSC_STAT_COUNT, OSC_STAT_COUNT_PER_RUN },
		{ OSC_STAT_TOTAL, OSC_STAT_TOTAL_PER_RUN },
	};
	static const enum osc_stat others[] = { OSC_STAT_MIN, OSC_STAT_MAX, OSC_STAT_TOTAL,
						OSC_STAT_DEVICE_TOTAL };
	struct osc_trace t;

	random_kernels(&t, 20000, 5000, false);
	for (size_t p = 0; p < sizeof(pairs) / sizeof(pairs[0]); p++) {
		for (int way = 0; way < 4; way++) {
			bool desc = way & 1, first_desc = way & 2 ? !desc : desc;
			struct osc_agg a, b;

			aggregate(&t, OSC_LEVEL_KERNEL, &a);
			aggregate(&t, OSC_LEVEL_KERNEL, &b);
			osc_agg_order(&a, &t, pairs[p][0], first_desc);
			osc_agg_order(&a, &t, pairs[p][1], desc);
			osc_agg_order(&b, &t, OSC_STAT_NAME, !desc); /* another order before */
			osc_agg_order(&b, &t, pairs[p][1], desc);
			cr_assert(osc_agg_ordered_by(&a, pairs[p][1], desc));
			check_order(&t, &a, pairs[p][0], desc); /* the first of each pair is no sum */
			for (size_t i = 0; i < a.nr; i++) {
				cr_assert_eq(osc_agg_row_at(&a, i)->key, osc_agg_row_at(&b, i)->key,
					     "pair %zu way %d: row %zu", p, way, i);
				cr_assert_eq(row_cum(&a, i), row_cum(&b, i), "pair %zu way %d: cum %zu",
					     p, way, i);
			}
			for (size_t o = 0; o < sizeof(others) / sizeof(others[0]); o++) {
				osc_agg_order(&a, &t, others[o], desc); /* other integers: made */
				check_order(&t, &a, others[o], desc);
			}
			osc_agg_release(&a);
			osc_agg_release(&b);
		}
	}
	osc_trace_release(&t);
}

/*
 * The same on 200,000 rows of durations up to 2^40, which a sort reads on
 * more than one thread where there are cores (aggregate_sort.c's
 * FILL_PART), and in several digits, each way.
 */
Test(aggregate, order_of_many_rows_matches_the_reference)
{
	static const enum osc_stat by[] = { OSC_STAT_TOTAL, OSC_STAT_NAME, OSC_STAT_DEVICE_PCT };
	struct osc_trace t;
	struct osc_agg a;

	random_kernels(&t, 250000, 1400000, true);
	aggregate(&t, OSC_LEVEL_KERNEL, &a);
	cr_assert_gt(a.nr, 150000);
	order_each_way(&t, &a, by, sizeof(by) / sizeof(by[0]), false);
	osc_agg_release(&a);
	osc_trace_release(&t);
}

/*
 * Durations already in order (the usual shape of a warm-up-free row) once
 * made fixed-place pivots quadratic: 0 .. 100000 ascending, then descending,
 * have p50 50000, p90 90000, p99 99000 exactly.
 */
Test(aggregate, sorted_durations)
{
	enum { N = 100001 };

	for (int desc = 0; desc < 2; desc++) {
		struct osc_trace t;
		struct osc_agg a;
		uint32_t th;

		osc_trace_init(&t);
		th = osc_trace_thread(&t, fx_str(&t, "1"), fx_str(&t, "1"));
		for (int i = 0; i < N; i++) {
			struct osc_event e = {.ts = i, .dur = desc ? N - 1 - i : i,
					      .corr_id = OSC_ID_NONE, .ext = OSC_ID_NONE,
					      .thread = th,
					      .kernel = OSC_NONE, .kind = OSC_KIND_HOST_OP};

			e.name = fx_str(&t, "op");
			osc_trace_add_event(&t, &e, NULL, NULL, 0);
		}
		aggregate(&t, OSC_LEVEL_OP, &a);
		cr_assert_eq(a.nr, 1);
		cr_expect_eq(a.rows[0].p50, 50000);
		cr_expect_eq(a.rows[0].p90, 90000);
		cr_expect_eq(a.rows[0].p99, 99000);
		cr_expect_eq(a.rows[0].min, 0);
		cr_expect_eq(a.rows[0].max, N - 1);
		osc_agg_release(&a);
		osc_trace_release(&t);
	}
}

/* ---- real traces ---- */

/*
 * Invariants of any aggregate, recomputed from the members: each member has
 * the row's level kind and key, counts and totals add up, rows are sorted by
 * the level's default statistic, the percentages add up to at most 100 (to
 * exactly 100 for unfiltered ops: their self times are the host busy time)
 * and the cumulative one ends there.
 */
static void check_agg(const struct osc_trace *t, const struct osc_agg *a, bool has_filter)
{
	enum osc_stat by = osc_agg_default_sort(a);
	int64_t grand = 0;
	double pct = 0;
	uint8_t kind = a->level == OSC_LEVEL_OP ? OSC_KIND_HOST_OP : OSC_KIND_KERNEL;

	for (size_t r = 0; r < a->nr; r++) {
		const struct osc_agg_row *row = &a->rows[r];
		int64_t total = 0;

		cr_assert_eq(row->count, row->nr);
		for (size_t i = row->first; i < row->first + row->nr; i++) {
			const struct osc_event *e = &t->events[a->members[i]];

			cr_assert_eq(e->kind, kind);
			cr_assert_eq(a->level == OSC_LEVEL_OP ? osc_trace_op(t, a->members[i]) : e->name,
				     row->key);
			total += e->dur;
		}
		cr_assert_eq(row->total, total);
		if (r)
			cr_assert_geq(osc_agg_value(a, r - 1, by), osc_agg_value(a, r, by),
				      "row %zu out of order", r);
		grand += total;
		pct += row_pct(a, row);
	}
	cr_expect_eq(a->grand_total, grand);
	cr_expect_leq(pct, 100 + 1e-6);
	if (a->nr)
		cr_expect_float_eq(row_cum(a, a->nr - 1), pct, 1e-6);
	if (a->nr && a->level == OSC_LEVEL_OP && !has_filter)
		cr_expect_float_eq(pct, 100, 1e-6, "self times add up to the host busy time");
}

/* Without a run selection every host op counts, warm-up and all. */
Test(aggregate, real_ort_every_node_once)
{
	struct osc_trace t;
	struct osc_agg a;
	size_t ops = 0;

	fx_load(&t, "samples/ort-resnet18-opt.json");
	aggregate(&t, OSC_LEVEL_OP, &a);
	for (size_t i = 0; i < t.nr_events; i++)
		ops += t.events[i].kind == OSC_KIND_HOST_OP;
	cr_expect_gt(ops, 0);
	cr_expect_eq(a.nr_members, ops);
	check_agg(&t, &a, false);
	cr_expect_str_eq(osc_trace_str(&t, a.rows[0].key), "Conv");
	osc_agg_release(&a);
	osc_trace_release(&t);
}

/*
 * a->top, the bars' scale, is the largest value of the default sort column
 * over every row (read here from each row in turn, in no order), at every
 * level, rows in place or moved; unordered rows have none.
 */
Test(aggregate, top_is_the_largest_value_of_the_default_column)
{
	struct osc_trace t;

	fx_load(&t, "samples/kineto-sampled-rank0.json.gz");
	for (int l = 0; l < OSC_LEVEL_COUNT; l++)
		for (int how = 0; how < 3; how++) {
			struct osc_query q = { .level = (enum osc_level)l, .in_place = how == 1,
					       .unordered = how == 2 };
			struct osc_agg a;
			double want = 0;

			osc_aggregate(&t, NULL, &q, &a);
			for (size_t r = 0; r < a.nr; r++) {
				struct osc_agg_row *row = &a.rows[r];
				enum osc_stat s = osc_agg_default_sort(&a);
				double v = s == OSC_STAT_SELF	  ? (double)row->self
					   : s == OSC_STAT_DEVICE ? (double)row->dev
					   : s == OSC_STAT_WALL	  ? (double)row->span
								  : (double)row->total;

				cr_assert(s == OSC_STAT_SELF || s == OSC_STAT_DEVICE ||
					  s == OSC_STAT_WALL || s == OSC_STAT_TOTAL);
				want = fmax(want, v);
			}
			cr_expect(a.nr || l == OSC_LEVEL_MODULE, "level %d", l); /* no modules here */
			cr_expect_eq(a.top, how == 2 ? 0 : want, "level %d, %d: top %g, largest %g", l,
				     how, a.top, want);
			osc_agg_release(&a);
		}
	osc_trace_release(&t);
}

/* Default runs skip the ORT warm-up: exactly the nodes of runs 1-10 are members. */
Test(aggregate, real_ort_default_runs)
{
	struct osc_trace t;
	struct osc_runs runs;
	struct osc_runsel sel;
	struct osc_error err;
	struct osc_query q = {.level = OSC_LEVEL_OP, .runs = &sel};
	struct osc_agg a;
	size_t want = 0;

	fx_load(&t, "samples/ort-resnet18-opt.json");
	osc_runs_detect(&t, &runs);
	cr_assert_eq(osc_runsel_parse(NULL, runs.nr, runs.warmup, &sel, &err), OSC_OK);
	osc_aggregate(&t, &runs, &q, &a);
	for (size_t i = 0; i < t.nr_events; i++)
		want += t.events[i].kind == OSC_KIND_HOST_OP && runs.run_of[i] != OSC_NONE &&
			runs.run_of[i] != 0;
	cr_expect_eq(a.nr_members, want);
	check_agg(&t, &a, false);
	osc_agg_release(&a);
	osc_runsel_release(&sel);
	osc_runs_release(&runs);
	osc_trace_release(&t);
}

Test(aggregate, real_kineto_kernels_with_regex)
{
	struct osc_trace t;
	struct osc_filter f;
	struct osc_error err;
	struct osc_query q = {.level = OSC_LEVEL_KERNEL, .filter = &f};
	struct osc_agg a;

	fx_load(&t, "samples/kineto-sampled-rank0.json.gz");
	osc_filter_init(&f);
	cr_assert_eq(osc_filter_set_regex(&f, "(?i)gemm", &err), OSC_OK);
	osc_aggregate(&t, NULL, &q, &a);
	cr_expect_gt(a.nr, 0);
	check_agg(&t, &a, true);
	for (size_t r = 0; r < a.nr; r++)
		cr_expect(strcasestr(osc_trace_str(&t, a.rows[r].key), "gemm"), "%s",
			  osc_trace_str(&t, a.rows[r].key));
	osc_agg_release(&a);
	osc_filter_release(&f);
	osc_trace_release(&t);
}

/*
 * A row found again (osc_agg_row_same) in an aggregate of the same level,
 * with or without the category and module figures (op level), or with its
 * shapes (shape level): each row matches the one row of the same key (and
 * shape) in the other, and none of another.
 */
Test(aggregate, the_same_row_whatever_the_figures)
{
	static const enum osc_level levels[] = { OSC_LEVEL_OP, OSC_LEVEL_SHAPE };
	struct osc_trace t;
	size_t others = 0;

	fx_load(&t, "samples/kineto-sampled-rank0.json.gz");
	for (size_t k = 0; k < sizeof(levels) / sizeof(levels[0]); k++) {
		struct osc_query with = { .level = levels[k], .category = true, .module = true };
		struct osc_query bare = { .level = levels[k], .reads = OSC_READS_MEMBERS };
		struct osc_agg a, b;

		osc_aggregate(&t, NULL, &with, &a);
		osc_aggregate(&t, NULL, &bare, &b);
		cr_assert_eq(a.nr, b.nr);
		for (size_t i = 0; i < a.nr; i++) {
			size_t found = 0;

			for (size_t j = 0; j < b.nr; j++) {
				bool same = osc_agg_row_same(&b, &b.rows[j], &a.rows[i], NULL);

				found += same;
				cr_assert_eq(same, b.rows[j].key == a.rows[i].key &&
						       b.rows[j].shape == a.rows[i].shape);
				others += b.rows[j].key == a.rows[i].key && !same;
			}
			cr_assert_eq(found, 1, "%s", osc_trace_str(&t, a.rows[i].key));
		}
		osc_agg_release(&a);
		osc_agg_release(&b);
	}
	cr_expect_gt(others, 0, "some op has rows of several shapes");
	osc_trace_release(&t);
}

/* From ../shared/traces: 11,715 ORT nodes, statistics checked against sorting. */
Test(aggregate, real_shared_ort_bert_matches_sorting)
{
	struct osc_trace t;
	struct osc_agg a;
	int64_t *v;

	fx_load(&t, "../shared/traces/generated/ort-bert-mini-dyn-noopt.json.gz");
	aggregate(&t, OSC_LEVEL_OP, &a);
	check_agg(&t, &a, false);
	v = malloc((a.nr_members ? a.nr_members : 1) * sizeof(*v));
	for (size_t r = 0; r < a.nr; r++) {
		const struct osc_agg_row *row = &a.rows[r];

		for (size_t i = 0; i < row->nr; i++)
			v[i] = t.events[a.members[row->first + i]].dur;
		qsort(v, row->nr, sizeof(*v), cmp_i64);
		cr_expect_eq(row->min, v[0]);
		cr_expect_eq(row->max, v[row->nr - 1]);
		cr_expect_eq(row->p50, ref_percentile(v, row->nr, 0.50));
		cr_expect_eq(row->p90, ref_percentile(v, row->nr, 0.90));
		cr_expect_eq(row->p99, ref_percentile(v, row->nr, 0.99));
	}
	free(v);
	osc_agg_release(&a);
	osc_trace_release(&t);
}

/*
 * Shape level: the op "Conv" with two input shapes makes two rows.
 *   Conv a(1x3) 10, Conv b(1x8) 30, Conv a(1x3) 20, Relu 5
 */
Test(aggregate, shape_level)
{
	static const struct fx_event ev[] = {
		FX("c1", HOST_OP, 0, 10), FX("c2", HOST_OP, 10, 30), FX("c3", HOST_OP, 40, 20),
		FX("relu", HOST_OP, 60, 5),
	};
	struct osc_trace t;
	struct osc_agg a;
	struct osc_query q = {.level = OSC_LEVEL_SHAPE};
	osc_str conv, sa, sb;

	fx_build(&t, OSC_FORMAT_CHROME, ev, FX_LEN(ev));
	conv = fx_str(&t, "Conv");
	sa = fx_str(&t, "float(1x3)");
	sb = fx_str(&t, "float(1x8)");
	if (!t.extras)
		osc_trace_start_extras(&t);
	t.extras[fx_find(&t, "c1")].op = conv;
	t.extras[fx_find(&t, "c2")].op = conv;
	t.extras[fx_find(&t, "c3")].op = conv;
	t.events[fx_find(&t, "c1")].shape = sa;
	t.events[fx_find(&t, "c2")].shape = sb;
	t.events[fx_find(&t, "c3")].shape = sa;
	osc_aggregate(&t, NULL, &q, &a);
	cr_assert_eq(a.nr, 3);
	/* totals 30 (Conv b), 30 (Conv a): ties by name, then shape text */
	cr_expect_eq(a.rows[0].key, conv);
	cr_expect_eq(a.rows[0].shape, sa);
	cr_expect_eq(a.rows[0].count, 2);
	cr_expect_eq(a.rows[0].total, 30);
	cr_expect_eq(a.rows[1].shape, sb);
	cr_expect_eq(a.rows[1].count, 1);
	cr_expect_eq(a.rows[2].total, 5);
	cr_expect_eq(a.nr_runs, 1);
	osc_agg_release(&a);
	q.level = OSC_LEVEL_OP;
	osc_aggregate(&t, NULL, &q, &a);
	cr_expect_eq(a.nr, 2); /* the op level merges the shapes */
	osc_agg_release(&a);
	osc_trace_release(&t);
}

/* Dims level: the same kernel with two grids makes two rows; no facts is -1. */
Test(aggregate, dims_level)
{
	static const struct fx_event ev[] = {
		FX("k", KERNEL, 0, 4), FX("k", KERNEL, 10, 6), FX("k", KERNEL, 20, 1),
	};
	struct osc_trace t;
	struct osc_agg a;
	struct osc_query q = {.level = OSC_LEVEL_DIMS};
	struct osc_kernel k1 = {.grid = {196, 1, 1}, .block = {128, 1, 1}};
	struct osc_kernel k2 = {.grid = {49, 1, 1}, .block = {128, 1, 1}};
	char buf[64];

	fx_build(&t, OSC_FORMAT_KINETO, ev, FX_LEN(ev));
	t.events[0].kernel = osc_trace_add_kernel(&t, &k1);
	t.events[1].kernel = osc_trace_add_kernel(&t, &k2);
	t.events[2].kernel = osc_trace_add_kernel(&t, &k2);
	osc_aggregate(&t, NULL, &q, &a);
	cr_assert_eq(a.nr, 2);
	cr_expect_eq(a.rows[0].total, 7);
	osc_format_dims(a.rows[0].dims, buf, sizeof(buf));
	cr_expect_str_eq(buf, "b128x1x1,g49x1x1");
	osc_format_dims(a.rows[1].dims, buf, sizeof(buf));
	cr_expect_str_eq(buf, "b128x1x1,g196x1x1");
	osc_agg_release(&a);
	osc_trace_release(&t);
}

/*
 * Mapping level with a given launcher table:
 *   op A (2 instances) launches k1 (3+5) and k2 (2); op B launches k1 (10);
 *   a kernel with no launcher is left out.
 * op_count A = 2, op_total A = 10, op_total B = 10, grand total 20.
 */
Test(aggregate, mapping_level)
{
	static const struct fx_event ev[] = {
		FX("A", HOST_OP, 0, 20), FX("k1", KERNEL, 1, 3), FX("k2", KERNEL, 5, 2),
		FX("A", HOST_OP, 30, 20), FX("k1", KERNEL, 31, 5),
		FX("B", HOST_OP, 60, 20), FX("k1", KERNEL, 61, 10),
		FX("k3", KERNEL, 90, 7),
	};
	struct osc_trace t;
	struct osc_agg a;
	uint32_t launcher[FX_LEN(ev)];
	struct osc_query q = {.level = OSC_LEVEL_MAPPING, .launcher = launcher};
	uint32_t op = OSC_NONE;

	fx_build(&t, OSC_FORMAT_KINETO, ev, FX_LEN(ev));
	for (size_t i = 0; i < t.nr_events; i++) { /* each kernel: the op before it */
		launcher[i] = OSC_NONE;
		if (t.events[i].kind == OSC_KIND_HOST_OP)
			op = (uint32_t)i;
		else if (t.events[i].ts < 90)
			launcher[i] = op;
	}
	osc_aggregate(&t, NULL, &q, &a);
	cr_assert_eq(a.nr, 3);
	cr_expect_eq(a.grand_total, 20);
	for (size_t r = 0; r < a.nr; r++) {
		const char *opn = osc_trace_str(&t, a.rows[r].op);
		const char *kn = osc_trace_str(&t, a.rows[r].key);

		if (!strcmp(opn, "A")) {
			cr_expect_eq(a.rows[r].op_count, 2);
			cr_expect_eq(a.rows[r].op_total, 10);
			cr_expect_eq(a.rows[r].total, !strcmp(kn, "k1") ? 8 : 2);
		} else {
			cr_expect_str_eq(opn, "B");
			cr_expect_eq(a.rows[r].op_count, 1);
			cr_expect_eq(a.rows[r].op_total, 10);
		}
		cr_expect_float_eq(osc_agg_value(&a, r, OSC_STAT_OP_PCT), 50.0, EPS);
	}
	cr_expect_float_eq(osc_agg_value(&a, 0, OSC_STAT_KERNEL_PCT),
			   100.0 * (double)a.rows[0].total / (double)a.rows[0].op_total, EPS);
	osc_agg_release(&a);
	osc_trace_release(&t);
}

/* Run level: one row per run, with the run's wall time; per-run divisor. */
Test(aggregate, run_level)
{
	static const struct fx_event ev[] = {
		FX("ProfilerStep#1", RUN, 0, 100), FX("op", HOST_OP, 10, 5),
		FX("op", HOST_OP, 20, 7), FX("ProfilerStep#2", RUN, 200, 50),
		FX("op", HOST_OP, 210, 4),
	};
	struct osc_trace t;
	struct osc_runs runs;
	struct osc_runsel sel;
	struct osc_agg a;
	struct osc_error err;
	struct osc_query q = {.level = OSC_LEVEL_RUN, .runs = &sel};

	fx_build(&t, OSC_FORMAT_KINETO, ev, FX_LEN(ev));
	osc_runs_detect(&t, &runs);
	cr_assert_eq(osc_runsel_parse("all", runs.nr, false, &sel, &err), OSC_OK);
	osc_aggregate(&t, &runs, &q, &a);
	cr_assert_eq(a.nr, 2);
	cr_expect_eq(a.nr_runs, 2);
	cr_expect_eq(a.rows[0].run, 0);
	cr_expect_eq(a.rows[0].total, 12);
	cr_expect_eq(a.rows[0].span, 100);
	cr_expect_eq(a.rows[1].run, 1);
	cr_expect_eq(a.rows[1].span, 50);
	cr_expect_str_eq(osc_trace_str(&t, a.rows[1].key), "ProfilerStep#2");
	osc_agg_release(&a);
	osc_runsel_release(&sel);
	osc_runs_release(&runs);
	osc_trace_release(&t);
}

/*
 * Per-run values divide by the selected runs that hold an event of the
 * level's kind (issue 16): an empty trailing ProfilerStep does not halve
 * them; at the kernel level the runs holding kernels count.
 *   ProfilerStep#1 [0,100):   op x2, kernel k
 *   ProfilerStep#2 [200,250): op
 *   ProfilerStep#3 [300,310): nothing
 */
Test(aggregate, per_run_divisor_counts_runs_with_events)
{
	static const struct fx_event ev[] = {
		FX("ProfilerStep#1", RUN, 0, 100),  FX("op", HOST_OP, 10, 5),
		FX("op", HOST_OP, 20, 7),           FX("k", KERNEL, 30, 9),
		FX("ProfilerStep#2", RUN, 200, 50), FX("op", HOST_OP, 210, 4),
		FX("ProfilerStep#3", RUN, 300, 10),
	};
	struct osc_trace t;
	struct osc_runs runs;
	struct osc_runsel sel;
	struct osc_agg a;
	struct osc_error err;
	struct osc_query q = {.level = OSC_LEVEL_OP, .runs = &sel};
	struct osc_filter f;

	fx_build(&t, OSC_FORMAT_KINETO, ev, FX_LEN(ev));
	osc_runs_detect(&t, &runs);
	cr_assert_eq(runs.nr, 3);
	cr_assert_eq(osc_runsel_parse("all", runs.nr, false, &sel, &err), OSC_OK);
	osc_aggregate(&t, &runs, &q, &a);
	cr_expect_eq(a.nr_runs, 2);
	cr_assert_eq(a.nr, 1);
	cr_expect_float_eq(osc_agg_value(&a, 0, OSC_STAT_COUNT_PER_RUN), 1.5, 1e-12);
	osc_agg_release(&a);
	q.level = OSC_LEVEL_KERNEL;
	osc_aggregate(&t, &runs, &q, &a);
	cr_expect_eq(a.nr_runs, 1);
	osc_agg_release(&a);
	/* a filter leaves the divisor: the runs still hold ops */
	osc_filter_init(&f);
	osc_filter_add_pattern(&f, "no-such-op");
	q.level = OSC_LEVEL_OP;
	q.filter = &f;
	osc_aggregate(&t, &runs, &q, &a);
	cr_expect_eq(a.nr_runs, 2);
	cr_expect_eq(a.nr, 0);
	osc_agg_release(&a);
	osc_filter_release(&f);
	q.filter = NULL;
	/* only the empty run */
	osc_runsel_release(&sel);
	cr_assert_eq(osc_runsel_parse("[2]", runs.nr, false, &sel, &err), OSC_OK);
	osc_aggregate(&t, &runs, &q, &a);
	cr_expect_eq(a.nr_runs, 1); /* nothing at all: at least 1 */
	cr_expect_eq(a.nr, 0);
	osc_agg_release(&a);
	osc_runsel_release(&sel);
	osc_runs_release(&runs);
	osc_trace_release(&t);
}

/*
 * Path level: one row per merged call path, named as `opscope tree`'s CSV.
 *   a [0,100)  { b [10,30), c [40,50) }   a      2 instances, 150
 *   a [100,150) { b [110,120) }           a$$b   2, 30
 *   b [200,205)                           a$$c   1, 10
 *                                         b      1, 5 (its own row)
 */
Test(aggregate, path_level)
{
	static const struct fx_event ev[] = {
		FX("a", HOST_OP, 0, 100),  FX("b", HOST_OP, 10, 20),  FX("c", HOST_OP, 40, 10),
		FX("a", HOST_OP, 100, 50), FX("b", HOST_OP, 110, 10), FX("b", HOST_OP, 200, 5),
	};
	struct osc_trace t;
	struct osc_agg a;
	struct osc_filter f;
	struct osc_query q = {.level = OSC_LEVEL_PATH, .filter = &f};
	const char *want[] = { "a", "a$$b", "a$$c", "b" };
	const int64_t total[] = { 150, 30, 10, 5 };
	char buf[64];

	fx_build(&t, OSC_FORMAT_CHROME, ev, FX_LEN(ev));
	osc_filter_init(&f);
	osc_aggregate(&t, NULL, &q, &a);
	cr_assert_eq(a.nr, 4);
	for (size_t r = 0; r < 4; r++) {
		cr_expect_str_eq(osc_agg_cell(&t, &a, r, 0, buf, sizeof(buf)), want[r]);
		cr_expect_eq(a.rows[r].total, total[r]);
	}
	cr_expect_str_eq(osc_trace_str(&t, a.rows[1].key), "b"); /* the leaf */
	cr_expect_eq(a.rows[1].count, 2);
	cr_expect_eq(a.rows[1].nr, 2);
	cr_expect_eq(t.events[a.members[a.rows[1].first]].ts, 10);
	/* by name: the paths' bytes ("a$$b" before "a$$c" before "b") */
	osc_agg_sort(&a, &t, OSC_STAT_NAME, false);
	cr_expect_str_eq(osc_agg_cell(&t, &a, 3, 0, buf, sizeof(buf)), "b");
	cr_expect_str_eq(osc_agg_cell(&t, &a, 1, 0, buf, sizeof(buf)), "a$$b");
	osc_agg_release(&a);
	/* the filter keeps the instances it matches: every path ending in b */
	osc_filter_add_pattern(&f, "b");
	osc_aggregate(&t, NULL, &q, &a);
	cr_assert_eq(a.nr, 2);
	cr_expect_str_eq(osc_agg_cell(&t, &a, 0, 0, buf, sizeof(buf)), "a$$b");
	cr_expect_str_eq(osc_agg_cell(&t, &a, 1, 0, buf, sizeof(buf)), "b");
	/* of the host busy time, unfiltered: [0,150) and [200,205) */
	cr_expect_float_eq(row_pct(&a, &a.rows[0]), 100.0 * 30 / 155, EPS);
	osc_agg_release(&a);
	osc_filter_release(&f);
	osc_trace_release(&t);
}

/* osc_query.only keeps the other events out of the rows (the TUI's K table). */
Test(aggregate, only_mask)
{
	static const struct fx_event ev[] = {
		FX("k1", KERNEL, 0, 10), FX("k2", KERNEL, 20, 5), FX("k1", KERNEL, 30, 7),
	};
	static const uint8_t only[] = { 0, 1, 1 };
	struct osc_trace t;
	struct osc_agg a;
	struct osc_query q = {.level = OSC_LEVEL_KERNEL, .only = only};

	fx_build(&t, OSC_FORMAT_KINETO, ev, FX_LEN(ev));
	osc_aggregate(&t, NULL, &q, &a);
	expect_order(&t, &a, "k1 k2");
	cr_expect_eq(a.rows[0].total, 7);
	cr_expect_eq(a.rows[0].count, 1);
	cr_expect_eq(a.grand_total, 12);
	osc_agg_release(&a);
	osc_trace_release(&t);
}

/*
 * q reading the sums only (OSC_READS_SUMS) gives full's rows and members,
 * with the same count, total, min, max, mean, self and device time, and
 * zero percentiles.
 */
static void expect_sums_agree(const struct osc_trace *t, const struct osc_runs *runs,
				   const struct osc_query *q, const struct osc_agg *full,
				   const char *rel)
{
	struct osc_query sq = *q;
	struct osc_agg a;

	sq.reads = OSC_READS_SUMS;
	osc_aggregate(t, runs, &sq, &a);
	cr_assert_eq(a.nr, full->nr, "%s %s", rel, osc_level_name(q->level));
	cr_assert_eq(a.nr_members, full->nr_members);
	cr_expect(!a.nr_members ||
		  !memcmp(a.members, full->members, a.nr_members * sizeof(*a.members)));
	cr_expect_eq(a.host_busy, full->host_busy);
	for (size_t r = 0; r < a.nr; r++) {
		const struct osc_agg_row *x = &a.rows[r], *y = &full->rows[r];

		cr_expect(x->count == y->count && x->total == y->total && x->min == y->min &&
			  x->max == y->max && x->mean == y->mean && x->self == y->self &&
			  x->dev == y->dev && x->key == y->key && x->first == y->first,
			  "%s: level %s row %zu differs", rel, osc_level_name(q->level), r);
		cr_expect(x->p50 == 0 && x->p90 == 0 && x->p99 == 0 && x->stddev == 0);
	}
	osc_agg_release(&a);
}

/* Every level of trace rel on 2, 3 and 7 threads equals the one-thread answer. */
static void expect_same_on_threads(const char *rel, const char *filter)
{
	static const unsigned threads[] = { 2, 3, 7 };
	struct osc_trace t;
	struct osc_runs runs;
	struct osc_runsel sel;
	struct osc_filter f;
	struct osc_error err;

	fx_load(&t, rel);
	osc_runs_detect(&t, &runs);
	cr_assert_eq(osc_runsel_parse(NULL, runs.nr, runs.warmup, &sel, &err), OSC_OK);
	osc_filter_init(&f);
	if (filter)
		cr_assert_eq(osc_filter_set_spec(&f, filter, &err), OSC_OK);
	for (int l = 0; l < OSC_LEVEL_COUNT; l++) {
		struct osc_query q = {.level = (enum osc_level)l, .runs = &sel,
				      .filter = filter ? &f : NULL, .threads = 1};
		struct osc_agg one, many;

		osc_aggregate(&t, &runs, &q, &one);
		/* the samples have no nn.Module events: the module level is empty */
		if (!osc_level_is_device(q.level) && q.level != OSC_LEVEL_MODULE)
			cr_expect_gt(one.nr_members, 0, "%s: no members at level %s", rel,
				     osc_level_name(q.level));
		for (size_t i = 0; i < FX_LEN(threads); i++) {
			q.threads = threads[i];
			osc_aggregate(&t, &runs, &q, &many);
			cr_assert_eq(many.nr, one.nr, "%s %s", rel, osc_level_name(q.level));
			cr_expect(!one.nr || !memcmp(many.rows, one.rows, one.nr * sizeof(*one.rows)),
				     "%s: rows at level %s differ on %u threads", rel,
				     osc_level_name(q.level), threads[i]);
			cr_assert_eq(many.nr_members, one.nr_members);
			cr_expect(!one.nr_members ||
					  !memcmp(many.members, one.members,
						  one.nr_members * sizeof(*one.members)),
				     "%s: members at level %s differ on %u threads", rel,
				     osc_level_name(q.level), threads[i]);
			cr_expect_eq(many.host_busy, one.host_busy, "%s: host busy at level %s", rel,
				     osc_level_name(q.level));
			cr_expect_eq(many.device_time, one.device_time, "%s: device time at level %s",
				     rel, osc_level_name(q.level));
			osc_agg_release(&many);
		}
		expect_sums_agree(&t, &runs, &q, &one, rel);
		osc_agg_release(&one);
	}
	osc_filter_release(&f);
	osc_runsel_release(&sel);
	osc_runs_release(&runs);
	osc_trace_release(&t);
}

Test(aggregate, same_answer_on_any_number_of_threads)
{
	expect_same_on_threads("samples/kineto-sampled-rank0.json.gz", NULL);
	expect_same_on_threads("samples/kineto-sampled-rank0.json.gz", "re:gemm|conv|Memcpy");
	expect_same_on_threads("samples/ort-resnet18-opt.json", NULL);
	expect_same_on_threads("samples/torch-resnet18-infer.json", NULL);
}

/*
 * Path level over a run selection: an op that starts in an unselected run
 * is left out, and its child in the selected run becomes a root path.
 *   run#0 [0, 100)   outer [50, 150) -> inner [120, 130)
 *   run#1 [100, 200)              other [160, 170)
 */
Test(aggregate, path_level_under_a_run_selection)
{
	static const struct fx_event ev[] = {
		FX("ProfilerStep#0", RUN, 0, 100), FX("ProfilerStep#1", RUN, 100, 100),
		FX("outer", HOST_OP, 50, 100),     FX("inner", HOST_OP, 120, 10),
		FX("other", HOST_OP, 160, 10),
	};
	struct osc_trace t;
	struct osc_runs runs;
	struct osc_runsel sel;
	struct osc_error err;
	struct osc_agg a;
	struct osc_query q = {.level = OSC_LEVEL_PATH, .runs = &sel};
	char buf[64];

	fx_build(&t, OSC_FORMAT_KINETO, ev, FX_LEN(ev));
	osc_runs_detect(&t, &runs);
	cr_assert_eq(runs.nr, 2);
	cr_assert_eq(osc_runsel_parse(NULL, runs.nr, runs.warmup, &sel, &err), OSC_OK);
	osc_aggregate(&t, &runs, &q, &a);
	cr_assert_eq(a.nr, 3);
	cr_expect_str_eq(osc_agg_cell(&t, &a, 0, 0, buf, sizeof(buf)), "outer");
	cr_expect_str_eq(osc_agg_cell(&t, &a, 1, 0, buf, sizeof(buf)), "other"); /* ties: by path */
	cr_expect_str_eq(osc_agg_cell(&t, &a, 2, 0, buf, sizeof(buf)), "outer$$inner");
	osc_agg_release(&a);
	osc_runsel_release(&sel);
	cr_assert_eq(osc_runsel_parse("1", runs.nr, runs.warmup, &sel, &err), OSC_OK);
	osc_aggregate(&t, &runs, &q, &a);
	cr_assert_eq(a.nr, 2);
	cr_expect_str_eq(osc_agg_cell(&t, &a, 0, 0, buf, sizeof(buf)), "inner");
	cr_expect_str_eq(osc_agg_cell(&t, &a, 1, 0, buf, sizeof(buf)), "other");
	cr_expect_eq(a.rows[0].total, 10);
	osc_agg_release(&a);
	osc_runsel_release(&sel);
	osc_runs_release(&runs);
	osc_trace_release(&t);
}
