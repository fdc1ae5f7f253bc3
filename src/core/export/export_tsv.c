/*
 * export_tsv.c - tab-separated values: a header row of column titles, then
 * one line per row, fields separated by one TAB, lines ending in LF, no meta
 * and no quoting. A field cannot hold a TAB or a line end, so those and the
 * backslash are escaped as \t, \n, \r and \\ (the text format of PostgreSQL's
 * COPY and of "linear TSV"; `cut -f`, awk -F'\t', sort -t and pandas'
 * read_csv(sep="\t") read every other field as it is). On a terminal the
 * fields are shown as the text table shows them (unsafe characters as '?').
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "opscope/base/alloc.h"
#include "opscope/export/export.h"

struct tsv_state {
	unsigned flags;
	bool utf8;   /* the locale's, for fields shown on a terminal */
	char *shown; /* a field as the terminal gets it */
	size_t shown_alloc;
};

static void put_field(FILE *out, const char *s, struct tsv_state *st)
{
	if (st->flags & OSC_EXPORT_TERMINAL) {
		size_t len = strlen(s), need = len * 3 + 4;

		OSC_GROW(st->shown, need, st->shown_alloc);
		osc_text_fit(s, len, (size_t)-1, st->utf8, st->shown, need);
		s = st->shown;
	}
	for (; *s; s++) {
		switch (*s) {
		case '\t':
			fputs("\\t", out);
			break;
		case '\n':
			fputs("\\n", out);
			break;
		case '\r':
			fputs("\\r", out);
			break;
		case '\\':
			fputs("\\\\", out);
			break;
		default:
			putc(*s, out);
		}
	}
}

static void tsv_begin(FILE *out, const struct osc_table *t, const struct osc_export_meta *m,
		      int width, unsigned flags, void **state)
{
	struct tsv_state *st = osc_xcalloc(1, sizeof(*st));

	(void)m;
	(void)width;
	st->flags = flags;
	st->utf8 = osc_locale_is_utf8();
	*state = st;
	for (size_t c = 0; c < t->nr_cols; c++) {
		if (c)
			putc('\t', out);
		put_field(out, t->cols[c].title, st);
	}
	putc('\n', out);
}

static void tsv_row(FILE *out, const struct osc_table *t, size_t row, void *state)
{
	char buf[128];

	for (size_t c = 0; c < t->nr_cols; c++) {
		if (c)
			putc('\t', out);
		put_field(out, t->cell(t->ctx, row, c, buf, sizeof(buf)), state);
	}
	putc('\n', out);
}

static void tsv_end(FILE *out, const struct osc_table *t, void *state)
{
	struct tsv_state *st = state;

	(void)out;
	(void)t;
	free(st->shown);
	free(st);
}

const struct osc_exporter osc_export_tsv_ops = {
	.name = "tsv",
	.begin = tsv_begin,
	.row = tsv_row,
	.end = tsv_end,
};
