/*
 * export_csv.c - RFC 4180 CSV: a header row of column titles, then one record
 * per row. A field holding a comma, quote, CR or LF is quoted with its quotes
 * doubled (kernel names hold all of them). Lines end in LF, not CRLF. No meta.
 */
#include <string.h>

#include "opscope/export/export.h"

static void put_field(FILE *out, const char *s)
{
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, out);
		return;
	}
	putc('"', out);
	for (; *s; s++) {
		if (*s == '"')
			putc('"', out);
		putc(*s, out);
	}
	putc('"', out);
}

static void csv_begin(FILE *out, const struct osc_table *t, const struct osc_export_meta *m,
		      int width, void **state)
{
	(void)m;
	(void)width;
	*state = NULL;
	for (size_t c = 0; c < t->nr_cols; c++) {
		if (c)
			putc(',', out);
		put_field(out, t->cols[c].title);
	}
	putc('\n', out);
}

static void csv_row(FILE *out, const struct osc_table *t, size_t row, void *state)
{
	char buf[128];

	(void)state;
	for (size_t c = 0; c < t->nr_cols; c++) {
		if (c)
			putc(',', out);
		put_field(out, t->cell(t->ctx, row, c, buf, sizeof(buf)));
	}
	putc('\n', out);
}

static void csv_end(FILE *out, const struct osc_table *t, void *state)
{
	(void)out;
	(void)t;
	(void)state;
}

const struct osc_exporter osc_export_csv_ops = {
	.name = "csv",
	.begin = csv_begin,
	.row = csv_row,
	.end = csv_end,
};
