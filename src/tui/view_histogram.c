/*
 * view_histogram.c - the histogram of one row's instance durations (D from
 * a table row or its instances): a line per bin with its edges in us, its
 * count and share, and a bar against the fullest bin (eighth blocks in
 * UTF-8, '#' otherwise). The bins follow histogram.h's rule; the title gives
 * min and max, the line under it p50, p90 and p99; the median's bin and
 * p99's stand out; Enter lists a bin's instances. x writes the numbers
 * without the bars:
 * the CSV of `opscope report --histogram NAME` (at the op, kernel and path
 * levels, where a name is a row).
 */
#include <stdlib.h>
#include <string.h>

#include "opscope/analysis/columns.h"
#include "opscope/analysis/histogram.h"
#include "opscope/base/alloc.h"
#include "opscope/export/chart.h"
#include "cli_line.h"
#include "view.h"

/* Cells of the bar column: fits 80 columns beside the numbers. */
#define BAR_CELLS 30
#define COL_BAR OSC_HIST_COL_NR

struct hist_view {
	struct osc_tui *tui;
	struct osc_view *parent; /* the table view of the row */
	osc_str key;
	osc_str opened;          /* the key the view opened with: its row's in every name style */
	char *path;              /* a path row's call path, or NULL */
	enum osc_level level;
	struct osc_hist h;
	struct osc_column cols[OSC_HIST_COL_NR + 1];
};

static void hist_open(struct osc_tui *t, struct osc_view *v, const void *arg)
{
	const struct osc_instances_arg *a = arg;
	struct hist_view *hv = osc_xcalloc(1, sizeof(*hv));
	size_t nr;

	hv->tui = t;
	hv->parent = a->parent;
	hv->key = hv->opened = a->key;
	hv->path = a->path ? osc_xstrdup(a->path) : NULL;
	hv->level = osc_table_view_level(a->parent);
	memcpy(hv->cols, osc_hist_columns(&nr), sizeof(hv->cols[0]) * OSC_HIST_COL_NR);
	hv->cols[COL_BAR] = (struct osc_column){ "bar", BAR_CELLS, OSC_ALIGN_LEFT, false,
						 OSC_STAT_NAME };
	v->priv = hv;
}

static void hist_close(struct osc_view *v)
{
	struct hist_view *hv = v->priv;

	osc_hist_release(&hv->h);
	free(hv->path);
	free(hv);
}

static void hist_build(struct osc_tui *t, struct osc_view *v)
{
	struct hist_view *hv = v->priv;
	const uint32_t *members;
	const struct osc_agg_row *row = osc_table_view_row(t, hv->parent, hv->key, &members);
	size_t n = row ? row->nr : 0;
	int64_t *dur = osc_xmalloc((n ? n : 1) * sizeof(*dur));

	for (size_t i = 0; i < n; i++)
		dur[i] = t->trace.events[members[i]].dur;
	osc_hist_release(&hv->h);
	osc_hist_build(dur, n, OSC_HIST_DEFAULT_BINS, OSC_HIST_AUTO, &hv->h);
	free(dur);
}

static const char *hist_cell(const void *ctx, size_t row, size_t col, char *buf, size_t size)
{
	const struct hist_view *hv = ctx;

	if (col < OSC_HIST_COL_NR)
		return osc_hist_cell(&hv->h, row, col, buf, size);
	return osc_chart_bar(hv->h.max_count ? (double)hv->h.bins[row].count /
				      (double)hv->h.max_count : 0,
			     BAR_CELLS, hv->tui->utf8, buf, size);
}

static void hist_table(struct osc_tui *t, struct osc_view *v, struct osc_table *out)
{
	struct hist_view *hv = v->priv;

	(void)t;
	*out = (struct osc_table){
		.cols = hv->cols,
		.nr_cols = OSC_HIST_COL_NR + 1,
		.nr_rows = hv->h.nr,
		.cell = hist_cell,
		.ctx = hv,
	};
}

/* x writes the numbers: the bars are drawing. */
static void hist_export_table(struct osc_tui *t, struct osc_view *v, struct osc_table *out)
{
	hist_table(t, v, out);
	out->nr_cols = OSC_HIST_COL_NR;
}

/* Whether bin `row` holds the value v (the last bin holds max). */
static bool bin_holds(const struct hist_view *hv, size_t row, double v)
{
	const struct osc_hist_bin *b = &hv->h.bins[row];

	return v >= (double)b->lo && (v < (double)b->hi || row + 1 == hv->h.nr);
}

/* The bins of the median and of p99 stand out. */
static enum osc_mark hist_mark(struct osc_tui *t, struct osc_view *v, size_t row)
{
	struct hist_view *hv = v->priv;

	(void)t;
	if (bin_holds(hv, row, hv->h.p50))
		return OSC_MARK_MEDIAN;
	return bin_holds(hv, row, hv->h.p99) ? OSC_MARK_MAX : OSC_MARK_NONE;
}

/* The row's name as the report's name column shows it (and --histogram takes it). */
static const char *row_name(struct osc_tui *t, const struct hist_view *hv)
{
	return hv->path ? hv->path : osc_names_get(&t->names, &t->trace, hv->key);
}

static void hist_title(struct osc_tui *t, struct osc_view *v, char *buf, size_t size)
{
	struct hist_view *hv = v->priv;
	char mn[32], mx[32];

	osc_format_us_int(hv->h.min, mn, sizeof(mn));
	osc_format_us_int(hv->h.max, mx, sizeof(mx));
	snprintf(buf, size, "histogram of %s: %llu from %s to %s us%s", row_name(t, hv),
		 (unsigned long long)hv->h.count, mn, mx, hv->h.log ? ", log" : "");
}

/* The percentiles (us, as the title) lead the line under the title: min and max are in it. */
static void hist_bases(struct osc_tui *t, struct osc_view *v, char *buf, size_t size)
{
	struct hist_view *hv = v->priv;
	char p50[32], p90[32], p99[32];

	(void)t;
	osc_format_us(hv->h.p50, p50, sizeof(p50));
	osc_format_us(hv->h.p90, p90, sizeof(p90));
	osc_format_us(hv->h.p99, p99, sizeof(p99));
	snprintf(buf, size, "p50 %s p90 %s p99 %s", p50, p90, p99);
}

static void hist_detail(struct osc_tui *t, struct osc_view *v, size_t row, struct osc_lines *out)
{
	struct hist_view *hv = v->priv;
	char buf[64];

	(void)t;
	osc_lines_add(out, OSC_MARK_TITLE, "scale", hv->h.log ? "log (1-2-5 edges)" : "linear");
	for (size_t c = 0; c < OSC_HIST_COL_NR; c++)
		osc_lines_add(out, OSC_MARK_NONE, hv->cols[c].title,
			      osc_hist_cell(&hv->h, row, c, buf, sizeof(buf)));
	osc_lines_add(out, OSC_MARK_TITLE, "instances", "");
	osc_format_us(hv->h.mean, buf, sizeof(buf));
	osc_lines_add(out, OSC_MARK_NONE, "mean_us", buf);
	osc_format_us(hv->h.p25, buf, sizeof(buf));
	osc_lines_add(out, OSC_MARK_NONE, "p25_us", buf);
	osc_format_us(hv->h.p75, buf, sizeof(buf));
	osc_lines_add(out, OSC_MARK_NONE, "p75_us", buf);
}

/* Enter: the instances of the bin (the outliers of the last bins, say). */
static unsigned hist_action(struct osc_tui *t, struct osc_view *v, enum osc_action a)
{
	struct hist_view *hv = v->priv;
	const struct osc_hist_bin *b;

	if (a != OSC_ACT_ENTER)
		return OSC_R_UNHANDLED;
	if (!v->tab.nr_rows)
		return OSC_R_REDRAW;
	b = &hv->h.bins[v->cur];
	osc_view_push(t, &osc_view_instances,
		      &(struct osc_instances_arg){ .parent = hv->parent, .key = hv->key,
						   .path = hv->path, .range = true,
						   .closed = v->cur + 1 == hv->h.nr,
						   .lo = b->lo, .hi = b->hi });
	return OSC_R_REDRAW;
}

static const char *hist_export_name(struct osc_tui *t, struct osc_view *v)
{
	(void)t;
	(void)v;
	return "histogram";
}

static void hist_empty(struct osc_tui *t, struct osc_view *v, char *buf, size_t size)
{
	(void)t;
	(void)v;
	snprintf(buf, size, "(no instances: the row is gone in the selected runs or filter)");
}

/* `opscope report --histogram NAME`: at the levels where a name is one row. */
static char *hist_command(struct osc_tui *t, struct osc_view *v)
{
	struct hist_view *hv = v->priv;
	char *line;

	if (hv->level != OSC_LEVEL_OP && hv->level != OSC_LEVEL_KERNEL &&
	    hv->level != OSC_LEVEL_PATH)
		return NULL;
	if (osc_table_view_only(hv->parent))
		return NULL; /* K's kernels of some ops */
	line = osc_cli_line_start(t, "report", NULL, hv->level);
	line = osc_cli_line_arg(line, "--histogram");
	line = osc_cli_line_arg(line, row_name(t, hv));
	return osc_cli_line_format(line, t->export_as);
}

/* m: the row's durations read again under the new style's key (inst_restyle). */
static void hist_restyle(struct osc_tui *t, struct osc_view *v)
{
	struct hist_view *hv = v->priv;

	if (!osc_level_is_device(hv->level))
		return;
	hv->key = osc_names_key(&t->names, hv->opened);
	v->built_gen = t->gen - 1;
}

const struct osc_view_ops osc_view_histogram = {
	.name = "histogram",
	.open = hist_open,
	.close = hist_close,
	.build = hist_build,
	.table = hist_table,
	.export_table = hist_export_table,
	.flex_col = COL_BAR,
	.empty = hist_empty,
	.mark = hist_mark,
	.action = hist_action,
	.title = hist_title,
	.bases = hist_bases,
	.bases_first = true,
	.detail = hist_detail,
	.export_name = hist_export_name,
	.command = hist_command,
	.restyle = hist_restyle,
};
