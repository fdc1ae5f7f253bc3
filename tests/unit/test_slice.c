/* Unit tests of slice.c: which events a slice of runs keeps. */
#include <criterion/criterion.h>
#include <stdlib.h>

#include "opscope/analysis/slice.h"
#include "tree_fixture.h"

/*
 * Two runs: ProfilerStep#1 [0, 100), ProfilerStep#2 [100, 200) on thread 0.
 *   op1   [10, 60)  run 1, launches k1 (corr 1) which runs in run 2's window
 *   long  [50, 150) starts in run 1, overlaps run 2
 *   op2   [110, 160) run 2, launches k2 (corr 2) which runs after the window
 *   op3   [300, 310) after both runs
 * Thread 1: k1 [120, 140), k2 [250, 260). Flows s/f pair each launch to its kernel.
 */
static const struct tx_event fx[] = {
	TX("ProfilerStep#1", RUN, 0, 0, 100, 0, 0, NULL),
	TX("ProfilerStep#2", RUN, 0, 100, 100, 0, 0, NULL),
	TX("op1", HOST_OP, 0, 10, 50, 0, 0, NULL),
	TX("launch1", RUNTIME, 0, 20, 5, 1, 0, NULL),
	TX("long", HOST_OP, 0, 50, 100, 0, 0, NULL),
	TX("op2", HOST_OP, 0, 110, 50, 0, 0, NULL),
	TX("launch2", RUNTIME, 0, 120, 5, 2, 0, NULL),
	TX("op3", HOST_OP, 0, 300, 10, 0, 0, NULL),
	TX("k1", KERNEL, 1, 120, 20, 1, 0, NULL),
	TX("k2", KERNEL, 1, 250, 10, 2, 0, NULL),
	TS(0, 20, 1),
	TF(1, 120, 1),
	TS(0, 120, 2),
	TF(1, 250, 2),
};

static bool kept(const struct osc_trace *t, const uint8_t *keep, const char *name)
{
	return keep[fx_find(t, name)];
}

static void slice(const char *runs, const char *pattern, struct osc_trace *t, uint8_t **keep)
{
	struct osc_runs r;
	struct osc_runsel sel;
	struct osc_filter f;
	struct osc_error err;

	tx_build(t, OSC_FORMAT_KINETO, fx, FX_LEN(fx));
	osc_runs_detect(t, &r);
	cr_assert_eq(r.nr, 2);
	cr_assert_eq(osc_runsel_parse(runs, r.nr, r.warmup, &sel, &err), OSC_OK);
	osc_filter_init(&f);
	if (pattern)
		osc_filter_add_pattern(&f, pattern);
	*keep = malloc(osc_trace_nr_written(t));
	osc_slice_select(t, &r, &sel, &f, *keep);
	osc_filter_release(&f);
	osc_runsel_release(&sel);
	osc_runs_release(&r);
}

/* Flow events of id fid kept: a bitmask, 1 for the start, 2 for the end. */
static int flow(const struct osc_trace *t, const uint8_t *keep, int64_t fid)
{
	int got = 0;

	for (size_t i = 0; i < t->nr_flows; i++)
		if (keep[t->nr_events + i] && osc_trace_id_value(t, t->flows[i].id) == fid)
			got |= osc_flow_ph(&t->flows[i]) == OSC_PH_FLOW_START ? 1 : 2;
	return got;
}

Test(slice, run_window_device_work_and_flows)
{
	struct osc_trace t;
	uint8_t *keep;

	slice("1", NULL, &t, &keep);
	cr_expect(kept(&t, keep, "ProfilerStep#2"));
	cr_expect(!kept(&t, keep, "ProfilerStep#1"), "adjacent, not overlapping");
	cr_expect(kept(&t, keep, "op2"));
	cr_expect(kept(&t, keep, "launch2"));
	cr_expect(kept(&t, keep, "long"), "overlaps the window partially: kept whole");
	cr_expect(!kept(&t, keep, "op1"));
	cr_expect(!kept(&t, keep, "op3"));
	cr_expect(kept(&t, keep, "k2"), "launched in the run, ran after it");
	cr_expect(kept(&t, keep, "k1"), "ran in the window");
	cr_expect(kept(&t, keep, "launch1"), "k1's launch, so k1 still counts in run 0");
	cr_expect_eq(flow(&t, keep, 2), 3);
	cr_expect_eq(flow(&t, keep, 1), 3, "both ends lie in kept events");
	free(keep);
	osc_trace_release(&t);
}

Test(slice, filter_keeps_matches_nested_and_launched)
{
	struct osc_trace t;
	uint8_t *keep;

	slice("1", "op2", &t, &keep);
	cr_expect(kept(&t, keep, "ProfilerStep#2"), "the run event stays");
	cr_expect(kept(&t, keep, "op2"));
	cr_expect(kept(&t, keep, "launch2"), "nested in op2");
	cr_expect(kept(&t, keep, "k2"), "launched by op2");
	cr_expect(!kept(&t, keep, "long"));
	cr_expect(!kept(&t, keep, "k1"));
	cr_expect(!kept(&t, keep, "launch1"));
	cr_expect_eq(flow(&t, keep, 2), 3);
	cr_expect_eq(flow(&t, keep, 1), 0);
	free(keep);
	osc_trace_release(&t);
}
