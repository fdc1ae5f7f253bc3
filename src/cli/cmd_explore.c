/*
 * cmd_explore.c - `opscope explore`: ORT's profile_explorer command line.
 *
 * Prints "Top CPU Kernel Times" and "Top GPU Kernel Times" (name, optional
 * dimensions and input_type_shape, duration, pct, count, cumulative_pct,
 * cumulative_dur in µs) and, with -m, the op -> kernel mapping; --csv PREFIX
 * writes PREFIX_cpu_kernel_times.csv, PREFIX_gpu_kernel_times.csv and
 * PREFIX_op_kernel_mapping.csv with profile_explorer's columns.
 *
 * The numbers come from the same aggregation as `report` (levels op/shape for
 * CPU, kernel/dims for GPU, mapping for -m). Where profile_explorer differs
 * by design (it splits runs by file position; see the man page) opscope uses
 * its time-window runs. --gather takes a run list in the --runs grammar and
 * is never evaluated as Python.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "opscope/base/alloc.h"
#include "opscope/base/sat.h"
#include "opscope/analysis/columns.h"
#include "opscope/analysis/demangle.h"
#include "opscope/export/outfile.h"
#include "opscope/model/runs.h"
#include "cli.h"
#include "config.h"

enum {
	OPT_DEMANGLER = 1,
	OPT_SHAPE,
	OPT_DIMENSION,
	OPT_FILTER,
	OPT_CSV,
	OPT_COUNT,
	OPT_START,
	OPT_END,
	OPT_MAPPING,
	OPT_GATHER,
	OPT_NO_DEMANGLE,
	OPT_SHORT,
	OPT_VERBOSE,
	OPT_HELP,
	OPT_RUN_RANGE,
	OPT_WHOLE_TRACE,
	OPT_FORCE,
	OPT_MAX_INPUT,
	OPT_THREADS,
	OPT_NO_CONFIG,
};

#define MODE 1u

static const struct osc_cli_option options[] = {
	{ OPT_DEMANGLER, "demangler", 0, "CMD", "demangle kernel names with CMD (default: libiberty)",
	  MODE },
	{ OPT_SHAPE, "shape-sensitive", 0, NULL, "one row per input shapes too", MODE },
	{ OPT_DIMENSION, "dimension-sensitive", 0, NULL, "GPU: one row per block and grid too",
	  MODE },
	{ OPT_FILTER, "filter", 0, "PAT...", "keep names or op names matching a PAT (wildcards)",
	  MODE },
	{ OPT_CSV, "csv", 0, "PREFIX", "also write PREFIX_{cpu,gpu}_kernel_times.csv", MODE },
	{ OPT_FORCE, "force", 0, NULL, "replace existing CSV files (their mode kept)", MODE },
	{ OPT_MAX_INPUT, "max-input", 0, "SIZE",
	  "gz, zst or stdin may expand to SIZE at most, e.g. 64G (0: no limit; default 4x RAM)",
	  MODE },
	{ OPT_THREADS, "threads", 0, "N",
	  "use at most N threads (0, the default: every CPU this process may use)", MODE },
	{ OPT_COUNT, "count", 'c', "N", "list the top N rows (default 40)", MODE },
	{ OPT_START, "start", 's', "N",
	  "first run (default 1: skip the warm-up run 0; 0 when there is one run)", MODE },
	{ OPT_END, "end", 'e', "N", "end run, exclusive (default: the last run + 1)", MODE },
	{ OPT_MAPPING, "mapping", 'm', NULL, "op -> kernel mapping (PREFIX_op_kernel_mapping.csv)",
	  MODE },
	{ OPT_GATHER, "gather", 'g', "LIST", "runs to use, as --runs: [1, 3, 5] or range(10)",
	  MODE },
	{ OPT_NO_DEMANGLE, "no-demangle", 0, NULL, "show kernel names as in the trace", MODE },
	{ OPT_SHORT, "short-names", 0, NULL,
	  "kernel names without templates and parameters, a row per short name", MODE },
	{ OPT_RUN_RANGE, "run-range", 0, "RE[/N]",
	  "runs are the NVTX ranges named by RE (the Nth only with /N)", MODE },
	{ OPT_WHOLE_TRACE, "whole-trace", 'W', NULL,
	  "one run spanning the whole trace (run markers ignored)", MODE },
	{ OPT_VERBOSE, "verbose", 'v', NULL, "accepted for compatibility; no effect", MODE },
	{ OPT_NO_CONFIG, "no-config", 0, NULL,
	  "ignore the configuration file (~/.config/opscope/config)", MODE },
	{ OPT_HELP, "help", 'h', NULL, "show this help and exit", MODE },
	{ 0, NULL, 0, NULL, NULL, 0 },
};

struct explore_args {
	const char *path, *demangler, *csv, *gather, *run_range;
	bool shape, dims, mapping, help, whole, force;
	uint64_t max_input;
	long count, start, end;
	bool start_set, end_set;
	struct osc_filter filter;
	enum osc_name_style style;
};

static void print_help(void)
{
	puts("usage: opscope explore [OPTIONS] TRACE\n"
	     "\n"
	     "ORT profile_explorer's report: the top CPU kernels (host ops, by self time:\n"
	     "nested ops count once) and GPU kernels (by total time) over the selected runs,\n"
	     "with percentage, count and cumulative percentage and duration (µs). Accepts\n"
	     "profile_explorer's command line.\n"
	     "\n"
	     "options:");
	osc_cli_print_options(stdout, options, MODE);
	puts("\n"
	     "Runs: --start/--end select runs [start, end) (negative counts from the end);\n"
	     "--gather replaces them with a list in the --runs grammar (never evaluated).\n"
	     "Traces without run markers use every event. See 'man opscope' for where the\n"
	     "numbers differ from profile_explorer's and why.\n"
	     "Exit status: 0 on success, 2 on any error.");
}

static enum osc_status parse_long(const char *opt, const char *s, long *out,
				  struct osc_error *err)
{
	char *end;

	errno = 0;
	*out = strtol(s, &end, 10);
	if (!*s || *end || errno)
		return osc_error_set(err, OSC_USAGE, opt, OSC_NO_OFFSET, NULL,
				     "not an integer: '%s'", s);
	return OSC_OK;
}

static enum osc_status parse_args(struct explore_args *a, int argc, char **argv,
				  struct osc_error *err)
{
	struct osc_cli_parser p;
	bool in_filter = false;
	int id;

	osc_cli_parser_init(&p, argc, argv);
	while ((id = osc_cli_next(&p, options, MODE, err)) != OSC_CLI_DONE) {
		enum osc_status st = OSC_OK;

		if (id == OSC_CLI_ERROR)
			return err->code;
		if (id == OSC_CLI_OPERAND) {
			/* --filter takes every word up to the next option, as argparse's nargs="+". */
			if (in_filter && !a->path && strchr(p.arg, '.') && !strchr(p.arg, '*') &&
			    !access(p.arg, F_OK))
				a->path = p.arg; /* a trace file right after the patterns */
			else if (in_filter)
				osc_filter_add_pattern(&a->filter, p.arg);
			else if (a->path)
				return osc_error_set(err, OSC_USAGE, p.arg, OSC_NO_OFFSET, NULL,
						     "unexpected argument: one trace at a time");
			else
				a->path = p.arg;
			continue;
		}
		in_filter = false;
		switch (id) {
		case OPT_DEMANGLER:
			a->demangler = p.arg;
			break;
		case OPT_SHAPE:
			a->shape = true;
			break;
		case OPT_DIMENSION:
			a->dims = true;
			break;
		case OPT_FILTER:
			osc_filter_add_pattern(&a->filter, p.arg);
			in_filter = true;
			break;
		case OPT_CSV:
			a->csv = p.arg;
			break;
		case OPT_FORCE:
			a->force = true;
			break;
		case OPT_MAX_INPUT:
			st = osc_cli_parse_size(p.arg, &a->max_input, err);
			break;
		case OPT_THREADS:
			st = osc_cli_parse_threads(p.arg, "--threads", err);
			break;
		case OPT_COUNT:
			st = parse_long("--count", p.arg, &a->count, err);
			if (st == OSC_OK && a->count < 0)
				st = osc_error_set(err, OSC_USAGE, "--count", OSC_NO_OFFSET, NULL,
						   "not a row count: '%s'", p.arg);
			break;
		case OPT_START:
			a->start_set = true;
			st = parse_long("--start", p.arg, &a->start, err);
			break;
		case OPT_END:
			a->end_set = true;
			st = parse_long("--end", p.arg, &a->end, err);
			break;
		case OPT_MAPPING:
			a->mapping = true;
			break;
		case OPT_GATHER:
			a->gather = p.arg;
			break;
		case OPT_NO_DEMANGLE:
			a->style = OSC_NAMES_MANGLED;
			break;
		case OPT_SHORT:
			a->style = OSC_NAMES_SHORT;
			break;
		case OPT_RUN_RANGE:
			a->run_range = p.arg;
			break;
		case OPT_WHOLE_TRACE:
			a->whole = true;
			break;
		case OPT_NO_CONFIG: /* main.c read no configuration */
			break;
		case OPT_HELP:
			a->help = true;
			return OSC_OK;
		default:
			break;
		}
		if (st != OSC_OK)
			return st;
	}
	if (!a->path)
		return osc_error_set(err, OSC_USAGE, "explore", OSC_NO_OFFSET, NULL,
				     "no trace given (see --help)");
	return OSC_OK;
}

/* ---- run selection ---- */

/*
 * The first run when --start is not given: 1, skipping the warm-up run 0 as
 * profile_explorer does, unless run 0 is the only one (profile_explorer then
 * fails with "Invalid start index 1"): it is used, with a note on stderr.
 */
static long default_start(const struct explore_args *a, const struct osc_runs *runs)
{
	if (a->start_set || runs->nr != 1)
		return a->start;
	fprintf(stderr,
		"opscope: note: one run only (%s): analyzing it, not skipping it as warm-up\n",
		osc_run_source_name(runs->source));
	return 0;
}

/*
 * The --runs spec of start (--start or its default) and --end, checked as
 * profile_explorer checks them: start in [-n, n), end in [-n, n) when given,
 * at least one run.
 */
static enum osc_status runs_spec(const struct explore_args *a, long start, size_t n, char *buf,
				 size_t size, long *first, long *last, struct osc_error *err)
{
	long nr = (long)n, end = a->end_set ? a->end : nr;

	if (start < -nr || start >= nr)
		return osc_error_set(err, OSC_RANGE, "--start", OSC_NO_OFFSET, NULL,
				     "invalid start index %ld (%zu runs)", start, n);
	if (a->end_set && (end < -nr || end >= nr))
		return osc_error_set(err, OSC_RANGE, "--end", OSC_NO_OFFSET, NULL,
				     "invalid end index %ld (%zu runs)", a->end, n);
	if (start < 0)
		start += nr;
	if (end < 0)
		end += nr;
	if (end - start <= 0)
		return osc_error_set(err, OSC_RANGE, "--end", OSC_NO_OFFSET, NULL,
				     "no runs in [%ld, %ld)", start, end);
	snprintf(buf, size, "%ld:%ld", start, end);
	*first = start;
	*last = end - 1;
	return OSC_OK;
}

/* ---- the tables ---- */

enum xcol { X_NAME, X_DIMS, X_SHAPE, X_DUR, X_PCT, X_COUNT, X_CUM_PCT, X_CUM_DUR };

struct xtable {
	const struct osc_trace *trace;
	const struct osc_agg *agg;
	const struct osc_names *names; /* GPU: kernel names; CPU: NULL */
	enum xcol kind[8];
	struct osc_column cols[8];
	size_t nr_cols;
	bool self;        /* duration is the rows' self time (CPU), else their total (GPU) */
	int64_t base;     /* what pct divides: the durations of every row, ns */
	int64_t *cum;     /* cumulative duration per row, ns */
	bool csv;         /* CSV: percentages with full precision */
};

static void add_col(struct xtable *x, enum xcol k, const char *title, bool numeric)
{
	x->kind[x->nr_cols] = k;
	x->cols[x->nr_cols] = (struct osc_column){ title, numeric ? 8 : 16,
						   numeric ? OSC_ALIGN_RIGHT : OSC_ALIGN_LEFT,
						   numeric, OSC_STAT_NAME };
	x->nr_cols++;
}

static void format_pct(const struct xtable *x, double v, char *buf, size_t size)
{
	if (x->csv)
		snprintf(buf, size, "%.10g", v);
	else
		osc_format_pct(v, buf, size);
}

/* ns as a percentage of the sum of the rows' durations. */
static double share(const struct xtable *x, int64_t ns)
{
	return x->base > 0 ? 100.0 * (double)ns / (double)x->base : 0;
}

/* A row's duration: its self time (CPU: self) or its total (GPU). */
static int64_t duration(bool self, const struct osc_agg_row *r)
{
	return self ? r->self : r->total;
}

static const char *xcell(const void *ctx, size_t row, size_t col, char *buf, size_t size)
{
	const struct xtable *x = ctx;
	const struct osc_agg_row *r = &x->agg->rows[row];
	const char *s;

	switch (x->kind[col]) {
	case X_NAME:
		s = x->names ? osc_names_get(x->names, x->trace, r->key)
			     : osc_trace_str(x->trace, r->key);
		snprintf(buf, size, "%s", s);
		return s;
	case X_DIMS:
		osc_format_dims(r->dims, buf, size);
		break;
	case X_SHAPE:
		s = r->shape == OSC_AGG_UNKNOWN ? "unknown" : osc_trace_str(x->trace, r->shape);
		snprintf(buf, size, "%s", s);
		return s;
	case X_DUR:
		osc_format_us_int(duration(x->self, r), buf, size);
		break;
	case X_PCT: /* profile_explorer's: of the sum of the rows' durations */
		format_pct(x, share(x, duration(x->self, r)), buf, size);
		break;
	case X_COUNT:
		snprintf(buf, size, "%llu", (unsigned long long)r->count);
		break;
	case X_CUM_PCT:
		format_pct(x, share(x, x->cum[row]), buf, size);
		break;
	case X_CUM_DUR:
		osc_format_us_int(x->cum[row], buf, size);
		break;
	}
	return buf;
}

/* base: the durations of every row, also those past the rows agg keeps. */
static void xtable_init(struct xtable *x, const struct osc_trace *t, const struct osc_agg *agg,
			const struct osc_names *names, bool dims, bool shape, bool self,
			int64_t base)
{
	int64_t sum = 0;

	memset(x, 0, sizeof(*x));
	x->trace = t;
	x->agg = agg;
	x->names = names;
	x->self = self;
	x->base = base;
	add_col(x, X_NAME, "name", false);
	if (dims)
		add_col(x, X_DIMS, "dimensions", false);
	if (shape)
		add_col(x, X_SHAPE, "input_type_shape", false);
	add_col(x, X_DUR, "duration", true);
	add_col(x, X_PCT, "pct", true);
	add_col(x, X_COUNT, "count", true);
	add_col(x, X_CUM_PCT, "cumulative_pct", true);
	add_col(x, X_CUM_DUR, "cumulative_dur", true);
	x->cum = osc_xmalloc((agg->nr ? agg->nr : 1) * sizeof(*x->cum));
	for (size_t r = 0; r < agg->nr; r++)
		x->cum[r] = sum += duration(x->self, &agg->rows[r]);
}

static void xtable_as_table(const struct xtable *x, struct osc_table *out)
{
	out->cols = x->cols;
	out->nr_cols = x->nr_cols;
	out->nr_rows = x->agg->nr;
	out->cell = xcell;
	out->ctx = x;
}

/* Everything one explore run holds, released in one place. */
struct explore {
	struct explore_args a;
	struct osc_trace trace;
	struct osc_runs runs;
	struct osc_runsel sel;
	struct osc_names names;
	struct osc_agg cpu, gpu, map;
};

/* unordered: the caller sorts the rows itself (top_hitters). */
static void aggregate(struct explore *x, struct osc_agg *out, enum osc_level level,
		      unsigned keys, bool unordered)
{
	struct osc_query q = {
		.level = level,
		.runs = &x->sel,
		.filter = &x->a.filter,
		.keys = keys,
		.unordered = unordered,
		.names = &x->names, /* the GPU table's kernels, as it shows them */
	};

	osc_aggregate(&x->trace, &x->runs, &q, out);
}

static enum osc_status top_hitters(struct explore *x, struct osc_agg *agg, const char *target,
				   bool gpu, struct osc_error *err)
{
	struct xtable xt;
	struct osc_table table;
	enum osc_status st = OSC_OK;
	int64_t base = 0;
	char *path;

	if (!agg->nr) {
		printf("No %s entries found!\n", target);
		return OSC_OK;
	}
	/*
	 * A CPU row's duration is its self time: ops nest (aten::conv2d holds
	 * aten::convolution ...), so summed or accumulated inclusive times
	 * would count nested time again; an ONNX Runtime node holds no other,
	 * so there it is profile_explorer's duration. A GPU row's is its total.
	 */
	for (size_t r = 0; r < agg->nr; r++)
		base = osc_sat_add(base, duration(!gpu, &agg->rows[r]));
	/* Rows by duration, descending; -c 0 lists none, as a [:0] slice. */
	osc_agg_sort(agg, &x->trace, gpu ? OSC_STAT_TOTAL : OSC_STAT_SELF, true);
	if (x->a.count == 0)
		agg->nr = 0;
	osc_agg_truncate(agg, (size_t)x->a.count);
	xtable_init(&xt, &x->trace, agg, gpu ? &x->names : NULL, gpu && x->a.dims, x->a.shape,
		    !gpu, base);
	xtable_as_table(&xt, &table);
	printf("\n------ Top %s Kernel Times ------\n", target);
	fflush(stdout);
	st = osc_export_table(stdout, OSC_EXPORT_TABLE, &table, NULL, 0, 0, err);
	if (st == OSC_OK && x->a.csv) {
		xt.csv = true;
		path = osc_xasprintf("%s_%s_kernel_times.csv", x->a.csv, gpu ? "gpu" : "cpu");
		st = osc_cli_write_table(path, OSC_EXPORT_CSV, &table, NULL,
					 x->a.force ? OSC_WRITE_REPLACE : 0, err);
		free(path);
	}
	free(xt.cum);
	return st;
}

/* ---- the op -> kernel mapping ---- */

struct map_ctx {
	const struct osc_trace *t;
	const struct osc_agg *a;
	const struct osc_names *names;
	uint32_t *order;
};

static int cmp_text(const struct osc_trace *t, osc_str x, osc_str y)
{
	const char *a = x == OSC_AGG_UNKNOWN ? "unknown" : osc_trace_str(t, x);
	const char *b = y == OSC_AGG_UNKNOWN ? "unknown" : osc_trace_str(t, y);

	return strcmp(a, b);
}

static const struct map_ctx *sort_ctx;

/* profile_explorer's order: op_dur, op_name, input_type_shape, kernel_total_dur, all descending. */
static int cmp_mapping(const void *pa, const void *pb)
{
	const struct map_ctx *c = sort_ctx;
	uint32_t ia = *(const uint32_t *)pa, ib = *(const uint32_t *)pb;
	const struct osc_agg_row *x = &c->a->rows[ia], *y = &c->a->rows[ib];
	int r;

	if (x->op_total != y->op_total)
		return x->op_total < y->op_total ? 1 : -1;
	if ((r = cmp_text(c->t, y->op, x->op)) || (r = cmp_text(c->t, y->shape, x->shape)))
		return r;
	if (x->total != y->total)
		return x->total < y->total ? 1 : -1;
	return (ia > ib) - (ia < ib);
}

/* profile_explorer's CSV column order, as indices into the mapping level's columns. */
static const size_t map_from[] = { 1, 2, 4, 3, 5, 6, 7, 8, 9, 10, 11, 0 };
#define MAP_COLS (sizeof(map_from) / sizeof(map_from[0]))

static const char *map_cell(const void *ctx, size_t row, size_t col, char *buf, size_t size)
{
	const struct map_ctx *c = ctx;

	return osc_agg_cell_names(c->t, c->a, c->names, c->order[row], map_from[col], buf, size);
}

static enum osc_status mapping(struct explore *x, struct osc_error *err)
{
	struct osc_column cols[MAP_COLS];
	struct map_ctx c = { &x->trace, &x->map, &x->names, NULL };
	struct osc_table table = { cols, MAP_COLS, 0, map_cell, &c };
	size_t nr;
	const struct osc_column *lc = osc_level_default_columns(OSC_LEVEL_MAPPING, true, &nr);
	enum osc_status st = OSC_OK;
	char *path;

	aggregate(x, &x->map, OSC_LEVEL_MAPPING, 0, false);
	c.order = osc_xmalloc((x->map.nr ? x->map.nr : 1) * sizeof(*c.order));
	for (size_t r = 0; r < x->map.nr; r++)
		c.order[r] = (uint32_t)r;
	sort_ctx = &c;
	qsort(c.order, x->map.nr, sizeof(*c.order), cmp_mapping);
	for (size_t i = 0; i < MAP_COLS && map_from[i] < nr; i++)
		cols[i] = lc[map_from[i]];
	table.nr_rows = x->map.nr;
	printf("\n------ Op Kernel Mapping ------\n");
	if (!x->map.nr)
		printf("No op-kernel mapping found!\n");
	else
		st = osc_export_table(stdout, OSC_EXPORT_TABLE, &table, NULL, 0, 0, err);
	if (st == OSC_OK && x->a.csv) {
		path = osc_xasprintf("%s_op_kernel_mapping.csv", x->a.csv);
		st = osc_cli_write_table(path, OSC_EXPORT_CSV, &table, NULL,
					 x->a.force ? OSC_WRITE_REPLACE : 0, err);
		free(path);
	}
	free(c.order);
	return st;
}

static enum osc_status select_runs(struct explore *x, struct osc_error *err)
{
	char spec[64], *desc;
	long first = 0, last = 0;
	enum osc_status st;

	if (x->runs.source == OSC_RUNS_WHOLE) {
		if (x->a.whole) /* asked for: no warning */
			puts("Using entire traces (--whole-trace).");
		else
			puts("WARNING: Could not find \"model_run\" event in trace. Using entire "
			     "traces.");
		return osc_runsel_parse("all", x->runs.nr, false, &x->sel, err);
	}
	printf("Found %zu %s events in trace.\n", x->runs.nr,
	       osc_run_source_name(x->runs.source));
	if (x->a.gather) {
		st = osc_runsel_parse(x->a.gather, x->runs.nr, x->runs.warmup, &x->sel, err);
		if (st != OSC_OK) {
			snprintf(err->subject, sizeof(err->subject), "--gather");
			return st;
		}
		desc = osc_runsel_describe(&x->sel, &x->runs);
		printf("Analyzing %zu model run(s): %s.\n", x->sel.nr_on, desc);
		free(desc);
		return OSC_OK;
	}
	st = runs_spec(&x->a, default_start(&x->a, &x->runs), x->runs.nr, spec, sizeof(spec),
		       &first, &last, err);
	if (st != OSC_OK)
		return st;
	printf("Analyzing %ld model run(s): %ld-%ld.\n", last - first + 1, first, last);
	return osc_runsel_parse(spec, x->runs.nr, x->runs.warmup, &x->sel, err);
}

static enum osc_status explore_run(struct explore *x, struct osc_error *err)
{
	struct osc_runs_opts ro = { .range = x->a.run_range, .whole = x->a.whole };
	enum osc_status st;

	st = osc_cli_load(x->a.path, x->a.max_input, &x->trace, err);
	if (st != OSC_OK)
		return st;
	st = osc_runs_detect_opts(&x->trace, &ro, &x->runs, err);
	if (st != OSC_OK)
		return st;
	st = select_runs(x, err);
	if (st != OSC_OK)
		return st;
	x->names.style = x->a.style;
	if (x->a.style != OSC_NAMES_MANGLED) {
		st = osc_names_build(&x->names, &x->trace, x->a.demangler, err);
		if (st != OSC_OK)
			return st;
	}
	aggregate(x, &x->cpu, x->a.shape ? OSC_LEVEL_SHAPE : OSC_LEVEL_OP, 0, true);
	aggregate(x, &x->gpu, x->a.dims ? OSC_LEVEL_DIMS : OSC_LEVEL_KERNEL,
		  OSC_KEY_NAME | (x->a.dims ? OSC_KEY_DIMS : 0) | (x->a.shape ? OSC_KEY_SHAPE : 0),
		  true);
	st = top_hitters(x, &x->cpu, "CPU", false, err);
	if (st == OSC_OK)
		st = top_hitters(x, &x->gpu, "GPU", true, err);
	if (st == OSC_OK && x->a.mapping)
		st = mapping(x, err);
	return st;
}

int osc_cmd_explore(int argc, char **argv)
{
	struct explore x;
	struct osc_error err;
	enum osc_status st;

	memset(&x, 0, sizeof(x));
	osc_error_clear(&err);
	x.a.count = 40;
	x.a.start = 1;
	if (osc_cli_config.has_names)
		x.a.style = osc_cli_config.names;
	osc_filter_init(&x.a.filter);
	osc_names_init(&x.names);
	osc_trace_init(&x.trace);
	st = parse_args(&x.a, argc, argv, &err);
	if (st == OSC_OK && x.a.help)
		print_help();
	else if (st == OSC_OK)
		st = explore_run(&x, &err);
	osc_agg_release(&x.cpu);
	osc_agg_release(&x.gpu);
	osc_agg_release(&x.map);
	osc_names_release(&x.names);
	osc_runsel_release(&x.sel);
	osc_runs_release(&x.runs);
	osc_trace_release(&x.trace);
	osc_filter_release(&x.a.filter);
	if (st != OSC_OK) {
		fflush(stdout);
		return osc_cli_fail(&err);
	}
	return OSC_EXIT_OK;
}
