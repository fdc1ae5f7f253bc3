/* timeline_draw.c - a window of the timeline as cells of text (timeline_draw.h). */
#define _XOPEN_SOURCE 700 /* wcwidth */
#include <stdio.h>
#include <string.h>
#include <wchar.h>

#include "opscope/analysis/columns.h"
#include "opscope/export/export.h"
#include "opscope/export/timeline_draw.h"

#define TICK_EVERY 16 /* ruler: a time every this many cells */
#define MIN_NAME 8    /* full cells of one event for its name, cut, to be written */
#define MIN_WHOLE 3   /* (or this many, when the whole name fits) */

static const char *const eighths[9] = {
	" ",
	"\xe2\x96\x8f", "\xe2\x96\x8e", "\xe2\x96\x8d", "\xe2\x96\x8c",
	"\xe2\x96\x8b", "\xe2\x96\x8a", "\xe2\x96\x89", "\xe2\x96\x88",
};

/* The glyph of a cell busy for `busy` of `cell` ns. */
static const char *fill_glyph(int64_t busy, int64_t cell, bool utf8)
{
	int64_t e = (busy * 8 + cell / 2) / cell;

	if (busy > 0 && e == 0)
		e = 1;
	if (e > 8)
		e = 8;
	if (utf8)
		return eighths[e];
	return e == 8 ? "#" : e >= 4 ? "=" : e ? "-" : " ";
}

static void set(struct osc_tl_glyph *g, const char *glyph, uint8_t look)
{
	snprintf(g->glyph, sizeof(g->glyph), "%s", glyph);
	g->look = look;
}

size_t osc_tl_put_text(struct osc_tl_glyph *out, size_t width, const char *s, uint8_t look,
		       bool utf8)
{
	char buf[1024];
	size_t len, i = 0, x = 0;
	mbstate_t st;

	if (!width)
		return 0;
	osc_text_fit(s, strlen(s), width, utf8, buf, sizeof(buf));
	len = strlen(buf);
	memset(&st, 0, sizeof(st));
	while (i < len && x < width) {
		wchar_t wc;
		size_t n = 1;
		int w = 1;

		if (utf8) {
			n = mbrtowc(&wc, buf + i, len - i, &st);
			if (n == 0 || n > 4) { /* osc_text_fit leaves none; be safe */
				memset(&st, 0, sizeof(st));
				n = 1;
				w = -1;
			} else {
				w = wcwidth(wc);
			}
		}
		if (w == 2 && x + 1 < width) {
			memcpy(out[x].glyph, buf + i, n);
			out[x].glyph[n] = '\0';
			out[x].look = look;
			set(&out[x + 1], "", look);
			x += 2;
		} else {
			if (w == 1) {
				memcpy(out[x].glyph, buf + i, n);
				out[x].glyph[n] = '\0';
			} else {
				strcpy(out[x].glyph, "?");
			}
			out[x++].look = look;
		}
		i += n;
	}
	return x;
}

void osc_tl_short_time(int64_t ns, char *buf, size_t size)
{
	const char *sign = ns < 0 ? "-" : "";
	double v = ns < 0 ? -(double)ns : (double)ns;

	if (v >= 1e9)
		snprintf(buf, size, "%s%.4gs", sign, v / 1e9);
	else if (v >= 1e6)
		snprintf(buf, size, "%s%.4gms", sign, v / 1e6);
	else if (v >= 1e3)
		snprintf(buf, size, "%s%.4gus", sign, v / 1e3);
	else
		snprintf(buf, size, "%s%.0fns", sign, v);
}

const char *osc_tl_event_name(const struct osc_trace *t, const struct osc_names *names,
			      uint32_t ev)
{
	const struct osc_event *e = &t->events[ev];

	if (e->kernel != OSC_NONE && names)
		return osc_names_get(names, t, e->name);
	return osc_strtab_get(&t->strs, e->name);
}

struct osc_tl_window osc_tl_window_fit(int64_t from, int64_t to, size_t width)
{
	int64_t cell = width ? (to - from + (int64_t)width - 1) / (int64_t)width : 1;

	return (struct osc_tl_window){ from, cell > 0 ? cell : 1, width };
}

void osc_tl_draw_ruler(const struct osc_tl_window *w, int64_t origin, bool utf8,
		       struct osc_tl_glyph *out)
{
	for (size_t x = 0; x < w->width; x++)
		set(&out[x], " ", OSC_TL_LOOK_RULER);
	for (size_t k = 0; k + 4 <= w->width; k += TICK_EVERY) {
		char when[48], tick[64];
		size_t room = w->width - k < TICK_EVERY ? w->width - k : TICK_EVERY - 1;

		osc_tl_short_time(w->t0 + (int64_t)k * w->cell - origin, when, sizeof(when));
		snprintf(tick, sizeof(tick), "%s%s", utf8 ? "\xe2\x94\x82" : "|", when);
		if (strlen(when) + 1 <= room) /* a cut time would mislead: none then */
			osc_tl_put_text(out + k, room, tick, OSC_TL_LOOK_RULER, utf8);
	}
}

void osc_tl_draw_lane(const struct osc_trace *t, const struct osc_names *names,
		      const struct osc_timeline *tl, size_t lane, const struct osc_tl_window *w,
		      const size_t *marked, size_t nr_marked, bool utf8,
		      struct osc_tl_cell *cells, struct osc_tl_glyph *out)
{
	const struct osc_tl_lane *l = &tl->lanes[lane];
	bool device_union = l->thread == OSC_NONE && l->device;

	osc_tl_cells(l, w->t0, w->cell, w->width, marked, nr_marked, cells);
	for (size_t x = 0; x < w->width; x++) {
		if (!cells[x].busy && device_union)
			set(&out[x], utf8 ? "\xc2\xb7" : ".", OSC_TL_LOOK_IDLE);
		else
			set(&out[x], fill_glyph(cells[x].busy, w->cell, utf8),
			    !cells[x].busy  ? OSC_TL_LOOK_EMPTY
			    : cells[x].marked ? OSC_TL_LOOK_MARKED
					      : OSC_TL_LOOK_BAR);
	}
	if (!l->ev)
		return;
	for (size_t x = 0; x < w->width;) { /* names on runs of full cells of one event */
		size_t end = x;

		while (end < w->width && cells[x].shown != OSC_TL_NONE &&
		       cells[end].shown == cells[x].shown && cells[end].busy == w->cell)
			end++;
		if (end - x >= MIN_WHOLE) {
			const char *name = osc_tl_event_name(t, names, l->ev[cells[x].shown]);

			if (end - x >= MIN_NAME || osc_text_width(name, strlen(name), utf8) <= end - x)
				osc_tl_put_text(out + x, end - x, name,
						cells[x].marked ? OSC_TL_LOOK_MARKED_NAME
								: OSC_TL_LOOK_NAME,
						utf8);
		}
		x = end > x ? end : x + 1;
	}
}

enum { COL_PROCESS, COL_THREAD, COL_DEPTH, COL_EVENTS, COL_BUSY, COL_BUSY_PCT, COL_NR };

static const struct osc_column table_cols[COL_NR] = {
	[COL_PROCESS] = { "process", 10, OSC_ALIGN_LEFT, false, OSC_STAT_NAME },
	[COL_THREAD] = { "thread", 10, OSC_ALIGN_LEFT, false, OSC_STAT_NAME },
	[COL_DEPTH] = { "depth", 5, OSC_ALIGN_RIGHT, true, OSC_STAT_NAME },
	[COL_EVENTS] = { "events", 6, OSC_ALIGN_RIGHT, true, OSC_STAT_NAME },
	[COL_BUSY] = { "busy_us", 9, OSC_ALIGN_RIGHT, true, OSC_STAT_NAME },
	[COL_BUSY_PCT] = { "busy_pct_of_window", 6, OSC_ALIGN_RIGHT, true, OSC_STAT_NAME },
};

static const char *table_cell(const void *ctx, size_t row, size_t col, char *buf, size_t size)
{
	const struct osc_tl_table *tt = ctx;
	const struct osc_tl_lane *l = &tt->tl->lanes[tt->lanes[row]];
	const struct osc_thread *th = &tt->t->threads[l->thread == OSC_NONE
							      ? tt->tl->groups[l->group].pid_thread
							      : l->thread];
	int64_t busy;
	size_t lo;

	switch (col) {
	case COL_PROCESS:
		return osc_strtab_get(&tt->t->strs, th->pid);
	case COL_THREAD:
		return l->thread == OSC_NONE ? "all" : osc_strtab_get(&tt->t->strs, th->tid);
	case COL_DEPTH:
		if (l->thread == OSC_NONE)
			return "";
		snprintf(buf, size, "%u", l->depth);
		return buf;
	case COL_EVENTS:
		snprintf(buf, size, "%zu", osc_tl_range(l, tt->from, tt->to, &lo));
		return buf;
	default:
		busy = osc_tl_busy(l, tt->from, tt->to);
		if (col == COL_BUSY)
			snprintf(buf, size, "%.3f", (double)busy / 1e3);
		else
			snprintf(buf, size, "%.2f", tt->to > tt->from ? 100.0 * (double)busy /
										 (double)(tt->to - tt->from)
								       : 0.0);
		return buf;
	}
}

void osc_tl_table(const struct osc_tl_table *ctx, struct osc_table *out)
{
	*out = (struct osc_table){ table_cols, COL_NR, ctx->nr, table_cell, ctx };
}
