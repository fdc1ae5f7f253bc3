/* kept.c - results a view has left, kept within a budget (kept.h). */
#include <stdlib.h>

#include "opscope/base/alloc.h"
#include "kept.h"

/* Free entry i and move the last one into its place. */
static void drop(struct osc_kept *k, size_t i)
{
	k->release(k->v[i].result);
	k->v[i] = k->v[--k->nr];
}

void osc_kept_forget(struct osc_kept *k, unsigned gen)
{
	for (size_t i = k->nr; i-- > 0;)
		if (k->v[i].gen != gen)
			drop(k, i);
}

void osc_kept_put(struct osc_kept *k, unsigned key, unsigned gen, void *result, size_t bytes)
{
	size_t total = bytes;

	osc_kept_forget(k, gen);
	for (size_t i = k->nr; i-- > 0;)
		if (k->v[i].key == key)
			drop(k, i);
	OSC_GROW(k->v, k->nr + 1, k->alloc);
	k->v[k->nr++] = (struct osc_kept_entry){ result, bytes, key, gen, ++k->puts };
	for (size_t i = 0; i + 1 < k->nr; i++)
		total += k->v[i].bytes;
	while (total > OSC_KEPT_BYTES) { /* the oldest first; the newest last of all */
		size_t oldest = 0;

		for (size_t i = 1; i < k->nr; i++)
			if (k->v[i].left < k->v[oldest].left)
				oldest = i;
		total -= k->v[oldest].bytes;
		drop(k, oldest);
	}
}

void *osc_kept_take(struct osc_kept *k, unsigned key, unsigned gen)
{
	for (size_t i = 0; i < k->nr; i++) {
		void *result = k->v[i].result;

		if (k->v[i].key != key)
			continue;
		if (k->v[i].gen != gen) {
			drop(k, i);
			return NULL;
		}
		k->v[i] = k->v[--k->nr];
		return result;
	}
	return NULL;
}

void osc_kept_release(struct osc_kept *k)
{
	while (k->nr)
		drop(k, k->nr - 1);
	free(k->v);
	k->v = NULL;
	k->alloc = 0;
}
