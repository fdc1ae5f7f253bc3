/*
 * gather.h - ONNX Runtime's gather_op_profile JSON: the kernels of every NVTX
 * op, grouped into forward and backward passes.
 *
 *   {"forward": [ {OP: [ {"duration(ns)", "end", "n_registers_per_thread",
 *                         "name", "start", "stream_id"} ...] } ...],
 *    "backward": [...]}
 *
 * Passes are the selected runs when they come from --run-range (a run whose
 * name contains "backward", any case, is a backward pass; others are
 * forward); otherwise the ranges whose name ends in the word Forward or
 * Backward (ORT's "Batch-0 Forward"), and with none of those the whole trace
 * is one forward pass. The ops of a pass are the other host ranges (kind
 * HOST_OP) that start inside it, in time order, each listed once even when
 * the name repeats. An op's kernels follow the projection rule of nsys's
 * nvtx_kern_sum: a kernel belongs to an op when the runtime call that
 * launched it (same correlation id) runs on the op's thread within the op's
 * window, so nested ops all list it. Times are the trace's integer ns;
 * kernel names are demangled.
 */
#ifndef OPSCOPE_GATHER_H
#define OPSCOPE_GATHER_H

#include <stdio.h>

#include "opscope/model/runs.h"
#include "opscope/base/status.h"
#include "opscope/model/trace.h"

/*
 * Write t's gather_op_profile JSON to out. runs and sel are the report's run
 * detection and selection (sel NULL: every run). Errors: OSC_IO (subject
 * "output") when writing failed.
 */
enum osc_status osc_gather_json(FILE *out, const struct osc_trace *t, const struct osc_runs *runs,
				const struct osc_runsel *sel, struct osc_error *err);

#endif
