/* draw.c - layout of tables into cells, header, status line, popup, loading bar. */
#include <curses.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "opscope/base/alloc.h"
#include "opscope/export/chart.h"
#include "opscope/analysis/columns.h"
#include "display.h"
#include "draw.h"
#include "fit.h"
#include "keymap.h"

#define HEADER_LINES 2 /* trace/view line, runs/filter/sort line */
#define MIN_FLEX 24    /* the name column keeps at least this much before columns go, */
#define FLEX_SHARE 40  /* or this percentage of the width: the name's room comes first */
#define TEXT_SHARE 20  /* another text column (a shape) takes at most this percentage */
#define MIN_TEXT 20    /* (but at least this many columns, and its title) */
#define BAR_WIDTH 10   /* cells of the bar chart column, after the name */

/* Write text fitted into exactly width columns at (y, x), aligned, padded. */
static void put_cell(int y, int x, const char *s, size_t width, enum osc_align align, bool utf8)
{
	char buf[4096];
	size_t w = osc_text_fit(s, strlen(s), width, utf8, buf, sizeof(buf));
	size_t pad = width - w;

	move(y, x);
	if (align == OSC_ALIGN_RIGHT)
		for (size_t i = 0; i < pad; i++)
			addch(' ');
	addstr(buf);
	if (align == OSC_ALIGN_LEFT)
		for (size_t i = 0; i < pad; i++)
			addch(' ');
}

/* Fill the rest of line y from x with spaces in the current attributes. */
static void pad_line(int y, int x)
{
	for (; x < COLS; x++)
		mvaddch(y, x, ' ');
}

/* One line of text, fitted to the screen width, in a style. */
static void put_line(int y, const char *s, enum osc_style style, bool utf8)
{
	attrset(osc_display_attr(style));
	put_cell(y, 0, s, (size_t)COLS, OSC_ALIGN_LEFT, utf8);
	attrset(A_NORMAL);
}

struct layout {
	bool bars;         /* the bar chart column is drawn after the name */
	size_t nr_cols;
	bool *shown;
	size_t *width;     /* per shown column: its width on screen */
	size_t flex_width;
	bool name_cut;     /* the selected row's name does not show whole (i, h, l help) */
	size_t first_shown, last_shown, nr_nonflex; /* for the status line */
};

/* Natural widths: titles, min widths and every cell seen so far (monotonic). */
static void grow_widths(struct osc_view *v, char ***cells, size_t nrows, bool utf8)
{
	size_t n = v->tab.nr_cols;

	if (v->nr_widths != n) {
		free(v->widths);
		v->widths = osc_xcalloc(n, sizeof(*v->widths));
		v->nr_widths = n;
		for (size_t c = 0; c < n; c++) {
			int tw = (int)osc_text_width(v->tab.cols[c].title,
						     strlen(v->tab.cols[c].title), utf8);

			v->widths[c] = tw > v->tab.cols[c].min_width ? tw : v->tab.cols[c].min_width;
		}
	}
	for (size_t r = 0; r < nrows; r++)
		for (size_t c = 0; c < n; c++) {
			int w = (int)osc_text_width(cells[r][c], strlen(cells[r][c]), utf8);

			if (w > v->widths[c])
				v->widths[c] = w;
		}
}

/*
 * Which columns fit: the name first gets its room (FLEX_SHARE of the width,
 * or what it needs), then the other columns in order while they fit; text
 * columns besides the name (a shape, a detail's field) are cut to
 * TEXT_SHARE so that the numbers after them stay visible; the name takes
 * what is left.
 */
static void compute_layout(struct osc_view *v, struct layout *l, bool bars)
{
	size_t flex = v->ops->flex_col, avail = (size_t)COLS, used = 0, k = 0;
	size_t room = avail * FLEX_SHARE / 100 > MIN_FLEX ? avail * FLEX_SHARE / 100 : MIN_FLEX;
	size_t text_cap = avail * TEXT_SHARE / 100 > MIN_TEXT ? avail * TEXT_SHARE / 100 : MIN_TEXT;
	size_t min_flex;

	l->bars = bars && avail > BAR_WIDTH + 1 + MIN_FLEX;
	if (l->bars)
		avail -= BAR_WIDTH + 1;
	min_flex = (size_t)v->widths[flex] < room ? (size_t)v->widths[flex] : room;
	l->nr_cols = v->tab.nr_cols;
	l->shown = osc_xcalloc(l->nr_cols, sizeof(*l->shown));
	l->width = osc_xcalloc(l->nr_cols, sizeof(*l->width));
	l->nr_nonflex = l->nr_cols - 1;
	if (v->colskip >= l->nr_nonflex)
		v->colskip = l->nr_nonflex ? l->nr_nonflex - 1 : 0;
	l->first_shown = l->last_shown = 0;
	for (size_t c = 0; c < l->nr_cols; c++) {
		const struct osc_column *col = &v->tab.cols[c];
		size_t w = (size_t)v->widths[c];

		if (c == flex)
			continue;
		if (!col->numeric) {
			size_t tw = osc_text_width(col->title, strlen(col->title), true);
			size_t cap = text_cap > tw ? text_cap : tw;

			if (w > cap)
				w = cap;
		}
		if (k++ < v->colskip)
			continue;
		if (used + w + 1 + min_flex > avail)
			break;
		used += w + 1;
		l->shown[c] = true;
		l->width[c] = w;
		if (!l->first_shown)
			l->first_shown = k;
		l->last_shown = k;
	}
	l->flex_width = avail > used ? avail - used : 0;
	if (l->flex_width > (size_t)v->widths[flex])
		l->flex_width = (size_t)v->widths[flex];
	l->shown[flex] = true;
	l->width[flex] = l->flex_width;
	if (v->hoff + l->flex_width > (size_t)v->widths[flex])
		v->hoff = (size_t)v->widths[flex] > l->flex_width
				  ? (size_t)v->widths[flex] - l->flex_width : 0;
}

static enum osc_style mark_style(enum osc_mark m)
{
	switch (m) {
	case OSC_MARK_ON:
		return OSC_STYLE_ON;
	case OSC_MARK_MIN:
		return OSC_STYLE_MIN;
	case OSC_MARK_MEDIAN:
		return OSC_STYLE_MEDIAN;
	case OSC_MARK_MAX:
		return OSC_STYLE_MAX;
	case OSC_MARK_TITLE:
		return OSC_STYLE_HEADING;
	default:
		return OSC_STYLE_NORMAL;
	}
}

/* s cut at its end to width columns (2 or more), an ellipsis last, into buf. */
static void cut_end(const char *s, size_t width, bool utf8, char *buf, size_t size)
{
	size_t cut = osc_text_skip(s, width - 1, utf8);

	snprintf(buf, size, "%.*s%s", (int)cut, s, utf8 ? "\xe2\x80\xa6" : "~");
}

/*
 * The name cell scrolled by hoff columns: a window into the text, cut at the
 * right with an ellipsis (unscrolled it loses its middle, like the report).
 */
static void put_scrolled(int y, int x, const char *s, size_t hoff, size_t width, bool utf8)
{
	const char *from = s + osc_text_skip(s, hoff, utf8);
	char buf[4096];

	if (!hoff || osc_text_width(from, strlen(from), utf8) <= width || width < 2) {
		put_cell(y, x, from, width, OSC_ALIGN_LEFT, utf8);
		return;
	}
	cut_end(from, width, utf8, buf, sizeof(buf));
	put_cell(y, x, buf, width, OSC_ALIGN_LEFT, utf8);
}

/* Draw the cells of one line (titles are never scrolled). */
static void draw_row(struct osc_view *v, const struct layout *l, int y, char **cells,
		     const char *bar, bool title, bool utf8, const enum osc_mark *marks)
{
	int x = 0;
	attr_t attr;
	short pair;

	attr_get(&attr, &pair, NULL);
	for (size_t c = 0; c < l->nr_cols; c++) {
		const struct osc_column *col = &v->tab.cols[c];
		size_t w;

		if (!l->shown[c])
			continue;
		w = l->width[c];
		if (marks && marks[c] != OSC_MARK_NONE) /* one cell stands out (cell_mark) */
			attrset(osc_display_attr(mark_style(marks[c])));
		if (c == v->ops->flex_col)
			put_scrolled(y, x, cells[c], title ? 0 : v->hoff, w, utf8);
		else
			put_cell(y, x, cells[c], w, col->align, utf8);
		if (marks && marks[c] != OSC_MARK_NONE)
			attr_set(attr, pair, NULL);
		x += (int)w;
		if (x < COLS)
			mvaddch(y, x++, ' ');
		if (c == v->ops->flex_col && l->bars) {
			put_cell(y, x, bar ? bar : "", BAR_WIDTH, OSC_ALIGN_LEFT, utf8);
			x += BAR_WIDTH;
			if (x < COLS)
				mvaddch(y, x++, ' ');
		}
	}
	pad_line(y, x);
}

/*
 * Cut the cells of the text columns that are too narrow (the name unless it
 * is scrolled, a shape) so that different rows stay different on screen
 * (fit.h); note whether the selected row (`cur`, of the n shown) lost part
 * of its name.
 */
static void fit_texts(struct osc_view *v, struct layout *l, char ***cells, size_t n, size_t cur,
		      bool utf8)
{
	const char **texts = osc_xcalloc(n ? n : 1, sizeof(*texts));
	char **fitted = osc_xcalloc(n ? n : 1, sizeof(*fitted));
	size_t flex = v->ops->flex_col;

	l->name_cut = cur < n && (v->hoff || osc_text_width(cells[cur][flex],
							   strlen(cells[cur][flex]), utf8) >
						     l->flex_width);
	for (size_t c = 0; c < l->nr_cols; c++) {
		if (!l->shown[c] || (c == flex && v->hoff) ||
		    (c != flex && v->tab.cols[c].numeric) || (size_t)v->widths[c] <= l->width[c])
			continue;
		for (size_t r = 0; r < n; r++)
			texts[r] = cells[r][c];
		osc_fit_column(texts, n, l->width[c], utf8, fitted);
		for (size_t r = 0; r < n; r++) {
			free(cells[r][c]);
			cells[r][c] = fitted[r];
		}
	}
	free(texts);
	free(fitted);
}

/* Draw view v in lines [y, y + h): column titles then rows. */
static void draw_table(struct osc_tui *t, struct osc_view *v, int y, int h, bool focus,
		       struct layout *out)
{
	size_t rows = h > 1 ? (size_t)h - 1 : 0, n, nc = v->tab.nr_cols;
	char ***cells, *titles[64], *sorted_title = NULL;
	struct layout l;
	char buf[4096], bar[BAR_WIDTH * 3 + 1];
	enum osc_mark *marks;

	v->height = rows ? rows : 1;
	if (!nc) { /* no columns yet: a big table's first answer is still being computed */
		attrset(osc_display_attr(OSC_STYLE_HINT));
		if (rows)
			put_cell(y + 1, 0, "(computing...)", (size_t)COLS, OSC_ALIGN_LEFT, t->utf8);
		attrset(A_NORMAL);
		if (out) {
			memset(out, 0, sizeof(*out));
			out->first_shown = 1;
		}
		return;
	}
	marks = osc_xcalloc(nc, sizeof(*marks));
	if (v->cur < v->top)
		v->top = v->cur;
	if (v->cur >= v->top + rows)
		v->top = v->cur - rows + 1;
	if (focus && v->ops->below && rows > 1) { /* an unfolded node's first children too */
		size_t below = v->ops->below(t, v), keep = below < rows / 2 ? below : rows / 2;

		if (v->cur + keep >= v->top + rows)
			v->top = v->cur + keep - rows + 1;
	}
	if (v->top + rows > v->tab.nr_rows)
		v->top = v->tab.nr_rows > rows ? v->tab.nr_rows - rows : 0;
	n = v->tab.nr_rows - v->top < rows ? v->tab.nr_rows - v->top : rows;
	cells = osc_xcalloc(n ? n : 1, sizeof(*cells));
	for (size_t r = 0; r < n; r++) {
		cells[r] = osc_xcalloc(nc, sizeof(**cells));
		for (size_t c = 0; c < nc; c++)
			cells[r][c] = osc_xstrdup(v->tab.cell(v->tab.ctx, v->top + r, c, buf,
							      sizeof(buf)));
	}
	grow_widths(v, cells, n, t->utf8);
	if (v->ops->sort && v->sort_col < nc) { /* the sorted column's title carries the order */
		size_t w;

		sorted_title = t->utf8 ? osc_xasprintf("%s%s", v->tab.cols[v->sort_col].title,
						       v->sort_desc ? "\xe2\x96\xbc" : "\xe2\x96\xb2")
				       : osc_xasprintf("*%s", v->tab.cols[v->sort_col].title);
		w = osc_text_width(sorted_title, strlen(sorted_title), t->utf8);
		if ((int)w > v->widths[v->sort_col])
			v->widths[v->sort_col] = (int)w;
	}
	compute_layout(v, &l, t->bars && v->ops->bar);
	fit_texts(v, &l, cells, n, focus ? v->cur - v->top : (size_t)-1, t->utf8);

	for (size_t c = 0; c < nc && c < 64; c++)
		titles[c] = (char *)v->tab.cols[c].title;
	if (sorted_title && v->sort_col < nc && v->sort_col < 64)
		titles[v->sort_col] = sorted_title;
	attrset(osc_display_attr(OSC_STYLE_TITLE));
	draw_row(v, &l, y, titles, "time", true, t->utf8, NULL);
	if (!v->tab.nr_rows && rows) {
		if (osc_view_busy(v)) { /* a worker computes them */
			snprintf(buf, sizeof(buf), "(computing...)");
		} else {
			snprintf(buf, sizeof(buf), "(no rows: nothing of this kind in the selected "
				 "runs, or the filter hides it)");
			if (v->ops->empty)
				v->ops->empty(t, v, buf, sizeof(buf));
		}
		attrset(osc_display_attr(OSC_STYLE_HINT));
		put_cell(y + 1, 0, buf, (size_t)COLS, OSC_ALIGN_LEFT, t->utf8);
		attrset(A_NORMAL);
	}
	for (size_t r = v->tab.nr_rows ? 0 : 1; r < rows; r++) {
		int line = y + 1 + (int)r;

		if (r >= n) {
			attrset(A_NORMAL);
			move(line, 0);
			clrtoeol();
			continue;
		}
		if (focus && v->top + r == v->cur)
			attrset(osc_display_attr(OSC_STYLE_CURSOR));
		else
			attrset(osc_display_attr(v->ops->mark ? mark_style(v->ops->mark(
									t, v, v->top + r))
							      : OSC_STYLE_NORMAL));
		if (l.bars)
			osc_chart_bar(v->ops->bar(t, v, v->top + r), BAR_WIDTH, t->utf8, bar,
				      sizeof(bar));
		if (v->ops->cell_mark)
			for (size_t c = 0; c < nc; c++)
				marks[c] = v->ops->cell_mark(t, v, v->top + r, c);
		draw_row(v, &l, line, cells[r], l.bars ? bar : NULL, false, t->utf8,
			 v->ops->cell_mark ? marks : NULL);
	}
	attrset(A_NORMAL);
	for (size_t r = 0; r < n; r++) {
		for (size_t c = 0; c < nc; c++)
			free(cells[r][c]);
		free(cells[r]);
	}
	free(cells);
	free(marks);
	free(sorted_title);
	free(l.shown);
	free(l.width);
	l.shown = NULL;
	l.width = NULL;
	if (out)
		*out = l;
}

/* Draw the body of a view that fills a canvas (the timeline) in lines [y, y + h). */
static void draw_canvas(struct osc_tui *t, struct osc_view *v, int y, int h)
{
	struct osc_canvas c = { COLS, h > 0 ? h : 0, NULL };

	c.cells = osc_xcalloc((size_t)c.width * (size_t)c.height + 1, sizeof(*c.cells));
	for (size_t i = 0; i < (size_t)c.width * (size_t)c.height; i++)
		strcpy(c.cells[i].glyph, " ");
	v->ops->canvas(t, v, &c);
	for (int r = 0; r < c.height; r++) {
		move(y + r, 0);
		for (int x = 0; x < c.width; x++) {
			const struct osc_canvas_cell *cell = &c.cells[(size_t)r * (size_t)c.width + x];

			attrset(osc_display_attr((enum osc_style)cell->style));
			addstr(cell->glyph);
		}
	}
	attrset(A_NORMAL);
	free(c.cells);
}

int osc_draw_first_row(void)
{
	return HEADER_LINES + 1;
}

/*
 * The message on the status line, on that one line: a longer one keeps its
 * start and says that y shows it whole (with the view's command line, to
 * copy), so a command is never broken across lines.
 */
static void draw_message(struct osc_tui *t)
{
	size_t width = (size_t)COLS, len = strlen(t->msg);
	char buf[64], key[16];
	enum osc_style style = t->msg_kind == OSC_MSG_ERROR ? OSC_STYLE_ERROR : OSC_STYLE_NORMAL;

	if (osc_text_width(t->msg, len, t->utf8) <= width) {
		put_line(LINES - 1, t->msg, style, t->utf8);
		return;
	}
	osc_action_first_key(OSC_ACT_MESSAGE, key, sizeof(key));
	snprintf(buf, sizeof(buf), "%s %s:whole", t->utf8 ? "\xe2\x80\xa6" : "~", key);
	{
		size_t tail = osc_text_width(buf, strlen(buf), t->utf8);
		size_t keep = width > tail ? width - tail : 0;
		char line[4096];

		snprintf(line, sizeof(line), "%.*s%s", (int)osc_text_skip(t->msg, keep, t->utf8),
			 t->msg, buf);
		put_line(LINES - 1, line, style, t->utf8);
	}
}

struct hint {
	enum osc_action a;
	const char *label;
};

static const struct hint table_hints[] = {
	{ OSC_ACT_HELP, "help" },      { OSC_ACT_ENTER, "open" },
	{ OSC_ACT_BACK, "back" },      { OSC_ACT_FILTER, "filter" },
	{ OSC_ACT_FIND, "find" },      { OSC_ACT_SORT_NEXT, "sort" },
	{ OSC_ACT_NEXT_LEVEL, "level" }, { OSC_ACT_VIEW_RUNS, "runs" },
	{ OSC_ACT_TOGGLE_DETAIL, "detail" }, { OSC_ACT_EXPORT, "export" },
	{ OSC_ACT_NONE, NULL },
};

/* The timeline's (a view drawing a canvas): pairs of keys joined by '/'. */
static const struct hint canvas_hints[] = {
	{ OSC_ACT_HELP, "help" },      { OSC_ACT_ZOOM_IN, NULL },
	{ OSC_ACT_ZOOM_OUT, "zoom" },  { OSC_ACT_SCROLL_LEFT, NULL },
	{ OSC_ACT_SCROLL_RIGHT, "move" }, { OSC_ACT_PAGE_LEFT, NULL },
	{ OSC_ACT_LONGEST_CHILD, "page" }, { OSC_ACT_PREV_SIBLING, NULL },
	{ OSC_ACT_NEXT_SIBLING, "event" }, { OSC_ACT_ENTER, "open" },
	{ OSC_ACT_FOLD_CHILDREN, "fold" }, { OSC_ACT_BACK, "back" },
	{ OSC_ACT_EXPORT, "export" },  { OSC_ACT_NONE, NULL },
};

/*
 * Hints that fit the status line: "?:help Enter:open q:back ...", with
 * "i:full name h/l:scroll" after help when the selected row's name is cut.
 * A hint without a label joins the next one's key: "+/-:zoom".
 */
static void hints_line(const struct hint *hints, char *line, size_t size, size_t width,
		       bool name_cut)
{
	char key[32], one[128], left[32], keys[80] = "";
	size_t len = 0;

	line[0] = '\0';
	for (size_t i = 0; hints[i].a != OSC_ACT_NONE; i++) {
		size_t n;

		if (i == 1 && name_cut) {
			osc_action_first_key(OSC_ACT_FULL_NAME, key, sizeof(key));
			osc_action_first_key(OSC_ACT_SCROLL_LEFT, left, sizeof(left));
			len += (size_t)snprintf(line + len, size - len, " %s:full name %s/", key, left);
			osc_action_first_key(OSC_ACT_SCROLL_RIGHT, key, sizeof(key));
			len += (size_t)snprintf(line + len, size - len, "%s:scroll", key);
		}
		osc_action_first_key(hints[i].a, key, sizeof(key));
		if (key[0] == '<' && key[1]) { /* <Enter> -> Enter */
			memmove(key, key + 1, strlen(key));
			key[strlen(key) - 1] = '\0';
		}
		snprintf(keys + strlen(keys), sizeof(keys) - strlen(keys), "%s%s", *keys ? "/" : "",
			 key);
		if (!hints[i].label)
			continue;
		n = (size_t)snprintf(one, sizeof(one), "%s%s:%s", len ? " " : "", keys,
				     hints[i].label);
		keys[0] = '\0';
		if (len + n > width || len + n >= size)
			break;
		memcpy(line + len, one, n + 1);
		len += n;
	}
}

static void draw_status(struct osc_tui *t, struct osc_view *v, const struct layout *l)
{
	char line[8192], pos[64];
	int y = LINES - 1;
	size_t plen;

	if (t->prompt.active) {
		snprintf(line, sizeof(line), "%s%s", t->prompt.label, t->prompt.buf);
		put_line(y, line, OSC_STYLE_NORMAL, t->utf8);
		if (t->prompt.fresh) { /* the offered text, shown selected: typing replaces it */
			size_t x = osc_text_width(t->prompt.label, strlen(t->prompt.label), t->utf8);

			if (x < (size_t)COLS) {
				attrset(A_REVERSE);
				put_cell(y, (int)x, t->prompt.buf,
					 osc_text_width(t->prompt.buf, t->prompt.len, t->utf8) <
							 (size_t)COLS - x
						 ? osc_text_width(t->prompt.buf, t->prompt.len, t->utf8)
						 : (size_t)COLS - x,
					 OSC_ALIGN_LEFT, t->utf8);
				attrset(A_NORMAL);
			}
		}
		return;
	}
	if (*t->msg) {
		draw_message(t);
		return;
	}
	plen = (size_t)snprintf(pos, sizeof(pos), " %zu/%zu", v->tab.nr_rows ? v->cur + 1 : 0,
				v->tab.nr_rows);
	if (l->first_shown > 1 || l->last_shown < l->nr_nonflex)
		plen = (size_t)snprintf(pos, sizeof(pos), " %s%zu-%zu/%zu cols%s %zu/%zu",
					l->first_shown > 1 ? "<" : "", l->first_shown,
					l->last_shown, l->nr_nonflex,
					l->last_shown < l->nr_nonflex ? ">" : "",
					v->tab.nr_rows ? v->cur + 1 : 0, v->tab.nr_rows);
	hints_line(v->ops->canvas ? canvas_hints : table_hints, line, sizeof(line),
		   (size_t)COLS > plen ? (size_t)COLS - plen : 0, l->name_cut);
	put_line(y, line, OSC_STYLE_HINT, t->utf8);
	if ((size_t)COLS > plen) {
		attrset(osc_display_attr(OSC_STYLE_HINT));
		mvaddstr(y, COLS - (int)plen, pos);
		attrset(A_NORMAL);
	}
}

/* Wrap text into a centred box. */
static void draw_popup(const char *text, bool utf8)
{
	int w = COLS - 4 > 20 ? COLS - 4 : COLS, lines, x0, y0;
	size_t len = strlen(text), at = 0;
	int inner = w - 2 > 1 ? w - 2 : 1;
	char buf[4096];

	lines = (int)(osc_text_width(text, len, utf8) / (size_t)inner) + 1;
	if (lines > LINES - 4)
		lines = LINES - 4 > 1 ? LINES - 4 : 1;
	x0 = (COLS - w) / 2;
	y0 = (LINES - lines - 2) / 2;
	attrset(osc_display_attr(OSC_STYLE_HEADER));
	for (int r = 0; r < lines + 2; r++) {
		move(y0 + r, x0);
		for (int c = 0; c < w; c++)
			addch(' ');
	}
	for (int r = 0; r < lines && at < len; r++) {
		/* Take the bytes of `inner` display columns. */
		size_t end = at + osc_text_skip(text + at, (size_t)inner, utf8);

		snprintf(buf, sizeof(buf), "%.*s", (int)(end - at), text + at);
		put_cell(y0 + 1 + r, x0 + 1, buf, (size_t)inner, OSC_ALIGN_LEFT, utf8);
		at = end;
	}
	attrset(A_NORMAL);
}

/*
 * "FILE | TITLE | SORT" fitted to the width: the file name gives way first
 * (to 8 columns, then to nothing), then the title's end, so the view's name
 * at the title's start and the sort order stay readable.
 */
static void header_line(struct osc_tui *t, const char *title, const char *sort, char *line,
			size_t size)
{
	const char *file = osc_trace_basename(&t->trace);
	char tail[2048], *cut;
	size_t width = (size_t)COLS, file_w, tail_w;

	if (!strcmp(file, "-"))
		file = "stdin";
	snprintf(tail, sizeof(tail), "%s%s%s", title, *sort ? " | " : "", sort);
	if (!*file) { /* a job's explorer: no trace to name */
		cut = osc_fit_text(tail, width, t->utf8);
		snprintf(line, size, "%s", cut);
		free(cut);
		return;
	}
	file_w = osc_text_width(file, strlen(file), t->utf8);
	tail_w = osc_text_width(tail, strlen(tail), t->utf8);
	if (file_w + 3 + tail_w <= width) {
		snprintf(line, size, "%s | %s", file, tail);
		return;
	}
	if (tail_w + 3 + 8 <= width) { /* the file name gives way */
		cut = osc_fit_text(file, width - 3 - tail_w, t->utf8);
		snprintf(line, size, "%s | %s", cut, tail);
		free(cut);
		return;
	}
	/* then the title loses its end: keep the view's name and the sort */
	if (*sort && osc_text_width(sort, strlen(sort), t->utf8) + 3 + 16 <= width) {
		size_t room = width - 3 - osc_text_width(sort, strlen(sort), t->utf8);

		if (osc_text_width(title, strlen(title), t->utf8) <= room)
			snprintf(line, size, "%s | %s", title, sort);
		else
			snprintf(line, size, "%.*s%s | %s",
				 (int)osc_text_skip(title, room - 1, t->utf8), title,
				 t->utf8 ? "\xe2\x80\xa6" : "~", sort);
		return;
	}
	snprintf(line, size, "%s", tail);
}

/* "lines 1-10/40 }:more" at the right of the pane's title line when it holds more. */
static void pane_position(struct osc_tui *t, int y)
{
	const struct osc_view *p = &t->pane;
	char pos[96], down[16], up[16];
	size_t last = p->top + p->height < p->tab.nr_rows ? p->top + p->height : p->tab.nr_rows;
	int n;

	if (p->tab.nr_rows <= p->height)
		return;
	osc_action_first_key(OSC_ACT_PANE_DOWN, down, sizeof(down));
	osc_action_first_key(OSC_ACT_PANE_UP, up, sizeof(up));
	n = snprintf(pos, sizeof(pos), " lines %zu-%zu/%zu %s/%s:scroll", p->top + 1, last,
		     p->tab.nr_rows, down, up);
	if (n > 0 && n < COLS) {
		attrset(osc_display_attr(OSC_STYLE_HINT));
		mvaddstr(y, COLS - n, pos);
		attrset(A_NORMAL);
	}
}

#define INFO_REST_MIN 24 /* columns of runs and filter worth showing after the bases */

/*
 * The second header line (osc_view_describe's). Where it is too wide, a
 * view whose bases lead it (a what-if projection, the GPU breakdown) keeps
 * them whole, the runs and filter after them cut, or, bases wider than the
 * screen, their start alone; else the line loses its middle as any text.
 */
static void info_line(struct osc_tui *t, struct osc_view *v, char *line, size_t size)
{
	size_t width = (size_t)COLS, lead, lead_w;
	char bases[512] = "", *rest;

	osc_view_describe(t, v, line, size, 0);
	if (!v->ops->bases_first || !v->ops->bases ||
	    osc_text_width(line, strlen(line), t->utf8) <= width)
		return;
	v->ops->bases(t, v, bases, sizeof(bases));
	lead = strlen(bases);
	if (!lead || strncmp(line, bases, lead))
		return;
	lead_w = osc_text_width(bases, lead, t->utf8);
	if (lead_w + 3 + INFO_REST_MIN <= width) {
		rest = osc_fit_text(line + lead + 3, width - lead_w - 3, t->utf8);
		snprintf(line + lead, size - lead, " | %s", rest);
		free(rest);
	} else if (lead_w > width && width >= 2) {
		cut_end(bases, width, t->utf8, line, size);
	}
}

void osc_draw_screen(struct osc_tui *t)
{
	struct osc_view *v = osc_tui_top(t);
	char line[4096], title[1024], sort[256];
	int body = LINES - HEADER_LINES - 1;
	struct layout l;

	erase();
	v->ops->title(t, v, title, sizeof(title));
	osc_view_describe(t, v, sort, sizeof(sort), 1);
	header_line(t, title, sort, line, sizeof(line));
	put_line(0, line, OSC_STYLE_HEADER, t->utf8);
	info_line(t, v, line, sizeof(line));
	put_line(1, line, OSC_STYLE_INFO, t->utf8);
	if (v->ops->canvas) {
		memset(&l, 0, sizeof(l));
		l.first_shown = 1;
		draw_canvas(t, v, HEADER_LINES, body);
	} else if (t->pane_on && v->ops->detail && t->pane.ops && body >= 8) {
		int top_h = body / 2;

		draw_table(t, v, HEADER_LINES, top_h, true, &l);
		osc_view_refresh(t, &t->pane);
		draw_table(t, &t->pane, HEADER_LINES + top_h, body - top_h, false, NULL);
		pane_position(t, HEADER_LINES + top_h);
	} else {
		draw_table(t, v, HEADER_LINES, body, true, &l);
	}
	draw_status(t, v, &l);
	if (t->popup)
		draw_popup(t->popup, t->utf8);
	if (t->prompt.active) {
		curs_set(1);
		move(LINES - 1, (int)osc_text_width(t->prompt.label, strlen(t->prompt.label),
						    t->utf8) +
				 (int)osc_text_width(t->prompt.buf, t->prompt.len, t->utf8));
	} else {
		curs_set(0);
	}
	refresh();
}

static void human_bytes(uint64_t b, char *buf, size_t size)
{
	if (b >= 10u << 20)
		snprintf(buf, size, "%.1f MB", (double)b / (1 << 20));
	else
		snprintf(buf, size, "%.1f kB", (double)b / 1024);
}

void osc_draw_loading(const char *name, const struct osc_load_progress *p, bool utf8)
{
	int w = COLS - 10 > 10 ? COLS - 10 : COLS, y = LINES / 2 - 2;
	int barw = w - 8 > 1 ? w - 8 : 1, fill = 0;
	char line[1024], done[32], total[32];
	double frac = 0;

	erase();
	snprintf(line, sizeof(line), "Loading %s", name);
	attrset(A_BOLD);
	put_cell(y, (COLS - w) / 2, line, (size_t)w, OSC_ALIGN_LEFT, utf8);
	attrset(A_NORMAL);
	if (p->rows_total) /* a database: SQLite reads its file where it likes */
		frac = (double)p->rows_read / (double)p->rows_total;
	else if (p->bytes_total)
		frac = (double)p->bytes_read / (double)p->bytes_total;
	if (frac > 1)
		frac = 1;
	fill = (int)(frac * barw);
	move(y + 1, (COLS - w) / 2);
	addch('[');
	attrset(osc_display_attr(OSC_STYLE_ON));
	for (int i = 0; i < barw; i++)
		addstr(i < fill ? "#" : " ");
	attrset(A_NORMAL);
	printw("] %3d%%", (int)(frac * 100));
	human_bytes(p->bytes_read, done, sizeof(done));
	human_bytes(p->bytes_total, total, sizeof(total));
	if (p->waiting)
		snprintf(line, sizeof(line), "%s, waiting for data: nothing came for a second "
			 "(a pipe or FIFO with no writer?)", done);
	else if (p->rows_total)
		snprintf(line, sizeof(line), "%llu of about %llu rows, %llu events, %.1f s",
			 (unsigned long long)p->rows_read, (unsigned long long)p->rows_total,
			 (unsigned long long)p->events, p->elapsed);
	else if (p->bytes_total)
		snprintf(line, sizeof(line), "%s of %s, %llu events, %.1f s", done, total,
			 (unsigned long long)p->events, p->elapsed);
	else
		snprintf(line, sizeof(line), "%s, %llu events, %.1f s", done,
			 (unsigned long long)p->events, p->elapsed);
	put_cell(y + 2, (COLS - w) / 2, line, (size_t)w, OSC_ALIGN_LEFT, utf8);
	attrset(osc_display_attr(OSC_STYLE_HINT));
	put_cell(y + 4, (COLS - w) / 2, "q or Ctrl-C cancels", (size_t)w, OSC_ALIGN_LEFT, utf8);
	attrset(A_NORMAL);
	refresh();
}

void osc_draw_dump(FILE *out)
{
	wchar_t wbuf[1024];
	char mb[4096];

	for (int y = 0; y < LINES; y++) {
		int n = mvinnwstr(y, 0, wbuf, COLS < 1023 ? COLS : 1023);
		size_t len;

		if (n < 0)
			n = 0;
		wbuf[n] = L'\0';
		len = wcstombs(mb, wbuf, sizeof(mb) - 1);
		if (len == (size_t)-1)
			len = 0;
		mb[len] = '\0';
		while (len && mb[len - 1] == ' ')
			mb[--len] = '\0';
		fprintf(out, "%s\n", mb);
	}
}
