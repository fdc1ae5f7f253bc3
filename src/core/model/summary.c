/*
 * summary.c - a rank's summary as data: setting up, adding, ordering.
 */
#include "opscope/model/summary.h"

#include <stdlib.h>
#include <string.h>

#include "opscope/base/alloc.h"

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
	memset(s, 0, sizeof(*s)); /* not osc_summary_init: its string table allocates */
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

size_t osc_summary_add_call(struct osc_summary *s, const struct osc_sum_call *c)
{
	OSC_GROW(s->calls, s->nr_calls + 1, s->alloc_calls);
	s->calls[s->nr_calls] = *c;
	return s->nr_calls++;
}

/* qsort has no context argument: the summary being sorted (one sort at a time per thread). */
static _Thread_local const struct osc_summary *sorting;

static int row_order(const void *pa, const void *pb)
{
	const struct osc_sum_row *a = pa, *b = pb;

	if (a->level != b->level)
		return a->level < b->level ? -1 : 1;
	if (a->run != b->run)
		return a->run < b->run ? -1 : 1;
	return strcmp(osc_summary_str(sorting, a->key), osc_summary_str(sorting, b->key));
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
	sorting = s;
	if (s->nr_rows > 1)
		qsort(s->rows, s->nr_rows, sizeof(*s->rows), row_order);
	if (s->nr_calls > 1)
		qsort(s->calls, s->nr_calls, sizeof(*s->calls), call_order);
	sorting = NULL;
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
