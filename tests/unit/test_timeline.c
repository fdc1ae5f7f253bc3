/* Unit tests of timeline.c and timeline_draw.c: lanes, busy time, cells, steps, drawing. */
#include <criterion/criterion.h>
#include <locale.h>
#include <string.h>

#include "opscope/analysis/timeline.h"
#include "opscope/export/timeline_draw.h"
#include "tree_fixture.h"

/*
 * Thread 0 (host):
 *   step  [0, 100)          depth 0
 *   a     [10, 40)          depth 1, holds a1 [15, 25) at depth 2
 *   b     [35, 60)          overlaps a without nesting: first fit puts it at depth 2
 *   c     [60, 60)          zero length, depth 1
 *   py    [20, 30)          python frame: not drawn
 * Thread 1 (device): k1 [20, 30), k2 [50, 80), k3 [70, 75) (overlaps k2: depth 1)
 */
static const struct tx_event fx[] = {
	TX("step", RUN, 0, 0, 100, 0, 0, NULL),
	TX("a", HOST_OP, 0, 10, 30, 0, 0, NULL),
	TX("a1", HOST_OP, 0, 15, 10, 0, 0, NULL),
	TX("py", PYTHON, 0, 20, 10, 0, 0, NULL),
	TX("b", HOST_OP, 0, 35, 25, 0, 0, NULL),
	TX("c", HOST_OP, 0, 60, 0, 0, 0, NULL),
	TX("k1", KERNEL, 1, 20, 10, 0, 0, NULL),
	TX("k2", KERNEL, 1, 50, 30, 0, 0, NULL),
	TX("k3", KERNEL, 1, 70, 5, 0, 0, NULL),
};

static struct osc_trace t;
static struct osc_timeline tl;

static void setup(void)
{
	tx_build(&t, OSC_FORMAT_KINETO, fx, FX_LEN(fx));
	osc_timeline_build(&t, &tl);
}

static void teardown(void)
{
	osc_timeline_release(&tl);
	osc_trace_release(&t);
}

TestSuite(timeline, .init = setup, .fini = teardown);

/* Names of the events of lane l, space-separated. */
static void lane_events(size_t l, char *buf, size_t size)
{
	buf[0] = '\0';
	for (size_t i = 0; i < tl.lanes[l].nr; i++)
		snprintf(buf + strlen(buf), size - strlen(buf), "%s%s", i ? " " : "",
			 osc_strtab_get(&t.strs, t.events[tl.lanes[l].ev[i]].name));
}

Test(timeline, lanes_by_first_fit)
{
	char buf[256];

	/* host group: union + 3 depths; device group: union + 2 depths */
	cr_assert_eq(tl.nr_groups, 2);
	cr_assert_eq(tl.nr_lanes, 7);
	cr_assert(!tl.groups[0].device && tl.groups[1].device);
	cr_assert_eq(tl.lanes[0].thread, OSC_NONE);
	lane_events(1, buf, sizeof(buf));
	cr_assert_str_eq(buf, "step");
	lane_events(2, buf, sizeof(buf));
	cr_assert_str_eq(buf, "a c");
	lane_events(3, buf, sizeof(buf));
	cr_assert_str_eq(buf, "a1 b");
	cr_assert_eq(tl.lanes[4].thread, OSC_NONE);
	lane_events(5, buf, sizeof(buf));
	cr_assert_str_eq(buf, "k1 k2");
	lane_events(6, buf, sizeof(buf));
	cr_assert_str_eq(buf, "k3");
	cr_assert_eq(tl.from, 0);
	cr_assert_eq(tl.to, 100);
	cr_assert_eq(tl.too_deep, 0);
}

Test(timeline, union_lanes)
{
	const struct osc_tl_lane *u = &tl.lanes[4]; /* device: [20,30) [50,80) */

	cr_assert_eq(u->nr, 2);
	cr_assert_eq(u->start[0], 20);
	cr_assert_eq(osc_tl_end(u, 0), 30);
	cr_assert_eq(u->start[1], 50);
	cr_assert_eq(osc_tl_end(u, 1), 80);
	cr_assert_eq(tl.lanes[0].nr, 1); /* host: the step holds everything */
	cr_assert_eq(osc_tl_busy(&tl.lanes[0], 0, 100), 100);
}

Test(timeline, busy_in_windows)
{
	const struct osc_tl_lane *l = &tl.lanes[3]; /* a1 [15,25) b [35,60) */

	cr_assert_eq(osc_tl_busy(l, 0, 100), 35);
	cr_assert_eq(osc_tl_busy(l, 20, 40), 5 + 5);
	cr_assert_eq(osc_tl_busy(l, 16, 17), 1);
	cr_assert_eq(osc_tl_busy(l, 25, 35), 0);
	cr_assert_eq(osc_tl_busy(l, 59, 1000), 1);
	cr_assert_eq(osc_tl_busy(&tl.lanes[4], 25, 55), 5 + 5);
}

Test(timeline, range_at_step)
{
	const struct osc_tl_lane *l = &tl.lanes[2]; /* a [10,40) c [60,60) */
	size_t lo;

	cr_assert_eq(osc_tl_range(l, 0, 100, &lo), 2);
	cr_assert_eq(lo, 0);
	cr_assert_eq(osc_tl_range(l, 39, 41, &lo), 1);
	cr_assert_eq(osc_tl_range(l, 40, 60, &lo), 0);
	cr_assert_eq(osc_tl_range(l, 60, 61, &lo), 1); /* the zero-length c */
	cr_assert_eq(lo, 1);
	cr_assert_eq(osc_tl_at(l, 10), 0);
	cr_assert_eq(osc_tl_at(l, 39), 0);
	cr_assert_eq(osc_tl_at(l, 40), OSC_TL_NONE);
	cr_assert_eq(osc_tl_at(l, 60), 1);
	cr_assert_eq(osc_tl_at(l, 5), OSC_TL_NONE);
	cr_assert_eq(osc_tl_step(l, 10, 1), 1);
	cr_assert_eq(osc_tl_step(l, 60, 1), OSC_TL_NONE);
	cr_assert_eq(osc_tl_step(l, 60, -1), 0);
	cr_assert_eq(osc_tl_step(l, 10, -1), OSC_TL_NONE);
}

Test(timeline, find)
{
	size_t lane, index;

	cr_assert(osc_tl_find(&tl, &t, (uint32_t)fx_find(&t, "b"), &lane, &index));
	cr_assert_eq(lane, 3);
	cr_assert_eq(index, 1);
	cr_assert(osc_tl_find(&tl, &t, (uint32_t)fx_find(&t, "k3"), &lane, &index));
	cr_assert_eq(lane, 6);
	cr_assert_not(osc_tl_find(&tl, &t, (uint32_t)fx_find(&t, "py"), &lane, &index));
}

Test(timeline, cells)
{
	struct osc_tl_cell c[5];
	size_t marked[] = { 1 }; /* b */

	/* lane 3 (a1 [15,25) b [35,60)) in cells of 10 from 10 */
	osc_tl_cells(&tl.lanes[3], 10, 10, 5, marked, 1, c);
	cr_assert_eq(c[0].busy, 5);  /* [10,20): a1 from 15 */
	cr_assert_eq(c[1].busy, 5);  /* [20,30): a1 to 25 */
	cr_assert_eq(c[2].busy, 5);  /* [30,40): b from 35 */
	cr_assert_eq(c[3].busy, 10);
	cr_assert_eq(c[4].busy, 10);
	cr_assert_eq(c[0].shown, 0); /* middle 15 is in a1 */
	cr_assert_eq(c[1].shown, 0); /* middle 25: none, the first overlapping is a1 */
	cr_assert_eq(c[2].shown, 1);
	cr_assert_not(c[0].marked);
	cr_assert_not(c[1].marked);
	cr_assert(c[2].marked && c[3].marked && c[4].marked);
}

Test(timeline, runs_window)
{
	struct osc_runs r;
	struct osc_runsel sel;
	struct osc_error err;
	int64_t from, to;

	osc_runs_detect(&t, &r);
	cr_assert_eq(osc_runsel_parse(NULL, r.nr, r.warmup, &sel, &err), OSC_OK);
	osc_tl_runs_window(&tl, &r, &sel, &from, &to);
	cr_assert_eq(from, 0);
	cr_assert_eq(to, 100);
	osc_tl_runs_window(&tl, &r, NULL, &from, &to);
	cr_assert_eq(from, 0);
	cr_assert_eq(to, 100);
	osc_runsel_release(&sel);
	osc_runs_release(&r);
}

/* The glyphs of lane l over [t0, t0 + 10 n) as one string. */
static void draw(size_t l, int64_t t0, int64_t cell, size_t n, bool utf8, char *buf, size_t size)
{
	struct osc_tl_glyph g[64];
	struct osc_tl_cell c[64];
	struct osc_tl_window w = { t0, cell, n };

	osc_tl_draw_lane(&t, NULL, &tl, l, &w, NULL, 0, utf8, c, g);
	buf[0] = '\0';
	for (size_t i = 0; i < n; i++)
		snprintf(buf + strlen(buf), size - strlen(buf), "%s", g[i].glyph);
}

Test(timeline, draw_ascii_and_utf8)
{
	char buf[512];

	/* lane 3 over [10, 60) by 10: a1 half, a1 half, b half, b, b */
	draw(3, 10, 10, 5, false, buf, sizeof(buf));
	cr_assert_str_eq(buf, "===##");
	draw(3, 10, 10, 5, true, buf, sizeof(buf));
	cr_assert_str_eq(buf, "\xe2\x96\x8c\xe2\x96\x8c\xe2\x96\x8c\xe2\x96\x88\xe2\x96\x88");
	/* the device's union lane shows idle cells: [0,20) idle, [20,30) busy ... */
	draw(4, 0, 10, 10, false, buf, sizeof(buf));
	cr_assert_str_eq(buf, "..#..###..");
	/* a name over 8 full cells of one event: step over [0, 80) by 10 */
	draw(1, 0, 10, 8, false, buf, sizeof(buf));
	cr_assert_str_eq(buf, "step####");
	/* one cell busy for 1 ns of 100 still shows the thinnest mark */
	draw(3, 59, 100, 1, false, buf, sizeof(buf));
	cr_assert_str_eq(buf, "-");
}

Test(timeline, ruler_and_text)
{
	struct osc_tl_glyph g[40];
	struct osc_tl_window w = { 1000000, 1000, 40 };
	char buf[256] = "";

	osc_tl_draw_ruler(&w, 0, false, g);
	for (size_t i = 0; i < 40; i++)
		snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "%s", g[i].glyph);
	cr_assert_str_eq(buf, "|1ms            |1.016ms        |1.032ms");
	cr_assert_eq(osc_tl_put_text(g, 5, "abcdefgh", OSC_TL_LOOK_NAME, false), 5);
	cr_assert_str_eq(g[2].glyph, "~");
	setlocale(LC_CTYPE, "C.UTF-8");
	cr_assert_eq(osc_tl_put_text(g, 4, "\xe6\x97\xa5\xe6\x9c\xac", OSC_TL_LOOK_NAME, true), 4);
	cr_assert_str_eq(g[0].glyph, "\xe6\x97\xa5");
	cr_assert_str_eq(g[1].glyph, "");
}
