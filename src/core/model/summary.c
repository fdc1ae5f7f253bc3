/*
 * summary.c - a rank's summary as data: setting up, adding, ordering.
 */
#include "opscope/model/summary.h"

#include <stdlib.h>
#include <string.h>

#include "opscope/base/alloc.h"
#include "opscope/base/sat.h"
#include "base/radix.h"

void osc_summary_init(struct osc_summary *s)
{
	memset(s, 0, sizeof(*s));
	osc_strtab_init(&s->strs);
	s->rank = (struct osc_rank){ .source = OSC_RANK_NONE, .rank = -1, .world_size = -1 };
	s->run_source = OSC_STR_EMPTY;
}

void osc_summary_release(struct osc_summary *s)
{
	free(s->path);
	free(s->trace);
	free(s->runs);
	free(s->rows);
	free(s->calls);
	osc_strtab_release(&s->strs);
	memset(s, 0, sizeof(*s)); /* owning nothing: a second release is harmless */
}

uint32_t osc_summary_add_run(struct osc_summary *s, const struct osc_sum_run *r)
{
	OSC_GROW(s->runs, s->nr_runs + 1, s->alloc_runs);
	s->runs[s->nr_runs] = *r;
	return (uint32_t)s->nr_runs++;
}

size_t osc_summary_add_row(struct osc_summary *s, const struct osc_sum_row *r)
{
	OSC_GROW(s->rows, s->nr_rows + 1, s->alloc_rows);
	s->rows[s->nr_rows] = *r;
	return s->nr_rows++;
}

void osc_sum_row_add(struct osc_sum_row *to, const struct osc_sum_row *from)
{
	to->count += from->count; /* events of one trace: far from 2^64 */
	to->kernels += from->kernels;
	to->total = osc_sat_add(to->total, from->total);
	to->self = osc_sat_add(to->self, from->self);
	to->dev = osc_sat_add(to->dev, from->dev);
	to->dev_total = osc_sat_add(to->dev_total, from->dev_total);
	to->min = from->min < to->min ? from->min : to->min;
	to->max = from->max > to->max ? from->max : to->max;
}

size_t osc_summary_add_call(struct osc_summary *s, const struct osc_sum_call *c)
{
	OSC_GROW(s->calls, s->nr_calls + 1, s->alloc_calls);
	s->calls[s->nr_calls] = *c;
	return s->nr_calls++;
}

/*
 * Order the rows by (level, run, key text): the distinct keys are sorted by
 * text once, then the rows by their key's place and, stably, by (level,
 * run): two radix sorts instead of a string comparison per step over rows
 * that repeat a key in every run.
 */
static void sort_rows(struct osc_summary *s)
{
	size_t n = s->nr_rows, nr_keys = 0;
	uint32_t *place = osc_xmalloc(s->strs.count * sizeof(*place));
	osc_str *keys = osc_xmalloc(s->strs.count * sizeof(*keys));
	uint64_t *k = osc_xmalloc(2 * n * sizeof(*k));
	uint32_t *idx = osc_xmalloc(2 * n * sizeof(*idx));
	struct osc_sum_row *sorted;

	memset(place, 0xff, s->strs.count * sizeof(*place));
	for (size_t i = 0; i < n; i++)
		if (place[s->rows[i].key] == UINT32_MAX) {
			place[s->rows[i].key] = 0;
			keys[nr_keys++] = s->rows[i].key;
		}
	osc_strtab_sort(&s->strs, keys, nr_keys);
	for (size_t i = 0; i < nr_keys; i++)
		place[keys[i]] = (uint32_t)i;
	for (size_t i = 0; i < n; i++) {
		k[i] = place[s->rows[i].key];
		idx[i] = (uint32_t)i;
	}
	osc_radix_sort(k, idx, k + n, idx + n, n);
	for (size_t i = 0; i < n; i++)
		k[i] = (uint64_t)s->rows[idx[i]].level << 32 | s->rows[idx[i]].run;
	osc_radix_sort(k, idx, k + n, idx + n, n);
	sorted = osc_xmalloc(n * sizeof(*sorted));
	for (size_t i = 0; i < n; i++)
		sorted[i] = s->rows[idx[i]];
	free(s->rows);
	s->rows = sorted;
	s->alloc_rows = n;
	free(place);
	free(keys);
	free(k);
	free(idx);
}

/* Calls by host_ts; ties by their index (qsort is not stable): seq within a group. */
static int call_order(const void *pa, const void *pb)
{
	const struct osc_sum_call *a = pa, *b = pb;

	if (a->host_ts != b->host_ts)
		return a->host_ts < b->host_ts ? -1 : 1;
	if (a->group != b->group)
		return a->group < b->group ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

void osc_summary_sort(struct osc_summary *s)
{
	if (s->nr_rows > 1)
		sort_rows(s);
	if (s->nr_calls > 1)
		qsort(s->calls, s->nr_calls, sizeof(*s->calls), call_order);
}

size_t osc_summary_rows_of(const struct osc_summary *s, unsigned level, uint32_t run,
			   size_t *first)
{
	size_t lo = 0, hi = s->nr_rows, end;

	while (lo < hi) { /* the first row at or after (level, run) */
		size_t mid = lo + (hi - lo) / 2;
		const struct osc_sum_row *r = &s->rows[mid];

		if (r->level < level || (r->level == level && r->run < run))
			lo = mid + 1;
		else
			hi = mid;
	}
	end = lo;
	while (end < s->nr_rows && s->rows[end].level == level && s->rows[end].run == run)
		end++;
	*first = lo;
	return end - lo;
}

struct osc_run_span *osc_summary_spans(const struct osc_summary *s, const uint8_t *on, size_t *n)
{
	struct osc_run_span *span = osc_xcalloc(s->nr_runs ? s->nr_runs : 1, sizeof(*span));
	size_t k = 0;

	for (uint32_t run = 0; run < s->nr_runs; run++)
		if (!on || on[run])
			span[k++] = (struct osc_run_span){
				.from = s->runs[run].ts,
				.to = osc_sat_add(s->runs[run].ts, s->runs[run].wall),
				.cover = run, .nr = 1 };
	*n = osc_run_spans_merge(span, k);
	return span;
}
