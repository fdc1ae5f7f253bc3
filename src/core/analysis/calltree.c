/*
 * calltree.c - category selections and the per-thread instance tree.
 *
 * One pass over the events in model order keeps a stack of open nodes per
 * thread (see calltree.h for the nesting rules). Each event is pushed once
 * and popped once, so the build is O(N) after the model's sort. A counting
 * sort then groups the nodes by thread (for osc_calltree_find()), and a
 * sweep per thread gives each instant to the innermost node open then (the
 * self times).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opscope/base/alloc.h"
#include "opscope/analysis/calltree.h"

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

struct stack {
	uint32_t *node;
	size_t depth, alloc;
};

/* Link node n under parent p (OSC_NONE: a root), after p's last child. */
static void attach(struct osc_calltree *c, uint32_t *last_child, uint32_t *last_root,
		   uint32_t thread, uint32_t n, uint32_t p)
{
	struct osc_tree_node *node = &c->nodes[n];
	uint32_t *last = p == OSC_NONE ? &last_root[thread] : &last_child[p];

	node->parent = p;
	node->depth = p == OSC_NONE ? 0 : c->nodes[p].depth + 1;
	if (node->depth > c->max_depth)
		c->max_depth = node->depth;
	if (p == OSC_NONE)
		c->nr_roots++;
	else if (c->nodes[p].first_child == OSC_NONE)
		c->nodes[p].first_child = n;
	if (*last != OSC_NONE)
		c->nodes[*last].next_sibling = n;
	*last = n;
}

/*
 * Place node n of event e on its thread's stack (see the rules in calltree.h).
 * Each open node takes two entries: the node, then its closer, the node whose
 * end closes it: its own, or for a node that ends within the slack after the
 * top it nested in, that top's closer (so the slack never adds up).
 */
static void place(struct osc_calltree *c, const struct osc_trace *t, struct stack *s,
		  uint32_t *last_child, uint32_t *last_root, uint32_t n)
{
	const struct osc_event *e = &t->events[c->nodes[n].event];
	/* legacy PyTorch rounds ts and dur to µs apart: a child may end 1 µs late */
	int64_t slack = t->format == OSC_FORMAT_PYTORCH_LEGACY ? 1000 : 0;
	int64_t end = osc_event_end(e), need = end < INT64_MIN + slack ? INT64_MIN : end - slack;
	uint32_t closer = n;
	bool overlapped = false;

	/* close the nodes that ended by e's start (zero-length ones included) */
	while (s->depth && osc_event_end(&t->events[c->nodes[s->node[s->depth - 1]].event]) <= e->ts)
		s->depth -= 2;
	/* e starts inside the top: a node that ends before e needs is overlapped */
	while (s->depth && osc_event_end(&t->events[c->nodes[s->node[s->depth - 1]].event]) < need) {
		s->depth -= 2;
		overlapped = true;
	}
	if (s->depth && osc_event_end(&t->events[c->nodes[s->node[s->depth - 1]].event]) < end)
		closer = s->node[s->depth - 1];
	c->nr_overlaps += overlapped;
	attach(c, last_child, last_root, e->thread, n,
	       s->depth ? s->node[s->depth - 2] : OSC_NONE);
	OSC_GROW(s->node, s->depth + 2, s->alloc);
	s->node[s->depth++] = n;
	s->node[s->depth++] = closer;
}

/*
 * Pay node `top` (the innermost open node) for the time from *now on, and
 * close what ended, until time `to`. A node that ended while covered by a
 * later one leaves the stack, unpaid, when it comes back to the top.
 */
static void advance(struct osc_calltree *c, const struct osc_trace *t, struct stack *s,
		    int64_t *now, int64_t to)
{
	while (s->depth) {
		uint32_t top = s->node[s->depth - 1];
		int64_t end = osc_event_end(&t->events[c->nodes[top].event]);

		if (end <= *now) {
			s->depth--;
			continue;
		}
		if (end > to) {
			c->nodes[top].self += to - *now;
			break;
		}
		c->nodes[top].self += end - *now;
		*now = end;
		s->depth--;
	}
	*now = to;
}

/*
 * Self time: each instant of a thread goes to its innermost active node, the
 * last in model order of the nodes whose window holds it. One sweep per
 * thread in ts order with a stack of the open nodes, latest start on top.
 * The self times of a thread add up to the union of its nodes' windows,
 * partial overlaps included; with proper nesting, self = dur - union of the
 * children's windows.
 */
static void self_times(struct osc_calltree *c, const struct osc_trace *t)
{
	struct stack s = { 0 };

	for (size_t th = 0; th < c->nr_threads; th++) {
		int64_t now = INT64_MIN;

		s.depth = 0;
		for (size_t k = c->thread_first[th]; k < c->thread_first[th + 1]; k++) {
			uint32_t n = c->by_thread[k];

			advance(c, t, &s, &now, t->events[c->nodes[n].event].ts);
			OSC_GROW(s.node, s.depth + 1, s.alloc);
			s.node[s.depth++] = n;
		}
		advance(c, t, &s, &now, INT64_MAX);
	}
	free(s.node);
}

/* Group the nodes by thread (a stable counting sort keeps ts order). */
static void index_threads(struct osc_calltree *c, const struct osc_trace *t)
{
	size_t *cursor = osc_xcalloc(t->nr_threads + 1, sizeof(*cursor));

	c->nr_threads = t->nr_threads;
	c->thread_first = osc_xcalloc(t->nr_threads + 1, sizeof(*c->thread_first));
	c->by_thread = osc_xmalloc((c->nr ? c->nr : 1) * sizeof(*c->by_thread));
	for (size_t n = 0; n < c->nr; n++)
		c->thread_first[t->events[c->nodes[n].event].thread + 1]++;
	for (size_t th = 0; th < t->nr_threads; th++) {
		c->thread_first[th + 1] += c->thread_first[th];
		cursor[th] = c->thread_first[th];
	}
	for (size_t n = 0; n < c->nr; n++)
		c->by_thread[cursor[t->events[c->nodes[n].event].thread]++] = (uint32_t)n;
	free(cursor);
}

void osc_calltree_build(const struct osc_trace *t, const struct osc_catsel *host,
			struct osc_calltree *out)
{
	struct stack *stacks = osc_xcalloc(t->nr_threads ? t->nr_threads : 1, sizeof(*stacks));
	uint32_t *last_root = osc_xmalloc((t->nr_threads ? t->nr_threads : 1) * sizeof(*last_root));
	uint32_t *last_child;
	size_t alloc = 0;

	memset(out, 0, sizeof(*out));
	out->node_of = osc_xmalloc((t->nr_events ? t->nr_events : 1) * sizeof(*out->node_of));
	for (size_t i = 0; i < t->nr_events; i++) {
		out->node_of[i] = OSC_NONE;
		if (!osc_catsel_has_event(host, t, (uint32_t)i))
			continue;
		OSC_GROW(out->nodes, out->nr + 1, alloc);
		out->nodes[out->nr] = (struct osc_tree_node){
			.event = (uint32_t)i,
			.name = t->events[i].name,
			.dur = t->events[i].dur,
			.parent = OSC_NONE,
			.first_child = OSC_NONE,
			.next_sibling = OSC_NONE,
		};
		out->node_of[i] = (uint32_t)out->nr++;
	}
	last_child = osc_xmalloc((out->nr ? out->nr : 1) * sizeof(*last_child));
	for (size_t n = 0; n < out->nr; n++)
		last_child[n] = OSC_NONE;
	for (size_t th = 0; th < t->nr_threads; th++)
		last_root[th] = OSC_NONE;
	for (size_t n = 0; n < out->nr; n++)
		place(out, t, &stacks[t->events[out->nodes[n].event].thread], last_child,
		      last_root, (uint32_t)n);
	for (size_t th = 0; th < t->nr_threads; th++)
		free(stacks[th].node);
	free(stacks);
	free(last_root);
	free(last_child);
	index_threads(out, t);
	self_times(out, t);
}

void osc_calltree_release(struct osc_calltree *c)
{
	free(c->nodes);
	free(c->node_of);
	free(c->by_thread);
	free(c->thread_first);
	memset(c, 0, sizeof(*c));
}

uint32_t osc_calltree_find(const struct osc_calltree *c, const struct osc_trace *t,
			   uint32_t thread, int64_t ts)
{
	size_t lo, hi;
	uint32_t n;

	if (thread >= c->nr_threads)
		return OSC_NONE;
	lo = c->thread_first[thread];
	hi = c->thread_first[thread + 1];
	/* last node of the thread starting at or before ts */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->events[c->nodes[c->by_thread[mid]].event].ts <= ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == c->thread_first[thread])
		return OSC_NONE;
	/* it, or the nearest ancestor still open at ts */
	for (n = c->by_thread[lo - 1]; n != OSC_NONE; n = c->nodes[n].parent)
		if (osc_event_end(&t->events[c->nodes[n].event]) > ts)
			return n;
	return OSC_NONE;
}
