/*
 * ranks.h - the ranks of a job side by side, from their summaries (job.h):
 * HTA's temporal breakdown per rank with stragglers, its kernel duration
 * distribution across ranks, and every rank's rows of a level.
 *
 * Runs: a run selection (runs.h's grammar) is applied to each rank's own
 * runs (the default skips an ORT warm-up run as report does); a rank whose
 * runs do not hold the selection (fewer runs) is an error naming it.
 *
 * Definitions (tests/tools/recompute_ranks.py recomputes them from the
 * traces), over each rank's selected runs:
 * - rank table: wall = the selected runs' spans (runs.h) summed, so a run
 *   nested in another selected run (nested NVTX ranges) adds no time; step
 *   = wall / spans (one span a run where runs do not overlap); busy, idle,
 *   compute, comm, memcpy, exposed comm = the GPU breakdown's (gpu.h) of the
 *   rank's device, summed over the spans, each span's those of the run whose
 *   window it is (a union within that window, so they add up); runs that
 *   overlap without one holding the other are an error (the summary keeps
 *   each run's figures, not their shared time's); busy_pct = 100 * busy /
 *   wall; host_busy and device_time as aggregate.h, summed over every
 *   selected run (an event is in one run); top kernel = the kernel level's
 *   row with the most device time over the runs;
 * - stragglers: each rank's step, its work (device compute time, or
 *   host_busy on a rank without device events) and its comm time over the
 *   median of the ranks (x_median). A rank is flagged "slow step" when its
 *   step, "straggler" when its work, "waits" when its comm exceeds k times
 *   the median (k = OSC_STRAGGLER_K unless asked). In synchronous training
 *   every rank's step lasts about as long as the slowest rank's, so the
 *   straggler shows as more work than the others, and the others wait for
 *   it in their collectives: their comm time grows (HTA's "communication
 *   wait" symptom). The median of an even number of ranks is the mean of
 *   the middle two; a zero median flags nothing;
 * - distribution: per row key of a level, its value on every rank (0 where
 *   the rank has no such row): self time at the host levels, or device time
 *   launched when the job has device events; the events' own device time at
 *   the device levels (matrix.h's measures: never inclusive host time).
 *   total = the values summed (distinct ranks never overlap), mean over
 *   every rank, min and max with their rank (the lowest rank of equals),
 *   median, spread_pct = 100 * (max - min) / median, max_x_median =
 *   max / median (NaN when the median is 0);
 * - split: every rank's rows of the level, summed over its runs: count,
 *   total, self, device, device_total, kernels, min, max, self_pct of the
 *   rank's host_busy and device_pct of its device_time.
 */
#ifndef OPSCOPE_RANKS_H
#define OPSCOPE_RANKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "opscope/analysis/aggregate.h"
#include "opscope/analysis/columns.h"
#include "opscope/analysis/job.h"
#include "opscope/base/status.h"

/* The default k of the straggler rule. */
#define OSC_STRAGGLER_K 1.10

/* Flags of a rank row. */
enum {
	OSC_RANK_SLOW_STEP = 1 << 0,
	OSC_RANK_STRAGGLER = 1 << 1,
	OSC_RANK_WAITS = 1 << 2,
};

/* Each rank's selected runs (runsel per rank). */
struct osc_rank_runs {
	struct osc_runsel *sel; /* per rank of the job */
	size_t nr;
	char *text;             /* "runs 1:3 of each rank (ProfilerStep)" */
};

/*
 * Parse spec (runs.h's grammar; NULL: the default) against each rank's runs.
 * OSC_RANGE/OSC_USAGE naming the rank's file when its runs cannot hold it.
 */
enum osc_status osc_rank_runs_parse(const struct osc_job *j, const char *spec,
				    struct osc_rank_runs *out, struct osc_error *err);
void osc_rank_runs_release(struct osc_rank_runs *r);

/*
 * The rows of level l of summary s summed over its selected runs (sel), one
 * per key: a new array (free it) of *nr rows in key-id order; count,
 * kernels and the sums added, min and max over the runs, run OSC_NONE.
 */
struct osc_sum_row *osc_rank_rows(const struct osc_summary *s, const struct osc_runsel *sel,
				  enum osc_level l, size_t *nr);

struct osc_rank_row {
	size_t index;        /* into the job's ranks */
	size_t nr_runs;      /* runs selected */
	int64_t wall, host_busy, device_time, busy, idle, cat[OSC_SUM_CATS], exposed_comm;
	const char *top_kernel; /* NULL when the rank has no kernel */
	int64_t top_kernel_time;
	double step;         /* wall / nr_runs, ns */
	double step_x, work_x, comm_x; /* over the median of the ranks (NaN: zero median) */
	unsigned flags;      /* OSC_RANK_* */
};

struct osc_rank_table {
	struct osc_rank_row *rows; /* by rank */
	size_t nr;
	double k;            /* the straggler rule's */
	size_t nr_flagged;   /* rows with a flag */
};

/*
 * The rank table of j's selected runs with k (0: OSC_STRAGGLER_K) into out.
 * OSC_USAGE, out without rows (its k set), naming the rank's file, when two of a rank's
 * selected runs overlap without one holding the other (see wall above).
 */
enum osc_status osc_rank_table(const struct osc_job *j, const struct osc_rank_runs *runs,
			       double k, struct osc_rank_table *out, struct osc_error *err);
void osc_rank_table_release(struct osc_rank_table *t);
const struct osc_column *osc_rank_table_columns(size_t *nr);
/* The rank table's column of long text, the one a narrow screen shrinks: top_kernel. */
#define OSC_RANK_COL_TOP_KERNEL 16
const char *osc_rank_table_cell(const struct osc_job *j, const struct osc_rank_table *t,
				size_t row, size_t col, char *buf, size_t size);
/* The flags of a row in words: "straggler, waits", or "". */
const char *osc_rank_flags_text(unsigned flags, char *buf, size_t size);

struct osc_rank_dist_row {
	const char *key;     /* the row's keys as text (a summary's string) */
	size_t ranks;        /* ranks that have the row */
	uint64_t count;      /* events over every rank */
	double total, mean, median, min, max; /* ns */
	size_t min_rank, max_rank; /* indexes into the job's ranks */
	double spread_pct, max_x_median;
};

struct osc_rank_dist {
	enum osc_level level;
	enum osc_measure measure; /* SELF or DEVICE at host levels; HOST (own durations) at device levels */
	struct osc_rank_dist_row *rows; /* by total, descending; ties by key */
	size_t nr;
};

/* The distribution of level l's rows across j's ranks into out. */
void osc_rank_dist(const struct osc_job *j, const struct osc_rank_runs *runs, enum osc_level l,
		   struct osc_rank_dist *out);
void osc_rank_dist_release(struct osc_rank_dist *d);
const struct osc_column *osc_rank_dist_columns(size_t *nr);
const char *osc_rank_dist_cell(const struct osc_job *j, const struct osc_rank_dist *d,
			       size_t row, size_t col, char *buf, size_t size);

struct osc_rank_split_row {
	size_t index;        /* into the job's ranks */
	const char *key;
	uint64_t count, kernels;
	int64_t total, self, dev, dev_total, min, max;
	int64_t value;       /* the level's measure (as the distribution's): the order in a rank */
	double self_pct, dev_pct;
};

struct osc_rank_split {
	enum osc_level level;
	struct osc_rank_split_row *rows; /* by rank, then by the level's measure, descending */
	size_t nr;
};

/* Every rank's rows of level l into out. */
void osc_rank_split(const struct osc_job *j, const struct osc_rank_runs *runs, enum osc_level l,
		    struct osc_rank_split *out);
void osc_rank_split_release(struct osc_rank_split *s);
const struct osc_column *osc_rank_split_columns(size_t *nr);
const char *osc_rank_split_cell(const struct osc_job *j, const struct osc_rank_split *s,
				size_t row, size_t col, char *buf, size_t size);

#endif
