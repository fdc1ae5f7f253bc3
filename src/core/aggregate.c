/*
 * aggregate.c - rows of statistics per op or kernel name.
 *
 * Keys are interned string ids, which are dense, so grouping is a counting
 * sort by key id: one pass selects events and counts them per key, a second
 * places them into their row's slice of the members array. Events are
 * visited in model order, so each row's members come out sorted by ts.
 * Statistics come from stats.c. O(N + K) plus linear-time selection per row.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opscope/aggregate.h"
#include "opscope/alloc.h"
#include "stats.h"

static const char *const level_names[] = {
#define OSC_LEVEL_NAME(name, text) text,
	OSC_LEVEL_LIST(OSC_LEVEL_NAME)
#undef OSC_LEVEL_NAME
};

const char *osc_level_name(enum osc_level l)
{
	if ((unsigned)l >= OSC_LEVEL_COUNT)
		return "unknown";
	return level_names[l];
}

enum osc_status osc_level_parse(const char *name, enum osc_level *out, struct osc_error *err)
{
	char valid[128] = "";
	size_t len = 0;

	for (int l = 0; l < OSC_LEVEL_COUNT; l++) {
		if (!strcmp(name, level_names[l])) {
			*out = (enum osc_level)l;
			return OSC_OK;
		}
	}
	for (int l = 0; l < OSC_LEVEL_COUNT && len < sizeof(valid); l++)
		len += (size_t)snprintf(valid + len, sizeof(valid) - len, "%s%s", l ? ", " : "",
					level_names[l]);
	return osc_error_set(err, OSC_USAGE, "--by", OSC_NO_OFFSET, NULL,
			     "unknown level '%s' (valid: %s)", name, valid);
}

static osc_str key_of(const struct osc_event *e, enum osc_level level)
{
	return level == OSC_LEVEL_OP ? e->op : e->name;
}

static uint8_t kind_of(enum osc_level level)
{
	return level == OSC_LEVEL_OP ? OSC_KIND_HOST_OP : OSC_KIND_KERNEL;
}

/*
 * Select the events of q; count[key] receives each key's count. Returns the
 * selected event indices (*nr of them) in model order.
 */
static uint32_t *select_events(const struct osc_trace *t, const struct osc_runs *runs,
			       const struct osc_query *q, uint32_t *count, size_t *nr)
{
	uint32_t *sel = osc_xmalloc((t->nr_events ? t->nr_events : 1) * sizeof(*sel));
	const struct osc_runsel *rs = runs ? q->runs : NULL;
	uint8_t kind = kind_of(q->level);
	struct osc_filter_cache fc;

	*nr = 0;
	osc_filter_cache_init(&fc, q->filter, t);
	for (size_t i = 0; i < t->nr_events; i++) {
		const struct osc_event *e = &t->events[i];

		if (e->kind != kind)
			continue;
		if (rs && !osc_runsel_has_event(rs, runs, (uint32_t)i))
			continue;
		if (!osc_filter_cache_event(&fc, (uint32_t)i))
			continue;
		sel[(*nr)++] = (uint32_t)i;
		count[key_of(e, q->level)]++;
	}
	osc_filter_cache_release(&fc);
	return sel;
}

/* Turn per-key counts into rows and place the selected events into members. */
static void group_rows(const struct osc_trace *t, enum osc_level level, uint32_t *count,
		       const uint32_t *sel, size_t nr_sel, struct osc_agg *out)
{
	size_t nkeys = t->strs.count, pos = 0, alloc = 0;

	for (size_t k = 0; k < nkeys; k++) {
		struct osc_agg_row *row;

		if (!count[k])
			continue;
		OSC_GROW(out->rows, out->nr + 1, alloc);
		row = &out->rows[out->nr++];
		memset(row, 0, sizeof(*row));
		row->key = (osc_str)k;
		row->first = pos;
		row->nr = count[k];
		count[k] = (uint32_t)pos; /* now the write cursor of key k */
		pos += row->nr;
	}
	out->members = osc_xmalloc((nr_sel ? nr_sel : 1) * sizeof(*out->members));
	out->nr_members = nr_sel;
	for (size_t i = 0; i < nr_sel; i++)
		out->members[count[key_of(&t->events[sel[i]], level)]++] = sel[i];
}

static void compute_stats(const struct osc_trace *t, struct osc_agg *out)
{
	size_t biggest = 1;
	int64_t *dur;

	for (size_t r = 0; r < out->nr; r++)
		if (out->rows[r].nr > biggest)
			biggest = out->rows[r].nr;
	dur = osc_xmalloc(biggest * sizeof(*dur));
	for (size_t r = 0; r < out->nr; r++) {
		struct osc_agg_row *row = &out->rows[r];
		struct osc_stats s;

		for (size_t i = 0; i < row->nr; i++)
			dur[i] = t->events[out->members[row->first + i]].dur;
		osc_stats_compute(dur, row->nr, &s);
		row->count = s.count;
		row->total = s.total;
		row->min = s.min;
		row->max = s.max;
		row->mean = s.mean;
		row->p50 = s.p50;
		row->p90 = s.p90;
		row->p99 = s.p99;
		row->stddev = s.stddev;
		out->grand_total = osc_sat_add(out->grand_total, s.total);
	}
	free(dur);
	for (size_t r = 0; r < out->nr; r++)
		out->rows[r].pct = out->grand_total > 0 ? 100.0 * (double)out->rows[r].total /
								  (double)out->grand_total
							: 0;
}

void osc_aggregate(const struct osc_trace *t, const struct osc_runs *runs,
		   const struct osc_query *q, struct osc_agg *out)
{
	uint32_t *count = osc_xcalloc(t->strs.count ? t->strs.count : 1, sizeof(*count));
	size_t nr_sel;
	uint32_t *sel;

	memset(out, 0, sizeof(*out));
	out->level = q->level;
	sel = select_events(t, runs, q, count, &nr_sel);
	group_rows(t, q->level, count, sel, nr_sel, out);
	free(sel);
	free(count);
	compute_stats(t, out);
	osc_agg_sort(out, t, OSC_STAT_TOTAL, true);
}

void osc_agg_release(struct osc_agg *a)
{
	free(a->rows);
	free(a->members);
	memset(a, 0, sizeof(*a));
}

struct sort_ctx {
	const struct osc_trace *t;
	enum osc_stat by;
	bool descending;
};

static int cmp_num(double x, double y)
{
	return (x > y) - (x < y);
}

static int cmp_names(const struct osc_trace *t, osc_str a, osc_str b)
{
	size_t la = osc_strtab_len(&t->strs, a), lb = osc_strtab_len(&t->strs, b);
	int c = memcmp(osc_trace_str(t, a), osc_trace_str(t, b), la < lb ? la : lb);

	return c ? (c > 0) - (c < 0) : (la > lb) - (la < lb);
}

static int cmp_stat(const struct osc_agg_row *x, const struct osc_agg_row *y, enum osc_stat by)
{
	switch (by) {
	case OSC_STAT_COUNT:
		return (x->count > y->count) - (x->count < y->count);
	case OSC_STAT_MEAN:
		return cmp_num(x->mean, y->mean);
	case OSC_STAT_MIN:
		return (x->min > y->min) - (x->min < y->min);
	case OSC_STAT_MAX:
		return (x->max > y->max) - (x->max < y->max);
	case OSC_STAT_P50:
		return cmp_num(x->p50, y->p50);
	case OSC_STAT_P90:
		return cmp_num(x->p90, y->p90);
	case OSC_STAT_P99:
		return cmp_num(x->p99, y->p99);
	case OSC_STAT_STDDEV:
		return cmp_num(x->stddev, y->stddev);
	default: /* TOTAL, PCT and CUM_PCT all order by total */
		return (x->total > y->total) - (x->total < y->total);
	}
}

/* Total order: the statistic (reversed when descending), then name, then key id. */
static int cmp_rows(const struct sort_ctx *c, const struct osc_agg_row *x,
		    const struct osc_agg_row *y)
{
	int r;

	if (c->by == OSC_STAT_NAME) {
		r = cmp_names(c->t, x->key, y->key);
		if (r)
			return c->descending ? -r : r;
	} else {
		r = cmp_stat(x, y, c->by);
		if (r)
			return c->descending ? -r : r;
		r = cmp_names(c->t, x->key, y->key);
		if (r)
			return r;
	}
	return (x->key > y->key) - (x->key < y->key);
}

/* Merge sort: qsort has no context argument in C11. */
static void merge_sort(const struct sort_ctx *c, struct osc_agg_row *v, size_t n,
		       struct osc_agg_row *tmp)
{
	size_t mid = n / 2, i = 0, j = mid, k = 0;

	if (n < 2)
		return;
	merge_sort(c, v, mid, tmp);
	merge_sort(c, v + mid, n - mid, tmp);
	while (i < mid && j < n)
		tmp[k++] = cmp_rows(c, &v[j], &v[i]) < 0 ? v[j++] : v[i++];
	while (i < mid)
		tmp[k++] = v[i++];
	while (j < n)
		tmp[k++] = v[j++];
	memcpy(v, tmp, n * sizeof(*v));
}

void osc_agg_sort(struct osc_agg *a, const struct osc_trace *t, enum osc_stat by, bool descending)
{
	struct sort_ctx c = {.t = t, .by = by, .descending = descending};
	struct osc_agg_row *tmp = osc_xmalloc((a->nr ? a->nr : 1) * sizeof(*tmp));
	double cum = 0;

	merge_sort(&c, a->rows, a->nr, tmp);
	free(tmp);
	for (size_t r = 0; r < a->nr; r++) {
		cum += a->rows[r].pct;
		a->rows[r].cum_pct = cum;
	}
}

void osc_agg_truncate(struct osc_agg *a, size_t n)
{
	if (n && n < a->nr)
		a->nr = n;
}
