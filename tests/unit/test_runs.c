/* test_runs.c - run detection and event-to-run assignment. */
#include <criterion/criterion.h>
#include <stdio.h>

#include "opscope/model/runs.h"
#include "trace_fixture.h"

struct expect_run {
	const char *event; /* an event, by name */
	uint32_t run;      /* the run it must be in, OSC_NONE for outside */
};

static void detect(const struct fx_event *ev, size_t n, enum osc_format format,
		   struct osc_trace *t, struct osc_runs *r)
{
	fx_build(t, format, ev, n);
	osc_runs_detect(t, r);
}

static void check_assignment(const struct osc_trace *t, const struct osc_runs *r,
			     const struct expect_run *want, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		uint32_t got = r->run_of[fx_find(t, want[i].event)];

		cr_expect_eq(got, want[i].run, "%s: run %d, want %d", want[i].event, (int)got,
			     (int)want[i].run);
	}
}

/* Invariant: nr_events per run and outside add up to the run_of table. */
/* The run whose window holds ts, the latest to start (runs that do not nest), or r->nr. */
static size_t run_at(const struct osc_runs *r, int64_t ts)
{
	size_t at = r->nr;

	for (size_t i = 0; i < r->nr; i++)
		if (r->runs[i].ts <= ts && ts < r->runs[i].ts + r->runs[i].dur)
			at = i;
	return at;
}

/* Each run's count: its events (run_of) and the flows starting in its window. */
static void check_counts(const struct osc_trace *t, const struct osc_runs *r)
{
	uint64_t sum = r->outside;

	for (size_t i = 0; i < r->nr; i++) {
		uint64_t n = 0;
		int64_t end = osc_sat_add(r->runs[i].ts, r->runs[i].dur);

		for (size_t e = 0; e < t->nr_events; e++) {
			n += r->run_of[e] == i;
			if (r->run_of[e] == i && osc_event_end(&t->events[e]) > end)
				end = osc_event_end(&t->events[e]);
		}
		cr_expect_eq(r->runs[i].events_end, end, "run %zu's events end at %lld, found %lld",
			     i, (long long)r->runs[i].events_end, (long long)end);
		for (size_t f = 0; f < t->nr_flows; f++)
			n += run_at(r, t->flows[f].ts) == i;
		cr_expect_eq(r->runs[i].nr_events, n, "run %zu has %llu events, counted %llu", i,
			     (unsigned long long)r->runs[i].nr_events, (unsigned long long)n);
		sum += r->runs[i].nr_events;
		if (i)
			cr_expect_leq(r->runs[i - 1].ts, r->runs[i].ts, "runs sorted by ts");
	}
	cr_expect_eq(sum, osc_trace_nr_written(t));
}

/*
 * ORT writes model_run after its nodes (file order != ts order):
 *
 *   session_init   [10, 60)                  outside
 *   model_run#0    [100, 180) ------------   run 0
 *     Execute#0      [105, 165)
 *       conv           [110, 130)
 *       relu           [140, 150)
 *   model_run#1    [200, 250) ------------   run 1
 *     conv2           [210, 230)
 */
Test(runs, ort_model_run_listed_after_its_nodes)
{
	static const struct fx_event ev[] = {
		FX("session_init", SESSION, 10, 50),
		FX("conv", HOST_OP, 110, 20),
		FX("relu", HOST_OP, 140, 10),
		FX("SequentialExecutor::Execute", EXECUTOR, 105, 60),
		FX("model_run", RUN, 100, 80),
		FX("conv2", HOST_OP, 210, 20),
		FX("model_run", RUN, 200, 50),
	};
	static const struct expect_run want[] = {
		{"session_init", OSC_NONE}, {"conv", 0}, {"relu", 0},
		{"SequentialExecutor::Execute", 0}, {"model_run", 0}, {"conv2", 1},
	};
	struct osc_trace t;
	struct osc_runs r;

	detect(ev, FX_LEN(ev), OSC_FORMAT_ORT, &t, &r);
	cr_assert_eq(r.source, OSC_RUNS_MODEL_RUN);
	cr_assert_eq(r.nr, 2);
	cr_expect(r.warmup, "ORT with 2 runs: run 0 is a warm-up");
	cr_expect_eq(r.runs[0].ts, 100);
	cr_expect_eq(r.runs[0].dur, 80);
	cr_expect_eq(r.runs[1].ts, 200);
	cr_expect_str_eq(osc_trace_str(&t, r.runs[1].name), "model_run");
	cr_expect_eq(r.runs[0].event, fx_find(&t, "model_run"));
	check_assignment(&t, &r, want, FX_LEN(want));
	cr_expect_eq(r.runs[0].nr_events, 4);
	cr_expect_eq(r.runs[1].nr_events, 2);
	cr_expect_eq(r.outside, 1);
	check_counts(&t, &r);
	osc_runs_release(&r);
	osc_trace_release(&t);
}

/* One ORT run, or runs in another format: no warm-up to skip. */
Test(runs, warmup_only_for_ort_with_several_runs)
{
	static const struct fx_event one[] = {FX("model_run", RUN, 0, 10)};
	static const struct fx_event two[] = {
		FX("model_run", RUN, 0, 10),
		FX("model_run", RUN, 20, 10),
	};
	struct osc_trace t;
	struct osc_runs r;

	detect(one, FX_LEN(one), OSC_FORMAT_ORT, &t, &r);
	cr_expect_not(r.warmup);
	osc_runs_release(&r);
	osc_trace_release(&t);

	detect(two, FX_LEN(two), OSC_FORMAT_CHROME, &t, &r);
	cr_expect_eq(r.nr, 2);
	cr_expect_not(r.warmup);
	osc_runs_release(&r);
	osc_trace_release(&t);
}

/*
 * Kineto: device work follows its launch, not its own start.
 *
 *   ProfilerStep#5 [0, 100)     run 0      ProfilerStep#6 [100, 200)   run 1
 *   op_a    50                  run 0      op_b  100 (end is exclusive) run 1
 *   launch7 90  corr 7          run 0      launch8 195 corr 8           run 1
 *   kern7   150 corr 7 -> run 0 (starts inside step 6, launched in step 5)
 *   copy7   160 corr 7 -> run 0 (memcpy: also device work)
 *   kern8   300 corr 8 -> run 1 (starts after every step ended)
 *   kern99  120 corr 99, no launch recorded -> own start -> run 1
 *   kern_nc 500 no corr -> own start -> outside
 *   late    250 host op after the last step -> outside
 */
Test(runs, kineto_device_events_follow_their_launch)
{
	static const struct fx_event ev[] = {
		FX("ProfilerStep#5", RUN, 0, 100),
		FX("ProfilerStep#6", RUN, 100, 100),
		FX("op_a", HOST_OP, 50, 5),
		FX("op_b", HOST_OP, 100, 5),
		FX_CORR("launch7", RUNTIME, 90, 5, 7),
		FX_CORR("launch8", RUNTIME, 195, 3, 8),
		FX_CORR("kern7", KERNEL, 150, 20, 7),
		FX_CORR("copy7", MEMCPY, 160, 5, 7),
		FX_CORR("kern8", KERNEL, 300, 20, 8),
		FX_CORR("kern99", KERNEL, 120, 5, 99),
		FX("kern_nc", KERNEL, 500, 5),
		FX("late", HOST_OP, 250, 5),
	};
	static const struct expect_run want[] = {
		{"ProfilerStep#5", 0}, {"ProfilerStep#6", 1}, {"op_a", 0}, {"op_b", 1},
		{"launch7", 0}, {"launch8", 1}, {"kern7", 0}, {"copy7", 0}, {"kern8", 1},
		{"kern99", 1}, {"kern_nc", OSC_NONE}, {"late", OSC_NONE},
	};
	struct osc_trace t;
	struct osc_runs r;

	detect(ev, FX_LEN(ev), OSC_FORMAT_KINETO, &t, &r);
	cr_assert_eq(r.source, OSC_RUNS_PROFILER_STEP);
	cr_assert_eq(r.nr, 2);
	cr_expect_not(r.warmup);
	check_assignment(&t, &r, want, FX_LEN(want));
	cr_expect_eq(r.outside, 2);
	check_counts(&t, &r);
	osc_runs_release(&r);
	osc_trace_release(&t);
}

/*
 * Correlation ids far apart and out of order (not from one counter), looked
 * up back and forth:
 *
 *   step#1 [0, 100)  l1 corr 1 at 10        step#2 [100, 200)  l2 corr 10^15 at 150
 *   l3 corr -7 at 60, l4 corr INT64_MAX at 160; later launches with 10^15 at 170 and
 *   with 1 at 120 (in step#2) are ignored: the first launch of an id wins
 *   k2 (10^15) at 20 -> 1, k3 (-7) at 180 -> 0, k4 (INT64_MAX) at 5 -> 1, k1 (1) at 300 -> 0
 *   k5 (12345, no launch) at 50 -> own start -> 0
 */
Test(runs, scattered_correlation_ids)
{
	static const struct fx_event ev[] = {
		FX("ProfilerStep#1", RUN, 0, 100),
		FX("ProfilerStep#2", RUN, 100, 100),
		FX_CORR("l1", RUNTIME, 10, 1, 1),
		FX_CORR("l1b", RUNTIME, 120, 1, 1),
		FX_CORR("l2", RUNTIME, 150, 1, 1000000000000000),
		FX_CORR("l2b", RUNTIME, 170, 1, 1000000000000000),
		FX_CORR("l3", RUNTIME, 60, 1, -7),
		FX_CORR("l4", RUNTIME, 160, 1, INT64_MAX),
		FX_CORR("k1", KERNEL, 300, 1, 1),
		FX_CORR("k2", KERNEL, 20, 1, 1000000000000000),
		FX_CORR("k3", KERNEL, 180, 1, -7),
		FX_CORR("k4", KERNEL, 5, 1, INT64_MAX),
		FX_CORR("k5", MEMSET, 50, 1, 12345),
	};
	static const struct expect_run want[] = {
		{"k1", 0}, {"k2", 1}, {"k3", 0}, {"k4", 1}, {"k5", 0},
	};
	struct osc_trace t;
	struct osc_runs r;

	detect(ev, FX_LEN(ev), OSC_FORMAT_KINETO, &t, &r);
	check_assignment(&t, &r, want, FX_LEN(want));
	check_counts(&t, &r);
	osc_runs_release(&r);
	osc_trace_release(&t);
}

/* A kernel whose launch lies outside every run is outside too, wherever it starts. */
Test(runs, kernel_of_a_launch_outside_runs_is_outside)
{
	static const struct fx_event ev[] = {
		FX_CORR("launch", RUNTIME, 5, 2, 3),
		FX("ProfilerStep#1", RUN, 10, 100),
		FX_CORR("kern", KERNEL, 20, 5, 3),
	};
	static const struct expect_run want[] = {{"launch", OSC_NONE}, {"kern", OSC_NONE}};
	struct osc_trace t;
	struct osc_runs r;

	detect(ev, FX_LEN(ev), OSC_FORMAT_KINETO, &t, &r);
	check_assignment(&t, &r, want, FX_LEN(want));
	cr_expect_eq(r.outside, 2);
	osc_runs_release(&r);
	osc_trace_release(&t);
}

/*
 * Nested and overlapping windows: the latest-starting window holding the
 * start wins.
 *
 *   A [0, 100)  ----------------------------
 *   B   [20, 40)  ------
 *   C                                [90, 150) ----------------
 *   e10 -> A   e30 -> B   e50 -> A   e95 -> C   e120 -> C   e160 -> outside
 */
Test(runs, nested_and_overlapping_windows)
{
	static const struct fx_event ev[] = {
		FX("A", RUN, 0, 100),   FX("B", RUN, 20, 20),     FX("C", RUN, 90, 60),
		FX("e10", HOST_OP, 10, 1), FX("e30", HOST_OP, 30, 1), FX("e50", HOST_OP, 50, 1),
		FX("e95", HOST_OP, 95, 1), FX("e120", HOST_OP, 120, 1),
		FX("e160", HOST_OP, 160, 1),
	};
	static const struct expect_run want[] = {
		{"A", 0},   {"B", 1},    {"C", 2},    {"e10", 0},
		{"e30", 1}, {"e50", 0},  {"e95", 2},  {"e120", 2},
		{"e160", OSC_NONE},
	};
	struct osc_trace t;
	struct osc_runs r;

	struct osc_runsel sel;
	struct osc_error err;

	detect(ev, FX_LEN(ev), OSC_FORMAT_CHROME, &t, &r);
	cr_assert_eq(r.nr, 3);
	check_assignment(&t, &r, want, FX_LEN(want));
	check_counts(&t, &r);
	/* wall time: A and C overlap, B nests: one span [0, 150) */
	cr_expect_eq(osc_runsel_wall(&r, NULL), 150);
	cr_assert_eq(osc_runsel_parse("[1, 2]", r.nr, false, &sel, &err), OSC_OK);
	cr_expect_eq(osc_runsel_wall(&r, &sel), 80, "B and C apart: 20 + 60");
	osc_runsel_release(&sel);
	osc_runs_release(&r);
	osc_trace_release(&t);
}

/*
 * Two windows starting together: the shorter one sorts second (model order
 * is dur descending on equal ts), so it is the later-starting one and wins
 * for the events inside it; each run event still belongs to its own run.
 *
 *   outer [0, 100)   inner [0, 50)   e10 -> inner (1)   e70 -> outer (0)
 */
Test(runs, windows_starting_together)
{
	static const struct fx_event ev[] = {
		FX("inner", RUN, 0, 50),
		FX("outer", RUN, 0, 100),
		FX("e10", HOST_OP, 10, 1),
		FX("e70", HOST_OP, 70, 1),
	};
	static const struct expect_run want[] = {
		{"outer", 0}, {"inner", 1}, {"e10", 1}, {"e70", 0},
	};
	struct osc_trace t;
	struct osc_runs r;

	detect(ev, FX_LEN(ev), OSC_FORMAT_CHROME, &t, &r);
	check_assignment(&t, &r, want, FX_LEN(want));
	check_counts(&t, &r);
	osc_runs_release(&r);
	osc_trace_release(&t);
}

/* Sources have a priority: model_run > ProfilerStep > Iteration > Execute. */
Test(runs, source_priority)
{
	static const struct fx_event all[] = {
		FX("SequentialExecutor::Execute", EXECUTOR, 0, 10),
		FX("Iteration0", RUN, 20, 10),
		FX("ProfilerStep#1", RUN, 40, 10),
		FX("model_run", RUN, 60, 10),
	};
	struct osc_trace t;
	struct osc_runs r;

	/* the full table: model_run wins; each shorter prefix drops the best source */
	detect(all, 4, OSC_FORMAT_ORT, &t, &r);
	cr_expect_eq(r.source, OSC_RUNS_MODEL_RUN);
	cr_expect_eq(r.nr, 1);
	cr_expect_eq(r.runs[0].ts, 60);
	osc_runs_release(&r);
	osc_trace_release(&t);
	/* without model_run: ProfilerStep */
	detect(all, 3, OSC_FORMAT_KINETO, &t, &r);
	cr_expect_eq(r.source, OSC_RUNS_PROFILER_STEP);
	cr_expect_eq(r.runs[0].ts, 40);
	osc_runs_release(&r);
	osc_trace_release(&t);
	/* then Neural Engine IterationN */
	detect(all, 2, OSC_FORMAT_NEURAL_ENGINE, &t, &r);
	cr_expect_eq(r.source, OSC_RUNS_ITERATION);
	cr_expect_eq(r.runs[0].ts, 20);
	cr_expect_str_eq(osc_run_source_name(r.source), "Iteration");
	osc_runs_release(&r);
	osc_trace_release(&t);
	/* then SequentialExecutor::Execute */
	detect(all, 1, OSC_FORMAT_ORT, &t, &r);
	cr_expect_eq(r.source, OSC_RUNS_EXECUTOR);
	cr_expect_eq(r.nr, 1);
	cr_expect_not(r.warmup);
	osc_runs_release(&r);
	osc_trace_release(&t);
}

/*
 * ORT without model_run: each SequentialExecutor::Execute is a run.
 *
 *   Execute [0, 50)  run 0 (warm-up)   Execute [100, 150)  run 1
 *   n1 10 -> 0   n2 120 -> 1   n3 70 -> outside
 */
Test(runs, ort_executor_fallback)
{
	static const struct fx_event ev[] = {
		FX("n1", HOST_OP, 10, 5),
		FX("SequentialExecutor::Execute", EXECUTOR, 0, 50),
		FX("n2", HOST_OP, 120, 5),
		FX("SequentialExecutor::Execute", EXECUTOR, 100, 50),
		FX("n3", HOST_OP, 70, 5),
	};
	static const struct expect_run want[] = {{"n1", 0}, {"n2", 1}, {"n3", OSC_NONE}};
	struct osc_trace t;
	struct osc_runs r;

	detect(ev, FX_LEN(ev), OSC_FORMAT_ORT, &t, &r);
	cr_assert_eq(r.source, OSC_RUNS_EXECUTOR);
	cr_assert_eq(r.nr, 2);
	cr_expect(r.warmup);
	check_assignment(&t, &r, want, FX_LEN(want));
	check_counts(&t, &r);
	osc_runs_release(&r);
	osc_trace_release(&t);
}

/*
 * No run events: one run over the whole trace, min ts .. max end, holding
 * every event (including an instant exactly at the end).
 *
 *   a [5, 25)   b [10, 40)   c instant at 40   -> window [5, 40)
 */
Test(runs, whole_trace)
{
	static const struct fx_event ev[] = {
		FX("b", HOST_OP, 10, 30),
		FX("a", HOST_OP, 5, 20),
		FX("c", OTHER, 40, 0),
	};
	static const struct expect_run want[] = {{"a", 0}, {"b", 0}, {"c", 0}};
	struct osc_trace t;
	struct osc_runs r;

	detect(ev, FX_LEN(ev), OSC_FORMAT_CHROME, &t, &r);
	cr_assert_eq(r.source, OSC_RUNS_WHOLE);
	cr_assert_eq(r.nr, 1);
	cr_expect_eq(r.runs[0].ts, 5);
	cr_expect_eq(r.runs[0].dur, 35);
	cr_expect_eq(r.runs[0].event, OSC_NONE);
	cr_expect_eq(r.runs[0].name, OSC_STR_EMPTY);
	cr_expect_not(r.warmup);
	check_assignment(&t, &r, want, FX_LEN(want));
	cr_expect_eq(r.outside, 0);
	check_counts(&t, &r);
	osc_runs_release(&r);
	osc_trace_release(&t);
}

Test(runs, empty_trace_is_one_empty_run)
{
	struct osc_trace t;
	struct osc_runs r;

	detect(NULL, 0, OSC_FORMAT_UNKNOWN, &t, &r);
	cr_assert_eq(r.source, OSC_RUNS_WHOLE);
	cr_assert_eq(r.nr, 1);
	cr_expect_eq(r.runs[0].nr_events, 0);
	cr_expect_eq(r.runs[0].dur, 0);
	cr_expect_eq(r.outside, 0);
	osc_runs_release(&r);
	osc_trace_release(&t);
}

/* Huge times from bad input saturate instead of overflowing (UBSan watches). */
Test(runs, huge_times_do_not_overflow)
{
	static const struct fx_event ev[] = {
		FX("model_run", RUN, INT64_MAX - 10, INT64_MAX),
		FX("op", HOST_OP, INT64_MAX - 5, INT64_MAX),
		FX("early", HOST_OP, INT64_MIN, 5),
	};
	static const struct expect_run want[] = {{"op", 0}, {"early", OSC_NONE}};
	struct osc_trace t;
	struct osc_runs r;

	detect(ev, FX_LEN(ev), OSC_FORMAT_ORT, &t, &r);
	check_assignment(&t, &r, want, FX_LEN(want));
	osc_runs_release(&r);
	osc_trace_release(&t);

	detect(ev + 1, 2, OSC_FORMAT_CHROME, &t, &r);
	cr_expect_eq(r.source, OSC_RUNS_WHOLE);
	cr_expect_eq(r.runs[0].ts, INT64_MIN);
	cr_expect_eq(r.runs[0].dur, INT64_MAX);
	osc_runs_release(&r);
	osc_trace_release(&t);
}

/*
 * Many runs, checked against a direct scan: step i covers [100 i, 100 i + 60),
 * with a host op every 7 ns and a kernel launched at each op, running 150 ns
 * later. Correlation ids rise with time, or fall (reversed): launches far
 * from sorted take the radix sort instead of the insertion sort.
 */
static void many_runs(bool reversed)
{
	enum { STEPS = 300, SPAN = STEPS * 100 };
	struct osc_trace t;
	struct osc_runs r;
	char name[32];
	uint32_t th;

	osc_trace_init(&t);
	t.format = OSC_FORMAT_KINETO;
	th = osc_trace_thread(&t, fx_str(&t, "1"), fx_str(&t, "1"));
	for (int i = STEPS - 1; i >= 0; i--) {
		struct osc_event e = {.ts = 100 * i, .dur = 60, .corr_id = OSC_ID_NONE,
				      .ext = OSC_ID_NONE, .thread = th, .kernel = OSC_NONE,
				      .kind = OSC_KIND_RUN};

		snprintf(name, sizeof(name), "ProfilerStep#%d", i);
		e.name = fx_str(&t, name);
		osc_trace_add_event(&t, &e, NULL, NULL, 0);
	}
	for (int ts = 0; ts < SPAN; ts += 7) {
		struct osc_event e = {.ts = ts, .dur = 2,
				      .corr_id = (osc_id)(reversed ? SPAN - ts : ts + 1),
				      .ext = OSC_ID_NONE,
				      .thread = th, .kernel = OSC_NONE, .kind = OSC_KIND_RUNTIME};

		e.name = fx_str(&t, "launch");
		osc_trace_add_event(&t, &e, NULL, NULL, 0);
		e.ts += 150;
		e.kind = OSC_KIND_KERNEL;
		e.name = fx_str(&t, "kernel");
		osc_trace_add_event(&t, &e, NULL, NULL, 0);
	}
	osc_trace_sort(&t);
	osc_runs_detect(&t, &r);
	cr_assert_eq(r.nr, STEPS);
	for (size_t i = 0; i < t.nr_events; i++) {
		const struct osc_event *e = &t.events[i];
		int64_t at = e->kind == OSC_KIND_KERNEL ? e->ts - 150 : e->ts;
		uint32_t want = at % 100 < 60 ? (uint32_t)(at / 100) : OSC_NONE;

		cr_assert_eq(r.run_of[i], want, "event %zu (%s at %lld): run %d, want %d", i,
			     osc_kind_name(e->kind), (long long)e->ts, (int)r.run_of[i], (int)want);
	}
	check_counts(&t, &r);
	osc_runs_release(&r);
	osc_trace_release(&t);
}

Test(runs, many_runs_match_a_direct_scan)
{
	many_runs(false);
}

Test(runs, many_runs_with_falling_ids_match_a_direct_scan)
{
	many_runs(true);
}

Test(runs, source_names)
{
	cr_expect_str_eq(osc_run_source_name(OSC_RUNS_MODEL_RUN), "model_run");
	cr_expect_str_eq(osc_run_source_name(OSC_RUNS_WHOLE), "whole trace");
	cr_expect_str_eq(osc_run_source_name(OSC_RUN_SOURCE_COUNT), "unknown");
}

/* ---- real traces ---- */

/*
 * Every device event with a recorded launch is in its launch's run, checked
 * by a plain scan per kernel (quadratic, fine for the small traces here).
 */
static void check_launches(const struct osc_trace *t, const struct osc_runs *r)
{
	size_t checked = 0;

	for (size_t k = 0; k < t->nr_events; k++) {
		const struct osc_event *e = &t->events[k];

		if (!osc_kind_is_device(e->kind) || e->corr_id == OSC_ID_NONE)
			continue;
		for (size_t l = 0; l < t->nr_events; l++) {
			if (t->events[l].kind != OSC_KIND_RUNTIME ||
			    t->events[l].corr_id != e->corr_id)
				continue;
			cr_assert_eq(r->run_of[k], r->run_of[l], "kernel %zu in run %d, launch %zu in %d",
				     k, (int)r->run_of[k], l, (int)r->run_of[l]);
			checked++;
			break;
		}
	}
	cr_expect_gt(checked, 0, "no kernel with a launch found");
}

/* The ORT fork writes its single model_run after the nodes. */
Test(runs, real_ort_riscv_one_model_run)
{
	struct osc_trace t;
	struct osc_runs r;

	fx_load(&t, "samples/ort-riscv-resnet50-gemmini.json");
	osc_runs_detect(&t, &r);
	cr_assert_eq(r.source, OSC_RUNS_MODEL_RUN);
	cr_assert_eq(r.nr, 1);
	cr_expect_not(r.warmup);
	for (size_t i = 0; i < t.nr_events; i++)
		if (t.events[i].kind == OSC_KIND_HOST_OP)
			cr_assert_eq(r.run_of[i], 0, "node %zu outside the model_run", i);
	check_counts(&t, &r);
	osc_runs_release(&r);
	osc_trace_release(&t);
}

/* 11 model_runs back to back: run 0 is a warm-up; nodes all fall in a run. */
Test(runs, real_ort_eleven_model_runs)
{
	struct osc_trace t;
	struct osc_runs r;

	fx_load(&t, "samples/ort-resnet18-opt.json");
	osc_runs_detect(&t, &r);
	cr_assert_eq(r.source, OSC_RUNS_MODEL_RUN);
	cr_assert_eq(r.nr, 11);
	cr_expect(r.warmup);
	for (size_t i = 1; i < r.nr; i++)
		cr_expect_leq(r.runs[i - 1].ts + r.runs[i - 1].dur, r.runs[i].ts, "runs overlap");
	for (size_t i = 0; i < t.nr_events; i++)
		if (t.events[i].kind == OSC_KIND_HOST_OP)
			cr_assert_neq(r.run_of[i], OSC_NONE, "node %zu outside every run", i);
	check_counts(&t, &r);
	osc_runs_release(&r);
	osc_trace_release(&t);
}

/* HTA-subsampled Kineto trace: no flow events, kernels link by args.correlation. */
Test(runs, real_kineto_kernels_follow_launches)
{
	struct osc_trace t;
	struct osc_runs r;

	fx_load(&t, "samples/kineto-sampled-rank0.json.gz");
	osc_runs_detect(&t, &r);
	cr_assert_eq(r.source, OSC_RUNS_PROFILER_STEP);
	cr_assert_eq(r.nr, 2);
	cr_expect_str_eq(osc_trace_str(&t, r.runs[0].name), "ProfilerStep#551");
	cr_expect_str_eq(osc_trace_str(&t, r.runs[1].name), "ProfilerStep#552");
	cr_expect_not(r.warmup);
	check_launches(&t, &r);
	check_counts(&t, &r);
	osc_runs_release(&r);
	osc_trace_release(&t);
}

/* From ../shared/traces: ns-resolution Kineto with 5 steps and ac2g/fwdbwd flows. */
Test(runs, real_shared_kineto_ns_resolution)
{
	struct osc_trace t;
	struct osc_runs r;

	fx_load(&t, "../shared/traces/hta/ns_resolution_trace/"
		    "rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz");
	osc_runs_detect(&t, &r);
	cr_assert_eq(r.source, OSC_RUNS_PROFILER_STEP);
	cr_assert_eq(r.nr, 5);
	cr_expect_str_eq(osc_trace_str(&t, r.runs[0].name), "ProfilerStep#101");
	cr_expect_str_eq(osc_trace_str(&t, r.runs[4].name), "ProfilerStep#105");
	check_launches(&t, &r);
	check_counts(&t, &r);
	osc_runs_release(&r);
	osc_trace_release(&t);
}

/* Windows merged into spans: [from, to), the covering run and the count of each. */
Test(runs, spans_merge_overlapping_windows)
{
	/* 0 [0,10) and 1 [0,20) start together (the longer one covers); 2 [5,15)
	   nests; 3 [20,30) only touches; 4 [30,40) touches 3 while 5 [35,50)
	   overlaps 4 without nesting (no cover); 6 [60,60) is empty */
	struct osc_run_span s[] = {
		{ 0, 10, 0, 1 }, { 0, 20, 1, 1 }, { 5, 15, 2, 1 }, { 20, 30, 3, 1 },
		{ 30, 40, 4, 1 }, { 35, 50, 5, 1 }, { 60, 60, 6, 1 },
	};
	const struct osc_run_span want[] = {
		{ 0, 20, 1, 3 }, { 20, 30, 3, 1 }, { 30, 50, OSC_NONE, 2 }, { 60, 60, 6, 1 },
	};
	size_t n = osc_run_spans_merge(s, sizeof(s) / sizeof(s[0]));

	cr_assert_eq(n, sizeof(want) / sizeof(want[0]));
	for (size_t i = 0; i < n; i++) {
		cr_expect_eq(s[i].from, want[i].from, "span %zu", i);
		cr_expect_eq(s[i].to, want[i].to, "span %zu", i);
		cr_expect_eq(s[i].cover, want[i].cover, "span %zu", i);
		cr_expect_eq(s[i].nr, want[i].nr, "span %zu", i);
	}
	/* the longer first: it covers still */
	struct osc_run_span t[] = { { 0, 20, 1, 1 }, { 0, 10, 0, 1 } };

	cr_expect_eq(osc_run_spans_merge(t, 2), 1);
	cr_expect_eq(t[0].cover, 1);
	cr_expect_eq(t[0].nr, 2);
	/* windows in any order (a summary file's runs): sorted first */
	struct osc_run_span u[] = { { 30, 40, 2, 1 }, { 0, 10, 0, 1 }, { 5, 35, 1, 1 } };

	cr_expect_eq(osc_run_spans_merge(u, 3), 1);
	cr_expect_eq(u[0].from, 0);
	cr_expect_eq(u[0].to, 40);
	cr_expect_eq(u[0].cover, OSC_NONE);
	cr_expect_eq(u[0].nr, 3);
}
