/*
 * rank_dist.c - one level's rows across the ranks of a job: the
 * distribution of each key over the ranks, and every rank's rows (ranks.h).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opscope/analysis/ranks.h"
#include "opscope/base/alloc.h"
#include "opscope/base/sat.h"
#include "opscope/base/strtab.h"
#include "base/stats.h"

/* Whether any rank of j has device events. */
static bool job_has_device(const struct osc_job *j)
{
	for (size_t i = 0; i < j->nr; i++)
		if (j->ranks[i].has_device)
			return true;
	return false;
}

/* The measure of level l's rows across ranks (ranks.h's distribution). */
static enum osc_measure measure_of(const struct osc_job *j, enum osc_level l)
{
	if (osc_level_is_device(l))
		return OSC_MEASURE_HOST;
	return job_has_device(j) ? OSC_MEASURE_DEVICE : OSC_MEASURE_SELF;
}

static int64_t value_of(const struct osc_sum_row *r, enum osc_measure m)
{
	return m == OSC_MEASURE_HOST ? r->total : m == OSC_MEASURE_DEVICE ? r->dev : r->self;
}

/* Descending by total, ties by key text. */
static int dist_order(const void *pa, const void *pb)
{
	const struct osc_rank_dist_row *a = pa, *b = pb;

	if (a->total != b->total)
		return a->total > b->total ? -1 : 1;
	return strcmp(a->key, b->key);
}

/* The statistics of key row r from its value on every rank (v, by rank index). */
static void dist_stats(struct osc_rank_dist_row *r, const double *v, double *sorted, size_t n)
{
	r->min_rank = r->max_rank = 0;
	for (size_t i = 0; i < n; i++) {
		r->total += v[i];
		if (v[i] < v[r->min_rank])
			r->min_rank = i;
		if (v[i] > v[r->max_rank])
			r->max_rank = i;
	}
	memcpy(sorted, v, n * sizeof(*v));
	r->median = osc_stats_median(sorted, n);
	r->mean = r->total / (double)n;
	r->min = v[r->min_rank];
	r->max = v[r->max_rank];
	r->spread_pct = r->median > 0 ? 100.0 * (r->max - r->min) / r->median : NAN;
	r->max_x_median = r->median > 0 ? r->max / r->median : NAN;
}

/* What one key has over the ranks, while they are read. */
struct key_acc {
	const char *text;
	uint64_t count;
	size_t ranks;
};

void osc_rank_dist(const struct osc_job *j, const struct osc_rank_runs *runs, enum osc_level l,
		   struct osc_rank_dist *out)
{
	struct osc_strtab keys;       /* the keys of every rank: dense ids */
	struct key_acc *acc = NULL;   /* per key id */
	double *v = NULL;             /* per key id, per rank index: the value */
	size_t nr_ids = 0, alloc_acc = 0, alloc_v = 0, n = j->nr;
	double *sorted = osc_xmalloc((n ? n : 1) * sizeof(*sorted));

	memset(out, 0, sizeof(*out));
	out->level = l;
	out->measure = measure_of(j, l);
	osc_strtab_init(&keys);
	for (size_t i = 0; i < n; i++) {
		const struct osc_summary *s = &j->ranks[i];
		size_t nr;
		struct osc_sum_row *rows = osc_rank_rows(s, &runs->sel[i], l, &nr);

		for (size_t k = 0; k < nr; k++) {
			const char *key = osc_summary_str(s, rows[k].key);
			osc_str id = osc_strtab_intern(&keys, key, strlen(key));

			for (; nr_ids <= id; nr_ids++) { /* ids are dense: slots up to this one */
				OSC_GROW(acc, nr_ids + 1, alloc_acc);
				OSC_GROW(v, (nr_ids + 1) * n, alloc_v);
				acc[nr_ids] = (struct key_acc){ key, 0, 0 };
				memset(&v[nr_ids * n], 0, n * sizeof(*v));
			}
			acc[id].count += rows[k].count;
			acc[id].ranks++;
			v[id * n + i] += (double)value_of(&rows[k], out->measure);
		}
		free(rows);
	}
	out->rows = osc_xcalloc(nr_ids ? nr_ids : 1, sizeof(*out->rows));
	for (size_t id = 0; id < nr_ids; id++) {
		struct osc_rank_dist_row *r = &out->rows[out->nr];

		if (!acc[id].ranks)
			continue; /* "" holds id 0 whether a row has it or not */
		r->key = acc[id].text;
		r->ranks = acc[id].ranks;
		r->count = acc[id].count;
		dist_stats(r, &v[id * n], sorted, n);
		out->nr++;
	}
	if (out->nr > 1)
		qsort(out->rows, out->nr, sizeof(*out->rows), dist_order);
	free(sorted);
	free(acc);
	free(v);
	osc_strtab_release(&keys);
}

void osc_rank_dist_release(struct osc_rank_dist *d)
{
	free(d->rows);
	memset(d, 0, sizeof(*d));
}

/*
 * X-macro: the distribution's columns (id, title, width, align, numeric,
 * stat). The rows are in their own order: the stat only says which columns
 * a narrow text table drops first (export_text.c).
 */
#define DIST_COLS(_)                                                        \
	_(KEY, "name", 24, OSC_ALIGN_LEFT, false, NAME)                     \
	_(RANKS, "ranks", 5, OSC_ALIGN_RIGHT, true, MIN)                    \
	_(COUNT, "count", 6, OSC_ALIGN_RIGHT, true, COUNT)                  \
	_(TOTAL, "total_us", 10, OSC_ALIGN_RIGHT, true, TOTAL)              \
	_(MEAN, "mean_per_rank_us", 10, OSC_ALIGN_RIGHT, true, MEAN)        \
	_(MIN, "min_us", 10, OSC_ALIGN_RIGHT, true, SELF_PCT)               \
	_(MIN_RANK, "min_rank", 4, OSC_ALIGN_RIGHT, true, SELF_PCT)         \
	_(MEDIAN, "median_us", 10, OSC_ALIGN_RIGHT, true, SELF)             \
	_(MAX, "max_us", 10, OSC_ALIGN_RIGHT, true, DEVICE)                 \
	_(MAX_RANK, "max_rank", 4, OSC_ALIGN_RIGHT, true, DEVICE)           \
	_(SPREAD, "spread_pct_of_median", 6, OSC_ALIGN_RIGHT, true, DEVICE_PCT) \
	_(MAX_X, "max_x_median", 6, OSC_ALIGN_RIGHT, true, SELF_PCT)

enum {
#define DIST_COL_ENUM(id, title, w, a, num, stat) DC_##id,
	DIST_COLS(DIST_COL_ENUM)
#undef DIST_COL_ENUM
	DC_NR
};

const struct osc_column *osc_rank_dist_columns(size_t *nr)
{
	static const struct osc_column cols[] = { DIST_COLS(OSC_COLUMN_DEF) };

	*nr = DC_NR;
	return cols;
}

/* The rank number of rank index i of j into buf. */
static const char *rank_text(const struct osc_job *j, size_t i, char *buf, size_t size)
{
	snprintf(buf, size, "%lld", (long long)j->ranks[i].rank.rank);
	return buf;
}

const char *osc_rank_dist_cell(const struct osc_job *j, const struct osc_rank_dist *d,
			       size_t row, size_t col, char *buf, size_t size)
{
	const struct osc_rank_dist_row *r = &d->rows[row];

	buf[0] = '\0';
	switch (col) {
	case DC_KEY:
		return r->key;
	case DC_RANKS:
		snprintf(buf, size, "%zu", r->ranks);
		break;
	case DC_COUNT:
		snprintf(buf, size, "%llu", (unsigned long long)r->count);
		break;
	case DC_TOTAL:
		osc_format_us(r->total, buf, size);
		break;
	case DC_MEAN:
		osc_format_us(r->mean, buf, size);
		break;
	case DC_MIN:
		osc_format_us(r->min, buf, size);
		break;
	case DC_MIN_RANK:
		return rank_text(j, r->min_rank, buf, size);
	case DC_MEDIAN:
		osc_format_us(r->median, buf, size);
		break;
	case DC_MAX:
		osc_format_us(r->max, buf, size);
		break;
	case DC_MAX_RANK:
		return rank_text(j, r->max_rank, buf, size);
	case DC_SPREAD:
		if (!isnan(r->spread_pct))
			osc_format_pct(r->spread_pct, buf, size);
		break;
	case DC_MAX_X:
		osc_format_ratio(r->max_x_median, buf, size);
		break;
	}
	return buf;
}

/* ---- split: every rank's rows ---- */

/* Within a rank: by the level's measure, descending, ties by key text. */
static int split_order(const void *pa, const void *pb)
{
	const struct osc_rank_split_row *a = pa, *b = pb;

	if (a->index != b->index)
		return a->index < b->index ? -1 : 1;
	if (a->value != b->value)
		return a->value > b->value ? -1 : 1;
	return strcmp(a->key, b->key);
}

void osc_rank_split(const struct osc_job *j, const struct osc_rank_runs *runs, enum osc_level l,
		    struct osc_rank_split *out)
{
	size_t alloc = 0;
	enum osc_measure m = measure_of(j, l);

	memset(out, 0, sizeof(*out));
	out->level = l;
	for (size_t i = 0; i < j->nr; i++) {
		const struct osc_summary *s = &j->ranks[i];
		struct osc_rank_row base = { 0 };
		size_t nr;
		struct osc_sum_row *rows = osc_rank_rows(s, &runs->sel[i], l, &nr);

		for (uint32_t run = 0; run < s->nr_runs; run++)
			if (runs->sel[i].on[run]) {
				base.host_busy = osc_sat_add(base.host_busy, s->runs[run].host_busy);
				base.device_time = osc_sat_add(base.device_time,
							       s->runs[run].device_time);
			}
		OSC_GROW(out->rows, out->nr + nr, alloc);
		for (size_t k = 0; k < nr; k++) {
			const struct osc_sum_row *r = &rows[k];

			out->rows[out->nr++] = (struct osc_rank_split_row){
				.index = i, .key = osc_summary_str(s, r->key), .count = r->count,
				.kernels = r->kernels, .total = r->total, .self = r->self,
				.dev = r->dev, .dev_total = r->dev_total, .min = r->min,
				.max = r->max, .value = value_of(r, m),
				.self_pct = base.host_busy > 0 ? 100.0 * (double)r->self /
								 (double)base.host_busy : NAN,
				.dev_pct = base.device_time > 0 ? 100.0 * (double)r->dev /
								  (double)base.device_time : NAN,
			};
		}
		free(rows);
	}
	if (out->nr > 1)
		qsort(out->rows, out->nr, sizeof(*out->rows), split_order);
}

void osc_rank_split_release(struct osc_rank_split *s)
{
	free(s->rows);
	memset(s, 0, sizeof(*s));
}

/*
 * X-macro: the split's columns (id, title, width, align, numeric, stat); the
 * name first, as a narrow text table shrinks only its first column. The stat
 * only says which columns such a table drops first (export_text.c).
 */
#define SPLIT_COLS(_)                                                               \
	_(KEY, "name", 24, OSC_ALIGN_LEFT, false, NAME)                             \
	_(RANK, "rank", 4, OSC_ALIGN_RIGHT, true, SELF)                             \
	_(COUNT, "count", 6, OSC_ALIGN_RIGHT, true, COUNT)                          \
	_(TOTAL, "total_us", 10, OSC_ALIGN_RIGHT, true, TOTAL)                      \
	_(SELF, "self_us", 10, OSC_ALIGN_RIGHT, true, SELF)                         \
	_(SELF_PCT, "self_pct_of_rank_host_busy", 6, OSC_ALIGN_RIGHT, true, SELF_PCT) \
	_(DEV, "device_us", 10, OSC_ALIGN_RIGHT, true, DEVICE)                      \
	_(DEV_PCT, "device_pct_of_rank_device_time", 6, OSC_ALIGN_RIGHT, true, DEVICE_PCT) \
	_(DEV_TOTAL, "device_total_us", 10, OSC_ALIGN_RIGHT, true, DEVICE_TOTAL)    \
	_(KERNELS, "kernels", 6, OSC_ALIGN_RIGHT, true, KERNELS)                    \
	_(MIN, "min_us", 9, OSC_ALIGN_RIGHT, true, MIN)                             \
	_(MAX, "max_us", 9, OSC_ALIGN_RIGHT, true, MAX)

enum {
#define SPLIT_COL_ENUM(id, title, w, a, num, stat) SC_##id,
	SPLIT_COLS(SPLIT_COL_ENUM)
#undef SPLIT_COL_ENUM
	SC_NR
};

const struct osc_column *osc_rank_split_columns(size_t *nr)
{
	static const struct osc_column cols[] = { SPLIT_COLS(OSC_COLUMN_DEF) };

	*nr = SC_NR;
	return cols;
}

const char *osc_rank_split_cell(const struct osc_job *j, const struct osc_rank_split *s,
				size_t row, size_t col, char *buf, size_t size)
{
	const struct osc_rank_split_row *r = &s->rows[row];

	buf[0] = '\0';
	switch (col) {
	case SC_RANK:
		return rank_text(j, r->index, buf, size);
	case SC_KEY:
		return r->key;
	case SC_COUNT:
		snprintf(buf, size, "%llu", (unsigned long long)r->count);
		break;
	case SC_TOTAL:
		osc_format_us_int(r->total, buf, size);
		break;
	case SC_SELF:
		osc_format_us_int(r->self, buf, size);
		break;
	case SC_SELF_PCT:
		if (!isnan(r->self_pct))
			osc_format_pct(r->self_pct, buf, size);
		break;
	case SC_DEV:
		osc_format_us_int(r->dev, buf, size);
		break;
	case SC_DEV_PCT:
		if (!isnan(r->dev_pct))
			osc_format_pct(r->dev_pct, buf, size);
		break;
	case SC_DEV_TOTAL:
		osc_format_us_int(r->dev_total, buf, size);
		break;
	case SC_KERNELS:
		snprintf(buf, size, "%llu", (unsigned long long)r->kernels);
		break;
	case SC_MIN:
		osc_format_us_int(r->min, buf, size);
		break;
	case SC_MAX:
		osc_format_us_int(r->max, buf, size);
		break;
	}
	return buf;
}
