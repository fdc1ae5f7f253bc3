/*
 * module.h - the nn.Module hierarchy of a PyTorch trace (TensorBoard's
 * module view), from the python_function events named "nn.Module: X" that
 * Kineto records with with_stack / with_modules.
 *
 * Definitions (tests/tools/recompute_module.py recomputes them):
 * - a module instance is a complete event of kind PYTHON whose name starts
 *   with "nn.Module: "; its name is the rest ("BertLayer_1", Kineto's class
 *   name and per-class instance number);
 * - per thread, instances nest by time containment in model order (ts
 *   ascending, dur descending): an instance's parent is the innermost open
 *   instance of its thread whose window [ts, ts+dur) holds its start and
 *   does not end before it; one that overlaps an open instance partially is
 *   not nested there (nr_overlaps), as in calltree.h;
 * - an instance's path is its ancestors' names and its own, '/'-joined from
 *   the outermost ("BertModel_0/BertEncoder_0/BertLayer_1"); instances of
 *   the same path (across repetitions, runs and threads) merge into one
 *   node. A path names its ancestors, so no instance lies inside another of
 *   the same path: summing their durations counts no time twice;
 * - self (exclusive) time of an instance: the time of its window not
 *   covered by its child instances (the union of their windows clipped to
 *   it): op and Python time directly in the module. Per thread the selves
 *   add up to the union of the module windows;
 * - the module of an event: the innermost instance of the event's thread
 *   open when the event starts (before it in model order, its window
 *   holding the event's start; a module event: itself); a device event's
 *   module is that of its launching op (osc_trace_launchers).
 */
#ifndef OPSCOPE_MODULE_H
#define OPSCOPE_MODULE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "opscope/base/strtab.h"
#include "opscope/model/filter.h"
#include "opscope/model/trace.h"

/* The prefix Kineto gives module events. */
#define OSC_MODULE_PREFIX "nn.Module: "

struct osc_module_node {
	osc_str name;          /* in names: the module name without the prefix */
	osc_str path;          /* in names: '/'-joined from the outermost module */
	uint32_t parent;       /* node index, OSC_NONE for a root */
	uint32_t first_child;  /* OSC_NONE if none; in order of first appearance */
	uint32_t next_sibling; /* OSC_NONE if none; roots are siblings too */
	uint32_t depth;        /* 0 for a root */
};

struct osc_modules {
	struct osc_module_node *nodes; /* merged by path; parents before children */
	size_t nr;
	uint32_t first_root;   /* OSC_NONE when there is no module */
	uint32_t *rank;        /* per node: its place in a preorder walk (parents before
				  children, children in order of first appearance) */
	uint32_t *inst;        /* instances: their events, in model order */
	uint32_t *inst_node;   /* per instance: its node */
	uint32_t *inst_parent; /* per instance: the enclosing instance, or OSC_NONE */
	int64_t *inst_self;    /* per instance: self time, ns */
	size_t nr_inst;
	uint32_t *of;          /* per event: its module instance (see top) or
				  OSC_NONE; NULL when there is no instance */
	uint64_t nr_overlaps;  /* instances that overlapped an open one partially */
	struct osc_strtab names; /* node names and paths */
};

/* True when event ev of t is a module instance (see top). */
bool osc_is_module_event(const struct osc_trace *t, uint32_t ev);

/* Build the module hierarchy of t into out (empty when t has no module events). */
void osc_modules_build(const struct osc_trace *t, struct osc_modules *out);
void osc_modules_release(struct osc_modules *m);

/* The node of event ev's module (see top), or OSC_NONE. */
static inline uint32_t osc_module_node_of(const struct osc_modules *m, uint32_t ev)
{
	uint32_t i = m->of ? m->of[ev] : OSC_NONE;

	return i == OSC_NONE ? OSC_NONE : m->inst_node[i];
}

/* ---- showing the hierarchy as a tree (tree --modules, the explorer) ---- */

/*
 * The node after n in the preorder walk of the hierarchy (parents before
 * children, children and roots in order of first appearance): n's first
 * child when down, else the next sibling of n or of its nearest ancestor
 * that has one; OSC_NONE at the end. The walk starts at m->first_root.
 */
uint32_t osc_modules_next(const struct osc_modules *m, uint32_t n, bool down);

/*
 * Nodes to show into keep (m->nr entries): those with has[n] set (has NULL:
 * every node), at a depth in [min_depth, max_depth] (max_depth < 0: no
 * bound), on a path through a module whose event name ("nn.Module: X")
 * passes f (its ancestors, itself and its descendants; f NULL or empty
 * passes every node). Uses osc_filter_match: not reentrant with f.
 */
void osc_modules_keep(const struct osc_modules *m, const struct osc_filter *f, const uint8_t *has,
		      int min_depth, int max_depth, uint8_t *keep);

/* last[n] = 1 when no kept sibling follows node n (keep NULL: all kept). */
void osc_modules_last(const struct osc_modules *m, const uint8_t *keep, uint8_t *last);

/*
 * The tree guide drawn before node n for a tree shown from depth `from` on:
 * one 3-column cell per level below it ("│  ", "├─ ", "└─ " in UTF-8, else
 * "|  ", "|- ", "`- "; "   " under a last sibling). Returns its length in bytes.
 */
size_t osc_modules_guide(const struct osc_modules *m, const uint8_t *last, uint32_t n,
			 uint32_t from, bool utf8, char *buf, size_t size);

/* Name and path of node n. */
static inline const char *osc_module_name(const struct osc_modules *m, uint32_t n)
{
	return osc_strtab_get(&m->names, m->nodes[n].name);
}

static inline const char *osc_module_path(const struct osc_modules *m, uint32_t n)
{
	return osc_strtab_get(&m->names, m->nodes[n].path);
}

#endif
