/*
 * tree_index.h - the instance tree read from the side: its nodes by name,
 * and the device and launch links of each node, so that the merged subtree
 * of one op (osc_mtree_build_subtree) reads that op's instances and their
 * links only, not the whole tree.
 */
#ifndef OPSCOPE_TREE_INDEX_H
#define OPSCOPE_TREE_INDEX_H

#include <stddef.h>
#include <stdint.h>

#include "opscope/model/trace.h"

struct osc_calltree;
struct osc_correlation;

struct osc_tree_index {
	uint32_t *by_name;      /* node indices grouped by name, ascending in a group */
	uint32_t *name_first;   /* per string id: start in by_name (nr_names + 1 entries) */
	size_t nr_names;
	uint32_t *devs;         /* device-link indices grouped by node, ascending in a group */
	uint32_t *dev_first;    /* per node: start in devs (tree's nr + 1 entries) */
	uint32_t *launches;     /* launch-link indices grouped by node, likewise */
	uint32_t *launch_first;
};

/* Index tree c of trace t and its correlation corr. */
void osc_tree_index_build(const struct osc_trace *t, const struct osc_calltree *c,
			  const struct osc_correlation *corr, struct osc_tree_index *out);
void osc_tree_index_release(struct osc_tree_index *x);

#endif
