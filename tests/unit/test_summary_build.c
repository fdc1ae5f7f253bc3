/*
 * test_summary_build.c - a trace's summary (summary_build.h) holds, for
 * every level but run and every run J, exactly the rows of an aggregate of
 * run J alone (what `opscope report --by LEVEL --runs J` prints), and each
 * run's bases: checked on the samples and the hand-made traces against
 * osc_aggregate itself, one run at a time; and the two documented
 * exceptions as documented.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opscope/analysis/aggregate.h"
#include "opscope/analysis/diff.h"
#include "opscope/analysis/summary_build.h"
#include "opscope/load/load.h"

/*
 * The traces, and the level a summary documents apart (summary_build.h):
 * measures-runs.json has an op whose child lies in the next run (its path
 * keeps the parent in a summary), measures-flow.json kernels in another run
 * than their op (a summary's mapping rows keep them).
 */
static const struct {
	const char *path;
	int apart; /* a level compared elsewhere (-1: none) */
} traces[] = {
	{ "samples/ort-cnn-opt.json", -1 }, { "samples/torch-resnet18-infer.json", -1 },
	{ "samples/kineto-sampled-rank0.json.gz", -1 }, { "samples/ne-bert-mini-int8.json", -1 },
	{ "samples/rocm-torch-compile-triton.json.gz", -1 },
	{ "tests/data/measures-nested.json", -1 }, { "tests/data/measures-runs.json", OSC_LEVEL_PATH },
	{ "tests/data/measures-ort.json", -1 }, { "tests/data/measures-flow.json", OSC_LEVEL_MAPPING },
	{ "tests/data/measures-frames.json", -1 }, { "tests/data/gpu-hand.json", -1 },
	{ "tests/data/module-hand.json", -1 }, { "tests/data/ranks/sampled_rank-1.json.gz", -1 },
};

/* The rows of (l, j) in s against an aggregate of run j alone; problems counted. */
static int compare_run(const struct osc_trace *t, const struct osc_runs *runs,
		       const struct osc_summary *s, enum osc_level l, uint32_t j)
{
	struct osc_runsel sel = { .nr_runs = runs->nr, .nr_on = 1 };
	struct osc_query q = { .level = l, .runs = &sel };
	struct osc_agg a;
	size_t first, n;
	int bad = 0;
	char *label = malloc(1 << 16);

	sel.on = calloc(runs->nr, 1);
	sel.on[j] = 1;
	osc_aggregate(t, runs, &q, &a);
	n = osc_summary_rows_of(s, l, j, &first);
	if (n != a.nr) {
		cr_log_error("%s --by %s --runs %u: %zu rows, the aggregate has %zu", t->path,
			     osc_level_name(l), j, n, a.nr);
		bad++;
	}
	for (size_t i = 0; i < a.nr && !bad; i++) {
		const struct osc_agg_row *r = &a.rows[i];
		const struct osc_sum_row *m = NULL;

		osc_agg_label(t, &a, r, label, 1 << 16);
		for (size_t k = first; k < first + n; k++)
			if (!strcmp(osc_summary_str(s, s->rows[k].key), label))
				m = &s->rows[k];
		if (!m || m->count != r->count || m->total != r->total || m->self != r->self ||
		    m->dev != r->dev || m->dev_total != r->dev_total || m->kernels != r->kernels ||
		    (r->count && (m->min != r->min || m->max != r->max))) {
			cr_log_error("%s --by %s --runs %u: row '%s' differs", t->path,
				     osc_level_name(l), j, label);
			bad++;
		}
	}
	if (l == OSC_LEVEL_OP && (s->runs[j].host_busy != a.host_busy ||
				  s->runs[j].device_time != a.device_time)) {
		cr_log_error("%s run %u: bases differ", t->path, j);
		bad++;
	}
	osc_agg_release(&a);
	free(sel.on);
	free(label);
	return bad;
}

/* Load rel (from the source root) with its runs and build its summary of every run. */
static void load_and_build(const char *rel, struct osc_trace *t, struct osc_runs *runs,
			   struct osc_summary *s)
{
	const char *root = getenv("OPSCOPE_SOURCE_ROOT");
	char path[4096];
	struct osc_error err;

	snprintf(path, sizeof(path), "%s/%s", root ? root : ".", rel);
	osc_trace_init(t);
	cr_assert_eq(osc_load(path, NULL, t, &err), OSC_OK, "%s", path);
	osc_runs_detect(t, runs);
	osc_summary_init(s);
	osc_summary_build(t, runs, NULL, NULL, NULL, 0, s);
}

Test(summary_build, every_level_and_run_as_report_runs_j)
{
	for (size_t i = 0; i < sizeof(traces) / sizeof(traces[0]); i++) {
		struct osc_trace t;
		struct osc_runs runs;
		struct osc_summary s;
		int bad = 0;

		load_and_build(traces[i].path, &t, &runs, &s);
		cr_expect_eq(s.nr_runs, runs.nr);
		for (int l = 0; l < OSC_LEVEL_COUNT; l++)
			for (uint32_t j = 0; l != OSC_LEVEL_RUN && l != traces[i].apart && j < runs.nr;
			     j++)
				bad += compare_run(&t, &runs, &s, (enum osc_level)l, j);
		cr_expect_eq(bad, 0, "%s: %d differences", traces[i].path, bad);
		osc_summary_release(&s);
		osc_runs_release(&runs);
		osc_trace_release(&t);
	}
}

/* The events of the rows of level l keyed key in s, over every run. */
static uint64_t level_count(const struct osc_summary *s, enum osc_level l, const char *key)
{
	uint64_t n = 0;

	for (size_t k = 0; k < s->nr_rows; k++)
		if (s->rows[k].level == l && !strcmp(osc_summary_str(s, s->rows[k].key), key))
			n += s->rows[k].count;
	return n;
}

Test(summary_build, the_documented_exceptions)
{
	const char *files[] = { "tests/data/measures-runs.json", "tests/data/measures-flow.json" };
	struct osc_summary s[2];

	for (int i = 0; i < 2; i++) {
		struct osc_trace t;
		struct osc_runs runs;

		load_and_build(files[i], &t, &runs, &s[i]);
		osc_runs_release(&runs);
		osc_trace_release(&t);
	}
	/* a child in the next run keeps its parent in its path: no root-level aten::C */
	cr_expect_eq(level_count(&s[0], OSC_LEVEL_PATH, "aten::C"), 0);
	/* every kernel of a known op has its mapping row, whatever run its op is in */
	{
		uint64_t mapped = 0, kernels = 0;

		for (size_t k = 0; k < s[1].nr_rows; k++) {
			if (s[1].rows[k].level == OSC_LEVEL_MAPPING)
				mapped += s[1].rows[k].count;
			if (s[1].rows[k].level == OSC_LEVEL_KERNEL)
				kernels += s[1].rows[k].count;
		}
		cr_expect_gt(mapped, 0);
		cr_expect_leq(mapped, kernels);
	}
	osc_summary_release(&s[0]);
	osc_summary_release(&s[1]);
}
