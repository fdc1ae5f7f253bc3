/*
 * diff.c - pairing the rows of two traces and the diff table.
 *
 * Both sides are aggregated with osc_aggregate (so runs, filter and level
 * mean what they mean in a report); each selected event then gets a label id
 * in the diff's own string table: its row key (name match) or its shape
 * label (shape and occurrence match). Grouping by label id is a radix sort
 * of the members by (row, model order). Occurrence numbers are assigned
 * after ordering the events by (run, model order), so "the k-th in its run"
 * does not depend on how runs interleave in the file.
 *
 * Where the labels are per row of the aggregate (name match, and shape
 * match of host ops aggregated by (op, shape)), no event is labelled: a diff
 * row that is one row of its side's aggregate takes that row's members and
 * figures as they are, which on a million events is most of the work saved.
 * Occurrence match over such rows counts each row's members in their runs
 * row by row (a row's members are in model order) and scatters them to
 * their diff rows, with no sort. Figures summed member by member are summed
 * over the host tree in model order at the host levels. The two sides are
 * placed on two threads.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opscope/base/alloc.h"
#include "opscope/analysis/diff.h"
#include "base/i64map.h"
#include "base/parallel.h"
#include "base/radix.h"
#include "opscope/analysis/category.h"
#include "opscope/analysis/trace_cache.h"
#include "base/stats.h"

/* Members ahead whose run or tree node is fetched early: they are random reads. */
#define PREFETCH_AHEAD 32

static const char *const match_names[] = {
#define OSC_MATCH_TEXT(name, text) text,
	OSC_MATCH_LIST(OSC_MATCH_TEXT)
#undef OSC_MATCH_TEXT
};

const char *osc_match_name(enum osc_match m)
{
	return (unsigned)m < OSC_MATCH_COUNT ? match_names[m] : "unknown";
}

enum osc_status osc_match_parse(const char *name, enum osc_match *out, struct osc_error *err)
{
	for (int m = 0; m < OSC_MATCH_COUNT; m++) {
		if (!strcmp(name, match_names[m])) {
			*out = (enum osc_match)m;
			return OSC_OK;
		}
	}
	return osc_error_set(err, OSC_USAGE, "--match", OSC_NO_OFFSET, NULL,
			     "unknown match mode '%s' (valid: name, shape, occurrence)", name);
}

/* ---- pairing ------------------------------------------------------------ */

#define LABEL_SIZE 4096                   /* a label's buffer: longer ones are cut */
#define OCC_LABEL_SIZE (LABEL_SIZE + 104) /* "label[n]": room for any label and n */

/*
 * The occurrence numbers of a side's members (number_occurrences). The
 * pairs (row, n) of a row r are first[r] .. first[r + 1], one per n.
 */
struct occurrences {
	uint32_t *n;      /* per member of the aggregate (members order): the k-th of
			     its row in its run, from 0 */
	size_t *first;    /* per row, and one past the last: its first pair */
	uint32_t *count;  /* per pair (row, n): the members numbered n in row */
	size_t nr_pairs;
};

/*
 * The selected events of one side with their label ids: per event (ev,
 * lab); or, when the labels are those of agg's rows (name match; shape
 * match by pairs, label_pairs), per row (row_lab) until group needs them
 * per event (by_event); or, by occurrence over such rows, per (row, n)
 * (occ_lab, occurrences_by_row).
 */
struct labelled {
	uint32_t *ev;
	osc_str *lab;
	size_t nr;
	const struct osc_agg *agg;
	osc_str *row_lab; /* per row of agg, or NULL */
	const struct occurrences *occ; /* the members' occurrences, with occ_lab */
	osc_str *occ_lab; /* per (row, n) of occ: its label, or NULL */
};

struct run_ev {
	uint32_t run, ev;
};

/* Events of agg ordered by (run, model order); a run of OSC_NONE sorts last. */
static struct run_ev *by_run(const struct osc_diff_side *s, const struct osc_agg *agg)
{
	size_t n = agg->nr_members;
	struct run_ev *v = osc_xmalloc((n ? n : 1) * sizeof(*v));
	uint64_t *k = osc_xmalloc((n ? n : 1) * sizeof(*k));
	uint32_t *ev = osc_xmalloc((n ? n : 1) * sizeof(*ev));

	for (size_t i = 0; i < n; i++) {
		ev[i] = agg->members[i];
		k[i] = (uint64_t)(s->runs ? s->runs->run_of[ev[i]] : 0) << 32 | ev[i];
	}
	osc_radix_sort_pairs(k, ev, n);
	for (size_t i = 0; i < n; i++)
		v[i] = (struct run_ev){ (uint32_t)(k[i] >> 32), ev[i] };
	free(k);
	free(ev);
	return v;
}

/* Per index: the stamp it was last counted under, and how often under it. */
struct tally {
	uint32_t *stamp, *seen;
	size_t alloc;
};

/* Room for index in c, the new entries counted under no stamp. */
static __attribute__((noinline)) void tally_grow(struct tally *c, size_t index)
{
	size_t n = c->alloc ? c->alloc : 64;

	while (n <= index)
		n *= 2;
	c->stamp = osc_xreallocarray(c->stamp, n, sizeof(*c->stamp));
	c->seen = osc_xreallocarray(c->seen, n, sizeof(*c->seen));
	for (size_t i = c->alloc; i < n; i++) {
		c->stamp[i] = OSC_NONE;
		c->seen[i] = 0;
	}
	c->alloc = n;
}

/* How often index was counted under stamp before this time (a new stamp starts at 0). */
static inline uint32_t tally_next(struct tally *c, size_t index, uint32_t stamp)
{
	if (index >= c->alloc)
		tally_grow(c, index);
	if (c->stamp[index] != stamp) {
		c->stamp[index] = stamp;
		c->seen[index] = 0;
	}
	return c->seen[index]++;
}

static void tally_release(struct tally *c)
{
	free(c->stamp);
	free(c->seen);
}

static osc_str intern(struct osc_diff *d, const char *s)
{
	return osc_strtab_intern(&d->keys, s, strlen(s));
}

/*
 * The id of event ev's osc_diff_label in d->keys. Where no args are read
 * (osc_diff_label_reads_args) and there is no provider, the label is one per (op,
 * shape): made once, then found in *memo.
 */
static osc_str label_of(struct osc_diff *d, const struct osc_trace *t, uint32_t ev,
			struct osc_i64map *memo)
{
	const struct osc_event *e = &t->events[ev];
	char label[LABEL_SIZE];
	uint32_t *slot;

	if (osc_diff_label_reads_args(t) || osc_trace_provider(t, ev) != OSC_STR_EMPTY)
		return intern(d, osc_diff_label(t, ev, label, sizeof(label)));
	slot = osc_i64map_slot(memo, osc_i64map_pair(osc_trace_op(t, ev), e->shape));
	if (*slot == OSC_I64MAP_EMPTY)
		*slot = intern(d, osc_diff_label(t, ev, label, sizeof(label)));
	return *slot;
}

#define LABELS_AHEAD 8 /* labels made before the first is interned */

/*
 * What label_ahead's labels are: per row of agg, the row's text
 * (osc_agg_label_names) or its first member's (osc_diff_label); or per pair
 * (row, n) of o, "row label[n]".
 */
struct labels_of {
	enum { ROW_TEXT, ROW_FIRST_MEMBER, PAIR_OCCURRENCE } what;
	const struct osc_diff_side *s;
	const struct osc_agg *agg;
	const struct occurrences *o; /* pairs: theirs, with their rows' labels */
	const osc_str *row_lab;
	size_t row;                  /* pairs: the row of the last one asked */
};

/* The text "label[n]" of occurrence n of label into buf (OCC_LABEL_SIZE bytes). */
static const char *occurrence_text(const struct osc_diff *d, osc_str label, size_t n, char *buf)
{
	snprintf(buf, OCC_LABEL_SIZE, "%s[%zu]", osc_strtab_get(&d->keys, label), n);
	return buf;
}

/* Label i into buf (OCC_LABEL_SIZE bytes); NULL for a row without a member. */
static const char *label_text(const struct osc_diff *d, struct labels_of *l, size_t i, char *buf)
{
	const struct osc_agg_row *row;

	switch (l->what) {
	case ROW_TEXT:
		return osc_agg_label_names(l->s->trace, l->agg, l->s->names, &l->agg->rows[i], buf,
					   LABEL_SIZE);
	case ROW_FIRST_MEMBER:
		row = &l->agg->rows[i];
		return row->nr ? osc_diff_label(l->s->trace, l->agg->members[row->first], buf,
						LABEL_SIZE)
			       : NULL;
	default: /* the pairs are asked in order */
		while (l->o->first[l->row + 1] <= i)
			l->row++;
		return occurrence_text(d, l->row_lab[l->row], i - l->o->first[l->row], buf);
	}
}

/*
 * The ids in d->keys of n labels of l, a new array (0 where there is none):
 * each is interned LABELS_AHEAD labels after it is made, its slot fetched
 * meanwhile (a million labels would otherwise wait on memory a million
 * times).
 */
static osc_str *label_ahead(struct osc_diff *d, size_t n, struct labels_of *l)
{
	osc_str *lab = osc_xcalloc(n ? n : 1, sizeof(*lab));
	char(*ring)[OCC_LABEL_SIZE] = osc_xmalloc(LABELS_AHEAD * sizeof(*ring));
	size_t len[LABELS_AHEAD];
	bool made[LABELS_AHEAD];

	for (size_t i = 0; i < n + LABELS_AHEAD; i++) {
		size_t k = i % LABELS_AHEAD;

		if (i >= LABELS_AHEAD && made[k])
			lab[i - LABELS_AHEAD] = osc_strtab_intern(&d->keys, ring[k], len[k]);
		if (i < n && (made[k] = label_text(d, l, i, ring[k]) != NULL)) {
			len[k] = strlen(ring[k]);
			osc_strtab_prefetch(&d->keys, ring[k], len[k]);
		}
	}
	free(ring);
	return lab;
}

/*
 * Shape and occurrence match where the label of a host op is made of its
 * op, shapes and provider only (no output shapes are read): the sides are
 * aggregated by (op, shape) pairs, and a row's label is its first member's.
 */
static bool pair_rows(const struct osc_trace *t, enum osc_level level, enum osc_match match)
{
	return (match == OSC_MATCH_SHAPE || match == OSC_MATCH_OCCURRENCE) &&
	       !osc_diff_label_reads_args(t) && (level == OSC_LEVEL_OP || level == OSC_LEVEL_SHAPE);
}

/*
 * The labels of agg's rows of (op, shape) pairs (pair_rows) into out; false,
 * with none, when a row's members have different providers.
 */
static bool label_pairs(struct osc_diff *d, const struct osc_diff_side *s,
			const struct osc_agg *agg, struct labelled *out)
{
	const struct osc_trace *t = s->trace;

	for (size_t r = 0; t->has_providers && r < agg->nr; r++) {
		const uint32_t *m = agg->members + agg->rows[r].first;

		for (size_t i = 1; i < agg->rows[r].nr; i++)
			if (osc_trace_provider(t, m[i]) != osc_trace_provider(t, m[0]))
				return false;
	}
	out->row_lab = label_ahead(d, agg->nr, &(struct labels_of){ .what = ROW_FIRST_MEMBER,
								    .s = s, .agg = agg });
	return true;
}

/* The id of "label[n]" in d->keys, made once per (label, n) and then found in *memo. */
static osc_str occurrence_label(struct osc_diff *d, struct osc_i64map *memo, osc_str label,
				uint32_t n)
{
	uint32_t *slot = osc_i64map_slot(memo, osc_i64map_pair(label, n));
	char occ_label[OCC_LABEL_SIZE];

	if (*slot == OSC_I64MAP_EMPTY)
		*slot = intern(d, occurrence_text(d, label, n, occ_label));
	return *slot;
}

/*
 * The occurrence of each member of agg among its row's in its run: a row's
 * members are in model order, so counting row by row needs no sort and no
 * label (the two sides count on two threads, as they aggregate).
 */
static void number_occurrences(const struct osc_diff_side *s, const struct osc_agg *agg,
			       struct occurrences *o)
{
	size_t nr_runs = s->runs ? s->runs->nr : 0, alloc = 0;
	struct tally per_run = { 0 }; /* stamped by row; outside every run: nr_runs */

	o->n = osc_xmalloc((agg->nr_members ? agg->nr_members : 1) * sizeof(*o->n));
	o->first = osc_xmalloc((agg->nr + 1) * sizeof(*o->first));
	o->count = NULL;
	o->nr_pairs = 0;
	for (size_t r = 0; r < agg->nr; r++) {
		const struct osc_agg_row *row = &agg->rows[r];
		const uint32_t *m = agg->members + row->first;

		o->first[r] = o->nr_pairs;
		for (size_t i = 0; i < row->nr; i++) {
			uint32_t run, n;

			if (s->runs && i + PREFETCH_AHEAD < row->nr)
				__builtin_prefetch(&s->runs->run_of[m[i + PREFETCH_AHEAD]]);
			run = s->runs ? s->runs->run_of[m[i]] : 0;
			n = tally_next(&per_run, run == OSC_NONE ? nr_runs : run, (uint32_t)r);
			o->n[row->first + i] = n;
			if (o->first[r] + n == o->nr_pairs) { /* each n follows n - 1 in its run */
				OSC_GROW(o->count, o->nr_pairs + 1, alloc);
				o->count[o->nr_pairs++] = 0;
			}
			o->count[o->first[r] + n]++;
		}
	}
	o->first[agg->nr] = o->nr_pairs;
	tally_release(&per_run);
}

static void occurrences_release(struct occurrences *o)
{
	free(o->n);
	free(o->first);
	free(o->count);
}

/*
 * Occurrence match over rows labelled by label_pairs, with their members'
 * numbers (o): the members of row r numbered n get the label "row label[n]",
 * one per pair (row, n) in out->occ_lab. False, with nothing done, when two
 * rows share a label (their members would have to merge).
 */
static bool occurrences_by_row(struct osc_diff *d, const struct osc_diff_side *s,
			       const struct osc_agg *agg, const struct occurrences *o,
			       struct labelled *out)
{
	uint8_t *taken = osc_xcalloc(d->keys.count + 1, 1);

	for (size_t r = 0; r < agg->nr; r++) {
		if (agg->rows[r].nr && taken[out->row_lab[r]]++) {
			free(taken);
			return false;
		}
	}
	free(taken);
	out->occ = o;
	out->occ_lab = label_ahead(d, o->nr_pairs,
				   &(struct labels_of){ .what = PAIR_OCCURRENCE, .s = s, .agg = agg,
							.o = o, .row_lab = out->row_lab });
	free(out->row_lab);
	out->row_lab = NULL;
	return true;
}

/*
 * Label side s's members (agg's rows) for match into out; occ: their
 * occurrence numbers when the match is by occurrence over (op, shape) rows;
 * occ_memo: the occurrence labels made so far, by either side.
 */
static void label_events(struct osc_diff *d, const struct osc_diff_side *s,
			 const struct osc_agg *agg, enum osc_match match,
			 const struct occurrences *occ, struct osc_i64map *occ_memo,
			 struct labelled *out)
{
	struct run_ev *v;
	struct tally per_label = { 0 }; /* stamped by run */
	struct osc_i64map labels = { 0 };

	*out = (struct labelled){ .nr = agg->nr_members, .agg = agg };
	if (match == OSC_MATCH_NAME || agg->level == OSC_LEVEL_CATEGORY) {
		out->row_lab = label_ahead(d, agg->nr, &(struct labels_of){ .what = ROW_TEXT,
									    .s = s, .agg = agg });
		return;
	}
	if (pair_rows(s->trace, agg->level, match) && label_pairs(d, s, agg, out)) {
		if (match != OSC_MATCH_OCCURRENCE || occurrences_by_row(d, s, agg, occ, out))
			return;
		free(out->row_lab);
		out->row_lab = NULL;
	}
	out->ev = osc_xmalloc((out->nr ? out->nr : 1) * sizeof(*out->ev));
	out->lab = osc_xmalloc((out->nr ? out->nr : 1) * sizeof(*out->lab));
	v = by_run(s, agg);
	for (size_t i = 0; i < out->nr; i++) {
		osc_str id = label_of(d, s->trace, v[i].ev, &labels);

		if (match == OSC_MATCH_OCCURRENCE)
			id = occurrence_label(d, occ_memo, id,
					      tally_next(&per_label, id, v[i].run));
		out->ev[i] = v[i].ev;
		out->lab[i] = id;
	}
	osc_i64map_release(&labels);
	tally_release(&per_label);
	free(v);
}

/* What add_member reads of one side's trace. */
struct side_costs {
	const struct osc_trace *t;
	const struct osc_calltree *tree; /* host levels: the host tree, else NULL */
	const struct osc_op_cost *cost;  /* per node of tree */
};

static struct side_costs side_costs(const struct osc_trace *t, enum osc_level l)
{
	struct side_costs c = { .t = t };

	if (!osc_level_is_device(l)) {
		c.tree = osc_trace_host_tree(t);
		c.cost = osc_trace_op_costs(t);
	}
	return c;
}

/* Count event ev into st: its duration, self and device time. */
static void add_member(const struct side_costs *c, uint32_t ev, struct osc_diff_stat *st)
{
	const struct osc_event *e = &c->t->events[ev];
	uint32_t n;

	st->total = osc_sat_add(st->total, e->dur);
	if (!c->tree) {
		st->dev = osc_sat_add(st->dev, e->dur);
		return;
	}
	n = c->tree->node_of[ev];
	if (n == OSC_NONE)
		return;
	st->self = osc_sat_add(st->self, c->cost[n].self);
	st->dev = osc_sat_add(st->dev, c->cost[n].dev);
}

/* The labels of rows as labels of their members, in row order. */
static void by_event(struct labelled *l)
{
	const struct osc_agg *agg = l->agg;
	size_t k = 0;

	l->ev = osc_xmalloc((l->nr ? l->nr : 1) * sizeof(*l->ev));
	l->lab = osc_xmalloc((l->nr ? l->nr : 1) * sizeof(*l->lab));
	for (size_t r = 0; r < agg->nr; r++)
		for (size_t i = 0; i < agg->rows[r].nr; i++, k++) {
			l->ev[k] = agg->members[agg->rows[r].first + i];
			l->lab[k] = l->row_lab[r];
		}
}

/* Count n more members of side s in the diff row of label k, made when new. */
static void count_in(struct osc_diff *d, uint32_t *row_of, size_t *alloc, osc_str k, int s,
			 size_t n)
{
	if (row_of[k] == OSC_NONE) {
		OSC_GROW(d->rows, d->nr + 1, *alloc);
		memset(&d->rows[d->nr], 0, sizeof(d->rows[d->nr]));
		d->rows[d->nr].key = k;
		row_of[k] = (uint32_t)d->nr++;
	}
	d->rows[row_of[k]].side[s].nr += n;
}

/*
 * Count side s's members into their rows (made in the order their labels
 * are first seen). True when its rows are whole rows of its aggregate: each
 * diff row holds at most one.
 */
static bool count_side(struct osc_diff *d, uint32_t *row_of, size_t *alloc,
		       const struct labelled *l, int s)
{
	bool whole = true;

	if (l->occ_lab) { /* a row's pairs in order of n: the order their labels are first seen */
		for (size_t p = 0; p < l->occ->nr_pairs; p++)
			count_in(d, row_of, alloc, l->occ_lab[p], s, l->occ->count[p]);
		return false;
	}
	if (!l->row_lab) {
		for (size_t i = 0; i < l->nr; i++)
			count_in(d, row_of, alloc, l->lab[i], s, 1);
		return false;
	}
	for (size_t r = 0; r < l->agg->nr; r++) {
		const struct osc_agg_row *ar = &l->agg->rows[r];
		size_t had;

		if (!ar->nr)
			continue;
		had = row_of[l->row_lab[r]] == OSC_NONE
			      ? 0 : d->rows[row_of[l->row_lab[r]]].side[s].nr;
		count_in(d, row_of, alloc, l->row_lab[r], s, ar->nr);
		whole = whole && !had;
	}
	return whole;
}

/*
 * Levels whose rows' total, self and device time are the sums of their
 * members' (the run, category and module levels add time no member has).
 */
static bool sums_of_members(enum osc_level l)
{
	return l != OSC_LEVEL_RUN && l != OSC_LEVEL_CATEGORY && l != OSC_LEVEL_MODULE;
}

/* Side s from whole rows of its aggregate: their members and figures as they are. */
static void place_rows(struct osc_diff *d, const uint32_t *row_of, const struct labelled *l,
		       int s)
{
	for (size_t r = 0; r < l->agg->nr; r++) {
		const struct osc_agg_row *ar = &l->agg->rows[r];
		struct osc_diff_stat *st;

		if (!ar->nr)
			continue;
		st = &d->rows[row_of[l->row_lab[r]]].side[s];
		memcpy(d->members[s] + st->first, l->agg->members + ar->first,
		       ar->nr * sizeof(*d->members[s]));
		st->count = ar->nr;
		st->total = ar->total;
		st->mean = ar->mean;
		st->self = ar->self;
		st->dev = ar->dev;
	}
}

/* A diff row's sums of one side, kept apart until every member is counted. */
struct member_sum {
	int64_t total, self, dev;
	__int128 exact; /* the mean stays exact when total saturates */
};

/*
 * Side s's figures (add_member's), its members placed, summed over the host
 * tree in model order, so the tree, the costs and the durations are read in
 * order, not once per member at random. False, with nothing set, without a
 * tree or when a member is not one of its nodes.
 */
static bool sum_by_tree(struct osc_diff *d, const struct side_costs *c, int s)
{
	const struct osc_calltree *tree = c->tree;
	const uint32_t *m = d->members[s];
	uint32_t *row_of_node; /* per node, its member's row + 1, or 0 */
	struct member_sum *sum;

	if (!tree)
		return false;
	row_of_node = osc_xcalloc(tree->nr ? tree->nr : 1, sizeof(*row_of_node));
	for (size_t r = 0; r < d->nr; r++) {
		const struct osc_diff_stat *st = &d->rows[r].side[s];

		for (size_t i = st->first; i < st->first + st->nr; i++) {
			uint32_t n = tree->node_of[m[i]];

			if (i + PREFETCH_AHEAD < d->nr_members[s])
				__builtin_prefetch(&tree->node_of[m[i + PREFETCH_AHEAD]]);
			if (n == OSC_NONE) {
				free(row_of_node);
				return false;
			}
			row_of_node[n] = (uint32_t)r + 1;
		}
	}
	/* zeroed by writing: a fresh page read before it is written costs a second fault */
	sum = osc_xmalloc_big(d->nr ? d->nr : 1, sizeof(*sum));
	memset(sum, 0, (d->nr ? d->nr : 1) * sizeof(*sum));
	for (size_t n = 0; n < tree->nr; n++) {
		uint32_t r;

		if (!row_of_node[n])
			continue;
		r = row_of_node[n] - 1;
		sum[r].total = osc_sat_add(sum[r].total, tree->nodes[n].dur);
		sum[r].exact += tree->nodes[n].dur;
		sum[r].self = osc_sat_add(sum[r].self, c->cost[n].self);
		sum[r].dev = osc_sat_add(sum[r].dev, c->cost[n].dev);
	}
	for (size_t r = 0; r < d->nr; r++) {
		struct osc_diff_stat *st = &d->rows[r].side[s];

		st->total = sum[r].total;
		st->self = sum[r].self;
		st->dev = sum[r].dev;
		st->mean = st->nr ? (double)sum[r].exact / (double)st->nr : 0;
	}
	free(sum);
	free(row_of_node);
	return true;
}

/* Side s's figures, its members placed: over the tree, else member by member. */
static void sum_side(struct osc_diff *d, const struct osc_diff_side *side, int s)
{
	struct side_costs costs = side_costs(side->trace, d->level);

	if (!sum_by_tree(d, &costs, s)) {
		for (size_t r = 0; r < d->nr; r++) {
			struct osc_diff_stat *st = &d->rows[r].side[s];
			__int128 exact = 0; /* the mean stays exact when total saturates */

			for (size_t i = 0; i < st->nr; i++) {
				add_member(&costs, d->members[s][st->first + i], st);
				exact += side->trace->events[d->members[s][st->first + i]].dur;
			}
			st->mean = st->nr ? (double)exact / (double)st->nr : 0;
		}
	}
	for (size_t r = 0; r < d->nr; r++)
		d->rows[r].side[s].count = d->rows[r].side[s].nr;
}

/* Side s event by event: members by row, each row's in model order, and their figures. */
static void place_events(struct osc_diff *d, const struct osc_diff_side *side,
			 const uint32_t *row_of, const struct labelled *l, int s)
{
	size_t n = l->nr;
	uint64_t *k = osc_xmalloc((n ? n : 1) * sizeof(*k));

	for (size_t i = 0; i < n; i++) {
		d->members[s][i] = l->ev[i];
		k[i] = (uint64_t)row_of[l->lab[i]] << 32 | l->ev[i];
	}
	osc_radix_sort_pairs(k, d->members[s], n);
	free(k);
	sum_side(d, side, s);
}

/*
 * Side s by occurrence (l->occ_lab): the members of row r numbered n to
 * the diff row of pair (r, n), in model order (a stable scatter), and their
 * figures.
 */
static void place_occurrences(struct osc_diff *d, const struct osc_diff_side *side,
			      const uint32_t *row_of, const struct labelled *l, int s)
{
	const struct osc_agg *agg = l->agg;
	const struct occurrences *o = l->occ;

	for (size_t r = 0; r < d->nr; r++)
		d->rows[r].side[s].count = 0;
	for (size_t r = 0; r < agg->nr; r++) {
		const struct osc_agg_row *ar = &agg->rows[r];

		for (size_t k = ar->first; k < ar->first + ar->nr; k++) {
			uint32_t dr = row_of[l->occ_lab[o->first[r] + o->n[k]]];
			struct osc_diff_stat *st = &d->rows[dr].side[s];

			d->members[s][st->first + st->count++] = agg->members[k];
		}
	}
	sum_side(d, side, s);
}

/*
 * fn(arg, s) for both sides s: on two threads, or one after the other with
 * -j 1 or a query's threads of 1.
 */
static void on_both_sides(void (*fn)(void *arg, size_t s), void *arg, unsigned threads)
{
	if ((threads ? threads : osc_threads()) > 1)
		osc_parallel_run(2, fn, arg);
	else
		for (size_t s = 0; s < 2; s++)
			fn(arg, s);
}

/* What place_side needs: the diff, both sides, their labels, and where labels go. */
struct placing {
	struct osc_diff *d;
	const struct osc_diff_side *const *side;
	struct labelled *lab;
	const uint32_t *row_of;
	bool whole[2];
};

/* Place side s's members in their rows and sum their figures. */
static void place_side(void *arg, size_t s)
{
	struct placing *p = arg;
	struct osc_diff *d = p->d;
	struct labelled *l = &p->lab[s];
	size_t pos = 0;

	for (size_t r = 0; r < d->nr; r++) {
		d->rows[r].side[s].first = pos;
		pos += d->rows[r].side[s].nr;
	}
	d->nr_members[s] = l->nr;
	d->members[s] = osc_xmalloc((l->nr ? l->nr : 1) * sizeof(uint32_t));
	if (p->whole[s]) {
		place_rows(d, p->row_of, l, (int)s);
	} else if (l->occ_lab) {
		place_occurrences(d, p->side[s], p->row_of, l, (int)s);
	} else {
		if (!l->ev)
			by_event(l);
		place_events(d, p->side[s], p->row_of, l, (int)s);
	}
}

/*
 * Rows for every label id seen on either side, members placed per side (the
 * two sides on two threads, unless threads is 1: each writes only its own
 * half of a row).
 * Where a side's rows are whole rows of its aggregate, their figures are
 * the aggregate's (the same sums); else they are summed member by member.
 */
static void group(struct osc_diff *d, const struct osc_diff_side *side[2],
		  struct labelled lab[2], unsigned threads)
{
	size_t nkeys = d->keys.count, alloc = nkeys ? nkeys : 1;
	uint32_t *row_of = osc_xmalloc((nkeys ? nkeys : 1) * sizeof(*row_of));
	struct placing p = { .d = d, .side = side, .lab = lab, .row_of = row_of };

	/* a row per label at most: room for them all at once */
	d->rows = osc_xcalloc_big(alloc, sizeof(*d->rows));
	for (size_t k = 0; k < nkeys; k++)
		row_of[k] = OSC_NONE;
	for (int s = 0; s < 2; s++)
		p.whole[s] = count_side(d, row_of, &alloc, &lab[s], s) &&
			     sums_of_members(d->level);
	on_both_sides(place_side, &p, threads);
	free(row_of);
}

/*
 * The category level: each side's figures are its aggregate's category rows
 * (a category with device time but no op has no member yet gets its row);
 * total is the device time when both traces have device events, else the
 * self time (see diff.h).
 */
static void category_rows(struct osc_diff *d, const struct osc_agg agg[2])
{
	bool device = agg[0].has_device && agg[1].has_device;
	size_t alloc = d->nr;

	for (int s = 0; s < 2; s++) {
		d->grand_total[s] = 0;
		for (size_t r = 0; r < agg[s].nr; r++) {
			const struct osc_agg_row *a = &agg[s].rows[r];
			osc_str k = intern(d, osc_category_name(a->category));
			struct osc_diff_stat *st;
			size_t i = 0;

			while (i < d->nr && d->rows[i].key != k)
				i++;
			if (i == d->nr) {
				OSC_GROW(d->rows, d->nr + 1, alloc);
				memset(&d->rows[d->nr], 0, sizeof(d->rows[d->nr]));
				d->rows[d->nr++].key = k;
			}
			st = &d->rows[i].side[s];
			st->self = a->self;
			st->dev = a->dev;
			st->total = device ? a->dev : a->self;
			d->total = device ? OSC_MEASURE_DEVICE : OSC_MEASURE_SELF;
			st->mean = a->count ? (double)st->total / (double)a->count : 0;
		}
	}
}

/*
 * Each side's grand total, of the measure osc_diff.grand says: the rows'
 * device time, or their self time; never their inclusive time.
 */
static void grand_totals(struct osc_diff *d, bool both_device)
{
	d->grand = osc_level_is_device(d->level) || both_device ? OSC_MEASURE_DEVICE
								 : OSC_MEASURE_SELF;
	for (int s = 0; s < 2; s++)
		for (size_t r = 0; r < d->nr; r++) {
			const struct osc_diff_stat *st = &d->rows[r].side[s];

			d->grand_total[s] = osc_sat_add(d->grand_total[s],
							d->grand == OSC_MEASURE_DEVICE ? st->dev
										       : st->self);
		}
}

/* Where a row of status '-', '+' or '=' is counted in d->count and d->shown. */
static int status_slot(char status)
{
	return status == '-' ? 0 : status == '+' ? 1 : 2;
}

/* A row with time on a side is on that side, even with no op of its category there. */
static bool side_has(const struct osc_diff_stat *st)
{
	return st->count || st->total;
}

static void finish_rows(struct osc_diff *d)
{
	for (size_t r = 0; r < d->nr; r++) {
		struct osc_diff_row *row = &d->rows[r];
		int64_t b = row->side[0].total, o = row->side[1].total;

		row->status = !side_has(&row->side[1]) ? '-' : !side_has(&row->side[0]) ? '+' : '=';
		d->count[status_slot(row->status)]++;
		row->delta = o - b;
		row->delta_pct = b ? 100.0 * (double)row->delta / (double)b : NAN;
		row->ratio = b ? (double)o / (double)b : NAN;
		if (osc_diff_row_larger(row) > d->top_all)
			d->top_all = osc_diff_row_larger(row);
	}
	d->top = d->top_all;
	d->nr_all = d->nr;
	memcpy(d->shown, d->count, sizeof(d->shown));
}

/* What aggregate_side needs: both sides, the query, and where their aggregates go. */
struct aggregating {
	const struct osc_diff_side *const *side;
	const struct osc_diff_query *q;
	struct osc_agg *agg;
	struct occurrences occ[2]; /* by occurrence over (op, shape) rows; else empty */
};

/*
 * Side s's aggregate: the rows its labels come from, with their members'
 * occurrence numbers where the match needs them (the two sides on two threads).
 */
static void aggregate_side(void *arg, size_t s)
{
	struct aggregating *a = arg;
	const struct osc_diff_side *side = a->side[s];
	/* the order of the diff's rows is osc_diff_sort's alone */
	struct osc_query aq = { .level = a->q->level, .runs = side->sel, .filter = a->q->filter,
				.categories = a->q->categories, .unordered = true,
				.reads = OSC_READS_SUMS, .threads = a->q->threads,
				.names = side->names };

	if (pair_rows(side->trace, a->q->level, a->q->match)) {
		aq.keys = OSC_KEY_NAME | OSC_KEY_SHAPE;
		/* occurrences regroup the members and sum them their own way */
		if (a->q->match == OSC_MATCH_OCCURRENCE)
			aq.reads = OSC_READS_MEMBERS;
	}
	osc_aggregate(side->trace, side->runs, &aq, &a->agg[s]);
	if (aq.keys && a->q->match == OSC_MATCH_OCCURRENCE)
		number_occurrences(side, &a->agg[s], &a->occ[s]);
}

void osc_diff(const struct osc_diff_side *base, const struct osc_diff_side *other,
	      const struct osc_diff_query *q, struct osc_diff *out)
{
	const struct osc_diff_side *side[2] = { base, other };
	struct labelled lab[2];
	struct osc_agg agg[2];
	struct aggregating a = { .side = side, .q = q, .agg = agg };
	struct osc_i64map occ_memo = { 0 }; /* "label[n]" is made once for both sides */

	memset(out, 0, sizeof(*out));
	osc_strtab_init(&out->keys);
	out->level = q->level;
	out->match = q->match;
	on_both_sides(aggregate_side, &a, q->threads);
	for (int s = 0; s < 2; s++)
		label_events(out, side[s], &agg[s], q->match, &a.occ[s], &occ_memo, &lab[s]);
	osc_i64map_release(&occ_memo);
	group(out, side, lab, q->threads);
	if (q->level == OSC_LEVEL_CATEGORY)
		category_rows(out, agg);
	grand_totals(out, agg[0].has_device && agg[1].has_device);
	for (int s = 0; s < 2; s++) {
		free(lab[s].ev);
		free(lab[s].lab);
		free(lab[s].row_lab);
		free(lab[s].occ_lab);
		occurrences_release(&a.occ[s]);
		osc_agg_release(&agg[s]);
	}
	finish_rows(out);
	osc_diff_sort(out, OSC_DIFF_DELTA, true);
}

const char *osc_diff_total_name(const struct osc_diff *d)
{
	return d->grand == OSC_MEASURE_DEVICE ? "device time" : "self time";
}

const char *osc_diff_runs_note(const struct osc_runsel *base, const struct osc_runsel *other,
			       char *buf, size_t size)
{
	size_t b = base ? base->nr_on : 1, o = other ? other->nr_on : 1;

	if (b == o)
		return NULL;
	snprintf(buf, size,
		 "base has %zu run%s selected, other %zu: totals and deltas add up different "
		 "numbers of runs (means compare; --runs and --other-runs pick as many)",
		 b, b == 1 ? "" : "s", o);
	return buf;
}

void osc_diff_release(struct osc_diff *d)
{
	osc_strtab_release(&d->keys);
	free(d->rows);
	free(d->members[0]);
	free(d->members[1]);
	free(d->order);
	free(d->by_name);
	memset(d, 0, sizeof(*d));
}

size_t osc_diff_bytes(const struct osc_diff *d)
{
	size_t per_row = sizeof(*d->rows) + (d->order ? sizeof(*d->order) : 0) +
			 (d->by_name ? sizeof(*d->by_name) : 0);

	return d->nr_all * per_row +
	       (d->nr_members[0] + d->nr_members[1]) * sizeof(*d->members[0]) +
	       osc_strtab_bytes(&d->keys);
}

/* ---- sorting and the changed-only filter -------------------------------- */

static double col_value(const struct osc_diff_row *r, enum osc_diff_col by)
{
	switch (by) {
	case OSC_DIFF_SIDE:
		return r->status == '-' ? 0 : r->status == '=' ? 1 : 2;
	case OSC_DIFF_BASE_COUNT:
		return (double)r->side[0].count;
	case OSC_DIFF_OTHER_COUNT:
		return (double)r->side[1].count;
	case OSC_DIFF_BASE_TOTAL:
		return (double)r->side[0].total;
	case OSC_DIFF_OTHER_TOTAL:
		return (double)r->side[1].total;
	case OSC_DIFF_BASE_MEAN:
		return r->side[0].mean;
	case OSC_DIFF_OTHER_MEAN:
		return r->side[1].mean;
	case OSC_DIFF_DELTA:
		return fabs((double)r->delta);
	case OSC_DIFF_DELTA_PCT:
		return r->delta_pct;
	case OSC_DIFF_RATIO:
		return r->ratio;
	case OSC_DIFF_BASE_SELF:
	case OSC_DIFF_OTHER_SELF:
		return (double)r->side[by == OSC_DIFF_OTHER_SELF].self;
	case OSC_DIFF_DELTA_SELF:
		return fabs((double)r->side[1].self - (double)r->side[0].self);
	case OSC_DIFF_BASE_DEVICE:
	case OSC_DIFF_OTHER_DEVICE:
		return (double)r->side[by == OSC_DIFF_OTHER_DEVICE].dev;
	case OSC_DIFF_DELTA_DEVICE:
		return fabs((double)r->side[1].dev - (double)r->side[0].dev);
	default:
		return 0;
	}
}

/* Every row's index in the byte order of their keys (keys are unique to a row). */
static uint32_t *rows_by_name(const struct osc_diff *d)
{
	size_t n = d->nr_all;
	uint32_t *place = osc_strtab_places(&d->keys, NULL);
	uint32_t *idx = osc_xmalloc((n ? n : 1) * sizeof(*idx));
	uint64_t *k = osc_xmalloc((n ? n : 1) * sizeof(*k));

	for (size_t r = 0; r < n; r++) {
		idx[r] = (uint32_t)r;
		k[r] = place[d->rows[r].key];
	}
	osc_radix_sort_pairs(k, idx, n);
	free(k);
	free(place);
	return idx;
}

/* d->order, made the identity first when there is none. */
static uint32_t *order_of(struct osc_diff *d)
{
	if (!d->order) {
		d->order = osc_xmalloc((d->nr_all ? d->nr_all : 1) * sizeof(*d->order));
		for (size_t i = 0; i < d->nr_all; i++)
			d->order[i] = (uint32_t)i;
	}
	return d->order;
}

/*
 * By the column's value (NaN below every number, -0 as 0) in direction,
 * ties by name ascending; by name: the names in direction. Names are
 * distinct (one row per key), so this is a total order: the shown rows
 * (d->nr) in name order (d->by_name, made once), then one radix pass,
 * stably by the value, into d->order.
 */
void osc_diff_sort(struct osc_diff *d, enum osc_diff_col by, bool descending)
{
	size_t n = d->nr, at = 0;
	uint32_t *order, *idx;
	uint8_t *shown;

	if (d->sorted && d->sorted_by == (int)by && d->sorted_desc == descending)
		return;
	order = order_of(d);
	idx = osc_xmalloc((n ? n : 1) * sizeof(*idx));
	shown = osc_xcalloc(d->nr_all ? d->nr_all : 1, 1);
	if (!d->by_name)
		d->by_name = rows_by_name(d);
	for (size_t i = 0; i < n; i++)
		shown[order[i]] = 1;
	/* the shown rows by name (ties of the other columns go by name, ascending) */
	for (size_t i = 0; i < d->nr_all; i++) {
		uint32_t r = d->by_name[by == OSC_DIFF_NAME && descending ? d->nr_all - 1 - i : i];

		if (shown[r])
			idx[at++] = r;
	}
	if (by != OSC_DIFF_NAME) { /* then stably by the column */
		uint64_t *k = osc_xmalloc((n ? n : 1) * sizeof(*k));

		for (size_t i = 0; i < n; i++)
			k[i] = osc_radix_double_key(col_value(&d->rows[idx[i]], by)) ^
			       (descending ? UINT64_MAX : 0);
		osc_radix_sort_pairs(k, idx, n);
		free(k);
	}
	memcpy(order, idx, n * sizeof(*idx)); /* the rows past nr stay (changed only) */
	d->sorted = true;
	d->sorted_by = (int)by;
	d->sorted_desc = descending;
	free(shown);
	free(idx);
}

static bool changed(const struct osc_diff_row *r, double min_pct)
{
	if (r->status != '=')
		return true;
	if (!r->side[0].total)
		return r->delta != 0;
	return r->delta != 0 && fabs(r->delta_pct) >= min_pct;
}

void osc_diff_changed_only(struct osc_diff *d, bool on, double min_pct)
{
	size_t kept = 0, other = 0;
	uint32_t *order, *rest;

	if (on || d->nr != d->nr_all) /* rows not sorted may come to be shown */
		d->sorted = false;
	d->nr = d->nr_all;
	d->top = d->top_all;
	memcpy(d->shown, d->count, sizeof(d->shown));
	if (!on)
		return;
	d->top = 0;
	/* Stable partition: kept rows first, in their order, the others after. */
	order = order_of(d);
	rest = osc_xmalloc((d->nr_all ? d->nr_all : 1) * sizeof(*rest));
	memset(d->shown, 0, sizeof(d->shown));
	for (size_t i = 0; i < d->nr_all; i++) {
		const struct osc_diff_row *row = &d->rows[order[i]];

		if (changed(row, min_pct)) {
			order[kept++] = order[i];
			d->shown[status_slot(row->status)]++;
			if (osc_diff_row_larger(row) > d->top)
				d->top = osc_diff_row_larger(row);
		} else {
			rest[other++] = order[i];
		}
	}
	memcpy(order + kept, rest, other * sizeof(*rest));
	free(rest);
	d->nr = kept;
}

/* ---- the table ---------------------------------------------------------- */

/*
 * The stat field only tells the text table which columns to drop first when
 * narrow (export_text.c's drop order): means, then ratio, delta_pct, counts.
 */
static const struct osc_column diff_columns[] = {
	{ "name", 16, OSC_ALIGN_LEFT, false, OSC_STAT_NAME },
	{ "side", 4, OSC_ALIGN_LEFT, false, OSC_STAT_NAME },
	{ "base_total_us", 9, OSC_ALIGN_RIGHT, true, OSC_STAT_TOTAL },
	{ "other_total_us", 9, OSC_ALIGN_RIGHT, true, OSC_STAT_TOTAL },
	{ "delta_us", 9, OSC_ALIGN_RIGHT, true, OSC_STAT_SELF_PCT },
	{ "delta_pct", 7, OSC_ALIGN_RIGHT, true, OSC_STAT_MEAN },
	{ "ratio", 6, OSC_ALIGN_RIGHT, true, OSC_STAT_P50 },
	{ "base_count", 5, OSC_ALIGN_RIGHT, true, OSC_STAT_COUNT },
	{ "other_count", 5, OSC_ALIGN_RIGHT, true, OSC_STAT_COUNT },
	{ "base_mean_us", 9, OSC_ALIGN_RIGHT, true, OSC_STAT_P90 },
	{ "other_mean_us", 9, OSC_ALIGN_RIGHT, true, OSC_STAT_P90 },
	{ "base_self_us", 9, OSC_ALIGN_RIGHT, true, OSC_STAT_STDDEV },
	{ "other_self_us", 9, OSC_ALIGN_RIGHT, true, OSC_STAT_STDDEV },
	{ "delta_self_us", 9, OSC_ALIGN_RIGHT, true, OSC_STAT_MIN },
	{ "base_device_us", 9, OSC_ALIGN_RIGHT, true, OSC_STAT_STDDEV },
	{ "other_device_us", 9, OSC_ALIGN_RIGHT, true, OSC_STAT_STDDEV },
	{ "delta_device_us", 9, OSC_ALIGN_RIGHT, true, OSC_STAT_MIN },
};

const struct osc_column *osc_diff_columns(size_t *nr)
{
	*nr = sizeof(diff_columns) / sizeof(diff_columns[0]);
	return diff_columns;
}

bool osc_diff_col_parse(const char *s, enum osc_diff_col *out)
{
	size_t c = osc_columns_find(diff_columns, OSC_DIFF_COL_COUNT, s);

	if (c == OSC_DIFF_COL_COUNT)
		return false;
	*out = (enum osc_diff_col)c;
	return true;
}

const char *osc_diff_cell(const struct osc_diff *d, size_t row, size_t col, char *buf,
			  size_t size)
{
	const struct osc_diff_row *r = osc_diff_row_at(d, row);

	if (!size)
		return buf;
	buf[0] = '\0';
	switch ((enum osc_diff_col)col) {
	case OSC_DIFF_NAME:
		return osc_format_text(osc_diff_key(d, r), buf, size);
	case OSC_DIFF_SIDE:
		snprintf(buf, size, "%c", r->status);
		break;
	case OSC_DIFF_BASE_COUNT:
	case OSC_DIFF_OTHER_COUNT:
		snprintf(buf, size, "%llu",
			 (unsigned long long)r->side[col == OSC_DIFF_OTHER_COUNT].count);
		break;
	case OSC_DIFF_BASE_TOTAL:
	case OSC_DIFF_OTHER_TOTAL:
		osc_format_us_int(r->side[col == OSC_DIFF_OTHER_TOTAL].total, buf, size);
		break;
	case OSC_DIFF_BASE_MEAN:
	case OSC_DIFF_OTHER_MEAN:
		osc_format_us(r->side[col == OSC_DIFF_OTHER_MEAN].mean, buf, size);
		break;
	case OSC_DIFF_DELTA:
		osc_format_us_int(r->delta, buf, size);
		break;
	case OSC_DIFF_DELTA_PCT:
		if (!isnan(r->delta_pct))
			osc_format_pct(r->delta_pct, buf, size);
		break;
	case OSC_DIFF_RATIO:
		osc_format_ratio(r->ratio, buf, size);
		break;
	case OSC_DIFF_BASE_SELF:
	case OSC_DIFF_OTHER_SELF:
		osc_format_us_int(r->side[col == OSC_DIFF_OTHER_SELF].self, buf, size);
		break;
	case OSC_DIFF_DELTA_SELF:
		osc_format_us_int(osc_sat_add(r->side[1].self, -r->side[0].self), buf, size);
		break;
	case OSC_DIFF_BASE_DEVICE:
	case OSC_DIFF_OTHER_DEVICE:
		osc_format_us_int(r->side[col == OSC_DIFF_OTHER_DEVICE].dev, buf, size);
		break;
	case OSC_DIFF_DELTA_DEVICE:
		osc_format_us_int(osc_sat_add(r->side[1].dev, -r->side[0].dev), buf, size);
		break;
	default:
		break;
	}
	return buf;
}
