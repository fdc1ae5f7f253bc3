/* timeline.c - lanes of a trace's events, indexed by time (timeline.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opscope/analysis/timeline.h"
#include "opscope/base/alloc.h"
#include "opscope/base/bits.h"

/* Whether the timeline draws event e (timeline.h: which events). */
static bool drawn(const struct osc_event *e)
{
	return e->ph == OSC_PH_COMPLETE && e->kind != OSC_KIND_PYTHON && e->kind != OSC_KIND_FLOW;
}

/* A lane being filled: its events, and when its last one ends. */
struct lane_fill {
	uint32_t *ev;
	size_t nr, alloc;
	int64_t last_end;
};

struct thread_fill {
	struct lane_fill *depth; /* lanes of the thread, by depth */
	size_t nr_depth;
	bool device, used;
	uint32_t group;
};

static void fill_add(struct lane_fill *f, uint32_t ev, int64_t end)
{
	if (f->nr == f->alloc) {
		f->alloc = f->alloc ? 2 * f->alloc : 64;
		f->ev = osc_xreallocarray(f->ev, f->alloc, sizeof(*f->ev));
	}
	f->ev[f->nr++] = ev;
	f->last_end = end;
}

/* Place every drawn event in the first lane of its thread it fits in. */
static void place_events(const struct osc_trace *t, struct thread_fill *th, uint64_t *too_deep)
{
	for (size_t i = 0; i < t->nr_events; i++) {
		const struct osc_event *e = &t->events[i];
		struct thread_fill *f;
		size_t d;

		if (!drawn(e) || e->thread >= t->nr_threads)
			continue;
		f = &th[e->thread];
		for (d = 0; d < f->nr_depth && f->depth[d].last_end > e->ts; d++)
			;
		if (d == OSC_TL_MAX_DEPTH) {
			(*too_deep)++;
			continue;
		}
		if (d == f->nr_depth) {
			f->depth = osc_xreallocarray(f->depth, d + 1, sizeof(*f->depth));
			memset(&f->depth[d], 0, sizeof(*f->depth));
			f->nr_depth++;
		}
		fill_add(&f->depth[d], (uint32_t)i, osc_event_end(e));
		f->used = true;
		if (osc_kind_is_device(e->kind))
			f->device = true;
	}
}

/* Sort key of threads into groups: device processes last, then sort index, order seen. */
struct thread_key {
	uint32_t thread;
	const struct osc_trace *t;
	bool device;
};

static int cmp_thread(const void *pa, const void *pb)
{
	const struct thread_key *a = pa, *b = pb;
	const struct osc_thread *x = &a->t->threads[a->thread], *y = &a->t->threads[b->thread];

	if (a->device != b->device)
		return a->device ? 1 : -1;
	if (x->process_sort != y->process_sort)
		return x->process_sort < y->process_sort ? -1 : 1;
	if (x->pid != y->pid)
		return strcmp(osc_strtab_get(&a->t->strs, x->pid),
			      osc_strtab_get(&a->t->strs, y->pid));
	if (x->thread_sort != y->thread_sort)
		return x->thread_sort < y->thread_sort ? -1 : 1;
	return a->thread < b->thread ? -1 : a->thread > b->thread;
}

/* Whether keys[k] (sorted) starts a group: a process, device ones apart. */
static bool starts_group(const struct osc_trace *t, const struct thread_key *keys, size_t k)
{
	return !k || keys[k].device != keys[k - 1].device ||
	       t->threads[keys[k].thread].pid != t->threads[keys[k - 1].thread].pid;
}

/* Turn the events of f into lane l's starts and prefix sums (takes f's events). */
static void lane_from_fill(const struct osc_trace *t, struct lane_fill *f, struct osc_tl_lane *l)
{
	l->nr = f->nr;
	l->ev = f->ev;
	l->start = osc_xreallocarray(NULL, f->nr ? f->nr : 1, sizeof(*l->start));
	l->busy = osc_xreallocarray(NULL, f->nr + 1, sizeof(*l->busy));
	l->busy[0] = 0;
	for (size_t i = 0; i < f->nr; i++) {
		const struct osc_event *e = &t->events[f->ev[i]];

		l->start[i] = e->ts;
		l->busy[i + 1] = l->busy[i] + e->dur;
	}
	f->ev = NULL;
}

/* The union lanes: the merged windows of every drawn event of each group. */
static void build_unions(const struct osc_trace *t, const struct thread_fill *th,
			 struct osc_timeline *tl)
{
	size_t ng = tl->nr_groups, *alloc = osc_xcalloc(ng, sizeof(*alloc));
	int64_t **ends = osc_xcalloc(ng, sizeof(*ends));

	for (size_t i = 0; i < t->nr_events; i++) {
		const struct osc_event *e = &t->events[i];
		struct osc_tl_lane *l;
		int64_t end = osc_event_end(e);
		uint32_t g;

		if (!drawn(e) || e->thread >= t->nr_threads || !th[e->thread].used)
			continue;
		g = th[e->thread].group;
		l = &tl->lanes[tl->groups[g].first_lane];
		if (l->nr && e->ts <= ends[g][l->nr - 1]) { /* events come by start: extend */
			if (end > ends[g][l->nr - 1])
				ends[g][l->nr - 1] = end;
			continue;
		}
		if (l->nr == alloc[g]) {
			alloc[g] = alloc[g] ? 2 * alloc[g] : 64;
			l->start = osc_xreallocarray(l->start, alloc[g], sizeof(*l->start));
			ends[g] = osc_xreallocarray(ends[g], alloc[g], sizeof(**ends));
		}
		l->start[l->nr] = e->ts;
		ends[g][l->nr++] = end;
	}
	for (size_t g = 0; g < ng; g++) {
		struct osc_tl_lane *l = &tl->lanes[tl->groups[g].first_lane];

		l->busy = osc_xreallocarray(NULL, l->nr + 1, sizeof(*l->busy));
		l->busy[0] = 0;
		for (size_t i = 0; i < l->nr; i++)
			l->busy[i + 1] = l->busy[i] + (ends[g][i] - l->start[i]);
		if (!l->start)
			l->start = osc_xmalloc(sizeof(*l->start));
		free(ends[g]);
	}
	free(ends);
	free(alloc);
}

void osc_timeline_build(const struct osc_trace *t, struct osc_timeline *out)
{
	struct thread_fill *th = osc_xcalloc(t->nr_threads ? t->nr_threads : 1, sizeof(*th));
	struct thread_key *keys = osc_xcalloc(t->nr_threads ? t->nr_threads : 1, sizeof(*keys));
	size_t nk = 0, nl = 0;

	memset(out, 0, sizeof(*out));
	place_events(t, th, &out->too_deep);
	for (size_t i = 0; i < t->nr_threads; i++)
		if (th[i].used)
			keys[nk++] = (struct thread_key){ (uint32_t)i, t, th[i].device };
	qsort(keys, nk, sizeof(*keys), cmp_thread);
	for (size_t k = 0; k < nk; k++) {
		bool new_group = starts_group(t, keys, k);

		nl += th[keys[k].thread].nr_depth + new_group;
		out->nr_groups += new_group;
	}
	out->lanes = osc_xcalloc(nl ? nl : 1, sizeof(*out->lanes));
	out->groups = osc_xcalloc(out->nr_groups ? out->nr_groups : 1, sizeof(*out->groups));
	out->nr_groups = 0;
	for (size_t k = 0; k < nk; k++) {
		struct thread_fill *f = &th[keys[k].thread];
		struct osc_tl_group *g;

		if (starts_group(t, keys, k)) {
			g = &out->groups[out->nr_groups++];
			*g = (struct osc_tl_group){ keys[k].thread, (uint32_t)out->nr_lanes, 0,
						    keys[k].device };
			out->lanes[out->nr_lanes++] = (struct osc_tl_lane){
				.group = (uint32_t)(out->nr_groups - 1), .thread = OSC_NONE,
				.device = keys[k].device };
			g->nr_lanes++;
		}
		g = &out->groups[out->nr_groups - 1];
		f->group = (uint32_t)(out->nr_groups - 1);
		for (size_t d = 0; d < f->nr_depth; d++) {
			struct osc_tl_lane *l = &out->lanes[out->nr_lanes++];

			*l = (struct osc_tl_lane){ .group = f->group, .thread = keys[k].thread,
						   .depth = (uint32_t)d, .device = f->device };
			lane_from_fill(t, &f->depth[d], l);
			g->nr_lanes++;
		}
	}
	build_unions(t, th, out);
	out->from = INT64_MAX;
	out->to = INT64_MIN;
	for (size_t g = 0; g < out->nr_groups; g++) {
		const struct osc_tl_lane *u = &out->lanes[out->groups[g].first_lane];

		if (!u->nr)
			continue;
		if (u->start[0] < out->from)
			out->from = u->start[0];
		if (osc_tl_end(u, u->nr - 1) > out->to)
			out->to = osc_tl_end(u, u->nr - 1);
	}
	if (out->from > out->to)
		out->from = out->to = 0;
	for (size_t i = 0; i < t->nr_threads; i++)
		free(th[i].depth);
	free(th);
	free(keys);
}

void osc_timeline_release(struct osc_timeline *tl)
{
	for (size_t i = 0; i < tl->nr_lanes; i++) {
		free(tl->lanes[i].start);
		free(tl->lanes[i].busy);
		free(tl->lanes[i].ev);
	}
	free(tl->lanes);
	free(tl->groups);
	memset(tl, 0, sizeof(*tl));
}

/* Number of intervals of l starting before x (strictly). */
static size_t starting_before(const struct osc_tl_lane *l, int64_t x)
{
	size_t lo = 0, hi = l->nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (l->start[mid] < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Busy time of l before x. */
static int64_t busy_before(const struct osc_tl_lane *l, int64_t x)
{
	size_t i = starting_before(l, x);
	int64_t b = l->busy[i];

	if (i && osc_tl_end(l, i - 1) > x) /* the last one runs past x */
		b -= osc_tl_end(l, i - 1) - x;
	return b;
}

int64_t osc_tl_busy(const struct osc_tl_lane *l, int64_t a, int64_t b)
{
	return busy_before(l, b) - busy_before(l, a);
}

size_t osc_tl_range(const struct osc_tl_lane *l, int64_t a, int64_t b, size_t *lo)
{
	size_t i = starting_before(l, a), hi = starting_before(l, b);

	if (i && osc_tl_end(l, i - 1) > a)
		i--;
	*lo = i;
	return hi > i ? hi - i : 0;
}

size_t osc_tl_at(const struct osc_tl_lane *l, int64_t x)
{
	size_t i = starting_before(l, x + 1); /* starting at or before x */

	if (!i)
		return OSC_TL_NONE;
	i--;
	if (osc_tl_end(l, i) > x || l->start[i] == x)
		return i;
	return OSC_TL_NONE;
}

size_t osc_tl_step(const struct osc_tl_lane *l, int64_t x, int dir)
{
	size_t i;

	if (dir > 0) {
		i = starting_before(l, x + 1);
		return i < l->nr ? i : OSC_TL_NONE;
	}
	i = starting_before(l, x);
	return i ? i - 1 : OSC_TL_NONE;
}

void osc_tl_cells(const struct osc_tl_lane *l, int64_t t0, int64_t width, size_t n,
		  const size_t *marked, size_t nr_marked, struct osc_tl_cell *out)
{
	int64_t before = busy_before(l, t0);
	size_t m = 0; /* first marked interval that may still overlap a cell */

	for (size_t k = 0; k < n; k++) {
		int64_t a = t0 + (int64_t)k * width, b = a + width, after = busy_before(l, b);
		size_t mid = osc_tl_at(l, a + width / 2), lo;

		out[k].busy = after - before;
		before = after;
		if (mid == OSC_TL_NONE && osc_tl_range(l, a, b, &lo))
			mid = lo;
		out[k].shown = mid;
		while (m < nr_marked && l->start[marked[m]] < a && osc_tl_end(l, marked[m]) <= a)
			m++;
		out[k].marked = m < nr_marked && l->start[marked[m]] < b;
	}
}

bool osc_tl_find(const struct osc_timeline *tl, const struct osc_trace *t, uint32_t ev,
		 size_t *lane, size_t *index)
{
	if (ev >= t->nr_events)
		return false;
	for (size_t i = 0; i < tl->nr_lanes; i++) {
		const struct osc_tl_lane *l = &tl->lanes[i];
		size_t lo = 0, hi = l->nr;

		if (l->thread != t->events[ev].thread || !l->ev)
			continue;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (l->ev[mid] < ev)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo < l->nr && l->ev[lo] == ev) {
			*lane = i;
			*index = lo;
			return true;
		}
	}
	return false;
}

void osc_tl_lane_name(const struct osc_timeline *tl, const struct osc_trace *t, size_t i,
		      char *buf, size_t size)
{
	const struct osc_tl_lane *l = &tl->lanes[i];
	const struct osc_thread *th;
	const char *name;

	if (l->thread == OSC_NONE) {
		th = &t->threads[tl->groups[l->group].pid_thread];
		name = osc_strtab_get(&t->strs, th->process_name);
		if (l->device) /* Kineto names a GPU's process as the host's: the pid is the device */
			snprintf(buf, size, "GPU %s", osc_strtab_get(&t->strs, th->pid));
		else if (*name)
			snprintf(buf, size, "%s", name);
		else
			snprintf(buf, size, "%s %s", l->device ? "device" : "process",
				 osc_strtab_get(&t->strs, th->pid));
		return;
	}
	if (l->depth) {
		snprintf(buf, size, "  +%u", l->depth);
		return;
	}
	th = &t->threads[l->thread];
	name = osc_strtab_get(&t->strs, th->thread_name);
	if (!strncmp(name, "thread ", 7)) /* Kineto's "thread 4037 (python3.8)": the tid leads */
		name += 7;
	if (*name)
		snprintf(buf, size, " %s", name);
	else
		snprintf(buf, size, " %s %s", l->device ? "stream" : "thread",
			 osc_strtab_get(&t->strs, th->tid));
}

void osc_tl_runs_window(const struct osc_timeline *tl, const struct osc_runs *r,
			const struct osc_runsel *sel, int64_t *from, int64_t *to)
{
	bool any = false;

	*from = tl->from;
	*to = tl->to;
	for (size_t i = 0; sel && sel->on && i < r->nr && i < sel->nr_runs; i++) {
		const struct osc_run *run = &r->runs[i];

		if (!sel->on[i])
			continue;
		if (!any || run->ts < *from)
			*from = run->ts;
		if (!any || run->events_end > *to)
			*to = run->events_end;
		any = true;
	}
	if (!any) {
		*from = tl->from;
		*to = tl->to;
	}
	if (*to <= *from)
		*to = *from + 1;
}

void osc_tl_mark(const struct osc_timeline *tl, const struct osc_trace *t, const uint32_t *ev,
		 size_t n, size_t ***marked, size_t **nr_marked)
{
	uint64_t *on = osc_xcalloc(osc_bits_words(t->nr_events), sizeof(*on));

	*marked = osc_xcalloc(tl->nr_lanes + 1, sizeof(**marked));
	*nr_marked = osc_xcalloc(tl->nr_lanes + 1, sizeof(**nr_marked));
	for (size_t i = 0; i < n; i++)
		if (ev[i] < t->nr_events)
			osc_bit_put(on, ev[i], true);
	for (size_t l = 0; l < tl->nr_lanes; l++) {
		const struct osc_tl_lane *lane = &tl->lanes[l];
		size_t k = 0;

		for (size_t i = 0; lane->ev && i < lane->nr; i++)
			k += osc_bit(on, lane->ev[i]);
		if (!k)
			continue;
		(*marked)[l] = osc_xreallocarray(NULL, k, sizeof(***marked));
		for (size_t i = 0; i < lane->nr; i++)
			if (osc_bit(on, lane->ev[i]))
				(*marked)[l][(*nr_marked)[l]++] = i;
	}
	free(on);
}
