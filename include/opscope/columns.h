/*
 * columns.h - column descriptions shared by every table output.
 *
 * A column is described once (id, title, width, alignment, getter). The CLI
 * table, CSV, JSON and the TUI all format cells through the same getters, so
 * an export of a view has exactly the values shown on screen.
 * Times are printed in µs with 3 decimals (exact for integer ns values),
 * percentages with 2 decimals.
 */
#ifndef OPSCOPE_COLUMNS_H
#define OPSCOPE_COLUMNS_H

#include <stdbool.h>
#include <stddef.h>

#include "opscope/aggregate.h"
#include "opscope/trace.h"

enum osc_align { OSC_ALIGN_LEFT, OSC_ALIGN_RIGHT };

struct osc_column {
	const char *title;    /* CSV/JSON header and table heading */
	int min_width;        /* narrowest useful width in a table */
	enum osc_align align;
	bool numeric;         /* JSON writes it as a number */
	enum osc_stat stat;   /* statistic it shows (sort key) */
};

/* The columns of an aggregate table, in order; *nr receives the count. */
const struct osc_column *osc_agg_columns(size_t *nr);

/*
 * Text of cell (row, col) of an aggregate into buf (NUL-terminated, truncated
 * to size). Returns buf.
 */
const char *osc_agg_cell(const struct osc_trace *t, const struct osc_agg *a,
			 size_t row, size_t col, char *buf, size_t size);

/* Format ns as µs with 3 decimals ("1234.567"); exact for integers. */
void osc_format_us(double ns, char *buf, size_t size);

#endif
