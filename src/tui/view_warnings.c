/*
 * view_warnings.c - what loading the trace tolerated (trace.h's warnings:
 * a truncated file, unmatched B/E events, bad UTF-8...), the ops and
 * kernels that lie outside every run, and the device events no op launched
 * (by reason, unattributed.h), so that no number on screen leaves out
 * events without the TUI saying so. `!` opens it; the status line
 * summarises the load's part when the trace opens (osc_warnings_note).
 */
#include <stdlib.h>
#include <string.h>

#include "opscope/base/alloc.h"
#include "opscope/analysis/columns.h"
#include "opscope/analysis/correlate.h"
#include "opscope/analysis/trace_cache.h"
#include "view.h"

enum { COL_COUNT, COL_WHAT, COL_WHERE, NR_COLS };

static const struct osc_column warn_cols[NR_COLS] = {
	[COL_COUNT] = { "count", 5, OSC_ALIGN_RIGHT, true, OSC_STAT_NAME },
	[COL_WHAT] = { "what", 20, OSC_ALIGN_LEFT, false, OSC_STAT_NAME },
	[COL_WHERE] = { "first_at_byte", 13, OSC_ALIGN_RIGHT, true, OSC_STAT_NAME },
};

struct warn_row {
	uint64_t count;
	const char *what;  /* NULL: device events no op launched, for reason why */
	int64_t offset; /* -1: none (SQLite rows); OUTSIDE: events outside runs */
	enum osc_unattributed why;
};

#define OUTSIDE (-2)

static const char outside_any[] = "events of any kind in no run";

#define MAX_ROWS (OSC_WARN_COUNT + 3 + OSC_UNATTRIBUTED_COUNT)

struct warn_view {
	struct warn_row rows[MAX_ROWS];
	size_t nr;
};

/* Host ops (kind HOST_OP) or kernels of tr in no run. */
static uint64_t outside(const struct osc_trace *tr, const struct osc_runs *runs,
			enum osc_kind kind)
{
	size_t nr;
	const struct osc_brief *b;
	uint64_t n = 0;

	if (!runs->outside)
		return 0;
	b = osc_trace_briefs(tr, kind, &nr);
	for (size_t j = 0; j < nr; j++)
		n += runs->run_of[b[j].event] == OSC_NONE;
	return n;
}

/* Rows: the load's warnings and what lies outside every run; with links,
   also the device events no op launched (this waits for the correlation). */
static size_t collect(const struct osc_trace *tr, const struct osc_runs *runs, bool links,
		      struct warn_row *rows)
{
	size_t n = 0;
	uint64_t ops = outside(tr, runs, OSC_KIND_HOST_OP);
	uint64_t kernels = outside(tr, runs, OSC_KIND_KERNEL);

	for (int w = 0; w < OSC_WARN_COUNT; w++)
		if (tr->warnings[w].count)
			rows[n++] = (struct warn_row){ .count = tr->warnings[w].count,
						       .what = osc_warn_text((enum osc_warn)w),
						       .offset = tr->warnings[w].first_offset };
	if (ops)
		rows[n++] = (struct warn_row){ .count = ops, .offset = OUTSIDE,
					       .what = "ops in no run, so in no table "
						       "(-W takes them)" };
	if (kernels)
		rows[n++] = (struct warn_row){ .count = kernels, .offset = OUTSIDE,
					       .what = "kernels in no run, so in no table "
						       "(-W takes them)" };
	if (runs->outside)
		rows[n++] = (struct warn_row){ .count = runs->outside, .what = outside_any,
					       .offset = OUTSIDE };
	if (links && osc_trace_has_device(tr)) {
		const struct osc_correlation *corr = osc_trace_correlation(tr);

		for (int u = OSC_UNATTRIBUTED_NONE + 1; u < OSC_UNATTRIBUTED_COUNT; u++)
			if (corr->by_unattributed[u])
				rows[n++] = (struct warn_row){ .count = corr->by_unattributed[u],
							       .offset = OUTSIDE,
							       .why = (enum osc_unattributed)u };
	}
	return n;
}

void osc_warnings_note(struct osc_tui *t, const struct osc_trace *tr, const struct osc_runs *runs,
		       const char *what)
{
	struct warn_row rows[MAX_ROWS];
	size_t n = collect(tr, runs, false, rows), load = 0;

	/* Only what the tables leave out or got wrong: not other events outside runs. */
	if (n && rows[n - 1].what == outside_any)
		n--;
	if (!n)
		return;
	for (size_t i = 0; i < n; i++)
		load += rows[i].offset != OUTSIDE;
	if (n == 1)
		osc_tui_note(t, load ? OSC_MSG_ERROR : OSC_MSG_INFO, "%s%llu %s (! lists it)", what,
			     (unsigned long long)rows[0].count, rows[0].what);
	else
		osc_tui_note(t, load ? OSC_MSG_ERROR : OSC_MSG_INFO,
			     "%s%llu %s, and %zu more (! lists them)", what,
			     (unsigned long long)rows[0].count, rows[0].what, n - 1);
}

static void warn_open(struct osc_tui *t, struct osc_view *v, const void *arg)
{
	struct warn_view *wv = osc_xcalloc(1, sizeof(*wv));

	(void)arg;
	wv->nr = collect(&t->trace, &t->runs, true, wv->rows);
	v->priv = wv;
}

static void warn_close(struct osc_view *v)
{
	free(v->priv);
}

static const char *warn_cell(const void *ctx, size_t row, size_t col, char *buf, size_t size)
{
	const struct warn_view *wv = ctx;
	const struct warn_row *r = &wv->rows[row];

	if (col == COL_COUNT)
		snprintf(buf, size, "%llu", (unsigned long long)r->count);
	else if (col == COL_WHERE && r->offset >= 0)
		snprintf(buf, size, "%lld", (long long)r->offset);
	else if (col == COL_WHAT && !r->what)
		snprintf(buf, size, "%s: device events in no op's device time",
			 osc_unattributed_name(r->why));
	else
		snprintf(buf, size, "%s", col == COL_WHAT ? r->what : "");
	return buf;
}

static void warn_table(struct osc_tui *t, struct osc_view *v, struct osc_table *out)
{
	(void)t;
	*out = (struct osc_table){
		.cols = warn_cols,
		.nr_cols = NR_COLS,
		.nr_rows = ((struct warn_view *)v->priv)->nr,
		.cell = warn_cell,
		.ctx = v->priv,
	};
}

static void warn_title(struct osc_tui *t, struct osc_view *v, char *buf, size_t size)
{
	struct warn_view *wv = v->priv;

	(void)t;
	if (wv->nr)
		snprintf(buf, size, "load warnings and what the tables leave out (%zu)", wv->nr);
	else
		snprintf(buf, size, "load warnings: none, and the tables leave out nothing");
}

static void warn_empty(struct osc_tui *t, struct osc_view *v, char *buf, size_t size)
{
	(void)t;
	(void)v;
	snprintf(buf, size, "(nothing: the trace loaded cleanly, every op and kernel lies in a "
		 "run, and an op launched every device event)");
}

static const char *warn_export_name(struct osc_tui *t, struct osc_view *v)
{
	(void)t;
	(void)v;
	return "warnings";
}

const struct osc_view_ops osc_view_warnings = {
	.name = "warnings",
	.open = warn_open,
	.close = warn_close,
	.table = warn_table,
	.flex_col = COL_WHAT,
	.empty = warn_empty,
	.title = warn_title,
	.export_name = warn_export_name,
};
