/*
 * aggregate.h - group events into rows and compute their statistics.
 *
 * A query picks a level (what a row is), the runs and a filter. Each row has
 * count, total, min, max, mean, p50/p90/p99, stddev, pct and cum_pct, and the
 * list of its member events for drill-down.
 *
 * Definitions (tests recompute them independently):
 * - op level: host op events (kind HOST_OP) keyed by their op key; fences,
 *   runs, sessions and executor events are not ops. kernel level: device
 *   events of kind KERNEL keyed by name.
 * - durations in ns; mean = total / count;
 * - percentiles interpolate linearly between closest ranks (numpy's default):
 *   p = sorted[(n-1)*q] with fractional ranks interpolated;
 * - stddev is the sample standard deviation (n-1 denominator), 0 when n == 1;
 * - pct = 100 * total / sum of totals over all rows (before any top-N cut);
 *   cum_pct accumulates pct in the current row order.
 */
#ifndef OPSCOPE_AGGREGATE_H
#define OPSCOPE_AGGREGATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "opscope/filter.h"
#include "opscope/runs.h"
#include "opscope/status.h"
#include "opscope/trace.h"

/* X-macro: aggregation levels with their --by name. */
#define OSC_LEVEL_LIST(_)  \
	_(OP, "op")        \
	_(KERNEL, "kernel")

enum osc_level {
#define OSC_LEVEL_ENUM(name, text) OSC_LEVEL_##name,
	OSC_LEVEL_LIST(OSC_LEVEL_ENUM)
#undef OSC_LEVEL_ENUM
	OSC_LEVEL_COUNT
};

const char *osc_level_name(enum osc_level l);
/* Level by --by name; OSC_USAGE (subject "--by", listing the valid names) if unknown. */
enum osc_status osc_level_parse(const char *name, enum osc_level *out, struct osc_error *err);

struct osc_agg_row {
	osc_str key;       /* the row's name */
	uint64_t count;
	int64_t total, min, max; /* ns */
	double mean, p50, p90, p99, stddev; /* ns */
	double pct, cum_pct;     /* percent */
	size_t first, nr;        /* members: agg->members[first .. first+nr), by ts */
};

struct osc_query {
	enum osc_level level;
	const struct osc_runsel *runs;  /* NULL: every event, in a run or not */
	const struct osc_filter *filter; /* NULL or empty: no filter */
};

struct osc_agg {
	struct osc_agg_row *rows;
	size_t nr;
	uint32_t *members;   /* event indices, grouped by row */
	size_t nr_members;
	int64_t grand_total; /* sum of row totals, ns */
	enum osc_level level;
};

/*
 * Aggregate t per q into out (rows sorted by total descending, ties by name).
 * runs is needed when q->runs is set. Only reads t, runs and q (the filter's
 * regex is matched with private match data), so it may run on a worker
 * thread while other threads read the same inputs.
 */
void osc_aggregate(const struct osc_trace *t, const struct osc_runs *runs,
		   const struct osc_query *q, struct osc_agg *out);
void osc_agg_release(struct osc_agg *a);

/* X-macro: the sortable statistics (also the column ids of columns.h). */
#define OSC_STAT_LIST(_)                                  \
	_(NAME, "name")                                   \
	_(COUNT, "count")                                 \
	_(TOTAL, "total_us")                              \
	_(MEAN, "mean_us")                                \
	_(MIN, "min_us")                                  \
	_(MAX, "max_us")                                  \
	_(P50, "p50_us")                                  \
	_(P90, "p90_us")                                  \
	_(P99, "p99_us")                                  \
	_(STDDEV, "stddev_us")                            \
	_(PCT, "pct")                                     \
	_(CUM_PCT, "cum_pct")

enum osc_stat {
#define OSC_STAT_ENUM(name, text) OSC_STAT_##name,
	OSC_STAT_LIST(OSC_STAT_ENUM)
#undef OSC_STAT_ENUM
	OSC_STAT_NR /* number of statistics (COUNT is the count column) */
};

/*
 * Reorder rows by a statistic (names compare bytewise; ties by name, then
 * key id) and recompute cum_pct in the new order. Sorting by CUM_PCT sorts
 * by total.
 */
void osc_agg_sort(struct osc_agg *a, const struct osc_trace *t, enum osc_stat by,
		  bool descending);

/* Keep the first n rows (n == 0 keeps all). pct values are unchanged. */
void osc_agg_truncate(struct osc_agg *a, size_t n);

#endif
