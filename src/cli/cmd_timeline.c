/*
 * cmd_timeline.c - `opscope timeline`: the explorer's timeline (V) printed:
 * a window of the selected runs as lanes of text (timeline_draw.h), or with
 * --format the table of the lanes' events and busy time in the window.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opscope/analysis/columns.h"
#include "opscope/analysis/timeline.h"
#include "opscope/analysis/trace_cache.h"
#include "opscope/base/alloc.h"
#include "opscope/export/outfile.h"
#include "opscope/export/timeline_draw.h"
#include "cli.h"

enum {
	OPT_FROM = OSC_TOPT_END,
	OPT_TO,
	OPT_WIDTH,
	OPT_FORMAT,
};

#define TIMELINE 1u
#define LABEL_W 24      /* columns of the lane names in the drawing */
#define DEFAULT_CELLS 100

static const struct osc_cli_option timeline_options[] = {
	OSC_CLI_TRACE_RUN_OPTIONS(TIMELINE, "runs to draw (default: all but an ORT warm-up run 0)"),
	{ OPT_FROM, "from", 0, "US", "window start, µs from the trace's start (default: the runs')",
	  TIMELINE },
	{ OPT_TO, "to", 0, "US", "window end, µs from the trace's start (default: the runs')",
	  TIMELINE },
	{ OPT_WIDTH, "width", 0, "CELLS", "cells of time across (default: 100)", TIMELINE },
	{ OPT_FORMAT, "format", 'F', "FMT",
	  "table, csv, tsv, json or markdown: the lanes' events and busy time instead of the "
	  "drawing", TIMELINE },
	OSC_CLI_TRACE_OUTPUT_OPTIONS(TIMELINE, "write to FILE (atomically); with no --format, the "
					       "table when its extension is .csv .tsv .json or .md"),
	{ 0, NULL, 0, NULL, NULL, 0 },
};

struct timeline_args {
	struct osc_cli_trace_args a; /* the options every one-trace command has */
	double from_us, to_us;
	bool has_from, has_to;
	size_t width;
	bool table;            /* --format given: the lanes' table */
	enum osc_export_format format;
};

static void print_help(void)
{
	puts("usage: opscope timeline [OPTIONS] [TRACE]\n"
	     "\n"
	     "Draw the selected runs of TRACE as the explorer's timeline (V) does: a line per\n"
	     "lane (each nesting depth of each host thread, each device stream, under a line\n"
	     "per process or GPU with the union of its events), time across in cells of\n"
	     "equal length, each cell the share of its time the lane is busy (eighth blocks\n"
	     "in a UTF-8 locale, else - = #), names on the bars where they fit, the GPU's\n"
	     "idle cells as dots. The window is the runs' (to the end of the last event in\n"
	     "them), or --from/--to. With --format, the table of the lanes: the events\n"
	     "overlapping the window and the time the lane is busy in it (busy_pct_of_window:\n"
	     "of the window's length; a lane's events never overlap, a union lane is the\n"
	     "union of its process's events).\n"
	     "\n"
	     "options:");
	osc_cli_print_options(stdout, timeline_options, TIMELINE);
	puts("\n"
	     "Example: opscope timeline --runs 3 --width 160 trace.json.gz\n"
	     "Exit status: 0 on success, 2 on any error.");
}

static enum osc_status parse_us(const char *s, const char *subject, double *out,
				struct osc_error *err)
{
	char *end;

	*out = strtod(s, &end);
	if (end == s || *end || *out != *out)
		return osc_error_set(err, OSC_USAGE, subject, OSC_NO_OFFSET, NULL,
				     "'%s' is not a time in µs", s);
	return OSC_OK;
}

static enum osc_status parse(struct timeline_args *a, int argc, char **argv,
			     struct osc_error *err)
{
	struct osc_cli_parser p;
	enum osc_status st;
	char *end;
	int id;

	osc_cli_parser_init(&p, argc, argv);
	while ((id = osc_cli_next(&p, timeline_options, TIMELINE, err)) != OSC_CLI_DONE) {
		st = OSC_OK;
		if (id == OSC_CLI_ERROR)
			return err->code;
		if (osc_cli_trace_option(id, p.arg, &a->a, &st, err)) {
			if (st != OSC_OK || a->a.help)
				return st;
			continue;
		}
		switch (id) {
		case OPT_FROM:
			st = parse_us(p.arg, "--from", &a->from_us, err);
			a->has_from = true;
			break;
		case OPT_TO:
			st = parse_us(p.arg, "--to", &a->to_us, err);
			a->has_to = true;
			break;
		case OPT_WIDTH:
			a->width = (size_t)strtoul(p.arg, &end, 10);
			if (end == p.arg || *end || *p.arg == '-' || a->width < 1 || a->width > 100000)
				return osc_error_set(err, OSC_USAGE, "--width", OSC_NO_OFFSET, NULL,
						     "'%s' is not a number of cells from 1 to 100000",
						     p.arg);
			break;
		default: /* OPT_FORMAT */
			st = osc_export_format_parse(p.arg, &a->format, err);
			a->table = true;
			break;
		}
		if (st != OSC_OK)
			return st;
	}
	if (!a->table && a->a.output && osc_export_format_of_name(a->a.output, &a->format))
		a->table = true;
	if (a->table && a->width)
		return osc_error_set(err, OSC_USAGE, "--width", OSC_NO_OFFSET, NULL,
				     "the drawing's cells: not with a table (--format, -o "
				     "FILE.csv)");
	return OSC_OK;
}

/* What the drawing needs besides the trace. */
struct draw_arg {
	const struct osc_trace *t;
	const struct osc_timeline *tl;
	const struct osc_names *names;
	struct osc_tl_window w;
	const char *runs_text;
	bool utf8;
};

static void put_glyphs(FILE *out, const struct osc_tl_glyph *g, size_t n)
{
	size_t end = n;

	while (end && !strcmp(g[end - 1].glyph, " ")) /* no trailing spaces */
		end--;
	for (size_t i = 0; i < end; i++)
		fputs(g[i].glyph, out);
	fputc('\n', out);
}

static enum osc_status draw_fn(FILE *out, const void *arg, struct osc_error *err)
{
	const struct draw_arg *d = arg;
	size_t width = LABEL_W + d->w.width;
	struct osc_tl_glyph *line = osc_xcalloc(width, sizeof(*line));
	struct osc_tl_cell *cells = osc_xcalloc(d->w.width, sizeof(*cells));
	int64_t origin = osc_trace_origin(d->t);
	char from[48], span[48], cell[48], name[256];

	(void)err;
	osc_tl_short_time(d->w.t0 - origin, from, sizeof(from));
	osc_tl_short_time(d->w.cell * (int64_t)d->w.width, span, sizeof(span));
	osc_tl_short_time(d->w.cell, cell, sizeof(cell));
	fprintf(out, "timeline of %s: window %s + %s, a cell %s (times from the trace's start)\n",
		d->runs_text, from, span, cell);
	for (size_t x = 0; x < width; x++)
		strcpy(line[x].glyph, " ");
	osc_tl_draw_ruler(&d->w, origin, d->utf8, line + LABEL_W);
	put_glyphs(out, line, width);
	for (size_t l = 0; l < d->tl->nr_lanes; l++) {
		for (size_t x = 0; x < LABEL_W; x++)
			strcpy(line[x].glyph, " ");
		osc_tl_lane_name(d->tl, d->t, l, name, sizeof(name));
		osc_tl_put_text(line, LABEL_W - 1, name, OSC_TL_LOOK_EMPTY, d->utf8);
		osc_tl_draw_lane(d->t, d->names, d->tl, l, &d->w, NULL, 0, d->utf8, cells,
				 line + LABEL_W);
		put_glyphs(out, line, width);
	}
	if (d->tl->too_deep)
		fprintf(out, "(%llu events deeper than %d lanes not drawn)\n",
			(unsigned long long)d->tl->too_deep, OSC_TL_MAX_DEPTH);
	free(cells);
	free(line);
	return OSC_OK;
}

/* The window: --from/--to (µs from the trace's start) over the runs' own. */
static enum osc_status window(const struct timeline_args *a, const struct osc_trace *t,
			      const struct osc_timeline *tl, const struct osc_runs *r,
			      const struct osc_runsel *sel, int64_t *from, int64_t *to,
			      struct osc_error *err)
{
	int64_t origin = osc_trace_origin(t);

	osc_tl_runs_window(tl, r, sel, from, to);
	if (a->has_from)
		*from = origin + llround(a->from_us * 1e3); /* 1.234567 ms: 1234567 ns exactly */
	if (a->has_to)
		*to = origin + llround(a->to_us * 1e3);
	if (*to <= *from)
		return osc_error_set(err, OSC_USAGE, "--to", OSC_NO_OFFSET, NULL,
				     "the window ends before it starts");
	return OSC_OK;
}

static enum osc_status run(struct timeline_args *a, struct osc_error *err)
{
	struct osc_trace t;
	struct osc_runs r = { 0 };
	struct osc_runsel sel = { 0 };
	struct osc_names names;
	enum osc_status st;
	char *runs_text = NULL;
	size_t *lanes = NULL;

	osc_trace_init(&t);
	osc_names_init(&names);
	st = osc_cli_open(&a->a.v, a->a.v.path, a->a.runs, &t, &r, &sel, err);
	if (st == OSC_OK)
		st = osc_cli_names(&names, &t, OSC_NAMES_DEMANGLED, NULL, !a->table, err);
	if (st == OSC_OK) {
		const struct osc_timeline *tl = osc_trace_timeline(&t);
		int64_t from, to;

		runs_text = osc_runsel_describe(&sel, &r);
		st = window(a, &t, tl, &r, &sel, &from, &to, err);
		if (st == OSC_OK && a->table) {
			const char *keys[] = { "trace", "runs", "window_from_us", "window_to_us" };
			char from_text[64], to_text[64];
			const char *values[] = { osc_cli_input_name(a->a.v.path), runs_text, from_text,
						 to_text };
			struct osc_export_meta meta = { keys, values, 4, NULL };
			struct osc_tl_table tt;
			struct osc_table table;

			snprintf(from_text, sizeof(from_text), "%.3f",
				 (double)(from - osc_trace_origin(&t)) / 1e3);
			snprintf(to_text, sizeof(to_text), "%.3f",
				 (double)(to - osc_trace_origin(&t)) / 1e3);
			lanes = osc_xcalloc(tl->nr_lanes + 1, sizeof(*lanes));
			for (size_t i = 0; i < tl->nr_lanes; i++)
				lanes[i] = i;
			tt = (struct osc_tl_table){ &t, tl, lanes, tl->nr_lanes, from, to };
			osc_tl_table(&tt, &table);
			st = osc_cli_write_table(a->a.output, a->format, &table, &meta, a->a.flags, err);
		} else if (st == OSC_OK) {
			struct draw_arg d = {
				&t, tl, &names,
				osc_tl_window_fit(from, to, a->width ? a->width : DEFAULT_CELLS),
				runs_text, osc_locale_is_utf8() };

			st = osc_write_file(a->a.output, a->a.flags, draw_fn, &d, err);
		}
	}
	free(lanes);
	free(runs_text);
	osc_names_release(&names);
	osc_runsel_release(&sel);
	osc_runs_release(&r);
	osc_trace_release(&t);
	return st;
}

int osc_cmd_timeline(int argc, char **argv)
{
	struct timeline_args a;
	struct osc_error err;
	enum osc_status st;

	memset(&a, 0, sizeof(a));
	osc_error_clear(&err);
	st = parse(&a, argc, argv, &err);
	if (st == OSC_OK && a.a.help)
		print_help();
	else if (st == OSC_OK)
		st = run(&a, &err);
	return st == OSC_OK ? OSC_EXIT_OK : osc_cli_fail(&err);
}
