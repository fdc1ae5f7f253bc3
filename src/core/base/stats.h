/*
 * stats.h - summary statistics of a set of durations (private to the core).
 *
 * Shared by every analysis that reports count/total/min/max/mean/percentiles/
 * stddev, so the definitions in aggregate.h are computed in exactly one place.
 */
#ifndef OPSCOPE_STATS_H
#define OPSCOPE_STATS_H

#include <stddef.h>
#include <stdint.h>

#include "opscope/base/sat.h"

struct osc_stats {
	uint64_t count;
	int64_t total, min, max; /* total saturates instead of overflowing */
	/* mean and stddev come from exact sums: within [min, max] whatever total is */
	double mean, p50, p90, p99, stddev;
};

/*
 * Statistics of v[0..n) (n may be 0: all zero). Reorders v in place (expected
 * O(n): percentiles use selection, not a full sort).
 */
void osc_stats_compute(int64_t *v, size_t n, struct osc_stats *out);

/* Only count, total, min, max and mean of v[0..n) (the rest zero); v is left as it is. */
void osc_stats_sums(const int64_t *v, size_t n, struct osc_stats *out);

/*
 * Percentile q (0..1) of sorted s[0..n), n > 0, by osc_stats_compute's rule
 * (for the percentiles it does not give, e.g. a histogram's quartiles).
 */
double osc_stats_percentile_sorted(const int64_t *s, size_t n, double q);

/* Median of v[0..n) (sorted in place): the middle value, the mean of the middle two for even n; 0 for none. */
double osc_stats_median(double *v, size_t n);

#endif
