/*
 * summary_build.h - reduce a loaded trace to its rank summary (summary.h).
 *
 * Rows: for every level but run, the rows of one aggregate over every run
 * (aggregate.h, no filter), each split by the run of its members (an op in
 * its run, a device event in the run runs.h gives it), so a row of run j
 * is the row `opscope report --by LEVEL --runs j` prints: the same count
 * and sums (tests/unit/test_summary_build.c checks it level by level), at
 * the cost of one aggregate per level, not one per run. Two rows differ
 * from report's where ops and their work cross runs: a path keeps the
 * ancestors an op has in other runs (report --runs j starts its paths in
 * run j), and a mapping row keeps a kernel whose op's (op, shapes) has
 * instances in other runs only. The module level is aggregated run by run
 * (its device time comes from other events), once per run. Runs: each
 * run's window,
 * events, host_busy and device_time (the aggregate's bases), and the GPU
 * breakdown (gpu.h) of the rank's device in the window. Calls: the
 * collective calls (collective_skew.h).
 */
#ifndef OPSCOPE_SUMMARY_BUILD_H
#define OPSCOPE_SUMMARY_BUILD_H

#include "opscope/analysis/category.h"
#include "opscope/analysis/demangle.h"
#include "opscope/model/runs.h"
#include "opscope/model/summary.h"
#include "opscope/model/trace.h"

/*
 * The summary of t (its runs) into out (osc_summary_init'ed, empty): path
 * and trace are t->path, rank osc_trace_rank's. sel: the runs to keep
 * (NULL: every run); the summary's runs are those, renumbered from 0, and
 * only their rows and calls are kept (a call's seq stays its place among
 * the whole trace's calls of its group, so ranks still match). categories:
 * the user's category rules (NULL: the built-in table). names: how the
 * device levels' rows name their kernels (osc_agg_label_names; NULL: as the
 * trace holds them). skip: levels
 * (1 << enum osc_level) left without rows, for a caller that reads only
 * some (out->skipped says which; 0: every level). Only reads t and runs.
 */
void osc_summary_build(const struct osc_trace *t, const struct osc_runs *runs,
		       const struct osc_runsel *sel, const struct osc_categories *categories,
		       const struct osc_names *names, unsigned skip, struct osc_summary *out);

#endif
