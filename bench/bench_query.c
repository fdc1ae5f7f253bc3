/*
 * bench_query.c - how long the TUI's answers take on a big trace.
 *
 *   bench_query [-r REPEATS] [-p MS] [-l LEVEL | -v compare|whatif|gpu|tree] TRACE
 *
 * Loads TRACE, builds what the trace caches once (trace_cache.h: the host
 * tree with the correlation, the launchers and the op costs, which the TUI
 * builds on a spare thread after
 * loading), then times what the TUI does on a key press: osc_aggregate
 * at every level (the default runs, no filter; the first time, then the
 * best of the repeats), the GPU view's tables (G and
 * Tab: breakdown, 100 longest gaps, launches per kernel and per op),
 * osc_agg_order (the TUI's sort) by several
 * columns, a run selection change (a new runsel, then the op level again)
 * and a filter change (a new filter, then the op level again), and the
 * timeline's (V) frames and marks. Prints one
 * line per measurement, "<what> <milliseconds>", best of REPEATS (default
 * 3); a line ends in " SLOW" above the TUI's 50 ms budget. -l LEVEL only
 * aggregates at that level, REPEATS times (for a profiler: perf record -g);
 * -v VIEW times only that view (compare, whatif or gpu), after the caches are built;
 * -v tree times T on the five op rows with the most calls (the merge of
 * the subtrees of each one's calls, the first time and the best of the
 * repeats after it). -p MS waits MS milliseconds before each sort, as a
 * user's keys come: on a virtual machine a sort of a million rows took up
 * to twice as long after a pause of 1.5 s as right after another.
 * Built with -Dbench=true (bench/meson.build).
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "opscope/analysis/aggregate.h"
#include "opscope/analysis/calltree.h"
#include "opscope/analysis/tree_index.h"
#include "opscope/analysis/diff.h"
#include "opscope/analysis/whatif.h"
#include "opscope/analysis/gpu.h"
#include "opscope/load/load.h"
#include "opscope/analysis/timeline.h"
#include "opscope/analysis/trace_cache.h"
#include "opscope/export/timeline_draw.h"

#define BUDGET_MS 50.0

static void line_out(const char *what, const char *arg, double ms, bool budget);

static void report(const char *what, const char *arg, double ms)
{
	line_out(what, arg, ms, true);
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* The process's resident memory now, MiB, and of it *file the pages of mapped files. */
static double rss_mib(double *file)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	unsigned long kib, rss = 0;

	*file = 0;
	while (f && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "VmRSS: %lu kB", &kib) == 1)
			rss = kib;
		else if (sscanf(line, "RssFile: %lu kB", &kib) == 1)
			*file = (double)kib / 1024.0;
	}
	if (f)
		fclose(f);
	return (double)rss / 1024.0;
}

/*
 * One line; budget: whether the 50 ms answer budget applies to it. Lines
 * without (the load and what is built once) end in the resident memory.
 */
static void line_out(const char *what, const char *arg, double ms, bool budget)
{
	char label[96];
	double file, rss;

	snprintf(label, sizeof(label), "%s%s%s", what, arg ? " " : "", arg ? arg : "");
	if (budget) {
		printf("%-44s %9.1f%s\n", label, ms, ms > BUDGET_MS ? " SLOW" : "");
	} else {
		rss = rss_mib(&file);
		printf("%-44s %9.1f  (RSS %.0f MiB, %.0f of files)\n", label, ms, rss, file);
	}
	fflush(stdout);
}

struct ctx {
	struct osc_trace t;
	struct osc_runs runs;
	struct osc_runsel sel;
	struct osc_filter filter;
	int repeats;
	int pause_ms; /* -p: before each sort */
};

/*
 * Best time of osc_aggregate at a level (out keeps the last result); *first
 * (when not NULL) the first one's, which pays for memory the process had
 * not touched yet, as a level's first table in the TUI does.
 */
static double time_aggregate_first(struct ctx *c, enum osc_level level, struct osc_agg *out,
				   double *first)
{
	struct osc_query q = {
		.level = level,
		.runs = &c->sel,
		.filter = osc_filter_is_empty(&c->filter) ? NULL : &c->filter,
		.roofline = level == OSC_LEVEL_SHAPE, /* as the TUI's shape table */
		.in_place = true, /* as the TUI's tables */
	};
	double best = 0;

	for (int i = 0; i < c->repeats; i++) {
		double t0 = now_ms(), ms;

		osc_agg_release(out);
		memset(out, 0, sizeof(*out));
		osc_aggregate(&c->t, &c->runs, &q, out);
		ms = now_ms() - t0;
		if (!i && first)
			*first = ms;
		if (!i || ms < best)
			best = ms;
	}
	return best;
}

static double time_aggregate(struct ctx *c, enum osc_level level, struct osc_agg *out)
{
	return time_aggregate_first(c, level, out, NULL);
}

/* Each level: its first aggregate, then the best of the repeats. */
static void levels(struct ctx *c)
{
	struct osc_agg agg = { 0 };
	char label[64];

	for (int l = 0; l < OSC_LEVEL_COUNT; l++) {
		double first = 0, ms = time_aggregate_first(c, (enum osc_level)l, &agg, &first);

		snprintf(label, sizeof(label), "%s (first)", osc_level_name((enum osc_level)l));
		report("aggregate", label, first);
		report("aggregate", osc_level_name((enum osc_level)l), ms);
	}
	osc_agg_release(&agg);
}

/* The GPU view's tables (G, then Tab), best of the repeats each. */
static void gpu(struct ctx *c)
{
	static const char *const what[] = { "breakdown", "gaps 100", "launches", "launches per op" };

	for (int k = 0; k < 4; k++) {
		struct osc_gpu_query q = { .runs = &c->runs, .sel = &c->sel, .kernel_wait = 30,
					   .nr_gaps = k == 1 ? 100 : 0 };
		struct osc_launch_query lq = { .runs = &c->runs, .sel = &c->sel, .short_ns = 10000,
					       .per_op = k == 3 };
		double best = 0;

		for (int i = 0; i < c->repeats; i++) {
			struct osc_gpu g = { 0 };
			struct osc_launches l = { 0 };
			double t0 = now_ms(), ms;

			if (k < 2)
				osc_gpu_breakdown(&c->t, &q, &g);
			else
				osc_gpu_launches(&c->t, &lq, &l);
			ms = now_ms() - t0;
			osc_gpu_release(&g);
			osc_launches_release(&l);
			if (!i || ms < best)
				best = ms;
		}
		report("gpu", what[k], best);
	}
}

/*
 * T on the five op rows with the most calls: the roots from the row's calls,
 * then the merge of their subtrees through the index.
 */
static void tree(struct ctx *c)
{
	const struct osc_calltree *tr = osc_trace_host_tree(&c->t);
	const struct osc_correlation *corr = osc_trace_correlation(&c->t);
	const struct osc_tree_index *x = osc_trace_tree_index(&c->t);
	size_t words = osc_bits_words(tr->nr);
	uint64_t *roots = malloc(words * sizeof(*roots));
	struct osc_agg agg = { 0 };

	time_aggregate(c, OSC_LEVEL_OP, &agg);
	osc_agg_sort(&agg, &c->t, OSC_STAT_COUNT, true);
	for (size_t k = 0; k < 5 && k < agg.nr && roots; k++) {
		const struct osc_agg_row *row = &agg.rows[k];
		char what[160];
		double first = 0, best = 0;

		for (int i = 0; i <= c->repeats; i++) {
			struct osc_mtree m;
			double t0 = now_ms(), ms;

			memset(roots, 0, words * sizeof(*roots));
			osc_calltree_mark_calls(tr, agg.members + row->first, row->nr, roots);
			osc_mtree_build_subtree(&c->t, tr, corr, x, &c->runs, &c->sel, roots, &m);
			ms = now_ms() - t0;
			osc_mtree_release(&m);
			if (!i)
				first = ms;
			else if (i == 1 || ms < best)
				best = ms;
		}
		snprintf(what, sizeof(what), "%.60s, %zu calls", osc_trace_str(&c->t, row->key),
			 row->nr);
		report("T first", what, first);
		report("T best", what, best);
	}
	osc_agg_release(&agg);
	free(roots);
}

static void sorts(struct ctx *c)
{
	static const enum osc_stat by[] = { OSC_STAT_NAME, OSC_STAT_COUNT, OSC_STAT_MEAN,
					    OSC_STAT_P99, OSC_STAT_TOTAL, OSC_STAT_DEVICE };
	static const char *const names[] = { "name", "count", "mean", "p99", "total", "device" };
	struct osc_agg agg = { 0 };

	for (int l = 0; l < 2; l++) {
		enum osc_level level = l ? OSC_LEVEL_KERNEL : OSC_LEVEL_OP;
		char label[64];

		time_aggregate(c, level, &agg);
		for (size_t i = 0; i < sizeof(by) / sizeof(by[0]); i++) {
			double t0;

			if (c->pause_ms)
				usleep((useconds_t)c->pause_ms * 1000);
			t0 = now_ms();
			osc_agg_order(&agg, &c->t, by[i], true);
			snprintf(label, sizeof(label), "%s by %s (%zu rows)", osc_level_name(level),
				 names[i], agg.nr);
			report("sort", label, now_ms() - t0);
		}
	}
	osc_agg_release(&agg);
}

/*
 * The compare view (:compare TRACE): the trace against itself at the op
 * level, rows paired by each way of matching (M), best of the repeats.
 */
static void compare(struct ctx *c)
{
	const struct osc_diff_side side = { &c->t, &c->runs, &c->sel, NULL };

	for (int m = 0; m < OSC_MATCH_COUNT; m++) {
		struct osc_diff_query q = { .level = OSC_LEVEL_OP, .match = (enum osc_match)m };
		double best = 0;

		for (int i = 0; i < c->repeats; i++) {
			struct osc_diff d;
			double t0 = now_ms(), ms;

			osc_diff(&side, &side, &q, &d);
			ms = now_ms() - t0;
			osc_diff_release(&d);
			if (!i || ms < best)
				best = ms;
		}
		report("compare op by", osc_match_name((enum osc_match)m), best);
	}
}

/*
 * Tab in the what-if view with rules on three op rows: the shape level's
 * projection without rules, as computed early (with the lookup of its rows'
 * events), gets the op level's rules, projected and sorted. Best of the
 * repeats, each on a projection new to rules.
 */
static void whatif_next_level(struct ctx *c)
{
	struct osc_agg op = { 0 }, shape = { 0 };
	struct osc_speedups s, none;
	struct osc_whatif w;
	struct osc_error err;
	double best = 0;

	time_aggregate(c, OSC_LEVEL_OP, &op);
	time_aggregate(c, OSC_LEVEL_SHAPE, &shape);
	osc_speedups_init(&s);
	osc_speedups_init(&none);
	osc_whatif(&c->t, &op, &none, &w);
	osc_whatif_sort(&w, OSC_WHATIF_TOTAL, true);
	for (size_t r = 0; r < 3 && r < w.nr; r++)
		osc_speedups_set(&s, w.labels[osc_whatif_row_at(&w, r)->agg_row], "", 2, &err);
	osc_whatif_release(&w);
	for (int i = 0; i < c->repeats; i++) {
		double t0, ms;

		osc_whatif(&c->t, &shape, &none, &w);
		osc_whatif_sort(&w, OSC_WHATIF_TOTAL, true);
		osc_whatif_prepare(&w); /* with the early projection (view_whatif.c) */
		t0 = now_ms();
		osc_whatif_again(&w, &s);
		osc_whatif_sort(&w, OSC_WHATIF_TOTAL, true);
		ms = now_ms() - t0;
		osc_whatif_release(&w);
		if (!i || ms < best)
			best = ms;
	}
	report("whatif", "op rules into shape (Tab)", best);
	osc_speedups_release(&s);
	osc_speedups_release(&none);
	osc_agg_release(&op);
	osc_agg_release(&shape);
}

/*
 * The what-if view (W): the projection of the op and kernel levels with no
 * rule, with one wildcard rule, and with a table of 100 shape rules that
 * match nothing (each event tested against all), best of the repeats each;
 * each sorted as the view opens it. Then rules on three rows' labels
 * projected again in place (osc_whatif_again: '=' in the view), the rows
 * sorted by time staying: every other repeat, timed, after one without
 * rules, so that each timed projection changes the rules.
 */
static void whatif(struct ctx *c)
{
	struct osc_agg agg = { 0 };
	struct osc_error err;
	char label[64];

	for (int l = 0; l < 2; l++) {
		enum osc_level level = l ? OSC_LEVEL_KERNEL : OSC_LEVEL_OP;

		time_aggregate(c, level, &agg);
		for (int k = 0; k < 4; k++) {
			static const char *const what[] = { "no rule", "rule *e*=2",
							    "100 shape rules",
							    "3 rows' rules again" };
			struct osc_speedups s, none;
			struct osc_whatif again;
			double best = 0;

			osc_speedups_init(&s);
			osc_speedups_init(&none);
			if (k == 1)
				osc_speedups_set(&s, "*e*", "", 2, &err);
			for (int r = 0; k == 2 && r < 100; r++) {
				char shape[32];

				snprintf(shape, sizeof(shape), "(%dx7x7)", r + 1);
				osc_speedups_set(&s, "*", shape, 2, &err);
			}
			if (k == 3) {
				osc_whatif(&c->t, &agg, &none, &again);
				osc_whatif_sort(&again, OSC_WHATIF_TOTAL, true);
				for (size_t r = 0; r < 3 && r < again.nr; r++)
					osc_speedups_set(&s, again.labels[r], "", 2, &err);
			}
			for (int i = 0; i < c->repeats; i++) {
				struct osc_whatif w;
				double t0 = now_ms(), ms;

				if (k == 3) {
					osc_whatif_again(&again, i % 2 ? &none : &s);
					osc_whatif_sort(&again, OSC_WHATIF_TOTAL, true);
				} else {
					osc_whatif(&c->t, &agg, &s, &w);
					osc_whatif_sort(&w, OSC_WHATIF_TOTAL, true); /* as the view opens */
				}
				ms = now_ms() - t0;
				if (k != 3)
					osc_whatif_release(&w);
				if ((k != 3 || i % 2 == 0) && (!i || ms < best))
					best = ms;
			}
			if (k == 3)
				osc_whatif_release(&again);
			osc_speedups_release(&s);
			osc_speedups_release(&none);
			snprintf(label, sizeof(label), "%s, %s", osc_level_name(level), what[k]);
			report("whatif", label, best);
		}
	}
	osc_agg_release(&agg);
	whatif_next_level(c);
}

/* A new run selection as the runs view makes it, then the op table again. */
static void run_change(struct ctx *c, const char *spec)
{
	struct osc_agg agg = { 0 };
	struct osc_error err;
	double t0 = now_ms();

	osc_runsel_release(&c->sel);
	if (osc_runsel_parse(spec, c->runs.nr, c->runs.warmup, &c->sel, &err) != OSC_OK) {
		report("runs (bad spec)", spec, 0);
		osc_runsel_parse(NULL, c->runs.nr, c->runs.warmup, &c->sel, &err);
		return;
	}
	c->repeats = 1;
	time_aggregate(c, OSC_LEVEL_OP, &agg);
	report("runs + aggregate op", spec ? spec : "default", now_ms() - t0);
	osc_agg_release(&agg);
}

/* A new filter as `:filter SPEC` sets it, then the op table again. */
static void filter_change(struct ctx *c, const char *spec)
{
	struct osc_agg agg = { 0 };
	struct osc_error err;
	double t0 = now_ms();

	if (osc_filter_set_spec(&c->filter, spec, &err) != OSC_OK) {
		report("filter (bad spec)", spec, 0);
		return;
	}
	c->repeats = 1;
	time_aggregate(c, OSC_LEVEL_OP, &agg);
	report("filter + aggregate op", spec, now_ms() - t0);
	osc_agg_release(&agg);
}

/* Draw every lane of the timeline over [from, to) in `width` cells, REPEATS times: best ms. */
static double time_frame(struct ctx *c, const struct osc_timeline *tl, int64_t from, int64_t to,
			 size_t width)
{
	struct osc_tl_cell *cells = calloc(width, sizeof(*cells));
	struct osc_tl_glyph *glyphs = calloc(width, sizeof(*glyphs));
	struct osc_tl_window w = osc_tl_window_fit(from, to, width);
	double best = 1e30;

	for (int r = 0; r < c->repeats; r++) {
		double t0 = now_ms(), ms;

		for (size_t l = 0; l < tl->nr_lanes; l++)
			osc_tl_draw_lane(&c->t, NULL, tl, l, &w, NULL, 0, true, cells, glyphs);
		ms = now_ms() - t0;
		best = ms < best ? ms : best;
	}
	free(cells);
	free(glyphs);
	return best;
}

/*
 * The timeline (V): its lanes built once, then a frame of every lane in 200
 * cells over the selected runs, a 1/1000 of them and 1 µs; the runs' window
 * (a run change); finding the lanes of the members of the op with the most
 * instances (what marking a row does).
 */
static void timeline(struct ctx *c)
{
	double t0 = now_ms();
	const struct osc_timeline *tl = osc_trace_timeline(&c->t);
	int64_t from, to, span;
	struct osc_agg agg = { 0 };
	char label[96];
	size_t best = 0;
	double ms;

	line_out("timeline lanes (once, at the first V)", NULL, now_ms() - t0, false);
	printf("# %zu lanes in %zu groups\n", tl->nr_lanes, tl->nr_groups);
	t0 = now_ms();
	osc_tl_runs_window(tl, &c->runs, &c->sel, &from, &to);
	report("timeline runs' window", NULL, now_ms() - t0);
	span = to - from;
	snprintf(label, sizeof(label), "%zu lanes x 200 cells, the runs", tl->nr_lanes);
	report("timeline frame", label, time_frame(c, tl, from, to, 200));
	snprintf(label, sizeof(label), "%zu lanes x 200 cells, 1/1000", tl->nr_lanes);
	report("timeline frame", label, time_frame(c, tl, from + span / 2, from + span / 2 + span / 1000,
						   200));
	snprintf(label, sizeof(label), "%zu lanes x 200 cells, 1 us", tl->nr_lanes);
	report("timeline frame", label, time_frame(c, tl, from + span / 3, from + span / 3 + 1000, 200));
	time_aggregate(c, OSC_LEVEL_OP, &agg);
	for (size_t i = 0; i < agg.nr; i++)
		if (agg.rows[i].nr > agg.rows[best].nr)
			best = i;
	if (agg.nr) {
		const uint32_t *m = agg.members + agg.rows[best].first;

		size_t **marked, *nr_marked;

		t0 = now_ms();
		osc_tl_mark(tl, &c->t, m, agg.rows[best].nr, &marked, &nr_marked);
		ms = now_ms() - t0;
		for (size_t l = 0; l < tl->nr_lanes; l++)
			free(marked[l]);
		free(marked);
		free(nr_marked);
		snprintf(label, sizeof(label), "(%zu instances)", agg.rows[best].nr);
		report("timeline marks of an op row", label, ms);
	}
	osc_agg_release(&agg);
}

int main(int argc, char **argv)
{
	struct ctx c;
	struct osc_error err;
	char line[1024];
	int opt, repeats = 3, pause_ms = 0;
	size_t nr;
	const char *only = NULL;
	const char *view = NULL;
	enum osc_level level;
	double t0, ms;

	while ((opt = getopt(argc, argv, "r:p:l:v:")) != -1) {
		if (opt == 'r')
			repeats = atoi(optarg) > 0 ? atoi(optarg) : 1;
		else if (opt == 'p')
			pause_ms = atoi(optarg) > 0 ? atoi(optarg) : 0;
		else if (opt == 'l')
			only = optarg;
		else if (opt == 'v' && (!strcmp(optarg, "compare") || !strcmp(optarg, "whatif") ||
						 !strcmp(optarg, "gpu") || !strcmp(optarg, "tree")))
			view = optarg;
		else
			goto usage;
	}
	if (optind + 1 != argc)
		goto usage;
	memset(&c, 0, sizeof(c));
	c.pause_ms = pause_ms;
	osc_trace_init(&c.t);
	osc_filter_init(&c.filter);
	t0 = now_ms();
	if (osc_load(argv[optind], NULL, &c.t, &err) != OSC_OK) {
		osc_error_format(&err, line, sizeof(line));
		fprintf(stderr, "bench_query: %s\n", line);
		return 2;
	}
	ms = now_ms() - t0;
	printf("# %s: %zu events, %zu strings\n", argv[optind], c.t.nr_events, c.t.strs.count);
	line_out("load", NULL, ms, false);
	t0 = now_ms();
	osc_runs_detect(&c.t, &c.runs);
	line_out("runs detect (once, at load)", NULL, now_ms() - t0, false);
	osc_runsel_parse(NULL, c.runs.nr, c.runs.warmup, &c.sel, &err);
	printf("# %zu runs, %zu selected\n", c.runs.nr, c.sel.nr_on);
	if (only) {
		struct osc_agg agg = { 0 };

		if (osc_level_parse(only, &level, &err) != OSC_OK)
			goto usage;
		c.repeats = repeats;
		report("aggregate (best)", only, time_aggregate(&c, level, &agg));
		osc_agg_release(&agg);
		goto done;
	}
	/* Built once per trace (the TUI does it on a spare thread after loading). */
	t0 = now_ms();
	osc_trace_host_tree(&c.t);
	line_out("host call tree (once)", NULL, now_ms() - t0, false);
	t0 = now_ms();
	osc_trace_briefs(&c.t, OSC_KIND_HOST_OP, &nr);
	osc_trace_briefs(&c.t, OSC_KIND_KERNEL, &nr);
	osc_trace_briefs(&c.t, OSC_KIND_MEMCPY, &nr);
	osc_trace_briefs(&c.t, OSC_KIND_MEMSET, &nr);
	line_out("briefs of ops and device events (once)", NULL, now_ms() - t0, false);
	t0 = now_ms();
	osc_trace_host_paths(&c.t);
	line_out("host call paths (once)", NULL, now_ms() - t0, false);
	t0 = now_ms();
	osc_trace_launchers(&c.t);
	line_out("launchers (once)", NULL, now_ms() - t0, false);
	t0 = now_ms();
	osc_trace_tree_index(&c.t);
	line_out("tree index (once)", NULL, now_ms() - t0, false);
	t0 = now_ms();
	osc_trace_op_costs(&c.t);
	line_out("op costs (once)", NULL, now_ms() - t0, false);
	t0 = now_ms();
	osc_trace_gpu_index(&c.t);
	osc_trace_device_spans(&c.t, &nr);
	line_out("gpu index and busy spans (once)", NULL, now_ms() - t0, false);
	t0 = now_ms();
	osc_trace_modules(&c.t);
	line_out("module hierarchy (once)", NULL, now_ms() - t0, false);
	t0 = now_ms();
	osc_trace_categories(&c.t, NULL);
	line_out("categories (once)", NULL, now_ms() - t0, false);
	t0 = now_ms();
	osc_trace_call_works(&c.t);
	line_out("roofline work of conv/attention calls (once)", NULL, now_ms() - t0, false);
	t0 = now_ms();
	osc_trace_text_order(&c.t);
	line_out("strings in byte order (once)", NULL, now_ms() - t0, false);
	c.repeats = repeats;
	if (view) {
		if (!strcmp(view, "compare"))
			compare(&c);
		else if (!strcmp(view, "gpu"))
			gpu(&c);
		else if (!strcmp(view, "tree"))
			tree(&c);
		else
			whatif(&c);
		goto done;
	}
	levels(&c);
	gpu(&c);
	c.repeats = repeats;
	sorts(&c);
	compare(&c);
	whatif(&c);
	run_change(&c, "0");
	run_change(&c, "1:3");
	run_change(&c, NULL);
	filter_change(&c, "aten::*");
	filter_change(&c, "re:conv|gemm");
	filter_change(&c, "");
	timeline(&c);
done:
	osc_filter_release(&c.filter);
	osc_runsel_release(&c.sel);
	osc_runs_release(&c.runs);
	osc_trace_release(&c.t);
	return 0;
usage:
	fprintf(stderr,
		"usage: bench_query [-r REPEATS] [-p MS] [-l LEVEL | -v compare|whatif|gpu|tree] TRACE\n");
	return 2;
}
