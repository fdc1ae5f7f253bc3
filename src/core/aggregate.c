/*
 * aggregate.c - rows of statistics per op, shape, kernel, dims, op->kernel
 * mapping, run or call path.
 *
 * A row is identified by a group key (name, shapes, launching op, run, block
 * and grid), of which each level uses a few (osc_level_keys). Selected
 * events get a dense group index from one open-addressing hash table, then a
 * counting sort by group index places them into their row's slice of the
 * members array. Events are visited in model order, so each row's members
 * come out sorted by ts. Statistics come from stats.c. O(N + K) plus
 * linear-time selection per row.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opscope/aggregate.h"
#include "opscope/alloc.h"
#include "opscope/calltree.h"
#include "opscope/correlate.h"
#include "stats.h"

static const char *const level_names[] = {
#define OSC_LEVEL_NAME(name, text) text,
	OSC_LEVEL_LIST(OSC_LEVEL_NAME)
#undef OSC_LEVEL_NAME
};

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
};

const char *osc_level_name(enum osc_level l)
{
	if ((unsigned)l >= OSC_LEVEL_COUNT)
		return "unknown";
	return level_names[l];
}

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

/* ---- group keys --------------------------------------------------------- */

/* Identity of a row; all 32-bit fields, so no padding bytes enter the hash. */
struct group_key {
	osc_str name, shape, op;
	uint32_t run;
	int32_t dims[6];
	uint32_t node; /* path level: the merged tree node */
};

/*
 * Group keys -> dense indices (open addressing, linear probing). When one
 * dense id decides the whole key (direct_key: the name at the op and kernel
 * levels, the run at the run level), a table by that id stands in for the
 * hash; keys whose id falls outside it still go through the hash.
 */
struct group_map {
	struct group_key *keys;
	uint32_t *count;   /* per group: events in it */
	size_t nr, alloc;
	uint32_t *slots;   /* group index, UINT32_MAX = empty */
	size_t nslots;     /* power of two, at least twice nr */
	unsigned direct_key; /* OSC_KEY_NAME or OSC_KEY_RUN: direct is by it; 0: none */
	uint32_t *direct;  /* id -> group index, UINT32_MAX = none yet */
	size_t ndirect;
};

/* Eight bytes at a time: the key has no padding (all 32-bit fields). */
static uint64_t key_hash(const struct group_key *k)
{
	const unsigned char *p = (const unsigned char *)k;
	uint64_t h = 0xcbf29ce484222325ull, w;
	size_t i;

	for (i = 0; i + 8 <= sizeof(*k); i += 8) {
		memcpy(&w, p + i, 8);
		h = (h ^ w) * 0x9e3779b97f4a7c15ull;
		h ^= h >> 32;
	}
	for (; i < sizeof(*k); i++)
		h = (h ^ p[i]) * 0x100000001b3ull;
	return h ^ (h >> 29);
}

static void map_rehash(struct group_map *m, size_t nslots)
{
	free(m->slots);
	m->nslots = nslots;
	m->slots = osc_xmalloc(nslots * sizeof(*m->slots));
	memset(m->slots, 0xff, nslots * sizeof(*m->slots));
	for (size_t g = 0; g < m->nr; g++) {
		size_t i = key_hash(&m->keys[g]) & (nslots - 1);

		while (m->slots[i] != UINT32_MAX)
			i = (i + 1) & (nslots - 1);
		m->slots[i] = (uint32_t)g;
	}
}

/* Use a direct table of n ids for the key field direct_key. */
static void map_direct(struct group_map *m, unsigned direct_key, size_t n)
{
	m->direct_key = direct_key;
	m->ndirect = n;
	m->direct = osc_xmalloc((n ? n : 1) * sizeof(*m->direct));
	memset(m->direct, 0xff, (n ? n : 1) * sizeof(*m->direct));
}

/* Append key k as a new group. */
static uint32_t map_add(struct group_map *m, const struct group_key *k)
{
	OSC_GROW(m->keys, m->nr + 1, m->alloc);
	m->count = osc_xreallocarray(m->count, m->alloc, sizeof(*m->count));
	m->keys[m->nr] = *k;
	m->count[m->nr] = 0;
	return (uint32_t)m->nr++;
}

/* Index of key k, added when new (add false: UINT32_MAX when absent). */
static uint32_t map_index(struct group_map *m, const struct group_key *k, bool add)
{
	uint32_t id = m->direct_key == OSC_KEY_RUN ? k->run : k->name;
	size_t i, size = m->nslots ? m->nslots : 64;

	if (m->direct && id < m->ndirect) {
		if (m->direct[id] == UINT32_MAX && add)
			m->direct[id] = map_add(m, k);
		return m->direct[id];
	}
	while ((m->nr + 1) * 2 > size)
		size *= 2;
	if (size != m->nslots)
		map_rehash(m, size);
	i = key_hash(k) & (m->nslots - 1);
	for (; m->slots[i] != UINT32_MAX; i = (i + 1) & (m->nslots - 1))
		if (!memcmp(&m->keys[m->slots[i]], k, sizeof(*k)))
			return m->slots[i];
	if (!add)
		return UINT32_MAX;
	m->slots[i] = map_add(m, k);
	return m->slots[i];
}

static void map_release(struct group_map *m)
{
	free(m->keys);
	free(m->count);
	free(m->slots);
	free(m->direct);
	memset(m, 0, sizeof(*m));
}

/* Everything one aggregation reads. */
struct agg_ctx {
	const struct osc_trace *t;
	const struct osc_runs *runs;
	const struct osc_query *q;
	const struct osc_runsel *sel; /* NULL: every event */
	unsigned keys;
	bool device;
	struct osc_filter_cache fc;
	struct group_map ops;         /* mapping: (op, shape) of host ops -> instances */
	struct osc_mtree tree;        /* path level: the merged call tree */
	uint32_t *node_of;            /* path level: per event, its merged node or OSC_NONE */
};

/* The launching op of device event ev: its index, or OSC_NONE. */
static uint32_t launcher_of(const struct agg_ctx *c, uint32_t ev)
{
	return c->q->launcher ? c->q->launcher[ev] : OSC_NONE;
}

static bool in_selection(struct agg_ctx *c, uint32_t ev)
{
	if (c->sel && !osc_runsel_has_event(c->sel, c->runs, ev))
		return false;
	if (osc_filter_cache_event(&c->fc, ev))
		return true;
	/* A kernel also passes by the op that launched it. */
	return c->device && launcher_of(c, ev) != OSC_NONE &&
	       osc_filter_cache_event(&c->fc, launcher_of(c, ev));
}

/* Fill k for event ev; false when the event has no row (unknown op in mapping). */
static bool make_key(const struct agg_ctx *c, uint32_t ev, struct group_key *k)
{
	const struct osc_event *e = &c->t->events[ev];
	osc_str op = OSC_AGG_UNKNOWN, shape = OSC_AGG_UNKNOWN;

	memset(k, 0, sizeof(*k));
	k->run = OSC_NONE;
	for (int i = 0; i < 6; i++)
		k->dims[i] = -1;
	if (c->device) {
		uint32_t l = launcher_of(c, ev);

		if (l != OSC_NONE) {
			op = c->t->events[l].op;
			shape = c->t->events[l].shape;
		} else if (e->op != e->name) { /* an ORT kernel's own args.op_name */
			op = e->op;
		}
	} else {
		shape = e->shape;
	}
	if (c->keys & OSC_KEY_NAME)
		k->name = c->device ? e->name : e->op;
	if (c->keys & OSC_KEY_SHAPE)
		k->shape = shape;
	if (c->keys & OSC_KEY_OP) {
		if (op == OSC_AGG_UNKNOWN)
			return false;
		k->op = op;
	}
	if ((c->keys & OSC_KEY_DIMS) && e->kernel != OSC_NONE) {
		const struct osc_kernel *kf = &c->t->kernels[e->kernel];

		memcpy(k->dims, kf->block, sizeof(kf->block));
		memcpy(k->dims + 3, kf->grid, sizeof(kf->grid));
	}
	if (c->keys & OSC_KEY_RUN) {
		k->run = c->runs ? c->runs->run_of[ev] : 0;
		if (k->run == OSC_NONE)
			return false;
		k->name = c->runs ? c->runs->runs[k->run].name : OSC_STR_EMPTY;
	}
	if (c->keys & OSC_KEY_PATH) {
		k->node = c->node_of[ev];
		if (k->node == OSC_NONE)
			return false;
		k->name = e->name; /* the leaf, as the path names it */
	}
	return true;
}

/* The (op, shape) key of a mapping row or of a host op. */
static struct group_key op_key(osc_str op, osc_str shape)
{
	struct group_key k;

	memset(&k, 0, sizeof(k));
	k.name = op;
	k.shape = shape;
	return k;
}

/* Mapping: count the selected host ops per (op key, shapes). */
static void count_ops(struct agg_ctx *c)
{
	bool device = c->device;

	c->device = false;
	for (size_t i = 0; i < c->t->nr_events; i++) {
		const struct osc_event *e = &c->t->events[i];
		struct group_key k;
		uint32_t g;

		if (e->kind != OSC_KIND_HOST_OP || !in_selection(c, (uint32_t)i))
			continue;
		k = op_key(e->op, e->shape);
		g = map_index(&c->ops, &k, true); /* may move count[] */
		c->ops.count[g]++;
	}
	c->device = device;
}

/*
 * Select the events of the query and give each its group. Returns the
 * selected event indices (*nr of them) in model order; gid[i] is the group
 * of sel[i] and dur[i] its duration (read here, while the event is at hand,
 * so the statistics read contiguous memory).
 */
static uint32_t *select_events(struct agg_ctx *c, struct group_map *m, uint32_t **gid,
			       int64_t **dur, size_t *nr)
{
	const struct osc_trace *t = c->t;
	uint32_t *sel = osc_xmalloc((t->nr_events ? t->nr_events : 1) * sizeof(*sel));
	uint8_t kind = c->device ? OSC_KIND_KERNEL : OSC_KIND_HOST_OP;

	*gid = osc_xmalloc((t->nr_events ? t->nr_events : 1) * sizeof(**gid));
	*dur = osc_xmalloc((t->nr_events ? t->nr_events : 1) * sizeof(**dur));
	*nr = 0;
	for (size_t i = 0; i < t->nr_events; i++) {
		struct group_key k, ok;
		uint32_t g;

		if (t->events[i].kind != kind || (c->q->only && !c->q->only[i]) ||
		    !in_selection(c, (uint32_t)i))
			continue;
		if (!make_key(c, (uint32_t)i, &k))
			continue;
		if (c->q->level == OSC_LEVEL_MAPPING && !c->q->keys) {
			ok = op_key(k.op, k.shape);
			if (map_index(&c->ops, &ok, false) == UINT32_MAX)
				continue; /* profile_explorer drops kernels of unseen ops */
		}
		g = map_index(m, &k, true);
		m->count[g]++;
		sel[*nr] = (uint32_t)i;
		(*dur)[*nr] = t->events[i].dur;
		(*gid)[(*nr)++] = g;
	}
	return sel;
}

/*
 * Turn the groups into rows and place the selected events into members;
 * their durations go to mdur in the same order.
 */
static void group_rows(const struct agg_ctx *c, struct group_map *m, const uint32_t *sel,
		       const uint32_t *gid, const int64_t *dur, size_t nr_sel,
		       struct osc_agg *out, int64_t *mdur)
{
	size_t pos = 0;

	out->rows = osc_xcalloc(m->nr ? m->nr : 1, sizeof(*out->rows));
	out->nr = m->nr;
	for (size_t g = 0; g < m->nr; g++) {
		struct osc_agg_row *row = &out->rows[g];
		const struct group_key *k = &m->keys[g];

		row->key = k->name;
		row->shape = k->shape;
		row->op = k->op;
		row->run = k->run;
		row->path = OSC_STR_NONE;
		memcpy(row->dims, k->dims, sizeof(row->dims));
		if (k->run != OSC_NONE && c->runs)
			row->span = c->runs->runs[k->run].dur;
		row->first = pos;
		row->nr = m->count[g];
		m->count[g] = (uint32_t)pos; /* now the write cursor of group g */
		pos += row->nr;
	}
	out->members = osc_xmalloc((nr_sel ? nr_sel : 1) * sizeof(*out->members));
	out->nr_members = nr_sel;
	for (size_t i = 0; i < nr_sel; i++) {
		uint32_t at = m->count[gid[i]]++;

		out->members[at] = sel[i];
		mdur[at] = dur[i];
	}
}

/* Mapping: each row's op instances and the kernel time of its (op, shape). */
static void op_columns(struct agg_ctx *c, struct osc_agg *out)
{
	int64_t *sum = osc_xcalloc(c->ops.nr ? c->ops.nr : 1, sizeof(*sum));
	uint32_t *idx = osc_xmalloc((out->nr ? out->nr : 1) * sizeof(*idx));

	for (size_t r = 0; r < out->nr; r++) {
		struct group_key k = op_key(out->rows[r].op, out->rows[r].shape);

		idx[r] = map_index(&c->ops, &k, false);
		if (idx[r] != UINT32_MAX)
			sum[idx[r]] = osc_sat_add(sum[idx[r]], out->rows[r].total);
	}
	for (size_t r = 0; r < out->nr; r++) {
		if (idx[r] == UINT32_MAX)
			continue;
		out->rows[r].op_count = c->ops.count[idx[r]];
		out->rows[r].op_total = sum[idx[r]];
	}
	free(idx);
	free(sum);
}

/* dur: the members' durations, in members order (reordered here). */
static void compute_stats(int64_t *dur, struct osc_agg *out)
{
	for (size_t r = 0; r < out->nr; r++) {
		struct osc_agg_row *row = &out->rows[r];
		struct osc_stats s;

		osc_stats_compute(dur + row->first, row->nr, &s);
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
	for (size_t r = 0; r < out->nr; r++)
		out->rows[r].pct = out->grand_total > 0 ? 100.0 * (double)out->rows[r].total /
								  (double)out->grand_total
							: 0;
}

/*
 * Path level: merge the host call tree over the selected runs (calltree.h)
 * and note each event's merged node. No device links are made: the level
 * counts host time only, as the op level does.
 */
static void path_nodes(struct agg_ctx *c)
{
	const struct osc_trace *t = c->t;
	struct osc_catsel host;
	struct osc_calltree tree;
	struct osc_correlation none = { 0 };

	osc_catsel_parse(&host, t, NULL, OSC_CATSEL_HOST_DEFAULT, "", NULL);
	osc_calltree_build(t, &host, &tree);
	osc_mtree_build(t, &tree, &none, c->runs, c->sel, OSC_STR_NONE, &c->tree);
	c->node_of = osc_xmalloc((t->nr_events ? t->nr_events : 1) * sizeof(*c->node_of));
	for (size_t i = 0; i < t->nr_events; i++) {
		uint32_t n = tree.node_of ? tree.node_of[i] : OSC_NONE;

		c->node_of[i] = n != OSC_NONE ? c->tree.m_of[n] : OSC_NONE;
	}
	osc_calltree_release(&tree);
	osc_catsel_release(&host);
}

/* Path level: intern each row's $$-joined path (group g's node) into out->paths. */
static void path_texts(struct agg_ctx *c, const struct group_map *m, struct osc_agg *out)
{
	size_t size = 4096;
	char *buf = osc_xmalloc(size);

	osc_strtab_init(&out->paths);
	for (size_t g = 0; g < m->nr; g++) {
		/* osc_mtree_path cuts at size: grow until the whole path fits. */
		while (strlen(osc_mtree_path(&c->tree, c->t, m->keys[g].node, buf, size)) + 1 >=
		       size) {
			free(buf);
			size *= 2;
			buf = osc_xmalloc(size);
		}
		out->rows[g].path = osc_strtab_intern(&out->paths, buf, strlen(buf));
	}
	free(buf);
}

uint32_t *osc_agg_launchers(const struct osc_trace *t)
{
	uint32_t *launcher = osc_xmalloc((t->nr_events ? t->nr_events : 1) * sizeof(*launcher));
	struct osc_catsel host, launch, device;
	struct osc_calltree tree;
	struct osc_correlation corr;

	osc_catsel_parse(&host, t, NULL, OSC_CATSEL_HOST_DEFAULT, "", NULL);
	osc_catsel_parse(&launch, t, NULL, OSC_CATSEL_LAUNCH_DEFAULT, "", NULL);
	osc_catsel_parse(&device, t, NULL, OSC_CATSEL_DEVICE_DEFAULT, "", NULL);
	osc_calltree_build(t, &host, &tree);
	osc_correlate(t, &tree, &launch, &device, &corr);
	for (size_t i = 0; i < t->nr_events; i++) {
		uint32_t d = corr.dev_of ? corr.dev_of[i] : OSC_NONE;
		uint32_t node = d != OSC_NONE ? corr.devs[d].node : OSC_NONE;

		launcher[i] = node != OSC_NONE ? tree.nodes[node].event : OSC_NONE;
	}
	osc_correlation_release(&corr);
	osc_calltree_release(&tree);
	osc_catsel_release(&host);
	osc_catsel_release(&launch);
	osc_catsel_release(&device);
	return launcher;
}

void osc_aggregate(const struct osc_trace *t, const struct osc_runs *runs,
		   const struct osc_query *q, struct osc_agg *out)
{
	struct agg_ctx c = {
		.t = t,
		.runs = runs,
		.q = q,
		.sel = runs ? q->runs : NULL,
		.keys = q->keys ? q->keys : osc_level_keys(q->level),
		.device = osc_level_is_device(q->level),
	};
	struct group_map m = { 0 };
	struct osc_query own = *q;
	uint32_t *sel, *gid, *launcher = NULL;
	int64_t *dur, *mdur;
	size_t nr_sel;

	/* Keys of the launching op need the correlation when none was given. */
	if (c.device && (c.keys & (OSC_KEY_OP | OSC_KEY_SHAPE)) && !q->launcher) {
		own.launcher = launcher = osc_agg_launchers(t);
		c.q = &own;
	}
	memset(out, 0, sizeof(*out));
	out->level = q->level;
	out->keys = c.keys;
	out->nr_runs = c.sel && c.sel->nr_on ? c.sel->nr_on : 1;
	osc_filter_cache_init(&c.fc, q->filter, t);
	if (c.keys & OSC_KEY_OP)
		count_ops(&c);
	if (c.keys & OSC_KEY_PATH)
		path_nodes(&c);
	if (c.keys == OSC_KEY_NAME)
		map_direct(&m, OSC_KEY_NAME, t->strs.count);
	else if (c.keys == OSC_KEY_RUN)
		map_direct(&m, OSC_KEY_RUN, runs ? runs->nr : 1);
	sel = select_events(&c, &m, &gid, &dur, &nr_sel);
	mdur = osc_xmalloc((nr_sel ? nr_sel : 1) * sizeof(*mdur));
	group_rows(&c, &m, sel, gid, dur, nr_sel, out, mdur);
	if (c.keys & OSC_KEY_PATH)
		path_texts(&c, &m, out);
	free(sel);
	free(gid);
	free(dur);
	map_release(&m);
	osc_mtree_release(&c.tree);
	free(c.node_of);
	compute_stats(mdur, out);
	free(mdur);
	if (c.keys & OSC_KEY_OP)
		op_columns(&c, out);
	map_release(&c.ops);
	osc_filter_cache_release(&c.fc);
	free(launcher);
	osc_agg_sort(out, t, OSC_STAT_TOTAL, true);
}

void osc_agg_release(struct osc_agg *a)
{
	free(a->rows);
	free(a->members);
	osc_strtab_release(&a->paths);
	memset(a, 0, sizeof(*a));
}

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
	if ((r = cmp_paths(c->a, x, y)) || (r = cmp_names(c->t, x->key, y->key)) || (r = cmp_names(c->t, x->shape, y->shape)) ||
	    (r = cmp_names(c->t, x->op, y->op)) || (r = cmp_dims(x, y)))
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
