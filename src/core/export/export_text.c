/*
 * export_text.c - the plain text table of `opscope report`.
 *
 * "# key: value" meta lines, a header line, a dashed rule, then one line per
 * row. Numbers are right-aligned and never cut. The table fits `width`
 * columns: first it drops columns (spread statistics first, see drop_order)
 * until the others leave the name column a third of the width (min_width at
 * least), then the name column takes what is left and longer names lose
 * their middle to an ellipsis. A row never wraps. Widths count display
 * columns of UTF-8 (wcwidth); the locale is queried once per table.
 */
#include <stdlib.h>
#include <string.h>

#include "opscope/base/alloc.h"
#include "opscope/export/export.h"

#define SEP "  "
#define SEP_WIDTH 2
#define CELL_SIZE 128

struct text_state {
	bool utf8;
	size_t *width;    /* per column; 0 = dropped */
	char *fit;        /* buffer for a fitted name */
	size_t fit_size;
};

/*
 * Which columns a narrow table drops first, by the statistic they show: the
 * per-run values go first, then the spread statistics and the secondary
 * measures; the name, the leading measures and their percentages (0) are
 * always shown.
 */
static int drop_order(enum osc_stat s)
{
	if (osc_stat_is_roofline(s)) /* the roofline columns: last of the shape level's */
		return 17;
	switch (s) {
	case OSC_STAT_COUNT_PER_RUN:
		return 16;
	case OSC_STAT_TOTAL_PER_RUN:
	case OSC_STAT_SELF_PER_RUN:
	case OSC_STAT_DEVICE_PER_RUN:
		return 15;
	case OSC_STAT_STDDEV:
		return 14;
	case OSC_STAT_MIN:
		return 13;
	case OSC_STAT_P99:
		return 12;
	case OSC_STAT_MAX:
		return 11;
	case OSC_STAT_P90:
		return 10;
	case OSC_STAT_P50:
		return 9;
	case OSC_STAT_EVENTS:
	case OSC_STAT_KERNELS:
		return 8;
	case OSC_STAT_DEVICE_TOTAL:
		return 7;
	case OSC_STAT_SELF_CUM_PCT:
	case OSC_STAT_DEVICE_CUM_PCT:
		return 6;
	case OSC_STAT_MEAN:
		return 5;
	case OSC_STAT_TOTAL:
	case OSC_STAT_OPS:
		return 4;
	case OSC_STAT_COUNT:
		return 3;
	case OSC_STAT_SELF_PCT:
		return 2;
	case OSC_STAT_NAME:
	case OSC_STAT_SELF:
	case OSC_STAT_DEVICE:
	case OSC_STAT_DEVICE_PCT:
	case OSC_STAT_WALL:
	case OSC_STAT_HOST_BUSY:
		return 0;
	default:
		return s >= OSC_STAT_DISTS ? 14 : 1;
	}
}

/* The shrinkable column: the first one, when it is text. */
static bool shrinkable(const struct osc_table *t, size_t c)
{
	return c == 0 && !t->cols[0].numeric;
}

static size_t cell_width(const struct osc_table *t, size_t row, size_t c, bool utf8)
{
	char buf[CELL_SIZE];
	const char *v = t->cell(t->ctx, row, c, buf, sizeof(buf));

	return osc_text_width(v, strlen(v), utf8);
}

/* Sum of the shown widths plus separators, with the name at `name` columns. */
static size_t line_width(const struct osc_table *t, const size_t *w, size_t name)
{
	size_t sum = 0, shown = 0;

	for (size_t c = 0; c < t->nr_cols; c++) {
		if (!w[c])
			continue;
		sum += shrinkable(t, c) ? name : w[c];
		shown++;
	}
	return sum + (shown ? (shown - 1) * SEP_WIDTH : 0);
}

/* Drop the shown column that goes first; false if none can go. */
static bool drop_one(const struct osc_table *t, size_t *w)
{
	size_t best = t->nr_cols;

	for (size_t c = 0; c < t->nr_cols; c++)
		if (w[c] && drop_order(t->cols[c].stat) > 0 &&
		    (best == t->nr_cols ||
		     drop_order(t->cols[c].stat) > drop_order(t->cols[best].stat)))
			best = c;
	if (best == t->nr_cols)
		return false;
	w[best] = 0;
	return true;
}

static void layout(const struct osc_table *t, struct text_state *st, int width)
{
	size_t *w = st->width, name_floor = 0;

	for (size_t c = 0; c < t->nr_cols; c++) {
		w[c] = osc_text_width(t->cols[c].title, strlen(t->cols[c].title), st->utf8);
		for (size_t r = 0; r < t->nr_rows; r++) {
			size_t cw = cell_width(t, r, c, st->utf8);

			if (cw > w[c])
				w[c] = cw;
		}
		if (!w[c])
			w[c] = 1; /* 0 means dropped */
	}
	if (width <= 0)
		return;
	if (shrinkable(t, 0)) {
		/* Names stay recognisable: a third of the width, min_width at least. */
		name_floor = (size_t)width / 3;
		if (name_floor < (size_t)t->cols[0].min_width)
			name_floor = (size_t)t->cols[0].min_width;
		if (name_floor > w[0])
			name_floor = w[0];
	}
	while (line_width(t, w, name_floor) > (size_t)width && drop_one(t, w))
		;
	if (shrinkable(t, 0) && line_width(t, w, w[0]) > (size_t)width) {
		size_t others = line_width(t, w, 0);

		w[0] = others < (size_t)width ? (size_t)width - others : 0;
		if (w[0] < name_floor)
			w[0] = name_floor; /* too narrow to fit: the floor wins */
	}
}

static void pad(FILE *out, size_t n)
{
	static const char spaces[] = "                                ";

	for (; n > sizeof(spaces) - 1; n -= sizeof(spaces) - 1)
		fwrite(spaces, 1, sizeof(spaces) - 1, out);
	fwrite(spaces, 1, n, out);
}

/* Write text s aligned in a column of w display columns. */
static void put_cell(FILE *out, const struct osc_table *t, struct text_state *st, size_t c,
		     const char *s, bool last)
{
	size_t used = osc_text_fit(s, strlen(s), st->width[c], st->utf8, st->fit, st->fit_size);

	if (t->cols[c].align == OSC_ALIGN_RIGHT)
		pad(out, st->width[c] - used);
	fputs(st->fit, out);
	if (t->cols[c].align == OSC_ALIGN_LEFT && !last)
		pad(out, st->width[c] - used);
}

static size_t last_shown(const struct osc_table *t, const struct text_state *st)
{
	size_t last = 0;

	for (size_t c = 0; c < t->nr_cols; c++)
		if (st->width[c])
			last = c;
	return last;
}

static void put_line(FILE *out, const struct osc_table *t, struct text_state *st,
		     size_t row, bool header)
{
	size_t last = last_shown(t, st);
	bool first = true;
	char buf[CELL_SIZE];

	for (size_t c = 0; c < t->nr_cols; c++) {
		if (!st->width[c])
			continue;
		if (!first)
			fputs(SEP, out);
		first = false;
		put_cell(out, t, st, c,
			 header ? t->cols[c].title : t->cell(t->ctx, row, c, buf, sizeof(buf)),
			 c == last);
	}
	putc_unlocked('\n', out);
}

static void text_begin(FILE *out, const struct osc_table *t, const struct osc_export_meta *m,
		       int width, unsigned flags, void **state)
{
	struct text_state *st = osc_xcalloc(1, sizeof(*st));
	size_t total, widest = 0;

	(void)flags; /* a text table is always safe for a terminal */
	*state = st;
	st->utf8 = osc_locale_is_utf8();
	st->width = osc_xcalloc(t->nr_cols ? t->nr_cols : 1, sizeof(*st->width));
	layout(t, st, width);
	for (size_t c = 0; c < t->nr_cols; c++)
		if (st->width[c] > widest)
			widest = st->width[c];
	/* Room for the widest column even if every character took 4 bytes. */
	st->fit_size = widest * 4 + 4;
	st->fit = osc_xmalloc(st->fit_size);
	for (size_t i = 0; m && i < m->nr; i++) {
		/* Meta values are shown whole, but unsafe characters become '?'. */
		size_t len = strlen(m->values[i]);
		char *v = osc_xmalloc(len * 3 + 4);

		osc_text_fit(m->values[i], len, (size_t)-1, st->utf8, v, len * 3 + 4);
		fprintf(out, "# %s: %s\n", m->keys[i], v);
		free(v);
	}
	put_line(out, t, st, 0, true);
	total = line_width(t, st->width, st->width[0]);
	for (size_t i = 0; i < total; i++)
		putc('-', out);
	putc('\n', out);
}

static void text_row(FILE *out, const struct osc_table *t, size_t row, void *state)
{
	put_line(out, t, state, row, false);
}

static void text_end(FILE *out, const struct osc_table *t, void *state)
{
	struct text_state *st = state;

	(void)out;
	(void)t;
	free(st->width);
	free(st->fit);
	free(st);
}

const struct osc_exporter osc_export_text_ops = {
	.name = "table",
	.begin = text_begin,
	.row = text_row,
	.end = text_end,
};
