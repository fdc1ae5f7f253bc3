/*
 * chart.h - the pure part of the terminal charts: bar cells and sparklines.
 *
 * The TUI draws a bar column (total time per row) and a sparkline of a row's
 * time per run; this module only turns numbers into text, so tests can check
 * the glyphs without a terminal. UTF-8 output uses block elements (eighths
 * for bars, "▁▂▃▄▅▆▇█" for sparklines); the ASCII fallback uses '#' for bars,
 * with '.' or ':' for a partial cell below or from half a cell, and " .:-=+*#"
 * for sparklines.
 */
#ifndef OPSCOPE_CHART_H
#define OPSCOPE_CHART_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "opscope/model/runs.h"
#include "opscope/model/trace.h"

/*
 * A bar of frac (clamped to [0, 1]) of `width` cells into buf: full cells,
 * then one partial cell in eighths (UTF-8), or '.' (under half a cell) or
 * ':' (ASCII); frac > 0 always shows at least the smallest mark. No padding.
 * Returns buf.
 */
const char *osc_chart_bar(double frac, size_t width, bool utf8, char *buf, size_t size);

/*
 * Level 0..levels-1 of each value: (v - min) / (max - min) scaled and
 * rounded half up; every level is 0 when max == min. NaN counts as 0.
 */
void osc_chart_levels(const double *v, size_t n, int levels, int *out);

/* One glyph per value (its level of 8) into buf. Returns buf. */
const char *osc_chart_spark(const double *v, size_t n, bool utf8, char *buf, size_t size);

/*
 * The same on the fixed scale [lo, hi] (values outside are clamped), so
 * that sparklines compare by eye (a busy share from 0 to 1); lo or hi NaN:
 * the values' own range, as osc_chart_spark.
 */
const char *osc_chart_spark_range(const double *v, size_t n, double lo, double hi, bool utf8,
				  char *buf, size_t size);

/*
 * Time per run of events ev[0..n) (ns): out[r] for r < runs->nr, events in
 * no run are left out. out must hold runs->nr values; it is zeroed first.
 */
void osc_chart_run_totals(const struct osc_trace *t, const struct osc_runs *runs,
			  const uint32_t *ev, size_t n, double *out);

#endif
