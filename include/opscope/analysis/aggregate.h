/*
 * aggregate.h - group events into rows and compute their statistics.
 *
 * A query picks a level (what a row is), the runs and a filter. Each row has
 * a count, sums of every measure, the distribution of the events' own
 * durations (mean, min, max, p50/p90/p99, stddev), percentages with a named
 * base, and the list of its member events for drill-down.
 *
 * Definitions (tests recompute them independently):
 * - op level: host op events (kind HOST_OP) keyed by their op key; fences,
 *   runs, sessions and executor events are not ops. kernel level: device
 *   events of kind KERNEL keyed by name.
 * - shape level: host ops keyed by (op key, input shapes); dims level:
 *   kernels keyed by (name, block and grid); run level: host ops keyed by
 *   the run they belong to (a run without host ops has no row);
 * - category level (category.h): host ops keyed by their category (count,
 *   total, self, device_total as at the op level), but device and kernels
 *   are the device events (kernels, memcpy, memset) of each category, each
 *   in the run of its launching op as for device_time below and passing the
 *   filter by its name or its launcher's: so device sums to device_time
 *   (unfiltered) and a category with device events but no ops has count 0;
 * - path level: host ops keyed by their merged call path (calltree.h's
 *   merged tree over the selected runs, names $$-joined from the root as in
 *   `opscope tree`'s CSV); a row's members are the instances of that path;
 * - module level (module.h): nn.Module instances keyed by their path; count
 *   and total = the instances and their durations (a path names its
 *   ancestors, so its instances never nest); self = their self time (time
 *   not inside a child module: op and Python time directly in the module);
 *   device = the device events whose launching op's module is the row's
 *   (not inside a child module), device_total = those of its subtree, each
 *   in the run of its launching op as for device_time below; the filter
 *   keeps modules by their event's name ("nn.Module: BertLayer_1"); the base
 *   of self_pct is host_busy over ops and module windows (per thread the
 *   union of both); device_pct's is device_time as elsewhere. A path with
 *   device events but no selected instance has count 0;
 * - mapping level: kernels keyed by (launching op, its input shapes, kernel
 *   name, dims), as ORT's profile_explorer op_kernel_mapping: a kernel
 *   counts only when its launching host op is known (q->launcher, or an ORT
 *   kernel's own args.op_name) and that (op, shapes) pair has instances in
 *   the selection (op_count); op_total sums the rows of one (op, shapes);
 * - measures (opcost.h), summed over a row's events: total = their own
 *   durations (inclusive host time of ops; the duration of device events);
 *   at the host levels also self (exclusive host time), device (device
 *   events each op launched itself), device_total (the same with everything
 *   nested in the op) and kernels (device events counted in device); at the
 *   device levels device = total;
 * - bases, over the selected runs and never filtered: host_busy = the self
 *   time of every host op (per thread the union of the ops' windows, summed
 *   over threads); device_time = the summed durations of every device event
 *   (kernels, memcpy, memset) of the runs, where at the host levels a device
 *   event counts in the run of the op that launched it (an ORT kernel
 *   matched by op name, or a flow, may start in another run) and in its own
 *   otherwise; self_pct = 100 * self / host_busy,
 *   device_pct = 100 * device / device_time; the *_cum_pct columns add them
 *   up in the current row order (they never add overlapping time); at the
 *   host levels, unattributed = the part of device_time no op launched
 *   (each event in its own run), per reason (unattributed.h), so that at the
 *   op, shape and path levels the rows' device plus it is device_time;
 * - run level: wall = the run's window; self = host_busy of the run; device
 *   and kernels = the run's device events (kernels, memcpy, memset, in the
 *   run of their op as above); device_busy = the time within the window when
 *   any device event (of any run) ran: the union over streams, never a sum;
 *   device_idle = wall - device_busy;
 * - per-run values divide by the number of selected runs that hold an event
 *   of the level's kind (nr_runs: host ops, or kernels at the device levels;
 *   the filter does not change it; at least 1), so an empty run selected
 *   (a trailing ProfilerStep with no op) does not halve them;
 * - durations in ns; mean = total / count;
 * - percentiles interpolate linearly between closest ranks (numpy's default):
 *   p = sorted[(n-1)*q] with fractional ranks interpolated;
 * - stddev is the sample standard deviation (n-1 denominator), 0 when n == 1.
 */
#ifndef OPSCOPE_AGGREGATE_H
#define OPSCOPE_AGGREGATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "opscope/analysis/demangle.h"
#include "opscope/analysis/roofline.h"
#include "opscope/analysis/unattributed.h"
#include "opscope/model/filter.h"
#include "opscope/model/level.h"
#include "opscope/model/runs.h"
#include "opscope/base/status.h"
#include "opscope/model/trace.h"

/* Level by --by name; OSC_USAGE (subject "--by", listing the valid names) if unknown. */
enum osc_status osc_level_parse(const char *name, enum osc_level *out, struct osc_error *err);

struct osc_column;
struct osc_categories;
struct osc_modules;

/* "Unknown" in osc_agg_row.shape and .op: a kernel whose launching op is not known. */
#define OSC_AGG_UNKNOWN OSC_STR_NONE

/* X-macro: the measures of a row (opcost.h), with their column prefix. */
#define OSC_MEASURE_LIST(_)              \
	_(HOST, "")                      \
	_(SELF, "self_")                 \
	_(DEVICE, "device_")             \
	_(DEVICE_TOTAL, "device_total_")

enum osc_measure {
#define OSC_MEASURE_ENUM(name, prefix) OSC_MEASURE_##name,
	OSC_MEASURE_LIST(OSC_MEASURE_ENUM)
#undef OSC_MEASURE_ENUM
	OSC_MEASURE_NR
};

/* The distribution of one measure over a row's events, ns. */
struct osc_dist {
	int64_t min, max;
	double mean, p50, p90, p99, stddev;
};

struct osc_agg_row {
	osc_str key;       /* the row's name: op key, kernel name, or run name */
	uint64_t count;
	int64_t total, min, max; /* ns: the events' own durations (measure HOST) */
	double mean, p50, p90, p99, stddev; /* ns */
	int64_t self, dev, dev_total; /* ns: the other measures' sums (see above) */
	uint64_t kernels;  /* device events counted in dev */
	int64_t dev_busy;  /* run level: device busy time within the window, ns */
	uint64_t events;   /* run level: the run's events (osc_run.nr_events) */
	uint32_t id;       /* the row's index before any sort (agg->dist) */
	size_t first, nr;        /* members: agg->members[first .. first+nr), by ts */
	osc_str shape;     /* shape, mapping (OSC_KEY_SHAPE): input shapes, or OSC_AGG_UNKNOWN */
	osc_str op;        /* mapping (OSC_KEY_OP): the launching op, or OSC_AGG_UNKNOWN */
	int32_t dims[6];   /* dims, mapping: block x,y,z then grid x,y,z; -1 unknown */
	uint32_t run;      /* run level: run index; else OSC_NONE */
	uint64_t op_count; /* mapping: instances of (op, shape) in the selection */
	int64_t op_total;  /* mapping: total of every row of the same (op, shape), ns */
	int64_t span;      /* run level: the run's wall time (its window), ns */
	osc_str path;      /* path level (OSC_KEY_PATH): its call path, an id in agg->paths */
	uint32_t category; /* enum osc_category: category level, its key; op and kernel
			      levels when asked (osc_query.category), the members' most
			      frequent (ties to the earlier category); else other */
	double flops, bytes; /* roofline (osc_query.roofline): the members' work summed
				(roofline.h); NAN when one member's is unknown */
	uint8_t work_dtype;  /* roofline: the members' enum osc_dtype (UNKNOWN if mixed) */
	uint32_t module;   /* module level: its node (module.h); op and kernel levels
			      when asked (osc_query.module), the members' most
			      frequent module (ties to the earlier node), OSC_NONE
			      for none; else OSC_NONE */
};

/* What a row is keyed by (osc_query.keys); a level stands for a set of them. */
enum {
	OSC_KEY_NAME = 1 << 0,  /* host ops: op key; device events: name */
	OSC_KEY_SHAPE = 1 << 1, /* host ops: their shapes; device: the launching op's */
	OSC_KEY_DIMS = 1 << 2,  /* device events: block and grid */
	OSC_KEY_OP = 1 << 3,    /* device events: the launching op's key */
	OSC_KEY_RUN = 1 << 4,   /* the run of the event */
	OSC_KEY_PATH = 1 << 5,  /* host ops: their merged call path (key: the leaf's name) */
	OSC_KEY_CATEGORY = 1 << 6, /* the event's category (category.h) */
	OSC_KEY_MODULE = 1 << 7,   /* module instances: their path (module.h) */
};

/*
 * How much of an aggregate a caller reads (osc_query.reads), each less than
 * the one before; what is not read is not computed, and left 0.
 */
enum osc_agg_reads {
	OSC_READS_ALL,     /* everything */
	/* the rows' count, total, min, max, mean, self and device time, and
	   every base and nr_runs: no percentiles, standard deviation or
	   distributions (what-if) */
	OSC_READS_BASES,
	/* the same, but of the bases only host_busy (device_time, wall and
	   nr_runs left 0: diff.c) */
	OSC_READS_SUMS,
	/* the rows' keys and members only, no figure at all (count, total,
	   self, device time and host_busy left 0), for a caller that sums the
	   members its own way (diff.c's occurrences) */
	OSC_READS_MEMBERS,
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
	/* 1 << OSC_MEASURE_*: the measures whose distribution is computed
	   (agg->dist) besides HOST's, always in the row (osc_stats_dists) */
	unsigned dists;
	/* op and kernel levels: fill each row's category (the category column) */
	bool category;
	/* op and kernel levels: fill each row's module (the module column) */
	bool module;
	/* the user's category rules (category.h), or NULL: the built-in table only */
	const struct osc_categories *categories;
	/* op and shape levels: fill each row's work (osc_agg_roofline) */
	bool roofline;
	/* with roofline: the peaks of the percentages (roofline.h), NULL for none */
	const struct osc_peak *peak;
	/* device levels: kernels are keyed by the names they are shown as
	   (osc_names_key: one row per name shown); NULL: by the trace's names */
	const struct osc_names *names;
	/* leave the rows in place, in the default order by osc_agg_order (read
	   them with osc_agg_row_at): a million rows are not moved */
	bool in_place;
	/* leave the rows in place and in no order (no a->order, no cumulative
	   column), for a caller that orders them its own way (diff.c) */
	bool unordered;
	/* how much of the answer the caller reads (the rest is left 0) */
	enum osc_agg_reads reads;
};

struct osc_agg {
	struct osc_agg_row *rows;
	size_t nr;
	uint32_t *members;   /* event indices, grouped by row */
	size_t nr_members;
	int64_t grand_total; /* sum of row totals, ns */
	int64_t host_busy;   /* base of self_pct, ns (see the definitions) */
	int64_t device_time; /* base of device_pct, ns */
	/* host levels: the part of device_time no op launched, and its events,
	   per reason (unattributed.h; [OSC_UNATTRIBUTED_NONE] stays 0): with the
	   rows' device (unfiltered, op, shape and path levels) it makes
	   device_time. Device levels: 0 */
	int64_t unattributed[OSC_UNATTRIBUTED_COUNT];
	uint64_t nr_unattributed[OSC_UNATTRIBUTED_COUNT];
	/* module level, with the bases: the part of device_time launched in no
	   module (by no op, or by ops outside every module), unfiltered: with
	   the rows' device (unfiltered) it makes device_time. Other levels: 0 */
	int64_t outside_modules;
	int64_t wall;        /* the selected runs' wall time: their spans (runs.h), ns (0: none) */
	bool has_device;     /* the trace has device events: device columns shown */
	struct osc_dist *dist[OSC_MEASURE_NR]; /* per row id, the measures asked in
						  q->dists (NULL for the rest and HOST) */
	enum osc_level level;
	/* device levels: the keying of the names kernels were keyed by
	   (osc_names_keying of the query's; mangled: as the trace has them) */
	enum osc_name_style key_style;
	unsigned keys;       /* OSC_KEY_* the rows are keyed by */
	size_t nr_runs;      /* selected runs holding an event of the level's kind (1 without
				a selection; at least 1): the per-run divisor */
	struct osc_strtab paths; /* OSC_KEY_PATH: the rows' $$-joined call paths */
	const struct osc_modules *modules; /* the trace's (trace_cache.h): rows' module nodes */
	const struct osc_column *cols; /* the columns shown (osc_agg_columns) */
	size_t nr_cols;
	struct osc_column *own_cols;   /* cols when chosen (osc_agg_choose_columns) */
	bool roofline;       /* rows hold their work (osc_query.roofline) */
	struct osc_peak peak; /* roofline: the peaks of the *_pct (label "none": none) */
	/* The display order (osc_agg_order): the row shown i-th is rows[order[i]]
	   (osc_agg_row_at); NULL: rows[i] itself (osc_agg_sort) */
	uint32_t *order;
	int order_by;        /* with order: the enum osc_stat and direction it is by */
	bool order_desc;
	/* the largest value of osc_agg_default_sort's statistic (the first row's
	   as aggregated): the bars' scale; 0 without rows, or unordered */
	double top;
	double *cum_pct;     /* per shown row i: self_cum_pct at 2i, device_cum_pct at 2i + 1 */
	uint32_t *identity;  /* private: per row id, its place when ties are broken */
	size_t nr_identity;  /* private: nr when identity was built (else built again) */
	uint32_t *path_place; /* private: path level, per path id its place in byte order */
	/* private, per row r where the rows are (dropped when they move): its
	   self_pct at share[2r], device_pct at share[2r + 1], and its place in
	   the identity order, for osc_agg_order; nr_share: nr when built */
	double *share;
	uint32_t *row_place;
	size_t nr_share;
};

/* The row shown i-th (osc_agg_order), i < a->nr. */
static inline const struct osc_agg_row *osc_agg_row_at(const struct osc_agg *a, size_t i)
{
	return &a->rows[a->order ? a->order[i] : i];
}

/*
 * Whether row x of a is the row `like` (from an aggregate of the same level
 * and keys, over any runs or filter, with or without the figures a query may
 * add): the same key and every other component of a->keys; at the path
 * level, like_path is like's whole path.
 */
bool osc_agg_row_same(const struct osc_agg *a, const struct osc_agg_row *x,
		      const struct osc_agg_row *like, const char *like_path);

/*
 * Roofline (roofline.h): each row's work, the sum over its members of
 * osc_work_of(op key, shape[, its args]), NAN when any member's is unknown
 * (a convolution's or an attention's args are read per member with
 * osc_trace_args_into, so it is safe on any thread); and the
 * peaks (NULL: none). The rates divide it by the row's device_total time
 * (kernels it and the ops in it launched), or by its total (inclusive host
 * time) on a trace without device events; a zero time gives NAN.
 * osc_aggregate calls it when q->roofline.
 */
void osc_agg_roofline(const struct osc_trace *t, struct osc_agg *a, const struct osc_peak *peak);


/* The OSC_KEY_* set of a level, and whether it aggregates device events. */
unsigned osc_level_keys(enum osc_level l);
bool osc_level_is_device(enum osc_level l);

/*
 * Aggregate t per q into out (rows sorted by osc_agg_default_sort, descending;
 * ties by name; only in a->order when q->in_place).
 * runs is needed when q->runs is set. Only reads t, runs and q (the filter's
 * regex is matched with private match data), so it may run on a worker
 * thread while other threads read the same inputs.
 */
void osc_aggregate(const struct osc_trace *t, const struct osc_runs *runs,
		   const struct osc_query *q, struct osc_agg *out);
void osc_agg_release(struct osc_agg *a);

/* About the bytes a holds (rows, members, order, distributions, paths): for caches' budgets. */
size_t osc_agg_bytes(const struct osc_agg *a);

/* X-macro: the distribution statistics of one measure, with their title stem. */
#define OSC_DIST_LIST(_)   \
	_(MEAN, "mean")    \
	_(MIN, "min")      \
	_(MAX, "max")      \
	_(P50, "p50")      \
	_(P90, "p90")      \
	_(P99, "p99")      \
	_(STDDEV, "stddev")

/*
 * X-macro: the sortable statistics (the column ids of columns.h), with the
 * column title. The distribution statistics of the measures other than HOST
 * follow them (osc_stat_dist), named "<measure prefix><stem>_us".
 */
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
	_(SELF, "self_us")                                \
	_(DEVICE, "device_us")                            \
	_(DEVICE_TOTAL, "device_total_us")                \
	_(KERNELS, "kernels")                             \
	_(SELF_PCT, "self_pct")                           \
	_(SELF_CUM_PCT, "self_cum_pct")                   \
	_(DEVICE_PCT, "device_pct")                       \
	_(DEVICE_CUM_PCT, "device_cum_pct")               \
	_(SHAPE, "input_type_shape")                      \
	_(DIMS, "kernel_dimensions")                      \
	_(OP, "op_name")                                  \
	_(COUNT_PER_RUN, "count_per_run")                 \
	_(TOTAL_PER_RUN, "total_per_run_us")              \
	_(SELF_PER_RUN, "self_per_run_us")                \
	_(DEVICE_PER_RUN, "device_per_run_us")            \
	_(OP_COUNT, "op_count")                           \
	_(OP_DUR, "op_dur")                               \
	_(OP_AVG, "op_avg_dur")                           \
	_(KERNEL_PCT, "kernel_pct")                       \
	_(OP_PCT, "op_pct")                               \
	_(WALL, "wall_us")                                \
	_(HOST_BUSY, "host_busy_us")                      \
	_(DEVICE_BUSY, "device_busy_us")                  \
	_(DEVICE_BUSY_PCT, "device_busy_pct")             \
	_(DEVICE_IDLE, "device_idle_us")                  \
	_(OPS, "ops")                                     \
	_(EVENTS, "events")                               \
	_(CATEGORY, "category")                           \
	_(GFLOP, "gflop")                                 \
	_(MBYTE, "mbyte")                                 \
	_(FLOP_PER_BYTE, "flop_per_byte")                 \
	_(TFLOP_S, "tflop_s")                             \
	_(TB_S, "tb_s")                                   \
	_(PEAK_FLOPS_PCT, "peak_flops_pct")               \
	_(PEAK_BW_PCT, "peak_bw_pct")                     \
	_(MODULE, "module")

enum osc_dist_stat {
#define OSC_DIST_ENUM(name, stem) OSC_DIST_##name,
	OSC_DIST_LIST(OSC_DIST_ENUM)
#undef OSC_DIST_ENUM
	OSC_DIST_NR
};

enum osc_stat {
#define OSC_STAT_ENUM(name, text) OSC_STAT_##name,
	OSC_STAT_LIST(OSC_STAT_ENUM)
#undef OSC_STAT_ENUM
	OSC_STAT_DISTS, /* first of the SELF, DEVICE, DEVICE_TOTAL distributions */
	OSC_STAT_NR = OSC_STAT_DISTS + (OSC_MEASURE_NR - 1) * OSC_DIST_NR
};

/* The statistic of distribution d of measure m (HOST: MEAN .. STDDEV). */
enum osc_stat osc_stat_dist(enum osc_measure m, enum osc_dist_stat d);

/*
 * Which distribution s shows: its measure and statistic; false when s is
 * not a distribution statistic.
 */
bool osc_stat_is_dist(enum osc_stat s, enum osc_measure *m, enum osc_dist_stat *d);

/* 1 << the measure whose distribution (besides HOST's) s needs, or 0 (osc_query.dists). */
unsigned osc_stats_dists(enum osc_stat s);

/*
 * The statistic a level's rows are sorted by when nothing else is asked:
 * device time at the host levels of a trace with device events (device:
 * true), else self time; total at the device levels; wall time by run.
 */
enum osc_stat osc_level_default_sort(enum osc_level l, bool device);
/* The same for an aggregate's level and trace. */
enum osc_stat osc_agg_default_sort(const struct osc_agg *a);

/*
 * Order the rows by a statistic (names compare bytewise; ties by run, path,
 * category, module, name, shape, op, dims) and recompute the *_cum_pct in
 * the new order, without moving them: a->order says the order
 * (osc_agg_row_at). Radix sorts on the strings' places in the trace's
 * byte order (trace_cache.h), built once: a few passes over integers, fast
 * enough for a keypress on a million rows.
 * Sorting by a *_CUM_PCT sorts by its measure; by a text statistic (SHAPE,
 * DIMS, OP) sorts by that text; by NAME at the path level sorts by the path;
 * by NAME at the module level, or by MODULE, in the module hierarchy's
 * preorder (module.h's rank: parents before children, in order of first
 * appearance), so an ascending sort reads as the tree.
 * An order already by `by` in that direction is kept as it is.
 */
void osc_agg_order(struct osc_agg *a, const struct osc_trace *t, enum osc_stat by,
		   bool descending);

/* Whether a->order is by `by` in that direction (osc_agg_order), for its rows. */
bool osc_agg_ordered_by(const struct osc_agg *a, enum osc_stat by, bool descending);

/*
 * osc_agg_order, then move the rows into that order (a->order NULL, rows[i]
 * the i-th): for code that reads a->rows in order.
 */
void osc_agg_sort(struct osc_agg *a, const struct osc_trace *t, enum osc_stat by,
		  bool descending);

/*
 * Value of a numeric statistic of the row shown r-th, as its column shows it: ns for
 * times (per-run values divided by nr_runs), percent, or a count. 0 for text.
 */
double osc_agg_value(const struct osc_agg *a, size_t r, enum osc_stat s);

/* Whether s is a roofline statistic (GFLOP .. PEAK_BW_PCT, in that order). */
static inline bool osc_stat_is_roofline(enum osc_stat s)
{
	return s >= OSC_STAT_GFLOP && s <= OSC_STAT_PEAK_BW_PCT;
}

/*
 * A roofline statistic of row r (GFLOP .. PEAK_BW_PCT): per call gflop
 * (10^9 FLOP) and mbyte (10^6 bytes), flop_per_byte, the achieved tflop_s
 * and tb_s, and their percent of the peak of the row's dtype class (of the
 * bandwidth). NAN when unknown (a's rows hold no work, a member's work or
 * the peak is unknown, a zero time).
 */
double osc_agg_roofline_value(const struct osc_agg *a, const struct osc_agg_row *r,
			      enum osc_stat s);

/*
 * Keep the first n rows shown (n == 0 keeps all), moved into that order.
 * Percentages are unchanged.
 */
void osc_agg_truncate(struct osc_agg *a, size_t n);

#endif
