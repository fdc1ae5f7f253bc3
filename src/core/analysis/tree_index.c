/* tree_index.c - the instance tree's device and launch links by node (tree_index.h). */
#include <stdlib.h>
#include <string.h>

#include "opscope/analysis/calltree.h"
#include "opscope/analysis/correlate.h"
#include "opscope/analysis/tree_index.h"
#include "opscope/base/alloc.h"
#include "base/group_by.h"

void osc_tree_index_build(const struct osc_calltree *c, const struct osc_correlation *corr,
			  struct osc_tree_index *out)
{
	size_t most = corr->nr_devs > corr->nr_launches ? corr->nr_devs : corr->nr_launches;
	uint32_t *key = osc_xmalloc_big(most + 1, sizeof(*key));

	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < corr->nr_devs; i++)
		key[i] = corr->devs[i].node;
	osc_group_by_key(key, corr->nr_devs, c->nr, &out->devs, &out->dev_first);
	for (size_t i = 0; i < corr->nr_launches; i++)
		key[i] = corr->launches[i].node;
	osc_group_by_key(key, corr->nr_launches, c->nr, &out->launches, &out->launch_first);
	free(key);
}

void osc_tree_index_release(struct osc_tree_index *x)
{
	free(x->devs);
	free(x->dev_first);
	free(x->launches);
	free(x->launch_first);
	memset(x, 0, sizeof(*x));
}
