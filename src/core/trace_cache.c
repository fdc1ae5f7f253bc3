/*
 * trace_cache.c - the per-trace indexes of trace_cache.h.
 *
 * One mutex guards the whole cache: a builder holds it while it builds, so
 * a second thread asking for the same table waits rather than building it
 * twice. Readers of a built table take the lock only to fetch the pointer.
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "opscope/alloc.h"
#include "opscope/correlate.h"
#include "opscope/trace_cache.h"

struct osc_trace_cache {
	pthread_mutex_t lock;
	bool have_tree;
	struct osc_brief *briefs[OSC_KIND_COUNT]; /* per kind, NULL until built */
	size_t nr_briefs[OSC_KIND_COUNT];
	struct osc_calltree host_tree;
	uint32_t *launchers;               /* NULL until built */
};

struct osc_trace_cache *osc_trace_cache_new(void)
{
	struct osc_trace_cache *c = osc_xcalloc(1, sizeof(*c));

	pthread_mutex_init(&c->lock, NULL);
	return c;
}

/* The caller holds the lock, or is the only thread using the trace. */
static void drop(struct osc_trace_cache *c)
{
	if (c->have_tree)
		osc_calltree_release(&c->host_tree);
	for (int k = 0; k < OSC_KIND_COUNT; k++) {
		free(c->briefs[k]);
		c->briefs[k] = NULL;
	}
	free(c->launchers);
	c->launchers = NULL;
	c->have_tree = false;
}

void osc_trace_drop_cache(struct osc_trace *t)
{
	drop(t->cache);
	t->cache_used = false;
}

void osc_trace_cache_free(struct osc_trace_cache *c)
{
	if (!c)
		return;
	drop(c);
	pthread_mutex_destroy(&c->lock);
	free(c);
}

/*
 * Note in the trace that its cache holds something, so adding an event drops
 * it (the trace is const to the readers, but never defined const).
 */
static void mark_used(const struct osc_trace *t)
{
	((struct osc_trace *)t)->cache_used = true;
}

/* The briefs of kind k: one pass to count, one to fill. */
static void build_briefs(struct osc_trace_cache *c, const struct osc_trace *t, enum osc_kind k)
{
	size_t n = 0;
	struct osc_brief *b;

	for (size_t i = 0; i < t->nr_events; i++)
		n += t->events[i].kind == k;
	b = c->briefs[k] = osc_xmalloc((n ? n : 1) * sizeof(*b));
	c->nr_briefs[k] = n;
	for (size_t i = 0; i < t->nr_events; i++) {
		const struct osc_event *e = &t->events[i];

		if (e->kind != k)
			continue;
		*b = (struct osc_brief){ .dur = e->dur, .event = (uint32_t)i, .name = e->name,
					 .op = e->op };
		if (osc_kind_is_device(e->kind))
			b->kernel = e->kernel;
		else
			b->shape = e->shape;
		b++;
	}
}

/* The cache's host tree, built if needed; the caller holds the lock. */
static const struct osc_calltree *host_tree_locked(struct osc_trace_cache *c,
						   const struct osc_trace *t)
{
	struct osc_catsel host;

	if (!c->have_tree) {
		osc_catsel_parse(&host, t, NULL, OSC_CATSEL_HOST_DEFAULT, "", NULL);
		osc_calltree_build(t, &host, &c->host_tree);
		osc_catsel_release(&host);
		c->have_tree = true;
	}
	return &c->host_tree;
}

static void build_launchers(struct osc_trace_cache *c, const struct osc_trace *t)
{
	const struct osc_calltree *tree = host_tree_locked(c, t);
	uint32_t *launcher = osc_xmalloc((t->nr_events ? t->nr_events : 1) * sizeof(*launcher));
	struct osc_catsel launch, device;
	struct osc_correlation corr;

	osc_catsel_parse(&launch, t, NULL, OSC_CATSEL_LAUNCH_DEFAULT, "", NULL);
	osc_catsel_parse(&device, t, NULL, OSC_CATSEL_DEVICE_DEFAULT, "", NULL);
	osc_correlate(t, tree, &launch, &device, &corr);
	for (size_t i = 0; i < t->nr_events; i++) {
		uint32_t d = corr.dev_of ? corr.dev_of[i] : OSC_NONE;
		uint32_t node = d != OSC_NONE ? corr.devs[d].node : OSC_NONE;

		launcher[i] = node != OSC_NONE ? tree->nodes[node].event : OSC_NONE;
	}
	osc_correlation_release(&corr);
	osc_catsel_release(&launch);
	osc_catsel_release(&device);
	c->launchers = launcher;
}

const struct osc_brief *osc_trace_briefs(const struct osc_trace *t, enum osc_kind k, size_t *nr)
{
	struct osc_trace_cache *c = t->cache;
	const struct osc_brief *out;

	k = (unsigned)k < OSC_KIND_COUNT ? k : OSC_KIND_OTHER;
	pthread_mutex_lock(&c->lock);
	if (!c->briefs[k])
		build_briefs(c, t, k);
	mark_used(t);
	*nr = c->nr_briefs[k];
	out = c->briefs[k];
	pthread_mutex_unlock(&c->lock);
	return out;
}

const struct osc_calltree *osc_trace_host_tree(const struct osc_trace *t)
{
	const struct osc_calltree *out;

	pthread_mutex_lock(&t->cache->lock);
	out = host_tree_locked(t->cache, t);
	mark_used(t);
	pthread_mutex_unlock(&t->cache->lock);
	return out;
}

const uint32_t *osc_trace_launchers(const struct osc_trace *t)
{
	const uint32_t *out;

	pthread_mutex_lock(&t->cache->lock);
	if (!t->cache->launchers)
		build_launchers(t->cache, t);
	mark_used(t);
	out = t->cache->launchers;
	pthread_mutex_unlock(&t->cache->lock);
	return out;
}

void osc_trace_cache_warm(const struct osc_trace *t)
{
	size_t nr;

	osc_trace_briefs(t, OSC_KIND_HOST_OP, &nr);
	osc_trace_briefs(t, OSC_KIND_KERNEL, &nr);
	osc_trace_launchers(t);
}
