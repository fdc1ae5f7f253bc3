/*
 * histogram.c - bins of a set of durations (histogram.h has the rule).
 *
 * Limits: the values are sorted on a copy (O(n log n), n the instances of
 * one row); edges are int64 ns and saturate at INT64_MAX; a nice width is at
 * most 5 x 10^18 ns.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opscope/analysis/columns.h"
#include "opscope/analysis/histogram.h"
#include "opscope/base/alloc.h"
#include "opscope/base/sat.h"
#include "base/stats.h"

static const char *const scale_names[OSC_HIST_SCALE_NR] = {
#define OSC_HIST_SCALE_NAME(name, text) text,
	OSC_HIST_SCALE_LIST(OSC_HIST_SCALE_NAME)
#undef OSC_HIST_SCALE_NAME
};

enum osc_status osc_hist_scale_parse(const char *name, enum osc_hist_scale *out,
				     struct osc_error *err)
{
	for (int s = 0; s < OSC_HIST_SCALE_NR; s++) {
		if (!strcmp(name, scale_names[s])) {
			*out = (enum osc_hist_scale)s;
			return OSC_OK;
		}
	}
	return osc_error_set(err, OSC_USAGE, "--scale", OSC_NO_OFFSET, NULL,
			     "unknown scale '%s' (valid: auto, linear, log)", name);
}

const char *osc_hist_scale_name(enum osc_hist_scale s)
{
	return s < OSC_HIST_SCALE_NR ? scale_names[s] : "?";
}

static int cmp_i64(const void *pa, const void *pb)
{
	int64_t a = *(const int64_t *)pa, b = *(const int64_t *)pb;

	return (a > b) - (a < b);
}

/* The largest nice value (1, 2 or 5 x 10^k) that fits in int64. */
#define NICE_MAX 5000000000000000000LL

/* The smallest nice value >= x (x > 0); NICE_MAX for anything larger. */
static int64_t nice_at_least(double x)
{
	for (int64_t p = 1;; p *= 10) {
		if ((double)p >= x)
			return p;
		if ((double)(2 * p) >= x)
			return 2 * p;
		if ((double)(5 * p) >= x || 5 * p == NICE_MAX)
			return 5 * p;
	}
}

/* The nice value after w (w nice). */
static int64_t nice_next(int64_t w)
{
	int64_t p = 1;

	if (w >= NICE_MAX)
		return NICE_MAX;
	while (p <= w / 10)
		p *= 10;
	return w == p ? 2 * p : w == 2 * p ? 5 * p : 10 * p;
}

/* floor(a / b), b > 0. */
static int64_t floor_div(int64_t a, int64_t b)
{
	int64_t q = a / b;

	return (a % b != 0 && a < 0) ? q - 1 : q;
}

/* Linear bins of the rule over sorted s[0..n), max > min. */
static void linear_bins(const int64_t *s, size_t n, size_t max_bins, struct osc_hist *h)
{
	double range = (double)h->max - (double)h->min;
	double iqr = h->p75 - h->p25;
	double raw = iqr > 0 ? 2.0 * iqr / cbrt((double)n) : range / ceil(sqrt((double)n));
	int64_t w, first;
	size_t nr;

	if (raw < range / (double)max_bins)
		raw = range / (double)max_bins;
	w = nice_at_least(raw > 1 ? raw : 1);
	for (;;) {
		first = floor_div(h->min, w);
		nr = (size_t)(floor_div(h->max, w) - first + 1);
		if (nr <= max_bins || w >= NICE_MAX)
			break;
		w = nice_next(w);
	}
	h->width = w;
	h->nr = nr;
	h->bins = osc_xcalloc(nr, sizeof(*h->bins));
	for (size_t i = 0; i < nr; i++) {
		h->bins[i].lo = osc_sat_add(first * w, (int64_t)i * w);
		h->bins[i].hi = osc_sat_add(h->bins[i].lo, w);
	}
	for (size_t i = 0, b = 0; i < n; i++) {
		while (b + 1 < nr && s[i] >= h->bins[b].hi)
			b++;
		h->bins[b].count++;
	}
}

/* Edge k of a log series with `per` edges a decade (3: 1-2-5) or one every `per` decades. */
static double log_edge(long k, int per, bool decades)
{
	static const double mant[3] = { 1, 2, 5 };

	if (decades)
		return pow(10.0, (double)(k * per));
	return mant[((k % 3) + 3) % 3] * pow(10.0, (double)(k >= 0 ? k / 3 : (k - 2) / 3));
}

/* Log bins of the rule over sorted s[0..n), max > min, max >= 1. */
static void log_bins(const int64_t *s, size_t n, size_t max_bins, struct osc_hist *h)
{
	double lo = h->min >= 1 ? (double)h->min : 1, hi = (double)h->max;
	bool decades = false;
	int per = 3;
	long k0, k1;

	for (;;) {
		/* the largest edge <= lo, then the smallest edge > hi */
		k0 = 0;
		while (log_edge(k0 + 1, per, decades) <= lo)
			k0++;
		k1 = k0 + 1;
		while (log_edge(k1, per, decades) <= hi)
			k1++;
		if ((size_t)(k1 - k0) <= max_bins)
			break;
		if (!decades) {
			decades = true;
			per = 1;
		} else {
			per++;
		}
	}
	h->nr = (size_t)(k1 - k0);
	h->bins = osc_xcalloc(h->nr, sizeof(*h->bins));
	for (size_t i = 0; i < h->nr; i++) {
		double a = log_edge(k0 + (long)i, per, decades);
		double b = log_edge(k0 + (long)i + 1, per, decades);

		h->bins[i].lo = a >= 9.2e18 ? INT64_MAX : (int64_t)llround(a);
		h->bins[i].hi = b >= 9.2e18 ? INT64_MAX : (int64_t)llround(b);
	}
	if (h->min < h->bins[0].lo) /* under 1 ns */
		h->bins[0].lo = h->min;
	for (size_t i = 0, b = 0; i < n; i++) {
		while (b + 1 < h->nr && s[i] >= h->bins[b].hi)
			b++;
		h->bins[b].count++;
	}
}

void osc_hist_build(const int64_t *v, size_t n, size_t max_bins, enum osc_hist_scale scale,
		    struct osc_hist *out)
{
	struct osc_stats st;
	int64_t *s;

	memset(out, 0, sizeof(*out));
	if (!n)
		return;
	max_bins = max_bins < 1 ? 1 : max_bins > OSC_HIST_MAX_BINS ? OSC_HIST_MAX_BINS : max_bins;
	s = osc_xmalloc(n * sizeof(*s));
	memcpy(s, v, n * sizeof(*s));
	osc_stats_compute(s, n, &st); /* the statistics report's columns give */
	qsort(s, n, sizeof(*s), cmp_i64);
	out->count = st.count;
	out->min = st.min;
	out->max = st.max;
	out->mean = st.mean;
	out->p25 = osc_stats_percentile_sorted(s, n, 0.25);
	out->p50 = st.p50;
	out->p75 = osc_stats_percentile_sorted(s, n, 0.75);
	out->p90 = st.p90;
	out->p99 = st.p99;
	if (scale == OSC_HIST_AUTO)
		scale = out->min >= 1 && (double)out->max >= 100.0 * (double)out->min
			? OSC_HIST_LOG : OSC_HIST_LINEAR;
	if (out->min == out->max || max_bins == 1) {
		out->nr = 1;
		out->bins = osc_xcalloc(1, sizeof(*out->bins));
		out->bins[0] = (struct osc_hist_bin){ out->min, out->max, n };
	} else if (scale == OSC_HIST_LOG && out->max >= 1) {
		out->log = true;
		log_bins(s, n, max_bins, out);
	} else {
		linear_bins(s, n, max_bins, out);
	}
	for (size_t b = 0; b < out->nr; b++) {
		if (out->bins[b].count > out->max_count) {
			out->max_count = out->bins[b].count;
			out->mode = b;
		}
	}
	free(s);
}

void osc_hist_release(struct osc_hist *h)
{
	free(h->bins);
	memset(h, 0, sizeof(*h));
}

static const struct osc_column hist_cols[OSC_HIST_COL_NR] = {
	[OSC_HIST_COL_BIN] = { "bin", 3, OSC_ALIGN_RIGHT, true, OSC_STAT_COUNT },
	[OSC_HIST_COL_LO] = { "lo_us", 8, OSC_ALIGN_RIGHT, true, OSC_STAT_COUNT },
	[OSC_HIST_COL_HI] = { "hi_us", 8, OSC_ALIGN_RIGHT, true, OSC_STAT_COUNT },
	[OSC_HIST_COL_COUNT] = { "count", 5, OSC_ALIGN_RIGHT, true, OSC_STAT_COUNT },
	[OSC_HIST_COL_PCT] = { "pct", 6, OSC_ALIGN_RIGHT, true, OSC_STAT_COUNT },
	[OSC_HIST_COL_CUM_PCT] = { "cum_pct", 7, OSC_ALIGN_RIGHT, true, OSC_STAT_COUNT },
};

const struct osc_column *osc_hist_columns(size_t *nr)
{
	*nr = OSC_HIST_COL_NR;
	return hist_cols;
}

const char *osc_hist_cell(const struct osc_hist *h, size_t row, size_t col, char *buf,
			  size_t size)
{
	const struct osc_hist_bin *b = &h->bins[row];
	uint64_t cum = 0;

	switch (col) {
	case OSC_HIST_COL_BIN:
		snprintf(buf, size, "%zu", row);
		break;
	case OSC_HIST_COL_LO:
		osc_format_us_int(b->lo, buf, size);
		break;
	case OSC_HIST_COL_HI:
		osc_format_us_int(b->hi, buf, size);
		break;
	case OSC_HIST_COL_COUNT:
		snprintf(buf, size, "%llu", (unsigned long long)b->count);
		break;
	case OSC_HIST_COL_PCT:
		osc_format_pct(h->count ? 100.0 * (double)b->count / (double)h->count : 0, buf,
			       size);
		break;
	default:
		for (size_t i = 0; i <= row; i++)
			cum += h->bins[i].count;
		osc_format_pct(h->count ? 100.0 * (double)cum / (double)h->count : 0, buf, size);
		break;
	}
	return buf;
}
