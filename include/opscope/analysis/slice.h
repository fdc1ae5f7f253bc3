/*
 * slice.h - which events of a trace make a slice of it: the selected runs'
 * time window, optionally narrowed to the ops a filter matches, chosen so
 * that the slice, loaded again, gives the same numbers for those runs
 * (chrome_write.h writes it).
 *
 * Without a filter an event is kept when:
 * - complete host event (not device work): it is in a selected run (runs.h's
 *   run_of), or its window [ts, ts+dur) overlaps a selected run's window
 *   (a zero-length one: its ts lies in it); kept whole, so it may reach
 *   outside the runs;
 * - device event (kernel, memcpy, memset): its run is selected, the run of
 *   the op that launched it when there is one (osc_trace_launchers), else
 *   its own, as the aggregation counts it (aggregate.h), or it overlaps a
 *   selected run's window (the device was busy then); a kernel that ran
 *   after the window but was launched in it is kept, and one that ran in it
 *   for an earlier run keeps its launch (runtime call) too, so that loaded
 *   again it still counts outside the runs;
 * - instant, counter: it is in a selected run (run_of);
 * - flow event (s, t, f): every event of its flow (same category and id)
 *   lies, on its own thread, within a kept complete event's window
 *   (bound at its ts, ends included): the flows that link kept events;
 * - events of other phases (async, objects) are never kept.
 * With a filter: the run events of the selected runs, the complete host
 * events in the window whose name or op key passes and every complete host
 * event of the same thread nested in one of those (runtime calls
 * included), the device events that those launched (by the correlation of
 * the ops, osc_trace_correlation), and the flows linking kept events.
 */
#ifndef OPSCOPE_SLICE_H
#define OPSCOPE_SLICE_H

#include <stdint.h>

#include "opscope/model/filter.h"
#include "opscope/model/runs.h"
#include "opscope/model/trace.h"

/*
 * keep[i] = 1 for the events of t to write for the runs sel of r, with the
 * filter f (NULL or empty: none); keep has osc_trace_nr_written(t) entries:
 * the events, then the flows (keep[t->nr_events + f] for flow f). Returns
 * how many are kept.
 */
uint64_t osc_slice_select(const struct osc_trace *t, const struct osc_runs *r,
			  const struct osc_runsel *sel, const struct osc_filter *f, uint8_t *keep);

#endif
