/*
 * view_gpu.c - where the GPU's time goes (G): `opscope gpu`'s table for the
 * TUI's runs, and a sparkline of the device busy share over the selected
 * runs' time, so a user sees where the GPU starves.
 *
 * Tab cycles its tables, each one of `opscope gpu`'s: the breakdown (per run:
 * each device, then its streams; the selection last), the longest idle gaps
 * (--gaps), the kernel launch statistics per kernel (--launches) and per
 * launching op (--launches --per-op); x exports the table shown as that
 * command writes it.
 */
#include <stdlib.h>
#include <string.h>

#include "opscope/analysis/gpu.h"
#include "opscope/analysis/trace_cache.h"
#include "opscope/base/alloc.h"
#include "opscope/export/chart.h"
#include "cli_line.h"
#include "view.h"

#define SPARK_BUCKETS 32 /* time buckets of the utilisation sparkline */
#define GAPS_SHOWN 100   /* the idle gaps table's rows (opscope gpu --gaps 100) */
#define SHORT_NS 10000   /* short kernels, as opscope gpu --launches's default */

/* The tables of the view, in Tab's order. */
enum gpu_table { GPU_BREAKDOWN, GPU_GAPS, GPU_LAUNCHES, GPU_LAUNCHES_PER_OP, GPU_TABLES };

static const char *const table_title[GPU_TABLES] = {
	"busy and idle", "longest idle gaps", "kernel launches per kernel",
	"kernel launches per op",
};

struct gpu_view {
	enum gpu_table shown;
	struct osc_gpu g;
	struct osc_launches launches;
	char spark[SPARK_BUCKETS * 4 + 1]; /* busy share per bucket of the selected runs */
};

struct gpu_cells {
	const struct osc_tui *t;
	const struct gpu_view *gv;
};

static void gpu_open(struct osc_tui *t, struct osc_view *v, const void *arg)
{
	(void)t;
	(void)arg;
	v->priv = osc_xcalloc(1, sizeof(struct gpu_view));
}

static void gpu_close(struct osc_view *v)
{
	struct gpu_view *gv = v->priv;

	osc_gpu_release(&gv->g);
	osc_launches_release(&gv->launches);
	free(gv);
}

/* The device busy share (all devices) per time bucket from the first to the last selected run. */
static void sparkline(struct osc_tui *t, struct gpu_view *gv)
{
	double busy[SPARK_BUCKETS];
	int64_t from = INT64_MAX, to = INT64_MIN, step;
	size_t nr;
	const struct osc_span *s = osc_trace_device_spans(&t->trace, &nr);

	gv->spark[0] = '\0';
	for (size_t r = 0; r < t->runs.nr; r++) {
		if (r < t->sel.nr_runs && !t->sel.on[r])
			continue;
		from = t->runs.runs[r].ts < from ? t->runs.runs[r].ts : from;
		if (osc_sat_add(t->runs.runs[r].ts, t->runs.runs[r].dur) > to)
			to = osc_sat_add(t->runs.runs[r].ts, t->runs.runs[r].dur);
	}
	if (!nr || to <= from)
		return;
	step = (to - from + SPARK_BUCKETS - 1) / SPARK_BUCKETS;
	for (int b = 0; b < SPARK_BUCKETS; b++) {
		int64_t a = from + b * step;

		busy[b] = a < to ? (double)osc_spans_within(s, nr, a, a + step) / (double)step : 0;
	}
	osc_chart_spark_range(busy, SPARK_BUCKETS, 0, 1, t->utf8, gv->spark, sizeof(gv->spark));
}

static void gpu_build(struct osc_tui *t, struct osc_view *v)
{
	struct gpu_view *gv = v->priv;
	struct osc_gpu_query q = { .runs = &t->runs, .sel = &t->sel, .kernel_wait = 30,
				   .nr_gaps = gv->shown == GPU_GAPS ? GAPS_SHOWN : 0 };
	struct osc_launch_query lq = { .runs = &t->runs, .sel = &t->sel, .short_ns = SHORT_NS,
				       .per_op = gv->shown == GPU_LAUNCHES_PER_OP };

	osc_gpu_release(&gv->g);
	osc_launches_release(&gv->launches);
	if (gv->shown >= GPU_LAUNCHES)
		osc_gpu_launches(&t->trace, &lq, &gv->launches);
	else
		osc_gpu_breakdown(&t->trace, &q, &gv->g);
	sparkline(t, gv);
}

static const char *gpu_cell(const void *ctx, size_t row, size_t col, char *buf, size_t size)
{
	const struct gpu_cells *c = ctx;

	switch (c->gv->shown) {
	case GPU_GAPS:
		return osc_gpu_gap_cell(&c->t->trace, &c->t->runs, &c->gv->g, row, col, buf, size);
	case GPU_LAUNCHES:
	case GPU_LAUNCHES_PER_OP:
		return osc_launch_cell(&c->t->trace, &c->gv->launches, row, col, buf, size);
	default:
		return osc_gpu_cell(&c->t->trace, &c->t->runs, &c->gv->g, row, col, buf, size);
	}
}

static void gpu_table(struct osc_tui *t, struct osc_view *v, struct osc_table *out)
{
	static struct gpu_cells cells; /* one GPU view at a time on the stack */
	struct gpu_view *gv = v->priv;

	cells = (struct gpu_cells){ t, gv };
	switch (gv->shown) {
	case GPU_GAPS:
		out->cols = osc_gpu_gap_columns(&out->nr_cols);
		out->nr_rows = gv->g.nr_gaps;
		break;
	case GPU_LAUNCHES:
	case GPU_LAUNCHES_PER_OP:
		out->cols = osc_launch_columns(gv->shown == GPU_LAUNCHES_PER_OP, &out->nr_cols);
		out->nr_rows = gv->launches.nr;
		break;
	default:
		out->cols = osc_gpu_columns(&out->nr_cols);
		out->nr_rows = gv->g.nr;
	}
	out->cell = gpu_cell;
	out->ctx = &cells;
}

static void gpu_title(struct osc_tui *t, struct osc_view *v, char *buf, size_t size)
{
	struct gpu_view *gv = v->priv;

	(void)t;
	snprintf(buf, size, "GPU: %s (%zu rows; Tab: %s)", table_title[gv->shown], v->tab.nr_rows,
		 table_title[(gv->shown + 1) % GPU_TABLES]);
}

/* Tab and BackTab: the next or previous table. */
static unsigned gpu_action(struct osc_tui *t, struct osc_view *v, enum osc_action a)
{
	struct gpu_view *gv = v->priv;

	if (a != OSC_ACT_NEXT_LEVEL && a != OSC_ACT_PREV_LEVEL)
		return OSC_R_UNHANDLED;
	gv->shown = (gv->shown + (a == OSC_ACT_NEXT_LEVEL ? 1 : GPU_TABLES - 1)) % GPU_TABLES;
	v->built_gen = t->gen - 1;
	v->cur = v->top = v->hoff = 0;
	osc_view_refresh(t, v);
	return OSC_R_REDRAW;
}

static void gpu_bases(struct osc_tui *t, struct osc_view *v, char *buf, size_t size)
{
	struct gpu_view *gv = v->priv;

	(void)t;
	if (gv->shown >= GPU_LAUNCHES)
		snprintf(buf, size, "short kernels (under %d us): %llu of %llu, %.2f%% of kernel time",
			 SHORT_NS / 1000, (unsigned long long)gv->launches.nr_short,
			 (unsigned long long)gv->launches.count,
			 gv->launches.total ? 100.0 * (double)gv->launches.short_total /
						      (double)gv->launches.total
					    : 0.0);
	else if (*gv->spark)
		snprintf(buf, size, "busy over time %s", gv->spark);
	else
		snprintf(buf, size, "no device events in the runs");
}

static const char *gpu_export_name(struct osc_tui *t, struct osc_view *v)
{
	(void)t;
	(void)v;
	return "gpu";
}

/* `opscope gpu` with the TUI's trace, runs and table (the filter does not apply here). */
static char *gpu_command(struct osc_tui *t, struct osc_view *v)
{
	struct gpu_view *gv = v->priv;
	char *line = osc_xstrdup("opscope gpu");
	char gaps[32];

	snprintf(gaps, sizeof(gaps), "%d", GAPS_SHOWN);
	if (gv->shown == GPU_GAPS)
		line = osc_cli_line_arg(osc_cli_line_arg(line, "--gaps"), gaps);
	if (gv->shown >= GPU_LAUNCHES)
		line = osc_cli_line_arg(line, "--launches");
	if (gv->shown == GPU_LAUNCHES_PER_OP)
		line = osc_cli_line_arg(line, "--per-op");
	if (t->args->path)
		line = osc_cli_line_arg(line, t->args->path);
	line = osc_cli_line_runs(t, line);
	return osc_cli_line_format(line, t->export_as);
}

const struct osc_view_ops osc_view_gpu = {
	.name = "gpu",
	.open = gpu_open,
	.close = gpu_close,
	.build = gpu_build,
	.table = gpu_table,
	.flex_col = 0,
	.action = gpu_action,
	.title = gpu_title,
	.bases = gpu_bases,
	.bases_first = true,
	.export_name = gpu_export_name,
	.command = gpu_command,
};
