/*
 * diff.h - compare two traces: which rows appeared, disappeared or changed.
 *
 * Each side is aggregated with the same query (level, filter; each side its
 * own run selection), then rows are paired by a key that depends on the
 * match mode:
 * - name: the row key at the level (any level), compared as text (HTA's
 *   TraceDiff);
 * - shape: op + input and output types/shapes + provider, as onnx-array-api
 *   labels them, compactly: "[CPU]Conv(f-1x3x112x112,f-64x3x3x3)->f-1x64x112x112";
 * - occurrence: the shape key plus "[k]": the k-th event with that key within
 *   its run, counting from 0 again in every run (onnx-array-api's merge of two
 *   ORT profiles).
 * A row is '-' when only the base has it, '+' when only the other has it,
 * '=' when both have it.
 *
 * Definitions (tests recompute them independently):
 * - count, total (ns) and mean = total / count of each side's events with
 *   that key (0 when absent);
 * - delta = other.total - base.total (ns); delta_self and delta_device the
 *   same for the self and device measures of aggregate.h (other - base);
 * - delta_pct = 100 * delta / base.total, NaN when base.total is 0;
 * - ratio = other.total / base.total, NaN when base.total is 0;
 * - category level: rows are the two aggregates' category rows (aggregate.h),
 *   paired by category name, with their count, self and device time (device
 *   time by each device event's own category, the leaf-op rule); since ops of
 *   one category nest (aten::linear holds aten::addmm), the summed inclusive
 *   time means nothing there, and total is the device time on a pair of
 *   traces with device events, else the self time;
 * Rows are sorted by |delta| descending, ties by key.
 */
#ifndef OPSCOPE_DIFF_H
#define OPSCOPE_DIFF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "opscope/analysis/aggregate.h"
#include "opscope/analysis/columns.h"
#include "opscope/analysis/demangle.h"
#include "opscope/model/runs.h"
#include "opscope/base/status.h"
#include "opscope/base/strtab.h"
#include "opscope/model/trace.h"

/* X-macro: how rows of the two sides are paired, with their --match name. */
#define OSC_MATCH_LIST(_)          \
	_(NAME, "name")            \
	_(SHAPE, "shape")          \
	_(OCCURRENCE, "occurrence")

enum osc_match {
#define OSC_MATCH_ENUM(name, text) OSC_MATCH_##name,
	OSC_MATCH_LIST(OSC_MATCH_ENUM)
#undef OSC_MATCH_ENUM
	OSC_MATCH_COUNT
};

const char *osc_match_name(enum osc_match m);
/* Match mode by --match name; OSC_USAGE (subject "--match") if unknown. */
enum osc_status osc_match_parse(const char *name, enum osc_match *out, struct osc_error *err);

/*
 * One side of the comparison: a loaded trace, its runs and the selected ones,
 * and how its kernel names are shown: rows of the kernel, dims and mapping
 * levels pair on the names as shown (osc_agg_label_names), so both sides
 * should use the same style.
 */
struct osc_diff_side {
	const struct osc_trace *trace;
	const struct osc_runs *runs;
	const struct osc_runsel *sel; /* NULL: every event */
	const struct osc_names *names; /* kernel names, NULL: as they are in the trace */
};

struct osc_diff_query {
	enum osc_level level;
	enum osc_match match;
	const struct osc_filter *filter; /* NULL or empty: none */
	const struct osc_categories *categories; /* category level: the user's rules, or NULL */
	unsigned threads; /* at most this many threads (0: as -j allows); the answer is the same */
};

/* What one side has of a row. */
struct osc_diff_stat {
	uint64_t count;
	int64_t total;       /* ns */
	double mean;         /* ns; 0 when count is 0 */
	int64_t self, dev;   /* ns: self and device time (aggregate.h's measures;
				at the device levels self is 0 and dev = total) */
	size_t first, nr;    /* members: side's members[first .. first+nr), by ts */
};

struct osc_diff_row {
	osc_str key;         /* in osc_diff.keys */
	char status;         /* '-', '+' or '=' */
	struct osc_diff_stat side[2]; /* 0 base, 1 other */
	int64_t delta;       /* ns */
	double delta_pct, ratio; /* NaN when the base has no time */
};

struct osc_diff {
	struct osc_strtab keys;  /* row keys (labels) */
	struct osc_diff_row *rows; /* in the order made: read the shown ones with osc_diff_row_at */
	size_t nr, nr_all;       /* rows shown (see osc_diff_changed_only), rows in all */
	uint32_t *members[2];    /* event indices of each side, grouped by row */
	size_t nr_members[2];
	int64_t grand_total[2];  /* each side's sum of the rows' grand measure, ns */
	uint64_t count[3];       /* rows per status: '-', '+', '=' */
	uint64_t shown[3];       /* the shown rows' (osc_diff_changed_only) */
	int64_t top;             /* the largest osc_diff_row_larger of a shown row, ns */
	int64_t top_all;         /* ... of any row */
	enum osc_level level;
	enum osc_match match;
	enum osc_measure total; /* what total is: HOST (the events' own durations), or at
				   the category level DEVICE or SELF (see above) */
	/* what grand_total sums, never a time that nests: DEVICE at the device
	   levels (the rows' totals) and at the host levels when both traces have
	   device events, else SELF (ops nest: their inclusive times would count
	   nested time twice) */
	enum osc_measure grand;
	/* The display order (osc_diff_sort, osc_diff_changed_only): the row shown
	   i-th is rows[order[i]], the shown first; NULL: rows[i] itself */
	uint32_t *order;
	uint32_t *by_name;      /* private: every row's index in key byte order (a sort makes it) */
	bool sorted;            /* private: order holds the shown rows by ... */
	int sorted_by;          /* ... this enum osc_diff_col ... */
	bool sorted_desc;       /* ... in this direction (osc_diff_sort) */
};

/* About the bytes d holds (rows, members, order, keys): for caches' budgets. */
size_t osc_diff_bytes(const struct osc_diff *d);

/* The larger of row r's two totals, ns (what its bar shows). */
static inline int64_t osc_diff_row_larger(const struct osc_diff_row *r)
{
	return r->side[0].total > r->side[1].total ? r->side[0].total : r->side[1].total;
}

/* The row shown i-th (i < d->nr_all; the first d->nr are shown). */
static inline const struct osc_diff_row *osc_diff_row_at(const struct osc_diff *d, size_t i)
{
	return &d->rows[d->order ? d->order[i] : i];
}

/*
 * Compare base with other per q into out (out is set up here; release it
 * with osc_diff_release). Only reads its inputs.
 */
void osc_diff(const struct osc_diff_side *base, const struct osc_diff_side *other,
	      const struct osc_diff_query *q, struct osc_diff *out);
void osc_diff_release(struct osc_diff *d);

/*
 * When the two sides select different numbers of runs, a note saying that
 * their totals (and deltas) add up different numbers of runs, into buf;
 * NULL when the numbers are the same. base, other: each side's selection
 * (NULL: the whole trace, one run).
 */
const char *osc_diff_runs_note(const struct osc_runsel *base, const struct osc_runsel *other,
			       char *buf, size_t size);

/* What the grand totals sum (osc_diff.grand), for a header: "device time" or "self time". */
const char *osc_diff_total_name(const struct osc_diff *d);

/* Text of a row's key. */
static inline const char *osc_diff_key(const struct osc_diff *d, const struct osc_diff_row *r)
{
	return osc_strtab_get(&d->keys, r->key);
}

/* X-macro: the columns of a diff table, which are also its sort keys. */
#define OSC_DIFF_COL_LIST(_)                            \
	_(NAME, "name")                                 \
	_(SIDE, "side")                                 \
	_(BASE_TOTAL, "base_total_us")                  \
	_(OTHER_TOTAL, "other_total_us")                \
	_(DELTA, "delta_us")                            \
	_(DELTA_PCT, "delta_pct")                       \
	_(RATIO, "ratio")                               \
	_(BASE_COUNT, "base_count")                     \
	_(OTHER_COUNT, "other_count")                   \
	_(BASE_MEAN, "base_mean_us")                    \
	_(OTHER_MEAN, "other_mean_us")                  \
	_(BASE_SELF, "base_self_us")                    \
	_(OTHER_SELF, "other_self_us")                  \
	_(DELTA_SELF, "delta_self_us")                  \
	_(BASE_DEVICE, "base_device_us")                \
	_(OTHER_DEVICE, "other_device_us")              \
	_(DELTA_DEVICE, "delta_device_us")

enum osc_diff_col {
#define OSC_DIFF_COL_ENUM(name, text) OSC_DIFF_##name,
	OSC_DIFF_COL_LIST(OSC_DIFF_COL_ENUM)
#undef OSC_DIFF_COL_ENUM
	OSC_DIFF_COL_COUNT
};

/*
 * Sort rows by a column (descending: largest first; NaN sorts as smallest;
 * the DELTA columns sort by their absolute value; names compare bytewise).
 * Ties by key text. The rows stay where they are: d->order changes
 * (osc_diff_row_at), so a million rows sort in a keypress; rows already in
 * that order are left as they are.
 */
void osc_diff_sort(struct osc_diff *d, enum osc_diff_col by, bool descending);

/*
 * Keep only the changed rows ('-', '+', and '=' rows whose totals differ by
 * more than min_pct percent of the base) when on; all rows when off: the
 * shown ones first in d->order, in their order. Sort afterwards as usual.
 */
void osc_diff_changed_only(struct osc_diff *d, bool on, double min_pct);

/* The columns of a diff table (OSC_DIFF_COL_COUNT of them, in enum order). */
const struct osc_column *osc_diff_columns(size_t *nr);

/* Column by title, with or without "_us" ("delta", "delta_us"); false if none. */
bool osc_diff_col_parse(const char *s, enum osc_diff_col *out);

/* Text of cell (row, col) into buf; returns buf or the interned key text. */
const char *osc_diff_cell(const struct osc_diff *d, size_t row, size_t col, char *buf,
			  size_t size);

/*
 * Text of aggregate row r with every key it is grouped by ("op > " when
 * keyed by the launching op, the key, " SHAPES" when keyed by shape,
 * " bX,Y,Z,gX,Y,Z" by dims, the whole $$-joined call path at the path level,
 * the category name at the category level, the module's path at the
 * module level)
 * into buf, so that rows of two traces pair on all
 * their keys. Returns buf.
 */
const char *osc_agg_label(const struct osc_trace *t, const struct osc_agg *agg,
			  const struct osc_agg_row *r, char *buf, size_t size);

/* The same, with the kernel name of a device level's row through names (NULL: as is). */
const char *osc_agg_label_names(const struct osc_trace *t, const struct osc_agg *agg,
				const struct osc_names *names, const struct osc_agg_row *r,
				char *buf, size_t size);

/*
 * Compact form of a shape list as the model stores it
 * ("float(1x3x112x112),int64(4)") into buf: "f-1x3x112x112,i64-4". Types
 * get short codes (float f, double d, float16 h, bfloat16 bf16, intN iN,
 * uintN uN, bool b, fp32 f, ...; an unknown type is kept); an item without
 * parentheses is copied. Returns buf.
 */
const char *osc_shape_compact(const char *shape, char *buf, size_t size);

/*
 * The shape-match label of event ev of t: "[PRO]op(in)->out" (PRO: the
 * first 3 characters of the provider without "ExecutionProvider"; the
 * brackets are left out without a provider; "->out" without output shapes),
 * into buf. Output shapes come from the event's args (ORT
 * output_type_shape, Neural Engine output_type/output_shape), read in
 * those formats and generic chrome traces only (Kineto and the others write
 * none: an op's label is then one per op and shape). Returns buf.
 */
const char *osc_diff_label(const struct osc_trace *t, uint32_t ev, char *buf, size_t size);

/*
 * Whether osc_diff_label reads the args of t's events for output shapes:
 * ORT's, Neural Engine's and generic chrome traces (which may be either);
 * else an op's label is one per (op, shape, provider).
 */
bool osc_diff_label_reads_args(const struct osc_trace *t);

#endif
