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
 * - shape level: host ops keyed by (op key, input shapes); dims level:
 *   kernels keyed by (name, block and grid); run level: host ops keyed by
 *   the run they belong to (one row per run, even an empty one is left out);
 * - path level: host ops keyed by their merged call path (calltree.h's
 *   merged tree over the selected runs, names $$-joined from the root as in
 *   `opscope tree`'s CSV); a row's members are the instances of that path;
 * - mapping level: kernels keyed by (launching op, its input shapes, kernel
 *   name, dims), as ORT's profile_explorer op_kernel_mapping: a kernel
 *   counts only when its launching host op is known (q->launcher, or an ORT
 *   kernel's own args.op_name) and that (op, shapes) pair has instances in
 *   the selection (op_count); op_total sums the rows of one (op, shapes);
 * - per-run values divide by the number of selected runs (nr_runs);
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
#define OSC_LEVEL_LIST(_)    \
	_(OP, "op")          \
	_(SHAPE, "shape")    \
	_(KERNEL, "kernel")  \
	_(DIMS, "dims")      \
	_(MAPPING, "mapping") \
	_(RUN, "run")        \
	_(PATH, "path")

enum osc_level {
#define OSC_LEVEL_ENUM(name, text) OSC_LEVEL_##name,
	OSC_LEVEL_LIST(OSC_LEVEL_ENUM)
#undef OSC_LEVEL_ENUM
	OSC_LEVEL_COUNT
};

const char *osc_level_name(enum osc_level l);
/* Level by --by name; OSC_USAGE (subject "--by", listing the valid names) if unknown. */
enum osc_status osc_level_parse(const char *name, enum osc_level *out, struct osc_error *err);

/* "Unknown" in osc_agg_row.shape and .op: a kernel whose launching op is not known. */
#define OSC_AGG_UNKNOWN OSC_STR_NONE

struct osc_agg_row {
	osc_str key;       /* the row's name: op key, kernel name, or run name */
	uint64_t count;
	int64_t total, min, max; /* ns */
	double mean, p50, p90, p99, stddev; /* ns */
	double pct, cum_pct;     /* percent */
	size_t first, nr;        /* members: agg->members[first .. first+nr), by ts */
	osc_str shape;     /* shape, mapping (OSC_KEY_SHAPE): input shapes, or OSC_AGG_UNKNOWN */
	osc_str op;        /* mapping (OSC_KEY_OP): the launching op, or OSC_AGG_UNKNOWN */
	int32_t dims[6];   /* dims, mapping: block x,y,z then grid x,y,z; -1 unknown */
	uint32_t run;      /* run level: run index; else OSC_NONE */
	uint64_t op_count; /* mapping: instances of (op, shape) in the selection */
	int64_t op_total;  /* mapping: total of every row of the same (op, shape), ns */
	int64_t span;      /* run level: the run's wall time (its window), ns */
	osc_str path;      /* path level (OSC_KEY_PATH): its call path, an id in agg->paths */
};

/* What a row is keyed by (osc_query.keys); a level stands for a set of them. */
enum {
	OSC_KEY_NAME = 1 << 0,  /* host ops: op key; device events: name */
	OSC_KEY_SHAPE = 1 << 1, /* host ops: their shapes; device: the launching op's */
	OSC_KEY_DIMS = 1 << 2,  /* device events: block and grid */
	OSC_KEY_OP = 1 << 3,    /* device events: the launching op's key */
	OSC_KEY_RUN = 1 << 4,   /* the run of the event */
	OSC_KEY_PATH = 1 << 5,  /* host ops: their merged call path (key: the leaf's name) */
};

struct osc_query {
	enum osc_level level;
	const struct osc_runsel *runs;  /* NULL: every event, in a run or not */
	const struct osc_filter *filter; /* NULL or empty: no filter */
	/*
	 * Per event: the host op that launched a device event, or OSC_NONE.
	 * NULL: the trace's own (osc_trace_launchers) when the keys need them.
	 */
	const uint32_t *launcher;
	/* OSC_KEY_* to group by instead of the level's own keys (0: the level's). */
	unsigned keys;
	/*
	 * NULL, or per event: 0 keeps it out of the rows (e.g. the TUI's kernels
	 * of one op row). Mapping's op counts still see every host op.
	 */
	const uint8_t *only;
	/*
	 * Threads to aggregate on: 0 chooses by the number of events and the
	 * cores; n > 0 uses n (at most one per event). The answer is the same
	 * whatever the number.
	 */
	unsigned threads;
};

struct osc_agg {
	struct osc_agg_row *rows;
	size_t nr;
	uint32_t *members;   /* event indices, grouped by row */
	size_t nr_members;
	int64_t grand_total; /* sum of row totals, ns */
	enum osc_level level;
	unsigned keys;       /* OSC_KEY_* the rows are keyed by */
	size_t nr_runs;      /* runs selected (1 without a selection): per-run divisor */
	struct osc_strtab paths; /* OSC_KEY_PATH: the rows' $$-joined call paths */
};

/* The OSC_KEY_* set of a level, and whether it aggregates device events. */
unsigned osc_level_keys(enum osc_level l);
bool osc_level_is_device(enum osc_level l);

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
	_(CUM_PCT, "cum_pct")                             \
	_(SHAPE, "input_type_shape")                      \
	_(DIMS, "kernel_dimensions")                      \
	_(OP, "op_name")                                  \
	_(COUNT_PER_RUN, "count_per_run")                 \
	_(TOTAL_PER_RUN, "total_per_run_us")              \
	_(OP_COUNT, "op_count")                           \
	_(OP_DUR, "op_dur")                               \
	_(OP_AVG, "op_avg_dur")                           \
	_(KERNEL_PCT, "kernel_pct")                       \
	_(OP_PCT, "op_pct")                               \
	_(RUN_DUR, "run_us")

enum osc_stat {
#define OSC_STAT_ENUM(name, text) OSC_STAT_##name,
	OSC_STAT_LIST(OSC_STAT_ENUM)
#undef OSC_STAT_ENUM
	OSC_STAT_NR /* number of statistics (COUNT is the count column) */
};

/*
 * Reorder rows by a statistic (names compare bytewise; ties by run, path,
 * name, shape, op, dims) and recompute cum_pct in the new order. Sorting by
 * CUM_PCT sorts by total; by a text statistic (SHAPE, DIMS, OP) sorts by
 * that text; by NAME at the path level sorts by the path.
 */
void osc_agg_sort(struct osc_agg *a, const struct osc_trace *t, enum osc_stat by,
		  bool descending);

/*
 * Value of a numeric statistic of row r, as its column shows it: ns for
 * times (per-run values divided by nr_runs), percent, or a count. 0 for text.
 */
double osc_agg_value(const struct osc_agg *a, size_t r, enum osc_stat s);

/* Keep the first n rows (n == 0 keeps all). pct values are unchanged. */
void osc_agg_truncate(struct osc_agg *a, size_t n);

#endif
