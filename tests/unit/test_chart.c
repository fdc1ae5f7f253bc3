/* test_chart.c - bar cells, sparkline levels and per-run totals. */
#include <criterion/criterion.h>
#include <math.h>

#include "opscope/export/chart.h"
#include "trace_fixture.h"

Test(chart, bars_in_eighths_and_ascii)
{
	char buf[64];

	cr_expect_str_eq(osc_chart_bar(1.0, 4, true, buf, sizeof(buf)), "████");
	cr_expect_str_eq(osc_chart_bar(0.5, 3, true, buf, sizeof(buf)), "█▌");
	cr_expect_str_eq(osc_chart_bar(0.5, 3, false, buf, sizeof(buf)), "#:");
	/* Anything above zero shows the smallest mark; zero, NaN and negatives show nothing. */
	cr_expect_str_eq(osc_chart_bar(0.0001, 10, true, buf, sizeof(buf)), "▏");
	cr_expect_str_eq(osc_chart_bar(0.0001, 10, false, buf, sizeof(buf)), ".");
	/* ASCII tells 0.2% from 15% (issue 16: both showed "#") */
	cr_expect_str_eq(osc_chart_bar(0.002, 10, false, buf, sizeof(buf)), ".");
	cr_expect_str_eq(osc_chart_bar(0.15, 10, false, buf, sizeof(buf)), "#:");
	cr_expect_str_eq(osc_chart_bar(0.12, 10, false, buf, sizeof(buf)), "#.");
	cr_expect_str_eq(osc_chart_bar(0, 10, true, buf, sizeof(buf)), "");
	cr_expect_str_eq(osc_chart_bar(NAN, 10, true, buf, sizeof(buf)), "");
	cr_expect_str_eq(osc_chart_bar(-1, 10, true, buf, sizeof(buf)), "");
	cr_expect_str_eq(osc_chart_bar(7, 2, false, buf, sizeof(buf)), "##");
	/* A small buffer is never overrun. */
	cr_expect_str_eq(osc_chart_bar(1, 10, true, buf, 8), "██");
}

Test(chart, spark_levels)
{
	double v[] = { 10, 20, 15, 30, NAN };
	int lv[5];
	char buf[64];

	osc_chart_levels(v, 5, 8, lv);
	/* min 0 (the NaN), max 30: 10 -> 2.33 -> 2, 20 -> 4.67 -> 5, 15 -> 3.5 -> 4, 30 -> 7 */
	cr_expect_eq(lv[0], 2);
	cr_expect_eq(lv[1], 5);
	cr_expect_eq(lv[2], 4);
	cr_expect_eq(lv[3], 7);
	cr_expect_eq(lv[4], 0);
	cr_expect_str_eq(osc_chart_spark(v, 5, true, buf, sizeof(buf)), "▃▆▅█▁");
	cr_expect_str_eq(osc_chart_spark(v, 5, false, buf, sizeof(buf)), ":+=# ");
	/* All equal: the lowest level. */
	double same[] = { 3, 3 };
	cr_expect_str_eq(osc_chart_spark(same, 2, false, buf, sizeof(buf)), "  ");
}

Test(chart, run_totals)
{
	static const struct fx_event ev[] = {
		FX("ProfilerStep#1", RUN, 0, 100), FX("a", HOST_OP, 10, 5), FX("a", HOST_OP, 20, 6),
		FX("ProfilerStep#2", RUN, 100, 100), FX("a", HOST_OP, 110, 7),
		FX("a", HOST_OP, 300, 9),
	};
	struct osc_trace t;
	struct osc_runs runs;
	uint32_t members[4];
	double out[2];
	size_t k = 0;

	fx_build(&t, OSC_FORMAT_KINETO, ev, FX_LEN(ev));
	osc_runs_detect(&t, &runs);
	cr_assert_eq(runs.nr, 2);
	for (size_t i = 0; i < t.nr_events; i++)
		if (t.events[i].kind == OSC_KIND_HOST_OP)
			members[k++] = (uint32_t)i;
	osc_chart_run_totals(&t, &runs, members, k, out);
	cr_expect_float_eq(out[0], 11.0, 1e-12);
	cr_expect_float_eq(out[1], 7.0, 1e-12); /* the event at 300 is in no run */
	osc_runs_release(&runs);
	osc_trace_release(&t);
}

/* On a fixed scale, a half-busy bucket is the middle glyph however busy the others are. */
Test(chart, spark_on_a_fixed_scale)
{
	static const double v[] = { 0.5, 0.5, 0.0, 1.5 };
	char buf[64];

	/* levels of 0.5 (3.5 -> 4), 0.5, 0 and 1.5 clamped to 1 (7) */
	cr_expect_str_eq(osc_chart_spark_range(v, 4, 0, 1, false, buf, sizeof(buf)), "== #");
	/* on the values' own range 0 .. 1.5, 0.5 is level 2 (2.33) */
	cr_expect_str_eq(osc_chart_spark(v, 4, false, buf, sizeof(buf)), ":: #");
}
