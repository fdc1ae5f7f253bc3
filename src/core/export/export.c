/*
 * export.c - format names, the exporter table and the export driver.
 *
 * The formats themselves live in export_text.c, export_csv.c, export_tsv.c,
 * export_json.c and export_markdown.c; this file only runs {begin, row...,
 * end} and turns a failed write into OSC_IO.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "opscope/base/alloc.h"
#include "opscope/export/export.h"

static const char *const format_names[] = {
#define OSC_EXPORT_FORMAT_TEXT(name, text) text,
	OSC_EXPORT_FORMAT_LIST(OSC_EXPORT_FORMAT_TEXT)
#undef OSC_EXPORT_FORMAT_TEXT
};

static const struct osc_exporter *const exporters[] = {
	[OSC_EXPORT_TABLE] = &osc_export_text_ops,
	[OSC_EXPORT_CSV] = &osc_export_csv_ops,
	[OSC_EXPORT_TSV] = &osc_export_tsv_ops,
	[OSC_EXPORT_JSON] = &osc_export_json_ops,
	[OSC_EXPORT_MARKDOWN] = &osc_export_markdown_ops,
};

const char *osc_export_format_name(enum osc_export_format f)
{
	return (unsigned)f < OSC_EXPORT_FORMAT_COUNT ? format_names[f] : "unknown";
}

bool osc_export_format_of_name(const char *path, enum osc_export_format *out)
{
	static const struct {
		const char *ext;
		enum osc_export_format f;
	} exts[] = {
		{ ".csv", OSC_EXPORT_CSV },     { ".tsv", OSC_EXPORT_TSV },
		{ ".json", OSC_EXPORT_JSON },   { ".md", OSC_EXPORT_MARKDOWN },
		{ ".markdown", OSC_EXPORT_MARKDOWN },
	};
	const char *dot = strrchr(path, '.');

	for (size_t i = 0; dot && i < sizeof(exts) / sizeof(exts[0]); i++) {
		if (!strcasecmp(dot, exts[i].ext)) {
			*out = exts[i].f;
			return true;
		}
	}
	return false;
}

bool osc_export_has_meta(enum osc_export_format f)
{
	return f == OSC_EXPORT_TABLE || f == OSC_EXPORT_JSON;
}

enum osc_status osc_export_format_parse(const char *name, enum osc_export_format *out,
					struct osc_error *err)
{
	char valid[128] = "";

	for (int f = 0; f < OSC_EXPORT_FORMAT_COUNT; f++) {
		if (!strcmp(name, format_names[f])) {
			*out = (enum osc_export_format)f;
			return OSC_OK;
		}
	}
	for (int f = 0; f < OSC_EXPORT_FORMAT_COUNT; f++)
		snprintf(valid + strlen(valid), sizeof(valid) - strlen(valid), "%s%s", f ? ", " : "",
			 format_names[f]);
	return osc_error_set(err, OSC_USAGE, "--format", OSC_NO_OFFSET, NULL,
			     "unknown format '%s' (valid: %s)", name, valid);
}

const struct osc_exporter *osc_exporter_get(enum osc_export_format f)
{
	return exporters[(unsigned)f < OSC_EXPORT_FORMAT_COUNT ? f : OSC_EXPORT_TABLE];
}

enum osc_status osc_export_table(FILE *out, enum osc_export_format f,
				 const struct osc_table *t,
				 const struct osc_export_meta *m, int width, unsigned flags,
				 struct osc_error *err)
{
	const struct osc_exporter *ex = osc_exporter_get(f);
	void *state = NULL;

	if (isatty(fileno(out)))
		flags |= OSC_EXPORT_TERMINAL;
	flockfile(out); /* once for the table, not per character: ops may write unlocked */
	ex->begin(out, t, m, width, flags, &state);
	for (size_t r = 0; r < t->nr_rows; r++)
		ex->row(out, t, r, state);
	ex->end(out, t, state);
	funlockfile(out);
	if (fflush(out) || ferror(out))
		return osc_error_set(err, OSC_IO, "output", OSC_NO_OFFSET, NULL,
				     "write failed: %s", strerror(errno ? errno : EIO));
	return OSC_OK;
}

static const char *constant_cell(const void *ctx, size_t row, size_t col, char *buf, size_t size)
{
	const struct osc_table_constant *c = ctx;

	if (col == c->base->nr_cols)
		return c->value;
	return c->base->cell(c->base->ctx, row, col, buf, size);
}

void osc_table_add_constant(struct osc_table_constant *ctx, const struct osc_table *t,
			    const char *title, const char *value, struct osc_table *out)
{
	ctx->base = t;
	ctx->value = value;
	ctx->cols = osc_xcalloc(t->nr_cols + 1, sizeof(*ctx->cols));
	memcpy(ctx->cols, t->cols, t->nr_cols * sizeof(*ctx->cols));
	ctx->cols[t->nr_cols] = (struct osc_column){ title, 16, OSC_ALIGN_LEFT, false,
						     OSC_STAT_NAME };
	*out = (struct osc_table){ ctx->cols, t->nr_cols + 1, t->nr_rows, constant_cell, ctx };
}

void osc_table_constant_release(struct osc_table_constant *ctx)
{
	free(ctx->cols);
	ctx->cols = NULL;
}

static const char *agg_cell(const void *ctx, size_t row, size_t col, char *buf, size_t size)
{
	const struct osc_agg_table_ctx *c = ctx;

	return osc_agg_cell_names(c->trace, c->agg, c->names, row, col, buf, size);
}

static const char *tree_cell(const void *ctx, size_t row, size_t col, char *buf, size_t size)
{
	return osc_tree_cell(ctx, row, (enum osc_tree_col)col, buf, size);
}

void osc_tree_table(const struct osc_tree_table_ctx *ctx, struct osc_table *out)
{
	*out = (struct osc_table){
		.nr_rows = ctx->nr_rows,
		.cell = tree_cell,
		.ctx = ctx,
	};
	out->cols = osc_tree_columns(!ctx->us, &out->nr_cols);
}

void osc_agg_table(const struct osc_agg_table_ctx *ctx, struct osc_table *out)
{
	out->cols = osc_agg_columns(ctx->agg, &out->nr_cols);
	out->nr_rows = ctx->agg->nr;
	out->cell = agg_cell;
	out->ctx = ctx;
}
