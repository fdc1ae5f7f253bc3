/*
 * aggregate.c - rows of statistics per op, shape, kernel, dims, op->kernel
 * mapping, run, call path, category or module.
 *
 * A row is identified by a group key (name, shapes, launching op, run, block
 * and grid), of which each level uses a few (osc_level_keys). The scan reads
 * the trace's briefs of one kind (trace_cache.h) and gives each selected
 * event a dense group index (group_map.h); then a counting sort by group
 * index places the events into their row's slice of the members array.
 * Events are visited in model order, so each row's members come out sorted
 * by ts. Statistics come from stats.c. O(N + K) plus linear-time selection
 * per row.
 *
 * On a big trace the scan, the placing and the statistics each run on all
 * cores: every thread scans a contiguous slice with a map of its own; the
 * maps are merged in slice order, which numbers the groups as one thread
 * would, and each slice then places its events after those of the slices
 * before it, so the answer is the same on any number of threads.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opscope/analysis/aggregate.h"
#include "opscope/base/alloc.h"
#include "opscope/base/suggest.h"
#include "opscope/analysis/calltree.h"
#include "opscope/analysis/category.h"
#include "opscope/analysis/correlate.h"
#include "opscope/analysis/demangle.h"
#include "opscope/analysis/module.h"
#include "opscope/analysis/opcost.h"
#include "opscope/analysis/trace_cache.h"
#include "analysis/group_map.h"
#include "base/parallel.h"
#include "base/stats.h"

/* Fewer events than this per thread are not worth a thread. */
#define EVENTS_PER_THREAD 65536
/* How many briefs ahead the scan fetches a kernel's launching op. */
#define PREFETCH_AHEAD 16
/* Fewer rows than this per thread are not worth a thread (group_rows). */
#define ROWS_PER_THREAD 65536

/* What each level groups and whether its events are device kernels. */
static const struct {
	unsigned keys;
	bool device;
} level_info[OSC_LEVEL_COUNT] = {
	[OSC_LEVEL_OP] = { OSC_KEY_NAME, false },
	[OSC_LEVEL_SHAPE] = { OSC_KEY_NAME | OSC_KEY_SHAPE, false },
	[OSC_LEVEL_KERNEL] = { OSC_KEY_NAME, true },
	[OSC_LEVEL_DIMS] = { OSC_KEY_NAME | OSC_KEY_DIMS, true },
	[OSC_LEVEL_MAPPING] = { OSC_KEY_OP | OSC_KEY_SHAPE | OSC_KEY_NAME | OSC_KEY_DIMS, true },
	[OSC_LEVEL_RUN] = { OSC_KEY_RUN, false },
	[OSC_LEVEL_PATH] = { OSC_KEY_PATH, false },
	[OSC_LEVEL_CATEGORY] = { OSC_KEY_CATEGORY, false },
	[OSC_LEVEL_MODULE] = { OSC_KEY_MODULE, false },
};

unsigned osc_level_keys(enum osc_level l)
{
	return (unsigned)l < OSC_LEVEL_COUNT ? level_info[l].keys : OSC_KEY_NAME;
}

bool osc_level_is_device(enum osc_level l)
{
	return (unsigned)l < OSC_LEVEL_COUNT && level_info[l].device;
}

enum osc_status osc_level_parse(const char *name, enum osc_level *out, struct osc_error *err)
{
	const char *names[OSC_LEVEL_COUNT];
	char valid[128] = "";
	size_t len = 0;
	const char *meant;

	if (osc_level_from_name(name, out))
		return OSC_OK;
	for (int l = 0; l < OSC_LEVEL_COUNT; l++) {
		names[l] = osc_level_name((enum osc_level)l);
		if (len < sizeof(valid))
			len += (size_t)snprintf(valid + len, sizeof(valid) - len, "%s%s",
						l ? ", " : "", names[l]);
	}
	meant = osc_suggest(name, names, OSC_LEVEL_COUNT);
	return osc_error_set(err, OSC_USAGE, "--by", OSC_NO_OFFSET, NULL,
			     "unknown level '%s' (%s%s%svalid: %s)", name,
			     meant ? "did you mean " : "", meant ? meant : "", meant ? "? " : "",
			     valid);
}

/* Everything one aggregation reads; the scan threads share it read-only. */
struct agg_ctx {
	const struct osc_trace *t;
	const struct osc_runs *runs;
	const struct osc_query *q;
	const struct osc_runsel *sel; /* NULL: every event */
	const uint32_t *launcher;     /* per event, the launching op (may be NULL) */
	const uint8_t *cat;           /* per event, its category, when needed (else NULL) */
	unsigned keys;
	bool device;
	/* keys with the op, at the device levels: per kernel brief, the op_shape
	   id of the (op, shape) its key holds, OSC_NONE when no host op has it */
	uint32_t *op_shape_of;
	uint32_t *op_count;           /* ... and per op_shape id, the selected host ops */
	const struct osc_calltree *host; /* path level: the trace's host tree */
	const struct osc_mtree *paths;   /* path level: its merge over the selected runs */
	struct osc_mtree own;         /* that merge, when the trace's own does not serve */
	const struct osc_op_cost *cost;  /* host levels: per node of tree */
	const struct osc_calltree *tree; /* the host tree (cost's nodes) */
};

/* One thread's slice of a scan over the briefs of one kind. */
struct slice {
	const struct agg_ctx *c;
	const struct osc_brief *b;
	size_t from, to;       /* briefs b[from .. to) */
	bool device;           /* the briefs are of device events */
	unsigned keys;
	bool all_ops;          /* mapping's op count: every host op, no member list */
	struct osc_filter_cache fc;
	struct osc_group_map map;
	uint32_t *pick, *gid;  /* selected briefs (indices into b) and their group in map */
	size_t nr;
	uint32_t *global;      /* group in map -> group of the merged map */
	size_t *cursor;        /* per group in map: where its next member goes */
	bool costs;            /* host ops of a host level: sum their costs */
	struct osc_op_cost *sum; /* costs: per group in map, the members' summed (room:
				    one per brief, osc_xroom) */
	int64_t busy;          /* costs: self time of every op in the runs (unfiltered) */
};

/* A scan: its slices, and the map that merges theirs. */
struct scan {
	struct slice *s;
	size_t nr;
	struct osc_group_map map;
	struct osc_op_cost *sum; /* per merged group, when the slices sum costs */
	int64_t busy;            /* the slices' busy, added up */
};

/* The launching op of device event ev: its index, or OSC_NONE. */
static uint32_t launcher_of(const struct agg_ctx *c, uint32_t ev)
{
	return c->launcher ? c->launcher[ev] : OSC_NONE;
}

/* b passes the filter (its run was checked). */
static bool in_selection(struct slice *s, const struct osc_brief *b)
{
	const struct agg_ctx *c = s->c;

	if (osc_filter_cache_names(&s->fc, b->name, b->op))
		return true;
	/* A kernel also passes by the op that launched it. */
	return s->device && launcher_of(c, b->event) != OSC_NONE &&
	       osc_filter_cache_event(&s->fc, launcher_of(c, b->event));
}

/* Fill k for the event of b; false when it has no row (unknown op in mapping). */
static bool make_key(const struct slice *s, const struct osc_brief *b, struct osc_group_key *k)
{
	const struct agg_ctx *c = s->c;
	uint32_t ev = b->event;
	osc_str op = OSC_AGG_UNKNOWN, shape = OSC_AGG_UNKNOWN;

	osc_group_key_init(k);
	if (s->device) {
		uint32_t l = launcher_of(c, ev);

		if (l != OSC_NONE) {
			op = osc_trace_op(c->t, l);
			shape = c->t->events[l].shape;
		} else if (b->op != b->name) { /* an ORT kernel's own args.op_name */
			op = b->op;
		}
	} else {
		shape = b->shape;
		/* the pair's id stands for both; with only one of them it would split rows */
		if ((s->keys & (OSC_KEY_NAME | OSC_KEY_SHAPE)) == (OSC_KEY_NAME | OSC_KEY_SHAPE))
			k->op_shape = b->op_shape;
	}
	if (s->keys & OSC_KEY_NAME)
		k->name = s->device ? osc_names_key(c->q->names, b->name) : b->op;
	if (s->keys & OSC_KEY_SHAPE)
		k->shape = shape;
	if (s->keys & OSC_KEY_OP) {
		if (op == OSC_AGG_UNKNOWN)
			return false;
		k->op = op;
	}
	if ((s->keys & OSC_KEY_DIMS) && s->device && b->kernel != OSC_NONE) {
		const struct osc_kernel *kf = &c->t->kernels[b->kernel];

		memcpy(k->dims, kf->block, sizeof(kf->block));
		memcpy(k->dims + 3, kf->grid, sizeof(kf->grid));
	}
	if (s->keys & OSC_KEY_RUN) {
		k->run = c->runs ? c->runs->run_of[ev] : 0;
		if (k->run == OSC_NONE)
			return false;
		k->name = c->runs ? c->runs->runs[k->run].name : OSC_STR_EMPTY;
	}
	if (s->keys & OSC_KEY_PATH) {
		uint32_t n = c->host->node_of ? c->host->node_of[ev] : OSC_NONE;

		k->node = n != OSC_NONE ? osc_mtree_of(c->paths, n) : OSC_NONE;
		if (k->node == OSC_NONE)
			return false;
		k->name = b->name; /* the leaf, as the path names it */
	}
	if (s->keys & OSC_KEY_CATEGORY)
		k->cat = c->cat[ev];
	return true;
}

/* The (op, shape) key of a mapping row or of a host op. */
static struct osc_group_key op_key(osc_str op, osc_str shape)
{
	struct osc_group_key k;

	osc_group_key_init(&k);
	k.name = op;
	k.shape = shape;
	return k;
}

/* The costs of host op ev (zero for an event outside the tree). */
static struct osc_op_cost cost_of(const struct agg_ctx *c, uint32_t ev)
{
	uint32_t n = c->tree->node_of[ev];

	return n != OSC_NONE ? c->cost[n] : (struct osc_op_cost){ 0 };
}

/*
 * Add costs c to the sums in *to; first: *to holds none yet, and is written
 * without being read (a fresh page read before it is written costs a second
 * fault, and a flush of every core's TLB).
 */
static void add_sum(struct osc_op_cost *to, const struct osc_op_cost *c, bool first)
{
	if (first) {
		*to = *c;
		return;
	}
	to->self = osc_sat_add(to->self, c->self);
	to->dev = osc_sat_add(to->dev, c->dev);
	to->dev_total = osc_sat_add(to->dev_total, c->dev_total);
	to->kernels += c->kernels;
}

/* The bytes of slice s's room for cost sums (osc_xroom): a group per brief at most. */
static size_t sum_room(const struct slice *s)
{
	return (s->to - s->from + 1) * sizeof(*s->sum);
}

/* Thread i: select, key and count its slice's briefs, and list them unless all_ops. */
static void scan_slice(void *arg, size_t i)
{
	struct slice *s = &((struct slice *)arg)[i];
	const struct agg_ctx *c = s->c;
	bool mapping = c->q->level == OSC_LEVEL_MAPPING && !c->q->keys && !s->all_ops;

	s->pick = s->all_ops ? NULL : osc_xmalloc((s->to - s->from + 1) * sizeof(*s->pick));
	s->gid = s->all_ops ? NULL : osc_xmalloc((s->to - s->from + 1) * sizeof(*s->gid));
	s->sum = s->costs ? osc_xroom(sum_room(s)) : NULL;
	for (size_t j = s->from; j < s->to; j++) {
		const struct osc_brief *b = &s->b[j];
		struct osc_group_key k;
		struct osc_op_cost cost = { 0 };
		uint32_t g;

		/* a kernel's launching op is a random place in the event table */
		if (s->device && c->launcher && j + PREFETCH_AHEAD < s->to &&
		    c->launcher[s->b[j + PREFETCH_AHEAD].event] != OSC_NONE)
			__builtin_prefetch(&c->t->events[c->launcher[s->b[j + PREFETCH_AHEAD].event]]);

		if (c->sel && !osc_runsel_has_event(c->sel, c->runs, b->event))
			continue;
		if (s->costs) {
			cost = cost_of(c, b->event);
			s->busy = osc_sat_add(s->busy, cost.self);
		}
		if (!s->all_ops && c->q->only && !c->q->only[b->event])
			continue;
		if (!in_selection(s, b) || !make_key(s, b, &k))
			continue;
		if (s->device && c->op_shape_of) /* the pair's id stands for both: no split */
			k.op_shape = c->op_shape_of[j];
		/* profile_explorer drops kernels of ops it has not seen */
		if (mapping && (k.op_shape == OSC_NONE || !c->op_count[k.op_shape]))
			continue;
		g = osc_group_map_index(&s->map, &k);
		if (s->costs)
			add_sum(&s->sum[g], &cost, !s->map.count[g]);
		s->map.count[g]++;
		if (s->pick) {
			s->pick[s->nr] = (uint32_t)j;
			s->gid[s->nr++] = g;
		}
	}
}

/*
 * Scan the briefs of kind `kind`, keyed by `keys`, into sc: on q->threads
 * threads, else one per EVENTS_PER_THREAD events up to the number of cores,
 * then the slices' maps merged into sc->map in slice order, their cost sums
 * (in whole huge pages: a million groups' are 32 MB) and busy time with
 * them. Each slice's map has room for a group per brief (osc_xroom: only
 * what is used is touched). direct (when not 0): the key field of a direct
 * table of ndirect ids for every map (osc_group_map_direct).
 */
static void scan(const struct agg_ctx *c, enum osc_kind kind, unsigned keys, bool all_ops,
		 unsigned direct, size_t ndirect, struct scan *sc)
{
	size_t nb, n, merged = 0;
	const struct osc_brief *b = osc_trace_briefs(c->t, kind, &nb);

	n = osc_parallel_parts(nb, EVENTS_PER_THREAD);
	if (c->q->threads) { /* as asked, but at most one per brief */
		n = c->q->threads > OSC_MAX_THREADS ? OSC_MAX_THREADS : c->q->threads;
		n = n > nb ? nb : n;
		n = n < 1 ? 1 : n;
	}
	memset(sc, 0, sizeof(*sc));
	sc->nr = n;
	sc->s = osc_xcalloc(n, sizeof(*sc->s));
	if (direct)
		osc_group_map_direct(&sc->map, direct, ndirect);
	for (size_t i = 0; i < n; i++) {
		struct slice *s = &sc->s[i];

		*s = (struct slice){ .c = c, .b = b, .from = nb * i / n, .to = nb * (i + 1) / n,
				     .device = osc_kind_is_device(kind), .keys = keys,
				     .all_ops = all_ops,
				     .costs = c->cost && !all_ops && !osc_kind_is_device(kind) &&
					      c->q->reads != OSC_READS_MEMBERS };
		osc_filter_cache_init(&s->fc, c->q->filter, c->t);
		if (direct)
			osc_group_map_direct(&s->map, direct, ndirect);
		osc_group_map_reserve(&s->map, s->to - s->from); /* a group per brief at most */
	}
	osc_parallel_run(n, scan_slice, sc->s);
	for (size_t i = 0; i < n; i++)
		merged += sc->s[i].map.nr;
	osc_group_map_reserve(&sc->map, merged); /* at most the slices' groups */
	if (n && sc->s[0].costs)
		sc->sum = osc_xmalloc_big(merged ? merged : 1, sizeof(*sc->sum));
	for (size_t i = 0; i < n; i++) {
		struct slice *s = &sc->s[i];

		s->global = osc_xmalloc((s->map.nr ? s->map.nr : 1) * sizeof(*s->global));
		for (size_t g = 0; g < s->map.nr; g++) {
			uint32_t to = osc_group_map_index(&sc->map, &s->map.keys[g]);

			s->global[g] = to;
			if (sc->sum)
				add_sum(&sc->sum[to], &s->sum[g], !sc->map.count[to]);
			sc->map.count[to] += s->map.count[g];
		}
		osc_filter_cache_release(&s->fc);
		sc->busy = osc_sat_add(sc->busy, s->busy);
	}
}

static void scan_release(struct scan *sc)
{
	for (size_t i = 0; i < sc->nr; i++) {
		struct slice *s = &sc->s[i];

		free(s->pick);
		free(s->gid);
		free(s->global);
		free(s->cursor);
		osc_room_free(s->sum, sum_room(s));
		osc_group_map_release(&s->map);
	}
	free(sc->s);
	free(sc->sum);
	osc_group_map_release(&sc->map);
}

/* The number of briefs of kind k. */
static size_t nr_briefs(const struct osc_trace *t, enum osc_kind k)
{
	size_t nr;

	osc_trace_briefs(t, k, &nr);
	return nr;
}

/*
 * The op_shape id of each host op's (op, shape) pair (osc_brief), found by
 * the pair: for kernels whose launching op's brief is not at its node.
 */
static void index_op_shapes(const struct osc_brief *h, size_t nh, struct osc_group_map *m,
			    uint32_t **id)
{
	size_t alloc = 0;

	for (size_t j = 0; j < nh; j++) {
		struct osc_group_key k = op_key(h[j].op, h[j].shape);
		size_t known = m->nr;
		uint32_t g = osc_group_map_index(m, &k);

		if (m->nr > known) { /* a new pair */
			OSC_GROW(*id, m->nr, alloc);
			(*id)[g] = h[j].op_shape;
		}
	}
}

/*
 * Keys with the op, at the device levels: c->op_shape_of. A kernel's (op,
 * shape) is its launching op's, whose brief (and op_shape) sits at the op's
 * node of the host tree, as both hold the ops in model order; the pairs of
 * the rest (an ORT kernel's own op name, an op outside the tree) are looked
 * up by their text, in a map made only for them.
 */
static void kernel_op_shapes(struct agg_ctx *c)
{
	size_t nk, nh;
	const struct osc_brief *k = osc_trace_briefs(c->t, OSC_KIND_KERNEL, &nk);
	const struct osc_brief *h = osc_trace_briefs(c->t, OSC_KIND_HOST_OP, &nh);
	const uint32_t *node_of = osc_trace_host_tree(c->t)->node_of;
	struct osc_group_map pairs = { 0 };
	uint32_t *id = NULL; /* per group of pairs: its op_shape */
	bool indexed = false;
	struct slice s = { .c = c, .device = true, .keys = OSC_KEY_OP | OSC_KEY_SHAPE };

	c->op_shape_of = osc_xmalloc_big(nk ? nk : 1, sizeof(*c->op_shape_of));
	for (size_t j = 0; j < nk; j++) {
		uint32_t l = c->launcher[k[j].event], n = l != OSC_NONE ? node_of[l] : OSC_NONE;
		struct osc_group_key pair;
		uint32_t g;

		if (n != OSC_NONE && n < nh && h[n].event == l) {
			c->op_shape_of[j] = h[n].op_shape;
			continue;
		}
		c->op_shape_of[j] = OSC_NONE;
		if (!make_key(&s, &k[j], &pair))
			continue; /* no op */
		if (!indexed)
			index_op_shapes(h, nh, &pairs, &id);
		indexed = true;
		pair = op_key(pair.op, pair.shape);
		if ((g = osc_group_map_find(&pairs, &pair)) != UINT32_MAX)
			c->op_shape_of[j] = id[g];
	}
	osc_group_map_release(&pairs);
	free(id);
}

/* Mapping: count the selected host ops per op_shape id into c->op_count. */
static void count_ops(struct agg_ctx *c)
{
	struct scan sc;

	c->op_count = osc_xcalloc(osc_trace_nr_op_shapes(c->t) + 1, sizeof(*c->op_count));
	scan(c, OSC_KIND_HOST_OP, OSC_KEY_NAME | OSC_KEY_SHAPE, true,
	     OSC_KEY_NAME | OSC_KEY_SHAPE, osc_trace_nr_op_shapes(c->t), &sc);
	for (size_t g = 0; g < sc.map.nr; g++)
		c->op_count[sc.map.keys[g].op_shape] += sc.map.count[g];
	scan_release(&sc);
}

/* Where group_rows' threads put the members. */
struct place {
	struct slice *s;
	uint32_t *members;
	int64_t *dur;
	struct osc_op_cost *cost;       /* NULL at the device levels */
	const struct agg_ctx *c;
};

static void place_slice(void *arg, size_t i)
{
	struct place *p = arg;
	struct slice *s = &p->s[i];

	for (size_t k = 0; k < s->nr; k++) {
		const struct osc_brief *b = &s->b[s->pick[k]];
		size_t at = s->cursor[s->gid[k]]++;

		p->members[at] = b->event;
		if (p->dur)
			p->dur[at] = b->dur;
		if (p->cost)
			p->cost[at] = cost_of(p->c, b->event);
	}
}

/* What fill_part's threads read to write the rows. */
struct fill {
	const struct agg_ctx *c;
	const struct scan *sc;
	struct osc_agg *out;
	const size_t *first; /* per merged group: where its members start */
	size_t parts;
};

/* Part i of the rows: each from its group's key and cost sums. */
static void fill_part(void *arg, size_t i)
{
	const struct fill *f = arg;
	const struct osc_group_map *m = &f->sc->map;
	const struct osc_op_cost *sum = f->sc->sum;

	for (size_t g = m->nr * i / f->parts; g < m->nr * (i + 1) / f->parts; g++) {
		struct osc_agg_row *row = &f->out->rows[g];
		const struct osc_group_key *k = &m->keys[g];

		row->id = (uint32_t)g;
		row->key = k->name;
		row->shape = k->shape;
		row->op = k->op;
		row->run = k->run;
		row->path = OSC_STR_NONE;
		row->category = f->c->keys & OSC_KEY_CATEGORY ? k->cat : OSC_CAT_OTHER;
		row->module = OSC_NONE;
		memcpy(row->dims, k->dims, sizeof(row->dims));
		if (k->run != OSC_NONE && f->c->runs)
			row->span = f->c->runs->runs[k->run].dur;
		if (sum) {
			row->self = sum[g].self;
			row->dev = sum[g].dev;
			row->dev_total = sum[g].dev_total;
			row->kernels = sum[g].kernels;
		}
		row->first = f->first[g];
		row->nr = m->count[g];
	}
}

/*
 * Turn the merged groups into rows (with the scan's cost sums; a million
 * rows on every core) and place the selected events into members; their
 * durations go to *dur in the same order (a new array), and when the query
 * asks for distributions of the other measures, their costs to *cost (a
 * new array; else NULL).
 */
static void group_rows(const struct agg_ctx *c, struct scan *sc, struct osc_agg *out,
		       int64_t **dur, struct osc_op_cost **cost)
{
	const struct osc_group_map *m = &sc->map;
	size_t pos = 0, *next = osc_xmalloc((m->nr ? m->nr : 1) * sizeof(*next));
	struct fill f = { .c = c, .sc = sc, .out = out, .first = next,
			  .parts = osc_parallel_parts(m->nr, ROWS_PER_THREAD) };
	struct place p;

	for (size_t g = 0; g < m->nr; g++) {
		next[g] = pos;
		pos += m->count[g];
	}
	out->rows = osc_xcalloc_big(m->nr ? m->nr : 1, sizeof(*out->rows));
	out->nr = m->nr;
	osc_parallel_run(f.parts, fill_part, &f);
	/* each slice's members of a group follow those of the slices before it */
	for (size_t i = 0; i < sc->nr; i++) {
		struct slice *s = &sc->s[i];

		s->cursor = osc_xmalloc((s->map.nr ? s->map.nr : 1) * sizeof(*s->cursor));
		for (size_t g = 0; g < s->map.nr; g++) {
			s->cursor[g] = next[s->global[g]];
			next[s->global[g]] += s->map.count[g];
		}
	}
	free(next);
	out->members = osc_xmalloc((pos ? pos : 1) * sizeof(*out->members));
	out->nr_members = pos;
	*dur = c->q->reads == OSC_READS_MEMBERS ? NULL : osc_xmalloc((pos ? pos : 1) * sizeof(**dur));
	*cost = sc->sum && c->q->dists ? osc_xmalloc((pos ? pos : 1) * sizeof(**cost)) : NULL;
	p = (struct place){ .s = sc->s, .members = out->members, .dur = *dur, .cost = *cost,
			    .c = c };
	osc_parallel_run(sc->nr, place_slice, &p);
}

/*
 * Keys with the op: each row's op instances and the kernel time of its (op,
 * shape), by the op_shape id in the key of its group in map.
 */
static void op_columns(struct agg_ctx *c, const struct osc_group_map *map, struct osc_agg *out)
{
	int64_t *sum = osc_xcalloc(osc_trace_nr_op_shapes(c->t) + 1, sizeof(*sum));

	for (size_t r = 0; r < out->nr; r++) {
		uint32_t os = map->keys[out->rows[r].id].op_shape;

		if (os != OSC_NONE)
			sum[os] = osc_sat_add(sum[os], out->rows[r].total);
	}
	for (size_t r = 0; r < out->nr; r++) {
		uint32_t os = map->keys[out->rows[r].id].op_shape;

		if (os == OSC_NONE || !c->op_count[os])
			continue;
		out->rows[r].op_count = c->op_count[os];
		out->rows[r].op_total = sum[os];
	}
	free(sum);
}

/* The statistics of rows [cut[i], cut[i + 1]) on thread i. */
struct stats_job {
	struct osc_agg *out;
	int64_t *dur;
	bool device;                    /* a device level: device time = total */
	const struct osc_op_cost *cost; /* the members' costs when dists asks for any */
	unsigned dists;                 /* 1 << measure: distributions to compute */
	bool sums_only;                 /* osc_stats_sums, not osc_stats_compute */
	int64_t *scratch[OSC_MAX_THREADS]; /* per thread: one row's values of a measure */
	size_t cut[OSC_MAX_THREADS + 1];
};

/* Measure m of a member's costs. */
static int64_t cost_value(const struct osc_op_cost *c, enum osc_measure m)
{
	return m == OSC_MEASURE_SELF ? c->self : m == OSC_MEASURE_DEVICE ? c->dev : c->dev_total;
}

/* The distributions of the other measures asked for. */
static void cost_stats(struct stats_job *j, size_t i, struct osc_agg_row *row)
{
	const struct osc_op_cost *c = j->cost + row->first;

	for (int m = OSC_MEASURE_SELF; m < OSC_MEASURE_NR; m++) {
		struct osc_stats s;

		if (!(j->dists >> m & 1))
			continue;
		for (size_t k = 0; k < row->nr; k++)
			j->scratch[i][k] = cost_value(&c[k], (enum osc_measure)m);
		osc_stats_compute(j->scratch[i], row->nr, &s);
		j->out->dist[m][row->id] = (struct osc_dist){ s.min, s.max, s.mean, s.p50,
							      s.p90, s.p99, s.stddev };
	}
}

static void stats_rows(void *arg, size_t i)
{
	struct stats_job *j = arg;
	size_t most = 0;

	for (size_t r = j->cut[i]; r < j->cut[i + 1]; r++)
		most = j->out->rows[r].nr > most ? j->out->rows[r].nr : most;
	j->scratch[i] = j->cost && j->dists ? osc_xmalloc((most ? most : 1) * sizeof(int64_t))
					    : NULL;
	for (size_t r = j->cut[i]; r < j->cut[i + 1]; r++) {
		struct osc_agg_row *row = &j->out->rows[r];
		struct osc_stats s;

		if (j->sums_only)
			osc_stats_sums(j->dur + row->first, row->nr, &s);
		else
			osc_stats_compute(j->dur + row->first, row->nr, &s);
		row->count = s.count;
		row->total = s.total;
		row->min = s.min;
		row->max = s.max;
		row->mean = s.mean;
		row->p50 = s.p50;
		row->p90 = s.p90;
		row->p99 = s.p99;
		row->stddev = s.stddev;
		if (j->cost)
			cost_stats(j, i, row);
		if (j->device) /* a device event's own time is its device time */
			row->dev = row->total;
	}
	free(j->scratch[i]);
}

/* dur, cost: the members' durations and costs, in members order (reordered here). */
static void compute_stats(int64_t *dur, const struct osc_op_cost *cost, const struct osc_query *q,
			  bool device, struct osc_agg *out, size_t threads)
{
	struct stats_job j = { .out = out, .dur = dur, .device = device, .cost = cost,
			       .dists = cost && q->reads == OSC_READS_ALL ? q->dists : 0,
			       .sums_only = q->reads != OSC_READS_ALL };
	size_t r = 0;

	for (int m = OSC_MEASURE_SELF; m < OSC_MEASURE_NR; m++)
		if (j.dists >> m & 1)
			out->dist[m] = osc_xcalloc(out->nr ? out->nr : 1, sizeof(*out->dist[m]));
	/* rows cut into runs of about equal member counts */
	for (size_t i = 0; i < threads; i++) {
		j.cut[i] = r;
		while (r < out->nr && out->rows[r].first < out->nr_members * (i + 1) / threads)
			r++;
	}
	j.cut[threads] = out->nr;
	osc_parallel_run(threads, stats_rows, &j);
	for (r = 0; r < out->nr; r++)
		out->grand_total = osc_sat_add(out->grand_total, out->rows[r].total);
}

/*
 * The run a device event counts in: at the host levels that of the op that
 * launched it (an ORT kernel matched by op name, or one tied by a flow, may
 * start in another run), so that an op's device time stays within its run's;
 * else its own (runs.h). OSC_NONE outside every run.
 */
static uint32_t device_run(const struct agg_ctx *c, const uint32_t *op, uint32_t ev)
{
	if (!c->runs)
		return 0;
	if (op && op[ev] != OSC_NONE)
		ev = op[ev];
	return c->runs->run_of[ev];
}

/* The kinds of device events. */
static const enum osc_kind device[] = { OSC_KIND_KERNEL, OSC_KIND_MEMCPY, OSC_KIND_MEMSET };

/* Device event ev counts in the rows: its run (device_run) is selected and q->only keeps it. */
static bool device_selected(const struct agg_ctx *c, const uint32_t *op, uint32_t ev)
{
	uint32_t run = device_run(c, op, ev);

	if (c->sel && (run >= c->sel->nr_runs || !c->sel->on[run]))
		return false;
	return !c->q->only || c->q->only[ev];
}

/*
 * The device time and events of each run (device_run), and with op, of
 * those no op launched, per reason (no_op*: slot run * OSC_UNATTRIBUTED_COUNT
 * + why); run nr_runs: outside every run.
 */
struct run_device {
	int64_t *time, *no_op_time;
	uint64_t *count, *no_op;
	size_t nr_runs;
};

static void run_device_alloc(struct run_device *d, size_t nr_runs)
{
	d->nr_runs = nr_runs;
	d->time = osc_xcalloc(nr_runs + 1, sizeof(*d->time));
	d->count = osc_xcalloc(nr_runs + 1, sizeof(*d->count));
	d->no_op_time = osc_xcalloc((nr_runs + 1) * OSC_UNATTRIBUTED_COUNT,
				    sizeof(*d->no_op_time));
	d->no_op = osc_xcalloc((nr_runs + 1) * OSC_UNATTRIBUTED_COUNT, sizeof(*d->no_op));
}

static void run_device_release(struct run_device *d)
{
	free(d->time);
	free(d->count);
	free(d->no_op_time);
	free(d->no_op);
}

/* One thread's share of device_by_run: briefs b[from .. to). */
struct device_part {
	const struct agg_ctx *c;
	const uint32_t *op;
	const struct osc_correlation *corr; /* with op: why an event has no op */
	const struct osc_brief *b;
	size_t from, to;
	struct run_device sums;
};

static void device_part_run(void *arg, size_t i)
{
	struct device_part *p = &((struct device_part *)arg)[i];
	const struct osc_correlation *corr = p->corr;

	for (size_t j = p->from; j < p->to; j++) {
		uint32_t ev = p->b[j].event, run = device_run(p->c, p->op, ev);
		size_t slot = run < p->sums.nr_runs ? run : p->sums.nr_runs;

		p->sums.time[slot] = osc_sat_add(p->sums.time[slot], p->b[j].dur);
		p->sums.count[slot]++;
		if (p->op && p->op[ev] == OSC_NONE) {
			uint32_t d = corr->dev_of[ev];
			size_t why = d != OSC_NONE ? corr->devs[d].unattributed
						   : OSC_UNATTRIBUTED_NO_LINK;

			slot = slot * OSC_UNATTRIBUTED_COUNT + why;
			p->sums.no_op_time[slot] = osc_sat_add(p->sums.no_op_time[slot],
							       p->b[j].dur);
			p->sums.no_op[slot]++;
		}
	}
}

/*
 * Sum the device events (kernels, memcpy, memset) per run into out, on all
 * cores; with op (the launchers), also those of no op, per reason.
 */
static void device_by_run(const struct agg_ctx *c, const uint32_t *op, struct run_device *out)
{
	const struct osc_correlation *corr = op ? osc_trace_correlation(c->t) : NULL;
	size_t slots;

	run_device_alloc(out, c->runs ? c->runs->nr : 1);
	slots = (out->nr_runs + 1) * OSC_UNATTRIBUTED_COUNT;
	for (size_t k = 0; k < sizeof(device) / sizeof(device[0]); k++) {
		size_t nb, n;
		const struct osc_brief *b = osc_trace_briefs(c->t, device[k], &nb);
		struct device_part *p;

		n = osc_parallel_parts(nb, EVENTS_PER_THREAD);
		p = osc_xcalloc(n, sizeof(*p));
		for (size_t i = 0; i < n; i++) {
			p[i] = (struct device_part){ .c = c, .op = op, .corr = corr, .b = b,
						     .from = nb * i / n, .to = nb * (i + 1) / n };
			run_device_alloc(&p[i].sums, out->nr_runs);
		}
		osc_parallel_run(n, device_part_run, p);
		for (size_t i = 0; i < n; i++) {
			for (size_t r = 0; r <= out->nr_runs; r++) {
				out->time[r] = osc_sat_add(out->time[r], p[i].sums.time[r]);
				out->count[r] += p[i].sums.count[r];
			}
			for (size_t s = 0; s < slots; s++) {
				out->no_op_time[s] = osc_sat_add(out->no_op_time[s],
								 p[i].sums.no_op_time[s]);
				out->no_op[s] += p[i].sums.no_op[s];
			}
			run_device_release(&p[i].sums);
		}
		free(p);
	}
}

/*
 * The device-time base of the percentages (aggregate.h), over the selected
 * runs and unfiltered (from dr), and the runs' wall time. (The host busy
 * time comes from the scan of the host ops.) The wall time is the runs'
 * spans (runs.h): nested runs count once.
 */
static void bases(const struct agg_ctx *c, const struct run_device *dr, struct osc_agg *out)
{
	if (c->runs)
		out->wall = osc_runsel_wall(c->runs, c->sel);
	for (size_t r = 0; r <= dr->nr_runs; r++) {
		if (c->sel && (r >= c->sel->nr_runs || r >= dr->nr_runs || !c->sel->on[r]))
			continue;
		out->device_time = osc_sat_add(out->device_time, dr->time[r]);
		for (size_t why = 0; why < OSC_UNATTRIBUTED_COUNT; why++) {
			size_t slot = r * OSC_UNATTRIBUTED_COUNT + why;

			out->unattributed[why] = osc_sat_add(out->unattributed[why],
							     dr->no_op_time[slot]);
			out->nr_unattributed[why] += dr->no_op[slot];
		}
	}
}

/*
 * Run level: each row's device time and device events are those of its run
 * (not only those its ops launched: dr), and its device busy time is the
 * union of every device event's window within the run's.
 */
static void run_device(const struct agg_ctx *c, const struct run_device *dr, struct osc_agg *out)
{
	size_t nspans;
	const struct osc_span *spans = osc_trace_device_spans(c->t, &nspans);

	for (size_t r = 0; r < out->nr; r++) {
		struct osc_agg_row *row = &out->rows[r];
		int64_t from = c->runs ? c->runs->runs[row->run].ts : INT64_MIN;
		int64_t to = c->runs ? osc_sat_add(from, row->span) : INT64_MAX;

		row->events = c->runs ? c->runs->runs[row->run].nr_events : c->t->nr_events;
		row->dev = row->run < dr->nr_runs ? dr->time[row->run] : 0;
		row->kernels = row->run < dr->nr_runs ? dr->count[row->run] : 0;
		row->dev_busy = osc_spans_within(spans, nspans, from, to);
	}
}

/* A new row with no member at the end of out's rows; returns its index. */
static size_t empty_row(struct osc_agg *out)
{
	struct osc_agg_row *row;

	out->rows = osc_xreallocarray(out->rows, out->nr + 1, sizeof(*out->rows));
	for (int m = 0; m < OSC_MEASURE_NR; m++) {
		if (!out->dist[m])
			continue;
		out->dist[m] = osc_xreallocarray(out->dist[m], out->nr + 1, sizeof(*out->dist[m]));
		memset(&out->dist[m][out->nr], 0, sizeof(*out->dist[m]));
	}
	row = &out->rows[out->nr];
	memset(row, 0, sizeof(*row));
	row->id = (uint32_t)out->nr;
	row->shape = row->op = OSC_AGG_UNKNOWN;
	row->path = OSC_STR_NONE;
	row->run = OSC_NONE;
	row->category = OSC_CAT_OTHER;
	row->module = OSC_NONE;
	memset(row->dims, 0xff, sizeof(row->dims));
	row->first = out->nr_members;
	return out->nr++;
}

/* Category level: the row of category cat, added (no ops) when it has none. */
static size_t category_row(struct osc_agg *out, size_t *row_of, uint8_t cat)
{
	if (row_of[cat] == SIZE_MAX) {
		row_of[cat] = empty_row(out);
		out->rows[row_of[cat]].category = cat;
	}
	return row_of[cat];
}

/*
 * Category level: each row's device time and device events are the device
 * events of its category (aggregate.h), not those its ops launched.
 */
static void category_device(const struct agg_ctx *c, struct osc_agg *out)
{
	const uint32_t *op = out->has_device ? osc_trace_launchers(c->t) : NULL;
	size_t row_of[OSC_CAT_NR];
	struct osc_filter_cache fc;

	for (size_t i = 0; i < OSC_CAT_NR; i++)
		row_of[i] = SIZE_MAX;
	for (size_t r = 0; r < out->nr; r++) {
		row_of[out->rows[r].category] = r;
		out->rows[r].dev = 0;
		out->rows[r].kernels = 0;
	}
	osc_filter_cache_init(&fc, c->q->filter, c->t);
	for (size_t k = 0; k < sizeof(device) / sizeof(device[0]); k++) {
		size_t nb;
		const struct osc_brief *b = osc_trace_briefs(c->t, device[k], &nb);

		for (size_t j = 0; j < nb; j++) {
			uint32_t ev = b[j].event, l = op ? op[ev] : OSC_NONE;
			struct osc_agg_row *row;
			size_t r;

			if (!device_selected(c, op, ev))
				continue;
			if (!osc_filter_cache_names(&fc, b[j].name, b[j].op) &&
			    (l == OSC_NONE || !osc_filter_cache_event(&fc, l)))
				continue;
			r = category_row(out, row_of, c->cat[ev]); /* may move the rows */
			row = &out->rows[r];
			row->dev = osc_sat_add(row->dev, b[j].dur);
			row->kernels++;
		}
	}
	osc_filter_cache_release(&fc);
}

/* Op and kernel levels: each row's most frequent category among its members. */
static void row_categories(const struct agg_ctx *c, struct osc_agg *out)
{
	for (size_t r = 0; r < out->nr; r++) {
		struct osc_agg_row *row = &out->rows[r];
		size_t n[OSC_CAT_NR] = { 0 }, best = OSC_CAT_OTHER;

		for (size_t i = row->first; i < row->first + row->nr; i++)
			n[c->cat[out->members[i]]]++;
		for (size_t k = 0; k < OSC_CAT_NR; k++)
			if (n[k] > n[best] || (n[k] == n[best] && k < best && n[k]))
				best = k;
		row->category = (uint32_t)best;
	}
}

/*
 * Module level: one row per module path with a selected instance that
 * passes the filter (by its event's name); the instances are the members
 * (their durations to *dur, a new array), their self times summed. row_of
 * (per module node) receives each node's row, SIZE_MAX for none.
 */
static void module_rows(const struct agg_ctx *c, const struct osc_modules *m, size_t *row_of,
			struct osc_agg *out, int64_t **dur)
{
	struct osc_filter_cache fc;
	uint8_t *keep = osc_xcalloc(m->nr_inst ? m->nr_inst : 1, 1);
	size_t *count = osc_xcalloc(m->nr ? m->nr : 1, sizeof(*count)), pos = 0;

	osc_filter_cache_init(&fc, c->q->filter, c->t);
	for (size_t i = 0; i < m->nr_inst; i++) {
		uint32_t ev = m->inst[i];

		if ((c->sel && !osc_runsel_has_event(c->sel, c->runs, ev)) ||
		    (c->q->only && !c->q->only[ev]) || !osc_filter_cache_event(&fc, ev))
			continue;
		keep[i] = 1;
		count[m->inst_node[i]]++;
	}
	osc_filter_cache_release(&fc);
	for (size_t n = 0; n < m->nr; n++) {
		row_of[n] = SIZE_MAX;
		if (!count[n])
			continue;
		row_of[n] = empty_row(out);
		out->rows[row_of[n]].first = pos;
		out->rows[row_of[n]].nr = count[n];
		out->rows[row_of[n]].module = (uint32_t)n;
		pos += count[n];
		count[n] = out->rows[row_of[n]].first; /* now: where the next member goes */
	}
	out->members = osc_xmalloc((pos ? pos : 1) * sizeof(*out->members));
	out->nr_members = pos;
	*dur = osc_xmalloc((pos ? pos : 1) * sizeof(**dur));
	for (size_t i = 0; i < m->nr_inst; i++) {
		size_t at;

		if (!keep[i])
			continue;
		at = count[m->inst_node[i]]++;
		out->members[at] = m->inst[i];
		/* the key: the instances' event name, the same for all ("nn.Module: X") */
		out->rows[row_of[m->inst_node[i]]].key = c->t->events[m->inst[i]].name;
		(*dur)[at] = c->t->events[m->inst[i]].dur;
		out->rows[row_of[m->inst_node[i]]].self =
			osc_sat_add(out->rows[row_of[m->inst_node[i]]].self, m->inst_self[i]);
	}
	free(count);
	free(keep);
}

/*
 * Module level: each device event in the selection (in the run of its
 * launching op) counts in the device time of its module's row and in the
 * device_total of that row and of its ancestors' rows. A module with device
 * events but no row gets one (count 0) when its name passes the filter.
 * What no module launched is out->outside_modules (after bases).
 */
static void module_device(const struct agg_ctx *c, const struct osc_modules *m, size_t *row_of,
			  struct osc_agg *out)
{
	const uint32_t *op = out->has_device ? osc_trace_launchers(c->t) : NULL;
	uint32_t *first = osc_xmalloc((m->nr ? m->nr : 1) * sizeof(*first));
	struct osc_filter_cache fc;

	out->outside_modules = out->device_time; /* less what a module launched, below */
	if (!op || !m->nr) {
		free(first);
		return;
	}
	for (size_t n = 0; n < m->nr; n++)
		first[n] = OSC_NONE;
	for (size_t i = m->nr_inst; i-- > 0;)
		first[m->inst_node[i]] = m->inst[i];
	osc_filter_cache_init(&fc, c->q->filter, c->t);
	for (size_t k = 0; k < sizeof(device) / sizeof(device[0]); k++) {
		size_t nb;
		const struct osc_brief *b = osc_trace_briefs(c->t, device[k], &nb);

		for (size_t j = 0; j < nb; j++) {
			uint32_t ev = b[j].event;
			uint32_t node = op[ev] != OSC_NONE ? osc_module_node_of(m, op[ev]) : OSC_NONE;

			if (node == OSC_NONE || !device_selected(c, op, ev))
				continue;
			out->outside_modules -= b[j].dur;
			for (uint32_t a = node; a != OSC_NONE; a = m->nodes[a].parent) {
				struct osc_agg_row *row;

				if (row_of[a] == SIZE_MAX) {
					if (!osc_filter_cache_event(&fc, first[a]))
						continue;
					row_of[a] = empty_row(out);
					out->rows[row_of[a]].key = c->t->events[first[a]].name;
					out->rows[row_of[a]].module = a;
				}
				row = &out->rows[row_of[a]];
				row->dev_total = osc_sat_add(row->dev_total, b[j].dur);
				if (a == node) {
					row->dev = osc_sat_add(row->dev, b[j].dur);
					row->kernels++;
				}
			}
		}
	}
	osc_filter_cache_release(&fc);
	free(first);
}

/*
 * Module level: the base of self_pct, per thread the union of the windows
 * of the ops and module instances in the selected runs, summed.
 */
static int64_t module_busy(const struct agg_ctx *c)
{
	const struct osc_trace *t = c->t;
	const struct osc_catsel *ops = osc_trace_ops(t);
	int64_t busy = 0, *end = osc_xmalloc((t->nr_threads ? t->nr_threads : 1) * sizeof(*end));

	for (size_t th = 0; th < t->nr_threads; th++)
		end[th] = INT64_MIN;
	for (uint32_t i = 0; i < t->nr_events; i++) {
		const struct osc_event *e = &t->events[i];
		int64_t from, to = osc_event_end(e);

		if (e->thread >= t->nr_threads || e->ph != OSC_PH_COMPLETE ||
		    (!osc_catsel_has_event(ops, t, i) && !osc_is_module_event(t, i)) ||
		    (c->sel && !osc_runsel_has_event(c->sel, c->runs, i)))
			continue;
		from = e->ts > end[e->thread] ? e->ts : end[e->thread];
		if (to > from) {
			busy = osc_sat_add(busy, to - from);
			end[e->thread] = to;
		}
	}
	free(end);
	return busy;
}

/* Op and kernel levels: each row's most frequent module among its members' (module.h). */
static void row_modules(const struct agg_ctx *c, const struct osc_modules *m, struct osc_agg *out)
{
	const uint32_t *op = osc_trace_has_device(c->t) ? osc_trace_launchers(c->t) : NULL;
	size_t *n = osc_xcalloc(m->nr ? m->nr : 1, sizeof(*n));

	for (size_t r = 0; r < out->nr; r++) {
		struct osc_agg_row *row = &out->rows[r];
		uint32_t best = OSC_NONE;

		row->module = OSC_NONE;
		if (!m->nr)
			continue;
		for (size_t i = row->first; i < row->first + row->nr; i++) {
			uint32_t ev = out->members[i], node;

			if (c->device)
				ev = op ? op[ev] : OSC_NONE;
			node = ev == OSC_NONE ? OSC_NONE : osc_module_node_of(m, ev);
			if (node == OSC_NONE)
				continue;
			n[node]++;
			if (best == OSC_NONE || n[node] > n[best] || (n[node] == n[best] && node < best))
				best = node;
		}
		row->module = best;
		for (size_t i = row->first; i < row->first + row->nr; i++) { /* reset the counts */
			uint32_t ev = out->members[i], node;

			if (c->device)
				ev = op ? op[ev] : OSC_NONE;
			node = ev == OSC_NONE ? OSC_NONE : osc_module_node_of(m, ev);
			if (node != OSC_NONE)
				n[node] = 0;
		}
	}
	free(n);
}

/*
 * Whether merging over the selected runs gives other paths than merging over
 * everything: a selected instance under an unselected one merges under its
 * nearest selected ancestor instead.
 */
static bool selection_moves_paths(const struct agg_ctx *c)
{
	const struct osc_calltree *h = c->host;

	for (size_t n = 0; c->sel && n < h->nr; n++) {
		uint32_t p = h->nodes[n].parent;

		if (p != OSC_NONE && !osc_runsel_has_event(c->sel, c->runs, h->nodes[p].event) &&
		    osc_runsel_has_event(c->sel, c->runs, h->nodes[n].event))
			return true;
	}
	return false;
}

/*
 * Path level: the host call tree merged over the selected runs (calltree.h):
 * the trace's own merge over everything when the selection moves no path
 * (instances outside it are simply not scanned), else a merge of its own.
 * No device links are made: the level counts host time only, as the op
 * level does.
 */
static void path_nodes(struct agg_ctx *c)
{
	struct osc_correlation none = { 0 };

	c->host = osc_trace_host_tree(c->t);
	if (!selection_moves_paths(c)) {
		c->paths = osc_trace_host_paths(c->t);
		return;
	}
	osc_mtree_build(c->t, c->host, &none, c->runs, c->sel, OSC_STR_NONE, &c->own);
	c->paths = &c->own;
}

/* Path level: intern each row's $$-joined path (group g's node) into out->paths. */
static void path_texts(struct agg_ctx *c, const struct osc_group_map *m, struct osc_agg *out)
{
	size_t size = 4096;
	char *buf = osc_xmalloc(size);

	osc_strtab_init(&out->paths);
	for (size_t g = 0; g < m->nr; g++) {
		size_t len = osc_mtree_path_text(c->paths, c->t, m->keys[g].node, buf, size);

		if (len >= size) { /* it was cut: again, whole */
			free(buf);
			size = len + 1;
			buf = osc_xmalloc(size);
			osc_mtree_path_text(c->paths, c->t, m->keys[g].node, buf, size);
		}
		out->rows[g].path = osc_strtab_intern(&out->paths, buf, len);
	}
	free(buf);
}

/*
 * The per-run divisor: the selected runs that hold an event of the level's
 * kind (host ops, or kernels at the device levels), filter or not; at least
 * 1. A selected run with none (an empty trailing ProfilerStep) would halve
 * every per-run value.
 */
static size_t runs_holding_events(const struct agg_ctx *c)
{
	size_t nr, n = 0;
	const struct osc_brief *b;
	uint8_t *seen;

	if (!c->sel || !c->runs || !c->runs->nr)
		return 1;
	b = osc_trace_briefs(c->t, c->device ? OSC_KIND_KERNEL : OSC_KIND_HOST_OP, &nr);
	seen = osc_xcalloc(c->runs->nr, 1);
	for (size_t j = 0; j < nr && n < c->sel->nr_on; j++) {
		uint32_t r = c->runs->run_of[b[j].event];

		if (r != OSC_NONE && r < c->sel->nr_runs && c->sel->on[r] && !seen[r]) {
			seen[r] = 1;
			n++;
		}
	}
	free(seen);
	return n ? n : 1;
}

void osc_aggregate(const struct osc_trace *t, const struct osc_runs *runs,
		   const struct osc_query *q, struct osc_agg *out)
{
	struct agg_ctx c = {
		.t = t,
		.runs = runs,
		.q = q,
		.sel = runs ? q->runs : NULL,
		.launcher = q->launcher,
		.keys = q->keys ? q->keys : osc_level_keys(q->level),
		.device = osc_level_is_device(q->level),
	};
	uint8_t *own_cat = NULL; /* categories when the trace's cache holds other rules' */
	unsigned direct = 0;
	size_t ndirect = 0;
	struct scan sc;
	int64_t *dur;
	struct osc_op_cost *cost;
	struct run_device dr;

	/* Keys of the launching op need the correlation when none was given. */
	if (c.device && (c.keys & (OSC_KEY_OP | OSC_KEY_SHAPE)) && !c.launcher)
		c.launcher = osc_trace_launchers(t);
	memset(out, 0, sizeof(*out));
	out->level = q->level;
	out->key_style = osc_names_keying(q->names);
	out->keys = c.keys;
	out->has_device = osc_trace_has_device(t);
	if (!c.device) { /* the device levels need no host tree */
		c.tree = osc_trace_host_tree(t);
		c.cost = osc_trace_op_costs(t);
	}
	if ((c.keys & OSC_KEY_CATEGORY) || q->category) {
		c.cat = osc_trace_categories(t, q->categories);
		if (!c.cat) { /* the trace keeps another set of rules' */
			own_cat = osc_xmalloc(t->nr_events ? t->nr_events : 1);
			osc_categorize(t, out->has_device ? osc_trace_launchers(t) : NULL,
				       q->categories, own_cat);
			c.cat = own_cat;
		}
	}
	memset(&dr, 0, sizeof(dr));
	if (q->reads <= OSC_READS_BASES || c.keys == OSC_KEY_RUN)
		device_by_run(&c, c.cost && out->has_device ? osc_trace_launchers(t) : NULL, &dr);
	if (q->reads <= OSC_READS_BASES) {
		bases(&c, &dr, out);
		out->nr_runs = runs_holding_events(&c);
	}
	if ((c.keys & OSC_KEY_OP) && c.device && nr_briefs(t, OSC_KIND_KERNEL)) { /* else no row */
		kernel_op_shapes(&c);
		count_ops(&c);
	}
	if (c.keys & OSC_KEY_PATH)
		path_nodes(&c);
	if (c.keys == OSC_KEY_NAME || c.keys == OSC_KEY_RUN || c.keys == OSC_KEY_PATH) {
		direct = c.keys;
		ndirect = c.keys == OSC_KEY_NAME ? t->strs.count :
			  c.keys == OSC_KEY_PATH ? c.paths->nr : runs ? runs->nr : 1;
	} else if (c.keys == OSC_KEY_CATEGORY) {
		direct = c.keys;
		ndirect = OSC_CAT_NR;
	} else if (c.keys == (OSC_KEY_NAME | OSC_KEY_SHAPE) && !c.device) {
		direct = c.keys;
		ndirect = osc_trace_nr_op_shapes(t);
	}
	if (c.keys == OSC_KEY_MODULE || q->module)
		out->modules = osc_trace_modules(t);
	if (c.keys == OSC_KEY_MODULE) {
		size_t *row_of = osc_xmalloc((out->modules->nr ? out->modules->nr : 1) *
					     sizeof(*row_of));

		module_rows(&c, out->modules, row_of, out, &dur);
		compute_stats(dur, NULL, q, false, out, 1);
		module_device(&c, out->modules, row_of, out);
		out->host_busy = module_busy(&c);
		free(row_of);
		free(dur);
	} else {
		scan(&c, c.device ? OSC_KIND_KERNEL : OSC_KIND_HOST_OP, c.keys, false, direct,
		     ndirect, &sc);
		group_rows(&c, &sc, out, &dur, &cost);
		if (c.keys & OSC_KEY_PATH)
			path_texts(&c, &sc.map, out);
		if (q->reads != OSC_READS_MEMBERS)
			compute_stats(dur, cost, q, c.device, out, sc.nr);
		if (c.op_count)
			op_columns(&c, &sc.map, out);
		out->host_busy = sc.busy;
		scan_release(&sc);
		free(dur);
		free(cost);
	}
	if (c.keys == OSC_KEY_RUN && !c.device)
		run_device(&c, &dr, out);
	if (c.keys == OSC_KEY_CATEGORY)
		category_device(&c, out);
	else if (q->category && (c.keys == OSC_KEY_NAME))
		row_categories(&c, out);
	if (q->module && c.keys == OSC_KEY_NAME)
		row_modules(&c, out->modules, out);
	free(own_cat);
	run_device_release(&dr);
	osc_mtree_release(&c.own);
	free(c.op_shape_of);
	free(c.op_count);
	if (q->roofline && (c.keys & OSC_KEY_NAME) && !c.device)
		osc_agg_roofline(t, out, q->peak);
	osc_agg_default_columns(out);
	if (q->in_place)
		osc_agg_order(out, t, osc_agg_default_sort(out), true);
	else if (!q->unordered)
		osc_agg_sort(out, t, osc_agg_default_sort(out), true);
	if (out->nr && !q->unordered)
		out->top = osc_agg_value(out, 0, osc_agg_default_sort(out));
}

void osc_agg_release(struct osc_agg *a)
{
	free(a->rows);
	free(a->members);
	for (int m = 0; m < OSC_MEASURE_NR; m++)
		free(a->dist[m]);
	free(a->own_cols);
	free(a->order);
	free(a->cum_pct);
	free(a->identity);
	free(a->share);
	free(a->row_place);
	free(a->path_place);
	osc_strtab_release(&a->paths);
	memset(a, 0, sizeof(*a));
}

bool osc_agg_row_same(const struct osc_agg *a, const struct osc_agg_row *x,
		      const struct osc_agg_row *like, const char *like_path)
{
	unsigned k = a->keys;

	/* only the level's own components: a row's category or module at the op
	   level is a figure (osc_query.category, .module), not part of its key */
	if ((k & OSC_KEY_PATH) &&
	    (!like_path || strcmp(osc_strtab_get(&a->paths, x->path), like_path)))
		return false;
	return x->key == like->key && (!(k & OSC_KEY_SHAPE) || x->shape == like->shape) &&
	       (!(k & OSC_KEY_OP) || x->op == like->op) &&
	       (!(k & OSC_KEY_RUN) || x->run == like->run) &&
	       (!(k & OSC_KEY_CATEGORY) || x->category == like->category) &&
	       (!(k & OSC_KEY_MODULE) || x->module == like->module) &&
	       (!(k & OSC_KEY_DIMS) || !memcmp(x->dims, like->dims, sizeof(x->dims)));
}

size_t osc_agg_bytes(const struct osc_agg *a)
{
	size_t per_row = sizeof(*a->rows) + sizeof(*a->identity) +
			 (a->order ? sizeof(*a->order) : 0) +
			 (a->cum_pct ? 2 * sizeof(*a->cum_pct) : 0) +
			 (a->share ? 2 * sizeof(*a->share) + sizeof(*a->row_place) : 0);
	size_t bytes = a->nr * per_row + a->nr_members * sizeof(*a->members);

	for (int m = 0; m < OSC_MEASURE_NR; m++)
		bytes += a->dist[m] ? a->nr * sizeof(*a->dist[m]) : 0;
	bytes += osc_strtab_bytes(&a->paths);
	return bytes + (a->path_place ? a->paths.count * sizeof(*a->path_place) : 0);
}

