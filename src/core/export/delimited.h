/*
 * delimited.h - the writers of one record per line with a separator (CSV,
 * TSV; private to export/): a header of column titles, then one line per
 * row, each field as the dialect writes it. On a terminal
 * (OSC_EXPORT_TERMINAL) fields are first shown as the text table shows them
 * (unsafe characters as '?').
 */
#ifndef OPSCOPE_DELIMITED_H
#define OPSCOPE_DELIMITED_H

#include <stdio.h>

#include "opscope/export/export.h"

struct osc_delimited {
	char sep;
	/* Write field s with the flags of the export (quoting or escaping). */
	void (*put)(FILE *out, const char *s, unsigned flags);
};

/*
 * Write s as one CSV field (export_csv.c): quoted, its quotes doubled, when
 * it holds a comma, quote, CR or LF; flags as the export's
 * (OSC_EXPORT_CSV_SAFE: a formula a spreadsheet would run is defused).
 */
void osc_csv_field(FILE *out, const char *s, unsigned flags);

/* The exporter ops of a dialect: begin with the dialect, then row and end. */
void osc_delimited_begin(const struct osc_delimited *d, FILE *out, const struct osc_table *t,
			 unsigned flags, void **state);
void osc_delimited_row(FILE *out, const struct osc_table *t, size_t row, void *state);
void osc_delimited_end(FILE *out, const struct osc_table *t, void *state);

#endif
