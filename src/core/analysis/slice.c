/*
 * slice.c - choosing the events of a slice (slice.h).
 *
 * Limits: a flow is told apart by (category, id) only, as the loader keeps
 * it; a complete event spanning many runs is checked against each run it
 * may overlap (O(runs) for it).
 */
#include <stdlib.h>
#include <string.h>

#include "opscope/analysis/calltree.h"
#include "opscope/analysis/correlate.h"
#include "opscope/analysis/slice.h"
#include "opscope/analysis/trace_cache.h"
#include "opscope/base/alloc.h"

/* Whether [ts, end) (or the instant ts when end == ts) overlaps a selected run. */
static bool in_runs(const struct osc_runs *r, const struct osc_runsel *sel, int64_t ts,
		    int64_t end)
{
	size_t lo = 0, hi = r->nr;

	/* the first run starting at or after end (after ts for an instant) */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (end > ts ? r->runs[mid].ts < end : r->runs[mid].ts <= ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	while (lo--) {
		const struct osc_run *run = &r->runs[lo];

		if (osc_sat_add(run->ts, run->dur) <= ts)
			break; /* runs do not overlap: the earlier ones end earlier still */
		if (lo < sel->nr_runs && sel->on[lo])
			return true;
	}
	return false;
}

/* The run in which device event ev counts (aggregate.h), or OSC_NONE. */
static uint32_t device_run(const struct osc_runs *r, const uint32_t *launcher, uint32_t ev)
{
	if (launcher && launcher[ev] != OSC_NONE)
		ev = launcher[ev];
	return r->run_of[ev];
}

static bool run_on(const struct osc_runsel *sel, uint32_t run)
{
	return run != OSC_NONE && run < sel->nr_runs && sel->on[run];
}

struct span {
	int64_t ts, end;
};

static int cmp_span(const void *a, const void *b)
{
	const struct span *x = a, *y = b;

	return x->ts < y->ts ? -1 : x->ts > y->ts;
}

struct flow_key {
	osc_str cat;
	int64_t id;
	uint32_t ev; /* index into t->flows */
};

static int cmp_flow(const void *a, const void *b)
{
	const struct flow_key *x = a, *y = b;

	if (x->cat != y->cat)
		return x->cat < y->cat ? -1 : 1;
	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return x->ev < y->ev ? -1 : x->ev > y->ev;
}

/*
 * keep for each flow (at t->nr_events + its index): it lies within a kept
 * window of its thread (s, grouped per thread by first, ends made running
 * maxima); then a flow (cat, id) stays only when all its events do.
 */
static void keep_groups(const struct osc_trace *t, const size_t *first, const struct span *s,
			uint8_t *keep)
{
	struct flow_key *fl = osc_xmalloc(t->nr_flows * sizeof(*fl));
	uint8_t *kf = keep + t->nr_events;

	for (size_t i = 0; i < t->nr_flows; i++) {
		const struct osc_flow *e = &t->flows[i];
		size_t lo = first[e->thread], hi = first[e->thread + 1];

		fl[i] = (struct flow_key){ osc_trace_flow_name(t, e)->cat, e->id, (uint32_t)i };
		while (lo < hi) { /* past the last window starting at or before ts */
			size_t mid = lo + (hi - lo) / 2;

			if (s[mid].ts <= e->ts)
				lo = mid + 1;
			else
				hi = mid;
		}
		kf[i] = lo > first[e->thread] && s[lo - 1].end >= e->ts;
	}
	qsort(fl, t->nr_flows, sizeof(*fl), cmp_flow);
	for (size_t a = 0, b; a < t->nr_flows; a = b) {
		bool all = true;

		for (b = a; b < t->nr_flows && fl[b].cat == fl[a].cat && fl[b].id == fl[a].id; b++)
			all &= kf[fl[b].ev] != 0;
		if (!all)
			for (size_t k = a; k < b; k++)
				kf[fl[k].ev] = 0;
	}
	free(fl);
}

/*
 * Keep the flows whose every event lies within a kept complete event of its
 * thread. Per thread the kept windows sorted by start, with the running
 * maximum of their ends: ts is covered when that maximum, over the windows
 * starting at or before ts, reaches ts.
 */
static void keep_flows(const struct osc_trace *t, uint8_t *keep)
{
	size_t nt = t->nr_threads ? t->nr_threads : 1, *first;
	struct span *s;
	size_t *fill;

	if (!t->nr_flows)
		return;
	first = osc_xcalloc(nt + 1, sizeof(*first));
	for (size_t i = 0; i < t->nr_events; i++) {
		const struct osc_event *e = &t->events[i];

		if (keep[i] && e->ph == OSC_PH_COMPLETE)
			first[e->thread + 1]++;
	}
	for (size_t i = 0; i < nt; i++)
		first[i + 1] += first[i];
	s = osc_xmalloc((first[nt] ? first[nt] : 1) * sizeof(*s));
	fill = osc_xmalloc(nt * sizeof(*fill));
	memcpy(fill, first, nt * sizeof(*fill));
	for (size_t i = 0; i < t->nr_events; i++) {
		const struct osc_event *e = &t->events[i];

		if (keep[i] && e->ph == OSC_PH_COMPLETE)
			s[fill[e->thread]++] = (struct span){ e->ts, osc_event_end(e) };
	}
	for (size_t th = 0; th < nt; th++) { /* model order is by ts: sorted already; be sure */
		qsort(s + first[th], first[th + 1] - first[th], sizeof(*s), cmp_span);
		for (size_t k = first[th] + 1; k < first[th + 1]; k++)
			if (s[k].end < s[k - 1].end)
				s[k].end = s[k - 1].end;
	}
	keep_groups(t, first, s, keep);
	free(s);
	free(fill);
	free(first);
}

/*
 * Device work in the window that counts in a run not selected (launched
 * before it) keeps its launch, so that loaded again it still counts there
 * and not in the window's run.
 */
static void keep_launches(const struct osc_trace *t, const struct osc_runs *r,
			  const struct osc_runsel *sel, const uint32_t *launcher, uint8_t *keep)
{
	const struct osc_correlation *corr;

	if (!launcher)
		return;
	corr = osc_trace_correlation(t);
	for (size_t k = 0; k < corr->nr_devs; k++) {
		const struct osc_dev_link *d = &corr->devs[k];

		if (keep[d->event] && d->launch != OSC_NONE &&
		    !run_on(sel, device_run(r, launcher, d->event)))
			keep[corr->launches[d->launch].event] = 1;
	}
}

uint64_t osc_slice_select(const struct osc_trace *t, const struct osc_runs *r,
			  const struct osc_runsel *sel, const struct osc_filter *f, uint8_t *keep)
{
	const uint32_t *launcher = osc_trace_has_device(t) ? osc_trace_launchers(t) : NULL;
	bool filtered = f && !osc_filter_is_empty(f);
	uint64_t n = 0;

	memset(keep, 0, osc_trace_nr_written(t));
	if (!filtered) {
		for (size_t i = 0; i < t->nr_events; i++) {
			const struct osc_event *e = &t->events[i];

			if (osc_kind_is_device(e->kind) && e->ph == OSC_PH_COMPLETE)
				keep[i] = run_on(sel, device_run(r, launcher, (uint32_t)i)) ||
					  in_runs(r, sel, e->ts, osc_event_end(e));
			else if (e->ph == OSC_PH_COMPLETE)
				keep[i] = run_on(sel, r->run_of[i]) ||
					  in_runs(r, sel, e->ts, osc_event_end(e));
			else if (e->ph == OSC_PH_INSTANT || e->ph == OSC_PH_COUNTER)
				keep[i] = run_on(sel, r->run_of[i]);
		}
	} else {
		const struct osc_correlation *corr = osc_trace_correlation(t);
		const struct osc_calltree *tree = osc_trace_host_tree(t);
		struct osc_filter_cache fc;
		size_t nt = t->nr_threads ? t->nr_threads : 1;
		int64_t *held = osc_xmalloc(nt * sizeof(*held)); /* per thread: end of the
								    latest-ending match so far */

		for (size_t i = 0; i < nt; i++)
			held[i] = INT64_MIN;
		osc_filter_cache_init(&fc, f, t);
		for (size_t i = 0; i < r->nr; i++)
			if (run_on(sel, (uint32_t)i) && r->runs[i].event != OSC_NONE)
				keep[r->runs[i].event] = 1;
		for (size_t i = 0; i < t->nr_events; i++) { /* parents before children */
			const struct osc_event *e = &t->events[i];
			int64_t end = osc_event_end(e);

			if (e->ph != OSC_PH_COMPLETE || osc_kind_is_device(e->kind) ||
			    !in_runs(r, sel, e->ts, end))
				continue;
			if (osc_filter_cache_event(&fc, (uint32_t)i)) {
				keep[i] = 1;
				if (end > held[e->thread])
					held[e->thread] = end;
			} else if (end <= held[e->thread]) {
				keep[i] = 1; /* starts no earlier than that match, ends within it */
			}
		}
		for (size_t k = 0; k < corr->nr_devs; k++) {
			const struct osc_dev_link *d = &corr->devs[k];
			bool by_launch = d->launch != OSC_NONE &&
					 keep[corr->launches[d->launch].event];
			bool by_op = d->node != OSC_NONE && keep[tree->nodes[d->node].event];

			if ((by_launch || by_op) && run_on(sel, device_run(r, launcher, d->event)))
				keep[d->event] = 1;
		}
		osc_filter_cache_release(&fc);
		free(held);
	}
	if (!filtered)
		keep_launches(t, r, sel, launcher, keep);
	keep_flows(t, keep);
	for (size_t i = 0; i < osc_trace_nr_written(t); i++)
		n += keep[i];
	return n;
}
