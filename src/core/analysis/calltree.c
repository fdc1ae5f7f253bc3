/*
 * calltree.c - category selections and the per-thread instance tree.
 *
 * The selected events become nodes, numbered in model order and grouped
 * by thread (a counting sort, for osc_calltree_find()). Then one pass over
 * each thread's nodes keeps a stack of its open nodes (see calltree.h for
 * the nesting rules): each node is pushed once and popped once, so the
 * build is O(N) after the model's sort. A second sweep per thread gives
 * each instant to the innermost node open then (the self times). Threads
 * are independent, so the sweeps of different threads run on different
 * cores, as do the shares of the events while nodes are made.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opscope/base/alloc.h"
#include "opscope/analysis/calltree.h"
#include "base/parallel.h"

/* ---- category selections ---- */

enum osc_status osc_catsel_parse(struct osc_catsel *sel, const struct osc_trace *t,
				 const char *spec, uint32_t kinds, const char *what,
				 struct osc_error *err)
{
	size_t alloc = 0;
	const char *p = spec;

	memset(sel, 0, sizeof(*sel));
	sel->kinds = kinds;
	if (!spec)
		return OSC_OK;
	sel->spec = osc_xstrdup(spec);
	for (;;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		osc_str id;

		if (!len) {
			osc_catsel_release(sel);
			return osc_error_set(err, OSC_USAGE, what, OSC_NO_OFFSET, NULL,
					     "empty category name in '%s'", spec);
		}
		id = osc_strtab_find(&t->strs, p, len);
		OSC_GROW(sel->cats, sel->nr + 1, alloc);
		/* An absent name selects nothing, but keeps the selection by name. */
		sel->cats[sel->nr++] = id;
		if (!comma)
			break;
		p = comma + 1;
	}
	return OSC_OK;
}

void osc_catsel_release(struct osc_catsel *sel)
{
	free(sel->cats);
	free(sel->spec);
	free(sel->also);
	memset(sel, 0, sizeof(*sel));
}

bool osc_catsel_has(const struct osc_catsel *sel, const struct osc_event *ev)
{
	if (ev->ph != OSC_PH_COMPLETE)
		return false;
	if (!sel->nr)
		return (sel->kinds >> ev->kind) & 1;
	if (ev->kind == OSC_KIND_RUN)
		return false;
	for (size_t i = 0; i < sel->nr; i++)
		if (sel->cats[i] == ev->cat)
			return true;
	return false;
}

const char *osc_catsel_describe(const struct osc_catsel *sel, char *buf, size_t size)
{
	size_t len = 0;

	buf[0] = '\0';
	if (sel->spec)
		len = (size_t)snprintf(buf, size, "%s", sel->spec);
	for (int k = 0; !sel->spec && k < OSC_KIND_COUNT && len < size; k++)
		if ((sel->kinds >> k) & 1)
			len += (size_t)snprintf(buf + len, size - len, "%s%s", len ? "," : "kind ",
						osc_kind_name((enum osc_kind)k));
	if (sel->also && len < size)
		snprintf(buf + len, size - len, " + frames launching device work");
	return buf;
}

/* ---- the instance tree ---- */

/* Events or nodes per core below which a build step runs on one thread. */
#define PART_MIN 65536

/* An open node on a thread's stack, with the end that closes it (place). */
struct open {
	uint32_t node;
	int64_t end; /* kept here, so a check needs no read of the event table */
};

struct stack {
	struct open *open;
	size_t depth, alloc;
};

/*
 * One core's share of a build: events [from, to) while the nodes are made
 * (numbered from first_node), then threads [from, to) while they are
 * placed and timed; a thread's nodes only link to its own, so threads are
 * independent. The counts are the share's, added up after.
 */
struct part {
	const struct osc_trace *t;
	const struct osc_catsel *host;
	struct osc_calltree *c;
	uint32_t *last_child; /* per node: its last child so far */
	uint32_t *last_root;  /* per thread: its last root so far */
	size_t from, to;
	size_t nr_nodes, first_node;
	size_t *cursor;       /* per thread: its nodes in the share, then where the next goes */
	uint64_t nr_overlaps, nr_roots;
	uint32_t max_depth;
};

/* Link node n under parent p (OSC_NONE: a root), after p's last child. */
static void attach(struct part *w, uint32_t thread, uint32_t n, uint32_t p)
{
	struct osc_tree_node *nodes = w->c->nodes, *node = &nodes[n];
	uint32_t *last = p == OSC_NONE ? &w->last_root[thread] : &w->last_child[p];

	node->parent = p;
	node->depth = p == OSC_NONE ? 0 : nodes[p].depth + 1;
	if (node->depth > w->max_depth)
		w->max_depth = node->depth;
	if (p == OSC_NONE)
		w->nr_roots++;
	else if (nodes[p].first_child == OSC_NONE)
		nodes[p].first_child = n;
	if (*last != OSC_NONE)
		nodes[*last].next_sibling = n;
	*last = n;
}

/* Push an open node. */
static void push(struct stack *s, uint32_t node, int64_t end)
{
	OSC_GROW(s->open, s->depth + 1, s->alloc);
	s->open[s->depth++] = (struct open){ .node = node, .end = end };
}

/*
 * Place node n of event e on its thread's stack (see the rules in calltree.h).
 * Each open node keeps the end that closes it: its own, or for a node that
 * ends within the slack after the top it nested in, that top's closing end
 * (so the slack never adds up).
 */
static void place(struct part *w, struct stack *s, uint32_t n)
{
	const struct osc_trace *t = w->t;
	const struct osc_event *e = &t->events[w->c->nodes[n].event];
	/* legacy PyTorch rounds ts and dur to µs apart: a child may end 1 µs late */
	int64_t slack = t->format == OSC_FORMAT_PYTORCH_LEGACY ? 1000 : 0;
	int64_t end = osc_event_end(e), need = end < INT64_MIN + slack ? INT64_MIN : end - slack;
	int64_t closes_at = end;
	bool overlapped = false;

	/* close the nodes that ended by e's start (zero-length ones included) */
	while (s->depth && s->open[s->depth - 1].end <= e->ts)
		s->depth--;
	/* e starts inside the top: a node that ends before e needs is overlapped */
	while (s->depth && s->open[s->depth - 1].end < need) {
		s->depth--;
		overlapped = true;
	}
	if (s->depth && s->open[s->depth - 1].end < end)
		closes_at = s->open[s->depth - 1].end;
	w->nr_overlaps += overlapped;
	attach(w, e->thread, n, s->depth ? s->open[s->depth - 1].node : OSC_NONE);
	push(s, n, closes_at);
}

/*
 * Pay node `top` (the innermost open node) for the time from *now on, and
 * close what ended, until time `to`. A node that ended while covered by a
 * later one leaves the stack, unpaid, when it comes back to the top.
 */
static void advance(struct osc_calltree *c, struct stack *s, int64_t *now, int64_t to)
{
	while (s->depth) {
		const struct open *top = &s->open[s->depth - 1];

		if (top->end <= *now) {
			s->depth--;
			continue;
		}
		if (top->end > to) {
			c->nodes[top->node].self += to - *now;
			break;
		}
		c->nodes[top->node].self += top->end - *now;
		*now = top->end;
		s->depth--;
	}
	*now = to;
}

/* Count the share's selected events, per thread. */
static void count_nodes(void *arg, size_t i)
{
	struct part *w = &((struct part *)arg)[i];

	for (size_t e = w->from; e < w->to; e++)
		if (osc_catsel_has_event(w->host, w->t, (uint32_t)e)) {
			w->nr_nodes++;
			w->cursor[w->t->events[e].thread]++;
		}
}

/* Make the share's nodes, and file each under its thread (by_thread). */
static void make_nodes(void *arg, size_t i)
{
	struct part *w = &((struct part *)arg)[i];
	const struct osc_trace *t = w->t;
	struct osc_calltree *c = w->c;
	uint32_t n = (uint32_t)w->first_node;

	for (size_t e = w->from; e < w->to; e++) {
		c->node_of[e] = OSC_NONE;
		if (!osc_catsel_has_event(w->host, t, (uint32_t)e))
			continue;
		c->nodes[n] = (struct osc_tree_node){
			.event = (uint32_t)e,
			.name = t->events[e].name,
			.dur = t->events[e].dur,
			.parent = OSC_NONE,
			.first_child = OSC_NONE,
			.next_sibling = OSC_NONE,
		};
		c->by_thread[w->cursor[t->events[e].thread]++] = n;
		c->node_of[e] = n++;
	}
}

/* Link the nodes of the share's threads into their trees. */
static void place_threads(void *arg, size_t i)
{
	struct part *w = &((struct part *)arg)[i];
	const struct osc_calltree *c = w->c;
	struct stack s = { 0 };

	for (size_t th = w->from; th < w->to; th++) {
		w->last_root[th] = OSC_NONE;
		s.depth = 0;
		for (size_t k = c->thread_first[th]; k < c->thread_first[th + 1]; k++)
			place(w, &s, c->by_thread[k]);
	}
	free(s.open);
}

/*
 * Self time: each instant of a thread goes to its innermost active node, the
 * last in model order of the nodes whose window holds it. One sweep per
 * thread in ts order with a stack of the open nodes, latest start on top.
 * The self times of a thread add up to the union of its nodes' windows,
 * partial overlaps included; with proper nesting, self = dur - union of the
 * children's windows.
 */
static void self_times(void *arg, size_t i)
{
	struct part *w = &((struct part *)arg)[i];
	struct osc_calltree *c = w->c;
	struct stack s = { 0 };

	for (size_t th = w->from; th < w->to; th++) {
		int64_t now = INT64_MIN;

		s.depth = 0;
		for (size_t k = c->thread_first[th]; k < c->thread_first[th + 1]; k++) {
			uint32_t n = c->by_thread[k];
			const struct osc_event *e = &w->t->events[c->nodes[n].event];

			advance(c, &s, &now, e->ts);
			push(&s, n, osc_event_end(e));
		}
		advance(c, &s, &now, INT64_MAX);
	}
	free(s.open);
}

/*
 * Number the nodes of each share after the ones before, and give each share
 * its threads' places in by_thread (after the earlier shares' nodes of the
 * thread, which keeps a thread's nodes in model order).
 */
static void number_nodes(struct osc_calltree *c, struct part *w, size_t parts, size_t nr_threads)
{
	c->nr = 0;
	memset(c->thread_first, 0, (nr_threads + 1) * sizeof(*c->thread_first));
	for (size_t i = 0; i < parts; i++) {
		w[i].first_node = c->nr;
		c->nr += w[i].nr_nodes;
		for (size_t th = 0; th < nr_threads; th++)
			c->thread_first[th + 1] += w[i].cursor[th];
	}
	for (size_t th = 0; th < nr_threads; th++)
		c->thread_first[th + 1] += c->thread_first[th];
	for (size_t th = 0; th < nr_threads; th++) {
		size_t at = c->thread_first[th];

		for (size_t i = 0; i < parts; i++) {
			size_t nr = w[i].cursor[th];

			w[i].cursor[th] = at;
			at += nr;
		}
	}
}

/* Shares of the threads with about as many nodes each (a thread is not split). */
static void share_threads(const struct osc_calltree *c, struct part *w, size_t parts)
{
	size_t th = 0;

	for (size_t i = 0; i < parts; i++) {
		size_t want = c->nr * (i + 1) / parts;

		w[i].from = th;
		/* a thread goes to the share its middle node falls in */
		while (th < c->nr_threads &&
		       (i + 1 == parts || c->thread_first[th] + c->thread_first[th + 1] <= 2 * want))
			th++;
		w[i].to = th;
	}
}

/*
 * Room for n elements of size bytes at p, which holds had of them (NULL:
 * none). A build writes every element, so a larger table is a new block:
 * realloc would copy the old contents, and into fresh pages.
 */
static void *fresh_room(void *p, size_t had, size_t n, size_t size)
{
	if (p && n <= had)
		return p;
	free(p);
	return osc_xmalloc_big(n ? n : 1, size);
}

/*
 * Build into c, whose arrays (from an earlier build, or none) are reused:
 * a second build over the same trace touches no fresh memory but the
 * growth, and fresh pages are most of what a build over millions of events
 * costs. The nodes are made on all cores over shares of the events; then
 * each core places and times the nodes of a share of the threads.
 */
static void build(const struct osc_trace *t, const struct osc_catsel *host,
		  struct osc_calltree *c)
{
	size_t nt = t->nr_threads, parts = osc_parallel_parts(t->nr_events, PART_MIN), shares;
	struct part *w = osc_xcalloc(parts, sizeof(*w));
	uint32_t *last_root = osc_xmalloc((nt ? nt : 1) * sizeof(*last_root));
	size_t had = c->nr; /* nodes holds that many */

	for (size_t i = 0; i < parts; i++)
		w[i] = (struct part){ .t = t, .host = host, .c = c, .last_root = last_root,
				      .from = t->nr_events * i / parts,
				      .to = t->nr_events * (i + 1) / parts,
				      .cursor = osc_xcalloc(nt ? nt : 1, sizeof(size_t)) };
	osc_parallel_run(parts, count_nodes, w);
	c->nr_threads = nt;
	c->thread_first = osc_xreallocarray(c->thread_first, nt + 1, sizeof(*c->thread_first));
	number_nodes(c, w, parts, nt);
	c->nodes = fresh_room(c->nodes, had, c->nr, sizeof(*c->nodes));
	c->node_of = osc_xreallocarray(c->node_of, t->nr_events ? t->nr_events : 1,
				       sizeof(*c->node_of));
	c->by_thread = fresh_room(c->by_thread, had, c->nr, sizeof(*c->by_thread));
	osc_parallel_run(parts, make_nodes, w);

	shares = osc_parallel_parts(c->nr, PART_MIN); /* at most parts */
	w[0].last_child = osc_xmalloc((c->nr ? c->nr : 1) * sizeof(*w[0].last_child));
	for (size_t n = 0; n < c->nr; n++)
		w[0].last_child[n] = OSC_NONE;
	for (size_t i = 0; i < shares; i++)
		w[i].last_child = w[0].last_child;
	share_threads(c, w, shares);
	osc_parallel_run(shares, place_threads, w);
	osc_parallel_run(shares, self_times, w);
	c->nr_overlaps = c->nr_roots = c->max_depth = 0;
	for (size_t i = 0; i < shares; i++) {
		c->nr_overlaps += w[i].nr_overlaps;
		c->nr_roots += w[i].nr_roots;
		c->max_depth = w[i].max_depth > c->max_depth ? w[i].max_depth : c->max_depth;
	}
	free(w[0].last_child);
	for (size_t i = 0; i < parts; i++)
		free(w[i].cursor);
	free(w);
	free(last_root);
}

void osc_calltree_build(const struct osc_trace *t, const struct osc_catsel *host,
			struct osc_calltree *out)
{
	memset(out, 0, sizeof(*out));
	build(t, host, out);
}

void osc_calltree_rebuild(const struct osc_trace *t, const struct osc_catsel *host,
			  struct osc_calltree *tree)
{
	build(t, host, tree);
}

void osc_calltree_release(struct osc_calltree *c)
{
	free(c->nodes);
	free(c->node_of);
	free(c->by_thread);
	free(c->thread_first);
	memset(c, 0, sizeof(*c));
}

/* The start of the node at k in thread order. */
static int64_t start_at(const struct osc_calltree *c, const struct osc_trace *t, size_t k)
{
	return t->events[c->nodes[c->by_thread[k]].event].ts;
}

/* In by_thread, the first node of thread (valid) starting after ts. */
static size_t first_after(const struct osc_calltree *c, const struct osc_trace *t,
			  uint32_t thread, int64_t ts)
{
	size_t lo = c->thread_first[thread], hi = c->thread_first[thread + 1];

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (start_at(c, t, mid) <= ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The node before k (the last of thread starting at or before ts), or its
   nearest ancestor still open at ts. */
static uint32_t open_at(const struct osc_calltree *c, const struct osc_trace *t,
			uint32_t thread, size_t k, int64_t ts)
{
	if (k == c->thread_first[thread])
		return OSC_NONE;
	for (uint32_t n = c->by_thread[k - 1]; n != OSC_NONE; n = c->nodes[n].parent)
		if (osc_event_end(&t->events[c->nodes[n].event]) > ts)
			return n;
	return OSC_NONE;
}

uint32_t osc_calltree_find(const struct osc_calltree *c, const struct osc_trace *t,
			   uint32_t thread, int64_t ts)
{
	if (thread >= c->nr_threads)
		return OSC_NONE;
	return open_at(c, t, thread, first_after(c, t, thread, ts), ts);
}

void osc_calltree_walk_init(struct osc_calltree_walk *w, const struct osc_calltree *c)
{
	w->next = osc_xmalloc((c->nr_threads ? c->nr_threads : 1) * sizeof(*w->next));
	for (size_t th = 0; th < c->nr_threads; th++)
		w->next[th] = c->thread_first[th];
}

uint32_t osc_calltree_walk_find(struct osc_calltree_walk *w, const struct osc_calltree *c,
				const struct osc_trace *t, uint32_t thread, int64_t ts)
{
	size_t k, end;

	if (thread >= c->nr_threads)
		return OSC_NONE;
	k = w->next[thread];
	end = c->thread_first[thread + 1];
	if (k > c->thread_first[thread] && start_at(c, t, k - 1) > ts)
		k = first_after(c, t, thread, ts); /* back in time */
	while (k < end && start_at(c, t, k) <= ts)
		k++;
	w->next[thread] = k;
	return open_at(c, t, thread, k, ts);
}

void osc_calltree_walk_release(struct osc_calltree_walk *w)
{
	free(w->next);
	w->next = NULL;
}
