/*
 * module.c - the nn.Module hierarchy (module.h).
 *
 * One pass over the events in model order with a stack of open module
 * instances per thread: module events open instances, every event reads its
 * innermost open instance. Instances merge into nodes by their path, looked
 * up through the path's string id. O(N + total path length).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opscope/analysis/module.h"
#include "opscope/base/alloc.h"

#define PREFIX_LEN (sizeof(OSC_MODULE_PREFIX) - 1)

bool osc_is_module_event(const struct osc_trace *t, uint32_t ev)
{
	const struct osc_event *e = &t->events[ev];

	return e->kind == OSC_KIND_PYTHON && e->ph == OSC_PH_COMPLETE &&
	       osc_strtab_len(&t->strs, e->name) >= PREFIX_LEN &&
	       !memcmp(osc_trace_str(t, e->name), OSC_MODULE_PREFIX, PREFIX_LEN);
}

/* Open instances of one thread, innermost last. */
struct stack {
	uint32_t *inst;
	size_t nr, alloc;
};

struct build {
	const struct osc_trace *t;
	struct osc_modules *m;
	uint32_t *node_of_path; /* per string id of m->names: the node of that path */
	size_t nr_paths;
	size_t alloc_nodes, alloc_inst;
	int64_t *cover;         /* per instance: where its children's union ends so far */
	char *buf;              /* a path being built */
	size_t buf_alloc;
};

/* The node of name[0 .. len) under node parent (OSC_NONE: a root), made if new. */
static uint32_t node_for(struct build *b, uint32_t parent, const char *name, size_t len)
{
	struct osc_modules *m = b->m;
	size_t plen = parent == OSC_NONE ? 0 : osc_strtab_len(&m->names, m->nodes[parent].path);
	size_t need = plen + 1 + len + 1;
	osc_str path;
	struct osc_module_node *n;

	if (need > b->buf_alloc) {
		b->buf_alloc = need * 2;
		b->buf = osc_xrealloc(b->buf, b->buf_alloc);
	}
	if (plen) {
		memcpy(b->buf, osc_strtab_get(&m->names, m->nodes[parent].path), plen);
		b->buf[plen++] = '/';
	}
	memcpy(b->buf + plen, name, len);
	path = osc_strtab_intern(&m->names, b->buf, plen + len);
	if (path >= b->nr_paths) {
		size_t nr = (path + 1) * 2;

		b->node_of_path = osc_xreallocarray(b->node_of_path, nr, sizeof(uint32_t));
		memset(b->node_of_path + b->nr_paths, 0xff, (nr - b->nr_paths) * sizeof(uint32_t));
		b->nr_paths = nr;
	}
	if (b->node_of_path[path] != OSC_NONE)
		return b->node_of_path[path];
	if (m->nr == b->alloc_nodes) {
		b->alloc_nodes = b->alloc_nodes ? b->alloc_nodes * 2 : 64;
		m->nodes = osc_xreallocarray(m->nodes, b->alloc_nodes, sizeof(*m->nodes));
	}
	n = &m->nodes[m->nr];
	n->name = osc_strtab_intern(&m->names, name, len);
	n->path = path;
	n->parent = parent;
	n->first_child = n->next_sibling = OSC_NONE;
	n->depth = parent == OSC_NONE ? 0 : m->nodes[parent].depth + 1;
	/* append to the parent's children (or the roots), keeping first appearance order */
	{
		uint32_t *link = parent == OSC_NONE ? &m->first_root : &m->nodes[parent].first_child;

		while (*link != OSC_NONE)
			link = &m->nodes[*link].next_sibling;
		*link = (uint32_t)m->nr;
	}
	return b->node_of_path[path] = (uint32_t)m->nr++;
}

/* A new instance of event ev under instance parent (OSC_NONE: none). */
static uint32_t add_instance(struct build *b, uint32_t ev, uint32_t parent)
{
	struct osc_modules *m = b->m;
	const struct osc_event *e = &b->t->events[ev];
	const char *name = osc_trace_str(b->t, e->name) + PREFIX_LEN;
	size_t len = osc_strtab_len(&b->t->strs, e->name) - PREFIX_LEN;
	uint32_t i = (uint32_t)m->nr_inst;

	if (m->nr_inst == b->alloc_inst) {
		b->alloc_inst = b->alloc_inst ? b->alloc_inst * 2 : 64;
		m->inst = osc_xreallocarray(m->inst, b->alloc_inst, sizeof(*m->inst));
		m->inst_node = osc_xreallocarray(m->inst_node, b->alloc_inst, sizeof(*m->inst_node));
		m->inst_parent =
			osc_xreallocarray(m->inst_parent, b->alloc_inst, sizeof(*m->inst_parent));
		m->inst_self = osc_xreallocarray(m->inst_self, b->alloc_inst, sizeof(*m->inst_self));
		b->cover = osc_xreallocarray(b->cover, b->alloc_inst, sizeof(*b->cover));
	}
	m->inst[i] = ev;
	m->inst_parent[i] = parent;
	m->inst_node[i] = node_for(b, parent == OSC_NONE ? OSC_NONE : m->inst_node[parent], name,
				   len);
	m->inst_self[i] = e->dur;
	b->cover[i] = e->ts;
	m->nr_inst++;
	if (parent != OSC_NONE) { /* take the part of the parent this child covers */
		const struct osc_event *p = &b->t->events[m->inst[parent]];
		int64_t from = e->ts > b->cover[parent] ? e->ts : b->cover[parent];
		int64_t end = osc_event_end(e), pend = osc_event_end(p);
		int64_t to = end < pend ? end : pend;

		if (to > from) {
			m->inst_self[parent] -= to - from;
			b->cover[parent] = to;
		}
	}
	return i;
}

uint32_t osc_modules_next(const struct osc_modules *m, uint32_t n, bool down)
{
	if (down && m->nodes[n].first_child != OSC_NONE)
		return m->nodes[n].first_child;
	while (n != OSC_NONE && m->nodes[n].next_sibling == OSC_NONE)
		n = m->nodes[n].parent;
	return n == OSC_NONE ? OSC_NONE : m->nodes[n].next_sibling;
}

/* Each node's place in the preorder walk of the hierarchy (m->rank). */
static void preorder(struct osc_modules *m)
{
	uint32_t next = 0;

	m->rank = osc_xmalloc((m->nr ? m->nr : 1) * sizeof(*m->rank));
	for (uint32_t n = m->first_root; n != OSC_NONE; n = osc_modules_next(m, n, true))
		m->rank[n] = next++;
}

void osc_modules_build(const struct osc_trace *t, struct osc_modules *out)
{
	struct build b = { .t = t, .m = out };
	struct stack *stk;
	bool any = false;

	memset(out, 0, sizeof(*out));
	out->first_root = OSC_NONE;
	osc_strtab_init(&out->names);
	for (uint32_t i = 0; i < t->nr_events && !any; i++)
		any = osc_is_module_event(t, i);
	if (!any)
		return;
	out->of = osc_xmalloc(t->nr_events * sizeof(*out->of));
	stk = osc_xcalloc(t->nr_threads ? t->nr_threads : 1, sizeof(*stk));
	for (uint32_t i = 0; i < t->nr_events; i++) {
		const struct osc_event *e = &t->events[i];
		struct stack *s = &stk[e->thread < t->nr_threads ? e->thread : 0];
		uint32_t inst;

		/* close the instances that ended before this event starts */
		while (s->nr && osc_event_end(&t->events[out->inst[s->inst[s->nr - 1]]]) <= e->ts)
			s->nr--;
		if (!osc_is_module_event(t, i)) {
			out->of[i] = s->nr ? s->inst[s->nr - 1] : OSC_NONE;
			continue;
		}
		/* an open instance that ends inside this one does not hold it */
		while (s->nr &&
		       osc_event_end(&t->events[out->inst[s->inst[s->nr - 1]]]) < osc_event_end(e)) {
			s->nr--;
			out->nr_overlaps++;
		}
		inst = add_instance(&b, i, s->nr ? s->inst[s->nr - 1] : OSC_NONE);
		out->of[i] = inst;
		if (e->dur <= 0) /* an empty window holds nothing */
			continue;
		if (s->nr == s->alloc) {
			s->alloc = s->alloc ? s->alloc * 2 : 16;
			s->inst = osc_xreallocarray(s->inst, s->alloc, sizeof(*s->inst));
		}
		s->inst[s->nr++] = inst;
	}
	preorder(out);
	for (size_t th = 0; th < (t->nr_threads ? t->nr_threads : 1); th++)
		free(stk[th].inst);
	free(stk);
	free(b.node_of_path);
	free(b.cover);
	free(b.buf);
}

void osc_modules_keep(const struct osc_modules *m, const struct osc_filter *f, const uint8_t *has,
		      int min_depth, int max_depth, uint8_t *keep)
{
	uint8_t *on = osc_xcalloc(m->nr ? m->nr : 1, 1), *below = osc_xcalloc(m->nr ? m->nr : 1, 1);
	bool all = !f || osc_filter_is_empty(f);
	char *buf = NULL;
	size_t alloc = 0;

	for (size_t n = 0; n < m->nr; n++) { /* parents come before children */
		uint32_t p = m->nodes[n].parent;
		size_t len = osc_strtab_len(&m->names, m->nodes[n].name);

		if (!all && len + sizeof(OSC_MODULE_PREFIX) > alloc) {
			alloc = (len + sizeof(OSC_MODULE_PREFIX)) * 2;
			buf = osc_xrealloc(buf, alloc);
		}
		if (!all) {
			memcpy(buf, OSC_MODULE_PREFIX, PREFIX_LEN);
			memcpy(buf + PREFIX_LEN, osc_module_name(m, (uint32_t)n), len + 1);
		}
		on[n] = all || osc_filter_match(f, buf, PREFIX_LEN + len) ||
			(p != OSC_NONE && on[p]);
		below[n] = on[n];
	}
	for (size_t n = m->nr; n-- > 0;)
		if (below[n] && m->nodes[n].parent != OSC_NONE)
			below[m->nodes[n].parent] = 1;
	for (size_t n = 0; n < m->nr; n++) {
		int depth = (int)m->nodes[n].depth;

		keep[n] = (!has || has[n]) && (on[n] || below[n]) && depth >= min_depth &&
			  (max_depth < 0 || depth <= max_depth);
	}
	free(buf);
	free(on);
	free(below);
}

void osc_modules_last(const struct osc_modules *m, const uint8_t *keep, uint8_t *last)
{
	for (size_t n = 0; n < m->nr; n++) {
		uint32_t s = m->nodes[n].next_sibling;

		while (s != OSC_NONE && keep && !keep[s])
			s = m->nodes[s].next_sibling;
		last[n] = s == OSC_NONE;
	}
}

size_t osc_modules_guide(const struct osc_modules *m, const uint8_t *last, uint32_t n,
			 uint32_t from, bool utf8, char *buf, size_t size)
{
	uint32_t depth = m->nodes[n].depth;
	size_t len = 0;

	if (!size)
		return 0;
	buf[0] = '\0';
	for (uint32_t k = from + 1; k <= depth && len + 8 < size; k++) {
		uint32_t a = n;
		const char *cell;

		while (m->nodes[a].depth > k) /* the ancestor at depth k */
			a = m->nodes[a].parent;
		if (a == n)
			cell = last[a] ? (utf8 ? "\xe2\x94\x94\xe2\x94\x80 " : "`- ")
				       : (utf8 ? "\xe2\x94\x9c\xe2\x94\x80 " : "|- ");
		else
			cell = last[a] ? "   " : (utf8 ? "\xe2\x94\x82  " : "|  ");
		len += (size_t)snprintf(buf + len, size - len, "%s", cell);
	}
	return len;
}

void osc_modules_release(struct osc_modules *m)
{
	free(m->nodes);
	free(m->rank);
	free(m->inst);
	free(m->inst_node);
	free(m->inst_parent);
	free(m->inst_self);
	free(m->of);
	osc_strtab_release(&m->names);
	memset(m, 0, sizeof(*m));
	m->first_root = OSC_NONE;
}
