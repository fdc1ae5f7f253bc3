/* group_by.c - items grouped by a dense key (group_by.h). */
#include "opscope/base/alloc.h"
#include "base/group_by.h"

uint32_t *osc_group_cursors(const uint32_t *key, size_t n, size_t nr_keys)
{
	uint32_t *at = osc_xcalloc(nr_keys + 2, sizeof(*at));

	for (size_t i = 0; i < n; i++)
		if (key[i] != UINT32_MAX)
			at[key[i] + 2]++;
	for (size_t k = 0; k < nr_keys; k++)
		at[k + 2] += at[k + 1];
	return at;
}

void osc_group_by_key(const uint32_t *key, size_t n, size_t nr_keys, uint32_t **idx,
		      uint32_t **first)
{
	uint32_t *at = osc_group_cursors(key, n, nr_keys);

	*idx = osc_xmalloc_big(at[nr_keys + 1] ? at[nr_keys + 1] : 1, sizeof(**idx));
	for (size_t i = 0; i < n; i++) /* at[k + 1]: where key k's next item goes */
		if (key[i] != UINT32_MAX)
			(*idx)[at[key[i] + 1]++] = (uint32_t)i;
	*first = at; /* at[k] is now key k's start: the end of the key before it */
}
