/*
 * collective_skew.h - the collective calls of each rank and, across the
 * ranks of a job, how far apart the ranks entered each call.
 *
 * A call is a record_param_comms op (collective.h) with the device work it
 * launched (NCCL/RCCL kernels), or an NCCL/RCCL kernel that no such op
 * launched (older traces). Calls of one process group are issued in the same
 * order on every rank of the group, so the seq-th call of a group on one
 * rank is the seq-th on every other (summary.h's struct osc_sum_call).
 * Definitions of the cross-rank figures: see osc_collective_skew below and
 * man opscope (COLLECTIVES ACROSS RANKS), after HTA and TraceLens.
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

#endif
