/*
 * export_tsv.c - tab-separated values: a header row of column titles, then
 * one line per row, fields separated by one TAB, lines ending in LF, no meta
 * and no quoting. A field cannot hold a TAB or a line end, so those and the
 * backslash are escaped as \t, \n, \r and \\ (the text format of PostgreSQL's
 * COPY and of "linear TSV"; `cut -f`, awk -F'\t', sort -t and pandas'
 * read_csv(sep="\t") read every other field as it is). On a terminal the
 * fields are shown as the text table shows them (unsafe characters as '?').
 */
#include "export/delimited.h"

static void put_field(FILE *out, const char *s, unsigned flags)
{
	(void)flags;
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

static const struct osc_delimited tsv = { '\t', put_field };

static void tsv_begin(FILE *out, const struct osc_table *t, const struct osc_export_meta *m,
		      int width, unsigned flags, void **state)
{
	(void)m;
	(void)width;
	osc_delimited_begin(&tsv, out, t, flags, state);
}

const struct osc_exporter osc_export_tsv_ops = {
	.name = "tsv",
	.begin = tsv_begin,
	.row = osc_delimited_row,
	.end = osc_delimited_end,
};
