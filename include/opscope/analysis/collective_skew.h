/*
 * collective_skew.h - the collective calls of each rank and, across the
 * ranks of a job, how far apart the ranks entered each call.
 *
 * A call is a record_param_comms op with a "Collective name" (collective.h)
 * and the device work it launched (the device events the correlation ties
 * to it or to an op nested in it: NCCL/RCCL kernels), or an NCCL/RCCL
 * kernel (gpu.h's osc_gpu_is_comm) that no such call launched (older
 * traces, whose record_param_comms ops have no "Collective name").
 * Calls of one process group are issued in the same order on every rank
 * of the group, so the seq-th call of a group on one rank is the seq-th on
 * every other (summary.h's struct osc_sum_call): TraceLens's NcclAnalyser
 * matches them so (collective_id = Process Group Name + index in group,
 * TraceLens/NcclAnalyser/nccl_analyser.py, build_df_long).
 * The group of a call is its "Process Group Name", else its "Group size"
 * as text, else "": two groups of one size without names are mixed up.
 * A kernel without a call is in the group "stream N" (its stream on its
 * device): NCCL queues each communicator's work on its own stream, in
 * issue order, so stream order is call order (TraceLens matches by stream
 * order likewise when the trace has no group names).
 *
 * Cross-rank figures of one call (the ranks that have it, their device
 * work; durations are clock-independent, start times are not):
 * - skew = the last rank's start - the first rank's start (TraceLens's
 *   "skew in start time"); only meaningful when the ranks' traces share a
 *   clock (one host): ranks on other hosts have their own clocks, with an
 *   offset that the traces do not record;
 * - transfer = the shortest duration among the ranks (TraceLens's
 *   comm_latency: the last rank to arrive waits least, its kernel is about
 *   the transfer alone);
 * - wait = the longest duration - the shortest, at the rank that waited
 *   most (the first to arrive). TraceLens's per-rank wait is the latest
 *   start - the rank's start, which needs a shared clock; this one does not,
 *   and equals it when the ranks end together, as a collective does;
 * - busbw = S / transfer x NCCL's factor (collective.h), GB/s;
 * - missing = ranks that have calls of the group (in the selected runs) but
 *   not this one: a call on only some ranks is kept, with what it has.
 * - algorithm, protocol = what NCCL chose for the call (collective.h), the
 *   ranks' merged (nccl_kernel.h's osc_nccl_merge: NCCL picks the same on
 *   every rank, so "mixed" means the ranks' kernels disagree; "" when
 *   their kernels do not say).
 * The sums per (group, collective, algorithm, protocol) add the calls'
 * skew, wait and transfer; their busbw is the mean of the calls'
 * (TraceLens's summary reports the mean of per-call bus bandwidths
 * likewise).
 */
#ifndef OPSCOPE_COLLECTIVE_SKEW_H
#define OPSCOPE_COLLECTIVE_SKEW_H

#include <stddef.h>
#include <stdint.h>

#include "opscope/analysis/columns.h"
#include "opscope/model/runs.h"
#include "opscope/model/summary.h"
#include "opscope/model/trace.h"

/*
 * Append the collective calls of trace t (its runs: each call's run) to
 * s->calls, interning their strings in s, numbered per group (seq).
 */
void osc_summary_add_calls(const struct osc_trace *t, const struct osc_runs *runs,
			   struct osc_summary *s);

/* One call matched across the ranks. */
struct osc_skew_call {
	const char *group, *name; /* the text of the first rank that has it */
	const char *algorithm, *protocol; /* the ranks' merged (above) */
	uint32_t seq;
	double bytes;            /* S, NaN when unknown */
	int64_t group_size;      /* -1 when unknown */
	uint32_t ranks;          /* ranks that have it */
	uint32_t missing;        /* ranks with calls of the group but not this one */
	uint32_t first, last;    /* indexes into the ranks given: first and last to start */
	uint32_t waited;         /* index of the rank that waited most (longest duration) */
	int64_t skew, transfer, wait; /* ns; -1 when no rank has device work for it */
};

/* The calls of one (group, collective, algorithm, protocol), summed. */
struct osc_skew_sum {
	const char *group, *name, *algorithm, *protocol;
	uint64_t count;          /* calls */
	uint64_t incomplete;     /* calls with missing ranks */
	int64_t skew, transfer, wait; /* sums over the calls with device work, ns */
	double busbw;            /* mean of the calls' busbw, GB/s; NaN when none has one */
};

struct osc_skew {
	struct osc_skew_call *calls; /* by group text, then seq */
	size_t nr;
	struct osc_skew_sum *sums;   /* by group text, name, algorithm, protocol */
	size_t nr_sums;
};

/*
 * Match the calls of ranks[0 .. nr) by (group, seq) and work out each
 * call's figures (above) into out. run_on: NULL, or per rank NULL or a
 * per-run flag (indexed by the call's run) choosing which of its calls
 * count; a call outside every run counts only when run_on[rank] is NULL.
 * The strings of out point into the summaries: keep them while out lives.
 */
void osc_collective_skew(const struct osc_summary *const *ranks, size_t nr,
			 const uint8_t *const *run_on, struct osc_skew *out);
void osc_skew_release(struct osc_skew *s);

/*
 * The per-call table's columns, and its cells (ranks as given to
 * osc_collective_skew: a rank is shown by its number, else its index;
 * unknown numbers are empty).
 */
const struct osc_column *osc_skew_columns(size_t *nr);
const char *osc_skew_cell(const struct osc_summary *const *ranks, const struct osc_skew *s,
			  size_t row, size_t col, char *buf, size_t size);

/* The per-(group, collective, algorithm, protocol) table's columns, and its cells. */
const struct osc_column *osc_skew_sum_columns(size_t *nr);
const char *osc_skew_sum_cell(const struct osc_skew *s, size_t row, size_t col, char *buf,
			      size_t size);

#endif
