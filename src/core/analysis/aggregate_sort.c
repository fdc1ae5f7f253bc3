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
#include "opscope/base/bits.h"
#include "opscope/analysis/trace_cache.h"
#include "base/parallel.h"
#include "base/radix.h"
#include "base/scratch.h"

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

/* fmin(100, v), inline (NAN gives 100 too): a million rows' running shares call it twice each. */
static double at_most_100(double v)
{
	return v < 100 ? v : 100;
}

/* A share in percent; at most 100 even when sums saturated (OSC_WARN_HUGE_SUMS). */
static double pct_of(int64_t part, int64_t base)
{
	return base > 0 ? at_most_100(100.0 * (double)part / (double)base) : 0;
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
	if (s == OSC_STAT_SELF_CUM_PCT || s == OSC_STAT_DEVICE_CUM_PCT)
		return !a->cum_pct ? 0 : a->cum_pct[2 * r + (s == OSC_STAT_DEVICE_CUM_PCT)];
	return row_value(a, osc_agg_row_at(a, r), s);
}

/* Which of a row's integers a statistic is (int_value); INT_NONE for the rest. */
enum int_source {
	INT_NONE, INT_COUNT, INT_MIN, INT_MAX, INT_TOTAL, INT_SELF, INT_DEV, INT_DEV_TOTAL
};

static enum int_source int_source(enum osc_stat s)
{
	switch (s) {
	case OSC_STAT_COUNT:
	case OSC_STAT_COUNT_PER_RUN:
	case OSC_STAT_OPS:
		return INT_COUNT;
	case OSC_STAT_MIN:
		return INT_MIN;
	case OSC_STAT_MAX:
		return INT_MAX;
	case OSC_STAT_TOTAL:
	case OSC_STAT_TOTAL_PER_RUN:
		return INT_TOTAL;
	case OSC_STAT_SELF:
	case OSC_STAT_SELF_PCT:
	case OSC_STAT_SELF_CUM_PCT:
	case OSC_STAT_SELF_PER_RUN:
	case OSC_STAT_HOST_BUSY:
		return INT_SELF;
	case OSC_STAT_DEVICE:
	case OSC_STAT_DEVICE_PCT:
	case OSC_STAT_DEVICE_CUM_PCT:
	case OSC_STAT_DEVICE_PER_RUN:
		return INT_DEV;
	case OSC_STAT_DEVICE_TOTAL:
		return INT_DEV_TOTAL;
	default:
		return INT_NONE;
	}
}

/* The integer behind a statistic, for exact comparison; false for the rest. */
static bool int_value(const struct osc_agg_row *x, enum osc_stat s, int64_t *v)
{
	switch (int_source(s)) {
	case INT_COUNT:
		*v = (int64_t)x->count;
		return true;
	case INT_MIN:
		*v = x->min;
		return true;
	case INT_MAX:
		*v = x->max;
		return true;
	case INT_TOTAL:
		*v = x->total;
		return true;
	case INT_SELF:
		*v = x->self;
		return true;
	case INT_DEV:
		*v = x->dev;
		return true;
	case INT_DEV_TOTAL:
		*v = x->dev_total;
		return true;
	default:
		return false;
	}
}


/*
 * The order of rows by text or identity is a radix sort on places: each
 * string's place in the trace's byte order (trace_cache.h), each path's in
 * the aggregate's, each category's by its name, each module's in the
 * hierarchy's preorder. No string is compared while sorting rows, so a
 * level of a million distinct names sorts in a few passes over integers.
 */
struct places {
	const uint32_t *text;  /* per trace string id: its place */
	size_t nr_text;        /* the trace's strings */
	uint32_t unknown;      /* OSC_AGG_UNKNOWN's: right after any string "unknown" */
	uint32_t category[OSC_CAT_NR]; /* by name, bytewise */
};

/*
 * A trace string's place, doubled so that OSC_AGG_UNKNOWN, which reads
 * "unknown", has one of its own (places.unknown).
 */
static uint32_t text_place(const struct places *p, osc_str s)
{
	return s == OSC_AGG_UNKNOWN ? p->unknown : 2 * p->text[s] + 2;
}

static void places_init(struct places *p, const struct osc_trace *t)
{
	const struct osc_text_order *o = osc_trace_text_order(t);

	p->text = o->place;
	p->nr_text = o->nr;
	/* after the strings at most "unknown", before the rest */
	p->unknown = (uint32_t)(2 * osc_text_order_rank(t, o, "unknown") + 1);
	for (uint32_t c = 0; c < OSC_CAT_NR; c++) {
		p->category[c] = 0;
		for (uint32_t d = 0; d < OSC_CAT_NR; d++)
			p->category[c] += strcmp(osc_category_name(d), osc_category_name(c)) < 0;
	}
}

/* A module's place: rows without one first, then the hierarchy's preorder. */
static uint32_t module_place(const struct osc_agg *a, uint32_t module)
{
	return module == OSC_NONE || !a->modules ? 0 : a->modules->rank[module] + 1;
}

/* A path's place at the path level (in a->path_place); 0 at the others. */
static uint32_t path_place(const struct osc_agg *a, osc_str path)
{
	return a->keys & OSC_KEY_PATH ? a->path_place[path] : 0;
}

/* An int32 as a uint32 of the same order. */
static uint32_t int_place(int32_t v)
{
	return (uint32_t)v ^ 0x80000000u;
}

/*
 * The identity of a row as IDENTITY_WORDS keys, the first the most
 * significant: run, path, category, module, name, shape, op, dims, and the
 * name's id (for a string "unknown" beside OSC_AGG_UNKNOWN).
 */
#define IDENTITY_WORDS 7

static uint64_t identity_word(const struct osc_agg *a, const struct places *p,
			      const struct osc_agg_row *x, int w)
{
	switch (w) {
	case 0:
		return (uint64_t)x->run << 32 | path_place(a, x->path);
	case 1:
		return (uint64_t)p->category[x->category] << 32 | module_place(a, x->module);
	case 2:
		return (uint64_t)text_place(p, x->key) << 32 | text_place(p, x->shape);
	case 3:
		return (uint64_t)text_place(p, x->op) << 32 | int_place(x->dims[0]);
	case 4:
		return (uint64_t)int_place(x->dims[1]) << 32 | int_place(x->dims[2]);
	case 5:
		return (uint64_t)int_place(x->dims[3]) << 32 | int_place(x->dims[4]);
	default:
		return (uint64_t)int_place(x->dims[5]) << 32 | x->key;
	}
}

/* Scratch of a radix sort of n rows: keys and row indices, twice (radix.h). */
struct rows_scratch {
	uint64_t *k;
	uint32_t *idx;
	size_t n;
};

static void scratch_init(struct rows_scratch *s, size_t n)
{
	s->n = n;
	s->k = osc_scratch_take(2 * (n ? n : 1) * sizeof(*s->k));
	s->idx = osc_scratch_take(2 * (n ? n : 1) * sizeof(*s->idx));
}

static void scratch_release(struct rows_scratch *s)
{
	osc_scratch_give(s->k);
	osc_scratch_give(s->idx);
}

/* Sort s->idx stably by the keys in s->k (one per entry). */
static void scratch_sort(struct rows_scratch *s)
{
	osc_radix_sort(s->k, s->idx, s->k + s->n, s->idx + s->n, s->n);
}

/* The place of row x by the field that can decide its identity alone: its path's or its name's. */
static uint32_t field_place(const struct osc_agg *a, const struct places *p,
			    const struct osc_agg_row *x)
{
	return a->keys & OSC_KEY_PATH ? path_place(a, x->path) : text_place(p, x->key);
}

/*
 * a->identity when one field decides it (field_place): the name, when the
 * run, path, category and module (the more significant words) are alike;
 * the path, at the path level, when the run is. No two rows may share the
 * field's place (then the less significant words break the tie): the
 * identity order is the places' order, and a row's place in it is the
 * number of rows whose place comes before. The places (at, per row; id:
 * the rows' ids) are marked in a bitmap, counted per 64, and each row's is
 * looked up: no sort, and no row read. False, with nothing set, when two
 * rows share a place.
 */
static bool place_by_field(struct osc_agg *a, const struct places *p, const uint32_t *id,
			   const uint32_t *at, size_t nr_ids)
{
	size_t span = a->keys & OSC_KEY_PATH ? a->paths.count : 2 * p->nr_text + 3;
	size_t nr_words = osc_bits_words(span + 1);
	uint64_t *seen = osc_xcalloc(nr_words, sizeof(*seen));
	uint32_t *before = osc_xmalloc(nr_words * sizeof(*before));

	for (size_t r = 0; r < a->nr; r++) {
		if (osc_bit(seen, at[r])) {
			free(seen);
			free(before);
			return false;
		}
		osc_bit_put(seen, at[r], true);
	}
	osc_bits_count_before(seen, nr_words, before);
	a->identity = osc_xmalloc_big(nr_ids ? nr_ids : 1, sizeof(*a->identity));
	for (size_t r = 0; r < a->nr; r++)
		a->identity[id[r]] = osc_bits_rank(seen, before, at[r]);
	a->nr_identity = a->nr;
	free(seen);
	free(before);
	return true;
}

/*
 * One pass over the rows: which of words [0, to) of their identities
 * differ between rows, into varies; whether their runs do; one more than
 * their largest id; and where id and at are given, each row's id and its
 * field_place.
 */
static void find_varying(const struct osc_agg *a, const struct places *p, int to, bool *varies,
			 bool *run_varies, size_t *nr_ids, uint32_t *id, uint32_t *at)
{
	uint64_t first[IDENTITY_WORDS];

	for (int w = 0; w < to && a->nr; w++)
		first[w] = identity_word(a, p, &a->rows[0], w);
	for (size_t r = 0; r < a->nr; r++) {
		const struct osc_agg_row *x = &a->rows[r];

		for (int w = 0; w < to; w++)
			varies[w] = varies[w] || identity_word(a, p, x, w) != first[w];
		*run_varies = *run_varies || x->run != a->rows[0].run;
		*nr_ids = x->id >= *nr_ids ? (size_t)x->id + 1 : *nr_ids;
		if (at) {
			id[r] = x->id;
			at[r] = field_place(a, p, x);
		}
	}
}

/*
 * The identity by place_by_field when it serves: the words above its field
 * are read in the same pass as each row's field. *nr_ids: as find_varying.
 */
static bool place_by_one_field(struct osc_agg *a, const struct places *p, size_t *nr_ids)
{
	uint32_t *id = osc_xmalloc_big(a->nr ? a->nr : 1, sizeof(*id));
	uint32_t *at = osc_xmalloc_big(a->nr ? a->nr : 1, sizeof(*at));
	bool varies[2] = { false }, run_varies = false, placed;

	find_varying(a, p, 2, varies, &run_varies, nr_ids, id, at);
	placed = ((a->keys & OSC_KEY_PATH) ? !run_varies : !varies[0] && !varies[1]) &&
		 place_by_field(a, p, id, at, *nr_ids);
	free(id);
	free(at);
	return placed;
}

/*
 * a->identity: per row id, the row's place in the identity order. Words
 * that every row shares are skipped; the others are read once, in row
 * order, then sorted from the least significant on (unless one field
 * decides it: place_by_one_field).
 */
static void place_identities(struct osc_agg *a, const struct places *p)
{
	size_t n = a->nr, nr_ids = 0;
	uint64_t *word[IDENTITY_WORDS] = { 0 };
	struct rows_scratch s;
	bool varies[IDENTITY_WORDS] = { false }, run_varies = false;

	if ((a->keys & OSC_KEY_PATH) && !a->path_place) /* each path's place in a->paths */
		a->path_place = osc_strtab_places(&a->paths, NULL);
	if (place_by_one_field(a, p, &nr_ids))
		return;
	find_varying(a, p, IDENTITY_WORDS, varies, &run_varies, &nr_ids, NULL, NULL);
	for (int w = 0; w < IDENTITY_WORDS; w++) {
		if (!varies[w])
			continue;
		word[w] = osc_xmalloc(n * sizeof(*word[w]));
		for (size_t r = 0; r < n; r++)
			word[w][r] = identity_word(a, p, &a->rows[r], w);
	}
	scratch_init(&s, n);
	for (size_t r = 0; r < n; r++)
		s.idx[r] = (uint32_t)r;
	for (int w = IDENTITY_WORDS - 1; w >= 0; w--) {
		if (!word[w])
			continue;
		for (size_t i = 0; i < n; i++)
			s.k[i] = word[w][s.idx[i]];
		scratch_sort(&s);
		free(word[w]);
	}
	a->identity = osc_xmalloc((nr_ids ? nr_ids : 1) * sizeof(*a->identity));
	for (size_t i = 0; i < n; i++)
		a->identity[a->rows[s.idx[i]].id] = (uint32_t)i;
	a->nr_identity = n;
	scratch_release(&s);
}

/* The key of row x by a statistic other than DIMS, ascending. */
static uint64_t stat_key(const struct osc_agg *a, const struct places *p,
			 const struct osc_agg_row *x, enum osc_stat by)
{
	int64_t v;

	switch (by) {
	case OSC_STAT_NAME:
		if (a->keys & OSC_KEY_PATH)
			return path_place(a, x->path);
		if (a->keys & OSC_KEY_CATEGORY)
			return p->category[x->category];
		if (a->keys & OSC_KEY_MODULE)
			return module_place(a, x->module);
		return text_place(p, x->key);
	case OSC_STAT_CATEGORY:
		return p->category[x->category];
	case OSC_STAT_MODULE:
		return module_place(a, x->module);
	case OSC_STAT_SHAPE:
		return text_place(p, x->shape);
	case OSC_STAT_OP:
		return text_place(p, x->op);
	default: /* values as doubles where not integers: exact below 2^53 ns (104 days) */
		return int_value(x, by, &v) ? osc_radix_key(v)
					    : osc_radix_double_key(row_value(a, x, by));
	}
}

/* Keys of the dims, three words, the first the most significant. */
static uint64_t dims_key(const struct osc_agg_row *x, int w)
{
	return (uint64_t)int_place(x->dims[2 * w]) << 32 | int_place(x->dims[2 * w + 1]);
}

/* Rows per thread worth starting one for, to read the rows (or their shares) for a sort. */
#define FILL_PART ((size_t)1 << 16)

/*
 * What the threads of a sort work on, each on its part of the rows: the keys
 * (fill_part), then the shares in display order (gather_part).
 */
struct fill {
	struct osc_agg *a;
	const struct places *p;
	struct rows_scratch *s;
	enum osc_stat by;
	uint64_t flip;       /* all ones: descending */
	bool per_row;        /* a->share and a->row_place too */
	size_t parts;
	const uint32_t *order; /* gather_part: the display order */
};

/* Part `part` of the display order: each row's shares (a->share) into a->cum_pct. */
static void gather_part(void *arg, size_t part)
{
	const struct fill *f = arg;
	struct osc_agg *a = f->a;
	size_t from = a->nr * part / f->parts, to = a->nr * (part + 1) / f->parts;

	for (size_t i = from; i < to; i++) {
		const double *x = &a->share[2 * f->order[i]];

		a->cum_pct[2 * i] = x[0];
		a->cum_pct[2 * i + 1] = x[1];
	}
}

/*
 * The running *_cum_pct in display order (order[i] the row shown i-th), from
 * the rows' shares (a->share, read in row order once per aggregate): a
 * million wide rows read in display order would be a million cache misses.
 * The shares are gathered on every core (a cache miss each), then added up
 * in order on one.
 */
static void add_up(struct osc_agg *a, const uint32_t *order)
{
	struct fill f = { .a = a, .order = order, .parts = osc_parallel_parts(a->nr, FILL_PART) };
	double self = 0, dev = 0;

	a->cum_pct = osc_xrealloc(a->cum_pct, 2 * (a->nr ? a->nr : 1) * sizeof(*a->cum_pct));
	osc_parallel_run(f.parts, gather_part, &f);
	for (size_t i = 0; i < a->nr; i++) {
		self = at_most_100(self + a->cum_pct[2 * i]);
		dev = at_most_100(dev + a->cum_pct[2 * i + 1]);
		a->cum_pct[2 * i] = self;
		a->cum_pct[2 * i + 1] = dev;
	}
}

/*
 * Part `part` of the rows, in identity order: their indices and keys into
 * the scratch, and where asked their shares and places into a->share and
 * a->row_place (else read from there). The rows are read once, in their
 * order; each part writes its own rows' entries.
 */
static void fill_part(void *arg, size_t part)
{
	const struct fill *f = arg;
	struct osc_agg *a = f->a;
	size_t from = a->nr * part / f->parts, to = a->nr * (part + 1) / f->parts;

	for (size_t r = from; r < to; r++) {
		const struct osc_agg_row *x = &a->rows[r];
		uint32_t at = f->per_row ? a->identity[x->id] : a->row_place[r];

		f->s->idx[at] = (uint32_t)r;
		if (f->by != OSC_STAT_DIMS)
			f->s->k[at] = stat_key(a, f->p, x, f->by) ^ f->flip;
		if (f->per_row) {
			a->row_place[r] = at;
			a->share[2 * r] = pct_of(x->self, a->host_busy);
			a->share[2 * r + 1] = pct_of(x->dev, a->device_time);
		}
	}
}

/* Drop what a->share and a->row_place hold for the rows where they are. */
static void drop_per_row(struct osc_agg *a)
{
	free(a->share);
	free(a->row_place);
	a->share = NULL;
	a->row_place = NULL;
}

bool osc_agg_ordered_by(const struct osc_agg *a, enum osc_stat by, bool descending)
{
	return a->order && a->nr_identity == a->nr && a->order_by == (int)by &&
	       a->order_desc == descending;
}

/*
 * Whether a is in the order `by` gives already, under another statistic of
 * the same integer (device_pct and device): every key is the same, and so is
 * the stable order they give.
 */
static bool ordered_alike(const struct osc_agg *a, enum osc_stat by, bool descending)
{
	enum osc_stat in_force = (enum osc_stat)a->order_by;

	return osc_agg_ordered_by(a, in_force, descending) && int_source(by) != INT_NONE &&
	       int_source(by) == int_source(in_force);
}

void osc_agg_order(struct osc_agg *a, const struct osc_trace *t, enum osc_stat by, bool descending)
{
	size_t n = a->nr;
	uint64_t flip = descending ? UINT64_MAX : 0;
	struct places p;
	struct rows_scratch s;
	struct fill fill = { .a = a, .p = &p, .s = &s, .by = by, .flip = flip };

	if (osc_agg_ordered_by(a, by, descending))
		return;
	if (ordered_alike(a, by, descending)) {
		a->order_by = (int)by;
		return;
	}
	places_init(&p, t);
	fill.per_row = !a->share || a->nr_share != n;
	if (!a->identity || a->nr_identity != n) { /* built, and for the same rows */
		free(a->identity);
		place_identities(a, &p);
		fill.per_row = true;
	}
	if (fill.per_row) {
		drop_per_row(a);
		a->share = osc_xmalloc_big(2 * (n ? n : 1), sizeof(*a->share));
		a->row_place = osc_xmalloc_big(n ? n : 1, sizeof(*a->row_place));
		a->nr_share = n;
	}
	scratch_init(&s, n);
	/* rows in identity order, then stably by the statistic */
	fill.parts = osc_parallel_parts(n, FILL_PART);
	osc_parallel_run(fill.parts, fill_part, &fill);
	if (by != OSC_STAT_DIMS)
		scratch_sort(&s);
	for (int w = 2; w >= 0 && by == OSC_STAT_DIMS; w--) {
		for (size_t i = 0; i < n; i++)
			s.k[i] = dims_key(&a->rows[s.idx[i]], w) ^ flip;
		scratch_sort(&s);
	}
	/* the same room as the order before, when it fits (its pages taken already) */
	a->order = osc_xrealloc(a->order, (n ? n : 1) * sizeof(*a->order));
	memcpy(a->order, s.idx, n * sizeof(*a->order));
	a->order_by = (int)by;
	a->order_desc = descending;
	scratch_release(&s);
	add_up(a, a->order);
}

/* Move the rows into their display order, so that rows[i] is the row shown i-th. */
static void apply_order(struct osc_agg *a)
{
	struct osc_agg_row *rows;

	if (!a->order)
		return;
	rows = osc_xcalloc_big(a->nr ? a->nr : 1, sizeof(*rows));
	for (size_t i = 0; i < a->nr; i++)
		rows[i] = a->rows[a->order[i]];
	free(a->rows);
	a->rows = rows;
	free(a->order);
	a->order = NULL;
	drop_per_row(a); /* by row, and the rows moved */
}

void osc_agg_sort(struct osc_agg *a, const struct osc_trace *t, enum osc_stat by, bool descending)
{
	osc_agg_order(a, t, by, descending);
	apply_order(a);
}

void osc_agg_truncate(struct osc_agg *a, size_t n)
{
	if (!n || n >= a->nr)
		return;
	apply_order(a);
	a->nr = n;
}
