/*
 * cli.c - option parsing and help from one option table, the options of the
 * table views, error lines, loading, table width and atomic output files.
 */
#include <ctype.h>
#include <json-c/json.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "opscope/base/alloc.h"
#include "opscope/base/suggest.h"
#include "opscope/base/threads.h"
#include "opscope/load/load.h"
#include "opscope/export/outfile.h"
#include "opscope/analysis/histogram.h"
#include "opscope/analysis/trace_cache.h"
#include "cli.h"
#include "config.h"

enum {
	OPT_BY = 1,
	OPT_RUNS,
	OPT_FILTER,
	OPT_REGEX,
	OPT_TOP,
	OPT_SORT,
	OPT_COLUMNS,
	OPT_OPS,
	OPT_CATEGORIES,
	OPT_GAPS,
	OPT_KERNEL_WAIT,
	OPT_LAUNCHES,
	OPT_SHORT,
	OPT_PER_OP,
	OPT_SHORT_ONLY,
	OPT_COLLECTIVES,
	OPT_ASC,
	OPT_FORMAT,
	OPT_OUTPUT,
	OPT_SCRIPT,
	OPT_HELP,
	OPT_VERSION,
	OPT_MATCH,
	OPT_OTHER_RUNS,
	OPT_CHANGED,
	OPT_MIN_CHANGE,
	OPT_SPEEDUP,
	OPT_SPEEDUP_CSV,
	OPT_RUN_RANGE,
	OPT_WHOLE_TRACE,
	OPT_DEMANGLER,
	OPT_NO_DEMANGLE,
	OPT_SHORT_NAMES,
	OPT_CSV_SAFE,
	OPT_FORCE,
	OPT_MAX_INPUT,
	OPT_THREADS,
	OPT_PEAK_TFLOPS,
	OPT_PEAK_TBS,
	OPT_TRACE_COLUMN,
	OPT_PERCENT_LIMIT,
	OPT_NO_CONFIG,
	OPT_HISTOGRAM,
	OPT_BINS,
	OPT_SCALE,
	OPT_MATRIX,
	OPT_MEASURE,
	OPT_SPLIT,
	OPT_STRAGGLER,
	OPT_PER_CALL,
	OPT_RANKS,
};

#define VIEW (OSC_MODE_REPORT | OSC_MODE_TUI | OSC_MODE_DEFAULT | OSC_MODE_DIFF | OSC_MODE_WHATIF)
#define REPORT (OSC_MODE_REPORT | OSC_MODE_DEFAULT | OSC_MODE_DIFF | OSC_MODE_WHATIF)
#define DIFF (OSC_MODE_DIFF | OSC_MODE_TUI | OSC_MODE_DEFAULT)

const struct osc_cli_option osc_cli_view_options[] = {
	{ OPT_BY, "by", 'b', "LEVEL",
	  "op (default), shape, kernel, dims, mapping, run, path, category or module", VIEW },
	{ OPT_SPLIT, "split", 0, "rank",
	  "a job's ranks: every rank's rows of the level, not their spread (--by rank: "
	  "a row per rank)",
	  OSC_MODE_REPORT | OSC_MODE_DEFAULT },
	{ OPT_STRAGGLER, "straggler", 0, "K",
	  "a job's --by rank: flag ranks beyond K times the median (default 1.10)",
	  OSC_MODE_REPORT | OSC_MODE_DEFAULT },
	{ OPT_RUNS, "runs", 'r', "SPEC", "runs to use (default: all but an ORT warm-up run 0)",
	  VIEW | OSC_MODE_GPU },
	{ OPT_RUN_RANGE, "run-range", 0, "RE[/N]",
	  "runs are the NVTX ranges named by RE (the Nth only with /N)",
	  VIEW | OSC_MODE_INFO | OSC_MODE_GPU },
	{ OPT_WHOLE_TRACE, "whole-trace", 'W', NULL,
	  "one run spanning the whole trace (run markers ignored)",
	  VIEW | OSC_MODE_INFO | OSC_MODE_GPU },
	{ OPT_NO_DEMANGLE, "no-demangle", 0, NULL, "show kernel names as in the trace (mangled)",
	  VIEW | OSC_MODE_GPU },
	{ OPT_SHORT_NAMES, "short-names", 0, NULL,
	  "kernel names without templates and parameters, a row per short name",
	  VIEW | OSC_MODE_GPU },
	{ OPT_DEMANGLER, "demangler", 0, "CMD",
	  "demangle kernel names with CMD, e.g. c++filt (default: libiberty)",
	  VIEW | OSC_MODE_GPU },
	{ OPT_FILTER, "filter", 'f', "PAT", "keep names matching PAT, exact or wildcard (repeatable)",
	  VIEW },
	{ OPT_MAX_INPUT, "max-input", 0, "SIZE",
	  "gz, zst or stdin may expand to SIZE at most, e.g. 64G (0: no limit; default 4x RAM)",
	  VIEW | OSC_MODE_INFO | OSC_MODE_GPU },
	{ OPT_THREADS, "threads", 'j', "N",
	  "use at most N threads (0, the default: every CPU this process may use)",
	  VIEW | OSC_MODE_INFO | OSC_MODE_GPU },
	{ OPT_OPS, "ops", 0, "CATS",
	  "ops are the events of these categories, e.g. cpu_op,user_annotation,python_function",
	  VIEW | OSC_MODE_GPU },
	{ OPT_CATEGORIES, "categories", 0, "FILE",
	  "op categories: rules 'CATEGORY op|kernel PATTERN' in FILE before the built-in ones",
	  VIEW },
	{ OPT_REGEX, "regex", 'e', "RE", "keep names matching the PCRE2 regex RE", VIEW },
	{ OPT_TOP, "top", 'n', "N", "first N rows, 0 = all (default: 40 table, all csv/json)",
	  REPORT },
	{ OPT_SORT, "sort", 's', "COL",
	  "sort by column COL (default: device, else self time; kernels: total)", REPORT },
	{ OPT_COLUMNS, "columns", 0, "LIST", "report: show the columns in LIST (comma-separated)",
	  OSC_MODE_REPORT },
	{ OPT_PEAK_TFLOPS, "peak-tflops", 0, "X",
	  "roofline: peak TFLOP/s of peak_flops_pct (default: the trace's GPU in the table)",
	  OSC_MODE_REPORT | OSC_MODE_TUI | OSC_MODE_DEFAULT },
	{ OPT_PEAK_TBS, "peak-tbs", 0, "Y",
	  "roofline: peak memory TB/s of peak_bw_pct (default: as --peak-tflops)",
	  OSC_MODE_REPORT | OSC_MODE_TUI | OSC_MODE_DEFAULT },
	{ OPT_PERCENT_LIMIT, "percent-limit", 0, "P",
	  "report: drop the rows under P % of the sorted measure's base (self, device)",
	  OSC_MODE_REPORT },
	{ OPT_HISTOGRAM, "histogram", 0, "NAME",
	  "report: the histogram of the durations of the rows named NAME instead",
	  OSC_MODE_REPORT },
	{ OPT_BINS, "bins", 0, "N", "report --histogram: at most N bins (default: 16)",
	  OSC_MODE_REPORT },
	{ OPT_SCALE, "scale", 0, "HOW",
	  "report --histogram: auto (default), linear or log",
	  OSC_MODE_REPORT },
	{ OPT_MATRIX, "matrix", 0, NULL,
	  "report: the top rows' device (else self) time per run, against the median run",
	  OSC_MODE_REPORT },
	{ OPT_MEASURE, "measure", 0, "M",
	  "report --matrix: self or device", OSC_MODE_REPORT },
	{ OPT_ASC, "asc", 0, NULL, "sort ascending (numbers sort descending by default)", REPORT },
	{ OPT_FORMAT, "format", 'F', "FMT",
	  "output format: table (default), csv, tsv, json or markdown",
	  REPORT | OSC_MODE_GPU },
	{ OPT_FORMAT, "format", 'F', "FMT", "output format: text (default) or json",
	  OSC_MODE_INFO },
	{ OPT_CSV_SAFE, "csv-safe", 0, NULL,
	  "CSV for spreadsheets: cells that look like formulas (= + - @) get a leading '",
	  REPORT | OSC_MODE_GPU },
	{ OPT_TRACE_COLUMN, "trace-column", 0, NULL,
	  "a last column 'trace': the trace as given, to join files (not the table)",
	  OSC_MODE_REPORT | OSC_MODE_WHATIF | OSC_MODE_GPU },
	{ OPT_OUTPUT, "output", 'o', "FILE",
	  "write to FILE (atomically); with no --format, its extension (.csv .tsv .json .md) "
	  "picks it",
	  REPORT | OSC_MODE_GPU },
	{ OPT_FORCE, "force", 0, NULL,
	  "replace an existing output file (keeping its mode, through a symlink)",
	  REPORT | OSC_MODE_GPU },
	{ OPT_GAPS, "gaps", 0, "N", "gpu: list the N longest idle gaps of the streams instead",
	  OSC_MODE_GPU },
	{ OPT_KERNEL_WAIT, "kernel-wait", 0, "NS",
	  "gpu: idle gaps shorter than NS ns are kernel waits (default: 30, as HTA)", OSC_MODE_GPU },
	{ OPT_LAUNCHES, "launches", 0, NULL,
	  "gpu: kernel launch statistics per kernel instead (delays, short kernels)", OSC_MODE_GPU },
	{ OPT_SHORT, "short", 0, "NS", "gpu --launches: kernels under NS ns are short (default: 10000)",
	  OSC_MODE_GPU },
	{ OPT_PER_OP, "per-op", 0, NULL,
	  "gpu --launches: a row per op that launched the kernels instead of per kernel",
	  OSC_MODE_GPU },
	{ OPT_SHORT_ONLY, "short-only", 0, NULL,
	  "gpu --launches: only the rows with short kernels, most short time first", OSC_MODE_GPU },
	{ OPT_COLLECTIVES, "collectives", 0, NULL,
	  "gpu: the collectives (record_param_comms) instead: size, time, algbw, busbw",
	  OSC_MODE_GPU },
	{ OPT_RANKS, "ranks", 0, "LIST",
	  "a job: only these ranks, e.g. 0,3,8-15 (default: every rank)",
	  OSC_MODE_REPORT | OSC_MODE_DEFAULT | OSC_MODE_GPU | OSC_MODE_INFO |
		  OSC_MODE_TUI },
	{ OPT_PER_CALL, "per-call", 0, NULL,
	  "gpu --collectives on a job's ranks: a row per call matched across the ranks",
	  OSC_MODE_GPU },
	{ OPT_SCRIPT, "script", 0, "FILE", "run the TUI on the keys and commands in FILE",
	  OSC_MODE_TUI | OSC_MODE_DEFAULT },
	{ OPT_MATCH, "match", 'm', "HOW", "compare: pair rows by name (default), shape or occurrence",
	  DIFF },
	{ OPT_OTHER_RUNS, "other-runs", 0, "SPEC",
	  "compare: the other trace's runs (default: --runs), or one trace's against --runs",
	  DIFF },
	{ OPT_CHANGED, "changed", 'c', NULL, "compare: only rows that appear, disappear or change",
	  DIFF },
	{ OPT_MIN_CHANGE, "min-change", 0, "PCT", "compare: with --changed, ignore changes under PCT %",
	  DIFF },
	{ OPT_SPEEDUP, "speedup", 'x', "RULE",
	  "whatif: OP[@SHAPE]=FACTOR, OP exact or wildcard (repeatable)", OSC_MODE_WHATIF },
	{ OPT_SPEEDUP_CSV, "speedup-csv", 0, "FILE", "whatif: rules from a CSV file (op,shape,factor)",
	  OSC_MODE_WHATIF },
	{ OPT_NO_CONFIG, "no-config", 0, NULL,
	  "ignore the configuration file (~/.config/opscope/config)",
	  VIEW | OSC_MODE_INFO | OSC_MODE_GPU },
	{ OPT_HELP, "help", 'h', NULL, "show this help and exit",
	  VIEW | OSC_MODE_INFO | OSC_MODE_GPU },
	{ OPT_VERSION, "version", 'V', NULL, "show the version and exit", OSC_MODE_DEFAULT },
	{ 0, NULL, 0, NULL, NULL, 0 },
};

/* ---- option parsing ---- */

void osc_cli_parser_init(struct osc_cli_parser *p, int argc, char **argv)
{
	memset(p, 0, sizeof(*p));
	p->argc = argc;
	p->argv = argv;
	p->next = 1;
}

static const struct osc_cli_option *find_long(const struct osc_cli_option *opts, unsigned mode,
					      const char *name, size_t len)
{
	for (; opts->id; opts++)
		if ((opts->modes & mode) && strlen(opts->name) == len &&
		    !strncmp(opts->name, name, len))
			return opts;
	return NULL;
}

static const struct osc_cli_option *find_short(const struct osc_cli_option *opts,
					       unsigned mode, char c)
{
	for (; opts->id; opts++)
		if ((opts->modes & mode) && opts->short_name && opts->short_name == c)
			return opts;
	return NULL;
}

/* The argument of o from the next argv entry, or a "missing argument" error. */
static int take_next(struct osc_cli_parser *p, const struct osc_cli_option *o,
		     const char *as_written, struct osc_error *err)
{
	if (p->next >= p->argc) {
		osc_error_set(err, OSC_USAGE, as_written, OSC_NO_OFFSET, NULL,
			      "missing argument %s", o->arg);
		return OSC_CLI_ERROR;
	}
	p->arg = p->argv[p->next++];
	return o->id;
}

/* The long option of this mode that name was likely meant for, or NULL. */
static const char *similar_option(const struct osc_cli_option *opts, unsigned mode,
				  const char *name)
{
	const char *names[128];
	size_t n = 0;

	for (; opts->id && n < sizeof(names) / sizeof(names[0]); opts++)
		if (opts->modes & mode)
			names[n++] = opts->name;
	return osc_suggest(name, names, n);
}

static int next_short(struct osc_cli_parser *p, const struct osc_cli_option *opts,
		      unsigned mode, struct osc_error *err)
{
	char c = *p->cluster++, written[3] = { '-', c, '\0' };
	const struct osc_cli_option *o = find_short(opts, mode, c);

	if (!o) {
		osc_error_set(err, OSC_USAGE, written, OSC_NO_OFFSET, NULL,
			      "unknown option (see --help)");
		return OSC_CLI_ERROR;
	}
	p->arg = NULL;
	if (!o->arg)
		return o->id;
	if (*p->cluster) {
		p->arg = p->cluster;
		p->cluster = NULL;
		return o->id;
	}
	p->cluster = NULL;
	return take_next(p, o, written, err);
}

int osc_cli_next(struct osc_cli_parser *p, const struct osc_cli_option *opts, unsigned mode,
		 struct osc_error *err)
{
	const struct osc_cli_option *o;
	const char *a, *eq;
	size_t len;

	if (p->cluster && *p->cluster)
		return next_short(p, opts, mode, err);
	if (p->next >= p->argc)
		return OSC_CLI_DONE;
	a = p->argv[p->next++];
	p->arg = a;
	if (p->operands_only || a[0] != '-' || !a[1])
		return OSC_CLI_OPERAND;
	if (!strcmp(a, "--")) {
		p->operands_only = true;
		return osc_cli_next(p, opts, mode, err);
	}
	if (a[1] != '-') {
		p->cluster = a + 1;
		return next_short(p, opts, mode, err);
	}
	eq = strchr(a, '=');
	len = eq ? (size_t)(eq - a) : strlen(a);
	o = find_long(opts, mode, a + 2, len - 2);
	if (!o) {
		char *name = osc_xstrndup(a + 2, len - 2);
		const char *meant = similar_option(opts, mode, name);

		osc_error_set(err, OSC_USAGE, NULL, OSC_NO_OFFSET, NULL,
			      "unknown option (%s%s%ssee --help)", meant ? "did you mean --" : "",
			      meant ? meant : "", meant ? "? " : "");
		snprintf(err->subject, sizeof(err->subject), "%.*s", (int)len, a);
		free(name);
		return OSC_CLI_ERROR;
	}
	p->arg = NULL;
	if (!o->arg) {
		if (eq) {
			osc_error_set(err, OSC_USAGE, NULL, OSC_NO_OFFSET, NULL,
				      "takes no argument");
			snprintf(err->subject, sizeof(err->subject), "--%s", o->name);
			return OSC_CLI_ERROR;
		}
		return o->id;
	}
	if (eq) {
		p->arg = eq + 1;
		return o->id;
	}
	return take_next(p, o, a, err);
}

void osc_cli_print_options(FILE *out, const struct osc_cli_option *opts, unsigned mode)
{
	for (; opts->id; opts++) {
		char left[64];

		if (!(opts->modes & mode))
			continue;
		snprintf(left, sizeof(left), "%c%c%c --%s%s%s", opts->short_name ? '-' : ' ',
			 opts->short_name ? opts->short_name : ' ', opts->short_name ? ',' : ' ',
			 opts->name, opts->arg ? " " : "", opts->arg ? opts->arg : "");
		fprintf(out, "  %-22s %s\n", left, opts->help);
	}
}

static void on_signal(int sig)
{
	osc_outfile_abandon();
	signal(sig, SIG_DFL);
	raise(sig);
}

void osc_cli_catch_signals(void)
{
	static const int sigs[] = { OSC_EXTERNAL_SIGNALS };
	struct sigaction sa, old;

	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = on_signal;
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		if (!sigaction(sigs[i], NULL, &old) && old.sa_handler != SIG_IGN)
			sigaction(sigs[i], &sa, NULL);
}

char *osc_cli_rows_json(size_t shown, size_t total, const char *more)
{
	return osc_xasprintf("{\"shown\": %zu, \"total\": %zu%s}", shown, total, more);
}

char *osc_cli_runs_json(const struct osc_runsel *sel, const struct osc_runs *r,
			const char *text)
{
	struct json_object *o = json_object_new_object(), *list = json_object_new_array();
	char *s;

	json_object_object_add(o, "text", json_object_new_string(text));
	json_object_object_add(o, "source", json_object_new_string(osc_run_source_name(r->source)));
	json_object_object_add(o, "count", json_object_new_uint64(r->nr));
	for (size_t i = 0; i < sel->nr_runs; i++)
		if (sel->on[i])
			json_object_array_add(list, json_object_new_uint64(i));
	json_object_object_add(o, "selected", list);
	s = osc_xstrdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_SPACED |
							   JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(o);
	return s;
}

int osc_cli_fail(const struct osc_error *err)
{
	char line[2048];

	osc_error_format(err, line, sizeof(line));
	fprintf(stderr, "opscope: %s\n", line);
	return OSC_EXIT_ERROR;
}

/* ---- the table views ---- */

static enum osc_status parse_count(const char *s, const char *what, size_t *out,
				   struct osc_error *err)
{
	char *end;
	unsigned long long n;

	errno = 0;
	n = strtoull(s, &end, 10);
	if (!*s || *end || s[0] == '-' || s[0] == '+' || errno || n > SIZE_MAX)
		return osc_error_set(err, OSC_USAGE, what, OSC_NO_OFFSET, NULL,
				     "not a row count: '%s'", s);
	*out = (size_t)n;
	return OSC_OK;
}

/*
 * A column of the level's table by its title, with or without its unit
 * ("total", "total_us", "kernel_avg_dur").
 */
static enum osc_status parse_sort(const char *s, enum osc_level level, enum osc_stat *out,
				  struct osc_error *err)
{
	size_t nr, c, len = 0;
	const struct osc_column *cols = osc_level_catalog(level, &nr);
	char valid[2048] = "";

	c = osc_columns_find(cols, nr, s);
	if (c < nr) {
		*out = cols[c].stat;
		return OSC_OK;
	}
	char hint[128];

	for (size_t i = 0; i < nr && len < sizeof(valid); i++)
		len += (size_t)snprintf(valid + len, sizeof(valid) - len, "%s%.*s", i ? ", " : "",
					(int)osc_column_stem(cols[i].title), cols[i].title);
	return osc_error_set(err, OSC_USAGE, "--sort", OSC_NO_OFFSET, NULL,
			     "unknown column '%s' for --by %s%s (valid: %s)", s,
			     osc_level_name(level),
			     osc_columns_did_you_mean(cols, nr, s, hint, sizeof(hint)), valid);
}

/* A duration in whole ns, 0 or more. */
static enum osc_status parse_ns(const char *s, const char *what, int64_t *out,
				struct osc_error *err)
{
	char *end;
	long long n;

	errno = 0;
	n = strtoll(s, &end, 10);
	if (!*s || *end || n < 0 || errno)
		return osc_error_set(err, OSC_USAGE, what, OSC_NO_OFFSET, NULL,
				     "not a duration in ns: '%s'", s);
	*out = n;
	return OSC_OK;
}

static enum osc_status parse_percent(const char *s, const char *opt, double *out,
				     struct osc_error *err)
{
	char *end;
	double d;

	errno = 0;
	d = strtod(s, &end);
	if (!*s || *end || errno || !(d >= 0) || d > 1e9)
		return osc_error_set(err, OSC_USAGE, opt, OSC_NO_OFFSET, NULL,
				     "not a percentage: '%s'", s);
	*out = d;
	return OSC_OK;
}

/* A peak for the roofline percentages: a number > 0. */
static enum osc_status parse_peak(const char *s, const char *opt, double *out,
				  struct osc_error *err)
{
	char *end;
	double d;

	errno = 0;
	d = strtod(s, &end);
	if (!*s || *end || errno || !(d > 0) || d > 1e9)
		return osc_error_set(err, OSC_USAGE, opt, OSC_NO_OFFSET, NULL,
				     "not a peak (a number > 0): '%s'", s);
	*out = d;
	return OSC_OK;
}

static enum osc_status view_option(struct osc_cli_view *v, int id, const char *arg,
				   struct osc_error *err)
{
	switch (id) {
	case OPT_BY:
		/* Not aggregation levels: tables of their own (optable.h, ranks.h). */
		v->op_instance = !strcmp(arg, "op-instance");
		v->by_rank = !strcmp(arg, "rank");
		v->report_only |= v->op_instance; /* the explorer has no such table: print it */
		return v->op_instance || v->by_rank ? OSC_OK : osc_level_parse(arg, &v->level, err);
	case OPT_RANKS:
		v->ranks = arg;
		return OSC_OK;
	case OPT_PER_CALL:
		v->per_call = true;
		return OSC_OK;
	case OPT_SPLIT:
		v->split_rank = !strcmp(arg, "rank");
		return v->split_rank ? OSC_OK : osc_error_set(err, OSC_USAGE, "--split", OSC_NO_OFFSET,
							     NULL, "unknown key '%s' (valid: rank)", arg);
	case OPT_STRAGGLER: {
		char *end;

		errno = 0;
		v->straggler = strtod(arg, &end);
		if (errno || end == arg || *end || !(v->straggler >= 1) || v->straggler > 1000)
			return osc_error_set(err, OSC_USAGE, "--straggler", OSC_NO_OFFSET, NULL,
					     "not a factor from 1 to 1000: '%s'", arg);
		return OSC_OK;
	}
	case OPT_RUNS:
		v->runs = arg;
		return OSC_OK;
	case OPT_RUN_RANGE:
		v->run_range = arg;
		return OSC_OK;
	case OPT_WHOLE_TRACE:
		v->whole_trace = true;
		return OSC_OK;
	case OPT_NO_DEMANGLE:
		v->names = OSC_NAMES_MANGLED;
		return OSC_OK;
	case OPT_SHORT_NAMES:
		v->names = OSC_NAMES_SHORT;
		return OSC_OK;
	case OPT_DEMANGLER:
		v->demangler = arg;
		return OSC_OK;
	case OPT_FILTER:
		OSC_GROW(v->filters, v->nr_filters + 1, v->alloc_filters);
		v->filters[v->nr_filters++] = arg;
		osc_filter_add_pattern(&v->filter, arg);
		return OSC_OK;
	case OPT_REGEX:
		v->regex = arg;
		return osc_filter_set_regex(&v->filter, arg, err);
	case OPT_TOP:
		v->top_set = true;
		return parse_count(arg, "--top", &v->top, err);
	case OPT_SORT:
		v->sort_arg = arg; /* checked once the command is known (compare has its columns) */
		return OSC_OK;
	case OPT_OPS:
		v->ops = arg;
		return OSC_OK;
	case OPT_CATEGORIES:
		return osc_categories_load(&v->categories, arg, err);
	case OPT_PEAK_TFLOPS:
		return parse_peak(arg, "--peak-tflops", &v->peak_tflops, err);
	case OPT_PEAK_TBS:
		return parse_peak(arg, "--peak-tbs", &v->peak_tbs, err);
	case OPT_GAPS:
		return parse_count(arg, "--gaps", &v->gaps, err);
	case OPT_KERNEL_WAIT:
		return parse_ns(arg, "--kernel-wait", &v->kernel_wait, err);
	case OPT_LAUNCHES:
		v->launches = true;
		return OSC_OK;
	case OPT_SHORT:
		return parse_ns(arg, "--short", &v->short_kernel, err);
	case OPT_PER_OP:
		v->per_op = true;
		return OSC_OK;
	case OPT_COLLECTIVES:
		v->collectives = true;
		return OSC_OK;
	case OPT_SHORT_ONLY:
		v->short_only = true;
		return OSC_OK;
	case OPT_MAX_INPUT:
		return osc_cli_parse_size(arg, &v->max_input, err);
	case OPT_THREADS:
		return osc_cli_parse_threads(arg, "--threads", err);
	case OPT_COLUMNS:
		v->columns = arg; /* checked against the level once --by is known */
		return OSC_OK;
	case OPT_ASC:
		v->asc = true;
		return OSC_OK;
	case OPT_FORMAT:
		v->format_given = true;
		if (!strcmp(arg, "text")) { /* info's and tree's name of the table */
			v->format = OSC_EXPORT_TABLE;
			return OSC_OK;
		}
		return osc_export_format_parse(arg, &v->format, err);
	case OPT_OUTPUT:
		v->output = arg;
		return OSC_OK;
	case OPT_TRACE_COLUMN:
		v->trace_column = true;
		return OSC_OK;
	case OPT_CSV_SAFE:
		v->export_flags |= OSC_EXPORT_CSV_SAFE;
		return OSC_OK;
	case OPT_FORCE:
		v->export_flags |= OSC_WRITE_REPLACE;
		return OSC_OK;
	case OPT_SCRIPT:
		v->script = arg;
		return OSC_OK;
	case OPT_NO_CONFIG: /* main.c read no configuration */
		return OSC_OK;
	case OPT_HELP:
		v->help = true;
		return OSC_OK;
	case OPT_VERSION:
		v->version = true;
		return OSC_OK;
	case OPT_MATCH:
		return osc_match_parse(arg, &v->match, err);
	case OPT_OTHER_RUNS:
		v->other_runs = arg;
		return OSC_OK;
	case OPT_MIN_CHANGE:
		v->changed = true; /* a threshold asks for changed rows */
		return parse_percent(arg, "--min-change", &v->min_change, err);
	case OPT_HISTOGRAM:
		v->histogram = arg;
		return OSC_OK;
	case OPT_BINS:
		if (parse_count(arg, "--bins", &v->bins, err) != OSC_OK)
			return err->code;
		if (v->bins < 1 || v->bins > OSC_HIST_MAX_BINS)
			return osc_error_set(err, OSC_USAGE, "--bins", OSC_NO_OFFSET, NULL,
					     "not a number of bins from 1 to %d: '%s'",
					     OSC_HIST_MAX_BINS, arg);
		return OSC_OK;
	case OPT_SCALE:
		return osc_hist_scale_parse(arg, &v->scale, err);
	case OPT_MATRIX:
		v->matrix = true;
		return OSC_OK;
	case OPT_MEASURE:
		if (!strcmp(arg, "self") || !strcmp(arg, "self_us"))
			v->measure = OSC_MEASURE_SELF;
		else if (!strcmp(arg, "device") || !strcmp(arg, "device_us"))
			v->measure = OSC_MEASURE_DEVICE;
		else
			return osc_error_set(err, OSC_USAGE, "--measure", OSC_NO_OFFSET, NULL,
					     "unknown measure '%s' (valid: self, device)", arg);
		return OSC_OK;
	case OPT_PERCENT_LIMIT:
		return parse_percent(arg, "--percent-limit", &v->percent_limit, err);
	case OPT_CHANGED:
		v->changed = true;
		return OSC_OK;
	case OPT_SPEEDUP:
		OSC_GROW(v->speedups, v->nr_speedups + 1, v->alloc_speedups);
		v->speedups[v->nr_speedups++] = arg;
		return OSC_OK;
	case OPT_SPEEDUP_CSV:
		v->speedup_csv = arg;
		return OSC_OK;
	}
	return OSC_OK;
}

bool osc_cli_view_is_compare(const struct osc_cli_view *v)
{
	return v->other || v->other_runs;
}

#define KERNEL_WAIT_NS 30     /* gpu --kernel-wait's default */
#define SHORT_KERNEL_NS 10000 /* gpu --short's default */

const char *osc_cli_fixed_table_option(const struct osc_cli_view *v)
{
	return v->sort_arg ? "--sort" : v->asc ? "--asc" : v->columns ? "--columns"
		: v->percent_limit >= 0 ? "--percent-limit" : NULL;
}

/* The first option of gpu's tables that the one asked for (breakdown, --launches,
   --collectives) does not have, or NULL. */
static const char *gpu_option(const struct osc_cli_view *v)
{
	const char *launch = v->per_op ? "--per-op" : v->short_only ? "--short-only"
			     : v->short_kernel != SHORT_KERNEL_NS ? "--short" : NULL;
	const char *gaps = v->gaps ? "--gaps"
			   : v->kernel_wait != KERNEL_WAIT_NS ? "--kernel-wait" : NULL;

	if (v->collectives)
		return v->launches ? "--launches" : gaps ? gaps : launch;
	return v->launches ? gaps : launch;
}

/* The first option of a job's tables given (--by rank, --split, --ranks, --straggler), or NULL. */
static const char *job_option(const struct osc_cli_view *v)
{
	return v->by_rank ? "--by" : v->split_rank ? "--split" : v->ranks ? "--ranks"
		: v->straggler > 0 ? "--straggler" : NULL;
}

/*
 * Options of a table that the command does not print, refused rather than
 * ignored: a job's without a job (report and the explorer); --by
 * op-instance and --by rank are report's tables alone; --changed,
 * --min-change and --match a compare's; the fixed tables' order and
 * columns; gpu's options of its other tables.
 */
static enum osc_status check_tables(const struct osc_cli_view *v, unsigned mode,
				    struct osc_error *err)
{
	const char *fixed = osc_cli_fixed_table_option(v);

	if ((v->op_instance || v->by_rank) &&
	    ((mode & (OSC_MODE_WHATIF | OSC_MODE_DIFF)) || osc_cli_view_is_compare(v)))
		return osc_error_set(err, OSC_USAGE, "--by", OSC_NO_OFFSET, NULL,
				     "%s is a table of opscope report alone (%s takes the levels)",
				     v->op_instance ? "op-instance" : "rank",
				     mode & OSC_MODE_WHATIF ? "whatif" : "a compare");
	if (job_option(v) && v->other)
		return osc_error_set(err, OSC_USAGE, job_option(v), OSC_NO_OFFSET, NULL,
				     "two traces are a compare: give a job's ranks with "
				     "'opscope report A B' or a directory");
	if (job_option(v) && (mode & (OSC_MODE_REPORT | OSC_MODE_DEFAULT)) &&
	    !osc_cli_view_is_job(v))
		return osc_error_set(err, OSC_USAGE, job_option(v), OSC_NO_OFFSET, NULL,
				     "needs a job's ranks: a directory, several traces or "
				     "summary files");
	if (v->op_instance && fixed)
		return osc_error_set(err, OSC_USAGE, fixed, OSC_NO_OFFSET, NULL,
				     "not with --by op-instance (its columns and order are fixed)");
	if (v->histogram && (fixed || v->top_set))
		return osc_error_set(err, OSC_USAGE, v->top_set ? "--top" : fixed, OSC_NO_OFFSET,
				     NULL, "not with --histogram (its bins are in order; --bins "
				     "sets how many)");
	if (v->matrix && v->columns)
		return osc_error_set(err, OSC_USAGE, "--columns", OSC_NO_OFFSET, NULL,
				     "not with --matrix (its columns are the runs)");
	if ((mode & OSC_MODE_GPU) && gpu_option(v))
		return osc_error_set(err, OSC_USAGE, gpu_option(v), OSC_NO_OFFSET, NULL,
				     "not in %s", v->collectives ? "the collectives table"
				     : v->launches ? "the launch table" : "the breakdown "
				     "(an option of --launches)");
	if (v->op_instance && v->script)
		return osc_error_set(err, OSC_USAGE, "--by", OSC_NO_OFFSET, NULL,
				     "op-instance is a table of opscope report alone (in the "
				     "explorer, Enter on an op row lists its instances)");
	if ((mode & OSC_MODE_DEFAULT) && !osc_cli_view_is_compare(v) &&
	    (v->changed || v->match != OSC_MATCH_NAME))
		return osc_error_set(err, OSC_USAGE,
				     !v->changed ? "--match" : v->min_change > 0 ? "--min-change"
								 : "--changed",
				     OSC_NO_OFFSET, NULL,
				     "needs a compare: a second trace, or --other-runs");
	return OSC_OK;
}

/* --sort names a column of the table the command prints: a diff's or an aggregate's. */
static enum osc_status check_sort(struct osc_cli_view *v, unsigned mode, struct osc_error *err)
{
	enum osc_diff_col col;

	if (mode & OSC_MODE_WHATIF)
		return OSC_OK; /* cmd_whatif.c knows its columns */
	if (!v->sort_arg || (!osc_cli_view_is_compare(v) && !(mode & OSC_MODE_DIFF)))
		return v->sort_arg ? parse_sort(v->sort_arg, v->level, &v->sort, err) : OSC_OK;
	if (osc_diff_col_parse(v->sort_arg, &col))
		return OSC_OK;
	return osc_error_set(err, OSC_USAGE, "--sort", OSC_NO_OFFSET, NULL,
			     "unknown column '%s' (valid: name, side, base_count, other_count, "
			     "base_total, other_total, base_mean, other_mean, delta, delta_pct, ratio)",
			     v->sort_arg);
}

/*
 * The configuration's sort where no --sort was given: for the tables of one
 * trace whose level has that column (a compare and whatif have their own).
 */
static enum osc_status config_sort(struct osc_cli_view *v, unsigned mode)
{
	size_t nr;
	const struct osc_column *cols = osc_level_catalog(v->level, &nr);
	size_t c = osc_columns_find(cols, nr, osc_cli_config.sort);

	if (v->sort_arg || !osc_cli_config.sort[0] || osc_cli_view_is_compare(v) ||
	    (mode & (OSC_MODE_DIFF | OSC_MODE_WHATIF)) || c >= nr)
		return OSC_OK;
	v->sort = cols[c].stat;
	return OSC_OK;
}

enum osc_status osc_cli_view_parse(struct osc_cli_view *v, int argc, char **argv,
				   unsigned mode, struct osc_error *err)
{
	struct osc_cli_parser p;
	int id;

	memset(v, 0, sizeof(*v));
	v->level = osc_cli_config.has_level ? osc_cli_config.level : OSC_LEVEL_OP;
	if (osc_cli_config.has_names)
		v->names = osc_cli_config.names;
	v->sort = OSC_STAT_NR;
	v->kernel_wait = KERNEL_WAIT_NS;
	v->short_kernel = SHORT_KERNEL_NS;
	v->format = OSC_EXPORT_TABLE;
	v->percent_limit = -1;
	v->measure = OSC_MEASURE_NR;
	osc_filter_init(&v->filter);
	osc_categories_init(&v->categories);
	osc_cli_parser_init(&p, argc, argv);
	while ((id = osc_cli_next(&p, osc_cli_view_options, mode, err)) != OSC_CLI_DONE) {
		if (id == OSC_CLI_ERROR)
			return err->code;
		if (id == OSC_CLI_OPERAND) {
			if (v->path && !(mode & (OSC_MODE_DIFF | OSC_MODE_DEFAULT | OSC_MODE_REPORT |
						  OSC_MODE_GPU | OSC_MODE_INFO)))
				return osc_error_set(err, OSC_USAGE, p.arg, OSC_NO_OFFSET, NULL,
						     "unexpected argument: one trace at a time");
			if (v->nr_inputs == 2 && (mode & OSC_MODE_DIFF))
				return osc_error_set(err, OSC_USAGE, p.arg, OSC_NO_OFFSET, NULL,
						     "unexpected argument: two traces at most");
			OSC_GROW(v->inputs, v->nr_inputs + 1, v->alloc_inputs);
			v->inputs[v->nr_inputs++] = p.arg;
			v->path = v->inputs[0];
			continue;
		}
		if (view_option(v, id, p.arg, err) != OSC_OK)
			return err->code;
		if (v->help || v->version)
			return OSC_OK;
		for (const struct osc_cli_option *o = osc_cli_view_options; o->id; o++)
			if (o->id == id && !(o->modes & OSC_MODE_TUI))
				v->report_only = true;
	}
	if (v->output && !v->format_given)
		osc_export_format_of_name(v->output, &v->format);
	/* A second trace is the other side of a compare; three or more are a job's ranks. */
	if (v->nr_inputs == 2 && (mode & (OSC_MODE_DIFF | OSC_MODE_DEFAULT)))
		v->other = v->inputs[1];
	if (check_tables(v, mode, err) != OSC_OK)
		return err->code;
	if (v->histogram && v->matrix)
		return osc_error_set(err, OSC_USAGE, "--matrix", OSC_NO_OFFSET, NULL,
				     "one of --histogram and --matrix at a time");
	if ((v->bins || v->scale != OSC_HIST_AUTO) && !v->histogram)
		return osc_error_set(err, OSC_USAGE, v->bins ? "--bins" : "--scale", OSC_NO_OFFSET,
				     NULL, "needs --histogram NAME");
	if (v->measure != OSC_MEASURE_NR && !v->matrix)
		return osc_error_set(err, OSC_USAGE, "--measure", OSC_NO_OFFSET, NULL,
				     "needs --matrix");
	if (v->trace_column && v->format == OSC_EXPORT_TABLE)
		return osc_error_set(err, OSC_USAGE, "--trace-column", OSC_NO_OFFSET, NULL,
				     "needs --format csv, tsv, json or markdown");
	if (check_sort(v, mode, err) != OSC_OK)
		return err->code;
	return config_sort(v, mode);
}

void osc_cli_view_release(struct osc_cli_view *v)
{
	free(v->inputs);
	free(v->filters);
	free(v->speedups);
	osc_filter_release(&v->filter);
	osc_categories_release(&v->categories);
	memset(v, 0, sizeof(*v));
}

/* ---- loading ---- */

enum osc_status osc_cli_names(struct osc_names *n, const struct osc_trace *t,
			      enum osc_name_style style, const char *demangler, bool shown,
			      struct osc_error *err)
{
	if (!shown) { /* nothing to demangle: no --demangler run */
		n->style = style;
		return OSC_OK;
	}
	return osc_names_in_style(n, t, style, demangler, err);
}

const char *osc_cli_input_name(const char *path)
{
	return path ? path : osc_sample_name;
}

/* "opscope: warning: FILE: text", the file name escaped as in error lines. */
static void print_note(const char *kind, const char *name, const char *text)
{
	struct osc_error e;
	char line[2048];

	osc_error_set(&e, OSC_OK, name, OSC_NO_OFFSET, NULL, "%s", text);
	osc_error_format(&e, line, sizeof(line));
	fprintf(stderr, "opscope: %s%s\n", kind, line);
}

void osc_cli_print_warnings(const struct osc_trace *t, const char *name)
{
	for (int w = 0; w < OSC_WARN_COUNT; w++) {
		char line[256];

		if (t->warnings[w].count)
			print_note("warning: ", name,
				   osc_warning_format(&t->warnings[w], (enum osc_warn)w, line,
						      sizeof(line)));
	}
}

enum osc_status osc_cli_check_args(const struct osc_trace *t, struct osc_error *err)
{
	if (!osc_trace_args_lost(t))
		return OSC_OK;
	return osc_error_set(err, OSC_IO, t->path, OSC_NO_OFFSET, NULL,
			     "the file changed on disk while it was read (is a program "
			     "writing it?)");
}

enum osc_status osc_cli_select_ops(struct osc_trace *t, const char *ops, struct osc_error *err)
{
	return ops ? osc_trace_select_ops(t, ops, err) : OSC_OK;
}

enum osc_status osc_cli_select_runs(const struct osc_cli_view *v, const struct osc_trace *t,
				    const char *runs, struct osc_runs *r, struct osc_runsel *sel,
				    struct osc_error *err)
{
	struct osc_runs_opts ro = { .range = v->run_range, .whole = v->whole_trace };
	enum osc_status st = osc_runs_detect_opts(t, &ro, r, err);

	if (st == OSC_OK)
		st = osc_runsel_parse(runs, r->nr, r->warmup, sel, err);
	return st;
}

enum osc_status osc_cli_open(const struct osc_cli_view *v, const char *path, const char *runs,
			     struct osc_trace *t, struct osc_runs *r, struct osc_runsel *sel,
			     struct osc_error *err)
{
	enum osc_status st = osc_cli_load(path, v->max_input, t, err);

	if (st == OSC_OK)
		st = osc_cli_select_ops(t, v->ops, err);
	if (st == OSC_OK)
		st = osc_cli_select_runs(v, t, runs, r, sel, err);
	return st;
}

/* A pipe or FIFO keeps the load waiting: say so once, rather than hang silently. */
static void say_waiting(const struct osc_load_progress *p, void *path)
{
	if (p->waiting)
		print_note("", path, "waiting for data (a pipe or FIFO with no writer yet?); "
			   "Ctrl-C stops");
}

enum osc_status osc_cli_parse_threads(const char *s, const char *subject, struct osc_error *err)
{
	size_t n;
	enum osc_status st = osc_threads_parse(s, subject, &n, err);

	if (st == OSC_OK)
		osc_threads_cap(n);
	return st;
}

enum osc_status osc_cli_parse_size(const char *s, uint64_t *out, struct osc_error *err)
{
	char *end;
	unsigned long long n;
	int shift = 0;

	errno = 0;
	n = strtoull(s, &end, 10);
	if (*end && strchr("kKmMgGtT", *end) && !end[1])
		shift = 10 * (1 + (int)(strchr("kmgt", (char)(*end | 0x20)) - "kmgt"));
	if (!*s || !isdigit((unsigned char)*s) || errno || (*end && !shift) ||
	    (shift && n > (UINT64_MAX >> shift)))
		return osc_error_set(err, OSC_USAGE, "--max-input", OSC_NO_OFFSET, NULL,
				     "not a size: '%s' (bytes, or with K, M, G or T)", s);
	*out = n ? (uint64_t)n << shift : UINT64_MAX;
	return OSC_OK;
}

enum osc_status osc_cli_load(const char *path, uint64_t max_input, struct osc_trace *t,
			     struct osc_error *err)
{
	enum osc_status st;

	osc_set_oom_subject(osc_cli_input_name(path));
	if (path) {
		struct osc_load_opts opts = { .progress = say_waiting, .userdata = (void *)path,
					      .max_input = max_input };

		st = osc_load(path, &opts, t, err);
	} else {
		fprintf(stderr, "opscope: no trace given, using the bundled sample %s\n",
			osc_sample_name);
		st = osc_load_buffer(osc_sample_name, osc_sample_data, osc_sample_size, NULL, t,
				     err);
	}
	if (st == OSC_OK)
		osc_cli_print_warnings(t, osc_cli_input_name(path));
	return st;
}

/* ---- output ---- */

int osc_cli_width(bool to_tty)
{
	const char *env = getenv("COLUMNS");
	struct winsize ws;

	if (env && *env) {
		char *end;
		long n = strtol(env, &end, 10);

		if (!*end && n > 0 && n < 100000)
			return (int)n;
	}
	if (to_tty && isatty(STDOUT_FILENO) && !ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) &&
	    ws.ws_col > 0)
		return ws.ws_col;
	return 120;
}

int osc_cli_view_main(int argc, char **argv, unsigned mode, void (*help)(void),
		      osc_cli_view_fn run)
{
	struct osc_cli_view v;
	struct osc_error err;
	int rc;

	osc_error_clear(&err);
	if (osc_cli_view_parse(&v, argc, argv, mode, &err) != OSC_OK)
		rc = osc_cli_fail(&err);
	else if (v.help) {
		help();
		rc = OSC_EXIT_OK;
	} else {
		rc = run(&v);
	}
	osc_cli_view_release(&v);
	return rc;
}

enum osc_status osc_cli_write_table(const char *path, enum osc_export_format f,
				    const struct osc_table *t, const struct osc_export_meta *m,
				    unsigned flags, struct osc_error *err)
{
	return osc_export_file(path, f, t, m, osc_cli_width(!path || !strcmp(path, "-")), flags,
			       err);
}

enum osc_status osc_cli_write_view(const struct osc_cli_view *v, const struct osc_table *t,
				   const struct osc_export_meta *m, struct osc_error *err)
{
	struct osc_table_constant ctx;
	struct osc_table with;
	enum osc_status st;

	if (!v->trace_column)
		return osc_cli_write_table(v->output, v->format, t, m, v->export_flags, err);
	osc_table_add_constant(&ctx, t, "trace", osc_cli_input_name(v->path), &with);
	st = osc_cli_write_table(v->output, v->format, &with, m, v->export_flags, err);
	osc_table_constant_release(&ctx);
	return st;
}

bool osc_cli_trace_option(int id, const char *arg, struct osc_cli_trace_args *a,
			  enum osc_status *st, struct osc_error *err)
{
	*st = OSC_OK;
	switch (id) {
	case OSC_CLI_OPERAND:
		if (a->v.path)
			*st = osc_error_set(err, OSC_USAGE, arg, OSC_NO_OFFSET, NULL,
					    "unexpected argument: one trace at a time");
		a->v.path = arg;
		return true;
	case OSC_TOPT_RUNS:
		a->runs = arg;
		return true;
	case OSC_TOPT_RUN_RANGE:
		a->v.run_range = arg;
		return true;
	case OSC_TOPT_WHOLE_TRACE:
		a->v.whole_trace = true;
		return true;
	case OSC_TOPT_OUTPUT:
		a->output = arg;
		return true;
	case OSC_TOPT_FORCE:
		a->flags |= OSC_WRITE_REPLACE;
		return true;
	case OSC_TOPT_MAX_INPUT:
		*st = osc_cli_parse_size(arg, &a->v.max_input, err);
		return true;
	case OSC_TOPT_THREADS:
		*st = osc_cli_parse_threads(arg, "--threads", err);
		return true;
	case OSC_TOPT_NO_CONFIG: /* main.c read no configuration */
		return true;
	case OSC_TOPT_HELP:
		a->help = true;
		return true;
	default:
		return false;
	}
}
