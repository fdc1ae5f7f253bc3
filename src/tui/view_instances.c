/*
 * view_instances.c - the instances (member events) of one aggregate row.
 *
 * Sorted by duration (slowest first) by default; the fastest, median and
 * slowest instances are highlighted whatever the sort order. Opened from a
 * histogram's bin (Enter there), it holds the instances of that bin only. The title names
 * the row (a path row by its whole path); kernel names are in the TUI's
 * name style (m).
 */
#include <stdlib.h>
#include <string.h>

#include "opscope/base/alloc.h"
#include "opscope/analysis/columns.h"
#include "view.h"

enum { COL_MARK, COL_START, COL_DUR, COL_RUN, COL_NAME, NR_COLS };

static const struct osc_column inst_cols[NR_COLS] = {
	[COL_MARK] = { "mark", 4, OSC_ALIGN_LEFT, false, OSC_STAT_NAME },
	[COL_START] = { "start_us", 8, OSC_ALIGN_RIGHT, true, OSC_STAT_NAME },
	[COL_DUR] = { "dur_us", 8, OSC_ALIGN_RIGHT, true, OSC_STAT_NAME },
	[COL_RUN] = { "run", 3, OSC_ALIGN_RIGHT, true, OSC_STAT_NAME },
	[COL_NAME] = { "name", 16, OSC_ALIGN_LEFT, false, OSC_STAT_NAME },
};

struct inst_view {
	struct osc_tui *tui;
	struct osc_view *parent;
	osc_str key;
	osc_str opened;      /* the key the view opened with: its row's in every name style */
	char *path;          /* a path row's call path, or NULL */
	uint32_t *ev;
	size_t n;
	uint32_t min_ev, med_ev, max_ev;
	int64_t origin;
	bool range, closed;  /* a histogram bin's instances only: [lo, hi) or [lo, hi] */
	int64_t lo, hi;
	size_t order_col;    /* the order ev[] is in now */
	bool order_desc;
};

static void inst_open(struct osc_tui *t, struct osc_view *v, const void *arg)
{
	const struct osc_instances_arg *a = arg;
	struct inst_view *iv = osc_xcalloc(1, sizeof(*iv));

	iv->tui = t;
	iv->parent = a->parent;
	iv->key = iv->opened = a->key;
	iv->path = a->path ? osc_xstrdup(a->path) : NULL;
	iv->range = a->range;
	iv->closed = a->closed;
	iv->lo = a->lo;
	iv->hi = a->hi;
	iv->origin = osc_trace_origin(&t->trace);
	v->priv = iv;
	v->sort_col = COL_DUR;
	v->sort_desc = true;
}

static void inst_close(struct osc_view *v)
{
	struct inst_view *iv = v->priv;

	free(iv->ev);
	free(iv->path);
	free(iv);
}

/* A row's sort key next to its event: sorting these avoids chasing events. */
struct keyed {
	int64_t key;
	uint32_t ev;
};

static int cmp_keyed(const void *pa, const void *pb)
{
	const struct keyed *a = pa, *b = pb;

	if (a->key != b->key)
		return (a->key > b->key) - (a->key < b->key);
	return (a->ev > b->ev) - (a->ev < b->ev);
}

/* qsort has no context argument in C11; names sort on the UI thread only. */
static const struct osc_trace *name_trace;

static int cmp_name(const void *pa, const void *pb)
{
	uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
	int c = strcmp(osc_trace_str(name_trace, name_trace->events[a].name),
		       osc_trace_str(name_trace, name_trace->events[b].name));

	return c ? c : (a > b) - (a < b);
}

static void reverse(uint32_t *ev, size_t n)
{
	for (size_t i = 0; i < n / 2; i++) {
		uint32_t tmp = ev[i];

		ev[i] = ev[n - 1 - i];
		ev[n - 1 - i] = tmp;
	}
}

/* Sort by a column, ties by event index (file/time order). */
static void sort_events(struct osc_tui *t, uint32_t *ev, size_t n, size_t col, bool desc)
{
	if (col == COL_NAME) {
		name_trace = &t->trace;
		qsort(ev, n, sizeof(*ev), cmp_name);
	} else {
		struct keyed *k = osc_xmalloc((n ? n : 1) * sizeof(*k));

		for (size_t i = 0; i < n; i++) {
			const struct osc_event *e = &t->trace.events[ev[i]];

			k[i].ev = ev[i];
			k[i].key = col == COL_DUR ? e->dur
				 : col == COL_RUN ? (int64_t)t->runs.run_of[ev[i]] : e->ts;
		}
		qsort(k, n, sizeof(*k), cmp_keyed);
		for (size_t i = 0; i < n; i++)
			ev[i] = k[i].ev;
		free(k);
	}
	if (desc)
		reverse(ev, n);
}

static void inst_build(struct osc_tui *t, struct osc_view *v)
{
	struct inst_view *iv = v->priv;
	const uint32_t *members;
	const struct osc_agg_row *row = osc_table_view_row(t, iv->parent, iv->key, &members);

	free(iv->ev);
	iv->n = 0;
	iv->ev = osc_xmalloc((row && row->nr ? row->nr : 1) * sizeof(*iv->ev));
	for (size_t i = 0; row && i < row->nr; i++) {
		int64_t d = t->trace.events[members[i]].dur;

		if (!iv->range || (d >= iv->lo && (d < iv->hi || (iv->closed && d == iv->hi))))
			iv->ev[iv->n++] = members[i];
	}
	if (!iv->n)
		return;
	sort_events(t, iv->ev, iv->n, COL_DUR, false);
	iv->min_ev = iv->ev[0];
	iv->med_ev = iv->ev[(iv->n - 1) / 2];
	iv->max_ev = iv->ev[iv->n - 1];
	iv->order_col = COL_DUR;
	iv->order_desc = false;
}

static void inst_sort(struct osc_tui *t, struct osc_view *v)
{
	struct inst_view *iv = v->priv;

	/* Reversing an order needs no sort: ties stay in reverse time order, like r does. */
	if (v->sort_col == iv->order_col || (v->sort_col == COL_MARK && iv->order_col == COL_START)) {
		if (v->sort_desc != iv->order_desc)
			reverse(iv->ev, iv->n);
	} else {
		sort_events(t, iv->ev, iv->n, v->sort_col == COL_MARK ? COL_START : v->sort_col,
			    v->sort_desc);
	}
	iv->order_col = v->sort_col == COL_MARK ? COL_START : v->sort_col;
	iv->order_desc = v->sort_desc;
}

static const char *inst_cell(const void *ctx, size_t row, size_t col, char *buf, size_t size)
{
	const struct inst_view *iv = ctx;
	const struct osc_trace *tr = &iv->tui->trace;
	uint32_t e = iv->ev[row];
	uint32_t run = iv->tui->runs.run_of[e];

	switch (col) {
	case COL_MARK:
		snprintf(buf, size, "%s", e == iv->max_ev ? "max" : e == iv->min_ev ? "min"
					  : e == iv->med_ev ? "med" : "");
		break;
	case COL_START:
		osc_format_us((double)(tr->events[e].ts - iv->origin), buf, size);
		break;
	case COL_DUR:
		osc_format_us((double)tr->events[e].dur, buf, size);
		break;
	case COL_RUN:
		if (run == OSC_NONE)
			snprintf(buf, size, "-");
		else
			snprintf(buf, size, "%u", run);
		break;
	default:
		snprintf(buf, size, "%s", osc_names_get(&iv->tui->names, tr, tr->events[e].name));
		break;
	}
	return buf;
}

static void inst_table(struct osc_tui *t, struct osc_view *v, struct osc_table *out)
{
	struct inst_view *iv = v->priv;

	(void)t;
	*out = (struct osc_table){
		.cols = inst_cols,
		.nr_cols = NR_COLS,
		.nr_rows = iv->n,
		.cell = inst_cell,
		.ctx = iv,
	};
}

static enum osc_mark inst_mark(struct osc_tui *t, struct osc_view *v, size_t row)
{
	struct inst_view *iv = v->priv;
	uint32_t e = iv->ev[row];

	(void)t;
	if (e == iv->max_ev)
		return OSC_MARK_MAX;
	if (e == iv->min_ev)
		return OSC_MARK_MIN;
	if (e == iv->med_ev)
		return OSC_MARK_MEDIAN;
	return OSC_MARK_NONE;
}

static void inst_title(struct osc_tui *t, struct osc_view *v, char *buf, size_t size)
{
	struct inst_view *iv = v->priv;
	char lo[32], hi[32];

	if (iv->range) {
		osc_format_us_int(iv->lo, lo, sizeof(lo));
		osc_format_us_int(iv->hi, hi, sizeof(hi));
	}
	snprintf(buf, size, "instances of %s (%zu%s%s%s%s%s)",
		 iv->path ? iv->path : osc_names_get(&t->names, &t->trace, iv->key), iv->n,
		 iv->range ? " in [" : "", iv->range ? lo : "", iv->range ? ", " : "",
		 iv->range ? hi : "", iv->range ? (iv->closed ? "] us" : ") us") : "");
}

static void inst_detail(struct osc_tui *t, struct osc_view *v, size_t row, struct osc_lines *out)
{
	struct inst_view *iv = v->priv;

	osc_detail_event(t, iv->ev[row], out);
}

static unsigned inst_action(struct osc_tui *t, struct osc_view *v, enum osc_action a)
{
	struct inst_view *iv = v->priv;
	struct osc_lines lines = { 0 };

	if (a == OSC_ACT_HISTOGRAM) { /* the same instances in bins */
		osc_view_push(t, &osc_view_histogram,
			      &(struct osc_instances_arg){ .parent = iv->parent, .key = iv->key,
							   .path = iv->path });
		return OSC_R_REDRAW;
	}
	if (a != OSC_ACT_ENTER)
		return OSC_R_UNHANDLED;
	if (!v->tab.nr_rows)
		return OSC_R_REDRAW;
	osc_detail_event(t, iv->ev[v->cur], &lines);
	osc_view_push(t, &osc_view_detail, &lines);
	return OSC_R_REDRAW;
}

static const char *inst_export_name(struct osc_tui *t, struct osc_view *v)
{
	(void)t;
	(void)v;
	return "instances";
}

static uint32_t inst_row_event(struct osc_tui *t, struct osc_view *v, size_t row)
{
	struct inst_view *iv = v->priv;

	(void)t;
	return iv->ev[row];
}

/*
 * m: a device level's row is the kernels of one name shown, so the row is
 * found again under the new style's key (the table rebuilds it) and its
 * instances read again.
 */
static void inst_restyle(struct osc_tui *t, struct osc_view *v)
{
	struct inst_view *iv = v->priv;

	if (!osc_level_is_device(osc_table_view_level(iv->parent)))
		return;
	iv->key = osc_names_key(&t->names, iv->opened);
	v->built_gen = t->gen - 1;
}

const struct osc_view_ops osc_view_instances = {
	.name = "instances",
	.open = inst_open,
	.close = inst_close,
	.build = inst_build,
	.sort = inst_sort,
	.table = inst_table,
	.flex_col = COL_NAME,
	.mark = inst_mark,
	.action = inst_action,
	.title = inst_title,
	.detail = inst_detail,
	.export_name = inst_export_name,
	.row_event = inst_row_event,
	.restyle = inst_restyle,
};
