/*
 * correlate.c - linking device events to their launches and host ops.
 *
 * Every lookup table is a sorted array of (key, key2, value) triples,
 * searched by bisection: ids are not always dense (flow ids, External ids
 * of merged traces), and one structure serves the correlation id, External
 * id, flow id, (thread, ts) and (op name, ts) lookups. O(N log N) overall.
 * See correlate.h for the methods and their order of preference.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "opscope/base/alloc.h"
#include "opscope/analysis/correlate.h"
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

/*
 * Order by (key, key2, val). Entries are added in val order, so a stable
 * sort by key2, then by key, gives it: two radix sorts of the entries'
 * indices (radix.h), then one permutation.
 */
static void table_sort(struct table *tb)
{
	size_t n = tb->nr;
	uint64_t *k, *k2;
	uint32_t *idx, *idx2;
	struct entry *sorted;

	if (n < 2)
		return;
	k = osc_xreallocarray(NULL, n, sizeof(*k));
	k2 = osc_xreallocarray(NULL, n, sizeof(*k2));
	idx = osc_xreallocarray(NULL, n, sizeof(*idx));
	idx2 = osc_xreallocarray(NULL, n, sizeof(*idx2));
	for (size_t i = 0; i < n; i++) {
		k[i] = osc_radix_key(tb->e[i].key2);
		idx[i] = (uint32_t)i;
	}
	osc_radix_sort(k, idx, k2, idx2, n);
	for (size_t i = 0; i < n; i++)
		k[i] = osc_radix_key(tb->e[idx[i]].key);
	osc_radix_sort(k, idx, k2, idx2, n);
	sorted = osc_xreallocarray(NULL, n, sizeof(*sorted));
	for (size_t i = 0; i < n; i++)
		sorted[i] = tb->e[idx[i]];
	free(tb->e);
	tb->e = sorted;
	tb->alloc = n;
	free(k);
	free(k2);
	free(idx);
	free(idx2);
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

/* Value of the first entry with key (the earliest in model order), or OSC_NONE. */
static uint32_t table_get(const struct table *tb, int64_t key)
{
	size_t i = table_lower(tb, key, INT64_MIN);

	return i < tb->nr && tb->e[i].key == key ? tb->e[i].val : OSC_NONE;
}

/* ---- the correlator ---- */

struct ctx {
	const struct osc_trace *t;
	const struct osc_calltree *c;
	struct osc_correlation *out;
	struct table launch_by_corr; /* correlation id -> launch */
	struct table launch_by_time; /* (thread, ts) -> launch */
	struct table node_by_ext;    /* External id -> node */
	struct table node_by_corr;   /* correlation id -> node (ORT) */
	struct table node_by_op;     /* (op name, ts) -> node (ORT) */
	int64_t *op_reach;           /* per node_by_op entry: latest end of its op's up to it */
	struct table flow_start;     /* flow id -> s flow (index into t->flows) */
	struct table flow_end;       /* (thread, ts) -> f flow */
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

static void collect(struct ctx *x, const struct osc_catsel *launch,
		    const struct osc_catsel *device)
{
	const struct osc_trace *t = x->t;
	struct osc_correlation *out = x->out;
	size_t alloc_l = 0, alloc_d = 0;

	for (size_t i = 0; i < t->nr_events; i++) {
		const struct osc_event *e = &t->events[i];
		uint32_t node = x->c->node_of[i];

		out->launch_of[i] = out->dev_of[i] = OSC_NONE;
		if (node != OSC_NONE) {
			if (e->ext != OSC_ID_NONE)
				table_add(&x->node_by_ext, e->ext, 0, node);
			if (e->corr_id != OSC_ID_NONE)
				table_add(&x->node_by_corr, e->corr_id, 0, node);
			if (t->format == OSC_FORMAT_ORT)
				table_add(&x->node_by_op, osc_trace_op(t, i), e->ts, node);
		}
		if (osc_catsel_has(device, e)) {
			OSC_GROW(out->devs, out->nr_devs + 1, alloc_d);
			out->dev_of[i] = (uint32_t)out->nr_devs;
			out->devs[out->nr_devs++] = (struct osc_dev_link){
				.event = (uint32_t)i, .launch = OSC_NONE, .node = OSC_NONE,
			};
		} else if (osc_catsel_has(launch, e)) {
			uint32_t l = (uint32_t)out->nr_launches;

			OSC_GROW(out->launches, out->nr_launches + 1, alloc_l);
			out->launch_of[i] = l;
			out->launches[out->nr_launches++] = (struct osc_launch_link){
				.event = (uint32_t)i, .node = OSC_NONE,
			};
			if (e->corr_id != OSC_ID_NONE)
				table_add(&x->launch_by_corr, e->corr_id, 0, l);
			table_add(&x->launch_by_time, e->thread, e->ts, l);
		}
	}
	for (size_t i = 0; i < t->nr_flows; i++) {
		const struct osc_flow *f = &t->flows[i];

		if (f->id == OSC_ID_NONE)
			continue;
		if (osc_flow_ph(f) == OSC_PH_FLOW_START)
			table_add(&x->flow_start, f->id, 0, (uint32_t)i);
		else if (osc_flow_ph(f) == OSC_PH_FLOW_END)
			table_add(&x->flow_end, f->thread, f->ts, (uint32_t)i);
	}
	table_sort(&x->launch_by_corr);
	table_sort(&x->launch_by_time);
	table_sort(&x->node_by_ext);
	table_sort(&x->node_by_corr);
	table_sort(&x->node_by_op);
	table_sort(&x->flow_start);
	table_sort(&x->flow_end);
	x->op_reach = osc_xreallocarray(NULL, x->node_by_op.nr ? x->node_by_op.nr : 1,
					sizeof(*x->op_reach));
	for (size_t k = 0; k < x->node_by_op.nr; k++) {
		const struct entry *en = &x->node_by_op.e[k];
		int64_t end = end_of(&t->events[x->c->nodes[en->val].event]);

		if (k && x->node_by_op.e[k - 1].key == en->key && x->op_reach[k - 1] > end)
			end = x->op_reach[k - 1];
		x->op_reach[k] = end;
	}
}

/* Each launch's host node: External id, else the innermost window. */
static void link_launches(struct ctx *x)
{
	for (size_t l = 0; l < x->out->nr_launches; l++) {
		struct osc_launch_link *ll = &x->out->launches[l];
		const struct osc_event *e = &x->t->events[ll->event];
		uint32_t node = e->ext != OSC_ID_NONE ? table_get(&x->node_by_ext, e->ext)
						       : OSC_NONE;

		if (node != OSC_NONE) {
			ll->node = node;
			ll->method = OSC_LINK_EXTERNAL_ID;
			continue;
		}
		ll->node = osc_calltree_find(x->c, x->t, e->thread, e->ts);
		ll->method = ll->node != OSC_NONE ? OSC_LINK_WINDOW : OSC_LINK_NONE;
	}
}

/* The launch holding the start of flow fid (its s event), or OSC_NONE. */
static uint32_t launch_of_flow(const struct ctx *x, int64_t fid)
{
	uint32_t s = table_get(&x->flow_start, fid);
	const struct osc_flow *se;
	size_t i;
	uint32_t l;

	if (s == OSC_NONE)
		return OSC_NONE;
	se = &x->t->flows[s];
	/* the last launch of that thread starting at or before the flow start */
	i = table_upper(&x->launch_by_time, se->thread, se->ts);
	if (!i || x->launch_by_time.e[i - 1].key != se->thread)
		return OSC_NONE;
	l = x->launch_by_time.e[i - 1].val;
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
	size_t f;

	if (e->corr_id != OSC_ID_NONE) {
		d->launch = table_get(&x->launch_by_corr, e->corr_id);
		if (d->launch != OSC_NONE) {
			d->method = OSC_LINK_CORRELATION;
			return;
		}
		d->node = table_get(&x->node_by_corr, e->corr_id);
		if (d->node != OSC_NONE) {
			d->method = OSC_LINK_CORRELATION;
			return;
		}
	}
	f = table_lower(&x->flow_end, e->thread, e->ts);
	for (; f < x->flow_end.nr && x->flow_end.e[f].key == e->thread &&
	       x->flow_end.e[f].key2 == e->ts;
	     f++) {
		d->launch = launch_of_flow(x, x->t->flows[x->flow_end.e[f].val].id);
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
	free(x.launch_by_corr.e);
	free(x.launch_by_time.e);
	free(x.node_by_ext.e);
	free(x.node_by_corr.e);
	free(x.node_by_op.e);
	free(x.op_reach);
	free(x.flow_start.e);
	free(x.flow_end.e);
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
 * Tie corr, made with tree old, to tree new: the same host ops plus the
 * frames of launch_frames. Links to device events do not depend on the
 * tree, so only the host nodes change: a launch that had one keeps it (new
 * index), one that had none takes the new frame with its External id, else
 * the innermost node holding its start, as osc_correlate would.
 */
static void relink(const struct osc_trace *t, const struct osc_calltree *old,
		   const struct osc_calltree *new, const uint8_t *frames,
		   struct osc_correlation *corr)
{
	uint32_t *framed = NULL; /* the new nodes that are frames, in node order */
	size_t nr = 0, alloc = 0;

	for (size_t n = 0; n < new->nr; n++) {
		if (!frames[new->nodes[n].event])
			continue;
		OSC_GROW(framed, nr + 1, alloc);
		framed[nr++] = (uint32_t)n;
	}
	for (size_t l = 0; l < corr->nr_launches; l++) {
		struct osc_launch_link *ll = &corr->launches[l];
		const struct osc_event *e = &t->events[ll->event];

		if (ll->node != OSC_NONE) {
			ll->node = new->node_of[old->nodes[ll->node].event];
			continue;
		}
		for (size_t f = 0; e->ext != OSC_ID_NONE && f < nr; f++)
			if (t->events[new->nodes[framed[f]].event].ext == e->ext) {
				ll->node = framed[f];
				ll->method = OSC_LINK_EXTERNAL_ID;
				break;
			}
		if (ll->node == OSC_NONE) {
			ll->node = osc_calltree_find(new, t, e->thread, e->ts);
			ll->method = ll->node != OSC_NONE ? OSC_LINK_WINDOW : OSC_LINK_NONE;
		}
	}
	corr->no_host = 0;
	for (size_t d = 0; d < corr->nr_devs; d++) {
		struct osc_dev_link *dl = &corr->devs[d];

		if (dl->launch != OSC_NONE) {
			dl->node = corr->launches[dl->launch].node;
			dl->host_method = corr->launches[dl->launch].method;
			corr->no_host += dl->node == OSC_NONE;
		} else if (dl->node != OSC_NONE) {
			dl->node = new->node_of[old->nodes[dl->node].event];
		}
	}
	free(framed);
}

void osc_host_analysis(const struct osc_trace *t, struct osc_catsel *ops,
		       const struct osc_catsel *launch, const struct osc_catsel *device,
		       struct osc_calltree *tree, struct osc_correlation *corr)
{
	struct osc_calltree first;
	uint8_t *frames;

	osc_calltree_build(t, ops, tree);
	osc_correlate(t, tree, launch, device, corr);
	frames = ops->also ? NULL : launch_frames(t, corr);
	if (!frames)
		return;
	ops->also = frames;
	first = *tree;
	osc_calltree_build(t, ops, tree);
	relink(t, &first, tree, frames, corr);
	osc_calltree_release(&first);
}
