/* run_merge.c - a stable k-way merge of sorted runs of events (run_merge.h). */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "opscope/base/alloc.h"
#include "model/run_merge.h"

/* Heap order of run heads: the earlier event first, the earlier run on ties. */
static bool head_before(const struct osc_run_merge *m, uint32_t a, uint32_t b)
{
	const struct osc_event *x = &m->base[a][m->at[a]], *y = &m->base[b][m->at[b]];

	if (osc_event_before(x, y))
		return true;
	return !osc_event_before(y, x) && a < b;
}

static void sift_down(struct osc_run_merge *m, size_t i)
{
	for (;;) {
		size_t s = i, l = 2 * i + 1, r = l + 1;
		uint32_t x;

		if (l < m->nh && head_before(m, m->heap[l], m->heap[s]))
			s = l;
		if (r < m->nh && head_before(m, m->heap[r], m->heap[s]))
			s = r;
		if (s == i)
			return;
		x = m->heap[i];
		m->heap[i] = m->heap[s];
		m->heap[s] = x;
		i = s;
	}
}

void osc_run_merge_init(struct osc_run_merge *m, size_t nr, const struct osc_event *const *base,
			const size_t *from, const size_t *to)
{
	m->base = base;
	m->at = osc_xmalloc((nr ? nr : 1) * sizeof(*m->at));
	m->end = osc_xmalloc((nr ? nr : 1) * sizeof(*m->end));
	m->heap = osc_xmalloc((nr ? nr : 1) * sizeof(*m->heap));
	m->nh = 0;
	for (size_t r = 0; r < nr; r++) {
		m->at[r] = from[r];
		m->end[r] = to[r];
		if (from[r] < to[r])
			m->heap[m->nh++] = (uint32_t)r;
	}
	for (size_t i = m->nh / 2; i-- > 0;)
		sift_down(m, i);
}

uint32_t osc_run_merge_next(struct osc_run_merge *m)
{
	uint32_t r;

	if (!m->nh)
		return UINT32_MAX;
	r = m->heap[0];
	if (++m->at[r] == m->end[r])
		m->heap[0] = m->heap[--m->nh];
	sift_down(m, 0);
	return r;
}

void osc_run_merge_release(struct osc_run_merge *m)
{
	free(m->at);
	free(m->end);
	free(m->heap);
	memset(m, 0, sizeof(*m));
}
