/*
 * gpu.c - the GPU's busy, idle and category times per run, device and
 * stream, and the idle-time breakdown (gpu.h).
 *
 * Per stream and per device, the windows of each category are merged once
 * into disjoint spans (events come in ts order, so a stream's merge is
 * linear; a device's merges its streams' spans); the intersections the
 * exposed times need are spans too. A run's figures are then the spans'
 * lengths within its window (osc_spans_within: a binary search and the
 * spans inside). The idle walk of a stream starts at the first event of the
 * window by binary search, with the furthest end before it. O(N log N) for
 * the spans, then O(log N + k) per run and stream.
 */
#define _GNU_SOURCE /* strcasestr */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opscope/analysis/gpu.h"
#include "opscope/analysis/opcost.h"
#include "opscope/analysis/trace_cache.h"
#include "opscope/base/alloc.h"
#include "base/group_by.h"
#include "base/radix.h"
#include "base/stats.h"

static const char *const wait_names[] = {
#define OSC_GPU_WAIT_NAME(name, text) text,
	OSC_GPU_WAIT_LIST(OSC_GPU_WAIT_NAME)
#undef OSC_GPU_WAIT_NAME
};

const char *osc_gpu_wait_name(enum osc_gpu_wait w)
{
	return (unsigned)w < OSC_GPU_WAIT_NR ? wait_names[w] : "unknown";
}

/* Disjoint spans in time order. */
struct spans {
	struct osc_span *s;
	size_t nr, alloc;
};

/* What the rows need of a stream or a device: its spans per measure. */
enum { COPY = OSC_GPU_CAT_NR, ALL = COPY + OSC_GPU_COPY_NR, OVERLAP, MEMCPY_HIDDEN, NR_SETS };

struct group {
	osc_str device;
	uint32_t thread;       /* OSC_NONE for a device */
	struct spans set[NR_SETS]; /* categories, copy directions, all, comm ∩ compute,
				      memcpy ∩ (compute ∪ comm) */
	uint32_t *ev;          /* stream: its device events, in ts order */
	int64_t *reach;        /* stream: the furthest end of ev[0 .. i] */
	size_t nr, alloc;
};

/* Add [from, to) to spans whose last span starts no later than from. */
static void span_add(struct spans *s, int64_t from, int64_t to)
{
	if (s->nr && from <= s->s[s->nr - 1].to) {
		if (to > s->s[s->nr - 1].to)
			s->s[s->nr - 1].to = to;
		return;
	}
	OSC_GROW(s->s, s->nr + 1, s->alloc);
	s->s[s->nr++] = (struct osc_span){ from, to };
}

/* The union of a and b into out. */
static void span_union(const struct spans *a, const struct spans *b, struct spans *out)
{
	size_t i = 0, j = 0;

	while (i < a->nr || j < b->nr) {
		const struct osc_span *x = j == b->nr || (i < a->nr && a->s[i].from <= b->s[j].from)
						   ? &a->s[i++]
						   : &b->s[j++];

		span_add(out, x->from, x->to);
	}
}

/* The intersection of a and b into out. */
static void span_intersect(const struct spans *a, const struct spans *b, struct spans *out)
{
	size_t i = 0, j = 0;

	while (i < a->nr && j < b->nr) {
		int64_t from = a->s[i].from > b->s[j].from ? a->s[i].from : b->s[j].from;
		int64_t to = a->s[i].to < b->s[j].to ? a->s[i].to : b->s[j].to;

		if (to > from)
			span_add(out, from, to);
		if (a->s[i].to < b->s[j].to)
			i++;
		else
			j++;
	}
}

static int64_t end_of(const struct osc_event *e)
{
	int64_t end;

	return __builtin_add_overflow(e->ts, e->dur, &end) ? INT64_MAX : end;
}

bool osc_gpu_is_comm(const char *kernel_name)
{
	return strcasestr(kernel_name, "nccl") || strcasestr(kernel_name, "rccl");
}

bool osc_gpu_name_is_comm(const struct osc_trace *t, osc_str name, uint8_t *memo)
{
	if (!memo[name]) /* 0: not looked at yet, 1: no, 2: yes */
		memo[name] = osc_gpu_is_comm(osc_trace_str(t, name)) ? 2 : 1;
	return memo[name] == 2;
}

/* The category of device event e (comm: osc_gpu_name_is_comm's memo). */
static enum osc_gpu_cat category(const struct osc_trace *t, const struct osc_event *e,
				 uint8_t *comm)
{
	if (e->kind == OSC_KIND_MEMCPY)
		return OSC_GPU_MEMCPY;
	if (e->kind == OSC_KIND_MEMSET)
		return OSC_GPU_MEMSET;
	return osc_gpu_name_is_comm(t, e->name, comm) ? OSC_GPU_COMM : OSC_GPU_COMPUTE;
}

/* The direction of copy e, from its name. */
static enum osc_gpu_copy direction(const struct osc_trace *t, const struct osc_event *e)
{
	const char *name = osc_trace_str(t, e->name);

	if (strstr(name, "HtoD"))
		return OSC_GPU_COPY_HTOD;
	if (strstr(name, "DtoH"))
		return OSC_GPU_COPY_DTOH;
	if (strstr(name, "DtoD"))
		return OSC_GPU_COPY_DTOD;
	return OSC_GPU_COPY_OTHER;
}

/* The spans that need the category spans: the overlaps, and all. */
static void derived_sets(struct group *g)
{
	struct spans cc = { 0 };

	span_intersect(&g->set[OSC_GPU_COMM], &g->set[OSC_GPU_COMPUTE], &g->set[OVERLAP]);
	span_union(&g->set[OSC_GPU_COMPUTE], &g->set[OSC_GPU_COMM], &cc);
	span_intersect(&g->set[OSC_GPU_MEMCPY], &cc, &g->set[MEMCPY_HIDDEN]);
	free(cc.s);
}

/* The group of key (a thread, or a process for a device) in g[0 .. *n), added if new. */
static struct group *group_of(struct group **g, size_t *n, size_t *alloc, uint32_t *of,
			      osc_str device, uint32_t thread)
{
	if (*of == OSC_NONE) {
		OSC_GROW(*g, *n + 1, *alloc);
		(*g)[*n] = (struct group){ .device = device, .thread = thread };
		*of = (uint32_t)(*n)++;
	}
	return &(*g)[*of];
}

/* Add device event i of t, of category cat, to group g: its event list and spans. */
static void group_add(struct group *g, const struct osc_trace *t, uint32_t i,
		      enum osc_gpu_cat cat)
{
	const struct osc_event *e = &t->events[i];
	size_t was = g->alloc;

	OSC_GROW(g->ev, g->nr + 1, g->alloc);
	if (g->alloc != was)
		g->reach = osc_xreallocarray(g->reach, g->alloc, sizeof(*g->reach));
	g->ev[g->nr] = i;
	g->reach[g->nr] = g->nr && g->reach[g->nr - 1] > end_of(e) ? g->reach[g->nr - 1]
								   : end_of(e);
	g->nr++;
	span_add(&g->set[cat], e->ts, end_of(e));
	if (e->kind == OSC_KIND_MEMCPY)
		span_add(&g->set[COPY + direction(t, e)], e->ts, end_of(e));
	span_add(&g->set[ALL], e->ts, end_of(e));
}

/*
 * The streams and the devices of t's device events, in order of their
 * first event, each with its events (in ts order: the spans merge as they
 * come) and spans.
 */
static void build_groups(const struct osc_trace *t, struct group **streams, size_t *ns,
			 struct group **devices, size_t *nd)
{
	size_t n = t->nr_threads ? t->nr_threads : 1, sa = 0, da = 0;
	uint32_t *stream_of = osc_xmalloc(n * sizeof(*stream_of));
	uint32_t *device_of = osc_xmalloc(n * sizeof(*device_of));
	uint8_t *comm = osc_xcalloc(t->strs.count ? t->strs.count : 1, 1);

	*streams = *devices = NULL;
	*ns = *nd = 0;
	for (size_t th = 0; th < t->nr_threads; th++) {
		stream_of[th] = OSC_NONE;
		device_of[th] = OSC_NONE; /* filled per thread, shared by threads of one process */
	}
	for (size_t i = 0; i < t->nr_events; i++) {
		const struct osc_event *e = &t->events[i];
		osc_str pid;
		enum osc_gpu_cat cat;

		if (!osc_kind_is_device(e->kind) || e->ph != OSC_PH_COMPLETE)
			continue;
		cat = category(t, e, comm);
		pid = t->threads[e->thread].pid;
		if (device_of[e->thread] == OSC_NONE) /* another stream of a known device? */
			for (size_t k = 0; k < *nd; k++)
				if ((*devices)[k].device == pid)
					device_of[e->thread] = (uint32_t)k;
		group_add(group_of(streams, ns, &sa, &stream_of[e->thread], pid, e->thread), t,
			  (uint32_t)i, cat);
		group_add(group_of(devices, nd, &da, &device_of[e->thread], pid, OSC_NONE), t,
			  (uint32_t)i, cat);
	}
	free(comm);
	for (size_t i = 0; i < *ns; i++)
		derived_sets(&(*streams)[i]);
	for (size_t k = 0; k < *nd; k++)
		derived_sets(&(*devices)[k]);
	free(stream_of);
	free(device_of);
}

/* What the breakdown reads of a trace whatever the runs: its streams and devices. */
struct osc_gpu_index {
	struct group *streams, *devices;
	size_t nr_streams, nr_devices;
};

struct osc_gpu_index *osc_gpu_index_build(const struct osc_trace *t)
{
	struct osc_gpu_index *x = osc_xcalloc(1, sizeof(*x));

	build_groups(t, &x->streams, &x->nr_streams, &x->devices, &x->nr_devices);
	return x;
}

static void groups_free(struct group *g, size_t n);

void osc_gpu_index_free(struct osc_gpu_index *x)
{
	if (!x)
		return;
	groups_free(x->streams, x->nr_streams);
	groups_free(x->devices, x->nr_devices);
	free(x);
}

static void groups_free(struct group *g, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		for (int c = 0; c < NR_SETS; c++)
			free(g[i].set[c].s);
		free(g[i].ev);
		free(g[i].reach);
	}
	free(g);
}

static int64_t within(const struct spans *s, int64_t from, int64_t to)
{
	return osc_spans_within(s->s, s->nr, from, to);
}

/* The time measures of group g in [from, to) into r. */
static void measure(const struct group *g, int64_t from, int64_t to, struct osc_gpu_row *r)
{
	r->wall = to - from;
	r->busy = within(&g->set[ALL], from, to);
	for (int c = 0; c < OSC_GPU_CAT_NR; c++)
		r->cat[c] = within(&g->set[c], from, to);
	for (int c = 0; c < OSC_GPU_COPY_NR; c++)
		r->copy[c] = within(&g->set[COPY + c], from, to);
	r->overlap = within(&g->set[OVERLAP], from, to);
	r->exposed_comm = r->cat[OSC_GPU_COMM] - r->overlap;
	r->exposed_memcpy = r->cat[OSC_GPU_MEMCPY] - within(&g->set[MEMCPY_HIDDEN], from, to);
}

/* Everything the idle walk reads. */
struct walk {
	const struct osc_trace *t;
	const struct osc_gpu_query *q;
	const struct osc_correlation *corr;
	const struct osc_calltree *tree;
	struct osc_gpu *out;
	uint32_t run;
	bool gaps;      /* list this walk's gaps (each gap is walked by one window that lists it) */
	bool overlap;   /* some selected runs overlap (a span of several): owner_run */
};

/*
 * With runs that overlap: the selected run a gap starting at ts belongs to,
 * as an event starting there would (runs.h: the latest-starting run whose
 * window holds it; the later of the runs' order on equal starts).
 */
static uint32_t owner_run(const struct walk *w, int64_t ts)
{
	const struct osc_runs *runs = w->q->runs;

	for (size_t r = runs->nr; r-- > 0;) {
		const struct osc_run *run = &runs->runs[r];

		if (run->ts <= ts && ts < osc_sat_add(run->ts, run->dur) &&
		    (!w->q->sel || (r < w->q->sel->nr_runs && w->q->sel->on[r])))
			return (uint32_t)r;
	}
	return w->run;
}

/*
 * Keep gap among the q->nr_gaps longest (out->gaps longest first), with the
 * host op open at its start on the thread of launch l (NULL: none).
 */
static void keep_gap(struct walk *w, struct osc_gpu_gap *gap, const struct osc_event *l)
{
	struct osc_gpu *o = w->out;
	size_t at = o->nr_gaps;
	uint32_t n;

	if (!w->q->nr_gaps || (o->nr_gaps == w->q->nr_gaps && gap->dur <= o->gaps[at - 1].dur))
		return;
	if (w->overlap)
		gap->run = owner_run(w, gap->ts);
	n = l ? osc_calltree_find(w->tree, w->t, l->thread, gap->ts) : OSC_NONE;
	gap->op = n != OSC_NONE ? w->tree->nodes[n].event : OSC_NONE;
	if (o->nr_gaps < w->q->nr_gaps)
		o->nr_gaps++;
	else
		at--;
	while (at > 0 && o->gaps[at - 1].dur < gap->dur) {
		o->gaps[at] = o->gaps[at - 1];
		at--;
	}
	o->gaps[at] = *gap;
}

/* The launch (runtime call) of device event ev, or NULL. */
static const struct osc_event *launch_of(const struct walk *w, uint32_t ev)
{
	uint32_t d = w->corr->dev_of ? w->corr->dev_of[ev] : OSC_NONE;
	uint32_t l = d != OSC_NONE ? w->corr->devs[d].launch : OSC_NONE;

	return l != OSC_NONE ? &w->t->events[w->corr->launches[l].event] : NULL;
}

/*
 * A gap [from, from + dur) of group s before event next (OSC_NONE: the
 * window's end); between: after another event of the window. A device's
 * gaps between events are listed (the GPU waited there).
 */
static void gap(struct walk *w, const struct group *s, struct osc_gpu_row *r, int64_t from,
		int64_t dur, uint32_t next, bool between)
{
	const struct osc_event *l = next != OSC_NONE ? launch_of(w, next) : NULL;
	struct osc_gpu_gap g = { .run = w->run, .thread = s->thread, .ts = from, .dur = dur,
				 .why = OSC_GPU_WAIT_OTHER, .next = next, .op = OSC_NONE };

	if (between && dur < w->q->kernel_wait)
		g.why = OSC_GPU_WAIT_KERNEL;
	else if (between && l && l->ts >= from)
		g.why = OSC_GPU_WAIT_HOST;
	r->wait[g.why] = osc_sat_add(r->wait[g.why], dur);
	if (w->gaps && between && s->thread == OSC_NONE && next != OSC_NONE) {
		g.thread = w->t->events[next].thread;
		keep_gap(w, &g, l);
	}
}

/* The idle breakdown of stream s in [from, to) into r, and its events there. */
static void idle_walk(struct walk *w, const struct group *s, int64_t from, int64_t to,
		      struct osc_gpu_row *r)
{
	size_t lo = 0, hi = s->nr;
	int64_t cursor;
	bool seen;

	while (lo < hi) { /* the first event starting at or after from */
		size_t mid = lo + (hi - lo) / 2;

		if (w->t->events[s->ev[mid]].ts < from)
			lo = mid + 1;
		else
			hi = mid;
	}
	seen = lo && s->reach[lo - 1] > from; /* an earlier event still runs at from */
	cursor = seen ? s->reach[lo - 1] : from;
	for (size_t i = lo; i < s->nr; i++) {
		const struct osc_event *e = &w->t->events[s->ev[i]];

		if (e->ts >= to)
			break;
		r->events++;
		if (e->ts > cursor)
			gap(w, s, r, cursor, e->ts - cursor, s->ev[i], seen);
		seen = true;
		if (end_of(e) > cursor)
			cursor = end_of(e);
	}
	if (cursor < to)
		gap(w, s, r, cursor, to - cursor, OSC_NONE, false);
}

/* Add row b's figures to a's (the selection's sums). */
static void add_row(struct osc_gpu_row *a, const struct osc_gpu_row *b)
{
	a->wall = osc_sat_add(a->wall, b->wall);
	a->busy = osc_sat_add(a->busy, b->busy);
	for (int c = 0; c < OSC_GPU_CAT_NR; c++)
		a->cat[c] = osc_sat_add(a->cat[c], b->cat[c]);
	for (int c = 0; c < OSC_GPU_COPY_NR; c++)
		a->copy[c] = osc_sat_add(a->copy[c], b->copy[c]);
	a->overlap = osc_sat_add(a->overlap, b->overlap);
	a->exposed_comm = osc_sat_add(a->exposed_comm, b->exposed_comm);
	a->exposed_memcpy = osc_sat_add(a->exposed_memcpy, b->exposed_memcpy);
	for (int k = 0; k < OSC_GPU_WAIT_NR; k++)
		a->wait[k] = osc_sat_add(a->wait[k], b->wait[k]);
	a->events += b->events;
}

static struct osc_gpu_row *new_row(struct osc_gpu *o, size_t *alloc, uint32_t run,
				   const struct group *g)
{
	OSC_GROW(o->rows, o->nr + 1, *alloc);
	o->rows[o->nr] = (struct osc_gpu_row){ .run = run, .device = g->device, .thread = g->thread };
	return &o->rows[o->nr++];
}

/* The rows of window [from, to) for run (OSC_NONE: the selection), per device, then its streams. */
static void window_rows(struct walk *w, const struct osc_gpu_index *x, int64_t from, int64_t to,
			size_t *alloc)
{
	for (size_t k = 0; k < x->nr_devices; k++) {
		const struct group *d = &x->devices[k];
		struct osc_gpu_row *dev = new_row(w->out, alloc, w->run, d);

		measure(d, from, to, dev);
		idle_walk(w, d, from, to, dev);
		for (size_t i = 0; i < x->nr_streams; i++) {
			const struct group *s = &x->streams[i];
			struct osc_gpu_row *row;

			if (s->device != d->device)
				continue;
			row = new_row(w->out, alloc, w->run, s);
			measure(s, from, to, row);
			idle_walk(w, s, from, to, row);
		}
	}
}

/*
 * The selection's rows (after the runs' rows, block rows each), summed over
 * its spans (runs.h): a span that is one run's window adds that run's rows;
 * a span of runs that overlap is measured as a window of its own, so time
 * two selected runs share counts once, and its gaps are listed.
 */
static void selection_rows(struct walk *w, const struct osc_gpu_index *x,
			   const struct osc_run_span *spans, size_t nr_spans,
			   const uint32_t *block_of, size_t block, size_t *alloc)
{
	size_t first = w->out->nr;

	w->run = OSC_NONE;
	for (size_t i = 0; i < block; i++) {
		struct group g = { .device = w->out->rows[i].device,
				   .thread = w->out->rows[i].thread };

		new_row(w->out, alloc, OSC_NONE, &g);
	}
	for (size_t k = 0; k < nr_spans; k++) {
		struct osc_gpu *o = w->out;
		size_t at = o->nr;
		const struct osc_gpu_row *add;

		if (spans[k].cover != OSC_NONE) {
			add = &o->rows[(size_t)block_of[spans[k].cover] * block];
		} else { /* its gaps are listed from here: no run's window holds them all */
			window_rows(w, x, spans[k].from, spans[k].to, alloc);
			o->nr = at; /* measured past the end, then dropped */
			add = &o->rows[at];
		}
		for (size_t i = 0; i < block; i++)
			add_row(&o->rows[first + i], &add[i]);
	}
}

void osc_gpu_breakdown(const struct osc_trace *t, const struct osc_gpu_query *q,
		       struct osc_gpu *out)
{
	const struct osc_gpu_index *x = osc_trace_gpu_index(t);
	struct walk w = { .t = t, .q = q, .out = out };
	uint32_t *block_of = osc_xcalloc(q->runs->nr ? q->runs->nr : 1, sizeof(*block_of));
	/* per run: its walk lists its gaps (its window is a whole span) */
	uint8_t *lists = osc_xcalloc(q->runs->nr ? q->runs->nr : 1, 1);
	size_t alloc = 0, nr_blocks = 0, nr_spans;
	struct osc_run_span *spans = osc_runsel_spans(q->runs, q->sel, &nr_spans);

	memset(out, 0, sizeof(*out));
	out->gaps = osc_xcalloc(q->nr_gaps ? q->nr_gaps : 1, sizeof(*out->gaps));
	if (x->nr_streams) {
		w.corr = osc_trace_correlation(t);
		w.tree = osc_trace_host_tree(t);
	}
	for (size_t k = 0; k < nr_spans; k++) {
		w.overlap |= spans[k].nr > 1;
		if (spans[k].cover != OSC_NONE)
			lists[spans[k].cover] = 1;
	}
	for (size_t r = 0; r < q->runs->nr; r++) {
		int64_t from = q->runs->runs[r].ts, to = osc_sat_add(from, q->runs->runs[r].dur);

		if (q->sel && (r >= q->sel->nr_runs || !q->sel->on[r]))
			continue;
		w.run = (uint32_t)r;
		w.gaps = lists[r];
		block_of[r] = (uint32_t)nr_blocks++;
		window_rows(&w, x, from, to, &alloc);
	}
	w.gaps = true;
	if (nr_blocks)
		selection_rows(&w, x, spans, nr_spans, block_of, out->nr / nr_blocks, &alloc);
	free(spans);
	free(lists);
	free(block_of);
}

void osc_gpu_release(struct osc_gpu *g)
{
	free(g->rows);
	free(g->gaps);
	memset(g, 0, sizeof(*g));
}

/* ---- the tables ---- */

enum {
	C_RUN, C_DEVICE, C_STREAM, C_WALL, C_BUSY, C_BUSY_PCT, C_IDLE, C_COMPUTE, C_COMM,
	C_MEMCPY, C_MEMSET, C_COPY, C_EXPOSED_COMM = C_COPY + OSC_GPU_COPY_NR, C_EXPOSED_MEMCPY,
	C_OVERLAP_PCT, C_HOST_WAIT, C_KERNEL_WAIT, C_OTHER_WAIT, C_EVENTS, C_NR
};

#define NUM(title) { title, 8, OSC_ALIGN_RIGHT, true, OSC_STAT_NAME }
static const struct osc_column gpu_columns[C_NR] = {
	[C_RUN] = { "run", 12, OSC_ALIGN_LEFT, false, OSC_STAT_NAME },
	[C_DEVICE] = { "device", 6, OSC_ALIGN_LEFT, false, OSC_STAT_NAME },
	[C_STREAM] = { "stream", 6, OSC_ALIGN_LEFT, false, OSC_STAT_NAME },
	[C_WALL] = NUM("wall_us"),
	[C_BUSY] = NUM("busy_us"),
	[C_BUSY_PCT] = NUM("busy_pct"),
	[C_IDLE] = NUM("idle_us"),
	[C_COMPUTE] = NUM("compute_us"),
	[C_COMM] = NUM("comm_us"),
	[C_MEMCPY] = NUM("memcpy_us"),
	[C_MEMSET] = NUM("memset_us"),
	[C_EXPOSED_COMM] = NUM("exposed_comm_us"),
	[C_EXPOSED_MEMCPY] = NUM("exposed_memcpy_us"),
	[C_OVERLAP_PCT] = NUM("comm_overlap_pct"),
	[C_HOST_WAIT] = NUM("host_wait_us"),
	[C_KERNEL_WAIT] = NUM("kernel_wait_us"),
	[C_OTHER_WAIT] = NUM("other_wait_us"),
	[C_EVENTS] = NUM("events"),
#define OSC_GPU_COPY_COLUMN(name, stem) [C_COPY + OSC_GPU_COPY_##name] = NUM("memcpy_" stem "_us"),
	OSC_GPU_COPY_LIST(OSC_GPU_COPY_COLUMN)
#undef OSC_GPU_COPY_COLUMN
};

const struct osc_column *osc_gpu_columns(size_t *nr)
{
	*nr = C_NR;
	return gpu_columns;
}

/* "INDEX: NAME" of run r, or "selection". */
static void run_cell(const struct osc_trace *t, const struct osc_runs *runs, uint32_t r,
		     char *buf, size_t size)
{
	if (r == OSC_NONE)
		snprintf(buf, size, "selection");
	else
		snprintf(buf, size, "%u: %s", r,
			 runs->runs[r].name ? osc_trace_str(t, runs->runs[r].name) : "whole trace");
}

static void pct_cell(int64_t part, int64_t whole, char *buf, size_t size)
{
	osc_format_pct(whole > 0 ? 100.0 * (double)part / (double)whole : 0, buf, size);
}

const char *osc_gpu_cell(const struct osc_trace *t, const struct osc_runs *runs,
			 const struct osc_gpu *g, size_t row, size_t col, char *buf, size_t size)
{
	const struct osc_gpu_row *r = &g->rows[row];
	static const int64_t none = 0;
	const int64_t *v = &none;

	buf[0] = '\0';
	switch (col) {
	case C_RUN:
		run_cell(t, runs, r->run, buf, size);
		return buf;
	case C_DEVICE:
		snprintf(buf, size, "%s", osc_trace_str(t, r->device));
		return buf;
	case C_STREAM:
		snprintf(buf, size, "%s", r->thread == OSC_NONE ? "all"
					  : osc_trace_str(t, t->threads[r->thread].tid));
		return buf;
	case C_BUSY_PCT:
		pct_cell(r->busy, r->wall, buf, size);
		return buf;
	case C_OVERLAP_PCT:
		pct_cell(r->overlap, r->cat[OSC_GPU_COMM], buf, size);
		return buf;
	case C_EVENTS:
		snprintf(buf, size, "%llu", (unsigned long long)r->events);
		return buf;
	case C_IDLE: {
		int64_t idle = r->wall - r->busy;

		osc_format_us_int(idle, buf, size);
		return buf;
	}
	case C_HOST_WAIT:
	case C_KERNEL_WAIT:
	case C_OTHER_WAIT:
		v = &r->wait[col == C_HOST_WAIT ? OSC_GPU_WAIT_HOST
			     : col == C_KERNEL_WAIT ? OSC_GPU_WAIT_KERNEL : OSC_GPU_WAIT_OTHER];
		break;
	case C_WALL:
		v = &r->wall;
		break;
	case C_BUSY:
		v = &r->busy;
		break;
	case C_EXPOSED_COMM:
		v = &r->exposed_comm;
		break;
	case C_EXPOSED_MEMCPY:
		v = &r->exposed_memcpy;
		break;
	default: /* the categories, then the copy directions */
		v = col >= C_COPY ? &r->copy[col - C_COPY] : &r->cat[col - C_COMPUTE];
		break;
	}
	osc_format_us_int(*v, buf, size);
	return buf;
}

enum { G_RUN, G_STREAM, G_AT, G_GAP, G_WHY, G_NEXT, G_OP, G_NR };

static const struct osc_column gap_columns[G_NR] = {
	[G_RUN] = { "run", 12, OSC_ALIGN_LEFT, false, OSC_STAT_NAME },
	[G_STREAM] = { "stream", 6, OSC_ALIGN_LEFT, false, OSC_STAT_NAME },
	[G_AT] = NUM("at_us"),
	[G_GAP] = NUM("gap_us"),
	[G_WHY] = { "cause", 8, OSC_ALIGN_LEFT, false, OSC_STAT_NAME },
	[G_NEXT] = { "next_event", 12, OSC_ALIGN_LEFT, false, OSC_STAT_NAME },
	[G_OP] = { "host_op", 12, OSC_ALIGN_LEFT, false, OSC_STAT_NAME },
};

const struct osc_column *osc_gpu_gap_columns(size_t *nr)
{
	*nr = G_NR;
	return gap_columns;
}

const char *osc_gpu_gap_cell(const struct osc_trace *t, const struct osc_names *names,
			     const struct osc_runs *runs, const struct osc_gpu *g, size_t row,
			     size_t col, char *buf, size_t size)
{
	const struct osc_gpu_gap *p = &g->gaps[row];

	buf[0] = '\0';
	switch (col) {
	case G_RUN:
		run_cell(t, runs, p->run, buf, size);
		break;
	case G_STREAM:
		snprintf(buf, size, "%s/%s", osc_trace_str(t, t->threads[p->thread].pid),
			 osc_trace_str(t, t->threads[p->thread].tid));
		break;
	case G_AT: /* from the run's start */
		osc_format_us_int(p->ts - runs->runs[p->run].ts, buf, size);
		break;
	case G_GAP:
		osc_format_us_int(p->dur, buf, size);
		break;
	case G_WHY:
		snprintf(buf, size, "%s", osc_gpu_wait_name(p->why));
		break;
	case G_NEXT:
		if (p->next != OSC_NONE)
			return osc_names_get(names, t, t->events[p->next].name);
		break;
	default:
		if (p->op != OSC_NONE)
			return osc_trace_str(t, t->events[p->op].name);
		break;
	}
	return buf;
}

/* ---- kernel launch statistics ---- */

/* A kernel of a launch row: its duration and, when launched, its delays. */
struct launched {
	int64_t dur, delay, call, queue;
	bool has_launch;
};

/* The text of a launch row's name ("<unattributed>": kernels of no known op). */
static const char *launch_name(const struct osc_trace *t, const struct osc_names *names,
			       osc_str name)
{
	return name == OSC_STR_NONE ? "<unattributed>" : osc_names_get(names, t, name);
}

/*
 * Order rows[0 .. n) in place: by total (short_only:
 * short_total, then total), descending, ties by name bytewise; radix passes
 * over the names' places and the totals, from the least significant key,
 * so that a million rows sort without a comparison each.
 */
static void sort_launch_rows(const struct osc_trace *t, struct osc_launch_row *rows, size_t n,
			     bool short_only)
{
	const struct osc_text_order *o = osc_trace_text_order(t);
	/* "<unattributed>" after the strings at most it, before the rest */
	uint64_t none = 2 * osc_text_order_rank(t, o, launch_name(t, NULL, OSC_STR_NONE)) + 1;
	uint64_t *k = osc_xmalloc_big(n, sizeof(*k));
	uint32_t *idx = osc_xmalloc_big(n, sizeof(*idx));

	for (size_t i = 0; i < n; i++) {
		idx[i] = (uint32_t)i;
		k[i] = rows[i].name == OSC_STR_NONE ? none
						    : 2 * (uint64_t)o->place[rows[i].name] + 2;
	}
	osc_radix_sort_pairs(k, idx, n);
	for (int pass = 0; pass < 1 + short_only; pass++) {
		for (size_t i = 0; i < n; i++)
			k[i] = ~osc_radix_key(pass ? rows[idx[i]].short_total : rows[idx[i]].total);
		osc_radix_sort_pairs(k, idx, n);
	}
	osc_permute(rows, n, sizeof(*rows), idx);
	free(idx);
	free(k);
}

/* p50, p90 and p99 of v[0 .. n) (reordered) into out. */
static void percentiles(int64_t *v, size_t n, double out[3])
{
	struct osc_stats s;

	osc_stats_compute(v, n, &s);
	out[0] = s.p50;
	out[1] = s.p90;
	out[2] = s.p99;
}

/* The row of kernels k[0 .. n) (all named name); v: room for n delays. */
static void launch_row(osc_str name, const struct launched *k, size_t n, int64_t short_ns,
		       int64_t *v, struct osc_launch_row *r)
{
	size_t m;

	*r = (struct osc_launch_row){ .name = name, .count = n };
	for (size_t i = 0; i < n; i++) {
		r->total = osc_sat_add(r->total, k[i].dur);
		if (k[i].dur < short_ns) {
			r->nr_short++;
			r->short_total = osc_sat_add(r->short_total, k[i].dur);
		}
		r->nr_launched += k[i].has_launch;
	}
	for (int which = 0; which < 3; which++) {
		m = 0;
		for (size_t i = 0; i < n; i++)
			if (k[i].has_launch)
				v[m++] = which == 0 ? k[i].delay : which == 1 ? k[i].call : k[i].queue;
		percentiles(v, m, which == 0 ? r->delay : which == 1 ? r->call : r->queue);
	}
}

/* The kernel of brief b as a member of a launch row. */
static struct launched launched_of(const struct osc_trace *t, const struct osc_correlation *corr,
				   const struct osc_brief *b)
{
	uint32_t d = corr->dev_of ? corr->dev_of[b->event] : OSC_NONE;
	const struct osc_dev_link *dl = d != OSC_NONE ? &corr->devs[d] : NULL;
	struct launched x = { .dur = b->dur };

	if (dl && dl->launch != OSC_NONE) {
		x.has_launch = true;
		x.delay = dl->delay;
		x.queue = dl->queue;
		x.call = t->events[corr->launches[dl->launch].event].dur;
	}
	return x;
}

#define LAUNCHER_AHEAD 16 /* kernels whose launching op is fetched ahead */

/*
 * Kernels are grouped in two passes over the briefs: the first gives each
 * selected kernel its row (by name, or by launching op), then a counting
 * sort (osc_group_cursors) lays the rows' members out in one array; a
 * million rows cost no allocation each. The second pass reads the kernels
 * and their launches in the briefs' (time) order, near one another.
 */
void osc_gpu_launches(const struct osc_trace *t, const struct osc_launch_query *q,
		      struct osc_launches *out)
{
	const struct osc_correlation *corr = osc_trace_correlation(t);
	const uint32_t *launcher = q->per_op ? osc_trace_launchers(t) : NULL;
	size_t nb, nk = 0, most = 0, names_alloc = 0;
	const struct osc_brief *b = osc_trace_briefs(t, OSC_KIND_KERNEL, &nb);
	/* row of each name (string id), the last slot for <unattributed> */
	uint32_t *of = osc_xmalloc_big(t->strs.count + 1, sizeof(*of));
	/* each kernel's row, OSC_NONE where not selected */
	uint32_t *row_of = osc_xmalloc_big(nb ? nb : 1, sizeof(*row_of));
	uint32_t *first; /* each row's start among the kernels laid out by row */
	struct launched *k;
	osc_str *names = NULL;
	int64_t *v;

	memset(out, 0, sizeof(*out));
	memset(of, 0xff, (t->strs.count + 1) * sizeof(*of)); /* OSC_NONE */
	for (size_t j = 0; j < nb; j++) {
		uint32_t ev = b[j].event, *row;
		osc_str name;

		row_of[j] = OSC_NONE;
		if (q->sel && !osc_runsel_has_event(q->sel, q->runs, ev))
			continue;
		if (q->per_op) {
			/* the launching ops lie far apart in the events: fetched ahead */
			uint32_t ahead = j + LAUNCHER_AHEAD < nb
						 ? launcher[b[j + LAUNCHER_AHEAD].event] : OSC_NONE;

			if (ahead != OSC_NONE)
				__builtin_prefetch(&t->events[ahead]);
			name = launcher[ev] != OSC_NONE ? t->events[launcher[ev]].name : OSC_STR_NONE;
		} else {
			name = osc_names_key(q->names, b[j].name);
		}
		row = &of[name == OSC_STR_NONE ? t->strs.count : name];
		if (*row == OSC_NONE) {
			OSC_GROW(names, nk + 1, names_alloc);
			names[nk] = name;
			*row = (uint32_t)nk++;
		}
		row_of[j] = *row;
	}
	first = osc_group_cursors(row_of, nb, nk);
	k = osc_xmalloc_big(first[nk + 1] ? first[nk + 1] : 1, sizeof(*k));
	for (size_t j = 0; j < nb; j++)
		if (row_of[j] != OSC_NONE)
			k[first[row_of[j] + 1]++] = launched_of(t, corr, &b[j]);
	for (size_t g = 0; g < nk; g++)
		most = first[g + 1] - first[g] > most ? first[g + 1] - first[g] : most;
	v = osc_xmalloc((most ? most : 1) * sizeof(*v));
	out->rows = nk ? osc_xmalloc_big(nk, sizeof(*out->rows)) : NULL;
	for (size_t g = 0; g < nk; g++) {
		struct osc_launch_row *r = &out->rows[out->nr];

		launch_row(names[g], k + first[g], first[g + 1] - first[g], q->short_ns, v, r);
		out->count += r->count;
		out->nr_short += r->nr_short;
		out->total = osc_sat_add(out->total, r->total);
		out->short_total = osc_sat_add(out->short_total, r->short_total);
		out->nr += !q->short_only || r->nr_short; /* else the next row takes its place */
	}
	if (out->nr) /* rows is NULL without device events */
		sort_launch_rows(t, out->rows, out->nr, q->short_only);
	free(v);
	free(names);
	free(k);
	free(first);
	free(row_of);
	free(of);
}

void osc_launches_release(struct osc_launches *l)
{
	free(l->rows);
	memset(l, 0, sizeof(*l));
}

enum {
	L_NAME, L_COUNT, L_TOTAL, L_SHORT, L_SHORT_PCT, L_SHORT_TOTAL, L_DELAY50, L_DELAY90,
	L_DELAY99, L_CALL50, L_CALL90, L_CALL99, L_QUEUE50, L_QUEUE99, L_NR
};

#define LAUNCH_COLUMNS(first)                                                \
	{                                                                    \
		[L_NAME] = { first, 16, OSC_ALIGN_LEFT, false, OSC_STAT_NAME }, \
		[L_COUNT] = NUM("count"),                                    \
		[L_TOTAL] = NUM("total_us"),                                 \
		[L_SHORT] = NUM("short"),                                    \
		[L_SHORT_PCT] = NUM("short_pct"),                            \
		[L_SHORT_TOTAL] = NUM("short_us"),                           \
		[L_DELAY50] = NUM("delay_p50_us"),                           \
		[L_DELAY90] = NUM("delay_p90_us"),                           \
		[L_DELAY99] = NUM("delay_p99_us"),                           \
		[L_CALL50] = NUM("launch_p50_us"),                           \
		[L_CALL90] = NUM("launch_p90_us"),                           \
		[L_CALL99] = NUM("launch_p99_us"),                           \
		[L_QUEUE50] = NUM("queue_p50_us"),                           \
		[L_QUEUE99] = NUM("queue_p99_us"),                           \
	}
static const struct osc_column launch_columns[2][L_NR] = { LAUNCH_COLUMNS("kernel"),
							   LAUNCH_COLUMNS("op") };

const struct osc_column *osc_launch_columns(bool per_op, size_t *nr)
{
	*nr = L_NR;
	return launch_columns[per_op];
}

const char *osc_launch_cell(const struct osc_trace *t, const struct osc_names *names,
			    const struct osc_launches *l, size_t row, size_t col, char *buf,
			    size_t size)
{
	const struct osc_launch_row *r = &l->rows[row];
	static const int pick[] = { [L_DELAY50] = 0, [L_DELAY90] = 1, [L_DELAY99] = 2,
				    [L_CALL50] = 0,  [L_CALL90] = 1,  [L_CALL99] = 2,
				    [L_QUEUE50] = 0, [L_QUEUE99] = 2 };

	buf[0] = '\0';
	switch (col) {
	case L_NAME:
		return launch_name(t, names, r->name);
	case L_COUNT:
	case L_SHORT:
		snprintf(buf, size, "%llu",
			 (unsigned long long)(col == L_COUNT ? r->count : r->nr_short));
		break;
	case L_TOTAL:
	case L_SHORT_TOTAL:
		osc_format_us_int(col == L_TOTAL ? r->total : r->short_total, buf, size);
		break;
	case L_SHORT_PCT:
		pct_cell((int64_t)r->nr_short, (int64_t)r->count, buf, size);
		break;
	default:
		if (!r->nr_launched) /* no launch known: no delay */
			break;
		osc_format_us(col <= L_DELAY99	 ? r->delay[pick[col]]
			      : col <= L_CALL99 ? r->call[pick[col]]
						: r->queue[pick[col]],
			      buf, size);
		break;
	}
	return buf;
}
