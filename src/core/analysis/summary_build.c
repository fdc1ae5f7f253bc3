/* summary_build.c - a loaded trace reduced to its rank summary (summary_build.h). */
#include "opscope/analysis/summary_build.h"

#include <stdlib.h>
#include <string.h>

#include "opscope/analysis/aggregate.h"
#include "opscope/analysis/diff.h"
#include "opscope/analysis/collective_skew.h"
#include "opscope/analysis/gpu.h"
#include "opscope/analysis/module.h"
#include "opscope/base/sat.h"
#include "opscope/analysis/trace_cache.h"
#include "opscope/base/alloc.h"

/* HTA's consecutive_kernel_delay: shorter gaps are kernel waits (gpu.h); unused by the summary. */
#define KERNEL_WAIT_NS 30
/* A row's keys as text: a call path of a thousand frames still fits. */
#define LABEL_MAX ((size_t)1 << 16)

/* The device (a process of streams) with the most device events of every run. */
static osc_str busiest_device(const struct osc_gpu *g)
{
	osc_str best = OSC_STR_NONE;
	uint64_t most = 0;

	for (size_t i = 0; i < g->nr; i++) {
		const struct osc_gpu_row *r = &g->rows[i];

		if (r->run != OSC_NONE || r->thread != OSC_NONE)
			continue; /* the selection's device rows hold every run's events */
		if (best == OSC_STR_NONE || r->events > most) {
			best = r->device;
			most = r->events;
		}
	}
	return best;
}

/* The kept runs of t with their windows and the GPU breakdown of the busiest device. */
static void add_runs(const struct osc_trace *t, const struct osc_runs *runs,
		     const uint32_t *kept, struct osc_summary *s)
{
	struct osc_gpu_query q = { .runs = runs, .kernel_wait = KERNEL_WAIT_NS };
	struct osc_gpu g;
	osc_str device;

	osc_gpu_breakdown(t, &q, &g);
	device = busiest_device(&g);
	for (size_t i = 0; i < runs->nr; i++) {
		const struct osc_run *r = &runs->runs[i];
		struct osc_sum_run sr = { .name = osc_summary_intern(s, osc_trace_str(t, r->name)),
					  .ts = r->ts, .wall = r->dur, .events = r->nr_events,
					  .idle = r->dur };

		if (kept[i] != OSC_NONE)
			osc_summary_add_run(s, &sr);
	}
	for (size_t i = 0; i < g.nr; i++) {
		const struct osc_gpu_row *r = &g.rows[i];
		struct osc_sum_run *sr;

		if (r->run == OSC_NONE || r->run >= runs->nr || kept[r->run] == OSC_NONE ||
		    r->thread != OSC_NONE || r->device != device)
			continue;
		sr = &s->runs[kept[r->run]];
		sr->busy = r->busy;
		sr->idle = r->wall - r->busy;
		for (int c = 0; c < OSC_SUM_CATS; c++)
			sr->cat[c] = r->cat[c];
		sr->exposed_comm = r->exposed_comm;
	}
	osc_gpu_release(&g);
}

/* What a level's rows are split by run with, and where they go. */
struct splitter {
	const struct osc_trace *t;
	const struct osc_runs *runs;
	const uint32_t *kept;             /* per run of the trace: its index in the summary,
					     or OSC_NONE when it is not kept */
	const struct osc_calltree *tree;  /* host levels: the ops' nodes and costs */
	const struct osc_op_cost *cost;
	struct osc_sum_row *acc;          /* per run: the row being summed */
	uint8_t *on;                      /* per run: it has a share of the row */
	uint32_t *touched;                /* those runs, in order */
	size_t nr_touched;
	struct osc_summary *s;
	const struct osc_names *names;    /* the kernel names of the device levels' rows */
};

/* The sums of run for the row being split, marked as having a share of it. */
static struct osc_sum_row *share(struct splitter *x, uint32_t run)
{
	if (!x->on[run]) {
		x->on[run] = 1;
		x->touched[x->nr_touched++] = run;
		x->acc[run].min = INT64_MAX;
	}
	return &x->acc[run];
}

/* Add member ev of a row to its run's sums (aggregate.h's measures of one event). */
static void add_member(struct splitter *x, bool device, uint32_t ev)
{
	uint32_t run = x->runs->run_of[ev];
	const struct osc_event *e = &x->t->events[ev];
	struct osc_sum_row *r;

	if (run == OSC_NONE || (run = x->kept[run]) == OSC_NONE)
		return;
	r = share(x, run);
	r->count++;
	r->total = osc_sat_add(r->total, e->dur);
	r->min = e->dur < r->min ? e->dur : r->min;
	r->max = e->dur > r->max ? e->dur : r->max;
	if (device) {
		r->dev = r->total; /* a device event's own time is its device time */
	} else if (x->tree->node_of[ev] != OSC_NONE) {
		const struct osc_op_cost *c = &x->cost[x->tree->node_of[ev]];

		r->self = osc_sat_add(r->self, c->self);
		r->dev = osc_sat_add(r->dev, c->dev);
		r->dev_total = osc_sat_add(r->dev_total, c->dev_total);
		r->kernels += c->kernels;
	}
}

/* Emit the runs' shares as rows of level l keyed key, and clear them. */
static void emit(struct splitter *x, enum osc_level l, osc_str key, osc_str kernel)
{
	for (size_t k = 0; k < x->nr_touched; k++) {
		uint32_t run = x->touched[k];
		struct osc_sum_row *r = &x->acc[run];

		if (!r->count)
			r->min = 0;
		r->level = (uint8_t)l;
		r->run = run;
		r->key = key;
		r->kernel = kernel;
		osc_summary_add_row(x->s, r);
		memset(r, 0, sizeof(*r));
		x->on[run] = 0;
	}
	x->nr_touched = 0;
}

/*
 * Category c's device time and events per run: the device events of that
 * category, each in the run of its launching op, or its own (aggregate.h),
 * whether or not the category has ops in the run.
 */
static void category_device(struct splitter *x, const uint8_t *cat, uint32_t c)
{
	static const enum osc_kind kinds[] = { OSC_KIND_KERNEL, OSC_KIND_MEMCPY, OSC_KIND_MEMSET };
	const uint32_t *op = osc_trace_launchers(x->t);

	for (size_t k = 0; k < x->nr_touched; k++) { /* the ops' own device time goes */
		x->acc[x->touched[k]].dev = 0;
		x->acc[x->touched[k]].kernels = 0;
	}
	for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		size_t nb;
		const struct osc_brief *b = osc_trace_briefs(x->t, kinds[k], &nb);

		for (size_t j = 0; j < nb; j++) {
			uint32_t ev = b[j].event, from = op[ev] != OSC_NONE ? op[ev] : ev;
			uint32_t run = x->runs->run_of[from];
			struct osc_sum_row *r;

			if (cat[ev] != c || run == OSC_NONE || (run = x->kept[run]) == OSC_NONE)
				continue;
			r = share(x, run);
			r->dev = osc_sat_add(r->dev, b[j].dur);
			r->kernels++;
		}
	}
}

/*
 * The rows of level l per run: one aggregate over every run, each row's
 * members split by their run (each op, and each device event, in the run
 * runs.h gives it: report --runs J's rule), so the cost is one aggregate,
 * not one per run. A category takes its device time from its device events
 * (category_device).
 */
static void add_level(struct splitter *x, const struct osc_categories *categories,
		      enum osc_level l)
{
	struct osc_query q = { .level = l, .categories = categories, .names = x->names };
	struct osc_agg a;
	char *label = osc_xmalloc(LABEL_MAX);
	bool device = osc_level_is_device(l);
	const uint8_t *cat = l == OSC_LEVEL_CATEGORY ? osc_trace_categories(x->t, categories)
						     : NULL;

	osc_aggregate(x->t, x->runs, &q, &a);
	for (size_t i = 0; i < a.nr; i++) {
		const struct osc_agg_row *r = &a.rows[i];
		osc_str key = osc_summary_intern(x->s, osc_agg_label_names(x->t, &a, x->names, r,
									   label, LABEL_MAX));
		osc_str kernel = device ? osc_summary_intern(x->s, osc_trace_str(x->t, r->key))
					: OSC_STR_EMPTY;

		for (size_t m = 0; m < r->nr; m++)
			add_member(x, device, a.members[r->first + m]);
		if (cat)
			category_device(x, cat, r->category);
		emit(x, l, key, kernel);
	}
	osc_agg_release(&a);
	free(label);
}

/*
 * Module level: module instances nest and take device time from other
 * events (module.h), so each run is aggregated on its own (a cost per run;
 * traces recorded with modules are short). A trace without modules has no
 * row.
 */
static void add_module_level(struct splitter *x, const struct osc_categories *categories)
{
	struct osc_runsel sel = { .nr_runs = x->runs->nr, .nr_on = 1 };
	char *label;

	if (!osc_trace_modules(x->t)->nr_inst)
		return;
	label = osc_xmalloc(LABEL_MAX);
	sel.on = osc_xcalloc(x->runs->nr ? x->runs->nr : 1, 1);
	for (uint32_t j = 0; j < x->runs->nr; j++) {
		struct osc_query q = { .level = OSC_LEVEL_MODULE, .runs = &sel,
				       .categories = categories };
		struct osc_agg a;

		if (x->kept[j] == OSC_NONE)
			continue;
		sel.on[j] = 1;
		osc_aggregate(x->t, x->runs, &q, &a);
		for (size_t i = 0; i < a.nr; i++) {
			const struct osc_agg_row *r = &a.rows[i];
			struct osc_sum_row row = {
				.level = OSC_LEVEL_MODULE, .run = x->kept[j],
				.key = osc_summary_intern(x->s, osc_agg_label(x->t, &a, r, label,
									      LABEL_MAX)),
				.count = r->count, .kernels = r->kernels, .total = r->total,
				.self = r->self, .dev = r->dev, .dev_total = r->dev_total,
				.min = r->min, .max = r->max,
			};

			osc_summary_add_row(x->s, &row);
		}
		osc_agg_release(&a);
		sel.on[j] = 0;
	}
	free(sel.on);
	free(label);
}

/* Each kept run's bases (aggregate.h): the run level's self (host busy) and device time. */
static void add_bases(const struct osc_trace *t, const struct osc_runs *runs,
		      const uint32_t *kept, struct osc_summary *s)
{
	struct osc_query q = { .level = OSC_LEVEL_RUN };
	struct osc_agg a;

	osc_aggregate(t, runs, &q, &a);
	for (size_t i = 0; i < a.nr; i++) {
		uint32_t run = a.rows[i].run < runs->nr ? kept[a.rows[i].run] : OSC_NONE;

		if (run != OSC_NONE) {
			s->runs[run].host_busy = a.rows[i].self;
			s->runs[run].device_time = a.rows[i].dev;
		}
	}
	osc_agg_release(&a);
}

/* The calls in kept runs, their runs renumbered (seq stays the whole trace's). */
static void keep_calls(const uint32_t *kept, size_t nr_runs, struct osc_summary *s)
{
	size_t out = 0;

	for (size_t i = 0; i < s->nr_calls; i++) {
		struct osc_sum_call *c = &s->calls[i];

		if (c->run == OSC_NONE || c->run >= nr_runs || kept[c->run] == OSC_NONE)
			continue;
		c->run = kept[c->run];
		s->calls[out++] = *c;
	}
	s->nr_calls = out;
}

void osc_summary_build(const struct osc_trace *t, const struct osc_runs *runs,
		       const struct osc_runsel *sel, const struct osc_categories *categories,
		       const struct osc_names *names, unsigned skip, struct osc_summary *out)
{
	size_t n = runs->nr ? runs->nr : 1, nr_kept = 0;
	uint32_t *kept = osc_xmalloc(n * sizeof(*kept));
	struct splitter x = {
		.t = t, .runs = runs, .kept = kept, .tree = osc_trace_host_tree(t),
		.cost = osc_trace_op_costs(t), .acc = osc_xcalloc(n, sizeof(*x.acc)),
		.on = osc_xcalloc(n, 1), .touched = osc_xcalloc(n, sizeof(*x.touched)), .s = out,
		.names = names,
	};

	for (size_t i = 0; i < runs->nr; i++)
		kept[i] = !sel || (i < sel->nr_runs && sel->on[i]) ? (uint32_t)nr_kept++ : OSC_NONE;
	out->source = OSC_SUM_FROM_TRACE;
	out->path = osc_xstrdup(t->path ? t->path : "");
	out->trace = osc_xstrdup(out->path);
	osc_trace_rank(t, NULL, &out->rank);
	out->format = t->format;
	out->events = osc_trace_nr_written(t);
	out->input_bytes = t->input_bytes;
	out->has_device = osc_trace_has_device(t);
	out->run_source = osc_summary_intern(out, osc_run_source_name(runs->source));
	add_runs(t, runs, kept, out);
	add_bases(t, runs, kept, out);
	out->skipped = skip;
	for (int l = 0; l < OSC_LEVEL_COUNT; l++)
		if (skip & (1u << l))
			continue;
		else if (l == OSC_LEVEL_MODULE)
			add_module_level(&x, categories);
		else if (l != OSC_LEVEL_RUN)
			add_level(&x, categories, (enum osc_level)l);
	free(x.acc);
	free(x.on);
	free(x.touched);
	osc_summary_add_calls(t, runs, out);
	keep_calls(kept, runs->nr, out);
	free(kept);
	osc_summary_sort(out);
}
