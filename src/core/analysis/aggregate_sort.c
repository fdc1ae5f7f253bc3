/*
 * aggregate_sort.c - ordering the rows of an aggregate, and the values of
 * its derived columns (aggregate.h).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "opscope/analysis/category.h"
#include "opscope/analysis/aggregate.h"
#include "opscope/analysis/module.h"
#include "opscope/base/alloc.h"

struct sort_ctx {
	const struct osc_trace *t;
	const struct osc_agg *a;
	enum osc_stat by;
	bool descending;
};

static int cmp_num(double x, double y)
{
	if (isnan(x) || isnan(y)) /* unknown (an empty cell) below every number */
		return !!isnan(y) - !!isnan(x);
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

enum osc_stat osc_stat_dist(enum osc_measure m, enum osc_dist_stat d)
{
	if (m == OSC_MEASURE_HOST)
		return (enum osc_stat)(OSC_STAT_MEAN + d);
	return (enum osc_stat)(OSC_STAT_DISTS + (m - 1) * OSC_DIST_NR + d);
}

bool osc_stat_is_dist(enum osc_stat s, enum osc_measure *m, enum osc_dist_stat *d)
{
	if (s >= OSC_STAT_MEAN && s <= OSC_STAT_STDDEV) {
		*m = OSC_MEASURE_HOST;
		*d = (enum osc_dist_stat)(s - OSC_STAT_MEAN);
		return true;
	}
	if (s < OSC_STAT_DISTS || s >= OSC_STAT_NR)
		return false;
	*m = (enum osc_measure)(1 + (s - OSC_STAT_DISTS) / OSC_DIST_NR);
	*d = (enum osc_dist_stat)((s - OSC_STAT_DISTS) % OSC_DIST_NR);
	return true;
}

unsigned osc_stats_dists(enum osc_stat s)
{
	enum osc_measure m;
	enum osc_dist_stat d;

	return osc_stat_is_dist(s, &m, &d) && m != OSC_MEASURE_HOST ? 1u << m : 0;
}

enum osc_stat osc_level_default_sort(enum osc_level l, bool device)
{
	if (osc_level_is_device(l))
		return OSC_STAT_TOTAL;
	if (l == OSC_LEVEL_RUN)
		return OSC_STAT_WALL;
	return device ? OSC_STAT_DEVICE : OSC_STAT_SELF;
}

enum osc_stat osc_agg_default_sort(const struct osc_agg *a)
{
	return osc_level_default_sort(a->level, a->has_device);
}

/* A share in percent; at most 100 even when sums saturated (OSC_WARN_HUGE_SUMS). */
static double pct_of(int64_t part, int64_t base)
{
	return base > 0 ? fmin(100, 100.0 * (double)part / (double)base) : 0;
}

/* Statistic d of a distribution; NaN when it was not computed. */
static double dist_value(const struct osc_agg *a, const struct osc_agg_row *x, enum osc_measure m,
			 enum osc_dist_stat d)
{
	const struct osc_dist *v;
	struct osc_dist host = { x->min, x->max, x->mean, x->p50, x->p90, x->p99, x->stddev };

	if (m == OSC_MEASURE_HOST)
		v = &host;
	else if (a->dist[m])
		v = &a->dist[m][x->id];
	else
		return NAN;
	switch (d) {
	case OSC_DIST_MEAN:
		return v->mean;
	case OSC_DIST_MIN:
		return (double)v->min;
	case OSC_DIST_MAX:
		return (double)v->max;
	case OSC_DIST_P50:
		return v->p50;
	case OSC_DIST_P90:
		return v->p90;
	case OSC_DIST_P99:
		return v->p99;
	default:
		return v->stddev;
	}
}

static double row_value(const struct osc_agg *a, const struct osc_agg_row *x, enum osc_stat s)
{
	double runs = (double)(a->nr_runs ? a->nr_runs : 1);
	enum osc_measure m;
	enum osc_dist_stat d;

	if (osc_stat_is_dist(s, &m, &d))
		return dist_value(a, x, m, d);
	if (osc_stat_is_roofline(s))
		return osc_agg_roofline_value(a, x, s);
	switch (s) {
	case OSC_STAT_COUNT:
	case OSC_STAT_OPS:
		return (double)x->count;
	case OSC_STAT_TOTAL:
		return (double)x->total;
	case OSC_STAT_SELF:
	case OSC_STAT_HOST_BUSY:
		return (double)x->self;
	case OSC_STAT_DEVICE:
		return (double)x->dev;
	case OSC_STAT_DEVICE_TOTAL:
		return (double)x->dev_total;
	case OSC_STAT_KERNELS:
		return (double)x->kernels;
	case OSC_STAT_SELF_PCT:
		return pct_of(x->self, a->host_busy);
	case OSC_STAT_DEVICE_PCT:
		return pct_of(x->dev, a->device_time);
	case OSC_STAT_SELF_CUM_PCT:
		return x->self_cum_pct;
	case OSC_STAT_DEVICE_CUM_PCT:
		return x->dev_cum_pct;
	case OSC_STAT_COUNT_PER_RUN:
		return (double)x->count / runs;
	case OSC_STAT_TOTAL_PER_RUN:
		return (double)x->total / runs;
	case OSC_STAT_SELF_PER_RUN:
		return (double)x->self / runs;
	case OSC_STAT_DEVICE_PER_RUN:
		return (double)x->dev / runs;
	case OSC_STAT_OP_COUNT:
		return (double)x->op_count / runs;
	case OSC_STAT_OP_DUR:
		return (double)x->op_total / runs;
	case OSC_STAT_OP_AVG:
		return x->op_count ? (double)x->op_total / (double)x->op_count : 0;
	case OSC_STAT_KERNEL_PCT:
		return pct_of(x->total, x->op_total);
	case OSC_STAT_OP_PCT:
		return pct_of(x->op_total, a->grand_total);
	case OSC_STAT_WALL:
		return (double)x->span;
	case OSC_STAT_DEVICE_BUSY:
		return (double)x->dev_busy;
	case OSC_STAT_DEVICE_BUSY_PCT:
		return pct_of(x->dev_busy, x->span);
	case OSC_STAT_DEVICE_IDLE:
		return (double)(x->span - x->dev_busy);
	case OSC_STAT_EVENTS:
		return (double)x->events;
	default: /* text */
		return 0;
	}
}

double osc_agg_value(const struct osc_agg *a, size_t r, enum osc_stat s)
{
	return row_value(a, &a->rows[r], s);
}

/* The integer behind a statistic, for exact comparison; false for the rest. */
static bool int_value(const struct osc_agg_row *x, enum osc_stat s, int64_t *v)
{
	switch (s) {
	case OSC_STAT_COUNT:
	case OSC_STAT_COUNT_PER_RUN:
	case OSC_STAT_OPS:
		*v = (int64_t)x->count;
		return true;
	case OSC_STAT_MIN:
		*v = x->min;
		return true;
	case OSC_STAT_MAX:
		*v = x->max;
		return true;
	case OSC_STAT_TOTAL:
	case OSC_STAT_TOTAL_PER_RUN:
		*v = x->total;
		return true;
	case OSC_STAT_SELF:
	case OSC_STAT_SELF_PCT:
	case OSC_STAT_SELF_CUM_PCT:
	case OSC_STAT_SELF_PER_RUN:
	case OSC_STAT_HOST_BUSY:
		*v = x->self;
		return true;
	case OSC_STAT_DEVICE:
	case OSC_STAT_DEVICE_PCT:
	case OSC_STAT_DEVICE_CUM_PCT:
	case OSC_STAT_DEVICE_PER_RUN:
		*v = x->dev;
		return true;
	case OSC_STAT_DEVICE_TOTAL:
		*v = x->dev_total;
		return true;
	default:
		return false;
	}
}

/* Rows by their category's name, bytewise. */
static int cmp_categories(const struct osc_agg_row *x, const struct osc_agg_row *y)
{
	return x->category == y->category ? 0 :
	       strcmp(osc_category_name(x->category), osc_category_name(y->category));
}

/*
 * Rows by their module in the hierarchy's preorder (module.h: parents
 * before children, children in order of first appearance); rows without one
 * first.
 */
static int cmp_modules(const struct osc_agg *a, const struct osc_agg_row *x,
		       const struct osc_agg_row *y)
{
	uint32_t u, v;

	if (x->module == y->module || !a->modules)
		return 0;
	if (x->module == OSC_NONE || y->module == OSC_NONE)
		return x->module == OSC_NONE ? -1 : 1;
	u = a->modules->rank[x->module];
	v = a->modules->rank[y->module];
	return (u > v) - (u < v);
}

/* Compare by one statistic; 0 when equal (the identity decides then). */
static int cmp_stat(const struct sort_ctx *c, const struct osc_agg_row *x,
		    const struct osc_agg_row *y)
{
	int64_t u, v;

	switch (c->by) {
	case OSC_STAT_NAME:
		if (c->a->keys & OSC_KEY_PATH)
			return cmp_paths(c->a, x, y);
		if (c->a->keys & OSC_KEY_CATEGORY)
			return cmp_categories(x, y);
		if (c->a->keys & OSC_KEY_MODULE)
			return cmp_modules(c->a, x, y);
		return cmp_names(c->t, x->key, y->key);
	case OSC_STAT_CATEGORY:
		return cmp_categories(x, y);
	case OSC_STAT_MODULE:
		return cmp_modules(c->a, x, y);
	case OSC_STAT_SHAPE:
		return cmp_names(c->t, x->shape, y->shape);
	case OSC_STAT_OP:
		return cmp_names(c->t, x->op, y->op);
	case OSC_STAT_DIMS:
		return cmp_dims(x, y);
	default:
		if (int_value(x, c->by, &u) && int_value(y, c->by, &v))
			return (u > v) - (u < v);
		/* a derived value: rows are in the same aggregate */
		return cmp_num(row_value(c->a, x, c->by), row_value(c->a, y, c->by));
	}
}

/* The order of rows equal in the statistic: run, path, category, module, name, shape, op, dims. */
static int cmp_identity(const struct sort_ctx *c, const struct osc_agg_row *x,
			const struct osc_agg_row *y)
{
	int r;

	if (x->run != y->run)
		return (x->run > y->run) - (x->run < y->run);
	if ((r = cmp_paths(c->a, x, y)) || (r = cmp_categories(x, y)) ||
	    (r = cmp_modules(c->a, x, y)) ||
	    (r = cmp_names(c->t, x->key, y->key)) ||
	    (r = cmp_names(c->t, x->shape, y->shape)) || (r = cmp_names(c->t, x->op, y->op)) ||
	    (r = cmp_dims(x, y)))
		return r;
	return (x->key > y->key) - (x->key < y->key);
}

/* Total order: the statistic (reversed when descending), then the identity. */
static int cmp_rows(const struct sort_ctx *c, const struct osc_agg_row *x,
		    const struct osc_agg_row *y)
{
	int r = cmp_stat(c, x, y);

	if (r)
		return c->descending ? -r : r;
	return cmp_identity(c, x, y);
}

/* What is sorted: a row's index and, for a numeric statistic, its value. */
struct sort_item {
	double v;
	uint32_t row;
};

/* Whether the rows sort by a number (the value is compared first, the rows on ties). */
static bool numeric(enum osc_stat s)
{
	return s != OSC_STAT_NAME && s != OSC_STAT_CATEGORY && s != OSC_STAT_MODULE &&
	       s != OSC_STAT_SHAPE && s != OSC_STAT_OP && s != OSC_STAT_DIMS;
}

static int cmp_items(const struct sort_ctx *c, const struct sort_item *x,
		     const struct sort_item *y)
{
	const struct osc_agg_row *u = &c->a->rows[x->row], *v = &c->a->rows[y->row];
	int r;

	if (!numeric(c->by))
		return cmp_rows(c, u, v);
	/* values as doubles: exact below 2^53 ns (104 days) */
	r = cmp_num(x->v, y->v);
	return r ? (c->descending ? -r : r) : cmp_identity(c, u, v);
}

/*
 * Merge sort of indices and values (16 bytes each, not whole rows, which
 * 1M-row levels would move 20 times): qsort has no context argument in C11.
 */
static void merge_sort(const struct sort_ctx *c, struct sort_item *v, size_t n,
		       struct sort_item *tmp)
{
	size_t mid = n / 2, i = 0, j = mid, k = 0;

	if (n < 2)
		return;
	merge_sort(c, v, mid, tmp);
	merge_sort(c, v + mid, n - mid, tmp);
	while (i < mid && j < n)
		tmp[k++] = cmp_items(c, &v[j], &v[i]) < 0 ? v[j++] : v[i++];
	while (i < mid)
		tmp[k++] = v[i++];
	while (j < n)
		tmp[k++] = v[j++];
	memcpy(v, tmp, n * sizeof(*v));
}

void osc_agg_sort(struct osc_agg *a, const struct osc_trace *t, enum osc_stat by, bool descending)
{
	struct sort_ctx c = {.t = t, .a = a, .by = by, .descending = descending};
	size_t n = a->nr ? a->nr : 1;
	struct sort_item *item = osc_xmalloc(n * sizeof(*item)), *tmp = osc_xmalloc(n * sizeof(*tmp));
	struct osc_agg_row *rows = osc_xmalloc(n * sizeof(*rows));
	double self = 0, dev = 0;

	for (size_t r = 0; r < a->nr; r++) {
		int64_t u;

		item[r].row = (uint32_t)r;
		item[r].v = !numeric(by) ? 0 : int_value(&a->rows[r], by, &u) ? (double)u :
					row_value(a, &a->rows[r], by);
	}
	merge_sort(&c, item, a->nr, tmp);
	for (size_t r = 0; r < a->nr; r++)
		rows[r] = a->rows[item[r].row];
	if (a->nr) /* rows is NULL at an empty level */
		memcpy(a->rows, rows, a->nr * sizeof(*rows));
	free(rows);
	free(tmp);
	free(item);
	for (size_t r = 0; r < a->nr; r++) {
		self = fmin(100, self + pct_of(a->rows[r].self, a->host_busy));
		dev = fmin(100, dev + pct_of(a->rows[r].dev, a->device_time));
		a->rows[r].self_cum_pct = self;
		a->rows[r].dev_cum_pct = dev;
	}
}

void osc_agg_truncate(struct osc_agg *a, size_t n)
{
	if (n && n < a->nr)
		a->nr = n;
}
