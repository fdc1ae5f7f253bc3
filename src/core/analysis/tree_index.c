/* tree_index.c - the instance tree's nodes by name and links by node (tree_index.h). */
#include <stdlib.h>
#include <string.h>

#include "opscope/analysis/calltree.h"
#include "opscope/analysis/correlate.h"
#include "opscope/analysis/tree_index.h"
#include "opscope/base/alloc.h"

/*
 * Group the items 0 .. n) by key[i] (OSC_NONE: left out) among nr_keys keys,
 * by a counting sort: *idx the items, ascending within a key, and *first
 * per key its start in *idx (nr_keys + 1 entries).
 */
static void group_by_key(const uint32_t *key, size_t n, size_t nr_keys, uint32_t **idx,
			 uint32_t **first)
{
	uint32_t *at = osc_xcalloc(nr_keys + 2, sizeof(*at));

	for (size_t i = 0; i < n; i++)
		if (key[i] != OSC_NONE)
			at[key[i] + 2]++;
	for (size_t k = 0; k < nr_keys; k++)
		at[k + 2] += at[k + 1];
	*idx = osc_xmalloc_big(at[nr_keys + 1] ? at[nr_keys + 1] : 1, sizeof(**idx));
	for (size_t i = 0; i < n; i++) /* at[k + 1]: where key k's next item goes */
		if (key[i] != OSC_NONE)
			(*idx)[at[key[i] + 1]++] = (uint32_t)i;
	*first = at; /* at[k] is now key k's start: the end of the key before it */
}

void osc_tree_index_build(const struct osc_trace *t, const struct osc_calltree *c,
			  const struct osc_correlation *corr, struct osc_tree_index *out)
{
	size_t most = c->nr > corr->nr_devs ? c->nr : corr->nr_devs;
	uint32_t *key = osc_xmalloc_big((most > corr->nr_launches ? most : corr->nr_launches) + 1,
					sizeof(*key));

	memset(out, 0, sizeof(*out));
	out->nr_names = t->strs.count;
	for (size_t n = 0; n < c->nr; n++)
		key[n] = c->nodes[n].name;
	group_by_key(key, c->nr, out->nr_names, &out->by_name, &out->name_first);
	for (size_t i = 0; i < corr->nr_devs; i++)
		key[i] = corr->devs[i].node;
	group_by_key(key, corr->nr_devs, c->nr, &out->devs, &out->dev_first);
	for (size_t i = 0; i < corr->nr_launches; i++)
		key[i] = corr->launches[i].node;
	group_by_key(key, corr->nr_launches, c->nr, &out->launches, &out->launch_first);
	free(key);
}

void osc_tree_index_release(struct osc_tree_index *x)
{
	free(x->by_name);
	free(x->name_first);
	free(x->devs);
	free(x->dev_first);
	free(x->launches);
	free(x->launch_first);
	memset(x, 0, sizeof(*x));
}
