/*
 * opcost.c - per-instance costs of host ops (opcost.h) and interval unions.
 *
 * Self time comes from the tree. Device time is added at each device
 * event's node, then summed up the tree in reverse node order (children come
 * after their parents in model order), so the build is O(nodes + device
 * events).
 */
#include <string.h>

#include "opscope/analysis/opcost.h"
#include "opscope/base/alloc.h"
#include "base/stats.h"

void osc_op_costs(const struct osc_trace *t, const struct osc_calltree *c,
		  const struct osc_correlation *corr, struct osc_op_cost *out)
{
	for (size_t n = 0; n < c->nr; n++)
		out[n] = (struct osc_op_cost){ .self = c->nodes[n].self };
	for (size_t d = 0; corr && d < corr->nr_devs; d++) {
		const struct osc_dev_link *l = &corr->devs[d];

		if (l->node == OSC_NONE)
			continue;
		out[l->node].dev = osc_sat_add(out[l->node].dev, t->events[l->event].dur);
		out[l->node].kernels++;
	}
	for (size_t n = c->nr; n-- > 0;) {
		uint32_t p = c->nodes[n].parent;

		out[n].dev_total = osc_sat_add(out[n].dev_total, out[n].dev);
		if (p != OSC_NONE)
			out[p].dev_total = osc_sat_add(out[p].dev_total, out[n].dev_total);
	}
}

size_t osc_device_spans(const struct osc_trace *t, struct osc_span **out)
{
	struct osc_span *s = NULL;
	size_t nr = 0, alloc = 0;

	/* events are in ts order: a span grows while the next one starts inside it */
	for (size_t i = 0; i < t->nr_events; i++) {
		const struct osc_event *e = &t->events[i];
		int64_t end;

		if (!osc_kind_is_device(e->kind) || e->ph != OSC_PH_COMPLETE)
			continue;
		if (__builtin_add_overflow(e->ts, e->dur, &end))
			end = INT64_MAX;
		if (nr && e->ts <= s[nr - 1].to) {
			if (end > s[nr - 1].to)
				s[nr - 1].to = end;
			continue;
		}
		OSC_GROW(s, nr + 1, alloc);
		s[nr++] = (struct osc_span){ e->ts, end };
	}
	*out = s;
	return nr;
}

int64_t osc_spans_within(const struct osc_span *s, size_t n, int64_t from, int64_t to)
{
	size_t lo = 0, hi = n;
	int64_t sum = 0;

	while (lo < hi) { /* the first span that ends after from */
		size_t mid = lo + (hi - lo) / 2;

		if (s[mid].to <= from)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < n && s[lo].from < to; lo++) {
		int64_t a = s[lo].from > from ? s[lo].from : from;
		int64_t b = s[lo].to < to ? s[lo].to : to;

		if (b > a)
			sum = osc_sat_add(sum, b - a);
	}
	return sum;
}
