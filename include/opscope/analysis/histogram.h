/*
 * histogram.h - the distribution of a set of durations as bins with stated
 * edges: the TUI's histogram view (one row's instances) and
 * `opscope report --histogram NAME`.
 *
 * The bin rule (the man page's HISTOGRAM repeats it; tests recompute it):
 * - scale: linear, log, or auto = log when min >= 1 ns and max >= 100 * min
 *   (two decades or more: a linear scale would put nearly everything in its
 *   first bin), else linear;
 * - linear: the Freedman-Diaconis width 2 * IQR / cbrt(n) (IQR = p75 - p25),
 *   or (max - min) / ceil(sqrt(n)) when the IQR is 0; at least
 *   (max - min) / max_bins; rounded up to a nice width of 1, 2 or 5 x 10^k ns.
 *   The edges are multiples of the width: bin i is [lo + i*w, lo + (i+1)*w)
 *   with lo = floor(min / w) * w, up to the bin holding max; when that is more
 *   than max_bins bins the width steps to the next nice value;
 * - log: edges on the 1-2-5 series (1, 2, 5, 10, 20, 50 ... ns), from the
 *   largest edge <= min to the smallest edge > max; when that needs more
 *   than max_bins bins, the decades (1, 10, 100 ... ns), then every 2nd,
 *   3rd ... decade, the first that fits. Values under 1 ns (a zero
 *   duration) fall into the first bin, whose lower edge is then min;
 * - all values equal: one bin [min, max]; no value: no bin;
 * - each bin is half-open [lo, hi), the last one closed [lo, hi] when it
 *   holds max (so every value is counted exactly once).
 * Statistics: percentiles interpolate linearly between closest ranks
 * (numpy's default, as aggregate.h); mean = total / count.
 */
#ifndef OPSCOPE_HISTOGRAM_H
#define OPSCOPE_HISTOGRAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "opscope/base/status.h"

/* X-macro: the scales with their --scale name. */
#define OSC_HIST_SCALE_LIST(_) \
	_(AUTO, "auto")        \
	_(LINEAR, "linear")    \
	_(LOG, "log")

enum osc_hist_scale {
#define OSC_HIST_SCALE_ENUM(name, text) OSC_HIST_##name,
	OSC_HIST_SCALE_LIST(OSC_HIST_SCALE_ENUM)
#undef OSC_HIST_SCALE_ENUM
	OSC_HIST_SCALE_NR
};

/* Scale by --scale name; OSC_USAGE (subject "--scale", listing the names) if unknown. */
enum osc_status osc_hist_scale_parse(const char *name, enum osc_hist_scale *out,
				     struct osc_error *err);
const char *osc_hist_scale_name(enum osc_hist_scale s);

#define OSC_HIST_DEFAULT_BINS 16 /* fits the histogram view on an 80x24 terminal */
#define OSC_HIST_MAX_BINS 1000   /* --bins at most */

struct osc_hist_bin {
	int64_t lo, hi;  /* ns: [lo, hi), the last bin [lo, hi] */
	uint64_t count;
};

struct osc_hist {
	struct osc_hist_bin *bins;
	size_t nr;
	bool log;           /* the bins are on the log scale */
	int64_t width;      /* linear: the bins' width, ns; log: 0 */
	uint64_t count;     /* values */
	int64_t min, max;   /* ns */
	double mean, p25, p50, p75, p90, p99; /* ns */
	uint64_t max_count; /* the fullest bin's count (the bars' scale) */
	size_t mode;        /* the fullest bin (the first of equals) */
};

/*
 * The histogram of v[0..n) (ns, any order, not changed) in at most max_bins
 * bins (clamped to 1..OSC_HIST_MAX_BINS) on scale into out (set up here;
 * release it with osc_hist_release). Pure: no allocation besides out's.
 */
void osc_hist_build(const int64_t *v, size_t n, size_t max_bins, enum osc_hist_scale scale,
		    struct osc_hist *out);
void osc_hist_release(struct osc_hist *h);

/*
 * The histogram as a table (export.h): bin, lo_us, hi_us, count, pct,
 * cum_pct. The columns, and the text of cell (row, col) into buf.
 */
struct osc_column;
const struct osc_column *osc_hist_columns(size_t *nr);
const char *osc_hist_cell(const struct osc_hist *h, size_t row, size_t col, char *buf,
			  size_t size);

/* Columns of osc_hist_columns. */
enum { OSC_HIST_COL_BIN, OSC_HIST_COL_LO, OSC_HIST_COL_HI, OSC_HIST_COL_COUNT,
       OSC_HIST_COL_PCT, OSC_HIST_COL_CUM_PCT, OSC_HIST_COL_NR };

#endif
