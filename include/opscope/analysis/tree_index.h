/*
 * tree_index.h - the instance tree read from the side: the device and
 * launch links of each node, so that the merged subtrees of some calls
 * (osc_mtree_build_subtree) read those calls' nodes and their links only,
 * not the whole tree.
 */
#ifndef OPSCOPE_TREE_INDEX_H
#define OPSCOPE_TREE_INDEX_H

#include <stdint.h>

struct osc_calltree;
struct osc_correlation;

struct osc_tree_index {
	uint32_t *devs;         /* device-link indices grouped by node, ascending in a group */
	uint32_t *dev_first;    /* per node: start in devs (tree's nr + 1 entries) */
	uint32_t *launches;     /* launch-link indices grouped by node, likewise */
	uint32_t *launch_first;
};

/* Index tree c and its correlation corr. */
void osc_tree_index_build(const struct osc_calltree *c, const struct osc_correlation *corr,
			  struct osc_tree_index *out);
void osc_tree_index_release(struct osc_tree_index *x);

#endif
