/*
 * view_timeline.c - the selected runs as a timeline (V): one line per lane
 * (timeline.h: each host thread's nesting depths and each device stream,
 * under a line per process or device with the union of its events), time
 * across, each cell the share of its time the lane is busy (eighth blocks,
 * or # = - outside UTF-8), events' names on their bars where they fit.
 *
 * Opened from a row, the row's events are marked on every lane (an op's
 * instances; a kernel's instances with the runtime calls and ops that
 * launched them); the launch and op of the kernel under the cursor are
 * marked too. On a device's line the GPU idle time shows as red dots.
 *
 * Keys: j/k lanes, h/l the cursor by a cell, H/L by a page, + / - zoom
 * around the cursor, ] / [ the next or previous event on the lane, Enter
 * its detail (on a process line: fold), c/e fold or unfold the process,
 * C/E every process. x exports the lanes with their events and busy time in
 * the window shown. Drawing costs O(lanes x width x log events): each
 * lane's busy time in a cell is two binary searches (timeline.h).
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "opscope/analysis/columns.h"
#include "opscope/analysis/correlate.h"
#include "opscope/analysis/timeline.h"
#include "opscope/analysis/trace_cache.h"
#include "opscope/base/alloc.h"
#include "opscope/export/timeline_draw.h"
#include "cli_line.h"
#include "display.h"
#include "view.h"

#define MIN_LABEL 16 /* columns of the lane names: a sixth of the width, within these */
#define MAX_LABEL 32
#define MIN_STRIP 8  /* cells of time at least */

struct tl_view {
	const struct osc_timeline *tl;
	int64_t from, to;    /* the selected runs' window */
	int64_t t0, cell;    /* first time drawn, ns per cell (0: fit the window at the next draw) */
	int64_t cursor;      /* the cursor's time */
	int width;           /* cells of the strip at the last draw */
	bool *folded;        /* per group */
	size_t *rows, nr_rows; /* lanes shown */
	char *label;         /* what is marked ("aten::mm"), NULL when nothing */
	size_t **marked;     /* per lane: indexes of its marked intervals, ascending */
	size_t *nr_marked;
	uint32_t *own;       /* the row's own events (the cursor goes to the first in the window) */
	size_t nr_own;
	int label_w;         /* columns of the lane names at the last draw */
	struct osc_tl_cell *cells; /* one lane's cells, reused */
	struct osc_tl_glyph *glyphs; /* one line's glyphs, reused */
	struct osc_tl_table table;   /* what x exports: the lanes shown over the window */
};

/* ---- marks ---------------------------------------------------------------- */

/* The runtime call that launched device event ev (corr: the trace's), or OSC_NONE. */
static uint32_t launch_of(const struct osc_correlation *corr, uint32_t ev)
{
	uint32_t d = corr->dev_of ? corr->dev_of[ev] : OSC_NONE;

	if (d == OSC_NONE || corr->devs[d].launch == OSC_NONE)
		return OSC_NONE;
	return corr->launches[corr->devs[d].launch].event;
}

/*
 * Mark events ev[0..n): with a device event, its launch and launching op
 * (found from the correlation's per-event arrays, not from the events: an
 * op's calls are many and scattered).
 */
static void mark_events(struct tl_view *tv, const struct osc_trace *t, const uint32_t *ev,
			size_t n)
{
	const struct osc_correlation *corr = osc_trace_has_device(t) ? osc_trace_correlation(t)
								    : NULL;
	const uint32_t *launchers = corr ? osc_trace_launchers(t) : NULL;
	uint32_t *all = osc_xreallocarray(NULL, 3 * n, sizeof(*all));
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		all[k++] = ev[i];
		if (!corr || !corr->dev_of || corr->dev_of[ev[i]] == OSC_NONE)
			continue; /* no device event, or one without links */
		all[k++] = launch_of(corr, ev[i]); /* OSC_NONE (none) is not marked */
		all[k++] = launchers[ev[i]];
	}
	osc_tl_mark(tv->tl, t, all, k, &tv->marked, &tv->nr_marked);
	free(all);
}

/* ---- lanes shown ---------------------------------------------------------- */

static void list_rows(struct tl_view *tv)
{
	const struct osc_timeline *tl = tv->tl;

	tv->nr_rows = 0;
	for (size_t l = 0; l < tl->nr_lanes; l++)
		if (tl->lanes[l].thread == OSC_NONE || !tv->folded[tl->lanes[l].group])
			tv->rows[tv->nr_rows++] = l;
}

static const struct osc_tl_lane *row_lane(const struct tl_view *tv, size_t row)
{
	return &tv->tl->lanes[tv->rows[row]];
}

/* The row showing lane `lane`, or 0 when it is folded away. */
static size_t row_of(const struct tl_view *tv, size_t lane)
{
	for (size_t r = 0; r < tv->nr_rows; r++)
		if (tv->rows[r] == lane)
			return r;
	return 0;
}

/* ---- open, build ------------------------------------------------------------ */

static void tl_open(struct osc_tui *t, struct osc_view *v, const void *arg)
{
	const struct osc_timeline_arg *a = arg;
	struct tl_view *tv = osc_xcalloc(1, sizeof(*tv));

	tv->tl = osc_trace_timeline(&t->trace);
	tv->folded = osc_xcalloc(tv->tl->nr_groups + 1, sizeof(*tv->folded));
	tv->rows = osc_xcalloc(tv->tl->nr_lanes + 1, sizeof(*tv->rows));
	if (a && a->nr) {
		tv->label = osc_xstrdup(a->label ? a->label : "");
		mark_events(tv, &t->trace, a->events, a->nr);
		tv->own = osc_xreallocarray(NULL, a->nr, sizeof(*tv->own));
		memcpy(tv->own, a->events, a->nr * sizeof(*tv->own));
		tv->nr_own = a->nr;
	} else {
		osc_tl_mark(tv->tl, &t->trace, NULL, 0, &tv->marked, &tv->nr_marked);
	}
	list_rows(tv);
	v->priv = tv;
}

static void tl_close(struct osc_view *v)
{
	struct tl_view *tv = v->priv;

	for (size_t l = 0; l < tv->tl->nr_lanes; l++)
		free(tv->marked[l]);
	free(tv->marked);
	free(tv->nr_marked);
	free(tv->folded);
	free(tv->rows);
	free(tv->label);
	free(tv->own);
	free(tv->cells);
	free(tv->glyphs);
	free(tv);
}

/*
 * Put the cursor on the first of the row's own events (not their launches)
 * starting in the window, on its lane.
 */
static void go_to_first_own(struct osc_tui *t, struct tl_view *tv, struct osc_view *v)
{
	size_t lane, index;

	/* the earliest one at or after `least` (model order is start order) */
	for (uint32_t least = 0;;) {
		uint32_t first = OSC_NONE;

		for (size_t i = 0; i < tv->nr_own; i++) {
			const struct osc_event *e = &t->trace.events[tv->own[i]];

			if (tv->own[i] >= least && tv->own[i] < first && e->ts >= tv->from &&
			    e->ts < tv->to)
				first = tv->own[i];
		}
		if (first == OSC_NONE)
			return;
		if (osc_tl_find(tv->tl, &t->trace, first, &lane, &index)) {
			tv->cursor = t->trace.events[first].ts;
			v->cur = row_of(tv, lane);
			return;
		}
		least = first + 1;
	}
}

static void tl_build(struct osc_tui *t, struct osc_view *v)
{
	struct tl_view *tv = v->priv;

	osc_tl_runs_window(tv->tl, &t->runs, &t->sel, &tv->from, &tv->to);
	tv->cell = 0; /* fit at the next draw */
	tv->cursor = tv->from;
	go_to_first_own(t, tv, v);
}

/* ---- the table (x, and the rows j/k move over) ------------------------------ */

static int64_t window_end(const struct tl_view *tv)
{
	return tv->t0 + tv->cell * (tv->width > 0 ? tv->width : 1);
}

static void tl_table(struct osc_tui *t, struct osc_view *v, struct osc_table *out)
{
	struct tl_view *tv = v->priv;

	tv->table = (struct osc_tl_table){ &t->trace, tv->tl, tv->rows, tv->nr_rows, tv->t0,
					   window_end(tv) };
	osc_tl_table(&tv->table, out);
}

/* ---- moving in time ------------------------------------------------------------ */

/* Keep the cursor on screen, moving the window as little as needed. */
static void follow_cursor(struct tl_view *tv)
{
	int64_t span = tv->cell * tv->width;

	if (tv->cursor < tv->t0)
		tv->t0 = tv->cursor;
	else if (tv->cursor >= tv->t0 + span)
		tv->t0 = tv->cursor - span + tv->cell;
}

/* The strip is `width` cells now; not yet fitted, it shows the runs' window. */
static void fit(struct tl_view *tv, int width)
{
	struct osc_tl_window w = osc_tl_window_fit(tv->from, tv->to, (size_t)width);

	tv->width = width;
	if (tv->cell)
		return;
	tv->cell = w.cell;
	tv->t0 = w.t0;
	follow_cursor(tv);
}

/* Zoom by 2 (in) or 1/2 (out) around the cursor, keeping its column. */
static void zoom(struct tl_view *tv, bool in)
{
	int64_t col = tv->cell ? (tv->cursor - tv->t0) / tv->cell : 0;
	int64_t most = (tv->tl->to - tv->tl->from) / (tv->width > 0 ? tv->width : 1) * 2 + 1;

	if (in)
		tv->cell = tv->cell > 1 ? tv->cell / 2 : 1;
	else if (tv->cell < most)
		tv->cell *= 2;
	tv->t0 = tv->cursor - col * tv->cell;
}

static void step_event(struct osc_tui *t, struct osc_view *v, int dir)
{
	struct tl_view *tv = v->priv;
	const struct osc_tl_lane *l;
	size_t i;

	if (!tv->nr_rows)
		return;
	l = row_lane(tv, v->cur);
	i = osc_tl_step(l, tv->cursor, dir);
	if (i == OSC_TL_NONE) {
		osc_tui_message(t, OSC_MSG_INFO, "no %s event on this lane",
				dir > 0 ? "later" : "earlier");
		return;
	}
	tv->cursor = l->start[i];
	follow_cursor(tv);
}

static void fold(struct tl_view *tv, struct osc_view *v, bool all, bool on)
{
	uint32_t g = tv->nr_rows ? row_lane(tv, v->cur)->group : 0;

	for (size_t i = 0; i < tv->tl->nr_groups; i++)
		if (all || i == g)
			tv->folded[i] = on;
	list_rows(tv);
	v->cur = row_of(tv, tv->tl->groups[g].first_lane);
}

static void open_detail(struct osc_tui *t, struct osc_view *v)
{
	struct tl_view *tv = v->priv;
	const struct osc_tl_lane *l;
	struct osc_lines lines = { 0 };
	size_t i;

	if (!tv->nr_rows)
		return;
	l = row_lane(tv, v->cur);
	if (!l->ev) {
		fold(tv, v, false, !tv->folded[l->group]);
		return;
	}
	i = osc_tl_at(l, tv->cursor);
	if (i == OSC_TL_NONE) {
		osc_tui_message(t, OSC_MSG_INFO, "no event under the cursor: ] and [ go to one");
		return;
	}
	osc_detail_event(t, l->ev[i], &lines);
	osc_view_push(t, &osc_view_detail, &lines);
}

static unsigned tl_action(struct osc_tui *t, struct osc_view *v, enum osc_action a)
{
	struct tl_view *tv = v->priv;

	if (!tv->cell)
		fit(tv, tv->width > 0 ? tv->width : 64);
	switch (a) {
	case OSC_ACT_SCROLL_LEFT:
	case OSC_ACT_SCROLL_RIGHT:
		tv->cursor += a == OSC_ACT_SCROLL_LEFT ? -tv->cell : tv->cell;
		follow_cursor(tv);
		break;
	case OSC_ACT_PAGE_LEFT:
	case OSC_ACT_LONGEST_CHILD: { /* L: a page later */
		int64_t page = tv->cell * tv->width * (a == OSC_ACT_PAGE_LEFT ? -1 : 1);

		tv->t0 += page;
		tv->cursor += page;
		break;
	}
	case OSC_ACT_ZOOM_IN:
	case OSC_ACT_ZOOM_OUT:
		zoom(tv, a == OSC_ACT_ZOOM_IN);
		break;
	case OSC_ACT_NEXT_SIBLING:
	case OSC_ACT_PREV_SIBLING:
		step_event(t, v, a == OSC_ACT_NEXT_SIBLING ? 1 : -1);
		break;
	case OSC_ACT_ENTER:
		open_detail(t, v);
		break;
	case OSC_ACT_FOLD_CHILDREN:
	case OSC_ACT_UNFOLD_CHILDREN:
	case OSC_ACT_FOLD_ALL:
	case OSC_ACT_UNFOLD_ALL:
		fold(tv, v, a == OSC_ACT_FOLD_ALL || a == OSC_ACT_UNFOLD_ALL,
		     a == OSC_ACT_FOLD_CHILDREN || a == OSC_ACT_FOLD_ALL);
		break;
	default:
		return OSC_R_UNHANDLED;
	}
	v->rev++;
	return OSC_R_REDRAW;
}

/* ---- drawing ---------------------------------------------------------------- */

static const enum osc_style look_style[] = {
	[OSC_TL_LOOK_EMPTY] = OSC_STYLE_NORMAL,
	[OSC_TL_LOOK_BAR] = OSC_STYLE_BAR,
	[OSC_TL_LOOK_NAME] = OSC_STYLE_LABEL,
	[OSC_TL_LOOK_MARKED] = OSC_STYLE_MARKED,
	[OSC_TL_LOOK_MARKED_NAME] = OSC_STYLE_MARKED,
	[OSC_TL_LOOK_IDLE] = OSC_STYLE_IDLE,
	[OSC_TL_LOOK_RULER] = OSC_STYLE_TITLE,
};

/*
 * Copy glyphs g[0 .. n) into line y of c from column x, in style, or
 * (OSC_STYLE_NR) in their looks' styles.
 */
static void put_glyphs(struct osc_canvas *c, int y, int x, const struct osc_tl_glyph *g, size_t n,
		       enum osc_style style)
{
	if (y < 0 || y >= c->height || x < 0)
		return;
	for (size_t i = 0; i < n && x + (int)i < c->width; i++) {
		struct osc_canvas_cell *cell = &c->cells[(size_t)y * (size_t)c->width + (size_t)x + i];

		memcpy(cell->glyph, g[i].glyph, sizeof(cell->glyph));
		cell->style = (unsigned char)(style == OSC_STYLE_NR ? look_style[g[i].look] : style);
	}
}

/* Text into line y from column x, at most width columns, in style. */
static void put_text(struct osc_tui *t, struct tl_view *tv, struct osc_canvas *c, int y, int x,
		     int width, const char *s, enum osc_style style)
{
	size_t n;

	if (width <= 0 || y < 0 || y >= c->height)
		return;
	n = osc_tl_put_text(tv->glyphs, (size_t)width, s, OSC_TL_LOOK_EMPTY, t->utf8);
	put_glyphs(c, y, x, tv->glyphs, n, style);
}

static struct osc_canvas_cell *at(struct osc_canvas *c, int y, int x)
{
	return &c->cells[(size_t)y * (size_t)c->width + (size_t)x];
}

static struct osc_tl_window window_of(const struct tl_view *tv)
{
	return (struct osc_tl_window){ tv->t0, tv->cell, (size_t)tv->width };
}

/* The screen column of the cursor, or -1 when it is outside the window. */
static int cursor_x(const struct tl_view *tv)
{
	if (tv->cursor < tv->t0 || tv->cursor >= window_end(tv))
		return -1;
	return tv->label_w + (int)((tv->cursor - tv->t0) / tv->cell);
}

/* The ruler, with the cell's time in the label column and the cursor's column marked. */
static void draw_ruler(struct osc_tui *t, struct tl_view *tv, struct osc_canvas *c)
{
	struct osc_tl_window w = window_of(tv);
	char cell[48], text[64];

	osc_tl_short_time(tv->cell, cell, sizeof(cell));
	snprintf(text, sizeof(text), "cell %s", cell);
	put_text(t, tv, c, 0, 0, tv->label_w - 1, text, OSC_STYLE_TITLE);
	osc_tl_draw_ruler(&w, osc_trace_origin(&t->trace), t->utf8, tv->glyphs);
	put_glyphs(c, 0, tv->label_w, tv->glyphs, w.width, OSC_STYLE_NR);
	if (cursor_x(tv) >= 0) {
		strcpy(at(c, 0, cursor_x(tv))->glyph, t->utf8 ? "\xe2\x96\xbc" : "v");
		at(c, 0, cursor_x(tv))->style = OSC_STYLE_CURSOR;
	}
}

/* An event linked to the one under the cursor: its lane and index there. */
struct linked {
	size_t lane, index;
};

/*
 * The events linked to the one under the cursor (a kernel's launch and op)
 * into out; returns how many are drawn.
 */
static size_t linked_events(struct osc_tui *t, struct tl_view *tv, size_t cur_row,
			    struct linked out[2])
{
	const struct osc_tl_lane *l = row_lane(tv, cur_row);
	size_t i = l->ev ? osc_tl_at(l, tv->cursor) : OSC_TL_NONE, n = 0;
	uint32_t ev[2];

	if (i == OSC_TL_NONE || !osc_kind_is_device(t->trace.events[l->ev[i]].kind))
		return 0;
	if (osc_tui_warm_before(t, OSC_WARM_LINKS))
		return 0; /* the links are still being built: no wait on a keypress */
	ev[0] = launch_of(osc_trace_correlation(&t->trace), l->ev[i]);
	ev[1] = osc_trace_launchers(&t->trace)[l->ev[i]];
	for (int k = 0; k < 2; k++)
		if (ev[k] != OSC_NONE && osc_tl_find(tv->tl, &t->trace, ev[k], &out[n].lane,
						     &out[n].index))
			n++;
	return n;
}

/* One lane's strip on line y; the cells of linked[0 .. nr_linked) on it in their style. */
static void draw_lane(struct osc_tui *t, struct tl_view *tv, struct osc_canvas *c, int y,
		      size_t lane, bool is_cur, const struct linked *linked, size_t nr_linked)
{
	struct osc_tl_window w = window_of(tv);

	osc_tl_draw_lane(&t->trace, &t->names, tv->tl, lane, &w, tv->marked[lane],
			 tv->nr_marked[lane], t->utf8, tv->cells, tv->glyphs);
	put_glyphs(c, y, tv->label_w, tv->glyphs, w.width, OSC_STYLE_NR);
	for (size_t k = 0; k < nr_linked; k++) {
		if (linked[k].lane != lane)
			continue;
		/* the cells it overlaps: those it marks, by the marks' own rule */
		osc_tl_cells(&tv->tl->lanes[lane], w.t0, w.cell, w.width, &linked[k].index, 1,
			     tv->cells);
		for (int x = 0; x < tv->width; x++)
			if (tv->cells[x].marked)
				at(c, y, tv->label_w + x)->style = OSC_STYLE_LINKED;
	}
	if (is_cur && cursor_x(tv) >= 0)
		at(c, y, cursor_x(tv))->style = OSC_STYLE_CURSOR;
}

/* The last line: the cursor's time, lane and event. */
static void draw_info(struct osc_tui *t, struct tl_view *tv, struct osc_view *v,
		      struct osc_canvas *c, int y)
{
	char line[2048], when[64], dur[64], lane[256];
	const struct osc_tl_lane *l;
	size_t i;
	int n;

	if (!tv->nr_rows) {
		put_text(t, tv, c, y, 0, c->width, "no events to draw in this trace", OSC_STYLE_HINT);
		return;
	}
	osc_tl_short_time(tv->cursor - osc_trace_origin(&t->trace), when, sizeof(when));
	l = row_lane(tv, v->cur);
	osc_tl_lane_name(tv->tl, &t->trace, tv->rows[v->cur], lane, sizeof(lane));
	n = snprintf(line, sizeof(line), "%s |%s | ", when, lane);
	i = osc_tl_at(l, tv->cursor);
	if (i == OSC_TL_NONE) {
		snprintf(line + n, sizeof(line) - (size_t)n, "%s",
			 l->thread == OSC_NONE && l->device ? "GPU idle" : "idle");
	} else {
		osc_tl_short_time(osc_tl_end(l, i) - l->start[i], dur, sizeof(dur));
		if (l->ev)
			snprintf(line + n, sizeof(line) - (size_t)n, "%s  %s",
				 osc_tl_event_name(&t->trace, &t->names, l->ev[i]), dur);
		else
			snprintf(line + n, sizeof(line) - (size_t)n, "busy for %s", dur);
	}
	put_text(t, tv, c, y, 0, c->width, line, OSC_STYLE_INFO);
}

static void tl_canvas(struct osc_tui *t, struct osc_view *v, struct osc_canvas *c)
{
	struct tl_view *tv = v->priv;
	int lanes = c->height - 2;
	struct linked linked[2];
	size_t nr_linked = 0;

	tv->glyphs = osc_xreallocarray(tv->glyphs, (size_t)c->width + 1, sizeof(*tv->glyphs));
	tv->label_w = c->width / 6 < MIN_LABEL ? MIN_LABEL : c->width / 6 > MAX_LABEL ? MAX_LABEL
										    : c->width / 6;
	if (c->width < tv->label_w + MIN_STRIP || lanes < 1) {
		put_text(t, tv, c, 0, 0, c->width, "the window is too small for the timeline",
			 OSC_STYLE_HINT);
		return;
	}
	fit(tv, c->width - tv->label_w);
	follow_cursor(tv);
	tv->cells = osc_xreallocarray(tv->cells, (size_t)tv->width, sizeof(*tv->cells));
	v->height = (size_t)lanes;
	if (v->cur < v->top)
		v->top = v->cur;
	if (v->cur >= v->top + (size_t)lanes)
		v->top = v->cur - (size_t)lanes + 1;
	draw_ruler(t, tv, c);
	if (tv->nr_rows)
		nr_linked = linked_events(t, tv, v->cur, linked);
	for (int r = 0; r < lanes && v->top + (size_t)r < tv->nr_rows; r++) {
		size_t row = v->top + (size_t)r, lane = tv->rows[row];
		const struct osc_tl_lane *l = &tv->tl->lanes[lane];
		char name[256], label[300];

		osc_tl_lane_name(tv->tl, &t->trace, lane, name, sizeof(name));
		if (l->thread == OSC_NONE)
			snprintf(label, sizeof(label), "%s%s",
				 tv->folded[l->group] ? (t->utf8 ? "\xe2\x96\xb8" : "+")
						      : (t->utf8 ? "\xe2\x96\xbe" : "-"),
				 name);
		else
			snprintf(label, sizeof(label), "%s", name);
		put_text(t, tv, c, 1 + r, 0, tv->label_w - 1, label,
			 row == v->cur ? OSC_STYLE_CURSOR
			 : l->thread == OSC_NONE ? OSC_STYLE_HEADING : OSC_STYLE_NORMAL);
		draw_lane(t, tv, c, 1 + r, lane, row == v->cur, linked, nr_linked);
	}
	draw_info(t, tv, v, c, c->height - 1);
}

/* ---- titles, export ------------------------------------------------------------ */

static void tl_title(struct osc_tui *t, struct osc_view *v, char *buf, size_t size)
{
	struct tl_view *tv = v->priv;

	(void)t;
	if (tv->label)
		snprintf(buf, size, "timeline: %s marked", tv->label);
	else
		snprintf(buf, size, "timeline");
}

static void tl_bases(struct osc_tui *t, struct osc_view *v, char *buf, size_t size)
{
	struct tl_view *tv = v->priv;
	char from[64], span[64];

	if (!tv->cell) { /* not drawn yet: the runs' window */
		osc_tl_short_time(tv->from - osc_trace_origin(&t->trace), from, sizeof(from));
		osc_tl_short_time(tv->to - tv->from, span, sizeof(span));
	} else {
		osc_tl_short_time(tv->t0 - osc_trace_origin(&t->trace), from, sizeof(from));
		osc_tl_short_time(window_end(tv) - tv->t0, span, sizeof(span));
	}
	snprintf(buf, size, "window %s +%s", from, span);
	if (tv->tl->too_deep)
		snprintf(buf + strlen(buf), size - strlen(buf), "; %llu events deeper than %d lanes "
			 "not drawn", (unsigned long long)tv->tl->too_deep, OSC_TL_MAX_DEPTH);
}

static const char *tl_export_name(struct osc_tui *t, struct osc_view *v)
{
	(void)t;
	(void)v;
	return "timeline";
}

static uint32_t tl_row_event(struct osc_tui *t, struct osc_view *v, size_t row)
{
	struct tl_view *tv = v->priv;
	const struct osc_tl_lane *l;
	size_t i;

	(void)t;
	if (row >= tv->nr_rows)
		return OSC_NONE;
	l = row_lane(tv, row);
	i = l->ev ? osc_tl_at(l, tv->cursor) : OSC_TL_NONE;
	return i == OSC_TL_NONE ? OSC_NONE : l->ev[i];
}

unsigned osc_timeline_open(struct osc_tui *t)
{
	struct osc_view *v = osc_tui_top(t);
	struct osc_timeline_arg a = { NULL, 0, NULL };
	char buf[1024];
	uint32_t ev;

	if (v->ops == &osc_view_timeline || osc_tui_warming(t, "the timeline", OSC_WARM_TIMELINE))
		return OSC_R_REDRAW;
	if (v->tab.nr_rows && v->ops == &osc_view_table) {
		a.nr = osc_table_view_members(v, v->cur, &a.events);
	} else if (v->tab.nr_rows && v->ops->row_event &&
		   (ev = v->ops->row_event(t, v, v->cur)) != OSC_NONE) {
		a.events = &ev;
		a.nr = 1;
	}
	if (a.nr)
		a.label = v->tab.cell(v->tab.ctx, v->cur, v->ops->flex_col, buf, sizeof(buf));
	osc_view_push(t, &osc_view_timeline, &a);
	return OSC_R_REDRAW;
}

/*
 * `opscope timeline --format csv` over the window shown: the same lanes
 * unless some are folded or cut by top-N (then none).
 */
static char *tl_command(struct osc_tui *t, struct osc_view *v)
{
	struct tl_view *tv = v->priv;
	int64_t origin = osc_trace_origin(&t->trace);
	char from[64], to[64];
	char *line;

	if (tv->nr_rows != tv->tl->nr_lanes || v->topn || !tv->cell)
		return NULL;
	snprintf(from, sizeof(from), "%.3f", (double)(tv->t0 - origin) / 1e3);
	snprintf(to, sizeof(to), "%.3f", (double)(window_end(tv) - origin) / 1e3);
	line = osc_xstrdup("opscope timeline");
	if (t->args->path)
		line = osc_cli_line_arg(line, t->args->path);
	line = osc_cli_line_arg(osc_cli_line_arg(line, "--from"), from);
	line = osc_cli_line_arg(osc_cli_line_arg(line, "--to"), to);
	return osc_cli_line_format(line, t->export_as);
}

const struct osc_view_ops osc_view_timeline = {
	.name = "timeline",
	.open = tl_open,
	.close = tl_close,
	.build = tl_build,
	.table = tl_table,
	.flex_col = 1,
	.action = tl_action,
	.title = tl_title,
	.bases = tl_bases,
	.export_name = tl_export_name,
	.row_event = tl_row_event,
	.command = tl_command,
	.canvas = tl_canvas,
};
