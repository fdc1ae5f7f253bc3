/* id_index.c - ids to their first value, paged or sorted (id_index.h). */
#include "base/id_index.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "opscope/base/alloc.h"
#include "base/radix.h"

#define PAGE_BITS 12
#define PAGE_IDS ((size_t)1 << PAGE_BITS)
/* Pages are used while they take no more than this many bytes per id
   added (CUPTI's correlation ids of the calls a trace keeps fill about a
   fifth of their span: 20 bytes per id), and a little for small traces. */
#define PAGED_BYTES_PER_ID 64
#define PAGED_SLACK ((size_t)1 << 20)

void osc_id_index_reserve(struct osc_id_index *x, size_t n)
{
	if (n > x->alloc) {
		x->pairs = osc_xreallocarray(x->pairs, n, sizeof(*x->pairs));
		x->alloc = n;
	}
}

void osc_id_index_add(struct osc_id_index *x, uint32_t id, uint32_t val)
{
	OSC_GROW(x->pairs, x->nr + 1, x->alloc);
	x->pairs[x->nr++] = (uint64_t)id << 32 | val;
}

static uint32_t id_of(uint64_t pair)
{
	return (uint32_t)(pair >> 32);
}

/* Sort the pairs: by id, and among equal ids by value (the first first). */
static void sort_pairs(struct osc_id_index *x)
{
	uint32_t *idx = osc_xcalloc(x->nr, sizeof(*idx));

	osc_radix_sort_pairs(x->pairs, idx, x->nr);
	free(idx);
}

/* Mark the pages some id falls in; false when they would take too much. */
static bool plan_pages(struct osc_id_index *x)
{
	size_t used = 0, budget = PAGED_BYTES_PER_ID * x->nr + PAGED_SLACK;

	/* the page table itself: a pointer per page of the span */
	if (x->nr_pages * sizeof(*x->pages) > budget)
		return false;
	x->pages = osc_xcalloc(x->nr_pages, sizeof(*x->pages));
	for (size_t i = 0; i < x->nr; i++) {
		size_t p = (size_t)(id_of(x->pairs[i]) - x->lo) >> PAGE_BITS;

		if (!x->pages[p]) {
			x->pages[p] = (uint32_t *)x->pages; /* marked: allocated below */
			used++;
		}
	}
	if (x->nr_pages * sizeof(*x->pages) + used * PAGE_IDS * sizeof(uint32_t) <= budget)
		return true;
	free(x->pages);
	x->pages = NULL;
	return false;
}

void osc_id_index_finish(struct osc_id_index *x)
{
	uint32_t lo = UINT32_MAX, hi = 0;

	if (!x->nr)
		return;
	for (size_t i = 0; i < x->nr; i++) {
		lo = id_of(x->pairs[i]) < lo ? id_of(x->pairs[i]) : lo;
		hi = id_of(x->pairs[i]) > hi ? id_of(x->pairs[i]) : hi;
	}
	x->lo = lo;
	x->nr_pages = ((size_t)(hi - lo) >> PAGE_BITS) + 1;
	if (!plan_pages(x)) {
		x->nr_pages = 0;
		sort_pairs(x);
		return;
	}
	for (size_t p = 0; p < x->nr_pages; p++) {
		if (!x->pages[p])
			continue;
		x->pages[p] = osc_xmalloc(PAGE_IDS * sizeof(**x->pages));
		memset(x->pages[p], 0xff, PAGE_IDS * sizeof(**x->pages));
	}
	/* backwards, so the first value added with an id is the one left */
	for (size_t i = x->nr; i-- > 0;) {
		size_t at = id_of(x->pairs[i]) - lo;

		x->pages[at >> PAGE_BITS][at & (PAGE_IDS - 1)] = (uint32_t)x->pairs[i];
	}
	free(x->pairs);
	x->pairs = NULL;
	x->nr = x->alloc = 0;
}

uint32_t osc_id_index_get(const struct osc_id_index *x, uint32_t id)
{
	size_t lo = 0, hi = x->nr;

	if (x->pages) {
		/* an id below lo wraps past the last page */
		size_t at = (uint32_t)(id - x->lo), p = at >> PAGE_BITS;

		return p < x->nr_pages && x->pages[p] ? x->pages[p][at & (PAGE_IDS - 1)]
						      : UINT32_MAX;
	}
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (id_of(x->pairs[mid]) < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < x->nr && id_of(x->pairs[lo]) == id ? (uint32_t)x->pairs[lo] : UINT32_MAX;
}

void osc_id_index_release(struct osc_id_index *x)
{
	for (size_t p = 0; x->pages && p < x->nr_pages; p++)
		free(x->pages[p]);
	free(x->pages);
	free(x->pairs);
	memset(x, 0, sizeof(*x));
}
