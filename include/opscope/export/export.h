/*
 * export.h - writing tables as text, CSV, TSV, JSON or Markdown.
 *
 * An exporter is {begin, row, end} ops over a generic table (columns plus a
 * cell getter), so any view (aggregate today, tree and diff later) exports
 * through the same code. CSV follows RFC 4180 (fields with comma, quote, CR
 * or LF are quoted, quotes doubled, CRLF line ends are NOT used: LF). JSON is
 * {"meta": {...}, "columns": [...], "rows": [{title: value}...]} with numeric
 * columns as numbers. The text table fits a width, never wraps a row and never
 * breaks a numeric column: only the first (name) column is shortened, with an
 * ellipsis in the middle.
 *
 * Nothing a trace names reaches a terminal raw: the text table shows the
 * characters osc_text_unsafe (controls, bidi overrides...) as '?'; JSON
 * always escapes them (\uXXXX: the same string); CSV written to a terminal
 * shows them as '?' like the table, and is exact (RFC 4180) anywhere else.
 */
#ifndef OPSCOPE_EXPORT_H
#define OPSCOPE_EXPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "opscope/analysis/calltree.h"
#include "opscope/analysis/columns.h"
#include "opscope/base/status.h"

/* X-macro: output formats with their --format name. */
#define OSC_EXPORT_FORMAT_LIST(_) \
	_(TABLE, "table")         \
	_(CSV, "csv")             \
	_(TSV, "tsv")             \
	_(JSON, "json")           \
	_(MARKDOWN, "markdown")

enum osc_export_format {
#define OSC_EXPORT_FORMAT_ENUM(name, text) OSC_EXPORT_##name,
	OSC_EXPORT_FORMAT_LIST(OSC_EXPORT_FORMAT_ENUM)
#undef OSC_EXPORT_FORMAT_ENUM
	OSC_EXPORT_FORMAT_COUNT
};

/* Format by --format name; OSC_USAGE (subject "--format") if unknown. */
enum osc_status osc_export_format_parse(const char *name, enum osc_export_format *out,
					struct osc_error *err);
/*
 * The format a file name's extension names: .csv, .tsv, .json, .md or
 * .markdown, in any case; false (out unchanged) for any other name.
 */
bool osc_export_format_of_name(const char *path, enum osc_export_format *out);
/* --format name of a format ("csv"). */
const char *osc_export_format_name(enum osc_export_format f);
/*
 * Whether the format writes the meta (the text table's "# key: value" lines,
 * JSON's "meta"); CSV, TSV and Markdown hold the rows alone, so a command
 * says which runs it used on stderr instead.
 */
bool osc_export_has_meta(enum osc_export_format f);

/* A table to export: columns and a cell getter. */
struct osc_table {
	const struct osc_column *cols;
	size_t nr_cols;
	size_t nr_rows;
	/*
	 * Write cell text into buf (truncated to size) and return the text: buf,
	 * or a longer stable string (an interned name) that must be used instead
	 * so that exports never cut a name.
	 */
	const char *(*cell)(const void *ctx, size_t row, size_t col, char *buf, size_t size);
	const void *ctx;
};

/* Flags of osc_export_table. */
enum {
	/* CSV for spreadsheets: a cell a spreadsheet would take for a formula
	   (starting with = + - @ TAB or CR, other than a plain number) gets a
	   leading ' so that it stays text. */
	OSC_EXPORT_CSV_SAFE = 1 << 0,
	/* The output is a terminal: osc_export_table sets it itself when out is
	   a tty. CSV shows unsafe characters as '?'; JSON escapes every
	   non-ASCII character outside a UTF-8 locale. */
	OSC_EXPORT_TERMINAL = 1 << 1,
};

/*
 * Key/value lines describing what was exported (trace, format, level, runs,
 * filter). JSON writes them under "meta" after "schema": OSC_EXPORT_SCHEMA:
 * json[i] when given (a JSON value, e.g. {"shown": 2, "total": 6} for the
 * "2 of 6" the table shows), else values[i] as a number when the key ends in
 * a unit (_us, _ns, _ms, _pct) and the value is one, else as a string.
 */
struct osc_export_meta {
	const char *const *keys;
	const char *const *values;
	size_t nr;
	const char *const *json; /* NULL, or per key a JSON value or NULL */
};

/* The schema every JSON document names (see the man page's JSON SCHEMA). */
#define OSC_EXPORT_SCHEMA "opscope/1"

/* A format's writer; osc_export_table calls its ops with out locked (flockfile). */
struct osc_exporter {
	const char *name;
	void (*begin)(FILE *out, const struct osc_table *t, const struct osc_export_meta *m,
		      int width, unsigned flags, void **state);
	void (*row)(FILE *out, const struct osc_table *t, size_t row, void *state);
	void (*end)(FILE *out, const struct osc_table *t, void *state);
};

/* The exporter of a format. */
const struct osc_exporter *osc_exporter_get(enum osc_export_format f);

/* The exporters themselves (export_text.c, export_csv.c, ...). */
extern const struct osc_exporter osc_export_text_ops;
extern const struct osc_exporter osc_export_csv_ops;
extern const struct osc_exporter osc_export_tsv_ops;
extern const struct osc_exporter osc_export_json_ops;
extern const struct osc_exporter osc_export_markdown_ops;

/*
 * Write the whole table. width is the text table's width (ignored by CSV and
 * JSON; <= 0 means unlimited); flags are OSC_EXPORT_* (OSC_EXPORT_TERMINAL
 * is added when out is a terminal). The table format prints meta as
 * "# key: value" lines above the table; CSV, TSV and Markdown print no meta;
 * JSON puts it under "meta". Returns OSC_IO (subject "output") if writing failed.
 */
enum osc_status osc_export_table(FILE *out, enum osc_export_format f,
				 const struct osc_table *t,
				 const struct osc_export_meta *m, int width, unsigned flags,
				 struct osc_error *err);

/*
 * Write JSON text (a document made elsewhere, e.g. by json-c) with the
 * characters osc_text_unsafe that it leaves raw escaped as \uXXXX, as the
 * JSON exporter writes them (flags: OSC_EXPORT_TERMINAL as there).
 */
void osc_export_json_text(FILE *out, const char *json, unsigned flags);

/*
 * A table with one more column, last: title, the same value in every row
 * (e.g. the trace's path, to tell the files apart once they are joined).
 * osc_table_add_constant fills ctx and out from t (keep t and value alive);
 * osc_table_constant_release frees what it allocated.
 */
struct osc_table_constant {
	const struct osc_table *base;
	struct osc_column *cols;     /* base's columns and the new one */
	const char *value;
};
void osc_table_add_constant(struct osc_table_constant *ctx, const struct osc_table *t,
			    const char *title, const char *value, struct osc_table *out);
void osc_table_constant_release(struct osc_table_constant *ctx);

/* The aggregate a as a table (out->ctx is ctx: keep it, a and t alive). */
struct osc_agg_table_ctx {
	const struct osc_trace *trace;
	const struct osc_agg *agg;
	const struct osc_names *names; /* kernel names shown through it; NULL: as they are */
};
void osc_agg_table(const struct osc_agg_table_ctx *ctx, struct osc_table *out);

/* The merged call tree as a table of all its columns (keep ctx and what it points to alive). */
void osc_tree_table(const struct osc_tree_table_ctx *ctx, struct osc_table *out);

#endif
