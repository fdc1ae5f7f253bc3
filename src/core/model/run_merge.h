/*
 * run_merge.h - a stable k-way merge of runs of events, each sorted in model
 * order (private to the core): the heads of the runs in a binary heap, the
 * earlier event first and, on equal events, the earlier run, so the result
 * is what a stable sort of the runs laid end to end gives.
 */
#ifndef OPSCOPE_RUN_MERGE_H
#define OPSCOPE_RUN_MERGE_H

#include <stddef.h>
#include <stdint.h>

#include "opscope/model/trace.h"

struct osc_run_merge {
	const struct osc_event *const *base; /* per run: its events */
	size_t *at, *end;                    /* per run: next index, end */
	uint32_t *heap;                      /* runs with events left, earliest head on top */
	size_t nh;
};

/* Merge runs r = 0 .. nr-1, the events base[r][from[r] .. to[r]). */
void osc_run_merge_init(struct osc_run_merge *m, size_t nr, const struct osc_event *const *base,
			const size_t *from, const size_t *to);

/*
 * The run of the next event in model order, which is taken: its index in
 * the run is at[run] - 1 after the call. UINT32_MAX once every run is done.
 */
uint32_t osc_run_merge_next(struct osc_run_merge *m);

void osc_run_merge_release(struct osc_run_merge *m);

/*
 * Put t's events, nr runs each sorted in model order starting at start[]
 * (start[nr] == t->nr_events), in model order: merged into a new table as
 * osc_trace_merge_parts merges parts, the old one given back as the merge
 * consumes it (no permutation of the table in place, whose every step is a
 * cache miss, and never two copies of it).
 */
void osc_trace_merge_runs(struct osc_trace *t, const size_t *start, size_t nr);

/*
 * Keep the (name, cat) of a flow event of t, or of a part t takes, once
 * (t->flow_names), for osc_flow_of.
 */
void osc_trace_keep_flow_name(struct osc_trace *t, osc_str name, osc_str cat);

#endif
