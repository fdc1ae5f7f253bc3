/*
 * trace_cache.c - the per-trace indexes of trace_cache.h.
 *
 * Each table has its own mutex, held while it is built, so a second thread
 * asking for the same table waits rather than building it twice, while a
 * thread asking for another table (the briefs, while the launchers take a
 * second to build) goes on. Readers of a built table take its lock only to
 * fetch the pointer. The launchers need the correlation, which needs the
 * tree (as the paths do): locks are taken in that order.
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "opscope/base/alloc.h"
#include "opscope/analysis/correlate.h"
#include "opscope/analysis/module.h"
#include "opscope/analysis/opcost.h"
#include "opscope/analysis/trace_cache.h"
#include "opscope/analysis/category.h"
#include "opscope/analysis/roofline.h"
#include "opscope/analysis/timeline.h"
#include "opscope/analysis/tree_index.h"
#include "base/hash.h"
#include "base/parallel.h"

struct osc_trace_cache {
	struct osc_trace_derived derived; /* first: the trace's handle on the cache */
	pthread_mutex_t briefs_lock, tree_lock, paths_lock, corr_lock, launchers_lock, costs_lock,
		device_lock, cat_lock, work_lock, timeline_lock, text_lock, index_lock;
	int has_device;                           /* -1 until counted */
	struct osc_catsel ops;                    /* what the ops are (osc_trace_select_ops) */
	struct osc_brief *briefs[OSC_KIND_COUNT]; /* per kind, NULL until built */
	size_t nr_briefs[OSC_KIND_COUNT];
	size_t nr_op_shapes;                      /* op_shape ids of the host-op briefs */
	bool have_tree;
	struct osc_calltree host_tree;
	bool have_paths;
	struct osc_mtree paths;
	bool have_corr;
	struct osc_correlation corr;
	bool have_index;
	struct osc_tree_index index;              /* the host tree's links by node */
	uint32_t *launchers;                      /* NULL until built */
	struct osc_op_cost *costs;                /* per host tree node, NULL until built */
	bool have_spans;
	struct osc_span *spans;                   /* device busy spans */
	size_t nr_spans;
	struct osc_gpu_index *gpu;                /* NULL until built */
	uint8_t *cats;                            /* per event its category, NULL until built */
	const struct osc_categories *cat_rules;   /* the user's rules cats was built with */
	bool have_calls;
	struct osc_call_works calls;              /* the roofline work of calls that need args */
	bool have_modules;
	struct osc_modules modules;               /* the nn.Module hierarchy */
	bool have_timeline;
	struct osc_timeline timeline;             /* lanes of the events by time */
	struct osc_text_order text;               /* the strings in byte order, sorted NULL
						     until built */
};

static void cache_drop(struct osc_trace_derived *d);
static void cache_free(struct osc_trace_derived *d);

static struct osc_trace_cache *cache_new(void)
{
	struct osc_trace_cache *c = osc_xcalloc(1, sizeof(*c));

	c->derived.drop = cache_drop;
	c->derived.free = cache_free;
	pthread_mutex_init(&c->briefs_lock, NULL);
	pthread_mutex_init(&c->tree_lock, NULL);
	pthread_mutex_init(&c->paths_lock, NULL);
	pthread_mutex_init(&c->corr_lock, NULL);
	pthread_mutex_init(&c->launchers_lock, NULL);
	pthread_mutex_init(&c->costs_lock, NULL);
	pthread_mutex_init(&c->device_lock, NULL);
	pthread_mutex_init(&c->cat_lock, NULL);
	pthread_mutex_init(&c->work_lock, NULL);
	pthread_mutex_init(&c->timeline_lock, NULL);
	pthread_mutex_init(&c->text_lock, NULL);
	pthread_mutex_init(&c->index_lock, NULL);
	c->has_device = -1;
	c->ops.kinds = OSC_CATSEL_HOST_DEFAULT;
	return c;
}

/* The caller is the only thread using the trace. */
static void drop(struct osc_trace_cache *c)
{
	if (c->have_tree)
		osc_calltree_release(&c->host_tree);
	for (int k = 0; k < OSC_KIND_COUNT; k++) {
		free(c->briefs[k]);
		c->briefs[k] = NULL;
	}
	if (c->have_paths)
		osc_mtree_release(&c->paths);
	if (c->have_corr)
		osc_correlation_release(&c->corr);
	if (c->have_index)
		osc_tree_index_release(&c->index);
	c->have_index = false;
	free(c->launchers);
	c->launchers = NULL;
	free(c->costs);
	c->costs = NULL;
	free(c->spans);
	c->spans = NULL;
	osc_gpu_index_free(c->gpu);
	c->gpu = NULL;
	free(c->cats);
	c->cats = NULL;
	if (c->have_calls)
		osc_call_works_release(&c->calls);
	c->have_calls = false;
	c->nr_spans = 0;
	if (c->have_modules)
		osc_modules_release(&c->modules);
	c->have_modules = false;
	if (c->have_timeline)
		osc_timeline_release(&c->timeline);
	c->have_timeline = false;
	free(c->text.sorted);
	free(c->text.place);
	c->text = (struct osc_text_order){ 0 };
	c->have_tree = c->have_paths = c->have_corr = c->have_spans = false;
	c->has_device = -1;
	free(c->ops.also); /* the frames that launch device work: found again */
	c->ops.also = NULL;
}

static void cache_drop(struct osc_trace_derived *d)
{
	drop((struct osc_trace_cache *)d);
}

static void cache_free(struct osc_trace_derived *d)
{
	struct osc_trace_cache *c = (struct osc_trace_cache *)d;

	drop(c);
	pthread_mutex_destroy(&c->briefs_lock);
	pthread_mutex_destroy(&c->tree_lock);
	pthread_mutex_destroy(&c->paths_lock);
	pthread_mutex_destroy(&c->corr_lock);
	pthread_mutex_destroy(&c->launchers_lock);
	pthread_mutex_destroy(&c->costs_lock);
	pthread_mutex_destroy(&c->device_lock);
	pthread_mutex_destroy(&c->cat_lock);
	pthread_mutex_destroy(&c->work_lock);
	pthread_mutex_destroy(&c->timeline_lock);
	pthread_mutex_destroy(&c->text_lock);
	pthread_mutex_destroy(&c->index_lock);
	osc_catsel_release(&c->ops);
	free(c);
}

/*
 * Note in the trace that its cache holds something, so adding an event drops
 * it (the trace is const to the readers, but never defined const). Every
 * writer stores the same value.
 */
static void mark_used(const struct osc_trace *t)
{
	__atomic_store_n(&((struct osc_trace *)t)->derived_used, true, __ATOMIC_RELAXED);
}

/*
 * The trace's cache, made on the first question: threads that ask at once
 * each make one, one of them is published, the others are freed.
 */
static struct osc_trace_cache *cache_of(const struct osc_trace *t)
{
	struct osc_trace_derived **at = &((struct osc_trace *)t)->derived;
	struct osc_trace_derived *d = __atomic_load_n(at, __ATOMIC_ACQUIRE), *none = NULL;
	struct osc_trace_cache *c;

	if (d)
		return (struct osc_trace_cache *)d;
	c = cache_new();
	if (__atomic_compare_exchange_n(at, &none, &c->derived, false, __ATOMIC_ACQ_REL,
					__ATOMIC_ACQUIRE))
		return c;
	cache_free(&c->derived);
	return (struct osc_trace_cache *)none;
}

/*
 * Number the (op, shape) pairs of the host-op briefs b[0 .. n) in order of
 * first appearance (open addressing on the pair).
 */
static size_t number_op_shapes(struct osc_brief *b, size_t n)
{
	size_t nslots = 1024, nr = 0;
	uint64_t *key = NULL;
	uint32_t *id = NULL;

	for (;;) { /* a table at most half full, else twice as big and again */
		bool full = false;

		key = osc_xreallocarray(key, nslots, sizeof(*key));
		id = osc_xreallocarray(id, nslots, sizeof(*id));
		memset(id, 0xff, nslots * sizeof(*id));
		nr = 0;
		for (size_t j = 0; j < n && !full; j++) {
			uint64_t k = (uint64_t)b[j].op << 32 | b[j].shape;
			size_t i = (size_t)osc_mix64(k) & (nslots - 1);

			while (id[i] != UINT32_MAX && key[i] != k)
				i = (i + 1) & (nslots - 1);
			if (id[i] == UINT32_MAX) {
				key[i] = k;
				id[i] = (uint32_t)nr++;
				full = 2 * nr > nslots;
			}
			b[j].op_shape = id[i];
		}
		if (!full)
			break;
		nslots *= 2;
	}
	free(key);
	free(id);
	return nr;
}

#define BRIEFS_PART 100000 /* events worth a thread of build_briefs */

/* One thread's share of build_briefs: events [from, to), briefs from out on. */
struct briefs_part {
	const struct osc_trace *t;
	enum osc_kind kind;
	const struct osc_catsel *ops; /* kind HOST_OP: the events that are ops */
	size_t from, to;
	size_t nr;             /* briefs in the share */
	struct osc_brief *out;
};

/* Event e is of the part's kind (the op selection for HOST_OP). */
static bool of_kind(const struct briefs_part *p, size_t e)
{
	if (p->kind == OSC_KIND_HOST_OP)
		return osc_catsel_has_event(p->ops, p->t, (uint32_t)e);
	return p->t->events[e].kind == p->kind;
}

static void count_briefs(void *arg, size_t i)
{
	struct briefs_part *p = &((struct briefs_part *)arg)[i];

	for (size_t e = p->from; e < p->to; e++)
		p->nr += of_kind(p, e);
}

static void fill_briefs(void *arg, size_t i)
{
	struct briefs_part *p = &((struct briefs_part *)arg)[i];
	struct osc_brief *b = p->out;
	bool device = osc_kind_is_device(p->kind);

	for (size_t k = p->from; k < p->to; k++) {
		const struct osc_event *e = &p->t->events[k];

		if (!of_kind(p, k))
			continue;
		*b = (struct osc_brief){ .dur = e->dur, .event = (uint32_t)k, .name = e->name,
					 .op = osc_trace_op(p->t, k), .op_shape = OSC_NONE };
		if (device)
			b->kernel = e->kernel;
		else
			b->shape = e->shape;
		b++;
	}
}

/* The briefs of kind k: one pass to count, one to fill, each on all cores. */
static void build_briefs(struct osc_trace_cache *c, const struct osc_trace *t, enum osc_kind k)
{
	size_t n = t->nr_events, parts = osc_parallel_parts(n, BRIEFS_PART), total = 0;
	struct briefs_part *p = osc_xcalloc(parts, sizeof(*p));

	for (size_t i = 0; i < parts; i++)
		p[i] = (struct briefs_part){ .t = t, .kind = k, .ops = &c->ops, .from = n * i / parts,
					     .to = n * (i + 1) / parts };
	osc_parallel_run(parts, count_briefs, p);
	for (size_t i = 0; i < parts; i++)
		total += p[i].nr;
	c->briefs[k] = osc_xmalloc((total ? total : 1) * sizeof(*c->briefs[k]));
	c->nr_briefs[k] = total;
	for (size_t i = 0, at = 0; i < parts; at += p[i++].nr)
		p[i].out = c->briefs[k] + at;
	osc_parallel_run(parts, fill_briefs, p);
	free(p);
	if (k == OSC_KIND_HOST_OP)
		c->nr_op_shapes = number_op_shapes(c->briefs[k], total);
}

const struct osc_brief *osc_trace_briefs(const struct osc_trace *t, enum osc_kind k, size_t *nr)
{
	struct osc_trace_cache *c = cache_of(t);
	const struct osc_brief *out;

	k = (unsigned)k < OSC_KIND_COUNT ? k : OSC_KIND_OTHER;
	if (k == OSC_KIND_HOST_OP) /* the ops are known with the tree (osc_host_analysis) */
		osc_trace_host_tree(t);
	pthread_mutex_lock(&c->briefs_lock);
	if (!c->briefs[k])
		build_briefs(c, t, k);
	mark_used(t);
	*nr = c->nr_briefs[k];
	out = c->briefs[k];
	pthread_mutex_unlock(&c->briefs_lock);
	return out;
}

size_t osc_trace_nr_op_shapes(const struct osc_trace *t)
{
	size_t nr;

	osc_trace_briefs(t, OSC_KIND_HOST_OP, &nr);
	return cache_of(t)->nr_op_shapes;
}

/*
 * The tree and, with device events, the correlation built with it (the
 * frames that launch device work become ops: osc_host_analysis). Lock
 * order: tree, then correlation.
 */
const struct osc_calltree *osc_trace_host_tree(const struct osc_trace *t)
{
	struct osc_trace_cache *c = cache_of(t);
	bool device = osc_trace_has_device(t);
	struct osc_catsel launch = { .kinds = OSC_CATSEL_LAUNCH_DEFAULT };
	struct osc_catsel dev = { .kinds = OSC_CATSEL_DEVICE_DEFAULT };
	struct osc_correlation corr;

	pthread_mutex_lock(&c->tree_lock);
	if (!c->have_tree && !device) {
		osc_calltree_build(t, &c->ops, &c->host_tree);
	} else if (!c->have_tree) {
		osc_host_analysis(t, &c->ops, &launch, &dev, &c->host_tree, &corr);
		pthread_mutex_lock(&c->corr_lock);
		c->corr = corr;
		c->have_corr = true;
		pthread_mutex_unlock(&c->corr_lock);
	}
	c->have_tree = true;
	mark_used(t);
	pthread_mutex_unlock(&c->tree_lock);
	return &c->host_tree;
}

const struct osc_mtree *osc_trace_host_paths(const struct osc_trace *t)
{
	struct osc_trace_cache *c = cache_of(t);
	struct osc_correlation none = { 0 };

	pthread_mutex_lock(&c->paths_lock);
	if (!c->have_paths) {
		osc_mtree_build(t, osc_trace_host_tree(t), &none, NULL, NULL, OSC_STR_NONE,
				&c->paths);
		c->have_paths = true;
	}
	mark_used(t);
	pthread_mutex_unlock(&c->paths_lock);
	return &c->paths;
}

const struct osc_correlation *osc_trace_correlation(const struct osc_trace *t)
{
	struct osc_trace_cache *c = cache_of(t);
	struct osc_catsel launch = { .kinds = OSC_CATSEL_LAUNCH_DEFAULT };
	struct osc_catsel device = { .kinds = OSC_CATSEL_DEVICE_DEFAULT };
	const struct osc_calltree *tree = osc_trace_host_tree(t);

	pthread_mutex_lock(&c->corr_lock);
	if (!c->have_corr) { /* a trace without device events */
		osc_correlate(t, tree, &launch, &device, &c->corr);
		c->have_corr = true;
	}
	mark_used(t);
	pthread_mutex_unlock(&c->corr_lock);
	return &c->corr;
}

const struct osc_tree_index *osc_trace_tree_index(const struct osc_trace *t)
{
	struct osc_trace_cache *c = cache_of(t);
	const struct osc_calltree *tree = osc_trace_host_tree(t);
	const struct osc_correlation *corr = osc_trace_correlation(t);

	pthread_mutex_lock(&c->index_lock);
	if (!c->have_index) {
		osc_tree_index_build(tree, corr, &c->index);
		c->have_index = true;
	}
	mark_used(t);
	pthread_mutex_unlock(&c->index_lock);
	return &c->index;
}

/* Per event, the event of the host node its device link names. */
static uint32_t *build_launchers(const struct osc_trace *t)
{
	const struct osc_correlation *corr = osc_trace_correlation(t);
	const struct osc_calltree *tree = osc_trace_host_tree(t);
	uint32_t *launcher = osc_xmalloc((t->nr_events ? t->nr_events : 1) * sizeof(*launcher));

	for (size_t i = 0; i < t->nr_events; i++) {
		uint32_t d = corr->dev_of ? corr->dev_of[i] : OSC_NONE;
		uint32_t node = d != OSC_NONE ? corr->devs[d].node : OSC_NONE;

		launcher[i] = node != OSC_NONE ? tree->nodes[node].event : OSC_NONE;
	}
	return launcher;
}

const uint32_t *osc_trace_launchers(const struct osc_trace *t)
{
	struct osc_trace_cache *c = cache_of(t);
	const uint32_t *out;

	pthread_mutex_lock(&c->launchers_lock);
	if (!c->launchers)
		c->launchers = build_launchers(t);
	mark_used(t);
	out = c->launchers;
	pthread_mutex_unlock(&c->launchers_lock);
	return out;
}

const uint8_t *osc_trace_categories(const struct osc_trace *t, const struct osc_categories *user)
{
	struct osc_trace_cache *c = cache_of(t);
	const uint8_t *out = NULL;
	uint8_t *cats;

	/* outside the lock: has_device and the launchers take their own */
	const uint32_t *launcher = osc_trace_has_device(t) ? osc_trace_launchers(t) : NULL;

	pthread_mutex_lock(&c->cat_lock);
	if (!c->cats) {
		cats = osc_xmalloc(t->nr_events ? t->nr_events : 1);
		osc_categorize(t, launcher, user, cats);
		c->cats = cats;
		c->cat_rules = user;
	}
	if (c->cat_rules == user)
		out = c->cats;
	mark_used(t);
	pthread_mutex_unlock(&c->cat_lock);
	return out;
}

bool osc_trace_has_device(const struct osc_trace *t)
{
	struct osc_trace_cache *c = cache_of(t);
	bool out;

	pthread_mutex_lock(&c->device_lock);
	for (size_t i = 0; c->has_device < 0 && i <= t->nr_events; i++)
		if (i == t->nr_events || osc_kind_is_device(t->events[i].kind))
			c->has_device = i < t->nr_events;
	mark_used(t);
	out = c->has_device > 0;
	pthread_mutex_unlock(&c->device_lock);
	return out;
}

enum osc_status osc_trace_select_ops(struct osc_trace *t, const char *cats, struct osc_error *err)
{
	struct osc_catsel ops;
	enum osc_status st = osc_catsel_parse(&ops, t, cats, OSC_CATSEL_HOST_DEFAULT, "--ops", err);

	if (st != OSC_OK)
		return st;
	osc_trace_drop_derived(t);
	osc_catsel_release(&cache_of(t)->ops);
	cache_of(t)->ops = ops;
	return OSC_OK;
}

const struct osc_catsel *osc_trace_ops(const struct osc_trace *t)
{
	osc_trace_host_tree(t);
	return &cache_of(t)->ops;
}

const struct osc_op_cost *osc_trace_op_costs(const struct osc_trace *t)
{
	struct osc_trace_cache *c = cache_of(t);
	const struct osc_calltree *tree = osc_trace_host_tree(t);
	/* a CPU-only trace needs no correlation */
	const struct osc_correlation *corr =
		osc_trace_has_device(t) ? osc_trace_correlation(t) : NULL;
	const struct osc_op_cost *out;

	pthread_mutex_lock(&c->costs_lock);
	if (!c->costs) {
		c->costs = osc_xmalloc((tree->nr ? tree->nr : 1) * sizeof(*c->costs));
		osc_op_costs(t, tree, corr, c->costs);
	}
	mark_used(t);
	out = c->costs;
	pthread_mutex_unlock(&c->costs_lock);
	return out;
}

const struct osc_span *osc_trace_device_spans(const struct osc_trace *t, size_t *nr)
{
	struct osc_trace_cache *c = cache_of(t);
	const struct osc_span *out;

	pthread_mutex_lock(&c->costs_lock);
	if (!c->have_spans) {
		c->nr_spans = osc_device_spans(t, &c->spans);
		c->have_spans = true;
	}
	mark_used(t);
	out = c->spans;
	*nr = c->nr_spans;
	pthread_mutex_unlock(&c->costs_lock);
	return out;
}

const struct osc_gpu_index *osc_trace_gpu_index(const struct osc_trace *t)
{
	struct osc_trace_cache *c = cache_of(t);
	const struct osc_gpu_index *out;

	pthread_mutex_lock(&c->costs_lock);
	if (!c->gpu)
		c->gpu = osc_gpu_index_build(t);
	mark_used(t);
	out = c->gpu;
	pthread_mutex_unlock(&c->costs_lock);
	return out;
}

const struct osc_modules *osc_trace_modules(const struct osc_trace *t)
{
	struct osc_trace_cache *c = cache_of(t);
	const struct osc_modules *out;

	pthread_mutex_lock(&c->costs_lock);
	if (!c->have_modules) {
		osc_modules_build(t, &c->modules);
		c->have_modules = true;
	}
	mark_used(t);
	out = &c->modules;
	pthread_mutex_unlock(&c->costs_lock);
	return out;
}

const struct osc_call_works *osc_trace_call_works(const struct osc_trace *t)
{
	struct osc_trace_cache *c = cache_of(t);
	const struct osc_call_works *out;

	pthread_mutex_lock(&c->work_lock);
	if (!c->have_calls) {
		osc_call_works_build(t, &c->calls);
		c->have_calls = true;
	}
	mark_used(t);
	out = &c->calls;
	pthread_mutex_unlock(&c->work_lock);
	return out;
}

const struct osc_timeline *osc_trace_timeline(const struct osc_trace *t)
{
	struct osc_trace_cache *c = cache_of(t);
	const struct osc_timeline *out;

	pthread_mutex_lock(&c->timeline_lock);
	if (!c->have_timeline) {
		osc_timeline_build(t, &c->timeline);
		c->have_timeline = true;
	}
	mark_used(t);
	out = &c->timeline;
	pthread_mutex_unlock(&c->timeline_lock);
	return out;
}

const struct osc_text_order *osc_trace_text_order(const struct osc_trace *t)
{
	struct osc_trace_cache *c = cache_of(t);
	struct osc_text_order *o = &c->text;

	pthread_mutex_lock(&c->text_lock);
	if (!o->sorted) {
		o->nr = t->strs.count;
		o->place = osc_strtab_places(&t->strs, &o->sorted);
	}
	mark_used(t);
	pthread_mutex_unlock(&c->text_lock);
	return o;
}

size_t osc_text_order_rank(const struct osc_trace *t, const struct osc_text_order *o,
			   const char *text)
{
	size_t lo = 0, hi = o->nr, n = strlen(text);

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2, len = osc_strtab_len(&t->strs, o->sorted[mid]);
		int c = memcmp(osc_trace_str(t, o->sorted[mid]), text, len < n ? len : n);

		if (c < 0 || (!c && len <= n))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

void osc_trace_cache_warm(const struct osc_trace *t)
{
	/* the kinds every table reads: the ops, and the device events of the bases */
	static const enum osc_kind kinds[] = { OSC_KIND_HOST_OP, OSC_KIND_KERNEL, OSC_KIND_MEMCPY,
					       OSC_KIND_MEMSET };
	size_t nr;

	for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++)
		osc_trace_briefs(t, kinds[k], &nr);
	osc_trace_host_paths(t);
	osc_trace_launchers(t);
	osc_trace_tree_index(t);
	osc_trace_op_costs(t);
	if (osc_trace_has_device(t)) {
		osc_trace_gpu_index(t);
		osc_trace_device_spans(t, &nr);
	}
	osc_trace_modules(t);
	osc_trace_call_works(t);
	osc_trace_text_order(t);
}
