/* test_trace_cache.c - the per-trace briefs, host tree and launchers. */
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdlib.h>

#include "opscope/analysis/category.h"
#include "opscope/analysis/correlate.h"
#include "opscope/analysis/trace_cache.h"
#include "trace_fixture.h"

/*
 * Every brief of every kind is its event's fields, in model order, and no
 * event is missed; those of kind HOST_OP are the ops (osc_trace_ops: the
 * host ops, and frames that launch device work outside them).
 */
static void expect_briefs_match(const struct osc_trace *t)
{
	size_t seen = 0, ops = 0;

	for (size_t i = 0; i < t->nr_events; i++)
		ops += osc_catsel_has_event(osc_trace_ops(t), t, (uint32_t)i);
	for (int k = 0; k < OSC_KIND_COUNT; k++) {
		size_t nr;
		const struct osc_brief *b = osc_trace_briefs(t, (enum osc_kind)k, &nr);

		if (k == OSC_KIND_HOST_OP)
			cr_assert_eq(nr, ops);
		for (size_t j = 0; j < nr; j++) {
			const struct osc_event *e = &t->events[b[j].event];

			if (k == OSC_KIND_HOST_OP)
				cr_assert(osc_catsel_has_event(osc_trace_ops(t), t, b[j].event));
			else
				cr_assert_eq(e->kind, k);
			seen += e->kind == k;
			cr_assert(j == 0 || b[j].event > b[j - 1].event, "model order");
			cr_assert_eq(b[j].dur, e->dur);
			cr_assert_eq(b[j].name, e->name);
			cr_assert_eq(b[j].op, osc_trace_op(t, b[j].event));
			if (osc_kind_is_device(e->kind))
				cr_assert_eq(b[j].kernel, e->kernel);
			else
				cr_assert_eq(b[j].shape, e->shape);
			if (k != OSC_KIND_HOST_OP)
				cr_assert_eq(b[j].op_shape, OSC_NONE);
		}
	}
	cr_expect_eq(seen, t->nr_events);
}

/* Host ops share an op_shape id exactly when they share (op, shape); ids are dense. */
static void expect_op_shape_ids(const struct osc_trace *t)
{
	size_t nr, ids = osc_trace_nr_op_shapes(t);
	const struct osc_brief *b = osc_trace_briefs(t, OSC_KIND_HOST_OP, &nr);
	osc_str *op = calloc(ids, sizeof(*op)), *shape = calloc(ids, sizeof(*shape));
	uint8_t *seen = calloc(ids, 1);

	for (size_t j = 0; j < nr; j++) {
		uint32_t id = b[j].op_shape;

		cr_assert_lt(id, ids);
		if (!seen[id]) {
			seen[id] = 1;
			op[id] = b[j].op;
			shape[id] = b[j].shape;
		}
		cr_assert(op[id] == b[j].op && shape[id] == b[j].shape, "one pair per id");
	}
	for (size_t i = 0; i < ids; i++)
		cr_assert(seen[i], "id %zu unused", i);
	for (size_t i = 0; i < ids; i++)
		for (size_t k = i + 1; k < ids; k++)
			cr_assert(op[i] != op[k] || shape[i] != shape[k], "one id per pair");
	free(op);
	free(shape);
	free(seen);
}

Test(trace_cache, briefs_of_a_real_trace)
{
	struct osc_trace t;

	fx_load(&t, "samples/kineto-sampled-rank0.json.gz");
	expect_briefs_match(&t);
	expect_op_shape_ids(&t);
	cr_expect_gt(osc_trace_nr_op_shapes(&t), 10);
	osc_trace_release(&t);
}

/* Adding an event after a query drops what the cache built. */
Test(trace_cache, adding_events_drops_the_cache)
{
	static const struct fx_event ev[] = {
		FX("a", HOST_OP, 0, 10), FX("k", KERNEL, 5, 2), FX("b", HOST_OP, 20, 5),
	};
	struct osc_trace t;
	struct osc_event e;
	size_t nr;

	fx_build(&t, OSC_FORMAT_KINETO, ev, FX_LEN(ev));
	osc_trace_briefs(&t, OSC_KIND_HOST_OP, &nr);
	cr_assert_eq(nr, 2);
	e = t.events[0];
	e.ts = 30;
	osc_trace_add_event(&t, &e, NULL, NULL, 0);
	osc_trace_sort(&t);
	osc_trace_briefs(&t, OSC_KIND_HOST_OP, &nr);
	cr_expect_eq(nr, 3);
	expect_briefs_match(&t);
	osc_trace_release(&t);
}

/*
 * A text's rank is how many of the trace's strings are at most it, bytewise,
 * whether the trace holds it or not; every string's place agrees.
 */
Test(trace_cache, text_order_rank_counts_the_strings_at_most_a_text)
{
	static const struct fx_event ev[] = {
		FX("b", HOST_OP, 0, 10), FX("unknown", HOST_OP, 20, 5), FX("a", HOST_OP, 30, 5),
		FX("unknownx", HOST_OP, 40, 5),
	};
	struct osc_trace t;
	const struct osc_text_order *o;
	size_t below_a;

	fx_build(&t, OSC_FORMAT_KINETO, ev, FX_LEN(ev));
	o = osc_trace_text_order(&t);
	below_a = osc_text_order_rank(&t, o, "a") - 1; /* the fixture's own strings, if any */
	cr_expect_eq(osc_text_order_rank(&t, o, "<unattributed>"), below_a, "'<' before letters");
	cr_expect_eq(osc_text_order_rank(&t, o, "a"), below_a + 1);
	cr_expect_eq(osc_text_order_rank(&t, o, "ab"), below_a + 1, "not held");
	cr_expect_eq(osc_text_order_rank(&t, o, "b"), below_a + 2);
	cr_expect_eq(osc_text_order_rank(&t, o, "unknown"), below_a + 3, "a prefix of unknownx");
	cr_expect_eq(osc_text_order_rank(&t, o, "unknownx"), below_a + 4);
	for (size_t i = 0; i < o->nr; i++)
		cr_expect_eq(osc_text_order_rank(&t, o, osc_trace_str(&t, o->sorted[i])),
			     o->place[o->sorted[i]] + 1);
	osc_trace_release(&t);
}

/* The cached tree, paths, correlation and launchers are what a fresh build gives. */
Test(trace_cache, tree_and_launchers_match_a_fresh_build)
{
	struct osc_trace t;
	struct osc_catsel host, launch, device;
	struct osc_calltree tree;
	struct osc_correlation corr;
	const struct osc_calltree *cached;
	const uint32_t *launcher;
	size_t linked = 0;

	fx_load(&t, "samples/kineto-sampled-rank0.json.gz");
	osc_catsel_parse(&host, &t, NULL, OSC_CATSEL_HOST_DEFAULT, "", NULL);
	osc_catsel_parse(&launch, &t, NULL, OSC_CATSEL_LAUNCH_DEFAULT, "", NULL);
	osc_catsel_parse(&device, &t, NULL, OSC_CATSEL_DEVICE_DEFAULT, "", NULL);
	osc_host_analysis(&t, &host, &launch, &device, &tree, &corr);
	cr_expect_not_null(host.also, "the sample's optimizer step launches outside any op");
	cached = osc_trace_host_tree(&t);
	cr_assert_eq(cached->nr, tree.nr);
	cr_expect_eq(memcmp(cached->node_of, tree.node_of, t.nr_events * sizeof(*tree.node_of)), 0);
	{
		struct osc_correlation none = { 0 };
		struct osc_mtree m;
		const struct osc_mtree *paths = osc_trace_host_paths(&t);

		osc_mtree_build(&t, &tree, &none, NULL, NULL, OSC_STR_NONE, &m);
		cr_assert_eq(paths->nr, m.nr);
		cr_expect_eq(memcmp(paths->m_of, m.m_of, tree.nr * sizeof(*m.m_of)), 0);
		osc_mtree_release(&m);
	}
	cr_expect_eq(osc_trace_correlation(&t)->nr_devs, corr.nr_devs);
	cr_expect_eq(osc_trace_correlation(&t)->nr_launches, corr.nr_launches);
	launcher = osc_trace_launchers(&t);
	cr_expect_eq(osc_trace_launchers(&t), launcher, "built once");
	for (size_t i = 0; i < t.nr_events; i++) {
		uint32_t d = corr.dev_of[i];
		uint32_t node = d != OSC_NONE ? corr.devs[d].node : OSC_NONE;

		cr_assert_eq(launcher[i], node != OSC_NONE ? tree.nodes[node].event : OSC_NONE,
			     "event %zu", i);
		linked += launcher[i] != OSC_NONE;
	}
	cr_expect_gt(linked, 1000, "the sample's kernels have launchers");
	osc_correlation_release(&corr);
	osc_calltree_release(&tree);
	osc_catsel_release(&host);
	osc_catsel_release(&launch);
	osc_catsel_release(&device);
	osc_trace_release(&t);
}

/* The cached categories are osc_categorize's, kept for the first rules asked only. */
Test(trace_cache, categories_match_a_fresh_build_for_their_rules)
{
	struct osc_trace t;
	struct osc_categories user;
	struct osc_error err;
	uint8_t *fresh;
	const uint8_t *cached;
	size_t gemm = 0;

	fx_load(&t, "samples/kineto-sampled-rank0.json.gz");
	fresh = malloc(t.nr_events);
	osc_categorize(&t, osc_trace_launchers(&t), NULL, fresh);
	cached = osc_trace_categories(&t, NULL);
	cr_assert_not_null(cached);
	cr_expect_eq(memcmp(cached, fresh, t.nr_events), 0);
	cr_expect_eq(osc_trace_categories(&t, NULL), cached, "built once");
	for (size_t i = 0; i < t.nr_events; i++)
		gemm += cached[i] == OSC_CAT_GEMM;
	cr_expect_gt(gemm, 10);
	osc_categories_init(&user);
	cr_assert_eq(osc_categories_parse(&user, "norm op aten::*\n", "rules", &err), OSC_OK);
	cr_expect_null(osc_trace_categories(&t, &user), "other rules: not the cached table");
	osc_categories_release(&user);
	free(fresh);
	osc_trace_release(&t);
}

static void *ask_launchers(void *t)
{
	return (void *)osc_trace_launchers(t);
}

/* Threads asking at once get the one table. */
Test(trace_cache, concurrent_askers_share_one_build)
{
	struct osc_trace t;
	pthread_t th[4];
	void *got[4];

	fx_load(&t, "samples/kineto-sampled-rank0.json.gz");
	for (int i = 0; i < 4; i++)
		cr_assert_eq(pthread_create(&th[i], NULL, ask_launchers, &t), 0);
	for (int i = 0; i < 4; i++)
		pthread_join(th[i], &got[i]);
	for (int i = 1; i < 4; i++)
		cr_expect_eq(got[i], got[0]);
	osc_trace_release(&t);
}
