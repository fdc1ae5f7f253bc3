/*
 * aggregate_sort.c - ordering the rows of an aggregate, and the values of
 * its derived columns (aggregate.h).
 */
#include <stdlib.h>
#include <string.h>

#include "opscope/aggregate.h"
#include "opscope/alloc.h"

struct sort_ctx {
	const struct osc_trace *t;
	const struct osc_agg *a;
	enum osc_stat by;
	bool descending;
};

static int cmp_num(double x, double y)
{
	return (x > y) - (x < y);
}

/* Text of a key string; OSC_AGG_UNKNOWN reads "unknown", as profile_explorer writes it. */
static const char *key_text(const struct osc_trace *t, osc_str s, size_t *len)
{
	if (s == OSC_AGG_UNKNOWN) {
		*len = 7;
		return "unknown";
	}
	*len = osc_strtab_len(&t->strs, s);
	return osc_trace_str(t, s);
}

static int cmp_names(const struct osc_trace *t, osc_str a, osc_str b)
{
	size_t la, lb;
	const char *x = key_text(t, a, &la), *y = key_text(t, b, &lb);
	int c = memcmp(x, y, la < lb ? la : lb);

	return c ? (c > 0) - (c < 0) : (la > lb) - (la < lb);
}

/* Path level: the paths' bytes; 0 at other levels. */
static int cmp_paths(const struct osc_agg *a, const struct osc_agg_row *x,
		     const struct osc_agg_row *y)
{
	size_t lx, ly;
	int c;

	if (!(a->keys & OSC_KEY_PATH))
		return 0;
	lx = osc_strtab_len(&a->paths, x->path);
	ly = osc_strtab_len(&a->paths, y->path);
	c = memcmp(osc_strtab_get(&a->paths, x->path), osc_strtab_get(&a->paths, y->path),
		   lx < ly ? lx : ly);
	return c ? (c > 0) - (c < 0) : (lx > ly) - (lx < ly);
}

static int cmp_dims(const struct osc_agg_row *x, const struct osc_agg_row *y)
{
	for (int i = 0; i < 6; i++)
		if (x->dims[i] != y->dims[i])
			return (x->dims[i] > y->dims[i]) - (x->dims[i] < y->dims[i]);
	return 0;
}

static double row_value(const struct osc_agg *a, const struct osc_agg_row *x, enum osc_stat s)
{
	double runs = (double)(a->nr_runs ? a->nr_runs : 1);

	switch (s) {
	case OSC_STAT_COUNT:
		return (double)x->count;
	case OSC_STAT_TOTAL:
		return (double)x->total;
	case OSC_STAT_MEAN:
		return x->mean;
	case OSC_STAT_MIN:
		return (double)x->min;
	case OSC_STAT_MAX:
		return (double)x->max;
	case OSC_STAT_P50:
		return x->p50;
	case OSC_STAT_P90:
		return x->p90;
	case OSC_STAT_P99:
		return x->p99;
	case OSC_STAT_STDDEV:
		return x->stddev;
	case OSC_STAT_PCT:
		return x->pct;
	case OSC_STAT_CUM_PCT:
		return x->cum_pct;
	case OSC_STAT_COUNT_PER_RUN:
		return (double)x->count / runs;
	case OSC_STAT_TOTAL_PER_RUN:
		return (double)x->total / runs;
	case OSC_STAT_OP_COUNT:
		return (double)x->op_count / runs;
	case OSC_STAT_OP_DUR:
		return (double)x->op_total / runs;
	case OSC_STAT_OP_AVG:
		return x->op_count ? (double)x->op_total / (double)x->op_count : 0;
	case OSC_STAT_KERNEL_PCT:
		return x->op_total > 0 ? 100.0 * (double)x->total / (double)x->op_total : 0;
	case OSC_STAT_OP_PCT:
		return a->grand_total > 0 ? 100.0 * (double)x->op_total / (double)a->grand_total
					  : 0;
	case OSC_STAT_RUN_DUR:
		return (double)x->span;
	default: /* text */
		return 0;
	}
}

double osc_agg_value(const struct osc_agg *a, size_t r, enum osc_stat s)
{
	return row_value(a, &a->rows[r], s);
}

/* Compare by one statistic; 0 when equal (the identity decides then). */
static int cmp_stat(const struct sort_ctx *c, const struct osc_agg_row *x,
		    const struct osc_agg_row *y)
{
	switch (c->by) {
	case OSC_STAT_NAME:
		if (c->a->keys & OSC_KEY_PATH)
			return cmp_paths(c->a, x, y);
		return cmp_names(c->t, x->key, y->key);
	case OSC_STAT_SHAPE:
		return cmp_names(c->t, x->shape, y->shape);
	case OSC_STAT_OP:
		return cmp_names(c->t, x->op, y->op);
	case OSC_STAT_DIMS:
		return cmp_dims(x, y);
	case OSC_STAT_COUNT:
	case OSC_STAT_COUNT_PER_RUN:
		return (x->count > y->count) - (x->count < y->count);
	case OSC_STAT_MIN:
		return (x->min > y->min) - (x->min < y->min);
	case OSC_STAT_MAX:
		return (x->max > y->max) - (x->max < y->max);
	case OSC_STAT_TOTAL:
	case OSC_STAT_PCT:
	case OSC_STAT_CUM_PCT:
	case OSC_STAT_TOTAL_PER_RUN:
		return (x->total > y->total) - (x->total < y->total);
	default: /* a derived value: rows are in the same aggregate */
		return cmp_num(row_value(c->a, x, c->by), row_value(c->a, y, c->by));
	}
}

/* Total order: the statistic (reversed when descending), then run, path, name, shape, op, dims. */
static int cmp_rows(const struct sort_ctx *c, const struct osc_agg_row *x,
		    const struct osc_agg_row *y)
{
	int r = cmp_stat(c, x, y);

	if (r)
		return c->descending ? -r : r;
	if (x->run != y->run)
		return (x->run > y->run) - (x->run < y->run);
	if ((r = cmp_paths(c->a, x, y)) || (r = cmp_names(c->t, x->key, y->key)) ||
	    (r = cmp_names(c->t, x->shape, y->shape)) || (r = cmp_names(c->t, x->op, y->op)) ||
	    (r = cmp_dims(x, y)))
		return r;
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
	struct sort_ctx c = {.t = t, .a = a, .by = by, .descending = descending};
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
