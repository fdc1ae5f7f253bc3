/*
 * view_gpu.c - where the GPU's time goes (G): `opscope gpu`'s table for the
 * TUI's runs, and a sparkline of the device busy share over the selected
 * runs' time, so a user sees where the GPU starves.
 *
 * The rows are analysis/gpu.h's (per run: each device, then its streams;
 * the selection last); x exports them as `opscope gpu` writes them.
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

struct gpu_view {
	struct osc_gpu g;
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
		if (t->runs.runs[r].ts + t->runs.runs[r].dur > to)
			to = t->runs.runs[r].ts + t->runs.runs[r].dur;
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
	struct osc_gpu_query q = { .runs = &t->runs, .sel = &t->sel, .kernel_wait = 30 };

	osc_gpu_release(&gv->g);
	osc_gpu_breakdown(&t->trace, &q, &gv->g);
	sparkline(t, gv);
}

static const char *gpu_cell(const void *ctx, size_t row, size_t col, char *buf, size_t size)
{
	const struct gpu_cells *c = ctx;

	return osc_gpu_cell(&c->t->trace, &c->t->runs, &c->gv->g, row, col, buf, size);
}

static void gpu_table(struct osc_tui *t, struct osc_view *v, struct osc_table *out)
{
	static struct gpu_cells cells; /* one GPU view at a time on the stack */
	struct gpu_view *gv = v->priv;

	cells = (struct gpu_cells){ t, gv };
	out->cols = osc_gpu_columns(&out->nr_cols);
	out->nr_rows = gv->g.nr;
	out->cell = gpu_cell;
	out->ctx = &cells;
}

static void gpu_title(struct osc_tui *t, struct osc_view *v, char *buf, size_t size)
{
	struct gpu_view *gv = v->priv;

	(void)t;
	snprintf(buf, size, "GPU: busy and idle (%zu rows)", gv->g.nr);
}

static void gpu_bases(struct osc_tui *t, struct osc_view *v, char *buf, size_t size)
{
	struct gpu_view *gv = v->priv;

	(void)t;
	if (*gv->spark)
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

/* `opscope gpu` with the TUI's trace and runs (the filter does not apply here). */
static char *gpu_command(struct osc_tui *t, struct osc_view *v)
{
	char *line = osc_xstrdup("opscope gpu");

	(void)v;
	if (t->args->path)
		line = osc_cli_line_arg(line, t->args->path);
	line = osc_cli_line_runs(t, line);
	return osc_cli_line_arg(osc_cli_line_arg(line, "--format"), "csv");
}

const struct osc_view_ops osc_view_gpu = {
	.name = "gpu",
	.open = gpu_open,
	.close = gpu_close,
	.build = gpu_build,
	.table = gpu_table,
	.flex_col = 0,
	.title = gpu_title,
	.bases = gpu_bases,
	.bases_first = true,
	.export_name = gpu_export_name,
	.command = gpu_command,
};
