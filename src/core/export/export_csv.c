/*
 * export_csv.c - RFC 4180 CSV: a header row of column titles, then one record
 * per row. A field holding a comma, quote, CR or LF is quoted with its quotes
 * doubled (kernel names hold all of them). Lines end in LF, not CRLF. No meta.
 * On a terminal the fields are shown as the text table shows them (unsafe
 * characters as '?'); with OSC_EXPORT_CSV_SAFE a field a spreadsheet would
 * evaluate as a formula gets a leading quote.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "opscope/base/alloc.h"
#include "opscope/export/export.h"

struct csv_state {
	unsigned flags;
	bool utf8;      /* the locale's, for fields shown on a terminal */
	char *shown;    /* a field as the terminal gets it */
	size_t shown_alloc;
};

/* A plain number ("-1.5", "+3e2"): a spreadsheet reads it as a number, not a formula. */
static bool is_number(const char *s)
{
	char *end;

	if (!*s)
		return false;
	strtod(s, &end);
	return !*end && !strpbrk(s, "xXnNiI"); /* not hex, nan or inf */
}

static void put_field(FILE *out, const char *s, struct csv_state *st)
{
	if (st->flags & OSC_EXPORT_TERMINAL) {
		size_t len = strlen(s), need = len * 3 + 4;

		OSC_GROW(st->shown, need, st->shown_alloc);
		osc_text_fit(s, len, (size_t)-1, st->utf8, st->shown, need);
		s = st->shown;
	}
	if ((st->flags & OSC_EXPORT_CSV_SAFE) && *s && strchr("=+-@\t\r", *s) && !is_number(s)) {
		/* Quoted, so that the quote mark is the cell's first character. */
		putc('"', out);
		putc('\'', out);
	} else if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, out);
		return;
	} else {
		putc('"', out);
	}
	for (; *s; s++) {
		if (*s == '"')
			putc('"', out);
		putc(*s, out);
	}
	putc('"', out);
}

static void csv_begin(FILE *out, const struct osc_table *t, const struct osc_export_meta *m,
		      int width, unsigned flags, void **state)
{
	struct csv_state *st = osc_xcalloc(1, sizeof(*st));

	(void)m;
	(void)width;
	st->flags = flags;
	st->utf8 = osc_locale_is_utf8();
	*state = st;
	for (size_t c = 0; c < t->nr_cols; c++) {
		if (c)
			putc(',', out);
		put_field(out, t->cols[c].title, st);
	}
	putc('\n', out);
}

static void csv_row(FILE *out, const struct osc_table *t, size_t row, void *state)
{
	char buf[128];

	for (size_t c = 0; c < t->nr_cols; c++) {
		if (c)
			putc(',', out);
		put_field(out, t->cell(t->ctx, row, c, buf, sizeof(buf)), state);
	}
	putc('\n', out);
}

static void csv_end(FILE *out, const struct osc_table *t, void *state)
{
	struct csv_state *st = state;

	(void)out;
	(void)t;
	free(st->shown);
	free(st);
}

const struct osc_exporter osc_export_csv_ops = {
	.name = "csv",
	.begin = csv_begin,
	.row = csv_row,
	.end = csv_end,
};
