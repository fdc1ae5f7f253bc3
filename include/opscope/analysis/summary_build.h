/*
 * summary_build.h - reduce a loaded trace to its rank summary (summary.h).
 *
 * Rows: for every level but run, one aggregate per run (aggregate.h, that
 * run alone selected, no filter), so a row of run j is exactly the row
 * `opscope report --by LEVEL --runs j` prints: the same count and sums, and
 * device events in the run of their launching op. Runs: each run's window,
 * events, host_busy and device_time (the aggregate's bases), and the GPU
 * breakdown (gpu.h) of the rank's device in the window. Calls: the
 * collective calls (collective_skew.h).
 */
#ifndef OPSCOPE_SUMMARY_BUILD_H
#define OPSCOPE_SUMMARY_BUILD_H

#include "opscope/analysis/category.h"
#include "opscope/model/runs.h"
#include "opscope/model/summary.h"
#include "opscope/model/trace.h"

/*
 * The summary of t (its runs) into out (osc_summary_init'ed, empty): path
 * and trace are t->path, rank osc_trace_rank's. categories: the user's
 * category rules (NULL: the built-in table). Only reads t and runs.
 */
void osc_summary_build(const struct osc_trace *t, const struct osc_runs *runs,
		       const struct osc_categories *categories, struct osc_summary *out);

#endif
