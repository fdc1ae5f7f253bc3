/*
 * export_csv.c - RFC 4180 CSV: a header row of column titles, then one record
 * per row. A field holding a comma, quote, CR or LF is quoted with its quotes
 * doubled (kernel names hold all of them). Lines end in LF, not CRLF. No meta.
 * On a terminal the fields are shown as the text table shows them (unsafe
 * characters as '?'); with OSC_EXPORT_CSV_SAFE a field a spreadsheet would
 * evaluate as a formula gets a leading quote. The header and records are
 * delimited.c's, shared with TSV; the field writer is the summary files' too.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "export/delimited.h"

/* A plain number ("-1.5", "+3e2"): a spreadsheet reads it as a number, not a formula. */
static bool is_number(const char *s)
{
	char *end;

	if (!*s)
		return false;
	strtod(s, &end);
	return !*end && !strpbrk(s, "xXnNiI"); /* not hex, nan or inf */
}

void osc_csv_field(FILE *out, const char *s, unsigned flags)
{
	size_t plain = strcspn(s, ",\"\r\n");

	if ((flags & OSC_EXPORT_CSV_SAFE) && *s && strchr("=+-@\t\r", *s) && !is_number(s)) {
		/* Quoted, so that the quote mark is the cell's first character. */
		putc('"', out);
		putc('\'', out);
	} else if (!s[plain]) {
		fwrite(s, 1, plain, out);
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

static const struct osc_delimited csv = { ',', osc_csv_field };

static void csv_begin(FILE *out, const struct osc_table *t, const struct osc_export_meta *m,
		      int width, unsigned flags, void **state)
{
	(void)m;
	(void)width;
	osc_delimited_begin(&csv, out, t, flags, state);
}

const struct osc_exporter osc_export_csv_ops = {
	.name = "csv",
	.begin = csv_begin,
	.row = osc_delimited_row,
	.end = osc_delimited_end,
};
