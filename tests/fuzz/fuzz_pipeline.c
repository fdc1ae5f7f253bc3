/*
 * fuzz_pipeline.c - libFuzzer target for everything after a load: any bytes
 * that load (plain or gzip'd JSON, SQLite) go through what the commands do
 * with a trace: runs, every aggregation level exported in every format, the
 * host tree with its correlation and merged tree (tree's table with paths
 * and guides, as `tree` and `kernels` show it), what-if with a rule on the
 * first op, and diff of the trace with itself in every match mode. Whatever
 * the trace, every analysis must end without a crash, a hang, a leak or
 * undefined behaviour (the build stops at the first UBSan report).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opscope/analysis/aggregate.h"
#include "opscope/analysis/calltree.h"
#include "opscope/analysis/correlate.h"
#include "opscope/analysis/diff.h"
#include "opscope/export/export.h"
#include "opscope/load/load.h"
#include "opscope/model/runs.h"
#include "opscope/analysis/whatif.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static FILE *sink;

/*
 * w (of a, through s) projected again in place with s's first rule alone
 * holds what a new projection holds, to the bit; aborts otherwise.
 */
static void again_as_new(const struct osc_trace *t, const struct osc_agg *a,
			 struct osc_whatif *w, const struct osc_speedups *s)
{
	struct osc_speedups first;
	struct osc_whatif fresh;
	struct osc_error err;

	osc_speedups_init(&first);
	osc_speedups_set(&first, s->v[0].pattern, s->v[0].shape, s->v[0].factor, &err);
	osc_whatif_sort(w, OSC_WHATIF_SAVED, true);
	osc_whatif_again(w, &first);
	osc_whatif(t, a, &first, &fresh);
	if (w->nr != fresh.nr || memcmp(w->rows, fresh.rows, w->nr * sizeof(*w->rows)) ||
	    memcmp(&w->projected, &fresh.projected, sizeof(w->projected)) ||
	    w->affected != fresh.affected)
		abort();
	osc_whatif_release(&fresh);
	osc_speedups_release(&first);
}

/* Every format of table t into the sink (as report, tree and the TUI export do). */
static void export_all(const struct osc_table *t)
{
	struct osc_error err;

	for (int f = 0; f < OSC_EXPORT_FORMAT_COUNT; f++)
		osc_export_table(sink, (enum osc_export_format)f, t, NULL, 100,
				 OSC_EXPORT_CSV_SAFE, &err);
}

static void levels(const struct osc_trace *t, const struct osc_runs *runs,
		   const struct osc_runsel *sel)
{
	for (int l = 0; l < OSC_LEVEL_COUNT; l++) {
		struct osc_query q = { .level = (enum osc_level)l, .runs = sel };
		struct osc_agg a;
		struct osc_agg_table_ctx ctx = { .trace = t, .agg = &a };
		struct osc_table table;

		osc_aggregate(t, runs, &q, &a);
		osc_agg_sort(&a, t, osc_agg_default_sort(&a), true);
		osc_agg_table(&ctx, &table);
		export_all(&table);
		if (l == OSC_LEVEL_OP || l == OSC_LEVEL_KERNEL) {
			struct osc_speedups s;
			struct osc_whatif w;
			struct osc_error err;
			char buf[1024];

			osc_speedups_init(&s);
			if (a.nr)
				osc_speedups_set(&s, osc_agg_label(t, &a, &a.rows[0], buf,
								   sizeof(buf)),
						 NULL, 2.5, &err);
			osc_speedups_set(&s, "*", NULL, 0.5, &err);
			osc_whatif(t, &a, &s, &w);
			osc_whatif_summary(&w, buf, sizeof(buf));
			for (size_t r = 0; r < w.nr; r++)
				osc_whatif_cell(&w, r, 0, buf, sizeof(buf));
			again_as_new(t, &a, &w, &s);
			osc_whatif_release(&w);
			osc_speedups_release(&s);
		}
		osc_agg_release(&a);
	}
}

static void tree(const struct osc_trace *t, const struct osc_runs *runs,
		 const struct osc_runsel *sel)
{
	struct osc_catsel host, launch, device;
	struct osc_calltree c;
	struct osc_correlation corr;
	struct osc_mtree m;
	struct osc_tree_scratch scratch = { 0 };
	struct osc_error err;
	struct osc_table table;
	uint8_t *keep, *last;
	uint32_t *order;
	char guide[4096];
	size_t nr;

	osc_catsel_parse(&host, t, NULL, OSC_CATSEL_HOST_DEFAULT, "--ops", &err);
	osc_catsel_parse(&launch, t, NULL, OSC_CATSEL_LAUNCH_DEFAULT, "--host-cat", &err);
	osc_catsel_parse(&device, t, NULL, OSC_CATSEL_DEVICE_DEFAULT, "--device-cat", &err);
	osc_host_analysis(t, &host, &launch, &device, &c, &corr);
	osc_mtree_build(t, &c, &corr, runs, sel, OSC_STR_NONE, &m);
	keep = malloc(m.nr ? m.nr : 1);
	last = malloc(m.nr ? m.nr : 1);
	order = malloc((m.nr ? m.nr : 1) * sizeof(*order));
	osc_mtree_keep(&m, t, NULL, 0, -1, keep);
	nr = osc_mtree_preorder(&m, keep, order);
	osc_mtree_last(&m, keep, last);
	for (size_t i = 0; i < nr; i++)
		osc_mtree_guide(&m, last, order[i], 0, i & 1, guide, sizeof(guide));
	for (int paths = 0; paths < 2; paths++) {
		struct osc_tree_table_ctx ctx = { .trace = t, .tree = &m, .corr = &corr,
						  .rows = order, .nr_rows = nr, .paths = paths,
						  .decimals = paths ? 6 : 3, .scratch = &scratch };

		osc_tree_table(&ctx, &table);
		export_all(&table);
	}
	osc_tree_scratch_release(&scratch);
	free(keep);
	free(last);
	free(order);
	osc_mtree_release(&m);
	osc_correlation_release(&corr);
	osc_calltree_release(&c);
	osc_catsel_release(&host);
	osc_catsel_release(&launch);
	osc_catsel_release(&device);
}

static void diff(const struct osc_trace *t, const struct osc_runs *runs,
		 const struct osc_runsel *sel)
{
	const struct osc_diff_side side = { t, runs, sel, NULL };

	for (int l = 0; l < OSC_LEVEL_COUNT; l++) {
		for (int m = 0; m < OSC_MATCH_COUNT; m++) {
			struct osc_diff_query q = { .level = (enum osc_level)l,
						    .match = (enum osc_match)m };
			struct osc_diff d;
			char buf[256];
			size_t nr;
			const struct osc_column *cols = osc_diff_columns(&nr);

			(void)cols;
			osc_diff(&side, &side, &q, &d);
			osc_diff_sort(&d, OSC_DIFF_DELTA, true);
			for (size_t r = 0; r < d.nr; r++)
				for (size_t c = 0; c < nr; c++)
					osc_diff_cell(&d, r, c, buf, sizeof(buf));
			osc_diff_release(&d);
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct osc_trace t;
	struct osc_error err;
	struct osc_runs runs;
	struct osc_runsel sel;

	if (!sink)
		sink = fopen("/dev/null", "w");
	osc_trace_init(&t);
	if (osc_load_buffer("fuzz", data, size, NULL, &t, &err) == OSC_OK) {
		osc_runs_detect(&t, &runs);
		if (osc_runsel_parse(NULL, runs.nr, runs.warmup, &sel, &err) == OSC_OK) {
			levels(&t, &runs, &sel);
			tree(&t, &runs, &sel);
			diff(&t, &runs, &sel);
			osc_runsel_release(&sel);
		}
		osc_runs_release(&runs);
	}
	osc_trace_release(&t);
	return 0;
}
