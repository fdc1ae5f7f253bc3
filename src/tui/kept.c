/* kept.c - results a view has left, kept within a budget (kept.h). */
#include <stdlib.h>
#include <string.h>

#include "opscope/base/alloc.h"
#include "kept.h"

/* Free entry i and move the last one into its place. */
static void drop(struct osc_kept *k, size_t i)
{
	k->release(k->v[i].result);
	free(k->v[i].result);
	k->v[i] = k->v[--k->nr];
}

/* Keep result under key in place of the one there, then fit the budget, the oldest first. */
static void put(struct osc_kept *k, unsigned key, unsigned gen, void *result, size_t bytes)
{
	size_t total = bytes;

	for (size_t i = k->nr; i-- > 0;)
		if (k->v[i].key == key)
			drop(k, i);
	OSC_GROW(k->v, k->nr + 1, k->alloc);
	k->v[k->nr++] = (struct osc_kept_entry){ result, bytes, key, gen, ++k->puts };
	for (size_t i = 0; i + 1 < k->nr; i++)
		total += k->v[i].bytes;
	while (total > OSC_KEPT_BYTES) { /* the newest last of all */
		size_t oldest = 0;

		for (size_t i = 1; i < k->nr; i++)
			if (k->v[i].left < k->v[oldest].left)
				oldest = i;
		total -= k->v[oldest].bytes;
		drop(k, oldest);
	}
}

void osc_kept_retire(struct osc_kept *k, bool keep, unsigned key, unsigned gen, void *shown,
		     size_t size, size_t bytes)
{
	for (size_t i = k->nr; i-- > 0;) /* the runs or the filter changed since */
		if (k->v[i].gen != gen)
			drop(k, i);
	if (keep)
		put(k, key, gen, memcpy(osc_xmalloc(size), shown, size), bytes);
	else
		k->release(shown);
	memset(shown, 0, size);
}

bool osc_kept_take(struct osc_kept *k, unsigned key, unsigned gen, void *out, size_t size)
{
	for (size_t i = 0; i < k->nr; i++) {
		if (k->v[i].key != key)
			continue;
		if (k->v[i].gen != gen) {
			drop(k, i);
			return false;
		}
		memcpy(out, k->v[i].result, size);
		free(k->v[i].result);
		k->v[i] = k->v[--k->nr];
		return true;
	}
	return false;
}

void osc_kept_release(struct osc_kept *k)
{
	while (k->nr)
		drop(k, k->nr - 1);
	free(k->v);
	k->v = NULL;
	k->alloc = 0;
}
