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

#include "opscope/analysis/aggregate.h"
#include "opscope/analysis/demangle.h"
#include "opscope/base/status.h"
#include "opscope/model/trace.h"

enum osc_align { OSC_ALIGN_LEFT, OSC_ALIGN_RIGHT };

struct osc_column {
	const char *title;    /* CSV/JSON header and table heading */
	int min_width;        /* narrowest useful width in a table */
	enum osc_align align;
	bool numeric;         /* JSON writes it as a number */
	enum osc_stat stat;   /* statistic it shows (sort key) */
};

/*
 * An entry of a column table from an X-macro row (id, title, width, align,
 * numeric, stat): the tables of ranks.h use it.
 */
#define OSC_COLUMN_DEF(id, title, width, align, numeric, stat) \
	{ title, width, align, numeric, OSC_STAT_##stat },

/*
 * The columns a level shows by default: the name (op, kernel, run or path),
 * the key columns of the level, then its measures and statistics (see
 * aggregate.h). device: the trace has device events, so the host levels
 * lead with device time and the run level shows device busy and idle time;
 * else they lead with self time. The mapping level starts with
 * profile_explorer's op_kernel_mapping columns (kernel_name first, so the
 * long name is the column that shrinks), then the statistics.
 */
const struct osc_column *osc_level_default_columns(enum osc_level l, bool device, size_t *nr);

/*
 * Every column level l can show (--columns, --sort): the default ones of a
 * trace with device events, then those of a CPU-only trace, then the
 * distributions of the other measures ("self_p90_us", "device_mean_us",
 * "device_total_max_us", ...) and the other per-run sums.
 */
const struct osc_column *osc_level_catalog(enum osc_level l, size_t *nr);

/* The columns a shows; *nr receives the count. */
const struct osc_column *osc_agg_columns(const struct osc_agg *a, size_t *nr);

/* Show a's level's default columns (osc_aggregate does it). */
void osc_agg_default_columns(struct osc_agg *a);

/*
 * Columns of level l by a comma-separated list of names (with or without
 * their unit) into *out (a new array, *nr of them). OSC_USAGE (subject
 * "--columns") for a name the level does not have.
 */
enum osc_status osc_columns_parse(enum osc_level l, const char *list, struct osc_column **out,
				  size_t *nr, struct osc_error *err);

/*
 * Show cols[0 .. nr) (from osc_columns_parse; a takes it over). Their
 * distributions of the SELF/DEVICE/DEVICE_TOTAL measures must have been asked
 * for in the query (osc_query.dists), else they read "nan".
 */
void osc_agg_set_columns(struct osc_agg *a, struct osc_column *cols, size_t nr);

/*
 * Text of cell (row, col) of an aggregate (its columns, osc_agg_columns) into buf
 * (NUL-terminated, truncated to size). Returns buf, or for names and shapes
 * the interned text itself (never cut).
 */
const char *osc_agg_cell(const struct osc_trace *t, const struct osc_agg *a,
			 size_t row, size_t col, char *buf, size_t size);

/* The same, with kernel names shown through names (NULL: as they are). */
const char *osc_agg_cell_names(const struct osc_trace *t, const struct osc_agg *a,
			       const struct osc_names *names, size_t row, size_t col, char *buf,
			       size_t size);

/* Length of a column title without its unit ("_us", " (us)", " (%)"). */
size_t osc_column_stem(const char *title);

/*
 * Index of the column that s names in cols[0..nr): its title, or its title
 * without its unit ("total" for "total_us"). Returns nr when none does.
 */
size_t osc_columns_find(const struct osc_column *cols, size_t nr, const char *s);

/*
 * The title of the column of cols[0..nr) that the unknown name s was likely
 * meant for (a typo of a title or of its stem, or a stem typed short), or
 * NULL: for "did you mean" in errors.
 */
const char *osc_columns_suggest(const struct osc_column *cols, size_t nr, const char *s);

/*
 * ", did you mean 'TITLE'?" for the unknown column name s, or "" when none
 * is close, into buf; returns buf.
 */
const char *osc_columns_did_you_mean(const struct osc_column *cols, size_t nr, const char *s,
				     char *buf, size_t size);

/* Launch dimensions as profile_explorer writes them: "b128x1x1,g196x1x1". */
void osc_format_dims(const int32_t dims[6], char *buf, size_t size);

/*
 * Format ns as µs with 3 decimals ("1234.567", "-0.400"): the value is rounded
 * half away from zero to whole ns first, so integers are exact and 1234.5 ns
 * is "1.235". Non-finite values give "nan", "inf" or "-inf".
 */
void osc_format_us(double ns, char *buf, size_t size);

/* The same for integer ns, exact over the whole int64 range (epoch timestamps). */
void osc_format_us_int(int64_t ns, char *buf, size_t size);

/* Format a percentage with 2 decimals, rounded half away from zero ("12.35"). */
void osc_format_pct(double pct, char *buf, size_t size);

/* Format a ratio with 3 decimals ("1.234"); "" when it is NaN (unknown). */
void osc_format_ratio(double x, char *buf, size_t size);

/*
 * Text into buf, cut to size - 1 bytes, as snprintf's "%s" does, for a
 * tenth of its cost (a find reads a million names); returns text.
 */
const char *osc_format_text(const char *text, char *buf, size_t size);

/* ---- display width of UTF-8 text (used by the text table and the TUI) ---- */

/*
 * True when the current LC_CTYPE codeset is UTF-8 (nl_langinfo(CODESET)).
 * Query it once per table, after the program called setlocale().
 */
bool osc_locale_is_utf8(void);

/*
 * Terminal columns taken by UTF-8 text s[0..len) (wcwidth per character).
 * A character osc_text_unsafe or unprintable, or an invalid byte, counts 1
 * (it is shown as '?'). Outside a UTF-8 locale every character counts 1.
 */
size_t osc_text_width(const char *s, size_t len, bool utf8);

/*
 * Copy s[0..len) into buf (size bytes, NUL-terminated) so that it takes at
 * most `width` columns: text that is too wide loses its middle, replaced by
 * an ellipsis ("…" when utf8, "~" otherwise). Characters osc_text_unsafe
 * become '?', and so does any non-ASCII one when not utf8.
 * No padding is added. Returns the columns the result takes.
 */
size_t osc_text_fit(const char *s, size_t len, size_t width, bool utf8, char *buf,
		    size_t size);

#endif
