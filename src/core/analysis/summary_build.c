/* summary_build.c - a loaded trace reduced to its rank summary (summary_build.h). */
#include "opscope/analysis/summary_build.h"

#include <stdlib.h>
#include <string.h>

#include "opscope/analysis/aggregate.h"
#include "opscope/analysis/diff.h"
#include "opscope/analysis/gpu.h"
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
		uint64_t n = 0;

		if (r->run != OSC_NONE || r->thread != OSC_NONE)
			continue; /* the selection's device rows hold every run's events */
		n = r->events;
		if (best == OSC_STR_NONE || n > most) {
			best = r->device;
			most = n;
		}
	}
	return best;
}

/* The runs of t with their windows and the GPU breakdown of the busiest device. */
static void add_runs(const struct osc_trace *t, const struct osc_runs *runs,
		     struct osc_summary *s)
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

		osc_summary_add_run(s, &sr);
	}
	for (size_t i = 0; i < g.nr; i++) {
		const struct osc_gpu_row *r = &g.rows[i];
		struct osc_sum_run *sr;

		if (r->run == OSC_NONE || r->run >= s->nr_runs || r->thread != OSC_NONE ||
		    r->device != device)
			continue;
		sr = &s->runs[r->run];
		sr->busy = r->busy;
		sr->idle = r->wall - r->busy;
		for (int c = 0; c < OSC_SUM_CATS; c++)
			sr->cat[c] = r->cat[c];
		sr->exposed_comm = r->exposed_comm;
	}
	osc_gpu_release(&g);
}

/* One aggregate of level l over run j alone; its rows into s, the bases into the run. */
static void add_level_run(const struct osc_trace *t, const struct osc_runs *runs,
			  const struct osc_categories *categories, enum osc_level l,
			  struct osc_runsel *sel, uint32_t j, struct osc_summary *s)
{
	struct osc_query q = { .level = l, .runs = sel, .categories = categories };
	struct osc_agg a;
	char *label = osc_xmalloc(LABEL_MAX);

	osc_aggregate(t, runs, &q, &a);
	if (l == OSC_LEVEL_OP) { /* the bases are the same at every host level */
		s->runs[j].host_busy = a.host_busy;
		s->runs[j].device_time = a.device_time;
	}
	for (size_t i = 0; i < a.nr; i++) {
		const struct osc_agg_row *r = &a.rows[i];
		struct osc_sum_row row = {
			.level = (uint8_t)l, .run = j,
			.key = osc_summary_intern(s, osc_agg_label(t, &a, r, label, LABEL_MAX)),
			.count = r->count, .kernels = r->kernels, .total = r->total,
			.self = r->self, .dev = r->dev, .dev_total = r->dev_total,
			.min = r->min, .max = r->max,
		};

		osc_summary_add_row(s, &row);
	}
	osc_agg_release(&a);
	free(label);
}

void osc_summary_build(const struct osc_trace *t, const struct osc_runs *runs,
		       const struct osc_categories *categories, struct osc_summary *out)
{
	struct osc_runsel sel = { .nr_runs = runs->nr, .nr_on = 1 };

	out->source = OSC_SUM_FROM_TRACE;
	out->path = osc_xstrdup(t->path ? t->path : "");
	out->trace = osc_xstrdup(out->path);
	osc_trace_rank(t, NULL, &out->rank);
	out->format = t->format;
	out->events = t->nr_events;
	out->input_bytes = t->input_bytes;
	out->has_device = osc_trace_has_device(t);
	out->run_source = osc_summary_intern(out, osc_run_source_name(runs->source));
	add_runs(t, runs, out);
	sel.on = osc_xcalloc(runs->nr ? runs->nr : 1, 1);
	for (uint32_t j = 0; j < runs->nr; j++) {
		sel.on[j] = 1;
		for (int l = 0; l < OSC_LEVEL_COUNT; l++)
			if (l != OSC_LEVEL_RUN)
				add_level_run(t, runs, categories, (enum osc_level)l, &sel, j, out);
		sel.on[j] = 0;
	}
	free(sel.on);
	osc_summary_sort(out);
}
