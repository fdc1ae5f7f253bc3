/*
 * run_spans.c - the stretches of time selected runs cover (runs.h): nested
 * or overlapping windows merged, so that a selection's times add up.
 */
#include <stdlib.h>

#include "opscope/base/alloc.h"
#include "opscope/base/sat.h"
#include "opscope/model/runs.h"

static int by_from(const void *pa, const void *pb)
{
	const struct osc_run_span *a = pa, *b = pb;

	return a->from < b->from ? -1 : a->from > b->from;
}

size_t osc_run_spans_merge(struct osc_run_span *s, size_t n)
{
	size_t out = 0;

	qsort(s, n, sizeof(*s), by_from); /* runs come sorted; a summary file's may not */
	for (size_t i = 0; i < n; i++) {
		struct osc_run_span *span = out ? &s[out - 1] : NULL;

		if (!span || s[i].from >= span->to) {
			s[out++] = s[i];
			continue;
		}
		span->nr += s[i].nr;
		if (s[i].to > span->to) {
			span->to = s[i].to;
			span->cover = s[i].from == span->from ? s[i].cover : OSC_NONE;
		} else if (s[i].to == span->to && span->cover == OSC_NONE &&
			   s[i].from == span->from) {
			span->cover = s[i].cover;
		}
	}
	return out;
}

struct osc_run_span *osc_runsel_spans(const struct osc_runs *r, const struct osc_runsel *sel,
				      size_t *n)
{
	struct osc_run_span *s = osc_xcalloc(r->nr ? r->nr : 1, sizeof(*s));
	size_t k = 0;

	for (size_t i = 0; i < r->nr; i++)
		if (!sel || (i < sel->nr_runs && sel->on[i]))
			s[k++] = (struct osc_run_span){ .from = r->runs[i].ts,
							.to = osc_sat_add(r->runs[i].ts,
									  r->runs[i].dur),
							.cover = (uint32_t)i, .nr = 1 };
	*n = osc_run_spans_merge(s, k);
	return s;
}

/* to - from, saturated: bad input may carry huge times. */
static int64_t span_len(const struct osc_run_span *s)
{
	int64_t len;

	return __builtin_sub_overflow(s->to, s->from, &len) ? INT64_MAX : len;
}

int64_t osc_run_spans_wall(const struct osc_run_span *s, size_t n)
{
	int64_t wall = 0;

	for (size_t i = 0; i < n; i++)
		wall = osc_sat_add(wall, span_len(&s[i]));
	return wall;
}

int64_t osc_runsel_wall(const struct osc_runs *r, const struct osc_runsel *sel)
{
	size_t n;
	struct osc_run_span *s = osc_runsel_spans(r, sel, &n);
	int64_t wall = osc_run_spans_wall(s, n);

	free(s);
	return wall;
}
