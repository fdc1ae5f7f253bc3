/*
 * whatif.h - projected latency if some ops were made faster.
 *
 * Intel Neural Engine's profiling estimates the latency of a model after
 * making its sparse ops faster (a perf ratio per weight shape). This is the
 * general form: rules choose events and give a speedup factor; each event's
 * projected duration is dur / factor.
 *
 * A rule is PATTERN[@SHAPE]=FACTOR. PATTERN is an exact name or a shell
 * wildcard (as --filter) matched against the row's label (osc_agg_label),
 * the event's op key or its name. SHAPE, when given, must equal the event's
 * input shapes as the model stores them ("fp32(1024x256),fp32(256x256)"),
 * their compact form ("f-1024x256,f-256x256"), or the dims of any one input
 * ("256x256", Neural Engine's weight shape). The first matching rule wins.
 *
 * Definitions (tests recompute them independently), on exclusive time so
 * that nothing is counted twice (aggregate.h's measures):
 * - host levels (op, shape, path, run): the time a rule changes is self
 *   time. Each host op instance's self time is divided by the factor of the
 *   innermost op around it (itself included) that a rule matches: a rule on
 *   X speeds up X and everything nested in X once; a rule on an op nested in
 *   X overrides X's for its own time; factors never compound. A row's time
 *   is the self time of its events; the base is the runs' host busy time
 *   (aggregate.h), of which the rows' self times are parts;
 * - device levels (kernel, dims, mapping): each device event's duration is
 *   divided by its rule's factor; the base is the runs' device time;
 * - projected (of a row) = sum of time / factor over its events (ns);
 *   saved = time - projected; factor (of a row) = time / projected;
 * - affected = time of the events some factor applies to;
 * - projected base = base - sum of saved; speedup = base / projected base;
 * - ceiling (Amdahl) = base / (base - affected): the speedup if the
 *   affected time went to zero, so speedup <= ceiling always; +inf when
 *   everything is affected;
 * - host levels also project the device time (each op's own device events
 *   divided by the same factor as its self time) and the runs' wall time
 *   (wall - saved: the time between ops stays as it is).
 * Rules apply to the rows' events (a filter limits them).
 */
#ifndef OPSCOPE_WHATIF_H
#define OPSCOPE_WHATIF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "opscope/analysis/aggregate.h"
#include "opscope/analysis/columns.h"
#include "opscope/analysis/demangle.h"
#include "opscope/model/filter.h"
#include "opscope/base/status.h"
#include "opscope/model/trace.h"

struct osc_speedup {
	char *pattern;            /* as given */
	char *shape;              /* "" for any shape */
	double factor;            /* OSC_SPEEDUP_MIN..MAX; 2 halves the time */
	struct osc_filter match;  /* the pattern compiled */
};

struct osc_speedups {
	struct osc_speedup *v;
	size_t nr, alloc;
};

void osc_speedups_init(struct osc_speedups *s);
void osc_speedups_release(struct osc_speedups *s);

/*
 * The factors a rule may have: from a million times slower to a million
 * times faster. Beyond, projections stop meaning anything (1e-308 makes
 * every time infinite).
 */
#define OSC_SPEEDUP_MIN 1e-6
#define OSC_SPEEDUP_MAX 1e6

/*
 * Set the factor of (pattern, shape): replaces the rule with the same
 * pattern and shape, else appends one. factor 1 removes the rule.
 * OSC_USAGE (subject "--speedup") when factor is not a number from
 * OSC_SPEEDUP_MIN to OSC_SPEEDUP_MAX.
 */
enum osc_status osc_speedups_set(struct osc_speedups *s, const char *pattern, const char *shape,
				 double factor, struct osc_error *err);

/* Parse and add "PATTERN[@SHAPE]=FACTOR"; OSC_USAGE (subject "--speedup") if malformed. */
enum osc_status osc_speedups_parse(struct osc_speedups *s, const char *spec,
				   struct osc_error *err);

/*
 * Add the rules of a CSV file: one rule per line as "op,shape,factor"
 * (shape may be empty); a first line whose factor is not a number is a
 * header; empty lines and lines starting with '#' are skipped. OSC_IO when
 * the file cannot be read, OSC_USAGE (subject the path, field "line N") on
 * a bad line.
 */
enum osc_status osc_speedups_read_csv(struct osc_speedups *s, const char *path,
				      struct osc_error *err);

/* Factor of event ev of row r (1 when no rule matches). */
double osc_speedups_factor(const struct osc_speedups *s, const struct osc_trace *t,
			   const struct osc_agg *agg, const struct osc_agg_row *r, uint32_t ev);

/*
 * X-macro: the columns of a what-if table (also its sort keys). At the host
 * levels TOTAL is "self_us" and PCT "self_pct"; at the device levels they
 * are "total_us" and "device_pct" (osc_whatif_columns).
 */
#define OSC_WHATIF_COL_LIST(_)          \
	_(NAME, "name")                 \
	_(COUNT, "count")               \
	_(TOTAL, "self_us")             \
	_(FACTOR, "factor")             \
	_(PROJECTED, "projected_us")    \
	_(SAVED, "saved_us")            \
	_(PCT, "self_pct")

enum osc_whatif_col {
#define OSC_WHATIF_COL_ENUM(name, text) OSC_WHATIF_##name,
	OSC_WHATIF_COL_LIST(OSC_WHATIF_COL_ENUM)
#undef OSC_WHATIF_COL_ENUM
	OSC_WHATIF_COL_COUNT
};

struct osc_whatif_row {
	size_t agg_row;       /* index into the aggregate's rows */
	uint64_t count;
	int64_t total;        /* ns: the row's time (self time, or durations) */
	double projected;     /* ns */
	double saved;         /* ns */
	double factor;        /* total / projected (1 for an untouched row) */
	double pct;           /* share of the base, percent */
};

struct osc_whatif {
	struct osc_whatif_row *rows; /* one per aggregate row: read them with osc_whatif_row_at */
	size_t nr;
	uint32_t *order;       /* the display order (osc_whatif_sort): the row shown i-th
				  is rows[order[i]]; NULL: rows[i] */
	enum osc_whatif_col order_by; /* with order: the column and direction it is by */
	bool order_desc;
	const char **labels;   /* per aggregate row: osc_agg_label_names */
	char *label_text;      /* private: the labels' bytes not the trace's own */
	size_t label_bytes;    /* private: label_text's size */
	bool names_whole;      /* private: each label is its row's name, the trace's whole string */
	size_t nr_labels;      /* the aggregate's rows (nr may be cut to a top N) */
	uint32_t *label_rank;  /* per aggregate row: its label's place in byte order */
	uint32_t *row_of;      /* private: per event, its row (OSC_NONE: none), for rules at a
				  host level */
	double *node_factor;   /* private: per node of the host tree, its factor while rules
				  are projected at a host level (kept: fresh memory costs
				  more than the walk) */
	size_t nr_nodes;       /* private: node_factor's length */
	uint32_t *name_order;  /* private: the rows by label (osc_whatif_sort) */
	const struct osc_trace *trace;
	const struct osc_agg *agg;
	bool device;           /* a device level: durations, else self times */
	int64_t total;         /* ns: the base (host busy or device time) */
	double projected;      /* ns: the base after the rules */
	int64_t affected;      /* ns of time in matched events */
	double affected_pct;   /* 100 * affected / total */
	double speedup;        /* total / projected (1 when total is 0) */
	double ceiling;        /* Amdahl: total / (total - affected) */
	int64_t wall;          /* host levels: the runs' wall time, ns (0: unknown) */
	int64_t device_time;   /* host levels: the runs' device time, ns */
	double device_saved;   /* host levels: device time saved by the rules, ns */
	size_t nr_runs;        /* runs the aggregate covers, for per-run values */
};

/* The row shown i-th (i < w->nr). */
static inline const struct osc_whatif_row *osc_whatif_row_at(const struct osc_whatif *w, size_t i)
{
	return &w->rows[w->order ? w->order[i] : i];
}

/* Project agg (of t) with the rules into out. Keep t and agg alive while out is used. */
void osc_whatif(const struct osc_trace *t, const struct osc_agg *agg,
		const struct osc_speedups *s, struct osc_whatif *out);
/*
 * The same with the kernel names of a device level's labels through names
 * (NULL: as they are), as the report shows them: rules then match those.
 */
void osc_whatif_names(const struct osc_trace *t, const struct osc_agg *agg,
		      const struct osc_names *names, const struct osc_speedups *s,
		      struct osc_whatif *out);
/*
 * Project w's rows again through the rules s, in place, as osc_whatif_names
 * would (all rows): its labels, their ranks, its rows' memory and what the
 * last projection built are kept, so nothing is labelled, ranked or newly
 * allocated (a million op names: 20 ms, a new projection 100-300 ms). Its
 * order stays when by a column the rules leave as it is (name, count, time,
 * share); otherwise w is unsorted (osc_whatif_sort again).
 */
void osc_whatif_again(struct osc_whatif *w, const struct osc_speedups *s);
/*
 * Build what osc_whatif_again reads to project w's rows through rules (at a
 * host level, a lookup of their events' rows and room for the host tree's
 * factors), before the rules are known.
 */
void osc_whatif_prepare(struct osc_whatif *w);
/*
 * w and other project the same rows: w takes what other built for rules at
 * a host level (osc_whatif_prepare), unless w has its own (the next
 * projection is w's: other, shown, needs it no more). Both stay valid.
 */
void osc_whatif_take_lookup(struct osc_whatif *w, struct osc_whatif *other);
void osc_whatif_release(struct osc_whatif *w);
/* About the bytes w holds (not its aggregate's): for caches' budgets. */
size_t osc_whatif_bytes(const struct osc_whatif *w);

/* The columns of a what-if table of a device level (device) or a host level. */
const struct osc_column *osc_whatif_columns(bool device, size_t *nr);
/* Column by title (of either kind of level), with or without "_us"; false if none. */
bool osc_whatif_col_parse(const char *s, enum osc_whatif_col *out);
/*
 * Sort rows by a column (names ascending bytewise when !descending; ties by
 * name): w->order changes, the rows stay (osc_whatif_row_at). Rows already in
 * that order are left as they are.
 */
void osc_whatif_sort(struct osc_whatif *w, enum osc_whatif_col by, bool descending);
/* Text of cell (row, col) into buf; returns buf or the row's label. */
const char *osc_whatif_cell(const struct osc_whatif *w, size_t row, size_t col, char *buf,
			    size_t size);
/*
 * The summary as one line, times per run, naming its base: "per run host
 * busy 120.000 us -> 80.000 us (1.500x), 50.00% of it affected, ceiling
 * 2.000x; device time 30.000 us -> 20.000 us (1.500x); wall 150.000 us ->
 * 110.000 us (1.364x)" (the device part with device time, the wall part
 * when the runs have windows; "device time ..." alone at a device level;
 * "ceiling unbounded" when every event is affected), into buf. Returns buf.
 */
const char *osc_whatif_summary(const struct osc_whatif *w, char *buf, size_t size);

/*
 * The same as a JSON object (a new string): base, before_us, after_us,
 * speedup, affected_pct, ceiling (null: unbounded), and device_time and wall
 * as {before_us, after_us, speedup} when known; times per run.
 */
char *osc_whatif_summary_json(const struct osc_whatif *w);

#endif
