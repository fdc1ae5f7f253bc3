/* chart.c - bar cells and sparklines as text (see chart.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "opscope/base/alloc.h"
#include "opscope/export/chart.h"

/* Partial cells by eighths: index k is k/8 of a cell (0 unused). */
static const char *const eighths[9] = { "", "\xe2\x96\x8f", "\xe2\x96\x8e", "\xe2\x96\x8d",
					"\xe2\x96\x8c", "\xe2\x96\x8b", "\xe2\x96\x8a", "\xe2\x96\x89",
					"\xe2\x96\x88" };
static const char *const spark_utf8[8] = { "\xe2\x96\x81", "\xe2\x96\x82", "\xe2\x96\x83",
					   "\xe2\x96\x84", "\xe2\x96\x85", "\xe2\x96\x86",
					   "\xe2\x96\x87", "\xe2\x96\x88" };
static const char spark_ascii[8] = { ' ', '.', ':', '-', '=', '+', '*', '#' };

/* Append s if it fits with the NUL. */
static void put(char *buf, size_t size, size_t *at, const char *s)
{
	size_t n = strlen(s);

	if (*at + n >= size)
		return;
	memcpy(buf + *at, s, n);
	*at += n;
	buf[*at] = '\0';
}

const char *osc_chart_bar(double frac, size_t width, bool utf8, char *buf, size_t size)
{
	size_t at = 0, eighth_cells;

	if (!size)
		return buf;
	buf[0] = '\0';
	if (!(frac > 0) || !width)
		return buf;
	if (frac > 1)
		frac = 1;
	eighth_cells = (size_t)llround(frac * (double)width * 8);
	if (!eighth_cells)
		eighth_cells = 1;
	for (size_t i = 0; i < eighth_cells / 8; i++)
		put(buf, size, &at, utf8 ? eighths[8] : "#");
	/* ASCII has no eighths: '.' below half a cell, ':' from half on */
	if (eighth_cells % 8)
		put(buf, size, &at, utf8 ? eighths[eighth_cells % 8] : eighth_cells % 8 < 4 ? "." : ":");
	return buf;
}

/* Level 0..levels-1 of each value on the scale [lo, hi] (clamped). */
static void levels_in(const double *v, size_t n, double lo, double hi, int levels, int *out)
{
	for (size_t i = 0; i < n; i++) {
		double x = isnan(v[i]) ? 0 : v[i];

		x = x < lo ? lo : x > hi ? hi : x;
		out[i] = hi > lo ? (int)floor((x - lo) / (hi - lo) * (levels - 1) + 0.5) : 0;
	}
}

void osc_chart_levels(const double *v, size_t n, int levels, int *out)
{
	double lo = INFINITY, hi = -INFINITY;

	for (size_t i = 0; i < n; i++) {
		double x = isnan(v[i]) ? 0 : v[i];

		lo = x < lo ? x : lo;
		hi = x > hi ? x : hi;
	}
	levels_in(v, n, lo, hi, levels, out);
}

const char *osc_chart_spark(const double *v, size_t n, bool utf8, char *buf, size_t size)
{
	return osc_chart_spark_range(v, n, NAN, NAN, utf8, buf, size);
}

const char *osc_chart_spark_range(const double *v, size_t n, double lo, double hi, bool utf8,
				  char *buf, size_t size)
{
	int *levels = osc_xmalloc((n ? n : 1) * sizeof(*levels));
	size_t at = 0;

	if (size)
		buf[0] = '\0';
	if (isnan(lo) || isnan(hi))
		osc_chart_levels(v, n, 8, levels);
	else
		levels_in(v, n, lo, hi, 8, levels);
	for (size_t i = 0; i < n && size; i++) {
		char one[2] = { spark_ascii[levels[i]], '\0' };

		put(buf, size, &at, utf8 ? spark_utf8[levels[i]] : one);
	}
	free(levels);
	return buf;
}

void osc_chart_run_totals(const struct osc_trace *t, const struct osc_runs *runs,
			  const uint32_t *ev, size_t n, double *out)
{
	for (size_t r = 0; r < runs->nr; r++)
		out[r] = 0;
	for (size_t i = 0; i < n; i++) {
		uint32_t r = runs->run_of[ev[i]];

		if (r != OSC_NONE && r < runs->nr)
			out[r] += (double)t->events[ev[i]].dur;
	}
}
