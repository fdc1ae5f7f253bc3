/*
 * correlate.c - linking device events to their launches and host ops.
 *
 * Ids (correlation, External, flow) are looked up in id indexes
 * (id_index.h): pages of a direct array where a profiler's counters make
 * them dense, else sorted. The (thread, ts) lookups of launches and flows
 * are their lists grouped by thread, already in ts order; the (op name, ts)
 * lookup of ORT is a sorted array of (key, key2, value) triples. All are
 * searched by bisection, the launches' host nodes by a walk of the tree
 * (osc_calltree_walk). The launches and device events are listed on all
 * cores, the nodes' lookups built beside the launches'. O(N log N) at
 * worst; about O(N) on a trace in model order with dense ids.
 * See correlate.h for the methods and their order of preference.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "opscope/base/alloc.h"
#include "opscope/analysis/correlate.h"
#include "base/id_index.h"
#include "base/parallel.h"
#include "base/radix.h"

static const char *const link_names[] = {
#define OSC_LINK_NAME(name, text) text,
	OSC_LINK_LIST(OSC_LINK_NAME)
#undef OSC_LINK_NAME
};

const char *osc_link_name(enum osc_link l)
{
	if ((unsigned)l >= OSC_LINK_COUNT)
		return "unknown";
	return link_names[l];
}

/*
 * Why each device event of corr without a host node has none (correlate.h),
 * and the count of each reason. Called again when the nodes change (relink).
 */
static void explain_unattributed(const struct osc_trace *t, struct osc_correlation *corr)
{
	int64_t first = INT64_MAX; /* the lowest correlation id of a launch */

	for (size_t l = 0; l < corr->nr_launches; l++) {
		int64_t id = osc_trace_id_value(t, t->events[corr->launches[l].event].corr_id);

		if (id > 0 && id < first)
			first = id;
	}
	memset(corr->by_unattributed, 0, sizeof(corr->by_unattributed));
	for (size_t d = 0; d < corr->nr_devs; d++) {
		struct osc_dev_link *dl = &corr->devs[d];
		int64_t id = osc_trace_id_value(t, t->events[dl->event].corr_id);

		if (dl->node != OSC_NONE)
			dl->unattributed = OSC_UNATTRIBUTED_NONE;
		else if (dl->launch != OSC_NONE)
			dl->unattributed = OSC_UNATTRIBUTED_OUTSIDE_OPS;
		else if (id <= 0) /* OSC_NO_ID, or ROCm's 0 */
			dl->unattributed = OSC_UNATTRIBUTED_NO_LINK;
		else if (id < first && first != INT64_MAX)
			dl->unattributed = OSC_UNATTRIBUTED_BEFORE_TRACE;
		else
			dl->unattributed = OSC_UNATTRIBUTED_NOT_IN_TRACE;
		corr->by_unattributed[dl->unattributed]++;
	}
}

/* ---- sorted lookup tables ---- */

struct entry {
	int64_t key, key2;
	uint32_t val;
};

struct table {
	struct entry *e;
	size_t nr, alloc;
};

static void table_add(struct table *tb, int64_t key, int64_t key2, uint32_t val)
{
	OSC_GROW(tb->e, tb->nr + 1, tb->alloc);
	tb->e[tb->nr++] = (struct entry){ key, key2, val };
}

/* The entries in order idx have nondecreasing keys (key2 when second). */
static bool in_order(const struct table *tb, const uint32_t *idx, bool second)
{
	for (size_t i = 1; i < tb->nr; i++) {
		const struct entry *a = &tb->e[idx[i - 1]], *b = &tb->e[idx[i]];

		if (second ? a->key2 > b->key2 : a->key > b->key)
			return false;
	}
	return true;
}

/* Sort idx stably by the entries' key (key2 when second). */
static void sort_by(const struct table *tb, uint32_t *idx, bool second)
{
	size_t n = tb->nr;
	uint64_t *k;

	if (in_order(tb, idx, second))
		return;
	k = osc_xreallocarray(NULL, n, sizeof(*k));
	for (size_t i = 0; i < n; i++)
		k[i] = osc_radix_key(second ? tb->e[idx[i]].key2 : tb->e[idx[i]].key);
	osc_radix_sort_pairs(k, idx, n);
	free(k);
}

/*
 * Order by (key, key2, val). Entries are added in val order, so a stable
 * sort by key2, then by key, gives it: radix sorts (radix.h) of the
 * entries' indices, each skipped where the order already holds (the events
 * are in ts order, so a (thread, ts) table is sorted by key2 as added),
 * then one permutation.
 */
static void table_sort(struct table *tb)
{
	size_t n = tb->nr;
	uint32_t *idx;
	struct entry *sorted;

	if (n < 2)
		return;
	idx = osc_xreallocarray(NULL, n, sizeof(*idx));
	for (size_t i = 0; i < n; i++)
		idx[i] = (uint32_t)i;
	sort_by(tb, idx, true);
	sort_by(tb, idx, false);
	sorted = osc_xreallocarray(NULL, n, sizeof(*sorted));
	for (size_t i = 0; i < n; i++)
		sorted[i] = tb->e[idx[i]];
	free(tb->e);
	tb->e = sorted;
	tb->alloc = n;
	free(idx);
}

/* First entry > (key, key2) if after, else first entry >= (key, key2); or tb->nr. */
static size_t table_bound(const struct table *tb, int64_t key, int64_t key2, bool after)
{
	size_t lo = 0, hi = tb->nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct entry *m = &tb->e[mid];

		if (m->key < key ||
		    (m->key == key && (m->key2 < key2 || (after && m->key2 == key2))))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static size_t table_lower(const struct table *tb, int64_t key, int64_t key2)
{
	return table_bound(tb, key, key2, false);
}

static size_t table_upper(const struct table *tb, int64_t key, int64_t key2)
{
	return table_bound(tb, key, key2, true);
}

/* ---- per-thread time lookups ---- */

/*
 * Items (launches, f flows) added in ts order, grouped by thread: a stable
 * counting sort by thread keeps each group in ts order, with no sort by
 * time at all. Searched by bisection within a thread's group.
 */
struct groups {
	int64_t *ts;       /* the items' starts: as added, then grouped */
	uint32_t *item;
	uint32_t *thread;  /* the items' threads as added; NULL once grouped */
	size_t *first;     /* per thread: its group's start (nr_threads + 1) */
	size_t nr, alloc, nr_threads;
};

/* Room for n items in all (at least 16). */
static void groups_reserve(struct groups *g, size_t n)
{
	g->alloc = n > 16 ? n : 16;
	g->ts = osc_xreallocarray(g->ts, g->alloc, sizeof(*g->ts));
	g->item = osc_xreallocarray(g->item, g->alloc, sizeof(*g->item));
	g->thread = osc_xreallocarray(g->thread, g->alloc, sizeof(*g->thread));
}

static void groups_add(struct groups *g, uint32_t thread, int64_t ts, uint32_t item)
{
	if (g->nr == g->alloc)
		groups_reserve(g, g->alloc * 3 / 2);
	g->ts[g->nr] = ts;
	g->item[g->nr] = item;
	g->thread[g->nr++] = thread;
}

static void groups_finish(struct groups *g, size_t nr_threads)
{
	size_t *at = osc_xcalloc(nr_threads + 1, sizeof(*at));
	int64_t *ts = osc_xmalloc((g->nr ? g->nr : 1) * sizeof(*ts));
	uint32_t *item = osc_xmalloc((g->nr ? g->nr : 1) * sizeof(*item));

	g->nr_threads = nr_threads;
	g->first = osc_xcalloc(nr_threads + 1, sizeof(*g->first));
	for (size_t i = 0; i < g->nr; i++)
		g->first[g->thread[i] + 1]++;
	for (size_t th = 0; th < nr_threads; th++) {
		g->first[th + 1] += g->first[th];
		at[th] = g->first[th];
	}
	for (size_t i = 0; i < g->nr; i++) {
		size_t to = at[g->thread[i]]++;

		ts[to] = g->ts[i];
		item[to] = g->item[i];
	}
	free(g->ts);
	free(g->item);
	free(g->thread);
	free(at);
	g->ts = ts;
	g->item = item;
	g->thread = NULL;
}

/* Thread's group: items [*lo, *hi), none for a thread past the last. */
static void groups_of(const struct groups *g, uint32_t thread, size_t *lo, size_t *hi)
{
	*lo = *hi = 0;
	if (thread < g->nr_threads) {
		*lo = g->first[thread];
		*hi = g->first[thread + 1];
	}
}

/* In items [lo, hi) of a group, the first starting after ts (after) or at
   or after it; hi when none does. */
static size_t groups_bound(const struct groups *g, size_t lo, size_t hi, int64_t ts, bool after)
{
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (g->ts[mid] < ts || (after && g->ts[mid] == ts))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static void groups_release(struct groups *g)
{
	free(g->ts);
	free(g->item);
	free(g->thread);
	free(g->first);
	memset(g, 0, sizeof(*g));
}

/* ---- the correlator ---- */

/* Events per core below which the links are listed on one thread. */
#define LINK_PART_MIN 65536

struct ctx {
	const struct osc_trace *t;
	const struct osc_calltree *c;
	struct osc_correlation *out;
	struct osc_id_index launch_by_corr; /* correlation id -> launch */
	struct groups launch_by_time;       /* (thread, ts) -> launch */
	struct osc_id_index node_by_ext;    /* External id -> node */
	struct osc_id_index node_by_corr;   /* correlation id -> node (ORT) */
	struct table node_by_op;            /* (op name, ts) -> node (ORT) */
	int64_t *op_reach;                  /* per node_by_op entry: latest end of its op's up to it */
	struct osc_id_index flow_start;     /* flow id -> s flow (index into t->flows) */
	struct groups flow_end;             /* (thread, ts) -> f flow */
};

static int64_t end_of(const struct osc_event *e)
{
	int64_t end;

	return __builtin_add_overflow(e->ts, e->dur, &end) ? INT64_MAX : end;
}

/* b - a for a <= b, at most INT64_MAX. */
static int64_t gap(int64_t a, int64_t b)
{
	int64_t d;

	return __builtin_sub_overflow(b, a, &d) ? INT64_MAX : d;
}

/*
 * One core's share of the events while the launches and device events are
 * listed: counted first, then written from the share's first numbers.
 */
struct share {
	const struct osc_trace *t;
	const struct osc_catsel *launch, *device;
	struct osc_correlation *out;
	size_t from, to;
	size_t nr_launches, nr_devs; /* counted, then the share's first numbers */
};

static void count_links(void *arg, size_t i)
{
	struct share *w = &((struct share *)arg)[i];

	for (size_t e = w->from; e < w->to; e++) {
		const struct osc_event *ev = &w->t->events[e];

		if (osc_catsel_has(w->device, ev))
			w->nr_devs++;
		else if (osc_catsel_has(w->launch, ev))
			w->nr_launches++;
	}
}

static void list_links(void *arg, size_t i)
{
	struct share *w = &((struct share *)arg)[i];
	struct osc_correlation *out = w->out;
	size_t l = w->nr_launches, d = w->nr_devs;

	for (size_t e = w->from; e < w->to; e++) {
		const struct osc_event *ev = &w->t->events[e];

		out->launch_of[e] = out->dev_of[e] = OSC_NONE;
		if (osc_catsel_has(w->device, ev)) {
			out->dev_of[e] = (uint32_t)d;
			out->devs[d++] = (struct osc_dev_link){
				.event = (uint32_t)e, .launch = OSC_NONE, .node = OSC_NONE,
			};
		} else if (osc_catsel_has(w->launch, ev)) {
			out->launch_of[e] = (uint32_t)l;
			out->launches[l++] = (struct osc_launch_link){
				.event = (uint32_t)e, .node = OSC_NONE,
			};
		}
	}
}

/* The launches and device events, in model order, listed on all cores. */
static void list_all_links(struct ctx *x, const struct osc_catsel *launch,
			   const struct osc_catsel *device)
{
	const struct osc_trace *t = x->t;
	struct osc_correlation *out = x->out;
	size_t parts = osc_parallel_parts(t->nr_events, LINK_PART_MIN);
	struct share *w = osc_xcalloc(parts, sizeof(*w));

	for (size_t i = 0; i < parts; i++)
		w[i] = (struct share){ .t = t, .launch = launch, .device = device, .out = out,
				       .from = t->nr_events * i / parts,
				       .to = t->nr_events * (i + 1) / parts };
	osc_parallel_run(parts, count_links, w);
	for (size_t i = 0; i < parts; i++) {
		size_t nl = w[i].nr_launches, nd = w[i].nr_devs;

		w[i].nr_launches = out->nr_launches;
		w[i].nr_devs = out->nr_devs;
		out->nr_launches += nl;
		out->nr_devs += nd;
	}
	out->launches = osc_xmalloc((out->nr_launches ? out->nr_launches : 1) *
				    sizeof(*out->launches));
	out->devs = osc_xmalloc((out->nr_devs ? out->nr_devs : 1) * sizeof(*out->devs));
	osc_parallel_run(parts, list_links, w);
	free(w);
}

/* The lookups of the host nodes: by External id, correlation id, op name. */
static void index_nodes(struct ctx *x)
{
	const struct osc_trace *t = x->t;
	const struct osc_calltree *c = x->c;

	/* room for a node each, as for the launches (index_launches) */
	osc_id_index_reserve(&x->node_by_ext, c->nr);
	osc_id_index_reserve(&x->node_by_corr, c->nr);
	for (size_t n = 0; n < c->nr; n++) {
		uint32_t i = c->nodes[n].event;
		const struct osc_event *e = &t->events[i];

		if (e->ext != OSC_ID_NONE)
			osc_id_index_add(&x->node_by_ext, e->ext, (uint32_t)n);
		if (e->corr_id != OSC_ID_NONE)
			osc_id_index_add(&x->node_by_corr, e->corr_id, (uint32_t)n);
		if (t->format == OSC_FORMAT_ORT)
			table_add(&x->node_by_op, osc_trace_op(t, i), e->ts, (uint32_t)n);
	}
	osc_id_index_finish(&x->node_by_ext);
	osc_id_index_finish(&x->node_by_corr);
	table_sort(&x->node_by_op);
	x->op_reach = osc_xreallocarray(NULL, x->node_by_op.nr ? x->node_by_op.nr : 1,
					sizeof(*x->op_reach));
	for (size_t k = 0; k < x->node_by_op.nr; k++) {
		const struct entry *en = &x->node_by_op.e[k];
		int64_t end = end_of(&t->events[c->nodes[en->val].event]);

		if (k && x->node_by_op.e[k - 1].key == en->key && x->op_reach[k - 1] > end)
			end = x->op_reach[k - 1];
		x->op_reach[k] = end;
	}
}

/* The lookups of the launches (by correlation id, by time) and the flows. */
static void index_launches(struct ctx *x)
{
	const struct osc_trace *t = x->t;
	const struct osc_correlation *out = x->out;

	/* room for them all: a million launches' tables are not copied as they grow
	   (the flows': a flow each, of which only the pages used are taken) */
	osc_id_index_reserve(&x->launch_by_corr, out->nr_launches);
	groups_reserve(&x->launch_by_time, out->nr_launches);
	osc_id_index_reserve(&x->flow_start, t->nr_flows);
	groups_reserve(&x->flow_end, t->nr_flows);
	for (size_t l = 0; l < out->nr_launches; l++) {
		const struct osc_event *e = &t->events[out->launches[l].event];

		if (e->corr_id != OSC_ID_NONE)
			osc_id_index_add(&x->launch_by_corr, e->corr_id, (uint32_t)l);
		groups_add(&x->launch_by_time, e->thread, e->ts, (uint32_t)l);
	}
	for (size_t i = 0; i < t->nr_flows; i++) {
		const struct osc_flow *f = &t->flows[i];

		if (f->id == OSC_ID_NONE)
			continue;
		if (osc_flow_ph(f) == OSC_PH_FLOW_START)
			osc_id_index_add(&x->flow_start, f->id, (uint32_t)i);
		else if (osc_flow_ph(f) == OSC_PH_FLOW_END)
			groups_add(&x->flow_end, f->thread, f->ts, (uint32_t)i);
	}
	osc_id_index_finish(&x->launch_by_corr);
	groups_finish(&x->launch_by_time, t->nr_threads);
	osc_id_index_finish(&x->flow_start);
	groups_finish(&x->flow_end, t->nr_threads);
}

/* Lookups piece i: the nodes' (0) and the launches' (1), apart on two cores. */
static void index_piece(void *arg, size_t i)
{
	struct ctx *x = arg;

	if (i == 0)
		index_nodes(x);
	if (i == 1 || osc_threads() < 2)
		index_launches(x);
}

/* The launches and device events, and the lookups that link them (struct ctx). */
static void collect(struct ctx *x, const struct osc_catsel *launch,
		    const struct osc_catsel *device)
{
	list_all_links(x, launch, device);
	osc_parallel_run(osc_threads() < 2 ? 1 : 2, index_piece, x);
}

/* Each launch's host node: External id, else the innermost window. */
static void link_launches(struct ctx *x)
{
	struct osc_calltree_walk w;

	osc_calltree_walk_init(&w, x->c);
	for (size_t l = 0; l < x->out->nr_launches; l++) {
		struct osc_launch_link *ll = &x->out->launches[l];
		const struct osc_event *e = &x->t->events[ll->event];
		uint32_t node = e->ext != OSC_ID_NONE ? osc_id_index_get(&x->node_by_ext, e->ext)
						       : OSC_NONE;

		if (node != OSC_NONE) {
			ll->node = node;
			ll->method = OSC_LINK_EXTERNAL_ID;
			continue;
		}
		ll->node = osc_calltree_walk_find(&w, x->c, x->t, e->thread, e->ts);
		ll->method = ll->node != OSC_NONE ? OSC_LINK_WINDOW : OSC_LINK_NONE;
	}
	osc_calltree_walk_release(&w);
}

/* The launch holding the start of flow fid (its s event), or OSC_NONE. */
static uint32_t launch_of_flow(const struct ctx *x, osc_id fid)
{
	uint32_t s = osc_id_index_get(&x->flow_start, fid);
	const struct osc_flow *se;
	size_t lo, hi, i;
	uint32_t l;

	if (s == OSC_NONE)
		return OSC_NONE;
	se = &x->t->flows[s];
	/* the last launch of that thread starting at or before the flow start */
	groups_of(&x->launch_by_time, se->thread, &lo, &hi);
	i = groups_bound(&x->launch_by_time, lo, hi, se->ts, true);
	if (i == lo)
		return OSC_NONE;
	l = x->launch_by_time.item[i - 1];
	return end_of(&x->t->events[x->out->launches[l].event]) >= se->ts ? l : OSC_NONE;
}

/*
 * ORT: the node of op name op nearest to ts (correlate.h's OP_NAME). The
 * op's entries run in model order. Those starting at or before ts are at
 * distance ts - min(ts, end), so the nearest of them is the first whose
 * reach (nondecreasing) gets to min(ts, the last one's reach): found by
 * bisection, however long the nodes and however they overlap. The first
 * entry starting after ts is the nearest of the others, and comes later in
 * model order, so it wins only when strictly nearer. O(log N).
 */
static uint32_t node_by_op(const struct ctx *x, osc_str op, int64_t ts)
{
	const struct table *tb = &x->node_by_op;
	size_t lo = table_lower(tb, op, INT64_MIN), hi = table_upper(tb, op, ts);
	uint32_t best = OSC_NONE;
	int64_t best_gap = INT64_MAX;

	if (lo < hi) {
		int64_t want = x->op_reach[hi - 1] < ts ? x->op_reach[hi - 1] : ts;
		size_t first = lo, last = hi - 1;

		while (first < last) {
			size_t mid = first + (last - first) / 2;

			if (x->op_reach[mid] < want)
				first = mid + 1;
			else
				last = mid;
		}
		best = tb->e[first].val;
		best_gap = gap(want, ts);
	}
	if (hi < tb->nr && tb->e[hi].key == op &&
	    (best == OSC_NONE || gap(ts, tb->e[hi].key2) < best_gap))
		best = tb->e[hi].val;
	return best;
}

static void link_device(struct ctx *x, struct osc_dev_link *d)
{
	const struct osc_event *e = &x->t->events[d->event];
	size_t f, lo, hi;

	if (e->corr_id != OSC_ID_NONE) {
		d->launch = osc_id_index_get(&x->launch_by_corr, e->corr_id);
		if (d->launch != OSC_NONE) {
			d->method = OSC_LINK_CORRELATION;
			return;
		}
		d->node = osc_id_index_get(&x->node_by_corr, e->corr_id);
		if (d->node != OSC_NONE) {
			d->method = OSC_LINK_CORRELATION;
			return;
		}
	}
	groups_of(&x->flow_end, e->thread, &lo, &hi);
	for (f = groups_bound(&x->flow_end, lo, hi, e->ts, false);
	     f < hi && x->flow_end.ts[f] == e->ts; f++) {
		d->launch = launch_of_flow(x, x->t->flows[x->flow_end.item[f]].id);
		if (d->launch != OSC_NONE) {
			d->method = OSC_LINK_FLOW;
			return;
		}
	}
	if (x->t->format == OSC_FORMAT_ORT) {
		d->node = node_by_op(x, osc_trace_op(x->t, d->event), e->ts);
		if (d->node != OSC_NONE)
			d->method = OSC_LINK_OP_NAME;
	}
}

/* Host nodes through the launches, graph replays, delays and queue times. */
static void finish_devices(struct ctx *x)
{
	struct osc_correlation *out = x->out;
	int64_t *last_end = osc_xmalloc((x->t->nr_threads ? x->t->nr_threads : 1) *
					sizeof(*last_end));

	for (size_t th = 0; th < x->t->nr_threads; th++)
		last_end[th] = INT64_MIN;
	for (size_t i = 0; i < out->nr_devs; i++)
		if (out->devs[i].launch != OSC_NONE)
			out->launches[out->devs[i].launch].nr_device++;
	for (size_t i = 0; i < out->nr_devs; i++) {
		struct osc_dev_link *d = &out->devs[i];
		const struct osc_event *e = &x->t->events[d->event];

		if (d->launch != OSC_NONE) {
			const struct osc_launch_link *l = &out->launches[d->launch];
			const struct osc_event *le = &x->t->events[l->event];
			int64_t ready = end_of(le);

			if (l->nr_device > 1)
				d->method = OSC_LINK_GRAPH;
			d->node = l->node;
			d->host_method = l->method;
			if (l->node == OSC_NONE)
				out->no_host++;
			d->delay = e->ts - le->ts;
			if (last_end[e->thread] > ready)
				ready = last_end[e->thread];
			d->queue = e->ts > ready ? e->ts - ready : 0;
		}
		if (end_of(e) > last_end[e->thread])
			last_end[e->thread] = end_of(e);
		out->by_method[d->method]++;
	}
	free(last_end);
}

void osc_correlate(const struct osc_trace *t, const struct osc_calltree *c,
		   const struct osc_catsel *launch, const struct osc_catsel *device,
		   struct osc_correlation *out)
{
	struct ctx x = { .t = t, .c = c, .out = out };
	size_t n = t->nr_events ? t->nr_events : 1;

	memset(out, 0, sizeof(*out));
	out->launch_of = osc_xmalloc(n * sizeof(*out->launch_of));
	out->dev_of = osc_xmalloc(n * sizeof(*out->dev_of));
	collect(&x, launch, device);
	link_launches(&x);
	for (size_t i = 0; i < out->nr_devs; i++)
		link_device(&x, &out->devs[i]);
	finish_devices(&x);
	explain_unattributed(t, out);
	osc_id_index_release(&x.launch_by_corr);
	groups_release(&x.launch_by_time);
	osc_id_index_release(&x.node_by_ext);
	osc_id_index_release(&x.node_by_corr);
	free(x.node_by_op.e);
	free(x.op_reach);
	osc_id_index_release(&x.flow_start);
	groups_release(&x.flow_end);
}

void osc_correlation_release(struct osc_correlation *corr)
{
	free(corr->launches);
	free(corr->devs);
	free(corr->launch_of);
	free(corr->dev_of);
	memset(corr, 0, sizeof(*corr));
}

/*
 * Per event, 1 for the innermost python_function or user_annotation frame
 * around each launch of corr that started device work without a host node
 * (a CUDA or HIP graph replayed from Python); NULL when there is none.
 */
static uint8_t *launch_frames(const struct osc_trace *t, const struct osc_correlation *corr)
{
	struct osc_catsel frames = { .kinds = OSC_KIND_BIT(PYTHON) | OSC_KIND_BIT(ANNOTATION) };
	struct osc_calltree f;
	uint8_t *mark = NULL;

	for (size_t l = 0; l < corr->nr_launches && !mark; l++)
		if (corr->launches[l].node == OSC_NONE && corr->launches[l].nr_device)
			mark = osc_xcalloc(t->nr_events, 1);
	if (!mark)
		return NULL;
	osc_calltree_build(t, &frames, &f);
	for (size_t l = 0; l < corr->nr_launches; l++) {
		const struct osc_launch_link *ll = &corr->launches[l];
		const struct osc_event *e = &t->events[ll->event];
		uint32_t n;

		if (ll->node != OSC_NONE || !ll->nr_device)
			continue;
		n = osc_calltree_find(&f, t, e->thread, e->ts);
		if (n != OSC_NONE)
			mark[f.nodes[n].event] = 1;
	}
	osc_calltree_release(&f);
	return mark;
}

/*
 * Before the tree is built again: the host nodes of corr's links as the
 * events they are (node numbers change with the tree, events do not). A
 * device event with a launch takes its node from the launch (relink).
 */
static void nodes_to_events(const struct osc_calltree *tree, struct osc_correlation *corr)
{
	for (size_t l = 0; l < corr->nr_launches; l++)
		if (corr->launches[l].node != OSC_NONE)
			corr->launches[l].node = tree->nodes[corr->launches[l].node].event;
	for (size_t d = 0; d < corr->nr_devs; d++)
		if (corr->devs[d].launch == OSC_NONE && corr->devs[d].node != OSC_NONE)
			corr->devs[d].node = tree->nodes[corr->devs[d].node].event;
}

/*
 * Tie corr, its host links made events (nodes_to_events), to tree: the same
 * host ops plus the frames of launch_frames. Links to device events do not
 * depend on the tree, so only the host nodes change: a launch that had one
 * keeps it (new number), one that had none takes the first frame with its
 * External id, else the innermost node holding its start, as osc_correlate
 * would.
 */
static void relink(const struct osc_trace *t, const struct osc_calltree *tree,
		   const uint8_t *frames, struct osc_correlation *corr)
{
	struct osc_id_index frame_by_ext = { 0 };

	for (size_t n = 0; n < tree->nr; n++) {
		const struct osc_event *e = &t->events[tree->nodes[n].event];

		if (frames[tree->nodes[n].event] && e->ext != OSC_ID_NONE)
			osc_id_index_add(&frame_by_ext, e->ext, (uint32_t)n);
	}
	osc_id_index_finish(&frame_by_ext);
	for (size_t l = 0; l < corr->nr_launches; l++) {
		struct osc_launch_link *ll = &corr->launches[l];
		const struct osc_event *e = &t->events[ll->event];

		if (ll->node != OSC_NONE) {
			ll->node = tree->node_of[ll->node];
			continue;
		}
		if (e->ext != OSC_ID_NONE)
			ll->node = osc_id_index_get(&frame_by_ext, e->ext);
		if (ll->node != OSC_NONE) {
			ll->method = OSC_LINK_EXTERNAL_ID;
			continue;
		}
		ll->node = osc_calltree_find(tree, t, e->thread, e->ts);
		ll->method = ll->node != OSC_NONE ? OSC_LINK_WINDOW : OSC_LINK_NONE;
	}
	corr->no_host = 0;
	for (size_t d = 0; d < corr->nr_devs; d++) {
		struct osc_dev_link *dl = &corr->devs[d];

		if (dl->launch != OSC_NONE) {
			dl->node = corr->launches[dl->launch].node;
			dl->host_method = corr->launches[dl->launch].method;
			corr->no_host += dl->node == OSC_NONE;
		} else if (dl->node != OSC_NONE) {
			dl->node = tree->node_of[dl->node];
		}
	}
	explain_unattributed(t, corr);
	osc_id_index_release(&frame_by_ext);
}

void osc_host_analysis(const struct osc_trace *t, struct osc_catsel *ops,
		       const struct osc_catsel *launch, const struct osc_catsel *device,
		       struct osc_calltree *tree, struct osc_correlation *corr)
{
	uint8_t *frames;

	osc_calltree_build(t, ops, tree);
	osc_correlate(t, tree, launch, device, corr);
	frames = ops->also ? NULL : launch_frames(t, corr);
	if (!frames)
		return;
	ops->also = frames;
	nodes_to_events(tree, corr);
	osc_calltree_rebuild(t, ops, tree);
	relink(t, tree, frames, corr);
}
