/*
 * trace_parts.c - merging the parts of a trace parsed on several cores.
 *
 * Each part is sorted on the core that parsed it; the merge writes every
 * event once, renumbered, straight to its place in the whole, so no final
 * sort or permutation of the big table is needed. Two threads (on a big
 * enough merge) each write one half of the output: the split is an event of
 * the merge order, found by bisection in every part, so the halves are
 * exactly those of a one-thread merge. As the merge walks through a part,
 * the pages it has consumed are given back to the system (osc_give_back),
 * which keeps peak memory near one copy of the table.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "opscope/base/alloc.h"
#include "opscope/base/status.h"
#include "opscope/model/trace.h"
#include "base/parallel.h"
#include "model/run_merge.h"

#define SPLIT_MIN 200000        /* smaller merges run on one thread */
#define RELEASE_STEP 16384      /* events consumed between two give-backs of a part */

void osc_trace_take_part(struct osc_trace *t, struct osc_trace *s, osc_str *str,
			 uint32_t *thread, uint32_t *kernel, struct osc_trace_part *out)
{
	size_t text = s->args_len > 1 ? s->args_len - 1 : 0;
	uint64_t shift = t->args_len - 1; /* s's text offset o lands at o + shift */
	uint64_t raw_shift; /* and its raw reference v at v + raw_shift */
	bool raw = s->nr_raw;

	if (text) {
		OSC_GROW(t->args_text, t->args_len + text, t->args_alloc);
		memcpy(t->args_text + t->args_len, s->args_text + 1, text);
		t->args_len += text;
	}
	osc_trace_take_raw(t, s, &raw_shift);
	for (size_t i = 0; i < s->nr_events; i++) {
		uint64_t place = osc_trace_args_place(s, i);

		/* References into the input stay; those into raw blocks move with them. */
		if (place && !(place & OSC_ARGS_REF_BIT))
			osc_event_args_set(&s->events[i], &s->args_off[i], place + shift);
		else if (place && raw)
			osc_event_args_set(&s->events[i], &s->args_off[i], place + raw_shift);
	}
	for (size_t i = 0; i < s->nr_threads; i++)
		if (thread[i] < t->nr_threads)
			t->threads[thread[i]].nr_events += s->threads[i].nr_events;
	for (size_t i = 0; i < s->nr_flow_names; i++)
		osc_trace_keep_flow_name(t, str[s->flow_names[i].name], str[s->flow_names[i].cat]);
	t->has_providers |= s->has_providers;
	*out = (struct osc_trace_part){ .events = s->events, .args_off = s->args_off,
					.extras = s->extras, .nr = s->nr_events, .nr_flows = s->flows_in_events,
					.str = str, .thread = thread, .kernel = kernel };
	out->wide = osc_xmalloc((s->nr_wide_ids ? s->nr_wide_ids : 1) * sizeof(*out->wide));
	for (size_t i = 0; i < s->nr_wide_ids; i++)
		out->wide[i] = osc_trace_id(t, s->wide_ids[i]);
	s->events = NULL;
	s->args_off = NULL;
	s->extras = NULL;
	s->nr_events = s->alloc_events = s->flows_in_events = 0;
}

void osc_trace_take_own_part(struct osc_trace *t, struct osc_sort_scratch *s,
			     struct osc_trace_part *out)
{
	osc_trace_sort_in(t, s);
	*out = (struct osc_trace_part){ .events = t->events, .args_off = t->args_off,
					.extras = t->extras, .nr = t->nr_events,
					.nr_flows = t->flows_in_events };
	t->events = NULL;
	t->args_off = NULL;
	t->extras = NULL;
	t->nr_events = t->alloc_events = t->flows_in_events = 0;
}

/*
 * One thread's share: parts[r] events [from[r], to[r]) to t->events[dst ...),
 * or when flows go apart, their flows to t->flows[fdst ...), the one at
 * place `at` in the merge first.
 */
struct half {
	struct osc_trace *t;
	const struct osc_trace_part *parts;
	size_t nr;
	size_t *from, *to;
	size_t dst;
	bool apart;
	size_t fdst, at;
	struct osc_flow_args *args; /* the flows' args (flow indices of t->flows) */
	size_t nr_args, alloc_args;
};

/* Flow e (remapped) with args off, to its place in t->flows. */
static void put_flow(struct half *x, const struct osc_event *e, uint64_t off)
{
	if (off) {
		OSC_GROW(x->args, x->nr_args + 1, x->alloc_args);
		x->args[x->nr_args++] = (struct osc_flow_args){ .flow = (uint32_t)x->fdst,
								.off = off };
	}
	x->t->flows[x->fdst++] = osc_flow_of(x->t, e, x->at);
}

/* The extra of event i of part p, e (already renumbered) in the whole. */
static struct osc_event_extra extra_of(const struct osc_trace_part *p, size_t i,
				       const struct osc_event *e)
{
	struct osc_event_extra x = osc_event_no_extra(e);

	if (p->extras) {
		x = p->extras[i];
		if (p->str)
			osc_trace_part_remap_extra(p, &x);
	}
	return x;
}

static void merge_half(void *arg, size_t h)
{
	struct half *x = &((struct half *)arg)[h];
	const struct osc_event **base = osc_xmalloc((x->nr ? x->nr : 1) * sizeof(*base));
	size_t *released = osc_xmalloc((x->nr ? x->nr : 1) * sizeof(*released));
	struct osc_run_merge m;
	size_t dst = x->dst;
	uint32_t r;

	for (size_t k = 0; k < x->nr; k++) {
		base[k] = x->parts[k].events;
		released[k] = x->from[k];
	}
	osc_run_merge_init(&m, x->nr, base, x->from, x->to);
	while ((r = osc_run_merge_next(&m)) != UINT32_MAX) {
		const struct osc_trace_part *p = &x->parts[r];
		size_t i = m.at[r] - 1;
		struct osc_event e = p->events[i];

		if (p->str) /* runs of one table (osc_trace_merge_runs) keep their ids */
			osc_trace_part_remap(p, &e);
		if (x->apart && osc_phase_is_flow(e.ph)) {
			put_flow(x, &e, osc_event_args_place(&e, p->args_off[i]));
		} else {
			if (x->t->extras)
				x->t->extras[dst] = extra_of(p, i, &e);
			x->t->events[dst] = e;
			x->t->args_off[dst++] = p->args_off[i];
		}
		x->at++;
		if (m.at[r] - released[r] >= RELEASE_STEP || m.at[r] == x->to[r]) {
			osc_give_back(p->events, sizeof(*p->events), released[r], m.at[r]);
			osc_give_back(p->args_off, sizeof(*p->args_off), released[r], m.at[r]);
			if (p->extras)
				osc_give_back(p->extras, sizeof(*p->extras), released[r], m.at[r]);
			released[r] = m.at[r];
		}
	}
	osc_run_merge_release(&m);
	free(released);
	free(base);
}

/* Events of part r before event j of part p in the merge order (p's wins ties if p < r). */
static size_t rank_in(const struct osc_trace_part *parts, size_t r, size_t p, size_t j)
{
	const struct osc_event *pivot = &parts[p].events[j];
	size_t lo = 0, hi = parts[r].nr;

	while (lo < hi) { /* first event of r not before the pivot */
		size_t mid = lo + (hi - lo) / 2;
		const struct osc_event *e = &parts[r].events[mid];
		bool before = osc_event_before(e, pivot) ||
			      (!osc_event_before(pivot, e) && (r < p || (r == p && mid < j)));

		if (before)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * Split the merge in two near its middle: the middle event of some part
 * whose rank is closest to half of total; cut[r] is where part r splits.
 */
static void split(const struct osc_trace_part *parts, size_t nr, size_t total, size_t *cut)
{
	size_t best = SIZE_MAX, gap = SIZE_MAX;

	for (size_t p = 0; p < nr; p++) {
		size_t rank = 0, off;

		if (!parts[p].nr)
			continue;
		for (size_t r = 0; r < nr; r++)
			rank += rank_in(parts, r, p, parts[p].nr / 2);
		off = rank > total / 2 ? rank - total / 2 : total / 2 - rank;
		if (off < gap) {
			gap = off;
			best = p;
		}
	}
	for (size_t r = 0; r < nr; r++)
		cut[r] = best == SIZE_MAX ? parts[r].nr : rank_in(parts, r, best, parts[best].nr / 2);
}

void osc_trace_part_release(struct osc_trace_part *p)
{
	free(p->events);
	free(p->args_off);
	free(p->extras);
	free(p->str);
	free(p->thread);
	free(p->kernel);
	free(p->wide);
	memset(p, 0, sizeof(*p));
}

/* Flow events of part p before its event cut: the shorter side is counted. */
static size_t flows_before(const struct osc_trace_part *p, size_t cut)
{
	size_t n = 0;

	if (cut <= p->nr / 2) {
		for (size_t i = 0; i < cut; i++)
			n += osc_phase_is_flow(p->events[i].ph);
		return n;
	}
	for (size_t i = cut; i < p->nr; i++)
		n += osc_phase_is_flow(p->events[i].ph);
	return p->nr_flows - n;
}

/*
 * Append parts[0 .. nr) to t in model order (osc_trace_merge_parts, the
 * parts kept); with apart, the flows to t->flows (t holds nothing yet).
 */
static void merge_into(struct osc_trace *t, const struct osc_trace_part *parts, size_t nr,
		       bool apart)
{
	size_t total = 0, flows = 0, keep, halves = 1, first = t->nr_events;
	size_t *from = osc_xcalloc(nr ? nr : 1, sizeof(*from));
	size_t *cut = osc_xmalloc((nr ? nr : 1) * sizeof(*cut));
	size_t *to = osc_xmalloc((nr ? nr : 1) * sizeof(*to));
	struct half h[2];

	osc_trace_drop_derived(t);
	for (size_t r = 0; r < nr; r++) {
		total += parts[r].nr;
		flows += parts[r].nr_flows;
		to[r] = parts[r].nr;
	}
	keep = t->nr_events + total > OSC_MAX_EVENTS
		       ? (t->nr_events < OSC_MAX_EVENTS ? OSC_MAX_EVENTS - t->nr_events : 0)
		       : total;
	for (size_t i = keep; i < total; i++)
		osc_trace_warn(t, OSC_WARN_TOO_MANY_EVENTS, OSC_NO_OFFSET);
	apart = apart && flows && keep == total && !first && !t->nr_flows;
	osc_trace_reserve(t, total - (apart ? flows : 0));
	for (size_t r = 0; r < nr && !t->extras; r++)
		if (parts[r].extras)
			osc_trace_start_extras(t);
	if (apart)
		t->flows = osc_xmalloc(flows * sizeof(*t->flows));
	h[0] = (struct half){ .t = t, .parts = parts, .nr = nr, .from = from, .to = to,
			      .dst = first, .apart = apart };
	if (total >= SPLIT_MIN && osc_threads() > 1 && keep == total) {
		split(parts, nr, total, cut);
		h[1] = h[0];
		h[0].to = cut;
		h[1].from = cut;
		for (size_t r = 0; r < nr; r++) {
			size_t f = apart ? flows_before(&parts[r], cut[r]) : 0;

			h[1].dst += cut[r] - f;
			h[1].fdst += f;
			h[1].at += cut[r];
		}
		halves = 2;
	}
	osc_parallel_run(halves, merge_half, h);
	if (keep && first && osc_event_before(&t->events[first], &t->events[first - 1]))
		t->unsorted = true;
	t->nr_events += keep - (apart ? flows : 0);
	t->flows_in_events += apart ? 0 : flows;
	t->nr_flows = apart ? flows : t->nr_flows;
	for (size_t i = 0; i < halves; i++) {
		if (h[i].nr_args) {
			t->flow_args = osc_xreallocarray(t->flow_args, t->nr_flow_args + h[i].nr_args,
							 sizeof(*t->flow_args));
			memcpy(t->flow_args + t->nr_flow_args, h[i].args,
			       h[i].nr_args * sizeof(*h[i].args));
			t->nr_flow_args += h[i].nr_args;
		}
		free(h[i].args);
	}
	free(from);
	free(cut);
	free(to);
}

void osc_trace_merge_parts(struct osc_trace *t, struct osc_trace_part *parts, size_t nr)
{
	merge_into(t, parts, nr, true);
	for (size_t r = 0; r < nr; r++)
		osc_trace_part_release(&parts[r]);
}

void osc_trace_merge_runs(struct osc_trace *t, const size_t *start, size_t nr)
{
	struct osc_event *events = t->events;
	uint32_t *args_off = t->args_off;
	struct osc_event_extra *extras = t->extras;
	struct osc_trace_part *runs = osc_xcalloc(nr ? nr : 1, sizeof(*runs));
	size_t flows = t->flows_in_events;

	for (size_t r = 0; r < nr; r++)
		runs[r] = (struct osc_trace_part){ .events = events + start[r],
						   .args_off = args_off + start[r],
						   .extras = extras ? extras + start[r] : NULL,
						   .nr = start[r + 1] - start[r] };
	t->events = NULL;
	t->args_off = NULL;
	t->extras = NULL;
	t->nr_events = t->alloc_events = 0;
	merge_into(t, runs, nr, false);
	t->flows_in_events = flows;
	free(runs);
	free(events);
	free(args_off);
	free(extras);
}
